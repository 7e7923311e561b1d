/* The load pipeline every tool runs on its input objects.
 *
 * For every object of a read set, in order:
 *   1. kind check (kinds.h): unknown kinds are errors, or skipped with
 *      opts->skip_unknown — except unknown kinds or versions of the
 *      resource.k8s.io group, which are always errors; a missing
 *      apiVersion/kind is always an error;
 *   2. strict decoding (strict.h) as set->field_validation says (and as
 *      the release says with opts->release_fields);
 *      conversion to resource.k8s.io/v1 (convert.h);
 *   3. namespace defaulting for namespaced kinds (opts->default_namespace,
 *      as kubectl fills in the context namespace);
 *   4. defaulting (defaults.h) with the injected opts->now;
 *   5. validation (validate.h) unless opts->no_validate, and the admin
 *      access namespace label when the Namespace is in the input;
 * then every object that passed is indexed by kind and by name.  Two objects
 * of the same kind/namespace/name are an error naming both locations, unless
 * they are identical: then they are one object (counted in `collapsed`).
 *
 * All errors are collected and returned as one chain, each located with
 * dra_obj_locate (file:line, Kind/ns/name, field path).  Objects with errors
 * are left out of the model; the caller decides whether a partial model is
 * usable.
 *
 * Ownership: objects are modified in place and stay owned by the set; the
 * model holds borrowed pointers (valid while the set lives and is not
 * appended to) plus its own index memory, released by dra_model_free().
 */
#ifndef DRA_MODEL_LOAD_H
#define DRA_MODEL_LOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "../base/hash.h"
#include "../io/stream.h"
#include "kinds.h"
#include "validate.h"

typedef struct dra_load_opts {
    bool skip_unknown; /* skip unknown kinds instead of reporting them */
    bool no_validate;  /* convert and default only */
    /* The objects were checked already (a dra_loader as they were read): no
     * strict decoding and no validation, convert, default and index only. */
    bool checked;
    /* Strict decoding as the API server of the features' release does: the
     * fields a newer release added are unknown fields (an error, a warning
     * or dropped, as field validation says).  Off: they are read, and the
     * release's disabled gates drop them as its scheduler never sees them. */
    bool release_fields;
    int64_t now;                   /* Unix seconds used for defaulted timestamps */
    const char *default_namespace; /* for namespaced objects without one; NULL = "default" */
    dra_validate_opts validate;    /* features (NULL = defaults) and CEL hook */
} dra_load_opts;

/* Objects of one kind, in input order. */
typedef struct dra_model_list {
    const dra_obj **v; /* borrowed from the set */
    size_t n, cap;
} dra_model_list;

typedef struct dra_model {
    dra_model_list by_kind[DRA_KIND_COUNT];
    size_t skipped;        /* unknown kinds skipped */
    size_t collapsed;      /* identical duplicates counted once */
    size_t files_repeated; /* input files named twice and read once */
    uint32_t forbidden;    /* kinds (1u << dra_kind) a snapshot in the input could not list (dra_snapshot_forbidden) */
    dra_err *warnings;     /* owned: relaxed unknown/duplicate fields, unchecked admin access */
    dra_strmap index;      /* "<kind>\x1f<ns>\x1f<name>" -> dra_obj * (private; keys owned) */
} dra_model;

#define DRA_MODEL_INIT                                                                                                 \
    {                                                                                                                  \
        0                                                                                                              \
    }

/* Run the pipeline over `set` (opts may be NULL: defaults with now = 0).
 * `out` must be zeroed (DRA_MODEL_INIT) or freed before.  Returns all errors. */
DRA_MUST_USE dra_err *dra_load(dra_objset *set, const dra_load_opts *opts, dra_model *out);
void dra_model_free(dra_model *m);

/* Streaming load, for tools that look at one object at a time (validate):
 * the same pipeline as dra_load, one object at a time as they are read
 * (dra_read_each), holding none of them.  Differences, by necessity:
 *   - duplicates are found by hashes of the key and the content (32 bytes
 *     per named object are kept, not the objects);
 *   - a claim or template asking for admin access whose Namespace comes
 *     later in the input is checked in dra_loader_finish (its error located
 *     at the object's line, not the field's), after the other errors.
 * Ownership: the loader keeps references to Namespaces and held claims
 * only; dra_loader_finish frees it. */
typedef struct dra_loader dra_loader;
dra_loader *dra_loader_new(const dra_load_opts *opts, dra_field_validation fv);
/* Steps 1-5 and the duplicate check on o (changed in place): its errors,
 * located.  *passed when it is a valid object of *kind (not skipped, no
 * errors, not an identical repeat). */
DRA_MUST_USE dra_err *dra_loader_add(dra_loader *l, dra_obj *o, dra_kind *kind, bool *passed);
/* The held checks' errors; adds the counts (skipped, collapsed) and the
 * warnings to stats (a model used for its counts only).  Frees l. */
DRA_MUST_USE dra_err *dra_loader_finish(dra_loader *l, dra_model *stats);
/* The end of a streaming read through l, errors as a whole read gives them:
 * the reading error alone when there is one (obj_errs then freed), else the
 * objects' errors (obj_errs, owned) then the held checks'.  Finishes l into
 * stats as dra_loader_finish does. */
DRA_MUST_USE dra_err *dra_loader_end(dra_loader *l, dra_err *read_err, dra_err *obj_errs, dra_model *stats);

/* Index o (already checked and converted, e.g. by a dra_loader, and kept
 * where it will not move) as dra_load would; a second object of the same
 * name is left out (the loader reported or collapsed it). */
void dra_model_add(dra_model *m, const dra_obj *o, dra_kind kind);

/* Lookups; NULL when absent.  ns is ignored for cluster-scoped kinds. */
const dra_obj *dra_model_find(const dra_model *m, dra_kind kind, const char *ns, const char *name);
const dra_obj *dra_model_class(const dra_model *m, const char *name);
const dra_obj *dra_model_claim(const dra_model *m, const char *ns, const char *name);
const dra_obj *dra_model_claim_template(const dra_model *m, const char *ns, const char *name);
const dra_obj *dra_model_node(const dra_model *m, const char *name);
const dra_obj *dra_model_slice(const dra_model *m, const char *name);
const dra_obj *dra_model_pod(const dra_model *m, const char *ns, const char *name);

/* Convenience: the list of one kind. */
static inline const dra_model_list *dra_model_kind(const dra_model *m, dra_kind k)
{
    return &m->by_kind[k];
}

#endif
