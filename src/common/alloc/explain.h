/* Why devices were rejected (explain.c).
 * Internal to src/common/alloc; types in internal.h. */
#ifndef DRA_ALLOC_EXPLAIN_H
#define DRA_ALLOC_EXPLAIN_H

#include "internal.h"

void dra_al_explain_reject(al_run *r, int ci, al_req *req, int lid, dra_reject_reason why, const char *fmt, ...)
    DRA_PRINTF(6, 7);
json_t *dra_al_explain_build(al_run *r);
/* Whether a reason is on record for device lid and request req of claim ci. */
bool dra_al_explain_seen(const al_run *r, int ci, const al_req *req, int lid);
/* The search chose a device (push) or took the last choice back (pop);
 * rejections that depend on choices later taken back are not reported
 * when the search succeeds. */
void dra_al_explain_push(al_run *r);
void dra_al_explain_pop(al_run *r);

#endif
