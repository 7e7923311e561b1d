/* The pool index: ResourceSlices grouped by pool (driver + pool name), with
 * each pool's newest generation, found by name in constant time.  The one
 * copy for the engines that read pools (evict's newest-generation devices,
 * slice lint's pools); the allocator keeps its own per-node pool tables.
 *
 * Ownership: driver and pool names are borrowed (from the slices, which
 * must outlive the index); the index owns its arrays and keys.  A
 * zero-initialised index is empty; dra_pool_index_free() releases it.
 */
#ifndef DRA_MODEL_POOLS_H
#define DRA_MODEL_POOLS_H

#include <stddef.h>
#include <stdint.h>

#include "../base/hash.h"

typedef struct dra_pool {
    const char *driver, *name;
    int64_t generation; /* the newest generation among the pool's slices */
    size_t *slices;     /* the caller's slice numbers, in the order added */
    size_t n;
} dra_pool;

typedef struct dra_pool_index {
    dra_pool *v; /* pools in the order first seen */
    size_t n;
    dra_strmap map; /* "driver\x1fpool" -> position in v (keys owned) */
} dra_pool_index;

/* Add slice number `slice` of the caller's array to its pool; returns the pool. */
dra_pool *dra_pool_index_add(dra_pool_index *x, const char *driver, const char *pool, int64_t generation, size_t slice);
/* The pool, or NULL. */
const dra_pool *dra_pool_index_find(const dra_pool_index *x, const char *driver, const char *pool);
void dra_pool_index_free(dra_pool_index *x);

#endif
