/* The pools one run sees (pools.c).
 * Internal to src/common/alloc; types in internal.h. */
#ifndef DRA_ALLOC_POOLS_H
#define DRA_ALLOC_POOLS_H

#include "internal.h"

/* Pool gathering.  Sets r->pools (run arena).  Errors are fatal. */
DRA_MUST_USE dra_err *dra_al_gather_pools(al_run *r);

#endif
