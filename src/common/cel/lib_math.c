/* ext.Math: not part of the Kubernetes environment (dra-corrections E2-1);
 * only the lib bit exists so generic environments can ask for it.  The table
 * is intentionally small: greatest/least over numbers. */
#include "functions.h"

#include <math.h>

static cel_value pick(const cel_value *a, size_t n, int want)
{
    const cel_value *list = a;
    size_t cnt = n;
    if (n == 1 && a[0].kind == CEL_LIST) {
        list = a[0].v.list->items;
        cnt = a[0].v.list->n;
        if (cnt == 0)
            return cel_error(want > 0 ? "math.@max(list) argument must not be empty" : "math.@min(list) argument must not be empty");
    }
    cel_value best = list[0];
    for (size_t i = 0; i < cnt; i++) {
        const cel_value *v = &list[i];
        if (v->kind != CEL_INT && v->kind != CEL_UINT && v->kind != CEL_DOUBLE)
            return cel_no_such_overload();
        int c;
        if (v->kind == CEL_DOUBLE && isnan(v->v.d))
            return *v;
        if (cel_value_compare(v, &best, &c) && c * want > 0)
            best = *v;
    }
    return best;
}
static cel_value greatest(cel_call_ctx *cx, const cel_value *a, size_t n) { return pick(a, n, 1); }
static cel_value least(cel_call_ctx *cx, const cel_value *a, size_t n) { return pick(a, n, -1); }

#define MG(id, fn, impl, n, ...) {id, fn, false, n, {__VA_ARGS__}, &cel_t_dyn, impl, CEL_COST_ONE, 0, NULL, CEL_LIB_MATH, false}
const cel_overload cel_lib_math[] = {
    MG("math_@max_list", "math.greatest", greatest, 1, &cel_t_list_a),
    MG("math_@max_1", "math.greatest", greatest, 1, &cel_t_dyn),
    MG("math_@max_2", "math.greatest", greatest, 2, &cel_t_dyn, &cel_t_dyn),
    MG("math_@max_3", "math.greatest", greatest, 3, &cel_t_dyn, &cel_t_dyn, &cel_t_dyn),
    MG("math_@min_list", "math.least", least, 1, &cel_t_list_a),
    MG("math_@min_1", "math.least", least, 1, &cel_t_dyn),
    MG("math_@min_2", "math.least", least, 2, &cel_t_dyn, &cel_t_dyn),
    MG("math_@min_3", "math.least", least, 3, &cel_t_dyn, &cel_t_dyn, &cel_t_dyn),
};
const size_t cel_lib_math_n = sizeof cel_lib_math / sizeof cel_lib_math[0];
