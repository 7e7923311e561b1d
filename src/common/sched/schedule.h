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
#include "../io/stream.h"
#include "../lifecycle/claims.h"
#include "../model/features.h"
#include "../model/load.h"
#include "../alloc/alloc.h"
#include "queue.h"

/* ---- scoring (Score + NormalizeScore) -------------------------------------- */

/* resourceapi.FirstAvailableDeviceRequestMaxSize */
#define DRA_FIRST_AVAILABLE_MAX 8

/* computeScore for one claim: for every firstAvailable request whose
 * subrequest i appears in allocation.devices.results[].request ("req/sub"),
 * add 8 - i.  `allocation` is a status.allocation value (NULL = 0). */
int64_t dra_sched_claim_score(const json_t *claim, const json_t *allocation);
/* The best score a claim could get (every firstAvailable request served by
 * its first subrequest). */
int64_t dra_sched_claim_max_score(const json_t *claim);
/* helper.DefaultNormalizeScore(100, false): scores[i] = 100*scores[i]/max
 * (integer division), unchanged when max is 0. */
void dra_sched_normalize(int64_t *scores, size_t n);

/* FitError text: "0/N nodes are available: 3 cannot allocate all claims, 2
 * resourceclaim not available on the node." with "<count> <reason>" sorted as
 * strings; "no nodes available to schedule pods" when n is 0.  `reasons` has
 * one entry per node.  Caller frees. */
char *dra_sched_fit_error(const char *const *reasons, size_t n);

/* ---- extended resources backed by DRA (KEP-5004) --------------------------- */

typedef struct dra_extres_map dra_extres_map;

/* Resource name -> DeviceClass: explicit spec.extendedResourceName (newer
 * creationTimestamp wins, equal times: smaller class name) and the implicit
 * deviceclass.resource.kubernetes.io/<class>.  Classes are borrowed. */
dra_extres_map *dra_extres_map_new(json_t *const *classes, size_t n);
void dra_extres_map_free(dra_extres_map *m);
/* The class name for a resource, or NULL. */
const char *dra_extres_class(const dra_extres_map *m, const char *resource);
/* schedutil.IsDRAExtendedResourceName. */
bool dra_is_dra_extended_resource_name(const char *name);

/* createRequestsAndMappings for the resources in `served` (sorted, n):
 * device requests container-<i>-request-<j> (i over initContainers then
 * containers, j the index of the resource among the container's sorted
 * request keys; non-sidecar init containers reuse later long-lived requests
 * and collapse into the largest), sorted by name, and the mappings
 * [{containerName, resourceName, requestName}].  New references. */
void dra_extres_requests(const json_t *pod, const dra_extres_map *m, const char *const *served, size_t n,
                         json_t **requests, json_t **mappings);

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
    dra_sched_order order;        /* the queue's (default) or the input's */
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
} dra_sched_opts;

typedef enum { DRA_POD_SCHEDULED, DRA_POD_UNSCHEDULABLE, DRA_POD_ERROR, DRA_POD_SKIPPED } dra_pod_outcome;

typedef struct dra_sched_pod {
    const json_t *pod;        /* borrowed original */
    char *ref;                /* "ns/name" */
    dra_pod_outcome outcome;
    char *node;               /* chosen node (SCHEDULED) */
    int64_t score;            /* normalised score of the chosen node */
    char *message;            /* fit error, error text, or why skipped */
    json_t *trace;            /* per-node trace (explain), else NULL */
    size_t queue_pos;         /* 1-based place in the order the pods were tried */
    int64_t priority;         /* as the queue sorts it */
    char *queue;              /* why it is there: priority and its source, queue time */
    char *group;              /* "ns/name" of the PodGroup it was queued with (GenericWorkload), else NULL */
} dra_sched_pod;

typedef struct dra_sched_stats {
    int64_t pods, scheduled, unschedulable, errors;
    int64_t nodes_checked;     /* (pod, node) pairs filtered */
    int64_t nodes_prefiltered; /* pairs cut by the free-device bound */
    int64_t allocator_runs;
    double seconds;            /* world build + placement */
} dra_sched_stats;

typedef struct dra_sched_result {
    json_t **objs;            /* changed claims (input order, then created ones), then changed pods (input order),
                               * then PodGroups whose status changed (DRAWorkloadResourceClaims); with
                               * text_results a created claim's entry is NULL and its text in texts */
    char **texts;             /* text_results: compact JSON of the entries objs leaves NULL (else NULL) */
    size_t nobjs;
    dra_sched_pod *pods;      /* one per pending pod, in the order they were tried */
    size_t npods;
    dra_err *warnings;        /* problems of the claim controller step (pods stay pending), and
                               * pods naming a PriorityClass that is not there */
    dra_sched_stats stats;
} dra_sched_result;

/* Result object i, whichever way it is held: a new reference. */
json_t *dra_sched_result_obj(const dra_sched_result *r, size_t i);

/* `set` is the input (as read), `m` its loaded model (converted, defaulted,
 * validated), `nodes` the candidate Node objects (any order).  Fatal input
 * errors (duplicate classes) are returned; per-pod problems are outcomes. */
DRA_MUST_USE dra_err *dra_schedule(const dra_objset *set, const dra_model *m, json_t *const *nodes, size_t nnodes,
                      const dra_sched_opts *opts, dra_sched_result *out);
void dra_sched_result_free(dra_sched_result *r);

#endif
