/* Typed calls to a DRA driver's kubelet plugin, over the grpc/ layer.
 *
 * This is the contract between the transport (grpc/, generated protos) and
 * the kubelet-side logic (checkpoint, prepare/unprepare/sync, CDI): the logic
 * never sees protobuf or HTTP/2, only these plain structs.
 *
 * Services (upstream packages, see shared spec §8):
 *   "v1.DRAPlugin"       k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin
 *   "v1beta1.DRAPlugin"  k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin
 * Registration (pluginregistration.Registration) and health
 * (v1alpha1.DRAResourceHealth) are declared in registration.h / health.h.
 *
 * Ownership: every string and array in an answer is allocated in the arena
 * the caller passes and lives until that arena is freed.  A dra_plugin owns its
 * connection; dra_plugin_close() releases it (NULL is fine).  Errors are
 * returned as dra_err chains owned by the caller; transport failures have code
 * DRA_EXIT_RUNTIME and a message naming the socket and the gRPC status
 * ("UNAVAILABLE", "DEADLINE_EXCEEDED", ...).
 */
#ifndef DRA_KUBELET_RPC_H
#define DRA_KUBELET_RPC_H

#include <stddef.h>
#include "base/arena.h"
#include "base/error.h"

typedef struct dra_rpc_opts {
    long timeout_ms; /* per call deadline; 0 = 45000, as the kubelet */
    size_t max_msg;  /* largest message sent or received; 0 = 4 MiB */
} dra_rpc_opts;

/* A claim as NodePrepareResources names it. */
typedef struct dra_claim_ref {
    const char *namespace_;
    const char *uid;
    const char *name;
} dra_claim_ref;

/* One prepared device of a claim (NodePrepareResourceResponse.devices[i]). */
typedef struct dra_prep_device {
    char **requests; /* request names ("gpu", "gpu/sub") */
    size_t n_requests;
    char *pool;
    char *device;
    char **cdi_ids; /* "vendor/class=name" */
    size_t n_cdi_ids;
    char *share_id; /* the device share (consumable capacity); NULL: none.  v1 only (Device.share_id) */
} dra_prep_device;

/* The driver's answer for one claim UID (an entry of the response's map). */
typedef struct dra_prep_claim {
    char *uid;   /* the map key, as the driver sent it */
    char *error; /* NULL, or the driver's per-claim error string */
    dra_prep_device *devices;
    size_t n_devices; /* 0 for unprepare answers */
} dra_prep_claim;

typedef struct dra_plugin dra_plugin;

/* Connect to the unix socket `socket_path` and use `service` ("v1.DRAPlugin"
 * or "v1beta1.DRAPlugin").  Connecting is lazy where the transport allows;
 * an unreachable socket is reported by the first call at the latest. */
DRA_MUST_USE dra_err *dra_plugin_dial(const char *socket_path, const char *service, const dra_rpc_opts *opts,
                                      dra_plugin **out);

/* NodePrepareResources / NodeUnprepareResources with all `n` claims in one
 * request.  On success *out holds the answer's entries (any order, exactly as
 * received: validating them against the request is the caller's job). */
DRA_MUST_USE dra_err *dra_plugin_prepare(dra_plugin *p, const dra_claim_ref *claims, size_t n, dra_arena *a,
                                         dra_prep_claim **out, size_t *n_out);
DRA_MUST_USE dra_err *dra_plugin_unprepare(dra_plugin *p, const dra_claim_ref *claims, size_t n, dra_arena *a,
                                           dra_prep_claim **out, size_t *n_out);

/* Size in bytes of the last answer received (0 before the first). */
size_t dra_plugin_last_answer_size(const dra_plugin *p);

void dra_plugin_close(dra_plugin *p);

#endif
