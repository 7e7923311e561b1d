/* Device-taint eviction: the entry points of evict.h (dra_evict_compute,
 * dra_evict_view_*).  The work is in eval.c, status.c and apply.c. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/hash.h"
#include "../model/names.h"
#include "../model/pools.h"
#include "../base/sort.h"
#include "../model/taints.h"

/* ---- entry points ---- */

void dra_evict_result_free(dra_evict_result *r)
{
    free(r->v);
    dra_problems_free(&r->warnings);
    for (size_t i = 0; i < r->nrules; i++)
        json_decref(r->rules[i]);
    free(r->rules);
    for (size_t i = 0; i < r->nmade; i++) {
        json_decref(r->made[i]->json);
        free(r->made[i]);
    }
    free(r->made);
    memset(r, 0, sizeof *r);
}

void dra_evict_keep_namespace(dra_evict_result *r, const char *ns)
{
    size_t k = 0;
    for (size_t i = 0; ns && i < r->n; i++) {
        const json_t *o = r->v[i].pod ? r->v[i].pod : r->v[i].claim;
        if (strcmp(dra_jstr_or(o, "metadata.namespace", ""), ns) == 0)
            r->v[k++] = r->v[i];
    }
    if (ns)
        r->n = k;
}

/* Eviction time, then input order (the entries point into one array in
 * input order): the order a stable sort by time gives. */
static int due_cmp(const void *pa, const void *pb)
{
    const pod_ev *a = *(const pod_ev *const *)pa, *b = *(const pod_ev *const *)pb;
    if (dra_time_cmp(a->when, b->when) != 0)
        return dra_time_cmp(a->when, b->when);
    return a < b ? -1 : a > b;
}

dra_err *dra_evict_compute(const dra_cluster *c, const dra_evict_opts *opts, dra_evict_result *out,
                           dra_changes *changes)
{
    ctx x;
    dra_err *e = dra_ev_ctx_init(&x, c, opts, out, NULL);
    if (e) {
        dra_ev_ctx_free(&x);
        return e;
    }
    if (!dra_feature_enabled(opts->features, DRA_FEATURE_DEVICE_TAINTS)) {
        dra_ev_warn(out, dra_xstrdup("DRADeviceTaints is disabled: the eviction controller does not run"));
        dra_ev_ctx_free(&x);
        return NULL;
    }
    eval ev;
    e = dra_ev_evaluate(&x, -1, &ev);
    if (e) {
        dra_ev_eval_free(&ev);
        dra_ev_ctx_free(&x);
        return e;
    }
    dra_ev_build_records(&ev, out);
    /* the objects made from records that the records name go with them */
    out->made = ev.made;
    out->nmade = ev.nmade;
    ev.made = NULL;
    ev.nmade = 0;
    if (opts->apply && changes) {
        /* in eviction-time order, as the work queue fires them */
        const pod_ev **due = dra_xcalloc(ev.npev + 1, sizeof *due);
        size_t ndue = 0;
        for (size_t i = 0; i < ev.npev; i++)
            if (dra_ev_pod_evicted_at_apply(&x, &ev.pev[i]))
                due[ndue++] = &ev.pev[i];
        dra_sort(due, ndue, sizeof *due, due_cmp);
        for (size_t i = 0; i < ndue; i++)
            dra_ev_apply_pod(&x, due[i], changes);
        free(due);
    }
    out->rules = dra_xcalloc(x.nrules + 1, sizeof *out->rules);
    for (size_t r = 0; r < x.nrules && !e; r++) {
        e = dra_ev_rule_status(&x, &ev, r, &out->rules[out->nrules], changes);
        if (!e)
            out->nrules++;
    }
    dra_ev_eval_free(&ev);
    dra_ev_ctx_free(&x);
    return e;
}

struct dra_evict_view {
    dra_evict_opts opts;
    dra_evict_result scratch;
    ctx x;
};

dra_evict_view *dra_evict_view_new(const dra_cluster *c, const dra_evict_opts *opts)
{
    dra_evict_view *v = dra_xcalloc(1, sizeof *v);
    if (opts)
        v->opts = *opts;
    /* invalid objects simply contribute nothing here */
    dra_err_free(dra_ev_ctx_init(&v->x, c, &v->opts, &v->scratch, NULL));
    return v;
}

void dra_evict_view_free(dra_evict_view *v)
{
    if (!v)
        return;
    dra_ev_ctx_free(&v->x);
    dra_evict_result_free(&v->scratch);
    free(v);
}

size_t dra_evict_view_taints(const dra_evict_view *v, const char *driver, const char *pool, const char *device,
                             dra_taint_src *srcs, size_t max)
{
    const ctx *x = &v->x;
    size_t n = 0;
    const json_t *slice;
    const json_t *dev = dra_ev_find_device(x, driver, pool, device, &slice);
    size_t k;
    json_t *t;
    json_array_foreach(dra_ev_device_taints(dev), k, t) {
        if (strcmp(dra_jstr_or(t, "effect", ""), "NoExecute") != 0)
            continue;
        if (n < max)
            srcs[n] = (dra_taint_src){NULL, slice, dra_jstr(dev, "name"), (int)k, t};
        n++;
    }
    for (size_t r = 0; r < x->nrules; r++) {
        if (!dra_ev_evicting(x, r, -1) || !dra_ev_rule_matches(&x->rules[r], driver, pool, device))
            continue;
        if (n < max)
            srcs[n] = (dra_taint_src){x->rules[r].o->json, NULL, NULL, 0, x->rules[r].taint};
        n++;
    }
    return n;
}

bool dra_evict_view_published(const dra_evict_view *v, const char *driver, const char *pool, const char *device,
                              bool *pool_known)
{
    *pool_known = dra_ev_find_pool(&v->x, driver, pool) != NULL;
    const json_t *slice;
    return dra_ev_find_device(&v->x, driver, pool, device, &slice) != NULL;
}
