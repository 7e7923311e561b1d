/* Kubelet plugin registration, client side: find DRA drivers as the
 * kubelet's plugin watcher does (upstream pkg/kubelet/pluginmanager and
 * pkg/kubelet/cm/dra/plugin/dra_plugin_manager.go).
 *
 * dra_registry_scan() walks the registry directory (recursively, skipping
 * names that start with "."), and for every unix socket: calls
 * Registration.GetInfo, checks the type "DRAPlugin", picks the first service
 * of the plugin's own list that we support (v1.DRAPlugin, v1beta1.DRAPlugin),
 * checks that the endpoint accepts a connection, and, when asked, sends
 * NotifyRegistrationStatus with the outcome.  Problems of one plugin are
 * recorded in its entry with upstream's wording, never fatal to the scan.
 *
 * Ownership: everything in the results lives in the caller's arena.
 */
#ifndef DRA_KUBELET_REGISTRATION_H
#define DRA_KUBELET_REGISTRATION_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "kubelet/rpc.h"

typedef struct dra_reg_plugin {
    char *reg_socket; /* the registration socket */
    bool info_ok;     /* GetInfo answered */
    char *type;       /* PluginInfo fields as received ("" when absent) */
    char *name;
    char *endpoint; /* defaulted to reg_socket when empty, as the kubelet does */
    char **versions;
    size_t n_versions;
    char *service;     /* chosen service ("v1.DRAPlugin"), NULL when none */
    bool reachable;    /* the endpoint accepted a connection */
    bool registered;   /* usable: a DRA plugin with a supported service */
    char *error;       /* why not registered or not reachable; NULL when fine */
    double getinfo_ms; /* latency of GetInfo */
} dra_reg_plugin;

typedef struct dra_reg_opts {
    long timeout_ms;                    /* per call; 0 = 1000 (the watcher's GetInfo timeout) */
    bool notify;                        /* send NotifyRegistrationStatus */
    const struct dra_reg_plugin *prior; /* registered before this one (borrowed): */
    size_t n_prior;                     /* a second instance may not reuse their endpoint */
} dra_reg_opts;

/* The services we support, in no particular order: v1.DRAPlugin, v1beta1.DRAPlugin. */
extern const char *const dra_reg_supported[2];

/* Scan `dir`.  Fails (DRA_EXIT_INPUT) only when dir cannot be read.
 * Results are sorted by socket path. */
DRA_MUST_USE dra_err *dra_registry_scan(const char *dir, const dra_reg_opts *opts, dra_arena *a, dra_reg_plugin **out,
                                        size_t *n_out);
/* Register one registration socket (GetInfo, checks, Notify). */
void dra_registry_probe(const char *reg_socket, const dra_reg_opts *opts, dra_arena *a, dra_reg_plugin *out);
/* The first of `services` we support, or NULL; on NULL *err (arena) is
 * upstream's message ("empty list of supported gRPC services (aka supported
 * versions)" / "none of services supported by the plugin (...) are supported
 * by the kubelet (...)"). */
const char *dra_registry_choose(char *const *services, size_t n, dra_arena *a, char **err);
/* The plugin calls for `driver` should go to: the last registered reachable
 * one, else the last registered one; NULL when none ("DRA driver D is not
 * registered" is then the caller's message). */
const dra_reg_plugin *dra_registry_lookup(const dra_reg_plugin *plugins, size_t n, const char *driver);

#endif
