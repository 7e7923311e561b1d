/* CEL public API: environments, compile (parse + check + prepare), evaluate. */
#include "cel.h"
#include "functions.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../model/time.h"
#include "checker.h"
#include "format_check.h"
#include "parser.h"
#include "program.h"

struct cel_env {
    unsigned libs, opts;
    cel_registry *reg;
    dra_arena arena;
    cel_decl *vars;
    size_t nvars, cap;
    const char *container;
    bool dra;                    /* set by dra.c: use the DRA size hint for cost estimation */
    const cel_type *dra_unknown; /* the DRA attribute value type */
    bool dra_no_lists;           /* cel_env_dra_refuse_lists */
};

cel_env *cel_env_new(unsigned libs)
{
    cel_env *env = dra_xcalloc(1, sizeof *env);
    env->libs = libs ? libs : CEL_LIBS_KUBERNETES;
    env->reg = cel_registry_new(env->libs);
    env->opts = 0;
    return env;
}

void cel_env_free(cel_env *env)
{
    if (!env)
        return;
    cel_registry_free(env->reg);
    free(env->vars);
    dra_arena_free(&env->arena);
    free(env);
}

void cel_env_set_options(cel_env *env, unsigned opts)
{
    env->opts = opts;
}
dra_arena *cel_env_arena(cel_env *env)
{
    return &env->arena;
}
const cel_registry *cel_env_registry(const cel_env *env)
{
    return env->reg;
}

void cel_env_declare(cel_env *env, const char *name, const cel_type *type)
{
    if (env->nvars == env->cap) {
        env->cap = env->cap ? env->cap * 2 : 8;
        env->vars = dra_xrealloc(env->vars, env->cap * sizeof *env->vars);
    }
    env->vars[env->nvars].name = dra_arena_strdup(&env->arena, name);
    env->vars[env->nvars].type = type;
    env->nvars++;
}

void cel_env_set_container(cel_env *env, const char *container)
{
    env->container = container ? dra_arena_strdup(&env->arena, container) : NULL;
}

/* Internal hook for dra.c. */
void cel_env_mark_dra(cel_env *env, const cel_type *unknown)
{
    env->dra = true;
    env->dra_unknown = unknown;
}

const cel_type *cel_env_dra_unknown(const cel_env *env)
{
    return env->dra_unknown;
}
void cel_env_dra_refuse_lists(cel_env *env)
{
    env->dra_no_lists = true;
}
bool cel_env_dra_lists_refused(const cel_env *env)
{
    return env->dra_no_lists;
}

/* Environments with any Kubernetes library use the Kubernetes cost
 * estimator (apiserver library.CostEstimator), both statically and at runtime. */
/* clang-format off */
#define K8S_LIBS (CEL_LIB_K8S_REGEX | CEL_LIB_K8S_LISTS | CEL_LIB_K8S_QUANTITY | CEL_LIB_K8S_SEMVER | \
                  CEL_LIB_K8S_URL | CEL_LIB_K8S_IP | CEL_LIB_K8S_CIDR | CEL_LIB_K8S_FORMAT)
/* clang-format on */
/* Kubernetes' base environment makes programs with its costs and
 * cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost) (apiserver
 * pkg/cel/environment/base.go). */
static unsigned env_flags(const cel_env *env)
{
    unsigned f = (env->libs & K8S_LIBS) ? CEL_EVAL_K8S_COSTS | CEL_EVAL_OPTIMIZE : 0;
    f |= (env->opts & CEL_OPT_CEL_GO_033)
             ? CEL_EVAL_STOP_AT_ERROR | CEL_EVAL_NAN_UNORDERED | CEL_EVAL_QUANTITY_138 | CEL_EVAL_BRANCH_QUALIFY
             : 0;
    return f | ((env->opts & CEL_OPT_CEL_GO_026) ? CEL_EVAL_CEL_GO_026 : 0);
}

static bool env_is_variable(const char *name, void *ud)
{
    const cel_env *env = ud;
    for (size_t i = 0; i < env->nvars; i++)
        if (strcmp(env->vars[i].name, name) == 0)
            return true;
    return false;
}

/* cel-go's ValidateDurationLiterals / ValidateTimestampLiterals /
 * ValidateRegexLiterals (cel/validator.go formatValidator): the first
 * argument of duration(), timestamp() and matches() (the pattern of
 * s.matches(p); in matches(s, p) the subject) must be valid when it is a
 * literal.  Reported at the literal as "invalid <function> argument". */
static void report_at(const cel_ast *ast, const cel_node *n, dra_err **errs, const char *msg)
{
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, "%s", msg);
    int line, col;
    cel_ast_location(ast, n->offset, &line, &col);
    e->line = line > 0 ? line : 0;
    e->col = line > 0 ? col : 0;
    *errs = dra_err_append(*errs, e);
}

typedef struct format_report {
    const cel_ast *ast;
    dra_err **errs;
} format_report;

static void report_format(void *ud, const cel_node *at, const char *msg)
{
    format_report *fr = ud;
    report_at(fr->ast, at, fr->errs, msg);
}

typedef struct literal_walk {
    const cel_ast *ast;
    dra_err **errs;
} literal_walk;

static void validate_literals(const cel_node *n, void *wp)
{
    literal_walk *w = wp;
    if (n->kind == CEL_NODE_CALL) {
        const char *f = n->u.call.function;
        const cel_node *lit = n->u.call.nargs ? n->u.call.args[0] : NULL;
        if (lit && lit->kind == CEL_NODE_CONST) {
            const cel_const *c = &lit->u.constant;
            bool is_str = c->kind == CEL_CONST_STRING;
            if (!strcmp(f, "duration") && !n->u.call.target) {
                int64_t ns;
                if (!is_str || !dra_duration_parse(c->v.s.data, c->v.s.len, &ns))
                    report_at(w->ast, lit, w->errs, "invalid duration argument");
            } else if (!strcmp(f, "timestamp") && !n->u.call.target) {
                int64_t sec;
                int32_t nsec;
                bool ok = is_str ? cel_timestamp_parse(c->v.s.data, c->v.s.len, &sec, &nsec)
                                 : c->kind == CEL_CONST_INT && c->v.i >= -62135596800LL && c->v.i <= 253402300799LL;
                if (!ok)
                    report_at(w->ast, lit, w->errs, "invalid timestamp argument");
            } else if (!strcmp(f, "matches")) {
                char *bad = is_str ? cel_regex_check(c->v.s.data, c->v.s.len) : dra_xstrdup("not a string");
                if (bad)
                    report_at(w->ast, lit, w->errs, "invalid matches argument");
                free(bad);
            }
        }
    }
    cel_node_each_child(n, validate_literals, w);
}

char *cel_program_instantiation_error(const cel_program *p)
{
    return p->plan_error ? dra_xstrdup(p->plan_error) : NULL;
}

dra_err *cel_compile(cel_env *env, const char *src, size_t len, const cel_compile_options *opts, cel_program **out)
{
    *out = NULL;
    cel_program *p = dra_xcalloc(1, sizeof *p);
    p->env = env;
    cel_parse_limits lim = {0};
    lim.macros = CEL_MACROS_ALL;
    if (env->opts & CEL_OPT_NO_TWO_VAR_MACROS)
        lim.macros &= ~(unsigned)CEL_MACROS_TWO_VAR;
    if (env->opts & CEL_OPT_NO_BINDINGS)
        lim.macros &= ~(unsigned)CEL_MACROS_BINDINGS;
    if (!(env->libs & CEL_LIB_OPTIONAL)) {
        lim.macros &= ~(unsigned)CEL_MACROS_OPTIONAL;
        lim.disable_optional_syntax = true;
    }
    if (env->libs & CEL_LIB_MATH)
        lim.macros |= CEL_MACROS_MATH;
    if (!(env->libs & CEL_LIB_LISTS))
        lim.macros &= ~(unsigned)CEL_MACROS_SORT_BY;
    if (env->opts & CEL_OPT_NO_OPTIONAL_SYNTAX)
        lim.disable_optional_syntax = true;
    /* cel-go v0.26 parses no escaped identifiers (parser.go
     * normalizeIdent without EnableIdentEscapeSyntax, v0.29 on by default) */
    if (env->opts & CEL_OPT_CEL_GO_026)
        lim.disable_ident_escape = true;
    dra_err *err = cel_parse(src, len, &lim, &p->arena, &p->ast);
    if (!err && !(opts && opts->skip_check)) {
        cel_check_env ce = {
            .vars = env->vars,
            .nvars = env->nvars,
            .registry = env->reg,
            .cross_type_numeric = true,
            .container = env->container,
            .omit_empty_container = (env->opts & CEL_OPT_CEL_GO_033) != 0,
            .suggest = (env->opts & CEL_OPT_CEL_GO_033) != 0,
            .lists_after_strings = (env->opts & CEL_OPT_CEL_GO_033) != 0,
            .dotted_locals = (env->opts & CEL_OPT_CEL_GO_026) != 0,
            .macros = lim.macros,
        };
        p->checked = true;
        err = cel_check(p->ast, &ce, &p->arena, &p->result);
        /* cel-go env.go Check: on a well-typed ast every validator runs and
         * all their issues are reported (in Kubernetes' order: homogeneous
         * literals, string.format calls, duration and timestamp literals) */
        if (!err) {
            if (env->opts & CEL_OPT_HOMOGENEOUS_LITERALS)
                err = cel_check_homogeneous(p->ast, &ce, &p->arena);
            if (env->libs & CEL_LIB_STRINGS) {
                format_report fr = {p->ast, &err};
                cel_check_format_calls(p->ast, report_format, &fr);
            }
            if (env->opts & CEL_OPT_VALIDATE_LITERALS) {
                literal_walk w = {p->ast, &err};
                validate_literals(p->ast->root, &w);
            }
        }
        if (!err) {
            cel_cost_options co = {0};
            co.kubernetes_costs = (env->libs & K8S_LIBS) != 0;
            co.cel_go_026 = (env->opts & CEL_OPT_CEL_GO_026) != 0;
            co.cel_go_033 = (env->opts & CEL_OPT_CEL_GO_033) != 0;
            if (env->dra)
                co.size_hint = cel_dra_size_hint;
            cel_estimate_cost(p->ast, &co, &p->cost_min, &p->cost_max);
            if (opts && opts->cost_limit && p->cost_max > opts->cost_limit)
                err = dra_err_new(DRA_EXIT_INPUT, "estimated cost %llu exceeds the cost limit %llu",
                                  (unsigned long long)p->cost_max, (unsigned long long)opts->cost_limit);
        }
    } else if (!err) {
        p->result = &cel_t_dyn;
        p->cost_min = 0;
        p->cost_max = UINT64_MAX;
    }
    if (err) {
        cel_program_free(p);
        return err;
    }
    if (!p->result)
        p->result = &cel_t_dyn;
    p->result_str = cel_type_str(p->result, &p->arena);
    p->flags = env_flags(env) | (p->checked ? CEL_EVAL_CHECKED : 0);
    p->plan_error = cel_eval_prepare(p->ast, env->reg, &p->arena, &p->constants, p->flags, env_is_variable, env);
    p->regexes = cel_regex_cache_new();
    *out = p;
    return NULL;
}

void cel_program_free(cel_program *p)
{
    if (!p)
        return;
    cel_scratch_free(&p->scratch);
    cel_scratch_free(&p->constants);
    cel_regex_cache_free(p->regexes);
    free(p->plan_error);
    dra_arena_free(&p->arena);
    free(p);
}

const cel_type *cel_program_result_type(const cel_program *p)
{
    return p->result;
}
size_t cel_program_scratch_bytes(const cel_program *p)
{
    return cel_scratch_capacity(&p->scratch);
}
const char *cel_program_result_type_str(const cel_program *p)
{
    return p->result_str;
}

void cel_program_estimated_cost(const cel_program *p, uint64_t *min, uint64_t *max)
{
    if (min)
        *min = p->cost_min;
    if (max)
        *max = p->cost_max;
}

cel_value cel_eval(cel_program *p, const cel_activation *act, const cel_eval_options *opts)
{
    cel_scratch_reset(&p->scratch);
    cel_eval_params prm = {
        .registry = p->env->reg,
        .activation = act,
        .scratch = &p->scratch,
        .regexes = p->regexes,
        .cost_limit = opts ? opts->cost_limit : 0,
        .flags = p->flags,
        .container = p->checked ? NULL : p->env->container,
    };
    /* The estimate bounds the actual cost (cel-go's estimator is an upper
     * bound; compile_test.go checks it upstream): when it is within the
     * limit and nobody asks for the actual cost, skip the accounting. */
    if (p->checked && prm.cost_limit && p->cost_max <= prm.cost_limit && !(opts && opts->actual_cost)) {
        prm.cost_limit = 0;
        prm.flags |= CEL_EVAL_NO_COST;
    }
    uint64_t cost = 0;
    cel_value v = cel_eval_run(p->ast->root, &prm, &cost);
    if (opts && opts->actual_cost)
        *opts->actual_cost = cost;
    return v;
}

char *cel_value_to_string(const cel_value *v)
{
    dra_buf b = DRA_BUF_INIT;
    cel_value_format(v, &b);
    if (!b.data)
        return dra_xstrdup("");
    return dra_buf_detach(&b);
}

cel_value cel_value_from_json(dra_arena *a, const struct json_t *cj)
{
    json_t *j = (json_t *)cj;
    switch (json_typeof(j)) {
    case JSON_NULL: return cel_null();
    case JSON_TRUE: return cel_bool(true);
    case JSON_FALSE: return cel_bool(false);
    case JSON_INTEGER: return cel_int((int64_t)json_integer_value(j));
    case JSON_REAL: return cel_double(json_real_value(j));
    case JSON_STRING: return cel_string_copy_a(a, json_string_value(j), json_string_length(j));
    case JSON_ARRAY: {
        size_t n = json_array_size(j);
        cel_value *items = dra_arena_alloc(a, (n ? n : 1) * sizeof *items);
        for (size_t i = 0; i < n; i++)
            items[i] = cel_value_from_json(a, json_array_get(j, i));
        return cel_list_copy_a(a, items, n);
    }
    case JSON_OBJECT: {
        size_t n = json_object_size(j), i = 0;
        cel_value *keys = dra_arena_alloc(a, (n ? n : 1) * sizeof *keys);
        cel_value *vals = dra_arena_alloc(a, (n ? n : 1) * sizeof *vals);
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v) {
            keys[i] = cel_string_copy_a(a, k, strlen(k));
            vals[i] = cel_value_from_json(a, v);
            i++;
        }
        return cel_map_build_a(a, keys, vals, i, 0);
    }
    }
    return cel_null();
}
