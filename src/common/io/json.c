/* JSON getters; see json.h. */
#include "json.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

json_t *dra_jget(const json_t *o, const char *path)
{
    const char *p = path;
    json_t *cur = (json_t *)o;
    while (cur && *p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (!json_is_object(cur))
            return NULL;
        cur = json_object_getn(cur, p, len);
        p += len + (dot ? 1 : 0);
    }
    return cur;
}

const char *dra_jstr(const json_t *o, const char *path)
{
    return json_string_value(dra_jget(o, path));
}

const char *dra_jstr_or(const json_t *o, const char *path, const char *dflt)
{
    const char *s = dra_jstr(o, path);
    return s ? s : dflt;
}

bool dra_jtrue(const json_t *o, const char *path)
{
    return json_is_true(dra_jget(o, path));
}

json_t *dra_jarr(const json_t *o, const char *path)
{
    json_t *a = dra_jget(o, path);
    return json_is_array(a) ? a : NULL;
}

void dra_jset_new(json_t *o, const char *path, json_t *value)
{
    const char *p = path;
    json_t *cur = o;
    for (;;) {
        const char *dot = strchr(p, '.');
        if (!dot) {
            json_object_set_new(cur, p, value);
            return;
        }
        char *key = dra_xstrndup(p, (size_t)(dot - p));
        json_t *next = json_object_get(cur, key);
        if (!json_is_object(next)) {
            next = json_object();
            json_object_set_new(cur, key, next);
        }
        free(key);
        cur = next;
        p = dot + 1;
    }
}

const json_t *dra_jfield(const json_t *o, const char *key)
{
    if (!json_is_object(o))
        return NULL;
    const json_t *v = json_object_get(o, key);
    return json_is_null(v) ? NULL : v;
}

const char *dra_jfield_str(const json_t *o, const char *key)
{
    return json_string_value(dra_jfield(o, key));
}

bool dra_jfield_true(const json_t *o, const char *key)
{
    return json_is_true(dra_jfield(o, key));
}

const char *dra_json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER: return "integer";
    case JSON_REAL: return "number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    default: return "null";
    }
}

static void write_string(dra_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    dra_buf_putc(b, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        dra_buf_append(b, s + run, i - run);
        run = i + 1;
        char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        if (c == '"' || c == '\\')
            dra_buf_append(b, (char[]){'\\', (char)c}, 2);
        else
            dra_buf_append(b, esc, sizeof esc);
    }
    dra_buf_append(b, s + run, n - run);
    dra_buf_putc(b, '"');
}

void dra_json_write_compact(dra_buf *b, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        dra_buf_putc(b, '{');
        const char *k;
        size_t klen;
        json_t *x;
        bool first = true;
        json_object_keylen_foreach((json_t *)v, k, klen, x)
        {
            if (!first)
                dra_buf_putc(b, ',');
            first = false;
            write_string(b, k, klen);
            dra_buf_putc(b, ':');
            dra_json_write_compact(b, x);
        }
        dra_buf_putc(b, '}');
        break;
    }
    case JSON_ARRAY:
        dra_buf_putc(b, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                dra_buf_putc(b, ',');
            dra_json_write_compact(b, json_array_get(v, i));
        }
        dra_buf_putc(b, ']');
        break;
    case JSON_STRING: write_string(b, json_string_value(v), json_string_length(v)); break;
    case JSON_INTEGER: dra_buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
    case JSON_REAL: {
        char num[40];
        int n = snprintf(num, sizeof num, "%.17g", json_real_value(v));
        if (n > 0 && (size_t)n < sizeof num && !strpbrk(num, ".eE"))
            strcat(num, ".0");
        dra_buf_puts(b, num);
        break;
    }
    case JSON_TRUE: dra_buf_puts(b, "true"); break;
    case JSON_FALSE: dra_buf_puts(b, "false"); break;
    default: dra_buf_puts(b, "null"); break;
    }
}
