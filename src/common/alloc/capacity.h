/* Consumable capacity of devices and requests (capacity.c).
 * Internal to src/common/alloc; types in internal.h. */
#ifndef DRA_ALLOC_CAPACITY_H
#define DRA_ALLOC_CAPACITY_H

#include "internal.h"

bool dra_al_capacity_requests_exist(const al_req *req, const al_device *d);
/* CmpRequestOverCapacity: whether req fits on d with the given consumed
 * state (NULL = none).  When not, *fatal is NULL when the device does not
 * fit (skip it; `why`, when given, says why), or an error the caller owns
 * when an amount cannot be had at all (a request or rounded value past the
 * range arithmetic, a negative amount), which upstream treats as fatal: its
 * text is upstream's ("capacity \"NAME\": ..."), for the caller to prefix. */
bool dra_al_capacity_fits(const al_req *req, const al_device *d, const al_capuse *agg, const al_capuse *inprog,
                          char *why, size_t whylen, dra_err **fatal);
/* Consumed amounts of req on d, one per device capacity (into use). */
void dra_al_capacity_consumed(const al_req *req, const al_device *d, al_capuse *use);
/* qrules: the release's dra_quantity_rules for the sums. */
void dra_al_capuse_add(al_capuse *u, const al_capuse *add, unsigned qrules);
void dra_al_capuse_sub(al_capuse *u, const al_capuse *sub, unsigned qrules);
bool dra_al_capuse_all_zero(const al_capuse *u);
const dra_quantity *dra_al_capuse_get(const al_capuse *u, const char *name);
void dra_al_capuse_set(al_capuse *u, const char *name, const dra_quantity *q);
void dra_al_capuse_free(al_capuse *u);
void dra_al_capuse_copy(al_capuse *dst, const al_capuse *src);
/* qrules: the release's dra_quantity_rules. */
DRA_MUST_USE dra_err *dra_al_parse_capacity(dra_arena *a, const json_t *cap, bool fractional_range, unsigned qrules,
                                            al_capacity **out, size_t *n);

#endif
