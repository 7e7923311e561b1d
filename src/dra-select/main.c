/* dra-select: compile and evaluate CEL device selectors; show which devices
 * match and why not.  Options -> library (src/common/select) -> output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "tool/records.h"
#include "tool/tool.h"
#include "cel/dra.h"
#include "select/commands.h"
#include "select/select.h"
#include "cmds.h"
#include "repl.h"

/* Every option's value, written by the table below. */
typedef struct opts {
    const char *class, *claim, *namespace, *request, *output, *device;
    dra_strv exprs, vars;
    bool explain, verbose;
    int explain_fmt;          /* 0 text, 1 json */
    const char *explain_file; /* --explain-file: the explanation there, not on stderr */
    dra_features f;           /* from --kubernetes-version, --feature-gates */
} opts;

/* clang-format off */
static const dra_optval vals[] = {
    DRA_VAL_STRING(OPT_CLASS, opts, class),       DRA_VAL_STRINGS(OPT_EXPR, opts, exprs),
    DRA_VAL_STRING(OPT_CLAIM, opts, claim),       DRA_VAL_STRING(OPT_NAMESPACE, opts, namespace),
    DRA_VAL_STRING(OPT_REQUEST, opts, request),
    DRA_VAL_STRINGS(OPT_VAR, opts, vars),         DRA_VAL_STRING(OPT_DEVICE, opts, device),
    DRA_VAL_BOOL(DRA_OPT_EXPLAIN, opts, explain), DRA_VAL_ENUM(DRA_OPT_EXPLAIN, opts, explain_fmt, "format"),
    DRA_VAL_STRING(DRA_OPT_EXPLAIN_FILE, opts, explain_file),
    DRA_VAL_STRING(DRA_OPT_OUTPUT, opts, output), DRA_VAL_BOOL(DRA_OPT_VERBOSE, opts, verbose),
    DRA_VAL_END,
};
/* clang-format on */

static dra_err *gates(const dra_args *a, opts *x)
{
    return dra_tool_features(&dra_select_tool, a, &x->f);
}

/* The gates, and an expression as the first argument of cmd. */
static dra_err *need_expr(opts *x, const dra_args *a, const char *cmd)
{
    dra_err *e = gates(a, x);
    if (!e && a->npos < 1)
        e = dra_err_new(DRA_EXIT_INPUT, "%s: missing the expression (see 'dra-select %s --help')", cmd, cmd);
    return e;
}

static void print_notes(const dra_sel_devices *d)
{
    for (size_t i = 0; i < d->nnotes; i++)
        fprintf(stderr, "%s: note: %s\n", dra_select_tool.prog, d->notes[i]);
}

/* Read and load the input with the shared input options, saying what was
 * relaxed or skipped. */
static dra_err *load_input(const dra_args *a, dra_sel_input *in, char *const *paths, size_t n, const dra_features *f)
{
    dra_err *e = dra_tool_input_options(&in->set, a);
    if (!e)
        e = dra_sel_input_load(in, paths, n, f);
    dra_tool_report_model(&dra_select_tool, a, &in->model);
    return e;
}

static dra_err *run_select(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_err *e = gates(a, x);
    dra_format fmt = DRA_FMT_YAML;
    x->explain |= x->explain_file != NULL;
    dra_sel_note_mode mode = !x->explain ? DRA_SEL_NOTE_ERRORS : x->explain_fmt ? DRA_SEL_NOTE_JSON : DRA_SEL_NOTE_TEXT;
    if (!e && x->output)
        e = dra_format_parse(x->output, &fmt);
    if (!e && x->request && !x->claim)
        e = dra_err_new(DRA_EXIT_INPUT, "--request needs --claim");
    if (!e && x->claim && x->class)
        e = dra_err_new(DRA_EXIT_INPUT, "--class and --claim exclude each other (the request names its class)");
    if (e)
        return e;
    dra_sel_input in = {0};
    dra_selection sel;
    dra_selection_init(&sel, &x->f);
    e = load_input(a, &in, a->pos, a->npos, &x->f);
    if (!e && x->class)
        e = dra_selection_add_class(&sel, &in.model, x->class);
    if (!e && x->claim)
        e = dra_sel_add_claim(&sel, &in.model, x->claim, x->namespace, x->request);
    for (size_t i = 0; i < x->exprs.n; i++)
        e = dra_err_append(e, dra_selection_add_expr(&sel, x->exprs.v[i]));

    size_t matched = 0, failed = 0;
    if (!e) {
        print_notes(&in.devs);
        const dra_sel_device **m;
        dra_buf notes = DRA_BUF_INIT;
        matched = dra_sel_select(&sel, &in.devs, mode, "dra-select: ", &m, &failed, &notes);
        dra_writer *w = x->output ? dra_writer_new(stdout, fmt) : NULL;
        for (size_t i = 0; i < matched && !e; i++) {
            json_t *j = w ? dra_sel_device_json(m[i]) : NULL;
            e = w ? dra_writer_put(w, j) : (printf("%s\n", m[i]->id), NULL);
            json_decref(j);
        }
        if (w)
            e = dra_writer_finish(w, e);
        e = dra_err_append(e, dra_tool_explain_write(x->explain ? x->explain_file : NULL, &notes));
        dra_buf_free(&notes);
        free(m);
    }
    *rc = matched ? DRA_EXIT_OK : DRA_EXIT_NEGATIVE;
    if (!e && failed)
        e = dra_err_new(DRA_EXIT_INPUT, "CEL runtime errors on %zu device%s", failed, failed == 1 ? "" : "s");
    dra_selection_free(&sel);
    dra_sel_input_free(&in);
    return e;
}

static dra_err *run_eval(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_err *e = need_expr(x, a, "eval");
    if (e)
        return e;
    /* Files are read only when there is something to use them for, so that
     * `dra-select eval '1 + 1'` does not wait on stdin. */
    dra_sel_input in = {0};
    if (x->device || a->npos > 1)
        e = load_input(a, &in, a->pos + 1, a->npos - 1, &x->f);
    dra_buf b = DRA_BUF_INIT;
    if (!e)
        e = dra_sel_eval_expr(a->pos[0], &in.devs, x->device, x->vars.v, x->vars.n, &x->f, &b);
    fputs(dra_buf_str(&b), stdout);
    dra_buf_free(&b);
    dra_sel_input_free(&in);
    return e;
}

static dra_err *run_check(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_err *e = need_expr(x, a, "check");
    if (e)
        return e;
    dra_buf b = DRA_BUF_INIT;
    e = dra_sel_check(a->pos, a->npos, &x->f, &b);
    fputs(dra_buf_str(&b), stdout);
    dra_buf_free(&b);
    return e;
}

static dra_err *run_lint(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_err *e = gates(a, x);
    if (e)
        return e;
    dra_records rec;
    e = dra_records_start(&rec, x->output, stdout);
    if (e)
        return e;
    dra_sel_input in = {0};
    if (dra_records_on(&rec)) {
        /* the reader's warnings are findings too: records, not stderr */
        e = dra_tool_input_options(&in.set, a);
        if (!e)
            e = dra_sel_input_load(&in, a->pos, a->npos, &x->f);
        dra_err *w = in.model.warnings;
        in.model.warnings = NULL;
        dra_tool_report_model(&dra_select_tool, a, &in.model);
        int code = DRA_EXIT_OK;
        e = dra_records_take(&rec, e, &code);
        e = dra_err_append(e, dra_records_errs(&rec, w, true));
        dra_err_free(w);
        *rc = code;
    } else {
        e = load_input(a, &in, a->pos, a->npos, &x->f);
    }
    if (!e && *rc == DRA_EXIT_OK) {
        print_notes(&in.devs);
        dra_err *problems = dra_sel_lint(&in.model, &in.devs, &x->f);
        if (dra_records_on(&rec))
            e = dra_records_errs(&rec, problems, false);
        for (dra_err *y = problems; !dra_records_on(&rec) && y; y = y->next) {
            char *s = dra_err_format(y);
            printf("%s\n", s);
            free(s);
        }
        if (problems)
            *rc = DRA_EXIT_NEGATIVE;
        dra_err_free(problems);
    }
    e = dra_err_append(e, dra_records_finish(&rec));
    dra_sel_input_free(&in);
    return e;
}

static dra_err *run_repl(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_objset reading = DRA_OBJSET_INIT;
    dra_err *e = gates(a, x);
    if (!e)
        e = dra_tool_input_options(&reading, a);
    return e ? e : dra_select_repl(a->pos, a->npos, &x->f, &reading, x->verbose);
}

/* clang-format off */
static const dra_runner runners[] = {
    {"select", run_select}, {"eval", run_eval}, {"check", run_check}, {"lint", run_lint}, {"repl", run_repl},
    {NULL, NULL},
};
/* clang-format on */

int main(int argc, char **argv)
{
    opts o = {0};
    return dra_tool_main(&dra_select_tool, runners, vals, argc, argv, &o);
}
