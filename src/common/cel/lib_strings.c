/* ext.Strings version 2 (cel-go ext/strings.go, as Kubernetes enables it:
 * dra-corrections E2-3): charAt, indexOf, lastIndexOf, lowerAscii,
 * upperAscii, replace, split, substring, trim, join, strings.quote, format.
 * All indexes count code points.  `reverse` is v3 (CEL_LIB_STRINGS_V3). */
#include "functions.h"
#include "../base/utf8.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F(name) static cel_value name(cel_call_ctx *cx, const cel_value *a, size_t n)

static cel_value out_of_range(cel_call_ctx *cx, int64_t i)
{
    return cel_errorf_s(cx->scratch, "index out of range: %" PRId64, i);
}

static cel_value str_from(cel_call_ctx *cx, const char *p, size_t len)
{
    return cel_string(p, len);
}

F(char_at)
{
    const char *s = a[0].v.s.ptr;
    size_t len = a[0].v.s.len, cps = dra_utf8_len(s, len);
    int64_t i = a[1].v.i;
    if (i < 0 || (uint64_t)i > cps)
        return out_of_range(cx, i);
    size_t off = dra_utf8_offset(s, len, (size_t)i);
    size_t end = dra_utf8_offset(s + off, len - off, 1) + off;
    return str_from(cx, s + off, end - off);
}

/* indexOf / lastIndexOf as cel-go ext/strings.go (the version that returns
 * -1 for an offset past the end, dra-corrections E2-11): an empty needle
 * as empty_needle says; then a negative offset is an error and an offset
 * at or past the end gives -1.  The two-argument
 * lastIndexOf searches from offset len-1; on an empty string it gives -1
 * (cel-spec string_ext/last_index_of/empty_string). */

/* Code point index of the first match at or after code point `from` (< length). */
static int64_t index_of(const cel_value *s, const cel_value *sub, size_t from)
{
    size_t off = dra_utf8_offset(s->v.s.ptr, s->v.s.len, from);
    const char *hit = memmem(s->v.s.ptr + off, s->v.s.len - off, sub->v.s.ptr, sub->v.s.len);
    if (!hit)
        return -1;
    return (int64_t)dra_utf8_len(s->v.s.ptr, (size_t)(hit - s->v.s.ptr));
}

/* An empty needle: cel-go v0.26 (1.36) returns the offset before any
 * range check; v0.29 and v0.33 (1.37, 1.38) refuse a negative one and
 * clamp it to the length (ext/strings.go indexOfOffset,
 * lastIndexOfOffset: "abc".indexOf("", 7) is 3). */
static cel_value empty_needle(cel_call_ctx *cx, const cel_value *s, int64_t off)
{
    if (cx->flags & CEL_EVAL_CEL_GO_026)
        return cel_int(off);
    if (off < 0)
        return out_of_range(cx, off);
    int64_t cps = (int64_t)dra_utf8_len(s->v.s.ptr, s->v.s.len);
    return cel_int(off > cps ? cps : off);
}

static cel_value index_of_offset(cel_call_ctx *cx, const cel_value *s, const cel_value *sub, int64_t off)
{
    if (sub->v.s.len == 0)
        return empty_needle(cx, s, off);
    if (off < 0)
        return out_of_range(cx, off);
    if ((uint64_t)off >= dra_utf8_len(s->v.s.ptr, s->v.s.len))
        return cel_int(-1);
    return cel_int(index_of(s, sub, (size_t)off));
}

F(index_of2)
{
    return index_of_offset(cx, &a[0], &a[1], 0);
}
F(index_of3)
{
    return index_of_offset(cx, &a[0], &a[1], a[2].v.i);
}

/* Last match starting at or before code point `upto` (< length). */
static int64_t last_index_of(const cel_value *s, const cel_value *sub, size_t upto)
{
    size_t cps = dra_utf8_len(s->v.s.ptr, s->v.s.len);
    size_t sublen = dra_utf8_len(sub->v.s.ptr, sub->v.s.len);
    if (sublen > cps)
        return -1;
    size_t last = upto;
    if (last > cps - sublen)
        last = cps - sublen;
    for (size_t i = last + 1; i-- > 0;) {
        size_t off = dra_utf8_offset(s->v.s.ptr, s->v.s.len, i);
        if (off + sub->v.s.len <= s->v.s.len && memcmp(s->v.s.ptr + off, sub->v.s.ptr, sub->v.s.len) == 0)
            return (int64_t)i;
    }
    return -1;
}

static cel_value last_index_of_offset(cel_call_ctx *cx, const cel_value *s, const cel_value *sub, int64_t off)
{
    if (sub->v.s.len == 0)
        return empty_needle(cx, s, off);
    if (off < 0)
        return out_of_range(cx, off);
    if ((uint64_t)off >= dra_utf8_len(s->v.s.ptr, s->v.s.len))
        return cel_int(-1);
    return cel_int(last_index_of(s, sub, (size_t)off));
}

F(last_index_of2)
{
    int64_t cps = (int64_t)dra_utf8_len(a[0].v.s.ptr, a[0].v.s.len);
    if (a[1].v.s.len == 0)
        return cel_int(cps);
    if (cps == 0)
        return cel_int(-1);
    return last_index_of_offset(cx, &a[0], &a[1], cps - 1);
}
F(last_index_of3)
{
    return last_index_of_offset(cx, &a[0], &a[1], a[2].v.i);
}

static cel_value map_ascii(cel_call_ctx *cx, const cel_value *s, bool upper)
{
    char *p = cel_scratch_alloc(cx->scratch, s->v.s.len + 1);
    for (size_t i = 0; i < s->v.s.len; i++) {
        char c = s->v.s.ptr[i];
        if (upper && c >= 'a' && c <= 'z')
            c = (char)(c - 32);
        else if (!upper && c >= 'A' && c <= 'Z')
            c = (char)(c + 32);
        p[i] = c;
    }
    p[s->v.s.len] = 0;
    return cel_string(p, s->v.s.len);
}
F(lower_ascii)
{
    return map_ascii(cx, &a[0], false);
}
F(upper_ascii)
{
    return map_ascii(cx, &a[0], true);
}

/* Go strings.Replace(s, old, new, n). */
static cel_value replace_n(cel_call_ctx *cx, const cel_value *a, int64_t limit)
{
    const char *s = a[0].v.s.ptr;
    size_t len = a[0].v.s.len, ol = a[1].v.s.len, nl = a[2].v.s.len;
    if (limit == 0 || (ol == 0 && nl == 0 && 0))
        return a[0];
    dra_buf b = DRA_BUF_INIT;
    size_t i = 0;
    int64_t done = 0;
    if (ol == 0) {
        /* insert `new` before every code point and at the end */
        while (limit < 0 || done < limit) {
            dra_buf_append(&b, a[2].v.s.ptr, nl);
            done++;
            if (i >= len)
                break;
            size_t step = dra_utf8_offset(s + i, len - i, 1);
            dra_buf_append(&b, s + i, step);
            i += step;
        }
        if (i < len)
            dra_buf_append(&b, s + i, len - i);
    } else {
        while (i < len && (limit < 0 || done < limit)) {
            const char *hit = memmem(s + i, len - i, a[1].v.s.ptr, ol);
            if (!hit)
                break;
            dra_buf_append(&b, s + i, (size_t)(hit - (s + i)));
            dra_buf_append(&b, a[2].v.s.ptr, nl);
            i = (size_t)(hit - s) + ol;
            done++;
        }
        if (i < len)
            dra_buf_append(&b, s + i, len - i);
    }
    cel_value r = cel_string_copy_s(cx->scratch, dra_buf_str(&b), b.len);
    dra_buf_free(&b);
    return r;
}
F(replace3)
{
    return replace_n(cx, a, -1);
}
F(replace4)
{
    return replace_n(cx, a, a[3].v.i);
}

/* Go strings.SplitN(s, sep, n). */
static cel_value split_n(cel_call_ctx *cx, const cel_value *a, int64_t limit)
{
    if (limit == 0)
        return cel_listval(&cel_empty_list);
    const char *s = a[0].v.s.ptr;
    size_t len = a[0].v.s.len, sl = a[1].v.s.len;
    size_t cap = 8, cnt = 0;
    cel_value *items = cel_scratch_alloc(cx->scratch, cap * sizeof *items);
    size_t i = 0;
    for (;;) {
        if (cnt == cap) {
            cel_value *bigger = cel_scratch_alloc(cx->scratch, cap * 2 * sizeof *items);
            memcpy(bigger, items, cnt * sizeof *items);
            items = bigger;
            cap *= 2;
        }
        if (limit > 0 && (int64_t)cnt == limit - 1) {
            items[cnt++] = cel_string(s + i, len - i);
            break;
        }
        if (sl == 0) {
            if (i >= len)
                break;
            size_t step = dra_utf8_offset(s + i, len - i, 1);
            items[cnt++] = cel_string(s + i, step);
            i += step;
            continue;
        }
        const char *hit = i <= len ? memmem(s + i, len - i, a[1].v.s.ptr, sl) : NULL;
        if (!hit) {
            items[cnt++] = cel_string(s + i, len - i);
            break;
        }
        items[cnt++] = cel_string(s + i, (size_t)(hit - (s + i)));
        i = (size_t)(hit - s) + sl;
    }
    cel_list *l = cel_scratch_zalloc(cx->scratch, sizeof *l);
    l->n = cnt;
    l->items_ = items;
    return cel_listval(l);
}
F(split2)
{
    return split_n(cx, a, -1);
}
F(split3)
{
    return split_n(cx, a, a[2].v.i);
}

static cel_value substring(cel_call_ctx *cx, const cel_value *s, int64_t start, int64_t end, bool has_end)
{
    size_t cps = dra_utf8_len(s->v.s.ptr, s->v.s.len);
    /* ext/strings.go substrRange: the order of start and end first */
    if (!has_end)
        end = (int64_t)cps;
    else if (start > end)
        return cel_errorf_s(cx->scratch, "invalid substring range. start: %" PRId64 ", end: %" PRId64, start, end);
    if (start < 0 || (uint64_t)start > cps)
        return out_of_range(cx, start);
    if (end < 0 || (uint64_t)end > cps)
        return out_of_range(cx, end);
    size_t o1 = dra_utf8_offset(s->v.s.ptr, s->v.s.len, (size_t)start);
    size_t o2 = dra_utf8_offset(s->v.s.ptr, s->v.s.len, (size_t)end);
    return cel_string(s->v.s.ptr + o1, o2 - o1);
}
F(substring2)
{
    return substring(cx, &a[0], a[1].v.i, 0, false);
}
F(substring3)
{
    return substring(cx, &a[0], a[1].v.i, a[2].v.i, true);
}

F(trim)
{
    const char *p = a[0].v.s.ptr;
    size_t len = a[0].v.s.len;
    dra_go_trim_space(&p, &len);
    return cel_string(p, len);
}

static cel_value join(cel_call_ctx *cx, const cel_list *l, const char *sep, size_t sl)
{
    size_t total = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (cel_list_items(l)[i].kind != CEL_STRING) { /* ext/strings.go joinValSeparator */
            dra_buf b = DRA_BUF_INIT;
            cel_value_go_v(&cel_list_items(l)[i], &b);
            cel_value r = cel_errorf_s(cx->scratch, "join: invalid input: %s", dra_buf_str(&b));
            dra_buf_free(&b);
            return r;
        }
        total += cel_list_items(l)[i].v.s.len + (i ? sl : 0);
    }
    char *p = cel_scratch_alloc(cx->scratch, total + 1);
    size_t o = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (i && sl) {
            memcpy(p + o, sep, sl);
            o += sl;
        }
        if (cel_list_items(l)[i].v.s.len)
            memcpy(p + o, cel_list_items(l)[i].v.s.ptr, cel_list_items(l)[i].v.s.len);
        o += cel_list_items(l)[i].v.s.len;
    }
    p[o] = 0;
    return cel_string(p, o);
}
F(join1)
{
    return join(cx, a[0].v.list, "", 0);
}
F(join2)
{
    return join(cx, a[0].v.list, a[1].v.s.ptr, a[1].v.s.len);
}

/* strings.quote: Go-like escapes, invalid UTF-8 becomes U+FFFD. */
F(quote)
{
    dra_buf b = DRA_BUF_INIT;
    dra_buf_putc(&b, '"');
    const char *s = a[0].v.s.ptr;
    size_t len = a[0].v.s.len;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) {
            size_t step = dra_utf8_offset(s + i, len - i, 1);
            if (dra_utf8_valid(s + i, step))
                dra_buf_append(&b, s + i, step);
            else
                dra_buf_puts(&b, "\xef\xbf\xbd");
            i += step;
            continue;
        }
        switch (c) {
        case '\a': dra_buf_puts(&b, "\\a"); break;
        case '\b': dra_buf_puts(&b, "\\b"); break;
        case '\f': dra_buf_puts(&b, "\\f"); break;
        case '\n': dra_buf_puts(&b, "\\n"); break;
        case '\r': dra_buf_puts(&b, "\\r"); break;
        case '\t': dra_buf_puts(&b, "\\t"); break;
        case '\v': dra_buf_puts(&b, "\\v"); break;
        case '\\': dra_buf_puts(&b, "\\\\"); break;
        case '"': dra_buf_puts(&b, "\\\""); break;
        default: dra_buf_putc(&b, (char)c);
        }
        i++;
    }
    dra_buf_putc(&b, '"');
    cel_value r = cel_string_copy_s(cx->scratch, dra_buf_str(&b), b.len);
    dra_buf_free(&b);
    return r;
}

F(reverse)
{
    const char *s = a[0].v.s.ptr;
    size_t len = a[0].v.s.len;
    char *p = cel_scratch_alloc(cx->scratch, len + 1);
    size_t o = len;
    for (size_t i = 0; i < len;) {
        size_t step = dra_utf8_offset(s + i, len - i, 1);
        o -= step;
        memcpy(p + o, s + i, step);
        i += step;
    }
    p[len] = 0;
    return cel_string(p, len);
}

/* ---- format (legacy formatter of Strings v2, dra-corrections E2-3) ---------- */

static void fmt_value_s(dra_buf *b, const cel_value *v, bool nested);

static bool str_is(const cel_value *v, const char *s)
{
    return v->v.s.len == strlen(s) && memcmp(v->v.s.ptr, s, v->v.s.len) == 0;
}

/* A double as Go's %f prints it inside %s (fmt, not the locale
 * printer): "+Inf", "-Inf", "NaN" for the special values. */
static void fmt_double_go(dra_buf *b, double d)
{
    if (isnan(d))
        dra_buf_puts(b, "NaN");
    else if (isinf(d))
        dra_buf_puts(b, d > 0 ? "+Inf" : "-Inf");
    else
        dra_buf_printf(b, "%.6f", d);
}

/* %f and %e go through golang.org/x/text/message's printer for the
 * matched locale (cel-go ext/formatting.go Fixed, Scientific; en): "∞"
 * and "NaN", no sign on a negative zero, the integer digits of %f grouped
 * by ",", and %e's exponent written "×10" with superscript digits
 * ("1.234568×10⁰³", "1.000000×10⁻¹⁰"). */
static void fmt_special(dra_buf *b, double d)
{
    if (isnan(d))
        dra_buf_puts(b, "NaN");
    else
        dra_buf_puts(b, d > 0 ? "\u221e" : "-\u221e");
}

static void fmt_double_fixed(dra_buf *b, double d, int prec)
{
    if (isnan(d) || isinf(d)) {
        fmt_special(b, d);
        return;
    }
    char tmp[512];
    int n = snprintf(tmp, sizeof tmp, "%.*f", prec, d == 0 ? 0.0 : d);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        dra_buf_printf(b, "%.*f", prec, d == 0 ? 0.0 : d);
        return;
    }
    const char *p = tmp;
    if (*p == '-')
        dra_buf_putc(b, *p++);
    size_t int_len = strcspn(p, ".");
    for (size_t i = 0; i < int_len; i++) {
        if (i > 0 && (int_len - i) % 3 == 0)
            dra_buf_putc(b, ',');
        dra_buf_putc(b, p[i]);
    }
    dra_buf_puts(b, p + int_len);
}

/* cel-go builds the clause as "%<precision>e": the precision is the
 * printer's width (the digits stay 6), padded with spaces in runes. */
static void fmt_double_scientific(dra_buf *b, double d, int width)
{
    static const char *const sup[10] = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
                                        "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
    dra_buf t = DRA_BUF_INIT;
    size_t runes;
    if (isnan(d) || isinf(d)) {
        fmt_special(&t, d);
        runes = isnan(d) ? 3 : d > 0 ? 1 : 2;
    } else {
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%.6e", d == 0 ? 0.0 : d);
        char *e = strchr(tmp, 'e');
        dra_buf_append(&t, tmp, (size_t)(e - tmp));
        runes = (size_t)(e - tmp) + 3;
        dra_buf_puts(&t, "\u00d710");
        if (e[1] == '-') {
            dra_buf_puts(&t, "\u207b");
            runes++;
        }
        for (const char *q = e + 2; *q; q++, runes++)
            dra_buf_puts(&t, sup[*q - '0']);
    }
    for (; runes < (size_t)width; runes++)
        dra_buf_putc(b, ' ');
    dra_buf_append(b, dra_buf_str(&t), t.len);
    dra_buf_free(&t);
}

/* ext/formatting.go FormatString: %s converts bytes to a string
 * (ConvertToType), in a list or map too, and invalid UTF-8 fails the call */
static bool has_bad_utf8(const cel_value *v)
{
    switch (v->kind) {
    case CEL_BYTES: return !dra_utf8_valid(v->v.s.ptr, v->v.s.len);
    case CEL_LIST:
        for (size_t i = 0; i < v->v.list->n; i++)
            if (has_bad_utf8(&cel_list_items(v->v.list)[i]))
                return true;
        return false;
    case CEL_MAP:
        for (size_t i = 0; i < v->v.map->n; i++)
            if (has_bad_utf8(&v->v.map->keys[i]) || has_bad_utf8(&v->v.map->vals[i]))
                return true;
        return false;
    default: return false;
    }
}

/* formatMap: the "key:value" texts sorted by the key's text (stable). */
static int cmp_entry_text(const void *x, const void *y)
{
    const dra_buf *a = *(const dra_buf *const *)x, *c = *(const dra_buf *const *)y;
    int r = strcmp(dra_buf_str(&a[0]), dra_buf_str(&c[0]));
    return r ? r : (a < c ? -1 : a > c);
}

static void fmt_map_s(dra_buf *b, const cel_map *m)
{
    dra_buf *txt = dra_xcalloc(m->n ? 2 * m->n : 1, sizeof *txt);
    const dra_buf **order = dra_xcalloc(m->n ? m->n : 1, sizeof *order);
    for (size_t i = 0; i < m->n; i++) {
        fmt_value_s(&txt[2 * i], &m->keys[i], true);
        fmt_value_s(&txt[2 * i + 1], &m->vals[i], true);
        order[i] = &txt[2 * i];
    }
    qsort(order, m->n, sizeof *order, cmp_entry_text);
    dra_buf_putc(b, '{');
    for (size_t i = 0; i < m->n; i++) {
        if (i)
            dra_buf_puts(b, ", ");
        dra_buf_append(b, dra_buf_str(&order[i][0]), order[i][0].len);
        dra_buf_putc(b, ':');
        dra_buf_append(b, dra_buf_str(&order[i][1]), order[i][1].len);
    }
    dra_buf_putc(b, '}');
    for (size_t i = 0; i < 2 * m->n; i++)
        dra_buf_free(&txt[i]);
    free(txt);
    free(order);
}

static void fmt_value_s(dra_buf *b, const cel_value *v, bool nested)
{
    switch (v->kind) {
    case CEL_STRING:
        if (nested) {
            cel_value_format(v, b);
            return;
        }
        dra_buf_append(b, v->v.s.ptr, v->v.s.len);
        return;
    case CEL_BYTES:
        if (nested) {
            cel_value_format(v, b);
            return;
        }
        dra_buf_append(b, v->v.s.ptr, v->v.s.len);
        return;
    case CEL_DOUBLE: /* quoteForCEL quotes a nested "+Inf", "-Inf" or "NaN" */
        if (isnan(v->v.d) || isinf(v->v.d)) {
            if (nested)
                dra_buf_putc(b, '"');
            fmt_double_go(b, v->v.d);
            if (nested)
                dra_buf_putc(b, '"');
        } else if (nested) {
            fmt_double_go(b, v->v.d);
        } else {
            cel_double_format(v->v.d, b);
        }
        return;
    case CEL_UINT: dra_buf_printf(b, "%" PRIu64, v->v.u); return;
    case CEL_TYPE: dra_buf_puts(b, cel_type_runtime_name(v->v.type)); return;
    case CEL_TIMESTAMP:
        if (nested) {
            cel_value_format(v, b);
            return;
        }
        cel_timestamp_format(v->v.t.sec, v->v.t.nsec, b);
        return;
    case CEL_DURATION:
        if (nested) {
            cel_value_format(v, b);
            return;
        }
        cel_duration_format(v->v.t.sec, v->v.t.nsec, b);
        return;
    case CEL_LIST:
        dra_buf_putc(b, '[');
        for (size_t i = 0; i < v->v.list->n; i++) {
            if (i)
                dra_buf_puts(b, ", ");
            fmt_value_s(b, &cel_list_items(v->v.list)[i], true);
        }
        dra_buf_putc(b, ']');
        return;
    case CEL_MAP: fmt_map_s(b, v->v.map); return;
    default: cel_value_format(v, b);
    }
}

static void put_radix(dra_buf *b, uint64_t u, unsigned base, bool upper, bool neg)
{
    char tmp[80];
    size_t k = sizeof tmp;
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
        tmp[--k] = digits[u % base];
        u /= base;
    } while (u);
    if (neg)
        dra_buf_putc(b, '-');
    dra_buf_append(b, tmp + k, sizeof tmp - k);
}

F(format)
{
    const char *f = a[0].v.s.ptr;
    size_t len = a[0].v.s.len;
    const cel_list *args = a[1].v.list;
    size_t argi = 0;
    dra_buf b = DRA_BUF_INIT;
    cel_value err = {0};
    for (size_t i = 0; i < len && !err.kind; i++) {
        if (f[i] != '%') {
            dra_buf_putc(&b, f[i]);
            continue;
        }
        i++;
        if (i >= len) {
            err = cel_error("unexpected end of format string");
            break;
        }
        if (f[i] == '%') {
            dra_buf_putc(&b, '%');
            continue;
        }
        int prec = -1;
        if (f[i] == '.') {
            prec = 0;
            i++;
            while (i < len && f[i] >= '0' && f[i] <= '9') {
                prec = prec * 10 + (f[i] - '0');
                if (prec > 1000)
                    prec = 1000;
                i++;
            }
            if (i >= len) {
                err = cel_error("unexpected end of format string");
                break;
            }
        }
        char verb = f[i];
        if (argi >= args->n) {
            err = cel_errorf_s(cx->scratch, "index %zu out of range", argi);
            break;
        }
        const cel_value *v = &cel_list_items(args)[argi++];
        switch (verb) {
        case 's':
            if (has_bad_utf8(v))
                err = cel_error("error during formatting: could not convert argument \"invalid UTF-8 in bytes, cannot "
                                "convert to string\" to string");
            else
                fmt_value_s(&b, v, false);
            break;
        case 'd':
            if (v->kind == CEL_INT)
                dra_buf_printf(&b, "%" PRId64, v->v.i);
            else if (v->kind == CEL_UINT)
                dra_buf_printf(&b, "%" PRIu64, v->v.u);
            else
                err = cel_errorf_s(cx->scratch,
                                   "error during formatting: decimal clause can only be used on integers, was given %s",
                                   cel_value_type_name(v));
            break;
        case 'f':
        case 'e': {
            /* a double, or the strings "NaN", "Infinity", "-Infinity" */
            double d;
            if (v->kind == CEL_DOUBLE)
                d = v->v.d;
            else if (v->kind == CEL_STRING && str_is(v, "NaN"))
                d = NAN;
            else if (v->kind == CEL_STRING && (str_is(v, "Infinity") || str_is(v, "-Infinity")))
                d = v->v.s.ptr[0] == '-' ? -INFINITY : INFINITY;
            else {
                err = cel_errorf_s(cx->scratch,
                                   "error during formatting: %s clause can only be used on doubles, was given %s",
                                   verb == 'f' ? "fixed-point" : "scientific", cel_value_type_name(v));
                break;
            }
            if (verb == 'f')
                fmt_double_fixed(&b, d, prec < 0 ? 6 : prec);
            else
                fmt_double_scientific(&b, d, prec < 0 ? 6 : prec);
            break;
        }
        case 'b':
        case 'o':
        case 'x':
        case 'X': {
            unsigned base = verb == 'b' ? 2 : verb == 'o' ? 8 : 16;
            bool upper = verb == 'X';
            if (v->kind == CEL_INT)
                put_radix(&b, v->v.i < 0 ? (uint64_t)0 - (uint64_t)v->v.i : (uint64_t)v->v.i, base, upper, v->v.i < 0);
            else if (v->kind == CEL_UINT)
                put_radix(&b, v->v.u, base, upper, false);
            else if (v->kind == CEL_BOOL && verb == 'b')
                dra_buf_putc(&b, v->v.b ? '1' : '0');
            else if ((v->kind == CEL_STRING || v->kind == CEL_BYTES) && base == 16)
                for (size_t j = 0; j < v->v.s.len; j++)
                    dra_buf_printf(&b, upper ? "%02X" : "%02x", (unsigned char)v->v.s.ptr[j]);
            else
                err = cel_errorf_s(cx->scratch,
                                   "error during formatting: only integers%s can be formatted with %%%c, was given %s",
                                   base == 16 ? ", byte buffers, and strings" : "", verb, cel_value_type_name(v));
            break;
        }
        default:
            err = cel_errorf_s(cx->scratch, "could not parse formatting clause: unrecognized formatting clause \"%c\"",
                               verb);
        }
    }
    if (err.kind) {
        dra_buf_free(&b);
        return err;
    }
    cel_value r = cel_string_copy_s(cx->scratch, dra_buf_str(&b), b.len);
    dra_buf_free(&b);
    return r;
}

#define S (&cel_t_string)
#define I (&cel_t_int)
/* Strings versions below 5 have no cost trackers or estimators of their
 * own (cel-go ext/strings.go): a call costs 1, unless the Kubernetes
 * estimator prices it by name (functions.c cel_k8s_call_cost); quote and
 * format traverse their string (interpreter/runtimecost.go costCall,
 * checker/cost.go functionCost: ExtQuoteString, ExtFormatString). */
/* clang-format off */
#define X(id, fn, mem, res, impl, lib, n, ...) {id, fn, mem, n, {__VA_ARGS__}, res, impl, CEL_COST_ONE, 0, NULL, lib, false}
#define XT(id, fn, mem, res, impl, lib, n, ...) {id, fn, mem, n, {__VA_ARGS__}, res, impl, CEL_COST_TRAVERSE0, 0.1, NULL, lib, false}
/* clang-format on */
const cel_overload cel_lib_strings[] = {
    X("string_char_at_int", "charAt", true, S, char_at, CEL_LIB_STRINGS, 2, S, I),
    X("string_index_of_string", "indexOf", true, I, index_of2, CEL_LIB_STRINGS, 2, S, S),
    X("string_index_of_string_int", "indexOf", true, I, index_of3, CEL_LIB_STRINGS, 3, S, S, I),
    X("string_last_index_of_string", "lastIndexOf", true, I, last_index_of2, CEL_LIB_STRINGS, 2, S, S),
    X("string_last_index_of_string_int", "lastIndexOf", true, I, last_index_of3, CEL_LIB_STRINGS, 3, S, S, I),
    X("string_lower_ascii", "lowerAscii", true, S, lower_ascii, CEL_LIB_STRINGS, 1, S),
    X("string_upper_ascii", "upperAscii", true, S, upper_ascii, CEL_LIB_STRINGS, 1, S),
    X("string_replace_string_string", "replace", true, S, replace3, CEL_LIB_STRINGS, 3, S, S, S),
    X("string_replace_string_string_int", "replace", true, S, replace4, CEL_LIB_STRINGS, 4, S, S, S, I),
    X("string_split_string", "split", true, &cel_t_list_string, split2, CEL_LIB_STRINGS, 2, S, S),
    X("string_split_string_int", "split", true, &cel_t_list_string, split3, CEL_LIB_STRINGS, 3, S, S, I),
    X("string_substring_int", "substring", true, S, substring2, CEL_LIB_STRINGS, 2, S, I),
    X("string_substring_int_int", "substring", true, S, substring3, CEL_LIB_STRINGS, 3, S, I, I),
    X("string_trim", "trim", true, S, trim, CEL_LIB_STRINGS, 1, S),
    X("list_join", "join", true, S, join1, CEL_LIB_STRINGS, 1, &cel_t_list_string),
    X("list_join_string", "join", true, S, join2, CEL_LIB_STRINGS, 2, &cel_t_list_string, S),
    XT("strings_quote", "strings.quote", false, S, quote, CEL_LIB_STRINGS, 1, S),
    XT("string_format", "format", true, S, format, CEL_LIB_STRINGS, 2, S, &cel_t_list_dyn),
    X("string_reverse", "reverse", true, S, reverse, CEL_LIB_STRINGS_V3, 1, S),
};
const size_t cel_lib_strings_n = sizeof cel_lib_strings / sizeof cel_lib_strings[0];
