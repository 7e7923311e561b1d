/* ResourcePoolStatusRequest status; see poolstatus.h. */
#include "poolstatus.h"

#include <stdlib.h>
#include <string.h>

#include "../base/sort.h"
#include "../base/buf.h"
#include "../model/time.h"

typedef struct pinfo {
    const char *driver, *pool;
    const char *node;
    bool node_mixed;
    int64_t total, unavailable, slices, expected, generation;
} pinfo;

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static bool blocking_effect(const char *e)
{
    return e && (strcmp(e, "NoSchedule") == 0 || strcmp(e, "NoExecute") == 0);
}

static bool opt_match(const json_t *sel, const char *key, const char *value)
{
    const char *s = jstr(sel, key);
    return !s || strcmp(s, value) == 0;
}

static bool device_unavailable(const char *driver, const char *pool, const json_t *dev, const dra_model_list *rules)
{
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(dev, "taints"), i, t) if (blocking_effect(jstr(t, "effect"))) return true;
    const char *name = jstr(dev, "name") ? jstr(dev, "name") : "";
    for (size_t k = 0; rules && k < rules->n; k++) {
        const json_t *spec = json_object_get(rules->v[k]->json, "spec");
        if (!blocking_effect(jstr(json_object_get(spec, "taint"), "effect")))
            continue;
        const json_t *sel = json_object_get(spec, "deviceSelector");
        if (!json_is_object(sel)) /* no selector matches nothing */
            continue;
        if (opt_match(sel, "driver", driver) && opt_match(sel, "pool", pool) && opt_match(sel, "device", name))
            return true;
    }
    return false;
}

static int cmp_pool(const void *a, const void *b)
{
    const pinfo *x = a, *y = b;
    int c = strcmp(x->driver, y->driver);
    return c ? c : strcmp(x->pool, y->pool);
}

static pinfo *find(pinfo *v, size_t n, const char *pool)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].pool, pool) == 0)
            return &v[i];
    return NULL;
}

/* Distinct allocated devices of one pool (admin access excluded). */
static int64_t allocated(const dra_model *m, const char *driver, const char *pool)
{
    const dra_model_list *cl = dra_model_kind(m, DRA_KIND_RESOURCE_CLAIM);
    const char **seen = NULL;
    size_t n = 0, cap = 0;
    for (size_t c = 0; c < cl->n; c++) {
        const json_t *res = json_object_get(
            json_object_get(json_object_get(json_object_get(cl->v[c]->json, "status"), "allocation"), "devices"),
            "results");
        size_t i;
        const json_t *r;
        json_array_foreach(res, i, r) {
            if (json_is_true(json_object_get(r, "adminAccess")))
                continue;
            const char *d = jstr(r, "driver"), *p = jstr(r, "pool"), *dev = jstr(r, "device");
            if (!d || !p || !dev || strcmp(d, driver) != 0 || strcmp(p, pool) != 0)
                continue;
            bool dup = false;
            for (size_t k = 0; k < n && !dup; k++)
                dup = strcmp(seen[k], dev) == 0;
            if (dup)
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                seen = dra_xrealloc(seen, cap * sizeof *seen);
            }
            seen[n++] = dev;
        }
    }
    free(seen);
    return (int64_t)n;
}

json_t *dra_pool_status(const dra_model *m, const json_t *request, const dra_features *features, int64_t now_ns)
{
    const json_t *spec = json_object_get(request, "spec");
    const char *driver = jstr(spec, "driver") ? jstr(spec, "driver") : "";
    const char *filter = jstr(spec, "poolName");
    if (filter && !*filter)
        filter = NULL;
    int64_t limit = DRA_POOL_STATUS_LIMIT_DEFAULT;
    if (json_is_integer(json_object_get(spec, "limit")))
        limit = json_integer_value(json_object_get(spec, "limit"));
    const dra_model_list *sl = dra_model_kind(m, DRA_KIND_RESOURCE_SLICE);
    const dra_model_list *rules = dra_feature_enabled(features, DRA_FEATURE_DEVICE_TAINT_RULES)
                                      ? dra_model_kind(m, DRA_KIND_DEVICE_TAINT_RULE)
                                      : NULL;
    pinfo *pools = dra_xcalloc(sl->n + 1, sizeof *pools);
    size_t np = 0;
    /* pass 1: the newest generation per pool */
    for (size_t i = 0; i < sl->n; i++) {
        const json_t *ss = json_object_get(sl->v[i]->json, "spec");
        const json_t *pj = json_object_get(ss, "pool");
        const char *d = jstr(ss, "driver"), *p = jstr(pj, "name");
        if (!d || !p || strcmp(d, driver) != 0 || (filter && strcmp(p, filter) != 0))
            continue;
        int64_t gen = json_integer_value(json_object_get(pj, "generation"));
        pinfo *x = find(pools, np, p);
        if (!x) {
            x = &pools[np++];
            *x = (pinfo){.driver = d, .pool = p, .generation = gen};
        } else if (gen > x->generation) {
            x->generation = gen;
        }
    }
    /* pass 2: count the slices of that generation */
    for (size_t i = 0; i < sl->n; i++) {
        const json_t *ss = json_object_get(sl->v[i]->json, "spec");
        const json_t *pj = json_object_get(ss, "pool");
        const char *d = jstr(ss, "driver"), *p = jstr(pj, "name");
        if (!d || !p || strcmp(d, driver) != 0 || (filter && strcmp(p, filter) != 0))
            continue;
        pinfo *x = find(pools, np, p);
        if (json_integer_value(json_object_get(pj, "generation")) < x->generation)
            continue;
        const char *node = jstr(ss, "nodeName") ? jstr(ss, "nodeName") : "";
        if (x->slices == 0) {
            x->node = node;
            x->expected = json_integer_value(json_object_get(pj, "resourceSliceCount"));
        } else if (strcmp(node, x->node) != 0) {
            x->node_mixed = true;
        }
        x->slices++;
        size_t k;
        const json_t *dev;
        json_array_foreach(json_object_get(ss, "devices"), k, dev) {
            x->total++;
            if (device_unavailable(d, p, dev, rules))
                x->unavailable++;
        }
    }
    dra_sort(pools, np, sizeof *pools, cmp_pool);
    size_t shown = (int64_t)np > limit ? (size_t)(limit > 0 ? limit : 0) : np;
    json_t *arr = json_array();
    size_t incomplete = 0;
    for (size_t i = 0; i < shown; i++) {
        pinfo *x = &pools[i];
        json_t *o = json_object();
        json_object_set_new(o, "driver", json_string(x->driver));
        json_object_set_new(o, "poolName", json_string(x->pool));
        if (x->node && *x->node && !x->node_mixed)
            json_object_set_new(o, "nodeName", json_string(x->node));
        json_object_set_new(o, "generation", json_integer(x->generation));
        if (x->slices < x->expected) {
            char *msg = dra_xasprintf("PoolIncomplete: pool %s/%s is incomplete: observed %lld/%lld slices at generation %lld",
                                      x->driver, x->pool, (long long)x->slices, (long long)x->expected,
                                      (long long)x->generation);
            if (strlen(msg) > 256)
                msg[256] = 0;
            json_object_set_new(o, "validationError", json_string(msg));
            free(msg);
            incomplete++;
        } else {
            int64_t alloc = allocated(m, x->driver, x->pool);
            int64_t avail = x->total - alloc - x->unavailable;
            json_object_set_new(o, "resourceSliceCount", json_integer(x->slices));
            json_object_set_new(o, "totalDevices", json_integer(x->total));
            json_object_set_new(o, "allocatedDevices", json_integer(alloc));
            json_object_set_new(o, "availableDevices", json_integer(avail > 0 ? avail : 0));
            json_object_set_new(o, "unavailableDevices", json_integer(x->unavailable));
        }
        json_array_append_new(arr, o);
    }
    char *msg = incomplete ? dra_xasprintf("Calculated status for %zu pools (%zu incomplete)", shown, incomplete)
                           : dra_xasprintf("Calculated status for %zu pools", shown);
    char *when = dra_time_format(now_ns);
    json_t *status = json_object();
    json_object_set_new(status, "poolCount", json_integer((json_int_t)np));
    if (shown)
        json_object_set_new(status, "pools", arr);
    else
        json_decref(arr);
    json_object_set_new(status, "conditions",
                        json_pack("[{s:s,s:s,s:s,s:s,s:s}]", "type", "Complete", "status", "True",
                                  "lastTransitionTime", when, "reason", "CalculationComplete", "message", msg));
    free(when);
    free(msg);
    free(pools);
    return status;
}

json_t *dra_pool_status_request_new(const char *driver, const char *pool, long long limit)
{
    json_t *req = json_pack("{s:s,s:s,s:{s:s},s:{s:s}}", "apiVersion", "resource.k8s.io/v1alpha3", "kind",
                            "ResourcePoolStatusRequest", "metadata", "name", driver, "spec", "driver", driver);
    json_t *spec = json_object_get(req, "spec");
    if (pool)
        json_object_set_new(spec, "poolName", json_string(pool));
    if (limit)
        json_object_set_new(spec, "limit", json_integer(limit));
    return req;
}

dra_err *dra_pool_status_write(dra_writer *w, const dra_model *m, const char *only_file, const dra_features *features,
                               int64_t now_ns)
{
    const dra_model_list *reqs = dra_model_kind(m, DRA_KIND_RESOURCE_POOL_STATUS_REQUEST);
    if (reqs->n == 0)
        return dra_err_hint(dra_err_new(DRA_EXIT_INPUT, "no ResourcePoolStatusRequest in the input"), "driver");
    dra_err *e = NULL;
    for (size_t i = 0; i < reqs->n && !e; i++) {
        if (only_file && (!reqs->v[i]->file || strcmp(reqs->v[i]->file, only_file) != 0))
            continue;
        json_t *out = json_deep_copy(reqs->v[i]->json);
        const json_t *st = json_object_get(out, "status");
        if (!st || json_is_null(st))
            json_object_set_new(out, "status", dra_pool_status(m, out, features, now_ns));
        e = dra_writer_put(w, out);
        json_decref(out);
    }
    return e;
}
