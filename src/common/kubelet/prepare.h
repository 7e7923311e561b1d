/* What the kubelet's DRA manager does for pods, from a snapshot of objects:
 * prepare a pod's claims, unprepare them, and reconcile a whole node.
 *
 * Semantics follow kubernetes pkg/kubelet/cm/dra/manager.go
 * (prepareResources, unprepareResources, reconcileLoop, GetResources) and
 * claiminfo.go (cdiDevicesAsList); see the shared spec §8.4–§8.5:
 *
 *  prepare(pod): for each pod claim (spec.resourceClaims, then the claim of
 *    status.extendedResourceClaimStatus): the claim name (resourceClaimName,
 *    or for templates the pod's status.resourceClaimStatuses; null = nothing
 *    to do); template claims must be controlled by the pod; the pod must be
 *    in status.reservedFor; the claim must be allocated; every driver of its
 *    allocation results must be reachable.  Nothing is changed when a check
 *    fails.  Then each claim gets the pod reference in the checkpoint, which
 *    is written BEFORE any driver call (a crash later leaves the claim known,
 *    so `sync` unprepares it or the next prepare finishes it); claims already
 *    prepared are skipped; the rest go to one NodePrepareResources per
 *    driver; answers are checked as the kubelet checks them; the claims are
 *    marked prepared and the checkpoint is written again.
 *    skipNodeOperations (KEP-5945): a driver whose devices in the claim's
 *    allocation all list "NodePrepareResources" (or "*") is neither looked
 *    up nor called for that claim; the set is kept in the checkpoint.
 *  unprepare(pod): claims of the checkpoint that reference the pod: drop the
 *    reference where other pods remain, otherwise NodeUnprepareResources per
 *    driver, then drop the entries; drivers whose recorded set has
 *    "NodeUnprepareResources" are not called.
 *  sync(node): unprepare for every pod of the checkpoint that is not an
 *    active pod of the node in the snapshot (gone, finished, elsewhere),
 *    then prepare every active pod (spec.nodeName == node, phase neither
 *    Succeeded nor Failed).  Errors of one pod do not stop the others.
 *
 * Error classes: a refused check (not allocated, not reserved, not owner,
 * not created yet) is DRA_EXIT_NEGATIVE; a pod or claim missing from the
 * input is DRA_EXIT_INPUT; driver, transport and checkpoint failures are
 * DRA_EXIT_RUNTIME.  Messages are upstream's.
 *
 * Results are JSON records appended to `out` (a JSON array the caller owns):
 *   prepare:   {"namespace","pod","container","cdiDevices":[...]} per init
 *              container and container, in pod order
 *   unprepare: {"action":"unprepare"|"release","namespace","claim","uid","pods":[...]}
 *              ("release": the pod's reference was dropped, others remain)
 *   sync:      the unprepare records, then {"action":"prepare","namespace",
 *              "pod","containers":[{"container","cdiDevices"}]} per pod
 *
 * The library never prints: progress goes to the optional log callback.
 */
#ifndef DRA_KUBELET_PREPARE_H
#define DRA_KUBELET_PREPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"
#include "kubelet/checkpoint.h"
#include "kubelet/rpc.h"
#include "model/features.h"
#include "model/load.h"

/* The driver calls, as rpc.h declares them (tests pass fakes). */
typedef struct dra_kubelet_calls {
    dra_err *(*dial)(const char *socket_path, const char *service, const dra_rpc_opts *opts, dra_plugin **out);
    dra_err *(*prepare)(dra_plugin *p, const dra_claim_ref *claims, size_t n, dra_arena *a, dra_prep_claim **out,
                        size_t *n_out);
    dra_err *(*unprepare)(dra_plugin *p, const dra_claim_ref *claims, size_t n, dra_arena *a, dra_prep_claim **out,
                          size_t *n_out);
    void (*close)(dra_plugin *p);
} dra_kubelet_calls;

/* Where a driver's kubelet plugin listens.  Strings must outlive the run. */
typedef struct dra_driver_loc {
    const char *socket;
    const char *service; /* "v1.DRAPlugin" or "v1beta1.DRAPlugin" */
} dra_driver_loc;

/* Find a driver; an unknown driver is an error with upstream's text
 * "DRA driver D is not registered" (dra_kubelet_not_registered). */
typedef dra_err *(*dra_driver_resolve_fn)(void *ctx, const char *driver, dra_driver_loc *out);
DRA_MUST_USE dra_err *dra_kubelet_not_registered(const char *driver);

typedef struct dra_kubelet_opts {
    const dra_kubelet_calls *ops;
    dra_driver_resolve_fn resolve;
    void *resolve_ctx;
    dra_rpc_opts rpc;
    /* DRAOptionalNodeOperations on this kubelet: calls that every device of
     * a driver in a claim lists in skipNodeOperations are not made (nor is
     * the driver looked up for them).  Off: a claim whose allocation asks to
     * skip anything is refused ("DRAOptionalNodeOperations feature gate is
     * disabled on kubelet"); claims recorded before keep what the checkpoint
     * says. */
    bool optional_node_operations;
    /* The kubelet's release and gates (zero: the default release): it
     * reads the containers' requests by its release's quantity rules. */
    dra_features features;
    void (*log)(void *ctx, const char *msg); /* optional */
    void *log_ctx;
    /* Optional: called after the driver calls of a prepare succeeded and
     * before the checkpoint records them (tests crash the process here). */
    void (*after_rpc)(void *ctx);
    void *after_rpc_ctx;
} dra_kubelet_opts;

typedef struct dra_kubelet dra_kubelet;

/* A run over one checkpoint (held open and locked by the caller; borrowed).
 * Plugin connections are made once per socket and service and closed by
 * dra_kubelet_free. */
dra_kubelet *dra_kubelet_new(const dra_kubelet_opts *opts, dra_ckpt_file *ckpt);
void dra_kubelet_free(dra_kubelet *k);

DRA_MUST_USE dra_err *dra_kubelet_prepare(dra_kubelet *k, const dra_model *m, const char *ns, const char *name,
                                          json_t *out);
DRA_MUST_USE dra_err *dra_kubelet_unprepare(dra_kubelet *k, const dra_model *m, const char *ns, const char *name,
                                            json_t *out);
DRA_MUST_USE dra_err *dra_kubelet_sync(dra_kubelet *k, const dra_model *m, const char *node, json_t *out);

/* The CDI device IDs a container gets from prepared claims (GetResources):
 * appended to `ids` (a JSON array).  Claims missing from the checkpoint are
 * an error ("unable to get claim info for ResourceClaim C in namespace N").
 * f (NULL: the defaults) is the kubelet's: its release reads the quantities. */
DRA_MUST_USE dra_err *dra_kubelet_container_cdi(const dra_model *m, const json_t *pod, const json_t *container,
                                                dra_checkpoint *cp, const dra_features *f, json_t *ids);

/* Records of the calls above as a table: NAMESPACE POD CONTAINER CDI DEVICES
 * for prepare's, ACTION NAMESPACE OBJECT DETAILS (actions) for the others. */
DRA_MUST_USE dra_err *dra_kubelet_table(FILE *f, const json_t *records, bool actions);

#endif
