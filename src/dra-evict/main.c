/* dra-evict: device-taint evictions offline: which pods must go, when, and
 * why; DeviceTaintRule status; the pod changes made at a given time.
 * The work is in src/common/evict/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "tool/tool.h"
#include "evict/evict.h"
#include "evict/report.h"
#include "io/stream.h"
#include "doctor/report.h"

enum { OPT_ALL = DRA_OPT_TOOL_BASE, OPT_APPLY_AT, OPT_RULE_STATUS, OPT_PATCH, OPT_NO_VALIDATE };

/* clang-format off */
static const dra_opt opts[] = {
    DRA_OPT_NOW_ENTRY,
    {OPT_ALL, "all", 0, DRA_ARG_NONE, NULL, "treat a DeviceTaintRule without deviceSelector as selecting every device", NULL},
    {OPT_APPLY_AT, "apply-at", 0, DRA_ARG_REQUIRED, "RFC3339", "print the pod changes the controller makes at this time", NULL},
    {OPT_RULE_STATUS, "rule-status", 0, DRA_ARG_NONE, NULL, "print DeviceTaintRule status (EvictionInProgress) instead of evictions", NULL},
    {OPT_PATCH, "patch", 0, DRA_ARG_OPTIONAL, "json|kubectl", "with --apply-at or --rule-status: print the API operations", "json kubectl"},
    DRA_OPT_OUTPUT_ENTRY("table yaml json jsonl"),
    DRA_OPT_FEATURE_GATES_ENTRY,
    {OPT_NO_VALIDATE, "no-validate", 0, DRA_ARG_NONE, NULL, "skip API validation of the input (inspect a slightly-off dump)", NULL},
    DRA_OPT_INPUT_ENTRIES,
    DRA_OPT_NAMESPACE_ENTRIES,
    DRA_OPT_HELP_ENTRY,
    DRA_OPT_VERSION_ENTRY,
    DRA_OPT_END,
};
/* clang-format on */
static const dra_cmd cmds[] = {
    {NULL, "[OPTIONS] [FILES]", "device-taint evictions: which pods must go, when, and why",
     "Reads ResourceSlices, DeviceTaintRules, ResourceClaims and Pods.  Each record is one\n"
     "(pod, claim, device, taint); EVICT-AT is the pod's eviction time.",
     opts, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
static const dra_tool tool = {"dra-evict", "device-taint evictions: which pods must go, when, and why", cmds, NULL};

/* Every option's value, written by the table below. */
typedef struct values {
    const char *apply_at, *patch_fmt, *output, *now, *ns;
    bool all, rule_status, patch, no_validate, all_ns;
} values;

static const dra_optval vals[] = {
    DRA_VAL_BOOL(OPT_ALL, values, all),
    DRA_VAL_STRING(OPT_APPLY_AT, values, apply_at),
    DRA_VAL_BOOL(OPT_RULE_STATUS, values, rule_status),
    DRA_VAL_BOOL(OPT_PATCH, values, patch),
    DRA_VAL_STRING(OPT_PATCH, values, patch_fmt),
    DRA_VAL_STRING(DRA_OPT_OUTPUT, values, output),
    DRA_VAL_STRING(DRA_OPT_NOW, values, now),
    DRA_VAL_BOOL(OPT_NO_VALIDATE, values, no_validate),
    DRA_VAL_STRING(DRA_OPT_NAMESPACE, values, ns),
    DRA_VAL_BOOL(DRA_OPT_ALL_NAMESPACES, values, all_ns),
    DRA_VAL_END,
};

static dra_err *write_objects(const char *o, json_t **objs, size_t n)
{
    dra_format fmt = DRA_FMT_YAML;
    bool table;
    dra_err *e = dra_format_parse_table(o, &table, &fmt);
    if (e)
        return e;
    dra_writer *w = dra_writer_new(stdout, fmt);
    for (size_t i = 0; i < n && !e; i++)
        e = dra_writer_put(w, objs[i]);
    return dra_writer_finish(w, e);
}

/* Options, parsed before the input is read: usage errors come first. */
static dra_err *parse_opts(const dra_args *a, const values *x, dra_features *f, dra_evict_opts *o)
{
    dra_err *e = dra_tool_features(&tool, a, f);
    if (e)
        return e;
    *o = (dra_evict_opts){.all_devices = x->all, .features = f};
    if (x->apply_at) {
        o->apply = true;
        if ((e = dra_time_parse(x->apply_at, &o->apply_at)))
            return dra_err_field(e, "--apply-at");
    }
    if (o->apply && !x->now)
        o->now = o->apply_at;
    else if ((e = dra_time_now_or(x->now, &o->now)))
        return e;
    if (x->patch && !o->apply && !x->rule_status)
        return dra_err_new(DRA_EXIT_INPUT,
                           "--patch needs --apply-at or --rule-status: eviction records are not API operations");
    return NULL;
}

static dra_err *evict(const dra_args *a, const values *x, const dra_cluster *c, const dra_evict_opts *op)
{
    dra_evict_opts o = *op;
    dra_err *e = NULL;
    const char *out = x->output;
    dra_format fmt;
    bool table;
    if ((e = dra_format_parse_table(out, &table, &fmt)))
        return e;
    dra_patch_format pf = DRA_PATCH_JSON;
    if (x->patch && (e = dra_patch_format_parse(x->patch_fmt, &pf)))
        return e;

    dra_evict_result res = DRA_EVICT_RESULT_INIT;
    dra_changes ch = DRA_CHANGES_INIT;
    const char *ns = x->all_ns ? NULL : x->ns;
    e = dra_evict_compute(c, &o, &res, &ch);
    if (!e) /* objects it could not read back */
        e = dra_compact_failure(&c->recs);
    dra_evict_keep_namespace(&res, ns);
    dra_cluster_address_ops(c, &ch);
    dra_errs warns = DRA_ERRS_INIT; /* printed capped, as every tool prints a flood */
    for (size_t i = 0; i < res.warnings.n; i++) {
        char *w = dra_tool_hinted(a, res.warnings.v[i].msg, res.warnings.v[i].hint);
        dra_errs_add(&warns, dra_err_new(DRA_EXIT_OK, "%s", w));
        free(w);
    }
    dra_err *wl = dra_errs_take(&warns);
    dra_tool_print_errs(stderr, tool.prog, "warning", wl);
    dra_err_free(wl);
    if (!e) {
        bool rules = x->rule_status;
        if (x->patch) {
            /* only the operations asked for: evictions with --apply-at, rule status with --rule-status */
            dra_changes sel = ch;
            dra_op *keep = dra_xcalloc(ch.nops + 1, sizeof *keep);
            size_t nkeep = 0;
            for (size_t i = 0; i < ch.nops; i++) {
                bool is_rule = ch.ops[i].kind && strcmp(ch.ops[i].kind, "DeviceTaintRule") == 0;
                bool in_ns = !ns || !ch.ops[i].ns || strcmp(ch.ops[i].ns, ns) == 0;
                if ((is_rule && rules) || (!is_rule && o.apply && in_ns))
                    keep[nkeep++] = ch.ops[i];
            }
            sel.ops = keep;
            sel.nops = nkeep;
            e = dra_changes_write_ops_by_object(stdout, &sel, pf);
            free(keep);
        } else if (rules) {
            e = !out || strcmp(out, "table") == 0 ? dra_evict_rules_table(stdout, &res)
                                                  : write_objects(out, res.rules, res.nrules);
        } else if (o.apply) {
            json_t **objs = dra_xcalloc(ch.nobjs + 1, sizeof *objs);
            size_t n = 0;
            for (size_t i = 0; i < ch.nobjs; i++)
                if (strcmp(dra_jstr_or(ch.objs[i].obj, "kind", ""), "Pod") == 0 &&
                    (!ns || strcmp(dra_jstr_or(ch.objs[i].obj, "metadata.namespace", ""), ns) == 0))
                    objs[n++] = ch.objs[i].obj;
            e = write_objects(out, objs, n);
            free(objs);
        } else if (!out || strcmp(out, "table") == 0) {
            e = dra_evict_records_table(stdout, &res, o.now);
        } else {
            json_t **objs = dra_xcalloc(res.n + 1, sizeof *objs);
            for (size_t i = 0; i < res.n; i++)
                objs[i] = dra_evict_record_json(&res.v[i], o.now);
            e = write_objects(out, objs, res.n);
            for (size_t i = 0; i < res.n; i++)
                json_decref(objs[i]);
            free(objs);
        }
    }
    dra_changes_free(&ch);
    dra_evict_result_free(&res);
    return e;
}

static dra_err *run(const dra_args *a, void *xv, int *rc)
{
    const values *x = xv;
    dra_objset set = DRA_OBJSET_INIT;
    dra_cluster c = DRA_CLUSTER_INIT;
    dra_features f;
    dra_evict_opts o;
    dra_err *e = parse_opts(a, x, &f, &o);
    if (!e)
        e = dra_tool_input_options(&set, a);
    c.no_validate = x->no_validate;
    c.dropped = 1u << DRA_KIND_NODE; /* checked as read; eviction never looks a Node up */
    /* claims and Pods as records, whole objects made again for the few the evictions name */
    c.as_records = (1u << DRA_KIND_RESOURCE_CLAIM) | (1u << DRA_KIND_POD);
    dra_compact_keep_whole(&c.recs);
    c.device_names = true; /* of devices, only which exist and their taints */
    if (!e) {
        e = dra_cluster_read_input(&c, &set, a->pos, a->npos, &f, o.now.sec);
        dra_input_report ir = {c.model.warnings, c.unknown, c.model.collapsed, c.model.files_repeated};
        dra_tool_report_input(&tool, a, &ir);
    }
    if (!e)
        e = evict(a, x, &c, &o);
    dra_cluster_free(&c);
    dra_objset_free(&set);
    return e;
}

static const dra_runner runners[] = {{NULL, run}, {NULL, NULL}};

int main(int argc, char **argv)
{
    values v = {0};
    return dra_tool_main(&tool, runners, vals, argc, argv, &v);
}
