/* Defaulting; see defaults.h. */
#include "defaults.h"

#include <stdlib.h>

#include <stdio.h>
#include <string.h>
#include "time.h"

const char *dra_format_rfc3339(int64_t unix_seconds, char *buf, size_t size)
{
    char *s = dra_time_format((dra_time){unix_seconds, 0});
    snprintf(buf, size, "%s", s);
    free(s);
    return buf;
}

static bool null_or_absent(const json_t *x)
{
    return !x || json_is_null(x);
}

static bool empty_string_or_absent(const json_t *x)
{
    return !x || json_is_null(x) || (json_is_string(x) && json_string_length(x) == 0);
}

/* arr[i], an empty object in place of a null: a null list item decodes into
 * Go's zero struct, which is defaulted like any other.  *changed is set
 * when it was replaced. */
static json_t *item_struct(json_t *arr, size_t i, bool *changed)
{
    json_t *x = json_array_get(arr, i);
    if (json_is_null(x)) {
        json_array_set_new(arr, i, json_object());
        *changed = true;
        x = json_array_get(arr, i);
    }
    return x;
}

/* Each default_* below returns whether it changed anything. */
static bool default_tolerations(json_t *parent)
{
    bool changed = false;
    json_t *tols = json_object_get(parent, "tolerations");
    for (size_t i = 0; json_is_array(tols) && i < json_array_size(tols); i++) {
        json_t *t = item_struct(tols, i, &changed);
        if (json_is_object(t) && empty_string_or_absent(json_object_get(t, "operator"))) {
            json_object_set_new(t, "operator", json_string("Equal"));
            changed = true;
        }
    }
    return changed;
}

static bool default_request(json_t *r)
{
    if (!json_is_object(r))
        return false;
    bool changed = false;
    json_t *mode = json_object_get(r, "allocationMode");
    if (empty_string_or_absent(mode)) {
        json_object_set_new(r, "allocationMode", json_string("ExactCount"));
        changed = true;
    }
    mode = json_object_get(r, "allocationMode");
    if (json_is_string(mode) && strcmp(json_string_value(mode), "ExactCount") == 0) {
        json_t *count = json_object_get(r, "count");
        if (!count || json_is_null(count) || (json_is_integer(count) && json_integer_value(count) == 0)) {
            json_object_set_new(r, "count", json_integer(1));
            changed = true;
        }
    }
    return default_tolerations(r) || changed;
}

static bool default_claim_spec(json_t *spec)
{
    bool changed = false;
    json_t *requests = json_object_get(json_object_get(spec, "devices"), "requests");
    for (size_t i = 0; json_is_array(requests) && i < json_array_size(requests); i++) {
        json_t *r = json_array_get(requests, i);
        json_t *exactly = json_object_get(r, "exactly");
        if (json_is_object(exactly))
            changed |= default_request(exactly);
        json_t *fa = json_object_get(r, "firstAvailable");
        for (size_t j = 0; json_is_array(fa) && j < json_array_size(fa); j++)
            changed |= default_request(item_struct(fa, j, &changed));
    }
    return changed;
}

/* now: Unix seconds, formatted the first time a taint needs it (ts[0] is
 * 0 until then). */
static bool default_taint(json_t *taint, int64_t now, char ts[32])
{
    if (!json_is_object(taint) || !null_or_absent(json_object_get(taint, "timeAdded")))
        return false;
    if (!ts[0])
        dra_format_rfc3339(now, ts, 32);
    json_object_set_new(taint, "timeAdded", json_string(ts));
    return true;
}

/* SetDefaults_Pod (pkg/apis/core/v1/defaults.go): a resource under limits
 * and not under requests is requested as much; for containers and init
 * containers of a Pod (not of a pod template).  This is how extended
 * resources are usually written: `limits: {example.com/gpu: 1}`. */
static bool default_pod_requests(json_t *spec)
{
    bool changed = false;
    static const char *const lists[] = {"containers", "initContainers"};
    for (size_t l = 0; l < 2; l++) {
        json_t *cs = json_object_get(spec, lists[l]);
        for (size_t i = 0; json_is_array(cs) && i < json_array_size(cs); i++) {
            json_t *res = json_object_get(json_array_get(cs, i), "resources");
            json_t *limits = json_object_get(res, "limits");
            if (!json_is_object(limits) || !json_object_size(limits))
                continue;
            json_t *req = json_object_get(res, "requests");
            if (!req || json_is_null(req)) {
                req = json_object();
                json_object_set_new(res, "requests", req);
                changed = true;
            }
            if (!json_is_object(req))
                continue; /* validation reports the type */
            const char *k;
            json_t *v;
            json_object_foreach(limits, k, v) {
                if (!json_object_get(req, k)) {
                    json_object_set(req, k, v);
                    changed = true;
                }
            }
        }
    }
    return changed;
}

bool dra_default_object(json_t *obj, dra_kind kind, int64_t now)
{
    char ts[32] = "";
    bool changed = false;
    json_t *spec = json_object_get(obj, "spec");
    switch (kind) {
    case DRA_KIND_RESOURCE_CLAIM: {
        changed = default_claim_spec(spec);
        json_t *results = json_object_get(
            json_object_get(json_object_get(json_object_get(obj, "status"), "allocation"), "devices"), "results");
        for (size_t i = 0; json_is_array(results) && i < json_array_size(results); i++)
            changed |= default_tolerations(json_array_get(results, i));
        break;
    }
    case DRA_KIND_RESOURCE_CLAIM_TEMPLATE: changed = default_claim_spec(json_object_get(spec, "spec")); break;
    case DRA_KIND_CLASSIC_CLAIM:
    case DRA_KIND_CLASSIC_CLAIM_TEMPLATE: {
        /* v1alpha2 SetDefaults_ResourceClaimSpec: WaitForFirstConsumer */
        json_t *cs = kind == DRA_KIND_CLASSIC_CLAIM ? spec : json_object_get(spec, "spec");
        json_t *mode = json_object_get(cs, "allocationMode");
        if (json_is_object(cs) &&
            (!mode || json_is_null(mode) || (json_is_string(mode) && !json_string_length(mode)))) {
            json_object_set_new(cs, "allocationMode", json_string("WaitForFirstConsumer"));
            changed = true;
        }
        break;
    }
    case DRA_KIND_RESOURCE_SLICE: {
        json_t *devices = json_object_get(spec, "devices");
        for (size_t i = 0; json_is_array(devices) && i < json_array_size(devices); i++) {
            json_t *taints = json_object_get(json_array_get(devices, i), "taints");
            for (size_t j = 0; json_is_array(taints) && j < json_array_size(taints); j++)
                changed |= default_taint(item_struct(taints, j, &changed), now, ts);
        }
        /* Slice-level taints (SliceDeviceTaint, master): spec.taints[].taint. */
        json_t *slice_taints = json_object_get(spec, "taints");
        for (size_t i = 0; json_is_array(slice_taints) && i < json_array_size(slice_taints); i++)
            changed |= default_taint(json_object_get(json_array_get(slice_taints, i), "taint"), now, ts);
        break;
    }
    case DRA_KIND_DEVICE_TAINT_RULE: changed = default_taint(json_object_get(spec, "taint"), now, ts); break;
    case DRA_KIND_POD: changed = default_pod_requests(spec); break;
    default: break;
    }
    return changed;
}
