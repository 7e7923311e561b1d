/* The explain trace: for each claim and request, why each candidate device
 * was not taken, the pools seen, and search statistics.  Upstream records
 * none of this; it is what users ask for most.
 *
 * Reasons come from the search's final state.  Reasons that do not depend on
 * the search (selectors, node, taints, disabled features) are recorded once.
 * Reasons that do (in use, counters, constraints, capacity) are replaced by
 * the latest one for the same device, and each remembers the choice that was
 * last when it was recorded: when the search succeeds, a reason recorded
 * under a choice that was later taken back belongs to an abandoned branch
 * and is dropped, and so is any reason for a device the solution gives to
 * that request.  When the search fails there is no final choice; the latest
 * reason per device (the last branch tried) is reported. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/assert.h"
#include "../base/buf.h"
#include "explain.h"
#include "../base/sort.h"

static const char *const reason_names[] = {
    [DRA_REJECT_IN_USE] = "in-use",
    [DRA_REJECT_BINDING_DISABLED] = "binding-conditions-disabled",
    [DRA_REJECT_CLASS_SELECTOR] = "class-selector",
    [DRA_REJECT_REQUEST_SELECTOR] = "request-selector",
    [DRA_REJECT_NODE_MISMATCH] = "node-selector",
    [DRA_REJECT_NODE_FEATURE] = "node-feature",
    [DRA_REJECT_CAPACITY] = "capacity",
    [DRA_REJECT_COUNTERS_DISABLED] = "counters-disabled",
    [DRA_REJECT_COUNTERS] = "counters",
    [DRA_REJECT_TAINT] = "taint",
    [DRA_REJECT_CONSTRAINT] = "constraint",
    [DRA_REJECT_CEL_ERROR] = "cel-error",
};

const char *dra_reject_reason_name(dra_reject_reason r)
{
    if ((size_t)r < sizeof reason_names / sizeof reason_names[0] && reason_names[r])
        return reason_names[r];
    return "unknown";
}

static bool is_dynamic(dra_reject_reason why)
{
    return why == DRA_REJECT_IN_USE || why == DRA_REJECT_COUNTERS || why == DRA_REJECT_CONSTRAINT ||
           why == DRA_REJECT_CAPACITY;
}

void dra_al_explain_push(al_run *r)
{
    if (r->ngens == r->capgens) {
        r->capgens = r->capgens ? r->capgens * 2 : 16;
        r->gens = dra_xrealloc(r->gens, r->capgens * sizeof *r->gens);
    }
    r->gens[r->ngens++] = ++r->gen_seq;
}

void dra_al_explain_pop(al_run *r)
{
    DRA_ASSERT(r->ngens > 0); /* one pop per push: deallocate_last undoes allocate_device */
    if (r->ngens)
        r->ngens--;
}

void dra_al_explain_reject(al_run *r, int ci, al_req *req, int lid, dra_reject_reason why, const char *fmt, ...)
{
    al_req_trace *t = NULL;
    for (size_t i = 0; i < r->ntraces && !t; i++)
        if (r->traces[i].claim == ci && r->traces[i].req == req)
            t = &r->traces[i];
    if (!t) {
        if (r->ntraces == r->captraces) {
            r->captraces = r->captraces ? r->captraces * 2 : 8;
            r->traces = dra_xrealloc(r->traces, r->captraces * sizeof *r->traces);
        }
        t = &r->traces[r->ntraces++];
        *t = (al_req_trace){.claim = ci, .req = req};
        t->seen = dra_xcalloc(r->nldev + 1, sizeof *t->seen);
    }
    if (lid < 0 || (size_t)lid >= r->nldev)
        return;
    bool dyn = is_dynamic(why);
    unsigned gen = r->ngens ? r->gens[r->ngens - 1] : 0;
    al_reject *x = NULL;
    if (t->seen[lid]) {
        /* seen[lid] is 1 + the index of the device's record */
        x = &t->rej[t->seen[lid] - 1];
        if (!x->dynamic)
            return;
        free(x->detail);
    } else {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 8;
            t->rej = dra_xrealloc(t->rej, t->cap * sizeof *t->rej);
        }
        x = &t->rej[t->n++];
        t->seen[lid] = t->n;
    }
    va_list ap;
    va_start(ap, fmt);
    *x = (al_reject){lid, why, dra_xvasprintf(fmt, ap), dyn, gen};
    va_end(ap);
}

bool dra_al_explain_seen(const al_run *r, int ci, const al_req *req, int lid)
{
    if (lid < 0 || (size_t)lid >= r->nldev)
        return false;
    for (size_t i = 0; i < r->ntraces; i++)
        if (r->traces[i].claim == ci && r->traces[i].req == req)
            return r->traces[i].seen[lid] != 0;
    return false;
}

static bool live(const al_run *r, unsigned gen)
{
    if (gen == 0)
        return true;
    for (size_t i = 0; i < r->ngens; i++)
        if (r->gens[i] == gen)
            return true;
    return false;
}

static bool chosen_for(const al_claim *c, const al_req *req, int lid)
{
    for (size_t k = 0; k < c->nres; k++)
        if (c->res[k].req == req && c->res[k].dev->lid == lid)
            return true;
    return false;
}

static int cmp_reject(const void *a, const void *b)
{
    const al_reject *x = a, *y = b;
    return (x->lid > y->lid) - (x->lid < y->lid);
}

json_t *dra_al_explain_build(al_run *r)
{
    json_t *ex = json_object();
    json_object_set_new(ex, "node", json_string(r->node_name ? r->node_name : ""));
    json_t *pools = json_array();
    for (size_t i = 0; i < r->npools; i++) {
        al_pool *p = &r->pools[i];
        size_t nd = 0;
        for (size_t k = 0; k < p->ntarget; k++)
            nd += p->target[k]->ndev;
        json_t *o = json_pack("{s:s,s:s,s:s,s:I}", "driver", p->driver, "pool", p->pool, "status",
                              p->incomplete ? "incomplete"
                              : p->invalid  ? "invalid"
                                            : "usable",
                              "devices", (json_int_t)nd);
        if (p->invalid)
            json_object_set_new(o, "reason", json_string(p->invalid_reason));
        if (p->has_binding)
            json_object_set_new(o, "bindingConditions", json_true());
        json_array_append_new(pools, o);
    }
    json_object_set_new(ex, "pools", pools);
    if (!r->npools && r->w) {
        /* no pool reaches this node: say which exist and whom they serve */
        json_t *other = json_array();
        for (size_t i = 0; i < r->w->npools && json_array_size(other) < 20; i++) {
            const al_pool_slices *ps = r->w->poollist[i];
            const al_slice *s = ps->n ? ps->s[0] : NULL;
            if (!s)
                continue;
            char *why = s->node_name   ? dra_xasprintf("for node %s", s->node_name)
                        : s->all_nodes ? dra_xstrdup("for all nodes")
                        : s->node_selector
                            ? dra_xstrdup("for nodes matching its nodeSelector, which this node does not")
                            : dra_xstrdup("per device node selection: no device is for this node");
            json_array_append_new(other,
                                  json_pack("{s:s,s:s,s:s}", "driver", ps->driver, "pool", ps->pool, "serves", why));
            free(why);
        }
        json_object_set_new(ex, "otherPools", other);
    }
    json_t *claims = json_array();
    al_idbuf ib;
    for (size_t ci = 0; ci < r->nclaims; ci++) {
        al_claim *c = &r->claims[ci];
        json_t *reqs = json_array();
        for (size_t ti = 0; ti < r->ntraces; ti++) {
            al_req_trace *t = &r->traces[ti];
            if (t->claim != (int)ci)
                continue;
            dra_sort(t->rej, t->n, sizeof *t->rej, cmp_reject);
            json_t *rej = json_array();
            for (size_t k = 0; k < t->n; k++)
                if (!r->succeeded || !t->rej[k].dynamic ||
                    (live(r, t->rej[k].gen) && !chosen_for(c, t->req, t->rej[k].lid)))
                    json_array_append_new(
                        rej, json_pack("{s:s,s:s,s:s}", "device", dra_al_id(r->ldev[t->rej[k].lid], &ib), "reason",
                                       dra_reject_reason_name(t->rej[k].reason), "detail", t->rej[k].detail));
            json_array_append_new(reqs, json_pack("{s:s,s:o}", "request", t->req->full_name, "rejected", rej));
        }
        json_t *chosen = json_array();
        for (size_t k = 0; k < c->nres; k++)
            json_array_append_new(chosen, json_pack("{s:s,s:s}", "request", c->res[k].req->full_name, "device",
                                                    dra_al_id(c->res[k].dev, &ib)));
        json_t *co = json_pack("{s:s,s:o,s:o}", "claim", c->ref ? c->ref : "", "requests", reqs, "allocated", chosen);
        /* A failed search says where it last found too few devices. */
        if (!r->succeeded && c->cut_req)
            json_object_set_new(co, "cut",
                                json_pack("{s:s,s:b,s:i,s:i}", "request", c->cut_req, "laterRequests", c->cut_claim,
                                          "need", c->cut_need, "available", c->cut_have));
        json_array_append_new(claims, co);
    }
    json_object_set_new(ex, "claims", claims);
    json_object_set_new(ex, "stats",
                        json_pack("{s:I,s:I,s:I,s:I,s:f}", "invocations", (json_int_t)r->stats.invocations,
                                  "devicesTried", (json_int_t)r->stats.devices_tried, "backtracks",
                                  (json_int_t)r->stats.backtracks, "pruned", (json_int_t)r->stats.pruned, "seconds",
                                  r->stats.seconds));
    return ex;
}

json_t *dra_alloc_explain_json(const dra_alloc_result *r)
{
    return r && r->explain ? json_incref(r->explain) : NULL;
}

void dra_alloc_explain_text(const dra_alloc_result *r, dra_buf *b)
{
    if (!r || !r->explain)
        return;
    const json_t *ex = r->explain;
    dra_buf_printf(b, "node %s:\n", dra_jfield_str(ex, "node"));
    size_t i;
    const json_t *p;
    const json_t *pools = json_object_get(ex, "pools");
    if (!json_array_size(pools)) {
        const json_t *other = json_object_get(ex, "otherPools");
        if (!json_array_size(other))
            dra_buf_puts(b, "  no resource pools are available on this node: the input has no ResourceSlices\n");
        else
            dra_buf_puts(b, "  no resource pools are available on this node; the input's pools:\n");
        json_array_foreach(other, i, p)
            dra_buf_printf(b, "    pool %s/%s: %s\n", dra_jfield_str(p, "driver"), dra_jfield_str(p, "pool"),
                           dra_jfield_str(p, "serves"));
    }
    json_array_foreach(pools, i, p) {
        dra_buf_printf(b, "  pool %s/%s: %s", dra_jfield_str(p, "driver"), dra_jfield_str(p, "pool"),
                       dra_jfield_str(p, "status"));
        if (dra_jfield_str(p, "reason"))
            dra_buf_printf(b, " (%s)", dra_jfield_str(p, "reason"));
        long long nd = (long long)json_integer_value(json_object_get(p, "devices"));
        if (nd || !dra_jfield_str(p, "reason")) /* a pool refused whole was not read for its devices */
            dra_buf_printf(b, ", %lld devices", nd);
        dra_buf_printf(b, "%s\n",
                       dra_jfield_true(p, "bindingConditions") ? ", binding conditions (searched last)" : "");
    }
    const json_t *c;
    long last = -1; /* the last claim the search reached: one with reasons or a cut */
    json_array_foreach(json_object_get(ex, "claims"), i, c)
        if (json_array_size(json_object_get(c, "requests")) || json_object_get(c, "cut"))
            last = (long)i;
    json_array_foreach(json_object_get(ex, "claims"), i, c) {
        const json_t *cut = json_object_get(c, "cut");
        char *cut_text = NULL;
        if (cut) {
            long long need = (long long)json_integer_value(json_object_get(cut, "need"));
            long long have = (long long)json_integer_value(json_object_get(cut, "available"));
            if (dra_jfield_true(cut, "laterRequests"))
                cut_text = dra_xasprintf("request %s and the ones after it need %lld devices; %lld could serve them",
                                         dra_jfield_str(cut, "request"), need, have);
            else
                cut_text = dra_xasprintf("request %s needs %lld device%s; %lld could serve it",
                                         dra_jfield_str(cut, "request"), need, need == 1 ? "" : "s", have);
        }
        if (!json_array_size(json_object_get(c, "requests")) && !json_array_size(json_object_get(c, "allocated"))) {
            /* never an empty verdict */
            dra_buf_printf(b, "  claim %s: nothing allocated: %s\n", dra_jfield_str(c, "claim"),
                           !json_array_size(pools) ? "no device is available on this node"
                           : cut_text              ? cut_text
                           : (long)i < last ? "its devices were given back when a claim after it could not be served"
                           : last >= 0      ? "not reached: a claim before it could not be served"
                                            : "no device was tried");
            free(cut_text);
            continue;
        }
        dra_buf_printf(b, "  claim %s:\n", dra_jfield_str(c, "claim"));
        if (cut_text)
            dra_buf_printf(b, "    search cut where %s\n", cut_text);
        free(cut_text);
        size_t k;
        const json_t *q;
        json_array_foreach(json_object_get(c, "requests"), k, q) {
            dra_buf_printf(b, "    request %s:\n", dra_jfield_str(q, "request"));
            size_t m;
            const json_t *x;
            json_array_foreach(json_object_get(q, "rejected"), m, x)
                dra_buf_printf(b, "      %s: %s: %s\n", dra_jfield_str(x, "device"), dra_jfield_str(x, "reason"),
                               dra_jfield_str(x, "detail"));
        }
        json_array_foreach(json_object_get(c, "allocated"), k, q)
            dra_buf_printf(b, "    allocated %s -> %s\n", dra_jfield_str(q, "request"), dra_jfield_str(q, "device"));
    }
    const json_t *st = json_object_get(ex, "stats");
    dra_buf_printf(b, "  search: %lld invocations, %lld devices tried, %lld backtracks, %lld pruned, %.3f ms\n",
                   (long long)json_integer_value(json_object_get(st, "invocations")),
                   (long long)json_integer_value(json_object_get(st, "devicesTried")),
                   (long long)json_integer_value(json_object_get(st, "backtracks")),
                   (long long)json_integer_value(json_object_get(st, "pruned")),
                   json_real_value(json_object_get(st, "seconds")) * 1000.0);
}

/* ---- one sentence per pod ------------------------------------------------ */

/* What to do about a device rejected for a reason, ranked: the lower the
 * rank, the less there is to change (freeing a device in use beats
 * changing a selector, which beats moving to another node). */
typedef struct fix_rule {
    const char *reason;
    int rank;
    const char *fix;
} fix_rule;

static const fix_rule fixes[] = {
    {"in-use", 0, "free it (delete that claim or end its pod), or add a device"},
    {"counters", 1, "free the counters its pool's other devices hold, or add a device"},
    {"capacity", 2, "ask for less capacity, or free the claims sharing the device"},
    {"constraint", 3, "relax the claim's constraint"},
    {"taint", 4, "tolerate the taint in the request, or remove it"},
    {"binding-conditions-disabled", 6, "enable the feature gates it names"},
    {"counters-disabled", 6, "enable the feature gate it names"},
    {"node-feature", 6, "enable the feature the node lacks"},
    {"request-selector", 7, "widen the request's selectors"},
    {"class-selector", 8, "ask for a device class that selects it"},
    {"node-selector", 9, "run the pod where the device is available"},
    {"cel-error", 10, "fix the expression"},
};

typedef struct nearest {
    int rank; /* INT_MAX: none yet */
    const char *node, *claim, *request, *device, *detail, *fix;
} nearest;

static void consider(nearest *best, int rank, const char *node, const char *claim, const char *request,
                     const json_t *rej, const char *fix)
{
    if (rank >= best->rank)
        return;
    *best = (nearest){rank, node, claim, request, dra_jfield_str(rej, "device"), dra_jfield_str(rej, "detail"), fix};
}

/* The nearest rejection of one node's trace. */
static void nearest_in(const json_t *ex, const char *node, nearest *best)
{
    size_t i, k, m;
    const json_t *c, *q, *x;
    json_array_foreach(json_object_get(ex, "claims"), i, c)
        json_array_foreach(json_object_get(c, "requests"), k, q)
            json_array_foreach(json_object_get(q, "rejected"), m, x) {
                const char *reason = dra_jfield_str(x, "reason"), *detail = dra_jfield_str(x, "detail");
                if (!reason || !detail)
                    continue;
                if (!strcmp(reason, "in-use") && !strcmp(detail, "allocated earlier in this attempt"))
                    continue; /* the pod's own other requests: too few devices, which the cut tells */
                if (!strcmp(reason, "capacity") && strstr(detail, " requested; the device publishes ")) {
                    consider(best, 5, node, dra_jfield_str(c, "claim"), dra_jfield_str(q, "request"), x,
                             "ask for a capacity the device publishes");
                    continue;
                }
                for (size_t f = 0; f < sizeof fixes / sizeof fixes[0]; f++)
                    if (!strcmp(reason, fixes[f].reason))
                        consider(best, fixes[f].rank, node, dra_jfield_str(c, "claim"), dra_jfield_str(q, "request"), x,
                                 fixes[f].fix);
            }
}

char *dra_alloc_explain_verdict(const json_t *const *traces, const char *const *names, size_t n)
{
    nearest best = {.rank = INT_MAX};
    size_t tried = 0, with_pools = 0;
    const json_t *cut = NULL, *cut_claim = NULL;
    const char *cut_node = NULL;
    long long cut_have = -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *ex = traces[i];
        if (!ex)
            continue;
        tried++;
        if (json_array_size(json_object_get(ex, "pools")))
            with_pools++;
        nearest_in(ex, names[i], &best);
        size_t k;
        const json_t *c;
        json_array_foreach(json_object_get(ex, "claims"), k, c) {
            const json_t *x = json_object_get(c, "cut");
            long long have = x ? (long long)json_integer_value(json_object_get(x, "available")) : -1;
            if (x && have > cut_have) {
                cut = x;
                cut_claim = c;
                cut_node = names[i];
                cut_have = have;
            }
        }
    }
    if (!tried)
        return NULL;
    if (!with_pools)
        return dra_xasprintf("no ResourceSlice serves %s; fix: publish devices there (is the driver running?)",
                             tried == 1 ? "the node tried" : "any of the nodes tried");
    if (best.rank != INT_MAX)
        return dra_xasprintf("claim %s, request %s finds no device on %zu node%s; nearest: %s on %s, %s; fix: %s",
                             best.claim ? best.claim : "", best.request ? best.request : "", tried,
                             tried == 1 ? "" : "s", best.device ? best.device : "", best.node ? best.node : "",
                             best.detail, best.fix);
    if (cut) {
        long long need = (long long)json_integer_value(json_object_get(cut, "need"));
        return dra_xasprintf("claim %s, request %s%s needs %lld device%s, and at most %lld could serve on %s; "
                             "fix: add devices, or ask for fewer",
                             dra_jfield_str(cut_claim, "claim"), dra_jfield_str(cut, "request"),
                             dra_jfield_true(cut, "laterRequests") ? " with the ones after it" : "", need,
                             need == 1 ? "" : "s", cut_have, cut_node);
    }
    return dra_xasprintf("the devices of %zu node%s could not serve the claims together; fix: add devices", tried,
                         tried == 1 ? "" : "s");
}
