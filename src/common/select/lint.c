/* Lint of the selectors in the input against the devices present.
 *
 * Every selector list is evaluated as the allocator evaluates it: class
 * selectors in order on every device, then a request's selectors in order on
 * the devices its class accepts; a device stops at its first false or
 * failing selector.  So a selector is judged only on the devices that reach
 * it, and `device.driver == "x" && device.attributes["x"].y` does not count
 * as failing on other drivers' devices. */
#include <stdlib.h>
#include <string.h>

#include "../cel/parser.h"
#include "select.h"

typedef struct lint_ctx {
    const dra_sel_devices *devs;
    cel_env *env;
    cel_dra_convert how; /* the release's device conversion */
    dra_err *problems;
    /* (domain, name) of every version attribute some device has */
    char **version_attrs;
    size_t nversion;
    /* "domain/name" of every capacity some device publishes */
    char **caps;
    size_t ncaps;
} lint_ctx;

/* One class's verdicts, reused by the requests that name it. */
typedef struct class_result {
    const char *name;
    bool known;   /* false: a selector did not compile, results unknown */
    bool *passes; /* per device */
} class_result;

static void problem(lint_ctx *c, const dra_obj *o, const char *field, char *msg)
{
    dra_err *e = dra_err_new(DRA_EXIT_NEGATIVE, "%s", msg);
    free(msg);
    e = dra_err_field(e, field);
    c->problems = dra_err_append(c->problems, dra_obj_locate(e, o));
}

/* ---- version attributes compared with strings ---- */

/* Add s (taken) to the set v of n strings unless it is there. */
static void add_name(char ***v, size_t *n, char *s)
{
    for (size_t k = 0; k < *n; k++)
        if (!strcmp((*v)[k], s)) {
            free(s);
            return;
        }
    *v = dra_xgrow(*v, *n, sizeof **v);
    (*v)[(*n)++] = s;
}

/* A device's name as CEL sees it: domain/name, the driver the domain of a
 * bare name. */
static char *qualify(const dra_sel_device *d, const char *key)
{
    return strchr(key, '/') ? dra_xstrdup(key) : dra_xasprintf("%s/%s", d->driver, key);
}

static void collect_versions(lint_ctx *c)
{
    for (size_t i = 0; i < c->devs->n; i++) {
        const dra_sel_device *d = &c->devs->v[i];
        const char *key;
        json_t *val;
        json_t *dev = dra_sel_device_ref(d);
        json_object_foreach(json_object_get(dev, "attributes"), key, val) {
            if (json_object_get(val, "version"))
                add_name(&c->version_attrs, &c->nversion, qualify(d, key));
        }
        json_object_foreach(json_object_get(dev, "capacity"), key, val)
            add_name(&c->caps, &c->ncaps, qualify(d, key));
        json_decref(dev);
    }
}

static bool has_name(char *const *v, size_t n, const char *s)
{
    for (size_t k = 0; k < n; k++)
        if (!strcmp(v[k], s))
            return true;
    return false;
}

/* "a, b, c" of up to five names, "and N more" after. */
static char *name_list(char *const *v, size_t n)
{
    dra_buf b = DRA_BUF_INIT;
    for (size_t k = 0; k < n && k < 5; k++)
        dra_buf_printf(&b, "%s%s", k ? ", " : "", v[k]);
    if (n > 5)
        dra_buf_printf(&b, " and %zu more", n - 5);
    if (!n)
        dra_buf_puts(&b, "none");
    char *r = dra_xstrdup(dra_buf_str(&b));
    dra_buf_free(&b);
    return r;
}

/* `name` of `X.name` / `X["name"]`, with its operand. */
static const char *member_name(const cel_node *n, const cel_node **operand)
{
    if (n->kind == CEL_NODE_SELECT && !n->u.select.test_only) {
        *operand = n->u.select.operand;
        return n->u.select.field;
    }
    if (n->kind == CEL_NODE_CALL && !strcmp(n->u.call.function, CEL_OP_INDEX) && n->u.call.nargs == 2 &&
        n->u.call.args[1]->kind == CEL_NODE_CONST && n->u.call.args[1]->u.constant.kind == CEL_CONST_STRING) {
        *operand = n->u.call.args[0];
        return n->u.call.args[1]->u.constant.v.s.data;
    }
    return NULL;
}

/* "dom/name" when n is device.<map>[dom][name] (any spelling), map being
 * "attributes" or "capacity". */
static char *device_ref(const cel_node *n, const char *map)
{
    const cel_node *dom_node, *attrs, *dev;
    const char *name = member_name(n, &dom_node);
    const char *dom = name ? member_name(dom_node, &attrs) : NULL;
    const char *field = dom ? member_name(attrs, &dev) : NULL;
    if (!field || strcmp(field, map) || dev->kind != CEL_NODE_IDENT || strcmp(dev->u.ident.name, "device"))
        return NULL;
    return dra_xasprintf("%s/%s", dom, name);
}

static char *attribute_ref(const cel_node *n)
{
    return device_ref(n, "attributes");
}

static bool is_comparison(const char *f)
{
    return !strcmp(f, CEL_OP_EQUALS) || !strcmp(f, CEL_OP_NOT_EQUALS) || !strcmp(f, CEL_OP_LESS) ||
           !strcmp(f, CEL_OP_LESS_EQUALS) || !strcmp(f, CEL_OP_GREATER) || !strcmp(f, CEL_OP_GREATER_EQUALS);
}

typedef void visit_fn(lint_ctx *c, const cel_node *n, const dra_obj *o, const char *field);

/* visit on n and every node below it. */
static void walk(lint_ctx *c, const cel_node *n, const dra_obj *o, const char *field, visit_fn *visit)
{
    if (!n)
        return;
    visit(c, n, o, field);
    switch (n->kind) {
    case CEL_NODE_SELECT: walk(c, n->u.select.operand, o, field, visit); return;
    case CEL_NODE_CALL:
        walk(c, n->u.call.target, o, field, visit);
        for (size_t i = 0; i < n->u.call.nargs; i++)
            walk(c, n->u.call.args[i], o, field, visit);
        return;
    case CEL_NODE_LIST:
        for (size_t i = 0; i < n->u.list.nelems; i++)
            walk(c, n->u.list.elems[i], o, field, visit);
        return;
    case CEL_NODE_MAP:
        for (size_t i = 0; i < n->u.map.nentries; i++) {
            walk(c, n->u.map.entries[i].key, o, field, visit);
            walk(c, n->u.map.entries[i].value, o, field, visit);
        }
        return;
    case CEL_NODE_COMPREHENSION:
        walk(c, n->u.comp.iter_range, o, field, visit);
        walk(c, n->u.comp.accu_init, o, field, visit);
        walk(c, n->u.comp.loop_step, o, field, visit);
        walk(c, n->u.comp.result, o, field, visit);
        return;
    default: return;
    }
}

static void version_strings(lint_ctx *c, const cel_node *n, const dra_obj *o, const char *field)
{
    if (n->kind != CEL_NODE_CALL || !is_comparison(n->u.call.function) || n->u.call.nargs != 2)
        return;
    for (int side = 0; side < 2; side++) {
        const cel_node *lit = n->u.call.args[1 - side];
        if (lit->kind != CEL_NODE_CONST || lit->u.constant.kind != CEL_CONST_STRING)
            continue;
        char *ref = attribute_ref(n->u.call.args[side]);
        if (ref && has_name(c->version_attrs, c->nversion, ref))
            problem(c, o, field,
                    dra_xasprintf("compares the version attribute %s with the string \"%s\": a version "
                                  "never equals a string and cannot be ordered against one; compare "
                                  "with semver(\"%s\")",
                                  ref, lit->u.constant.v.s.data, lit->u.constant.v.s.data));
        free(ref);
    }
}

/* device.capacity[dom][name] of a capacity no device publishes (a has()
 * test is a guard, not a use). */
static void unknown_capacity(lint_ctx *c, const cel_node *n, const dra_obj *o, const char *field)
{
    char *ref = c->devs->n ? device_ref(n, "capacity") : NULL;
    if (ref && !has_name(c->caps, c->ncaps, ref)) {
        char *list = name_list(c->caps, c->ncaps);
        problem(c, o, field,
                dra_xasprintf("capacity %s is published by no device (the devices publish: %s)", ref, list));
        free(list);
    }
    free(ref);
}

/* ---- one selector list ---- */

typedef struct failure {
    char *msg;
    size_t count;
    const char *example; /* device id */
} failure;

/* Lint `selectors` (a JSON array) at `path` on the devices marked in
 * `reach` (updated in place: a device stays marked while it passes).
 * Returns false when some selector did not compile. */
static bool lint_list(lint_ctx *c, const dra_obj *o, const char *path, const json_t *selectors, bool *reach)
{
    size_t n = json_array_size(selectors);
    cel_program **progs = dra_xcalloc(n ? n : 1, sizeof *progs);
    bool compiled = true;
    for (size_t i = 0; i < n; i++) {
        char *field = dra_xasprintf("%s[%zu].cel.expression", path, i);
        const json_t *ej = json_object_get(json_object_get(json_array_get(selectors, i), "cel"), "expression");
        const char *expr = json_string_value(ej);
        if (!expr) {
            problem(c, o, field, dra_xstrdup("CEL expression empty (unsupported selector type?)"));
            compiled = false;
            free(field);
            continue;
        }
        dra_err *ce = cel_dra_compile(c->env, expr, json_string_length(ej), &progs[i]);
        if (ce) {
            problem(c, o, field, dra_xasprintf("does not compile: %s", ce->msg));
            dra_err_free(ce);
            compiled = false;
        } else {
            uint64_t lo, hi;
            cel_program_estimated_cost(progs[i], &lo, &hi);
            /* pkg/apis/resource/validation validateCELSelector */
            if (hi > CEL_DRA_MAX_COST)
                problem(c, o, field,
                        dra_xasprintf("too complex, exceeds cost limit (estimated cost %llu > %d)",
                                      (unsigned long long)hi, CEL_DRA_MAX_COST));
            else if (hi >= DRA_SEL_LINT_COST_WARN)
                problem(c, o, field,
                        dra_xasprintf("estimated cost %llu is near the limit of %d", (unsigned long long)hi,
                                      CEL_DRA_MAX_COST));
            dra_arena a = DRA_ARENA_INIT;
            cel_ast *ast = NULL;
            dra_err *pe = cel_parse(expr, strlen(expr), NULL, &a, &ast);
            if (!pe) {
                walk(c, ast->root, o, field, version_strings);
                walk(c, ast->root, o, field, unknown_capacity);
            }
            dra_err_free(pe);
            dra_arena_free(&a);
        }
        free(field);
    }
    if (!compiled) {
        for (size_t i = 0; i < n; i++)
            cel_program_free(progs[i]);
        free(progs);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        size_t reached = 0, passed = 0;
        failure *fails = NULL;
        size_t nfails = 0;
        for (size_t k = 0; k < c->devs->n; k++) {
            if (!reach[k])
                continue;
            reached++;
            bool ok = false;
            dra_err *e = cel_dra_match(progs[i], dra_sel_device_cel(&c->devs->v[k], &c->how), &ok);
            if (e) {
                size_t f = 0;
                while (f < nfails && strcmp(fails[f].msg, e->msg))
                    f++;
                if (f == nfails) {
                    fails = dra_xgrow(fails, nfails, sizeof *fails);
                    fails[nfails++] = (failure){dra_xstrdup(e->msg), 0, c->devs->v[k].id};
                }
                fails[f].count++;
                dra_err_free(e);
            }
            if (ok)
                passed++;
            reach[k] = ok;
        }
        char *field = dra_xasprintf("%s[%zu].cel.expression", path, i);
        for (size_t f = 0; f < nfails; f++) {
            const char *advice =
                strstr(fails[f].msg, "no such key:") ? "; guard it with has() or use .?key.orValue(...)" : "";
            problem(c, o, field,
                    dra_xasprintf("CEL runtime error on %zu of %zu devices (e.g. %s): %s%s", fails[f].count, reached,
                                  fails[f].example, fails[f].msg, advice));
            free(fails[f].msg);
        }
        free(fails);
        if (reached && !passed)
            problem(c, o, field,
                    dra_xasprintf("matches none of the %zu device%s that reach it", reached, reached == 1 ? "" : "s"));
        free(field);
        cel_program_free(progs[i]);
    }
    free(progs);
    return true;
}

static class_result *find_class(class_result *cr, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(cr[i].name, name))
            return &cr[i];
    return NULL;
}

/* capacity.requests names that no device reaching the request publishes:
 * the allocator matches them exactly, so such a request gets no device. */
static void lint_capacity_requests(lint_ctx *c, const dra_obj *o, const char *path, const json_t *exact,
                                   const bool *reach)
{
    const json_t *reqs = json_object_get(json_object_get(exact, "capacity"), "requests");
    if (!json_object_size(reqs) || !c->devs->n)
        return;
    /* the names the reaching devices publish, as written in their slices */
    char **names = NULL;
    size_t nnames = 0, nreach = 0;
    for (size_t i = 0; i < c->devs->n; i++) {
        if (!reach[i])
            continue;
        nreach++;
        const char *key;
        json_t *val;
        json_t *dev = dra_sel_device_ref(&c->devs->v[i]);
        json_object_foreach(json_object_get(dev, "capacity"), key, val)
            add_name(&names, &nnames, dra_xstrdup(key));
        json_decref(dev);
    }
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)reqs, key, val) {
        if (!nreach || has_name(names, nnames, key))
            continue;
        char *field = dra_xasprintf("%s.capacity.requests[%s]", path, key);
        char *list = name_list(names, nnames);
        problem(c, o, field,
                dra_xasprintf("capacity %s is published by none of the %zu device%s the class selects (they "
                              "publish: %s)",
                              key, nreach, nreach == 1 ? "" : "s", list));
        free(list);
        free(field);
    }
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
}

static void lint_request(lint_ctx *c, const dra_obj *o, const char *path, const json_t *exact, class_result *cr,
                         size_t ncr, const dra_model *m)
{
    const char *cls = json_string_value(json_object_get(exact, "deviceClassName"));
    class_result *k = cls ? find_class(cr, ncr, cls) : NULL;
    if (!k) {
        char *field = dra_xasprintf("%s.deviceClassName", path);
        problem(c, o, field, dra_xasprintf("device class %s does not exist", cls ? cls : "\"\""));
        free(field);
    }
    const json_t *sels = json_object_get(exact, "selectors");
    bool *reach = dra_xcalloc(c->devs->n ? c->devs->n : 1, sizeof *reach);
    /* Without the class's verdicts nothing can be said about reach: only
     * compile the request's selectors. */
    for (size_t i = 0; k && k->known && i < c->devs->n; i++)
        reach[i] = k->passes[i];
    lint_capacity_requests(c, o, path, exact, reach);
    char *spath = dra_xasprintf("%s.selectors", path);
    lint_list(c, o, spath, sels, reach);
    free(spath);
    free(reach);
}

static void lint_claim_spec(lint_ctx *c, const dra_obj *o, const char *prefix, const json_t *spec, class_result *cr,
                            size_t ncr, const dra_model *m)
{
    size_t j;
    const json_t *req;
    json_array_foreach(json_object_get(json_object_get(spec, "devices"), "requests"), j, req) {
        const json_t *exact = json_object_get(req, "exactly");
        if (exact) {
            char *path = dra_xasprintf("%s.devices.requests[%zu].exactly", prefix, j);
            lint_request(c, o, path, exact, cr, ncr, m);
            free(path);
        }
        size_t k;
        const json_t *sub;
        json_array_foreach(json_object_get(req, "firstAvailable"), k, sub) {
            char *path = dra_xasprintf("%s.devices.requests[%zu].firstAvailable[%zu]", prefix, j, k);
            lint_request(c, o, path, sub, cr, ncr, m);
            free(path);
        }
    }
}

dra_err *dra_sel_lint(const dra_model *m, const dra_sel_devices *devs, const dra_features *f)
{
    lint_ctx c = {.devs = devs};
    cel_dra_options o = {.consumable_capacity = dra_feature_enabled(f, DRA_FEATURE_CONSUMABLE_CAPACITY),
                         .list_type_attributes = dra_feature_enabled(f, DRA_FEATURE_LIST_TYPE_ATTRIBUTES),
                         .release = dra_features_release_of(f)};
    c.env = cel_dra_env_new(&o);
    c.how = cel_dra_convert_of(&o);
    collect_versions(&c);

    const dra_model_list *classes = dra_model_kind(m, DRA_KIND_DEVICE_CLASS);
    class_result *cr = dra_xcalloc(classes->n ? classes->n : 1, sizeof *cr);
    for (size_t i = 0; i < classes->n; i++) {
        const dra_obj *obj = classes->v[i];
        cr[i].name = json_string_value(json_object_get(json_object_get(obj->json, "metadata"), "name"));
        if (!cr[i].name)
            cr[i].name = "";
        cr[i].passes = dra_xcalloc(devs->n ? devs->n : 1, sizeof *cr[i].passes);
        for (size_t k = 0; k < devs->n; k++)
            cr[i].passes[k] = true;
        cr[i].known = lint_list(&c, obj, "spec.selectors",
                                json_object_get(json_object_get(obj->json, "spec"), "selectors"), cr[i].passes);
    }
    const dra_model_list *claims = dra_model_kind(m, DRA_KIND_RESOURCE_CLAIM);
    for (size_t i = 0; i < claims->n; i++)
        lint_claim_spec(&c, claims->v[i], "spec", json_object_get(claims->v[i]->json, "spec"), cr, classes->n, m);
    const dra_model_list *templates = dra_model_kind(m, DRA_KIND_RESOURCE_CLAIM_TEMPLATE);
    for (size_t i = 0; i < templates->n; i++)
        lint_claim_spec(&c, templates->v[i], "spec.spec",
                        json_object_get(json_object_get(templates->v[i]->json, "spec"), "spec"), cr, classes->n, m);

    for (size_t i = 0; i < classes->n; i++)
        free(cr[i].passes);
    free(cr);
    for (size_t i = 0; i < c.nversion; i++)
        free(c.version_attrs[i]);
    free(c.version_attrs);
    for (size_t i = 0; i < c.ncaps; i++)
        free(c.caps[i]);
    free(c.caps);
    cel_env_free(c.env);
    return c.problems;
}
