/* Optional values (cel-go cel/library.go optionalLib, newest version as
 * Kubernetes enables it: dra-corrections E2-4).  `or`, `orValue`, `.?` and
 * `[?]` short-circuit and are evaluated by eval.c; the table declares them
 * for the checker. */
#include "ast.h"
#include "functions.h"

#include <string.h>

static const cel_type t_opt_list_a = {.kind = CEL_T_OPTIONAL, .params = {&cel_t_list_a}, .nparams = 1};
static const cel_type t_opt_map_kv = {.kind = CEL_T_OPTIONAL, .params = {&cel_t_map_kv}, .nparams = 1};
static const cel_type t_opt_v = {.kind = CEL_T_OPTIONAL, .params = {&cel_t_param_v}, .nparams = 1};
static const cel_type t_list_opt_a = {.kind = CEL_T_LIST, .params = {&cel_t_optional_a}, .nparams = 1};

static cel_value opt_of(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    return cel_optional_of_s(cx->scratch, a[0]);
}
static cel_value opt_none(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    return cel_optional_none();
}

static bool is_zero(const cel_value *v)
{
    switch (v->kind) {
    case CEL_NULL: return true;
    case CEL_BOOL: return !v->v.b;
    case CEL_INT: return v->v.i == 0;
    case CEL_UINT: return v->v.u == 0;
    case CEL_DOUBLE: return v->v.d == 0;
    case CEL_STRING:
    case CEL_BYTES: return v->v.s.len == 0;
    case CEL_LIST: return v->v.list->n == 0;
    case CEL_MAP: return v->v.map->n == 0;
    case CEL_TIMESTAMP:
    case CEL_DURATION: return v->v.t.sec == 0 && v->v.t.nsec == 0;
    case CEL_OPTIONAL: return v->v.opt == NULL;
    default: return false;
    }
}
static cel_value opt_of_nonzero(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    return is_zero(&a[0]) ? cel_optional_none() : cel_optional_of_s(cx->scratch, a[0]);
}
static cel_value opt_value(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    return a[0].v.opt ? *a[0].v.opt : cel_error("optional.none() dereference");
}
static cel_value opt_has_value(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    return cel_bool(a[0].v.opt != NULL);
}
static cel_value opt_or(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    return a[0].v.opt ? a[0] : a[1];
}
static cel_value opt_or_value(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    return a[0].v.opt ? *a[0].v.opt : a[1];
}

static cel_value opt_unwrap(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    const cel_list *l = a[0].v.list;
    cel_value *items = cel_scratch_alloc(cx->scratch, (l->n ? l->n : 1) * sizeof *items);
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (cel_list_items(l)[i].kind != CEL_OPTIONAL)
            return cel_no_such_overload();
        if (cel_list_items(l)[i].v.opt)
            items[k++] = *cel_list_items(l)[i].v.opt;
    }
    cel_list *r = cel_scratch_zalloc(cx->scratch, sizeof *r);
    r->n = k;
    r->items_ = items;
    return cel_listval(r);
}
static cel_value list_first(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    const cel_list *l = a[0].v.list;
    return l->n ? cel_optional_of_s(cx->scratch, cel_list_items(l)[0]) : cel_optional_none();
}
static cel_value list_last(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    const cel_list *l = a[0].v.list;
    return l->n ? cel_optional_of_s(cx->scratch, cel_list_items(l)[l->n - 1]) : cel_optional_none();
}

/* clang-format off */
#define O(id, fn, mem, res, impl, n, ...) {id, fn, mem, n, {__VA_ARGS__}, res, impl, CEL_COST_ONE, 0, NULL, CEL_LIB_OPTIONAL, false}
const cel_overload cel_lib_optional[] = {
    O("optional_of", "optional.of", false, &cel_t_optional_a, opt_of, 1, &cel_t_param_a),
    O("optional_ofNonZeroValue", "optional.ofNonZeroValue", false, &cel_t_optional_a, opt_of_nonzero, 1, &cel_t_param_a),
    O("optional_none", "optional.none", false, &cel_t_optional_a, opt_none, 0, NULL),
    O("optional_value", "value", true, &cel_t_param_a, opt_value, 1, &cel_t_optional_a),
    O("optional_hasValue", "hasValue", true, &cel_t_bool, opt_has_value, 1, &cel_t_optional_a),
    O("optional_or_optional", "or", true, &cel_t_optional_a, opt_or, 2, &cel_t_optional_a, &cel_t_optional_a),
    O("optional_orValue_value", "orValue", true, &cel_t_param_a, opt_or_value, 2, &cel_t_optional_a, &cel_t_param_a),
    O("optional_unwrap_list", "optional.unwrap", false, &cel_t_list_a, opt_unwrap, 1, &t_list_opt_a),
    O("optional_unwrapOpt_list", "unwrapOpt", true, &cel_t_list_a, opt_unwrap, 1, &t_list_opt_a),
    O("list_first", "first", true, &cel_t_optional_a, list_first, 1, &cel_t_list_a),
    O("list_last", "last", true, &cel_t_optional_a, list_last, 1, &cel_t_list_a),
    /* evaluated by eval.c; declared for the checker */
    O("select_optional_field", CEL_OP_OPT_SELECT, false, &cel_t_optional_dyn, NULL, 2, &cel_t_dyn, &cel_t_string),
    O("list_optindex_optional_int", CEL_OP_OPT_INDEX, false, &cel_t_optional_a, NULL, 2, &cel_t_list_a, &cel_t_int),
    O("optional_list_optindex_optional_int", CEL_OP_OPT_INDEX, false, &cel_t_optional_a, NULL, 2, &t_opt_list_a, &cel_t_int),
    O("map_optindex_optional_value", CEL_OP_OPT_INDEX, false, &t_opt_v, NULL, 2, &cel_t_map_kv, &cel_t_param_k),
    O("optional_map_optindex_optional_value", CEL_OP_OPT_INDEX, false, &t_opt_v, NULL, 2, &t_opt_map_kv, &cel_t_param_k),
    O("optional_list_index_int", CEL_OP_INDEX, false, &cel_t_optional_a, NULL, 2, &t_opt_list_a, &cel_t_int),
    O("optional_map_index_value", CEL_OP_INDEX, false, &t_opt_v, NULL, 2, &t_opt_map_kv, &cel_t_param_k),
};
/* clang-format on */
const size_t cel_lib_optional_n = sizeof cel_lib_optional / sizeof cel_lib_optional[0];
