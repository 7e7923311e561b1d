/* The allocation result of one claim (result.c).
 * Internal to src/common/alloc; types in internal.h. */
#ifndef DRA_ALLOC_RESULT_H
#define DRA_ALLOC_RESULT_H

#include "internal.h"

json_t *dra_al_build_allocation(al_run *r, al_claim *c, dra_err **err);

#endif
