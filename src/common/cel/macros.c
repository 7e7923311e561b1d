/* Parse-time macro expansion, following cel-go parser/macro.go (has, all,
 * exists, exists_one/existsOne, map, filter), ext/comprehensions.go
 * (two-variable forms), ext/bindings.go (cel.bind) and cel/library.go
 * (optMap, optFlatMap).  Generated nodes take the position of the call's
 * '(' as cel-go's macro helper does. */
#include "macros.h"

#include <string.h>

static const char *ident_name(const cel_node *n)
{
    return n && n->kind == CEL_NODE_IDENT ? n->u.ident.name : NULL;
}

static cel_node *accu(cel_parser *p, size_t off)
{
    return cel_p_ident(p, off, CEL_ACCU_HIDDEN);
}

static bool is_accu_name(const char *v)
{
    return !strcmp(v, CEL_ACCU_HIDDEN) || !strcmp(v, CEL_ACCU_LEGACY);
}

static cel_node *make_has(cel_parser *p, size_t off, cel_node **args)
{
    cel_node *a = args[0];
    if (a->kind != CEL_NODE_SELECT)
        return cel_p_error(p, a->offset, "invalid argument to has() macro");
    cel_node *n = cel_p_node(p, CEL_NODE_SELECT, off);
    n->u.select.operand = a->u.select.operand;
    n->u.select.field = a->u.select.field;
    n->u.select.test_only = true;
    return n;
}

enum quantifier { Q_ALL, Q_EXISTS, Q_EXISTS_ONE };

/* Loop pieces shared by the one- and two-variable quantifiers. */
static cel_node *quantifier(cel_parser *p, size_t off, enum quantifier q, cel_node *range, const char *v1,
                            const char *v2, cel_node *pred)
{
    cel_node *init, *cond, *step, *result;
    switch (q) {
    case Q_ALL:
        init = cel_p_bool(p, off, true);
        cond = cel_p_call1(p, off, CEL_OP_NOT_STRICTLY_FALSE, accu(p, off));
        step = cel_p_call2(p, off, CEL_OP_LOGICAL_AND, accu(p, off), pred);
        result = accu(p, off);
        break;
    case Q_EXISTS:
        init = cel_p_bool(p, off, false);
        cond = cel_p_call1(p, off, CEL_OP_NOT_STRICTLY_FALSE, cel_p_call1(p, off, CEL_OP_LOGICAL_NOT, accu(p, off)));
        step = cel_p_call2(p, off, CEL_OP_LOGICAL_OR, accu(p, off), pred);
        result = accu(p, off);
        break;
    default:
        init = cel_p_int(p, off, 0);
        cond = cel_p_bool(p, off, true);
        step = cel_p_call3(p, off, CEL_OP_CONDITIONAL, pred,
                           cel_p_call2(p, off, CEL_OP_ADD, accu(p, off), cel_p_int(p, off, 1)), accu(p, off));
        result = cel_p_call2(p, off, CEL_OP_EQUALS, accu(p, off), cel_p_int(p, off, 1));
        break;
    }
    return cel_p_comprehension(p, off, range, v1, v2, CEL_ACCU_HIDDEN, init, cond, step, result);
}

static cel_node *make_quantifier(cel_parser *p, size_t off, enum quantifier q, cel_node *target, cel_node **args)
{
    const char *v = ident_name(args[0]);
    if (!v)
        return cel_p_error(p, args[0]->offset, "argument must be a simple name");
    if (is_accu_name(v))
        return cel_p_error(p, args[0]->offset, "iteration variable overwrites accumulator variable");
    return quantifier(p, off, q, target, v, NULL, args[1]);
}

/* map(v, fn), map(v, filter, fn), filter(v, pred). */
static cel_node *make_map_filter(cel_parser *p, size_t off, bool is_filter, cel_node *target, cel_node **args,
                                 size_t nargs)
{
    const char *v = ident_name(args[0]);
    if (!v)
        return cel_p_error(p, args[0]->offset, "argument is not an identifier");
    if (is_accu_name(v))
        return cel_p_error(p, args[0]->offset, "iteration variable overwrites accumulator variable");
    cel_node *filter = NULL, *fn;
    if (is_filter) {
        filter = args[1];
        fn = args[0];
    } else if (nargs == 3) {
        filter = args[1];
        fn = args[2];
    } else {
        fn = args[1];
    }
    cel_node *step = cel_p_call2(p, off, CEL_OP_ADD, accu(p, off), cel_p_list(p, off, &fn, 1));
    if (filter)
        step = cel_p_call3(p, off, CEL_OP_CONDITIONAL, filter, step, accu(p, off));
    return cel_p_comprehension(p, off, target, v, NULL, CEL_ACCU_HIDDEN, cel_p_list(p, off, NULL, 0),
                               cel_p_bool(p, off, true), step, accu(p, off));
}

/* ext/comprehensions.go extractIterVars. */
static bool two_vars(cel_parser *p, cel_node **args, const char **v1, const char **v2)
{
    *v1 = ident_name(args[0]);
    if (!*v1) {
        cel_p_error(p, args[0]->offset, "argument must be a simple name");
        return false;
    }
    *v2 = ident_name(args[1]);
    if (!*v2) {
        cel_p_error(p, args[1]->offset, "argument must be a simple name");
        return false;
    }
    if (!strcmp(*v1, *v2)) {
        cel_p_error(p, args[1]->offset, "duplicate variable name: %s", *v1);
        return false;
    }
    if (is_accu_name(*v1)) {
        cel_p_error(p, args[0]->offset, "iteration variable overwrites accumulator variable");
        return false;
    }
    if (is_accu_name(*v2)) {
        cel_p_error(p, args[1]->offset, "iteration variable overwrites accumulator variable");
        return false;
    }
    return true;
}

enum transform { T_LIST, T_MAP, T_MAP_ENTRY };

static cel_node *make_transform(cel_parser *p, size_t off, enum transform t, cel_node *target, cel_node **args,
                                size_t nargs)
{
    const char *v1, *v2;
    if (!two_vars(p, args, &v1, &v2))
        return cel_p_node(p, CEL_NODE_CONST, off);
    cel_node *filter = nargs == 4 ? args[2] : NULL;
    cel_node *fn = nargs == 4 ? args[3] : args[2];
    cel_node *step, *init;
    if (t == T_LIST) {
        init = cel_p_list(p, off, NULL, 0);
        step = cel_p_call2(p, off, CEL_OP_ADD, accu(p, off), cel_p_list(p, off, &fn, 1));
    } else {
        init = cel_p_node(p, CEL_NODE_MAP, off);
        if (t == T_MAP)
            step = cel_p_call3(p, off, "cel.@mapInsert", accu(p, off), cel_p_ident(p, off, v1), fn);
        else
            step = cel_p_call2(p, off, "cel.@mapInsert", accu(p, off), fn);
    }
    if (filter)
        step = cel_p_call3(p, off, CEL_OP_CONDITIONAL, filter, step, accu(p, off));
    return cel_p_comprehension(p, off, target, v1, v2, CEL_ACCU_HIDDEN, init, cel_p_bool(p, off, true), step,
                               accu(p, off));
}

static cel_node *make_bind(cel_parser *p, size_t off, cel_node **args)
{
    const char *v = ident_name(args[0]);
    if (!v)
        return cel_p_error(p, args[0]->offset, "cel.bind() variable names must be simple identifiers");
    return cel_p_comprehension(p, off, cel_p_list(p, off, NULL, 0), CEL_UNUSED_ITER_VAR, NULL, v, args[1],
                               cel_p_bool(p, off, false), cel_p_ident(p, off, v), args[2]);
}

static cel_node *make_opt_map(cel_parser *p, size_t off, bool flat, cel_node *target, cel_node **args)
{
    const char *v = ident_name(args[0]);
    if (!v)
        return cel_p_error(p, args[0]->offset,
                           flat ? "optFlatMap() variable name must be a simple identifier"
                                : "optMap() variable name must be a simple identifier");
    cel_node *value = cel_p_call(p, off, "value", cel_p_copy(p, target), NULL, 0);
    cel_node *has_value = cel_p_call(p, off, "hasValue", target, NULL, 0);
    cel_node *comp = cel_p_comprehension(p, off, cel_p_list(p, off, NULL, 0), CEL_UNUSED_ITER_VAR, NULL, v, value,
                                         cel_p_bool(p, off, false), cel_p_ident(p, off, v), args[1]);
    if (!flat)
        comp = cel_p_call1(p, off, "optional.of", comp);
    return cel_p_call3(p, off, CEL_OP_CONDITIONAL, has_value, comp, cel_p_call(p, off, "optional.none", NULL, NULL, 0));
}

/* ext.Math's argument screening (cel-go ext/math.go isNumericArgType): a
 * literal must be a number; list, map and message literals never are. */
static bool numeric_arg(const cel_node *a)
{
    switch (a->kind) {
    case CEL_NODE_CONST:
        return a->u.constant.kind == CEL_CONST_INT || a->u.constant.kind == CEL_CONST_UINT ||
               a->u.constant.kind == CEL_CONST_DOUBLE;
    case CEL_NODE_LIST:
    case CEL_NODE_MAP:
    case CEL_NODE_STRUCT: return false;
    default: return true;
    }
}

/* math.greatest(...) / math.least(...) -> math.@max / math.@min over one
 * number, a pair, or a list literal of three or more (cel-go ext/math.go). */
static cel_node *make_min_max(cel_parser *p, size_t off, bool greatest, cel_node *target, cel_node **args, size_t n)
{
    const char *shown = greatest ? "math.greatest()" : "math.least()";
    const char *fn = greatest ? "math.@max" : "math.@min";
    if (n == 0)
        return cel_p_error(p, target->offset, "%s requires at least one argument", shown);
    if (n == 1) {
        bool list_ok = args[0]->kind == CEL_NODE_LIST && args[0]->u.list.nelems > 0;
        for (size_t i = 0; list_ok && i < args[0]->u.list.nelems; i++)
            list_ok = numeric_arg(args[0]->u.list.elems[i]);
        if (!list_ok && !numeric_arg(args[0]))
            return cel_p_error(p, args[0]->offset, "%s invalid single argument value", shown);
        return cel_p_call(p, off, fn, NULL, args, 1);
    }
    for (size_t i = 0; i < n; i++)
        if (!numeric_arg(args[i]))
            return cel_p_error(p, args[i]->offset, "%s simple literal arguments must be numeric", shown);
    if (n == 2)
        return cel_p_call(p, off, fn, NULL, args, 2);
    cel_node *list = cel_p_list(p, off, args, n);
    return cel_p_call(p, off, fn, NULL, &list, 1);
}

/* l.sortBy(e, key) -> cel.bind(@__sortBy_input__, l,
 *     @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key)))
 * (cel-go ext/lists.go sortByMacro). */
static cel_node *make_sort_by(cel_parser *p, size_t off, cel_node *target, cel_node **args)
{
    static const char var[] = "@__sortBy_input__";
    if (target->kind != CEL_NODE_LIST && target->kind != CEL_NODE_SELECT && target->kind != CEL_NODE_IDENT &&
        target->kind != CEL_NODE_COMPREHENSION && target->kind != CEL_NODE_CALL)
        return cel_p_error(
            p, target->offset,
            "sortBy can only be applied to a list, identifier, comprehension, call or select expression");
    cel_node *keys = make_map_filter(p, off, false, cel_p_ident(p, off, var), args, 2);
    if (keys->kind != CEL_NODE_COMPREHENSION) /* an error was reported */
        return keys;
    cel_node *call_args[1] = {keys};
    cel_node *sorted = cel_p_call(p, off, "@sortByAssociatedKeys", cel_p_ident(p, off, var), call_args, 1);
    return cel_p_comprehension(p, off, cel_p_list(p, off, NULL, 0), CEL_UNUSED_ITER_VAR, NULL, var, target,
                               cel_p_bool(p, off, false), cel_p_ident(p, off, var), sorted);
}

cel_node *cel_expand_macro(cel_parser *p, size_t off, const char *fn, cel_node *target, cel_node **args, size_t n)
{
    unsigned m = p->macros;
    bool std = m & CEL_MACROS_STANDARD, two = m & CEL_MACROS_TWO_VAR;
    if (!target) {
        if (std && n == 1 && !strcmp(fn, "has"))
            return make_has(p, off, args);
        return NULL;
    }
    if ((m & CEL_MACROS_MATH) && (!strcmp(fn, "greatest") || !strcmp(fn, "least"))) {
        const char *ns = ident_name(target);
        if (ns && !strcmp(ns, "math"))
            return make_min_max(p, off, fn[0] == 'g', target, args, n);
    }
    if (n == 2 && std) {
        if (!strcmp(fn, "all"))
            return make_quantifier(p, off, Q_ALL, target, args);
        if (!strcmp(fn, "exists"))
            return make_quantifier(p, off, Q_EXISTS, target, args);
        if (!strcmp(fn, "exists_one") || !strcmp(fn, "existsOne"))
            return make_quantifier(p, off, Q_EXISTS_ONE, target, args);
        if (!strcmp(fn, "map"))
            return make_map_filter(p, off, false, target, args, n);
        if (!strcmp(fn, "filter"))
            return make_map_filter(p, off, true, target, args, n);
    }
    if (n == 2 && (m & CEL_MACROS_SORT_BY) && !strcmp(fn, "sortBy"))
        return make_sort_by(p, off, target, args);
    if (n == 3 && std && !strcmp(fn, "map"))
        return make_map_filter(p, off, false, target, args, n);
    if (n == 3 && two) {
        enum quantifier q = !strcmp(fn, "all")         ? Q_ALL
                            : !strcmp(fn, "exists")    ? Q_EXISTS
                            : !strcmp(fn, "existsOne") ? Q_EXISTS_ONE
                                                       : (enum quantifier) - 1;
        if ((int)q >= 0) {
            const char *v1, *v2;
            if (!two_vars(p, args, &v1, &v2))
                return cel_p_node(p, CEL_NODE_CONST, off);
            return quantifier(p, off, q, target, v1, v2, args[2]);
        }
    }
    if ((n == 3 || n == 4) && two) {
        if (!strcmp(fn, "transformList"))
            return make_transform(p, off, T_LIST, target, args, n);
        if (!strcmp(fn, "transformMap"))
            return make_transform(p, off, T_MAP, target, args, n);
        if (!strcmp(fn, "transformMapEntry"))
            return make_transform(p, off, T_MAP_ENTRY, target, args, n);
    }
    if (n == 3 && (m & CEL_MACROS_BINDINGS) && !strcmp(fn, "bind")) {
        const char *ns = ident_name(target);
        if (ns && !strcmp(ns, "cel"))
            return make_bind(p, off, args);
        return NULL;
    }
    if (n == 2 && (m & CEL_MACROS_OPTIONAL)) {
        if (!strcmp(fn, "optMap"))
            return make_opt_map(p, off, false, target, args);
        if (!strcmp(fn, "optFlatMap"))
            return make_opt_map(p, off, true, target, args);
    }
    return NULL;
}
