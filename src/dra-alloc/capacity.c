/* dra-alloc capacity: options -> insight/capacity.h -> table or objects; the
 * --fail-below checks decide the exit code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insight/capacity.h"
#include "insight/capacity_page.h"
#include "insight/html.h"
#include "sched/report.h"
#include "tool/progress.h"
#include "alloc_tool.h"

/* clang-format off */
const dra_opt dra_alloc_capacity_opts[] = {
    {OPT_CLASS, "class", 'c', DRA_ARG_REQUIRED, "NAME", "report this DeviceClass (repeatable; default: every class)",
     DRA_COMPLETE_DEVICECLASSES},
    {OPT_BY, "by", 0, DRA_ARG_REQUIRED, "GROUPING", "rows per class (default), node or pool", "class node pool"},
    {OPT_FAIL_BELOW, "fail-below", 0, DRA_ARG_REQUIRED, "CLASS=N",
     "exit 1 when CLASS has fewer than N free devices (repeatable)", NULL},
    {OPT_MATCH_ATTRIBUTE, "match-attribute", 0, DRA_ARG_REQUIRED, "NAME",
     "largest fit of devices sharing this attribute's value (matchAttribute)", NULL},
    DRA_OPT_OUTPUT_ENTRY("table yaml json jsonl html"),
    DRA_OPT_FEATURE_GATES_ENTRY,
    {OPT_TIMEOUT, "timeout", 0, DRA_ARG_REQUIRED, "DURATION", "give up on one probe after this long (seconds or 1m30s; default 10s, 0 = never)",
     NULL},
    {OPT_NO_VALIDATE, "no-validate", 0, DRA_ARG_NONE, NULL, "skip API validation of the input (allocator checks only)",
     NULL},
    DRA_OPT_NOW_ENTRY,
    DRA_OPT_INPUT_ENTRIES,
    DRA_OPT_END,
};
/* clang-format on */

typedef struct floor_ {
    char *cls; /* owned */
    long long n;
} floor_;

static void floors_free(floor_ *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++)
        free(f[i].cls);
    free(f);
}

/* "CLASS=N" values of --fail-below. */
static dra_err *parse_floors(const dra_strv *v, floor_ **out)
{
    *out = dra_xcalloc(v->n + 1, sizeof **out);
    for (size_t i = 0; i < v->n; i++) {
        const char *s = v->v[i], *eq = strrchr(s, '=');
        char *end = NULL;
        long long n = eq ? strtoll(eq + 1, &end, 10) : -1;
        if (!eq || eq == s || !eq[1] || *end || n < 0)
            return dra_err_new(DRA_EXIT_INPUT, "--fail-below: want CLASS=N with N a whole number, not '%s'", s);
        (*out)[i] = (floor_){dra_xstrndup(s, (size_t)(eq - s)), n};
    }
    return NULL;
}

/* A ResourceSlice as read (checked), kept as text alone, in the allocator's input. */
static void keep_slice(void *ctx, const json_t *slice)
{
    dra_slice_pack(((dra_alloc_kept *)ctx)->packs, slice);
}

/* Quota use per namespace, as the claims of the input leave it (status.used
 * where a quota lists a resource): rep's "quotas", when the input has any.
 * The claims, held as text, are made again one at a time and counted; the
 * model holds the scheduler's claims for a pod's extended resources and
 * their pods, whose requests their charge leaves out (getVerifiedPodUsage). */
static dra_err *add_quotas(const input *in, const dra_fleet_claims *claims, json_t *rep)
{
    size_t i;
    for (i = 0; i < in->set.n && !dra_is_resource_quota(in->set.v[i].json); i++)
        ;
    if (i == in->set.n)
        return NULL;
    dra_quota_feed feed = {claims, 0, NULL};
    dra_quota_ledger *l;
    dra_err *e = dra_quota_ledger_new_each(&in->set, &in->model, &in->features, dra_quota_feed_next, &feed, &l);
    dra_quota_feed_end(&feed);
    if (!e) {
        json_t *q = dra_quota_ledger_report(l);
        json_object_set(rep, "quotas", json_object_get(q, "quotas"));
        json_decref(q);
        dra_quota_ledger_free(l);
    }
    return e;
}

static dra_err *write_report(const input *in, const json_t *rep, dra_fleet_by by, bool html)
{
    if (html) {
        dra_buf b = DRA_BUF_INIT;
        dra_capacity_page(rep, &in->features, &b);
        dra_err *e = dra_html_write(stdout, &b);
        dra_buf_free(&b);
        return e;
    }
    if (!in->table)
        return dra_alloc_write_report(rep, "classes", in->fmt);
    dra_err *e = dra_fleet_table(stdout, rep, by);
    if (!e && json_object_get(rep, "quotas")) {
        fputc('\n', stdout);
        e = dra_quota_table(stdout, rep);
    }
    return e;
}

dra_err *dra_alloc_run_capacity(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_progress_begin(a->progress);
    input in;
    floor_ *floors = NULL;
    bool html = x->output && strcmp(x->output, "html") == 0;
    opts y = *x;
    y.output = html ? NULL : x->output; /* -o html: the page, not one of the formats input.c knows */
    dra_err *e = dra_alloc_load_input(a, &y, true, &in);
    if (!e)
        e = parse_floors(&x->fail_below, &floors);
    dra_alloc_kept k = {.fleet = true, .packs = &in.packs}; /* claims and pods as text, out of memory */
    dra_tool_uses uses = {.kinds = DRA_ALLOC_WORLD_KINDS | (1u << DRA_KIND_POD),
                          .other = dra_is_resource_quota,
                          .slice = keep_slice,
                          .take = dra_alloc_kept_take,
                          .read_done = dra_alloc_kept_read_done,
                          .ctx = &k};
    if (!e)
        e = dra_alloc_read_input(a, x, 0, &uses, &in);
    dra_sched_nodes nodes = {0};
    json_t *rep = NULL;
    dra_err *warn = NULL;
    if (!e) {
        dra_sched_nodes_from_model(&in.model, &in.packs, &nodes);
        dra_fleet_opts fo = {(const char *const *)x->classes.v, x->classes.n,
                             /* the page shows every view: the rows per node and per pool */
                             html ? DRA_FLEET_BY_NODE_AND_POOL : (dra_fleet_by)x->by, x->match_attribute, &in.features,
                             in.timeout, &k.claims, &in.packs};
        e = dra_fleet_capacity(&in.model, nodes.v, nodes.n, &fo, &rep, &warn);
        dra_tool_notes(&dra_alloc_tool, a, warn, NULL);
        if (!e)
            e = add_quotas(&in, &k.claims, rep);
    }
    for (size_t i = 0; !e && i < x->fail_below.n; i++)
        if (dra_fleet_free(rep, floors[i].cls) < 0)
            e = dra_err_new(DRA_EXIT_INPUT, "--fail-below: DeviceClass %s is not in the report%s", floors[i].cls,
                            x->classes.n ? " (not named by --class, or not in the input)" : " (not in the input)");
    if (!e)
        e = write_report(&in, rep, (dra_fleet_by)x->by, html);
    for (size_t i = 0; !e && i < x->fail_below.n; i++) {
        long long have = dra_fleet_free(rep, floors[i].cls);
        if (have >= floors[i].n)
            continue;
        fprintf(stderr, "dra-alloc: class %s: %lld free device%s, fewer than %lld\n", floors[i].cls, have,
                have == 1 ? "" : "s", floors[i].n);
        *rc = DRA_EXIT_NEGATIVE;
    }
    json_decref(rep);
    dra_err_free(warn);
    floors_free(floors, x->fail_below.n);
    dra_sched_nodes_free(&nodes);
    dra_alloc_kept_free(&k);
    dra_alloc_input_free(&in);
    return e;
}
