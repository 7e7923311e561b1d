/* What-if over the scheduler (`dra-alloc schedule --what-if`): changes
 * applied to a dump before scheduling, and what they do.
 *
 * Changes:
 *   drain NODE               the node takes no pods: it leaves the candidate
 *                            nodes, and its running pods lose their devices
 *   remove DRIVER/POOL/DEV   the device leaves its ResourceSlice; running pods
 *                            whose claims hold it lose their devices
 *   taint SEL:KEY=VAL:EFFECT a DeviceTaintRule dry run (SEL = DRIVER[/POOL[/DEVICE]]);
 *                            NoExecute: running pods whose devices it taints
 *                            and whose results do not tolerate it lose them
 *   (new slices or pods are simply more input: the caller reads them in)
 * A pod that loses its devices is pending again (spec.nodeName cleared) and
 * its claims lose their reservation for it, and their allocation when no
 * other pod keeps them: the scheduler places it again if it can.
 *
 * Ownership: models and clusters are borrowed (dra_whatif_apply changes
 * the objects of the model it is given; dra_whatif_report reads the two
 * clusters, the input's and the changed one); reports belong to the
 * caller.  Nothing prints.
 */
#ifndef DRA_INSIGHT_WHATIF_H
#define DRA_INSIGHT_WHATIF_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../model/load.h"
#include "../cluster/cluster.h"
#include "../sched/schedule.h"
#include "quota.h"

typedef struct dra_whatif_spec {
    const char *const *drain; /* node names */
    size_t ndrain;
    const char *const *remove; /* DRIVER/POOL/DEVICE */
    size_t nremove;
    const char *const *taint; /* SELECTOR:KEY=VALUE:EFFECT */
    size_t ntaint;
    const char *const *add; /* files of more input (named in the report only) */
    size_t nadd;
} dra_whatif_spec;

/* The DeviceTaintRule (resource.k8s.io/v1, named whatif-taint-<index>) that
 * taint value i describes.  Errors name the parameter "taint" (input class). */
DRA_MUST_USE dra_err *dra_whatif_taint_rule(const char *spec, size_t index, json_t **rule);

/* Apply drain, remove and NoExecute taints to the loaded model m (its
 * objects change in place).  *lost: [{"pod": "ns/name", "node", "claims":
 * ["ns/name"], "reason"}] of the running pods that lose their devices.
 * Errors: a drained node or removed device the input does not have
 * (parameters "drain", "remove-device"). */
DRA_MUST_USE dra_err *dra_whatif_apply(dra_model *m, const dra_whatif_spec *s, json_t **lost);

/* Whether node `name` is drained by s. */
bool dra_whatif_drained(const dra_whatif_spec *s, const char *name);

/* Which Pods held as records in c (dra_cluster_take_pod) s may change,
 * for a changed copy of c that shares its records (dra_cluster_share_taken
 * wants them as objects): a running Pod on a drained node, or one that
 * names a claim held as a record with a device s removes or taints
 * NoExecute (whether the claim tolerates the taint aside).  Borrows s and
 * c; a --taint value that does not parse is left out (applying s says
 * so).  Free with dra_whatif_reach_free. */
typedef struct dra_whatif_reach dra_whatif_reach;
dra_whatif_reach *dra_whatif_reach_new(const dra_whatif_spec *s, const dra_cluster *c);
/* reach a dra_whatif_reach (the callback's shape). */
bool dra_whatif_reaches(void *reach, const dra_pod_rec *pod);
void dra_whatif_reach_free(dra_whatif_reach *r);

/* The report of two scheduling runs, before (the input) and after (the
 * changed input, which may share the records of `before`: see
 * dra_cluster_share_taken):
 *   {"changes": [strings], "lost": (as above),
 *    "pods": [{"pod", "before", "after", "change": "now fits|stops fitting|moves"}]
 *            before/after: {"node": N} or {"fits": false, "reason"} or {"running": N},
 *    "claims": [changes as insight/diff.h, claims that move],
 *    "summary": {"lost", "nowFit", "stopFitting", "moved", "claimsMoved"}} */
json_t *dra_whatif_report(const dra_whatif_spec *s, const dra_cluster *before, const dra_sched_result *rb,
                          const dra_cluster *after, const dra_sched_result *ra, json_t *lost);
/* A whole what-if: s applied to `after`, then both inputs scheduled. */
typedef struct dra_whatif_opts {
    /* both runs' options (admit is set per run when the input has
     * ResourceQuotas); sched.packs, slices held as text, are both inputs'
     * (with no --remove-device: a device is removed from the models' slices
     * alone) */
    dra_sched_opts sched;
    /* After each run (changed: false for the input as given, true for the
     * changed one): its quota ledger, to read and free (dra_quota_ledger_free);
     * NULL when the input has no ResourceQuota.  NULL: freed here. */
    void (*ledger_done)(void *ctx, dra_quota_ledger *l, bool changed);
    /* Told of each object of the changed input just before the changes
     * change it (a claim, Pod or ResourceSlice), after the input as given
     * was scheduled: a caller whose changed input shares its objects with
     * the input as given keeps a copy of obj for the report.  NULL: nobody. */
    void (*changing)(void *ctx, json_t *obj);
    void *ctx;
} dra_whatif_opts;

typedef struct dra_whatif_result {
    dra_sched_result before, after; /* the two runs */
    json_t *report;                 /* dra_whatif_report's */
} dra_whatif_result;

/* `before` is the input; `after` the same input loaded again (a copy, or
 * the same objects shared: see dra_whatif_opts.changing) with the changes'
 * objects (--taint rules, more files): s is checked against it, the input
 * as given is scheduled, s is applied to `after` (dra_whatif_apply), which
 * is then scheduled; each run on its candidate nodes
 * (the model's Nodes, or the slices' node names) less the drained ones,
 * with quota admission of its own (each run starts from the quotas as
 * given), and reported.  out is set either way and freed with
 * dra_whatif_result_free. */
DRA_MUST_USE dra_err *dra_whatif_run(const dra_cluster *before, dra_cluster *after, const dra_whatif_spec *s,
                                     const dra_whatif_opts *o, dra_whatif_result *out);
void dra_whatif_result_free(dra_whatif_result *r);

/* Whether the change hurts: a running pod loses its devices or a pending pod stops fitting. */
bool dra_whatif_hurts(const json_t *report);
/* Lines for people, appended to out. */
void dra_whatif_text(const json_t *report, dra_buf *out);

#endif
