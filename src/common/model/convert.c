/* Version conversion; see convert.h. */
#include "convert.h"

#include <stdlib.h>
#include <string.h>

#include "names.h"

/* v1beta1 BasicDevice fields, which v1 has on the device itself. */
/* clang-format off */
static const char *const basic_fields[] = {
    "attributes", "capacity", "consumesCounters", "nodeName", "nodeSelector", "allNodes", "taints",
    "bindsToNode", "bindingConditions", "bindingFailureConditions", "allowMultipleAllocations",
    "nodeAllocatableResources",
};

/* v1beta1 DeviceRequest fields that v1 keeps under `exactly`. */
static const char *const exact_fields[] = {
    "deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations", "capacity",
    "derivedAttributes",
};
/* clang-format on */

static bool in_list(const char *key, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(key, list[i]) == 0)
            return true;
    return false;
}

#define N(a) (sizeof(a) / sizeof *(a))

static void unknown_field(dra_errs *errs, dra_buf *path, const char *key, const char *version)
{
    size_t m = dra_path_child(path, key);
    char *d = dra_xasprintf("field does not exist in %s", version);
    dra_ferr_forbidden(errs, dra_buf_str(path), d);
    free(d);
    dra_path_pop(path, m);
}

/* Flatten devices[i].basic into devices[i]. */
static void convert_device(json_t *devices, size_t i, dra_errs *errs, dra_buf *path)
{
    json_t *d = json_array_get(devices, i);
    if (!json_is_object(d))
        return;
    size_t m = dra_path_index(path, i);
    json_t *basic = json_object_get(d, "basic");
    const char *k;
    json_t *val;
    json_object_foreach(d, k, val) {
        if (in_list(k, basic_fields, N(basic_fields)))
            unknown_field(errs, path, k, "resource.k8s.io/v1beta1 (it belongs under `basic`)");
    }
    if (basic && !json_is_null(basic) && !json_is_object(basic)) {
        size_t m2 = dra_path_child(path, "basic");
        dra_ferr_invalid_raw(errs, dra_buf_str(path), json_is_array(basic) ? "[...]" : "<scalar>",
                             "must be of type object");
        dra_path_pop(path, m2);
    } else if (basic) {
        json_t *out = json_object();
        json_object_foreach(d, k, val) {
            if (strcmp(k, "basic") == 0) {
                const char *bk;
                json_t *bv;
                json_object_foreach(basic, bk, bv) {
                    if (!json_object_get(out, bk))
                        json_object_set(out, bk, bv);
                }
            } else if (!in_list(k, basic_fields, N(basic_fields)) || !json_object_get(basic, k)) {
                json_object_set(out, k, val);
            }
        }
        json_array_set_new(devices, i, out);
    }
    dra_path_pop(path, m);
}

static bool main_field_set(const char *key, const json_t *val)
{
    if (json_is_null(val))
        return false;
    if (strcmp(key, "deviceClassName") == 0 || strcmp(key, "allocationMode") == 0)
        return !json_is_string(val) || json_string_length(val) > 0;
    if (strcmp(key, "count") == 0)
        return !json_is_integer(val) || json_integer_value(val) != 0;
    return true;
}

/* Nest the flat v1beta1 request fields under `exactly`. */
static void convert_request(json_t *requests, size_t i, dra_errs *errs, dra_buf *path)
{
    json_t *r = json_array_get(requests, i);
    if (!json_is_object(r))
        return;
    size_t m = dra_path_index(path, i);
    if (json_object_get(r, "exactly"))
        unknown_field(errs, path, "exactly", "resource.k8s.io/v1beta1");
    bool any_main = false;
    const char *k;
    json_t *val;
    json_object_foreach(r, k, val) {
        if (in_list(k, exact_fields, N(exact_fields)) && main_field_set(k, val))
            any_main = true;
    }
    /* Convert_v1beta1_DeviceRequest_To_resource_DeviceRequest: `exactly`
     * when some main field is set (hasAnyMainRequestFieldsSet) */
    if (any_main) {
        json_t *exactly = json_object();
        json_t *out = json_object();
        bool placed = false;
        json_object_foreach(r, k, val) {
            if (in_list(k, exact_fields, N(exact_fields))) {
                json_object_set(exactly, k, val);
                if (!placed) {
                    json_object_set(out, "exactly", exactly);
                    placed = true;
                }
            } else if (strcmp(k, "exactly") != 0) {
                json_object_set(out, k, val);
            }
        }
        if (!placed)
            json_object_set(out, "exactly", exactly);
        json_decref(exactly);
        json_array_set_new(requests, i, out);
    }
    dra_path_pop(path, m);
}

static void convert_claim_spec(json_t *spec, dra_errs *errs, dra_buf *path)
{
    json_t *requests = json_object_get(json_object_get(spec, "devices"), "requests");
    if (!json_is_array(requests))
        return;
    size_t m = dra_path_child(path, "devices");
    dra_path_child(path, "requests");
    for (size_t i = 0; i < json_array_size(requests); i++)
        convert_request(requests, i, errs, path);
    dra_path_pop(path, m);
}

static void note(dra_err **notes, char *field, char *msg)
{
    *notes = dra_err_append(*notes, dra_err_field(dra_err_new(DRA_EXIT_OK, "%s", msg), field));
    free(field);
    free(msg);
}

size_t dra_flatten_claim_sources(json_t *pod_spec, const char *prefix, dra_err **notes)
{
    static const char *const keys[] = {"resourceClaimName", "resourceClaimTemplateName"};
    size_t changed = 0, i;
    json_t *c;
    const json_t *claims = json_object_get(pod_spec, "resourceClaims");
    json_array_foreach(claims, i, c) {
        json_t *src = json_object_get(c, "source");
        if (!json_is_object(src))
            continue;
        changed++;
        bool moved = false;
        for (size_t k = 0; k < N(keys); k++) {
            json_t *v = json_object_get(src, keys[k]);
            if (!v || json_is_null(v))
                continue;
            bool kept = json_object_get(c, keys[k]) != NULL;
            if (!kept)
                json_object_set(c, keys[k], v);
            moved = true;
            if (notes)
                note(notes, dra_xasprintf("%s.resourceClaims[%zu].source.%s", prefix, i, keys[k]),
                     kept ? dra_xasprintf("dropped: the entry sets %s itself", keys[k])
                          : dra_xasprintf("moved to %s.resourceClaims[%zu].%s", prefix, i, keys[k]));
        }
        if (notes && !moved)
            note(notes, dra_xasprintf("%s.resourceClaims[%zu].source", prefix, i),
                 dra_xstrdup("dropped: it names no claim"));
        json_object_del(c, "source");
    }
    return changed;
}

dra_err *dra_convert_to_v1(json_t *obj, dra_kind kind, dra_apiver from)
{
    if (json_is_object(obj) && kind == DRA_KIND_POD)
        (void)dra_flatten_claim_sources(json_object_get(obj, "spec"), "spec", NULL);
    /* ResourcePoolStatusRequest exists only as v1alpha3; classic DRA objects
     * stay as they are: `convert` (classic.h) says what of them carries over
     * to v1 */
    if (!json_is_object(obj) || !dra_kind_is_resource(kind) || kind == DRA_KIND_RESOURCE_POOL_STATUS_REQUEST ||
        dra_kind_is_classic(kind))
        return NULL;
    dra_errs errs = DRA_ERRS_INIT;
    dra_buf path = DRA_BUF_INIT;
    json_t *spec = json_object_get(obj, "spec");
    if (from == DRA_APIVER_RESOURCE_V1BETA1 && json_is_object(spec)) {
        dra_path_child(&path, "spec");
        if (kind == DRA_KIND_RESOURCE_SLICE) {
            json_t *devices = json_object_get(spec, "devices");
            if (json_is_array(devices)) {
                dra_path_child(&path, "devices");
                for (size_t i = 0; i < json_array_size(devices); i++)
                    convert_device(devices, i, &errs, &path);
            }
        } else if (kind == DRA_KIND_RESOURCE_CLAIM) {
            convert_claim_spec(spec, &errs, &path);
        } else if (kind == DRA_KIND_RESOURCE_CLAIM_TEMPLATE) {
            json_t *inner = json_object_get(spec, "spec");
            if (json_is_object(inner)) {
                dra_path_child(&path, "spec");
                convert_claim_spec(inner, &errs, &path);
            }
        }
    }
    dra_buf_free(&path);
    json_object_set_new(obj, "apiVersion", json_string(DRA_RESOURCE_V1));
    return dra_errs_take(&errs);
}
