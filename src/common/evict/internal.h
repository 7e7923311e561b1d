/* Private to src/common/evict/: the state of one run and the calls between
 * eval.c (rules, slices, taints, claims, pods, the evaluation, the records
 * and the run's context), status.c (a rule's status), apply.c (one pod's
 * evictions applied) and entry.c (the entry points of evict.h).
 *
 * A ctx borrows the cluster and options it is made from (dra_ev_ctx_init)
 * and owns its index arrays (dra_ev_ctx_free); an eval owns its arrays
 * (dra_ev_eval_free) and borrows the claims and pods. */
#ifndef DRA_EVICT_INTERNAL_H
#define DRA_EVICT_INTERNAL_H

#include "evict.h"
#include "../base/arena.h"
#include "../base/hash.h"
#include "../model/pools.h"

typedef struct rule_info {
    const dra_obj *o;
    const json_t *taint;
    const json_t *sel; /* deviceSelector object, or NULL */
    bool select_all;   /* no selector and --all */
    const char *effect;
} rule_info;

typedef struct ctx {
    const dra_cluster *c;
    const dra_evict_opts *opts;
    rule_info *rules;
    size_t nrules;
    dra_pool_index pools; /* slices of valid ResourceSlices by pool, newest generation */
    /* Devices of the pools' newest generations (see index_devices):
     * "driver\0pool\0device" (keys in `keys`) -> position in devs + 1,
     * or 0 for a device asked for that no such slice has. */
    dra_strmap devmap;
    struct dev_ref {
        const json_t *slice, *dev;
    } * devs;
    size_t ndevs;
    dra_arena keys;
    dra_compact own;           /* the claims' records when the cluster holds them as objects */
    const dra_compact *claims; /* the claims' records, input order */
    dra_evict_result *out;
    dra_strset *warned; /* messages of the warnings given once (the wrap-around); ctx_init's */
} ctx;

typedef struct item {
    const json_t *result;
    size_t result_index;
    dra_taint_src src;
    bool has_time;
    dra_time t;
} item;

typedef struct claim_ev {
    const dra_obj *co; /* NULL when no taint can apply to its devices (not made from its record) */
    size_t pos;        /* its position among the cluster's claims */
    item *items;
    size_t n;
    bool has_time;
    dra_time when;
} claim_ev;

typedef struct pod_ev {
    const dra_obj *po;       /* NULL when it has no eviction time (not made from its record) */
    const claim_ev **claims; /* contributing claims (with an eviction time) */
    size_t nclaims;
    bool has_time;
    dra_time when;
} pod_ev;

typedef struct eval {
    claim_ev *cev;
    size_t ncev;
    size_t *at;  /* claim position -> its entry in cev + 1, 0 for none */
    pod_ev *pev; /* the pods with an eviction time, in input order */
    size_t npev;
    dra_obj **made; /* the claims and Pods made from records that entries hold */
    size_t nmade;
} eval;

/* ---- eval.c ---- */

void dra_ev_warn(dra_evict_result *r, char *msg);
bool dra_ev_rule_matches(const rule_info *r, const char *driver, const char *pool, const char *device);
json_t *dra_ev_device_taints(const json_t *dev);
DRA_MUST_USE dra_err *dra_ev_load_pools(ctx *x);
const dra_pool *dra_ev_find_pool(const ctx *x, const char *driver, const char *pool);
const json_t *dra_ev_newest_slice(const ctx *x, size_t i, const char **driver, const char **pool);
void dra_ev_index_devices(ctx *x, bool claims, const char *extra_driver, const char *extra_pool,
                          const char *extra_device);
const json_t *dra_ev_find_device(const ctx *x, const char *driver, const char *pool, const char *device,
                                 const json_t **slice);
bool dra_ev_evicting(const ctx *x, size_t r, long only);
bool dra_ev_pod_has_rule(const pod_ev *pe, const json_t *rule);
void dra_ev_eval_free(eval *ev);
DRA_MUST_USE dra_err *dra_ev_evaluate(const ctx *x, long only_rule, eval *ev);
bool dra_ev_pod_evicted_at_apply(const ctx *x, const pod_ev *pe);
void dra_ev_build_records(const eval *ev, dra_evict_result *r);
DRA_MUST_USE dra_err *dra_ev_ctx_init(ctx *x, const dra_cluster *c, const dra_evict_opts *opts, dra_evict_result *out,
                                      const char *const *device);
void dra_ev_ctx_free(ctx *x);

/* ---- status.c ---- */

DRA_MUST_USE dra_err *dra_ev_rule_status(const ctx *x, const eval *ev, size_t r, json_t **out, dra_changes *changes);

/* ---- apply.c ---- */

void dra_ev_apply_pod(const ctx *x, const pod_ev *pe, dra_changes *changes);

#endif
