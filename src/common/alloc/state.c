/* Allocated state from in-use claims (dra.md §3.1; scheduler
 * allocateddevices.go): admin-access results are ignored, results with a
 * shareID (consumable capacity on) are shared and add their consumed capacity
 * to the device's aggregate, every other result is exclusive. */
#include <stdio.h>
#include <string.h>

#include "state.h"
#include "capacity.h"

/* ---- device IDs ------------------------------------------------------------------ */

static char *id_key(dra_arena *a, const char *driver, const char *pool, const char *device, size_t *len)
{
    char *k = dra_arena_printf(a, "%s\x1f%s\x1f%s", driver, pool, device);
    *len = strlen(k);
    return k;
}

int dra_al_lookup_id(const dra_alloc_world *w, const char *driver, const char *pool, const char *device)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s\x1f%s\x1f%s", driver, pool, device);
    if (n < 0 || (size_t)n >= sizeof buf)
        return -1;
    intptr_t v;
    return dra_strmap_get(&w->ids, buf, (size_t)n, &v) ? (int)v : -1;
}

int dra_al_intern_id(dra_alloc_world *w, const char *driver, const char *pool, const char *device)
{
    int id = dra_al_lookup_id(w, driver, pool, device);
    if (id >= 0)
        return id;
    size_t len;
    char *k = id_key(&w->arena, driver, pool, device, &len);
    if (w->nids == w->capids) {
        w->capids = w->capids ? w->capids * 2 : 256;
        w->st = dra_xrealloc(w->st, w->capids * sizeof *w->st);
    }
    memset(&w->st[w->nids], 0, sizeof w->st[0]);
    dra_strmap_put(&w->ids, k, len, (intptr_t)w->nids);
    return (int)w->nids++;
}

void dra_al_state_add_claim(dra_alloc_world *w, const json_t *claim)
{
    const json_t *results = dra_jfield(dra_jfield(dra_jfield(dra_jfield(claim, "status"), "allocation"), "devices"), "results");
    size_t n = json_is_array(results) ? json_array_size(results) : 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *res = json_array_get(results, i);
        if (dra_jfield_true(res, "adminAccess"))
            continue;
        const char *driver = dra_jfield_str(res, "driver"), *pool = dra_jfield_str(res, "pool"), *dev = dra_jfield_str(res, "device");
        if (!driver || !pool || !dev)
            continue;
        int gid = dra_al_intern_id(w, driver, pool, dev);
        al_idstate *st = &w->st[gid];
        /* KEP-5963: the groups the device brought to each counter set,
         * authoritative over the slice (whatever the gate). */
        const json_t *cg = dra_jfield(res, "compatibilityGroups");
        if (json_is_object(cg) && json_object_size(cg) && !dra_al_compat(w, gid))
            dra_al_idextra(w, gid)->compat = json_deep_copy(cg);
        const char *share = dra_jfield_str(res, "shareID");
        if (w->f.consumable_capacity && share && *share) {
            st->shared = true;
            const json_t *cc = dra_jfield(res, "consumedCapacity");
            al_capuse add = {0};
            add.present = true;
            const char *k;
            const json_t *v;
            if (json_is_object(cc))
                json_object_foreach((json_t *)cc, k, v) {
                    dra_quantity q;
                    const char *s = json_string_value(v);
                    dra_err *e = s ? dra_quantity_parse(s, &q) : dra_err_new(DRA_EXIT_INPUT, "not a quantity");
                    if (e) {
                        dra_err_free(e);
                        continue;
                    }
                    dra_al_capuse_set(&add, dra_arena_strdup(&w->arena, k), &q);
                }
            dra_al_capuse_add(&dra_al_idextra(w, gid)->agg, &add);
            dra_al_capuse_free(&add);
        } else {
            if (!st->allocated && w->counts_ready && st->home != 0) {
                if (st->home > 0)
                    w->node_free[st->home - 1]--;
                else
                    w->shared_free--;
            }
            st->allocated = true;
        }
    }
}

/* internal.IsDeviceAllocated: exclusive, shared, or with aggregated capacity. */
bool dra_al_device_allocated(const dra_alloc_world *w, int gid)
{
    if (gid < 0 || (size_t)gid >= w->nids)
        return false;
    const al_idstate *st = &w->st[gid];
    return st->allocated || st->shared || (st->x && st->x->agg.present);
}

const al_capuse *dra_al_agg(const dra_alloc_world *w, int gid)
{
    static const al_capuse none = {0};
    const al_idstate *st = &w->st[gid];
    return st->x ? &st->x->agg : &none;
}

const json_t *dra_al_compat(const dra_alloc_world *w, int gid)
{
    const al_idstate *st = &w->st[gid];
    return st->x ? st->x->compat : NULL;
}

al_idextra *dra_al_idextra(dra_alloc_world *w, int gid)
{
    al_idstate *st = &w->st[gid];
    if (!st->x)
        st->x = dra_xcalloc(1, sizeof *st->x);
    return st->x;
}

void dra_alloc_commit(dra_alloc_world *w, const dra_alloc_result *r)
{
    if (!r || !r->ok)
        return;
    for (size_t i = 0; i < r->nallocs; i++) {
        json_t *wrap = json_pack("{s:{s:O}}", "status", "allocation", r->allocs[i]);
        dra_al_state_add_claim(w, wrap);
        json_decref(wrap);
    }
}

al_prog *dra_al_prog(dra_alloc_world *w, const char *expr)
{
    intptr_t v;
    if (dra_strmap_get(&w->progs, expr, strlen(expr), &v))
        return (al_prog *)v;
    al_prog *p = dra_xcalloc(1, sizeof *p);
    dra_err *e = w->eval.compile(w->eval.ctx, expr, &p->prog);
    if (e) {
        p->prog = NULL;
        p->error = dra_xstrdup(e->msg);
        dra_err_free(e);
    }
    dra_strmap_put(&w->progs, expr, strlen(expr), (intptr_t)p);
    return p;
}
