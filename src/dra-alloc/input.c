/* dra-alloc: the options and input every subcommand shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/node.h"
#include "io/table.h"
#include "model/time.h"
#include "sched/queue.h"
#include "alloc_tool.h"

dra_err *dra_alloc_load_input(const dra_args *a, const opts *x, bool tables, input *in)
{
    memset(in, 0, sizeof *in); /* DRA_OBJSET_INIT, DRA_MODEL_INIT, DRA_FMT_YAML */
    in->timeout = 10;
    dra_err *e = dra_tool_features(&dra_alloc_tool, a, &in->features);
    if (!e && tables)
        e = dra_format_parse_table(x->output, &in->table, &in->fmt);
    else if (!e && x->output)
        e = dra_format_parse(x->output, &in->fmt);
    if (!e && x->timeout) {
        int64_t ns = 0;
        e = dra_err_field(dra_duration_arg(x->timeout, &ns), "--timeout");
        if (!e && ns < 0)
            e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "must not be negative, not %s", x->timeout), "--timeout");
        in->timeout = (double)ns / 1e9;
    }
    dra_time now = {0};
    if (!e)
        e = dra_time_now_or(x->now, &now);
    in->now = now.sec;
    return e;
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
        dra_err *w = dra_alloc_input_warnings(&in->model, &in->features);
        dra_tool_notes(&dra_alloc_tool, a, w, NULL);
        dra_err_free(w);
    }
    return e;
}

dra_err *dra_alloc_read_input(const dra_args *a, const opts *x, int flags, const dra_tool_uses *uses, input *in)
{
    return dra_alloc_read_paths(a, x, a->pos, a->npos, flags, uses, in);
}

dra_err *dra_alloc_read_paths(const dra_args *a, const opts *x, char *const *paths, size_t n, int flags,
                              const dra_tool_uses *uses, input *in)
{
    dra_load_opts lo = load_opts(x, in);
    return loaded(a, in, dra_tool_load(&dra_alloc_tool, a, paths, n, flags, uses, &lo, &in->set, &in->model));
}

dra_err *dra_alloc_load_set(const dra_args *a, const opts *x, input *in)
{
    dra_load_opts lo = load_opts(x, in);
    return loaded(a, in, dra_load(&in->set, &lo, &in->model));
}

static void pack(void *ctx, const json_t *slice)
{
    dra_slice_pack(&((input *)ctx)->packs, slice); /* held as text alone, in the allocator's input */
}

/* A Pod on a node, outside any PodGroup (whose members the queue counts
 * from the set), or a ResourceClaim, of the shape the cluster index wants,
 * as a record (the claims a pending pod needs are given back once all is
 * read). */
static bool take(void *ctx, dra_kind kind, const dra_obj *o)
{
    input *in = ctx;
    if (!in->take_records)
        return false;
    dra_err *shape = NULL;
    if (kind == DRA_KIND_POD && *dra_jstr_or(o->json, "spec.nodeName", "") &&
        !dra_jget(o->json, "spec.schedulingGroup"))
        shape = dra_check_pod_shape(o);
    else if (kind == DRA_KIND_RESOURCE_CLAIM)
        shape = dra_check_claim_shape(o);
    else
        return false;
    if (shape) { /* left to the index, which says so */
        dra_err_free(shape);
        return false;
    }
    if (kind == DRA_KIND_POD)
        dra_cluster_take_pod(&in->cluster, o, in->set.n);
    else
        dra_cluster_take_claim(&in->cluster, o);
    return true;
}

static void read_done(void *ctx, dra_objset *set)
{
    dra_cluster_give_back(&((input *)ctx)->cluster, set);
}

bool dra_alloc_sched_other(const json_t *obj)
{
    return dra_is_priority_class(obj) || dra_is_resource_quota(obj);
}

dra_err *dra_alloc_read_packed(const dra_args *a, const opts *x, int flags, uint32_t kinds, input *in)
{
    dra_tool_uses uses = {.kinds = kinds, .slice = pack, .take = take, .read_done = read_done, .ctx = in};
    if (kinds & (1u << DRA_KIND_POD)) /* the queue reads pods' PriorityClasses, quota admission ResourceQuotas */
        uses.other = dra_alloc_sched_other;
    return dra_alloc_read_input(a, x, flags | DRA_READ_IN_ORDER, &uses, in);
}

dra_err *dra_alloc_read_records(const dra_args *a, const opts *x, int flags, bool packed, input *in)
{
    in->take_records = true;
    if (packed)
        return dra_alloc_read_packed(a, x, flags, DRA_TOOL_ALL_KINDS, in);
    dra_tool_uses uses = {
        .kinds = DRA_TOOL_ALL_KINDS, .other = dra_alloc_sched_other, .take = take, .read_done = read_done, .ctx = in};
    return dra_alloc_read_input(a, x, flags | DRA_READ_IN_ORDER, &uses, in);
}

dra_err *dra_alloc_read_sched(const dra_args *a, const opts *x, input *in)
{
    in->take_records = true;
    return dra_alloc_read_packed(a, x, DRA_READ_WORKLOADS | DRA_READ_IDENTITY, DRA_TOOL_ALL_KINDS, in);
}

dra_err *dra_alloc_index(input *in)
{
    return dra_cluster_adopt(&in->cluster, &in->set, &in->model);
}

void dra_alloc_input_free(input *in)
{
    dra_cluster_free(&in->cluster);
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
