/* The world's devices with their state.  See walk.h.
 *
 * Reads the world the allocator builds (its devices, taints, in-use state and
 * compiled-selector cache) without changing it. */
#include "walk.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../model/kinds.h"
#include "../model/poolrule.h"
#include "capacity.h"
#include "state.h"

static dra_alloc_counter_left *find_ctr(dra_alloc_pool_state *p, const char *set, const char *counter)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->c[i].set, set) == 0 && strcmp(p->c[i].counter, counter) == 0)
            return &p->c[i];
    return NULL;
}

/* Whether device d's consumption fits what c (a copy of n counters of its pool) has left. */
static bool counters_fit(size_t n, const dra_alloc_counter_left *c, const al_device *d)
{
    for (size_t i = 0; i < d->ncons; i++)
        for (size_t k = 0; k < d->cons[i].n; k++) {
            const al_counter *x = &d->cons[i].c[k];
            const dra_alloc_counter_left *have = NULL;
            for (size_t j = 0; j < n && !have; j++)
                if (strcmp(c[j].set, d->cons[i].name) == 0 && strcmp(c[j].counter, x->name) == 0)
                    have = &c[j];
            if (!have || dra_quantity_cmp(&have->left, &x->value) < 0)
                return false;
        }
    return true;
}

static void counters_take(size_t n, dra_alloc_counter_left *c, const al_device *d, unsigned qrules)
{
    for (size_t i = 0; i < d->ncons; i++)
        for (size_t k = 0; k < d->cons[i].n; k++) {
            const al_counter *x = &d->cons[i].c[k];
            for (size_t j = 0; j < n; j++)
                if (strcmp(c[j].set, d->cons[i].name) == 0 && strcmp(c[j].counter, x->name) == 0)
                    (void)dra_quantity_sub_rules(&c[j].left, &c[j].left, &x->value, qrules);
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
static void mark_unhealthy(const dra_alloc_world *w, const json_t *const *claims, size_t n, uint8_t *bad)
{
    for (size_t i = 0; i < n; i++) {
        const json_t *devs = dra_jfield(dra_jfield(claims[i], "status"), "devices");
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
            const char *dr = dra_jfield_str(dv, "driver"), *po = dra_jfield_str(dv, "pool"),
                       *de = dra_jfield_str(dv, "device");
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
    dra_pool_tally_init(&t, gen, DRA_POOL_FIRST_ADDED);
    for (size_t i = 0; i < ps->n; i++)
        dra_pool_tally_add(&t, ps->s[i]->generation, ps->s[i]->count,
                           w->f.compatibility_groups || !ps->s[i]->uses_groups);
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

void dra_alloc_walk_new(dra_alloc_world *w, const dra_model *m, dra_alloc_walk *out)
{
    const dra_model_list *l = dra_model_kind(m, DRA_KIND_RESOURCE_CLAIM);
    const json_t **claims = dra_xcalloc(l->n + 1, sizeof *claims);
    for (size_t i = 0; i < l->n; i++)
        claims[i] = l->v[i]->json;
    dra_alloc_walk_new_of(w, claims, l->n, out);
    free(claims);
}

void dra_alloc_walk_new_of(dra_alloc_world *w, const json_t *const *claims, size_t nclaims, dra_alloc_walk *out)
{
    *out = (dra_alloc_walk){.w = w};
    dra_alloc_walk *f = out;
    uint8_t *bad = dra_xcalloc(w->nids + 1, 1);
    mark_unhealthy(w, claims, nclaims, bad);
    f->pools = dra_xcalloc(w->npools + 1, sizeof *f->pools);
    f->npools = w->npools;
    size_t cap = 0;
    for (size_t pi = 0; pi < w->npools; pi++) {
        dra_alloc_pool_state *p = &f->pools[pi];
        const al_pool_slices *ps = w->poollist[pi];
        p->driver = ps->driver;
        p->pool = ps->pool;
        int64_t gen = INT64_MIN;
        for (size_t i = 0; i < ps->n; i++)
            if (ps->s[i]->generation > gen)
                gen = ps->s[i]->generation;
        p->unusable = pool_unusable(w, ps, gen);
        bool first = true;
        for (size_t i = 0; i < ps->n; i++) {
            const al_slice *s = ps->s[i];
            if (s->generation != gen)
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
                    p->c[p->n++] = (dra_alloc_counter_left){s->sets[k].name, s->sets[k].c[j].name,
                                                            s->sets[k].c[j].value, s->sets[k].c[j].value};
                }
            for (size_t k = 0; k < s->ndev; k++) {
                if (f->ndevs == cap) {
                    cap = cap ? cap * 2 : 256;
                    f->devs = dra_xrealloc(f->devs, cap * sizeof *f->devs);
                }
                al_device *d = &s->dev[k];
                const al_idstate *st = &w->st[d->gid];
                dra_alloc_device_state *x = &f->devs[f->ndevs++];
                *x = (dra_alloc_device_state){.name = d->name, .pool = pi, .multi = d->allow_multi, .d = d};
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
        dra_alloc_device_state *x = &f->devs[i];
        if (x->inuse && x->d->ncons) {
            dra_alloc_pool_state *p = &f->pools[x->pool];
            counters_take(p->n, p->c, x->d, w->f.qrules);
        }
    }
    for (size_t i = 0; i < f->ndevs; i++) {
        dra_alloc_device_state *x = &f->devs[i];
        dra_alloc_pool_state *p = &f->pools[x->pool];
        x->blocked = !x->inuse && !x->unusable && x->d->ncons && !counters_fit(p->n, p->c, x->d);
        x->free = !x->allocated && !x->tainted && !x->unhealthy && !x->blocked && !x->unusable &&
                  (!x->d->allow_multi || capacity_left(w, x->d));
    }
    free(bad);
}

void dra_alloc_walk_free(dra_alloc_walk *f)
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
        dra_err *e = dra_al_match(w, p->prog, d, &mt);
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

dra_err *dra_alloc_walk_match(dra_alloc_walk *wk, const char *cls, size_t i, bool *ok, dra_err **warn, bool *warned)
{
    *ok = false;
    intptr_t v;
    if (!cls || !dra_strmap_get(&wk->w->classes, cls, strlen(cls), &v))
        return NULL;
    al_device *d = wk->devs[i].d;
    dra_err *e = class_matches(wk->w, (const al_class *)v, d, ok, warn, warned);
    /* The answers stay in the selector memo; the device's converted CEL
     * form would otherwise stay for every device of the fleet. */
    if (d->eval_cache && wk->w->eval.free_device_cache) {
        wk->w->eval.free_device_cache(wk->w->eval.ctx, d->eval_cache);
        d->eval_cache = NULL;
    }
    dra_al_trim(wk->w); /* a packed device's tree too: at most a few hundred stay parsed */
    return e;
}

/* ---- what a device consumes and has ----------------------------------------------- */

bool dra_alloc_walk_counters_fit(const dra_alloc_walk *wk, const dra_alloc_counter_left *left, size_t i)
{
    return counters_fit(wk->pools[wk->devs[i].pool].n, left, wk->devs[i].d);
}

void dra_alloc_walk_counters_take(const dra_alloc_walk *wk, dra_alloc_counter_left *left, size_t i)
{
    counters_take(wk->pools[wk->devs[i].pool].n, left, wk->devs[i].d, wk->w->f.qrules);
}

size_t dra_alloc_walk_nconsumed(const dra_alloc_walk *wk, size_t i)
{
    return wk->devs[i].d->ncons;
}

const char *dra_alloc_walk_consumed_set(const dra_alloc_walk *wk, size_t i, size_t k)
{
    return wk->devs[i].d->cons[k].name;
}

char *dra_alloc_walk_consumption(const dra_alloc_walk *wk, size_t i)
{
    const al_device *d = wk->devs[i].d;
    dra_buf b = DRA_BUF_INIT;
    for (size_t k = 0; k < d->ncons; k++)
        for (size_t c = 0; c < d->cons[k].n; c++) {
            char buf[DRA_QUANTITY_STRMAX];
            dra_buf_printf(&b, "%s%s=%s", b.len ? "," : "", d->cons[k].c[c].name,
                           dra_quantity_format_canonical(&d->cons[k].c[c].value, buf));
        }
    return dra_buf_detach(&b);
}

const char *dra_alloc_walk_attr_str(const dra_alloc_walk *wk, size_t i, const char *name)
{
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)dra_al_device_attrs(wk->devs[i].d), k, v) {
        const char *slash = strrchr(k, '/');
        if (strcmp(slash ? slash + 1 : k, name) == 0 && dra_jfield_str(v, "string"))
            return dra_jfield_str(v, "string");
    }
    return NULL;
}

size_t dra_alloc_walk_ncapacity(const dra_alloc_walk *wk, size_t i)
{
    return wk->devs[i].d->ncap;
}

const char *dra_alloc_walk_capacity(const dra_alloc_walk *wk, size_t i, size_t k, dra_quantity *total,
                                    dra_quantity *left)
{
    const al_device *d = wk->devs[i].d;
    const dra_quantity *used = dra_al_capuse_get(dra_al_agg(wk->w, d->gid), d->cap[k].name);
    *total = d->cap[k].value;
    *left = d->cap[k].value;
    if (used)
        (void)dra_quantity_sub_rules(left, left, used, wk->w->f.qrules);
    return d->cap[k].name;
}
