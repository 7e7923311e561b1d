/* Private types of the allocator engine (src/common/alloc only).  The
 * functions each file offers the others are declared in that file's header
 * (capacity.h, counters.h, state.h, ...), so the include lines show who uses
 * whom; only world.c's device accessors, which the types go with (dra_al_id,
 * dra_al_device_json, dra_al_device_attrs, dra_al_trim), are declared here.
 *
 * Memory: everything of a world lives in the world's arena (w->arena) except
 * the per-ID state arrays and ID table (heap, grown as IDs are interned), the
 * compiled selector and derived-attribute programs (freed through the
 * evaluator; their keys, copies of the expressions, are in the arena: the
 * claims they came from do not outlive their run), and what packed
 * slices need kept: parsed device trees (w->mat, released by dra_al_trim)
 * and the parts of their trees the world points into (w->keep).  Everything
 * of one run lives in the run's arena.  Other JSON, and the packed text, is
 * borrowed from the caller.
 */
#ifndef DRA_ALLOC_INTERNAL_H
#define DRA_ALLOC_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/hash.h"
#include "../io/json.h"
#include "../model/quantity.h"
#include "alloc.h"

/* The string map is dra_strmap (base/hash.h). */

/* ---- features the allocator cares about ------------------------------------ */

typedef struct al_features {
    bool admin_access, prioritized_list, partitionable, device_taints, taint_rules;
    bool binding_and_status, consumable_capacity, list_attributes;
    bool compatibility_groups;      /* DRADeviceCompatibilityGroups */
    bool optional_node_operations;  /* DRAOptionalNodeOperations: copy skipNodeOperations into results */
    bool derived_attributes;        /* DRADerivedAttributes */
    bool fractional_capacity_range; /* DRAFractionalCapacityRange */
    bool capacity_1_38;             /* 1.38's consumable capacity: names without domain are the
                                     * driver's; a negative request is refused before rounding */
    bool versions_without_build;    /* 1.38: constraints compare versions without build metadata */
    bool list_value_fatal;          /* 1.38: a constraint meeting a value it cannot use (none, or a list
                                     * with DRAListTypeAttributes off) stops the run ("unsupported
                                     * attribute value") */
    bool all_pool_node_failure;     /* 1.38: All over an incomplete or invalid pool fails the node only */
    bool config_all_unnamed;        /* 1.37: a result config covering every request names none */
    bool groups_field;              /* 1.37: consumesCounters[].compatibilityGroups exists (1.36's
                                     * API drops it as an unknown field) */
    unsigned qrules;                /* the release's quantity rules (dra_quantity_rules) for every
                                     * quantity of slices and claims */
} al_features;

/* Whether the scheduler runs the experimental allocator: a feature the
 * incubating one lacks is on (structured/allocator.go NewAllocator,
 * incubating.SupportedFeatures). */
static inline bool al_experimental(const al_features *f)
{
    return f->list_attributes || f->optional_node_operations || f->derived_attributes || f->compatibility_groups;
}

/* ---- slices, devices, counters, capacity -------------------------------------- */

typedef struct al_counter {
    const char *name;
    dra_quantity value;
} al_counter;

typedef struct al_counter_set {
    const char *name;
    al_counter *c;
    size_t n;
    const json_t *groups; /* consumesCounters[].compatibilityGroups: non-empty array, or NULL */
} al_counter_set;

typedef struct al_cap_policy {
    bool has_default, has_range, has_min, has_max, has_step, has_values;
    bool milli; /* DRAFractionalCapacityRange and a fractional min, max or step: milli-unit arithmetic */
    dra_quantity def, min, max, step;
    dra_quantity *values;
    size_t nvalues;
} al_cap_policy;

/* A quantity is ~100 bytes: the policy, rare, is held apart, and devices
 * whose capacity is the same JSON value (shared when read) share one parse. */
typedef struct al_capacity {
    const char *name;
    dra_quantity value;
    const al_cap_policy *policy; /* NULL: no requestPolicy */
} al_capacity;

typedef struct al_taint {
    const char *key, *value, *effect;
    const json_t *json;
    const char *rule; /* DeviceTaintRule name, NULL for a slice taint */
} al_taint;

struct al_slice;

typedef struct al_device {
    const char *name;
    /* The device's JSON: borrowed from the slice, or (packed slices) parsed
     * from `text` on first use by dra_al_device_json and released again by
     * dra_al_trim between runs.  Use the accessors, not these fields. */
    const json_t *tree;
    const char *text; /* packed: compact JSON (borrowed from the packs), else NULL */
    al_capacity *cap;
    al_counter_set *cons; /* consumesCounters: set name + counters */
    struct al_devx *x;    /* what few devices have (read through al_x), NULL when none of it */
    struct al_slice *slice;
    void *eval_cache;
    /* a million devices are held at once: counts and flags packed */
    uint32_t ncap, ncons;
    uint32_t widx; /* index in world->devices (selector memo) */
    int gid;       /* interned device ID */
    int lid;       /* run-local index, valid when run_id matches */
    unsigned run_id;
    bool binds_to_node : 1, allow_multi : 1, has_binding : 1, all_nodes : 1;
    bool materialized : 1; /* tree or CEL form made from text, listed in world->mat */
    uint32_t text_len;     /* packed: strlen(text), measured once at world build */
} al_device;

/* What few devices have: taints, binding conditions, node selection of
 * their own. */
typedef struct al_devx {
    al_taint *taints;
    size_t ntaints;
    const json_t *binding_conditions, *binding_failure_conditions; /* arrays or NULL */
    /* per-device node selection */
    const char *node_name;
    const json_t *node_selector;
} al_devx;

static inline const al_devx *al_x(const al_device *d)
{
    static const al_devx none = {0};
    return d->x ? d->x : &none;
}

typedef struct al_slice {
    struct dra_alloc_world *w;
    const json_t *skip_ops; /* spec.skipNodeOperations when not empty, else NULL */
    const char *name, *driver, *pool;
    const char *pool_key;               /* "driver\x1fpool", world->pools' key (world arena) */
    size_t pool_klen;                   /* strlen(pool_key) */
    struct al_pool_slices *pool_slices; /* the slices of its pool (world->pools[pool_key]) */
    int64_t generation, count;
    const char *node_name;
    bool all_nodes, per_device, per_device_set;
    bool skip_node_ops; /* skip_ops != NULL */
    bool uses_groups;   /* a device declares consumesCounters[].compatibilityGroups */
    const json_t *node_selector;
    al_counter_set *sets; /* sharedCounters */
    size_t nsets;
    al_device *dev;
    size_t ndev;
} al_slice;

/* All slices of one (driver, pool), cluster-wide. */
typedef struct al_pool_slices {
    const char *driver, *pool;
    al_slice **s;
    size_t n, cap;
    int node_idx; /* in world->bynode lists: index into world->node_free */
} al_pool_slices;

typedef struct al_class {
    const char *name;
    const json_t *json;
    const json_t *selectors; /* array or NULL */
    const json_t *config;    /* array or NULL */
} al_class;

/* A compiled expression (cached per world by text). */
typedef struct al_prog al_prog;
struct al_prog {
    void *prog;
    char *error; /* compile error text, NULL when compiled */
    /* Result per world device (index widx): 0 not yet evaluated, 1 false,
     * 2 true.  Devices never change during a world's life, so a selector is
     * evaluated at most once per device however many runs ask; errors are
     * not remembered (they are fatal and re-raised with their text). */
    uint8_t *memo;
};

/* Capacity consumed on one device: one quantity per name. */
typedef struct al_capuse {
    bool present;
    size_t n, cap;
    const char **names;
    dra_quantity *q;
} al_capuse;

/* Per device ID state (index = gid). */
typedef struct al_idstate {
    /* Where the ID is published, for the free-device bound: 0 nowhere,
     * k+1 only in slices with nodeName of node k, -1 elsewhere or on several
     * nodes (counted in world->shared_free). */
    int home;
    bool allocated; /* exclusive use by an in-use claim */
    bool shared;    /* some in-use result carries a shareID */
    /* the ID (borrowed: world strings, or the slices' and claims' JSON) */
    const char *driver, *pool, *device;
    struct al_idextra *x; /* owned, NULL until needed (dra_al_idextra): most IDs never need it */
} al_idstate;

typedef struct al_idextra {
    al_capuse agg; /* aggregated consumed capacity of in-use claims */
    /* Who holds the ID, for --explain: "claim NS/NAME" and, when the claim
     * is reserved, ", reserved for pod NS/POD" (the world's arena; the
     * first in-use claim seen).  NULL: none recorded. */
    const char *holder;
} al_idextra;

struct dra_alloc_world {
    dra_arena arena;
    al_features f;
    dra_features features;
    dra_selector_eval eval;
    dra_strmap classes; /* name -> al_class* */
    al_slice *slices;
    size_t nslices;
    dra_strmap pools; /* "driver\x1fpool" -> al_pool_slices* */
    al_pool_slices **poollist;
    size_t npools;
    uint32_t *idslot; /* device IDs: open addressing, 0 free, else gid + 1 (state.c) */
    size_t nidslot;   /* 0 or a power of two, at most half full */
    al_idstate *st;
    size_t nids, capids;
    dra_strmap progs;            /* selector expression -> al_prog* (keys: the world's copies, in the arena) */
    dra_strmap value_progs;      /* derived attribute expression -> al_prog* (likewise) */
    const json_t *last_cap_json; /* the last device's capacity map and its parse: */
    al_capacity *last_cap;       /* devices whose map is the same (shared) value */
    size_t last_ncap;            /* share it */
    al_device **devices;         /* every device (for freeing eval caches) */
    /* Packed devices whose tree is parsed (dra_al_device_json) or whose CEL
     * form is built from their text (dra_al_match), released with both by
     * dra_al_trim when there are too many. */
    al_device **mat;
    size_t nmat, max_mat;
    json_t *keep;    /* parts of packed devices' trees the world keeps (taints, selectors, groups) */
    dra_strmap strs; /* interned strings of packed devices (keys and values in the arena) */
    dra_strmap caps; /* packed devices: capacity map text -> its parse (world.c) */
    size_t cap_hits; /* devices that found theirs there */
    dra_buf scratch; /* while building */
    size_t ndevices, capdevices;
    dra_strmap bynode;     /* node name -> al_pool_slices* (slices with that nodeName) */
    al_pool_slices shared; /* slices without nodeName */
    unsigned run_seq;
    /* Free-device bound (schedule prefilter): IDs not exclusively allocated,
     * per node for node-local IDs, and for every other published ID. */
    int64_t *node_free;
    size_t nnodes;
    int64_t shared_free;
    bool counts_ready;
    bool unnamed; /* in-use claims are not named as their devices' holders (dra_alloc_world_unnamed) */
};

/* "driver/pool/device" of d for messages, written into b (cut at 383 bytes:
 * an ID of valid names has at most 381). */
typedef struct al_idbuf {
    char s[384];
} al_idbuf;
const char *dra_al_id(const al_device *d, al_idbuf *b);

/* A device's JSON (parsed on first use for a packed device), its attributes
 * (object or NULL).  Valid until the next dra_al_trim. */
const json_t *dra_al_device_json(al_device *d);
const json_t *dra_al_device_attrs(al_device *d);
/* w's selector program prog on d (eval.match, or eval.match_text on a
 * packed device whose tree is not parsed), its CEL form kept in
 * d->eval_cache. */
dra_err *dra_al_match(struct dra_alloc_world *w, void *prog, al_device *d, bool *matched);
/* Release the trees and CEL forms of packed devices when more than a few
 * thousand are held; call only where no device JSON is borrowed (between
 * runs). */
void dra_al_trim(struct dra_alloc_world *w);

/* ---- pools of one run ------------------------------------------------------------- */

typedef struct al_pool {
    const char *driver, *pool;
    bool incomplete, invalid, obsolete_skipped, has_binding;
    char *invalid_reason;
    al_slice **target; /* slices targeting the node, sorted by name (device slices) */
    size_t ntarget;
    al_slice **other; /* same-generation pool-mates not targeting the node */
    size_t nother;
    al_counter_set **sets; /* counter sets (pointers into slices) */
    size_t nsets;
} al_pool;

/* ---- requests and claims ---------------------------------------------------------- */

typedef struct al_toleration {
    const char *key, *op, *value, *effect;
} al_toleration;

typedef struct al_capreq {
    const char *name;
    dra_quantity q;
} al_capreq;

typedef enum { AL_MODE_EXACT, AL_MODE_ALL, AL_MODE_OTHER } al_mode;

/* One derived attribute of a request (KEP-6080). */
typedef struct al_derived {
    const char *name;
    struct al_prog *prog;
} al_derived;

typedef struct al_req {
    const char *name;      /* request or subrequest name */
    const char *full_name; /* "req" or "req/sub" */
    struct al_req *parent; /* the request of a subrequest */
    const json_t *json;    /* exactly / subrequest object (NULL: neither) */
    const char *class_name;
    al_class *class;
    const json_t *selectors;
    al_mode mode;
    const char *mode_str;
    int64_t count;
    bool admin, has_admin;
    al_toleration *tol;
    size_t ntol;
    const json_t *tolerations; /* array or NULL, copied into results */
    bool has_capacity;         /* the capacity object is present */
    bool capacity_1_38;        /* al_features.capacity_1_38 */
    unsigned qrules;           /* al_features.qrules */
    al_capreq *capreq;
    size_t ncapreq;
    struct al_req *subs; /* firstAvailable */
    size_t nsubs;
    int selected_sub;
    /* prepared */
    int ndevices;
    al_device **all; /* All mode list */
    struct al_pool **all_pool;
    size_t nall;
    uint8_t *match;      /* per run-local device: 0 unknown, 1 no, 2 yes */
    al_derived *derived; /* derivedAttributes (gate on) */
    size_t nderived;
    json_t **dvals; /* owned: per run-local device lid, nderived values (set when match is 2) */
} al_req;

typedef struct al_constraint {
    bool match;             /* matchAttribute, else distinctAttribute */
    const char *attr;       /* fully qualified name */
    const json_t *requests; /* array or NULL */
    /* matchAttribute state */
    const json_t *ref; /* reference attribute value */
    int ndevices;
    /* List semantics: one intersection per added device, stacked so that a
     * removal restores the previous one.  Level k (0-based) is
     * ref_set[k ? level_end[k-1] : 0 .. level_end[k]). */
    const json_t **ref_set;
    size_t nref_set, capref_set;
    size_t *level_end;
    size_t caplevels;
    /* distinctAttribute state: the values of the devices added, in order
     * (removals are last-in first-out, as the search backtracks). */
    const json_t **vals;
    size_t nvals, capvals;
} al_constraint;

typedef struct al_result_dev {
    al_req *req;
    al_device *dev;
    struct al_pool *pool;
    bool admin;
    bool has_share;
    char share_id[37];
    al_capuse consumed;    /* only for multi-allocatable devices */
    bool charged_counters; /* this result reserved the device's counters */
} al_result_dev;

typedef struct al_claim {
    const json_t *json;
    const char *ns, *name, *uid;
    char *ref; /* "ns/name" as klog.KObj prints it */
    al_req *reqs;
    size_t nreqs;
    al_constraint *cons;
    size_t ncons;
    al_result_dev *res;
    size_t nres, capres;
    /* The last branch the bounded search cut (for --explain): the request
     * (full name) whose open slots, with every later request's when
     * cut_claim, need cut_need devices where cut_have could serve them.
     * cut_req NULL: none. */
    const char *cut_req;
    bool cut_claim;
    int cut_need, cut_have;
} al_claim;

/* ---- explain --------------------------------------------------------------------- */

typedef struct al_reject {
    int lid;
    dra_reject_reason reason;
    char *detail;
    bool dynamic; /* depends on what the search had chosen (in use, counters, constraint, capacity) */
    unsigned gen; /* the choice that was last when it was recorded (0: none) */
} al_reject;

typedef struct al_req_trace {
    int claim;
    al_req *req;
    al_reject *rej;
    size_t n, cap;
    size_t *seen; /* per run-local device: 1 + index of its record in rej, 0 none */
} al_req_trace;

/* ---- run ----------------------------------------------------------------------------- */

/* Counter bookkeeping per pool ID (see counters.c). */
typedef struct al_cstate_entry {
    const char *set, *counter;
    bool has_avail;
    dra_quantity avail, consumed;
} al_cstate_entry;

/* One device allocated on a counter set, with the compatibility groups it
 * brings there (NULL: none declared). */
typedef struct al_cgroup {
    const char *set;
    const json_t *groups;
    const al_device *dev; /* NULL for an in-use device */
} al_cgroup;

typedef struct al_cstate {
    const char *driver, *pool;
    bool avail_done;
    al_cstate_entry *e;
    size_t n, cap;
    al_cgroup *g;
    size_t ng, capg;
} al_cstate;

typedef struct al_run {
    dra_alloc_world *w;
    dra_arena arena;
    const json_t *node;
    const char *node_name;
    bool optional_node_ops; /* gate on and the node declares DRAOptionalNodeOperations */
    bool node_failure;      /* the error fails this node only (ErrFailedAllocationOnNode) */
    const dra_alloc_opts *opts;
    al_pool *pools;
    size_t npools;
    /* run-local device index: lid -> device, pool */
    al_device **ldev;
    al_pool **lpool;
    size_t nldev;
    unsigned run_id;
    al_claim *claims;
    size_t nclaims;
    /* search state */
    int **allocating; /* per lid: claim indices (set) */
    int *nallocating;
    al_capuse *capuse; /* per lid: in-progress capacity */
    int *nshares;      /* per lid: in-progress shares of a multi-allocatable device */
    al_cstate *cstates;
    size_t ncstates;
    dra_alloc_stats stats;
    struct timespec start;
    bool timed_out;
    /* explain */
    al_req_trace *traces;
    size_t ntraces, captraces;
    unsigned *gens; /* one id per device chosen and not yet taken back, in order */
    size_t ngens, capgens;
    unsigned gen_seq;
    bool succeeded; /* the search found a solution: only its choices count */
} al_run;

/* What dra_alloc_commit needs of one claim's allocation, read once from
 * the run: the claim's names (whom the devices are held by) and the world
 * IDs of its devices, so that a commit reads no allocation back. */
typedef struct al_commit {
    /* NULL when the claim has no name, or when nothing reads them: a run
     * without --explain whose results have no shareID */
    char *ns, *name;
    int *gids; /* its results' devices, admin access left out, in result order */
    size_t ngids;
    bool shares; /* a result has a shareID: the commit reads the allocation */
} al_commit;

struct dra_alloc_result {
    bool ok;
    char *reason;
    json_t **allocs;
    size_t nallocs;
    dra_alloc_stats stats;
    json_t *explain; /* built at the end of a run when requested */
    /* for commit: one per claim */
    al_commit *commit;
    size_t nclaims;
    bool holders; /* the run was explained: its commit records who holds the devices */
};

#endif
