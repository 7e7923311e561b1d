/* PodGroup validation (scheduling.k8s.io, Kubernetes 1.37; 1.36's v1alpha2
 * differs in its template reference and its disruptionMode, a string).  Upstream checks
 * PodGroups declaratively: staging/src/k8s.io/api/scheduling/v1alpha3/
 * zz_generated.validations.go (Validate_PodGroupSpec,
 * Validate_PodGroupResourceClaim, Validate_PodGroupStatus; v1beta1 carries
 * the same tags), with the messages of k8s.io/apimachinery/pkg/api/validate
 * (union.go, limits.go, each.go, strfmt.go); the handwritten part is
 * pkg/apis/scheduling/validation/validation.go (ValidatePodGroup: object
 * metadata; validatePodGroupResourceClaimStatuses). */
#include "validate_common.h"

#include <stdlib.h>
#include <string.h>

#include "../io/json.h"

#define PODGROUP_MAX_CLAIMS 4 /* MaxPodGroupResourceClaims */
#define HIGHEST_USER_PRIORITY 1000000000

/* validate.Union over optional members: none set is "must specify one of",
 * several is "must specify exactly one of", at the current path. */
static void v_union(vctx *v, const json_t *obj, const char *const *members, size_t n)
{
    dra_buf all = DRA_BUF_INIT, set = DRA_BUF_INIT;
    size_t nset = 0;
    for (size_t i = 0; i < n; i++) {
        dra_buf_printf(&all, "%s`%s`", i ? ", " : "", members[i]);
        if (dra_vget(obj, members[i]))
            dra_buf_printf(&set, "%s%s", nset++ ? ", " : "", members[i]);
    }
    if (nset > 1) {
        char *bad = dra_xasprintf("{%s}", dra_buf_str(&set));
        char *detail = dra_xasprintf("must specify exactly one of: %s", dra_buf_str(&all));
        dra_ferr_invalid_str(&v->errs, VP(v), bad, strlen(bad), detail);
        free(bad);
        free(detail);
    } else if (nset == 0) {
        char *detail = dra_xasprintf("must specify one of: %s", dra_buf_str(&all));
        dra_ferr_invalid_str(&v->errs, VP(v), "", 0, detail);
        free(detail);
    }
    dra_buf_free(&all);
    dra_buf_free(&set);
}

/* An optional string field in k8s-long-name format (validate.LongName). */
static void v_long_name(vctx *v, const json_t *obj, const char *key)
{
    const char *s;
    size_t len;
    if (dra_vstr(v, obj, key, &s, &len))
        V_CHILD(v, key) dra_vcheck(v, dra_check_dns1123_subdomain, s, len);
}

/* The list item as Go's json.Marshal renders the versioned struct (fields in
 * declaration order, empty pointers omitted). */
static char *render_item(const json_t *item, const char *const *fields, size_t n)
{
    json_t *o = json_object();
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_object_get(item, fields[i]);
        if (x && !json_is_null(x))
            json_object_set(o, fields[i], x);
    }
    char *s = dra_vjson(o);
    json_decref(o);
    return s;
}

/* listType=map keyed by name: the later duplicates (validate.ValSliceUnique). */
static void v_unique_names(vctx *v, const json_t *arr, const char *const *fields, size_t n)
{
    size_t len = json_array_size(arr);
    for (size_t j = 1; j < len; j++) {
        const char *nj = dra_jstr_or(json_array_get(arr, j), "name", "");
        for (size_t i = 0; i < j; i++) {
            if (strcmp(dra_jstr_or(json_array_get(arr, i), "name", ""), nj) != 0)
                continue;
            char *r = render_item(json_array_get(arr, j), fields, n);
            V_INDEX(v, j) dra_ferr_duplicate_raw(&v->errs, VP(v), r);
            free(r);
            break;
        }
    }
}

static const char *const claim_fields[] = {"name", "resourceClaimName", "resourceClaimTemplateName"};
static const char *const status_fields[] = {"name", "resourceClaimName"};

static void v_claims(vctx *v, const json_t *spec)
{
    const json_t *claims;
    if (!dra_varr(v, spec, "resourceClaims", &claims))
        return;
    if (!dra_v_max_items(v, "resourceClaims", claims, PODGROUP_MAX_CLAIMS))
        return;
    V_CHILD(v, "resourceClaims")
    {
        v_unique_names(v, claims, claim_fields, 3);
        for (size_t i = 0; i < json_array_size(claims); i++) {
            V_INDEX(v, i)
            {
                const json_t *c = json_array_get(claims, i);
                if (!dra_vis_obj(v, c))
                    continue;
                v_union(v, c, claim_fields + 1, 2);
                dra_v_required_str(v, c, "name", dra_check_dns1123_label);
                v_long_name(v, c, "resourceClaimName");
                v_long_name(v, c, "resourceClaimTemplateName");
            }
        }
    }
}

static void v_policy(vctx *v, const json_t *spec)
{
    const json_t *pol = NULL, *gang, *basic;
    dra_vobj(v, spec, "schedulingPolicy", &pol);
    V_CHILD(v, "schedulingPolicy")
    {
        /* basic is an empty struct: anything but an object fails to decode
         * (v1beta1.BasicSchedulingPolicy) */
        if (pol)
            dra_vobj(v, pol, "basic", &basic);
        static const char *const members[] = {"basic", "gang"};
        json_t *empty = pol ? NULL : json_object();
        v_union(v, pol ? pol : empty, members, 2);
        json_decref(empty);
        if (pol && dra_vobj(v, pol, "gang", &gang)) {
            int64_t n = 0;
            bool has = dra_vint(v, gang, "minCount", &n);
            V_CHILD(v, "gang") V_CHILD(v, "minCount")
            {
                if (!has || n == 0)
                    dra_ferr_required(&v->errs, VP(v), "");
                else if (n < 1)
                    dra_ferr_invalid_int(&v->errs, VP(v), n, "must be greater than or equal to 1");
            }
        }
    }
}

/* 1.36's v1alpha2 names its template by podGroupTemplateRef, a union of
 * one member (k8s.io/kubernetes@v1.36.3 pkg/apis/scheduling/v1alpha2/
 * zz_generated.validations.go Validate_PodGroupTemplateReference,
 * Validate_WorkloadPodGroupTemplateReference). */
static void v_template_ref(vctx *v, const json_t *spec)
{
    const json_t *ref, *w;
    if (!dra_vobj(v, spec, "podGroupTemplateRef", &ref))
        return;
    V_CHILD(v, "podGroupTemplateRef")
    {
        static const char *const members[] = {"workload"};
        v_union(v, ref, members, 1);
        if (dra_vobj(v, ref, "workload", &w))
            V_CHILD(v, "workload")
            {
                dra_v_required_str(v, w, "workloadName", dra_check_dns1123_subdomain);
                dra_v_required_str(v, w, "podGroupTemplateName", dra_check_dns1123_label);
            }
    }
}

/* 1.36's v1alpha2 disruptionMode is a string enum (Validate_DisruptionMode);
 * without WorkloadAwarePreemption it is dropped before (validate_drop.c). */
static void v_disruption_mode(vctx *v, const json_t *spec)
{
    static const char *const modes[] = {"Pod", "PodGroup"};
    const char *s;
    size_t len;
    if (!dra_vstr(v, spec, "disruptionMode", &s, &len))
        return;
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        if (strlen(modes[i]) == len && memcmp(modes[i], s, len) == 0)
            return;
    V_CHILD(v, "disruptionMode") dra_ferr_unsupported(&v->errs, VP(v), s, len, modes, 2);
}

static void v_status(vctx *v, const json_t *status, const json_t *spec)
{
    const json_t *st;
    if (!dra_varr(v, status, "resourceClaimStatuses", &st))
        return;
    if (!dra_v_max_items(v, "resourceClaimStatuses", st, PODGROUP_MAX_CLAIMS))
        return;
    const json_t *claims = dra_vget(spec, "resourceClaims");
    V_CHILD(v, "resourceClaimStatuses")
    {
        v_unique_names(v, st, status_fields, 2);
        for (size_t i = 0; i < json_array_size(st); i++) {
            V_INDEX(v, i)
            {
                const json_t *e = json_array_get(st, i);
                if (!dra_vis_obj(v, e))
                    continue;
                v_long_name(v, e, "resourceClaimName");
                /* validatePodGroupResourceClaimStatuses (status updates) */
                const char *nm = "";
                size_t len = 0;
                dra_vstr(v, e, "name", &nm, &len);
                bool found = false;
                for (size_t k = 0; k < json_array_size(claims) && !found; k++)
                    found = strcmp(dra_jstr_or(json_array_get(claims, k), "name", ""), nm) == 0;
                if (!found)
                    V_CHILD(v, "name")
                dra_ferr_invalid_str(&v->errs, VP(v), nm, len,
                                     "must match the name of an entry in `spec.resourceClaims`");
            }
        }
    }
}

dra_err *dra_validate_pod_group(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, true, false);
    const json_t *spec = NULL;
    dra_vobj(&v, obj, "spec", &spec);
    json_t *empty = spec ? NULL : json_object();
    if (!spec)
        spec = empty;
    V_CHILD(&v, "spec")
    {
        v_long_name(&v, spec, "parentCompositePodGroupName");
        const json_t *ref;
        bool v1alpha2 = strcmp(dra_jstr_or(obj, "apiVersion", ""), "scheduling.k8s.io/v1alpha2") == 0;
        if (v1alpha2)
            v_template_ref(&v, spec);
        else if (dra_vobj(&v, spec, "workloadRef", &ref)) {
            V_CHILD(&v, "workloadRef")
            {
                dra_v_required_str(&v, ref, "workloadName", dra_check_dns1123_subdomain);
                dra_v_required_str(&v, ref, "templateName", dra_check_dns1123_label);
            }
        }
        v_policy(&v, spec);
        v_claims(&v, spec);
        if (v1alpha2)
            v_disruption_mode(&v, spec);
        const char *pcn;
        size_t len;
        if (dra_vstr(&v, spec, "priorityClassName", &pcn, &len) && len)
            V_CHILD(&v, "priorityClassName") dra_vcheck(&v, dra_check_dns1123_subdomain, pcn, len);
        int64_t prio;
        if (dra_vint(&v, spec, "priority", &prio) && prio > HIGHEST_USER_PRIORITY)
            V_CHILD(&v, "priority")
        dra_ferr_invalid_int(&v.errs, VP(&v), prio, "must be less than or equal to 1000000000");
    }
    const json_t *status;
    if (dra_vobj(&v, obj, "status", &status))
        V_CHILD(&v, "status") v_status(&v, status, spec);
    json_decref(empty);
    return dra_vctx_finish(&v);
}
