/* dra-alloc: the options and input every subcommand shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/node.h"
#include "io/table.h"
#include "model/time.h"
#include "alloc_tool.h"

dra_err *dra_alloc_load_input(const dra_args *a, const opts *x, bool tables, input *in)
{
    memset(in, 0, sizeof *in); /* DRA_OBJSET_INIT, DRA_MODEL_INIT, DRA_FMT_YAML */
    in->timeout = 10;
    dra_err *e = dra_tool_features(&x->gates, &in->features);
    if (!e && tables)
        e = dra_format_parse_table(x->output, &in->table, &in->fmt);
    else if (!e && x->output)
        e = dra_format_parse(x->output, &in->fmt);
    if (!e && x->timeout) {
        char *end;
        in->timeout = strtod(x->timeout, &end);
        if (*end || end == x->timeout || in->timeout < 0)
            e = dra_err_new(DRA_EXIT_INPUT, "--timeout: invalid number of seconds %s", x->timeout);
    }
    int64_t ns = 0;
    if (!e)
        e = dra_time_now_or(x->now, &ns);
    in->now = ns / DRA_NSEC_PER_SEC;
    return e;
}

dra_err *dra_alloc_read_input(const dra_args *a, const opts *x, int flags, input *in)
{
    return dra_alloc_read_paths(a, x, a->pos, a->npos, flags, in);
}

dra_err *dra_alloc_read_paths(const dra_args *a, const opts *x, char *const *paths, size_t n, int flags, input *in)
{
    dra_err *e = dra_tool_read(&dra_alloc_tool, a, paths, n, flags, &in->set);
    return e ? e : dra_alloc_load_set(a, x, in);
}

dra_err *dra_alloc_load_set(const dra_args *a, const opts *x, input *in)
{
    dra_load_opts lo = {.skip_unknown = true, .no_validate = x->no_validate, .now = in->now};
    lo.validate.features = &in->features;
    dra_err *e = dra_load(&in->set, &lo, &in->model);
    dra_tool_report_model(&dra_alloc_tool, a, &in->model);
    for (dra_err *y = e; y; y = y->next)
        y->code = DRA_EXIT_INPUT;
    if (!e) {
        dra_err *w = dra_alloc_input_warnings(&in->model);
        dra_tool_notes(&dra_alloc_tool, a, w, NULL);
        dra_err_free(w);
    }
    return e;
}

void dra_alloc_input_free(input *in)
{
    dra_model_free(&in->model);
    dra_objset_free(&in->set);
}

void dra_alloc_print_err(dra_buf *b)
{
    fputs(dra_buf_str(b), stderr);
    dra_buf_free(b);
}

dra_err *dra_alloc_write_report(const json_t *rep, const char *key, dra_format fmt)
{
    if (fmt == DRA_FMT_JSONL)
        return dra_write_array(stdout, json_object_get(rep, key), fmt);
    json_t *one = (json_t *)rep;
    return dra_write(stdout, &one, 1, fmt);
}
