/* Selections: class, request and extra selectors compiled once, evaluated
 * per device in upstream's order (class selectors, then request selectors;
 * structured/internal/incubating/allocator_incubating.go selectorsMatch). */
#include <stdlib.h>
#include <string.h>

#include "../cel/parser.h"
#include "select.h"

void dra_selection_init(dra_selection *s, const dra_features *f)
{
    memset(s, 0, sizeof *s);
    cel_dra_options o = {.consumable_capacity = dra_feature_enabled(f, DRA_FEATURE_CONSUMABLE_CAPACITY),
                         .list_type_attributes = dra_feature_enabled(f, DRA_FEATURE_LIST_TYPE_ATTRIBUTES),
                         .release = dra_features_release_of(f)};
    s->env = cel_dra_env_new(&o);
    s->release = o.release;
    s->how = cel_dra_convert_of(&o);
}

void dra_selection_free(dra_selection *s)
{
    for (size_t i = 0; i < s->n; i++) {
        dra_sel_selector *x = &s->v[i];
        cel_program_free(x->prog);
        free(x->owner);
        free(x->claim);
        free(x->label);
        free(x->expr);
    }
    free(s->v);
    cel_env_free(s->env);
    memset(s, 0, sizeof *s);
}

/* Upstream's prefix for messages about one selector: "class C: selector #i",
 * "claim NS/N: selector #i", "-e #k". */
static char *upstream_prefix(const dra_sel_selector *x)
{
    switch (x->origin) {
    case DRA_SEL_CLASS: return dra_xasprintf("class %s: selector #%zu", x->owner, x->index);
    case DRA_SEL_REQUEST: return dra_xasprintf("claim %s: selector #%zu", x->claim, x->index);
    default: return dra_xasprintf("-e #%zu", x->index);
    }
}

/* expr: len bytes (a JSON string's, NUL bytes too, which cel-go refuses) */
static dra_err *add_selector(dra_selection *s, dra_sel_origin origin, const char *owner, const char *claim,
                             size_t index, const char *expr, size_t len)
{
    cel_program *p = NULL;
    dra_err *ce = cel_dra_compile(s->env, expr, len, &p);
    dra_sel_selector x = {
        origin, owner ? dra_xstrdup(owner) : NULL, claim ? dra_xstrdup(claim) : NULL, index, NULL, dra_xstrdup(expr),
        p};
    if (origin == DRA_SEL_CLASS)
        x.label = dra_xasprintf("class %s selector #%zu", owner, index);
    else if (origin == DRA_SEL_REQUEST)
        x.label = dra_xasprintf("request %s selector #%zu", owner, index);
    else
        x.label = dra_xasprintf("-e #%zu", index);
    if (ce) {
        char *pre = upstream_prefix(&x);
        char *head = dra_xasprintf("%s: CEL compile error: ", pre);
        dra_buf m = DRA_BUF_INIT;
        dra_buf_puts(&m, head);
        dra_buf_append(&m, ce->msg, dra_err_msg_len(ce));
        dra_err *e = dra_err_newn(DRA_EXIT_INPUT, dra_buf_str(&m), m.len);
        dra_buf_free(&m);
        free(head);
        free(pre);
        dra_err_free(ce);
        free(x.owner);
        free(x.claim);
        free(x.label);
        free(x.expr);
        return e;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->v = dra_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = x;
    return NULL;
}

/* Add every `selectors[i].cel.expression` of a selector list. */
static dra_err *add_selector_list(dra_selection *s, dra_sel_origin origin, const char *owner, const char *claim,
                                  const json_t *selectors)
{
    dra_err *err = NULL;
    size_t i;
    const json_t *sel;
    json_array_foreach(selectors, i, sel) {
        const json_t *ej = json_object_get(json_object_get(sel, "cel"), "expression");
        const char *expr = json_string_value(ej);
        if (!expr) {
            err = dra_err_append(
                err,
                dra_err_new(DRA_EXIT_INPUT, "%s %s: selector #%zu: CEL expression empty (unsupported selector type?)",
                            origin == DRA_SEL_CLASS ? "class" : "claim", origin == DRA_SEL_CLASS ? owner : claim, i));
            continue;
        }
        err = dra_err_append(err, add_selector(s, origin, owner, claim, i, expr, json_string_length(ej)));
    }
    return err;
}

dra_err *dra_selection_add_class(dra_selection *s, const dra_model *m, const char *name)
{
    const dra_obj *c = dra_model_class(m, name);
    if (!c)
        return dra_err_new(DRA_EXIT_INPUT, "device class \"%s\" not found", name);
    return add_selector_list(s, DRA_SEL_CLASS, name, NULL,
                             json_object_get(json_object_get(c->json, "spec"), "selectors"));
}

static const json_t *find_named(const json_t *arr, const char *name, size_t len)
{
    size_t i;
    const json_t *x;
    json_array_foreach(arr, i, x) {
        const char *n = json_string_value(json_object_get(x, "name"));
        if (n && strlen(n) == len && !strncmp(n, name, len))
            return x;
    }
    return NULL;
}

static char *request_names(const json_t *requests)
{
    dra_buf b = DRA_BUF_INIT;
    size_t i;
    const json_t *r;
    json_array_foreach(requests, i, r) {
        dra_buf_printf(&b, "%s%s", i ? ", " : "", json_string_value(json_object_get(r, "name")));
        const json_t *fa = json_object_get(r, "firstAvailable");
        size_t k;
        const json_t *sub;
        json_array_foreach(fa, k, sub) {
            dra_buf_printf(&b, "%s%s/%s", k ? ", " : " (", json_string_value(json_object_get(r, "name")),
                           json_string_value(json_object_get(sub, "name")));
            if (k + 1 == json_array_size(fa))
                dra_buf_putc(&b, ')');
        }
    }
    return dra_buf_detach(&b);
}

dra_err *dra_selection_add_request(dra_selection *s, const dra_model *m, const char *claim, const char *request)
{
    const char *slash = strchr(claim, '/');
    if (!slash || slash == claim || !slash[1])
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "want NAMESPACE/NAME, not \"%s\"", claim), "claim");
    char *ns = dra_xstrndup(claim, (size_t)(slash - claim));
    const dra_obj *o = dra_model_claim(m, ns, slash + 1);
    const json_t *spec = o ? json_object_get(o->json, "spec") : NULL;
    if (!o && (o = dra_model_claim_template(m, ns, slash + 1)) != NULL)
        spec = json_object_get(json_object_get(o->json, "spec"), "spec");
    free(ns);
    if (!o)
        return dra_err_new(DRA_EXIT_INPUT,
                           "resource claim \"%s\" not found (neither a ResourceClaim nor a ResourceClaimTemplate)",
                           claim);
    const json_t *requests = json_object_get(json_object_get(spec, "devices"), "requests");
    size_t nreq = json_array_size(requests);
    const json_t *req = NULL, *sub = NULL;
    char *names = request_names(requests);
    dra_err *err = NULL;
    if (!request) {
        if (nreq == 1)
            req = json_array_get(requests, 0);
        else
            err = dra_err_param(dra_err_new(DRA_EXIT_INPUT, "claim %s has %zu requests, name one: %s", claim, nreq,
                                            nreq ? names : "(none)"),
                                "request");
    } else {
        const char *sl = strchr(request, '/');
        size_t rlen = sl ? (size_t)(sl - request) : strlen(request);
        req = find_named(requests, request, rlen);
        if (!req)
            err = dra_err_new(DRA_EXIT_INPUT, "claim %s has no request \"%.*s\" (requests: %s)", claim, (int)rlen,
                              request, nreq ? names : "(none)");
        else if (sl) {
            const json_t *fa = json_object_get(req, "firstAvailable");
            sub = find_named(fa, sl + 1, strlen(sl + 1));
            if (!sub)
                err = dra_err_new(DRA_EXIT_INPUT, "claim %s, request %.*s has no subrequest \"%s\" (requests: %s)",
                                  claim, (int)rlen, request, sl + 1, names);
        }
    }
    free(names);
    if (err)
        return err;
    const char *rname = json_string_value(json_object_get(req, "name"));
    char *label = sub ? dra_xasprintf("%s/%s", rname, json_string_value(json_object_get(sub, "name")))
                      : dra_xstrdup(rname ? rname : "");
    const json_t *exact = sub ? sub : json_object_get(req, "exactly");
    if (!exact) {
        err = dra_err_new(DRA_EXIT_INPUT, "claim %s, request %s has subrequests: name one as %s/SUB", claim, label,
                          label);
        free(label);
        return err;
    }
    const char *cls = json_string_value(json_object_get(exact, "deviceClassName"));
    if (!cls || !dra_model_class(m, cls))
        err = dra_err_new(DRA_EXIT_INPUT, "request %s: device class %s does not exist", label, cls ? cls : "\"\"");
    else
        err = dra_selection_add_class(s, m, cls);
    if (!err)
        err = add_selector_list(s, DRA_SEL_REQUEST, label, claim, json_object_get(exact, "selectors"));
    free(label);
    return err;
}

dra_err *dra_selection_add_expr(dra_selection *s, const char *expr)
{
    return add_selector(s, DRA_SEL_EXPR, NULL, NULL, s->nexprs++, expr, strlen(expr));
}

void dra_selection_match(dra_selection *s, const dra_sel_device *d, dra_sel_verdict *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < s->n; i++) {
        bool ok = false;
        dra_err *e = cel_dra_match(s->v[i].prog, dra_sel_device_cel(d, &s->how), &ok);
        if (e) {
            /* upstream cel.EnhanceRuntimeError (dra-corrections E2-8) */
            out->error = dra_xasprintf("%s%s", e->msg, cel_dra_runtime_hint(s->release, e->msg));
            dra_err_free(e);
        }
        if (!ok) {
            out->failed = i;
            return;
        }
    }
    out->matched = true;
}

void dra_sel_verdict_clear(dra_sel_verdict *v)
{
    free(v->error);
    memset(v, 0, sizeof *v);
}

void dra_sel_explain_text(const dra_selection *s, const dra_sel_device *d, const dra_sel_verdict *v, dra_buf *b)
{
    if (v->matched) {
        dra_buf_printf(b, "%s: matches", d->id);
        return;
    }
    const dra_sel_selector *x = &s->v[v->failed];
    if (v->error)
        dra_buf_printf(b, "%s: %s: CEL runtime error: %s", d->id, x->label, v->error);
    else
        dra_buf_printf(b, "%s: %s: false", d->id, x->label);
}

json_t *dra_sel_explain_json(const dra_selection *s, const dra_sel_device *d, const dra_sel_verdict *v)
{
    json_t *o = json_pack("{s:s, s:b}", "device", d->id, "matched", v->matched);
    if (!v->matched) {
        const dra_sel_selector *x = &s->v[v->failed];
        json_object_set_new(o, "selector", json_string(x->label));
        json_object_set_new(o, "expression", json_string(x->expr));
        if (v->error)
            json_object_set_new(o, "error", json_string(v->error));
        else
            json_object_set_new(o, "result", json_false());
    }
    return o;
}

char *dra_sel_runtime_error_text(const dra_selection *s, const dra_sel_device *d, const dra_sel_verdict *v)
{
    const dra_sel_selector *x = &s->v[v->failed];
    switch (x->origin) {
    case DRA_SEL_CLASS:
        return dra_xasprintf("class %s: selector #%zu on device %s: CEL runtime error: %s", x->owner, x->index, d->id,
                             v->error);
    case DRA_SEL_REQUEST:
        return dra_xasprintf("claim %s: selector #%zu on device %s: CEL runtime error: %s", x->claim, x->index, d->id,
                             v->error);
    default: return dra_xasprintf("-e #%zu on device %s: CEL runtime error: %s", x->index, d->id, v->error);
    }
}

/* ---- eval -------------------------------------------------------------------- */

void dra_sel_eval_init(dra_sel_eval *ev, const dra_features *f)
{
    memset(ev, 0, sizeof *ev);
    cel_dra_options o = {.consumable_capacity = dra_feature_enabled(f, DRA_FEATURE_CONSUMABLE_CAPACITY),
                         .list_type_attributes = dra_feature_enabled(f, DRA_FEATURE_LIST_TYPE_ATTRIBUTES),
                         .release = dra_features_release_of(f)};
    ev->env = cel_dra_env_new(&o);
    ev->var_env = cel_dra_env_new(&o);
    ev->release = o.release;
    ev->how = cel_dra_convert_of(&o);
}

void dra_sel_eval_free(dra_sel_eval *ev)
{
    /* The main env holds the variables' types, which live in their programs:
     * free it before them. */
    cel_env_free(ev->env);
    for (size_t i = 0; i < ev->nvars; i++) {
        cel_program_free(ev->var_progs[i]);
        free(ev->var_names[i]);
    }
    free(ev->var_progs);
    free(ev->var_names);
    free(ev->var_values);
    cel_env_free(ev->var_env);
    memset(ev, 0, sizeof *ev);
}

void dra_sel_eval_set_device(dra_sel_eval *ev, const dra_sel_device *d)
{
    ev->device = d;
}

/* Compile and make the program, as upstream's env.Compile and
 * env.Program (whose failure reads "program instantiation failed: ..."
 * in CompileCELExpression). */
static dra_err *compile_in(cel_env *env, const char *expr, cel_program **out)
{
    size_t len = strlen(expr);
    dra_err *e = cel_compile(env, expr, len, NULL, out);
    if (!e) {
        char *bad = cel_program_instantiation_error(*out);
        if (!bad)
            return NULL;
        e = dra_err_new(DRA_EXIT_INPUT, "program instantiation failed: %s", bad);
        free(bad);
        cel_program_free(*out);
        *out = NULL;
        return e;
    }
    char *shown = cel_errors_display(e, expr, len);
    dra_err *r = dra_err_new(DRA_EXIT_INPUT, "%s", shown ? shown : e->msg);
    free(shown);
    dra_err_free(e);
    return r;
}

dra_err *dra_sel_eval_compile(dra_sel_eval *ev, const char *expr, cel_program **out)
{
    return compile_in(ev->env, expr, out);
}

static bool valid_ident(const char *s, size_t n)
{
    if (!n || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '_'))
            return false;
    return true;
}

static cel_value run(cel_program *p, const cel_activation *act, uint64_t *cost)
{
    cel_eval_options eo = {.cost_limit = CEL_DRA_MAX_COST, .actual_cost = cost};
    return cel_eval(p, act, &eo);
}

/* A problem with variable NAME: about the parameter "var NAME". */
static dra_err *var_err(const char *name, const char *msg)
{
    char *param = dra_xasprintf("var %s", name);
    dra_err *e = dra_err_param(dra_err_new(DRA_EXIT_INPUT, "%s", msg), param);
    free(param);
    return e;
}

dra_err *dra_sel_eval_add_var(dra_sel_eval *ev, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (!eq || !valid_ident(spec, (size_t)(eq - spec)))
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "want NAME=CEL with NAME an identifier, not \"%s\"", spec),
                             "var");
    char *name = dra_xstrndup(spec, (size_t)(eq - spec));
    if (!strcmp(name, "device") || ev->nvars >= CEL_ACTIVATION_MAX - 1) {
        dra_err *e = var_err(name, strcmp(name, "device") ? "too many variables" : "the name device is taken");
        free(name);
        return e;
    }
    cel_program *p = NULL;
    dra_err *e = compile_in(ev->var_env, eq + 1, &p);
    if (e) {
        dra_err *w = var_err(name, e->msg);
        dra_err_free(e);
        free(name);
        return w;
    }
    cel_value v = dra_sel_eval_run(ev, p, NULL);
    if (v.kind == CEL_ERROR) {
        e = var_err(name, v.v.err);
        cel_program_free(p);
        free(name);
        return e;
    }
    size_t n = ev->nvars + 1;
    ev->var_progs = dra_xrealloc(ev->var_progs, n * sizeof *ev->var_progs);
    ev->var_names = dra_xrealloc(ev->var_names, n * sizeof *ev->var_names);
    ev->var_values = dra_xrealloc(ev->var_values, n * sizeof *ev->var_values);
    ev->var_progs[ev->nvars] = p;
    ev->var_names[ev->nvars] = name;
    ev->var_values[ev->nvars] = v;
    ev->nvars = n;
    cel_env_declare(ev->env, name, cel_program_result_type(p));
    return NULL;
}

cel_value dra_sel_eval_run(dra_sel_eval *ev, cel_program *p, const dra_sel_device *d)
{
    cel_activation act = CEL_ACTIVATION_INIT;
    if (!d)
        d = ev->device;
    ev->cost = 0;
    if (d) {
        /* A device that does not convert fails before any evaluation. */
        const cel_dra_device *cd = dra_sel_device_cel(d, &ev->how);
        if (cel_dra_device_error_in(p, cd))
            return cel_error(cel_dra_device_error_in(p, cd));
        cel_activation_bind(&act, "device", cel_dra_device_value(cd));
    }
    for (size_t i = 0; i < ev->nvars; i++)
        cel_activation_bind(&act, ev->var_names[i], ev->var_values[i]);
    return run(p, &act, &ev->cost);
}

static bool mentions(const cel_node *n, const char *name)
{
    if (!n)
        return false;
    switch (n->kind) {
    case CEL_NODE_IDENT: return !strcmp(n->u.ident.name, name);
    case CEL_NODE_SELECT: return mentions(n->u.select.operand, name);
    case CEL_NODE_CALL:
        if (mentions(n->u.call.target, name))
            return true;
        for (size_t i = 0; i < n->u.call.nargs; i++)
            if (mentions(n->u.call.args[i], name))
                return true;
        return false;
    case CEL_NODE_LIST:
        for (size_t i = 0; i < n->u.list.nelems; i++)
            if (mentions(n->u.list.elems[i], name))
                return true;
        return false;
    case CEL_NODE_MAP:
    case CEL_NODE_STRUCT:
        for (size_t i = 0; i < n->u.map.nentries; i++)
            if (mentions(n->u.map.entries[i].key, name) || mentions(n->u.map.entries[i].value, name))
                return true;
        return false;
    case CEL_NODE_COMPREHENSION:
        return mentions(n->u.comp.iter_range, name) || mentions(n->u.comp.accu_init, name) ||
               mentions(n->u.comp.loop_condition, name) || mentions(n->u.comp.loop_step, name) ||
               mentions(n->u.comp.result, name);
    default: return false;
    }
}

bool dra_sel_uses_device(const char *expr)
{
    dra_arena a = DRA_ARENA_INIT;
    cel_ast *ast = NULL;
    dra_err *e = cel_parse(expr, strlen(expr), NULL, &a, &ast);
    bool r = !e && mentions(ast->root, "device");
    dra_err_free(e);
    dra_arena_free(&a);
    return r;
}
