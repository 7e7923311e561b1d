/* Fleet capacity: how much of each DeviceClass is left, where, and how
 * fragmented it is (`dra-alloc capacity`).
 *
 * Devices are those of the newest generation of every pool (alloc/walk.h),
 * matched by the class's selectors with the allocator's own CEL cache; DeviceTaintRules are
 * applied as the allocator applies them.  Per device of a class:
 *   allocated  exclusively allocated by an in-use claim (status.allocation)
 *   shared     multi-allocatable and in use through shares (consumed capacity)
 *   tainted    a NoSchedule or NoExecute taint (slice or DeviceTaintRule;
 *              DRADeviceTaints on)
 *   unhealthy  a claim's status.devices reports condition Ready False for it
 *   blocked    not in use, but its shared counters no longer fit
 *   unusable   of a pool the allocator takes nothing from: incomplete at its
 *              newest generation, or invalid (duplicate device or counter
 *              set names, a missing counter set or counter), as GatherPools
 *              and buildPool decide
 *              (pools_experimental.go); each such pool is listed with why
 *   free       none of allocated, tainted, unhealthy, blocked, unusable, and (for a
 *              multi-allocatable device) capacity left in every dimension
 * The categories overlap (a tainted device may be allocated); free excludes
 * all of them.  Fragmentation, "largestFit": the largest N such that one
 * claim asking `exactly: {deviceClassName: C, count: N}` (with
 * matchAttribute when asked) is allocated on one node by the real allocator
 * (dra_alloc_run): nodes are tried in order of their free-device bound and
 * the search stops as soon as no remaining node could do better.
 *
 * Ownership: the report (json_t) belongs to the caller (json_decref), and so
 * do the returned errors and warnings.  The model and nodes are borrowed.
 * Nothing here prints or exits.
 */
#ifndef DRA_INSIGHT_CAPACITY_H
#define DRA_INSIGHT_CAPACITY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../base/error.h"
#include "../model/compact.h"
#include "../model/features.h"
#include "../model/load.h"
#include "../model/packed.h"

/* ResourceClaims kept as their compact JSON text alone, out of memory
 * (model/compact.h: a dra_compact keeping objects whole, without records),
 * in input order: what capacity reads of a fleet's claims.  Zeroed is
 * empty; dra_fleet_claims_free releases it. */
typedef struct dra_fleet_claims {
    dra_compact texts;
    dra_rec_whole **v; /* in texts */
    size_t n;
} dra_fleet_claims;

/* Keep claim (borrowed; a checked v1 ResourceClaim) as its text. */
void dra_fleet_claims_keep(dra_fleet_claims *c, const json_t *claim);
void dra_fleet_claims_free(dra_fleet_claims *c);

/* NODE_AND_POOL: both groupings of one pass (the rows of NODE and POOL, the
 * largest fit of NODE), for a page that shows every view. */
typedef enum { DRA_FLEET_BY_CLASS, DRA_FLEET_BY_NODE, DRA_FLEET_BY_POOL, DRA_FLEET_BY_NODE_AND_POOL } dra_fleet_by;

typedef struct dra_fleet_opts {
    const char *const *classes; /* report only these (input errors for unknown names); NULL/0 = every class */
    size_t nclasses;
    dra_fleet_by by;              /* NODE: per-node rows and largest fit; POOL: per-pool rows, counters, capacity */
    const char *match_attribute;  /* fragmentation probe adds matchAttribute on this attribute; NULL = none */
    const dra_features *features; /* NULL = defaults */
    double timeout;               /* per allocator run, seconds; <= 0 none */
    /* NULL: the model's claims; else these claims, kept as their texts
     * alone, and the model's claims are not read: each is made again from
     * its text and dropped once counted, but those with status.devices
     * (until the report is made) */
    const struct dra_fleet_claims *claims;
    /* NULL, or more ResourceSlices as text (model/packed.h), after the
     * model's, as the allocator takes them (alloc/alloc.h) */
    const dra_slice_packs *packs;
} dra_fleet_opts;

/* The report:
 *   {"classes": [{"name", "total", "allocated", "shared", "tainted", "unhealthy", "blocked", "unusable", "free",
 *                 "largestFit": {"devices": N, "node": NAME|null},
 *                 "unusablePools": [{"driver", "pool", "reason", "devices"}],
 *                 "partitions": [{"shape", "devices", "fit", "counterSets"}],
 *                 "nodes": [...]  (by node: {"name", counts..., "largestFit"}),
 *                 "pools": [...]  (by pool: {"driver", "pool", "node", counts..., "unusableReason" (when so),
 * "counterSets":
 *                                   [{"name", "counters": {C: {"total", "left"}}}],
 *                                   "consumable": [{"device", "capacity": {C: {"total", "left"}}}]})}]}
 * nodes are Node objects (a fragmentation probe runs on them); devices
 * published for nodes not in the list are still counted.  Errors: unknown
 * --class names, CEL compile errors of class selectors, fatal allocator
 * errors (DRA_EXIT_INPUT).  Warnings: CEL runtime errors (the device counts
 * as not matching), allocator timeouts. */
DRA_MUST_USE dra_err *dra_fleet_capacity(const dra_model *m, json_t *const *nodes, size_t nnodes,
                                         const dra_fleet_opts *o, json_t **report, dra_err **warnings);

/* The report as a table for people (one row per class, node or pool), then
 * per class a line for each unusable pool (ten at most) and one on the
 * partition shapes left.  Write errors are
 * DRA_EXIT_RUNTIME. */
DRA_MUST_USE dra_err *dra_fleet_table(FILE *f, const json_t *report, dra_fleet_by by);

/* The free devices of class `name` in a report, or -1 when it has no such class. */
long long dra_fleet_free(const json_t *report, const char *name);

#endif
