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
    dra_time now = {0};
    if (!e)
        e = dra_time_now_or(x->now, &now);
    in->now = now.sec;
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

static dra_load_opts load_opts(const opts *x, input *in)
{
    dra_load_opts lo = {.skip_unknown = true, .no_validate = x->no_validate, .now = in->now};
    lo.validate.features = &in->features;
    return lo;
}

/* What every read ends with: the input report, input errors' exit code, the
 * notes on what was read. */
static dra_err *loaded(const dra_args *a, input *in, dra_err *e)
{
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

dra_err *dra_alloc_load_set(const dra_args *a, const opts *x, input *in)
{
    dra_load_opts lo = load_opts(x, in);
    return loaded(a, in, dra_load(&in->set, &lo, &in->model));
}

typedef struct packing {
    input *in;
    dra_loader *loader;
    dra_errs errs; /* of the objects: many, so not appended one by one */
} packing;

static dra_err *pack_one(void *ctx, dra_obj *o)
{
    packing *p = ctx;
    dra_kind kind;
    bool passed = false;
    dra_err *e = dra_loader_add(p->loader, o, &kind, &passed); /* converts o in place, as dra_load would */
    if (e)
        dra_errs_add(&p->errs, e);
    if (e || !passed) /* a kind the tools skip, or the same object again */
        return NULL;
    if (kind == DRA_KIND_RESOURCE_SLICE) /* held as text alone, in the allocator's input */
        dra_slice_pack(&p->in->packs, o->json);
    else
        dra_objset_keep(&p->in->set, o);
    return NULL;
}

dra_err *dra_alloc_read_packed(const dra_args *a, const opts *x, int flags, input *in)
{
    dra_err *oe = dra_tool_input_options(&in->set, a); /* the loader needs --validate */
    if (oe)
        return oe;
    dra_load_opts lo = load_opts(x, in);
    packing p = {in, dra_loader_new(&lo, in->set.field_validation), DRA_ERRS_INIT};
    p.errs.fold = DRA_ERRS_FOLD; /* a flood is counted, not kept */
    dra_err *e = dra_tool_read_each(&dra_alloc_tool, a, a->pos, a->npos, flags | DRA_READ_IN_ORDER, &in->set,
                                    pack_one, &p);
    dra_model stats = {0};
    e = dra_loader_end(p.loader, e, dra_errs_take(&p.errs), &stats);
    if (!e) {
        lo.checked = true; /* and converted: this pass defaults and indexes */
        e = dra_load(&in->set, &lo, &in->model);
    }
    in->model.skipped += stats.skipped;
    in->model.collapsed += stats.collapsed;
    in->model.warnings = dra_err_append(in->model.warnings, stats.warnings);
    return loaded(a, in, e);
}

void dra_alloc_input_free(input *in)
{
    dra_model_free(&in->model);
    dra_objset_free(&in->set);
    dra_slice_packs_free(&in->packs);
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
