/* Compact JSON: jansson's bytes (jline.h) and this project's text read back
 * by its own parsers (dra_json_write_compact, json.h), one walk for both. */
#include "jline.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "json.h"
#include "tape.h"

/* Room for n more bytes; the caller then writes at b->data + b->len.  The
 * test is dra_buf_grow's, here where it is inlined: most calls need no
 * growth. */
static char *room(dra_buf *b, size_t n)
{
    if (b->cap - b->len <= n)
        dra_buf_grow(b, n);
    return b->data + b->len;
}

static void put(dra_buf *b, const char *p, size_t n)
{
    memcpy(room(b, n), p, n);
    b->len += n;
}

static void put1(dra_buf *b, char c)
{
    *room(b, 1) = c;
    b->len++;
}

/* Bytes a string cannot hold as they are: 1 escaped (control characters,
 * '"' and '\\'), 2 not ASCII. */
#define ROW(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
/* clang-format off */
static const unsigned char byte_class[256] = {
    ROW(1), ROW(1),
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x22 '"' */
    ROW(0), ROW(0),
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x5c '\\' */
    ROW(0), ROW(0),
    ROW(2), ROW(2), ROW(2), ROW(2), ROW(2), ROW(2), ROW(2), ROW(2),
};
/* clang-format on */
#undef ROW

static bool put_string(dra_buf *b, const char *s, size_t n, bool jansson)
{
    static const char hex[] = "0123456789ABCDEF", lower[] = "0123456789abcdef";
    const unsigned char *cls = byte_class;
    const unsigned char *u = (const unsigned char *)s;
    char *out = room(b, n + 2);
    *out++ = '"';
    size_t i = 0;
    while (i < n && !cls[u[i]])
        *out++ = (char)u[i++];
    b->len = (size_t)(out - b->data);
    if (i == n) {
        put1(b, '"');
        return true;
    }
    bool ascii = true;
    size_t run = i;
    for (; i < n; i++) {
        unsigned char c = u[i];
        if (!cls[c])
            continue;
        if (cls[c] == 2) {
            ascii = false;
            continue;
        }
        put(b, s + run, i - run);
        run = i + 1;
        const char *digits = jansson ? hex : lower;
        char esc[6] = {'\\', 0, '0', '0', digits[c >> 4], digits[c & 15]};
        size_t len = 2;
        switch (jansson || c == '"' || c == '\\' ? c : 0) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default: esc[1] = 'u', len = 6; break;
        }
        put(b, esc, len);
    }
    put(b, s + run, n - run);
    put1(b, '"');
    return ascii || !jansson || dra_utf8_valid(s, n);
}

static void put_integer(dra_buf *b, json_int_t v)
{
    char num[24];
    char *e = num + sizeof num, *p = e;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    put(b, p, (size_t)(e - p));
}

static void put_real(dra_buf *b, double d, bool jansson)
{
    char num[48];
    int n = snprintf(num, sizeof num, "%.17g", d);
    if (n <= 0 || (size_t)n >= sizeof num - 2)
        return;
    if (!strchr(num, '.') && !strchr(num, 'e')) {
        memcpy(num + n, ".0", 3);
        n += 2;
    }
    char *start = jansson ? strchr(num, 'e') : NULL;
    if (start) { /* "1e+05" -> "1e5", "1e-05" -> "1e-5" */
        start++;
        char *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, (size_t)(num + n - end) + 1);
            n -= (int)(end - start);
        }
    }
    put(b, num, (size_t)n);
}

/* v in either style: jansson's (jline.h) or dra_json_write_compact's (json.h). */
static bool put_value(dra_buf *b, const json_t *v, bool jansson)
{
    bool ok = true;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        put1(b, '{');
        /* the iterator walked as it is (json_object_keylen_foreach finds
         * it again from the key at every step) */
        bool first = true;
        for (void *it = json_object_iter((json_t *)v); it; it = json_object_iter_next((json_t *)v, it)) {
            if (!first)
                put1(b, ',');
            first = false;
            ok = put_string(b, json_object_iter_key(it), json_object_iter_key_len(it), jansson) && ok;
            put1(b, ':');
            ok = put_value(b, json_object_iter_value(it), jansson) && ok;
        }
        put1(b, '}');
        break;
    }
    case JSON_ARRAY:
        put1(b, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                put1(b, ',');
            ok = put_value(b, json_array_get(v, i), jansson) && ok;
        }
        put1(b, ']');
        break;
    case JSON_STRING: ok = put_string(b, json_string_value(v), json_string_length(v), jansson); break;
    case JSON_INTEGER: put_integer(b, json_integer_value(v)); break;
    case JSON_REAL: put_real(b, json_real_value(v), jansson); break;
    case JSON_TRUE: put(b, "true", 4); break;
    case JSON_FALSE: put(b, "false", 5); break;
    default: put(b, "null", 4); break;
    }
    if (b->data)
        b->data[b->len] = '\0';
    return ok;
}

bool dra_json_write_line(dra_buf *b, const json_t *v)
{
    return put_value(b, v, true);
}

void dra_json_write_compact(dra_buf *b, const json_t *v)
{
    put_value(b, v, false);
}

bool dra_json_write_line_string(dra_buf *b, const char *s, size_t n)
{
    bool ok = put_string(b, s, n, true);
    b->data[b->len] = '\0';
    return ok;
}

static bool put_tape(dra_buf *b, const dra_tape *t, size_t i)
{
    const dra_tape_tok *k = &t->tok[i];
    if (k->plain && (k->type == DRA_TAPE_STRING || k->type == DRA_TAPE_OBJECT || k->type == DRA_TAPE_ARRAY)) {
        put(b, t->text + k->off, k->type == DRA_TAPE_STRING ? k->n + 2 : (size_t)(k->v.end - k->off));
        return true;
    }
    switch ((dra_tape_type)k->type) {
    case DRA_TAPE_OBJECT: {
        if (!dra_tape_keys_unique(t, i))
            return false;
        put1(b, '{');
        size_t j = i + 1;
        for (uint32_t m = 0; m < k->n; m++) {
            if (m)
                put1(b, ',');
            if (!put_string(b, t->tok[j].v.s, t->tok[j].n, true))
                return false;
            put1(b, ':');
            if (!put_tape(b, t, j + 1))
                return false;
            j = dra_tape_skip(t, j + 1);
        }
        put1(b, '}');
        return true;
    }
    case DRA_TAPE_ARRAY: {
        put1(b, '[');
        size_t j = i + 1;
        for (uint32_t e = 0; e < k->n; e++) {
            if (e)
                put1(b, ',');
            if (!put_tape(b, t, j))
                return false;
            j = dra_tape_skip(t, j);
        }
        put1(b, ']');
        return true;
    }
    case DRA_TAPE_STRING: return put_string(b, k->v.s, k->n, true);
    case DRA_TAPE_INT: put_integer(b, k->v.i); return true;
    case DRA_TAPE_REAL: put_real(b, k->v.d, true); return true;
    case DRA_TAPE_TRUE: put(b, "true", 4); return true;
    case DRA_TAPE_FALSE: put(b, "false", 5); return true;
    case DRA_TAPE_NULL: put(b, "null", 4); return true;
    }
    return false;
}

bool dra_json_write_line_tape(dra_buf *b, const dra_tape *t, size_t i)
{
    bool ok = put_tape(b, t, i);
    if (b->data)
        b->data[b->len] = '\0';
    return ok;
}
