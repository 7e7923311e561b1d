/* DRAResourceHealth.NodeWatchResources client with reconnect and backoff.
 * Messages of v1alpha1 and v1 are decoded with the v1 types: v1 only adds
 * fields 4 and 5 of DeviceHealth, so a v1alpha1 message decodes the same. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "dra_health_v1.pb-c.h"
#include "grpc/grpc.h"
#include "kubelet/health.h"

const char *dra_health_name(int h)
{
    switch (h) {
    case DRA_HEALTH_HEALTHY: return "Healthy";
    case DRA_HEALTH_UNHEALTHY: return "Unhealthy";
    default: return "Unknown";
    }
}

const char *dra_health_method(const char *service)
{
    if (!service || strcmp(service, DRA_HEALTH_V1ALPHA1) == 0)
        return "/v1alpha1.DRAResourceHealth/NodeWatchResources";
    if (strcmp(service, DRA_HEALTH_V1) == 0)
        return "/v1.DRAResourceHealth/NodeWatchResources";
    return NULL;
}

struct watch {
    const dra_health_opts *o;
    dra_health_update_fn fn;
    dra_arena a;
    bool got;  /* this stream delivered a message */
    bool stop; /* the callback asked to stop */
    bool bad;  /* a message did not decode */
};

static int on_msg(void *ctx, const uint8_t *msg, size_t len)
{
    struct watch *w = ctx;
    V1__NodeWatchResourcesResponse *r = v1__node_watch_resources_response__unpack(NULL, len, msg);
    if (!r) {
        w->bad = true;
        return 1;
    }
    w->got = true;
    dra_arena_reset(&w->a);
    dra_health_device *d = dra_arena_zalloc(&w->a, (r->n_devices ? r->n_devices : 1) * sizeof *d);
    for (size_t i = 0; i < r->n_devices; i++) {
        V1__DeviceHealth *h = r->devices[i];
        d[i].pool = dra_arena_strdup(&w->a, h->device && h->device->pool_name ? h->device->pool_name : "");
        d[i].device = dra_arena_strdup(&w->a, h->device && h->device->device_name ? h->device->device_name : "");
        d[i].health = (int)h->health;
        d[i].last_updated = h->last_updated_time;
        d[i].timeout_seconds = h->health_check_timeout_seconds;
        d[i].message = dra_arena_strdup(&w->a, h->message ? h->message : "");
    }
    size_t n = r->n_devices;
    v1__node_watch_resources_response__free_unpacked(r, NULL);
    if (w->fn(w->o->ctx, d, n) != 0) {
        w->stop = true;
        return 1;
    }
    return 0;
}

static void event(const dra_health_opts *o, const char *fmt, ...) DRA_PRINTF(2, 3);
static void event(const dra_health_opts *o, const char *fmt, ...)
{
    if (!o->event)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *s = dra_xvasprintf(fmt, ap);
    va_end(ap);
    o->event(o->ctx, s);
    free(s);
}

static bool cancelled(const dra_health_opts *o)
{
    return o->cancel && *o->cancel;
}

dra_err *dra_health_watch(const char *socket, const dra_health_opts *o, dra_health_update_fn fn)
{
    const char *method = dra_health_method(o->service);
    if (!method)
        return dra_err_new(DRA_EXIT_INPUT, "unsupported health service %s (supported: %s, %s)", o->service,
                           DRA_HEALTH_V1ALPHA1, DRA_HEALTH_V1);
    dra_grpc_client *c;
    dra_grpc_client_opts co = {.max_msg = o->max_msg, .cancel = o->cancel};
    dra_err *e = dra_grpc_client_new(socket, &co, &c);
    if (e)
        return e;
    long first = o->backoff_ms > 0 ? o->backoff_ms : 1000;
    long max = o->backoff_max_ms > 0 ? o->backoff_max_ms : 5000;
    long wait = first;
    unsigned failures = 0;
    struct watch w = {.o = o, .fn = fn};
    uint8_t req[1];
    for (;;) {
        dra_grpc_status st = {0};
        w.got = false;
        w.bad = false;
        int code = dra_grpc_server_streaming(c, method, req, 0, 0, on_msg, &w, &st);
        if (w.stop || cancelled(o)) {
            dra_grpc_status_clear(&st);
            break;
        }
        if (w.bad)
            event(o, "stream ended: INTERNAL: a message is not a valid NodeWatchResourcesResponse");
        else
            event(o, "stream ended: %s: %s", dra_grpc_code_name(code), st.message ? st.message : "");
        if (code == DRA_GRPC_UNIMPLEMENTED && !w.got) {
            /* the driver does not serve this service: retrying cannot help */
            e = dra_err_new(DRA_EXIT_RUNTIME, "NodeWatchResources %s: UNIMPLEMENTED: %s (the driver does not serve %s)",
                            socket, st.message ? st.message : "", o->service ? o->service : DRA_HEALTH_V1ALPHA1);
            dra_grpc_status_clear(&st);
            break;
        }
        if (w.got) {
            failures = 0;
            wait = first;
        } else if (o->max_attempts && ++failures >= o->max_attempts) {
            e = dra_err_new(DRA_EXIT_RUNTIME, "NodeWatchResources %s: %s: %s", socket,
                            w.bad ? "INTERNAL" : dra_grpc_code_name(code),
                            w.bad ? "a message is not a valid NodeWatchResourcesResponse"
                                  : (st.message ? st.message : ""));
            dra_grpc_status_clear(&st);
            break;
        }
        dra_grpc_status_clear(&st);
        event(o, "reconnecting in %ld ms", wait);
        struct timespec ts = {wait / 1000, (wait % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !cancelled(o))
            ;
        if (cancelled(o))
            break;
        wait = wait * 2 > max ? max : wait * 2;
    }
    dra_arena_free(&w.a);
    dra_grpc_client_free(c);
    return e;
}
