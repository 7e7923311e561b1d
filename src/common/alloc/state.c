/* Allocated state from in-use claims (dra.md §3.1; scheduler
 * allocateddevices.go): admin-access results are ignored, results with a
 * shareID (consumable capacity on) are shared and add their consumed capacity
 * to the device's aggregate, every other result is exclusive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "../base/utf8.h"
#include "capacity.h"

/* ---- a device's strings and rare parts, in the world's arena ------------------------ */

/* A packed device's strings outlive its tree: one arena copy per distinct string. */
const char *dra_al_intern_str(dra_alloc_world *w, const char *s)
{
    return dra_strmap_intern(&w->strs, &w->arena, s);
}

al_devx *dra_al_devx(dra_alloc_world *w, al_device *d)
{
    if (!d->x)
        d->x = dra_arena_zalloc(&w->arena, sizeof *d->x);
    return d->x;
}

/* ---- device IDs ------------------------------------------------------------------ */

/* A million devices have a million IDs: the table holds 4 bytes a slot, the
 * ID's strings are the ones its devices and claims already have. */
static uint64_t id_hash(const char *driver, const char *pool, const char *device)
{
    uint64_t h = dra_fnv1a_str(DRA_FNV64_OFFSET, driver);
    h = (h ^ 0x1f) * DRA_FNV64_PRIME;
    h = dra_fnv1a_str(h, pool);
    h = (h ^ 0x1f) * DRA_FNV64_PRIME;
    return dra_fnv1a_str(h, device);
}

/* The slot of the ID, or the free slot where it would go. */
static size_t id_slot(const dra_alloc_world *w, const char *driver, const char *pool, const char *device, uint64_t h)
{
    for (size_t i = h & (w->nidslot - 1);; i = (i + 1) & (w->nidslot - 1)) {
        uint32_t v = w->idslot[i];
        if (!v)
            return i;
        const al_idstate *st = &w->st[v - 1];
        if (strcmp(st->device, device) == 0 && strcmp(st->pool, pool) == 0 && strcmp(st->driver, driver) == 0)
            return i;
    }
}

int dra_al_lookup_id(const dra_alloc_world *w, const char *driver, const char *pool, const char *device)
{
    if (!w->nidslot)
        return -1;
    uint32_t v = w->idslot[id_slot(w, driver, pool, device, id_hash(driver, pool, device))];
    return v ? (int)v - 1 : -1;
}

int dra_al_intern_id(dra_alloc_world *w, const char *driver, const char *pool, const char *device)
{
    if ((w->nids + 1) * 2 > w->nidslot) {
        size_t n = w->nidslot ? w->nidslot * 2 : 256;
        free(w->idslot);
        w->idslot = dra_xcalloc(n, sizeof *w->idslot);
        w->nidslot = n;
        for (size_t g = 0; g < w->nids; g++) {
            const al_idstate *st = &w->st[g];
            w->idslot[id_slot(w, st->driver, st->pool, st->device, id_hash(st->driver, st->pool, st->device))] =
                (uint32_t)g + 1;
        }
    }
    size_t i = id_slot(w, driver, pool, device, id_hash(driver, pool, device));
    if (w->idslot[i])
        return (int)w->idslot[i] - 1;
    if (w->nids == w->capids) {
        w->capids = w->capids ? w->capids * 2 : 256;
        w->st = dra_xrealloc(w->st, w->capids * sizeof *w->st);
    }
    w->st[w->nids] = (al_idstate){.driver = driver, .pool = pool, .device = device};
    w->idslot[i] = (uint32_t)w->nids + 1;
    return (int)w->nids++;
}

/* "claim NS/NAME[, reserved for pod NS/POD[ and N more]]" in the world's
 * arena, or NULL for a claim without a name. */
static const char *holder_of(dra_alloc_world *w, const json_t *claim)
{
    const json_t *meta = dra_jfield(claim, "metadata");
    const char *ns = dra_jfield_str(meta, "namespace"), *name = dra_jfield_str(meta, "name");
    if (!name)
        return NULL;
    const json_t *rf = dra_jfield(dra_jfield(claim, "status"), "reservedFor");
    const char *pod = NULL;
    size_t npods = 0, i;
    const json_t *x;
    json_array_foreach(rf, i, x) {
        const char *res = dra_jfield_str(x, "resource"), *n = dra_jfield_str(x, "name");
        if (!n || (res && strcmp(res, "pods") != 0))
            continue;
        if (!npods++)
            pod = n;
    }
    const char *nsp = ns && *ns ? ns : "default";
    if (!pod)
        return dra_arena_printf(&w->arena, "claim %s/%s", nsp, name);
    if (npods == 1)
        return dra_arena_printf(&w->arena, "claim %s/%s, reserved for pod %s/%s", nsp, name, nsp, pod);
    return dra_arena_printf(&w->arena, "claim %s/%s, reserved for pod %s/%s and %zu more", nsp, name, nsp, pod,
                            npods - 1);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* consumedCapacityError: each result's consumedCapacity, in name order, is
 * checked as stored (pkg/scheduler/framework/plugins/dynamicresources
 * allocateddevices.go, GatherAllocatedState in dra_manager.go,
 * v1.38.0-beta.0). */
dra_err *dra_al_state_negative_capacity(const dra_alloc_world *w, const json_t *claim)
{
    if (!w->f.capacity_1_38 || !w->f.consumable_capacity)
        return NULL;
    const json_t *results =
        dra_jfield(dra_jfield(dra_jfield(dra_jfield(claim, "status"), "allocation"), "devices"), "results");
    size_t i;
    const json_t *res;
    json_array_foreach(results, i, res) {
        const json_t *cc = dra_jfield(res, "consumedCapacity");
        size_t n = json_is_object(cc) ? json_object_size(cc) : 0, k = 0;
        if (!n)
            continue;
        const char **names = dra_xcalloc(n, sizeof *names);
        const char *name;
        const json_t *v;
        json_object_foreach((json_t *)cc, name, v)
            names[k++] = name;
        qsort(names, n, sizeof *names, cmp_names);
        dra_err *e = NULL;
        for (k = 0; k < n && !e; k++) {
            const char *s = json_string_value(json_object_get(cc, names[k]));
            dra_quantity q;
            dra_err *pe = s ? dra_quantity_parse_rules(s, strlen(s), w->f.qrules, &q) : NULL;
            if (!s || pe) {
                dra_err_free(pe);
                continue;
            }
            if (dra_quantity_sign(&q) >= 0)
                continue;
            const json_t *meta = dra_jfield(claim, "metadata");
            const char *ns = dra_jfield_str(meta, "namespace"), *cname = dra_jfield_str(meta, "name");
            char qs[DRA_QUANTITY_STRMAX];
            dra_buf quoted = DRA_BUF_INIT;
            dra_go_quote(&quoted, names[k], strlen(names[k]));
            const char *driver = dra_jfield_str(res, "driver"), *pool = dra_jfield_str(res, "pool"),
                       *dev = dra_jfield_str(res, "device");
            e = dra_err_new(DRA_EXIT_INPUT,
                            "claim %s/%s, device %s/%s/%s: consumed capacity %s must not be negative, got %s",
                            ns && *ns ? ns : "default", cname ? cname : "", driver ? driver : "", pool ? pool : "",
                            dev ? dev : "", dra_buf_str(&quoted), dra_quantity_format(&q, qs));
            dra_buf_free(&quoted);
        }
        free(names);
        if (e)
            return e;
    }
    return NULL;
}

/* st's device taken: out of its node's (or the shared) free count once. */
static void mark_allocated(dra_alloc_world *w, al_idstate *st)
{
    if (!st->allocated && w->counts_ready && st->home != 0) {
        if (st->home > 0)
            w->node_free[st->home - 1]--;
        else
            w->shared_free--;
    }
    st->allocated = true;
}

void dra_al_state_add_claim(dra_alloc_world *w, const json_t *claim)
{
    const char *holder = NULL;
    bool named = false;
    const json_t *results =
        dra_jfield(dra_jfield(dra_jfield(dra_jfield(claim, "status"), "allocation"), "devices"), "results");
    size_t n = json_is_array(results) ? json_array_size(results) : 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *res = json_array_get(results, i);
        if (dra_jfield_true(res, "adminAccess"))
            continue;
        const char *driver = dra_jfield_str(res, "driver"), *pool = dra_jfield_str(res, "pool"),
                   *dev = dra_jfield_str(res, "device");
        if (!driver || !pool || !dev)
            continue;
        /* the ID keeps its strings: the world's own, whatever becomes of the claim */
        int gid =
            dra_al_intern_id(w, dra_al_intern_str(w, driver), dra_al_intern_str(w, pool), dra_al_intern_str(w, dev));
        if (!named && !w->unnamed) {
            holder = holder_of(w, claim);
            named = true;
        }
        if (holder && !(w->st[gid].x && w->st[gid].x->holder))
            dra_al_idextra(w, gid)->holder = holder;
        al_idstate *st = &w->st[gid];
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
                    dra_err *e = s ? dra_quantity_parse_rules(s, strlen(s), w->f.qrules, &q)
                                   : dra_err_new(DRA_EXIT_INPUT, "not a quantity");
                    if (e) {
                        dra_err_free(e);
                        continue;
                    }
                    /* 1.38 keys it by the resolved name, the driver's
                     * qualified spelling winning over the plain one
                     * (structured/schedulerapi/types.go
                     * NewDeviceConsumedCapacity, v0.38.0-beta.0) */
                    if (w->f.capacity_1_38 && !strchr(k, '/')) {
                        char *full = dra_xasprintf("%s/%s", driver, k);
                        bool both = json_object_get(cc, full) != NULL;
                        free(full);
                        if (both)
                            continue;
                    }
                    dra_al_capuse_set(&add, dra_arena_strdup(&w->arena, k), &q);
                }
            dra_al_capuse_add(&dra_al_idextra(w, gid)->agg, &add, w->f.qrules);
            dra_al_capuse_free(&add);
        } else {
            mark_allocated(w, st);
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

al_idextra *dra_al_idextra(dra_alloc_world *w, int gid)
{
    al_idstate *st = &w->st[gid];
    if (!st->x)
        st->x = dra_xcalloc(1, sizeof *st->x);
    return st->x;
}

void dra_alloc_commit(dra_alloc_world *w, const dra_alloc_result *r)
{
    dra_alloc_commit_for(w, r, NULL);
}

/* dra_al_state_add_claim for an allocation whose results share nothing,
 * from its devices' IDs: the same marks, and the same holder when the run
 * was explained (only --explain reads it, and a scheduler's runs are all
 * explained or none is). */
static void commit_devices(dra_alloc_world *w, const al_commit *k, const char *pod, bool holders)
{
    const char *holder = NULL;
    if (holders && k->ngids && k->name) { /* holder_of's words */
        const char *nsp = *k->ns ? k->ns : "default";
        holder = pod ? dra_arena_printf(&w->arena, "claim %s/%s, reserved for pod %s/%s", nsp, k->name, nsp, pod)
                     : dra_arena_printf(&w->arena, "claim %s/%s", nsp, k->name);
    }
    for (size_t j = 0; j < k->ngids; j++) {
        int gid = k->gids[j];
        if (holder && !(w->st[gid].x && w->st[gid].x->holder))
            dra_al_idextra(w, gid)->holder = holder;
        al_idstate *st = &w->st[gid];
        mark_allocated(w, st);
    }
}

void dra_alloc_commit_for(dra_alloc_world *w, const dra_alloc_result *r, const char *pod)
{
    if (!r || !r->ok)
        return;
    for (size_t i = 0; i < r->nallocs; i++) {
        const al_commit *k = &r->commit[i];
        if (!k->shares) {
            commit_devices(w, k, pod, r->holders);
            continue;
        }
        json_t *wrap = json_pack("{s:{s:O}}", "status", "allocation", r->allocs[i]);
        if (k->name) /* the claim's metadata: who holds the devices */
            json_object_set_new(wrap, "metadata", json_pack("{s:s,s:s}", "namespace", k->ns, "name", k->name));
        if (pod)
            json_object_set_new(json_object_get(wrap, "status"), "reservedFor",
                                json_pack("[{s:s,s:s}]", "resource", "pods", "name", pod));
        dra_al_state_add_claim(w, wrap);
        json_decref(wrap);
    }
}

/* The program of expr in the world's map m, compiled on first use (a compile
 * error is kept in ->error).  The map outlives the claims whose text it
 * sees (a scheduler drops or freezes a pod's generated claims once the pod
 * is placed), so its key is the world's copy, never the claim's string. */
static al_prog *world_prog(dra_alloc_world *w, dra_strmap *m, const char *expr, size_t n,
                           dra_err *(*compile)(void *ctx, const char *expr, size_t len, void **prog),
                           const char *unsupported)
{
    intptr_t v;
    if (dra_strmap_get(m, expr, n, &v))
        return (al_prog *)v;
    al_prog *p = dra_xcalloc(1, sizeof *p);
    dra_err *e = compile ? compile(w->eval.ctx, expr, n, &p->prog) : dra_err_new(DRA_EXIT_INPUT, "%s", unsupported);
    if (e) {
        p->prog = NULL;
        p->error = dra_xstrdup(e->msg);
        dra_err_free(e);
    }
    dra_strmap_put(m, dra_arena_strndup(&w->arena, expr, n), n, (intptr_t)p);
    return p;
}

al_prog *dra_al_prog(dra_alloc_world *w, const char *expr)
{
    return dra_al_prog_n(w, expr, strlen(expr));
}

al_prog *dra_al_prog_n(dra_alloc_world *w, const char *expr, size_t len)
{
    return world_prog(w, &w->progs, expr, len, w->eval.compile, "selectors are not supported here");
}

al_prog *dra_al_value_prog(dra_alloc_world *w, const char *expr)
{
    return world_prog(w, &w->value_progs, expr, strlen(expr), w->eval.compile_value,
                      "derived attributes are not supported here");
}
