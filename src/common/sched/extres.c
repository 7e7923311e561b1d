/* Extended resources backed by DRA (KEP-5004; extendeddynamicresources.go
 * createRequestsAndMappings, the extended resource cache,
 * schedutil.IsDRAExtendedResourceName). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../base/assert.h"
#include "../base/buf.h"
#include "../base/hash.h"
#include "../cluster/cluster.h"
#include "../model/names.h"
#include "../model/quantity.h"
#include "../io/json.h"
#include "extres.h"
#include "../base/sort.h"

#define DEVICECLASS_PREFIX "deviceclass.resource.kubernetes.io/"

typedef struct ext_entry {
    const char *resource;
    const json_t *class; /* winner */
    dra_time created;
} ext_entry;

struct dra_extres_map {
    dra_strmap names; /* resource -> ext_entry* */
    ext_entry *e;
    size_t n;
    char **owned;
    size_t nowned;
    dra_features f; /* whose quantity rules read the containers' requests */
};

static dra_time created_at(const json_t *cls)
{
    const char *ts = dra_jfield_str(dra_jfield(cls, "metadata"), "creationTimestamp");
    dra_time t = {0, 0};
    if (ts) {
        dra_err *e = dra_time_parse(ts, &t);
        if (e) {
            dra_err_free(e);
            t = (dra_time){0, 0};
        }
    }
    return t;
}

static const char *class_name(const json_t *cls)
{
    const char *n = dra_jfield_str(dra_jfield(cls, "metadata"), "name");
    return n ? n : "";
}

/* betterDeviceClass: the newer class wins, equal times the smaller name. */
static bool better_class(const json_t *a, dra_time a_t, const json_t *b, dra_time b_t)
{
    if (!b)
        return true;
    if (dra_time_cmp(a_t, b_t) != 0)
        return dra_time_cmp(a_t, b_t) > 0;
    return strcmp(class_name(a), class_name(b)) < 0;
}

static void map_offer(dra_extres_map *m, const char *resource, const json_t *cls)
{
    dra_time t = created_at(cls);
    intptr_t v;
    if (dra_strmap_get(&m->names, resource, strlen(resource), &v)) {
        ext_entry *x = &m->e[v];
        if (better_class(cls, t, x->class, x->created)) {
            x->class = cls;
            x->created = t;
        }
        return;
    }
    m->e[m->n] = (ext_entry){resource, cls, t};
    dra_strmap_put(&m->names, resource, strlen(resource), (intptr_t)m->n);
    m->n++;
}

/* Upstream's current cache (extendedresourcecache.go) arbitrates explicit
 * names among all candidates and always registers the implicit name (dra.md
 * §6.2 describes an older quirk where a losing class lost its implicit name;
 * the newest code no longer does that). */
dra_extres_map *dra_extres_map_new(json_t *const *classes, size_t n, const dra_features *f)
{
    dra_extres_map *m = dra_xcalloc(1, sizeof *m);
    if (f)
        m->f = *f;
    else
        dra_features_default(&m->f);
    m->e = dra_xcalloc(2 * n + 1, sizeof *m->e);
    m->owned = dra_xcalloc(n + 1, sizeof *m->owned);
    for (size_t i = 0; i < n; i++) {
        const char *ern = dra_jfield_str(dra_jfield(classes[i], "spec"), "extendedResourceName");
        if (ern && *ern)
            map_offer(m, ern, classes[i]);
        char *implicit = dra_xasprintf(DEVICECLASS_PREFIX "%s", class_name(classes[i]));
        m->owned[m->nowned++] = implicit;
        map_offer(m, implicit, classes[i]);
    }
    return m;
}

void dra_extres_map_free(dra_extres_map *m)
{
    if (!m)
        return;
    DRA_ASSERT(dra_strmap_keys_intact(&m->names)); /* the classes outlived the map */
    for (size_t i = 0; i < m->nowned; i++)
        free(m->owned[i]);
    free(m->owned);
    free(m->e);
    dra_strmap_free(&m->names);
    free(m);
}

const char *dra_extres_class(const dra_extres_map *m, const char *resource)
{
    intptr_t v;
    if (!m || !resource || !dra_strmap_get(&m->names, resource, strlen(resource), &v))
        return NULL;
    return class_name(m->e[v].class);
}

bool dra_is_dra_extended_resource_name(const char *name)
{
    if (!name)
        return false;
    if (strncmp(name, DEVICECLASS_PREFIX, strlen(DEVICECLASS_PREFIX)) == 0)
        return true;
    /* v1helper.IsExtendedResourceName: not native (has a '/', no kubernetes.io/),
     * not "requests.", and "requests.<name>" is a qualified name. */
    if (!strchr(name, '/') || strstr(name, "kubernetes.io/") || strncmp(name, "requests.", 9) == 0)
        return false;
    char *q = dra_xasprintf("requests.%s", name);
    bool ok = dra_is_qualified_name(q, strlen(q));
    free(q);
    return ok;
}

/* The count a container asks for (quantity AsInt64), 0 when absent, zero or
 * not an integer. */
static int64_t container_count(const json_t *container, const char *resource, const dra_features *f)
{
    const json_t *v = dra_jfield(dra_jfield(dra_jfield(container, "resources"), "requests"), resource);
    if (json_is_integer(v))
        return json_integer_value(v);
    const char *s = json_string_value(v);
    if (!s)
        return 0;
    dra_quantity q;
    dra_err *e = dra_quantity_parse_as(f, s, &q);
    if (e) {
        dra_err_free(e);
        return 0;
    }
    int64_t n = 0;
    return dra_quantity_as_int64(&q, &n) ? n : 0;
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Index of resource among the container's sorted request keys. */
static size_t resource_index(const json_t *container, const char *resource)
{
    const json_t *reqs = dra_jfield(dra_jfield(container, "resources"), "requests");
    size_t n = json_is_object(reqs) ? json_object_size(reqs) : 0;
    const char **keys = dra_xcalloc(n + 1, sizeof *keys);
    size_t k = 0;
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)reqs, key, v)
        keys[k++] = key;
    dra_sort(keys, k, sizeof *keys, cmp_cstr);
    size_t idx = 0;
    for (size_t i = 0; i < k; i++)
        if (strcmp(keys[i], resource) == 0) {
            idx = i;
            break;
        }
    free(keys);
    return idx;
}

typedef struct creq {
    char *name;
    int64_t count;
} creq;

static json_t *mapping(const json_t *container, const char *resource, const char *request)
{
    const char *cn = dra_jfield_str(container, "name");
    return json_pack("{s:s,s:s,s:s}", "containerName", cn ? cn : "", "resourceName", resource, "requestName", request);
}

/* createResourceRequestAndMappings; returns the new request (or none: name NULL). */
static creq container_request(const dra_extres_map *m, size_t ci, const json_t *container, const char *resource,
                              const creq *reusable, size_t nreusable, json_t *mappings)
{
    creq none = {NULL, 0};
    int64_t want = container_count(container, resource, &m->f);
    if (want == 0)
        return none;
    int64_t sum = 0;
    for (size_t i = 0; i < nreusable; i++) {
        if (!reusable[i].name)
            continue;
        sum += reusable[i].count;
        json_array_append_new(mappings, mapping(container, resource, reusable[i].name));
        if (sum >= want)
            return none;
    }
    creq r = {dra_xasprintf("container-%zu-request-%zu", ci, resource_index(container, resource)), want - sum};
    json_array_append_new(mappings, mapping(container, resource, r.name));
    return r;
}

static int cmp_req_name(const void *a, const void *b)
{
    return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "name")),
                  json_string_value(json_object_get(*(json_t *const *)b, "name")));
}

void dra_extres_requests(const json_t *pod, const dra_extres_map *m, const char *const *served, size_t n,
                         json_t **requests, json_t **mappings)
{
    const json_t *spec = dra_jfield(pod, "spec");
    const json_t *init = dra_jfield(spec, "initContainers"), *main = dra_jfield(spec, "containers");
    size_t ninit = json_is_array(init) ? json_array_size(init) : 0;
    size_t nmain = json_is_array(main) ? json_array_size(main) : 0;
    size_t nc = ninit + nmain;
    const json_t **cs = dra_xcalloc(nc + 1, sizeof *cs);
    for (size_t i = 0; i < ninit; i++)
        cs[i] = json_array_get(init, i);
    for (size_t i = 0; i < nmain; i++)
        cs[ninit + i] = json_array_get(main, i);

    json_t **reqs = NULL;
    size_t nreqs = 0;
    json_t *maps = json_array();
    creq *longlived = dra_xcalloc(nc + 1, sizeof *longlived);
    for (size_t ri = 0; ri < n; ri++) {
        const char *resource = served[ri];
        const char *cls = dra_extres_class(m, resource);
        if (!cls)
            continue;
        memset(longlived, 0, (nc + 1) * sizeof *longlived);
        json_t *long_maps = json_array(), *short_maps = json_array();
        for (size_t i = 0; i < nc; i++) {
            const char *rp = dra_jfield_str(cs[i], "restartPolicy");
            bool short_lived = i < ninit && !(rp && strcmp(rp, "Always") == 0);
            if (!short_lived)
                longlived[i] = container_request(m, i, cs[i], resource, NULL, 0, long_maps);
        }
        creq max = {NULL, 0};
        char **short_names = NULL;
        size_t nshort = 0;
        for (size_t i = 0; i < ninit; i++) {
            const char *rp = dra_jfield_str(cs[i], "restartPolicy");
            if (rp && strcmp(rp, "Always") == 0)
                continue;
            creq r = container_request(m, i, cs[i], resource, &longlived[i], nc - i, short_maps);
            if (!r.name)
                continue;
            short_names = dra_xgrow(short_names, nshort, sizeof *short_names);
            short_names[nshort++] = dra_xstrdup(r.name);
            if (!max.name || max.count < r.count) {
                free(max.name);
                max = r;
            } else {
                free(r.name);
            }
        }
        /* Mappings to the other short-lived requests point at the largest one. */
        if (max.name && nshort > 1) {
            size_t k;
            json_t *mp;
            json_array_foreach(short_maps, k, mp) {
                const char *rn = json_string_value(json_object_get(mp, "requestName"));
                for (size_t s = 0; s < nshort; s++)
                    if (strcmp(short_names[s], rn) == 0 && strcmp(rn, max.name) != 0) {
                        json_object_set_new(mp, "requestName", json_string(max.name));
                        break;
                    }
            }
        }
        for (size_t s = 0; s < nshort; s++)
            free(short_names[s]);
        free(short_names);
        creq *add[1] = {&max};
        for (int k = 0; k < 1; k++)
            if (add[k]->name) {
                reqs = dra_xgrow(reqs, nreqs, sizeof *reqs);
                reqs[nreqs++] = json_pack("{s:s,s:{s:s,s:s,s:I}}", "name", add[k]->name, "exactly", "deviceClassName",
                                          cls, "allocationMode", "ExactCount", "count", (json_int_t)add[k]->count);
                free(add[k]->name);
            }
        for (size_t i = 0; i < nc; i++)
            if (longlived[i].name) {
                reqs = dra_xgrow(reqs, nreqs, sizeof *reqs);
                reqs[nreqs++] =
                    json_pack("{s:s,s:{s:s,s:s,s:I}}", "name", longlived[i].name, "exactly", "deviceClassName", cls,
                              "allocationMode", "ExactCount", "count", (json_int_t)longlived[i].count);
                free(longlived[i].name);
                longlived[i].name = NULL;
            }
        json_array_extend(maps, long_maps);
        json_array_extend(maps, short_maps);
        json_decref(long_maps);
        json_decref(short_maps);
    }
    free(longlived);
    free(cs);
    /* sort.Slice is not stable; request names are unique, so the order is. */
    if (nreqs > 1)
        dra_sort(reqs, nreqs, sizeof *reqs, cmp_req_name);
    json_t *arr = json_array();
    for (size_t i = 0; i < nreqs; i++)
        json_array_append_new(arr, reqs[i]);
    free(reqs);
    *requests = arr;
    *mappings = maps;
}

long long dra_extres_quantity_value(const json_t *v, const dra_features *f)
{
    if (json_is_integer(v))
        return (long long)json_integer_value(v);
    dra_quantity q;
    int64_t n = 0;
    const char *s = json_string_value(v);
    dra_err *e = s ? dra_quantity_parse_as(f, s, &q) : dra_err_new(DRA_EXIT_INPUT, "not a quantity");
    if (!e && !dra_quantity_value(&q, &n))
        n = 0;
    dra_err_free(e);
    return (long long)n;
}

long long dra_extres_pod_request(const json_t *pod, const char *rn, const dra_features *f)
{
    const json_t *spec = dra_jfield(pod, "spec");
    long long sum = 0, sidecars = 0, init_max = 0;
    size_t i;
    const json_t *c;
    json_array_foreach(dra_jfield(spec, "containers"), i, c)
        sum += dra_extres_quantity_value(dra_jfield(dra_jfield(dra_jfield(c, "resources"), "requests"), rn), f);
    json_array_foreach(dra_jfield(spec, "initContainers"), i, c) {
        long long n = dra_extres_quantity_value(dra_jfield(dra_jfield(dra_jfield(c, "resources"), "requests"), rn), f);
        const char *rp = dra_jfield_str(c, "restartPolicy");
        if (rp && strcmp(rp, "Always") == 0) {
            sum += n;
            sidecars += n;
            n = sidecars;
        } else {
            n += sidecars;
        }
        if (n > init_max)
            init_max = n;
    }
    if (init_max > sum)
        sum = init_max;
    return sum + dra_extres_quantity_value(dra_jfield(dra_jfield(spec, "overhead"), rn), f);
}
