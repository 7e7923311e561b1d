/* One pod's claims on one node from a loaded input, as `dra-alloc allocate`
 * runs it: the input's DeviceClasses, ResourceSlices, DeviceTaintRules and
 * in-use claims make the world; every pending claim is allocated together,
 * all or nothing, on the named node (a Node object of the input, or a
 * bare one with that name and no labels).
 *
 * Ownership: a dra_alloc_node_run borrows the model (which must outlive it)
 * and owns everything else; dra_alloc_node_run_free() releases it.
 */
#ifndef DRA_ALLOC_NODE_H
#define DRA_ALLOC_NODE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../model/features.h"
#include "../model/load.h"
#include "alloc.h"

typedef struct dra_alloc_node_run {
    json_t **pending; /* the pending claims, input order (borrowed from the model) */
    size_t npending;
    dra_alloc_result *res; /* NULL when nothing was pending (or a fatal error without explain) */
    dra_err *warnings;     /* owned: the node is named by no Node object and no ResourceSlice */
    /* private */
    dra_selector_eval eval;
    dra_alloc_world *world;
    json_t *bare_node;
} dra_alloc_node_run;

/* The allocator's world of a loaded input: its DeviceClasses,
 * ResourceSlices (the model's, then packs' when not NULL), DeviceTaintRules
 * and in-use claims (with status.allocation).  When pending is not NULL it
 * gets the other claims (input order, borrowed from the model; the array is
 * the caller's).  The world borrows the model, packs and eval;
 * dra_alloc_world_free() releases it. */
DRA_MUST_USE dra_err *dra_alloc_world_of_model(const dra_model *m, const dra_slice_packs *packs,
                                               const dra_features *features, dra_selector_eval *eval,
                                               dra_alloc_world **world, json_t ***pending, size_t *npending);
/* The same without the model's claims (none in use, pending not given),
 * for a caller that adds its in-use claims itself, in input order
 * (dra_alloc_world_add_in_use). */
DRA_MUST_USE dra_err *dra_alloc_world_of_fleet(const dra_model *m, const dra_slice_packs *packs,
                                               const dra_features *features, dra_selector_eval *eval,
                                               dra_alloc_world **world);

/* A Node with a name alone (apiVersion v1, no labels), for a node the input
 * names only in slices.  Caller owns it. */
json_t *dra_alloc_bare_node(const char *name);

/* Run.  A fatal allocation error is returned (DRA_EXIT_INPUT); out is set
 * either way and must be freed.  features NULL: defaults; packs as above. */
DRA_MUST_USE dra_err *dra_alloc_node(const dra_model *m, const dra_slice_packs *packs, const char *node_name,
                                     const dra_features *features, const dra_alloc_opts *opts, dra_alloc_node_run *out);
void dra_alloc_node_run_free(dra_alloc_node_run *r);

/* What the allocator reads differently from another component, or that
 * does nothing, one warning each (a list the caller frees): DeviceTaintRules
 * without deviceSelector, which select every device in 1.36
 * (kubernetes#141422) and none from 1.37 on (kubernetes#141648).  f NULL:
 * the default release. */
DRA_MUST_USE dra_err *dra_alloc_input_warnings(const dra_model *m, const dra_features *f);

/* Pending claim i with status.allocation set from a successful run (a new
 * object the caller decrefs). */
json_t *dra_alloc_node_claim(const dra_alloc_node_run *r, size_t i);

/* The explain trace, as text or as one indented JSON object with "outcome"
 * (allocated, unschedulable or error) and the fatal error's text, appended
 * to b.  err is what the run returned. */
void dra_alloc_explain_render(const dra_alloc_result *res, const dra_err *err, bool json, dra_buf *b);

#endif
