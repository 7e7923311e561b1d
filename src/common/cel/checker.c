/* CEL type checker, after cel-go checker/checker.go, checker/types.go
 * (assignability with type-parameter substitution) and the homogeneous
 * aggregate literal validator of cel-go cel/validator.go. */
#include "checker.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "catalog.h"
#include "parser.h"
#include "syntax.h"

/* Type-variable substitutions (cel-go checker/mapping.go). */
typedef struct subst {
    const char *var; /* CEL_T_PARAM name */
    const cel_type *type;
} subst;

typedef struct mapping {
    subst *v;
    size_t n, cap;
} mapping;

typedef struct scope_var {
    const char *name;
    const cel_type *type;
} scope_var;

typedef struct checker {
    const cel_check_env *env;
    dra_arena *arena;
    cel_ast *ast;
    mapping m;
    int next_var;
    scope_var *scope; /* comprehension variables, innermost last */
    size_t nscope, capscope;
    dra_err *errs;
    int nerrs;
} checker;

/* ---- mapping ---- */

static const cel_type *map_find(const mapping *m, const char *var)
{
    for (size_t i = m->n; i-- > 0;)
        if (!strcmp(m->v[i].var, var))
            return m->v[i].type;
    return NULL;
}

static void map_add(mapping *m, const char *var, const cel_type *t)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->v[i].var, var)) {
            m->v[i].type = t;
            return;
        }
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 16;
        m->v = dra_xrealloc(m->v, m->cap * sizeof *m->v);
    }
    m->v[m->n++] = (subst){var, t};
}

static mapping map_copy(const mapping *m)
{
    mapping c = {0};
    if (m->n) {
        c.v = dra_xmalloc(m->n * sizeof *c.v);
        memcpy(c.v, m->v, m->n * sizeof *c.v);
        c.n = c.cap = m->n;
    }
    return c;
}

/* ---- type helpers ---- */

static bool is_dyn_or_error(const cel_type *t)
{
    return t->kind == CEL_T_DYN || t->kind == CEL_T_ERROR || t->kind == CEL_T_ANY;
}

static bool is_dyn(const cel_type *t)
{
    return t->kind == CEL_T_DYN || t->kind == CEL_T_ANY;
}

static const cel_type *new_var(checker *c)
{
    char name[32];
    snprintf(name, sizeof name, "_var%d", c->next_var++);
    return cel_type_param(c->arena, name);
}

/* Rebuild t with params replaced; identical subtrees are shared. */
static const cel_type *rebuild(checker *c, const cel_type *t, const cel_type *p0, const cel_type *p1)
{
    if (t->nparams == 0 || (p0 == t->params[0] && (t->nparams < 2 || p1 == t->params[1])))
        return t;
    switch (t->kind) {
    case CEL_T_LIST: return cel_type_list(c->arena, p0);
    case CEL_T_MAP: return cel_type_map(c->arena, p0, p1);
    case CEL_T_TYPE: return cel_type_type(c->arena, p0);
    case CEL_T_OPTIONAL: return cel_type_optional(c->arena, p0);
    case CEL_T_OPAQUE: {
        const cel_type *ps[2] = {p0, p1};
        return cel_type_opaque(c->arena, t->name, ps, t->nparams);
    }
    default: return t;
    }
}

/* cel-go substitute(): resolve type variables through the mapping. */
static const cel_type *substitute(checker *c, const mapping *m, const cel_type *t, bool free_to_dyn, int depth)
{
    if (depth > 64)
        return &cel_t_dyn;
    if (t->kind == CEL_T_PARAM) {
        const cel_type *s = map_find(m, t->name);
        if (s && s != t)
            return substitute(c, m, s, free_to_dyn, depth + 1);
        return free_to_dyn ? &cel_t_dyn : t;
    }
    if (t->nparams == 0)
        return t;
    const cel_type *p0 = substitute(c, m, t->params[0], free_to_dyn, depth + 1);
    const cel_type *p1 = t->nparams > 1 ? substitute(c, m, t->params[1], free_to_dyn, depth + 1) : NULL;
    return rebuild(c, t, p0, p1);
}

static bool references(const mapping *m, const char *var, const cel_type *t, int depth)
{
    if (depth > 64)
        return true;
    if (t->kind == CEL_T_PARAM) {
        if (!strcmp(t->name, var))
            return true;
        const cel_type *s = map_find(m, t->name);
        return s && s != t && references(m, var, s, depth + 1);
    }
    for (unsigned i = 0; i < t->nparams; i++)
        if (references(m, var, t->params[i], depth + 1))
            return true;
    return false;
}

static bool exact(const cel_type *a, const cel_type *b)
{
    return a == b || cel_type_equal(a, b);
}

/* cel-go checker/types.go isEqualOrLessSpecific. */
static bool less_specific(const cel_type *a, const cel_type *b)
{
    if (is_dyn(a) || a->kind == CEL_T_PARAM)
        return true;
    if (is_dyn(b) || b->kind == CEL_T_PARAM)
        return false;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CEL_T_TYPE: return true;
    case CEL_T_OPAQUE:
    case CEL_T_LIST:
    case CEL_T_MAP:
    case CEL_T_OPTIONAL:
        if (a->kind == CEL_T_OPAQUE && strcmp(a->name, b->name))
            return false;
        if (a->nparams != b->nparams)
            return false;
        for (unsigned i = 0; i < a->nparams; i++)
            if (!less_specific(a->params[i], b->params[i]))
                return false;
        return true;
    default: return exact(a, b);
    }
}

/* cel-go mostGeneral: one of the two, whole. */
static const cel_type *most_general(const cel_type *a, const cel_type *b)
{
    return less_specific(a, b) ? a : b;
}

static bool assignable_in(checker *c, mapping *m, const cel_type *t1, const cel_type *t2, int depth);

/* cel-go isValidTypeSubstitution: can t1 stand for variable t2? */
static bool valid_subst(checker *c, mapping *m, const cel_type *t1, const cel_type *t2, bool *has_sub, int depth)
{
    *has_sub = false;
    if (t1->kind == t2->kind && exact(t1, t2)) {
        *has_sub = true;
        return true;
    }
    const cel_type *sub = map_find(m, t2->name);
    if (sub) {
        *has_sub = true;
        if (t1->kind == sub->kind && exact(t1, sub))
            return true;
        if (assignable_in(c, m, t1, sub, depth + 1)) {
            const cel_type *g = most_general(t1, sub);
            if (!references(m, t2->name, g, 0))
                map_add(m, t2->name, g);
            return true;
        }
        return false;
    }
    if (!references(m, t2->name, t1, 0)) {
        map_add(m, t2->name, t1);
        return true;
    }
    return false;
}

static bool is_legacy_nullable(const cel_type *t)
{
    switch (t->kind) {
    case CEL_T_OPAQUE:
    case CEL_T_STRUCT:
    case CEL_T_ANY:
    case CEL_T_DURATION:
    case CEL_T_TIMESTAMP:
    case CEL_T_OPTIONAL:
    case CEL_T_NULL: return true;
    default: return false;
    }
}

/* cel-go internalIsAssignable: is a value of type t1 acceptable where t2 is expected? */
static bool assignable_in(checker *c, mapping *m, const cel_type *t1, const cel_type *t2, int depth)
{
    if (depth > 64)
        return false;
    if (t2->kind == CEL_T_PARAM) {
        bool has_sub;
        if (valid_subst(c, m, t1, t2, &has_sub, depth))
            return true;
        if (has_sub)
            return false;
    }
    if (t1->kind == CEL_T_PARAM) {
        bool has_sub;
        return valid_subst(c, m, t2, t1, &has_sub, depth);
    }
    if (is_dyn_or_error(t1) || is_dyn_or_error(t2))
        return true;
    if (t1->kind == CEL_T_NULL)
        return is_legacy_nullable(t2);
    if (t2->kind == CEL_T_NULL)
        return is_legacy_nullable(t1);
    switch (t1->kind) {
    case CEL_T_TYPE: return t2->kind == CEL_T_TYPE;
    case CEL_T_LIST:
    case CEL_T_MAP:
    case CEL_T_OPAQUE:
    case CEL_T_OPTIONAL:
        if (t1->kind != t2->kind || t1->nparams != t2->nparams)
            return false;
        if (t1->kind == CEL_T_OPAQUE && strcmp(t1->name, t2->name))
            return false;
        for (unsigned i = 0; i < t1->nparams; i++)
            if (!assignable_in(c, m, t1->params[i], t2->params[i], depth + 1))
                return false;
        return true;
    case CEL_T_STRUCT: return t2->kind == CEL_T_STRUCT && !strcmp(t1->name, t2->name);
    default: return t1->kind == t2->kind;
    }
}

/* Try; on success keep the updated mapping. */
static bool is_assignable(checker *c, const cel_type *t1, const cel_type *t2)
{
    mapping m = map_copy(&c->m);
    if (assignable_in(c, &m, t1, t2, 0)) {
        free(c->m.v);
        c->m = m;
        return true;
    }
    free(m.v);
    return false;
}

static bool is_assignable_list(checker *c, const cel_type *const *l1, const cel_type *const *l2, size_t n)
{
    mapping m = map_copy(&c->m);
    for (size_t i = 0; i < n; i++)
        if (!assignable_in(c, &m, l1[i], l2[i], 0)) {
            free(m.v);
            return false;
        }
    free(c->m.v);
    c->m = m;
    return true;
}

static const char *fmt_type(checker *c, const cel_type *t)
{
    return cel_type_str_checked(substitute(c, &c->m, t, true, 0), c->arena);
}

/* ---- errors ---- */

static void report(checker *c, const cel_node *n, const char *fmt, ...) DRA_PRINTF(3, 4);
static void report(checker *c, const cel_node *n, const char *fmt, ...)
{
    c->nerrs++;
    if (c->nerrs > 101)
        return;
    va_list ap;
    va_start(ap, fmt);
    dra_err *e = dra_err_newv(DRA_EXIT_INPUT, fmt, ap);
    va_end(ap);
    int line, col;
    cel_ast_location(c->ast, n->offset, &line, &col);
    e->line = line > 0 ? line : 0;
    e->col = line > 0 ? col : 0;
    c->errs = dra_err_append(c->errs, e);
}

/* ---- scopes ---- */

static void push_var(checker *c, const char *name, const cel_type *t)
{
    if (c->nscope == c->capscope) {
        c->capscope = c->capscope ? c->capscope * 2 : 8;
        c->scope = dra_xrealloc(c->scope, c->capscope * sizeof *c->scope);
    }
    c->scope[c->nscope++] = (scope_var){name, t};
}

static const cel_type *lookup_var(checker *c, const char *name)
{
    if (name[0] == '.') { /* root scope only */
        name++;
    } else {
        for (size_t i = c->nscope; i-- > 0;)
            if (!strcmp(c->scope[i].name, name))
                return c->scope[i].type;
    }
    for (size_t i = c->env->nvars; i-- > 0;)
        if (!strcmp(c->env->vars[i].name, name))
            return c->env->vars[i].type;
    return NULL;
}

/* The container prefix shorter than `len` bytes of c->env->container
 * ("a.b.c" -> "a.b" -> "a" -> ""), as cel-go containers.ResolveCandidateNames. */
static size_t shorter_prefix(const char *container, size_t len)
{
    while (len > 0 && container[len - 1] != '.')
        len--;
    return len ? len - 1 : 0;
}

/* A variable or a type identifier ("int" -> type(int)), resolved against
 * the container: for "y" in container "x" the candidates are "x.y", then
 * "y"; a leading dot means the root only.  *resolved receives the matching
 * candidate (arena text) so the caller can rewrite the reference. */
static const cel_type *lookup_ident(checker *c, const char *name, const char **resolved)
{
    const char *container = c->env->container ? c->env->container : "";
    bool optional_lib = (cel_registry_libs(c->env->registry) & CEL_LIB_OPTIONAL) != 0;
    if (name[0] == '.' && c->env->dotted_locals) {
        /* cel-go v0.26 Env.LookupIdent: ResolveCandidateNames(".x") is
         * "x" alone, found in the innermost scope that has it, and the
         * reference is renamed to it */
        const cel_type *t = lookup_var(c, name + 1);
        const cel_type *tn = t ? NULL : cel_type_ident(name + 1, optional_lib);
        if (!t && !tn)
            return NULL;
        *resolved = dra_arena_strdup(c->arena, name + 1);
        return t ? t : cel_type_type(c->arena, tn);
    }
    size_t clen = name[0] == '.' ? 0 : strlen(container);
    const char *bare = name[0] == '.' ? name + 1 : name;
    for (;;) {
        const char *cand = name;
        char *tmp = NULL;
        if (clen) {
            tmp = dra_xasprintf("%.*s.%s", (int)clen, container, bare);
            cand = tmp;
        }
        const cel_type *t = lookup_var(c, cand);
        const cel_type *tn = t ? NULL : cel_type_ident(cand[0] == '.' ? cand + 1 : cand, optional_lib);
        if (t || tn) {
            *resolved = cand == name ? name : dra_arena_strdup(c->arena, cand);
            free(tmp);
            return t ? t : cel_type_type(c->arena, tn);
        }
        free(tmp);
        if (!clen)
            return NULL;
        clen = shorter_prefix(container, clen);
    }
}

typedef struct symbols {
    const char **v;
    size_t n, cap;
} symbols;

static void add_symbol(const char *name, void *ud)
{
    symbols *s = ud;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->v = dra_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = name;
}

/* cel-go v0.33's suggestion for name (catalog.h; NULL for none): the
 * symbols of cel/env.go initChecker's catalog, that is the variables, the
 * functions (operators included), the standard types and the macros.
 * Its functions include those declared but disabled (common/stdlib/
 * standard.go: "in", "_in_", "__not_strictly_false__") and, in
 * Kubernetes' base environment, the authorizer's (apiserver v0.38.0-beta.0
 * pkg/cel/library/authz.go Authz, AuthzSelectors), which the project
 * leaves out: they join the registry's names. */
static char *suggestion(const checker *c, const char *name)
{
    /* clang-format off */
    static const char *const types[] = {"bool", "bytes", "double", "duration", "int", "list", "map", "null_type",
                                        "string", "timestamp", "type", "uint"};
    static const struct { unsigned bit; const char *names[6]; } macros[] = {
        {CEL_MACROS_STANDARD, {"has", "all", "exists", "exists_one", "map", "filter"}},
        {CEL_MACROS_STANDARD, {"existsOne"}},
        {CEL_MACROS_TWO_VAR, {"all", "exists", "existsOne", "transformList", "transformMap", "transformMapEntry"}},
        {CEL_MACROS_BINDINGS, {"bind"}},
        {CEL_MACROS_OPTIONAL, {"optMap", "optFlatMap"}},
        {CEL_MACROS_SORT_BY, {"sortBy"}},
        {CEL_MACROS_MATH, {"greatest", "least"}},
    };
    static const char *const disabled[] = {"in", "_in_", "__not_strictly_false__"};
    static const char *const authz[] = {"path", "group", "serviceAccount", "resource", "subresource", "namespace",
                                        "name", "check", "errored", "error", "allowed", "reason", "fieldSelector",
                                        "labelSelector"};
    /* clang-format on */
    symbols s = {0};
    for (size_t i = 0; i < c->env->nvars; i++)
        add_symbol(c->env->vars[i].name, &s);
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        add_symbol(types[i], &s);
    cel_registry_foreach_function(c->env->registry, add_symbol, &s);
    for (size_t i = 0; i < sizeof disabled / sizeof *disabled; i++)
        add_symbol(disabled[i], &s);
    for (size_t i = 0; (cel_registry_libs(c->env->registry) & CEL_LIB_K8S_URL) && i < sizeof authz / sizeof *authz; i++)
        add_symbol(authz[i], &s);
    unsigned on = c->env->macros ? c->env->macros : CEL_MACROS_ALL;
    for (size_t i = 0; i < sizeof macros / sizeof *macros; i++)
        for (size_t k = 0; k < 6 && macros[i].names[k] && (on & macros[i].bit); k++)
            add_symbol(macros[i].names[k], &s);
    char *r = cel_catalog_suggest(name, s.v, s.n);
    free(s.v);
    return r;
}

/* "undeclared reference to 'x' (in container '')"; cel-go v0.33 names
 * only a container that is set and adds a suggestion (checker/errors.go
 * undeclaredReference). */
static void report_undeclared(checker *c, cel_node *e, const char *name)
{
    const char *container = c->env->container ? c->env->container : "";
    char *hint = c->env->suggest ? suggestion(c, name) : NULL;

    if (!*container && c->env->omit_empty_container)
        report(c, e, "undeclared reference to '%s'%s", name, hint ? hint : "");
    else
        report(c, e, "undeclared reference to '%s' (in container '%s')%s", name, container, hint ? hint : "");
    free(hint);
}

/* ---- checking ---- */

static void check(checker *c, cel_node *e);

static void set_type(cel_node *e, const cel_type *t)
{
    e->type = t;
}

/* cel-go v0.33 checker/errors.go checkUndeclaredIdent and
 * checkUndeclaredFunction: the dotted name `full` (a select's qualified
 * name, or a call's qualified target and function) is reported whole,
 * and e typed an error, when no leading run of its parts before the last
 * is declared and the catalog has something for it.  False otherwise:
 * the caller checks e as it would. */
static bool undeclared_dotted(checker *c, cel_node *e, const char *full)
{
    if (!c->env->suggest)
        return false;
    const char *last = strrchr(full, '.');
    for (const char *dot = strchr(full, '.'); dot && dot <= last; dot = strchr(dot + 1, '.')) {
        char *prefix = dra_xasprintf("%.*s", (int)(dot - full), full);
        const char *resolved = NULL;
        bool declared = lookup_ident(c, prefix, &resolved) != NULL;
        free(prefix);
        if (declared)
            return false;
    }
    char *hint = suggestion(c, full);
    if (!hint)
        return false;
    free(hint);
    report_undeclared(c, e, full);
    set_type(e, &cel_t_error);
    return true;
}
static const cel_type *type_of(const cel_node *e)
{
    return e && e->type ? e->type : &cel_t_error;
}

static const cel_type *const_type(const cel_const *k)
{
    switch (k->kind) {
    case CEL_CONST_BOOL: return &cel_t_bool;
    case CEL_CONST_INT: return &cel_t_int;
    case CEL_CONST_UINT: return &cel_t_uint;
    case CEL_CONST_DOUBLE: return &cel_t_double;
    case CEL_CONST_STRING: return &cel_t_string;
    case CEL_CONST_BYTES: return &cel_t_bytes;
    default: return &cel_t_null;
    }
}

/* "a.b.c" for an ident/select chain, NULL otherwise. */
static char *qualified_name(const cel_node *e)
{
    if (e->kind == CEL_NODE_IDENT)
        return dra_xstrdup(e->u.ident.name);
    if (e->kind == CEL_NODE_SELECT && !e->u.select.test_only) {
        char *p = qualified_name(e->u.select.operand);
        if (!p)
            return NULL;
        char *r = dra_xasprintf("%s.%s", p, e->u.select.field);
        free(p);
        return r;
    }
    return NULL;
}

static const cel_type *unwrap_optional(const cel_type *t, bool *is_opt)
{
    *is_opt = t->kind == CEL_T_OPTIONAL && t->nparams == 1;
    return *is_opt ? t->params[0] : t;
}

static const cel_type *check_select_field(checker *c, cel_node *e, cel_node *operand, const char *field, bool optional)
{
    check(c, operand);
    const cel_type *ot = substitute(c, &c->m, type_of(operand), false, 0);
    bool is_opt;
    const cel_type *t = unwrap_optional(ot, &is_opt);
    const cel_type *result = &cel_t_error;
    switch (t->kind) {
    case CEL_T_MAP: result = t->params[1]; break;
    case CEL_T_STRUCT: {
        const cel_type *ft = cel_type_field(t, field);
        if (ft)
            result = ft;
        else
            report(c, e, "undefined field '%s'", field);
        break;
    }
    case CEL_T_PARAM:
        is_assignable(c, &cel_t_dyn, t);
        result = &cel_t_dyn;
        break;
    case CEL_T_OPAQUE:
        /* the Kubernetes types declared with cel.ObjectType (apiserver
         * v0.37.2 pkg/cel semver.go, quantity.go, url.go, format.go) are
         * structs no provider knows: checker.go lookupFieldType */
        if (t->name && !strncmp(t->name, "kubernetes.", 11)) {
            report(c, e, "unexpected failed resolution of '%s'", t->name);
            break;
        }
        /* fall through */
    default:
        /* the operand's type as substituted above, free type variables
         * kept (checker.go checkSelectField: "list(_var0)" for [].a) */
        if (!is_dyn_or_error(t))
            report(c, e, "type '%s' does not support field selection", cel_type_str_checked(t, c->arena));
        result = &cel_t_dyn;
        break;
    }
    if (is_opt || optional)
        return cel_type_optional(c->arena, result);
    return result;
}

static void check_select(checker *c, cel_node *e)
{
    char *q = qualified_name(e);
    if (q) {
        const char *resolved = NULL;
        const cel_type *t = lookup_ident(c, q, &resolved);
        if (t) { /* a declared variable with a dotted name, or a type (google.protobuf.Duration) */
            set_type(e, t);
            e->kind = CEL_NODE_IDENT;
            e->u.ident.name = resolved == q ? dra_arena_strdup(c->arena, q) : resolved;
            free(q);
            return;
        }
        bool reported = undeclared_dotted(c, e, q);
        free(q);
        if (reported)
            return;
    }
    const cel_type *r = check_select_field(c, e, e->u.select.operand, e->u.select.field, false);
    if (e->u.select.test_only)
        r = &cel_t_bool;
    set_type(e, substitute(c, &c->m, r, false, 0));
}

static bool numeric_kind(cel_type_kind k)
{
    return k == CEL_T_INT || k == CEL_T_UINT || k == CEL_T_DOUBLE;
}

/* Cross-type numeric ordering overloads exist only with CrossTypeNumericComparisons. */
static bool overload_disabled(checker *c, const cel_overload *o)
{
    if (c->env->cross_type_numeric || o->nargs != 2)
        return false;
    const char *f = o->function;
    if (strcmp(f, CEL_OP_LESS) && strcmp(f, CEL_OP_LESS_EQUALS) && strcmp(f, CEL_OP_GREATER) &&
        strcmp(f, CEL_OP_GREATER_EQUALS))
        return false;
    return numeric_kind(o->params[0]->kind) && numeric_kind(o->params[1]->kind) &&
           o->params[0]->kind != o->params[1]->kind;
}

/* Replace the overload's type parameters with fresh variables. */
static const cel_type *instantiate(checker *c, const cel_type *t, mapping *fresh)
{
    if (t->kind == CEL_T_PARAM) {
        const cel_type *v = map_find(fresh, t->name);
        if (!v) {
            v = new_var(c);
            map_add(fresh, t->name, v);
        }
        return v;
    }
    if (t->nparams == 0)
        return t;
    const cel_type *p0 = instantiate(c, t->params[0], fresh);
    const cel_type *p1 = t->nparams > 1 ? instantiate(c, t->params[1], fresh) : NULL;
    return rebuild(c, t, p0, p1);
}

static void no_matching(checker *c, cel_node *e, const char *fn, const cel_type *const *args, size_t n, bool member)
{
    dra_buf b = DRA_BUF_INIT;
    size_t i = 0;
    if (member && n) {
        cel_type_format_checked(substitute(c, &c->m, args[0], true, 0), &b);
        dra_buf_putc(&b, '.');
        i = 1;
    }
    dra_buf_putc(&b, '(');
    for (size_t k = i; k < n; k++) {
        if (k > i)
            dra_buf_puts(&b, ", ");
        cel_type_format_checked(substitute(c, &c->m, args[k], true, 0), &b);
    }
    dra_buf_putc(&b, ')');
    report(c, e, "found no matching overload for '%s' applied to '%s'", fn, dra_buf_str(&b));
    dra_buf_free(&b);
}

/* The overloads of indexOf and lastIndexOf in declaration order when the
 * Kubernetes lists library comes after ext.Strings (apiserver v0.38.0-beta.0
 * pkg/cel/environment/base.go: ListsVersion(0), before the strings library,
 * is removed in 1.37 and ListsVersion(1) follows it), into buf: a dyn or
 * free receiver then binds to string, as upstream-cel 1.38 answers
 * ([][1].indexOf("a") takes [][1] as a string).  Else ovs itself. */
static const cel_overload *const *declared_order(const checker *c, const char *fn, const cel_overload *const *ovs,
                                                 size_t novs, const cel_overload **buf, size_t cap)
{
    if (!c->env->lists_after_strings || novs > cap || (strcmp(fn, "indexOf") && strcmp(fn, "lastIndexOf")))
        return ovs;
    size_t k = 0;
    for (int late = 0; late < 2; late++)
        for (size_t i = 0; i < novs; i++)
            if ((ovs[i]->lib == CEL_LIB_K8S_LISTS) == (late == 1))
                buf[k++] = ovs[i];
    return buf;
}

/* cel-go resolveOverload over the registry's overloads of fn. */
static void resolve(checker *c, cel_node *e, const char *fn, const cel_overload *const *ovs, size_t novs)
{
    const cel_overload *order[8];
    ovs = declared_order(c, fn, ovs, novs, order, sizeof order / sizeof *order);
    cel_node *target = e->u.call.target;
    size_t n = e->u.call.nargs + (target ? 1 : 0);
    const cel_type *args[CEL_MAX_ARGS + 8];
    const cel_type **argv = n <= sizeof args / sizeof *args ? args : dra_xmalloc(n * sizeof *argv);
    size_t k = 0;
    if (target)
        argv[k++] = type_of(target);
    for (size_t i = 0; i < e->u.call.nargs; i++)
        argv[k++] = type_of(e->u.call.args[i]);

    const cel_type *result = NULL;
    const cel_overload **found = NULL;
    size_t nfound = 0;
    for (size_t i = 0; i < novs; i++) {
        const cel_overload *o = ovs[i];
        if ((target != NULL) != o->member || overload_disabled(c, o))
            continue;
        /* cel-go checker.go resolveOverload: the logical operators take
         * each operand as a bool, and name every one that is not */
        if (!strcmp(fn, CEL_OP_LOGICAL_AND) || !strcmp(fn, CEL_OP_LOGICAL_OR)) {
            bool ok = true;
            for (size_t a = 0; a < n; a++)
                if (!is_assignable(c, argv[a], &cel_t_bool)) {
                    cel_node *x = target ? (a ? e->u.call.args[a - 1] : target) : e->u.call.args[a];
                    report(c, x, "expected type 'bool' but found '%s'", cel_type_str_checked(argv[a], c->arena));
                    ok = false;
                }
            if (!ok)
                break;
            found = dra_xgrow(found, nfound, sizeof *found);
            found[nfound++] = o;
            result = &cel_t_bool;
            break;
        }
        /* fresh type variables for an overload of another arity too:
         * cel-go makes them before isAssignableList compares the counts
         * (they show in later errors: "list(_var6)") */
        mapping fresh = {0};
        const cel_type *params[CEL_MAX_ARGS];
        for (unsigned p = 0; p < o->nargs; p++)
            params[p] = instantiate(c, o->params[p], &fresh);
        const cel_type *res = instantiate(c, o->result, &fresh);
        free(fresh.v);
        if (o->nargs != n || !is_assignable_list(c, argv, params, n))
            continue;
        found = dra_xgrow(found, nfound, sizeof *found);
        found[nfound++] = o;
        const cel_type *rt = substitute(c, &c->m, res, false, 0);
        if (!result)
            result = rt;
        else if (!is_dyn(result) && !exact(rt, result))
            result = &cel_t_dyn;
    }
    if (!result && (!strcmp(fn, CEL_OP_LOGICAL_AND) || !strcmp(fn, CEL_OP_LOGICAL_OR))) {
        set_type(e, &cel_t_error); /* reported per operand */
    } else if (!result) {
        no_matching(c, e, fn, argv, n, target != NULL);
        set_type(e, &cel_t_error);
    } else {
        set_type(e, result);
        e->u.call.noverloads = nfound;
        e->u.call.overloads = dra_arena_alloc(c->arena, nfound * sizeof *found);
        e->u.call.overload_ids = dra_arena_alloc(c->arena, nfound * sizeof(const char *));
        for (size_t i = 0; i < nfound; i++) {
            e->u.call.overloads[i] = found[i];
            e->u.call.overload_ids[i] = found[i]->id;
        }
    }
    free(found);
    if (argv != args)
        free(argv);
}

/* cel.@mapInsert from ext.TwoVarComprehensions, typed here when the
 * registry does not declare it. */
static void check_map_insert(checker *c, cel_node *e)
{
    const cel_type *m = type_of(e->u.call.args[0]);
    const cel_type *k = new_var(c), *v = new_var(c);
    const cel_type *want = cel_type_map(c->arena, k, v);
    bool ok = is_assignable(c, m, want);
    if (ok && e->u.call.nargs == 3)
        ok = is_assignable(c, type_of(e->u.call.args[1]), k) && is_assignable(c, type_of(e->u.call.args[2]), v);
    else if (ok && e->u.call.nargs == 2)
        ok = is_assignable(c, type_of(e->u.call.args[1]), want);
    if (!ok) {
        const cel_type *argv[3];
        for (size_t i = 0; i < e->u.call.nargs && i < 3; i++)
            argv[i] = type_of(e->u.call.args[i]);
        no_matching(c, e, e->u.call.function, argv, e->u.call.nargs, false);
        set_type(e, &cel_t_error);
        return;
    }
    set_type(e, substitute(c, &c->m, want, false, 0));
}

static void check_opt_select(checker *c, cel_node *e)
{
    cel_node *operand = e->u.call.args[0], *field = e->u.call.args[1];
    if (field->kind != CEL_NODE_CONST || field->u.constant.kind != CEL_CONST_STRING) {
        report(c, field, "unsupported optional field selection");
        set_type(e, &cel_t_error);
        return;
    }
    const cel_type *r = check_select_field(c, e, operand, field->u.constant.v.s.data, true);
    set_type(field, &cel_t_string);
    set_type(e, substitute(c, &c->m, r, false, 0));
}

static void check_call(checker *c, cel_node *e)
{
    const char *fn = e->u.call.function;
    if (!strcmp(fn, CEL_OP_OPT_SELECT) && e->u.call.nargs == 2 && !e->u.call.target) {
        check_opt_select(c, e);
        return;
    }
    for (size_t i = 0; i < e->u.call.nargs; i++)
        check(c, e->u.call.args[i]);
    const cel_registry *reg = c->env->registry;
    size_t novs = 0;
    const cel_overload *const *ovs;
    if (!e->u.call.target) {
        /* `.f(x)`: the root scope's f, called by its own name (cel-go
         * Container.ResolveCandidateNames drops the leading dot; the
         * checker renames the call to the function found). */
        ovs = cel_registry_lookup(reg, fn[0] == '.' ? fn + 1 : fn, &novs);
        if (novs && fn[0] == '.')
            e->u.call.function = fn = fn + 1;
        if (!novs) {
            if (!strcmp(fn, "cel.@mapInsert") && (e->u.call.nargs == 2 || e->u.call.nargs == 3)) {
                check_map_insert(c, e);
                return;
            }
            report_undeclared(c, e, fn);
            set_type(e, &cel_t_error);
            return;
        }
        resolve(c, e, fn, ovs, novs);
        return;
    }
    /* `ns.f(x)`: a namespaced global function wins over a member call. */
    char *q = qualified_name(e->u.call.target);
    if (q) {
        char *full = dra_xasprintf("%s.%s", q, fn);
        free(q);
        ovs = cel_registry_lookup(reg, full, &novs);
        if (novs) {
            e->u.call.function = dra_arena_strdup(c->arena, full);
            e->u.call.target = NULL;
            free(full);
            resolve(c, e, e->u.call.function, ovs, novs);
            return;
        }
        bool reported = undeclared_dotted(c, e, full);
        free(full);
        if (reported)
            return;
    }
    check(c, e->u.call.target);
    ovs = cel_registry_lookup(reg, fn, &novs);
    if (!novs) {
        report_undeclared(c, e, fn);
        set_type(e, &cel_t_error);
        return;
    }
    resolve(c, e, fn, ovs, novs);
}

static const cel_type *join_types(checker *c, const cel_type *prev, const cel_type *cur)
{
    if (!prev)
        return cur;
    if (is_assignable(c, prev, cur))
        return most_general(prev, cur);
    return &cel_t_dyn; /* mixed literals are dyn; homogeneity is a separate validator */
}

static void check_list(checker *c, cel_node *e)
{
    const cel_type *elems = NULL;
    size_t o = 0;
    for (size_t i = 0; i < e->u.list.nelems; i++) {
        cel_node *x = e->u.list.elems[i];
        check(c, x);
        const cel_type *t = type_of(x);
        if (o < e->u.list.noptional && e->u.list.optional_indices[o] == i) {
            o++;
            bool is_opt;
            t = unwrap_optional(t, &is_opt);
            if (!is_opt && !is_dyn(t))
                report(c, x, "expected type '%s' but found '%s'", fmt_type(c, cel_type_optional(c->arena, t)),
                       fmt_type(c, t));
        }
        elems = join_types(c, elems, t);
    }
    if (!elems)
        elems = new_var(c);
    set_type(e, cel_type_list(c->arena, elems));
}

static void check_map(checker *c, cel_node *e)
{
    const cel_type *kt = NULL, *vt = NULL;
    for (size_t i = 0; i < e->u.map.nentries; i++) {
        cel_entry *en = &e->u.map.entries[i];
        check(c, en->key);
        kt = join_types(c, kt, type_of(en->key));
        check(c, en->value);
        const cel_type *t = type_of(en->value);
        if (en->optional) {
            bool is_opt;
            t = unwrap_optional(t, &is_opt);
            if (!is_opt && !is_dyn(t))
                report(c, en->value, "expected type '%s' but found '%s'", fmt_type(c, cel_type_optional(c->arena, t)),
                       fmt_type(c, t));
        }
        vt = join_types(c, vt, t);
    }
    if (!kt) {
        kt = new_var(c);
        vt = new_var(c);
    }
    set_type(e, cel_type_map(c->arena, kt, vt));
}

static void assert_type(checker *c, cel_node *e, const cel_type *want)
{
    if (!is_assignable(c, want, type_of(e)))
        report(c, e, "expected type '%s' but found '%s'", fmt_type(c, want), fmt_type(c, type_of(e)));
}

static void check_comprehension(checker *c, cel_node *e)
{
    check(c, e->u.comp.iter_range);
    check(c, e->u.comp.accu_init);
    const cel_type *rt = substitute(c, &c->m, type_of(e->u.comp.iter_range), false, 0);
    const cel_type *accu = type_of(e->u.comp.accu_init);
    size_t base = c->nscope;
    push_var(c, e->u.comp.accu_var, accu);
    const cel_type *v1, *v2 = NULL;
    bool two = e->u.comp.iter_var2 != NULL;
    switch (rt->kind) {
    case CEL_T_LIST:
        v1 = rt->params[0];
        if (two) {
            v2 = v1;
            v1 = &cel_t_int;
        }
        break;
    case CEL_T_MAP:
        v1 = rt->params[0];
        if (two)
            v2 = rt->params[1];
        break;
    case CEL_T_DYN:
    case CEL_T_ERROR:
    case CEL_T_PARAM: /* not google.protobuf.Any */
        is_assignable(c, &cel_t_dyn, rt);
        v1 = &cel_t_dyn;
        v2 = two ? &cel_t_dyn : NULL;
        break;
    default:
        report(c, e->u.comp.iter_range,
               "expression of type '%s' cannot be range of a comprehension (must be list, map, or dynamic)",
               fmt_type(c, rt));
        v1 = &cel_t_error;
        v2 = two ? &cel_t_error : NULL;
        break;
    }
    size_t loop = c->nscope;
    push_var(c, e->u.comp.iter_var, v1);
    if (two)
        push_var(c, e->u.comp.iter_var2, v2);
    check(c, e->u.comp.loop_condition);
    assert_type(c, e->u.comp.loop_condition, &cel_t_bool);
    check(c, e->u.comp.loop_step);
    assert_type(c, e->u.comp.loop_step, accu);
    c->nscope = loop;
    check(c, e->u.comp.result);
    c->nscope = base;
    set_type(e, substitute(c, &c->m, type_of(e->u.comp.result), false, 0));
}

static void check(checker *c, cel_node *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case CEL_NODE_CONST: set_type(e, const_type(&e->u.constant)); break;
    case CEL_NODE_IDENT: {
        const char *resolved = NULL;
        const cel_type *t = lookup_ident(c, e->u.ident.name, &resolved);
        if (!t) {
            report_undeclared(c, e, e->u.ident.name);
            t = &cel_t_error;
        } else {
            e->u.ident.name = resolved; /* the evaluator looks up the resolved name */
        }
        set_type(e, t);
        break;
    }
    case CEL_NODE_SELECT: check_select(c, e); break;
    case CEL_NODE_CALL: check_call(c, e); break;
    case CEL_NODE_LIST: check_list(c, e); break;
    case CEL_NODE_MAP: check_map(c, e); break;
    case CEL_NODE_STRUCT:
        report_undeclared(c, e, e->u.map.message_name);
        set_type(e, &cel_t_error);
        break;
    case CEL_NODE_COMPREHENSION: check_comprehension(c, e); break;
    }
}

/* Final pass: resolve remaining type variables (free ones become dyn). */
static void finalize(checker *c, cel_node *e)
{
    if (!e)
        return;
    if (e->type)
        e->type = substitute(c, &c->m, e->type, true, 0);
    switch (e->kind) {
    case CEL_NODE_SELECT: finalize(c, e->u.select.operand); break;
    case CEL_NODE_CALL:
        finalize(c, e->u.call.target);
        for (size_t i = 0; i < e->u.call.nargs; i++)
            finalize(c, e->u.call.args[i]);
        break;
    case CEL_NODE_LIST:
        for (size_t i = 0; i < e->u.list.nelems; i++)
            finalize(c, e->u.list.elems[i]);
        break;
    case CEL_NODE_MAP:
    case CEL_NODE_STRUCT:
        for (size_t i = 0; i < e->u.map.nentries; i++) {
            finalize(c, e->u.map.entries[i].key);
            finalize(c, e->u.map.entries[i].value);
        }
        break;
    case CEL_NODE_COMPREHENSION:
        finalize(c, e->u.comp.iter_range);
        finalize(c, e->u.comp.accu_init);
        finalize(c, e->u.comp.loop_condition);
        finalize(c, e->u.comp.loop_step);
        finalize(c, e->u.comp.result);
        break;
    default: break;
    }
}

/* cel-go ValidateHomogeneousAggregateLiterals; literals under a call to
 * `format` are exempt (ext.Strings registers that exemption). */
static void homogeneous(checker *c, cel_node *e, bool exempt)
{
    if (!e)
        return;
    switch (e->kind) {
    case CEL_NODE_SELECT: homogeneous(c, e->u.select.operand, exempt); break;
    case CEL_NODE_CALL: {
        bool ex = exempt || !strcmp(e->u.call.function, "format");
        homogeneous(c, e->u.call.target, ex);
        for (size_t i = 0; i < e->u.call.nargs; i++)
            homogeneous(c, e->u.call.args[i], ex);
        break;
    }
    case CEL_NODE_LIST: {
        const cel_type *first = NULL;
        size_t o = 0;
        for (size_t i = 0; i < e->u.list.nelems && !exempt; i++) {
            const cel_type *t = type_of(e->u.list.elems[i]);
            if (o < e->u.list.noptional && e->u.list.optional_indices[o] == i) {
                o++;
                if (t->kind == CEL_T_OPTIONAL)
                    t = t->params[0];
            }
            if (!first) {
                first = t;
            } else if (!exact(first, t)) {
                report(c, e->u.list.elems[i], "expected type '%s' but found '%s'",
                       cel_type_str_checked(first, c->arena), cel_type_str_checked(t, c->arena));
                break;
            }
        }
        for (size_t i = 0; i < e->u.list.nelems; i++)
            homogeneous(c, e->u.list.elems[i], exempt);
        break;
    }
    case CEL_NODE_MAP:
    case CEL_NODE_STRUCT: {
        const cel_type *kt = NULL, *vt = NULL;
        for (size_t i = 0; i < e->u.map.nentries; i++) {
            cel_entry *en = &e->u.map.entries[i];
            if (e->kind == CEL_NODE_MAP && !exempt) {
                const cel_type *k = type_of(en->key), *v = type_of(en->value);
                if (en->optional && v->kind == CEL_T_OPTIONAL)
                    v = v->params[0];
                if (!kt) {
                    kt = k;
                    vt = v;
                } else {
                    if (!exact(kt, k))
                        report(c, en->key, "expected type '%s' but found '%s'", cel_type_str_checked(kt, c->arena),
                               cel_type_str_checked(k, c->arena));
                    if (!exact(vt, v))
                        report(c, en->value, "expected type '%s' but found '%s'", cel_type_str_checked(vt, c->arena),
                               cel_type_str_checked(v, c->arena));
                }
            }
            homogeneous(c, en->key, exempt);
            homogeneous(c, en->value, exempt);
        }
        break;
    }
    case CEL_NODE_COMPREHENSION:
        homogeneous(c, e->u.comp.iter_range, exempt);
        homogeneous(c, e->u.comp.accu_init, exempt);
        homogeneous(c, e->u.comp.loop_condition, exempt);
        homogeneous(c, e->u.comp.loop_step, exempt);
        homogeneous(c, e->u.comp.result, exempt);
        break;
    default: break;
    }
}

dra_err *cel_check_homogeneous(cel_ast *ast, const cel_check_env *env, dra_arena *arena)
{
    checker c = {.env = env, .arena = arena, .ast = ast};
    homogeneous(&c, ast->root, false);
    free(c.m.v);
    free(c.scope);
    return c.errs;
}

dra_err *cel_check(cel_ast *ast, const cel_check_env *env, dra_arena *arena, const cel_type **result)
{
    checker c = {.env = env, .arena = arena, .ast = ast};
    check(&c, ast->root);
    finalize(&c, ast->root);
    if (!c.errs && env->homogeneous_literals)
        homogeneous(&c, ast->root, false);
    if (result)
        *result = type_of(ast->root);
    free(c.m.v);
    free(c.scope);
    return c.errs;
}
