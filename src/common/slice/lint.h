/* Pool-level checks over a set of ResourceSlices (`dra-slice lint`).
 *
 * Slices are grouped into pools by (spec.driver, spec.pool.name).  Per pool,
 * with upstream's words where upstream has them (the allocator's pool
 * gathering in DRA/structured/internal/incubating/pools_incubating.go):
 *   - slices of an older generation than the pool's newest (obsolete);
 *   - completeness: the number of slices at the newest generation against
 *     resourceSliceCount, and slices that disagree on resourceSliceCount;
 *   - "duplicate device name X", "duplicate counter set name X";
 *   - "counter set X not found", "counter X not found in counter set Y";
 *   - a device consuming more of a counter than its set has at all;
 *   - per-slice shape and limits (the model validator), e.g. too many devices;
 *   - warning: devices of one pool with different attribute names;
 *   - warning (1.38, dra_lint_kept): names qualified with the driver's domain.
 * Warnings do not make the report fail.
 *
 * Ownership: the report owns its strings; `file` points into the objset.
 */
#ifndef DRA_SLICE_LINT_H
#define DRA_SLICE_LINT_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/error.h"
#include "../base/hash.h"
#include "../base/problems.h"
#include "../io/stream.h"
#include "../model/features.h"

/* The list of problems (base/problems.h): scope is "driver/pool", object
 * "ResourceSlice/name" (NULL for pool-wide problems, which have no file
 * either); release with dra_problems_free(). */
typedef dra_problem dra_lint_problem;
typedef dra_problems dra_lint_report;
#define DRA_LINT_REPORT_INIT DRA_PROBLEMS_INIT

/* Lint every slice of set.  Unknown fields are problems or warnings (added
 * to set->warnings) as set->field_validation says (strict.h); slices of
 * older versions of resource.k8s.io are converted to v1 in place
 * (convert.h), as the cluster keeps them.
 * Objects of other kinds are skipped (counted in *skipped when not NULL);
 * objects without a kind or apiVersion, and unknown kinds of
 * resource.k8s.io, are input errors (returned, all of them; the report is
 * then empty). */
DRA_MUST_USE dra_err *dra_slice_lint(dra_objset *set, dra_lint_report *out, size_t *skipped);

/* Reading for lint, one object at a time (dra_lint_keep is a dra_obj_fn for
 * dra_read_each): each ResourceSlice is checked (unknown fields, as above),
 * converted to v1 and checked again (its shape and limits) as it is read,
 * then kept with only what lint reads: its devices' attribute values and
 * capacity are dropped (a device keeps the sorted list of its attribute
 * names, shared between devices that have the same).  Objects of other
 * kinds are counted and dropped; so are the ones lint reports (no kind or
 * apiVersion, an unknown kind of the DRA group), their errors located as
 * they are read and added to `errs`, which a caller makes a folding list
 * (dra_errs fold and cap) so that a flood of them costs what is printed and
 * the counts, not an object each.  Then dra_slice_lint_kept answers as
 * dra_slice_lint does on the whole input: no report when there are such
 * errors.  Zero-initialise with set set (and errs, else the errors are
 * kept whole in `own` and returned by dra_slice_lint_kept);
 * dra_lint_kept_free releases all but the set and errs. */
typedef struct dra_lint_kept {
    dra_objset *set; /* the objects kept (borrowed; the caller frees it) */
    dra_errs *errs;  /* where input errors go (borrowed; NULL: own) */
    dra_errs own;
    dra_err **checks; /* per kept object: its slice checks (owned) */
    size_t nchecks, skipped;
    dra_strmap sigs; /* attribute-name lists -> their shared JSON string */
    /* The release and gates slices are validated at (borrowed; NULL: the
     * defaults).  From 1.38 on, names qualified with the slice's driver's
     * own domain are warnings, as 1.38's publishing helper refuses them
     * (slice/build.h dra_slice_unqualified_names), unless qualified_names. */
    const dra_features *features;
    bool qualified_names;
    dra_err **notes; /* per kept object: those warnings (owned) */
} dra_lint_kept;
DRA_MUST_USE dra_err *dra_lint_keep(void *ctx, dra_obj *o);
/* The report, or, when objects were input errors, none: the errors are
 * returned when they went to `own`, else they are in *k->errs (and NULL is
 * returned with the report empty). */
DRA_MUST_USE dra_err *dra_slice_lint_kept(dra_lint_kept *k, dra_lint_report *out, size_t *skipped);
void dra_lint_kept_free(dra_lint_kept *k);

/* Problems that are not warnings: dra_problems_count(r, false). */
/* "pool D/P: ResourceSlice/N: message" or "pool D/P: warning: ..."; caller frees. */
char *dra_lint_format(const dra_lint_problem *p);

#endif
