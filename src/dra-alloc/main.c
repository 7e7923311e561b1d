/* dra-alloc: allocate devices to ResourceClaims as the scheduler's
 * structured allocator does.  Input objects -> model layer (convert,
 * default, validate) -> allocator engine (src/common/alloc) -> claims with
 * status.allocation on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/node.h"
#include "base/buf.h"
#include "model/kinds.h"
#include "model/time.h"
#include "sched/report.h"
#include "tool/progress.h"
#include "tool/tool.h"
#include "alloc_tool.h"
#include "classic.h"

/* The entries both commands share, with the same meaning. */
#define HEAD_ENTRIES DRA_OPT_FEATURE_GATES_ENTRY, DRA_OPT_EXPLAIN_ENTRIES, DRA_OPT_OUTPUT_ENTRY("yaml json jsonl")
/* clang-format off */
#define TAIL_ENTRIES                                                                                                   \
    {OPT_NO_VALIDATE, "no-validate", 0, DRA_ARG_NONE, NULL, "skip API validation of the input (allocator checks only)", \
     NULL},                                                                                                            \
    {OPT_NO_PRUNE, "no-prune", 0, DRA_ARG_NONE, NULL, "search exhaustively like upstream (no bounded-search cuts)",   \
     NULL},                                                                                                            \
    DRA_OPT_NOW_ENTRY, DRA_OPT_INPUT_ENTRIES, DRA_OPT_END

static const dra_opt alloc_opts[] = {
    DRA_OPT_NODE_ENTRY("allocate for this node (required; its Node object supplies the labels)"),
    HEAD_ENTRIES,
    {OPT_TIMEOUT, "timeout", 0, DRA_ARG_REQUIRED, "DURATION", "give up after this long (seconds or 1m30s; default 10s, 0 = never)", NULL},
    TAIL_ENTRIES,
};

static const dra_opt schedule_opts[] = {
    DRA_OPT_FEATURE_GATES_ENTRY, DRA_ALLOC_SCHEDULE_EXPLAIN_ENTRIES, DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"),
    {OPT_TIMEOUT, "timeout", 0, DRA_ARG_REQUIRED, "DURATION", "give up on one node after this long (seconds or 1m30s; default 10s, 0 = never)",
     NULL},
    {OPT_NAME_SUFFIX, "name-suffix", 0, DRA_ARG_REQUIRED, "MODE",
     "names of claims made here: hash (default) or none", "hash none"},
    {OPT_CLASSIC_DRIVER, "classic-driver", 0, DRA_ARG_REQUIRED, "DRIVER=COMMAND",
     "classic DRA: COMMAND plays DRIVER's control-plane controller (repeatable)", NULL},
    {OPT_ORDER, "order", 0, DRA_ARG_REQUIRED, "ORDER",
     "which pending pod goes first: queue (priority, then creation time; default) or input", "queue input"},
    DRA_ALLOC_WHATIF_ENTRIES,
    TAIL_ENTRIES,
};

static const dra_cmd cmds[] = {
    {"allocate", "--node NAME [OPTIONS] [FILES]",
     "allocate every pending ResourceClaim of the input together on one node",
     "Input: Nodes, DeviceClasses, ResourceSlices, DeviceTaintRules and ResourceClaims in any\n"
     "mix of YAML/JSON files (stdin when none).  Claims with status.allocation are in use;\n"
     "the others are pending and are allocated together, all or nothing, as one pod's claims.\n"
     "Output: the pending claims, in input order, with status.allocation filled.\n"
     "Exit: 0 allocated, 1 cannot allocate on this node, 2 input or fatal allocation error.",
     alloc_opts, NULL},
    {"schedule", "[OPTIONS] [FILES]", "place every pending pod on a node as the scheduler's DRA plugin does",
     "Input: a cluster dump (Pods, Nodes, DeviceClasses, ResourceSlices, DeviceTaintRules,\n"
     "ResourceClaims, ResourceClaimTemplates, PriorityClasses).  Pods without spec.nodeName are\n"
     "placed in the scheduling queue's order: higher priority first (spec.priority, else the\n"
     "value of spec.priorityClassName's PriorityClass or the globalDefault one), then earlier\n"
     "creationTimestamp (pods without one last, in input order), then namespace and name;\n"
     "--order input keeps input order.  Claims are made from templates first, in that order,\n"
     "charged to the input's ResourceQuotas (a pod whose claim is over quota stays pending); later pods see\n"
     "earlier allocations; pods already bound keep their devices.\n"
     "Node choice: highest DRA score (firstAvailable preference), then the smallest node name.\n"
     "Output: changed claims (input order, then created), then changed pods (input order).\n"
     "--explain: per pod, its place in the queue and why (priority and its source, creation time);\n"
     "--explain=html: one pod's page, a table of nodes x requests saying why each device was refused.\n"
     "Exit: 0 all placed, 1 some pod fits nowhere (reasons on stderr), 2 input or fatal error.\n"
     "Classic DRA (resource.k8s.io/v1alpha2): with --classic-driver DRIVER=COMMAND, pods using classic\n"
     "claims are placed first through the PodSchedulingContext negotiation, COMMAND answering each\n"
     "question (JSON on stdin and stdout); its failure is a runtime error (exit 3).\n"
     "--what-if: schedule the input as it is and with --drain/--remove-device/--taint/--add applied;\n"
     "report pods that lose their devices, now fit, stop fitting or move, and the claims that change\n"
     "(exit 1 when a pod is hurt).",
     schedule_opts, NULL},
    DRA_ALLOC_CAPACITY_CMD,
    DRA_ALLOC_DIFF_CMD,
    DRA_ALLOC_QUOTA_CMD,
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

const dra_tool dra_alloc_tool = {"dra-alloc", "allocate devices to ResourceClaims as the scheduler's structured allocator does",
                              cmds, "allocate"};

static const dra_optval vals[] = {
    DRA_VAL_STRING(DRA_OPT_NODE, opts, node),
    DRA_VAL_BOOL(DRA_OPT_EXPLAIN, opts, explain),     DRA_VAL_ENUM(DRA_OPT_EXPLAIN, opts, explain_fmt, "format"),
    DRA_VAL_STRING(DRA_OPT_EXPLAIN_FILE, opts, explain_file), DRA_VAL_STRING(OPT_POD, opts, pod),
    DRA_VAL_STRING(DRA_OPT_OUTPUT, opts, output),     DRA_VAL_STRING(OPT_TIMEOUT, opts, timeout),
    DRA_VAL_STRING(OPT_NAME_SUFFIX, opts, name_suffix), DRA_VAL_BOOL(OPT_NO_VALIDATE, opts, no_validate),
    DRA_VAL_BOOL(OPT_NO_PRUNE, opts, no_prune),       DRA_VAL_STRING(DRA_OPT_NOW, opts, now),
    DRA_VAL_STRINGS(OPT_CLASS, opts, classes),        DRA_VAL_STRINGS(OPT_FAIL_BELOW, opts, fail_below),
    DRA_VAL_STRING(OPT_MATCH_ATTRIBUTE, opts, match_attribute), DRA_VAL_ENUM(OPT_BY, opts, by, "grouping"),
    DRA_VAL_STRINGS(OPT_CLASSIC_DRIVER, opts, classic), DRA_VAL_ENUM(OPT_ORDER, opts, order, "order"),
    DRA_ALLOC_WHATIF_VALS, DRA_VAL_END,
};
/* clang-format on */

static dra_err *run_allocate(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    input in;
    x->explain |= x->explain_file != NULL;
    dra_err *e = dra_alloc_load_input(a, x, false, &in);
    if (!e && !x->node)
        e = dra_err_new(DRA_EXIT_INPUT, "--node is required");
    else if (!e && !*x->node)
        e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value: a node name"), "--node");
    if (!e) /* the slices held as text: a large dump costs about its text */
        e = dra_alloc_read_packed(a, x, 0, DRA_ALLOC_WORLD_KINDS, &in);
    if (e) {
        dra_alloc_input_free(&in);
        return e;
    }
    dra_alloc_opts ao = {.timeout = in.timeout, .explain = x->explain, .no_prune = x->no_prune};
    dra_alloc_node_run r;
    e = dra_alloc_node(&in.model, &in.packs, x->node, &in.features, &ao, &r);
    dra_tool_notes(&dra_alloc_tool, a, r.warnings, NULL);
    dra_err *we = NULL; /* the explanation's write: after the verdict, whose exit code it keeps */
    if (x->explain && (r.res || x->explain_file)) { /* a file is written even empty: never a stale one */
        dra_buf b = DRA_BUF_INIT;
        if (r.res)
            dra_alloc_explain_render(r.res, e, x->explain_fmt == 1, &b);
        we = dra_tool_explain_write(x->explain_file, &b);
        dra_buf_free(&b);
    }
    if (!e && r.res && !dra_alloc_result_ok(r.res)) {
        const char *why = dra_alloc_result_reason(r.res);
        fprintf(stderr, "dra-alloc: %s\n", why ? why : "cannot allocate all claims");
        *rc = DRA_EXIT_NEGATIVE;
    } else if (!e && !we && r.res) { /* an error exit prints no objects */
        json_t **claims = dra_xcalloc(r.npending, sizeof *claims);
        for (size_t i = 0; i < r.npending; i++)
            claims[i] = dra_alloc_node_claim(&r, i);
        e = dra_write(stdout, claims, r.npending, in.fmt);
        for (size_t i = 0; i < r.npending; i++)
            json_decref(claims[i]);
        free(claims);
    }
    e = dra_err_append(e, we);
    dra_alloc_node_run_free(&r);
    dra_alloc_input_free(&in);
    return e;
}

static dra_err *run_schedule(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    input in;
    x->explain |= x->explain_file != NULL;
    if (x->what_if)
        return dra_alloc_run_whatif(a, p, rc);
    dra_sched_opts so = {
        .timeout = 10, .name_suffix = DRA_NAME_SUFFIX_HASH, .progress = dra_progress_step, .progress_ud = a->progress};
    dra_progress_begin(a->progress);
    dra_err *e = dra_alloc_load_input(a, x, false, &in);
    if (!e)
        e = dra_alloc_whatif_check(x);
    if (!e)
        e = dra_alloc_explain_html_check(x);
    if (!e && x->name_suffix) {
        e = dra_name_suffix_parse(x->name_suffix, &so.name_suffix);
        if (!e && so.name_suffix == DRA_NAME_SUFFIX_RANDOM)
            e = dra_err_new(DRA_EXIT_INPUT,
                            "--name-suffix: random is not possible here: claims need names to be reserved");
    }
    /* a manifest is not a dump: the pods controllers would make, named as the
     * API server would; the devices held as text (the classic pass rewrites
     * the input, so it reads it whole) */
    dra_tool_uses all = {.kinds = DRA_TOOL_ALL_KINDS, .other = dra_alloc_sched_other};
    if (!e && x->classic.n)
        e = dra_alloc_read_input(a, x, DRA_READ_WORKLOADS | DRA_READ_IDENTITY | DRA_READ_IN_ORDER, &all, &in);
    else if (!e)
        e = dra_alloc_read_sched(a, x, &in);
    so.packs = &in.packs;
    so.in_place = so.text_results = !x->classic.n; /* only the result is written */
    so.timeout = in.timeout;
    so.now = in.now;
    so.features = &in.features;
    so.explain = x->explain;
    so.no_prune = x->no_prune;
    so.order = (dra_sched_order)x->order;
    dra_sched_nodes nodes = {0};
    dra_sched_result res = {0};
    classic_pass cp = {0};
    dra_quota_ledger *ledger = NULL;
    if (!e) {
        dra_sched_nodes_from_model(&in.model, &in.packs, &nodes);
        if (nodes.made && dra_model_kind(&in.model, DRA_KIND_POD)->n + in.cluster.recs.npods)
            fprintf(stderr,
                    "dra-alloc: warning: no Node objects in the input; using the %zu node names of the ResourceSlices "
                    "(no labels)\n",
                    nodes.n);
        const dra_cluster *c = &in.cluster;
        e = dra_alloc_index(&in);
        if (!e)
            e = classic_run(&x->classic, &c, nodes.v, nodes.n, in.now, &in.features, &cp, rc);
        if (!e)
            e = dra_quota_admission(c, &in.features, &so, &ledger);
        if (!e)
            e = dra_schedule(c, nodes.v, nodes.n, &so, &res);
    }
    dra_alloc_quota_admission_done(a, ledger, NULL);
    if (!e) /* capped as every tool caps a flood: ten of a kind, a hundred in all */
        dra_tool_print_errs(stderr, dra_alloc_tool.prog, "warning", res.warnings);
    if (!e) {
        /* with --explain-file, stderr keeps the pods' verdicts; a page on stderr tells its pod's */
        bool html = x->explain && x->explain_fmt == DRA_ALLOC_EXPLAIN_HTML;
        dra_buf b = DRA_BUF_INIT;
        dra_sched_report_pods(&res, "dra-alloc", x->explain && !x->explain_file && !html, x->explain_fmt == 1, &b, rc);
        if (html && !x->explain_file)
            dra_buf_reset(&b);
        dra_alloc_print_err(&b);
        if (html)
            e = dra_alloc_explain_html(x, &res);
        else if (x->explain_file) {
            dra_sched_report_pods(&res, "dra-alloc", true, x->explain_fmt == 1, &b, rc);
            e = dra_tool_explain_write(x->explain_file, &b);
            dra_buf_free(&b);
        }
    }
    if (!e && getenv("DRA_ALLOC_STATS")) {
        dra_buf b = DRA_BUF_INIT;
        dra_buf_puts(&b, "dra-alloc: stats: ");
        dra_sched_stats_format(&res.stats, &b);
        dra_buf_puts(&b, "\n");
        dra_alloc_print_err(&b);
    }
    if (!e && *rc != DRA_EXIT_INPUT) /* an error exit prints no objects: half an answer looks like one */
        e = classic_write(stdout, &cp, &res, in.fmt);
    classic_pass_free(&cp);
    dra_sched_result_free(&res);
    dra_sched_nodes_free(&nodes);
    dra_alloc_input_free(&in);
    return e;
}

static const dra_runner runners[] = {{"allocate", run_allocate},           {"schedule", run_schedule},
                                     {"capacity", dra_alloc_run_capacity}, {"diff", dra_alloc_run_diff},
                                     {"quota", dra_alloc_run_quota},       {NULL, NULL}};

int main(int argc, char **argv)
{
    opts o = {0};
    return dra_tool_main(&dra_alloc_tool, runners, vals, argc, argv, &o);
}
