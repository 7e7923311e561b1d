/* A cluster dump indexed by kind.  The pod and claim helpers the
 * claim-lifecycle and eviction code share are in model/objects.h, the shape
 * checks in model/shapes.h (both included here).
 *
 * A dra_cluster borrows the objects of a dra_objset (which must outlive it)
 * and owns its index arrays and the records of the kinds it holds as
 * records (`recs`), unless it shares another cluster's (`recs_of`, the
 * changed input of --what-if: that cluster must outlive it): free it with
 * dra_cluster_free().  Objects
 * keep the input order inside each kind, so "first match wins" rules of
 * upstream (orphan lookup, ...) follow the order of the dump.
 *
 * Every lookup below is a hash lookup (dra_cluster_build/load index the
 * dump once), so whole-dump passes stay linear in the number of objects.
 *
 * Times are int64 nanoseconds since the Unix epoch (UTC).  The library never
 * reads the clock: callers pass "now" in.
 */
#ifndef DRA_CLUSTER_CLUSTER_H
#define DRA_CLUSTER_CLUSTER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "../io/json.h"
#include "../io/stream.h"
#include "../model/compact.h"
#include "../model/features.h"
#include "../model/kinds.h"
#include "../model/load.h"
#include "../model/names.h"
#include "../model/objects.h"
#include "../model/shapes.h"
#include "../model/time.h"
#include "index.h"

/* An object whose apiVersion the load pipeline changed (v1beta1 -> v1). */
typedef struct dra_served_version {
    const json_t *obj; /* borrowed */
    char *api_version; /* owned: the version the input used */
} dra_served_version;

typedef struct dra_cluster {
    const dra_obj **of[DRA_KIND_COUNT]; /* per kind, input order; borrowed objects */
    size_t n[DRA_KIND_COUNT];
    size_t cap[DRA_KIND_COUNT];
    size_t unknown;   /* objects of kinds the tools do not use (skipped) */
    bool no_validate; /* set before dra_cluster_load_input: convert and default only */
    dra_model model;  /* name index, set by dra_cluster_load() only */
    bool has_model;
    dra_served_version *served; /* set by dra_cluster_load() only */
    size_t nserved;
    dra_lc_index ix;       /* names (without a model), owners, object identities (private) */
    const dra_objset *set; /* the input as read (borrowed): what no kind indexes, e.g.
                            * PriorityClasses, ResourceQuotas, classic parameters */
    /* Set before dra_cluster_read_input (1u << kind each): kinds it holds
     * as records in `recs` instead of objects (ResourceClaims, Pods), and
     * kinds it checks as read and drops (none of them in `of`). */
    uint32_t as_records, dropped;
    /* Set before dra_cluster_read_input: a resource.k8s.io/v1 ResourceSlice's
     * devices without taints are kept as their names alone (JSON strings),
     * for the tools that ask of them only which exist and their taints
     * (dra-evict, dra-claim doctor; dra_slice_device_name reads both). */
    bool device_names;
    size_t nread;     /* objects dra_cluster_read_input took in (kept, held as records or dropped) */
    dra_compact recs; /* claims and Pods as records, input order */
    /* Pods and claims taken as records while the rest stay objects
     * (dra_cluster_take_pod, _take_claim; not in as_records): made again as
     * objects when looked up (owned) */
    struct dra_taken *taken;
    /* NULL, or the cluster whose records recs is (dra_cluster_share_taken):
     * recs is not freed with c, and its index finds them by name */
    const struct dra_cluster *recs_of;
} dra_cluster;

#define DRA_CLUSTER_INIT                                                                                               \
    {                                                                                                                  \
        0                                                                                                              \
    }

/* Index every object of set as it is (no conversion, defaulting or
 * validation).  Objects without apiVersion/kind are input errors;
 * well-formed kinds the tools do not know (Events, ...) are counted in
 * `unknown` and skipped. */
DRA_MUST_USE dra_err *dra_cluster_build(dra_cluster *c, const dra_objset *set);
/* The same for the claim lifecycle alone (lifecycle/claims.h): ResourceSlices
 * and Nodes, which it never looks up and a fleet has most of, are left out. */
DRA_MUST_USE dra_err *dra_cluster_build_lifecycle(dra_cluster *c, const dra_objset *set);

/* What the tools use: run the shared load pipeline (model/load.h: kind
 * check, v1beta1/v1beta2 -> v1 conversion in place, namespace and server-side
 * defaulting, validation, duplicates) over set, then the shape checks below,
 * and index the result.  Unknown kinds are skipped and counted in `unknown`
 * when opts->skip_unknown, else errors.  The original apiVersion of every
 * converted object is remembered for dra_cluster_served_version().  Any
 * error leaves c empty (but still to be freed).  set must outlive c. */
DRA_MUST_USE dra_err *dra_cluster_load(dra_cluster *c, dra_objset *set, const dra_load_opts *opts);
/* The tools' way in: dra_cluster_load() with unknown kinds skipped (counted
 * in c->unknown), now (Unix seconds) for defaulted timestamps,
 * features (NULL: defaults) for validation, and CEL selectors of classes,
 * claims and templates compiled as the API server does
 * (cel_dra_validate_hook).  Every error is DRA_EXIT_INPUT. */
DRA_MUST_USE dra_err *dra_cluster_load_input(dra_cluster *c, dra_objset *set, const dra_features *features,
                                             int64_t now);
/* Index a model already loaded from set (dra_load, or a tool's reading)
 * as dra_cluster_load does, without loading it again: c takes m over (*m
 * is left empty) and borrows set.  Claims and pods of the wrong shape are
 * errors, as there, and leave c empty (but still to be freed). */
DRA_MUST_USE dra_err *dra_cluster_adopt(dra_cluster *c, const dra_objset *set, dra_model *m);
/* dra_cluster_load_input over paths read as a stream, for the tools that
 * never look inside devices (dra-evict, dra-claim): every object is checked
 * (kind, strict fields, conversion, defaults, validation, duplicates) on a
 * copy as it is read, then kept unconverted with its ResourceSlices' device
 * attributes and capacity dropped, so memory follows the objects the tool
 * uses, not the devices' descriptions.  The objects go into set (with the
 * reading options already set); errors and warnings are those of
 * dra_cluster_load_input; field lines are found by reading a file again.
 * Objects of the kinds in c->as_records go into c->recs instead (after the
 * same checks and the shape checks below), those of c->dropped nowhere:
 * lookups of objects (dra_cluster_find, _source, _owned) do not see them. */
DRA_MUST_USE dra_err *dra_cluster_read_input(dra_cluster *c, dra_objset *set, char *const *paths, size_t npaths,
                                             const dra_features *features, int64_t now);
void dra_cluster_free(dra_cluster *c);

/* Hold the Pod o (read and checked: converted, defaulted, of the right
 * shape) as a record kept whole in c->recs instead of as an object, for a
 * command that reads few of its pods (a scheduler, the bound ones): not in
 * the model nor among c->of, but dra_cluster_find (so dra_cluster_get and
 * dra_state_find) gives it, made again as an object the first time it is
 * asked (c owns it; a failure to read it back leaves it missing and is
 * kept for dra_compact_failure(&c->recs)), and dra_cluster_has_pods_in
 * counts it.  Not with as_records.  at: how many objects the set kept
 * before it (where it would have been, for dra_cluster_share_taken). */
void dra_cluster_take_pod(dra_cluster *c, const dra_obj *o, size_t at);
/* The same for a ResourceClaim, and then, once every object is read (before
 * the set is loaded), dra_cluster_give_back: the claims a Pod of set may
 * look up by name, owner or reservation, and the unallocated ones, are
 * made again as objects and appended to set (in input order: the others
 * too when set holds PodGroups or ResourceQuotas, which read every claim),
 * so they are in the model after all.  The rest stay records, found by
 * name as taken Pods are, but not by owner (dra_cluster_owned). */
void dra_cluster_take_claim(dra_cluster *c, const dra_obj *o);
void dra_cluster_give_back(dra_cluster *c, dra_objset *set);
/* Taken claim i (c->recs.claims[i], input order) as an object: the set's
 * when given back, the one made again, else a new tree in *tmp (the
 * caller decrefs it); NULL when it cannot be read back. */
const json_t *dra_cluster_taken_claim(const dra_cluster *c, size_t i, json_t **tmp);
/* Taken claim i when a lookup made it again (not given back), else NULL. */
const json_t *dra_cluster_made_claim(const dra_cluster *c, size_t i);
/* Taken claim i when c holds it as an object (given back or made again),
 * else NULL. */
const json_t *dra_cluster_held_claim(const dra_cluster *c, size_t i);

/* The claim ns/name held as a record while the rest stay objects
 * (dra_cluster_take_claim), or NULL. */
const dra_claim_rec *dra_cluster_taken_claim_record(const dra_cluster *c, const char *ns, const char *name);

/* A changed copy of src (loaded, its set src->set) that shares src's
 * records: set (empty, to be loaded into c, then dra_cluster_adopt) gets
 * src->set's objects (references taken) in input order, with the taken
 * Pods wanted(ctx, record) says made again as objects at their input
 * places, and the taken claims such a Pod names (spec.resourceClaims,
 * status.resourceClaimStatuses) made again among the given-back ones, in
 * input order.  Every other taken object stays a record of src, found by
 * name in c through src's index and made again for c alone when looked
 * up.  src (its records and index) must outlive c. */
void dra_cluster_share_taken(dra_cluster *c, const dra_cluster *src, dra_objset *set,
                             bool (*wanted)(void *ctx, const dra_pod_rec *pod), void *ctx);

/* The apiVersion the input used for obj (before conversion to v1): what API
 * operations on that object should address, since status, finalizer and
 * reservedFor paths are the same in every version.  NULL when unchanged. */
const char *dra_cluster_served_version(const dra_cluster *c, const json_t *obj);

/* Lookups by namespace/name (namespace NULL or "" for cluster-scoped kinds).
 * First object in input order wins; NULL when missing. */
const dra_obj *dra_cluster_find(const dra_cluster *c, dra_kind k, const char *ns, const char *name);
/* The dra_obj an object of the index came from (for error locations), or NULL. */
const dra_obj *dra_cluster_source(const dra_cluster *c, const json_t *obj);
/* ResourceClaims with a controller owner reference (any kind) of this UID,
 * input order: `for (size_t it = dra_cluster_owned(c, uid); (o =
 * dra_cluster_owned_next(c, &it));)`.  A claim may come twice when it has two
 * such references; callers check the reference they need. */
size_t dra_cluster_owned(const dra_cluster *c, const char *uid);
const dra_obj *dra_cluster_owned_next(const dra_cluster *c, size_t *it);
/* Whether the input holds a Pod in namespace ns. */
bool dra_cluster_has_pods_in(const dra_cluster *c, const char *ns);

/* The claims as records: c->recs when it holds them, else records made in
 * own (zeroed; the caller frees it) of the claim objects, in input order. */
const dra_compact *dra_cluster_claim_records(const dra_cluster *c, dra_compact *own);
/* The record of the Pod ns/name (first in input order): c's, or one made in
 * scratch (the caller frees it) of the Pod object; NULL when missing. */
const dra_pod_rec *dra_cluster_pod_record(const dra_cluster *c, const char *ns, const char *name, dra_compact *scratch);

/* The name of a device of a ResourceSlice's spec.devices, whether an
 * object or (device_names) a name alone; "" when none. */
const char *dra_slice_device_name(const json_t *dev);

/* Claims and Pods by position, whether held as objects or as records
 * (as_records; their objects kept whole: dra_compact_keep_whole(&c->recs)
 * before reading).  The number of objects of kind k: */
size_t dra_cluster_count(const dra_cluster *c, dra_kind k);
/* Object i of kind k (input order, below dra_cluster_count): c's own, or
 * made in tmp from its record, tmp->json then a new tree the caller
 * decrefs (tmp->json is NULL when the object is c's own).  NULL when a
 * record does not keep its object whole. */
const dra_obj *dra_cluster_nth(const dra_cluster *c, dra_kind k, size_t i, dra_obj *tmp);
/* The position of the first object ns/name of kind k (claims and Pods;
 * claim records are found only when they keep their objects whole). */
bool dra_cluster_position(const dra_cluster *c, dra_kind k, const char *ns, const char *name, size_t *i);
/* dra_cluster_find for claims and Pods held either way: the first object
 * ns/name of kind k as dra_cluster_nth gives it (tmp->json to decref), or
 * NULL (tmp cleared). */
const dra_obj *dra_cluster_get(const dra_cluster *c, dra_kind k, const char *ns, const char *name, dra_obj *tmp);
/* dra_cluster_served_version of object ns/name of kind k, held as an
 * object or as a record. */
const char *dra_cluster_served_version_of(const dra_cluster *c, dra_kind k, const char *ns, const char *name);

/* JSON access: io/json.h (dra_jget, dra_jstr, dra_jstr_or, dra_jtrue, dra_jarr, dra_jset_new). */

/* Times: model/time.h (dra_time_parse, dra_time_format, dra_time_cmp). */

#endif
