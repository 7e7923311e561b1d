/* The scheduler's side of classic DRA (KEP-3063; resource.k8s.io/v1alpha2,
 * Kubernetes 1.27-1.30): the PodSchedulingContext negotiation of release-1.30
 * pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go
 * (PreFilter, Filter, PostFilter, Reserve, PreBind), with each driver's
 * control-plane controller played by a callback.
 *
 * One question per call: {"claim": <v1alpha2 ResourceClaim>, "class":
 * <ResourceClass>, "parameters": <the parametersRef object, or null>,
 * "potentialNodes": [names], "selectedNode": name or null}; the answer is
 * {"unsuitableNodes": [names]} or, once a node is selected (at once for an
 * Immediate claim), {"allocation": <v1alpha2 AllocationResult>}.
 *
 * The run, deterministic:
 *   1. Immediate claims that are not allocated are allocated first: asked
 *      with no node;
 *   2. every pending pod (no spec.nodeName) that uses classic claims, in
 *      input order: claims from classic templates are made (<pod>-<entry>,
 *      owned by the pod); a claim being deallocated, an unallocated Immediate
 *      claim or a claim in use by another pod (not shareable) keeps it
 *      pending; candidate nodes are those the allocated claims are available
 *      on and the classes' suitableNodes select, minus the nodes drivers
 *      called unsuitable; when no node is left and an allocated claim that no
 *      pod uses is the reason, deallocation is requested (PostFilter);
 *   3. otherwise the drivers are asked about the potential nodes (at most
 *      128, in name order), unsuitable ones go into the pod's
 *      PodSchedulingContext, and nodes are selected in name order until every
 *      claim's driver allocates on it (an allocation elsewhere than the
 *      selected node is an error of the driver);
 *   4. the claims are reserved for the pod and the pod is bound.
 * The PodSchedulingContexts written, the claims changed or made and the pods
 * bound are the output.  Claims of drivers without a callback entry keep
 * their pods pending ("waiting for resource driver").
 *
 * Ownership: inputs are borrowed; the result owns its objects and strings.
 */
#ifndef DRA_SCHED_CLASSIC_H
#define DRA_SCHED_CLASSIC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/error.h"
#include "../cluster/cluster.h"
#include "../io/stream.h"
#include "../model/load.h"

/* Ask driver's controller; *answer is a new reference.  An error (the
 * command failed, the answer is not JSON) ends the run. */
typedef dra_err *(*dra_classic_ask_fn)(void *ctx, const char *driver, const json_t *question, json_t **answer);

typedef struct dra_classic_sched_opts {
    const char *const *drivers; /* drivers with a controller (callback) */
    size_t ndrivers;
    dra_classic_ask_fn ask;
    void *ctx;
} dra_classic_sched_opts;

typedef struct dra_classic_pod {
    char *ref; /* "ns/name" */
    bool scheduled;
    char *node;    /* when scheduled */
    char *message; /* why pending */
} dra_classic_pod;

typedef struct dra_classic_sched_result {
    json_t **objs; /* changed or new claims, PodSchedulingContexts, pods */
    size_t nobjs;
    dra_classic_pod *pods; /* pods that use classic claims, input order */
    size_t npods;
    const json_t **handled; /* those pods (borrowed from the set): the structured pass leaves them */
} dra_classic_sched_result;

/* c: the input with its loaded model (parameters objects are looked up in
 * c->set, as read, by kind and name); nodes: candidate Node objects. */
dra_err *dra_classic_schedule(const dra_cluster *c, json_t *const *nodes, size_t nnodes,
                              const dra_classic_sched_opts *o, dra_classic_sched_result *out);
void dra_classic_sched_result_free(dra_classic_sched_result *r);

#endif
