/* dra-alloc: allocate devices to ResourceClaims as the scheduler's
 * structured allocator does.  Input objects -> model layer (convert,
 * default, validate) -> allocator engine (src/common/alloc) -> claims with
 * status.allocation on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc/alloc.h"
#include "sched/schedule.h"
#include "base/buf.h"
#include "tool/cli.h"
#include "tool/tool.h"
#include "io/stream.h"
#include "model/features.h"
#include "model/kinds.h"
#include "model/load.h"
#include "model/time.h"
#include "base/sort.h"
#include "model/workloads.h"

enum {
    OPT_TIMEOUT = DRA_OPT_TOOL_BASE,
    OPT_NO_VALIDATE,
    OPT_NO_PRUNE,
    OPT_NAME_SUFFIX,
};

#define FORMATS "yaml json jsonl"

static const dra_opt alloc_opts[] = {
    DRA_OPT_NODE_ENTRY("allocate for this node (required; its Node object supplies the labels)"),
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_EXPLAIN_ENTRY,
    DRA_OPT_OUTPUT_ENTRY(FORMATS),
    {OPT_TIMEOUT, "timeout", 0, DRA_ARG_REQUIRED, "SECONDS", "give up after this long (default 10, 0 = never)", NULL},
    {OPT_NO_VALIDATE, "no-validate", 0, DRA_ARG_NONE, NULL, "skip API validation of the input (allocator checks only)",
     NULL},
    {OPT_NO_PRUNE, "no-prune", 0, DRA_ARG_NONE, NULL, "search exhaustively like upstream (no bounded-search cuts)",
     NULL},
    DRA_OPT_NOW_ENTRY,
    DRA_OPT_INPUT_ENTRIES,
    DRA_OPT_END,
};

static const dra_opt schedule_opts[] = {
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_EXPLAIN_ENTRY,
    DRA_OPT_OUTPUT_ENTRY(FORMATS),
    {OPT_TIMEOUT, "timeout", 0, DRA_ARG_REQUIRED, "SECONDS", "give up on one node after this long (default 10, 0 = never)",
     NULL},
    {OPT_NAME_SUFFIX, "name-suffix", 0, DRA_ARG_REQUIRED, "MODE",
     "names of claims made here: hash (default) or none", "hash none"},
    {OPT_NO_VALIDATE, "no-validate", 0, DRA_ARG_NONE, NULL, "skip API validation of the input (allocator checks only)",
     NULL},
    {OPT_NO_PRUNE, "no-prune", 0, DRA_ARG_NONE, NULL, "search exhaustively like upstream (no bounded-search cuts)",
     NULL},
    DRA_OPT_NOW_ENTRY,
    DRA_OPT_INPUT_ENTRIES,
    DRA_OPT_END,
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
     "ResourceClaims, ResourceClaimTemplates).  Pods without spec.nodeName are placed in input\n"
     "order; claims are made from templates first; later pods see earlier allocations.\n"
     "Node choice: highest DRA score (firstAvailable preference), then the smallest node name.\n"
     "Output: changed claims (input order, then created), then changed pods (input order).\n"
     "Exit: 0 all placed, 1 some pod fits nowhere (reasons on stderr), 2 input or fatal error.",
     schedule_opts, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

static const dra_tool tool = {"dra-alloc", "allocate devices to ResourceClaims as the scheduler's structured allocator does",
                              cmds, "allocate"};

typedef struct objs {
    json_t **v;
    size_t n, cap;
} objs;

static void push(objs *o, json_t *j)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 16;
        o->v = dra_xrealloc(o->v, o->cap * sizeof *o->v);
    }
    o->v[o->n++] = j;
}

/* The options both commands share, with the same meaning. */
typedef struct common_flags {
    dra_features features;
    dra_format fmt;
    bool explain, explain_json;
    double timeout;   /* seconds */
    int64_t now;      /* Unix seconds: --now, or the clock */
} common_flags;

static dra_err *parse_common(const dra_args *a, common_flags *f)
{
    dra_err *e = NULL;
    dra_features_default(&f->features);
    f->fmt = DRA_FMT_YAML;
    f->explain = f->explain_json = false;
    f->timeout = 10;
    for (size_t i = 0; i < a->nopts && !e; i++) {
        const dra_parsed_opt *o = &a->opts[i];
        switch (o->id) {
        case DRA_OPT_FEATURE_GATES: e = dra_features_parse(&f->features, o->value); break;
        case DRA_OPT_OUTPUT: e = dra_format_parse(o->value, &f->fmt); break;
        case DRA_OPT_EXPLAIN:
            f->explain = true;
            if (o->value && !strcmp(o->value, "json"))
                f->explain_json = true;
            else if (o->value && strcmp(o->value, "text") != 0)
                e = dra_err_new(DRA_EXIT_INPUT, "--explain: unknown format %s (want text or json)", o->value);
            break;
        case OPT_TIMEOUT: {
            char *end;
            f->timeout = strtod(o->value, &end);
            if (*end || end == o->value || f->timeout < 0)
                e = dra_err_new(DRA_EXIT_INPUT, "--timeout: invalid number of seconds %s", o->value);
            break;
        }
        }
    }
    int64_t ns = 0;
    if (!e)
        e = dra_time_now_or(dra_args_get(a, DRA_OPT_NOW), &ns);
    f->now = ns / DRA_NSEC_PER_SEC;
    return e;
}

/* The scheduler and the eviction controller read a DeviceTaintRule without
 * deviceSelector differently (kubernetes#141422): say which one we follow. */
static void warn_selectorless_rules(const dra_model *m)
{
    const dra_model_list *l = dra_model_kind(m, DRA_KIND_DEVICE_TAINT_RULE);
    for (size_t i = 0; i < l->n; i++) {
        const json_t *spec = json_object_get(l->v[i]->json, "spec");
        const json_t *sel = json_object_get(spec, "deviceSelector");
        if (sel && !json_is_null(sel))
            continue;
        const char *name = json_string_value(json_object_get(json_object_get(l->v[i]->json, "metadata"), "name"));
        fprintf(stderr, "dra-alloc: warning: DeviceTaintRule %s has no deviceSelector: its taint applies to every "
                        "device, as the scheduler applies it (kubernetes#141422); dra-evict treats it as selecting none\n",
                name ? name : "");
    }
}

static const json_t *find_node(const dra_model *m, const char *name)
{
    const dra_obj *o = dra_model_node(m, name);
    return o ? o->json : NULL;
}

static int cmd_allocate(dra_args *a)
{
    dra_err *e = NULL;
    common_flags flags;
    const char *node_name = dra_args_get(a, DRA_OPT_NODE);
    e = parse_common(a, &flags);
    dra_features features = flags.features;
    double timeout = flags.timeout;
    int64_t now = flags.now;
    bool explain = flags.explain, explain_json = flags.explain_json;
    dra_format fmt = flags.fmt;
    if (!e && !node_name)
        e = dra_err_new(DRA_EXIT_INPUT, "--node is required");
    else if (!e && !*node_name)
        e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value: a node name"), "--node");
    if (e)
        return dra_tool_finish(&tool, a, e, 0);

    dra_objset set = DRA_OBJSET_INIT;
    dra_model model = DRA_MODEL_INIT;
    e = dra_tool_input_options(&set, a);
    if (!e)
        e = dra_read_paths(&set, a->pos, a->npos);
    if (!e) {
        dra_load_opts lo = {.skip_unknown = true, .no_validate = dra_args_has(a, OPT_NO_VALIDATE), .now = now};
        lo.validate.features = &features;
        e = dra_load(&set, &lo, &model);
        dra_input_report ir = {model.warnings, model.skipped, model.collapsed, model.files_repeated};
        dra_tool_report_input(&tool, a, &ir);
        if (!e)
            warn_selectorless_rules(&model);
        for (dra_err *x = e; x; x = x->next)
            x->code = DRA_EXIT_INPUT;
    }
    objs classes = {0}, slices = {0}, rules = {0}, in_use = {0}, pending = {0};
    if (!e) {
        const dra_model_list *l;
        l = dra_model_kind(&model, DRA_KIND_DEVICE_CLASS);
        for (size_t i = 0; i < l->n; i++)
            push(&classes, l->v[i]->json);
        l = dra_model_kind(&model, DRA_KIND_RESOURCE_SLICE);
        for (size_t i = 0; i < l->n; i++)
            push(&slices, l->v[i]->json);
        l = dra_model_kind(&model, DRA_KIND_DEVICE_TAINT_RULE);
        for (size_t i = 0; i < l->n; i++)
            push(&rules, l->v[i]->json);
        l = dra_model_kind(&model, DRA_KIND_RESOURCE_CLAIM);
        for (size_t i = 0; i < l->n; i++) {
            json_t *c = l->v[i]->json;
            const json_t *st = json_object_get(c, "status");
            const json_t *al = st ? json_object_get(st, "allocation") : NULL;
            push(al && !json_is_null(al) ? &in_use : &pending, c);
        }
    }

    int rc = DRA_EXIT_OK;
    dra_selector_eval ev = dra_cel_selector_eval_new(&features);
    dra_alloc_world *w = NULL;
    dra_alloc_result *res = NULL;
    json_t *fake_node = NULL;
    if (!e) {
        dra_alloc_world_input in = {classes.v, classes.n, slices.v, slices.n, rules.v, rules.n,
                                    in_use.v,  in_use.n,  &features, &ev};
        e = dra_alloc_world_new(&in, &w);
    }
    if (!e && pending.n) {
        const json_t *node = find_node(&model, node_name);
        bool named = node != NULL;
        for (size_t i = 0; !named && i < slices.n; i++) {
            const char *nn = json_string_value(json_object_get(json_object_get(slices.v[i], "spec"), "nodeName"));
            named = nn && strcmp(nn, node_name) == 0;
        }
        if (!named)
            fprintf(stderr, "dra-alloc: warning: node %s is not in the input: no Node object and no ResourceSlice "
                            "names it (only pools for all nodes or a matching nodeSelector can serve it)\n",
                    node_name);
        if (!node)
            node = fake_node = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "Node", "metadata", "name",
                                         node_name);
        dra_alloc_opts ao = {.timeout = timeout, .explain = explain, .no_prune = dra_args_has(a, OPT_NO_PRUNE)};
        e = dra_alloc_run(w, node, pending.v, pending.n, &ao, &res);
        if (explain && res) {
            json_t *ex = dra_alloc_explain_json(res);
            if (explain_json) {
                json_object_set_new(ex, "outcome", json_string(e                          ? "error"
                                                               : dra_alloc_result_ok(res) ? "allocated"
                                                                                          : "unschedulable"));
                if (e)
                    json_object_set_new(ex, "error", json_string(e->msg));
                char *s = json_dumps(ex, JSON_INDENT(2));
                fprintf(stderr, "%s\n", s ? s : "");
                free(s);
            } else {
                dra_buf b = DRA_BUF_INIT;
                dra_alloc_explain_text(res, &b);
                fputs(dra_buf_str(&b), stderr);
                dra_buf_free(&b);
            }
            json_decref(ex);
        }
        if (!e && !dra_alloc_result_ok(res)) {
            const char *why = dra_alloc_result_reason(res);
            fprintf(stderr, "dra-alloc: %s\n", why ? why : "cannot allocate all claims");
            rc = DRA_EXIT_NEGATIVE;
        } else if (!e) {
            dra_writer *wr = dra_writer_new(stdout, fmt);
            for (size_t i = 0; i < pending.n && !e; i++) {
                json_t *c = json_deep_copy(pending.v[i]);
                json_t *st = json_object_get(c, "status");
                if (!json_is_object(st)) {
                    st = json_object();
                    json_object_set_new(c, "status", st);
                }
                json_object_set_new(st, "allocation", dra_alloc_result_allocation(res, i));
                e = dra_writer_put(wr, c);
                json_decref(c);
            }
            dra_err *ce = dra_writer_close(wr);
            e = e ? e : ce;
            if (ce && ce != e)
                dra_err_free(ce);
        }
    }
    dra_alloc_result_free(res);
    json_decref(fake_node);
    dra_alloc_world_free(w);
    dra_cel_selector_eval_free(&ev);
    free(classes.v);
    free(slices.v);
    free(rules.v);
    free(in_use.v);
    free(pending.v);
    dra_model_free(&model);
    dra_objset_free(&set);
    return dra_tool_finish(&tool, a, e, rc);
}

static void print_pod_trace(const dra_sched_pod *sp, bool json_fmt)
{
    if (json_fmt) {
        json_t *o = json_pack("{s:s,s:s}", "pod", sp->ref, "outcome",
                              sp->outcome == DRA_POD_SCHEDULED       ? "scheduled"
                              : sp->outcome == DRA_POD_UNSCHEDULABLE ? "unschedulable"
                              : sp->outcome == DRA_POD_ERROR         ? "error"
                                                                     : "skipped");
        if (sp->node) {
            json_object_set_new(o, "node", json_string(sp->node));
            json_object_set_new(o, "score", json_integer(sp->score));
        }
        if (sp->message)
            json_object_set_new(o, "message", json_string(sp->message));
        if (sp->trace)
            json_object_set(o, "nodes", sp->trace);
        char *s = json_dumps(o, JSON_COMPACT);
        fprintf(stderr, "%s\n", s ? s : "");
        free(s);
        json_decref(o);
        return;
    }
    if (sp->outcome == DRA_POD_SCHEDULED)
        fprintf(stderr, "pod %s: node %s (score %lld)\n", sp->ref, sp->node, (long long)sp->score);
    else
        fprintf(stderr, "pod %s: %s\n", sp->ref, sp->message ? sp->message : "");
    size_t i;
    json_t *t;
    json_array_foreach(sp->trace, i, t) {
        const char *node = json_string_value(json_object_get(t, "node"));
        const char *skipped = json_string_value(json_object_get(t, "skipped"));
        if (skipped) {
            fprintf(stderr, "  %s: not tried (%s)\n", node, skipped);
            continue;
        }
        if (json_is_true(json_object_get(t, "fits"))) {
            fprintf(stderr, "  %s: fits, score %lld\n", node,
                    (long long)json_integer_value(json_object_get(t, "score")));
            continue;
        }
        const char *pre = json_string_value(json_object_get(t, "prefiltered"));
        fprintf(stderr, "  %s: %s%s%s\n", node, json_string_value(json_object_get(t, "reason")),
                pre ? " -- " : "", pre ? pre : "");
        json_t *alloc = json_object_get(t, "allocator");
        size_t c;
        json_t *cl;
        json_array_foreach(json_object_get(alloc, "claims"), c, cl) {
            const char *claim = json_string_value(json_object_get(cl, "claim"));
            size_t k;
            json_t *rq;
            json_array_foreach(json_object_get(cl, "requests"), k, rq) {
                const char *req = json_string_value(json_object_get(rq, "request"));
                size_t r;
                json_t *rej;
                json_array_foreach(json_object_get(rq, "rejected"), r, rej) {
                    const char *dev = json_string_value(json_object_get(rej, "device"));
                    const char *detail = json_string_value(json_object_get(rej, "detail"));
                    fprintf(stderr, "    claim %s, request %s: %s: %s\n", claim ? claim : "", req ? req : "",
                            dev ? dev : "", detail ? detail : "");
                }
            }
        }
    }
}

static int cmp_node_json(const void *a, const void *b)
{
    const char *x = json_string_value(json_object_get(json_object_get(*(json_t *const *)a, "metadata"), "name"));
    const char *y = json_string_value(json_object_get(json_object_get(*(json_t *const *)b, "metadata"), "name"));
    return strcmp(x, y);
}

static int cmd_schedule(dra_args *a)
{
    dra_err *e = NULL;
    common_flags flags;
    dra_sched_opts so = {.timeout = 10, .name_suffix = DRA_NAME_SUFFIX_HASH};
    e = parse_common(a, &flags);
    for (size_t i = 0; i < a->nopts && !e; i++) {
        const dra_parsed_opt *o = &a->opts[i];
        if (o->id != OPT_NAME_SUFFIX)
            continue;
        e = dra_name_suffix_parse(o->value, &so.name_suffix);
        if (!e && so.name_suffix == DRA_NAME_SUFFIX_RANDOM)
            e = dra_err_new(DRA_EXIT_INPUT, "--name-suffix: random is not possible here: claims need names to be reserved");
    }
    if (e)
        return dra_tool_finish(&tool, a, e, 0);
    dra_features features = flags.features;
    dra_format fmt = flags.fmt;
    bool explain = flags.explain, explain_json = flags.explain_json;
    so.timeout = flags.timeout;
    so.now = flags.now;
    so.features = &features;
    so.explain = explain;
    so.no_prune = dra_args_has(a, OPT_NO_PRUNE);

    dra_objset set = DRA_OBJSET_INIT;
    dra_model model = DRA_MODEL_INIT;
    e = dra_tool_input_options(&set, a);
    if (!e)
        e = dra_read_paths(&set, a->pos, a->npos);
    if (!e) {
        /* a manifest is not a dump: the pods controllers would make, with
         * the names and UIDs the API server would give them */
        dra_expand_report xr = {0};
        e = dra_expand_workloads(&set, NULL, &xr);
        dra_assume_pod_identity(&set, NULL, &xr);
        dra_tool_notes(&tool, a, xr.warnings, xr.notes);
        dra_expand_report_free(&xr);
    }
    if (!e) {
        dra_load_opts lo = {.skip_unknown = true, .no_validate = dra_args_has(a, OPT_NO_VALIDATE), .now = so.now};
        lo.validate.features = &features;
        e = dra_load(&set, &lo, &model);
        dra_input_report ir = {model.warnings, model.skipped, model.collapsed, model.files_repeated};
        dra_tool_report_input(&tool, a, &ir);
        if (!e)
            warn_selectorless_rules(&model);
        for (dra_err *x = e; x; x = x->next)
            x->code = DRA_EXIT_INPUT;
    }
    int rc = DRA_EXIT_OK;
    objs nodes = {0}, fake = {0};
    dra_sched_result res = {0};
    if (!e) {
        const dra_model_list *l = dra_model_kind(&model, DRA_KIND_NODE);
        for (size_t i = 0; i < l->n; i++)
            push(&nodes, l->v[i]->json);
        if (!nodes.n) {
            /* No Node objects: the nodes the slices name, without labels. */
            l = dra_model_kind(&model, DRA_KIND_RESOURCE_SLICE);
            for (size_t i = 0; i < l->n; i++) {
                const char *nn = json_string_value(json_object_get(json_object_get(l->v[i]->json, "spec"), "nodeName"));
                if (!nn || !*nn)
                    continue;
                push(&fake, json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "Node", "metadata", "name", nn));
            }
            dra_sort(fake.v, fake.n, sizeof *fake.v, cmp_node_json);
            size_t u = 0;
            for (size_t i = 0; i < fake.n; i++) {
                if (u && !cmp_node_json(&fake.v[u - 1], &fake.v[i]))
                    json_decref(fake.v[i]);
                else
                    fake.v[u++] = fake.v[i];
            }
            fake.n = u;
            if (fake.n && dra_model_kind(&model, DRA_KIND_POD)->n)
                fprintf(stderr, "dra-alloc: warning: no Node objects in the input; using the %zu node names of the ResourceSlices (no labels)\n",
                        fake.n);
        }
        e = dra_schedule(&set, &model, nodes.n ? nodes.v : fake.v, nodes.n ? nodes.n : fake.n, &so, &res);
    }
    if (!e) {
        for (dra_err *x = res.warnings; x; x = x->next)
            fprintf(stderr, "dra-alloc: warning: %s\n", x->msg);
        for (size_t i = 0; i < res.npods; i++) {
            const dra_sched_pod *sp = &res.pods[i];
            if (explain)
                print_pod_trace(sp, explain_json);
            else if (sp->outcome == DRA_POD_UNSCHEDULABLE || sp->outcome == DRA_POD_ERROR)
                fprintf(stderr, "dra-alloc: pod %s: %s\n", sp->ref, sp->message ? sp->message : "");
            if (sp->outcome == DRA_POD_UNSCHEDULABLE && rc == DRA_EXIT_OK)
                rc = DRA_EXIT_NEGATIVE;
            if (sp->outcome == DRA_POD_ERROR)
                rc = DRA_EXIT_INPUT;
        }
        if (getenv("DRA_ALLOC_STATS"))
            fprintf(stderr, "dra-alloc: stats: %lld pods, %lld scheduled, %lld unschedulable, %lld errors, %lld node checks, %lld prefiltered, %lld allocator runs, %.3f s\n",
                    (long long)res.stats.pods, (long long)res.stats.scheduled, (long long)res.stats.unschedulable,
                    (long long)res.stats.errors, (long long)res.stats.nodes_checked,
                    (long long)res.stats.nodes_prefiltered, (long long)res.stats.allocator_runs, res.stats.seconds);
        /* an error exit prints no objects: half an answer looks like one */
        dra_writer *wr = rc == DRA_EXIT_INPUT ? NULL : dra_writer_new(stdout, fmt);
        for (size_t i = 0; wr && i < res.nobjs && !e; i++)
            e = dra_writer_put(wr, res.objs[i]);
        dra_err *ce = wr ? dra_writer_close(wr) : NULL;
        e = e ? e : ce;
        if (ce && ce != e)
            dra_err_free(ce);
    }
    dra_sched_result_free(&res);
    for (size_t i = 0; i < fake.n; i++)
        json_decref(fake.v[i]);
    free(fake.v);
    free(nodes.v);
    dra_model_free(&model);
    dra_objset_free(&set);
    return dra_tool_finish(&tool, a, e, rc);
}

int main(int argc, char **argv)
{
    dra_args a;
    int rc;
    if (dra_tool_start(&tool, argc, argv, &a, &rc))
        return rc;
    if (a.cmd && a.cmd->name && !strcmp(a.cmd->name, "schedule"))
        return cmd_schedule(&a);
    return cmd_allocate(&a);
}
