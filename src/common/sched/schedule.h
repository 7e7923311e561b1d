/* Pod placement: the scheduler's DynamicResources plugin over a whole dump
 * (dra.md §6; upstream pkg/scheduler/framework/plugins/dynamicresources/
 * dynamicresources.go PreFilter/Filter/Score/Reserve/PreBind and
 * extendeddynamicresources.go; DRA/deviceclass/extendedresourcecache).
 *
 * For every pending pod (no spec.nodeName, not done, not being deleted), in
 * the scheduling queue's order (queue.h: priority, then creation time; or
 * input order when told): claims from templates are made first, as the resourceclaim
 * controller would (lifecycle/claims.h dra_claims_generate, one call over the
 * whole dump, pods in the same order, with quota admission when given); then the pod's
 * claims are resolved (with DRAWorkloadResourceClaims a claim the pod shares
 * with its PodGroup is allocated once and reserved for the group, as
 * BindTo says), extended resources backed by DRA become the special
 * claim, every candidate node is filtered (allocated claims' node selectors,
 * the allocator for the pending claims), feasible nodes are scored by
 * firstAvailable preference, the best node is taken and the claims are
 * allocated and reserved by lifecycle's bindClaim (dra_claims_reserve_in
 * with bind: finalizer, allocation, reservedFor, allocationTimestamp when
 * gated).  The run's state is one dra_changes, so later pods see earlier
 * claims, allocations and reservations.  A reservation the API server would
 * refuse makes the pod an error (DRA_POD_ERROR with the server's text).
 *
 * Node choice (deterministic where upstream picks at random among the best):
 * the highest normalised DynamicResources score, then the smallest node name
 * (strcmp order).  Only DRA's checks are made: other scheduler plugins (CPU,
 * memory, affinity, taints) are not modelled.
 *
 * Ownership: every json_t given is borrowed and must outlive the result; the
 * result owns its copies (dra_sched_result_free).  Nothing here prints.
 */
#ifndef DRA_SCHED_SCHEDULE_H
#define DRA_SCHED_SCHEDULE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "../cluster/cluster.h"
#include "../io/stream.h"
#include "../lifecycle/claims.h"
#include "../model/features.h"
#include "../model/load.h"
#include "../alloc/alloc.h"
#include "queue.h"
#include "extres.h"
#include "score.h"

/* ---- the whole run ---------------------------------------------------------- */

typedef struct dra_sched_opts {
    const dra_features *features; /* NULL = defaults */
    double timeout;               /* per node allocation, seconds; <= 0 none */
    bool explain;                 /* keep a per-pod trace */
    bool no_prune;
    int64_t now;                  /* Unix seconds for allocationTimestamp */
    dra_name_suffix name_suffix;  /* names of claims made here */
    const dra_slice_packs *packs; /* more slices, as text (dra_slice_pack), or NULL */
    /* The caller gives the input up: pods and claims are changed in place
     * (the result's objects are then the input's own), saving a copy of
     * each.  The input is not to be read again after. */
    bool in_place;
    /* Created claims are held as compact text while their pod is not being
     * placed, and the result gives them as text (dra_sched_result.texts):
     * for a caller that only writes the result out. */
    bool text_results;
    dra_sched_order order; /* the queue's (default) or the input's */
    /* Quota admission of each claim made from a template (dra_lc_opts.admit;
     * NULL: none).  Claims are made pod by pod in the order above, before
     * any pod is placed; a pod whose claim is refused stays pending
     * (DRA_POD_UNSCHEDULABLE) with the claim controller's error as its
     * message: "pod NS/NAME, PodResourceClaim C: resourceclaims.resource.k8s.io
     * \"X\" is forbidden: exceeded quota: ...".  The special claim for a
     * pod's extended resources, made when the pod is bound, too: refused,
     * the pod stays pending with "create claim for extended resources NS/:
     * <refusal>" (upstream createExtendedResourceClaimInAPI). */
    char *(*admit)(void *ctx, const json_t *claim);
    void *admit_ctx;
    /* Told after each pod: ("pods placed", pods done, pods queued); NULL:
     * nobody (tool/progress.h draws it on a terminal). */
    void (*progress)(void *ud, const char *what, size_t done, size_t total);
    void *progress_ud;
} dra_sched_opts;

typedef enum { DRA_POD_SCHEDULED, DRA_POD_UNSCHEDULABLE, DRA_POD_ERROR, DRA_POD_SKIPPED } dra_pod_outcome;

typedef struct dra_sched_pod {
    const json_t *pod; /* borrowed original */
    char *ref;         /* "ns/name" */
    dra_pod_outcome outcome;
    char *node;           /* chosen node (SCHEDULED) */
    int64_t score;        /* normalised score of the chosen node */
    char *message;        /* fit error, error text, or why skipped */
    json_t *trace;        /* per-node trace (explain), else NULL */
    size_t queue_pos;     /* 1-based place in the order the pods were tried */
    int64_t priority;     /* as the queue sorts it */
    char *queue;          /* why it is there: priority and its source, queue time */
    char *group;          /* "ns/name" of the PodGroup it was queued with (GenericWorkload), else NULL */
    bool scheduler_error; /* an error status that stops no other pod (PreBind's refusal,
                             Filter's claim limit on the special claim): its PodScheduled
                             condition says SchedulerError, whatever the outcome */
} dra_sched_pod;

typedef struct dra_sched_stats {
    int64_t pods, scheduled, unschedulable, errors;
    int64_t nodes_checked;     /* (pod, node) pairs filtered */
    int64_t nodes_prefiltered; /* pairs cut by the free-device bound */
    int64_t allocator_runs;
    double seconds; /* world build + placement */
} dra_sched_stats;

typedef struct dra_sched_result {
    json_t **objs; /* changed claims (input order, then created ones), then changed pods (input order),
                    * then PodGroups whose status changed (DRAWorkloadResourceClaims); with
                    * text_results a created claim's entry is NULL and its text in texts */
    char **texts;  /* text_results: the entries objs leaves NULL as their -o jsonl lines (io/jline.h), else NULL */
    size_t nobjs;
    dra_sched_pod *pods; /* one per pending pod, in the order they were tried */
    size_t npods;
    dra_err *warnings; /* problems of the claim controller step (pods stay pending), and
                        * pods naming a PriorityClass that is not there */
    dra_sched_stats stats;
} dra_sched_result;

/* Result object i, whichever way it is held: a new reference. */
json_t *dra_sched_result_obj(const dra_sched_result *r, size_t i);

/* `c` is the input indexed with its loaded model (dra_cluster_load, or
 * dra_cluster_adopt: converted, defaulted, validated; c->set gives the
 * PriorityClasses and ResourceQuotas), `nodes` the candidate Node objects
 * (any order).  Fatal input errors (duplicate classes) are returned;
 * per-pod problems are outcomes. */
DRA_MUST_USE dra_err *dra_schedule(const dra_cluster *c, json_t *const *nodes, size_t nnodes,
                                   const dra_sched_opts *opts, dra_sched_result *out);
void dra_sched_result_free(dra_sched_result *r);

#endif
