/* Repeated keys of a JSON document by path; see jdups.h. */
#include "jdups.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hash.h"

typedef struct scan {
    const char *p;
    size_t n, i;
    int max_depth;
    dra_buf path; /* the current value's path: a.b[0].c */
    char *first;  /* the first repeat outside a RawExtension */
    bool found;   /* a repeat anywhere */
} scan;

static void space(scan *s)
{
    while (s->i < s->n && (s->p[s->i] == ' ' || s->p[s->i] == '\t' || s->p[s->i] == '\n' || s->p[s->i] == '\r'))
        s->i++;
}

/* A string token at s->i: its end (after the closing quote), or 0. */
static size_t string_end(const scan *s)
{
    size_t i = s->i + 1;
    while (i < s->n && s->p[i] != '"')
        i += s->p[i] == '\\' ? 2 : 1;
    return i < s->n ? i + 1 : 0;
}

/* Whether the path (a.b[0].c) is a RawExtension's: kept as bytes. */
static bool raw_extension(const char *path, size_t len)
{
    static const char params[] = "opaque.parameters";
    size_t pl = sizeof params - 1;
    if (len >= pl && strcmp(path + len - pl, params) == 0 && (len == pl || path[len - pl - 1] == '.'))
        return true;
    /* a claim's status.devices[N].data */
    if (strncmp(path, "status.devices[", 15) != 0)
        return false;
    const char *r = strchr(path + 15, ']');
    return r && strcmp(r, "].data") == 0;
}

static bool value(scan *s, int depth, bool raw);

static bool object(scan *s, int depth, bool raw)
{
    dra_strset keys = {0};
    bool ok = false;
    s->i++;
    space(s);
    if (s->i < s->n && s->p[s->i] == '}') {
        s->i++;
        return true;
    }
    for (;;) {
        space(s);
        if (s->i >= s->n || s->p[s->i] != '"')
            break;
        size_t end = string_end(s);
        if (!end)
            break;
        json_t *k = json_loadb(s->p + s->i, end - s->i, JSON_DECODE_ANY, NULL);
        if (!json_is_string(k)) {
            json_decref(k);
            break;
        }
        size_t plen = s->path.len;
        if (plen)
            dra_buf_putc(&s->path, '.');
        dra_buf_append(&s->path, json_string_value(k), json_string_length(k));
        bool added;
        dra_strset_add(&keys, json_string_value(k), strlen(json_string_value(k)), &added);
        json_decref(k);
        if (!added) {
            s->found = true;
            if (!raw && !s->first)
                s->first = dra_xstrdup(s->path.data);
        }
        s->i = end;
        space(s);
        if (s->i >= s->n || s->p[s->i] != ':')
            break;
        s->i++;
        bool inner_raw = raw || raw_extension(s->path.data, s->path.len);
        if (!value(s, depth + 1, inner_raw))
            break;
        s->path.len = plen;
        if (s->path.data)
            s->path.data[plen] = '\0';
        space(s);
        if (s->i < s->n && s->p[s->i] == ',') {
            s->i++;
            continue;
        }
        ok = s->i < s->n && s->p[s->i] == '}';
        s->i++;
        break;
    }
    dra_strset_free(&keys);
    return ok;
}

static bool array(scan *s, int depth, bool raw)
{
    s->i++;
    space(s);
    if (s->i < s->n && s->p[s->i] == ']') {
        s->i++;
        return true;
    }
    for (size_t idx = 0;; idx++) {
        size_t plen = s->path.len;
        dra_buf_printf(&s->path, "[%zu]", idx);
        if (!value(s, depth + 1, raw))
            return false;
        s->path.len = plen;
        s->path.data[plen] = '\0';
        space(s);
        if (s->i < s->n && s->p[s->i] == ',') {
            s->i++;
            continue;
        }
        bool ok = s->i < s->n && s->p[s->i] == ']';
        s->i++;
        return ok;
    }
}

static bool value(scan *s, int depth, bool raw)
{
    if (depth > s->max_depth)
        return false;
    space(s);
    if (s->i >= s->n)
        return false;
    switch (s->p[s->i]) {
    case '{': return object(s, depth, raw);
    case '[': return array(s, depth, raw);
    case '"': {
        size_t end = string_end(s);
        s->i = end;
        return end != 0;
    }
    default: /* numbers and literals: jansson has checked them */
        while (s->i < s->n && !strchr(",]} \t\r\n", s->p[s->i]))
            s->i++;
        return true;
    }
}

bool dra_json_first_duplicate(const char *p, size_t n, int max_depth, char **first)
{
    scan s = {.p = p, .n = n, .max_depth = max_depth, .path = DRA_BUF_INIT};
    bool ok = value(&s, 0, false);
    dra_buf_free(&s.path);
    if (!ok || !s.found) {
        free(s.first);
        *first = NULL;
        return false;
    }
    *first = s.first;
    return true;
}
