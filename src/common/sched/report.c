/* Reports of a scheduling run, and the nodes it runs on.  See report.h. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "../alloc/node.h"
#include "../io/json.h"
#include "../base/sort.h"
#include "../model/kinds.h"

static const char *node_name(const json_t *n)
{
    return json_string_value(json_object_get(json_object_get(n, "metadata"), "name"));
}

static int cmp_node(const void *a, const void *b)
{
    return strcmp(node_name(*(json_t *const *)a), node_name(*(json_t *const *)b));
}

void dra_sched_nodes_from_model(const dra_model *m, const dra_slice_packs *packs, dra_sched_nodes *out)
{
    *out = (dra_sched_nodes){0};
    const dra_model_list *l = dra_model_kind(m, DRA_KIND_NODE);
    if (l->n) {
        out->v = dra_xcalloc(l->n, sizeof *out->v);
        for (size_t i = 0; i < l->n; i++)
            out->v[out->n++] = l->v[i]->json;
        return;
    }
    l = dra_model_kind(m, DRA_KIND_RESOURCE_SLICE);
    out->v = dra_xcalloc(l->n + (packs ? packs->n : 0) + 1, sizeof *out->v);
    for (size_t i = 0; i < l->n; i++) {
        const char *nn = json_string_value(json_object_get(json_object_get(l->v[i]->json, "spec"), "nodeName"));
        if (nn && *nn)
            out->v[out->n++] = dra_alloc_bare_node(nn);
    }
    for (size_t i = 0; packs && i < packs->n; i++)
        if (packs->v[i]->node_name)
            out->v[out->n++] = dra_alloc_bare_node(packs->v[i]->node_name);
    dra_sort(out->v, out->n, sizeof *out->v, cmp_node);
    size_t u = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (u && !cmp_node(&out->v[u - 1], &out->v[i]))
            json_decref(out->v[i]);
        else
            out->v[u++] = out->v[i];
    }
    out->n = out->made = u;
}

void dra_sched_nodes_free(dra_sched_nodes *n)
{
    for (size_t i = 0; i < n->made; i++)
        json_decref(n->v[i]);
    free(n->v);
    *n = (dra_sched_nodes){0};
}

static const char *outcome_name(dra_pod_outcome o)
{
    return o == DRA_POD_SCHEDULED       ? "scheduled"
           : o == DRA_POD_UNSCHEDULABLE ? "unschedulable"
           : o == DRA_POD_ERROR         ? "error"
                                        : "skipped";
}

/* The rejected devices of a node's allocator trace. */
static void trace_rejections(const json_t *alloc, dra_buf *b)
{
    size_t c, k, r;
    json_t *cl, *rq, *rej;
    json_array_foreach(json_object_get(alloc, "claims"), c, cl) {
        const char *claim = dra_jfield_str(cl, "claim");
        json_array_foreach(json_object_get(cl, "requests"), k, rq) {
            const char *req = dra_jfield_str(rq, "request");
            json_array_foreach(json_object_get(rq, "rejected"), r, rej) {
                const char *dev = dra_jfield_str(rej, "device"), *detail = dra_jfield_str(rej, "detail");
                dra_buf_printf(b, "    claim %s, request %s: %s: %s\n", claim ? claim : "", req ? req : "",
                               dev ? dev : "", detail ? detail : "");
            }
        }
    }
}

void dra_sched_report_pods(const dra_sched_result *res, const char *prog, bool explain, bool json, dra_buf *b, int *rc)
{
    for (size_t i = 0; i < res->npods; i++) {
        const dra_sched_pod *sp = &res->pods[i];
        if (explain)
            dra_sched_pod_trace(sp, json, b);
        else if (sp->outcome == DRA_POD_UNSCHEDULABLE || sp->outcome == DRA_POD_ERROR)
            dra_buf_printf(b, "%s: pod %s: %s\n", prog, sp->ref, sp->message ? sp->message : "");
        if (sp->outcome == DRA_POD_UNSCHEDULABLE && *rc == 0)
            *rc = 1;
        if (sp->outcome == DRA_POD_ERROR)
            *rc = 2;
    }
}

/* One sentence for an unschedulable pod (dra_alloc_explain_verdict over
 * the allocator traces of the nodes tried), else its message; NULL for a
 * pod that is not unschedulable.  The caller frees it. */
static char *verdict(const dra_sched_pod *sp)
{
    if (sp->outcome != DRA_POD_UNSCHEDULABLE)
        return NULL;
    size_t n = json_array_size(sp->trace);
    const json_t **traces = dra_xcalloc(n + 1, sizeof *traces);
    const char **names = dra_xcalloc(n + 1, sizeof *names);
    size_t i, npre = 0;
    json_t *t;
    const char *pre = NULL;
    json_array_foreach(sp->trace, i, t) {
        traces[i] = json_object_get(t, "allocator");
        names[i] = dra_jfield_str(t, "node");
        if (dra_jfield_str(t, "prefiltered") && !npre++)
            pre = dra_jfield_str(t, "prefiltered");
    }
    char *v = dra_alloc_explain_verdict(traces, names, n);
    free(traces);
    free(names);
    if (!v && npre) /* no allocator ran: the free-device bound refused every node */
        v = dra_xasprintf("%zu node%s refused before allocating: %s; fix: add devices, or free some", npre,
                          npre == 1 ? "" : "s", pre);
    else if (v && npre) { /* and the nodes the allocator never saw */
        char *w =
            dra_xasprintf("%s (%zu more node%s refused before allocating: %s)", v, npre, npre == 1 ? "" : "s", pre);
        free(v);
        v = w;
    }
    return v ? v : dra_xstrdup(sp->message ? sp->message : "no node was tried");
}

json_t *dra_sched_pod_json(const dra_sched_pod *sp)
{
    char *summary = verdict(sp);
    json_t *o = json_pack("{s:s,s:s}", "pod", sp->ref, "outcome", outcome_name(sp->outcome));
    if (sp->node) {
        json_object_set_new(o, "node", json_string(sp->node));
        json_object_set_new(o, "score", json_integer(sp->score));
    }
    if (sp->message)
        json_object_set_new(o, "message", json_string(sp->message));
    if (sp->queue_pos) {
        json_t *q = json_pack("{s:I,s:I,s:s}", "position", (json_int_t)sp->queue_pos, "priority",
                              (json_int_t)sp->priority, "why", sp->queue ? sp->queue : "");
        if (sp->group)
            json_object_set_new(q, "group", json_string(sp->group));
        json_object_set_new(o, "queue", q);
    }
    if (sp->trace)
        json_object_set(o, "nodes", sp->trace);
    if (summary)
        json_object_set_new(o, "summary", json_string(summary));
    free(summary);
    return o;
}

void dra_sched_pod_trace(const dra_sched_pod *sp, bool json, dra_buf *b)
{
    if (json) {
        json_t *o = dra_sched_pod_json(sp);
        char *s = json_dumps(o, JSON_COMPACT);
        dra_buf_printf(b, "%s\n", s ? s : "");
        free(s);
        json_decref(o);
        return;
    }
    char *summary = verdict(sp);
    if (sp->outcome == DRA_POD_SCHEDULED)
        dra_buf_printf(b, "pod %s: node %s (score %lld)\n", sp->ref, sp->node, (long long)sp->score);
    else
        dra_buf_printf(b, "pod %s: %s\n", sp->ref, sp->message ? sp->message : "");
    if (sp->queue_pos)
        dra_buf_printf(b, "  queue: #%zu, %s\n", sp->queue_pos, sp->queue ? sp->queue : "");
    size_t i;
    json_t *t;
    json_array_foreach(sp->trace, i, t) {
        const char *node = dra_jfield_str(t, "node"), *skipped = dra_jfield_str(t, "skipped"),
                   *pre = dra_jfield_str(t, "prefiltered");
        if (skipped)
            dra_buf_printf(b, "  %s: not tried (%s)\n", node, skipped);
        else if (json_is_true(json_object_get(t, "fits")))
            dra_buf_printf(b, "  %s: fits, score %lld\n", node,
                           (long long)json_integer_value(json_object_get(t, "score")));
        else {
            dra_buf_printf(b, "  %s: %s%s%s\n", node, dra_jfield_str(t, "reason"), pre ? " -- " : "", pre ? pre : "");
            trace_rejections(json_object_get(t, "allocator"), b);
        }
    }
    if (summary)
        dra_buf_printf(b, "  in short: %s\n", summary);
    free(summary);
}

void dra_sched_stats_format(const dra_sched_stats *st, dra_buf *b)
{
    dra_buf_printf(b,
                   "%lld pods, %lld scheduled, %lld unschedulable, %lld errors, %lld node checks, %lld prefiltered, "
                   "%lld allocator runs, %.3f s",
                   (long long)st->pods, (long long)st->scheduled, (long long)st->unschedulable, (long long)st->errors,
                   (long long)st->nodes_checked, (long long)st->nodes_prefiltered, (long long)st->allocator_runs,
                   st->seconds);
}
