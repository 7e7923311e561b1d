/* Classic DRA (KEP-3063; resource.k8s.io/v1alpha2, Kubernetes 1.27-1.30) to
 * structured parameters (resource.k8s.io/v1), where that is possible.
 *
 *   ResourceClass          -> DeviceClass of the same name selecting its
 *                             driver: device.driver == "<driverName>"
 *   ResourceClaim          -> ResourceClaim with one request `device`:
 *                             exactly one device of the class of that name
 *   ResourceClaimTemplate  -> ResourceClaimTemplate, the same for its claims
 *   PodSchedulingContext   -> nothing: the scheduler negotiates no more
 * Names, namespaces, labels, annotations and owner references carry over, so
 * pods (whose era spelling `source.resourceClaimName` is read as the flat v1
 * field) keep referring to the converted claims and templates.
 *
 * What cannot be carried over is returned per object and field, located at
 * the line it was read from: a parametersRef (v1 refers to no parameters
 * object; its content belongs in spec.config[].opaque for the driver),
 * suitableNodes (a DeviceClass does not restrict nodes), allocationMode
 * Immediate (structured claims are allocated for their first pod), status
 * (an allocation and reservations made by the classic driver), and every
 * PodSchedulingContext.
 *
 * Ownership: the result owns its objects and errors (dra_classic_result_free).
 */
#ifndef DRA_MODEL_CLASSIC_H
#define DRA_MODEL_CLASSIC_H

#include <jansson.h>
#include <stddef.h>

#include "../base/error.h"
#include "../io/stream.h"
#include "load.h"

typedef struct dra_classic_result {
    json_t **objs; /* owned: the v1 objects, in input order */
    size_t n, cap;
    dra_err *lost;  /* owned: what was not carried over (DRA_EXIT_NEGATIVE), located */
    size_t classic; /* classic objects read */
    json_t **flat;  /* owned: dra_classic_pods' copies, by place in the set (NULL: none there) */
    size_t nflat;
    dra_err *changed; /* owned: what dra_classic_pods changed (DRA_EXIT_OK), located */
} dra_classic_result;

/* Pods, and objects carrying pod templates (Deployment, ReplicaSet,
 * StatefulSet, DaemonSet, Job, ReplicationController and other objects with
 * spec.template.spec; CronJob's spec.jobTemplate.spec.template.spec;
 * PodTemplate's template.spec): copies with their spec.resourceClaims in
 * today's form (dra_flatten_claim_sources), each change named in
 * out->changed per object and field; those already in today's form are
 * copied as they are.  Call it before loading set (loading converts Pods in
 * place); dra_classic_convert then puts the copies in their places. */
void dra_classic_pods(const dra_objset *set, dra_classic_result *out);

/* Convert the classic objects of the set that loaded into m (objects that
 * failed to load are not converted); with the copies of dra_classic_pods in
 * their places of the set. */
void dra_classic_convert(const dra_objset *set, const dra_model *m, dra_classic_result *out);
/* One classic ResourceClaimTemplate o (of the set loaded into m) as
 * dra_classic_convert converts it; what is not carried over is appended to
 * *lost (located).  Caller owns the result. */
json_t *dra_classic_template(const dra_obj *o, const dra_model *m, dra_err **lost);
void dra_classic_result_free(dra_classic_result *r);

#endif
