/* matchAttribute / distinctAttribute constraints (constraints.c).
 * Internal to src/common/alloc; types in internal.h. */
#ifndef DRA_ALLOC_CONSTRAINTS_H
#define DRA_ALLOC_CONSTRAINTS_H

#include "internal.h"

const json_t *dra_al_lookup_attribute(const al_device *d, const char *attr);
/* The value of the request's derived attribute `name` on d (evaluated by the
 * search before the constraints see d), or NULL when the request defines no
 * such derived attribute. */
const json_t *dra_al_derived_attribute(const al_req *req, const al_device *d, const char *name);
/* Whether c counts the devices of req (no requests named, or req's own or
 * parent's name among them). */
bool dra_al_constraint_applies(const al_constraint *c, const al_req *req);

/* Whether d under req keeps c satisfied (why, when not NULL, says why not).
 * *fatal (owned by the caller) is set when the run must stop instead: 1.38
 * with DRAListTypeAttributes off meeting a value that is not a scalar. */
bool dra_al_constraint_add(al_run *r, al_constraint *c, const al_req *req, const al_device *d, char *why, size_t whylen,
                           dra_err **fatal);
/* Take back d, which req added last: the search removes devices in the
 * reverse order it added them (DRA_ASSERT checks it). */
void dra_al_constraint_remove(al_run *r, al_constraint *c, const al_req *req, const al_device *d);

#endif
