/* Kind recognition; see kinds.h. */
#include "kinds.h"
#include "base/utf8.h"
#include "base/buf.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[DRA_KIND_COUNT] = {
    [DRA_KIND_UNKNOWN] = "",
    [DRA_KIND_DEVICE_CLASS] = "DeviceClass",
    [DRA_KIND_RESOURCE_SLICE] = "ResourceSlice",
    [DRA_KIND_RESOURCE_CLAIM] = "ResourceClaim",
    [DRA_KIND_RESOURCE_CLAIM_TEMPLATE] = "ResourceClaimTemplate",
    [DRA_KIND_DEVICE_TAINT_RULE] = "DeviceTaintRule",
    [DRA_KIND_NODE] = "Node",
    [DRA_KIND_POD] = "Pod",
    [DRA_KIND_NAMESPACE] = "Namespace",
    [DRA_KIND_RESOURCE_POOL_STATUS_REQUEST] = "ResourcePoolStatusRequest",
    [DRA_KIND_RESOURCE_CLASS] = "ResourceClass",
    [DRA_KIND_CLASSIC_CLAIM] = "ResourceClaim",
    [DRA_KIND_CLASSIC_CLAIM_TEMPLATE] = "ResourceClaimTemplate",
    [DRA_KIND_POD_SCHEDULING_CONTEXT] = "PodSchedulingContext",
    [DRA_KIND_POD_GROUP] = "PodGroup",
};

static const char *const apiver_names[] = {
    [DRA_APIVER_UNKNOWN] = "",
    [DRA_APIVER_RESOURCE_V1] = "resource.k8s.io/v1",
    [DRA_APIVER_RESOURCE_V1BETA2] = "resource.k8s.io/v1beta2",
    [DRA_APIVER_RESOURCE_V1BETA1] = "resource.k8s.io/v1beta1",
    [DRA_APIVER_RESOURCE_V1ALPHA3] = "resource.k8s.io/v1alpha3",
    [DRA_APIVER_RESOURCE_V1ALPHA2] = "resource.k8s.io/v1alpha2",
    [DRA_APIVER_CORE_V1] = "v1",
    [DRA_APIVER_SCHEDULING_V1BETA1] = "scheduling.k8s.io/v1beta1",
    [DRA_APIVER_SCHEDULING_V1ALPHA3] = "scheduling.k8s.io/v1alpha3",
    [DRA_APIVER_SCHEDULING_V1ALPHA2] = "scheduling.k8s.io/v1alpha2",
};

#define UNKNOWN_PREFIX "no matches for kind "

const char *dra_kind_name(dra_kind k)
{
    return (unsigned)k < DRA_KIND_COUNT ? kind_names[k] : "";
}

const char *dra_apiver_name(dra_apiver v)
{
    return (unsigned)v < DRA_APIVER_COUNT ? apiver_names[v] : "";
}

dra_kind dra_kind_from_name(const char *kind)
{
    for (int i = 1; i < DRA_KIND_COUNT; i++)
        if (strcmp(kind_names[i], kind) == 0)
            return (dra_kind)i;
    return DRA_KIND_UNKNOWN;
}

bool dra_kind_namespaced(dra_kind k)
{
    return k == DRA_KIND_RESOURCE_CLAIM || k == DRA_KIND_RESOURCE_CLAIM_TEMPLATE || k == DRA_KIND_POD ||
           k == DRA_KIND_CLASSIC_CLAIM || k == DRA_KIND_CLASSIC_CLAIM_TEMPLATE ||
           k == DRA_KIND_POD_SCHEDULING_CONTEXT || k == DRA_KIND_POD_GROUP;
}

bool dra_kind_is_classic(dra_kind k)
{
    return k == DRA_KIND_RESOURCE_CLASS || k == DRA_KIND_CLASSIC_CLAIM || k == DRA_KIND_CLASSIC_CLAIM_TEMPLATE ||
           k == DRA_KIND_POD_SCHEDULING_CONTEXT;
}

dra_err *dra_kind_unserved(dra_kind k, dra_apiver v)
{
    if (!dra_kind_is_classic(k))
        return NULL;
    return dra_err_field(dra_err_new(DRA_EXIT_OK,
                                     UNKNOWN_PREFIX
                                     "\"%s\" in version \"%s\": Kubernetes 1.36 to 1.38 serve "
                                     "resource.k8s.io v1, v1beta1, v1beta2 and v1alpha3 only; checked with that "
                                     "version's rules (dra-claim convert makes v1 of it what it can)",
                                     dra_kind_name(k), dra_apiver_name(v)),
                         "apiVersion");
}

bool dra_kind_is_resource(dra_kind k)
{
    return (k >= DRA_KIND_DEVICE_CLASS && k <= DRA_KIND_DEVICE_TAINT_RULE) ||
           k == DRA_KIND_RESOURCE_POOL_STATUS_REQUEST || dra_kind_is_classic(k);
}

bool dra_kind_lookup(const char *api_version, const char *kind, dra_kind *kp, dra_apiver *vp)
{
    dra_apiver v = DRA_APIVER_UNKNOWN;
    for (int i = 1; i < DRA_APIVER_COUNT; i++)
        if (strcmp(apiver_names[i], api_version) == 0)
            v = (dra_apiver)i;
    dra_kind k = dra_kind_from_name(kind);
    bool ok;
    switch (k) {
    case DRA_KIND_RESOURCE_CLAIM:
    case DRA_KIND_RESOURCE_CLAIM_TEMPLATE:
        if (v == DRA_APIVER_RESOURCE_V1ALPHA2) {
            /* classic DRA: a kind of its own */
            k = k == DRA_KIND_RESOURCE_CLAIM ? DRA_KIND_CLASSIC_CLAIM : DRA_KIND_CLASSIC_CLAIM_TEMPLATE;
            ok = true;
            break;
        }
        /* fall through */
    case DRA_KIND_DEVICE_CLASS:
    case DRA_KIND_RESOURCE_SLICE:
        ok = v == DRA_APIVER_RESOURCE_V1 || v == DRA_APIVER_RESOURCE_V1BETA1 || v == DRA_APIVER_RESOURCE_V1BETA2;
        break;
    case DRA_KIND_RESOURCE_CLASS: ok = v == DRA_APIVER_RESOURCE_V1ALPHA2; break;
    case DRA_KIND_POD_SCHEDULING_CONTEXT:
        ok = v == DRA_APIVER_RESOURCE_V1ALPHA2 || v == DRA_APIVER_RESOURCE_V1ALPHA3;
        break;
    case DRA_KIND_DEVICE_TAINT_RULE:
        ok = v == DRA_APIVER_RESOURCE_V1 || v == DRA_APIVER_RESOURCE_V1BETA2 || v == DRA_APIVER_RESOURCE_V1ALPHA3;
        break;
    case DRA_KIND_RESOURCE_POOL_STATUS_REQUEST: ok = v == DRA_APIVER_RESOURCE_V1ALPHA3; break;
    case DRA_KIND_NODE:
    case DRA_KIND_POD:
    case DRA_KIND_NAMESPACE: ok = v == DRA_APIVER_CORE_V1; break;
    case DRA_KIND_POD_GROUP:
        /* 1.37 serves v1beta1 and v1alpha3, 1.36 v1alpha2 (strict.c says
         * which release serves which) */
        ok = v == DRA_APIVER_SCHEDULING_V1BETA1 || v == DRA_APIVER_SCHEDULING_V1ALPHA3 ||
             v == DRA_APIVER_SCHEDULING_V1ALPHA2;
        break;
    default: ok = false;
    }
    if (!ok)
        return false;
    if (kp)
        *kp = k;
    if (vp)
        *vp = v;
    return true;
}

static dra_err *not_a_string(const json_t *x, const char *field)
{
    char *text = json_dumps(x, JSON_COMPACT | JSON_ENCODE_ANY);
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, "Invalid value: %s: must be of type string", text ? text : "?");
    free(text);
    return dra_err_field(e, field);
}

dra_err *dra_kind_of_read(const dra_obj *o, dra_kind *k, dra_apiver *v)
{
    dra_err *e = dra_kind_of(o->json, k, v);
    if (!e || !e->field || (strcmp(e->field, "apiVersion") != 0 && strcmp(e->field, "kind") != 0) ||
        !json_is_number(json_object_get(o->json, e->field)))
        return e;
    char *lit = dra_obj_field_literal(o, e->field);
    if (lit) {
        dra_err_set_msg(e, dra_xasprintf("Invalid value: %s: must be of type string", lit));
        free(lit);
    }
    return e;
}

dra_err *dra_kind_of(const json_t *obj, dra_kind *k, dra_apiver *v)
{
    if (k)
        *k = DRA_KIND_UNKNOWN;
    if (v)
        *v = DRA_APIVER_UNKNOWN;
    const json_t *av = json_object_get(obj, "apiVersion");
    const json_t *kd = json_object_get(obj, "kind");
    if (av && !json_is_string(av))
        return not_a_string(av, "apiVersion");
    if (kd && !json_is_string(kd))
        return not_a_string(kd, "kind");
    if (!json_is_string(av) || json_string_length(av) == 0)
        return dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value: object has no apiVersion"), "apiVersion");
    if (!json_is_string(kd) || json_string_length(kd) == 0)
        return dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value: object has no kind"), "kind");
    const char *avs = json_string_value(av), *kds = json_string_value(kd);
    /* Embedded NULs can never match a known name. */
    if (strlen(avs) == json_string_length(av) && strlen(kds) == json_string_length(kd) &&
        dra_kind_lookup(avs, kds, k, v))
        return NULL;
    /* meta.NoKindMatchError: "no matches for kind %q in version %q" */
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, UNKNOWN_PREFIX);
    dra_go_quote(&b, kds, json_string_length(kd));
    dra_buf_puts(&b, " in version ");
    dra_go_quote(&b, avs, json_string_length(av));
    dra_err *e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "%s", dra_buf_str(&b)), "kind");
    dra_buf_free(&b);
    return e;
}

bool dra_kind_unknown_err(const dra_err *e)
{
    return e && e->msg && strncmp(e->msg, UNKNOWN_PREFIX, sizeof UNKNOWN_PREFIX - 1) == 0;
}
