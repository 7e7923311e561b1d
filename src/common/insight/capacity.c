/* Fleet capacity and fragmentation.  See capacity.h.
 *
 * Counts the devices of the allocator's world with their state
 * (alloc/walk.h) per class, node and pool, then asks the allocator itself
 * (dra_alloc_run) what still fits on one node. */
#include "capacity.h"

#include <stdlib.h>
#include <string.h>

#include "../alloc/node.h"
#include "../alloc/walk.h"
#include "../base/sort.h"
#include "../io/json.h"
#include "../io/table.h"
#include "../model/kinds.h"

typedef struct counts {
    int64_t total, allocated, shared, tainted, unhealthy, blocked, unusable, free;
} counts;

/* A group of devices of one class: a node or a pool. */
typedef struct group {
    const char *name; /* node name ("" for devices of no single node) */
    size_t pool;      /* pool index (by pool) */
    counts c;
    int64_t largest;
    bool seen;
} group;

static int64_t *counter_of(counts *c, int k)
{
    int64_t *v[] = {&c->total,     &c->allocated, &c->shared,   &c->tainted,
                    &c->unhealthy, &c->blocked,   &c->unusable, &c->free};
    return v[k];
}
/* clang-format off */
static const char *const count_names[] = {"total", "allocated", "shared", "tainted", "unhealthy", "blocked", "unusable",
                                          "free"};
/* clang-format on */
enum { NCOUNTS = 8 };

static void count_add(counts *c, const dra_alloc_device_state *f)
{
    c->total++;
    c->allocated += f->allocated;
    c->shared += f->shared;
    c->tainted += f->tainted;
    c->unhealthy += f->unhealthy;
    c->blocked += f->blocked;
    c->unusable += f->unusable;
    c->free += f->free;
}

static void counts_json(json_t *o, counts *c)
{
    for (int k = 0; k < NCOUNTS; k++)
        json_object_set_new(o, count_names[k], json_integer(*counter_of(c, k)));
}

static json_t *qstr(const dra_quantity *q)
{
    char buf[DRA_QUANTITY_STRMAX];
    return json_string(dra_quantity_format_canonical(q, buf));
}

/* ---- fragmentation probes --------------------------------------------------------- */

static json_t *probe_claim(const char *cls, int64_t n, const char *attr)
{
    json_t *req = json_pack("{s:s,s:{s:s,s:s,s:I}}", "name", "probe", "exactly", "deviceClassName", cls,
                            "allocationMode", "ExactCount", "count", (json_int_t)n);
    json_t *devices = json_pack("{s:[o]}", "requests", req);
    if (attr)
        json_object_set_new(devices, "constraints",
                            json_pack("[{s:[s],s:s}]", "requests", "probe", "matchAttribute", attr));
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:s},s:{s:o}}", "apiVersion", "resource.k8s.io/v1", "kind", "ResourceClaim",
                     "metadata", "name", "capacity-probe", "namespace", "default", "uid", "capacity-probe", "spec",
                     "devices", devices);
}

typedef struct prober {
    dra_alloc_world *w;
    const char *cls, *attr;
    double timeout;
    dra_err **warn;
    bool warned_timeout;
} prober;

static dra_err *fits(prober *p, const json_t *node, int64_t n, bool *ok)
{
    *ok = false;
    json_t *c = probe_claim(p->cls, n, p->attr);
    dra_alloc_opts ao = {.timeout = p->timeout};
    dra_alloc_result *r = NULL;
    dra_err *e = dra_alloc_run(p->w, node, &c, 1, &ao, &r);
    if (e && strstr(e->msg, "timed out")) {
        if (!p->warned_timeout)
            *p->warn = dra_err_append(*p->warn,
                                      dra_err_new(DRA_EXIT_INPUT,
                                                  "class %s: %s on node %s asking for %lld "
                                                  "devices (the largest fit reported may be smaller than possible)",
                                                  p->cls, e->msg, dra_jfield_str(dra_jfield(node, "metadata"), "name"),
                                                  (long long)n));
        p->warned_timeout = true;
        dra_err_free(e);
        e = NULL;
    } else if (!e) {
        *ok = dra_alloc_result_ok(r);
    }
    dra_alloc_result_free(r);
    json_decref(c);
    return e;
}

/* The largest n in (best, bound] that fits on node, or best. */
static dra_err *largest_on(prober *p, const json_t *node, int64_t best, int64_t bound, int64_t *out)
{
    *out = best;
    if (bound <= best)
        return NULL;
    bool ok;
    dra_err *e = fits(p, node, bound, &ok);
    if (e || ok) {
        if (!e)
            *out = bound;
        return e;
    }
    int64_t lo = best, hi = bound - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if ((e = fits(p, node, mid, &ok)))
            return e;
        if (ok)
            lo = mid;
        else
            hi = mid - 1;
    }
    *out = lo;
    return NULL;
}

typedef struct cand {
    const json_t *node;
    const char *name;
    int64_t bound;
    group *g;
} cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->bound != y->bound)
        return x->bound > y->bound ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* ---- one class ------------------------------------------------------------------- */

typedef struct shape {
    char *name;
    int64_t devices, fit, sets;
} shape;

/* A partition's shape: its "profile" attribute (any domain) when it has one,
 * else its "type" attribute (a whole GPU next to its MIG partitions), else
 * what it consumes ("memory=40Gi"). */
static char *shape_name(const dra_alloc_walk *f, size_t i)
{
    const char *n = dra_alloc_walk_attr_str(f, i, "profile");
    if (!n)
        n = dra_alloc_walk_attr_str(f, i, "type");
    return n ? dra_xstrdup(n) : dra_alloc_walk_consumption(f, i);
}

/* How many more partitions of each shape fit, one shape at a time, taking
 * free devices in slice order as the allocator's first fit does. */
static json_t *partitions(const dra_alloc_walk *f, const uint8_t *match)
{
    shape *sh = NULL;
    size_t nsh = 0;
    dra_strmap idx = {0};
    size_t *of = dra_xcalloc(f->ndevs + 1, sizeof *of);
    for (size_t i = 0; i < f->ndevs; i++) {
        if (!match[i] || !dra_alloc_walk_nconsumed(f, i))
            continue;
        char *n = shape_name(f, i);
        intptr_t v;
        if (!dra_strmap_get(&idx, n, strlen(n), &v)) {
            sh = dra_xgrow(sh, nsh, sizeof *sh);
            sh[nsh] = (shape){.name = n};
            v = (intptr_t)nsh++;
            dra_strmap_put(&idx, sh[v].name, strlen(sh[v].name), v);
        } else {
            free(n);
        }
        of[i] = (size_t)v + 1;
        sh[v].devices++;
    }
    json_t *out = json_array();
    dra_alloc_counter_left *work = NULL;
    size_t cap = 0;
    for (size_t s = 0; s < nsh; s++) {
        /* pools in device order; a fresh copy of each pool's counters per shape */
        size_t cur = (size_t)-1;
        dra_strmap sets = {0};
        for (size_t i = 0; i < f->ndevs; i++) {
            if (of[i] != s + 1)
                continue;
            const dra_alloc_device_state *x = &f->devs[i];
            const dra_alloc_pool_state *p = &f->pools[x->pool];
            if (x->pool != cur) {
                cur = x->pool;
                if (p->n > cap) {
                    cap = p->n;
                    work = dra_xrealloc(work, cap * sizeof *work);
                }
                if (p->n)
                    memcpy(work, p->c, p->n * sizeof *work);
            }
            if (x->inuse || x->tainted || x->unhealthy || x->unusable || !dra_alloc_walk_counters_fit(f, work, i))
                continue;
            dra_alloc_walk_counters_take(f, work, i);
            sh[s].fit++;
            for (size_t k = 0; k < dra_alloc_walk_nconsumed(f, i); k++) {
                char *key = dra_xasprintf("%zu\x1f%s", x->pool, dra_alloc_walk_consumed_set(f, i, k));
                if (dra_strmap_add(&sets, key, strlen(key), 0, NULL))
                    free(key); /* seen: the map keeps the first copy */
                else
                    sh[s].sets++;
            }
        }
        for (size_t i = 0; i < sets.cap; i++)
            free((char *)sets.e[i].key);
        dra_strmap_free(&sets);
        json_array_append_new(out,
                              json_pack("{s:s,s:I,s:I,s:I}", "shape", sh[s].name, "devices", (json_int_t)sh[s].devices,
                                        "fit", (json_int_t)sh[s].fit, "counterSets", (json_int_t)sh[s].sets));
    }
    for (size_t s = 0; s < nsh; s++)
        free(sh[s].name);
    free(sh);
    free(work);
    free(of);
    dra_strmap_free(&idx);
    return out;
}

static json_t *pool_json(const dra_alloc_walk *f, group *g, const uint8_t *match)
{
    const dra_alloc_pool_state *p = &f->pools[g->pool];
    json_t *o = json_pack("{s:s,s:s}", "driver", p->driver, "pool", p->pool);
    json_object_set_new(o, "node", p->node ? json_string(p->node) : json_null());
    counts_json(o, &g->c);
    if (p->unusable)
        json_object_set_new(o, "unusableReason", json_string(p->unusable));
    json_t *sets = json_array();
    for (size_t i = 0; i < p->n; i++) {
        json_t *last = json_array_size(sets) ? json_array_get(sets, json_array_size(sets) - 1) : NULL;
        if (!last || strcmp(json_string_value(json_object_get(last, "name")), p->c[i].set) != 0) {
            last = json_pack("{s:s,s:{}}", "name", p->c[i].set, "counters");
            json_array_append_new(sets, last);
        }
        json_object_set_new(json_object_get(last, "counters"), p->c[i].counter,
                            json_pack("{s:o,s:o}", "total", qstr(&p->c[i].total), "left", qstr(&p->c[i].left)));
    }
    json_object_set_new(o, "counterSets", sets);
    json_t *cons = json_array();
    for (size_t i = 0; i < f->ndevs; i++) {
        const dra_alloc_device_state *x = &f->devs[i];
        size_t ncap = dra_alloc_walk_ncapacity(f, i);
        if (!match[i] || x->pool != g->pool || !x->multi || !ncap)
            continue;
        json_t *c = json_object();
        for (size_t k = 0; k < ncap; k++) {
            dra_quantity total, left;
            const char *name = dra_alloc_walk_capacity(f, i, k, &total, &left);
            json_object_set_new(c, name, json_pack("{s:o,s:o}", "total", qstr(&total), "left", qstr(&left)));
        }
        json_array_append_new(cons, json_pack("{s:s,s:o}", "device", x->name, "capacity", c));
    }
    json_object_set_new(o, "consumable", cons);
    return o;
}

static dra_err *one_class(dra_alloc_walk *f, const char *cls, json_t *const *nodes, size_t nnodes,
                          const dra_fleet_opts *o, json_t **out, dra_err **warn)
{
    *out = NULL;
    uint8_t *match = dra_xcalloc(f->ndevs + 1, 1);
    bool warned = false;
    counts total = {0};
    /* groups: index 0 is "no single node"; nodes by name; pools by index */
    dra_strmap bynode = {0};
    group *g = NULL;
    size_t ng = 0;
    bool by_node = o->by == DRA_FLEET_BY_NODE || o->by == DRA_FLEET_BY_NODE_AND_POOL;
    bool by_pool = o->by == DRA_FLEET_BY_POOL || o->by == DRA_FLEET_BY_NODE_AND_POOL;
    group *pg = by_pool ? dra_xcalloc(f->npools + 1, sizeof *pg) : NULL;
    int64_t *unusable = dra_xcalloc(f->npools + 1, sizeof *unusable); /* matched devices per unusable pool */
    g = dra_xgrow(g, ng, sizeof *g);
    g[ng++] = (group){.name = "", .largest = 0};
    dra_err *e = NULL;
    for (size_t i = 0; i < f->ndevs && !e; i++) {
        bool ok;
        e = dra_alloc_walk_match(f, cls, i, &ok, warn, &warned);
        if (e || !ok)
            continue;
        match[i] = 1;
        const dra_alloc_device_state *x = &f->devs[i];
        count_add(&total, x);
        unusable[x->pool] += x->unusable;
        size_t gi = 0;
        if (x->node) {
            intptr_t v;
            if (!dra_strmap_get(&bynode, x->node, strlen(x->node), &v)) {
                g = dra_xgrow(g, ng, sizeof *g);
                g[ng] = (group){.name = x->node};
                v = (intptr_t)ng++;
                dra_strmap_put(&bynode, x->node, strlen(x->node), v);
            }
            gi = (size_t)v;
        }
        count_add(&g[gi].c, x);
        if (pg) {
            pg[x->pool].pool = x->pool;
            pg[x->pool].seen = true;
            count_add(&pg[x->pool].c, x);
        }
    }
    json_t *r = NULL;
    if (!e) {
        r = json_pack("{s:s}", "name", cls);
        counts_json(r, &total);
        /* fragmentation */
        prober pr = {f->w, cls, o->match_attribute, o->timeout, warn, false};
        cand *cs = dra_xcalloc(nnodes + 1, sizeof *cs);
        for (size_t i = 0; i < nnodes; i++) {
            const char *nn = dra_jfield_str(dra_jfield(nodes[i], "metadata"), "name");
            cs[i] = (cand){nodes[i], nn ? nn : "", g[0].c.free, NULL};
            intptr_t v;
            if (nn && dra_strmap_get(&bynode, nn, strlen(nn), &v)) {
                cs[i].bound += g[v].c.free;
                cs[i].g = &g[v];
            }
        }
        dra_sort(cs, nnodes, sizeof *cs, cmp_cand);
        int64_t best = 0;
        const char *bestnode = NULL;
        for (size_t i = 0; i < nnodes && !e; i++) {
            if (by_node) {
                int64_t n;
                e = largest_on(&pr, cs[i].node, 0, cs[i].bound, &n);
                if (cs[i].g)
                    cs[i].g->largest = n;
                if (!e && n > best) {
                    best = n;
                    bestnode = cs[i].name;
                }
                continue;
            }
            if (cs[i].bound <= best)
                break;
            int64_t n;
            e = largest_on(&pr, cs[i].node, best, cs[i].bound, &n);
            if (!e && n > best) {
                best = n;
                bestnode = cs[i].name;
            }
        }
        free(cs);
        json_t *lf = json_pack("{s:I}", "devices", (json_int_t)best);
        json_object_set_new(lf, "node", bestnode ? json_string(bestnode) : json_null());
        if (o->match_attribute)
            json_object_set_new(lf, "matchAttribute", json_string(o->match_attribute));
        json_object_set_new(r, "largestFit", lf);
        json_object_set_new(r, "partitions", partitions(f, match));
        json_t *up = json_array(); /* why devices counted unusable are */
        for (size_t i = 0; i < f->npools; i++)
            if (unusable[i])
                json_array_append_new(up, json_pack("{s:s,s:s,s:s,s:I}", "driver", f->pools[i].driver, "pool",
                                                    f->pools[i].pool, "reason", f->pools[i].unusable, "devices",
                                                    (json_int_t)unusable[i]));
        json_object_set_new(r, "unusablePools", up);
        if (by_node) {
            json_t *arr = json_array();
            for (size_t i = 0; i < ng; i++) {
                if (!g[i].c.total)
                    continue;
                json_t *x = json_object();
                json_object_set_new(x, "name", *g[i].name ? json_string(g[i].name) : json_null());
                counts_json(x, &g[i].c);
                json_object_set_new(x, "largestFit", json_integer(g[i].largest));
                json_array_append_new(arr, x);
            }
            json_object_set_new(r, "nodes", arr);
        }
        if (pg) {
            json_t *arr = json_array();
            for (size_t i = 0; i < f->npools; i++)
                if (pg[i].seen)
                    json_array_append_new(arr, pool_json(f, &pg[i], match));
            json_object_set_new(r, "pools", arr);
        }
    }
    if (e) {
        json_decref(r);
        r = NULL;
    }
    free(pg);
    free(unusable);
    free(g);
    free(match);
    dra_strmap_free(&bynode);
    *out = r;
    return e;
}

/* ---- entry points ------------------------------------------------------------------- */

void dra_fleet_claims_keep(dra_fleet_claims *c, const json_t *claim)
{
    if (!c->texts.keep_whole)
        dra_compact_keep_whole(&c->texts);
    c->v = dra_xgrow(c->v, c->n, sizeof *c->v);
    c->v[c->n++] = dra_compact_store(&c->texts, claim);
}

void dra_fleet_claims_free(dra_fleet_claims *c)
{
    dra_compact_free(&c->texts);
    free(c->v);
    *c = (dra_fleet_claims){0};
}

/* Claims made again one at a time from their texts: each allocated one
 * recorded in w as dra_alloc_world_new records in-use claims, those with
 * status.devices kept in *held (for the walk; the caller decrefs them). */
static dra_err *add_claims(dra_alloc_world *w, const dra_fleet_claims *c, json_t ***held, size_t *nheld)
{
    dra_err *e = NULL;
    for (size_t i = 0; i < c->n && !e; i++) {
        dra_obj o;
        if (!dra_compact_whole(&c->texts, c->v[i], &o))
            continue;
        const json_t *st = json_object_get(o.json, "status");
        const json_t *al = json_object_get(st, "allocation");
        if (al && !json_is_null(al))
            e = dra_alloc_world_add_in_use(w, o.json);
        if (!e && json_array_size(json_object_get(st, "devices"))) {
            *held = dra_xgrow(*held, *nheld, sizeof **held);
            (*held)[(*nheld)++] = o.json;
        } else {
            json_decref(o.json);
        }
    }
    return e;
}

dra_err *dra_fleet_capacity(const dra_model *m, json_t *const *nodes, size_t nnodes, const dra_fleet_opts *o,
                            json_t **report, dra_err **warnings)
{
    *report = NULL;
    *warnings = NULL;
    const dra_model_list *classes = dra_model_kind(m, DRA_KIND_DEVICE_CLASS);
    dra_err *e = NULL;
    for (size_t i = 0; i < o->nclasses; i++)
        if (!dra_model_class(m, o->classes[i]))
            e = dra_err_append(
                e, dra_err_param(dra_err_new(DRA_EXIT_INPUT, "DeviceClass %s is not in the input", o->classes[i]),
                                 "class"));
    dra_selector_eval ev = dra_cel_selector_eval_new(o->features);
    dra_alloc_world *w = NULL;
    if (!e)
        e = o->claims ? dra_alloc_world_of_fleet(m, o->packs, o->features, &ev, &w)
                      : dra_alloc_world_of_model(m, o->packs, o->features, &ev, &w, NULL, NULL);
    json_t **held = NULL;
    size_t nheld = 0;
    if (!e && o->claims)
        e = add_claims(w, o->claims, &held, &nheld);
    json_t *arr = json_array();
    if (!e) {
        dra_alloc_walk f;
        if (o->claims)
            dra_alloc_walk_new_of(w, (const json_t *const *)held, nheld, &f);
        else
            dra_alloc_walk_new(w, m, &f);
        for (size_t i = 0; i < classes->n && !e; i++) {
            const char *name = dra_jfield_str(dra_jfield(classes->v[i]->json, "metadata"), "name");
            bool want = !o->nclasses;
            for (size_t k = 0; k < o->nclasses && !want; k++)
                want = name && strcmp(name, o->classes[k]) == 0;
            if (!want || !name || !dra_alloc_world_has_class(w, name))
                continue;
            json_t *r;
            e = one_class(&f, name, nodes, nnodes, o, &r, warnings);
            if (!e)
                json_array_append_new(arr, r);
        }
        dra_alloc_walk_free(&f);
    }
    for (size_t i = 0; i < nheld; i++)
        json_decref(held[i]);
    free(held);
    dra_alloc_world_free(w);
    dra_cel_selector_eval_free(&ev);
    if (e) {
        json_decref(arr);
        return e;
    }
    *report = json_pack("{s:o}", "classes", arr);
    return NULL;
}

long long dra_fleet_free(const json_t *report, const char *name)
{
    size_t i;
    const json_t *c;
    json_array_foreach(dra_jfield(report, "classes"), i, c) {
        const char *n = dra_jfield_str(c, "name");
        if (n && strcmp(n, name) == 0)
            return json_integer_value(dra_jfield(c, "free"));
    }
    return -1;
}

/* ---- table ---------------------------------------------------------------------- */

typedef struct cells {
    char **v;
    size_t n;
} cells;

static void cell(cells *c, char *s)
{
    c->v = dra_xgrow(c->v, c->n, sizeof *c->v);
    c->v[c->n++] = s;
}

static void count_cells(cells *c, const json_t *o)
{
    for (int k = 0; k < NCOUNTS; k++)
        cell(c, dra_xasprintf("%lld", (long long)json_integer_value(dra_jfield(o, count_names[k]))));
}

/* "memory 40Gi/80Gi" per counter of small sets; a summary for large ones. */
static char *counters_cell(const json_t *pool)
{
    const json_t *sets = dra_jfield(pool, "counterSets");
    size_t nsets = json_array_size(sets), nctr = 0, untouched = 0, exhausted = 0;
    size_t i;
    const json_t *s;
    json_array_foreach(sets, i, s) {
        nctr += json_object_size(dra_jfield(s, "counters"));
    }
    if (!nsets)
        return NULL;
    dra_buf b = DRA_BUF_INIT;
    json_array_foreach(sets, i, s) {
        const char *k;
        const json_t *v;
        bool full = true, empty = false;
        if (nctr <= 4)
            dra_buf_printf(&b, "%s%s:", i ? "; " : "", dra_jfield_str(s, "name"));
        json_object_foreach((json_t *)dra_jfield(s, "counters"), k, v) {
            const char *t = dra_jfield_str(v, "total"), *l = dra_jfield_str(v, "left");
            full = full && t && l && strcmp(t, l) == 0;
            empty = empty || (l && t && strcmp(l, "0") == 0 && strcmp(t, "0") != 0);
            if (nctr <= 4)
                dra_buf_printf(&b, " %s %s/%s", k, l ? l : "", t ? t : "");
        }
        untouched += full;
        exhausted += empty;
    }
    if (nctr > 4)
        dra_buf_printf(&b, "%zu sets: %zu untouched, %zu exhausted", nsets, untouched, exhausted);
    return dra_buf_detach(&b);
}

/* Pools whose devices the allocator cannot take, with why: the first
 * UNUSABLE_NOTES of a class, then how many more. */
#define UNUSABLE_NOTES 10
static void unusable_notes(dra_buf *notes, const char *cls, const json_t *pools)
{
    size_t i, n = json_array_size(pools);
    const json_t *p;
    json_array_foreach(pools, i, p) {
        if (i == UNUSABLE_NOTES) {
            dra_buf_printf(notes, "%s: ... and %zu more unusable pools\n", cls, n - i);
            break;
        }
        long long d = json_integer_value(dra_jfield(p, "devices"));
        dra_buf_printf(notes, "%s: %lld device%s unusable: pool %s/%s: %s\n", cls, d, d == 1 ? "" : "s",
                       dra_jfield_str(p, "driver"), dra_jfield_str(p, "pool"), dra_jfield_str(p, "reason"));
    }
}

dra_err *dra_fleet_table(FILE *f, const json_t *report, dra_fleet_by by)
{
    static const char *const head[] = {"TOTAL",     "ALLOCATED", "SHARED",   "TAINTED",
                                       "UNHEALTHY", "BLOCKED",   "UNUSABLE", "FREE"};
    cells c = {0};
    size_t ncols = 0;
    cell(&c, dra_xstrdup("CLASS"));
    if (by == DRA_FLEET_BY_NODE)
        cell(&c, dra_xstrdup("NODE"));
    if (by == DRA_FLEET_BY_POOL) {
        cell(&c, dra_xstrdup("POOL"));
        cell(&c, dra_xstrdup("NODE"));
    }
    for (int k = 0; k < NCOUNTS; k++)
        cell(&c, dra_xstrdup(head[k]));
    cell(&c, dra_xstrdup(by == DRA_FLEET_BY_POOL ? "COUNTERS-LEFT" : "LARGEST-FIT"));
    if (by == DRA_FLEET_BY_POOL) /* why the allocator takes none of the pool's devices */
        cell(&c, dra_xstrdup("UNUSABLE-REASON"));
    ncols = c.n;
    dra_buf notes = DRA_BUF_INIT;
    size_t i;
    const json_t *cl;
    json_array_foreach(dra_jfield(report, "classes"), i, cl) {
        const char *name = dra_jfield_str(cl, "name");
        const json_t *lf = dra_jfield(cl, "largestFit");
        if (by == DRA_FLEET_BY_CLASS) {
            cell(&c, dra_xstrdup(name));
            count_cells(&c, cl);
            const char *node = dra_jfield_str(lf, "node");
            long long n = json_integer_value(dra_jfield(lf, "devices"));
            cell(&c, node ? dra_xasprintf("%lld on %s", n, node) : dra_xasprintf("%lld", n));
        }
        size_t k;
        const json_t *r;
        json_array_foreach(dra_jfield(cl, by == DRA_FLEET_BY_NODE ? "nodes" : "pools"), k, r) {
            if (by == DRA_FLEET_BY_CLASS)
                break;
            cell(&c, dra_xstrdup(name));
            if (by == DRA_FLEET_BY_NODE) {
                const char *nn = dra_jfield_str(r, "name");
                cell(&c, nn ? dra_xstrdup(nn) : NULL);
            } else {
                cell(&c, dra_xasprintf("%s/%s", dra_jfield_str(r, "driver"), dra_jfield_str(r, "pool")));
                const char *nn = dra_jfield_str(r, "node");
                cell(&c, nn ? dra_xstrdup(nn) : NULL);
            }
            count_cells(&c, r);
            if (by == DRA_FLEET_BY_NODE)
                cell(&c, dra_xasprintf("%lld", (long long)json_integer_value(dra_jfield(r, "largestFit"))));
            else {
                cell(&c, counters_cell(r));
                const char *why = dra_jfield_str(r, "unusableReason");
                cell(&c, why ? dra_xstrdup(why) : NULL);
            }
        }
        unusable_notes(&notes, name, dra_jfield(cl, "unusablePools"));
        const json_t *parts = dra_jfield(cl, "partitions");
        if (json_array_size(parts)) {
            dra_buf_printf(&notes, "%s partitions:", name);
            const json_t *p;
            json_array_foreach(parts, k, p) {
                long long fit = json_integer_value(dra_jfield(p, "fit"));
                long long sets = json_integer_value(dra_jfield(p, "counterSets"));
                if (fit)
                    dra_buf_printf(&notes, "%s %lld x %s left on %lld counter set%s", k ? ";" : "", fit,
                                   dra_jfield_str(p, "shape"), sets, sets == 1 ? "" : "s");
                else
                    dra_buf_printf(&notes, "%s no %s left anywhere", k ? ";" : "", dra_jfield_str(p, "shape"));
            }
            dra_buf_puts(&notes, "\n");
        }
    }
    dra_err *e = dra_table_write(f, (const char *const *)c.v, c.n / ncols, ncols);
    if (!e && notes.len && fputs(dra_buf_str(&notes), f) < 0)
        e = dra_err_new(DRA_EXIT_RUNTIME, "write error");
    for (size_t j = 0; j < c.n; j++)
        free(c.v[j]);
    free(c.v);
    dra_buf_free(&notes);
    return e;
}
