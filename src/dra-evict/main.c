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
#include "io/stream.h"
#include "doctor/report.h"

enum { OPT_ALL = DRA_OPT_TOOL_BASE, OPT_APPLY_AT, OPT_RULE_STATUS, OPT_PATCH, OPT_NO_VALIDATE };

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
    DRA_OPT_HELP_ENTRY,
    DRA_OPT_VERSION_ENTRY,
    DRA_OPT_END,
};
static const dra_cmd cmds[] = {
    {NULL, "[OPTIONS] [FILES]", "device-taint evictions: which pods must go, when, and why",
     "Reads ResourceSlices, DeviceTaintRules, ResourceClaims and Pods.  Each record is one\n"
     "(pod, claim, device, taint); EVICT-AT is the pod's eviction time.",
     opts, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
static const dra_tool tool = {"dra-evict", "device-taint evictions: which pods must go, when, and why", cmds, NULL};

static json_t *record_json(const dra_evict_record *r, int64_t now)
{
    json_t *o = json_pack("{s:s,s:s}", "apiVersion", "dra-tools/v1alpha1", "kind", "Eviction");
    if (r->pod)
        json_object_set_new(o, "pod", json_pack("{s:s,s:s,s:s}", "namespace", dra_jstr_or(r->pod, "metadata.namespace", ""),
                                                "name", dra_jstr_or(r->pod, "metadata.name", ""), "uid",
                                                dra_jstr_or(r->pod, "metadata.uid", "")));
    else
        json_object_set_new(o, "pod", json_null());
    json_object_set_new(o, "claim", json_pack("{s:s,s:s}", "namespace", dra_jstr_or(r->claim, "metadata.namespace", ""),
                                              "name", dra_jstr_or(r->claim, "metadata.name", "")));
    json_object_set_new(o, "device", json_pack("{s:s,s:s,s:s,s:s}", "request", dra_jstr_or(r->result, "request", ""),
                                               "driver", dra_jstr_or(r->result, "driver", ""), "pool",
                                               dra_jstr_or(r->result, "pool", ""), "device",
                                               dra_jstr_or(r->result, "device", "")));
    json_object_set_new(o, "taint", json_deep_copy(r->src.taint));
    char *src = dra_taint_src_string(&r->src);
    json_object_set_new(o, "source", json_string(src));
    free(src);
    if (r->taint_has_time) {
        char *t = dra_time_format(r->taint_evict_at);
        json_object_set_new(o, "taintEvictAt", json_string(t));
        free(t);
    }
    char *t = dra_time_format(r->evict_at);
    json_object_set_new(o, "evictAt", json_string(t));
    free(t);
    json_object_set_new(o, "due", json_boolean(r->evict_at <= now));
    if (r->pod_deleting)
        json_object_set_new(o, "podDeleting", json_true());
    if (!r->pod)
        json_object_set_new(o, "note", json_string("no pod to evict: none is bound, using the claim and listed in reservedFor"));
    else if (r->extended_only)
        json_object_set_new(o, "note", json_string("only the extended-resource claim makes this pod go: upstream releases whose "
                                                   "controller does not look at status.extendedResourceClaimStatus miss it"));
    return o;
}

static dra_err *records_table(const dra_evict_result *res, int64_t now)
{
    const size_t ncols = 8;
    char **cells = dra_xcalloc((res->n + 1) * ncols, sizeof *cells);
    static const char *const hdr[] = {"NAMESPACE", "POD", "CLAIM", "DEVICE", "TAINT", "EVICT-AT", "WHEN", "SOURCE"};
    for (size_t k = 0; k < ncols; k++)
        cells[k] = dra_xstrdup(hdr[k]);
    for (size_t i = 0; i < res->n; i++) {
        const dra_evict_record *r = &res->v[i];
        char **c = &cells[(i + 1) * ncols];
        c[0] = dra_xstrdup(dra_jstr_or(r->claim, "metadata.namespace", ""));
        c[1] = r->pod ? dra_xstrdup(dra_jstr_or(r->pod, "metadata.name", "")) : NULL;
        c[2] = dra_xstrdup(dra_jstr_or(r->claim, "metadata.name", ""));
        c[3] = dra_xasprintf("%s/%s/%s", dra_jstr_or(r->result, "driver", ""), dra_jstr_or(r->result, "pool", ""),
                             dra_jstr_or(r->result, "device", ""));
        c[4] = dra_taint_string(r->src.taint);
        c[5] = dra_time_format(r->evict_at);
        if (r->pod_deleting) {
            c[6] = dra_xstrdup("deleting");
        } else if (r->evict_at <= now) {
            c[6] = dra_xstrdup("due");
        } else {
            char *d = dra_duration_format(r->evict_at - now);
            c[6] = dra_xasprintf("in %s", d);
            free(d);
        }
        char *s = dra_taint_src_string(&r->src);
        c[7] = dra_xasprintf("%s%s%s", s, r->extended_only ? " (extended-resource claim: upstream gap)" : "",
                             r->pod ? "" : " (no pod)");
        free(s);
    }
    dra_err *e = dra_table_write(stdout, (const char *const *)cells, res->n + 1, ncols);
    for (size_t k = 0; k < (res->n + 1) * ncols; k++)
        free(cells[k]);
    free(cells);
    return e;
}

static dra_err *rules_table(const dra_evict_result *res)
{
    const size_t ncols = 5;
    char **cells = dra_xcalloc((res->nrules + 1) * ncols, sizeof *cells);
    static const char *const hdr[] = {"NAME", "EFFECT", "STATUS", "REASON", "MESSAGE"};
    for (size_t k = 0; k < ncols; k++)
        cells[k] = dra_xstrdup(hdr[k]);
    for (size_t i = 0; i < res->nrules; i++) {
        const json_t *rule = res->rules[i];
        char **c = &cells[(i + 1) * ncols];
        c[0] = dra_xstrdup(dra_jstr_or(rule, "metadata.name", ""));
        c[1] = dra_xstrdup(dra_jstr_or(rule, "spec.taint.effect", ""));
        size_t j;
        json_t *cnd;
        json_array_foreach(dra_jarr(rule, "status.conditions"), j, cnd) {
            if (strcmp(dra_jstr_or(cnd, "type", ""), "EvictionInProgress") != 0)
                continue;
            c[2] = dra_xstrdup(dra_jstr_or(cnd, "status", ""));
            c[3] = dra_xstrdup(dra_jstr_or(cnd, "reason", ""));
            const char *m = dra_jstr_or(cnd, "message", "");
            c[4] = *m ? dra_xstrdup(m) : NULL;
        }
    }
    dra_err *e = dra_table_write(stdout, (const char *const *)cells, res->nrules + 1, ncols);
    for (size_t k = 0; k < (res->nrules + 1) * ncols; k++)
        free(cells[k]);
    free(cells);
    return e;
}

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
    return dra_err_append(e, dra_writer_close(w));
}

/* Options, parsed before the input is read: usage errors come first. */
static dra_err *parse_opts(const dra_args *a, dra_features *f, dra_evict_opts *o)
{
    dra_err *e = NULL;
    dra_features_default(f);
    if (dra_args_get(a, DRA_OPT_FEATURE_GATES) && (e = dra_features_parse(f, dra_args_get(a, DRA_OPT_FEATURE_GATES))))
        return e;
    *o = (dra_evict_opts){.all_devices = dra_args_has(a, OPT_ALL), .features = f};
    if (dra_args_get(a, OPT_APPLY_AT)) {
        o->apply = true;
        if ((e = dra_time_parse(dra_args_get(a, OPT_APPLY_AT), &o->apply_at)))
            return dra_err_field(e, "--apply-at");
    }
    if (o->apply && !dra_args_get(a, DRA_OPT_NOW))
        o->now = o->apply_at;
    else if ((e = dra_time_now_or(dra_args_get(a, DRA_OPT_NOW), &o->now)))
        return e;
    if (dra_args_has(a, OPT_PATCH) && !o->apply && !dra_args_has(a, OPT_RULE_STATUS))
        return dra_err_new(DRA_EXIT_INPUT, "--patch needs --apply-at or --rule-status: eviction records are not API operations");
    return NULL;
}

static dra_err *run(const dra_args *a, const dra_cluster *c, const dra_evict_opts *op)
{
    dra_evict_opts o = *op;
    dra_err *e = NULL;
    const char *out = dra_args_get(a, DRA_OPT_OUTPUT);
    dra_format fmt;
    bool table;
    if ((e = dra_format_parse_table(out, &table, &fmt)))
        return e;
    dra_patch_format pf = DRA_PATCH_JSON;
    if (dra_args_has(a, OPT_PATCH) && (e = dra_patch_format_parse(dra_args_get(a, OPT_PATCH), &pf)))
        return e;

    dra_evict_result res = DRA_EVICT_RESULT_INIT;
    dra_changes ch = DRA_CHANGES_INIT;
    e = dra_evict_compute(c, &o, &res, &ch);
    dra_cluster_address_ops(c, &ch);
    for (size_t i = 0; i < res.nwarnings; i++)
        fprintf(stderr, "%s: warning: %s\n", tool.prog, res.warnings[i]);
    if (!e) {
        bool rules = dra_args_has(a, OPT_RULE_STATUS);
        if (dra_args_has(a, OPT_PATCH)) {
            /* only the operations asked for: evictions with --apply-at, rule status with --rule-status */
            dra_changes sel = ch;
            dra_op *keep = dra_xcalloc(ch.nops + 1, sizeof *keep);
            size_t nkeep = 0;
            for (size_t i = 0; i < ch.nops; i++) {
                bool is_rule = ch.ops[i].kind && strcmp(ch.ops[i].kind, "DeviceTaintRule") == 0;
                if ((is_rule && rules) || (!is_rule && o.apply))
                    keep[nkeep++] = ch.ops[i];
            }
            sel.ops = keep;
            sel.nops = nkeep;
            e = dra_changes_write_ops(stdout, &sel, pf);
            free(keep);
        } else if (rules) {
            e = !out || strcmp(out, "table") == 0 ? rules_table(&res) : write_objects(out, res.rules, res.nrules);
        } else if (o.apply) {
            json_t **objs = dra_xcalloc(ch.nobjs + 1, sizeof *objs);
            size_t n = 0;
            for (size_t i = 0; i < ch.nobjs; i++)
                if (strcmp(dra_jstr_or(ch.objs[i].obj, "kind", ""), "Pod") == 0)
                    objs[n++] = ch.objs[i].obj;
            e = write_objects(out, objs, n);
            free(objs);
        } else if (!out || strcmp(out, "table") == 0) {
            e = records_table(&res, o.now);
        } else {
            json_t **objs = dra_xcalloc(res.n + 1, sizeof *objs);
            for (size_t i = 0; i < res.n; i++)
                objs[i] = record_json(&res.v[i], o.now);
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

int main(int argc, char **argv)
{
    dra_args a;
    int rc;
    if (dra_tool_start(&tool, argc, argv, &a, &rc))
        return rc;
    dra_objset set = DRA_OBJSET_INIT;
    dra_cluster c = DRA_CLUSTER_INIT;
    dra_features f;
    dra_evict_opts o;
    dra_err *e = parse_opts(&a, &f, &o);
    if (!e)
        e = dra_tool_input_options(&set, &a);
    if (!e)
        e = dra_read_paths(&set, a.pos, a.npos);
    c.no_validate = dra_args_has(&a, OPT_NO_VALIDATE);
    if (!e) {
        e = dra_cluster_load_input(&c, &set, &f, o.now);
        dra_input_report ir = {c.model.warnings, c.unknown, c.model.collapsed, c.model.files_repeated};
        dra_tool_report_input(&tool, &a, &ir);
    }
    if (!e)
        e = run(&a, &c, &o);
    dra_cluster_free(&c);
    dra_objset_free(&set);
    return dra_tool_finish(&tool, &a, e, DRA_EXIT_OK);
}
