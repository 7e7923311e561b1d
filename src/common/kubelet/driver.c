/* Plugin-side codecs for Registration, DRAPlugin and DRAResourceHealth. */
#include <stdlib.h>
#include <string.h>

#include "dra_health_v1.pb-c.h"
#include "dra_v1.pb-c.h"
#include "dra_v1beta1.pb-c.h"
#include "kubelet/driver.h"
#include "kubelet/rpc_internal.h"
#include "pluginregistration_v1.pb-c.h"

static void get_info(void *ctx, const uint8_t *req, size_t len, dra_grpc_reply *rep)
{
    const dra_driver_info *info = ctx;
    Pluginregistration__PluginInfo pi;
    pluginregistration__plugin_info__init(&pi);
    pi.type = "DRAPlugin";
    pi.name = (char *)info->name;
    pi.endpoint = (char *)info->endpoint;
    pi.supported_versions = (char **)info->services;
    pi.n_supported_versions = info->n_services;
    size_t n = pluginregistration__plugin_info__get_packed_size(&pi);
    dra_buf_grow(&rep->body, n + 1);
    pluginregistration__plugin_info__pack(&pi, (uint8_t *)rep->body.data);
    rep->body.len = n;
}

static void notify_status(void *ctx, const uint8_t *req, size_t len, dra_grpc_reply *rep)
{
    const dra_driver_ops *ops = ctx;
    Pluginregistration__RegistrationStatus *st = pluginregistration__registration_status__unpack(NULL, len, req);
    if (!st) {
        rep->code = DRA_GRPC_INVALID_ARGUMENT;
        dra_buf_puts(&rep->message, "not a valid RegistrationStatus");
        return;
    }
    if (ops && ops->registered)
        ops->registered(ops->ctx, st->plugin_registered, st->error ? st->error : "");
    pluginregistration__registration_status__free_unpacked(st, NULL);
}

void dra_driver_serve_registration(dra_grpc_server *s, const dra_driver_info *info, const dra_driver_ops *ops)
{
    dra_grpc_server_unary(s, "/pluginregistration.Registration/GetInfo", get_info, (void *)info);
    dra_grpc_server_unary(s, "/pluginregistration.Registration/NotifyRegistrationStatus", notify_status, (void *)ops);
}

/* Device.share_id exists in v1 only. */
static void set_share_v1(K8s__Io__Kubelet__Pkg__Apis__Dra__V1__Device *d, const dra_prep_device *s)
{
    if (s->share_id)
        d->share_id = s->share_id;
}
static void set_share_v1beta1(K8s__Io__Kubelet__Pkg__Apis__Dra__V1beta1__Device *d, const dra_prep_device *s)
{
}

/* One DRAPlugin codec per version (see rpc.c). */
/* clang-format off */
#define DRA_DRIVER_CODEC(V, P, F, SVC)                                                                    \
    static bool decode_##V(const uint8_t *req, size_t len, dra_arena *a, dra_claim_ref **out, size_t *n) \
    {                                                                                                     \
        /* NodeUnprepareResourcesRequest has the same single field */                                    \
        P##__NodePrepareResourcesRequest *r = F##__node_prepare_resources_request__unpack(NULL, len, req); \
        if (!r)                                                                                           \
            return false;                                                                                 \
        dra_claim_ref *c = dra_arena_zalloc(a, (r->n_claims ? r->n_claims : 1) * sizeof *c);              \
        for (size_t i = 0; i < r->n_claims; i++) {                                                        \
            c[i].namespace_ = dra_arena_strdup(a, r->claims[i]->namespace_ ? r->claims[i]->namespace_ : ""); \
            c[i].uid = dra_arena_strdup(a, r->claims[i]->uid ? r->claims[i]->uid : "");                   \
            c[i].name = dra_arena_strdup(a, r->claims[i]->name ? r->claims[i]->name : "");                \
        }                                                                                                 \
        *out = c;                                                                                         \
        *n = r->n_claims;                                                                                 \
        F##__node_prepare_resources_request__free_unpacked(r, NULL);                                      \
        return true;                                                                                      \
    }                                                                                                     \
    static void encode_prepare_##V(const dra_prep_claim *cl, size_t n, dra_buf *b)                        \
    {                                                                                                     \
        P##__NodePrepareResourcesResponse r;                                                              \
        F##__node_prepare_resources_response__init(&r);                                                   \
        P##__NodePrepareResourcesResponse__ClaimsEntry *es = dra_xcalloc(n + 1, sizeof *es);              \
        P##__NodePrepareResourcesResponse__ClaimsEntry **ep = dra_xcalloc(n + 1, sizeof *ep);             \
        P##__NodePrepareResourceResponse *vs = dra_xcalloc(n + 1, sizeof *vs);                            \
        size_t nd = 0;                                                                                    \
        for (size_t i = 0; i < n; i++)                                                                    \
            nd += cl[i].n_devices;                                                                        \
        P##__Device *ds = dra_xcalloc(nd + 1, sizeof *ds);                                                \
        P##__Device **dp = dra_xcalloc(nd + 1, sizeof *dp);                                               \
        size_t k = 0;                                                                                     \
        for (size_t i = 0; i < n; i++) {                                                                  \
            F##__node_prepare_resources_response__claims_entry__init(&es[i]);                             \
            F##__node_prepare_resource_response__init(&vs[i]);                                            \
            es[i].key = cl[i].uid;                                                                        \
            es[i].value = &vs[i];                                                                         \
            ep[i] = &es[i];                                                                               \
            vs[i].error = cl[i].error ? cl[i].error : "";                                                 \
            vs[i].devices = &dp[k];                                                                       \
            vs[i].n_devices = cl[i].n_devices;                                                            \
            for (size_t j = 0; j < cl[i].n_devices; j++, k++) {                                           \
                const dra_prep_device *d = &cl[i].devices[j];                                             \
                F##__device__init(&ds[k]);                                                                \
                ds[k].request_names = d->requests;                                                        \
                ds[k].n_request_names = d->n_requests;                                                    \
                ds[k].pool_name = d->pool ? d->pool : "";                                                 \
                ds[k].device_name = d->device ? d->device : "";                                           \
                ds[k].cdi_device_ids = d->cdi_ids;                                                        \
                ds[k].n_cdi_device_ids = d->n_cdi_ids;                                                    \
                set_share_##V(&ds[k], d);                                                                 \
                dp[k] = &ds[k];                                                                           \
            }                                                                                             \
        }                                                                                                 \
        r.claims = ep;                                                                                    \
        r.n_claims = n;                                                                                   \
        size_t len = F##__node_prepare_resources_response__get_packed_size(&r);                           \
        dra_buf_grow(b, len + 1);                                                                         \
        F##__node_prepare_resources_response__pack(&r, (uint8_t *)b->data + b->len);                      \
        b->len += len;                                                                                    \
        free(es);                                                                                         \
        free(ep);                                                                                         \
        free(vs);                                                                                         \
        free(ds);                                                                                         \
        free(dp);                                                                                         \
    }                                                                                                     \
    static void encode_unprepare_##V(const dra_prep_claim *cl, size_t n, dra_buf *b)                      \
    {                                                                                                     \
        P##__NodeUnprepareResourcesResponse r;                                                            \
        F##__node_unprepare_resources_response__init(&r);                                                 \
        P##__NodeUnprepareResourcesResponse__ClaimsEntry *es = dra_xcalloc(n + 1, sizeof *es);            \
        P##__NodeUnprepareResourcesResponse__ClaimsEntry **ep = dra_xcalloc(n + 1, sizeof *ep);           \
        P##__NodeUnprepareResourceResponse *vs = dra_xcalloc(n + 1, sizeof *vs);                          \
        for (size_t i = 0; i < n; i++) {                                                                  \
            F##__node_unprepare_resources_response__claims_entry__init(&es[i]);                           \
            F##__node_unprepare_resource_response__init(&vs[i]);                                          \
            es[i].key = cl[i].uid;                                                                        \
            es[i].value = &vs[i];                                                                         \
            vs[i].error = cl[i].error ? cl[i].error : "";                                                 \
            ep[i] = &es[i];                                                                               \
        }                                                                                                 \
        r.claims = ep;                                                                                    \
        r.n_claims = n;                                                                                   \
        size_t len = F##__node_unprepare_resources_response__get_packed_size(&r);                         \
        dra_buf_grow(b, len + 1);                                                                         \
        F##__node_unprepare_resources_response__pack(&r, (uint8_t *)b->data + b->len);                    \
        b->len += len;                                                                                    \
        free(es);                                                                                         \
        free(ep);                                                                                         \
        free(vs);                                                                                         \
    }                                                                                                     \
    static void handle(const dra_driver_ops *ops, bool prepare, const uint8_t *req, size_t len,           \
                       dra_grpc_reply *rep, const char *svc, int v);                                      \
    static void prepare_##V(void *ctx, const uint8_t *req, size_t len, dra_grpc_reply *rep)               \
    {                                                                                                     \
        handle(ctx, true, req, len, rep, SVC, VERSION_##V);                                               \
    }                                                                                                     \
    static void unprepare_##V(void *ctx, const uint8_t *req, size_t len, dra_grpc_reply *rep)             \
    {                                                                                                     \
        handle(ctx, false, req, len, rep, SVC, VERSION_##V);                                              \
    }
/* clang-format on */

enum { VERSION_v1beta1 = 0, VERSION_v1 = 1 };

DRA_DRIVER_CODEC(v1, K8s__Io__Kubelet__Pkg__Apis__Dra__V1, k8s__io__kubelet__pkg__apis__dra__v1, DRA_SERVICE_V1)
DRA_DRIVER_CODEC(v1beta1, K8s__Io__Kubelet__Pkg__Apis__Dra__V1beta1, k8s__io__kubelet__pkg__apis__dra__v1beta1,
                 DRA_SERVICE_V1BETA1)

static void handle(const dra_driver_ops *ops, bool prepare, const uint8_t *req, size_t len, dra_grpc_reply *rep,
                   const char *svc, int v)
{
    dra_arena a = DRA_ARENA_INIT;
    dra_claim_ref *claims;
    size_t n;
    if (!(v ? decode_v1 : decode_v1beta1)(req, len, &a, &claims, &n)) {
        rep->code = DRA_GRPC_INVALID_ARGUMENT;
        dra_buf_printf(&rep->message, "not a valid Node%sResourcesRequest", prepare ? "Prepare" : "Unprepare");
        dra_arena_free(&a);
        return;
    }
    dra_prep_claim *out = NULL;
    size_t n_out = 0;
    (prepare ? ops->prepare : ops->unprepare)(ops->ctx, svc, claims, n, &a, &out, &n_out, rep);
    if (rep->code == DRA_GRPC_OK && !rep->raw) {
        if (prepare)
            (v ? encode_prepare_v1 : encode_prepare_v1beta1)(out, n_out, &rep->body);
        else
            (v ? encode_unprepare_v1 : encode_unprepare_v1beta1)(out, n_out, &rep->body);
    }
    dra_arena_free(&a);
}

static void encode_health(const dra_health_device *d, size_t n, dra_buf *b)
{
    V1__NodeWatchResourcesResponse r;
    v1__node_watch_resources_response__init(&r);
    V1__DeviceHealth *hs = dra_xcalloc(n + 1, sizeof *hs);
    V1__DeviceHealth **hp = dra_xcalloc(n + 1, sizeof *hp);
    V1__DeviceIdentifier *ids = dra_xcalloc(n + 1, sizeof *ids);
    for (size_t i = 0; i < n; i++) {
        v1__device_health__init(&hs[i]);
        v1__device_identifier__init(&ids[i]);
        ids[i].pool_name = (char *)d[i].pool;
        ids[i].device_name = (char *)d[i].device;
        hs[i].device = &ids[i];
        hs[i].health = (V1__HealthStatus)d[i].health;
        hs[i].last_updated_time = d[i].last_updated;
        hs[i].health_check_timeout_seconds = d[i].timeout_seconds;
        hs[i].message = (char *)(d[i].message ? d[i].message : "");
        hp[i] = &hs[i];
    }
    r.devices = hp;
    r.n_devices = n;
    size_t len = v1__node_watch_resources_response__get_packed_size(&r);
    dra_buf_grow(b, len + 1);
    v1__node_watch_resources_response__pack(&r, (uint8_t *)b->data + b->len);
    b->len += len;
    free(hs);
    free(hp);
    free(ids);
}

/* v1alpha1 receivers do not know fields 4 and 5; they skip them. */
static void health_open(void *ctx, const uint8_t *req, size_t len, dra_grpc_reply *rep)
{
    const dra_driver_ops *ops = ctx;
    dra_arena a = DRA_ARENA_INIT;
    dra_health_device *d = NULL;
    size_t n = 0;
    ops->health(ops->ctx, &a, &d, &n);
    encode_health(d, n, &rep->body);
    dra_arena_free(&a);
}

void dra_driver_serve_plugin(dra_grpc_server *s, const dra_driver_ops *ops)
{
    void *c = (void *)ops;
    dra_grpc_server_unary(s, "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources", prepare_v1, c);
    dra_grpc_server_unary(s, "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodeUnprepareResources", unprepare_v1, c);
    dra_grpc_server_unary(s, "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodePrepareResources", prepare_v1beta1, c);
    dra_grpc_server_unary(s, "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodeUnprepareResources", unprepare_v1beta1,
                          c);
    if (ops->health) {
        dra_grpc_server_stream(s, "/v1alpha1.DRAResourceHealth/NodeWatchResources", health_open, c);
        dra_grpc_server_stream(s, "/v1.DRAResourceHealth/NodeWatchResources", health_open, c);
    }
}

void dra_driver_health_broadcast(dra_grpc_server *s, const dra_health_device *d, size_t n)
{
    dra_buf b = DRA_BUF_INIT;
    encode_health(d, n, &b);
    dra_grpc_server_broadcast(s, "/v1alpha1.DRAResourceHealth/NodeWatchResources", b.data ? b.data : "", b.len);
    dra_grpc_server_broadcast(s, "/v1.DRAResourceHealth/NodeWatchResources", b.data ? b.data : "", b.len);
    dra_buf_free(&b);
}
