/* Allocation diff.  See diff.h. */
#include "diff.h"

#include <stdlib.h>
#include <string.h>

#include "../io/json.h"
#include "../base/hash.h"
#include "../model/kinds.h"

char *dra_diff_alloc_node(const json_t *allocation)
{
    if (!allocation)
        return NULL;
    const json_t *sel = dra_jfield(allocation, "nodeSelector");
    if (!sel)
        return dra_xstrdup("");
    const json_t *terms = dra_jfield(sel, "nodeSelectorTerms");
    if (json_array_size(terms) == 1) {
        const json_t *t = json_array_get(terms, 0);
        const json_t *mf = dra_jfield(t, "matchFields");
        const json_t *r = json_array_get(mf, 0);
        const json_t *vals = dra_jfield(r, "values");
        const char *key = dra_jfield_str(r, "key"), *op = dra_jfield_str(r, "operator");
        if (json_array_size(mf) == 1 && !json_array_size(dra_jfield(t, "matchExpressions")) && key && op &&
            strcmp(key, "metadata.name") == 0 && strcmp(op, "In") == 0 && json_array_size(vals) == 1 &&
            json_is_string(json_array_get(vals, 0)))
            return dra_xstrdup(json_string_value(json_array_get(vals, 0)));
    }
    char *s = json_dumps(sel, JSON_COMPACT | JSON_SORT_KEYS);
    return s ? s : dra_xstrdup("?");
}

static const json_t *allocation_of(const json_t *claim)
{
    return dra_jfield(dra_jfield(claim, "status"), "allocation");
}

static json_t *node_json(const char *n)
{
    return n ? json_string(n) : json_null();
}

/* results of an allocation as {request, driver, pool, device} objects, with a key per entry */
static bool has_result(const json_t *results, const json_t *r)
{
    size_t i;
    const json_t *x;
    json_array_foreach(results, i, x) {
        bool same = true;
        static const char *const keys[] = {"request", "driver", "pool", "device"};
        for (int k = 0; k < 4 && same; k++) {
            const char *a = dra_jfield_str(x, keys[k]), *b = dra_jfield_str(r, keys[k]);
            same = (a && b) ? strcmp(a, b) == 0 : a == b;
        }
        if (same)
            return true;
    }
    return false;
}

static json_t *result_ref(const json_t *r)
{
    json_t *o = json_object();
    static const char *const keys[] = {"request", "driver", "pool", "device"};
    for (int k = 0; k < 4; k++) {
        const char *v = dra_jfield_str(r, keys[k]);
        json_object_set_new(o, keys[k], json_string(v ? v : ""));
    }
    return o;
}

static json_t *minus_results(const json_t *a, const json_t *b)
{
    json_t *out = json_array();
    size_t i;
    const json_t *x;
    json_array_foreach(a, i, x) {
        if (!has_result(b, x))
            json_array_append_new(out, result_ref(x));
    }
    return out;
}

static bool has_name(const json_t *list, const char *name)
{
    size_t i;
    const json_t *x;
    json_array_foreach(list, i, x) {
        const char *n = dra_jfield_str(x, "name");
        if (n && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

/* "resource/name" of each reservedFor entry of a missing from b */
static json_t *minus_reservations(const json_t *a, const json_t *b)
{
    json_t *out = json_array();
    size_t i;
    const json_t *x;
    json_array_foreach(a, i, x) {
        const char *n = dra_jfield_str(x, "name"), *r = dra_jfield_str(x, "resource");
        if (!n || has_name(b, n))
            continue;
        char *s = dra_xasprintf("%s/%s", r ? r : "", n);
        json_array_append_new(out, json_string(s));
        free(s);
    }
    return out;
}

typedef struct summary {
    long long claims, changed, added, removed, unchanged, devices, node, config, reservations, pods, pods_moved;
} summary;

static json_t *change_base(const char *kind, const json_t *obj, const char *change)
{
    const json_t *meta = dra_jfield(obj, "metadata");
    const char *ns = dra_jfield_str(meta, "namespace"), *name = dra_jfield_str(meta, "name");
    return json_pack("{s:s,s:s,s:s,s:s}", "kind", kind, "namespace", ns ? ns : "", "name", name ? name : "", "change",
                     change);
}

/* Claim a (NULL: added) against b (NULL: removed); NULL when unchanged. */
static json_t *claim_change(const json_t *a, const json_t *b, summary *s)
{
    s->claims++;
    const json_t *aa = a ? allocation_of(a) : NULL, *ba = b ? allocation_of(b) : NULL;
    const json_t *ar = dra_jget(aa, "devices.results"), *br = dra_jget(ba, "devices.results");
    json_t *c = change_base("ResourceClaim", a ? a : b, !a ? "added" : !b ? "removed" : "changed");
    bool changed = !a || !b;
    if (!a)
        s->added++;
    if (!b)
        s->removed++;
    if ((aa != NULL) != (ba != NULL) && a && b) {
        json_object_set_new(c, "allocated", json_pack("{s:b,s:b}", "from", aa != NULL, "to", ba != NULL));
        changed = true;
    }
    json_t *rem = minus_results(ar, br), *add = minus_results(br, ar);
    if (json_array_size(rem) || json_array_size(add)) {
        json_object_set_new(c, "devices", json_pack("{s:o,s:o}", "removed", rem, "added", add));
        changed = true;
        s->devices += a && b;
    } else {
        json_decref(rem);
        json_decref(add);
    }
    char *an = dra_diff_alloc_node(aa), *bn = dra_diff_alloc_node(ba);
    if ((an && bn) ? strcmp(an, bn) != 0 : an != bn) {
        json_object_set_new(c, "node", json_pack("{s:o,s:o}", "from", node_json(an), "to", node_json(bn)));
        changed = true;
        s->node += a && b;
    }
    free(an);
    free(bn);
    const json_t *acfg = dra_jget(aa, "devices.config"), *bcfg = dra_jget(ba, "devices.config");
    if (!json_equal((json_t *)acfg, (json_t *)bcfg) && (acfg || bcfg)) {
        json_object_set_new(c, "config", json_pack("{s:O?,s:O?}", "from", acfg, "to", bcfg));
        changed = true;
        s->config += a && b;
    }
    const json_t *arv = dra_jget(dra_jfield(a, "status"), "reservedFor"),
                 *brv = dra_jget(dra_jfield(b, "status"), "reservedFor");
    rem = minus_reservations(arv, brv);
    add = minus_reservations(brv, arv);
    if (json_array_size(rem) || json_array_size(add)) {
        json_object_set_new(c, "reservations", json_pack("{s:o,s:o}", "removed", rem, "added", add));
        changed = true;
        s->reservations += a && b;
    } else {
        json_decref(rem);
        json_decref(add);
    }
    if (!changed) {
        s->unchanged++;
        json_decref(c);
        return NULL;
    }
    s->changed += a && b;
    return c;
}

static json_t *pod_change(const json_t *a, const json_t *b, summary *s)
{
    s->pods++;
    const char *an = a ? dra_jstr(a, "spec.nodeName") : NULL, *bn = b ? dra_jstr(b, "spec.nodeName") : NULL;
    bool same = a && b && ((an && bn) ? strcmp(an, bn) == 0 : an == bn);
    if (same)
        return NULL;
    s->pods_moved++;
    json_t *c = change_base("Pod", a ? a : b, !a ? "added" : !b ? "removed" : "changed");
    json_object_set_new(c, "node", json_pack("{s:o,s:o}", "from", node_json(an), "to", node_json(bn)));
    return c;
}

static char *key_of(const char *ns, const char *name)
{
    return dra_xasprintf("%s\x1f%s", ns ? ns : "", name ? name : "");
}

/* One side of a comparison: objects, or the claims or Pods of records that
 * keep their objects whole. */
typedef struct side {
    json_t *const *v;      /* NULL: cp's records */
    const dra_compact *cp; /* when v is NULL */
    bool pods;             /* cp's Pods, else its claims */
    size_t n;
} side;

/* Object i of a side (a new reference: a new tree for a record), or NULL
 * for a record that does not keep its object. */
static json_t *side_get(const side *sd, size_t i)
{
    if (sd->v)
        return json_incref(sd->v[i]);
    dra_obj o;
    const dra_rec_whole *w = sd->pods ? sd->cp->pods[i]->whole : sd->cp->claims[i]->whole;
    return dra_compact_whole(sd->cp, w, &o) ? o.json : NULL;
}

static char *side_key(const side *sd, size_t i)
{
    if (!sd->v)
        return sd->pods ? key_of(sd->cp->pods[i]->ns, sd->cp->pods[i]->name)
                        : key_of(sd->cp->claims[i]->ns, sd->cp->claims[i]->name);
    const json_t *meta = dra_jfield(sd->v[i], "metadata");
    return key_of(dra_jfield_str(meta, "namespace"), dra_jfield_str(meta, "name"));
}

typedef struct keyed {
    dra_strmap map; /* key -> index + 1 */
    char **keys;
    size_t n;
} keyed;

static void keyed_build(keyed *k, const side *sd)
{
    *k = (keyed){0};
    k->keys = dra_xcalloc(sd->n + 1, sizeof *k->keys);
    k->n = sd->n;
    for (size_t i = 0; i < sd->n; i++) {
        k->keys[i] = side_key(sd, i);
        dra_strmap_put(&k->map, k->keys[i], strlen(k->keys[i]), (intptr_t)i + 1);
    }
}

static void keyed_free(keyed *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->keys[i]);
    free(k->keys);
    dra_strmap_free(&k->map);
}

/* The position + 1 of key in k, 0 when missing. */
static size_t keyed_find(const keyed *k, const char *key)
{
    intptr_t x;
    return dra_strmap_get(&k->map, key, strlen(key), &x) ? (size_t)x : 0;
}

/* Each object of a against b's of the same key, then b's alone; one pair
 * of objects at a time. */
static void compare_sides(const side *a, const side *b, json_t *changes, summary *s,
                          json_t *(*cmp)(const json_t *, const json_t *, summary *))
{
    keyed ka, kb;
    keyed_build(&ka, a);
    keyed_build(&kb, b);
    for (size_t i = 0; i < a->n; i++) {
        size_t j = keyed_find(&kb, ka.keys[i]);
        json_t *x = side_get(a, i), *y = j ? side_get(b, j - 1) : NULL;
        json_t *c = cmp(x, y, s);
        if (c)
            json_array_append_new(changes, c);
        json_decref(x);
        json_decref(y);
    }
    for (size_t i = 0; i < b->n; i++) {
        if (keyed_find(&ka, kb.keys[i]))
            continue;
        json_t *y = side_get(b, i);
        json_t *c = cmp(NULL, y, s);
        if (c)
            json_array_append_new(changes, c);
        json_decref(y);
    }
    keyed_free(&ka);
    keyed_free(&kb);
}

static void compare_lists(json_t *const *a, size_t na, json_t *const *b, size_t nb, json_t *changes, summary *s,
                          json_t *(*cmp)(const json_t *, const json_t *, summary *))
{
    side sa = {.v = a, .n = na}, sb = {.v = b, .n = nb};
    compare_sides(&sa, &sb, changes, s, cmp);
}

static void compare_kind(const dra_model *a, const dra_model *b, dra_kind kind, json_t *changes, summary *s,
                         json_t *(*cmp)(const json_t *, const json_t *, summary *))
{
    const dra_model_list *la = dra_model_kind(a, kind), *lb = dra_model_kind(b, kind);
    json_t **va = dra_xcalloc(la->n + 1, sizeof *va), **vb = dra_xcalloc(lb->n + 1, sizeof *vb);
    for (size_t i = 0; i < la->n; i++)
        va[i] = la->v[i]->json;
    for (size_t i = 0; i < lb->n; i++)
        vb[i] = lb->v[i]->json;
    compare_lists(va, la->n, vb, lb->n, changes, s, cmp);
    free(va);
    free(vb);
}

static json_t *summary_json(const summary *s)
{
    return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "claims", (json_int_t)s->claims, "changed",
                     (json_int_t)s->changed, "added", (json_int_t)s->added, "removed", (json_int_t)s->removed,
                     "unchanged", (json_int_t)s->unchanged, "devices", (json_int_t)s->devices, "node",
                     (json_int_t)s->node, "config", (json_int_t)s->config, "reservations", (json_int_t)s->reservations,
                     "pods", (json_int_t)s->pods, "podsMoved", (json_int_t)s->pods_moved);
}

json_t *dra_diff_claim_lists(json_t *const *a, size_t na, json_t *const *b, size_t nb)
{
    summary s = {0};
    json_t *changes = json_array();
    compare_lists(a, na, b, nb, changes, &s, claim_change);
    return json_pack("{s:o,s:o}", "changes", changes, "summary", summary_json(&s));
}

json_t *dra_diff_models(const dra_model *a, const dra_model *b)
{
    summary s = {0};
    json_t *changes = json_array();
    compare_kind(a, b, DRA_KIND_RESOURCE_CLAIM, changes, &s, claim_change);
    compare_kind(a, b, DRA_KIND_POD, changes, &s, pod_change);
    json_t *sum = summary_json(&s);
    return json_pack("{s:o,s:o}", "changes", changes, "summary", sum);
}

json_t *dra_diff_records(const dra_compact *a, const dra_compact *b)
{
    summary s = {0};
    json_t *changes = json_array();
    side ca = {.cp = a, .n = a->nclaims}, cb = {.cp = b, .n = b->nclaims};
    compare_sides(&ca, &cb, changes, &s, claim_change);
    side pa = {.cp = a, .pods = true, .n = a->npods}, pb = {.cp = b, .pods = true, .n = b->npods};
    compare_sides(&pa, &pb, changes, &s, pod_change);
    return json_pack("{s:o,s:o}", "changes", changes, "summary", summary_json(&s));
}

bool dra_diff_differs(const json_t *report)
{
    return json_array_size(dra_jfield(report, "changes")) > 0;
}

static void put_node(dra_buf *out, const json_t *v, bool pod)
{
    const char *s = json_string_value(v);
    if (!s)
        dra_buf_puts(out, pod ? "(not bound)" : "(not allocated)");
    else if (!*s)
        dra_buf_puts(out, "(any node)");
    else
        dra_buf_puts(out, s);
}

static void put_results(dra_buf *out, const json_t *list, char sign)
{
    size_t i;
    const json_t *r;
    json_array_foreach(list, i, r) {
        dra_buf_printf(out, " %c%s/%s/%s (%s)", sign, dra_jfield_str(r, "driver"), dra_jfield_str(r, "pool"),
                       dra_jfield_str(r, "device"), dra_jfield_str(r, "request"));
    }
}

void dra_diff_text(const json_t *report, dra_buf *out)
{
    size_t i;
    const json_t *c;
    json_array_foreach(dra_jfield(report, "changes"), i, c) {
        const char *kind = dra_jfield_str(c, "kind"), *ns = dra_jfield_str(c, "namespace");
        bool pod = strcmp(kind, "Pod") == 0;
        dra_buf_printf(out, "%s %s%s%s:", kind, ns, *ns ? "/" : "", dra_jfield_str(c, "name"));
        const char *change = dra_jfield_str(c, "change");
        const char *sep = " ";
        if (strcmp(change, "changed") != 0) {
            dra_buf_printf(out, " %s", change);
            sep = "; ";
        }
        const json_t *v;
        if ((v = dra_jfield(c, "allocated"))) {
            dra_buf_printf(out, "%s%s", sep, json_is_true(dra_jfield(v, "to")) ? "allocated" : "deallocated");
            sep = "; ";
        }
        if ((v = dra_jfield(c, "devices"))) {
            dra_buf_printf(out, "%sdevices", sep);
            put_results(out, dra_jfield(v, "removed"), '-');
            put_results(out, dra_jfield(v, "added"), '+');
            sep = "; ";
        }
        if ((v = dra_jfield(c, "node"))) {
            dra_buf_printf(out, "%snode ", sep);
            put_node(out, json_object_get(v, "from"), pod);
            dra_buf_puts(out, " -> ");
            put_node(out, json_object_get(v, "to"), pod);
            sep = "; ";
        }
        if (dra_jfield(c, "config")) {
            dra_buf_printf(out, "%sconfig changed", sep);
            sep = "; ";
        }
        if ((v = dra_jfield(c, "reservations"))) {
            dra_buf_printf(out, "%sreserved for", sep);
            size_t k;
            const json_t *x;
            json_array_foreach(dra_jfield(v, "removed"), k, x) {
                dra_buf_printf(out, " -%s", json_string_value(x));
            }
            json_array_foreach(dra_jfield(v, "added"), k, x) {
                dra_buf_printf(out, " +%s", json_string_value(x));
            }
        }
        dra_buf_puts(out, "\n");
    }
    const json_t *s = dra_jfield(report, "summary");
#define N(k) (long long)json_integer_value(dra_jfield(s, k))
    dra_buf_printf(out,
                   "summary: %lld claims: %lld changed (devices %lld, node %lld, config %lld, reservations %lld), "
                   "%lld added, %lld removed, %lld unchanged; %lld pods, %lld moved\n",
                   N("claims"), N("changed"), N("devices"), N("node"), N("config"), N("reservations"), N("added"),
                   N("removed"), N("unchanged"), N("pods"), N("podsMoved"));
#undef N
}
