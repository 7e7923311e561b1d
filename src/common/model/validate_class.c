/* DeviceClass validation (validation.go: validateDeviceClassSpec), the
 * minimal core-object checks, and the kind dispatcher. */
#include <stdlib.h>
#include <string.h>

#include "validate_common.h"
#include "../base/hash.h"
#include "../base/sort.h"

dra_err *dra_validate_device_class(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    /* the name's rule is declarative (k8s-long-name: its length in bytes,
     * pkg/apis/resource/v1/zz_generated.validations.go Validate_DeviceClass) */
    dra_v_object_meta_named(&v, obj, false, dra_check_long_name);
    const json_t *spec = NULL;
    dra_vobj(&v, obj, "spec", &spec);
    V_CHILD(&v, "spec")
    {
        if (!spec)
            continue;
        dra_v_selectors(&v, spec);
        const json_t *config;
        if (dra_varr(&v, spec, "config", &config) && dra_v_max_items(&v, "config", config, DRA_DEVICE_CONFIG_MAX)) {
            V_CHILD(&v, "config")
            for (size_t i = 0; i < json_array_size(config); i++) {
                V_INDEX(&v, i)
                {
                    const json_t *cfg = json_array_get(config, i);
                    if (dra_vis_obj(&v, cfg))
                        dra_v_device_configuration(&v, cfg);
                }
            }
        }
        const char *s;
        size_t len;
        /* the declarative k8s-extended-resource-name format; 1.36 reports
         * validation.go's one Invalid (v1.36.3 validateDeviceClassSpec) */
        if (dra_vstr(&v, spec, "extendedResourceName", &s, &len)) {
            V_CHILD(&v, "extendedResourceName")
            {
                if (dra_vrelease(&v) >= DRA_RELEASE_1_37)
                    dra_vcheck(&v, dra_check_extended_resource_name, s, len);
                else if (!dra_v_is_extended_resource_name(s, len))
                    dra_ferr_invalid_str(&v.errs, VP(&v), s, len, "must be a valid extended resource name");
            }
        }
    }
    return dra_vctx_finish(&v);
}

dra_err *dra_validate_node(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, false, false);
    return dra_vctx_finish(&v);
}

/* The namespace strategy's PrepareForCreate labels a Namespace with its
 * own name (kubernetes.io/metadata.name, k8s.io/kubernetes v1.37.2
 * pkg/registry/core/namespace/strategy.go): the name is then also
 * validated as a label value, at metadata.labels. */
dra_err *dra_validate_namespace(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, false, true);
    const char *name = json_string_value(dra_vget(dra_vget(obj, "metadata"), "name"));
    if (name && *name)
        V_CHILD(&v, "metadata") V_CHILD(&v, "labels") dra_vcheck(&v, dra_check_label_value, name, strlen(name));
    return dra_vctx_finish(&v);
}

static bool pod_claim_named(const json_t *claims, const char *s, size_t len)
{
    for (size_t i = 0; i < json_array_size(claims); i++) {
        const json_t *n = json_object_get(json_array_get(claims, i), "name");
        if (json_is_string(n) && json_string_length(n) == len && memcmp(json_string_value(n), s, len) == 0)
            return true;
    }
    return false;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The pod's claim names, sorted, without duplicates or empty ones
 * (gatherPodResourceClaimNames, sets.List), joined by ", "; "" for none.
 * Caller frees. */
static char *pod_claim_names(const json_t *claims)
{
    size_t n = 0, cap = json_array_size(claims);
    const char **names = dra_xcalloc(cap ? cap : 1, sizeof *names);
    for (size_t i = 0; i < cap; i++) {
        const char *s = json_string_value(json_object_get(json_array_get(claims, i), "name"));
        if (s && *s)
            names[n++] = s;
    }
    dra_sort(names, n, sizeof *names, str_cmp);
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(names[i], names[i - 1]) != 0)
            dra_buf_printf(&b, "%s%s", b.len ? ", " : "", names[i]);
    free(names);
    dra_buf_puts(&b, "");
    return dra_buf_detach(&b);
}

/* A container's resource requests and limits: quantities (the API server
 * cannot decode anything else); a value of another type or text is
 * reported at its name. */
static void v_container_quantities(vctx *v, const json_t *res)
{
    static const char *const lists[] = {"requests", "limits"};
    for (size_t l = 0; l < 2 && json_is_object(res); l++) {
        const json_t *m;
        if (!dra_vobj(v, res, lists[l], &m))
            continue;
        V_CHILD(v, lists[l])
        {
            const char *k;
            const json_t *q;
            json_object_foreach((json_t *)m, k, q) {
                dra_quantity parsed;
                V_KEY(v, k, strlen(k)) dra_vquantity_value(v, q, &parsed);
            }
        }
    }
}

/* validateResourceClaimNames (k8s.io/kubernetes v1.37.2
 * pkg/apis/core/validation/validation.go): a container's resources.claims
 * name pod-level claims, each claim (or claim/request) once. */
static void v_container_claims(vctx *v, const json_t *spec, const char *key, const json_t *pod_claims)
{
    const json_t *containers;
    if (!dra_varr(v, spec, key, &containers))
        return;
    char *known = NULL;
    V_CHILD(v, key)
    for (size_t i = 0; i < json_array_size(containers); i++) {
        const json_t *res = dra_vget(json_array_get(containers, i), "resources");
        if (res && !json_is_object(res) && !json_is_null(res)) { /* core/v1 ResourceRequirements cannot decode it */
            V_INDEX(v, i) dra_vtype_error(v, "resources", res, "object");
            continue;
        }
        V_INDEX(v, i) V_CHILD(v, "resources") v_container_quantities(v, res);
        const json_t *claims = NULL;
        bool is_list;
        V_INDEX(v, i) V_CHILD(v, "resources") is_list = json_is_object(res) && dra_varr(v, res, "claims", &claims);
        if (!is_list)
            continue;
        dra_strmap seen = {0}; /* "name" and "name/request" referenced so far */
        V_INDEX(v, i) V_CHILD(v, "resources") V_CHILD(v, "claims") for (size_t j = 0; j < json_array_size(claims); j++)
        {
            V_INDEX(v, j)
            {
                const json_t *c = json_array_get(claims, j);
                const char *s = "", *req = "";
                size_t len = 0, rlen = 0;
                if (!dra_vis_obj(v, c))
                    continue;
                dra_vstr(v, c, "name", &s, &len);
                dra_vstr(v, c, "request", &req, &rlen);
                if (len == 0) {
                    dra_ferr_required(&v->errs, VP(v), "");
                    continue;
                }
                if (dra_strmap_get(&seen, s, len, NULL)) {
                    dra_ferr_duplicate_str(&v->errs, VP(v), s, len);
                } else {
                    char *k = rlen ? dra_xasprintf("%.*s/%.*s", (int)len, s, (int)rlen, req) : dra_xstrndup(s, len);
                    if (rlen)
                        V_CHILD(v, "request") dra_vcheck(v, dra_check_dns1123_label, req, rlen);
                    intptr_t old;
                    if (dra_strmap_get(&seen, k, strlen(k), NULL)) {
                        dra_ferr_duplicate_str(&v->errs, VP(v), k, strlen(k));
                    } else if (!rlen) {
                        /* a claim after one of its requests: reported once
                         * (as the API server answers, however many) */
                        for (size_t e = 0; e < seen.cap; e++) {
                            const char *sk = seen.e[e].key;
                            if (sk && seen.e[e].len > len && sk[len] == '/' && memcmp(sk, s, len) == 0) {
                                dra_ferr_duplicate_str(&v->errs, VP(v), s, len);
                                break;
                            }
                        }
                    }
                    if (dra_strmap_add(&seen, k, strlen(k), 0, &old))
                        free(k);
                }
                if (!pod_claim_named(pod_claims, s, len)) {
                    if (!known)
                        known = pod_claim_names(pod_claims);
                    char *d = *known
                                  ? dra_xasprintf("must be one of the names in pod.spec.resourceClaims: %s", known)
                                  : dra_xstrdup("must be one of the names in pod.spec.resourceClaims which is empty");
                    dra_ferr_not_found_detail(&v->errs, VP(v), s, len, d);
                    free(d);
                }
            }
        }
        for (size_t e = 0; e < seen.cap; e++)
            free((char *)seen.e[e].key);
        dra_strmap_free(&seen);
    }
    free(known);
}

static void v_long_name_field(vctx *v, const json_t *obj, const char *key)
{
    const char *s;
    size_t len;
    if (dra_vstr(v, obj, key, &s, &len))
        V_CHILD(v, key) dra_vcheck(v, dra_check_dns1123_subdomain, s, len);
}

dra_err *dra_validate_pod(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, true, false);
    const json_t *spec = NULL, *claims = NULL;
    dra_vobj(&v, obj, "spec", &spec);
    V_CHILD(&v, "spec")
    {
        if (!spec)
            continue;
        if (dra_varr(&v, spec, "resourceClaims", &claims)) {
            V_CHILD(&v, "resourceClaims")
            for (size_t i = 0; i < json_array_size(claims); i++) {
                V_INDEX(&v, i)
                {
                    const json_t *c = json_array_get(claims, i);
                    if (!dra_vis_obj(&v, c))
                        continue;
                    const char *s = "";
                    size_t len = 0;
                    dra_vstr(&v, c, "name", &s, &len);
                    V_CHILD(&v, "name")
                    {
                        if (len == 0)
                            dra_ferr_required(&v.errs, VP(&v), "");
                        else
                            dra_vcheck(&v, dra_check_dns1123_label, s, len);
                        if (len && i > 0) {
                            json_t *prefix = json_array();
                            for (size_t j = 0; j < i; j++)
                                json_array_append(prefix, json_array_get(claims, j));
                            if (pod_claim_named(prefix, s, len))
                                dra_ferr_duplicate_str(&v.errs, VP(&v), s, len);
                            json_decref(prefix);
                        }
                    }
                    const char *cn, *tn;
                    size_t cnl, tnl;
                    bool has_claim = dra_vstr(&v, c, "resourceClaimName", &cn, &cnl);
                    bool has_tmpl = dra_vstr(&v, c, "resourceClaimTemplateName", &tn, &tnl);
                    char *j = dra_v_go_json(c, DRA_GO_INTERNAL_POD_RESOURCE_CLAIM, dra_vquantity_rules(&v));
                    if (has_claim && has_tmpl)
                        dra_ferr_invalid_raw(
                            &v.errs, VP(&v), j,
                            "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified");
                    else if (!has_claim && !has_tmpl)
                        dra_ferr_invalid_raw(&v.errs, VP(&v), j,
                                             "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`");
                    free(j);
                    if (has_claim)
                        V_CHILD(&v, "resourceClaimName") dra_vcheck(&v, dra_check_dns1123_subdomain, cn, cnl);
                    if (has_tmpl)
                        V_CHILD(&v, "resourceClaimTemplateName") dra_vcheck(&v, dra_check_dns1123_subdomain, tn, tnl);
                }
            }
        }
        v_container_claims(&v, spec, "initContainers", claims);
        v_container_claims(&v, spec, "containers", claims);
        /* PodSchedulingGroup.podGroupName: a DNS subdomain (core/v1 types.go) */
        const json_t *sg;
        if (dra_vobj(&v, spec, "schedulingGroup", &sg))
            V_CHILD(&v, "schedulingGroup") v_long_name_field(&v, sg, "podGroupName");
    }
    return dra_vctx_finish(&v);
}

/* ResourcePoolStatusRequest (KEP-5677): cluster-scoped, a DNS subdomain
 * name; its spec is validated declaratively alone (k8s.io/kubernetes
 * v1.37.2 pkg/apis/resource/v1alpha3/zz_generated.validations.go): a
 * required driver in the k8s-long-name-caseless format (no length limit),
 * an optional pool name in the k8s-resource-pool-name format, a limit of
 * 1..1000, the partition type attribute a fully qualified name.  No spec
 * is an empty one.  The status is the controller's and is not checked. */
dra_err *dra_validate_resource_pool_status_request(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, false, false);
    const json_t *spec = NULL;
    dra_vobj(&v, obj, "spec", &spec);
    V_CHILD(&v, "spec")
    {
        const char *s = "";
        size_t len = 0;
        dra_vstr(&v, spec, "driver", &s, &len);
        V_CHILD(&v, "driver")
        {
            if (len == 0)
                dra_ferr_required(&v.errs, VP(&v), "");
            else
                dra_vcheck(&v, dra_check_long_name_caseless, s, len);
        }
        s = "";
        len = 0;
        if (dra_vstr(&v, spec, "poolName", &s, &len) && dra_vget(spec, "poolName"))
            V_CHILD(&v, "poolName") dra_vcheck(&v, dra_check_pool_name_segments, s, len);
        int64_t limit;
        if (dra_vget(spec, "limit") && dra_vint(&v, spec, "limit", &limit)) {
            V_CHILD(&v, "limit")
            {
                if (limit < 1)
                    dra_ferr_invalid_int(&v.errs, VP(&v), limit, "must be greater than or equal to 1");
                if (limit > 1000)
                    dra_ferr_invalid_int(&v.errs, VP(&v), limit, "must be less than or equal to 1000");
            }
        }
        s = "";
        len = 0;
        if (dra_vstr(&v, spec, "defaultPartitionTypeAttribute", &s, &len))
            V_CHILD(&v, "defaultPartitionTypeAttribute")
        dra_check_resource_fully_qualified_name(&v.errs, VP(&v), s, len);
    }
    return dra_vctx_finish(&v);
}

dra_err *dra_validate_as_is(const json_t *obj, dra_kind kind, const dra_validate_opts *opts)
{
    switch (kind) {
    case DRA_KIND_DEVICE_CLASS: return dra_validate_device_class(obj, opts);
    case DRA_KIND_RESOURCE_SLICE: return dra_validate_resource_slice(obj, opts);
    case DRA_KIND_RESOURCE_CLAIM: return dra_validate_resource_claim(obj, opts);
    case DRA_KIND_RESOURCE_CLAIM_TEMPLATE: return dra_validate_resource_claim_template(obj, opts);
    case DRA_KIND_DEVICE_TAINT_RULE: return dra_validate_device_taint_rule(obj, opts);
    case DRA_KIND_NODE: return dra_validate_node(obj, opts);
    case DRA_KIND_POD: return dra_validate_pod(obj, opts);
    case DRA_KIND_NAMESPACE: return dra_validate_namespace(obj, opts);
    case DRA_KIND_RESOURCE_POOL_STATUS_REQUEST: return dra_validate_resource_pool_status_request(obj, opts);
    case DRA_KIND_RESOURCE_CLASS: return dra_validate_resource_class(obj, opts);
    case DRA_KIND_CLASSIC_CLAIM: return dra_validate_classic_claim(obj, opts);
    case DRA_KIND_CLASSIC_CLAIM_TEMPLATE: return dra_validate_classic_claim_template(obj, opts);
    case DRA_KIND_POD_SCHEDULING_CONTEXT: return dra_validate_pod_scheduling_context(obj, opts);
    case DRA_KIND_POD_GROUP: return dra_validate_pod_group(obj, opts);
    default: return dra_err_new(DRA_EXIT_INPUT, "cannot validate an object of unknown kind");
    }
}

static bool ends_with(const char *s, size_t n, const char *tail)
{
    size_t t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* What the API server's decoder refuses, before it drops anything: a value
 * of the wrong type, a bad date, and a quantity that does not parse
 * (resource.Quantity's UnmarshalJSON, k8s.io/apimachinery v0.37.2
 * pkg/api/resource/quantity.go ParseQuantity: ErrFormatWrong, ErrNumeric,
 * ErrSuffix) */
static bool type_error(const dra_err *e)
{
    size_t n = strlen(e->msg);
    return strstr(e->msg, ": must be of type ") || ends_with(e->msg, n, "must be an RFC 3339 date-time") ||
           ends_with(e->msg, n,
                     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'") ||
           ends_with(e->msg, n, ": unable to parse numeric part of quantity") ||
           ends_with(e->msg, n, ": unable to parse quantity's suffix");
}

static bool reported(const dra_err *chain, const dra_err *e)
{
    for (; chain; chain = chain->next)
        if (strcmp(chain->msg, e->msg) == 0 &&
            (chain->field ? e->field && strcmp(chain->field, e->field) == 0 : !e->field))
            return true;
    return false;
}

/* e without its repeats (the same field and message): the API server's
 * message lists each once (field.ErrorList.ToAggregate, k8s.io/apimachinery
 * v0.37.2 pkg/util/validation/field/errors.go). */
static dra_err *without_repeats(dra_err *e)
{
    if (!e || !e->next)
        return e;
    dra_err_kinds seen = {0};
    dra_err *out = NULL;
    while (e) {
        dra_err *x = dra_err_pop(&e);
        uint64_t h = dra_fnv1a_str(DRA_FNV64_OFFSET, x->field ? x->field : "");
        h = dra_fnv1a(h, "", 1);
        h = dra_fnv1a_str(h, x->msg);
        size_t before = seen.n;
        if (dra_err_kinds_index(&seen, h) < before)
            dra_err_free(x);
        else
            out = dra_err_append(out, x);
    }
    dra_err_kinds_free(&seen);
    return out;
}

/* Fields of disabled features are dropped first, as the API server does;
 * it decodes them before, so that a value of the wrong type there is still
 * refused: such errors of the object as given are kept. */
dra_err *dra_validate(const json_t *obj, dra_kind kind, const dra_validate_opts *opts)
{
    bool nothing;
    return dra_validate_noting_drops(obj, kind, opts, &nothing);
}

dra_err *dra_validate_noting_drops(const json_t *obj, dra_kind kind, const dra_validate_opts *opts,
                                   bool *nothing_to_drop)
{
    json_t *dropped = dra_v_drop_disabled(obj, kind, opts ? opts->features : NULL, nothing_to_drop);
    dra_err *e = dra_validate_as_is(dropped ? dropped : obj, kind, opts);
    if (dropped) {
        dra_err *all = dra_validate_as_is(obj, kind, opts), *keep = NULL;
        while (all) {
            dra_err *x = all;
            all = all->next;
            x->next = NULL;
            if (type_error(x) && !reported(e, x))
                keep = dra_err_append(keep, x);
            else
                dra_err_free(x);
        }
        e = dra_err_append(e, keep);
    }
    json_decref(dropped);
    return without_repeats(e);
}
