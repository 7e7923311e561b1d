/* List libraries:
 *  - ext.Lists version 3 (cel-go ext/lists.go): slice, flatten, distinct,
 *    lists.range, reverse, sort, sortBy (the macro expands to
 *    @sortByAssociatedKeys);
 *  - the Kubernetes lists library (apiserver pkg/cel/library/lists.go):
 *    isSorted, sum, min, max, indexOf, lastIndexOf, and (1.37+) includes. */
#include "functions.h"
#include "../model/validate.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#define F(name) static cel_value name(cel_call_ctx *cx, const cel_value *a, size_t n)

static cel_value make_list(cel_call_ctx *cx, cel_value *items, size_t cnt)
{
    if (cnt == 0)
        return cel_listval(&cel_empty_list);
    cel_list *l = cel_scratch_zalloc(cx->scratch, sizeof *l);
    l->n = cnt;
    l->items_ = items;
    return cel_listval(l);
}

F(slice)
{
    const cel_list *l = a[0].v.list;
    int64_t s = a[1].v.i, e = a[2].v.i;
    if (s < 0 || e < 0)
        return cel_errorf_s(cx->scratch, "cannot slice(%" PRId64 ", %" PRId64 "), negative indexes not supported", s,
                            e);
    if (s > e)
        return cel_errorf_s(
            cx->scratch, "cannot slice(%" PRId64 ", %" PRId64 "), start index must be less than or equal to end index",
            s, e);
    if ((uint64_t)e > l->n)
        return cel_errorf_s(cx->scratch, "cannot slice(%" PRId64 ", %" PRId64 "), list is length %zu", s, e, l->n);
    return make_list(cx, (cel_value *)cel_list_items(l) + s, (size_t)(e - s));
}

static size_t flatten_count(const cel_list *l, int64_t depth)
{
    size_t c = 0;
    for (size_t i = 0; i < l->n; i++)
        c += (depth > 0 && cel_list_items(l)[i].kind == CEL_LIST)
                 ? flatten_count(cel_list_items(l)[i].v.list, depth - 1)
                 : 1;
    return c;
}
static size_t flatten_fill(const cel_list *l, int64_t depth, cel_value *out)
{
    size_t c = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (depth > 0 && cel_list_items(l)[i].kind == CEL_LIST)
            c += flatten_fill(cel_list_items(l)[i].v.list, depth - 1, out + c);
        else
            out[c++] = cel_list_items(l)[i];
    }
    return c;
}
static cel_value flatten_depth(cel_call_ctx *cx, const cel_list *l, int64_t depth)
{
    if (depth < 0)
        return cel_error("level must be non-negative");
    if (depth > 64)
        depth = 64; /* deeper nesting cannot exist: the parser limits recursion */
    size_t cnt = flatten_count(l, depth);
    cel_value *items = cel_scratch_alloc(cx->scratch, (cnt ? cnt : 1) * sizeof *items);
    flatten_fill(l, depth, items);
    return make_list(cx, items, cnt);
}
F(flatten1)
{
    return flatten_depth(cx, a[0].v.list, 1);
}
F(flatten2)
{
    return flatten_depth(cx, a[0].v.list, a[1].v.i);
}

F(distinct)
{
    const cel_list *l = a[0].v.list;
    cel_value *items = cel_scratch_alloc(cx->scratch, (l->n ? l->n : 1) * sizeof *items);
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++) /* ext/lists.go distinctList: val.Equal(other) */
            seen = cel_value_equal_op(&cel_list_items(l)[i], &items[j]) == 1;
        if (!seen)
            items[k++] = cel_list_items(l)[i];
    }
    return make_list(cx, items, k);
}

F(range)
{
    /* ext/lists.go genRange, with the default maxRangeSize of 1,000,000 */
    int64_t cnt = a[0].v.i;
    if (cnt < 0)
        return cel_errorf_s(cx->scratch, "lists.range: size must be non-negative, got %" PRId64, cnt);
    if (cnt > 1000000)
        return cel_errorf_s(cx->scratch, "lists.range: size %" PRId64 " exceeds maximum allowed (1000000)", cnt);
    if (cnt == 0)
        return cel_listval(&cel_empty_list);
    cel_value *items = cel_scratch_alloc(cx->scratch, (size_t)cnt * sizeof *items);
    for (int64_t i = 0; i < cnt; i++)
        items[i] = cel_int(i);
    return make_list(cx, items, (size_t)cnt);
}

F(reverse)
{
    const cel_list *l = a[0].v.list;
    cel_value *items = cel_scratch_alloc(cx->scratch, (l->n ? l->n : 1) * sizeof *items);
    for (size_t i = 0; i < l->n; i++)
        items[i] = cel_list_items(l)[l->n - 1 - i];
    return make_list(cx, items, l->n);
}

/* Stable merge sort of `idx` by keys[idx]; false when two keys do not compare. */
static bool merge_sort(size_t *idx, size_t *tmp, size_t cnt, const cel_value *keys)
{
    if (cnt < 2)
        return true;
    size_t h = cnt / 2;
    if (!merge_sort(idx, tmp, h, keys) || !merge_sort(idx + h, tmp, cnt - h, keys))
        return false;
    size_t i = 0, j = h, k = 0;
    while (i < h && j < cnt) {
        int c;
        if (!cel_value_compare(&keys[idx[j]], &keys[idx[i]], &c))
            return false;
        tmp[k++] = c < 0 ? idx[j++] : idx[i++];
    }
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < cnt)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, cnt * sizeof *idx);
    return true;
}

/* cel-go ext/lists.go sortListByAssociatedKeys: keys of one type, the
 * first a traits.Comparer (a number, bool, string, bytes, duration or
 * timestamp). */
static cel_value sort_by_keys(cel_call_ctx *cx, const cel_list *l, const cel_list *keys)
{
    if (keys->n != l->n)
        return cel_errorf_s(cx->scratch,
                            "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, "
                            "but got %zu and %zu elements respectively",
                            l->n, keys->n);
    if (l->n == 0)
        return cel_listval(l);
    const cel_value *k = cel_list_items(keys);
    switch (k[0].kind) {
    case CEL_INT:
    case CEL_UINT:
    case CEL_DOUBLE:
    case CEL_BOOL:
    case CEL_STRING:
    case CEL_BYTES:
    case CEL_DURATION:
    case CEL_TIMESTAMP: break;
    default: return cel_error("list elements must be comparable");
    }
    for (size_t i = 1; i < keys->n; i++)
        if (k[i].kind != k[0].kind)
            return cel_error("list elements must have the same type");
    size_t *idx = cel_scratch_alloc(cx->scratch, (l->n ? l->n : 1) * sizeof *idx);
    size_t *tmp = cel_scratch_alloc(cx->scratch, (l->n ? l->n : 1) * sizeof *tmp);
    for (size_t i = 0; i < l->n; i++)
        idx[i] = i;
    if (!merge_sort(idx, tmp, l->n, cel_list_items(keys)))
        return cel_no_such_overload();
    cel_value *items = cel_scratch_alloc(cx->scratch, (l->n ? l->n : 1) * sizeof *items);
    for (size_t i = 0; i < l->n; i++)
        items[i] = cel_list_items(l)[idx[i]];
    return make_list(cx, items, l->n);
}
F(sort)
{
    return sort_by_keys(cx, a[0].v.list, a[0].v.list);
}
F(sort_by_assoc)
{
    return sort_by_keys(cx, a[0].v.list, a[1].v.list);
}

/* library/lists.go includes: item.Equal(arg) == True */
static bool list_has(const cel_list *l, const cel_value *v)
{
    for (size_t i = 0; i < l->n; i++)
        if (cel_value_equal_op(&cel_list_items(l)[i], v) == 1)
            return true;
    return false;
}
/* ---- Kubernetes lists ---- */
F(k_is_sorted)
{
    const cel_list *l = a[0].v.list;
    for (size_t i = 1; i < l->n; i++) {
        int c;
        if (!cel_value_compare(&cel_list_items(l)[i - 1], &cel_list_items(l)[i], &c))
            return cel_no_such_overload();
        if (c > 0)
            return cel_bool(false);
    }
    return cel_bool(true);
}

/* The sum of a list from the zero of the overload's element type
 * (apiserver v0.37.2 pkg/cel/library/lists.go zeroValuesOfSummableTypes):
 * sum() adds every element to that zero, the first too, so [-0.0].sum()
 * is 0.0 (upstream-cel 1.36 to 1.38). */
static cel_value sum_from(cel_call_ctx *cx, const cel_list *l, cel_value zero)
{
    cel_value acc = zero;
    for (size_t i = 0; i < l->n; i++) {
        acc = cel_k8s_add(cx, &acc, &cel_list_items(l)[i]);
        if (acc.kind == CEL_ERROR)
            return acc;
    }
    return acc;
}

static cel_value extreme(cel_call_ctx *cx, const cel_list *l, int want)
{
    if (l->n == 0)
        return cel_error(want < 0 ? "min called on empty list" : "max called on empty list");
    /* apiserver v0.37.2 pkg/cel/library/lists.go cmp: every element must be
     * a traits.Comparer; a comparison that fails (NaN, another type) keeps
     * the best so far */
    const cel_value *items = cel_list_items(l);
    cel_value best = items[0];
    for (size_t i = 0; i < l->n; i++) {
        switch (items[i].kind) {
        case CEL_INT:
        case CEL_UINT:
        case CEL_DOUBLE:
        case CEL_BOOL:
        case CEL_STRING:
        case CEL_BYTES:
        case CEL_DURATION:
        case CEL_TIMESTAMP: break;
        default: return cel_no_such_overload();
        }
        int c;
        if (i > 0 && cel_value_compare(&items[i], &best, &c) && c * want > 0 &&
            !(items[i].kind == CEL_DOUBLE && isnan(items[i].v.d)) && !(best.kind == CEL_DOUBLE && isnan(best.v.d)))
            best = items[i];
    }
    return best;
}
F(k_sum_int)
{
    return sum_from(cx, a[0].v.list, cel_int(0));
}
F(k_sum_uint)
{
    return sum_from(cx, a[0].v.list, cel_uint(0));
}
F(k_sum_double)
{
    return sum_from(cx, a[0].v.list, cel_double(0));
}
F(k_sum_duration)
{
    return sum_from(cx, a[0].v.list, cel_duration(0, 0));
}
F(k_min)
{
    return extreme(cx, a[0].v.list, -1);
}
F(k_max)
{
    return extreme(cx, a[0].v.list, 1);
}
F(k_index_of)
{
    const cel_list *l = a[0].v.list;
    for (size_t i = 0; i < l->n; i++)
        if (cel_value_equal_op(&cel_list_items(l)[i], &a[1]) == 1) /* lists.go indexOf */
            return cel_int((int64_t)i);
    return cel_int(-1);
}
F(k_last_index_of)
{
    const cel_list *l = a[0].v.list;
    for (size_t i = l->n; i-- > 0;)
        if (cel_value_equal_op(&cel_list_items(l)[i], &a[1]) == 1) /* lists.go indexOf */
            return cel_int((int64_t)i);
    return cel_int(-1);
}
F(k_includes)
{
    if (a[0].kind == CEL_LIST)
        return cel_bool(list_has(a[0].v.list, &a[1]));
    return cel_bool(cel_value_equal_op(&a[0], &a[1]) == 1);
}
/* 1.36's own includes (k8s.io/dynamic-resource-allocation v0.36.3
 * cel/compile.go includesFunc): a list is searched through its first
 * ResourceSliceMaxAttributeValuesPerDevice items only, a longer one fails
 * when the search reaches past them. */
F(dra_includes)
{
    if (a[0].kind != CEL_LIST)
        return cel_bool(cel_value_equal(&a[0], &a[1]));
    const cel_list *l = a[0].v.list;
    for (size_t i = 0; i < l->n; i++) {
        if (i >= DRA_RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES)
            return cel_errorf_s(cx->scratch, "'includes' function cannot be applied to lists longer than %d values",
                                DRA_RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES);
        if (cel_value_equal(&cel_list_items(l)[i], &a[1]))
            return cel_bool(true);
    }
    return cel_bool(false);
}

/* Kubernetes library/cost.go charges list traversals by the list size. */
static uint64_t cost_traverse_list(const cel_value *args, size_t n, const cel_value *result)
{
    return n > 0 ? cel_cost_size(&args[0]) : 1;
}

/* The cost trackers of cel-go's ext.Lists version 3 (ext/lists.go,
 * trackAllocatingListCall and its callers): a factor times a size, plus 1
 * for the call and 10 for the list made.  cel-go consults them before any
 * other estimator, Kubernetes' included. */
static uint64_t allocating_list(double factor, uint64_t size)
{
    return (uint64_t)((double)size * factor) + 1 + 10;
}

/* slice, range, reverse: the size of the result, 1 when it is an error
 * (ext/costs.go actualSize: a value without a size counts 1). */
static uint64_t cost_output_size(const cel_value *args, size_t n, const cel_value *result)
{
    return allocating_list(1, result->kind == CEL_LIST ? result->v.list->n : 1);
}

/* flatten(depth): the depth times the size of the input. */
static uint64_t cost_flatten(const cel_value *args, size_t n, const cel_value *result)
{
    double depth = n > 1 && args[1].kind == CEL_INT ? (double)args[1].v.i : 1.0;
    return allocating_list(depth < 0 ? 1.0 : depth, cel_cost_size(&args[0]));
}

/* distinct, sort: every item against every other (trackListSelfCompare),
 * a little more for strings and bytes. */
static uint64_t self_compare(const cel_value *list)
{
    uint64_t n = list->kind == CEL_LIST ? list->v.list->n : 0;
    if (n == 0)
        return allocating_list(2.0, 0);
    cel_kind k = cel_list_items(list->v.list)[0].kind;
    return allocating_list(k == CEL_STRING || k == CEL_BYTES ? 2.1 : 2.0, n * n);
}
static uint64_t cost_self_compare(const cel_value *args, size_t n, const cel_value *result)
{
    return self_compare(&args[0]);
}
/* @sortByAssociatedKeys: over the keys. */
static uint64_t cost_sort_keys(const cel_value *args, size_t n, const cel_value *result)
{
    return self_compare(&args[1]);
}

#define T_LA (&cel_t_list_a)
#define T_I (&cel_t_int)
/* clang-format off */
#define L(id, fn, mem, res, impl, lib, n, ...) {id, fn, mem, n, {__VA_ARGS__}, res, impl, CEL_COST_CUSTOM, 1, cost_traverse_list, lib, false}
#define X(id, fn, mem, res, impl, cost, n, ...) {id, fn, mem, n, {__VA_ARGS__}, res, impl, CEL_COST_CUSTOM, 1, cost, CEL_LIB_LISTS, false}
/* clang-format on */
/* sort and @sortByAssociatedKeys: one overload per comparable element type
 * (cel-go ext/lists.go comparableTypes, "list_int_sort", ...), all bound
 * once to a list (SingletonUnaryBinding, SingletonBinaryBinding). */
static const cel_type list_bool = {.kind = CEL_T_LIST, .params = {&cel_t_bool}, .nparams = 1};
static const cel_type list_bytes = {.kind = CEL_T_LIST, .params = {&cel_t_bytes}, .nparams = 1};
static const cel_type list_duration = {.kind = CEL_T_LIST, .params = {&cel_t_duration}, .nparams = 1};
static const cel_type list_timestamp = {.kind = CEL_T_LIST, .params = {&cel_t_timestamp}, .nparams = 1};
/* clang-format off */
#define SORT(t, lt)                                                                                 \
    X("list_" t "_sort", "sort", true, lt, sort, cost_self_compare, 1, lt),                        \
    X("list_" t "_sortByAssociatedKeys", "@sortByAssociatedKeys", true, T_LA, sort_by_assoc, cost_sort_keys, 2, \
      T_LA, lt)
/* The Kubernetes lists library (apiserver v0.37.2 pkg/cel/library/lists.go
 * templatedOverloads over comparableTypes and summableTypes). */
#define K8S_CMP(t, et, lt)                                                                     \
    L("list_" t "_is_sorted_bool", "isSorted", true, &cel_t_bool, k_is_sorted, CEL_LIB_K8S_LISTS, 1, lt), \
    L("list_" t "_min_" t, "min", true, et, k_min, CEL_LIB_K8S_LISTS, 1, lt),                   \
    L("list_" t "_max_" t, "max", true, et, k_max, CEL_LIB_K8S_LISTS, 1, lt)
#define K8S_SUM(t, et, lt, impl) L("list_" t "_sum_" t, "sum", true, et, impl, CEL_LIB_K8S_LISTS, 1, lt)
const cel_overload cel_lib_lists[] = {
    X("list_slice", "slice", true, T_LA, slice, cost_output_size, 3, T_LA, T_I, T_I),
    X("list_flatten", "flatten", true, T_LA, flatten1, cost_flatten, 1, &cel_t_list_list_a),
    X("list_flatten_int", "flatten", true, &cel_t_list_dyn, flatten2, cost_flatten, 2, &cel_t_list_dyn, T_I),
    X("list_distinct", "distinct", true, T_LA, distinct, cost_self_compare, 1, T_LA),
    X("lists_range", "lists.range", false, &cel_t_list_int, range, cost_output_size, 1, T_I),
    X("list_reverse", "reverse", true, T_LA, reverse, cost_output_size, 1, T_LA),
    SORT("int", &cel_t_list_int), SORT("uint", &cel_t_list_uint), SORT("double", &cel_t_list_double),
    SORT("bool", &list_bool), SORT("google.protobuf.Duration", &list_duration),
    SORT("google.protobuf.Timestamp", &list_timestamp), SORT("string", &cel_t_list_string), SORT("bytes", &list_bytes),
    /* isSorted, min and max per comparable type, sum per summable type, in
     * upstream's order: the first that fits a list(_var) binds it */
    K8S_CMP("int", &cel_t_int, &cel_t_list_int), K8S_CMP("uint", &cel_t_uint, &cel_t_list_uint),
    K8S_CMP("double", &cel_t_double, &cel_t_list_double), K8S_CMP("bool", &cel_t_bool, &list_bool),
    K8S_CMP("duration", &cel_t_duration, &list_duration), K8S_CMP("timestamp", &cel_t_timestamp, &list_timestamp),
    K8S_CMP("string", &cel_t_string, &cel_t_list_string), K8S_CMP("bytes", &cel_t_bytes, &list_bytes),
    K8S_SUM("int", &cel_t_int, &cel_t_list_int, k_sum_int), K8S_SUM("uint", &cel_t_uint, &cel_t_list_uint, k_sum_uint),
    K8S_SUM("double", &cel_t_double, &cel_t_list_double, k_sum_double),
    K8S_SUM("duration", &cel_t_duration, &list_duration, k_sum_duration),
    L("list_index_of", "indexOf", true, T_I, k_index_of, CEL_LIB_K8S_LISTS, 2, T_LA, &cel_t_param_a),
    L("list_last_index_of", "lastIndexOf", true, T_I, k_last_index_of, CEL_LIB_K8S_LISTS, 2, T_LA, &cel_t_param_a),
    L("list_includes_dyn_dyn", "includes", true, &cel_t_bool, k_includes, CEL_LIB_K8S_INCLUDES, 2, &cel_t_dyn, &cel_t_dyn),
    {"dra_includes_dyn_dyn", "includes", true, 2, {&cel_t_dyn, &cel_t_dyn}, &cel_t_bool, dra_includes, CEL_COST_ONE, 1, NULL, CEL_LIB_DRA_INCLUDES, false},
};
/* clang-format on */
const size_t cel_lib_lists_n = sizeof cel_lib_lists / sizeof cel_lib_lists[0];
