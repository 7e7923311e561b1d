/* The CEL standard library: operators, conversions, size and the basic
 * string functions (cel-go checker/stdlib + common/types semantics).
 * matches lives in lib_regex.c, time functions in lib_time.c. */
#include "ast.h"
#include "../base/utf8.h"
#include "../model/time.h"
#include "functions.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define T_I (&cel_t_int)
#define T_U (&cel_t_uint)
#define T_D (&cel_t_double)
#define T_S (&cel_t_string)
#define T_B (&cel_t_bool)
#define T_BY (&cel_t_bytes)
#define T_TS (&cel_t_timestamp)
#define T_DU (&cel_t_duration)
#define T_DYN (&cel_t_dyn)
#define T_A (&cel_t_param_a)
#define T_K (&cel_t_param_k)
#define T_V (&cel_t_param_v)
#define T_LA (&cel_t_list_a)
#define T_MKV (&cel_t_map_kv)
#define T_NULL (&cel_t_null)

#define F(name) static cel_value name(cel_call_ctx *cx, const cel_value *a, size_t n)

/* ---- arithmetic ------------------------------------------------------------ */

F(add_int)
{
    int64_t r;
    return __builtin_add_overflow(a[0].v.i, a[1].v.i, &r) ? cel_int_overflow() : cel_int(r);
}
F(sub_int)
{
    int64_t r;
    return __builtin_sub_overflow(a[0].v.i, a[1].v.i, &r) ? cel_int_overflow() : cel_int(r);
}
F(mul_int)
{
    int64_t r;
    return __builtin_mul_overflow(a[0].v.i, a[1].v.i, &r) ? cel_int_overflow() : cel_int(r);
}
F(div_int)
{
    if (a[1].v.i == 0)
        return cel_error("division by zero");
    if (a[0].v.i == INT64_MIN && a[1].v.i == -1)
        return cel_int_overflow();
    return cel_int(a[0].v.i / a[1].v.i);
}
F(mod_int)
{
    if (a[1].v.i == 0)
        return cel_error("modulus by zero");
    if (a[0].v.i == INT64_MIN && a[1].v.i == -1)
        return cel_int_overflow();
    return cel_int(a[0].v.i % a[1].v.i);
}
F(neg_int)
{
    return a[0].v.i == INT64_MIN ? cel_int_overflow() : cel_int(-a[0].v.i);
}
F(add_uint)
{
    uint64_t r;
    return __builtin_add_overflow(a[0].v.u, a[1].v.u, &r) ? cel_uint_overflow() : cel_uint(r);
}
F(sub_uint)
{
    uint64_t r;
    return __builtin_sub_overflow(a[0].v.u, a[1].v.u, &r) ? cel_uint_overflow() : cel_uint(r);
}
F(mul_uint)
{
    uint64_t r;
    return __builtin_mul_overflow(a[0].v.u, a[1].v.u, &r) ? cel_uint_overflow() : cel_uint(r);
}
F(div_uint)
{
    return a[1].v.u == 0 ? cel_error("division by zero") : cel_uint(a[0].v.u / a[1].v.u);
}
F(mod_uint)
{
    return a[1].v.u == 0 ? cel_error("modulus by zero") : cel_uint(a[0].v.u % a[1].v.u);
}
F(add_double)
{
    return cel_double(a[0].v.d + a[1].v.d);
}
F(sub_double)
{
    return cel_double(a[0].v.d - a[1].v.d);
}
F(mul_double)
{
    return cel_double(a[0].v.d * a[1].v.d);
}
F(div_double)
{
    return cel_double(a[0].v.d / a[1].v.d);
}
F(neg_double)
{
    return cel_double(-a[0].v.d);
}

F(add_string)
{
    size_t la = a[0].v.s.len, lb = a[1].v.s.len;
    if (la == 0)
        return a[1];
    if (lb == 0)
        return a[0];
    char *p = cel_scratch_alloc(cx->scratch, la + lb + 1);
    memcpy(p, a[0].v.s.ptr, la);
    memcpy(p + la, a[1].v.s.ptr, lb);
    p[la + lb] = 0;
    cel_value r = a[0];
    r.v.s.ptr = p;
    r.v.s.len = la + lb;
    return r;
}

/* common/types/list.go baseList.Add: a concatList view, O(1) */
F(add_list)
{
    return cel_list_concat(cx->scratch, a[0].v.list, a[1].v.list);
}

/* Durations are int64 nanoseconds in cel-go (time.Duration). */
static __int128 dur_ns(const cel_value *v)
{
    return (__int128)v->v.t.sec * 1000000000 + v->v.t.nsec;
}
static cel_value dur_from_ns(__int128 ns)
{
    if (ns > INT64_MAX || ns < INT64_MIN)
        return cel_int_overflow();
    return cel_duration((int64_t)(ns / 1000000000), (int32_t)(ns % 1000000000));
}
/* Timestamps: seconds within [0001-01-01, 9999-12-31]. */
static cel_value ts_from_ns(__int128 sec, __int128 nsec)
{
    sec += nsec / 1000000000;
    nsec %= 1000000000;
    if (nsec < 0) {
        nsec += 1000000000;
        sec -= 1;
    }
    if (sec < CEL_TS_MIN_SEC || sec > CEL_TS_MAX_SEC)
        return cel_error("timestamp overflow");
    return cel_timestamp((int64_t)sec, (int32_t)nsec);
}
F(add_dur_dur)
{
    return dur_from_ns(dur_ns(&a[0]) + dur_ns(&a[1]));
}
F(sub_dur_dur)
{
    return dur_from_ns(dur_ns(&a[0]) - dur_ns(&a[1]));
}
F(add_ts_dur)
{
    return ts_from_ns(a[0].v.t.sec, (__int128)a[0].v.t.nsec + dur_ns(&a[1]));
}
F(add_dur_ts)
{
    return ts_from_ns(a[1].v.t.sec, (__int128)a[1].v.t.nsec + dur_ns(&a[0]));
}
/* cel-go negates the duration first: the most negative one overflows */
F(sub_ts_dur)
{
    if (dur_ns(&a[1]) == INT64_MIN)
        return cel_int_overflow();
    return ts_from_ns(a[0].v.t.sec, (__int128)a[0].v.t.nsec - dur_ns(&a[1]));
}
/* cel-go scales the seconds to nanoseconds before adding the nanoseconds:
 * a difference whose seconds alone overflow is an overflow */
F(sub_ts_ts)
{
    __int128 secs = ((__int128)a[0].v.t.sec - a[1].v.t.sec) * 1000000000;
    if (secs > INT64_MAX || secs < INT64_MIN)
        return cel_int_overflow();
    return dur_from_ns(secs + (a[0].v.t.nsec - a[1].v.t.nsec));
}

/* ---- logic, equality, ordering ---------------------------------------------- */

F(logical_not)
{
    return cel_bool(!a[0].v.b);
}
F(not_strictly_false)
{
    return a[0].kind == CEL_BOOL ? a[0] : cel_bool(true);
}
/* An error a device map holds for an attribute without a usable value
 * (1.38, dra.c convert_attr_apart), as cel/compile.go equalMaps meets it:
 * only from the left operand's side, and only when the sizes agree (the
 * first check).  NULL when none. */
static const cel_value *map_error(const cel_value *x, const cel_value *y)
{
    if (x->kind != CEL_MAP || y->kind != CEL_MAP || x->v.map->n != y->v.map->n)
        return NULL;
    for (size_t i = 0; i < x->v.map->n; i++) {
        const cel_value *v = &x->v.map->vals[i];
        if (v->kind == CEL_ERROR)
            return v;
        const cel_value *o = cel_map_find(y->v.map, &x->v.map->keys[i]);
        const cel_value *e = o ? map_error(v, o) : NULL;
        if (e)
            return e;
    }
    return NULL;
}

F(equals)
{
    const cel_value *err = map_error(&a[0], &a[1]);
    if (err)
        return *err;
    int r = cel_value_equal_op(&a[0], &a[1]);
    return r < 0 ? cel_no_such_overload() : cel_bool(r == 1);
}
/* interpreter.go evalNe: not true, so a failed comparison is "not equal" */
F(not_equals)
{
    return cel_bool(cel_value_equal_op(&a[0], &a[1]) != 1);
}

static cel_value ordered(const cel_call_ctx *cx, const cel_value *a, int want_lt, int want_eq, int want_gt)
{
    bool left_number = a[0].kind == CEL_DOUBLE || a[0].kind == CEL_INT || a[0].kind == CEL_UINT;
    cel_value r;
    if (cel_nan_relation(cx, a, left_number, &r))
        return r;
    int c;
    if (!cel_value_compare(&a[0], &a[1], &c))
        return cel_no_such_overload();
    return cel_bool(c < 0 ? want_lt : c == 0 ? want_eq : want_gt);
}
F(less)
{
    return ordered(cx, a, 1, 0, 0);
}
F(less_eq)
{
    return ordered(cx, a, 1, 1, 0);
}
F(greater)
{
    return ordered(cx, a, 0, 0, 1);
}
F(greater_eq)
{
    return ordered(cx, a, 0, 1, 1);
}

/* ---- containers ------------------------------------------------------------- */

F(in_list)
{
    const cel_list *l = a[1].v.list;
    for (size_t i = 0; i < l->n; i++) /* list.go Contains: elem.Equal(val) == True */
        if (cel_value_equal_op(&a[0], &cel_list_items(l)[i]) == 1)
            return cel_bool(true);
    return cel_bool(false);
}

/* A key whose value is an error (1.38's attribute without a usable value,
 * cel/dra_device.c) is not in the map: v0.38.0-beta.0 cel/compile.go
 * nameToAttributes.Contains finds only converted values. */
F(in_map)
{
    const cel_value *v = cel_map_find(a[1].v.map, &a[0]);
    return cel_bool(v != NULL && v->kind != CEL_ERROR);
}

F(index_list)
{
    const cel_list *l = a[0].v.list;
    int64_t i;
    switch (a[1].kind) {
    case CEL_INT: i = a[1].v.i; break;
    case CEL_UINT: i = a[1].v.u > INT64_MAX ? INT64_MAX : (int64_t)a[1].v.u; break;
    case CEL_DOUBLE: {
        double d = a[1].v.d;
        if (d != floor(d) || d < -9.2e18 || d > 9.2e18)
            return cel_errorf_s(cx->scratch, "unsupported index value %g in list", d);
        i = (int64_t)d;
        break;
    }
    default: return cel_errorf_s(cx->scratch, "unsupported index type '%s' in list", cel_value_type_name(&a[1]));
    }
    if (i < 0 || (uint64_t)i >= l->n)
        return cel_errorf_s(cx->scratch, "index '%" PRId64 "' out of range in list size '%zu'", i, l->n);
    return cel_list_items(l)[i];
}

/* "no such key: <key>" with the key printed as Go's %v would. */
cel_value cel_no_such_key(cel_scratch *s, const cel_value *key)
{
    switch (key->kind) {
    case CEL_STRING:
    case CEL_INT:
    case CEL_UINT:
    case CEL_BOOL:
    case CEL_DOUBLE:
    case CEL_NULL: break;
    default: return cel_errorf_s(s, "unsupported key type: %s", cel_value_type_name(key));
    }
    dra_buf b = DRA_BUF_INIT;
    cel_value_go_v(key, &b);
    cel_value e = cel_errorf_s(s, "no such key: %s", dra_buf_str(&b));
    dra_buf_free(&b);
    return e;
}

F(index_map)
{
    const cel_value *v = cel_map_find(a[0].v.map, &a[1]);
    if (v)
        return *v;
    if (a[0].v.map->flags & CEL_MAP_DEFAULT_EMPTY)
        return cel_mapval(&cel_empty_map);
    return cel_no_such_key(cx->scratch, &a[1]);
}

F(size_any)
{
    return cel_int(cel_value_size(&a[0]));
}

/* ---- conversions -------------------------------------------------------------- */

F(identity)
{
    return a[0];
}

F(uint_to_int)
{
    return a[0].v.u > INT64_MAX ? cel_int_overflow() : cel_int((int64_t)a[0].v.u);
}
F(double_to_int)
{
    double d = a[0].v.d;
    if (isnan(d) || isinf(d) || d <= -9.2233720368547758e18 || d >= 9.2233720368547758e18)
        return cel_int_overflow();
    return cel_int((int64_t)d);
}
/* int(string), uint(string), double(string): cel-go String.ConvertToType
 * (common/types/string.go) runs strconv.ParseInt(s, 10, 64) / ParseUint /
 * ParseFloat and reports any failure, syntax or range, as the same
 * conversion error. */
static cel_value string_conversion_error(const char *to)
{
    return cel_error(!strcmp(to, "int")    ? "type conversion error from 'string' to 'int'"
                     : !strcmp(to, "uint") ? "type conversion error from 'string' to 'uint'"
                                           : "type conversion error from 'string' to 'double'");
}

/* Go ParseInt / ParseUint base 10: an optional sign (ParseInt only), then
 * decimal digits and nothing else. */
static bool go_decimal_syntax(const char *p, size_t n, bool sign_ok)
{
    size_t i = 0;
    if (sign_ok && n > 0 && (p[0] == '+' || p[0] == '-'))
        i = 1;
    if (i == n)
        return false;
    for (; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return false;
    return true;
}

F(string_to_int)
{
    char buf[64];
    size_t len = a[0].v.s.len;
    if (len >= sizeof buf || !go_decimal_syntax(a[0].v.s.ptr, len, true))
        return string_conversion_error("int");
    memcpy(buf, a[0].v.s.ptr, len);
    buf[len] = 0;
    errno = 0;
    long long v = strtoll(buf, NULL, 10);
    if (errno == ERANGE)
        return string_conversion_error("int");
    return cel_int(v);
}
F(ts_to_int)
{
    return cel_int(a[0].v.t.sec);
}
/* int(duration): nanoseconds (common/types/duration.go ConvertToType) */
F(dur_to_int)
{
    __int128 ns = dur_ns(&a[0]);
    return ns > INT64_MAX || ns < INT64_MIN ? cel_int_overflow() : cel_int((int64_t)ns);
}
F(int_to_uint)
{
    return a[0].v.i < 0 ? cel_uint_overflow() : cel_uint((uint64_t)a[0].v.i);
}
F(double_to_uint)
{
    double d = a[0].v.d;
    if (isnan(d) || isinf(d) || d < 0 || d >= 18446744073709551616.0)
        return cel_uint_overflow();
    return cel_uint((uint64_t)d);
}
F(string_to_uint)
{
    char buf[64];
    size_t len = a[0].v.s.len;
    if (len >= sizeof buf || !go_decimal_syntax(a[0].v.s.ptr, len, false))
        return string_conversion_error("uint");
    memcpy(buf, a[0].v.s.ptr, len);
    buf[len] = 0;
    errno = 0;
    unsigned long long v = strtoull(buf, NULL, 10);
    if (errno == ERANGE)
        return string_conversion_error("uint");
    return cel_uint(v);
}
F(int_to_double)
{
    return cel_double((double)a[0].v.i);
}
F(uint_to_double)
{
    return cel_double((double)a[0].v.u);
}
/* Go strconv underscoreOK: underscores only between digits (a base prefix
 * counts as a digit). */
static bool go_underscores_ok(const char *s, size_t n)
{
    char saw = '^';
    size_t i = 0;
    if (n >= 1 && (s[0] == '-' || s[0] == '+'))
        s++, n--;
    bool hex = false;
    if (n >= 2 && s[0] == '0' && strchr("bBoOxX", s[1])) {
        i = 2;
        saw = '0';
        hex = s[1] == 'x' || s[1] == 'X';
    }
    for (; i < n; i++) {
        char c = s[i];
        if ((c >= '0' && c <= '9') || (hex && isxdigit((unsigned char)c))) {
            saw = '0';
            continue;
        }
        if (c == '_') {
            if (saw != '0')
                return false;
            saw = '_';
            continue;
        }
        if (saw == '_')
            return false;
        saw = '!';
    }
    return saw != '_';
}

/* Is s (NUL-free) a float in Go's ParseFloat syntax: [+-] then inf, infinity
 * (any case), or decimal digits with an optional point and e-exponent, or
 * 0x hex digits with an optional point and a mandatory p-exponent; nan (any
 * case) without a sign.  strtod accepts more (hex without exponent, spaces,
 * "nan(...)"), so the text is checked first.  Underscores are dropped
 * into out (size n+1) when they are allowed. */
static bool go_float_syntax(const char *s, size_t n, char *out)
{
    size_t i = 0, k = 0;
    if (n == 3 && !strncasecmp(s, "nan", 3)) {
        memcpy(out, s, 4);
        return true;
    }
    if (i < n && (s[i] == '+' || s[i] == '-'))
        out[k++] = s[i++];
    if ((n - i == 3 && !strncasecmp(s + i, "inf", 3)) || (n - i == 8 && !strncasecmp(s + i, "infinity", 8))) {
        memcpy(out + k, s + i, n - i + 1);
        return true;
    }
    bool hex = n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
    if (hex) {
        out[k++] = s[i++];
        out[k++] = s[i++];
    }
    bool digits = false, point = false, underscores = false;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '_') {
            underscores = true;
            continue;
        }
        if (c == '.' && !point)
            point = true;
        else if ((c >= '0' && c <= '9') || (hex && isxdigit((unsigned char)c)))
            digits = true;
        else
            break;
        out[k++] = c;
    }
    if (!digits)
        return false;
    if (i < n && (hex ? (s[i] == 'p' || s[i] == 'P') : (s[i] == 'e' || s[i] == 'E'))) {
        out[k++] = s[i++];
        if (i < n && (s[i] == '+' || s[i] == '-'))
            out[k++] = s[i++];
        bool exp_digits = false;
        for (; i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '_'); i++) {
            if (s[i] == '_') {
                underscores = true;
                continue;
            }
            exp_digits = true;
            out[k++] = s[i];
        }
        if (!exp_digits)
            return false;
    } else if (hex) {
        return false; /* a hex mantissa needs a p exponent */
    }
    out[k] = 0;
    return i == n && (!underscores || go_underscores_ok(s, n));
}

F(string_to_double)
{
    size_t len = a[0].v.s.len;
    char *buf = cel_scratch_strndup(cx->scratch, a[0].v.s.ptr, len);
    char *clean = cel_scratch_alloc(cx->scratch, len + 1);
    if (strlen(buf) != len || !go_float_syntax(buf, len, clean))
        return string_conversion_error("double");
    errno = 0;
    double d = strtod(clean, NULL);
    if (errno == ERANGE && isinf(d)) /* ParseFloat's ErrRange is for overflow only */
        return string_conversion_error("double");
    return cel_double(d);
}
static cel_value str_value(cel_scratch *s, const char *p)
{
    return cel_string_copy_s(s, p, strlen(p));
}
F(int_to_string)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRId64, a[0].v.i);
    return str_value(cx->scratch, b);
}
F(uint_to_string)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, a[0].v.u);
    return str_value(cx->scratch, b);
}
static cel_value buf_value(cel_scratch *s, dra_buf *b)
{
    cel_value v = cel_string_copy_s(s, dra_buf_str(b), b->len);
    dra_buf_free(b);
    return v;
}
F(double_to_string)
{
    dra_buf b = DRA_BUF_INIT;
    cel_double_format(a[0].v.d, &b);
    return buf_value(cx->scratch, &b);
}
F(bool_to_string)
{
    return a[0].v.b ? cel_string("true", 4) : cel_string("false", 5);
}
F(bytes_to_string)
{
    if (!dra_utf8_valid(a[0].v.s.ptr, a[0].v.s.len))
        return cel_error("invalid UTF-8 in bytes, cannot convert to string");
    return cel_string(a[0].v.s.ptr, a[0].v.s.len);
}
F(ts_to_string)
{
    dra_buf b = DRA_BUF_INIT;
    cel_timestamp_format(a[0].v.t.sec, a[0].v.t.nsec, &b);
    return buf_value(cx->scratch, &b);
}
F(dur_to_string)
{
    dra_buf b = DRA_BUF_INIT;
    cel_duration_format(a[0].v.t.sec, a[0].v.t.nsec, &b);
    return buf_value(cx->scratch, &b);
}
F(type_to_string)
{
    const char *s = cel_type_runtime_name(a[0].v.type);
    return cel_string(s, strlen(s));
}
F(string_to_bytes)
{
    return cel_bytes(a[0].v.s.ptr, a[0].v.s.len);
}
F(string_to_bool)
{
    static const char *const t[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const f[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < 6; i++) {
        if (a[0].v.s.len == strlen(t[i]) && memcmp(a[0].v.s.ptr, t[i], a[0].v.s.len) == 0)
            return cel_bool(true);
        if (a[0].v.s.len == strlen(f[i]) && memcmp(a[0].v.s.ptr, f[i], a[0].v.s.len) == 0)
            return cel_bool(false);
    }
    return cel_errorf_s(cx->scratch, "type conversion error from 'string' to 'bool'");
}
F(string_to_ts)
{
    return cel_timestamp_of_string(a[0].v.s.ptr, a[0].v.s.len);
}
F(int_to_ts)
{
    if (a[0].v.i < CEL_TS_MIN_SEC || a[0].v.i > CEL_TS_MAX_SEC)
        return cel_error("timestamp overflow");
    return cel_timestamp(a[0].v.i, 0);
}
F(string_to_dur)
{
    int64_t ns;
    if (!dra_duration_parse(a[0].v.s.ptr, a[0].v.s.len, &ns))
        return cel_errorf_s(cx->scratch, "type conversion error from 'string' to 'google.protobuf.Duration'");
    return cel_duration(ns / DRA_NSEC_PER_SEC, (int32_t)(ns % DRA_NSEC_PER_SEC));
}
/* cel-go v0.26 common/stdlib/standard.go declares duration(int)
 * (int64_to_duration) bound to convertToType, which no int passes
 * (common/types/int.go ConvertToType); gone from v0.29 on. */
F(int_to_dur)
{
    return cel_errorf_s(cx->scratch, "type conversion error from 'int' to 'google.protobuf.Duration'");
}
F(type_of)
{
    return cel_typeval(cel_value_type(&a[0]));
}

/* ---- strings ------------------------------------------------------------------ */

static bool has_at(const cel_value *s, size_t off, const cel_value *sub)
{
    return off + sub->v.s.len <= s->v.s.len &&
           (sub->v.s.len == 0 || memcmp(s->v.s.ptr + off, sub->v.s.ptr, sub->v.s.len) == 0);
}
F(str_contains)
{
    return cel_bool(a[1].v.s.len == 0 || memmem(a[0].v.s.ptr, a[0].v.s.len, a[1].v.s.ptr, a[1].v.s.len) != NULL);
}
F(str_starts)
{
    return cel_bool(has_at(&a[0], 0, &a[1]));
}
F(str_ends)
{
    return cel_bool(a[1].v.s.len <= a[0].v.s.len && has_at(&a[0], a[0].v.s.len - a[1].v.s.len, &a[1]));
}

/* ---- two-variable comprehensions: cel.@mapInsert (cel-go ext/comprehensions.go) ---- */

static cel_value map_insert_all(cel_call_ctx *cx, const cel_map *m, const cel_value *keys, const cel_value *vals,
                                size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cel_map_find(m, &keys[i])) {
            dra_buf b = DRA_BUF_INIT;
            cel_value_format(&keys[i], &b);
            cel_value e = cel_errorf_s(cx->scratch, "insert failed: key %s already exists", dra_buf_str(&b));
            dra_buf_free(&b);
            return e;
        }
    size_t total = m->n + n;
    cel_value *k = cel_scratch_alloc(cx->scratch, total * sizeof *k);
    cel_value *v = cel_scratch_alloc(cx->scratch, total * sizeof *v);
    if (m->n) {
        memcpy(k, m->keys, m->n * sizeof *k);
        memcpy(v, m->vals, m->n * sizeof *v);
    }
    memcpy(k + m->n, keys, n * sizeof *k);
    memcpy(v + m->n, vals, n * sizeof *v);
    return cel_map_build_s(cx->scratch, k, v, total, 0);
}
F(map_insert_kv)
{
    if (a[1].kind != CEL_INT && a[1].kind != CEL_UINT && a[1].kind != CEL_BOOL && a[1].kind != CEL_STRING &&
        !cel_map_key_object(&a[1]))
        return cel_errorf_s(cx->scratch, "unsupported key type: %s", cel_value_type_name(&a[1]));
    return map_insert_all(cx, a[0].v.map, &a[1], &a[2], 1);
}
F(map_insert_map)
{
    return map_insert_all(cx, a[0].v.map, a[1].v.map->keys, a[1].v.map->vals, a[1].v.map->n);
}

/* ---- table -------------------------------------------------------------------- */

/* clang-format off */
#define G(id, fn, res, impl, ...) {id, fn, false, sizeof((const cel_type *[]){__VA_ARGS__}) / sizeof(const cel_type *), {__VA_ARGS__}, res, impl, CEL_COST_ONE, 0, NULL, CEL_LIB_STD, false}
#define M(id, fn, res, impl, ...) {id, fn, true, sizeof((const cel_type *[]){__VA_ARGS__}) / sizeof(const cel_type *), {__VA_ARGS__}, res, impl, CEL_COST_ONE, 0, NULL, CEL_LIB_STD, false}
#define GC(id, fn, res, impl, cost, f, ...) {id, fn, false, sizeof((const cel_type *[]){__VA_ARGS__}) / sizeof(const cel_type *), {__VA_ARGS__}, res, impl, cost, f, NULL, CEL_LIB_STD, false}
#define MC(id, fn, res, impl, cost, f, ...) {id, fn, true, sizeof((const cel_type *[]){__VA_ARGS__}) / sizeof(const cel_type *), {__VA_ARGS__}, res, impl, cost, f, NULL, CEL_LIB_STD, false}

#define CMP(op, name, impl)                                                          \
    G(name "_bool", op, T_B, impl, T_B, T_B), G(name "_int64", op, T_B, impl, T_I, T_I), \
    G(name "_uint64", op, T_B, impl, T_U, T_U), G(name "_double", op, T_B, impl, T_D, T_D), \
    GC(name "_string", op, T_B, impl, CEL_COST_MIN_SIZE, 0.1, T_S, T_S),              \
    GC(name "_bytes", op, T_B, impl, CEL_COST_MIN_SIZE, 0.1, T_BY, T_BY),             \
    G(name "_timestamp", op, T_B, impl, T_TS, T_TS), G(name "_duration", op, T_B, impl, T_DU, T_DU), \
    G(name "_int64_uint64", op, T_B, impl, T_I, T_U), G(name "_int64_double", op, T_B, impl, T_I, T_D), \
    G(name "_uint64_int64", op, T_B, impl, T_U, T_I), G(name "_uint64_double", op, T_B, impl, T_U, T_D), \
    G(name "_double_int64", op, T_B, impl, T_D, T_I), G(name "_double_uint64", op, T_B, impl, T_D, T_U)

const cel_overload cel_lib_std[] = {
    /* logic: the evaluator implements && || ?: itself (non-strict); declared for the checker */
    G("conditional", CEL_OP_CONDITIONAL, T_A, NULL, T_B, T_A, T_A),
    G("logical_and", CEL_OP_LOGICAL_AND, T_B, NULL, T_B, T_B),
    G("logical_or", CEL_OP_LOGICAL_OR, T_B, NULL, T_B, T_B),
    G("logical_not", CEL_OP_LOGICAL_NOT, T_B, logical_not, T_B),
    {"not_strictly_false", CEL_OP_NOT_STRICTLY_FALSE, false, 1, {T_B}, T_B, not_strictly_false, CEL_COST_ONE, 0, NULL, CEL_LIB_STD, true},
    GC("equals", CEL_OP_EQUALS, T_B, equals, CEL_COST_MIN_SIZE, 0.1, T_A, T_A),
    GC("not_equals", CEL_OP_NOT_EQUALS, T_B, not_equals, CEL_COST_MIN_SIZE, 0.1, T_A, T_A),
    CMP(CEL_OP_LESS, "less", less),
    CMP(CEL_OP_LESS_EQUALS, "less_equals", less_eq),
    CMP(CEL_OP_GREATER, "greater", greater),
    CMP(CEL_OP_GREATER_EQUALS, "greater_equals", greater_eq),

    GC("add_bytes", CEL_OP_ADD, T_BY, add_string, CEL_COST_SUM_SIZE, 0.1, T_BY, T_BY),
    G("add_double", CEL_OP_ADD, T_D, add_double, T_D, T_D),
    G("add_duration_duration", CEL_OP_ADD, T_DU, add_dur_dur, T_DU, T_DU),
    G("add_duration_timestamp", CEL_OP_ADD, T_TS, add_dur_ts, T_DU, T_TS),
    G("add_timestamp_duration", CEL_OP_ADD, T_TS, add_ts_dur, T_TS, T_DU),
    G("add_int64", CEL_OP_ADD, T_I, add_int, T_I, T_I),
    G("add_list", CEL_OP_ADD, T_LA, add_list, T_LA, T_LA),
    GC("add_string", CEL_OP_ADD, T_S, add_string, CEL_COST_SUM_SIZE, 0.1, T_S, T_S),
    G("add_uint64", CEL_OP_ADD, T_U, add_uint, T_U, T_U),
    G("subtract_double", CEL_OP_SUBTRACT, T_D, sub_double, T_D, T_D),
    G("subtract_duration_duration", CEL_OP_SUBTRACT, T_DU, sub_dur_dur, T_DU, T_DU),
    G("subtract_int64", CEL_OP_SUBTRACT, T_I, sub_int, T_I, T_I),
    G("subtract_timestamp_duration", CEL_OP_SUBTRACT, T_TS, sub_ts_dur, T_TS, T_DU),
    G("subtract_timestamp_timestamp", CEL_OP_SUBTRACT, T_DU, sub_ts_ts, T_TS, T_TS),
    G("subtract_uint64", CEL_OP_SUBTRACT, T_U, sub_uint, T_U, T_U),
    G("multiply_double", CEL_OP_MULTIPLY, T_D, mul_double, T_D, T_D),
    G("multiply_int64", CEL_OP_MULTIPLY, T_I, mul_int, T_I, T_I),
    G("multiply_uint64", CEL_OP_MULTIPLY, T_U, mul_uint, T_U, T_U),
    G("divide_double", CEL_OP_DIVIDE, T_D, div_double, T_D, T_D),
    G("divide_int64", CEL_OP_DIVIDE, T_I, div_int, T_I, T_I),
    G("divide_uint64", CEL_OP_DIVIDE, T_U, div_uint, T_U, T_U),
    G("modulo_int64", CEL_OP_MODULO, T_I, mod_int, T_I, T_I),
    G("modulo_uint64", CEL_OP_MODULO, T_U, mod_uint, T_U, T_U),
    G("negate_double", CEL_OP_NEGATE, T_D, neg_double, T_D),
    G("negate_int64", CEL_OP_NEGATE, T_I, neg_int, T_I),

    GC("in_list", CEL_OP_IN, T_B, in_list, CEL_COST_SIZE1, 0, T_A, T_LA),
    G("in_map", CEL_OP_IN, T_B, in_map, T_K, T_MKV),
    G("index_list", CEL_OP_INDEX, T_A, index_list, T_LA, T_I),
    G("index_map", CEL_OP_INDEX, T_V, index_map, T_MKV, T_K),

    G("size_bytes", "size", T_I, size_any, T_BY),
    M("bytes_size", "size", T_I, size_any, T_BY),
    G("size_list", "size", T_I, size_any, T_LA),
    M("list_size", "size", T_I, size_any, T_LA),
    G("size_map", "size", T_I, size_any, T_MKV),
    M("map_size", "size", T_I, size_any, T_MKV),
    G("size_string", "size", T_I, size_any, T_S),
    M("string_size", "size", T_I, size_any, T_S),

    G("int64_to_int64", "int", T_I, identity, T_I),
    G("double_to_int64", "int", T_I, double_to_int, T_D),
    G("duration_to_int64", "int", T_I, dur_to_int, T_DU),
    G("string_to_int64", "int", T_I, string_to_int, T_S),
    G("timestamp_to_int64", "int", T_I, ts_to_int, T_TS),
    G("uint64_to_int64", "int", T_I, uint_to_int, T_U),
    G("uint64_to_uint64", "uint", T_U, identity, T_U),
    G("double_to_uint64", "uint", T_U, double_to_uint, T_D),
    G("int64_to_uint64", "uint", T_U, int_to_uint, T_I),
    G("string_to_uint64", "uint", T_U, string_to_uint, T_S),
    G("double_to_double", "double", T_D, identity, T_D),
    G("int64_to_double", "double", T_D, int_to_double, T_I),
    G("string_to_double", "double", T_D, string_to_double, T_S),
    G("uint64_to_double", "double", T_D, uint_to_double, T_U),
    G("string_to_string", "string", T_S, identity, T_S),
    G("bool_to_string", "string", T_S, bool_to_string, T_B),
    GC("bytes_to_string", "string", T_S, bytes_to_string, CEL_COST_TRAVERSE0, 0.1, T_BY),
    G("double_to_string", "string", T_S, double_to_string, T_D),
    G("duration_to_string", "string", T_S, dur_to_string, T_DU),
    G("int64_to_string", "string", T_S, int_to_string, T_I),
    G("timestamp_to_string", "string", T_S, ts_to_string, T_TS),
    G("uint64_to_string", "string", T_S, uint_to_string, T_U),
    G("type_to_string", "string", T_S, type_to_string, &cel_t_type),
    G("bytes_to_bytes", "bytes", T_BY, identity, T_BY),
    GC("string_to_bytes", "bytes", T_BY, string_to_bytes, CEL_COST_TRAVERSE0, 0.1, T_S),
    G("bool_to_bool", "bool", T_B, identity, T_B),
    G("string_to_bool", "bool", T_B, string_to_bool, T_S),
    G("timestamp_to_timestamp", "timestamp", T_TS, identity, T_TS),
    G("int64_to_timestamp", "timestamp", T_TS, int_to_ts, T_I),
    G("string_to_timestamp", "timestamp", T_TS, string_to_ts, T_S),
    G("duration_to_duration", "duration", T_DU, identity, T_DU),
    G("string_to_duration", "duration", T_DU, string_to_dur, T_S),
    {"int64_to_duration", "duration", false, 1, {T_I}, T_DU, int_to_dur, CEL_COST_ONE, 0, NULL, CEL_LIB_INT_TO_DURATION,
     false},
    G("to_dyn", "dyn", T_DYN, identity, T_A),
    G("type", "type", &cel_t_type_a, type_of, T_A),

    G("cel_@mapInsert_map_key_value", "cel.@mapInsert", T_MKV, map_insert_kv, T_MKV, T_K, T_V),
    G("cel_@mapInsert_map_map", "cel.@mapInsert", T_MKV, map_insert_map, T_MKV, T_MKV),

    MC("contains_string", "contains", T_B, str_contains, CEL_COST_PRODUCT, 0.1, T_S, T_S),
    MC("starts_with_string", "startsWith", T_B, str_starts, CEL_COST_TRAVERSE1, 0.1, T_S, T_S),
    MC("ends_with_string", "endsWith", T_B, str_ends, CEL_COST_TRAVERSE1, 0.1, T_S, T_S),
};
/* clang-format on */
const size_t cel_lib_std_n = sizeof cel_lib_std / sizeof cel_lib_std[0];
