/* dra-alloc schedule --what-if: the input and a changed copy (drain,
 * remove-device, taint, add) -> two scheduling runs -> insight/whatif.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insight/whatif.h"
#include "sched/report.h"
#include "alloc_tool.h"

dra_err *dra_alloc_whatif_check(const opts *x)
{
    const char *given = x->drain.n           ? "--drain"
                        : x->remove_device.n ? "--remove-device"
                        : x->taint.n         ? "--taint"
                        : x->add.n           ? "--add"
                                             : NULL;
    if (!x->what_if && given)
        return dra_err_new(DRA_EXIT_INPUT, "%s needs --what-if", given);
    if (x->what_if && (x->explain || x->classic.n))
        return dra_err_new(DRA_EXIT_INPUT, "--what-if: %s is not possible here",
                           x->explain_file ? "--explain-file"
                           : x->explain    ? "--explain"
                                           : "--classic-driver");
    return NULL;
}

/* What the runs tell the tool: its arguments, the input as given. */
typedef struct whatif_ctx {
    const dra_args *a;
    input *before;
} whatif_ctx;

/* -v: what each run's quota admission did. */
static void ledger_done(void *ctx, dra_quota_ledger *l, bool changed)
{
    const whatif_ctx *w = ctx;
    dra_alloc_quota_admission_done(w->a, l, changed ? "what-if (changed input): " : "what-if (input as given): ");
}

/* The changed input shares the objects of the input as given: an object
 * about to change becomes a copy of its own in the input as given. */
static void keep_before(void *ctx, json_t *obj)
{
    input *before = ((whatif_ctx *)ctx)->before;
    const dra_obj *o = dra_cluster_source(&before->cluster, obj);
    /* not the input's (an added file's), or already kept */
    if (!o || o < before->set.v || o >= before->set.v + before->set.n || o->json != obj)
        return;
    dra_obj *own = &before->set.v[o - before->set.v];
    own->json = json_deep_copy(obj);
    json_decref(obj);
}

dra_err *dra_alloc_run_whatif(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    input before, after;
    dra_err *e = dra_alloc_load_input(a, x, false, &before);
    dra_err_free(dra_alloc_load_input(a, x, false, &after)); /* the same options: the same answer */
    if (!e)
        e = dra_alloc_whatif_check(x);
    dra_sched_opts so = {.timeout = before.timeout,
                         .now = before.now,
                         .features = &before.features,
                         .no_prune = x->no_prune,
                         .name_suffix = DRA_NAME_SUFFIX_HASH,
                         .order = (dra_sched_order)x->order};
    if (!e && x->name_suffix)
        e = dra_name_suffix_parse(x->name_suffix, &so.name_suffix);
    int flags = DRA_READ_WORKLOADS | DRA_READ_IDENTITY;
    /* objects of other kinds are dropped as they are read; PriorityClasses
     * order the queue, ResourceQuotas admit the claims made from templates */
    dra_tool_uses all = {.kinds = DRA_TOOL_ALL_KINDS, .other = dra_alloc_sched_other};
    /* the slices held as text, both runs' (as schedule holds them), unless
     * a device leaves one or more files come in (slices as objects then) */
    bool packed = !x->remove_device.n && !x->add.n;
    /* bound Pods and the claims no pending Pod needs held as records (as
     * schedule holds them), which both inputs share, unless more files
     * come in (whose Pods may need any claim) */
    bool records = !x->add.n;
    if (!e && records)
        e = dra_alloc_read_records(a, x, flags, packed, &before);
    else if (!e && packed)
        e = dra_alloc_read_packed(a, x, flags, DRA_TOOL_ALL_KINDS, &before);
    else if (!e)
        e = dra_alloc_read_input(a, x, flags | DRA_READ_IN_ORDER, &all, &before);
    so.packs = packed ? &before.packs : NULL;
    dra_whatif_spec spec = {x->drain.v, x->drain.n, x->remove_device.v, x->remove_device.n,
                            x->taint.v, x->taint.n, x->add.v,           x->add.n};
    /* the changed input: the input's objects (loaded: converted and
     * defaulted, which loading again keeps), shared until a change changes
     * one (keep_before), with the Pods held as records the changes may
     * reach made again, the --taint rules, the --add files */
    if (!e && records)
        e = dra_alloc_index(&before);
    if (!e && records) {
        dra_whatif_reach *reach = dra_whatif_reach_new(&spec, &before.cluster);
        dra_cluster_share_taken(&after.cluster, &before.cluster, &after.set, dra_whatif_reaches, reach);
        dra_whatif_reach_free(reach);
    }
    for (size_t i = 0; !e && !records && i < before.set.n; i++) {
        const dra_obj *o = &before.set.v[i];
        dra_objset_add(&after.set, json_incref(o->json), o->file, o->doc, o->line, o->item);
    }
    for (size_t i = 0; !e && i < x->taint.n; i++) {
        json_t *rule;
        e = dra_whatif_taint_rule(x->taint.v[i], i, &rule);
        if (!e)
            dra_objset_add(&after.set, rule, "--taint", (int)i + 1, 0, -1);
    }
    if (!e && x->add.n)
        e = dra_tool_read(&dra_alloc_tool, a, (char *const *)x->add.v, x->add.n, flags, &after.set);
    if (!e)
        e = dra_alloc_load_set(a, x, &after);
    if (!e && !records)
        e = dra_alloc_index(&before);
    if (!e)
        e = dra_alloc_index(&after);
    whatif_ctx wc = {a, &before};
    dra_whatif_opts wo = {.sched = so, .ledger_done = ledger_done, .changing = keep_before, .ctx = &wc};
    dra_whatif_result wr = {0};
    if (!e)
        e = dra_whatif_run(&before.cluster, &after.cluster, &spec, &wo, &wr);
    if (!e) /* capped as every tool caps a flood: ten of a kind, a hundred in all */
        dra_tool_print_errs(stderr, dra_alloc_tool.prog, "warning", wr.after.warnings);
    const json_t *rep = e ? NULL : wr.report;
    if (rep && !x->output) {
        dra_buf b = DRA_BUF_INIT;
        dra_whatif_text(rep, &b);
        if (fputs(dra_buf_str(&b), stdout) < 0)
            e = dra_err_new(DRA_EXIT_RUNTIME, "write error");
        dra_buf_free(&b);
    } else if (rep) {
        json_t *one = (json_t *)rep;
        e = dra_write(stdout, &one, 1, before.fmt);
    }
    if (!e && rep && dra_whatif_hurts(rep))
        *rc = DRA_EXIT_NEGATIVE;
    dra_whatif_result_free(&wr);
    dra_alloc_input_free(&before);
    dra_alloc_input_free(&after);
    return e;
}
