/* ext.Math (cel-go ext/math.go, all versions): math.@max / math.@min (what
 * the math.greatest / math.least macros of macros.c expand to), rounding,
 * floating-point predicates, abs/sign, bitwise operations and sqrt.
 * Not part of the Kubernetes environment (dra-corrections E2-1): only
 * generic environments that ask for CEL_LIB_MATH get it. */
#include "functions.h"

#include <math.h>

#define F(name) static cel_value name(cel_call_ctx *cx, const cel_value *a, size_t n)

static bool is_number(const cel_value *v)
{
    return v->kind == CEL_INT || v->kind == CEL_UINT || v->kind == CEL_DOUBLE;
}

/* cel-go maxPair/minPair: the first wins ties; ordering a NaN is an error. */
static cel_value pick_pair(cel_value first, cel_value second, bool greatest)
{
    if (!is_number(&first) || !is_number(&second))
        return cel_no_such_overload();
    int c;
    if (!cel_value_compare(&first, &second, &c))
        return cel_error(greatest ? "NaN values cannot be ordered: math.@max"
                                  : "NaN values cannot be ordered: math.@min");
    if (greatest ? c < 0 : c > 0)
        return second;
    return first;
}

static cel_value pick_list(const cel_list *l, bool greatest)
{
    if (l->n == 0)
        return cel_error(greatest ? "math.@max(list) argument must not be empty"
                                  : "math.@min(list) argument must not be empty");
    cel_value best = cel_list_items(l)[0];
    for (size_t i = 1; i < l->n; i++) {
        best = pick_pair(best, cel_list_items(l)[i], greatest);
        if (best.kind == CEL_ERROR)
            return best;
    }
    if (!is_number(&best))
        return cel_error(greatest ? "no such overload: math.@max" : "no such overload: math.@min");
    return best;
}

F(identity)
{
    return a[0];
}
F(max_pair)
{
    return pick_pair(a[0], a[1], true);
}
F(min_pair)
{
    return pick_pair(a[0], a[1], false);
}
F(max_list)
{
    return pick_list(a[0].v.list, true);
}
F(min_list)
{
    return pick_list(a[0].v.list, false);
}

F(m_ceil)
{
    return cel_double(ceil(a[0].v.d));
}
F(m_floor)
{
    return cel_double(floor(a[0].v.d));
}
F(m_round)
{
    return cel_double(round(a[0].v.d));
} /* half away from zero, as Go's math.Round */
F(m_trunc)
{
    return cel_double(trunc(a[0].v.d));
}
F(m_is_inf)
{
    return cel_bool(isinf(a[0].v.d));
}
F(m_is_nan)
{
    return cel_bool(isnan(a[0].v.d));
}
F(m_is_finite)
{
    return cel_bool(isfinite(a[0].v.d));
}
F(m_sqrt)
{
    double d = a[0].kind == CEL_INT ? (double)a[0].v.i : a[0].kind == CEL_UINT ? (double)a[0].v.u : a[0].v.d;
    return cel_double(sqrt(d));
}

F(abs_int)
{
    if (a[0].v.i == INT64_MIN)
        return cel_int_overflow();
    return cel_int(a[0].v.i < 0 ? -a[0].v.i : a[0].v.i);
}
F(abs_double)
{
    return cel_double(fabs(a[0].v.d));
}
F(sign_int)
{
    return cel_int(a[0].v.i > 0 ? 1 : a[0].v.i < 0 ? -1 : 0);
}
F(sign_uint)
{
    return cel_uint(a[0].v.u ? 1 : 0);
}
F(sign_double)
{
    double d = a[0].v.d;
    if (isnan(d))
        return a[0];
    return cel_double(d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0);
}

F(and_int)
{
    return cel_int(a[0].v.i & a[1].v.i);
}
F(and_uint)
{
    return cel_uint(a[0].v.u & a[1].v.u);
}
F(or_int)
{
    return cel_int(a[0].v.i | a[1].v.i);
}
F(or_uint)
{
    return cel_uint(a[0].v.u | a[1].v.u);
}
F(xor_int)
{
    return cel_int(a[0].v.i ^ a[1].v.i);
}
F(xor_uint)
{
    return cel_uint(a[0].v.u ^ a[1].v.u);
}
F(not_int)
{
    return cel_int(~a[0].v.i);
}
F(not_uint)
{
    return cel_uint(~a[0].v.u);
}

/* Shifts by 64 or more give 0 (Go semantics); right shifts of ints are
 * logical, as the conformance data expects (-1024 >> 3 = 2305843009213693824). */
static cel_value shift(cel_call_ctx *cx, const cel_value *a, bool left)
{
    int64_t bits = a[1].v.i;
    if (bits < 0)
        return cel_errorf_s(cx->scratch, "math.%s() negative offset: %lld", left ? "bitShiftLeft" : "bitShiftRight",
                            (long long)bits);
    uint64_t v = a[0].kind == CEL_INT ? (uint64_t)a[0].v.i : a[0].v.u;
    uint64_t r = bits >= 64 ? 0 : left ? v << bits : v >> bits;
    return a[0].kind == CEL_INT ? cel_int((int64_t)r) : cel_uint(r);
}
F(shift_left)
{
    return shift(cx, a, true);
}
F(shift_right)
{
    return shift(cx, a, false);
}

#define T_I (&cel_t_int)
#define T_U (&cel_t_uint)
#define T_D (&cel_t_double)
#define T_B (&cel_t_bool)
#define T_DYN (&cel_t_dyn)
/* clang-format off */
#define MG(id, fn, res, impl, n, ...) {id, fn, false, n, {__VA_ARGS__}, res, impl, CEL_COST_ONE, 0, NULL, CEL_LIB_MATH, false}

/* Both math.@max and math.@min share the pair/list layout of cel-go. */
#define MINMAX(fn, tag, pair, list)                                                              \
    MG("math_" tag "_double", fn, T_D, identity, 1, T_D),                                        \
    MG("math_" tag "_int", fn, T_I, identity, 1, T_I),                                           \
    MG("math_" tag "_uint", fn, T_U, identity, 1, T_U),                                          \
    MG("math_" tag "_double_double", fn, T_D, pair, 2, T_D, T_D),                                \
    MG("math_" tag "_int_int", fn, T_I, pair, 2, T_I, T_I),                                      \
    MG("math_" tag "_uint_uint", fn, T_U, pair, 2, T_U, T_U),                                    \
    MG("math_" tag "_int_uint", fn, T_DYN, pair, 2, T_I, T_U),                                   \
    MG("math_" tag "_int_double", fn, T_DYN, pair, 2, T_I, T_D),                                 \
    MG("math_" tag "_double_int", fn, T_DYN, pair, 2, T_D, T_I),                                 \
    MG("math_" tag "_double_uint", fn, T_DYN, pair, 2, T_D, T_U),                                \
    MG("math_" tag "_uint_int", fn, T_DYN, pair, 2, T_U, T_I),                                   \
    MG("math_" tag "_uint_double", fn, T_DYN, pair, 2, T_U, T_D),                                \
    MG("math_" tag "_list_double", fn, T_D, list, 1, &cel_t_list_double),                        \
    MG("math_" tag "_list_int", fn, T_I, list, 1, &cel_t_list_int),                              \
    MG("math_" tag "_list_uint", fn, T_U, list, 1, &cel_t_list_uint)
/* clang-format on */

const cel_overload cel_lib_math[] = {
    MINMAX("math.@max", "@max", max_pair, max_list),
    MINMAX("math.@min", "@min", min_pair, min_list),
    MG("math_ceil_double", "math.ceil", T_D, m_ceil, 1, T_D),
    MG("math_floor_double", "math.floor", T_D, m_floor, 1, T_D),
    MG("math_round_double", "math.round", T_D, m_round, 1, T_D),
    MG("math_trunc_double", "math.trunc", T_D, m_trunc, 1, T_D),
    MG("math_isInf_double", "math.isInf", T_B, m_is_inf, 1, T_D),
    MG("math_isNaN_double", "math.isNaN", T_B, m_is_nan, 1, T_D),
    MG("math_isFinite_double", "math.isFinite", T_B, m_is_finite, 1, T_D),
    MG("math_abs_double", "math.abs", T_D, abs_double, 1, T_D),
    MG("math_abs_int", "math.abs", T_I, abs_int, 1, T_I),
    MG("math_abs_uint", "math.abs", T_U, identity, 1, T_U),
    MG("math_sign_double", "math.sign", T_D, sign_double, 1, T_D),
    MG("math_sign_int", "math.sign", T_I, sign_int, 1, T_I),
    MG("math_sign_uint", "math.sign", T_U, sign_uint, 1, T_U),
    MG("math_bitAnd_int_int", "math.bitAnd", T_I, and_int, 2, T_I, T_I),
    MG("math_bitAnd_uint_uint", "math.bitAnd", T_U, and_uint, 2, T_U, T_U),
    MG("math_bitOr_int_int", "math.bitOr", T_I, or_int, 2, T_I, T_I),
    MG("math_bitOr_uint_uint", "math.bitOr", T_U, or_uint, 2, T_U, T_U),
    MG("math_bitXor_int_int", "math.bitXor", T_I, xor_int, 2, T_I, T_I),
    MG("math_bitXor_uint_uint", "math.bitXor", T_U, xor_uint, 2, T_U, T_U),
    MG("math_bitNot_int_int", "math.bitNot", T_I, not_int, 1, T_I),
    MG("math_bitNot_uint_uint", "math.bitNot", T_U, not_uint, 1, T_U),
    MG("math_bitShiftLeft_int_int", "math.bitShiftLeft", T_I, shift_left, 2, T_I, T_I),
    MG("math_bitShiftLeft_uint_int", "math.bitShiftLeft", T_U, shift_left, 2, T_U, T_I),
    MG("math_bitShiftRight_int_int", "math.bitShiftRight", T_I, shift_right, 2, T_I, T_I),
    MG("math_bitShiftRight_uint_int", "math.bitShiftRight", T_U, shift_right, 2, T_U, T_I),
    MG("math_sqrt_double", "math.sqrt", T_D, m_sqrt, 1, T_D),
    MG("math_sqrt_int", "math.sqrt", T_D, m_sqrt, 1, T_I),
    MG("math_sqrt_uint", "math.sqrt", T_D, m_sqrt, 1, T_U),
};
const size_t cel_lib_math_n = sizeof cel_lib_math / sizeof cel_lib_math[0];
