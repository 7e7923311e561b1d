/* The structured allocator: upstream's DRA device allocation, offline.
 *
 * Semantics follow the "incubating" allocator of k8s.io/dynamic-resource-
 * allocation (structured/internal/incubating/allocator_incubating.go,
 * pools_incubating.go, constraint.go, consumable_capacity.go), and the
 * "experimental" one for the alpha features only it has (compatibility
 * groups, derived attributes), as described in dra.md §3 and
 * dra-corrections.md A1–A8: the same pools, the same first-fit depth-first
 * search order and therefore the same devices for the same input.  Where
 * those notes and upstream's code of v0.37.2 differ, the code wins: `make
 * upstream-alloctable` runs upstream's own test table through dra-alloc.
 *
 * Two objects:
 *   dra_alloc_world  everything that does not depend on the node: classes,
 *                    slices (with DeviceTaintRules applied), and the allocated
 *                    state built from in-use claims.  Build it once, run many
 *                    allocations against it (one per candidate node), and
 *                    commit successful ones so later runs see them.
 *   dra_alloc_run    one Allocate(node, claims) call.
 *
 * Selectors are evaluated through dra_selector_eval, so the engine does not
 * depend on the CEL engine (cel_eval.c wires in the real one).
 *
 * Ownership: the world borrows every json_t it is given (classes, slices,
 * rules, claims, node) — they must outlive it — and owns everything else;
 * dra_alloc_world_free() releases it.  Results (dra_alloc_result) are owned
 * by the caller and freed with dra_alloc_result_free().  Errors returned are
 * owned by the caller.  Nothing here prints or exits.
 */
#ifndef DRA_ALLOC_ALLOC_H
#define DRA_ALLOC_ALLOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "../model/features.h"
#include "../model/nodesel.h"
#include "../model/packed.h"

/* ---- selector evaluation ------------------------------------------------- */

/* How the engine evaluates CEL selectors.
 *
 * compile: compile one expression (len bytes: a JSON string may hold NUL
 *   bytes, which the compiler refuses as cel-go does); on failure return an error whose msg is the
 *   compiler's text (the engine prefixes "class C: selector #i: CEL compile
 *   error: ").  Each distinct expression is compiled once per world, lazily,
 *   when it is first evaluated (as upstream's cache does).
 * match: evaluate a compiled program on one device.  `device_cache` points to
 *   a per-device slot (initially NULL) where the evaluator may keep a
 *   converted representation of the device between calls; it is released
 *   with free_device_cache.  A runtime error is returned as an error whose msg
 *   is the evaluator's text (the engine prefixes "... on device D/P/X: CEL
 *   runtime error: ").
 * free_prog / free_device_cache: release what compile/match created (either
 *   may be NULL when nothing needs freeing). */
typedef struct dra_selector_eval {
    void *ctx;
    dra_err *(*compile)(void *ctx, const char *expr, size_t len, void **prog);
    dra_err *(*match)(void *ctx, void *prog, const char *driver, const json_t *device, const dra_features *features,
                      void **device_cache, bool *matched);
    void (*free_prog)(void *ctx, void *prog);
    void (*free_device_cache)(void *ctx, void *device_cache);
    /* Derived attributes (KEP-6080); optional (NULL: unsupported).  compile_value
     * compiles an expression yielding a value; derive evaluates it on a device
     * into a DeviceAttribute object ({"int": 1}, {"strings": [...]}, ...) the
     * caller owns.  Programs are freed with free_prog. */
    dra_err *(*compile_value)(void *ctx, const char *expr, size_t len, void **prog);
    dra_err *(*derive)(void *ctx, void *prog, const char *driver, const json_t *device, void **device_cache,
                       json_t **attr);
    /* Optional (NULL: match on the tree): match on a device given as its
     * compact JSON text (len bytes, a packed slice's, model/packed.h
     * dra_packed_next: its facts follow it; the cache borrows it and
     * driver), with match's answers; device_cache is shared with match
     * and derive. */
    dra_err *(*match_text)(void *ctx, void *prog, const char *driver, const char *text, size_t len,
                           const dra_features *features, void **device_cache, bool *matched);
} dra_selector_eval;

/* The real CEL engine (cel_eval.c): the DRA environment for these features.
 * Free with dra_cel_selector_eval_free after every world using it is freed. */
dra_selector_eval dra_cel_selector_eval_new(const dra_features *features);
void dra_cel_selector_eval_free(dra_selector_eval *ev);

/* ---- world ------------------------------------------------------------------ */

typedef struct dra_alloc_world dra_alloc_world;

typedef struct dra_alloc_world_input {
    json_t *const *classes;
    size_t nclasses; /* DeviceClass (v1, defaulted) */
    json_t *const *slices;
    size_t nslices; /* ResourceSlice */
    json_t *const *taint_rules;
    size_t ntaint_rules; /* DeviceTaintRule */
    json_t *const *in_use;
    size_t nin_use;                /* ResourceClaims with status.allocation */
    const dra_features *features;  /* NULL = defaults */
    const dra_selector_eval *eval; /* required */
    /* Optional: more slices, as text (dra_slice_pack), after those in
     * `slices`, in pack order; the text must outlive the world.  The world
     * holds a packed device as a few hundred bytes and parses its JSON again
     * only while a selector or constraint needs it. */
    const dra_slice_packs *packs;
    size_t max_parsed; /* packed devices whose JSON may stay parsed between runs; 0 = 256 */
} dra_alloc_world_input;

/* Build a world.  Errors: duplicate DeviceClass names (input error). */
DRA_MUST_USE dra_err *dra_alloc_world_new(const dra_alloc_world_input *in, dra_alloc_world **out);
/* Record one more in-use claim (status.allocation set; borrowed for the
 * call) in w as dra_alloc_world_new records `in_use`, for a caller that
 * makes its claims one at a time: claims added in input order after the
 * world is built leave it as having them in `in_use` would.  Errors: a
 * negative consumed capacity, as there (the claim is then not added). */
DRA_MUST_USE dra_err *dra_alloc_world_add_in_use(dra_alloc_world *w, const json_t *claim);
/* From now on the in-use claims recorded in w (dra_alloc_world_add_in_use,
 * dra_alloc_commit_for) are not named as their devices' holders, for a
 * caller whose runs never explain: --explain would say "allocated by an
 * in-use claim" instead of naming it.  Spares a string and a record per
 * allocated device (56 MB at 500,000 of them). */
void dra_alloc_world_unnamed(dra_alloc_world *w);
void dra_alloc_world_free(dra_alloc_world *w);

/* Questions a pod scheduler asks before running the allocator on a node
 * (query.c).  The allocator itself knows nothing of pods. */
bool dra_alloc_world_has_class(const dra_alloc_world *w, const char *name);
/* Upper bound on the devices a run on node_name could still hand out to
 * non-admin requests: free node-local IDs plus every free ID published
 * outside node-local slices.  Cheap (a map lookup). */
int64_t dra_alloc_free_bound(const dra_alloc_world *w, const char *node_name);
/* Whether a pool published outside node-local slices (shared), or one of
 * the node's own, may be invalid (duplicate device names, counter sets,
 * several slices): a node seeing one must not be cut by the bound, so that
 * "invalid resource pools were encountered" is reported as upstream does. */
bool dra_alloc_shared_pools_risky(const dra_alloc_world *w);
bool dra_alloc_node_pools_risky(const dra_alloc_world *w, const char *node_name);

/* ---- explain trace ----------------------------------------------------------- */

/* Why a device was not taken for a request (first reason seen per device). */
typedef enum {
    DRA_REJECT_IN_USE,            /* allocated by an in-use claim or earlier in this attempt */
    DRA_REJECT_BINDING_DISABLED,  /* has bindingConditions, feature off */
    DRA_REJECT_CLASS_SELECTOR,    /* class selector #i false */
    DRA_REJECT_REQUEST_SELECTOR,  /* request selector #i false */
    DRA_REJECT_NODE_MISMATCH,     /* per-device node selection does not match */
    DRA_REJECT_NODE_FEATURE,      /* skipNodeOperations: gate off or the node does not declare the feature */
    DRA_REJECT_CAPACITY,          /* consumable capacity missing, policy or left */
    DRA_REJECT_COUNTERS_DISABLED, /* consumes counters, partitionable off */
    DRA_REJECT_COUNTERS,          /* shared counters exhausted */
    DRA_REJECT_TAINT,             /* taint not tolerated */
    DRA_REJECT_CONSTRAINT,        /* matchAttribute/distinctAttribute conflict */
    DRA_REJECT_CEL_ERROR,         /* selector raised an error (fatal) */
} dra_reject_reason;

const char *dra_reject_reason_name(dra_reject_reason r); /* "in-use", "class-selector", ... */

/* ---- one allocation -------------------------------------------------------------- */

typedef struct dra_alloc_opts {
    double timeout; /* seconds; <= 0 means none */
    bool explain;   /* record the trace (see dra_alloc_explain_*) */
    bool no_prune;  /* disable the bounded-search pruning (for comparisons) */
} dra_alloc_opts;

typedef struct dra_alloc_stats {
    int64_t invocations;   /* allocateOne calls, as upstream counts them */
    int64_t devices_tried; /* candidate devices examined */
    int64_t backtracks;    /* tentative allocations undone */
    int64_t pruned;        /* branches cut by the bounded search */
    double seconds;
} dra_alloc_stats;

typedef struct dra_alloc_result dra_alloc_result;

/* Allocate all `claims` (pending ResourceClaims, one pod's) together on
 * `node` (a Node object; its name and labels matter).  Returns NULL and sets
 * *out on completion: dra_alloc_result_ok() tells whether every claim got
 * devices.  A fatal error (upstream's error return) is returned as an error
 * (DRA_EXIT_INPUT) with upstream's text; *out is then still set when the
 * explain trace was requested, else NULL.  A timeout is a fatal error
 * "timed out trying to allocate devices". */
DRA_MUST_USE dra_err *dra_alloc_run(dra_alloc_world *w, const json_t *node, json_t *const *claims, size_t nclaims,
                                    const dra_alloc_opts *opts, dra_alloc_result **out);

bool dra_alloc_result_ok(const dra_alloc_result *r);
/* When not ok: NULL, or the non-fatal upstream error "invalid resource pools
 * were encountered" (the node-local failure). */
const char *dra_alloc_result_reason(const dra_alloc_result *r);
/* The AllocationResult (status.allocation value) of claim i, a new reference
 * the caller must decref; NULL when not ok. */
json_t *dra_alloc_result_allocation(const dra_alloc_result *r, size_t i);
const dra_alloc_stats *dra_alloc_result_stats(const dra_alloc_result *r);
/* The explain trace as JSON (new reference) / appended as text to a buffer. */
json_t *dra_alloc_explain_json(const dra_alloc_result *r);
struct dra_buf;
void dra_alloc_explain_text(const dra_alloc_result *r, struct dra_buf *b);
/* One sentence for a pod no node could take, from the explain traces of
 * the nodes tried (traces[i], as dra_alloc_explain_json gives, for node
 * names[i]; NULL entries are skipped): what is missing, where, and the
 * nearest fix.  A new string the caller frees; NULL when the traces say
 * nothing (no node tried). */
char *dra_alloc_explain_verdict(const json_t *const *traces, const char *const *names, size_t n);
void dra_alloc_result_free(dra_alloc_result *r);

/* Record claim i's allocation of a successful result in the world, as an
 * in-use claim (later runs see its devices, shared IDs and capacity). */
void dra_alloc_commit(dra_alloc_world *w, const dra_alloc_result *r);
/* The same for claims now reserved for pod `pod` (a name in the claims'
 * namespace; NULL: none), whom --explain then names as the devices'
 * holder: a result of a run without explain records no holder. */
void dra_alloc_commit_for(dra_alloc_world *w, const dra_alloc_result *r, const char *pod);

/* ---- helpers shared with other tools ------------------------------------------ */

/* Deterministic shareID for a multi-allocatable device: an RFC 4122-shaped
 * UUID (version nibble 8, "custom") derived from a hash of the claim
 * (uid, else namespace/name), the request name and the device ID.  out must
 * hold 37 bytes. */
void dra_alloc_share_id(const char *claim_key, const char *request, const char *device_id, char out[37]);

#endif
