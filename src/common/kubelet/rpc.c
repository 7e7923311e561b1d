/* rpc.h over grpc/: NodePrepareResources / NodeUnprepareResources of the
 * DRA kubelet plugin API, v1 and v1beta1 (upstream
 * staging/src/k8s.io/kubelet/pkg/apis/dra/{v1,v1beta1}/api.proto).
 * The two versions have the same messages (v1 adds Device.share_id); the
 * codec below is written once and instantiated per version. */
#include <stdlib.h>
#include <string.h>

#include "dra_v1.pb-c.h"
#include "dra_v1beta1.pb-c.h"
#include "grpc/grpc.h"
#include "kubelet/rpc.h"
#include "kubelet/rpc_internal.h"

struct dra_plugin {
    dra_grpc_client *c;
    char *socket;
    int version; /* 1 = v1, 0 = v1beta1 */
    long timeout_ms;
    size_t max_msg;
    size_t last_size;
};

static const char *const service_paths[] = {
    "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/",
    "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/",
};

int dra_rpc_service_version(const char *service)
{
    if (service && strcmp(service, DRA_SERVICE_V1) == 0)
        return 1;
    if (service && strcmp(service, DRA_SERVICE_V1BETA1) == 0)
        return 0;
    return -1;
}

dra_err *dra_rpc_status_err(const char *what, const char *socket, const dra_grpc_status *st)
{
    return dra_err_new(DRA_EXIT_RUNTIME, "%s %s: %s: %s", what, socket, dra_grpc_code_name(st->code),
                       st->message && *st->message ? st->message : "(no message)");
}

dra_err *dra_plugin_dial(const char *socket_path, const char *service, const dra_rpc_opts *opts, dra_plugin **out)
{
    *out = NULL;
    int v = dra_rpc_service_version(service);
    if (v < 0)
        return dra_err_new(DRA_EXIT_INPUT, "unsupported DRA service %s (supported: %s, %s)",
                           service ? service : "(none)", DRA_SERVICE_V1, DRA_SERVICE_V1BETA1);
    dra_plugin *p = dra_xcalloc(1, sizeof *p);
    p->version = v;
    p->timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : 45000;
    p->max_msg = opts && opts->max_msg ? opts->max_msg : DRA_GRPC_DEFAULT_MAX_MSG;
    dra_grpc_client_opts co = {.max_msg = p->max_msg};
    dra_err *e = dra_grpc_client_new(socket_path, &co, &p->c);
    if (e) {
        free(p);
        return e;
    }
    p->socket = dra_xstrdup(socket_path);
    *out = p;
    return NULL;
}

void dra_plugin_close(dra_plugin *p)
{
    if (!p)
        return;
    dra_grpc_client_free(p->c);
    free(p->socket);
    free(p);
}

static char *adup(dra_arena *a, const char *s)
{
    return dra_arena_strdup(a, s ? s : "");
}

static char **adup_list(dra_arena *a, char **v, size_t n)
{
    char **out = dra_arena_zalloc(a, (n ? n : 1) * sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i] = adup(a, v[i]);
    return out;
}

/* Device.share_id exists in v1 only (a proto3 optional: protobuf-c leaves
 * its default, the shared empty string, when the field is absent). */
static char *share_of_v1(dra_arena *a, const K8s__Io__Kubelet__Pkg__Apis__Dra__V1__Device *d)
{
    return d->share_id && d->share_id != protobuf_c_empty_string ? adup(a, d->share_id) : NULL;
}
static char *share_of_v1beta1(dra_arena *a, const K8s__Io__Kubelet__Pkg__Apis__Dra__V1beta1__Device *d)
{
    return NULL;
}

/* One codec per API version: P is the protoc-c type prefix, F the function prefix. */
/* clang-format off */
#define DRA_RPC_CODEC(V, P, F)                                                                           \
    static void *encode_##V(const dra_claim_ref *claims, size_t n, size_t *len)                         \
    {                                                                                                    \
        P##__NodePrepareResourcesRequest req;                                                            \
        F##__node_prepare_resources_request__init(&req);                                                 \
        P##__Claim *cs = dra_xcalloc(n ? n : 1, sizeof *cs);                                             \
        P##__Claim **cp = dra_xcalloc(n ? n : 1, sizeof *cp);                                            \
        for (size_t i = 0; i < n; i++) {                                                                 \
            F##__claim__init(&cs[i]);                                                                    \
            cs[i].namespace_ = (char *)(claims[i].namespace_ ? claims[i].namespace_ : "");               \
            cs[i].uid = (char *)(claims[i].uid ? claims[i].uid : "");                                    \
            cs[i].name = (char *)(claims[i].name ? claims[i].name : "");                                 \
            cp[i] = &cs[i];                                                                              \
        }                                                                                                \
        req.n_claims = n;                                                                                \
        req.claims = cp;                                                                                 \
        /* NodeUnprepareResourcesRequest has the same single field */                                   \
        *len = F##__node_prepare_resources_request__get_packed_size(&req);                               \
        uint8_t *buf = dra_xmalloc(*len ? *len : 1);                                                     \
        F##__node_prepare_resources_request__pack(&req, buf);                                            \
        free(cs);                                                                                        \
        free(cp);                                                                                        \
        return buf;                                                                                      \
    }                                                                                                    \
    static bool decode_prepare_##V(const dra_buf *b, dra_arena *a, dra_prep_claim **out, size_t *n_out)  \
    {                                                                                                    \
        P##__NodePrepareResourcesResponse *r =                                                           \
            F##__node_prepare_resources_response__unpack(NULL, b->len, (const uint8_t *)b->data);        \
        if (!r)                                                                                          \
            return false;                                                                                \
        dra_prep_claim *cl = dra_arena_zalloc(a, (r->n_claims ? r->n_claims : 1) * sizeof *cl);          \
        for (size_t i = 0; i < r->n_claims; i++) {                                                       \
            P##__NodePrepareResourcesResponse__ClaimsEntry *e = r->claims[i];                            \
            cl[i].uid = adup(a, e->key);                                                                 \
            if (!e->value)                                                                               \
                continue;                                                                                \
            if (e->value->error && *e->value->error)                                                     \
                cl[i].error = adup(a, e->value->error);                                                  \
            cl[i].n_devices = e->value->n_devices;                                                       \
            cl[i].devices = dra_arena_zalloc(a, (e->value->n_devices ? e->value->n_devices : 1) *        \
                                                    sizeof *cl[i].devices);                              \
            for (size_t j = 0; j < e->value->n_devices; j++) {                                           \
                P##__Device *d = e->value->devices[j];                                                   \
                dra_prep_device *o = &cl[i].devices[j];                                                  \
                o->requests = adup_list(a, d->request_names, d->n_request_names);                        \
                o->n_requests = d->n_request_names;                                                      \
                o->pool = adup(a, d->pool_name);                                                         \
                o->device = adup(a, d->device_name);                                                     \
                o->cdi_ids = adup_list(a, d->cdi_device_ids, d->n_cdi_device_ids);                       \
                o->n_cdi_ids = d->n_cdi_device_ids;                                                      \
                o->share_id = share_of_##V(a, d);                                                        \
            }                                                                                            \
        }                                                                                                \
        *out = cl;                                                                                       \
        *n_out = r->n_claims;                                                                            \
        F##__node_prepare_resources_response__free_unpacked(r, NULL);                                    \
        return true;                                                                                     \
    }                                                                                                    \
    static bool decode_unprepare_##V(const dra_buf *b, dra_arena *a, dra_prep_claim **out, size_t *n_out) \
    {                                                                                                    \
        P##__NodeUnprepareResourcesResponse *r =                                                         \
            F##__node_unprepare_resources_response__unpack(NULL, b->len, (const uint8_t *)b->data);      \
        if (!r)                                                                                          \
            return false;                                                                                \
        dra_prep_claim *cl = dra_arena_zalloc(a, (r->n_claims ? r->n_claims : 1) * sizeof *cl);          \
        for (size_t i = 0; i < r->n_claims; i++) {                                                       \
            cl[i].uid = adup(a, r->claims[i]->key);                                                      \
            if (r->claims[i]->value && r->claims[i]->value->error && *r->claims[i]->value->error)        \
                cl[i].error = adup(a, r->claims[i]->value->error);                                       \
        }                                                                                                \
        *out = cl;                                                                                       \
        *n_out = r->n_claims;                                                                            \
        F##__node_unprepare_resources_response__free_unpacked(r, NULL);                                  \
        return true;                                                                                     \
    }
/* clang-format on */

DRA_RPC_CODEC(v1, K8s__Io__Kubelet__Pkg__Apis__Dra__V1, k8s__io__kubelet__pkg__apis__dra__v1)
DRA_RPC_CODEC(v1beta1, K8s__Io__Kubelet__Pkg__Apis__Dra__V1beta1, k8s__io__kubelet__pkg__apis__dra__v1beta1)

static dra_err *call(dra_plugin *p, bool prepare, const dra_claim_ref *claims, size_t n, dra_arena *a,
                     dra_prep_claim **out, size_t *n_out)
{
    const char *what = prepare ? "NodePrepareResources" : "NodeUnprepareResources";
    *out = NULL;
    *n_out = 0;
    size_t len;
    void *req = p->version == 1 ? encode_v1(claims, n, &len) : encode_v1beta1(claims, n, &len);
    char path[96];
    snprintf(path, sizeof path, "%s%s", service_paths[p->version], what);
    dra_buf resp = DRA_BUF_INIT;
    dra_grpc_status st = {0};
    dra_err *e = NULL;
    if (dra_grpc_unary(p->c, path, req, len, p->timeout_ms, &resp, &st) != DRA_GRPC_OK) {
        e = dra_rpc_status_err(what, p->socket, &st);
    } else {
        p->last_size = resp.len;
        bool ok = prepare ? (p->version == 1 ? decode_prepare_v1(&resp, a, out, n_out)
                                             : decode_prepare_v1beta1(&resp, a, out, n_out))
                          : (p->version == 1 ? decode_unprepare_v1(&resp, a, out, n_out)
                                             : decode_unprepare_v1beta1(&resp, a, out, n_out));
        if (!ok)
            e = dra_err_new(DRA_EXIT_RUNTIME, "%s %s: INTERNAL: the answer (%zu bytes) is not a valid %sResponse", what,
                            p->socket, resp.len, what);
    }
    dra_grpc_status_clear(&st);
    dra_buf_free(&resp);
    free(req);
    return e;
}

dra_err *dra_plugin_prepare(dra_plugin *p, const dra_claim_ref *claims, size_t n, dra_arena *a, dra_prep_claim **out,
                            size_t *n_out)
{
    return call(p, true, claims, n, a, out, n_out);
}

dra_err *dra_plugin_unprepare(dra_plugin *p, const dra_claim_ref *claims, size_t n, dra_arena *a, dra_prep_claim **out,
                              size_t *n_out)
{
    return call(p, false, claims, n, a, out, n_out);
}

size_t dra_plugin_last_answer_size(const dra_plugin *p)
{
    return p->last_size;
}
