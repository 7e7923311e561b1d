/* Shared counters of partitionable devices (dra.md §3.7; upstream
 * allocator_incubating.go checkAvailableCounters, deallocateCountersForDevice)
 * and their compatibility groups (KEP-5963; allocator_experimental.go
 * checkAndConsumeCompatibilityGroups, compatibilityGroupsBaselineForPool).
 *
 * Counter state is kept per pool ID (driver and pool name).  Older upstream
 * keyed it by pool *name* only (dra-corrections.md, "Counter bookkeeping is
 * keyed by pool name only"); upstream master fixed that and its test table
 * checks it (allocatortesting/allocator_testing.go,
 * partitionable-devices-counter-cache-scoped-by-pool-ID), so upstream code
 * wins over the corrections here. */
#include <string.h>

#include "counters.h"
#include "../base/assert.h"
#include "state.h"

dra_err *dra_al_parse_counters(dra_arena *a, const json_t *arr, const char *setkey, unsigned qrules,
                               al_counter_set **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!json_is_array(arr) || !json_array_size(arr))
        return NULL;
    al_counter_set *s = dra_arena_zalloc(a, json_array_size(arr) * sizeof *s);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *j = json_array_get(arr, i);
        al_counter_set *x = &s[(*n)++];
        x->name = dra_jfield_str(j, setkey);
        if (!x->name)
            x->name = "";
        const json_t *g = dra_jfield(j, "compatibilityGroups");
        x->groups = json_is_array(g) && json_array_size(g) ? g : NULL;
        const json_t *cs = dra_jfield(j, "counters");
        if (!json_is_object(cs))
            continue;
        x->c = dra_arena_zalloc(a, (json_object_size(cs) + 1) * sizeof *x->c);
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)cs, k, v) {
            al_counter *c = &x->c[x->n++];
            c->name = k;
            const char *q = dra_jfield_str(v, "value");
            dra_err *e = q ? dra_quantity_parse_rules(q, strlen(q), qrules, &c->value) : NULL;
            if (e || !q)
                c->value = dra_quantity_from_int64(0, DRA_QFMT_DECIMAL_SI);
            dra_err_free(e);
        }
    }
    *out = s;
    return NULL;
}

static al_cstate *cstate_for(al_run *r, const al_pool *pool)
{
    for (size_t i = 0; i < r->ncstates; i++)
        if (strcmp(r->cstates[i].pool, pool->pool) == 0 && strcmp(r->cstates[i].driver, pool->driver) == 0)
            return &r->cstates[i];
    r->cstates = dra_xgrow(r->cstates, r->ncstates, sizeof *r->cstates);
    al_cstate *c = &r->cstates[r->ncstates++];
    *c = (al_cstate){.driver = pool->driver, .pool = pool->pool};
    return c;
}

static al_cstate_entry *entry(al_cstate *c, const char *set, const char *counter, bool create)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->e[i].set, set) == 0 && strcmp(c->e[i].counter, counter) == 0)
            return &c->e[i];
    if (!create)
        return NULL;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->e = dra_xrealloc(c->e, c->cap * sizeof *c->e);
    }
    al_cstate_entry *e = &c->e[c->n++];
    *e = (al_cstate_entry){.set = set, .counter = counter};
    e->avail = e->consumed = dra_quantity_from_int64(0, DRA_QFMT_DECIMAL_SI);
    return e;
}

static void push_group(al_cstate *c, const char *set, const json_t *groups, const al_device *dev)
{
    if (c->ng == c->capg) {
        c->capg = c->capg ? c->capg * 2 : 16;
        c->g = dra_xrealloc(c->g, c->capg * sizeof *c->g);
    }
    c->g[c->ng++] = (al_cgroup){set, groups, dev};
}

static bool groups_have(const json_t *groups, const char *name)
{
    size_t i;
    const json_t *v;
    json_array_foreach(groups, i, v)
        if (json_is_string(v) && strcmp(json_string_value(v), name) == 0)
            return true;
    return false;
}

/* KEP-5963 (DRADeviceCompatibilityGroups), as upstream's rolling
 * intersection (compatibilityGroupIntersection in experimental/
 * compatibility_groups.go): the first device on the counter set (allocated
 * ones first, in the pool's slice order) decides whether its devices declare
 * groups; a later device of the other kind leaves the intersection as it is,
 * so an allocated mixture is judged by its first device.  A device without
 * groups fits where the first had none; one with groups fits where the
 * first had some and it shares a group with every device that declares
 * them. */
static bool groups_fit(const al_cstate *c, const char *set, const json_t *mine, const char **why)
{
    const al_cgroup *first = NULL;
    for (size_t i = 0; i < c->ng && !first; i++)
        if (strcmp(c->g[i].set, set) == 0)
            first = &c->g[i];
    if (!first)
        return true;
    bool all_empty = !first->groups;
    if (!mine || all_empty) {
        if (!mine == all_empty)
            return true;
        *why = mine ? "declares compatibilityGroups, devices already allocated on it do not"
                    : "declares no compatibilityGroups, devices already allocated on it do";
        return false;
    }
    size_t k;
    const json_t *g;
    json_array_foreach(mine, k, g) {
        if (!json_is_string(g))
            continue;
        bool all = true;
        for (size_t i = 0; i < c->ng && all; i++)
            if (strcmp(c->g[i].set, set) == 0 && c->g[i].groups)
                all = groups_have(c->g[i].groups, json_string_value(g));
        if (all)
            return true;
    }
    *why = "no compatibility group in common with the devices already allocated on it";
    return false;
}

static void compute_available(al_run *r, al_pool *pool, al_cstate *c)
{
    for (size_t i = 0; i < pool->nsets; i++)
        for (size_t j = 0; j < pool->sets[i]->n; j++) {
            al_cstate_entry *e = entry(c, pool->sets[i]->name, pool->sets[i]->c[j].name, true);
            e->has_avail = true;
            e->avail = pool->sets[i]->c[j].value;
        }
    /* Subtract what allocated devices of the pool consume (targeting the node
     * or not); in-progress devices are tracked in `consumed`. */
    for (int pass = 0; pass < 2; pass++) {
        al_slice **ss = pass ? pool->other : pool->target;
        size_t ns = pass ? pool->nother : pool->ntarget;
        for (size_t si = 0; si < ns; si++)
            for (size_t di = 0; di < ss[si]->ndev; di++) {
                al_device *d = &ss[si]->dev[di];
                if (!dra_al_device_allocated(r->w, d->gid))
                    continue;
                /* compatibilityGroupsBaselineForPool: an allocated device's
                 * groups, read live from its slice like its counters. */
                for (size_t k = 0; k < d->ncons; k++)
                    push_group(c, d->cons[k].name, d->cons[k].groups, NULL);
                for (size_t k = 0; k < d->ncons; k++)
                    for (size_t m = 0; m < d->cons[k].n; m++) {
                        al_cstate_entry *e = entry(c, d->cons[k].name, d->cons[k].c[m].name, false);
                        if (!e || !e->has_avail)
                            continue;
                        dra_quantity_sub_rules(&e->avail, &e->avail, &d->cons[k].c[m].value, r->w->f.qrules);
                    }
            }
    }
    c->avail_done = true;
}

bool dra_al_counters_take(al_run *r, al_pool *pool, al_device *d, char *why, size_t whylen)
{
    al_cstate *c = cstate_for(r, pool);
    if (!c->avail_done)
        compute_available(r, pool, c);
    /* checkAndConsumeCompatibilityGroups, before the counters; with the gate
     * off no device with groups gets here (their slices are ignored). */
    for (size_t k = 0; k < d->ncons && r->w->f.compatibility_groups; k++) {
        const char *reason = NULL;
        if (!groups_fit(c, d->cons[k].name, d->cons[k].groups, &reason)) {
            if (why)
                snprintf(why, whylen, "counter set %s: %s", d->cons[k].name, reason);
            return false;
        }
    }
    for (size_t k = 0; k < d->ncons; k++)
        push_group(c, d->cons[k].name, d->cons[k].groups, d);
    for (size_t k = 0; k < d->ncons; k++)
        for (size_t m = 0; m < d->cons[k].n; m++) {
            al_cstate_entry *e = entry(c, d->cons[k].name, d->cons[k].c[m].name, true);
            dra_quantity_add_rules(&e->consumed, &e->consumed, &d->cons[k].c[m].value, r->w->f.qrules);
        }
    for (size_t i = 0; i < c->n; i++) {
        al_cstate_entry *e = &c->e[i];
        if (!e->has_avail || dra_quantity_cmp(&e->avail, &e->consumed) >= 0)
            continue;
        if (why) {
            /* needed by this device vs what was left before it */
            dra_quantity need = dra_quantity_from_int64(0, DRA_QFMT_DECIMAL_SI), left;
            for (size_t k = 0; k < d->ncons; k++)
                if (strcmp(d->cons[k].name, e->set) == 0)
                    for (size_t m = 0; m < d->cons[k].n; m++)
                        if (strcmp(d->cons[k].c[m].name, e->counter) == 0)
                            dra_quantity_add_rules(&need, &need, &d->cons[k].c[m].value, r->w->f.qrules);
            dra_quantity before;
            dra_quantity_sub_rules(&before, &e->consumed, &need, r->w->f.qrules);
            dra_quantity_sub_rules(&left, &e->avail, &before, r->w->f.qrules);
            if (dra_quantity_sign(&left) < 0)
                left = dra_quantity_from_int64(0, DRA_QFMT_DECIMAL_SI);
            char b1[DRA_QUANTITY_STRMAX], b2[DRA_QUANTITY_STRMAX];
            snprintf(why, whylen, "counter set %s, counter %s: needs %s, %s left", e->set, e->counter,
                     dra_quantity_format_canonical(&need, b1), dra_quantity_format_canonical(&left, b2));
        }
        dra_al_counters_release(r, pool, d);
        return false;
    }
    return true;
}

void dra_al_counters_release(al_run *r, al_pool *pool, al_device *d)
{
    al_cstate *c = cstate_for(r, pool);
    /* Last in, first out: the newest entries are this device's (one per
     * counter set it consumes), and go. */
    for (size_t k = 0; k < d->ncons; k++)
        DRA_ASSERT(k < c->ng && c->g[c->ng - 1 - k].dev == d);
    for (size_t k = 0; k < d->ncons; k++)
        for (size_t i = c->ng; i-- > 0;)
            if (c->g[i].dev == d) {
                memmove(&c->g[i], &c->g[i + 1], (c->ng - i - 1) * sizeof *c->g);
                c->ng--;
                break;
            }
    for (size_t k = 0; k < d->ncons; k++)
        for (size_t m = 0; m < d->cons[k].n; m++) {
            al_cstate_entry *e = entry(c, d->cons[k].name, d->cons[k].c[m].name, true);
            dra_quantity_sub_rules(&e->consumed, &e->consumed, &d->cons[k].c[m].value, r->w->f.qrules);
            DRA_ASSERT(dra_quantity_sign(&e->consumed) >= 0); /* what was taken, no more */
        }
}
