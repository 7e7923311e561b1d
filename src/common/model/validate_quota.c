/* ResourceQuota validation; see validate_quota.h.  Upstream (k8s.io/kubernetes
 * v1.37.2): pkg/apis/core/validation/validation.go ValidateResourceQuota,
 * ValidateResourceQuotaSpec, ValidateResourceQuotaStatus,
 * ValidateResourceQuotaResourceName, validateResourceName,
 * ValidateResourceQuantityValue, validateResourceQuotaScopes,
 * validateScopedResourceSelectorRequirement; pkg/apis/core/helper/helpers.go
 * for the resource and scope sets. */
#include "validate_quota.h"

#include <stdlib.h>
#include <string.h>

#include "../io/json.h"
#include "validate_common.h"

bool dra_is_resource_quota(const json_t *obj)
{
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    return kind && av && strcmp(kind, "ResourceQuota") == 0 && strcmp(av, "v1") == 0;
}

static bool in_set(const char *s, size_t len, const char *const *set)
{
    for (; *set; set++)
        if (strlen(*set) == len && memcmp(*set, s, len) == 0)
            return true;
    return false;
}

static bool has_prefix(const char *s, size_t len, const char *p)
{
    size_t n = strlen(p);
    return len >= n && memcmp(s, p, n) == 0;
}

/* IsQuotaHugePageResourceName */
static bool quota_huge_page(const char *s, size_t len)
{
    return has_prefix(s, len, "hugepages-") || has_prefix(s, len, "requests.hugepages-");
}

/* standardQuotaResources / IsStandardQuotaResourceName */
/* clang-format off */
static const char *const standard_quota[] = {
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas",
    "services", "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps", "services.nodeports",
    "services.loadbalancers", NULL};
/* clang-format on */
static bool standard_quota_name(const char *s, size_t len)
{
    return in_set(s, len, standard_quota) || quota_huge_page(s, len);
}

/* standardResources / IsStandardResourceName */
/* clang-format off */
static const char *const standard_resources[] = {
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage", "limits.cpu",
    "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services", "replicationcontrollers",
    "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage", "services.nodeports",
    "services.loadbalancers", NULL};
/* clang-format on */

static bool qualified_name(const char *s, size_t len)
{
    dra_errs tmp = DRA_ERRS_INIT;
    dra_check_label_name(&tmp, NULL, s, len);
    bool ok = tmp.n == 0;
    dra_errs_free(&tmp);
    return ok;
}

/* IsNativeResource, IsExtendedResourceName, IsIntegerResourceName */
static bool native(const char *s, size_t len)
{
    return !memchr(s, '/', len) || memmem(s, len, "kubernetes.io/", 14) != NULL;
}
bool dra_v_is_extended_resource_name(const char *s, size_t len)
{
    if (native(s, len) || has_prefix(s, len, "requests."))
        return false;
    char *q = dra_xasprintf("requests.%.*s", (int)len, s);
    bool ok = qualified_name(q, len + 9);
    free(q);
    return ok;
}
static bool integer_name(const char *s, size_t len)
{
    static const char *const integer[] = {
        "pods",       "resourcequotas",         "services",           "replicationcontrollers", "secrets",
        "configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers", NULL};
    return in_set(s, len, integer) || dra_v_is_extended_resource_name(s, len);
}

/* ValidateResourceQuotaResourceName, then ValidateResourceQuantityValue, at the current path */
static void v_resource(vctx *v, const char *k, size_t len, const json_t *value)
{
    /* validateResourceName: a qualified name; unqualified, a standard one */
    size_t before = v->errs.n;
    dra_vcheck(v, dra_check_label_name, k, len);
    bool slash = memchr(k, '/', len) != NULL;
    if (v->errs.n == before && !slash && !in_set(k, len, standard_resources) && !quota_huge_page(k, len))
        dra_ferr_invalid_str(&v->errs, VP(v), k, len, "must be a standard resource type or fully qualified");
    if (!slash && !standard_quota_name(k, len))
        dra_ferr_invalid_str(&v->errs, VP(v), k, len, "must be a standard resource for quota");
    dra_quantity q;
    if (!dra_vquantity_value(v, value, &q))
        return;
    char b[DRA_QUANTITY_STRMAX];
    const char *str = dra_vqstr(&q, b);
    if (dra_quantity_sign(&q) < 0)
        dra_ferr_invalid_str(&v->errs, VP(v), str, strlen(str), "must be greater than or equal to 0");
    int64_t milli;
    if (integer_name(k, len) && (!dra_quantity_milli_value(&q, &milli) || milli % 1000 != 0))
        dra_ferr_invalid_str(&v->errs, VP(v), str, strlen(str), "must be an integer");
}

static void v_resource_list(vctx *v, const json_t *parent, const char *key)
{
    const json_t *list;
    if (!dra_vobj(v, parent, key, &list) || !list)
        return;
    V_CHILD(v, key)
    {
        const char *k;
        const json_t *val;
        json_object_foreach((json_t *)list, k, val) {
            V_KEY(v, k, strlen(k)) v_resource(v, k, strlen(k), val);
        }
    }
}

/* IsStandardResourceQuotaScope */
/* clang-format off */
static const char *const standard_scopes[] = {"Terminating",   "NotTerminating", "BestEffort",
                                              "NotBestEffort", "PriorityClass",  "VolumeAttributesClass",
                                              "CrossNamespacePodAffinity", NULL};
/* clang-format on */

/* IsResourceQuotaScopeValidForResource */
static bool scope_valid_for(const char *scope, const char *res)
{
    static const char *const pod_compute[] = {"cpu",          "memory",          "limits.cpu", "limits.memory",
                                              "requests.cpu", "requests.memory", NULL};
    bool pods = strcmp(res, "pods") == 0, compute = in_set(res, strlen(res), pod_compute);
    if (in_set(scope, strlen(scope),
               (const char *const[]){"Terminating", "NotTerminating", "NotBestEffort", "PriorityClass",
                                     "CrossNamespacePodAffinity", NULL}))
        return pods || compute;
    if (strcmp(scope, "BestEffort") == 0)
        return pods;
    if (strcmp(scope, "VolumeAttributesClass") == 0)
        return strcmp(res, "persistentvolumeclaims") == 0 || strcmp(res, "requests.storage") == 0;
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The hard resources, sorted (sets.List), that are standard quota names
 * (only those can be out of scope). */
static const char **hard_names(const json_t *spec, size_t *n)
{
    const json_t *hard = dra_vget(spec, "hard");
    const char **v = dra_xcalloc(json_object_size(hard) + 1, sizeof *v);
    *n = 0;
    const char *k;
    const json_t *x;
    json_object_foreach((json_t *)hard, k, x) {
        if (json_is_object(hard) && standard_quota_name(k, strlen(k)))
            v[(*n)++] = k;
    }
    qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

static bool has_both(const char *const *set, const char *a, const char *b)
{
    return in_set(a, strlen(a), set) && in_set(b, strlen(b), set);
}

/* How many of the pairs no quota may combine are in scopes (n, room for a
 * NULL after them). */
static int conflicts(const char **scopes, size_t n)
{
    scopes[n] = NULL;
    return (int)has_both(scopes, "BestEffort", "NotBestEffort") +
           (int)has_both(scopes, "Terminating", "NotTerminating");
}

/* json.Marshal of a string value (a named string type in Go). */
static char *render_str(const char *s)
{
    json_t *j = json_string(s);
    char *r = dra_vjson(j);
    json_decref(j);
    return r;
}

static void v_scopes(vctx *v, const json_t *spec)
{
    const json_t *scopes;
    if (!dra_varr(v, spec, "scopes", &scopes) || !json_array_size(scopes))
        return;
    size_t nh;
    const char **hard = hard_names(spec, &nh);
    char *rendered = dra_vjson(scopes);
    const char **seen = dra_xcalloc(json_array_size(scopes) + 1, sizeof *seen);
    size_t ns = 0;
    V_CHILD(v, "scopes")
    {
        size_t i;
        const json_t *s;
        json_array_foreach(scopes, i, s) {
            const char *sc = json_is_string(s) ? json_string_value(s) : "";
            if (!in_set(sc, strlen(sc), standard_scopes))
                dra_ferr_invalid_raw(&v->errs, VP(v), rendered, "unsupported scope");
            for (size_t k = 0; k < nh; k++)
                if (!scope_valid_for(sc, hard[k]))
                    dra_ferr_invalid_raw(&v->errs, VP(v), rendered, "unsupported scope applied to resource");
            seen[ns++] = sc;
        }
        for (int c = conflicts(seen, ns); c > 0; c--)
            dra_ferr_invalid_raw(&v->errs, VP(v), rendered, "conflicting scopes");
    }
    free(seen);
    free(rendered);
    free(hard);
}

/* The internal ScopeSelector as json.Marshal renders it (Go field names). */
static char *render_selector(const json_t *sel)
{
    json_t *exprs = json_array();
    size_t i;
    const json_t *r;
    const json_t *reqs = dra_vget(sel, "matchExpressions");
    json_array_foreach(reqs, i, r) {
        const json_t *vals = dra_vget(r, "values");
        json_array_append_new(exprs,
                              json_pack("{s:s,s:s,s:O}", "ScopeName", dra_jstr_or(r, "scopeName", ""), "Operator",
                                        dra_jstr_or(r, "operator", ""), "Values", vals ? vals : json_null()));
    }
    json_t *o = json_pack("{s:o}", "MatchExpressions", dra_vget(sel, "matchExpressions") ? exprs : json_null());
    if (!dra_vget(sel, "matchExpressions"))
        json_decref(exprs);
    char *s = dra_vjson(o);
    json_decref(o);
    return s;
}

static void v_scope_selector(vctx *v, const json_t *spec)
{
    const json_t *sel;
    if (!dra_vobj(v, spec, "scopeSelector", &sel) || !sel)
        return;
    size_t nh;
    const char **hard = hard_names(spec, &nh);
    const json_t *exprs = dra_vget(sel, "matchExpressions");
    const char **seen = dra_xcalloc(json_array_size(exprs) + 1, sizeof *seen);
    size_t ns = 0;
    char *rsel = render_selector(sel);
    const json_t *scopes = dra_vget(spec, "scopes");
    char *rscopes = scopes ? dra_vjson(scopes) : dra_xstrdup("null");
    V_CHILD(v, "scopeSelector") V_CHILD(v, "matchExpressions")
    {
        size_t i;
        const json_t *r;
        json_array_foreach(exprs, i, r) {
            const char *sc = dra_jstr_or(r, "scopeName", ""), *op = dra_jstr_or(r, "operator", "");
            if (!in_set(sc, strlen(sc), standard_scopes)) {
                char *rsc = render_str(sc);
                V_CHILD(v, "scopeName") dra_ferr_invalid_raw(&v->errs, VP(v), rsc, "unsupported scope");
                free(rsc);
            }
            for (size_t k = 0; k < nh; k++)
                if (!scope_valid_for(sc, hard[k]))
                    dra_ferr_invalid_raw(&v->errs, VP(v), rsel, "unsupported scope applied to resource");
            bool exists_only = in_set(sc, strlen(sc),
                                      (const char *const[]){"BestEffort", "NotBestEffort", "Terminating",
                                                            "NotTerminating", "CrossNamespacePodAffinity", NULL});
            char *rop = render_str(op);
            if (exists_only && strcmp(op, "Exists") != 0) {
                V_CHILD(v, "operator")
                {
                    dra_ferr_invalid_raw(
                        &v->errs, VP(v), rop,
                        "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
                        "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
                        "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity");
                }
            }
            size_t nv = json_array_size(dra_vget(r, "values"));
            if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) {
                if (!nv) {
                    V_CHILD(v, "values")
                    {
                        dra_ferr_required(
                            &v->errs, VP(v),
                            "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector");
                    }
                }
            } else if (strcmp(op, "Exists") == 0 || strcmp(op, "DoesNotExist") == 0) {
                if (nv) {
                    char *rv = dra_vjson(dra_vget(r, "values"));
                    V_CHILD(v, "values")
                    {
                        dra_ferr_invalid_raw(
                            &v->errs, VP(v), rv,
                            "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector");
                    }
                    free(rv);
                }
            } else {
                V_CHILD(v, "operator") dra_ferr_invalid_raw(&v->errs, VP(v), rop, "not a valid selector operator");
            }
            free(rop);
            seen[ns++] = sc;
        }
        for (int c = conflicts(seen, ns); c > 0; c--)
            dra_ferr_invalid_raw(&v->errs, VP(v), rscopes, "conflicting scopes");
    }
    free(rscopes);
    free(rsel);
    free(seen);
    free(hard);
}

/* The API server returns the list as one aggregate (field.ErrorList
 * ToAggregate), which keeps each distinct message once: the same scope
 * error for every hard resource is one error. */
static dra_err *distinct(dra_err *chain)
{
    dra_errs out = DRA_ERRS_INIT;
    while (chain) {
        dra_err *e = chain;
        chain = e->next;
        e->next = NULL;
        bool dup = false;
        for (const dra_err *o = out.head; o && !dup; o = o->next)
            dup = strcmp(o->msg, e->msg) == 0 &&
                  (o->field == e->field || (o->field && e->field && strcmp(o->field, e->field) == 0));
        if (dup)
            dra_err_free(e);
        else
            dra_errs_add(&out, e);
    }
    return dra_errs_take(&out);
}

dra_err *dra_validate_resource_quota(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, true, false);
    const json_t *spec = NULL, *status = NULL;
    if (dra_vobj(&v, obj, "spec", &spec) && spec) {
        V_CHILD(&v, "spec")
        {
            v_resource_list(&v, spec, "hard");
            v_scopes(&v, spec);
            v_scope_selector(&v, spec);
        }
    }
    if (dra_vobj(&v, obj, "status", &status) && status) {
        V_CHILD(&v, "status")
        {
            v_resource_list(&v, status, "hard");
            v_resource_list(&v, status, "used");
        }
    }
    return distinct(dra_vctx_finish(&v));
}
