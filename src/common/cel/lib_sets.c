/* ext.Sets (cel-go ext/sets.go): sets.contains, sets.equivalent and
 * sets.intersects over lists, with CEL equality (1 == 1u == 1.0). */
#include "functions.h"

/* list.go Contains: v.Equal(item) == True (v the receiver, which matters
 * for a Quantity made by add() or sub(): cel_value_equal_op) */
static bool list_has(const cel_list *l, const cel_value *v)
{
    for (size_t i = 0; i < l->n; i++)
        if (cel_value_equal_op(v, &cel_list_items(l)[i]) == 1)
            return true;
    return false;
}

static bool contains_all(const cel_list *a, const cel_list *b)
{
    for (size_t i = 0; i < b->n; i++)
        if (!list_has(a, &cel_list_items(b)[i]))
            return false;
    return true;
}

static cel_value sets_contains(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    return cel_bool(contains_all(a[0].v.list, a[1].v.list));
}

static cel_value sets_equivalent(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    return cel_bool(contains_all(a[0].v.list, a[1].v.list) && contains_all(a[1].v.list, a[0].v.list));
}

/* setsIntersects: B.Contains(a) for each a of A */
static cel_value sets_intersects(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    for (size_t i = 0; i < a[0].v.list->n; i++)
        if (list_has(a[1].v.list, &cel_list_items(a[0].v.list)[i]))
            return cel_bool(true);
    return cel_bool(false);
}

/* cel-go ext/sets.go trackSetsCost: 1 for the call and the product of the
 * list sizes, twice it for equivalent (each list against the other). */
static uint64_t cost_product(const cel_value *a, size_t n, const cel_value *r)
{
    return 1 + cel_cost_size(&a[0]) * cel_cost_size(&a[1]);
}
static uint64_t cost_product2(const cel_value *a, size_t n, const cel_value *r)
{
    return 1 + (uint64_t)((double)(cel_cost_size(&a[0]) * cel_cost_size(&a[1])) * 2.0);
}

#define LA (&cel_t_list_a)
/* clang-format off */
const cel_overload cel_lib_sets[] = {
    {"list_sets_contains_list", "sets.contains", false, 2, {LA, LA}, &cel_t_bool, sets_contains, CEL_COST_CUSTOM, 1, cost_product, CEL_LIB_SETS, false},
    {"list_sets_equivalent_list", "sets.equivalent", false, 2, {LA, LA}, &cel_t_bool, sets_equivalent, CEL_COST_CUSTOM, 2, cost_product2, CEL_LIB_SETS, false},
    {"list_sets_intersects_list", "sets.intersects", false, 2, {LA, LA}, &cel_t_bool, sets_intersects, CEL_COST_CUSTOM, 1, cost_product, CEL_LIB_SETS, false},
};
/* clang-format on */
const size_t cel_lib_sets_n = sizeof cel_lib_sets / sizeof cel_lib_sets[0];
