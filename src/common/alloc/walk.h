/* The world's devices with their state, for reports over the allocator
 * (insight/capacity.h): every device of the newest generation of every pool,
 * in pool and slice order, with what the allocator knows of it, and each
 * pool's shared counters with what the in-use devices left of them.
 *
 * Per device (each as dra-alloc capacity counts it):
 *   allocated  exclusively allocated by an in-use claim
 *   shared     multi-allocatable and in use through shares
 *   inuse      allocated, shared, or with consumed capacity
 *   tainted    a NoSchedule or NoExecute taint (DRADeviceTaints on)
 *   unhealthy  a claim's status.devices reports condition Ready False for it
 *   blocked    not in use, but its shared counters no longer fit
 *   unusable   of a pool the allocator takes nothing from (the pool's
 *              `unusable` says why: GatherPools and buildPool,
 *              pools_experimental.go)
 *   free       none of the above, and capacity left in every dimension of
 *              a multi-allocatable device
 *
 * Ownership: a walk borrows its world (which must outlive it) and the model
 * it was made from; names point into the world.  dra_alloc_walk_free
 * releases what the walk owns.  Nothing here prints.
 */
#ifndef DRA_ALLOC_WALK_H
#define DRA_ALLOC_WALK_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/error.h"
#include "../model/load.h"
#include "../model/quantity.h"
#include "alloc.h"

/* One counter of a pool's counter sets: published and left. */
typedef struct dra_alloc_counter_left {
    const char *set, *counter;
    dra_quantity total, left;
} dra_alloc_counter_left;

typedef struct dra_alloc_pool_state {
    const char *driver, *pool;
    const char *node;          /* the nodeName of its slices when they all share one, else NULL */
    dra_alloc_counter_left *c; /* its counters, in slice and set order (the first of a duplicate set) */
    size_t n;
    char *unusable; /* why the allocator takes none of its devices, or NULL */
} dra_alloc_pool_state;

struct al_device;

typedef struct dra_alloc_device_state {
    const char *name;
    size_t pool;      /* index into the walk's pools */
    const char *node; /* its node (per-device nodeName, else the slice's), or NULL */
    bool inuse, allocated, shared, tainted, unhealthy, blocked, unusable, free;
    bool multi;          /* allowMultipleAllocations */
    struct al_device *d; /* private */
} dra_alloc_device_state;

typedef struct dra_alloc_walk {
    dra_alloc_world *w;
    dra_alloc_pool_state *pools;
    size_t npools;
    dra_alloc_device_state *devs;
    size_t ndevs;
} dra_alloc_walk;

/* The walk of world w, made from model m (its claims' status.devices). */
void dra_alloc_walk_new(dra_alloc_world *w, const dra_model *m, dra_alloc_walk *out);
/* The same with the claims whose status.devices count given (borrowed for
 * the call) instead of the model's: those of a caller that holds no claim
 * objects (any claim without status.devices may be left out). */
void dra_alloc_walk_new_of(dra_alloc_world *w, const json_t *const *claims, size_t nclaims, dra_alloc_walk *out);
void dra_alloc_walk_free(dra_alloc_walk *wk);

/* *ok: every selector of class cls (a class of the world) is true on
 * device i, answered through the world's compiled-expression cache (the
 * answers stay there; the device's CEL form is released, and devices of
 * packed slices parsed for it are released past a few hundred: strings of
 * dra_alloc_walk_attr_str are valid until the next call).  A CEL compile
 * error is returned (DRA_EXIT_INPUT); a runtime error is a warning added to
 * *warn once per class (*warned) and the device does not match. */
DRA_MUST_USE dra_err *dra_alloc_walk_match(dra_alloc_walk *wk, const char *cls, size_t i, bool *ok, dra_err **warn,
                                           bool *warned);

/* Whether what device i consumes of its pool's counters fits `left` (a copy
 * of the pool's counters, same order), and taking it from there. */
bool dra_alloc_walk_counters_fit(const dra_alloc_walk *wk, const dra_alloc_counter_left *left, size_t i);
void dra_alloc_walk_counters_take(const dra_alloc_walk *wk, dra_alloc_counter_left *left, size_t i);

/* The counter sets device i consumes from: how many, and the name of the k-th. */
size_t dra_alloc_walk_nconsumed(const dra_alloc_walk *wk, size_t i);
const char *dra_alloc_walk_consumed_set(const dra_alloc_walk *wk, size_t i, size_t k);
/* What device i consumes, "counter=quantity,..." (canonical quantities; a
 * new string, "" when nothing). */
char *dra_alloc_walk_consumption(const dra_alloc_walk *wk, size_t i);
/* A string attribute of device i by its name in any domain, or NULL. */
const char *dra_alloc_walk_attr_str(const dra_alloc_walk *wk, size_t i, const char *name);

/* Device i's capacity dimensions: how many, and the k-th's name, published
 * value and what in-use claims left of it. */
size_t dra_alloc_walk_ncapacity(const dra_alloc_walk *wk, size_t i);
const char *dra_alloc_walk_capacity(const dra_alloc_walk *wk, size_t i, size_t k, dra_quantity *total,
                                    dra_quantity *left);

#endif
