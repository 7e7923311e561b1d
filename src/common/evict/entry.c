/* Device-taint eviction: the entry points of evict.h (dra_evict_compute,
 * dra_evict_device_*).  The work is in eval.c, status.c and apply.c. */
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
    memset(r, 0, sizeof *r);
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

size_t dra_evict_device_taints(const dra_cluster *c, const dra_evict_opts *opts, const char *driver, const char *pool,
                               const char *device, dra_taint_src *srcs, size_t max)
{
    dra_evict_result scratch = DRA_EVICT_RESULT_INIT;
    ctx x;
    const char *id[3] = {driver, pool, device};
    dra_err *e = dra_ev_ctx_init(&x, c, opts, &scratch, id);
    dra_err_free(e); /* invalid objects simply contribute nothing here */
    size_t n = 0;
    const json_t *slice;
    const json_t *dev = dra_ev_find_device(&x, driver, pool, device, &slice);
    size_t k;
    json_t *t;
    json_array_foreach(dra_ev_device_taints(dev), k, t) {
        if (strcmp(dra_jstr_or(t, "effect", ""), "NoExecute") != 0)
            continue;
        if (n < max)
            srcs[n] = (dra_taint_src){NULL, slice, dra_jstr(dev, "name"), (int)k, t};
        n++;
    }
    for (size_t r = 0; r < x.nrules; r++) {
        if (!dra_ev_evicting(&x, r, -1) || !dra_ev_rule_matches(&x.rules[r], driver, pool, device))
            continue;
        if (n < max)
            srcs[n] = (dra_taint_src){x.rules[r].o->json, NULL, NULL, 0, x.rules[r].taint};
        n++;
    }
    dra_ev_ctx_free(&x);
    dra_evict_result_free(&scratch);
    return n;
}

bool dra_evict_device_published(const dra_cluster *c, const char *driver, const char *pool, const char *device,
                                bool *pool_known)
{
    dra_evict_result scratch = DRA_EVICT_RESULT_INIT;
    dra_evict_opts o = {0};
    ctx x;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.opts = &o;
    x.out = &scratch;
    dra_err_free(dra_ev_load_pools(&x));
    dra_ev_index_devices(&x, false, driver, pool, device); /* the one device asked about */
    *pool_known = dra_ev_find_pool(&x, driver, pool) != NULL;
    const json_t *slice;
    bool found = dra_ev_find_device(&x, driver, pool, device, &slice) != NULL;
    dra_ev_ctx_free(&x);
    dra_evict_result_free(&scratch);
    return found;
}
