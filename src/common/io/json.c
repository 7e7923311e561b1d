/* JSON getters; see json.h. */
#include "json.h"

#include <stdarg.h>
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

json_t *dra_jstrings(size_t n, ...)
{
    va_list ap;
    va_start(ap, n);
    json_t *o = json_object();
    for (size_t i = 0; i < n && o; i++) {
        const char *k = va_arg(ap, const char *), *v = va_arg(ap, const char *);
        json_t *s = v ? json_string(v) : NULL;
        if (!s) {
            json_decref(o);
            o = NULL;
        } else {
            json_object_set_new_nocheck(o, k, s);
        }
    }
    va_end(ap);
    return o;
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
