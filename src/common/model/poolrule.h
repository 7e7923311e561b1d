/* The pool rule: whether the allocator uses a pool at a generation, from
 * its ResourceSlices' generation and resourceSliceCount alone (upstream
 * k8s.io/dynamic-resource-allocation v0.37.2
 * structured/internal/experimental/pools_experimental.go GatherPools).  The one copy for every tool that says
 * whether a pool is usable: the allocator's per-node pools
 * (alloc/pools.c), dra-alloc capacity (alloc/walk.c), dra-select's
 * device list (select/devices.c) and, with the controller's own rule
 * (dra_pool_tally_short), dra-slice pool-status (slice/poolstatus.c).
 *
 * A tally is fed every slice of the pool, cluster-wide, and judged:
 *
 *   dra_pool_tally t;
 *   dra_pool_tally_init(&t, gen, want);
 *   for each slice: dra_pool_tally_add(&t, s.generation, s.count, counted);
 *   v = dra_pool_tally_verdict(&t, relevant);
 *
 * `counted` is false for a slice the allocator ignores (one using
 * compatibility groups with DRADeviceCompatibilityGroups off): it still
 * takes part in the consistency check, not in the count.  `relevant` is the
 * number of slices at gen a node's allocator found for itself, or
 * DRA_POOL_ALL for a pool-wide view.
 *
 * `want` is the resourceSliceCount the slices are judged by, which the
 * caller chooses: GatherPools takes the first slice at gen relevant for
 * the node (slicesForPool[0]: alloc/pools.c), the ResourcePoolStatusRequest
 * controller and the pool-wide views the first slice listed
 * (DRA_POOL_FIRST_ADDED: the count of the first slice added at gen).
 *
 * No allocation, no global state. */
#ifndef DRA_MODEL_POOLRULE_H
#define DRA_MODEL_POOLRULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DRA_POOL_ALL ((size_t)-1)
/* want: the resourceSliceCount of the first slice added at gen */
#define DRA_POOL_FIRST_ADDED INT64_MIN

typedef struct dra_pool_tally {
    int64_t gen;  /* the generation judged */
    int64_t want; /* the resourceSliceCount judged by (dra_pool_tally_init) */
    size_t n;     /* counted slices at gen */
    bool seen;    /* some slice at gen was added */
    bool newer;   /* some slice has a newer generation */
} dra_pool_tally;

typedef enum {
    DRA_POOL_COMPLETE_NODE, /* the node's own slices at gen are the whole pool */
    DRA_POOL_COMPLETE,      /* every counted slice at gen makes the pool */
    DRA_POOL_OBSOLETE,      /* a newer generation exists: the pool at gen is skipped */
    DRA_POOL_INCOMPLETE,    /* skipped: not as many slices as resourceSliceCount */
} dra_pool_verdict;

void dra_pool_tally_init(dra_pool_tally *t, int64_t gen, int64_t want);
void dra_pool_tally_add(dra_pool_tally *t, int64_t generation, int64_t count, bool counted);
dra_pool_verdict dra_pool_tally_verdict(const dra_pool_tally *t, size_t relevant);
/* The ResourcePoolStatusRequest controller's own rule (k8s.io/kubernetes
 * v1.37.2 pkg/controller/resourcepoolstatusrequest/controller.go
 * calculatePoolStatus, for dra-slice pool-status): the pool at gen is
 * incomplete when fewer slices were added than want (there the first
 * one's resourceSliceCount); slices that outnumber it are not incomplete there,
 * unlike the verdict above. */
bool dra_pool_tally_short(const dra_pool_tally *t);
/* Why the allocator takes no device of the pool, into buf (always
 * terminated); NULL for a complete verdict. */
const char *dra_pool_verdict_reason(const dra_pool_tally *t, dra_pool_verdict v, char *buf, size_t len);

#endif
