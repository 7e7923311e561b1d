/* The line of a field in the text an object was read from; see
 * dra_obj_field_line() in stream.h.
 *
 * Reading records only where each document starts; a field's line is found
 * when an error asks for it, by parsing that one document again with libyaml
 * (JSON is YAML's flow style, so one walker serves both) and following the
 * path through the events without building values. */
#include "stream.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "base/buf.h"
#include "yaml_resolve.h"

#define MAX_SEGS (DRA_MAX_DEPTH + 2)

typedef struct seg {
    char *key; /* NULL for an index */
    long index;
} seg;

/* a.b[3].c["x/y"] or a.b[x/y] -> segments; returns how many (at most max). */
static size_t parse_path(const char *p, seg *out, size_t max)
{
    size_t n = 0;
    while (*p && n < max) {
        if (*p == '.') {
            p++;
            continue;
        }
        if (*p == '[') {
            p++;
            if (*p == '"') {
                p++;
                char *k = dra_xmalloc(strlen(p) + 1);
                size_t kl = 0;
                while (*p && *p != '"') {
                    if (*p == '\\' && p[1])
                        p++;
                    k[kl++] = *p++;
                }
                k[kl] = 0;
                if (*p == '"')
                    p++;
                if (*p == ']')
                    p++;
                out[n++] = (seg){k, -1};
                continue;
            }
            const char *end = strchr(p, ']');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            bool digits = len > 0 && len < 10;
            for (size_t i = 0; i < len && digits; i++)
                digits = isdigit((unsigned char)p[i]);
            if (digits)
                out[n++] = (seg){NULL, strtol(p, NULL, 10)};
            else
                out[n++] = (seg){dra_xstrndup(p, len), -1};
            p += len;
            if (*p == ']')
                p++;
            continue;
        }
        size_t len = strcspn(p, ".[");
        out[n++] = (seg){dra_xstrndup(p, len), -1};
        p += len;
    }
    return n;
}

typedef struct walker {
    yaml_parser_t parser;
    const seg *segs;
    size_t n;
    size_t best_depth; /* segments matched so far (the prefix counts as none) */
    int best_line;     /* 0-based line in the parsed text */
    bool stop;         /* the whole path was found, or the text ended */
    bool want_text;    /* keep the text of the scalar at the whole path */
    char *text;        /* that text, when it is a plain scalar (owned) */
} walker;

static bool next(walker *w, yaml_event_t *ev)
{
    if (w->stop || !yaml_parser_parse(&w->parser, ev)) {
        w->stop = true;
        return false;
    }
    return true;
}

static void record(walker *w, size_t depth, const yaml_mark_t *m)
{
    if (depth > w->best_depth) {
        w->best_depth = depth;
        w->best_line = (int)m->line;
    }
    if (depth >= w->n)
        w->stop = true;
}

/* Consume the node that starts with ev (ev included). */
static void skip_node(walker *w, yaml_event_t *ev)
{
    int depth = ev->type == YAML_MAPPING_START_EVENT || ev->type == YAML_SEQUENCE_START_EVENT;
    yaml_event_delete(ev);
    while (depth > 0) {
        yaml_event_t e;
        if (!next(w, &e))
            return;
        if (e.type == YAML_MAPPING_START_EVENT || e.type == YAML_SEQUENCE_START_EVENT)
            depth++;
        else if (e.type == YAML_MAPPING_END_EVENT || e.type == YAML_SEQUENCE_END_EVENT)
            depth--;
        yaml_event_delete(&e);
    }
}

static bool is_key(const seg *s, const char *k)
{
    return s && s->key && strcmp(s->key, k) == 0;
}

/* Follow segs[idx...] into the node that starts with ev (consumed). */
static void walk(walker *w, yaml_event_t *ev, size_t idx, int depth)
{
    if (w->want_text && idx == w->n && !w->text && ev->type == YAML_SCALAR_EVENT &&
        ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        w->text = dra_xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
    if (w->stop || depth > DRA_MAX_DEPTH) {
        skip_node(w, ev);
        return;
    }
    const seg *s = idx < w->n ? &w->segs[idx] : NULL;
    if (ev->type == YAML_MAPPING_START_EVENT) {
        yaml_event_delete(ev);
        for (;;) {
            yaml_event_t k, v;
            if (!next(w, &k))
                return;
            if (k.type == YAML_MAPPING_END_EVENT) {
                yaml_event_delete(&k);
                return;
            }
            char *key = k.type == YAML_SCALAR_EVENT
                            ? dra_xstrndup((const char *)k.data.scalar.value, k.data.scalar.length)
                            : NULL;
            yaml_mark_t km = k.start_mark;
            if (key)
                yaml_event_delete(&k);
            else
                skip_node(w, &k);
            if (!next(w, &v)) {
                free(key);
                return;
            }
            const seg *s2 = idx + 1 < w->n ? &w->segs[idx + 1] : NULL;
            if (key && is_key(s, key)) {
                record(w, idx + 1, &km);
                walk(w, &v, idx + 1, depth + 1);
            } else if (key && is_key(s, "exactly") && is_key(s2, key)) {
                /* a v1 path into a v1beta1 request, which has no `exactly` */
                record(w, idx + 2, &km);
                walk(w, &v, idx + 2, depth + 1);
            } else if (key && strcmp(key, "basic") == 0 && !is_key(s, "basic")) {
                /* a v1 path into a v1beta1 device, whose fields are under `basic` */
                walk(w, &v, idx, depth + 1);
            } else {
                skip_node(w, &v);
            }
            free(key);
            if (w->stop)
                return;
        }
    }
    if (ev->type == YAML_SEQUENCE_START_EVENT) {
        yaml_event_delete(ev);
        for (long i = 0;; i++) {
            yaml_event_t e;
            if (!next(w, &e))
                return;
            if (e.type == YAML_SEQUENCE_END_EVENT) {
                yaml_event_delete(&e);
                return;
            }
            if (s && !s->key && s->index == i) {
                record(w, idx + 1, &e.start_mark);
                walk(w, &e, idx + 1, depth + 1);
            } else {
                skip_node(w, &e);
            }
            if (w->stop)
                return;
        }
    }
    yaml_event_delete(ev);
}

size_t dra_source_line_start(dra_source *src, int line)
{
    if (!src->line_off) {
        size_t n = 1;
        for (const char *p = src->data, *end = src->data + src->len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
            n++;
        src->line_off = dra_xmalloc(n * sizeof *src->line_off);
        src->nlines = 0;
        src->line_off[src->nlines++] = 0;
        for (size_t i = 0; i < src->len; i++)
            if (src->data[i] == '\n')
                src->line_off[src->nlines++] = i + 1;
    }
    if (line < 1 || (size_t)line > src->nlines)
        return SIZE_MAX;
    return src->line_off[line - 1];
}

/* A regular file's text is not held after reading: read it again, once,
 * when a line is asked for, if it is still the file that was read. */
static bool source_text(dra_source *src)
{
    if (src->data)
        return true;
    if (!src->path)
        return false;
    struct stat st;
    if (stat(src->path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != src->len ||
        (long long)((unsigned long long)st.st_mtim.tv_sec * 1000000000u + (unsigned long long)st.st_mtim.tv_nsec) !=
            src->mtime_ns)
        return false;
    dra_buf b = DRA_BUF_INIT;
    dra_err *e = dra_buf_read_path(&b, src->path, src->len + 1);
    if (e || b.len != src->len) {
        dra_err_free(e);
        dra_buf_free(&b);
        return false;
    }
    src->data = b.data ? b.data : dra_xstrdup("");
    return true;
}

/* The text after a document's start, handed to libyaml a little at a time:
 * given the whole rest of a file at once, it decodes 16 KiB ahead, and a
 * lookup in a short document (a JSON Lines object) costs that each time. */
typedef struct chunked {
    const char *p;
    size_t left;
} chunked;

static int read_chunk(void *data, unsigned char *buf, size_t size, size_t *got)
{
    chunked *c = data;
    size_t n = size < 1024 ? size : 1024;
    if (n > c->left)
        n = c->left;
    memcpy(buf, c->p, n);
    c->p += n;
    c->left -= n;
    *got = n;
    return 1;
}

/* The line of path in o's text (0: not found); with text, the text of the
 * plain scalar found there in a JSON document (NULL when none). */
static int field_find(const dra_obj *o, const char *path, char **text)
{
    if (text)
        *text = NULL;
    if (!o || !o->src || !path || o->src_line < 1)
        return 0;
    /* the text and the line index come on first use: the source is the set's own */
    dra_source *src = (dra_source *)o->src;
    if (!source_text(src))
        return 0;
    size_t off = o->src_off != SIZE_MAX ? o->src_off : dra_source_line_start(src, o->src_line);
    if (off == SIZE_MAX || off > src->len)
        return 0;
    seg segs[MAX_SEGS];
    size_t prefix = 0;
    if (o->src_path) {
        prefix = parse_path(o->src_path, segs, MAX_SEGS);
    } else if (o->item >= 0 && !o->src_item) {
        segs[0] = (seg){dra_xstrdup("items"), -1};
        segs[1] = (seg){NULL, o->item};
        prefix = 2;
    }
    size_t n = prefix + parse_path(path, segs + prefix, MAX_SEGS - prefix);
    walker w = {0};
    int line = 0;
    chunked in = {src->data + off, src->len - off};
    bool json_doc = false;
    if (text) {
        size_t i = off;
        while (i < src->len && src->data[i] && strchr(" \t\r\n", src->data[i]))
            i++;
        json_doc = i < src->len && (src->data[i] == '{' || src->data[i] == '[');
        w.want_text = true;
    }
    if (yaml_parser_initialize(&w.parser)) {
        yaml_parser_set_input(&w.parser, read_chunk, &in);
        yaml_event_t ev;
        /* stream start, document start, then the root */
        bool ok = next(&w, &ev) && (yaml_event_delete(&ev), next(&w, &ev));
        if (ok && ev.type == YAML_DOCUMENT_START_EVENT) {
            yaml_event_delete(&ev);
            if (next(&w, &ev)) {
                size_t start = 0;
                if (prefix && ev.type == YAML_SEQUENCE_START_EVENT)
                    start = 1; /* a bare array of objects: [item] */
                w.segs = segs + start;
                w.n = n - start;
                w.best_depth = prefix - start;
                size_t base = w.best_depth;
                walk(&w, &ev, 0, 1);
                if (w.best_depth > base)
                    line = w.best_line + o->src_line;
            }
        } else if (ok) {
            yaml_event_delete(&ev);
        }
        yaml_parser_delete(&w.parser);
    }
    for (size_t i = 0; i < n; i++)
        free(segs[i].key);
    if (w.text && !json_doc) {
        /* YAML's scalars reach the API server as JSON's: an unsigned
         * integer past int64 keeps digits its value here lacks, a float is
         * encoding/json's text of it */
        char *digits = dra_yaml_plain_number_text(w.text);
        free(w.text);
        w.text = digits;
    }
    if (text && line)
        *text = w.text;
    else
        free(w.text);
    return line;
}

int dra_obj_field_line(const dra_obj *o, const char *path)
{
    return field_find(o, path, NULL);
}

char *dra_obj_field_literal(const dra_obj *o, const char *path)
{
    char *text;
    field_find(o, path, &text);
    return text;
}
