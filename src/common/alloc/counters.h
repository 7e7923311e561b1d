/* Shared counters of partitionable devices (counters.c).
 * Internal to src/common/alloc; types in internal.h. */
#ifndef DRA_ALLOC_COUNTERS_H
#define DRA_ALLOC_COUNTERS_H

#include "internal.h"

bool dra_al_counters_take(al_run *r, al_pool *pool, al_device *d, char *why, size_t whylen);
void dra_al_counters_release(al_run *r, al_pool *pool, al_device *d);
/* qrules: the release's dra_quantity_rules. */
DRA_MUST_USE dra_err *dra_al_parse_counters(dra_arena *a, const json_t *arr, const char *setkey, unsigned qrules,
                                            al_counter_set **out, size_t *n);

#endif
