/* Fleet capacity and fragmentation.  See fleet.h.
 *
 * Reads the world the allocator builds (its devices, taints, in-use state and
 * compiled-selector cache) without changing it, then asks the allocator
 * itself (dra_alloc_run) what still fits on one node. */
#include "fleet.h"

#include <stdlib.h>
#include <string.h>

#include "../base/sort.h"
#include "../io/table.h"
#include "../model/kinds.h"
#include "../model/poolrule.h"
#include "capacity.h"
#include "node.h"
#include "state.h"

typedef struct counts {
    int64_t total, allocated, shared, tainted, unhealthy, blocked, unusable, free;
} counts;

/* One counter of one counter set of a pool: published and left. */
typedef struct pctr {
    const char *set, *counter;
    dra_quantity total, left;
} pctr;

typedef struct fpool {
    const al_pool_slices *ps;
    int64_t gen;
    const char *node; /* the nodeName of its slices when they all share one, else NULL */
    pctr *c;
    size_t n;
    char *unusable;   /* why the allocator takes none of its devices (owned), or NULL */
} fpool;

typedef struct fdev {
    al_device *d;
    size_t pool; /* index into pools */
    const char *node;
    bool inuse, allocated, shared, tainted, unhealthy, blocked, unusable, free;
} fdev;

typedef struct fleet {
    dra_alloc_world *w;
    fpool *pools;
    size_t npools;
    fdev *devs;
    size_t ndevs;
} fleet;

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
    int64_t *v[] = {&c->total, &c->allocated, &c->shared, &c->tainted, &c->unhealthy, &c->blocked, &c->unusable, &c->free};
    return v[k];
}
static const char *const count_names[] = {"total", "allocated", "shared", "tainted", "unhealthy", "blocked", "unusable",
                                          "free"};
enum { NCOUNTS = 8 };

static void count_add(counts *c, const fdev *f)
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

/* ---- the world's devices ----------------------------------------------------------- */

static pctr *find_ctr(fpool *p, const char *set, const char *counter)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->c[i].set, set) == 0 && strcmp(p->c[i].counter, counter) == 0)
            return &p->c[i];
    return NULL;
}

/* Whether device d's consumption fits what c (a copy of a pool's counters) has left. */
static bool counters_fit(const fpool *p, const pctr *c, const al_device *d)
{
    for (size_t i = 0; i < d->ncons; i++)
        for (size_t k = 0; k < d->cons[i].n; k++) {
            const al_counter *x = &d->cons[i].c[k];
            const pctr *have = NULL;
            for (size_t j = 0; j < p->n && !have; j++)
                if (strcmp(p->c[j].set, d->cons[i].name) == 0 && strcmp(p->c[j].counter, x->name) == 0)
                    have = &c[j];
            if (!have || dra_quantity_cmp(&have->left, &x->value) < 0)
                return false;
        }
    return true;
}

static void counters_take(fpool *p, pctr *c, const al_device *d)
{
    for (size_t i = 0; i < d->ncons; i++)
        for (size_t k = 0; k < d->cons[i].n; k++) {
            const al_counter *x = &d->cons[i].c[k];
            for (size_t j = 0; j < p->n; j++)
                if (strcmp(p->c[j].set, d->cons[i].name) == 0 && strcmp(p->c[j].counter, x->name) == 0)
                    (void)dra_quantity_sub(&c[j].left, &c[j].left, &x->value);
        }
}

static bool blocking_taint(const al_device *d)
{
    const al_devx *dx = al_x(d);
    for (size_t i = 0; i < dx->ntaints; i++) {
        const char *e = dx->taints[i].effect ? dx->taints[i].effect : "";
        if (strcmp(e, "NoSchedule") == 0 || strcmp(e, "NoExecute") == 0)
            return true;
    }
    return false;
}

/* Capacity left in every dimension of a multi-allocatable device. */
static bool capacity_left(const dra_alloc_world *w, const al_device *d)
{
    const al_capuse *agg = dra_al_agg(w, d->gid);
    for (size_t i = 0; i < d->ncap; i++) {
        const dra_quantity *used = dra_al_capuse_get(agg, d->cap[i].name);
        if (used && dra_quantity_cmp(used, &d->cap[i].value) >= 0)
            return false;
    }
    return true;
}

/* Devices a claim's status.devices says are not ready (condition Ready False). */
static void mark_unhealthy(const dra_alloc_world *w, const dra_model *m, uint8_t *bad)
{
    const dra_model_list *l = dra_model_kind(m, DRA_KIND_RESOURCE_CLAIM);
    for (size_t i = 0; i < l->n; i++) {
        const json_t *devs = dra_jfield(dra_jfield(l->v[i]->json, "status"), "devices");
        size_t k;
        const json_t *dv;
        json_array_foreach(devs, k, dv) {
            const json_t *conds = dra_jfield(dv, "conditions");
            size_t j;
            const json_t *c;
            bool notready = false;
            json_array_foreach(conds, j, c) {
                const char *t = dra_jfield_str(c, "type"), *s = dra_jfield_str(c, "status");
                if (t && s && strcmp(t, "Ready") == 0 && strcmp(s, "False") == 0)
                    notready = true;
            }
            const char *dr = dra_jfield_str(dv, "driver"), *po = dra_jfield_str(dv, "pool"), *de = dra_jfield_str(dv, "device");
            if (!notready || !dr || !po || !de)
                continue;
            int gid = dra_al_lookup_id(w, dr, po, de);
            if (gid >= 0)
                bad[gid] = 1;
        }
    }
}

/* Why the allocator takes no device of a pool at its newest generation gen,
 * or NULL (malloc'd): GatherPools skips an incomplete pool and buildPool
 * refuses an invalid one (k8s.io/dynamic-resource-allocation v0.37.2
 * structured/internal/experimental pools_experimental.go; the allocator's
 * own pools.c), in upstream's words where it has them.  Pool-wide: the
 * allocator checks the slices of one node, which for a node's pool are all
 * of them. */
static char *pool_unusable(const dra_alloc_world *w, const al_pool_slices *ps, int64_t gen)
{
    /* the pool rule, pool-wide (model/poolrule.h); gen is the newest */
    dra_pool_tally t;
    dra_pool_tally_init(&t, gen);
    for (size_t i = 0; i < ps->n; i++)
        dra_pool_tally_add(&t, ps->s[i]->generation, ps->s[i]->count, w->f.compatibility_groups || !ps->s[i]->uses_groups);
    char buf[160];
    const char *rule = dra_pool_verdict_reason(&t, dra_pool_tally_verdict(&t, DRA_POOL_ALL), buf, sizeof buf);
    if (rule)
        return dra_xstrdup(rule);
    char *why = NULL;
    bool part = w->f.partitionable;
    dra_strmap names = {0}, sets = {0};
    dra_buf key = DRA_BUF_INIT;
    char **keys = NULL; /* the names map's keys, owned here */
    size_t nkeys = 0;
    for (size_t i = 0; i < ps->n && !why; i++) {
        const al_slice *s = ps->s[i];
        if (s->generation != gen)
            continue;
        for (size_t k = 0; k < s->nsets && part && !why; k++)
            if (dra_strmap_add(&sets, s->sets[k].name, strlen(s->sets[k].name), (intptr_t)&s->sets[k], NULL))
                why = dra_xasprintf("duplicate counter set name %s", s->sets[k].name);
        if (part && s->nsets)
            continue; /* a counter slice's devices are not the node's (buildPool) */
        for (size_t k = 0; k < s->ndev && !why; k++) {
            /* device names repeat across nodes of a pool only where no node sees both */
            dra_buf_reset(&key);
            dra_buf_printf(&key, "%s\x1f%s", s->node_name ? s->node_name : "", s->dev[k].name);
            char *kc = dra_buf_detach(&key);
            if (dra_strmap_add(&names, kc, strlen(kc), 0, NULL)) {
                why = dra_xasprintf("duplicate device name %s", s->dev[k].name);
                free(kc);
            } else {
                keys = dra_xgrow(keys, nkeys, sizeof *keys);
                keys[nkeys++] = kc;
            }
        }
    }
    for (size_t i = 0; i < ps->n && !why && part; i++) {
        const al_slice *s = ps->s[i];
        for (size_t j = 0; s->generation == gen && j < s->ndev && !why; j++) {
            const al_device *d = &s->dev[j];
            for (size_t k = 0; k < d->ncons && !why; k++) {
                intptr_t v;
                if (!dra_strmap_get(&sets, d->cons[k].name, strlen(d->cons[k].name), &v)) {
                    why = dra_xasprintf("counter set %s not found", d->cons[k].name);
                    break;
                }
                const al_counter_set *set = (const al_counter_set *)v;
                for (size_t c = 0; c < d->cons[k].n && !why; c++) {
                    bool found = false;
                    for (size_t m = 0; m < set->n && !found; m++)
                        found = strcmp(set->c[m].name, d->cons[k].c[c].name) == 0;
                    if (!found)
                        why = dra_xasprintf("counter %s not found in counter set %s", d->cons[k].c[c].name, set->name);
                }
            }
        }
    }
    for (size_t i = 0; i < nkeys; i++)
        free(keys[i]);
    free(keys);
    dra_buf_free(&key);
    dra_strmap_free(&names);
    dra_strmap_free(&sets);
    return why;
}

static void fleet_build(fleet *f, const dra_model *m)
{
    dra_alloc_world *w = f->w;
    uint8_t *bad = dra_xcalloc(w->nids + 1, 1);
    mark_unhealthy(w, m, bad);
    f->pools = dra_xcalloc(w->npools + 1, sizeof *f->pools);
    f->npools = w->npools;
    size_t cap = 0;
    for (size_t pi = 0; pi < w->npools; pi++) {
        fpool *p = &f->pools[pi];
        const al_pool_slices *ps = w->poollist[pi];
        p->ps = ps;
        p->gen = INT64_MIN;
        for (size_t i = 0; i < ps->n; i++)
            if (ps->s[i]->generation > p->gen)
                p->gen = ps->s[i]->generation;
        p->unusable = pool_unusable(w, ps, p->gen);
        bool first = true;
        for (size_t i = 0; i < ps->n; i++) {
            const al_slice *s = ps->s[i];
            if (s->generation != p->gen)
                continue;
            if (first)
                p->node = s->node_name;
            else if (!p->node || !s->node_name || strcmp(p->node, s->node_name) != 0)
                p->node = NULL;
            first = false;
            for (size_t k = 0; k < s->nsets; k++)
                for (size_t j = 0; j < s->sets[k].n; j++) {
                    if (find_ctr(p, s->sets[k].name, s->sets[k].c[j].name))
                        continue; /* a duplicate counter set makes the pool invalid; the first counts */
                    p->c = dra_xgrow(p->c, p->n, sizeof *p->c);
                    p->c[p->n++] = (pctr){s->sets[k].name, s->sets[k].c[j].name, s->sets[k].c[j].value,
                                          s->sets[k].c[j].value};
                }
            for (size_t k = 0; k < s->ndev; k++) {
                if (f->ndevs == cap) {
                    cap = cap ? cap * 2 : 256;
                    f->devs = dra_xrealloc(f->devs, cap * sizeof *f->devs);
                }
                al_device *d = &s->dev[k];
                const al_idstate *st = &w->st[d->gid];
                fdev *x = &f->devs[f->ndevs++];
                *x = (fdev){.d = d, .pool = pi};
                const char *dn = al_x(d)->node_name;
                x->node = dn && *dn ? dn : s->node_name;
                x->allocated = st->allocated;
                bool agg = dra_al_agg(w, d->gid)->present;
                x->shared = d->allow_multi && (st->shared || agg);
                x->inuse = st->allocated || st->shared || agg;
                x->tainted = w->f.device_taints && blocking_taint(d);
                x->unhealthy = bad[d->gid] != 0;
                x->unusable = p->unusable != NULL;
            }
        }
    }
    /* What in-use devices consume of the counters, then who is blocked. */
    for (size_t i = 0; i < f->ndevs; i++) {
        fdev *x = &f->devs[i];
        if (x->inuse && x->d->ncons) {
            fpool *p = &f->pools[x->pool];
            counters_take(p, p->c, x->d);
        }
    }
    for (size_t i = 0; i < f->ndevs; i++) {
        fdev *x = &f->devs[i];
        fpool *p = &f->pools[x->pool];
        x->blocked = !x->inuse && !x->unusable && x->d->ncons && !counters_fit(p, p->c, x->d);
        x->free = !x->allocated && !x->tainted && !x->unhealthy && !x->blocked && !x->unusable &&
                  (!x->d->allow_multi || capacity_left(w, x->d));
    }
    free(bad);
}

static void fleet_free(fleet *f)
{
    for (size_t i = 0; i < f->npools; i++) {
        free(f->pools[i].c);
        free(f->pools[i].unusable);
    }
    free(f->pools);
    free(f->devs);
}

/* ---- class selectors, through the allocator's compiled-expression cache ---------- */

/* *ok: every selector of class c is true on d.  A runtime error is a warning
 * (once per class) and the device does not match. */
static dra_err *class_matches(dra_alloc_world *w, const al_class *c, al_device *d, bool *ok, dra_err **warn,
                              bool *warned)
{
    *ok = true;
    size_t i;
    const json_t *sel;
    json_array_foreach(c->selectors, i, sel) {
        const char *expr = dra_jfield_str(dra_jfield(sel, "cel"), "expression");
        al_prog *p = dra_al_prog(w, expr ? expr : "");
        if (p->error)
            return dra_err_new(DRA_EXIT_INPUT, "class %s: selector #%zu: CEL compile error: %s", c->name, i, p->error);
        if (!p->memo)
            p->memo = dra_xcalloc(w->ndevices + 1, 1);
        uint8_t *memo = d->widx < w->ndevices ? &p->memo[d->widx] : NULL;
        if (memo && *memo) {
            if (*memo == 1) {
                *ok = false;
                return NULL;
            }
            continue;
        }
        bool mt = false;
        dra_err *e = w->eval.match(w->eval.ctx, p->prog, d->slice->driver, dra_al_device_json(d), &w->features, &d->eval_cache, &mt);
        if (e) {
            al_idbuf ib;
            if (!*warned)
                *warn = dra_err_append(*warn, dra_err_new(DRA_EXIT_INPUT,
                                                          "class %s: selector #%zu on device %s: CEL runtime error: %s "
                                                          "(counted as not matching)",
                                                          c->name, i, dra_al_id(d, &ib), e->msg));
            *warned = true;
            dra_err_free(e);
            *ok = false;
            return NULL;
        }
        if (memo)
            *memo = mt ? 2 : 1;
        if (!mt) {
            *ok = false;
            return NULL;
        }
    }
    return NULL;
}

/* ---- fragmentation probes --------------------------------------------------------- */

static json_t *probe_claim(const char *cls, int64_t n, const char *attr)
{
    json_t *req = json_pack("{s:s,s:{s:s,s:s,s:I}}", "name", "probe", "exactly", "deviceClassName", cls,
                            "allocationMode", "ExactCount", "count", (json_int_t)n);
    json_t *devices = json_pack("{s:[o]}", "requests", req);
    if (attr)
        json_object_set_new(devices, "constraints", json_pack("[{s:[s],s:s}]", "requests", "probe", "matchAttribute", attr));
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
            *p->warn = dra_err_append(*p->warn, dra_err_new(DRA_EXIT_INPUT, "class %s: %s on node %s asking for %lld "
                                                            "devices (the largest fit reported may be smaller than possible)",
                                                            p->cls, e->msg,
                                                            dra_jfield_str(dra_jfield(node, "metadata"), "name"),
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

/* A string attribute by its name in any domain, or NULL. */
static const char *attr_str(const al_device *d, const char *name)
{
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)dra_al_device_attrs((al_device *)d), k, v) {
        const char *slash = strrchr(k, '/');
        if (strcmp(slash ? slash + 1 : k, name) == 0 && dra_jfield_str(v, "string"))
            return dra_jfield_str(v, "string");
    }
    return NULL;
}

/* A partition's shape: its "profile" attribute (any domain) when it has one,
 * else its "type" attribute (a whole GPU next to its MIG partitions), else
 * what it consumes ("memory=40Gi"). */
static char *shape_name(const al_device *d)
{
    const char *n = attr_str(d, "profile");
    if (!n)
        n = attr_str(d, "type");
    if (n)
        return dra_xstrdup(n);
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = 0; i < d->ncons; i++)
        for (size_t k2 = 0; k2 < d->cons[i].n; k2++) {
            char buf[DRA_QUANTITY_STRMAX];
            dra_buf_printf(&b, "%s%s=%s", b.len ? "," : "", d->cons[i].c[k2].name,
                           dra_quantity_format_canonical(&d->cons[i].c[k2].value, buf));
        }
    return dra_buf_detach(&b);
}

/* How many more partitions of each shape fit, one shape at a time, taking
 * free devices in slice order as the allocator's first fit does. */
static json_t *partitions(fleet *f, const uint8_t *match)
{
    shape *sh = NULL;
    size_t nsh = 0;
    dra_strmap idx = {0};
    size_t *of = dra_xcalloc(f->ndevs + 1, sizeof *of);
    for (size_t i = 0; i < f->ndevs; i++) {
        if (!match[i] || !f->devs[i].d->ncons)
            continue;
        char *n = shape_name(f->devs[i].d);
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
    pctr *work = NULL;
    size_t cap = 0;
    for (size_t s = 0; s < nsh; s++) {
        /* pools in device order; a fresh copy of each pool's counters per shape */
        size_t cur = (size_t)-1;
        dra_strmap sets = {0};
        for (size_t i = 0; i < f->ndevs; i++) {
            if (of[i] != s + 1)
                continue;
            fdev *x = &f->devs[i];
            fpool *p = &f->pools[x->pool];
            if (x->pool != cur) {
                cur = x->pool;
                if (p->n > cap) {
                    cap = p->n;
                    work = dra_xrealloc(work, cap * sizeof *work);
                }
                if (p->n)
                    memcpy(work, p->c, p->n * sizeof *work);
            }
            if (x->inuse || x->tainted || x->unhealthy || x->unusable || !counters_fit(p, work, x->d))
                continue;
            counters_take(p, work, x->d);
            sh[s].fit++;
            for (size_t k = 0; k < x->d->ncons; k++) {
                char *key = dra_xasprintf("%zu\x1f%s", x->pool, x->d->cons[k].name);
                if (dra_strmap_add(&sets, key, strlen(key), 0, NULL))
                    free(key); /* seen: the map keeps the first copy */
                else
                    sh[s].sets++;
            }
        }
        for (size_t i = 0; i < sets.cap; i++)
            free((char *)sets.e[i].key);
        dra_strmap_free(&sets);
        json_array_append_new(out, json_pack("{s:s,s:I,s:I,s:I}", "shape", sh[s].name, "devices", (json_int_t)sh[s].devices,
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

static json_t *pool_json(fleet *f, group *g, const uint8_t *match)
{
    fpool *p = &f->pools[g->pool];
    json_t *o = json_pack("{s:s,s:s}", "driver", p->ps->driver, "pool", p->ps->pool);
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
        const fdev *x = &f->devs[i];
        if (!match[i] || x->pool != g->pool || !x->d->allow_multi || !x->d->ncap)
            continue;
        json_t *c = json_object();
        const al_capuse *agg = dra_al_agg(f->w, x->d->gid);
        for (size_t k = 0; k < x->d->ncap; k++) {
            dra_quantity left = x->d->cap[k].value;
            const dra_quantity *used = dra_al_capuse_get(agg, x->d->cap[k].name);
            if (used)
                (void)dra_quantity_sub(&left, &left, used);
            json_object_set_new(c, x->d->cap[k].name,
                                json_pack("{s:o,s:o}", "total", qstr(&x->d->cap[k].value), "left", qstr(&left)));
        }
        json_array_append_new(cons, json_pack("{s:s,s:o}", "device", x->d->name, "capacity", c));
    }
    json_object_set_new(o, "consumable", cons);
    return o;
}

static dra_err *one_class(fleet *f, const al_class *c, json_t *const *nodes, size_t nnodes, const dra_fleet_opts *o,
                          json_t **out, dra_err **warn)
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
        al_device *d = f->devs[i].d;
        e = class_matches(f->w, c, d, &ok, warn, &warned);
        /* The answers stay in the selector memo; the device's converted CEL
         * form would otherwise stay for every device of the fleet. */
        if (d->eval_cache && f->w->eval.free_device_cache) {
            f->w->eval.free_device_cache(f->w->eval.ctx, d->eval_cache);
            d->eval_cache = NULL;
        }
        if (e || !ok)
            continue;
        match[i] = 1;
        const fdev *x = &f->devs[i];
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
        r = json_pack("{s:s}", "name", c->name);
        counts_json(r, &total);
        /* fragmentation */
        prober pr = {f->w, c->name, o->match_attribute, o->timeout, warn, false};
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
                json_array_append_new(up, json_pack("{s:s,s:s,s:s,s:I}", "driver", f->pools[i].ps->driver, "pool",
                                                    f->pools[i].ps->pool, "reason", f->pools[i].unusable, "devices",
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

dra_err *dra_fleet_capacity(const dra_model *m, json_t *const *nodes, size_t nnodes, const dra_fleet_opts *o,
                            json_t **report, dra_err **warnings)
{
    *report = NULL;
    *warnings = NULL;
    const dra_model_list *classes = dra_model_kind(m, DRA_KIND_DEVICE_CLASS);
    dra_err *e = NULL;
    for (size_t i = 0; i < o->nclasses; i++)
        if (!dra_model_class(m, o->classes[i]))
            e = dra_err_append(e, dra_err_param(dra_err_new(DRA_EXIT_INPUT, "DeviceClass %s is not in the input",
                                                            o->classes[i]),
                                                "class"));
    dra_selector_eval ev = dra_cel_selector_eval_new(o->features);
    dra_alloc_world *w = NULL;
    if (!e)
        e = dra_alloc_world_of_model(m, NULL, o->features, &ev, &w, NULL, NULL);
    json_t *arr = json_array();
    if (!e) {
        fleet f = {.w = w};
        fleet_build(&f, m);
        for (size_t i = 0; i < classes->n && !e; i++) {
            const char *name = dra_jfield_str(dra_jfield(classes->v[i]->json, "metadata"), "name");
            bool want = !o->nclasses;
            for (size_t k = 0; k < o->nclasses && !want; k++)
                want = name && strcmp(name, o->classes[k]) == 0;
            intptr_t v;
            if (!want || !name || !dra_strmap_get(&w->classes, name, strlen(name), &v))
                continue;
            json_t *r;
            e = one_class(&f, (const al_class *)v, nodes, nnodes, o, &r, warnings);
            if (!e)
                json_array_append_new(arr, r);
        }
        fleet_free(&f);
    }
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
    static const char *const head[] = {"TOTAL", "ALLOCATED", "SHARED", "TAINTED", "UNHEALTHY", "BLOCKED", "UNUSABLE",
                                       "FREE"};
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
            else
                cell(&c, counters_cell(r));
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
