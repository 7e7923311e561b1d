/* Classic DRA (resource.k8s.io/v1alpha2, Kubernetes 1.27-1.30): the rules of
 * release-1.30 pkg/apis/resource/validation/validation.go (ValidateClass,
 * ValidateClaim, validateResourceClaimSpec, ValidateClaimStatusUpdate,
 * ValidatePodSchedulingContexts) over the v1alpha2 types
 * (staging/src/k8s.io/api/resource/v1alpha2/types.go). */
#include "validate_common.h"

#include <string.h>

#define CLASSIC_RESERVED_FOR_MAX 32         /* ResourceClaimReservedForMaxSize */
#define CLASSIC_HANDLES_MAX 32              /* AllocationResultResourceHandlesMaxSize */
#define CLASSIC_HANDLE_DATA_MAX (16 * 1024) /* ResourceHandleDataMaxSize */
#define CLASSIC_NODE_LIST_MAX 128           /* PodSchedulingNodeListMaxSize */

static void v_params_ref(vctx *v, const json_t *parent, bool with_namespace)
{
    const json_t *ref;
    if (!dra_vobj(v, parent, "parametersRef", &ref))
        return;
    V_CHILD(v, "parametersRef")
    {
        const char *s;
        size_t len;
        if (!dra_vstr(v, ref, "kind", &s, &len) || len == 0)
            V_CHILD(v, "kind") dra_ferr_required(&v->errs, VP(v), "");
        if (!dra_vstr(v, ref, "name", &s, &len) || len == 0)
            V_CHILD(v, "name") dra_ferr_required(&v->errs, VP(v), "");
        if (with_namespace && dra_vstr(v, ref, "namespace", &s, &len) && len > 0)
            V_CHILD(v, "namespace") dra_vcheck(v, dra_check_dns1123_label, s, len);
    }
}

/* validateResourceClaimSpec at the current path */
static void v_classic_claim_spec(vctx *v, const json_t *spec)
{
    dra_vstr_check(v, spec, "resourceClassName", dra_check_dns1123_subdomain);
    v_params_ref(v, spec, false);
    static const char *const modes[] = {"Immediate", "WaitForFirstConsumer"};
    const char *s = "";
    size_t len = 0;
    dra_vstr(v, spec, "allocationMode", &s, &len);
    if (!((len == 9 && memcmp(s, "Immediate", 9) == 0) || (len == 20 && memcmp(s, "WaitForFirstConsumer", 20) == 0)))
        V_CHILD(v, "allocationMode") dra_ferr_unsupported(&v->errs, VP(v), s, len, modes, 2);
}

/* a list of node names that must be a set (validateSliceIsASet) */
static void v_node_set(vctx *v, const json_t *parent, const char *key)
{
    const json_t *nodes;
    if (!dra_varr(v, parent, key, &nodes))
        return;
    dra_v_max_items(v, key, nodes, CLASSIC_NODE_LIST_MAX);
    V_CHILD(v, key)
    for (size_t i = 0; i < json_array_size(nodes); i++) {
        const json_t *n = json_array_get(nodes, i);
        V_INDEX(v, i)
        {
            const char *s;
            size_t len;
            if (!dra_vis_str(v, n, &s, &len))
                continue;
            dra_vcheck(v, dra_check_node_name, s, len);
            for (size_t j = 0; j < i; j++)
                if (json_equal(json_array_get(nodes, j), n)) {
                    dra_ferr_duplicate_str(&v->errs, VP(v), s, len);
                    break;
                }
        }
    }
}

dra_err *dra_validate_resource_class(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, false, false);
    dra_vstr_check(&v, obj, "driverName", dra_check_driver_name);
    v_params_ref(&v, obj, true);
    const json_t *sel;
    if (dra_vobj(&v, obj, "suitableNodes", &sel))
        V_CHILD(&v, "suitableNodes") dra_v_node_selector(&v, sel);
    return dra_vctx_finish(&v);
}

dra_err *dra_validate_classic_claim(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, true, false);
    const json_t *spec = NULL;
    dra_vobj(&v, obj, "spec", &spec);
    V_CHILD(&v, "spec") v_classic_claim_spec(&v, spec);
    const json_t *status;
    if (dra_vobj(&v, obj, "status", &status)) {
        V_CHILD(&v, "status")
        {
            const json_t *alloc = NULL, *reserved;
            bool allocated = dra_vobj(&v, status, "allocation", &alloc);
            if (allocated) {
                dra_vstr_check(&v, status, "driverName", dra_check_driver_name);
                V_CHILD(&v, "allocation")
                {
                    const json_t *handles;
                    if (dra_varr(&v, alloc, "resourceHandles", &handles)) {
                        dra_v_max_items(&v, "resourceHandles", handles, CLASSIC_HANDLES_MAX);
                        V_CHILD(&v, "resourceHandles")
                        for (size_t i = 0; i < json_array_size(handles); i++) {
                            const json_t *h = json_array_get(handles, i);
                            V_INDEX(&v, i)
                            {
                                const char *s;
                                size_t len;
                                if (dra_vstr(&v, h, "driverName", &s, &len) && len > 0)
                                    V_CHILD(&v, "driverName") dra_vcheck(&v, dra_check_driver_name, s, len);
                                if (dra_vstr(&v, h, "data", &s, &len) && len > CLASSIC_HANDLE_DATA_MAX)
                                    V_CHILD(&v, "data") dra_ferr_too_long(&v.errs, VP(&v), CLASSIC_HANDLE_DATA_MAX);
                            }
                        }
                    }
                    const json_t *nodes;
                    if (dra_vobj(&v, alloc, "availableOnNodes", &nodes))
                        V_CHILD(&v, "availableOnNodes") dra_v_node_selector(&v, nodes);
                }
            }
            if (dra_varr(&v, status, "reservedFor", &reserved)) {
                dra_v_max_items(&v, "reservedFor", reserved, CLASSIC_RESERVED_FOR_MAX);
                if (json_array_size(reserved) > 0 && !allocated)
                    V_CHILD(&v, "reservedFor")
                dra_ferr_forbidden(&v.errs, VP(&v), "may not be specified when `allocated` is not set");
            }
            bool dealloc = false;
            if (dra_vbool(&v, status, "deallocationRequested", &dealloc) && dealloc && !allocated)
                V_CHILD(&v, "deallocationRequested")
            dra_ferr_forbidden(&v.errs, VP(&v), "deallocation can only be requested when the claim is allocated");
        }
    }
    return dra_vctx_finish(&v);
}

dra_err *dra_validate_classic_claim_template(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, true, false);
    const json_t *spec = NULL, *inner = NULL;
    dra_vobj(&v, obj, "spec", &spec);
    V_CHILD(&v, "spec")
    {
        dra_vobj(&v, spec, "spec", &inner);
        V_CHILD(&v, "spec") v_classic_claim_spec(&v, inner);
    }
    return dra_vctx_finish(&v);
}

dra_err *dra_validate_pod_scheduling_context(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, true, false);
    const json_t *spec = NULL;
    dra_vobj(&v, obj, "spec", &spec);
    V_CHILD(&v, "spec")
    {
        const char *s;
        size_t len;
        if (dra_vstr(&v, spec, "selectedNode", &s, &len) && len > 0)
            V_CHILD(&v, "selectedNode") dra_vcheck(&v, dra_check_node_name, s, len);
        v_node_set(&v, spec, "potentialNodes");
    }
    const json_t *status, *claims;
    if (dra_vobj(&v, obj, "status", &status) && dra_varr(&v, status, "resourceClaims", &claims)) {
        V_CHILD(&v, "status")
        V_CHILD(&v, "resourceClaims")
        for (size_t i = 0; i < json_array_size(claims); i++) {
            const json_t *c = json_array_get(claims, i);
            V_INDEX(&v, i)
            {
                const json_t *name = json_object_get(c, "name");
                for (size_t j = 0; json_is_string(name) && j < i; j++)
                    if (json_equal(json_object_get(json_array_get(claims, j), "name"), name)) {
                        V_CHILD(&v, "name")
                        dra_ferr_duplicate_str(&v.errs, VP(&v), json_string_value(name), json_string_length(name));
                        break;
                    }
                v_node_set(&v, c, "unsuitableNodes");
            }
        }
    }
    return dra_vctx_finish(&v);
}
