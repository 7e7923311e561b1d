/* What the files of dra-alloc share: the option struct every subcommand's
 * values are written into, the tool description, reading the input, and the
 * subcommands kept in their own files (capacity.c, diff.c). */
#ifndef DRA_ALLOC_TOOL_LOCAL_H
#define DRA_ALLOC_TOOL_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "cluster/cluster.h"
#include "io/stream.h"
#include "model/features.h"
#include "model/packed.h"
#include "model/load.h"
#include "tool/tool.h"
#include "insight/capacity.h"
#include "insight/quota.h"
#include "sched/schedule.h"

/* Option ids of every subcommand (one number space for the tool). */
enum {
    OPT_TIMEOUT = DRA_OPT_TOOL_BASE,
    OPT_NO_VALIDATE,
    OPT_NO_PRUNE,
    OPT_NAME_SUFFIX,
    OPT_CLASS,
    OPT_BY,
    OPT_FAIL_BELOW,
    OPT_MATCH_ATTRIBUTE,
    OPT_WHAT_IF,
    OPT_DRAIN,
    OPT_REMOVE_DEVICE,
    OPT_TAINT,
    OPT_ADD,
    OPT_CLASSIC_DRIVER,
    OPT_ORDER,
    OPT_POD,
};

/* Every option's value, written by main.c's value table. */
typedef struct opts {
    const char *node, *output, *timeout, *name_suffix, *now;
    bool explain, no_validate, no_prune;
    int explain_fmt;          /* 0 text, 1 json, 2 html (DRA_ALLOC_EXPLAIN_HTML; schedule only) */
    const char *pod;          /* schedule --pod: the pod --explain=html explains */
    const char *explain_file; /* --explain-file: the explanation there, not on stderr */
    /* capacity */
    dra_strv classes, fail_below;
    const char *match_attribute;
    int by; /* 0 class, 1 node, 2 pool */
    /* schedule --what-if */
    bool what_if;
    dra_strv drain, remove_device, taint, add;
    /* schedule: classic DRA drivers' controllers, DRIVER=COMMAND */
    dra_strv classic;
    /* schedule: 0 the scheduling queue's order, 1 input order (dra_sched_order) */
    int order;
} opts;

extern const dra_tool dra_alloc_tool;

/* Gates, output format (tables too when table is non-NULL), timeout and now,
 * then the input read and loaded (converted, defaulted, validated unless told not). */
typedef struct input {
    dra_features features;
    dra_format fmt;
    bool table;     /* -o table (or no -o) where the command offers tables */
    double timeout; /* seconds */
    int64_t now;    /* Unix seconds: --now, or the clock */
    dra_objset set;
    dra_model model;
    dra_slice_packs packs; /* dra_alloc_read_packed: the ResourceSlices (not in set or model) */
    dra_cluster cluster;   /* dra_alloc_index: set with its model (moved in: model is then empty) */
    /* dra_alloc_read_packed: Pods on a node (but a PodGroup's) and the
     * ResourceClaims no pending Pod needs are held in cluster as records
     * (dra_cluster_take_pod, _take_claim), not in set or model: a scheduler
     * places none of them */
    bool take_records;
} input;

DRA_MUST_USE dra_err *dra_alloc_load_input(const dra_args *a, const opts *x, bool tables, input *in);
/* The input read and loaded, keeping in in->set and in->model only the
 * objects of the kinds the command reads (dra_tool_load: the others are
 * counted as skipped and dropped while reading). */
DRA_MUST_USE dra_err *dra_alloc_read_input(const dra_args *a, const opts *x, int flags, const dra_tool_uses *uses,
                                           input *in);
/* The same over the given paths instead of the positional arguments. */
DRA_MUST_USE dra_err *dra_alloc_read_paths(const dra_args *a, const opts *x, char *const *paths, size_t n, int flags,
                                           const dra_tool_uses *uses, input *in);
/* dra_alloc_read_input for a run that needs the whole fleet but only the
 * allocator's view of its devices (allocate, schedule): objects of the
 * given kinds (1u << dra_kind) are kept, in the order of a whole read
 * (DRA_READ_IN_ORDER), and each ResourceSlice in in->packs as compact text
 * alone (not in in->set or in->model), so a fleet costs about the size of
 * its text. */
/* A PriorityClass (the queue) or a ResourceQuota (quota admission). */
bool dra_alloc_sched_other(const json_t *obj);
DRA_MUST_USE dra_err *dra_alloc_read_packed(const dra_args *a, const opts *x, int flags, uint32_t kinds, input *in);
/* What schedule reads: dra_alloc_read_packed of every kind, workloads made
 * pods with their names (DRA_READ_WORKLOADS, DRA_READ_IDENTITY), and
 * take_records. */
DRA_MUST_USE dra_err *dra_alloc_read_sched(const dra_args *a, const opts *x, input *in);
/* Every kind, with take_records, the slices held as text when packed
 * (dra_alloc_read_packed) or as objects (PriorityClasses and
 * ResourceQuotas kept either way): what schedule --what-if reads. */
DRA_MUST_USE dra_err *dra_alloc_read_records(const dra_args *a, const opts *x, int flags, bool packed, input *in);
/* The kinds allocate and capacity read: what the allocator builds its world from. */
/* clang-format off */
#define DRA_ALLOC_WORLD_KINDS                                                                                          \
    ((1u << DRA_KIND_DEVICE_CLASS) | (1u << DRA_KIND_RESOURCE_SLICE) | (1u << DRA_KIND_DEVICE_TAINT_RULE) |           \
     (1u << DRA_KIND_RESOURCE_CLAIM) | (1u << DRA_KIND_NODE))
/* clang-format on */
/* Index in->set and in->model, once read, as in->cluster, the engines' way
 * in (dra_cluster_adopt): in->model moves into in->cluster.model. */
DRA_MUST_USE dra_err *dra_alloc_index(input *in);
/* Load in->set (already read) into in->model, as dra_alloc_read_input does. */
DRA_MUST_USE dra_err *dra_alloc_load_set(const dra_args *a, const opts *x, input *in);
void dra_alloc_input_free(input *in);
/* Print b to stderr and free it. */
void dra_alloc_print_err(dra_buf *b);
/* A report object on stdout: with -o jsonl the elements of its array `key`,
 * one per line; otherwise the object itself. */
DRA_MUST_USE dra_err *dra_alloc_write_report(const json_t *rep, const char *key, dra_format fmt);

/* The last option entries of the report subcommands (diff, quota). */
#define DRA_ALLOC_REPORT_OPT_ENTRIES                                                                                   \
    DRA_OPT_FEATURE_GATES_ENTRY,                                                                                       \
        {OPT_NO_VALIDATE, "no-validate", 0, DRA_ARG_NONE, NULL, "skip API validation of the input", NULL},             \
        DRA_OPT_NOW_ENTRY, DRA_OPT_INPUT_ENTRIES, DRA_OPT_END

/* capacity.c */
extern const dra_opt dra_alloc_capacity_opts[];
/* clang-format off */
#define DRA_ALLOC_CAPACITY_CMD                                                                                         \
    {"capacity", "capacity [--class NAME]... [--by class|node|pool] [--fail-below CLASS=N]... [OPTIONS] [FILES]",        \
     "how much of each DeviceClass is left, where, and how fragmented",                                               \
     "Input: a cluster dump (DeviceClasses, ResourceSlices, DeviceTaintRules, ResourceClaims, Nodes).\n"              \
     "Per class: devices its selectors match (newest pool generations), allocated, shared\n"                          \
     "(multi-allocatable, in use through shares), tainted (NoSchedule/NoExecute), unhealthy (a\n"                     \
     "claim's status.devices says Ready False), blocked (shared counters exhausted), unusable (in\n"                 \
     "a pool the allocator skips: incomplete or invalid, named with why), free; the\n"                                \
     "partition shapes that still fit; LARGEST-FIT: the most devices of the class one claim\n"                        \
     "still gets on one node, found by the allocator itself.  --by node|pool adds rows per node\n"                    \
     "(largest fit each) or per pool (counters and consumable capacity left, why a pool is\n"                        \
     "unusable).  With ResourceQuotas in the input, then their DRA use per namespace (quotas in\n"                   \
     "-o json).\n"                                                                                                   \
     "-o html: one self-contained page: the class rows, a heat map of devices per node (free, used,\n"              \
     "tainted), counter bars per pool, fragmentation per class (the figures of -o json, --by node and pool).\n"    \
     "Exit: 0, 1 when a --fail-below class has fewer free devices, 2 input error.",                                   \
     dra_alloc_capacity_opts, "file"}
/* clang-format on */
dra_err *dra_alloc_run_capacity(const dra_args *a, void *p, int *rc);

/* whatif.c: schedule --what-if */
/* clang-format off */
#define DRA_ALLOC_WHATIF_ENTRIES                                                                                       \
    {OPT_WHAT_IF, "what-if", 0, DRA_ARG_NONE, NULL, "report what the changes below would do instead of scheduling", NULL}, \
    {OPT_DRAIN, "drain", 0, DRA_ARG_REQUIRED, "NODE", "what-if: the node takes no pods; its pods lose their devices", NULL}, \
    {OPT_REMOVE_DEVICE, "remove-device", 0, DRA_ARG_REQUIRED, "DRIVER/POOL/DEVICE", "what-if: the device is gone", NULL}, \
    {OPT_TAINT, "taint", 0, DRA_ARG_REQUIRED, "SELECTOR:KEY=VALUE:EFFECT",                                              \
     "what-if: a DeviceTaintRule dry run (SELECTOR: DRIVER[/POOL[/DEVICE]])", NULL},                                  \
    {OPT_ADD, "add", 0, DRA_ARG_REQUIRED, "FILE", "what-if: more input (new slices, pods)", "file"}
/* clang-format on */
#define DRA_ALLOC_WHATIF_VALS                                                                                          \
    DRA_VAL_BOOL(OPT_WHAT_IF, opts, what_if), DRA_VAL_STRINGS(OPT_DRAIN, opts, drain),                                 \
        DRA_VAL_STRINGS(OPT_REMOVE_DEVICE, opts, remove_device), DRA_VAL_STRINGS(OPT_TAINT, opts, taint),              \
        DRA_VAL_STRINGS(OPT_ADD, opts, add)
/* Set when a what-if option is given without --what-if (and the error to return). */
DRA_MUST_USE dra_err *dra_alloc_whatif_check(const opts *x);
dra_err *dra_alloc_run_whatif(const dra_args *a, void *p, int *rc);

/* explain_html.c: schedule --explain=html, --pod */
#define DRA_ALLOC_EXPLAIN_HTML 2
/* clang-format off */
#define DRA_ALLOC_SCHEDULE_EXPLAIN_ENTRIES                                                                             \
    {DRA_OPT_EXPLAIN, "explain", 0, DRA_ARG_OPTIONAL, "text|json|html",                                                 \
     "explain the decisions on stderr (html: one pod's page, see --pod)", "text json html"},                          \
        DRA_OPT_EXPLAIN_FILE_ENTRY,                                                                                    \
        {OPT_POD, "pod", 0, DRA_ARG_REQUIRED, "NS/NAME",                                                               \
         "the pod --explain=html explains (default: the first unschedulable one)", NULL}
/* clang-format on */
/* Set when --pod is given without --explain=html (and the error to return). */
DRA_MUST_USE dra_err *dra_alloc_explain_html_check(const opts *x);
/* The page of --pod's pod (else the first unschedulable one) to
 * --explain-file, else stderr; no such pod is an input error. */
DRA_MUST_USE dra_err *dra_alloc_explain_html(const opts *x, const dra_sched_result *res);

/* quota.c */
/* -v: what the ledger did (of dra_quota_admission), each line led by run (NULL: nothing; what-if
 * names its two runs); then frees it (NULL: nothing). */
void dra_alloc_quota_admission_done(const dra_args *a, dra_quota_ledger *l, const char *run);
/* What quota and capacity keep of their input's claims and pods besides
 * the model (zeroed is empty; dra_alloc_kept_free releases it). */
typedef struct dra_alloc_kept {
    dra_fleet_claims claims; /* every claim's text, in input order */
    dra_fleet_claims pods;   /* every Pod's text (the same store), until read_done */
    dra_obj *at;             /* where each of pods was read (json NULL) */
    char **wanted;           /* "NAMESPACE\x1fNAME" of the pods that claims in the model name */
    size_t nwanted;
    bool fleet;             /* capacity's way with objects of the wrong shape (dra_alloc_kept_take) */
    dra_slice_packs *packs; /* capacity: where its slices go, as text (borrowed) */
} dra_alloc_kept;
/* dra_tool_uses' take and read_done (ctx: a dra_alloc_kept): claims and
 * pods kept as text; only the scheduler's claims for a pod's extended
 * resources (dra_quota_pod_claim) stay in the model too, and once all is
 * read the pods they name are made again into set where they were read. */
bool dra_alloc_kept_take(void *ctx, dra_kind kind, const dra_obj *o);
void dra_alloc_kept_read_done(void *ctx, dra_objset *set);
void dra_alloc_kept_free(dra_alloc_kept *k);
extern const dra_opt dra_alloc_quota_opts[];
/* clang-format off */
#define DRA_ALLOC_QUOTA_CMD                                                                                            \
    {"quota", "quota [OPTIONS] [FILES]", "DRA ResourceQuota use per namespace; claims the API server would refuse",     \
     "Input: ResourceQuotas (v1), ResourceClaims and DeviceClasses.  Claims are charged in input order as\n"           \
     "quota admission charges them at creation: count/resourceclaims.resource.k8s.io, and per request\n"              \
     "<class>.deviceclass.resource.k8s.io/devices (admin-access requests too, as upstream), with the\n"              \
     "DRAExtendedResource gate also requests.deviceclass.resource.kubernetes.io/<class>.  A claim that\n"             \
     "would exceed a quota is refused with the API server's message on stderr and not charged.  Use\n"               \
     "starts from the quota's status.used where it lists a resource, else 0.  -v: each quota applied\n"             \
     "or skipped, each claim charged (in order), not charged or refused.\n"                                         \
     "Exit: 0 every claim fits, 1 some claim is refused, 2 input error.",                                             \
     dra_alloc_quota_opts, "file"}
/* clang-format on */
dra_err *dra_alloc_run_quota(const dra_args *a, void *p, int *rc);

/* diff.c */
extern const dra_opt dra_alloc_diff_opts[];
/* clang-format off */
#define DRA_ALLOC_DIFF_CMD                                                                                             \
    {"diff", "diff [OPTIONS] A B", "what changed between two allocation results or two dumps",                        \
     "A and B: files or directories (- for stdin, once) holding ResourceClaims and Pods, e.g. two\n"                   \
     "outputs of dra-alloc schedule, or dumps before and after a change.  Per claim: devices\n"                       \
     "(allocation results), node (allocation nodeSelector), config and reservations (reservedFor);\n"                \
     "per pod: its node.  Then a summary line.  Claims match by namespace and name.\n"                                \
     "Exit: 0 equal, 1 they differ, 2 input error.",                                                                 \
     dra_alloc_diff_opts, "file"}
/* clang-format on */
dra_err *dra_alloc_run_diff(const dra_args *a, void *p, int *rc);

#endif
