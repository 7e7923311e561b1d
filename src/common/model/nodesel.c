/* Node selectors and node features as the scheduler reads them
 * (component-helpers scheduling/corev1/nodeaffinity; Node Declared Features,
 * KEP-5945 skipNodeOperations). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nodesel.h"
#include "../io/json.h"

static const char *node_label(const json_t *node, const char *key)
{
    return dra_jfield_str(dra_jfield(dra_jfield(node, "metadata"), "labels"), key);
}

static bool in_values(const json_t *values, const char *s)
{
    size_t i;
    const json_t *v;
    json_array_foreach(values, i, v) {
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

static bool parse_i64(const char *s, long long *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

static dra_err *expr_match(const json_t *req, const json_t *node, bool *ok)
{
    const char *key = dra_jfield_str(req, "key"), *op = dra_jfield_str(req, "operator");
    const json_t *values = dra_jfield(req, "values");
    size_t nv = json_is_array(values) ? json_array_size(values) : 0;
    if (!key || !op)
        return dra_err_new(DRA_EXIT_INPUT, "node selector requirement needs key and operator");
    const char *val = node_label(node, key);
    if (!strcmp(op, "In") || !strcmp(op, "NotIn")) {
        if (!nv)
            return dra_err_new(
                DRA_EXIT_INPUT,
                "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty");
        bool in = val && in_values(values, val);
        *ok = !strcmp(op, "In") ? in : !in;
    } else if (!strcmp(op, "Exists") || !strcmp(op, "DoesNotExist")) {
        if (nv)
            return dra_err_new(DRA_EXIT_INPUT,
                               "values: Invalid value: values set must be empty for exists and does not exist");
        *ok = !strcmp(op, "Exists") ? val != NULL : val == NULL;
    } else if (!strcmp(op, "Gt") || !strcmp(op, "Lt")) {
        long long want, have;
        if (nv != 1 || !parse_i64(json_string_value(json_array_get(values, 0)), &want))
            return dra_err_new(
                DRA_EXIT_INPUT,
                "values: Invalid value: for 'Gt', 'Lt' operators, exactly one integer value is required");
        *ok = parse_i64(val, &have) && (!strcmp(op, "Gt") ? have > want : have < want);
    } else {
        return dra_err_new(DRA_EXIT_INPUT, "%s: is not a valid label selector operator", op);
    }
    return NULL;
}

static dra_err *field_match(const json_t *req, const json_t *node, bool *ok)
{
    const char *key = dra_jfield_str(req, "key"), *op = dra_jfield_str(req, "operator");
    const json_t *values = dra_jfield(req, "values");
    size_t nv = json_is_array(values) ? json_array_size(values) : 0;
    if (!key || strcmp(key, "metadata.name") != 0)
        return dra_err_new(DRA_EXIT_INPUT, "%s: not a valid field selector key", key ? key : "");
    if (!op || (strcmp(op, "In") && strcmp(op, "NotIn")))
        return dra_err_new(DRA_EXIT_INPUT, "%s: not a valid selector operator", op ? op : "");
    if (nv != 1)
        return dra_err_new(DRA_EXIT_INPUT, "unexpected number of value (%zu) for node field selector operator \"%s\"",
                           nv, op);
    const char *name = dra_jfield_str(dra_jfield(node, "metadata"), "name");
    bool eq = name && json_is_string(json_array_get(values, 0)) &&
              strcmp(name, json_string_value(json_array_get(values, 0))) == 0;
    *ok = !strcmp(op, "In") ? eq : !eq;
    return NULL;
}

dra_err *dra_node_target_match(const json_t *node, const char *node_name, const char *name, bool all, const json_t *sel,
                               bool *match)
{
    *match = false;
    if (name && *name) {
        *match = node_name && strcmp(node_name, name) == 0;
        return NULL;
    }
    if (all) {
        *match = true;
        return NULL;
    }
    if (sel) {
        dra_err *e = dra_node_selector_match(sel, node, match);
        if (e) {
            char *s = json_dumps(sel, JSON_COMPACT);
            dra_err *w = dra_err_new(DRA_EXIT_INPUT, "failed to parse node selector %s: %s", s ? s : "", e->msg);
            free(s);
            dra_err_free(e);
            return w;
        }
    }
    return NULL;
}

bool dra_node_declares_feature(const json_t *node, const char *feature)
{
    size_t i;
    const json_t *v;
    const json_t *declared = dra_jfield(dra_jfield(node, "status"), "declaredFeatures");
    json_array_foreach(declared, i, v)
        if (json_is_string(v) && strcmp(json_string_value(v), feature) == 0)
            return true;
    return false;
}

bool dra_allocation_skips_node_operations(const json_t *allocation)
{
    size_t i;
    const json_t *r;
    const json_t *results = dra_jfield(dra_jfield(allocation, "devices"), "results");
    json_array_foreach(results, i, r)
        if (json_array_size(dra_jfield(r, "skipNodeOperations")) > 0)
            return true;
    return false;
}

dra_err *dra_node_selector_match(const json_t *selector, const json_t *node, bool *matched)
{
    *matched = false;
    const json_t *terms = dra_jfield(selector, "nodeSelectorTerms");
    size_t i;
    const json_t *term;
    bool any = false;
    dra_err *errs = NULL;
    json_array_foreach(terms, i, term) {
        const json_t *exprs = dra_jfield(term, "matchExpressions"), *fields = dra_jfield(term, "matchFields");
        size_t ne = json_is_array(exprs) ? json_array_size(exprs) : 0;
        size_t nf = json_is_array(fields) ? json_array_size(fields) : 0;
        if (!ne && !nf)
            continue; /* an empty term matches nothing */
        bool ok = true;
        for (size_t k = 0; k < ne; k++) {
            bool m = false;
            dra_err *e = expr_match(json_array_get(exprs, k), node, &m);
            if (e)
                errs = dra_err_append(errs, e);
            ok = ok && m;
        }
        for (size_t k = 0; k < nf; k++) {
            bool m = false;
            dra_err *e = field_match(json_array_get(fields, k), node, &m);
            if (e)
                errs = dra_err_append(errs, e);
            ok = ok && m;
        }
        any = any || ok;
    }
    if (errs)
        return errs;
    *matched = any;
    return NULL;
}

/* The node of a NodeSelector that pins one node; "*" for none; NULL else. */
const char *dra_selector_node(const json_t *sel)
{
    if (!sel || json_is_null(sel))
        return "*";
    json_t *terms = dra_jarr(sel, "nodeSelectorTerms");
    if (json_array_size(terms) != 1)
        return NULL;
    json_t *t = json_array_get(terms, 0);
    static const char *const lists[] = {"matchFields", "matchExpressions"};
    for (int l = 0; l < 2; l++) {
        size_t i;
        json_t *r;
        const json_t *reqs = dra_jarr(t, lists[l]);
        json_array_foreach(reqs, i, r) {
            const char *key = dra_jstr_or(r, "key", "");
            json_t *vals = dra_jarr(r, "values");
            if (strcmp(dra_jstr_or(r, "operator", ""), "In") == 0 && json_array_size(vals) == 1 &&
                (strcmp(key, "metadata.name") == 0 || strcmp(key, "kubernetes.io/hostname") == 0))
                return json_string_value(json_array_get(vals, 0));
        }
    }
    return NULL;
}
