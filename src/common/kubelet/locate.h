/* Where a driver's kubelet plugin listens, found one of three ways:
 *   socket:       every driver at this one DRA socket, v1.DRAPlugin (trying one driver);
 *   registry_dir: as the kubelet's plugin watcher does (registration.h): the
 *                 registration sockets are asked once, on first use, and a
 *                 driver resolves to its registered endpoint and service;
 *   plugins_dir:  <plugins_dir>/<driver>/dra.sock, v1.DRAPlugin, when that
 *                 socket exists (the conventional path, spec §8.1).
 * registry_dir is tried before plugins_dir.  A driver found nowhere is
 * upstream's "DRA driver D is not registered".  The locator owns what it
 * found; dra_locator_free releases it.  No NotifyRegistrationStatus is sent:
 * the plugin is not told it was registered by a kubelet. */
#ifndef DRA_KUBELET_LOCATE_H
#define DRA_KUBELET_LOCATE_H

#include <stdbool.h>

#include "kubelet/prepare.h"
#include "kubelet/registration.h"

typedef struct dra_locator {
    const char *socket, *registry_dir, *plugins_dir; /* borrowed */
    long timeout_ms;                                 /* GetInfo deadline; 0 = registration's default */
    bool scanned;
    dra_arena a;
    dra_reg_plugin *plugins;
    size_t n;
    char *scan_err;
    char *last_socket; /* plugins_dir paths handed out */
} dra_locator;

/* A dra_driver_resolve_fn: ctx is a dra_locator. */
DRA_MUST_USE dra_err *dra_locator_resolve(void *ctx, const char *driver, dra_driver_loc *out);
void dra_locator_free(dra_locator *l);

#endif
