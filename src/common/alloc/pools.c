/* Pool gathering for one node (dra.md §3.2, dra-corrections.md A8; upstream
 * incubating/pools_incubating.go GatherPools, addSlice, buildPool,
 * checkSlicesInPool); the node test of a slice or device is
 * dra_node_target_match (model/nodesel.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pools.h"
#include "../model/poolrule.h"
#include "../base/sort.h"

/* ---- gathering ----------------------------------------------------------------------- */

typedef struct group {
    al_pool_slices *all; /* cluster-wide slices of the pool */
    al_slice **s;        /* relevant slices at the highest generation */
    size_t n, cap;
} group;

static int cmp_slice_name(const void *a, const void *b)
{
    return strcmp((*(al_slice *const *)a)->name, (*(al_slice *const *)b)->name);
}

static int cmp_pool(const void *a, const void *b)
{
    const al_pool *x = a, *y = b;
    if (x->has_binding != y->has_binding)
        return x->has_binding ? 1 : -1;
    int c = strcmp(x->driver, y->driver);
    return c ? c : strcmp(x->pool, y->pool);
}

static dra_err *slice_relevant(al_run *r, al_slice *s, bool *rel)
{
    const al_features *f = &r->w->f;
    *rel = false;
    if (!f->partitionable && (s->per_device_set || s->nsets > 0))
        return NULL;
    /* KEP-5963: with the gate off such a slice is ignored, which leaves its
     * pool incomplete (GatherPools, sliceUsesCompatibilityGroups). */
    if (!f->compatibility_groups && s->uses_groups)
        return NULL;
    if (s->node_name || s->all_nodes || s->node_selector) {
        dra_err *e = dra_node_target_match(r->node, r->node_name, s->node_name, s->all_nodes, s->node_selector, rel);
        if (e) {
            dra_err *w = dra_err_new(DRA_EXIT_INPUT,
                                     "gather pool information: failed to perform node selection for slice %s: %s",
                                     s->name, e->msg);
            dra_err_free(e);
            return w;
        }
        return NULL;
    }
    if (s->per_device) {
        for (size_t i = 0; i < s->ndev; i++) {
            al_device *d = &s->dev[i];
            bool m;
            dra_err *e = dra_node_target_match(r->node, r->node_name, al_x(d)->node_name, d->all_nodes,
                                               al_x(d)->node_selector, &m);
            if (e) {
                dra_err *w = dra_err_new(
                    DRA_EXIT_INPUT,
                    "gather pool information: failed to perform node selection for device %s in slice %s: %s", d->name,
                    s->name, e->msg);
                dra_err_free(e);
                return w;
            }
            if (m) {
                *rel = true;
                break;
            }
        }
    }
    return NULL; /* nothing known set: some future extension, ignored */
}

static void group_add(dra_arena *a, group *g, al_slice *s)
{
    if (g->n && s->generation < g->s[0]->generation)
        return;
    if (g->n && s->generation > g->s[0]->generation)
        g->n = 0;
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 4;
        al_slice **ns = dra_arena_alloc(a, g->cap * sizeof *ns);
        if (g->n)
            memcpy(ns, g->s, g->n * sizeof *ns);
        g->s = ns;
    }
    g->s[g->n++] = s;
}

static void invalid(al_run *r, al_pool *p, const char *fmt, const char *a, const char *b)
{
    p->invalid = true;
    p->invalid_reason = dra_arena_printf(&r->arena, fmt, a, b);
}

static bool validate_consumption(al_run *r, al_pool *p, al_slice **ss, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < ss[i]->ndev; j++) {
            al_device *d = &ss[i]->dev[j];
            for (size_t k = 0; k < d->ncons; k++) {
                al_counter_set *set = NULL;
                for (size_t m = 0; m < p->nsets && !set; m++)
                    if (strcmp(p->sets[m]->name, d->cons[k].name) == 0)
                        set = p->sets[m];
                if (!set) {
                    invalid(r, p, "counter set %s not found%s", d->cons[k].name, "");
                    return false;
                }
                for (size_t c = 0; c < d->cons[k].n; c++) {
                    bool found = false;
                    for (size_t m = 0; m < set->n && !found; m++)
                        found = strcmp(set->c[m].name, d->cons[k].c[c].name) == 0;
                    if (!found) {
                        invalid(r, p, "counter %s not found in counter set %s", d->cons[k].c[c].name, set->name);
                        return false;
                    }
                }
            }
        }
    return true;
}

static void build_pool(al_run *r, al_pool *p, group *g, al_slice **allgen, size_t nallgen)
{
    dra_arena *a = &r->arena;
    bool part = r->w->f.partitionable;
    dra_sort(g->s, g->n, sizeof *g->s, cmp_slice_name);
    p->target = dra_arena_alloc(a, (g->n + 1) * sizeof *p->target);
    for (size_t i = 0; i < g->n; i++)
        if (!part || !g->s[i]->nsets)
            p->target[p->ntarget++] = g->s[i];

    /* Duplicate device names among node-targeting device slices. */
    dra_strmap names = {0};
    for (size_t i = 0; i < p->ntarget && !p->invalid; i++)
        for (size_t j = 0; j < p->target[i]->ndev; j++) {
            const char *n = p->target[i]->dev[j].name;
            intptr_t v;
            if (dra_strmap_get(&names, n, strlen(n), &v)) {
                invalid(r, p, "duplicate device name %s%s", n, "");
                break;
            }
            dra_strmap_put(&names, n, strlen(n), 1);
        }
    dra_strmap_free(&names);
    if (p->invalid || !part)
        goto done;

    /* Counter sets: the pool's sharedCounters slices of this generation. */
    al_slice **src = allgen ? allgen : g->s;
    size_t nsrc = allgen ? nallgen : g->n;
    size_t nsets = 0;
    for (size_t i = 0; i < nsrc; i++)
        nsets += src[i]->nsets;
    p->sets = dra_arena_alloc(a, (nsets + 1) * sizeof *p->sets);
    al_slice **sorted = dra_arena_alloc(a, (nsrc + 1) * sizeof *sorted);
    memcpy(sorted, src, nsrc * sizeof *sorted);
    dra_sort(sorted, nsrc, sizeof *sorted, cmp_slice_name);
    for (size_t i = 0; i < nsrc && !p->invalid; i++)
        for (size_t k = 0; k < sorted[i]->nsets; k++) {
            for (size_t m = 0; m < p->nsets; m++)
                if (strcmp(p->sets[m]->name, sorted[i]->sets[k].name) == 0) {
                    invalid(r, p, "duplicate counter set name %s%s", sorted[i]->sets[k].name, "");
                    break;
                }
            if (p->invalid)
                break;
            p->sets[p->nsets++] = &sorted[i]->sets[k];
        }
    if (p->invalid || !validate_consumption(r, p, p->target, p->ntarget))
        goto done;

    /* Pool-mates not targeting the node: kept for counter bookkeeping. */
    if (allgen && nallgen != g->n) {
        p->other = dra_arena_alloc(a, (nallgen + 1) * sizeof *p->other);
        for (size_t i = 0; i < nallgen; i++) {
            bool in = false;
            for (size_t j = 0; j < g->n && !in; j++)
                in = g->s[j] == allgen[i];
            if (!in && !allgen[i]->nsets)
                p->other[p->nother++] = allgen[i];
        }
        dra_sort(p->other, p->nother, sizeof *p->other, cmp_slice_name);
        validate_consumption(r, p, p->other, p->nother);
    }
done:
    if (p->invalid) {
        p->ntarget = p->nother = p->nsets = 0;
        return;
    }
    for (size_t i = 0; i < p->ntarget && !p->has_binding; i++)
        for (size_t j = 0; j < p->target[i]->ndev && !p->has_binding; j++)
            p->has_binding = p->target[i]->dev[j].has_binding;
}

dra_err *dra_al_gather_pools(al_run *r)
{
    dra_alloc_world *w = r->w;
    dra_arena *a = &r->arena;
    dra_strmap gidx = {0};
    group *groups = NULL;
    size_t ngroups = 0, capgroups = 0;
    dra_err *err = NULL;

    al_pool_slices *lists[2] = {NULL, &w->shared};
    intptr_t v;
    if (r->node_name && dra_strmap_get(&w->bynode, r->node_name, strlen(r->node_name), &v))
        lists[0] = (al_pool_slices *)v;
    for (int li = 0; li < 2 && !err; li++) {
        if (!lists[li])
            continue;
        for (size_t i = 0; i < lists[li]->n; i++) {
            al_slice *s = lists[li]->s[i];
            bool rel;
            err = slice_relevant(r, s, &rel);
            if (err)
                break;
            if (!rel)
                continue;
            size_t gi;
            if (dra_strmap_get(&gidx, s->pool_key, s->pool_klen, &v)) {
                gi = (size_t)v;
            } else {
                if (ngroups == capgroups) {
                    capgroups = capgroups ? capgroups * 2 : 8;
                    groups = dra_xrealloc(groups, capgroups * sizeof *groups);
                }
                gi = ngroups++;
                groups[gi] = (group){0};
                groups[gi].all = s->pool_slices;
                dra_strmap_put(&gidx, s->pool_key, s->pool_klen, (intptr_t)gi);
            }
            group_add(a, &groups[gi], s);
        }
    }
    dra_strmap_free(&gidx);
    if (err) {
        free(groups);
        return err;
    }

    r->pools = dra_arena_zalloc(a, (ngroups + 1) * sizeof *r->pools);
    for (size_t gi = 0; gi < ngroups; gi++) {
        group *g = &groups[gi];
        al_pool *p = &r->pools[r->npools];
        p->driver = g->s[0]->driver;
        p->pool = g->s[0]->pool;
        /* The pool rule (model/poolrule.h), GatherPools of
         * structured/internal/stable/pools_stable.go and its twins. */
        int64_t gen = g->s[0]->generation;
        /* the count compared is slicesForPool[0]'s: the first slice of gen
         * relevant for the node */
        dra_pool_tally t;
        dra_pool_tally_init(&t, gen, g->s[0]->count);
        for (size_t i = 0; g->all && i < g->all->n; i++) {
            const al_slice *s = g->all->s[i];
            /* slicesWithoutCompatibilityGroups when the gate is off */
            dra_pool_tally_add(&t, s->generation, s->count, r->w->f.compatibility_groups || !s->uses_groups);
        }
        dra_pool_verdict pv = dra_pool_tally_verdict(&t, g->n);
        if (pv == DRA_POOL_OBSOLETE)
            continue;
        if (pv == DRA_POOL_COMPLETE_NODE) {
            build_pool(r, p, g, NULL, 0);
            r->npools++;
            continue;
        }
        if (pv == DRA_POOL_INCOMPLETE) {
            p->incomplete = true;
            r->npools++;
            continue;
        }
        /* complete with slices other nodes see: every counted slice of gen */
        al_slice **allgen = dra_arena_alloc(a, (g->all->n + 1) * sizeof *allgen);
        size_t nall = 0;
        for (size_t i = 0; i < g->all->n; i++) {
            al_slice *s = g->all->s[i];
            if (s->generation == gen && (r->w->f.compatibility_groups || !s->uses_groups))
                allgen[nall++] = s;
        }
        build_pool(r, p, g, allgen, nall);
        r->npools++;
    }
    free(groups);
    dra_sort(r->pools, r->npools, sizeof *r->pools, cmp_pool);

    /* Run-local device indices, in search order. */
    size_t nd = 0;
    for (size_t i = 0; i < r->npools; i++)
        for (size_t j = 0; j < r->pools[i].ntarget; j++)
            nd += r->pools[i].target[j]->ndev;
    r->ldev = dra_arena_alloc(a, (nd + 1) * sizeof *r->ldev);
    r->lpool = dra_arena_alloc(a, (nd + 1) * sizeof *r->lpool);
    for (size_t i = 0; i < r->npools; i++)
        for (size_t j = 0; j < r->pools[i].ntarget; j++)
            for (size_t k = 0; k < r->pools[i].target[j]->ndev; k++) {
                al_device *d = &r->pools[i].target[j]->dev[k];
                d->lid = (int)r->nldev;
                d->run_id = r->run_id;
                r->ldev[r->nldev] = d;
                r->lpool[r->nldev++] = &r->pools[i];
            }
    return NULL;
}
