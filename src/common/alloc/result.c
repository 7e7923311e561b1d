/* Building a claim's AllocationResult (dra.md §3.10; upstream incubating
 * Allocate's result loop, createNodeSelector, addNewNodeSelectorRequirements).
 * JSON key order follows the Go types, map keys (consumedCapacity) are sorted
 * as encoding/json sorts them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "capacity.h"
#include "../base/hash.h"
#include "../base/sort.h"

void dra_alloc_share_id(const char *claim_key, const char *request, const char *device_id, char out[37])
{
    /* Two independent 64-bit FNV-1a hashes over "claim\0request\0device".
     * The seeds are kept as they were (the first is the offset basis with its
     * last digit lost) so that printed share IDs stay stable. */
    uint64_t h[2] = {DRA_FNV64_LEGACY_SEED, UINT64_C(0x84222325cbf29ce4)};
    const char *parts[3] = {claim_key, request, device_id};
    for (int k = 0; k < 2; k++)
        for (int p = 0; p < 3; p++) {
            for (const char *s = parts[p]; *s; s++) {
                h[k] = dra_fnv1a(h[k], s, 1);
                if (k)
                    h[k] ^= h[k] >> 29;
            }
            h[k] = dra_fnv1a(h[k], "\xff", 1);
        }
    unsigned char b[16];
    for (int i = 0; i < 8; i++) {
        b[i] = (unsigned char)(h[0] >> (56 - 8 * i));
        b[8 + i] = (unsigned char)(h[1] >> (56 - 8 * i));
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x80); /* version 8: custom */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    static const char hex[] = "0123456789abcdef";
    int o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[b[i] >> 4];
        out[o++] = hex[b[i] & 15];
    }
    out[o] = 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static json_t *result_entry(al_run *r, al_claim *c, al_result_dev *x)
{
    json_t *o = json_object();
    json_object_set_new_nocheck(o, "request", json_string(x->req->full_name));
    json_object_set_new_nocheck(o, "driver", json_string(x->dev->slice->driver));
    json_object_set_new_nocheck(o, "pool", json_string(x->dev->slice->pool));
    json_object_set_new_nocheck(o, "device", json_string(x->dev->name));
    if (x->admin)
        json_object_set_new_nocheck(o, "adminAccess", json_true());
    if (json_is_array(x->req->tolerations) && json_array_size(x->req->tolerations))
        json_object_set_new_nocheck(o, "tolerations", json_deep_copy(x->req->tolerations));
    if (r->w->f.binding_and_status) {
        const al_devx *dx = al_x(x->dev);
        if (json_is_array(dx->binding_conditions) && json_array_size(dx->binding_conditions))
            json_object_set_new_nocheck(o, "bindingConditions", json_deep_copy(dx->binding_conditions));
        if (json_is_array(dx->binding_failure_conditions) && json_array_size(dx->binding_failure_conditions))
            json_object_set_new_nocheck(o, "bindingFailureConditions", json_deep_copy(dx->binding_failure_conditions));
    }
    if (x->has_share) {
        const char *key = (c->uid && *c->uid) ? c->uid : c->ref;
        char *id = dra_xasprintf("%s/%s/%s", x->dev->slice->driver, x->dev->slice->pool, x->dev->name);
        dra_alloc_share_id(key, x->req->full_name, id, x->share_id);
        free(id);
        json_object_set_new_nocheck(o, "shareID", json_string(x->share_id));
    }
    if (x->consumed.n > 0) {
        const char **names = dra_xmalloc(x->consumed.n * sizeof *names);
        for (size_t i = 0; i < x->consumed.n; i++)
            names[i] = x->consumed.names[i];
        dra_sort(names, x->consumed.n, sizeof *names, cmp_str);
        json_t *cc = json_object();
        for (size_t i = 0; i < x->consumed.n; i++) {
            char buf[DRA_QUANTITY_STRMAX];
            json_object_set_new(cc, names[i],
                                json_string(dra_quantity_format(dra_al_capuse_get(&x->consumed, names[i]), buf)));
        }
        free(names);
        json_object_set_new_nocheck(o, "consumedCapacity", cc);
    }
    /* DRAOptionalNodeOperations: "a copy of the ResourceSlice.spec.
     * skipNodeOperations value at the time when the device was allocated"
     * (resource/v1 DeviceRequestAllocationResult.SkipNodeOperations). */
    if (r->w->f.optional_node_operations) {
        const json_t *skip = x->dev->slice->skip_ops;
        if (json_is_array(skip) && json_array_size(skip))
            json_object_set_new_nocheck(o, "skipNodeOperations", json_deep_copy(skip));
    }
    return o;
}

static al_req *selected(al_req *q)
{
    return q->nsubs ? &q->subs[q->selected_sub] : q;
}

static bool list_has(const json_t *list, const char *s)
{
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v) {
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

/* The configuration part of a config entry (everything but `requests`). */
static void copy_config_body(json_t *dst, const json_t *src)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)src, k, v) {
        if (strcmp(k, "requests") != 0)
            json_object_set_new(dst, k, json_deep_copy(v));
    }
}

static json_t *build_config(const al_features *f, al_claim *c)
{
    json_t *cfg = json_array();
    /* Class configs, once per class, in request order. */
    const al_class **seen = dra_xcalloc(c->nreqs + 1, sizeof *seen);
    size_t *start = dra_xcalloc(c->nreqs + 1, sizeof *start), *end = dra_xcalloc(c->nreqs + 1, sizeof *end);
    size_t nseen = 0;
    for (size_t i = 0; i < c->nreqs; i++) {
        al_req *q = selected(&c->reqs[i]);
        if (!q->class)
            continue;
        size_t k;
        for (k = 0; k < nseen && seen[k] != q->class; k++)
            ;
        if (k < nseen) {
            for (size_t e = start[k]; e < end[k]; e++)
                json_array_append_new(json_object_get(json_array_get(cfg, e), "requests"), json_string(q->full_name));
            continue;
        }
        seen[nseen] = q->class;
        start[nseen] = json_array_size(cfg);
        size_t ci;
        const json_t *cj;
        json_array_foreach(q->class->config, ci, cj) {
            json_t *o = json_object();
            json_object_set_new_nocheck(o, "source", json_string("FromClass"));
            json_object_set_new_nocheck(o, "requests", json_pack("[s]", q->full_name));
            copy_config_body(o, cj);
            json_array_append_new(cfg, o);
        }
        end[nseen++] = json_array_size(cfg);
    }
    free(seen);
    free(start);
    free(end);

    /* Claim configs: as is when they apply to all; else once when they name
     * a request or the selected subrequest; configs naming only unselected
     * subrequests are dropped. */
    const json_t *claim_cfg = dra_jfield(dra_jfield(dra_jfield(c->json, "spec"), "devices"), "config");
    size_t i;
    const json_t *cj;
    json_array_foreach(claim_cfg, i, cj) {
        const json_t *reqs = dra_jfield(cj, "requests");
        bool take = !json_is_array(reqs) || !json_array_size(reqs);
        for (size_t k = 0; k < c->nreqs && !take; k++) {
            al_req *q = &c->reqs[k];
            take = list_has(reqs, q->name) || (q->nsubs && list_has(reqs, selected(q)->full_name));
        }
        if (!take)
            continue;
        json_t *o = json_object();
        json_object_set_new_nocheck(o, "source", json_string("FromClaim"));
        if (json_is_array(reqs) && json_array_size(reqs))
            json_object_set_new_nocheck(o, "requests", json_deep_copy(reqs));
        copy_config_body(o, cj);
        json_array_append_new(cfg, o);
    }

    /* A config covering every request gets `requests` cleared (= all), from
     * 1.37 on (structured/internal/{stable,incubating,experimental}
     * allocator_*.go; v0.36.3 keeps them). */
    json_t *o;
    json_array_foreach(f->config_all_unnamed ? cfg : NULL, i, o) {
        const json_t *reqs = json_object_get(o, "requests");
        if (!reqs)
            continue;
        bool all = c->nreqs > 0;
        for (size_t k = 0; k < c->nreqs && all; k++) {
            al_req *q = &c->reqs[k];
            all = list_has(reqs, q->name) || (q->nsubs && list_has(reqs, selected(q)->full_name));
        }
        if (all)
            json_object_del(o, "requests");
    }
    return cfg;
}

static bool has_req(const json_t *list, const json_t *req)
{
    size_t i;
    const json_t *x;
    json_array_foreach(list, i, x) {
        const char *k1 = dra_jfield_str(x, "key"), *k2 = dra_jfield_str(req, "key");
        if (strcmp(k1 ? k1 : "", k2 ? k2 : "") != 0)
            continue;
        const char *o1 = dra_jfield_str(x, "operator"), *o2 = dra_jfield_str(req, "operator");
        if (strcmp(o1 ? o1 : "", o2 ? o2 : "") != 0)
            continue;
        /* same value *set* */
        const json_t *v1 = dra_jfield(x, "values"), *v2 = dra_jfield(req, "values");
        bool same = true;
        size_t k;
        const json_t *v;
        json_array_foreach(v1, k, v)
            same = same && list_has(v2, json_string_value(v) ? json_string_value(v) : "");
        json_array_foreach(v2, k, v)
            same = same && list_has(v1, json_string_value(v) ? json_string_value(v) : "");
        if (same)
            return true;
    }
    return false;
}

static void merge_reqs(json_t *to, const json_t *from)
{
    size_t i;
    const json_t *x;
    json_array_foreach(from, i, x) {
        if (!has_req(to, x))
            json_array_append_new(to, json_deep_copy(x));
    }
}

/* {"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":
 * "In","values":[node]}]}]}, built directly: json_pack reads its format on
 * every call (a sixth of a placed claim's allocation).  NULL when node is
 * not UTF-8, as json_pack. */
static json_t *name_selector(const char *node)
{
    json_t *v = json_string(node);
    if (!v)
        return NULL;
    json_t *values = json_array(), *req = json_object(), *fields = json_array(), *term = json_object(),
           *terms = json_array(), *out = json_object();
    json_array_append_new(values, v);
    json_object_set_new_nocheck(req, "key", json_string("metadata.name"));
    json_object_set_new_nocheck(req, "operator", json_string("In"));
    json_object_set_new_nocheck(req, "values", values);
    json_array_append_new(fields, req);
    json_object_set_new_nocheck(term, "matchFields", fields);
    json_array_append_new(terms, term);
    json_object_set_new_nocheck(out, "nodeSelectorTerms", terms);
    return out;
}

static json_t *node_selector(al_run *r, al_claim *c, dra_err **err)
{
    json_t *exprs = json_array(), *fields = json_array();
    json_t *out = NULL;
    for (size_t i = 0; i < c->nres; i++) {
        al_device *d = c->res[i].dev;
        const char *name;
        const json_t *sel;
        if (d->slice->per_device) {
            name = al_x(d)->node_name;
            sel = al_x(d)->node_selector;
        } else {
            name = d->slice->node_name;
            sel = d->slice->node_selector;
        }
        if (name || d->binds_to_node) {
            out = name_selector(r->node_name ? r->node_name : "");
            goto done;
        }
        if (sel) {
            const json_t *terms = dra_jfield(sel, "nodeSelectorTerms");
            size_t nt = json_is_array(terms) ? json_array_size(terms) : 0;
            if (nt == 1) {
                merge_reqs(fields, dra_jfield(json_array_get(terms, 0), "matchFields"));
                merge_reqs(exprs, dra_jfield(json_array_get(terms, 0), "matchExpressions"));
            } else if (nt > 1) {
                *err = dra_err_new(
                    DRA_EXIT_INPUT,
                    "create NodeSelector for claim %s: unsupported ResourceSlice.NodeSelector with %zu terms", c->name,
                    nt);
                goto done;
            }
        }
    }
    if (json_array_size(exprs) || json_array_size(fields)) {
        json_t *term = json_object();
        if (json_array_size(exprs))
            json_object_set(term, "matchExpressions", exprs);
        if (json_array_size(fields))
            json_object_set(term, "matchFields", fields);
        out = json_pack("{s:[o]}", "nodeSelectorTerms", term);
    }
done:
    json_decref(exprs);
    json_decref(fields);
    return out;
}

json_t *dra_al_build_allocation(al_run *r, al_claim *c, dra_err **err)
{
    json_t *results = json_array();
    for (size_t i = 0; i < c->nres; i++)
        json_array_append_new(results, result_entry(r, c, &c->res[i]));
    json_t *devices = json_object();
    json_object_set_new_nocheck(devices, "results", results);
    json_t *cfg = build_config(&r->w->f, c);
    if (json_array_size(cfg))
        json_object_set_new_nocheck(devices, "config", cfg);
    else
        json_decref(cfg);
    json_t *alloc = json_object();
    json_object_set_new_nocheck(alloc, "devices", devices);
    json_t *ns = node_selector(r, c, err);
    if (*err) {
        json_decref(alloc);
        return NULL;
    }
    if (ns)
        json_object_set_new_nocheck(alloc, "nodeSelector", ns);
    return alloc;
}
