/* Tree-walking CEL interpreter (semantics of cel-go interpreter/, costs of
 * interpreter/runtimecost.go). */
#include "eval.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cel_activation_bind(cel_activation *act, const char *name, cel_value v)
{
    for (size_t i = 0; i < act->n; i++)
        if (strcmp(act->names[i], name) == 0) {
            act->values[i] = v;
            return true;
        }
    if (act->n >= CEL_ACTIVATION_MAX)
        return false;
    act->names[act->n] = name;
    act->values[act->n++] = v;
    return true;
}

const cel_value *cel_activation_find(const cel_activation *act, const char *name)
{
    if (!act)
        return NULL;
    for (size_t i = 0; i < act->n; i++)
        if (strcmp(act->names[i], name) == 0)
            return &act->values[i];
    return NULL;
}

/* ---- preparation ------------------------------------------------------------ */

/* Dotted name of an IDENT/SELECT chain ("a.b.c") into buf; false if not a pure chain. */
static bool qualified_name(const cel_node *n, char *buf, size_t cap)
{
    if (n->kind == CEL_NODE_IDENT) {
        const char *s = n->u.ident.name;
        if (s[0] == '.')
            s++;
        if (strlen(s) + 1 > cap)
            return false;
        strcpy(buf, s);
        return true;
    }
    if (n->kind == CEL_NODE_SELECT && !n->u.select.test_only) {
        if (!qualified_name(n->u.select.operand, buf, cap))
            return false;
        size_t l = strlen(buf);
        if (l + 1 + strlen(n->u.select.field) + 1 > cap)
            return false;
        buf[l] = '.';
        strcpy(buf + l + 1, n->u.select.field);
        return true;
    }
    return false;
}

typedef struct prep {
    const cel_registry *reg;
    dra_arena *arena;
    bool (*is_variable)(const char *, void *);
    void *ud;
    cel_scratch *constants; /* folded values; NULL = no folding */
    unsigned flags;         /* CEL_EVAL_* of the later evaluations */
    bool optimize;          /* cel-go's OptOptimize */
    char *error;            /* the first node the program cannot be made with (heap) */
    const char *locals[64]; /* comprehension variables in scope (planner.go localVars) */
    size_t nlocals;
} prep;

/* The cost of one call as the environment charges it (n->cost_rule is set
 * by the preparation when Kubernetes costs apply). */
static uint64_t call_cost(const cel_node *n, const cel_overload *o, const cel_value *args, size_t nargs,
                          const cel_value *result, unsigned flags)
{
    /* cel-go v0.33's cost models find no length in a failed call's result
     * (common/cost/model.go lengthExpr.track: 0), where v0.29's trackers
     * counted it 1 (ext/costs.go actualSize); Kubernetes' estimator still
     * counts it 1 (apiserver library/cost.go actualSize) */
    static const cel_value lengthless = {.kind = CEL_LIST, .v.list = &cel_empty_list};
    uint64_t c;
    if (n->cost_rule && cel_k8s_call_cost(n->cost_rule, o, args, nargs, result, &c))
        return c;
    if ((flags & CEL_EVAL_STOP_AT_ERROR) && result->kind == CEL_ERROR)
        result = &lengthless;
    /* cel-go v0.26 (interpreter/runtimecost.go costCall): startsWith and
     * endsWith charge their receiver's length, the global matches() (not
     * in its list) 1 */
    if ((flags & CEL_EVAL_CEL_GO_026) && nargs == 2 &&
        (!strcmp(o->id, "starts_with_string") || !strcmp(o->id, "ends_with_string")))
        return (uint64_t)ceil((double)cel_cost_size(&args[0]) * 0.1);
    if ((flags & CEL_EVAL_CEL_GO_026) && !strcmp(o->id, "matches"))
        return 1;
    return cel_overload_cost(o, args, nargs, result);
}

/* What cel-go's cost tracker charges for a call (interpreter/runtimecost.go
 * costCall): by the planned overload when the checker resolved one; a call
 * dispatched dynamically has none, so only the Kubernetes estimator's rules
 * (keyed by function name) apply, else it costs 1. */
static const cel_overload dynamic_dispatch = {.id = "", .function = ""};
static uint64_t planned_cost(const cel_node *n, const cel_value *args, size_t nargs, const cel_value *result,
                             unsigned flags)
{
    uint64_t c;
    if (n->u.call.noverloads == 1)
        return call_cost(n, n->u.call.overloads[0], args, nargs, result, flags);
    if (n->cost_rule && cel_k8s_call_cost(n->cost_rule, &dynamic_dispatch, args, nargs, result, &c))
        return c;
    return 1;
}

/* The Go type cel-go's evalFold names (%T) when a comprehension ranges over
 * something that is not iterable: "got 'types.Int', expected iterable type",
 * or with two variables "unsupported comprehension range type: types.Int"
 * (cel-go interpreter/interpretable.go, evalFold; the Kubernetes types live
 * in k8s.io/apiserver/pkg/cel, package cel). */
static const char *go_type_name(const cel_value *v)
{
    switch (v->kind) {
    case CEL_NULL: return "types.Null";
    case CEL_BOOL: return "types.Bool";
    case CEL_INT: return "types.Int";
    case CEL_UINT: return "types.Uint";
    case CEL_DOUBLE: return "types.Double";
    case CEL_STRING: return "types.String";
    case CEL_BYTES: return "types.Bytes";
    case CEL_TYPE: return "*types.Type";
    case CEL_OPTIONAL: return "*types.Optional";
    case CEL_LIST: return "*types.baseList";
    case CEL_MAP: return "*types.baseMap";
    case CEL_TIMESTAMP: return "types.Timestamp";
    case CEL_DURATION: return "types.Duration";
    case CEL_OBJECT:
        switch (v->v.obj->kind) {
        case CEL_OBJ_QUANTITY: return "cel.Quantity";
        case CEL_OBJ_SEMVER: return "cel.Semver";
        case CEL_OBJ_IP: return "cel.IP";
        case CEL_OBJ_CIDR: return "cel.CIDR";
        case CEL_OBJ_URL: return "cel.URL";
        case CEL_OBJ_FORMAT: return "*cel.Format";
        }
        break;
    default: break;
    }
    return cel_value_type_name(v);
}

/* cel-go v0.29.2's cost trackers of ext.Lists (ext/lists.go
 * trackListDistinct, trackListSort, trackListSortBy, trackListFlatten)
 * assert their argument's Go type, and charging a call whose argument
 * failed or is of another type panics; Program.Eval recovers and the whole evaluation fails
 * with "internal error: ..." (an error a surrounding || would have
 * absorbed included).  The evaluation stops the same way here. */
static const char *tracker_panic(cel_scratch *sc, const cel_node *n, const cel_value *args, size_t nargs)
{
    if (n->u.call.noverloads != 1 || n->u.call.overloads[0]->lib != CEL_LIB_LISTS)
        return NULL; /* dispatched dynamically: no overload id, no tracker */
    const cel_overload *o = n->u.call.overloads[0];
    bool sort = !strcmp(o->function, "sort") && o->lib == CEL_LIB_LISTS,
         sort_by = !strcmp(o->function, "@sortByAssociatedKeys"), depth = !strcmp(o->id, "list_flatten_int");
    size_t at = sort_by || depth ? 1 : 0;
    if (at >= nargs)
        return NULL;
    const cel_value *a = &args[at];
    const char *t = a->kind == CEL_ERROR ? "*types.Err" : go_type_name(a);
    if (depth && a->kind != CEL_INT)
        return cel_scratch_printf(sc, "internal error: interface conversion: ref.Val is %s, not types.Int", t);
    /* Go names the first method of traits.Lister the type lacks: the
     * numbers, strings, bytes and times are Adders */
    bool adder = a->kind == CEL_INT || a->kind == CEL_UINT || a->kind == CEL_DOUBLE || a->kind == CEL_STRING ||
                 a->kind == CEL_BYTES || a->kind == CEL_DURATION || a->kind == CEL_TIMESTAMP;
    if ((!strcmp(o->id, "list_distinct") || sort || sort_by) && a->kind != CEL_LIST)
        return cel_scratch_printf(sc,
                                  "internal error: interface conversion: %s is not traits.Lister: missing method %s", t,
                                  adder ? "Contains" : "Add");
    return NULL;
}

/* Dispatch codes for calls the evaluator handles itself (cel_node.eval_op). */
enum {
    OP_CALL = 0, /* an ordinary overloaded call */
    OP_AND = 1,
    OP_OR,
    OP_CONDITIONAL,
    OP_NOT_STRICTLY_FALSE,
    OP_OPT_SELECT,
    OP_OPT_INDEX,
    OP_INDEX,
    OP_OPT_OR,       /* opt.or(x): x evaluated only when opt is none */
    OP_OPT_OR_VALUE, /* opt.orValue(x) */
    OP_ADD,          /* a + b: appends in place to a mutable accumulator */
    OP_MAP_INSERT,   /* cel.@mapInsert(m, ...): inserts in place into one */
    OP_IN_SET,       /* x in CONSTANT_LIST under OptOptimize: a set lookup (in_set) */
};

static int dispatch_code(const cel_node *n)
{
    const char *f = n->u.call.function;
    static const struct {
        const char *name;
        int op;
    } ops[] = {
        {CEL_OP_LOGICAL_AND, OP_AND},
        {CEL_OP_LOGICAL_OR, OP_OR},
        {CEL_OP_CONDITIONAL, OP_CONDITIONAL},
        {CEL_OP_NOT_STRICTLY_FALSE, OP_NOT_STRICTLY_FALSE},
        {CEL_OP_OPT_SELECT, OP_OPT_SELECT},
        {CEL_OP_OPT_INDEX, OP_OPT_INDEX},
        {CEL_OP_INDEX, OP_INDEX},
    };
    if (!n->u.call.target) {
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            if (strcmp(f, ops[i].name) == 0)
                return ops[i].op;
        if (n->u.call.nargs == 2 && strcmp(f, CEL_OP_ADD) == 0)
            return OP_ADD;
        if (strcmp(f, "cel.@mapInsert") == 0)
            return OP_MAP_INSERT;
        return OP_CALL;
    }
    if (n->u.call.nargs == 1 && strcmp(f, "or") == 0)
        return OP_OPT_OR;
    if (n->u.call.nargs == 1 && strcmp(f, "orValue") == 0)
        return OP_OPT_OR_VALUE;
    return OP_CALL;
}

/* Constructors of immutable values from literals, safe to run once at
 * compile time: quantity("1Mi"), semver("1.2.3"), ip(...), cidr(...),
 * url(...), timestamp("..."), duration("..."). */
static bool foldable_function(const char *f)
{
    static const char *const names[] = {"quantity", "semver", "ip", "cidr", "url", "timestamp", "duration"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(f, names[i]) == 0)
            return true;
    return false;
}

static void try_fold(prep *p, cel_node *n)
{
    if (!p->constants || n->u.call.target || n->u.call.nargs == 0 || n->u.call.nargs > CEL_MAX_ARGS ||
        !foldable_function(n->u.call.function))
        return;
    cel_value args[CEL_MAX_ARGS];
    for (size_t i = 0; i < n->u.call.nargs; i++) {
        const cel_node *a = n->u.call.args[i];
        if (a->kind != CEL_NODE_CONST)
            return;
        const cel_const *c = &a->u.constant;
        switch (c->kind) {
        case CEL_CONST_STRING: args[i] = cel_string(c->v.s.data, c->v.s.len); break;
        case CEL_CONST_BOOL: args[i] = cel_bool(c->v.b); break;
        case CEL_CONST_INT: args[i] = cel_int(c->v.i); break;
        default: return;
        }
    }
    for (size_t i = 0; i < n->u.call.noverloads; i++) {
        const cel_overload *o = n->u.call.overloads[i];
        if (!o->impl || !cel_overload_accepts(o, args, n->u.call.nargs))
            continue;
        cel_call_ctx cx = {.scratch = p->constants, .flags = p->flags};
        cel_value r = o->impl(&cx, args, n->u.call.nargs);
        if (r.kind == CEL_ERROR) /* leave it to runtime, which reports it per evaluation */
            return;
        cel_value *keep = cel_scratch_alloc(p->constants, sizeof *keep);
        *keep = r;
        n->folded = keep;
        n->folded_cost = call_cost(n, o, args, n->u.call.nargs, &r, p->flags);
        return;
    }
}

/* ---- cel-go's OptOptimize ---- */

static cel_value eval_const(const cel_node *n);

static bool is_const(const cel_node *n)
{
    return n->kind == CEL_NODE_CONST || n->opt_const;
}

static cel_value const_of(const cel_node *n)
{
    return n->opt_const ? *(const cel_value *)n->folded : eval_const(n);
}

/* Evaluate n (whose operands are constants) with no variables, as cel-go
 * does when it folds (EmptyActivation); the value lives in `constants`. */
static cel_value eval_now(prep *p, const cel_node *n)
{
    cel_eval_params prm = {.registry = p->reg, .scratch = p->constants, .flags = p->flags | CEL_EVAL_NO_COST};
    return cel_eval_run(n, &prm, NULL);
}

static void make_const(prep *p, cel_node *n, cel_value v)
{
    cel_value *keep = cel_scratch_alloc(p->constants, sizeof *keep);
    *keep = v;
    n->folded = keep;
    n->folded_cost = 0;
    n->opt_const = true;
}

static void fail(prep *p, const char *msg)
{
    if (!p->error)
        p->error = dra_xstrdup(msg);
}

/* interpreter/decorators.go maybeOptimizeConstUnary: the conversions of
 * common/overloads IsTypeConversionFunction. */
static bool is_conversion(const char *f)
{
    static const char *const names[] = {"bool", "bytes",  "double",    "duration", "dyn",
                                        "int",  "string", "timestamp", "type",     "uint"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(f, names[i]))
            return true;
    return false;
}

/* The elements maybeOptimizeSetMembership turns into a set: primitive
 * values other than bytes. */
static bool set_element(const cel_value *v)
{
    return v->kind == CEL_BOOL || v->kind == CEL_DOUBLE || v->kind == CEL_INT || v->kind == CEL_STRING ||
           v->kind == CEL_UINT;
}

/* Constant patterns compiled when the program is made: matches (the
 * standard MatchesRegexOptimization) and the Kubernetes regex library's
 * find and findAll; the pattern is the second argument, receiver first. */
static void check_pattern(prep *p, cel_node *n)
{
    const char *f = n->u.call.function;
    bool k8s = (cel_registry_libs(p->reg) & CEL_LIB_K8S_REGEX) && (!strcmp(f, "find") || !strcmp(f, "findAll"));
    if (!k8s && strcmp(f, "matches"))
        return;
    const cel_node *pat = n->u.call.target ? (n->u.call.nargs ? n->u.call.args[0] : NULL)
                                           : (n->u.call.nargs > 1 ? n->u.call.args[1] : NULL);
    if (!pat || !is_const(pat))
        return;
    cel_value v = const_of(pat);
    if (v.kind != CEL_STRING)
        return;
    char *bad = cel_regex_check(v.v.s.ptr, v.v.s.len);
    if (bad)
        fail(p, bad);
    free(bad);
    n->var_args = true; /* interpreter.NewCall: the compiled matcher is an evalVarArgs */
}

/* Go's %T of a key no qualifier takes (interpreter/attributes.go
 * newQualifier): a list or map is a baseList or baseMap through cel-go
 * v0.29, a generic sliceList or nativeMap in v0.33 (common/types list.go
 * NewRefValList, map.go NewRefValMap). */
static const char *qualifier_type_name(const cel_value *v, bool v033)
{
    if (v033 && v->kind == CEL_LIST)
        return "*types.sliceList[cel.dev/cel-go/common/types/ref.Val]";
    if (v033 && v->kind == CEL_MAP)
        return "*types.nativeMap[cel.dev/cel-go/common/types/ref.Val,cel.dev/cel-go/common/types/ref.Val]";
    return go_type_name(v);
}

/* newQualifier at planning: a constant key of a type no qualifier takes,
 * a folded list or map literal and a type name among them. */
static const char *bad_qualifier(const prep *p, const cel_node *key)
{
    if (!is_const(key))
        return NULL;
    cel_value v = const_of(key);
    switch (v.kind) {
    case CEL_NULL:
    case CEL_BYTES:
    case CEL_DURATION:
    case CEL_TIMESTAMP:
    case CEL_TYPE:
    case CEL_LIST:
    case CEL_MAP: return qualifier_type_name(&v, p->flags & CEL_EVAL_STOP_AT_ERROR);
    default: return NULL;
    }
}

static void optimize_call(prep *p, cel_node *n)
{
    const char *f = n->u.call.function;
    if ((n->eval_op == OP_INDEX || n->eval_op == OP_OPT_INDEX) && n->u.call.nargs == 2 &&
        bad_qualifier(p, n->u.call.args[1])) {
        char *msg = dra_xasprintf("invalid qualifier type: %s", bad_qualifier(p, n->u.call.args[1]));
        fail(p, msg);
        free(msg);
        return;
    }
    if (!n->u.call.target && n->u.call.nargs == 1 && is_conversion(f) && is_const(n->u.call.args[0])) {
        cel_value v = eval_now(p, n);
        if (v.kind == CEL_ERROR)
            fail(p, v.v.err);
        else
            make_const(p, n, v);
        return;
    }
    if (!n->u.call.target && n->u.call.nargs == 2 && !strcmp(f, CEL_OP_IN) && n->u.call.noverloads == 1 &&
        !strcmp(n->u.call.overloads[0]->id, "in_list") && is_const(n->u.call.args[1])) {
        cel_value l = const_of(n->u.call.args[1]);
        if (l.kind != CEL_LIST)
            return;
        if (l.v.list->n == 0) {
            make_const(p, n, cel_bool(false));
            return;
        }
        for (size_t i = 0; i < l.v.list->n; i++)
            if (!set_element(&cel_list_items(l.v.list)[i]))
                return;
        cel_value *keep = cel_scratch_alloc(p->constants, sizeof *keep);
        *keep = l;
        n->in_set = keep;
        n->eval_op = OP_IN_SET;
        return;
    }
    check_pattern(p, n);
}

/* A name whose checked type is a type: the type (a constant), or, for a
 * variable of type `type`, a program cel-go cannot make (planner.go
 * planCheckedIdent: "reference to undefined type"). */
static void optimize_ident(prep *p, cel_node *n, bool local)
{
    if (!n->type || n->type->kind != CEL_T_TYPE)
        return;
    const char *name = n->u.ident.name[0] == '.' ? n->u.ident.name + 1 : n->u.ident.name;
    const cel_type *t = local || (p->is_variable && p->is_variable(name, p->ud))
                            ? NULL
                            : cel_type_ident(name, (cel_registry_libs(p->reg) & CEL_LIB_OPTIONAL) != 0);
    if (t) {
        make_const(p, n, cel_typeval(t));
        return;
    }
    char *msg = dra_xasprintf("reference to undefined type: %s", name);
    fail(p, msg);
    free(msg);
}

static void optimize_aggregate(prep *p, cel_node *n)
{
    if (n->kind == CEL_NODE_LIST) {
        for (size_t i = 0; i < n->u.list.nelems; i++)
            if (!is_const(n->u.list.elems[i]))
                return;
    } else {
        for (size_t i = 0; i < n->u.map.nentries; i++)
            if (!n->u.map.entries[i].key || !is_const(n->u.map.entries[i].key) || !is_const(n->u.map.entries[i].value))
                return;
    }
    make_const(p, n, eval_now(p, n)); /* an error too, e.g. a repeated key */
}

static void prepare_node(prep *p, cel_node *n);

static void prepare_call(prep *p, cel_node *n)
{
    if (n->u.call.target) {
        char q[256];
        /* optional.of(x), sets.contains(a, b), strings.quote(s), math.greatest(...) */
        if (qualified_name(n->u.call.target, q, sizeof q)) {
            char root[256];
            strcpy(root, q);
            char *dot = strchr(root, '.');
            if (dot)
                *dot = 0;
            bool var = p->is_variable && p->is_variable(root, p->ud);
            char full[512];
            snprintf(full, sizeof full, "%s.%s", q, n->u.call.function);
            if (!var && cel_registry_has_function(p->reg, full)) {
                n->u.call.function = dra_arena_strdup(p->arena, full);
                n->u.call.target = NULL;
                n->u.call.overloads = NULL;
                n->u.call.noverloads = 0;
            }
        }
    }
    if (n->u.call.target)
        prepare_node(p, n->u.call.target);
    for (size_t i = 0; i < n->u.call.nargs; i++)
        prepare_node(p, n->u.call.args[i]);
    n->eval_op = dispatch_code(n);
    n->cost_rule = (p->flags & CEL_EVAL_K8S_COSTS) ? cel_k8s_cost_rule(n->u.call.function) : 0;
    if (n->u.call.noverloads > 0 && n->u.call.overloads) {
        try_fold(p, n);
        return;
    }
    size_t cnt;
    const cel_overload *const *all = cel_registry_lookup(p->reg, n->u.call.function, &cnt);
    size_t nargs = n->u.call.nargs + (n->u.call.target ? 1 : 0);
    const cel_overload **keep = dra_arena_alloc(p->arena, (cnt ? cnt : 1) * sizeof *keep);
    size_t k = 0;
    for (size_t i = 0; i < cnt; i++)
        if (all[i]->nargs == nargs)
            keep[k++] = all[i];
    n->u.call.overloads = keep;
    n->u.call.noverloads = k;
    try_fold(p, n);
}

static bool is_local(const prep *p, const char *name)
{
    for (size_t i = p->nlocals; i-- > 0;)
        if (p->locals[i] && !strcmp(p->locals[i], name))
            return true;
    return false;
}

static void push_locals(prep *p, const char *a, const char *b, const char *c)
{
    const char *v[] = {a, b, c};
    for (size_t i = 0; i < 3; i++)
        if (p->nlocals < sizeof p->locals / sizeof p->locals[0])
            p->locals[p->nlocals++] = v[i];
}

/* Children first, in the order cel-go plans them (planner.go). */
static void prepare_node(prep *p, cel_node *n)
{
    if (!n)
        return;
    switch (n->kind) {
    case CEL_NODE_IDENT:
        if (p->optimize)
            optimize_ident(p, n, is_local(p, n->u.ident.name));
        break;
    case CEL_NODE_SELECT: prepare_node(p, n->u.select.operand); break;
    case CEL_NODE_CALL: {
        prepare_call(p, n);
        size_t total = n->u.call.nargs + (n->u.call.target ? 1 : 0);
        /* planner.go planCall: one or two arguments make an evalUnary or
         * evalBinary when the overload, or the function by its name, binds
         * them so (a singleton binding, or a single overload); a function
         * dispatched dynamically, or one bound as a FunctionOp, makes an
         * evalVarArgs, which stops at the first argument that fails. */
        n->var_args = total == 0 || total >= 3 ||
                      (n->u.call.noverloads != 1 && !cel_singleton_function(n->u.call.function)) ||
                      (n->u.call.noverloads == 1 && !strcmp(n->u.call.overloads[0]->id, "string_format"));
        if (p->optimize)
            optimize_call(p, n);
        break;
    }
    case CEL_NODE_LIST:
        for (size_t i = 0; i < n->u.list.nelems; i++)
            prepare_node(p, n->u.list.elems[i]);
        if (p->optimize)
            optimize_aggregate(p, n);
        break;
    case CEL_NODE_MAP:
    case CEL_NODE_STRUCT:
        for (size_t i = 0; i < n->u.map.nentries; i++) {
            prepare_node(p, n->u.map.entries[i].key);
            prepare_node(p, n->u.map.entries[i].value);
        }
        if (p->optimize && n->kind == CEL_NODE_MAP)
            optimize_aggregate(p, n);
        break;
    case CEL_NODE_COMPREHENSION: {
        size_t base = p->nlocals;
        prepare_node(p, n->u.comp.accu_init);
        prepare_node(p, n->u.comp.iter_range);
        push_locals(p, n->u.comp.accu_var, n->u.comp.iter_var, n->u.comp.iter_var2);
        prepare_node(p, n->u.comp.loop_condition);
        prepare_node(p, n->u.comp.loop_step);
        p->nlocals = base;
        push_locals(p, n->u.comp.accu_var, NULL, NULL);
        prepare_node(p, n->u.comp.result);
        p->nlocals = base;
        break;
    }
    default: break;
    }
}

char *cel_eval_prepare(cel_ast *ast, const cel_registry *reg, dra_arena *arena, cel_scratch *constants, unsigned flags,
                       bool (*is_variable)(const char *name, void *ud), void *ud)
{
    prep p = {reg, arena, is_variable, ud, constants, flags, false, NULL, {0}, 0};
    p.optimize = constants && (flags & CEL_EVAL_OPTIMIZE) && (flags & CEL_EVAL_CHECKED);
    prepare_node(&p, ast->root);
    return p.error;
}

/* ---- evaluation ----------------------------------------------------------------- */

enum { MAX_LOCALS = 64 };

/* An accumulator cel-go keeps mutable (interpreter/interpretable.go,
 * folder.ResolveName and evalResult): one that starts as an empty list or
 * map, while its comprehension runs.  `_+_` with it on the left appends to
 * it and cel.@mapInsert inserts into it in place, wherever the call is (so
 * cel.bind(x, [], ...) sees its own additions, as upstream does); the
 * comprehension's result is an ordinary value again.  map(), filter() and
 * the transforms thus build their result in linear time and memory, where
 * copying the accumulator at each step was quadratic. */
typedef struct accu_frame {
    struct accu_frame *up; /* the enclosing comprehension's, or NULL */
    cel_list *list;        /* the mutable list, or NULL */
    cel_map *map;          /* the mutable map, or NULL */
    size_t cap;            /* of the list's items or the map's entries */
    size_t iter[2], niter; /* local slots of the iteration variables */
    unsigned long adds;    /* additions to this accumulator */
    bool keeps_new;        /* an addition kept a value made in this step */
} accu_frame;

typedef struct ev {
    const cel_eval_params *prm;
    cel_call_ctx cx;
    uint64_t cost;
    bool cancelled;
    size_t nlocals;
    const char *local_names[MAX_LOCALS];
    cel_value local_vals[MAX_LOCALS];
    /* An accumulator not yet initialised: its initial expression (cel-go
     * evaluates it when the variable is first read) and comprehension. */
    const cel_node *local_init[MAX_LOCALS];
    struct accu_frame *local_frame[MAX_LOCALS];
    unsigned long inits[MAX_LOCALS]; /* accumulators initialised in each slot so far */
    accu_frame *accus;               /* innermost mutable accumulator, or NULL */
    const cel_node *free_base;       /* an attribute whose own cost is waived (a ternary's branch) */
    const char *aborted;             /* why the evaluation stopped besides the cost limit, or NULL */
    const cel_node *waived;          /* the last attribute root whose 1 free_base waived */
    uint64_t open_bases;             /* attributes charged 1 that cel-go has not observed yet (eval_key) */
    const cel_node *unbound_branch;  /* the ternary whose attribute branch last met an unbound variable */
} ev;

static const cel_value cancelled_value = {.kind = CEL_ERROR, .v.err = CEL_COST_LIMIT_ERROR};

/* Stop the evaluation when charging this call makes cel-go panic.  The
 * attributes whose keys were being evaluated were never observed, and
 * their 1 is given back (eval_key). */
static bool tracker_panics(ev *e, const cel_node *n, const cel_value *args, size_t nargs)
{
    const char *why = tracker_panic(e->cx.scratch, n, args, nargs);
    if (why) {
        e->aborted = why;
        e->cancelled = true;
        e->cost -= e->open_bases < e->cost ? e->open_bases : e->cost;
        e->open_bases = 0;
    }
    return why != NULL;
}

static bool charge(ev *e, uint64_t c)
{
    e->cost += c;
    if (e->prm->cost_limit && e->cost > e->prm->cost_limit) {
        e->cancelled = true;
        return false;
    }
    return true;
}

static cel_value eval(ev *e, const cel_node *n);

/* cel-go v0.33 (CEL_EVAL_STOP_AT_ERROR) */
static bool stops_at_error(const ev *e)
{
    return (e->prm->flags & CEL_EVAL_STOP_AT_ERROR) != 0;
}

/* Costs of variables, field selections and indexes as cel-go counts them
 * (interpreter/runtimecost.go, CostObserver): it plans them as attributes
 * (interpreter/attributes.go) and charges 1 for the attribute and 1 for
 * each constant qualifier (a field, a constant key); a key that is itself
 * an attribute costs what evaluating it costs, and nothing more.  An
 * attribute whose operand is no attribute ([1, 2][0], f(x).y) is
 * relative and also costs 1.  A ternary's branch that is an attribute is
 * resolved without being charged for the attribute itself (its
 * qualifiers still are): `c ? x : y` costs c and nothing for x, which is
 * what filter(), map(x, p, f) and exists_one() do with the accumulator. */
static bool is_attribute(const cel_node *n)
{
    switch (n->kind) {
    case CEL_NODE_IDENT: return true;
    case CEL_NODE_SELECT: return !n->u.select.test_only;
    case CEL_NODE_CALL:
        return !n->folded && (n->eval_op == OP_INDEX || n->eval_op == OP_OPT_INDEX || n->eval_op == OP_OPT_SELECT ||
                              n->eval_op == OP_CONDITIONAL);
    default: return false;
    }
}

/* The node that pays for an attribute itself: the identifier it starts
 * from, or its first qualifier on an operand that is no attribute. */
static const cel_node *attribute_root(const cel_node *n)
{
    for (;;) {
        const cel_node *op = n->kind == CEL_NODE_SELECT                                 ? n->u.select.operand
                             : n->kind == CEL_NODE_CALL && n->eval_op != OP_CONDITIONAL ? n->u.call.args[0]
                                                                                        : NULL;
        if (!op || !is_attribute(op))
            return n;
        n = op;
    }
}

/* 1 for the attribute n starts, unless it is the waived one. */
static uint64_t base_cost(ev *e, const cel_node *n)
{
    if (n == e->free_base) {
        e->free_base = NULL;
        e->waived = n;
        return 0;
    }
    return 1;
}

/* What a field selection (key NULL) or an index at n costs besides its
 * operands.  A ternary as the key is charged 1 as cel-go watches it. */
static uint64_t qualifier_cost(ev *e, const cel_node *n, const cel_node *operand, const cel_node *key)
{
    bool key_attribute = key && is_attribute(key) && !(key->kind == CEL_NODE_CALL && key->eval_op == OP_CONDITIONAL);
    return (key_attribute ? 0 : 1) + (is_attribute(operand) ? 0 : base_cost(e, n));
}

/* The key of the index n, its operand resolved.  cel-go applies an
 * attribute's qualifiers in order, observing each constant one as it
 * goes and the attribute itself (its 1, charged here with the variable
 * or the first qualifier of a relative attribute) only once the last has
 * been applied (interpreter/attributes.go TryResolve, runtimecost.go
 * Observe): while the key is evaluated that 1 is open, and an ext.Lists
 * tracker that panics there leaves it uncharged. */
static cel_value eval_key(ev *e, const cel_node *n)
{
    const cel_node *op = n->u.call.args[0];
    uint64_t open = e->open_bases;
    const cel_node *root = is_attribute(op) ? attribute_root(op) : NULL;
    if (root && root != e->waived && !(root->kind == CEL_NODE_CALL && root->eval_op == OP_CONDITIONAL))
        e->open_bases++;
    cel_value key = eval(e, n->u.call.args[1]);
    e->open_bases = open;
    return key;
}

/* A field selection or an index whose operand failed: cel-go's relative
 * attribute is still observed (1) though no qualifier ran; an operand
 * that is an attribute itself has paid for the whole chain already. */
static bool charge_failed_operand(ev *e, const cel_node *n, const cel_node *operand)
{
    return is_attribute(operand) || charge(e, base_cost(e, n));
}

/* clang-format off */
#define EVAL_OR_RETURN(var, node)                 \
    cel_value var = eval(e, node);                \
    if (e->cancelled)                             \
        return cancelled_value
/* clang-format on */

static bool has_local(const ev *e, const char *name)
{
    for (size_t i = e->nlocals; i > 0; i--)
        if (strcmp(e->local_names[i - 1], name) == 0)
            return true;
    return false;
}

static void init_accumulator(ev *e, size_t slot);

/* A local variable's value, the accumulator initialised on first use. */
static const cel_value *find_local(ev *e, const char *name)
{
    for (size_t i = e->nlocals; i > 0; i--)
        if (strcmp(e->local_names[i - 1], name) == 0) {
            if (e->local_init[i - 1])
                init_accumulator(e, i - 1);
            return &e->local_vals[i - 1];
        }
    return NULL;
}

/* The container prefix shorter than `len` bytes ("a.b.c" -> "a.b" -> "a" -> ""). */
static size_t shorter_prefix(const char *container, size_t len)
{
    while (len > 0 && container[len - 1] != '.')
        len--;
    return len ? len - 1 : 0;
}

/* A (possibly dotted) name as a variable of the activation or a type
 * identifier, tried relative to the container first (unchecked programs;
 * the checker has already rewritten checked references to the resolved
 * name).  NULL-kind result (kind 0) when nothing matches. */
static cel_value resolve_name(ev *e, const char *name)
{
    const char *container = e->prm->container ? e->prm->container : "";
    size_t clen = name[0] == '.' ? 0 : strlen(container);
    if (name[0] == '.')
        name++;
    bool optional_lib = (cel_registry_libs(e->prm->registry) & CEL_LIB_OPTIONAL) != 0;
    char buf[512];
    for (;;) {
        const char *cand = name;
        if (clen) {
            int w = snprintf(buf, sizeof buf, "%.*s.%s", (int)clen, container, name);
            cand = w > 0 && (size_t)w < sizeof buf ? buf : name;
        }
        const cel_value *v = cel_activation_find(e->prm->activation, cand);
        if (v)
            return *v;
        const cel_type *t = cel_type_ident(cand, optional_lib);
        if (t)
            return cel_typeval(t);
        if (!clen)
            break;
        clen = shorter_prefix(container, clen);
    }
    cel_value none = {0};
    return none;
}

static cel_value eval_ident(ev *e, const cel_node *n)
{
    const char *name = n->u.ident.name;
    uint64_t c = base_cost(e, n);
    /* a lazily bound local (cel.bind) is evaluated on first use, before
     * cel-go observes the identifier: a panic on the way leaves it
     * uncharged */
    const cel_value *v = name[0] == '.' ? NULL : find_local(e, name);
    if (e->cancelled)
        return cancelled_value;
    if (!charge(e, c))
        return cancelled_value;
    if (v)
        return *v;
    if (!e->prm->container) { /* the usual case: a plain lookup */
        const char *bare = name[0] == '.' ? name + 1 : name;
        v = cel_activation_find(e->prm->activation, bare);
        if (v)
            return *v;
    }
    cel_value r = resolve_name(e, name);
    if (r.kind)
        return r;
    return cel_errorf_s(e->cx.scratch, "no such attribute(s): %s", name[0] == '.' ? name + 1 : name);
}

/* Field selection / presence on a value (maps; optionals chain). */
static cel_value select_field(ev *e, cel_value obj, const char *field, bool test_only)
{
    cel_value key = cel_string(field, strlen(field));
    if (obj.kind == CEL_OPTIONAL) {
        if (!obj.v.opt)
            return test_only ? cel_bool(false) : obj;
        cel_value inner = select_field(e, *obj.v.opt, field, test_only);
        if (test_only || inner.kind == CEL_ERROR) {
            if (inner.kind == CEL_ERROR && !test_only && strncmp(inner.v.err, "no such key", 11) == 0)
                return cel_optional_none();
            return inner;
        }
        return cel_optional_of_s(e->cx.scratch, inner);
    }
    if (obj.kind == CEL_MAP) {
        const cel_value *v = cel_map_find(obj.v.map, &key);
        if (test_only) /* an entry holding an error (1.38's unusable attribute) answers with it */
            return v && v->kind == CEL_ERROR ? *v : cel_bool(v != NULL || (obj.v.map->flags & CEL_MAP_DEFAULT_EMPTY));
        if (v)
            return *v;
        if (obj.v.map->flags & CEL_MAP_DEFAULT_EMPTY)
            return cel_mapval(&cel_empty_map);
        return cel_no_such_key(e->cx.scratch, &key);
    }
    if (obj.kind == CEL_ERROR)
        return obj;
    /* attributes.go refQualify: a value with no fields has none of them */
    if (test_only)
        return cel_bool(false);
    return cel_no_such_key(e->cx.scratch, &key);
}

/* cel-go v0.33 (CEL_EVAL_BRANCH_QUALIFY): has() on an attribute chain
 * rooted at a ternary is planned as a conditional attribute whose picked
 * branch is qualified with the presence test, and that costs 1 whatever
 * the branch: a computed one is a relative attribute, the root of an
 * attribute one is not waived as a plain ternary's is, and a condition
 * that fails is charged as well (interpreter/attributes.go
 * conditionalAttribute; common/cost estimator.go branchQualifierCost
 * estimates the computed case).  v0.29 charged none of these. */
static uint64_t branch_charge(const ev *e, const cel_node *operand)
{
    const cel_node *root = cel_ast_chain_root(operand);
    return (e->prm->flags & CEL_EVAL_BRANCH_QUALIFY) && cel_ast_is_call(root, CEL_OP_CONDITIONAL) ? 1 : 0;
}

/* The same when the operand failed: an attribute branch whose variable
 * is unbound fails before it is qualified, and is not charged. */
static uint64_t failed_branch_charge(const ev *e, const cel_node *operand)
{
    return e->unbound_branch == cel_ast_chain_root(operand) ? 0 : branch_charge(e, operand);
}

/* cel-go applies the qualifiers past an optional one, and all those of
 * an attribute whose own value is an optional, IfPresent
 * (interpreter/attributes.go applyQualifiers); a plain qualifier that
 * yields an optional does not. */
static bool optional_chain(const cel_node *op)
{
    for (const cel_node *c = op;;) {
        if (c->kind == CEL_NODE_CALL && (c->eval_op == OP_OPT_SELECT || c->eval_op == OP_OPT_INDEX))
            return true;
        if (c->kind == CEL_NODE_SELECT && !c->u.select.test_only)
            c = c->u.select.operand;
        else if (c->kind == CEL_NODE_CALL && c->eval_op == OP_INDEX)
            c = c->u.call.args[0];
        else
            return c->type && c->type->kind == CEL_T_OPTIONAL;
    }
}

/* op's value is that of a plain qualifier inside an attribute chain (a
 * field or an index past the chain's root, no optional one before it): an
 * optional it yields is a value like any other, with no fields or keys, as
 * applyQualifiers unwraps only the optional the chain starts from
 * (interpreter/attributes.go refQualify: "no such key").  Unchecked, a
 * select rooted at an identifier may be a qualified variable's name: kept
 * as a root there. */
static bool plain_qualifier(const ev *e, const cel_node *op)
{
    bool qualifier = (op->kind == CEL_NODE_SELECT && !op->u.select.test_only) ||
                     (op->kind == CEL_NODE_CALL && op->eval_op == OP_INDEX);
    if (!qualifier || optional_chain(op))
        return false;
    return (e->prm->flags & CEL_EVAL_CHECKED) || cel_ast_chain_root(op)->kind != CEL_NODE_IDENT;
}

static cel_value eval_select(ev *e, const cel_node *n)
{
    const cel_node *op = n->u.select.operand;
    /* Qualified variable names (a.b) declared as one variable, and qualified
     * type identifiers (google.protobuf.Duration), unless the chain starts
     * at a comprehension variable.  The checker has turned these into
     * identifiers already in checked programs. */
    char q[256];
    if (!(e->prm->flags & CEL_EVAL_CHECKED) && !n->u.select.test_only && qualified_name(n, q, sizeof q) &&
        strchr(q, '.')) {
        char root[256];
        const char *bare = q[0] == '.' ? q + 1 : q;
        size_t rl = strcspn(bare, ".");
        memcpy(root, bare, rl);
        root[rl] = 0;
        if (q[0] == '.' || !has_local(e, root)) {
            cel_value r = resolve_name(e, q);
            if (r.kind) {
                if (r.kind != CEL_TYPE && !charge(e, 1))
                    return cancelled_value;
                return r;
            }
        }
    }
    EVAL_OR_RETURN(obj, op);
    if (obj.kind == CEL_ERROR) {
        if (!n->u.select.test_only && !charge_failed_operand(e, n, op))
            return cancelled_value;
        /* has() on an attribute that failed: cel-go observes the
         * evalTestOnly once, 1 less the presence test's 1
         * (interpreter/runtimecost.go with PresenceTestHasCost(false)),
         * and only the qualifiers that ran: the 1 charged here for the
         * attribute is given back */
        if (n->u.select.test_only && !(e->prm->flags & CEL_EVAL_PRESENCE_COSTS) && is_attribute(op) && e->cost > 0)
            e->cost--;
        if (n->u.select.test_only && !charge(e, failed_branch_charge(e, op)))
            return cancelled_value;
        return obj;
    }
    if (n->u.select.test_only) {
        /* has() on an operand that is no attribute is planned on a
         * relative attribute, which costs 1 (planner.go planSelect) */
        uint64_t c = (e->prm->flags & CEL_EVAL_PRESENCE_COSTS) ? 1 : 0;
        /* on an optional the presence test qualifies IfPresent: on none,
         * or when the field is absent, the attribute it ends is not
         * observed (a relative one not charged, an operand attribute's
         * 1 given back) */
        bool absent = false;
        if (obj.kind == CEL_OPTIONAL && !(e->prm->flags & CEL_EVAL_PRESENCE_COSTS) && optional_chain(op)) {
            cel_value r = select_field(e, obj, n->u.select.field, false);
            absent = r.kind == CEL_OPTIONAL && !r.v.opt;
        }
        /* under v0.33 a ternary's picked branch is qualified the same
         * way: on none, or a field absent, its 1 is not charged, and
         * there is nothing to give back (its value cost what it cost) */
        uint64_t branch = branch_charge(e, op);
        if (absent && is_attribute(op) && e->cost > 0 && !branch)
            e->cost--;
        if (!is_attribute(op) && !absent)
            c += base_cost(e, n);
        if (!absent)
            c += branch;
        if (!charge(e, c))
            return cancelled_value;
    } else if (obj.kind == CEL_OPTIONAL && optional_chain(op)) {
        /* as eval_index: a field past an optional qualifier is observed
         * only when present, and not at all on none */
        uint64_t c = qualifier_cost(e, n, op, NULL);
        cel_value r = select_field(e, obj, n->u.select.field, false);
        bool absent = r.kind == CEL_OPTIONAL && !r.v.opt;
        return charge(e, absent && c > 0 ? c - 1 : c) ? r : cancelled_value;
    } else if (!charge(e, qualifier_cost(e, n, op, NULL))) {
        return cancelled_value;
    }
    if (obj.kind == CEL_OPTIONAL && plain_qualifier(e, op)) {
        cel_value key = cel_string(n->u.select.field, strlen(n->u.select.field));
        return n->u.select.test_only ? cel_bool(false) : cel_no_such_key(e->cx.scratch, &key);
    }
    return select_field(e, obj, n->u.select.field, n->u.select.test_only);
}

/* The overload of n that takes these arguments, or NULL. */
static const cel_overload *pick_overload(const cel_node *n, const cel_value *args, size_t nargs)
{
    for (size_t i = 0; i < n->u.call.noverloads; i++) {
        const cel_overload *o = n->u.call.overloads[i];
        if (o->impl && cel_overload_accepts(o, args, nargs))
            return o;
    }
    return NULL;
}

/* Charge the call that gave r (as cel-go's cost tracker does after the call). */
static cel_value charged(ev *e, const cel_node *n, const cel_value *args, size_t nargs, cel_value r)
{
    if (tracker_panics(e, n, args, nargs))
        return cancelled_value;
    if (e->prm->flags & CEL_EVAL_NO_COST)
        return r;
    if (!charge(e, planned_cost(n, args, nargs, &r, e->prm->flags)))
        return cancelled_value;
    return r;
}

/* A call whose constant pattern an optimization compiled, replacing the
 * call with a function that answers arguments of other types "no such
 * overload", unguarded by the signature: matches (cel-go v0.29.2
 * interpreter/optimizations.go MatchesRegexOptimization), and find and
 * findAll (apiserver v0.37.2 pkg/cel/library/regex.go
 * FindRegexOptimization). */
static bool regex_optimized(const cel_node *n)
{
    const cel_node *pat;
    if (!strcmp(n->u.call.function, "matches") && n->u.call.nargs == (n->u.call.target ? 1u : 2u))
        pat = n->u.call.args[n->u.call.target ? 0 : 1];
    else if (n->u.call.noverloads > 0 && n->u.call.overloads[0]->lib == CEL_LIB_K8S_REGEX && n->u.call.target &&
             n->u.call.nargs >= 1)
        pat = n->u.call.args[0];
    else
        return false;
    return is_const(pat) && const_of(pat).kind == CEL_STRING;
}

cel_value cel_eval_no_overload(const cel_call_ctx *cx, const cel_node *n, const cel_value *args, size_t nargs)
{
    /* -_ is bound once for every Negater (common/stdlib/standard.go
     * SingletonUnaryBinding): a dyn duration is negated though no
     * declared overload takes one (types/duration.go Negate) */
    if (nargs == 1 && args[0].kind == CEL_DURATION && !strcmp(n->u.call.function, CEL_OP_NEGATE)) {
        __int128 ns = (__int128)args[0].v.t.sec * 1000000000 + args[0].v.t.nsec;
        if (ns == INT64_MIN)
            return cel_int_overflow();
        return cel_duration((int64_t)(-ns / 1000000000), (int32_t)(-ns % 1000000000));
    }
    return regex_optimized(n) ? cel_no_such_overload() : cel_no_overload_for(cx, n->u.call.function, args, nargs);
}

static cel_value call_overloads(ev *e, const cel_node *n, cel_value *args, size_t nargs)
{
    const cel_overload *o = pick_overload(n, args, nargs);
    /* ext.Lists declares flatten without type guards (DisableTypeGuards):
     * its functions judge the receiver and the depth themselves */
    if (!o && n->u.call.noverloads > 0 && n->u.call.overloads[0]->lib == CEL_LIB_LISTS &&
        !strcmp(n->u.call.function, "flatten")) {
        if (args[0].kind == CEL_LIST && (nargs == 1 || args[1].kind == CEL_INT)) {
            for (size_t i = 0; i < n->u.call.noverloads && !o; i++)
                if (n->u.call.overloads[i]->nargs == nargs)
                    o = n->u.call.overloads[i];
        } else {
            return charged(e, n, args, nargs,
                           nargs == 1 ? cel_errorf_s(e->cx.scratch, "no such overload: %s.flatten()",
                                                     cel_value_type_name(&args[0]))
                                      : cel_errorf_s(e->cx.scratch, "no such overload: %s.flatten(%s)",
                                                     cel_value_type_name(&args[0]), cel_value_type_name(&args[1])));
        }
    }
    /* ext.Lists binds sort and @sortByAssociatedKeys once, guarded only by
     * the receiver being a list (SingletonUnaryBinding with ListerType):
     * the elements are the implementation's to judge */
    if (!o && n->u.call.noverloads > 0 && n->u.call.overloads[0]->lib == CEL_LIB_LISTS && args[0].kind == CEL_LIST &&
        (!strcmp(n->u.call.function, "sort") || !strcmp(n->u.call.function, "@sortByAssociatedKeys")) &&
        args[nargs - 1].kind == CEL_LIST)
        o = n->u.call.overloads[0];
    return charged(e, n, args, nargs, o ? o->impl(&e->cx, args, nargs) : cel_eval_no_overload(&e->cx, n, args, nargs));
}

static accu_frame *mutable_list(ev *e, const cel_list *l)
{
    for (accu_frame *f = e->accus; f; f = f->up)
        if (f->list == l)
            return f;
    return NULL;
}

static accu_frame *mutable_map(ev *e, const cel_map *m)
{
    for (accu_frame *f = e->accus; f; f = f->up)
        if (f->map == m)
            return f;
    return NULL;
}

/* Whether v points at nothing: no memory of its own to keep alive. */
static bool is_scalar(const cel_value *v)
{
    switch (v->kind) {
    case CEL_NULL:
    case CEL_BOOL:
    case CEL_INT:
    case CEL_UINT:
    case CEL_DOUBLE:
    case CEL_TIMESTAMP:
    case CEL_DURATION: return true;
    default: return false;
    }
}

/* Note an addition of v to f's accumulator: whether it may keep memory
 * the current step made (anything but a scalar or the value of one of
 * f's iteration variables, which come from before the step). */
static void note_addition(ev *e, accu_frame *f, const cel_value *v)
{
    f->adds++;
    if (is_scalar(v))
        return;
    for (size_t k = 0; k < f->niter; k++) {
        const cel_value *it = &e->local_vals[f->iter[k]];
        if (it->kind == v->kind && memcmp(&it->v, &v->v, sizeof v->v) == 0)
            return;
    }
    f->keeps_new = true;
}

/* Additions to the accumulators of the comprehensions around f (a step
 * that adds to one of those, as cel.bind(x, [], ...) allows, keeps what
 * it adds). */
static unsigned long outer_additions(const accu_frame *f)
{
    unsigned long n = 0;
    for (const accu_frame *o = f->up; o; o = o->up)
        n += o->adds;
    return n;
}

/* a + b with a mutable list a: b's items are appended to a, which is the
 * result (cel-go common/types/list.go, mutableList.Add). */
static cel_value add_in_place(ev *e, const cel_node *n, cel_value *args)
{
    accu_frame *f = args[0].kind == CEL_LIST && args[1].kind == CEL_LIST ? mutable_list(e, args[0].v.list) : NULL;
    const cel_overload *o = f ? pick_overload(n, args, 2) : NULL;
    if (!o)
        return call_overloads(e, n, args, 2);
    const cel_list *add = args[1].v.list;
    for (size_t i = 0; i < add->n; i++)
        note_addition(e, f, &cel_list_items(add)[i]);
    cel_list_append_s(e->cx.scratch, f->list, &f->cap, cel_list_items(add), add->n);
    return charged(e, n, args, 2, args[0]);
}

/* Keys cel-go's Go maps take that this engine supports: the scalars,
 * null, IPs and CIDRs (a list or map key is refused as an unsupported key
 * type). */
static bool map_key_kind(const cel_value *k)
{
    switch (k->kind) {
    case CEL_INT:
    case CEL_UINT:
    case CEL_DOUBLE:
    case CEL_BOOL:
    case CEL_STRING:
    case CEL_NULL: return true;
    default: return cel_map_key_object(k);
    }
}

/* cel-go's "insert failed" error, the key as Go's %v prints it. */
static cel_value insert_failed(ev *e, const cel_value *k)
{
    dra_buf b = DRA_BUF_INIT;
    cel_value_go_v(k, &b);
    cel_value r = cel_errorf_s(e->cx.scratch, "insert failed: key %s already exists", dra_buf_str(&b));
    dra_buf_free(&b);
    return r;
}

/* cel.@mapInsert(m, k, v) and cel.@mapInsert(m, other) with a mutable map m
 * (cel-go ext/comprehensions.go, types.InsertMapKeyValue on a mutableMap):
 * the keys go into m, which is the result; a key already there is an error. */
static cel_value insert_in_place(ev *e, const cel_node *n, cel_value *args, size_t nargs)
{
    accu_frame *f = args[0].kind == CEL_MAP ? mutable_map(e, args[0].v.map) : NULL;
    const cel_overload *o = f ? pick_overload(n, args, nargs) : NULL;
    if (!o)
        return call_overloads(e, n, args, nargs);
    const cel_value *keys = &args[1], *vals = &args[2];
    size_t cnt = 1;
    if (nargs == 2) {
        keys = args[1].v.map->keys;
        vals = args[1].v.map->vals;
        cnt = args[1].v.map->n;
    } else if (!map_key_kind(keys)) {
        return charged(e, n, args, nargs,
                       cel_errorf_s(e->cx.scratch, "unsupported key type: %s", cel_value_type_name(keys)));
    }
    cel_value r = args[0];
    for (size_t i = 0; i < cnt; i++) {
        if (!cel_map_insert_s(e->cx.scratch, f->map, &f->cap, &keys[i], &vals[i])) {
            r = insert_failed(e, &keys[i]);
            break;
        }
        note_addition(e, f, &keys[i]);
        note_addition(e, f, &vals[i]);
    }
    return charged(e, n, args, nargs, r);
}

static cel_value eval_logic(ev *e, const cel_node *n, bool is_and)
{
    EVAL_OR_RETURN(l, n->u.call.args[0]);
    if (l.kind == CEL_BOOL && l.v.b != is_and)
        return l; /* false && _ , true || _ */
    EVAL_OR_RETURN(r, n->u.call.args[1]);
    if (r.kind == CEL_BOOL && r.v.b != is_and)
        return r;
    if (l.kind == CEL_BOOL && r.kind == CEL_BOOL)
        return cel_bool(is_and);
    /* interpreter.go evalOr / evalAnd: the first term that is no bool
     * answers, its error or "no such overload" */
    if (l.kind == CEL_ERROR)
        return l;
    if (l.kind != CEL_BOOL)
        return cel_no_such_overload();
    if (r.kind == CEL_ERROR)
        return r;
    return cel_no_such_overload();
}

/* Optional select / index: a.?f, a[?k]. */
static cel_value opt_access(ev *e, cel_value obj, cel_value key, bool is_index)
{
    if (obj.kind == CEL_OPTIONAL) {
        if (!obj.v.opt)
            return obj;
        obj = *obj.v.opt;
    }
    if (obj.kind == CEL_MAP) {
        const cel_value *v = cel_map_find(obj.v.map, &key);
        if (v && v->kind == CEL_ERROR) /* 1.38's unusable attribute: the error, not an optional */
            return *v;
        if (v)
            return cel_optional_of_s(e->cx.scratch, *v);
        if (obj.v.map->flags & CEL_MAP_DEFAULT_EMPTY)
            return cel_optional_of_s(e->cx.scratch, cel_mapval(&cel_empty_map));
        return cel_optional_none();
    }
    if (obj.kind == CEL_LIST && is_index) {
        int64_t i;
        if (key.kind == CEL_INT)
            i = key.v.i;
        else if (key.kind == CEL_UINT)
            i = key.v.u > INT64_MAX ? -1 : (int64_t)key.v.u;
        else if (key.kind == CEL_DOUBLE && key.v.d == (double)(int64_t)key.v.d)
            i = (int64_t)key.v.d;
        else
            return cel_errorf_s(e->cx.scratch, "unsupported index type '%s' in list", cel_value_type_name(&key));
        if (i < 0 || (uint64_t)i >= obj.v.list->n)
            return cel_optional_none();
        return cel_optional_of_s(e->cx.scratch, cel_list_items(obj.v.list)[i]);
    }
    return cel_optional_none(); /* no keys at all: absent */
}

/* A key computed at runtime of a type no qualifier takes (cel-go
 * interpreter/attributes.go newQualifier: "invalid qualifier type: %T");
 * a value of another kind when it is fine. */
static cel_value invalid_qualifier(ev *e, cel_value key)
{
    switch (key.kind) {
    case CEL_STRING:
    case CEL_INT:
    case CEL_UINT:
    case CEL_DOUBLE:
    case CEL_BOOL: return cel_null();
    default:
        return cel_errorf_s(e->cx.scratch, "invalid qualifier type: %s", qualifier_type_name(&key, stops_at_error(e)));
    }
}

/* obj[key] for lists and maps, as cel-go's attribute qualifiers do it: list
 * indices may be int, uint or an integral double (also behind dyn).  Sets
 * *missing when the key or index is absent (for optional chains). */
static cel_value index_value(ev *e, cel_value obj, cel_value key, bool *missing)
{
    *missing = false;
    if (obj.kind == CEL_MAP) {
        const cel_value *v = cel_map_find(obj.v.map, &key);
        if (v)
            return *v;
        if (obj.v.map->flags & CEL_MAP_DEFAULT_EMPTY)
            return cel_mapval(&cel_empty_map);
        if (key.kind != CEL_STRING && key.kind != CEL_INT && key.kind != CEL_UINT && key.kind != CEL_BOOL &&
            key.kind != CEL_DOUBLE)
            return cel_errorf_s(e->cx.scratch, "unsupported key type: %s", cel_value_type_name(&key));
        *missing = true;
        return cel_no_such_key(e->cx.scratch, &key);
    }
    /* obj is a list */
    const cel_list *l = obj.v.list;
    int64_t i;
    switch (key.kind) {
    case CEL_INT: i = key.v.i; break;
    case CEL_UINT: i = key.v.u > INT64_MAX ? INT64_MAX : (int64_t)key.v.u; break;
    case CEL_DOUBLE: {
        double d = key.v.d;
        if (!(d >= -9.2e18 && d <= 9.2e18) || d != (double)(int64_t)d)
            return cel_errorf_s(e->cx.scratch, "unsupported index value %g in list", d);
        i = (int64_t)d;
        break;
    }
    default: return cel_errorf_s(e->cx.scratch, "unsupported index type '%s' in list", cel_value_type_name(&key));
    }
    if (i < 0 || (uint64_t)i >= l->n) { /* attributes.go: an index qualifier's missingIndex */
        *missing = true;
        dra_buf b = DRA_BUF_INIT;
        cel_value_go_v(&key, &b);
        cel_value r = cel_errorf_s(e->cx.scratch, "index out of bounds: %s", dra_buf_str(&b));
        dra_buf_free(&b);
        return r;
    }
    return cel_list_items(l)[i];
}

static cel_value eval_index(ev *e, const cel_node *n, cel_value obj, cel_value key)
{
    bool missing;
    cel_value bad = invalid_qualifier(e, key);
    if (bad.kind == CEL_ERROR) /* the qualifier failed, and is observed */
        return charge(e, qualifier_cost(e, n, n->u.call.args[0], n->u.call.args[1])) ? bad : cancelled_value;
    if (obj.kind == CEL_OPTIONAL && !plain_qualifier(e, n->u.call.args[0])) {
        /* opt[k] on an optional value: optional.of(v[k]), none when v has no
         * such key or index (cel-go optional_map_index_value / list_index).
         * The qualifier is observed only when it finds its key: past an
         * optional one, applyQualifiers qualifies IfPresent, and on none
         * it stops (interpreter/attributes.go, cost model version 0) */
        uint64_t c = qualifier_cost(e, n, n->u.call.args[0], n->u.call.args[1]);
        uint64_t own =
            !optional_chain(n->u.call.args[0]) ? 0 : c - (is_attribute(n->u.call.args[0]) ? 0 : base_cost(e, n));
        if (!obj.v.opt)
            return charge(e, c - own) ? obj : cancelled_value;
        cel_value inner = *obj.v.opt;
        if (inner.kind != CEL_LIST && inner.kind != CEL_MAP)
            return charge(e, c) ? cel_no_such_overload() : cancelled_value;
        cel_value r = index_value(e, inner, key, &missing);
        if (!charge(e, missing ? c - own : c))
            return cancelled_value;
        if (missing)
            return cel_optional_none();
        if (r.kind == CEL_ERROR)
            return r;
        return cel_optional_of_s(e->cx.scratch, r);
    }
    if (obj.kind == CEL_LIST || obj.kind == CEL_MAP) {
        if (!charge(e, qualifier_cost(e, n, n->u.call.args[0], n->u.call.args[1])))
            return cancelled_value;
        return index_value(e, obj, key, &missing);
    }
    /* attributes.go refQualify: a value with no keys has none of them */
    if (!charge(e, qualifier_cost(e, n, n->u.call.args[0], n->u.call.args[1])))
        return cancelled_value;
    return cel_no_such_key(e->cx.scratch, &key);
}

/* maybeOptimizeSetMembership's set: the elements, and for numbers their
 * conversions to the other numeric types (lossless ones from double; from
 * int and uint every conversion that succeeds), looked up as Go map keys
 * of ref.Val are: same type and ==. */
static bool in_set(const cel_value *v, const cel_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const cel_value *x = &cel_list_items(l)[i];
        if (x->kind == v->kind) {
            if (cel_value_equal(x, v))
                return true;
            continue;
        }
        switch (x->kind) {
        case CEL_DOUBLE: {
            double d = x->v.d;
            if (v->kind == CEL_INT && !isnan(d) && d > -9223372036854775808.0 && d < 9223372036854775808.0 &&
                (double)(int64_t)d == d && (int64_t)d == v->v.i)
                return true;
            if (v->kind == CEL_UINT && !isnan(d) && d >= 0 && d < 18446744073709551616.0 && (double)(uint64_t)d == d &&
                (uint64_t)d == v->v.u)
                return true;
            break;
        }
        case CEL_INT:
            if (v->kind == CEL_DOUBLE && (double)x->v.i == v->v.d)
                return true;
            if (v->kind == CEL_UINT && x->v.i >= 0 && (uint64_t)x->v.i == v->v.u)
                return true;
            break;
        case CEL_UINT:
            if (v->kind == CEL_DOUBLE && (double)x->v.u == v->v.d)
                return true;
            if (v->kind == CEL_INT && x->v.u <= INT64_MAX && (int64_t)x->v.u == v->v.i)
                return true;
            break;
        default: break;
        }
    }
    return false;
}

/* cel-go v0.33 still charges ==, != and ! when an operand is an error
 * ("to preserve legacy cost tracking behavior": interpretable.go evalEq,
 * evalNe, evalUnary for LogicalNot); any other strict call charges
 * nothing then. */
static bool legacy_error_cost(const cel_node *n)
{
    const char *f = n->u.call.function;
    return !n->u.call.target && (!strcmp(f, "_==_") || !strcmp(f, "_!=_") || !strcmp(f, "!_"));
}

/* e.?f and e[?k]: an optional select or index, charged as cel-go
 * observes it. */
static cel_value eval_opt_access(ev *e, const cel_node *n)
{
    EVAL_OR_RETURN(obj, n->u.call.args[0]);
    if (obj.kind == CEL_ERROR)
        return charge_failed_operand(e, n, n->u.call.args[0]) ? obj : cancelled_value;
    cel_value key = eval_key(e, n);
    if (e->cancelled)
        return cancelled_value;
    const cel_node *kn = n->u.call.args[1];
    bool key_attribute = is_attribute(kn) && !(kn->kind == CEL_NODE_CALL && kn->eval_op == OP_CONDITIONAL);
    /* a failed optional qualifier is not observed, nor the attribute
     * it qualifies when the key is an attribute of its own */
    if (key.kind == CEL_ERROR) {
        /* an attribute key of an attribute that failed on a qualifier
         * is not observed: its 1 is given back (an unbound variable
         * charged nothing) */
        if (key_attribute && is_attribute(n->u.call.args[0]) && e->cost > 0 &&
            strncmp(key.v.err, "no such attribute(s): ", 22))
            e->cost--;
        bool ok = key_attribute || charge_failed_operand(e, n, n->u.call.args[0]);
        /* cel-go v0.33 observes a qualifier that failed
         * (attributes.go: Qualify when QualifyIfPresent errs) */
        if (ok && stops_at_error(e))
            ok = charge(e, 1);
        return ok ? key : cancelled_value;
    }
    cel_value bad = invalid_qualifier(e, key);
    if (bad.kind == CEL_ERROR) { /* observed as an absent one, by cel-go v0.33 as a failed one */
        uint64_t c = qualifier_cost(e, n, n->u.call.args[0], kn);
        return charge(e, c > 0 && !stops_at_error(e) ? c - 1 : c) ? bad : cancelled_value;
    }
    /* An optional qualifier is observed only when the key is present
     * (interpreter.go evalWatchConstQual.QualifyIfPresent): an absent
     * one costs 1 less than a plain index; an attribute key's 1 is
     * what its observation would have charged. */
    uint64_t c = qualifier_cost(e, n, n->u.call.args[0], n->u.call.args[1]);
    cel_value r = opt_access(e, obj, key, n->eval_op == OP_OPT_INDEX);
    /* a failed one is not observed either, but by cel-go v0.33 */
    bool absent = (r.kind == CEL_OPTIONAL && !r.v.opt) || (r.kind == CEL_ERROR && !stops_at_error(e));
    if (absent && c > 0)
        c--;
    else if (absent && key_attribute && e->cost > 0)
        e->cost--;
    if (!charge(e, c))
        return cancelled_value;
    return r;
}

static cel_value eval_call(ev *e, const cel_node *n)
{
    if (n->folded) {
        if (!charge(e, n->folded_cost))
            return cancelled_value;
        return *(const cel_value *)n->folded;
    }
    switch (n->eval_op) {
    case OP_AND: return eval_logic(e, n, true);
    case OP_OR: return eval_logic(e, n, false);
    case OP_CONDITIONAL: {
        if (e->unbound_branch == n)
            e->unbound_branch = NULL;
        EVAL_OR_RETURN(c, n->u.call.args[0]);
        if (c.kind != CEL_BOOL)
            return c.kind == CEL_ERROR ? c : cel_no_such_overload();
        const cel_node *branch = n->u.call.args[c.v.b ? 1 : 2];
        /* an enclosing ternary's waived attribute may still be ahead (this
         * one sits in its operand): it is kept for it */
        const cel_node *outer = e->free_base;
        e->free_base = is_attribute(branch) ? attribute_root(branch) : NULL;
        cel_value r = eval(e, branch);
        e->free_base = outer;
        if (r.kind == CEL_ERROR && is_attribute(branch) && !strncmp(r.v.err, "no such attribute(s): ", 22))
            e->unbound_branch = n;
        return r;
    }
    case OP_NOT_STRICTLY_FALSE: {
        EVAL_OR_RETURN(v, n->u.call.args[0]);
        if (!charge(e, 1))
            return cancelled_value;
        return v.kind == CEL_BOOL ? v : cel_bool(true);
    }
    case OP_OPT_SELECT:
    case OP_OPT_INDEX: return eval_opt_access(e, n);
    case OP_OPT_OR:
    case OP_OPT_OR_VALUE: {
        /* opt.or(x), opt.orValue(x): no call and no cost, x evaluated only
         * when opt is none (cel-go cel/library.go, evalOptionalOr and
         * evalOptionalOrValue) */
        EVAL_OR_RETURN(t, n->u.call.target);
        if (t.kind == CEL_ERROR)
            return t;
        if (t.kind != CEL_OPTIONAL)
            return cel_no_such_overload();
        if (t.v.opt)
            return n->eval_op == OP_OPT_OR_VALUE ? *t.v.opt : t;
        return eval(e, n->u.call.args[0]);
    }
    case OP_IN_SET: {
        /* interpreter.go evalSetMembership: no cost of its own */
        EVAL_OR_RETURN(v, n->u.call.args[0]);
        if (v.kind == CEL_ERROR)
            return v;
        return cel_bool(in_set(&v, ((const cel_value *)n->in_set)->v.list));
    }
    case OP_INDEX: {
        EVAL_OR_RETURN(obj, n->u.call.args[0]);
        if (obj.kind == CEL_ERROR)
            return charge_failed_operand(e, n, n->u.call.args[0]) ? obj : cancelled_value;
        cel_value key = eval_key(e, n);
        if (e->cancelled)
            return cancelled_value;
        if (key.kind == CEL_ERROR) /* the qualifier ran, and is observed */
            return charge(e, qualifier_cost(e, n, n->u.call.args[0], n->u.call.args[1])) ? key : cancelled_value;
        return eval_index(e, n, obj, key);
    }
    default: break;
    }
    cel_value args[CEL_MAX_ARGS + 4];
    size_t nargs = 0;
    size_t total = n->u.call.nargs + (n->u.call.target ? 1 : 0);
    if (total > sizeof args / sizeof args[0]) {
        if (!charge(e, 1))
            return cancelled_value;
        return cel_no_such_overload();
    }
    cel_value first_err = {0};
    if (n->u.call.target) {
        EVAL_OR_RETURN(t, n->u.call.target);
        args[nargs++] = t;
        if (t.kind == CEL_ERROR && !first_err.kind)
            first_err = t;
    }
    bool stop_at_error = n->var_args || (e->prm->flags & CEL_EVAL_STOP_AT_ERROR);
    for (size_t i = 0; i < n->u.call.nargs && !(first_err.kind && stop_at_error); i++) {
        EVAL_OR_RETURN(a, n->u.call.args[i]);
        args[nargs++] = a;
        if (a.kind == CEL_ERROR && !first_err.kind)
            first_err = a;
    }
    if (first_err.kind) {
        /* Strict functions propagate the first error.  cel-go charges the
         * call when every argument was evaluated (evalUnary, evalBinary;
         * evalVarArgs stops at the first error, and an argument never
         * evaluated leaves the call uncharged). */
        if ((e->prm->flags & CEL_EVAL_STOP_AT_ERROR) && !legacy_error_cost(n))
            return first_err;
        if (nargs < total && !(e->prm->flags & CEL_EVAL_STOP_AT_ERROR))
            return first_err;
        if (tracker_panics(e, n, args, nargs))
            return cancelled_value;
        if (e->prm->flags & CEL_EVAL_NO_COST)
            return first_err;
        if (!charge(e, planned_cost(n, args, nargs, &first_err, e->prm->flags)))
            return cancelled_value;
        return first_err;
    }
    if (e->accus && n->eval_op == OP_ADD)
        return add_in_place(e, n, args);
    if (e->accus && n->eval_op == OP_MAP_INSERT)
        return insert_in_place(e, n, args, nargs);
    return call_overloads(e, n, args, nargs);
}

static cel_value eval_list(ev *e, const cel_node *n)
{
    size_t cnt = n->u.list.nelems;
    cel_value *items = cnt ? cel_scratch_alloc(e->cx.scratch, cnt * sizeof *items) : NULL;
    size_t k = 0, opt = 0;
    for (size_t i = 0; i < cnt; i++) {
        EVAL_OR_RETURN(v, n->u.list.elems[i]);
        /* the list is charged even when an element fails (runtimecost.go:
         * InterpretableConstructor); cel-go v0.33 stops there, uncharged
         * (interpretable.go evalList.Exec) */
        if (v.kind == CEL_ERROR)
            return stops_at_error(e) || charge(e, 10) ? v : cancelled_value;
        if (opt < n->u.list.noptional && n->u.list.optional_indices[opt] == i) {
            opt++;
            if (v.kind != CEL_OPTIONAL)
                return cel_no_such_overload();
            if (!v.v.opt)
                continue;
            v = *v.v.opt;
        }
        items[k++] = v;
    }
    if (!charge(e, 10))
        return cancelled_value;
    if (k == 0)
        return cel_listval(&cel_empty_list);
    cel_list *l = cel_scratch_zalloc(e->cx.scratch, sizeof *l);
    l->n = k;
    l->items_ = items;
    return cel_listval(l);
}

static cel_value eval_map(ev *e, const cel_node *n)
{
    size_t cnt = n->u.map.nentries;
    cel_value *keys = cnt ? cel_scratch_alloc(e->cx.scratch, cnt * sizeof *keys) : NULL;
    cel_value *vals = cnt ? cel_scratch_alloc(e->cx.scratch, cnt * sizeof *vals) : NULL;
    size_t k = 0;
    for (size_t i = 0; i < cnt; i++) {
        const cel_entry *en = &n->u.map.entries[i];
        if (!en->key) /* message construction is not supported: no proto types */
            return cel_error("unsupported message construction");
        /* as a list's element (v0.33: evalMap.Exec) */
        EVAL_OR_RETURN(key, en->key);
        if (key.kind == CEL_ERROR)
            return stops_at_error(e) || charge(e, 30) ? key : cancelled_value;
        EVAL_OR_RETURN(val, en->value);
        if (val.kind == CEL_ERROR)
            return stops_at_error(e) || charge(e, 30) ? val : cancelled_value;
        if (!map_key_kind(&key))
            return cel_errorf_s(e->cx.scratch, "unsupported key type: %s", cel_value_type_name(&key));
        if (en->optional) {
            if (val.kind != CEL_OPTIONAL)
                return cel_no_such_overload();
            if (!val.v.opt)
                continue;
            val = *val.v.opt;
        }
        /* a repeated key overwrites (cel-go builds a Go map) */
        size_t j;
        for (j = 0; j < k; j++)
            if (cel_map_key_same(&keys[j], &key))
                break;
        if (j < k) { /* Go's mapassign updates float keys too: 0.0 replaces -0.0 */
            keys[j] = key;
            vals[j] = val;
            continue;
        }
        keys[k] = key;
        vals[k] = val;
        k++;
    }
    if (!charge(e, 30))
        return cancelled_value;
    return cel_map_build_s(e->cx.scratch, keys, vals, k, 0);
}

static bool push_local(ev *e, const char *name, cel_value v)
{
    if (e->nlocals >= MAX_LOCALS)
        return false;
    e->local_names[e->nlocals] = name;
    e->local_init[e->nlocals] = NULL;
    e->local_vals[e->nlocals++] = v;
    return true;
}

/* cel-go's folder.ResolveName: an accumulator's initial expression is
 * evaluated when the variable is first read, in the scope around the
 * comprehension; one that starts as an empty list or map is mutable (see
 * accu_frame).  cel.bind(x, e, r) thus costs nothing for e when r never
 * reads x.  The locals above the comprehension's are kept aside meanwhile
 * (the initial expression may run comprehensions of its own). */
static void init_accumulator(ev *e, size_t slot)
{
    const cel_node *init = e->local_init[slot];
    accu_frame *f = e->local_frame[slot];
    e->local_init[slot] = NULL;
    size_t top = e->nlocals, kept = top - slot;
    struct saved_local {
        const char *name;
        cel_value val;
        const cel_node *init;
        accu_frame *frame;
    } saved[MAX_LOCALS];
    for (size_t i = 0; i < kept; i++)
        saved[i] = (struct saved_local){e->local_names[slot + i], e->local_vals[slot + i], e->local_init[slot + i],
                                        e->local_frame[slot + i]};
    accu_frame *accus = e->accus;
    const cel_node *free_base = e->free_base;
    e->nlocals = slot;
    e->accus = f->up;
    e->free_base = NULL;
    cel_value v = eval(e, init);
    e->nlocals = top;
    e->accus = accus;
    e->free_base = free_base;
    for (size_t i = 0; i < kept; i++) {
        e->local_names[slot + i] = saved[i].name;
        e->local_vals[slot + i] = saved[i].val;
        e->local_init[slot + i] = saved[i].init;
        e->local_frame[slot + i] = saved[i].frame;
    }
    if (v.kind == CEL_LIST && v.v.list->n == 0) {
        f->list = cel_scratch_zalloc(e->cx.scratch, sizeof *f->list);
        v = cel_listval(f->list);
    } else if (v.kind == CEL_MAP && v.v.map->n == 0) {
        f->map = cel_scratch_zalloc(e->cx.scratch, sizeof *f->map);
        v = cel_mapval(f->map);
    }
    e->local_vals[slot] = v;
    e->inits[slot]++;
}

/* Accumulators initialised so far in slots 0..upto. */
static unsigned long inits_upto(const ev *e, size_t upto)
{
    unsigned long n = 0;
    for (size_t i = 0; i <= upto; i++)
        n += e->inits[i];
    return n;
}

static cel_value eval_comprehension(ev *e, const cel_node *n)
{
    EVAL_OR_RETURN(range, n->u.comp.iter_range);
    if (range.kind == CEL_ERROR)
        return range;
    /* cel-go v0.33 goes to the result when the range has size 0, whatever
     * its type: "" and b"" too (interpretable.go evalFold.Exec) */
    bool empty_text = stops_at_error(e) && (range.kind == CEL_STRING || range.kind == CEL_BYTES) && !range.v.s.len;
    if (range.kind != CEL_LIST && range.kind != CEL_MAP && !empty_text) /* evalFold: two variables want a list or map */
        return cel_errorf_s(e->cx.scratch,
                            n->u.comp.iter_var2 ? "unsupported comprehension range type: %s"
                                                : "got '%s', expected iterable type",
                            go_type_name(&range));
    accu_frame frame = {.up = e->accus};
    size_t base = e->nlocals;
    bool two = n->u.comp.iter_var2 != NULL;
    if (!push_local(e, n->u.comp.accu_var, cel_null()) || !push_local(e, n->u.comp.iter_var, cel_null()) ||
        (two && !push_local(e, n->u.comp.iter_var2, cel_null()))) {
        e->nlocals = base;
        return cel_error("comprehension nesting too deep");
    }
    e->local_init[base] = n->u.comp.accu_init; /* evaluated when first read */
    e->local_frame[base] = &frame;
    e->accus = &frame;
    size_t accu_slot = base, it1 = base + 1, it2 = base + 2;
    frame.iter[0] = it1;
    frame.iter[1] = it2;
    frame.niter = two ? 2 : 1;
    size_t cnt = empty_text ? 0 : range.kind == CEL_LIST ? range.v.list->n : range.v.map->n;
    cel_value result;
    for (size_t i = 0; i < cnt; i++) {
        if (range.kind == CEL_LIST) {
            if (two) {
                e->local_vals[it1] = cel_int((int64_t)i);
                e->local_vals[it2] = cel_list_items(range.v.list)[i];
            } else {
                e->local_vals[it1] = cel_list_items(range.v.list)[i];
            }
        } else {
            e->local_vals[it1] = range.v.map->keys[i];
            if (two)
                e->local_vals[it2] = range.v.map->vals[i];
        }
        /* What the step makes is freed after it when nothing kept points
         * into it: the accumulator is a scalar, or this comprehension's own
         * and only given scalars or the iteration variables' values (room
         * for one more is taken before, so that growing it is not freed). */
        if (frame.list)
            cel_list_reserve_s(e->cx.scratch, frame.list, &frame.cap, 1);
        else if (frame.map)
            cel_map_reserve_s(e->cx.scratch, frame.map, &frame.cap, 1);
        size_t cap = frame.cap;
        /* nor when this accumulator or an enclosing one got its initial value in the step */
        unsigned long outer = outer_additions(&frame), inits = inits_upto(e, base);
        frame.keeps_new = false;
        dra_arena_mark mark = dra_arena_mark_get(e->cx.scratch);
        cel_value c = eval(e, n->u.comp.loop_condition);
        if (e->cancelled)
            break;
        if (c.kind == CEL_BOOL && !c.v.b)
            break;
        cel_value s = eval(e, n->u.comp.loop_step);
        if (e->cancelled)
            break;
        e->local_vals[accu_slot] = s;
        e->local_init[accu_slot] = NULL; /* the step's value, even when it never read the initial one */
        bool own_accu = (frame.list && s.kind == CEL_LIST && s.v.list == frame.list) ||
                        (frame.map && s.kind == CEL_MAP && s.v.map == frame.map);
        if ((is_scalar(&s) || own_accu) && frame.cap == cap && !frame.keeps_new && outer_additions(&frame) == outer &&
            inits_upto(e, base) == inits)
            dra_arena_release(e->cx.scratch, mark);
    }
    /* the result sees the accumulator only (iteration variables go out of scope) */
    e->nlocals = base + 1;
    result = eval(e, n->u.comp.result);
    e->nlocals = base;
    e->accus = frame.up;
    if (e->cancelled)
        return cancelled_value;
    return result;
}

static cel_value eval_const(const cel_node *n)
{
    const cel_const *c = &n->u.constant;
    switch (c->kind) {
    case CEL_CONST_NULL: return cel_null();
    case CEL_CONST_BOOL: return cel_bool(c->v.b);
    case CEL_CONST_INT: return cel_int(c->v.i);
    case CEL_CONST_UINT: return cel_uint(c->v.u);
    case CEL_CONST_DOUBLE: return cel_double(c->v.d);
    case CEL_CONST_STRING: return cel_string(c->v.s.data, c->v.s.len);
    case CEL_CONST_BYTES: return cel_bytes(c->v.s.data, c->v.s.len);
    }
    return cel_null();
}

static cel_value eval(ev *e, const cel_node *n)
{
    if (e->cancelled)
        return cancelled_value;
    if (n->opt_const)
        return *(const cel_value *)n->folded;
    switch (n->kind) {
    case CEL_NODE_CONST: return eval_const(n);
    case CEL_NODE_IDENT: return eval_ident(e, n);
    case CEL_NODE_SELECT: return eval_select(e, n);
    case CEL_NODE_CALL: return eval_call(e, n);
    case CEL_NODE_LIST: return eval_list(e, n);
    case CEL_NODE_MAP: return eval_map(e, n);
    case CEL_NODE_STRUCT: return cel_error("unsupported message construction");
    case CEL_NODE_COMPREHENSION: return eval_comprehension(e, n);
    }
    return cel_error("invalid expression");
}

cel_value cel_eval_run(const cel_node *root, const cel_eval_params *params, uint64_t *cost)
{
    ev e;
    e.prm = params;
    e.cx.scratch = params->scratch;
    e.cx.regexes = params->regexes;
    e.cx.flags = params->flags;
    e.cost = 0;
    e.cancelled = false;
    e.aborted = NULL;
    e.nlocals = 0;
    e.accus = NULL;
    e.free_base = NULL;
    e.waived = NULL;
    e.open_bases = 0;
    memset(e.inits, 0, sizeof e.inits);
    cel_value r = eval(&e, root);
    if (e.cancelled)
        r = e.aborted ? cel_error(e.aborted) : cancelled_value;
    if (cost)
        *cost = e.cost;
    return r;
}
