/* Device taints, DeviceTaintRules and tolerations (taints.c).
 * Internal to src/common/alloc; types in internal.h. */
#ifndef DRA_ALLOC_TAINTS_H
#define DRA_ALLOC_TAINTS_H

#include "internal.h"

bool dra_al_toleration_tolerates(const al_toleration *t, const al_taint *taint);
/* The first untolerated blocking taint, or NULL. */
const al_taint *dra_al_taint_blocks(const al_device *d, const al_req *req);
void dra_al_apply_taint_rules(dra_alloc_world *w, json_t *const *rules, size_t n);
void dra_al_parse_tolerations(dra_arena *a, const json_t *arr, al_toleration **out, size_t *n);

#endif
