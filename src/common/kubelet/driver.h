/* The plugin side of the kubelet protocol, for drivers written on grpc/:
 * serves Registration (pluginregistration), DRAPlugin v1 and v1beta1 and
 * DRAResourceHealth v1alpha1 and v1 on a dra_grpc_server with plain structs
 * (the same ones rpc.h and health.h use), so a driver never sees protobuf.
 *
 * Ownership: the info and ops structs are borrowed and must outlive the
 * server.  Answers a callback returns live in the arena it is given, which
 * is freed after the answer was encoded.
 */
#ifndef DRA_KUBELET_DRIVER_H
#define DRA_KUBELET_DRIVER_H

#include <stdbool.h>

#include "base/arena.h"
#include "grpc/grpc.h"
#include "kubelet/health.h"
#include "kubelet/rpc.h"

typedef struct dra_driver_info {
    const char *name;            /* driver name */
    const char *endpoint;        /* DRA service socket */
    const char *const *services; /* supported_versions, preferred first */
    size_t n_services;
} dra_driver_info;

typedef struct dra_driver_ops {
    /* Answer NodePrepareResources (unprepare: NodeUnprepareResources, devices
     * ignored).  `service` is "v1.DRAPlugin" or "v1beta1.DRAPlugin".  Fill
     * *out / *n_out from arena a; or fail the whole call by setting rep->code
     * and rep->message; rep->delay_ms / rep->raw inject faults. */
    void (*prepare)(void *ctx, const char *service, const dra_claim_ref *claims, size_t n, dra_arena *a,
                    dra_prep_claim **out, size_t *n_out, dra_grpc_reply *rep);
    void (*unprepare)(void *ctx, const char *service, const dra_claim_ref *claims, size_t n, dra_arena *a,
                      dra_prep_claim **out, size_t *n_out, dra_grpc_reply *rep);
    /* The current device health, sent when a health stream opens (NULL: no
     * health service). */
    void (*health)(void *ctx, dra_arena *a, dra_health_device **out, size_t *n_out);
    /* NotifyRegistrationStatus arrived (optional). */
    void (*registered)(void *ctx, bool ok, const char *error);
    void *ctx;
} dra_driver_ops;

/* Serve Registration.GetInfo / NotifyRegistrationStatus. */
void dra_driver_serve_registration(dra_grpc_server *s, const dra_driver_info *info, const dra_driver_ops *ops);
/* Serve DRAPlugin v1 and v1beta1 (and health when ops->health is set). */
void dra_driver_serve_plugin(dra_grpc_server *s, const dra_driver_ops *ops);
/* Send the device list to every open health stream (both versions). */
void dra_driver_health_broadcast(dra_grpc_server *s, const dra_health_device *devs, size_t n);

#endif
