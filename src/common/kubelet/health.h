/* DRA device health (DRAResourceHealth.NodeWatchResources), client side:
 * a server-streaming call whose messages each list the health of all of a
 * driver's devices (upstream staging/src/k8s.io/kubelet/pkg/apis/dra-health/
 * {v1alpha1,v1}/api.proto; v1 adds a timeout and a message per device).
 *
 * dra_health_watch() streams, and when the stream ends or cannot be opened,
 * opens it again after a backoff (doubling from backoff_ms up to
 * backoff_max_ms, reset after a stream delivered something), until the
 * callback asks to stop, *cancel is set, max_attempts failed in a row, or
 * the driver answers UNIMPLEMENTED (it does not serve the service).
 * Nothing prints; `event` receives connection notes ("connected",
 * "stream ended: UNAVAILABLE: ...").  Strings passed to callbacks live in
 * an arena reset between messages: copy what you keep.
 */
#ifndef DRA_KUBELET_HEALTH_H
#define DRA_KUBELET_HEALTH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

enum { DRA_HEALTH_UNKNOWN = 0, DRA_HEALTH_HEALTHY = 1, DRA_HEALTH_UNHEALTHY = 2 };

/* "Unknown", "Healthy", "Unhealthy" (as the kubelet reports them). */
const char *dra_health_name(int health);

typedef struct dra_health_device {
    const char *pool;
    const char *device;
    int health;              /* DRA_HEALTH_* (other values as received) */
    int64_t last_updated;    /* unix seconds */
    int64_t timeout_seconds; /* v1 only; 0 = kubelet default */
    const char *message;     /* v1 only; "" when none */
} dra_health_device;

/* Services: "v1alpha1.DRAResourceHealth" (default) or "v1.DRAResourceHealth". */
#define DRA_HEALTH_V1ALPHA1 "v1alpha1.DRAResourceHealth"
#define DRA_HEALTH_V1 "v1.DRAResourceHealth"

typedef int (*dra_health_update_fn)(void *ctx, const dra_health_device *devs, size_t n); /* non-zero: stop */
typedef void (*dra_health_event_fn)(void *ctx, const char *event);

typedef struct dra_health_opts {
    const char *service;           /* NULL = v1alpha1 */
    long backoff_ms;               /* first wait before reopening; 0 = 1000 */
    long backoff_max_ms;           /* 0 = 5000 (the kubelet retries every 5 s) */
    unsigned max_attempts;         /* failed opens in a row before giving up; 0 = never give up */
    size_t max_msg;                /* 0 = 4 MiB */
    volatile sig_atomic_t *cancel; /* set by a signal handler to stop */
    dra_health_event_fn event;
    void *ctx; /* passed to both callbacks */
} dra_health_opts;

/* Returns NULL when stopped by the callback or *cancel; an error
 * (DRA_EXIT_RUNTIME) after max_attempts failures. */
DRA_MUST_USE dra_err *dra_health_watch(const char *socket, const dra_health_opts *opts, dra_health_update_fn fn);

/* Method path of a health service name, or NULL when unknown. */
const char *dra_health_method(const char *service);

#endif
