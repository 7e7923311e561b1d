/* dra-select: compile and evaluate CEL device selectors; show which devices
 * match and why not.  Options -> library (src/common/select) -> output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "tool/cli.h"
#include "tool/tool.h"
#include "cel/dra.h"
#include "io/stream.h"
#include "model/features.h"
#include "select/select.h"

/* repl.c */
dra_err *dra_select_repl(char *const *paths, size_t npaths, const dra_features *f);

enum {
    OPT_CLASS = DRA_OPT_TOOL_BASE,
    OPT_EXPR,
    OPT_CLAIM,
    OPT_REQUEST,
    OPT_VAR,
    OPT_DEVICE,
    OPT_NAMESPACE,
};

static const dra_opt select_opts[] = {
    {OPT_CLASS, "class", 'c', DRA_ARG_REQUIRED, "NAME", "apply this DeviceClass's selectors", NULL},
    {OPT_EXPR, "expr", 'e', DRA_ARG_REQUIRED, "CEL", "also require this expression (repeatable)", NULL},
    {OPT_CLAIM, "claim", 0, DRA_ARG_REQUIRED, "[NS/]NAME", "use a request of this ResourceClaim (or template)", NULL},
    {OPT_NAMESPACE, "namespace", 'n', DRA_ARG_REQUIRED, "NS", "namespace of --claim NAME (default: default, as kubectl)", NULL},
    {OPT_REQUEST, "request", 'r', DRA_ARG_REQUIRED, "R[/SUB]", "the request of --claim (default: its only one)", NULL},
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_EXPLAIN_ENTRY,
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"),
    DRA_OPT_INPUT_ENTRIES,
    DRA_OPT_END,
};

static const dra_opt eval_opts[] = {
    {OPT_VAR, "var", 0, DRA_ARG_REQUIRED, "NAME=CEL", "declare a variable with this value (repeatable)", NULL},
    {OPT_DEVICE, "device", 'd', DRA_ARG_REQUIRED, "DRIVER/POOL/DEVICE", "bind `device` to this device of the input",
     NULL},
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_INPUT_ENTRIES,
    DRA_OPT_END,
};

static const dra_opt gate_opts[] = {
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_END,
};

static const dra_opt lint_opts[] = {
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_INPUT_ENTRIES,
    DRA_OPT_END,
};

static const dra_cmd cmds[] = {
    {"select", "[select] [--class NAME] [--claim NS/NAME [--request R]] [-e CEL]... [OPTIONS] [FILES]",
     "print the devices that match a class, a claim request and expressions",
     "Devices come from the newest generation of every pool in the input's ResourceSlices (devices\n"
     "of incomplete pools are listed, with a note). A device matches when every class selector, then\n"
     "every request selector, then every -e expression is true. Output: driver/pool/device lines, or\n"
     "{driver, pool, node, device} objects with -o. --explain tells on stderr, for every other device,\n"
     "the first selector that was false or failed. Exit: 0 matches, 1 none, 2 input, compile or\n"
     "CEL runtime errors (upstream's scheduler fails the allocation on any CEL error).",
     select_opts, "file"},
    {"eval", "eval [--var NAME=CEL]... [--device DRIVER/POOL/DEVICE] EXPR [FILES]",
     "evaluate a CEL expression and print its value in CEL syntax",
     "The expression may use `device` (with --device, from the input) and the --var variables.\n"
     "Exit 2 on a compile or runtime error.",
     eval_opts, "file"},
    {"check", "check EXPR...", "compile selectors; print the result type and estimated cost",
     "Compiles in the DRA selector environment. Exit 2 when an expression does not compile, does\n"
     "not yield bool, or its estimated cost exceeds the limit of 1000000.",
     gate_opts, ""},
    {"lint", "lint [FILES]", "check every class and claim selector against the input's devices",
     "One line per problem: compile errors, keys that raise `no such key`, selectors no device\n"
     "passes, string comparisons with version attributes, costs near the limit. Exit 1 on problems.",
     lint_opts, "file"},
    {"repl", "repl [FILES]", "interactive CEL session on the input's devices",
     "Each expression prints its value, or for a bool expression over `device` the matching devices.\n"
     "Commands: :load FILE, :devices, :class [NAME], :explain [EXPR], :help, :quit. History in\n"
     "$DRA_SELECT_HISTORY (default ~/.dra_select_history).",
     gate_opts, "file"},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

static const dra_tool tool = {"dra-select", "compile and evaluate CEL device selectors; show which devices match and why not",
                              cmds, "select"};

static dra_err *gates(const dra_args *a, dra_features *f)
{
    dra_features_default(f);
    dra_err *e = NULL;
    for (size_t i = 0; i < a->nopts && !e; i++)
        if (a->opts[i].id == DRA_OPT_FEATURE_GATES)
            e = dra_features_parse(f, a->opts[i].value);
    return e;
}

static void print_notes(const dra_sel_devices *d)
{
    for (size_t i = 0; i < d->nnotes; i++)
        fprintf(stderr, "%s: note: %s\n", tool.prog, d->notes[i]);
}

/* ---- select ---- */

/* Read and load the input with the shared input options, saying what was
 * relaxed or skipped. */
static dra_err *load_input(const dra_args *a, dra_sel_input *in, char *const *paths, size_t n, const dra_features *f)
{
    dra_err *e = dra_tool_input_options(&in->set, a);
    if (!e)
        e = dra_sel_input_load(in, paths, n, f);
    dra_input_report ir = {in->model.warnings, in->model.skipped, in->model.collapsed, in->model.files_repeated};
    dra_tool_report_input(&tool, a, &ir);
    return e;
}

static int cmd_select(dra_args *a)
{
    dra_features f;
    dra_err *e = gates(a, &f);
    dra_format fmt = DRA_FMT_YAML;
    bool as_objects = false, explain = false, explain_json = false;
    const char *o = dra_args_get(a, DRA_OPT_OUTPUT);
    if (!e && o) {
        e = dra_format_parse(o, &fmt);
        as_objects = true;
    }
    if (!e && dra_args_has(a, DRA_OPT_EXPLAIN)) {
        const char *x = dra_args_get(a, DRA_OPT_EXPLAIN);
        explain = true;
        explain_json = x && !strcmp(x, "json");
        if (x && !explain_json && strcmp(x, "text"))
            e = dra_err_new(DRA_EXIT_INPUT, "--explain: unknown format %s (want text or json)", x);
    }
    const char *claim = dra_args_get(a, OPT_CLAIM), *request = dra_args_get(a, OPT_REQUEST);
    if (!e && request && !claim)
        e = dra_err_new(DRA_EXIT_INPUT, "--request needs --claim");
    if (!e && claim && dra_args_has(a, OPT_CLASS))
        e = dra_err_new(DRA_EXIT_INPUT, "--class and --claim exclude each other (the request names its class)");
    if (e)
        return dra_tool_finish(&tool, a, e, 0);

    dra_sel_input in = {0};
    dra_selection sel;
    dra_selection_init(&sel, &f);
    e = load_input(a, &in, a->pos, a->npos, &f);
    if (!e && dra_args_has(a, OPT_CLASS))
        e = dra_selection_add_class(&sel, &in.model, dra_args_get(a, OPT_CLASS));
    if (!e && claim) {
        /* kubectl's habit: a bare name is in the namespace of -n, or "default" */
        const char *ns = dra_args_get(a, OPT_NAMESPACE);
        char *full = strchr(claim, '/') ? dra_xstrdup(claim) : dra_xasprintf("%s/%s", ns ? ns : "default", claim);
        e = dra_selection_add_request(&sel, &in.model, full, request);
        free(full);
    }
    for (size_t i = 0; i < a->nopts; i++)
        if (a->opts[i].id == OPT_EXPR)
            e = dra_err_append(e, dra_selection_add_expr(&sel, a->opts[i].value));

    size_t matched = 0, failed = 0;
    dra_writer *w = NULL;
    if (!e) {
        print_notes(&in.devs);
        if (as_objects)
            w = dra_writer_new(stdout, fmt);
        dra_buf b = DRA_BUF_INIT;
        for (size_t i = 0; i < in.devs.n && !e; i++) {
            const dra_sel_device *d = &in.devs.v[i];
            dra_sel_verdict v;
            dra_selection_match(&sel, d, &v);
            if (v.matched) {
                matched++;
                if (w) {
                    json_t *j = dra_sel_device_json(d);
                    e = dra_writer_put(w, j);
                    json_decref(j);
                } else
                    printf("%s\n", d->id);
            } else {
                if (v.error)
                    failed++;
                if (explain_json) {
                    json_t *j = dra_sel_explain_json(&sel, d, &v);
                    char *s = json_dumps(j, JSON_COMPACT);
                    fprintf(stderr, "%s\n", s);
                    free(s);
                    json_decref(j);
                } else if (explain) {
                    dra_buf_reset(&b);
                    dra_sel_explain_text(&sel, d, &v, &b);
                    fprintf(stderr, "%s\n", dra_buf_str(&b));
                } else if (v.error) {
                    char *s = dra_sel_runtime_error_text(&sel, d, &v);
                    fprintf(stderr, "%s: %s\n", tool.prog, s);
                    free(s);
                }
            }
            dra_sel_verdict_clear(&v);
        }
        dra_buf_free(&b);
        if (w)
            e = dra_err_append(e, dra_writer_close(w));
    }
    int rc = matched ? DRA_EXIT_OK : DRA_EXIT_NEGATIVE;
    if (!e && failed)
        e = dra_err_new(DRA_EXIT_INPUT, "CEL runtime errors on %zu device%s", failed, failed == 1 ? "" : "s");
    dra_selection_free(&sel);
    dra_sel_input_free(&in);
    return dra_tool_finish(&tool, a, e, rc);
}

/* ---- eval ---- */

static int cmd_eval(dra_args *a)
{
    dra_features f;
    dra_err *e = gates(a, &f);
    if (!e && a->npos < 1)
        e = dra_err_new(DRA_EXIT_INPUT, "eval: missing the expression (see 'dra-select eval --help')");
    if (e)
        return dra_tool_finish(&tool, a, e, 0);
    const char *dev_id = dra_args_get(a, OPT_DEVICE);
    dra_sel_input in = {0};
    dra_sel_eval ev;
    dra_sel_eval_init(&ev, &f);
    /* Files are read only when there is something to use them for, so that
     * `dra-select eval '1 + 1'` does not wait on stdin. */
    if (dev_id || a->npos > 1)
        e = load_input(a, &in, a->pos + 1, a->npos - 1, &f);
    if (!e && dev_id) {
        const dra_sel_device *d = dra_sel_find(&in.devs, dev_id);
        if (!d)
            e = dra_err_new(DRA_EXIT_INPUT, "--device: no device %s in the input (want DRIVER/POOL/DEVICE)", dev_id);
        dra_sel_eval_set_device(&ev, d);
    }
    for (size_t i = 0; i < a->nopts && !e; i++)
        if (a->opts[i].id == OPT_VAR)
            e = dra_sel_eval_add_var(&ev, a->opts[i].value);
    cel_program *p = NULL;
    if (!e)
        e = dra_sel_eval_compile(&ev, a->pos[0], &p);
    if (!e) {
        cel_value v = dra_sel_eval_run(&ev, p, NULL);
        if (v.kind == CEL_ERROR)
            e = dra_err_new(DRA_EXIT_INPUT, "%s%s", v.v.err, cel_dra_runtime_hint(v.v.err));
        else {
            char *s = cel_value_to_string(&v);
            printf("%s\n", s);
            free(s);
        }
    }
    cel_program_free(p);
    dra_sel_eval_free(&ev);
    dra_sel_input_free(&in);
    return dra_tool_finish(&tool, a, e, 0);
}

/* ---- check ---- */

static int cmd_check(dra_args *a)
{
    dra_features f;
    dra_err *e = gates(a, &f);
    if (!e && a->npos < 1)
        e = dra_err_new(DRA_EXIT_INPUT, "check: missing the expression (see 'dra-select check --help')");
    if (e)
        return dra_tool_finish(&tool, a, e, 0);
    cel_dra_options o = {.consumable_capacity = dra_feature_enabled(&f, DRA_FEATURE_CONSUMABLE_CAPACITY)};
    cel_env *env = cel_dra_env_new(&o);
    for (size_t i = 0; i < a->npos; i++) {
        const char *expr = a->pos[i];
        char *label = a->npos > 1 ? dra_xasprintf("#%zu: ", i) : dra_xstrdup("");
        cel_program *p = NULL;
        dra_err *ce = cel_dra_compile(env, expr, strlen(expr), &p);
        if (ce) {
            e = dra_err_append(e, dra_err_new(DRA_EXIT_INPUT, "%s%s", label, ce->msg));
            dra_err_free(ce);
            free(label);
            continue;
        }
        uint64_t lo, hi;
        cel_program_estimated_cost(p, &lo, &hi);
        printf("%stype %s, estimated cost %llu..%llu\n", label, cel_program_result_type_str(p),
               (unsigned long long)lo, (unsigned long long)hi);
        /* pkg/apis/resource/validation validateCELSelector */
        if (hi > CEL_DRA_MAX_COST)
            e = dra_err_append(e, dra_err_new(DRA_EXIT_INPUT, "%stoo complex, exceeds cost limit (%llu > %d)", label,
                                              (unsigned long long)hi, CEL_DRA_MAX_COST));
        free(label);
        cel_program_free(p);
    }
    cel_env_free(env);
    return dra_tool_finish(&tool, a, e, 0);
}

/* ---- lint ---- */

static int cmd_lint(dra_args *a)
{
    dra_features f;
    dra_err *e = gates(a, &f);
    if (e)
        return dra_tool_finish(&tool, a, e, 0);
    dra_sel_input in = {0};
    e = load_input(a, &in, a->pos, a->npos, &f);
    int rc = DRA_EXIT_OK;
    if (!e) {
        print_notes(&in.devs);
        dra_err *problems = dra_sel_lint(&in.model, &in.devs, &f);
        for (dra_err *x = problems; x; x = x->next) {
            char *s = dra_err_format(x);
            printf("%s\n", s);
            free(s);
        }
        if (problems)
            rc = DRA_EXIT_NEGATIVE;
        dra_err_free(problems);
    }
    dra_sel_input_free(&in);
    return dra_tool_finish(&tool, a, e, rc);
}

static int cmd_repl(dra_args *a)
{
    dra_features f;
    dra_err *e = gates(a, &f);
    if (!e)
        e = dra_select_repl(a->pos, a->npos, &f);
    return dra_tool_finish(&tool, a, e, 0);
}

int main(int argc, char **argv)
{
    dra_args a;
    int rc;
    if (dra_tool_start(&tool, argc, argv, &a, &rc))
        return rc;
    const char *c = a.cmd->name;
    if (!strcmp(c, "eval"))
        return cmd_eval(&a);
    if (!strcmp(c, "check"))
        return cmd_check(&a);
    if (!strcmp(c, "lint"))
        return cmd_lint(&a);
    if (!strcmp(c, "repl"))
        return cmd_repl(&a);
    return cmd_select(&a);
}
