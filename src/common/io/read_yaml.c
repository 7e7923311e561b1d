/* Reading YAML documents into objects.  See read_yaml.h. */
#include "read_yaml.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/buf.h"
#include "base/utf8.h"

typedef struct anchor {
    char *name;
    json_t *node;
} anchor;

typedef struct yaml_ctx {
    reader *r;
    yaml_parser_t parser;
    int doc;  /* the number of the document being read */
    int docs; /* the documents read that were not empty: kubectl's visitor
                 skips an empty or null one (k8s.io/cli-runtime
                 pkg/resource/visitor.go StreamVisitor), which no number counts */
    anchor *anchors;
    size_t nanchors, capanchors;
    size_t alias_nodes; /* produced by alias expansion in the whole input, all documents together */
    dra_buf path;       /* field path of the node being parsed, for messages */
} yaml_ctx;

static dra_err *yerr(yaml_ctx *y, const yaml_mark_t *m, const char *fmt, const char *what)
{
    return dra_err_at(dra_err_new(DRA_EXIT_INPUT, fmt, what), y->r->name, y->doc, (int)m->line + 1 + y->r->line_base,
                      (int)m->column + 1);
}

static void clear_anchors(yaml_ctx *y)
{
    for (size_t i = 0; i < y->nanchors; i++) {
        free(y->anchors[i].name);
        json_decref(y->anchors[i].node);
    }
    y->nanchors = 0;
}

static void set_anchor(yaml_ctx *y, const char *name, json_t *node)
{
    for (size_t i = 0; i < y->nanchors; i++) {
        if (strcmp(y->anchors[i].name, name) == 0) {
            json_decref(y->anchors[i].node);
            y->anchors[i].node = json_incref(node);
            return;
        }
    }
    if (y->nanchors == y->capanchors) {
        y->capanchors = y->capanchors ? y->capanchors * 2 : 8;
        y->anchors = dra_xrealloc(y->anchors, y->capanchors * sizeof *y->anchors);
    }
    y->anchors[y->nanchors++] = (anchor){dra_xstrdup(name), json_incref(node)};
}

static size_t count_nodes(const json_t *v, size_t limit)
{
    size_t n = 1;
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x) {
            n += count_nodes(x, limit);
            if (n > limit)
                return n;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            n += count_nodes(x, limit);
            if (n > limit)
                return n;
        }
    }
    return n;
}

static dra_err *parse_node(yaml_ctx *y, yaml_event_t *ev, int depth, json_t **out);

static bool next_event(yaml_ctx *y, yaml_event_t *ev, dra_err **err)
{
    if (!yaml_parser_parse(&y->parser, ev)) {
        const char *problem = y->parser.problem ? y->parser.problem : "unknown error";
        yaml_mark_t m = y->parser.problem_mark;
        if (y->parser.context) {
            char *msg = dra_xasprintf("invalid YAML: %s %s", problem, y->parser.context);
            *err = yerr(y, &m, "%s", msg);
            free(msg);
        } else {
            *err = yerr(y, &m, "invalid YAML: %s", problem);
        }
        return false;
    }
    return true;
}

static dra_err *merge_into(yaml_ctx *y, json_t *map, json_t *src, const yaml_mark_t *m)
{
    if (json_is_object(src)) {
        const char *k;
        json_t *v;
        json_object_foreach(src, k, v) {
            if (!json_object_get(map, k))
                json_object_set(map, k, v);
        }
        return NULL;
    }
    if (json_is_array(src)) {
        size_t i;
        json_t *v;
        json_array_foreach(src, i, v) {
            if (!json_is_object(v))
                return yerr(y, m, "%s", "map merge requires a map or a sequence of maps as the value");
            merge_into(y, map, v, m);
        }
        return NULL;
    }
    return yerr(y, m, "%s", "map merge requires a map or a sequence of maps as the value");
}

/* Whether a node's path is that of an item of a List in a List (or in a
 * document that is an array): "items[1].items[0]", "[2].items[0]". */
static bool in_nested_list(const char *path)
{
    int level = 0;
    for (const char *p = path; *p; level++) {
        if (level > 0 && *p++ != '.')
            return false;
        if (strncmp(p, "items[", 6) == 0)
            p += 5;
        else if (level > 0 || *p != '[')
            return false;
        p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
        if (*p++ != ']')
            return false;
    }
    return level > 1;
}

static dra_err *parse_mapping(yaml_ctx *y, yaml_event_t *start, int depth, json_t **out)
{
    json_t *map = json_object();
    yaml_mark_t start_mark = start->start_mark;
    if (depth <= 3 || in_nested_list(dra_buf_str(&y->path))) /* a document's root and the items of its Lists */
        dra_docs_note_line(y->r, map, (int)start_mark.line + 1 + y->r->line_base);
    char *anchor_name = start->data.mapping_start.anchor ? dra_xstrdup((char *)start->data.mapping_start.anchor) : NULL;
    yaml_event_delete(start);
    dra_err *e = NULL;
    json_t *merged = NULL; /* keys from "<<" merges; explicit keys win */
    for (;;) {
        yaml_event_t kev;
        if (!next_event(y, &kev, &e))
            break;
        if (kev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&kev);
            break;
        }
        yaml_mark_t key_mark = kev.start_mark;
        bool is_merge = kev.type == YAML_SCALAR_EVENT && kev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                        strcmp((char *)kev.data.scalar.value, "<<") == 0;
        json_t *key = NULL;
        if (kev.type == YAML_SCALAR_EVENT && kev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
            /* keys stay as written: "y" or "on" as a key is a name, not a boolean */
            key = json_stringn((const char *)kev.data.scalar.value, kev.data.scalar.length);
            if (kev.data.scalar.anchor && key)
                set_anchor(y, (const char *)kev.data.scalar.anchor, key);
            yaml_event_delete(&kev);
            if (!key) {
                e = yerr(y, &key_mark, "%s", "mapping key is not valid UTF-8");
                break;
            }
        } else {
            e = parse_node(y, &kev, depth + 1, &key);
            if (e)
                break;
        }
        char *keystr;
        if (json_is_string(key))
            keystr = dra_xstrdup(json_string_value(key));
        else if (json_is_integer(key))
            keystr = dra_xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(key));
        else if (json_is_real(key))
            keystr = dra_xasprintf("%g", json_real_value(key));
        else if (json_is_true(key))
            keystr = dra_xstrdup("true");
        else if (json_is_false(key))
            keystr = dra_xstrdup("false");
        else if (json_is_null(key))
            keystr = dra_xstrdup("null");
        else {
            json_decref(key);
            e = yerr(y, &key_mark, "%s", "mapping keys must be scalars");
            break;
        }
        json_decref(key);
        yaml_event_t vev;
        if (!next_event(y, &vev, &e)) {
            free(keystr);
            break;
        }
        json_t *val = NULL;
        size_t plen = y->path.len;
        if (plen)
            dra_buf_putc(&y->path, '.');
        dra_buf_puts(&y->path, keystr);
        e = parse_node(y, &vev, depth + 1, &val);
        if (e) {
            free(keystr);
            break;
        }
        if (!is_merge && json_object_get(map, keystr)) {
            /* kubectl's strict decoding: an error by default; with
             * --validate=warn a warning, with ignore nothing; the last
             * value wins as in sigs.k8s.io/yaml. */
            dra_buf text = DRA_BUF_INIT; /* sigs.k8s.io/json's strictError: the path strconv.Quote'd */
            dra_buf_puts(&text, "duplicate field ");
            dra_go_quote_echo(&text, y->path.data ? y->path.data : "", y->path.len);
            char *msg = dra_buf_detach(&text);
            dra_field_validation fv = y->r->set->field_validation;
            if (fv == DRA_FV_STRICT) {
                e = yerr(y, &key_mark, "%s", msg);
                free(msg);
                free(keystr);
                json_decref(val);
                break;
            }
            if (fv == DRA_FV_WARN)
                y->r->warnings = dra_err_append(y->r->warnings, yerr(y, &key_mark, "%s", msg));
            free(msg);
        }
        y->path.len = plen;
        if (y->path.data)
            y->path.data[plen] = 0;
        if (is_merge) {
            if (!merged)
                merged = json_object();
            e = merge_into(y, merged, val, &key_mark);
            json_decref(val);
            free(keystr);
            if (e)
                break;
            continue;
        }
        json_object_set_new(map, keystr, val);
        free(keystr);
    }
    if (merged && !e) {
        const char *k;
        json_t *v;
        json_object_foreach(merged, k, v) {
            if (!json_object_get(map, k))
                json_object_set(map, k, v);
        }
    }
    json_decref(merged);
    if (e) {
        json_decref(map);
        free(anchor_name);
        return e;
    }
    if (anchor_name)
        set_anchor(y, anchor_name, map);
    free(anchor_name);
    *out = map;
    return NULL;
}

static dra_err *parse_sequence(yaml_ctx *y, yaml_event_t *start, int depth, json_t **out)
{
    json_t *arr = json_array();
    char *anchor_name =
        start->data.sequence_start.anchor ? dra_xstrdup((char *)start->data.sequence_start.anchor) : NULL;
    yaml_event_delete(start);
    dra_err *e = NULL;
    for (;;) {
        yaml_event_t ev;
        if (!next_event(y, &ev, &e))
            break;
        if (ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        json_t *item = NULL;
        size_t plen = y->path.len;
        dra_buf_printf(&y->path, "[%zu]", json_array_size(arr));
        e = parse_node(y, &ev, depth + 1, &item);
        if (e)
            break;
        y->path.len = plen;
        y->path.data[plen] = 0;
        json_array_append_new(arr, item);
    }
    if (e) {
        json_decref(arr);
        free(anchor_name);
        return e;
    }
    if (anchor_name)
        set_anchor(y, anchor_name, arr);
    free(anchor_name);
    *out = arr;
    return NULL;
}

/* Consumes ev. */
static dra_err *parse_node(yaml_ctx *y, yaml_event_t *ev, int depth, json_t **out)
{
    if (depth > DRA_MAX_DEPTH) {
        dra_err *e = yerr(y, &ev->start_mark, "nesting deeper than %s levels", "64");
        yaml_event_delete(ev);
        return e;
    }
    switch (ev->type) {
    case YAML_MAPPING_START_EVENT: return parse_mapping(y, ev, depth, out);
    case YAML_SEQUENCE_START_EVENT: return parse_sequence(y, ev, depth, out);
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *)ev->data.alias.anchor;
        for (size_t i = y->nanchors; i-- > 0;) {
            if (strcmp(y->anchors[i].name, name) == 0) {
                size_t n = count_nodes(y->anchors[i].node, DRA_MAX_ALIAS_NODES);
                y->alias_nodes += n;
                if (y->alias_nodes > DRA_MAX_ALIAS_NODES) {
                    dra_err *e = yerr(y, &ev->start_mark,
                                      "YAML aliases expand to more than %s nodes in this input (all its documents "
                                      "together); refusing it",
                                      "100000");
                    yaml_event_delete(ev);
                    return e;
                }
                *out = json_deep_copy(y->anchors[i].node);
                yaml_event_delete(ev);
                return NULL;
            }
        }
        dra_err *e = yerr(y, &ev->start_mark, "unknown anchor '%s' referenced", name);
        yaml_event_delete(ev);
        return e;
    }
    case YAML_SCALAR_EVENT: {
        const char *s = (const char *)ev->data.scalar.value;
        size_t len = ev->data.scalar.length;
        const char *tag = (const char *)ev->data.scalar.tag;
        json_t *v = NULL;
        if (memchr(s, '\0', len)) {
            dra_err *e = yerr(y, &ev->start_mark, "%s", "NUL character in a scalar");
            yaml_event_delete(ev);
            return e;
        }
        bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (tag && strcmp(tag, YAML_STR_TAG) == 0)
            plain = false;
        if (plain || (tag && strncmp(tag, "tag:yaml.org,2002:", 18) == 0 && strcmp(tag, YAML_STR_TAG) != 0)) {
            bool special;
            v = dra_yaml_resolve_plain(s, &special);
            if (special) {
                dra_err *e = yerr(y, &ev->start_mark, "%s cannot be represented in JSON", s);
                yaml_event_delete(ev);
                return e;
            }
        } else {
            v = json_stringn(s, len);
            if (!v) {
                dra_err *e = yerr(y, &ev->start_mark, "%s", "string is not valid UTF-8");
                yaml_event_delete(ev);
                return e;
            }
        }
        if (ev->data.scalar.anchor)
            set_anchor(y, (const char *)ev->data.scalar.anchor, v);
        yaml_event_delete(ev);
        *out = v;
        return NULL;
    }
    default: {
        dra_err *e = yerr(y, &ev->start_mark, "%s", "unexpected YAML event");
        yaml_event_delete(ev);
        return e;
    }
    }
}

/* A line opening with "---" at data[i..next): true when kubectl takes it
 * as a document separator, with nothing after the "---" but white space
 * (strings.TrimSpace) or a comment; else *rest is what follows (trimmed),
 * which kubectl refuses. */
static bool separator_line(const char *data, size_t i, size_t next, const char **rest, size_t *n)
{
    *rest = data + i + 3;
    *n = next - i - 3;
    dra_go_trim_space(rest, n);
    return *n == 0 || **rest == '#';
}

/* Where the chunk of YAML text starting at data[at] ends: kubectl's
 * YAMLReader (k8s.io/apimachinery@v0.37.2 pkg/util/yaml/decoder.go Read,
 * the same in v0.36.3 and v0.38.0-beta.0) ends a document before a line
 * opening with "---" and nothing after it but white space or a comment,
 * and refuses one with more ("invalid Yaml document separator: ..."):
 * *bad is then where that line starts (else SIZE_MAX) and the chunk ends
 * there.  The chunk's first line is its own, a separator too (kubectl's
 * buffer is empty then: the line goes in): libyaml sees the document
 * start as before.  *lines: the lines the chunk holds. */
static size_t chunk_end(const char *data, size_t len, size_t at, int *lines, size_t *bad)
{
    *lines = 0;
    *bad = SIZE_MAX;
    for (size_t i = at; i < len;) {
        const char *nl = memchr(data + i, '\n', len - i);
        size_t next = nl ? (size_t)(nl - data) + 1 : len;
        if (len - i >= 3 && memcmp(data + i, "---", 3) == 0) {
            const char *rest;
            size_t n;
            if (!separator_line(data, i, next, &rest, &n)) {
                *bad = i;
                return i;
            }
            if (i > at)
                return i;
        }
        if (nl)
            ++*lines;
        i = next;
    }
    return len;
}

/* kubectl's refusal of the separator line at data[at] (see chunk_end), at
 * line `line` of the input, in document doc. */
static dra_err *separator_error(const reader *r, const char *data, size_t len, size_t at, int line, int doc)
{
    const char *nl = memchr(data + at, '\n', len - at);
    size_t next = nl ? (size_t)(nl - data) + 1 : len;
    const char *rest;
    size_t n;
    separator_line(data, at, next, &rest, &n);
    dra_buf b = DRA_BUF_INIT;
    dra_put_echo(&b, rest, n);
    dra_err *e = dra_err_new(DRA_EXIT_INPUT,
                             "invalid Yaml document separator: %s (kubectl allows only white space "
                             "or a comment after ---)",
                             b.data ? b.data : "");
    dra_buf_free(&b);
    int col = (int)dra_utf8_len(data + at, (size_t)(rest - (data + at))) + 1;
    return dra_err_at(e, r->name, doc, line, col);
}

/* The documents of one chunk (see chunk_end).  kubectl decodes the first
 * document of a chunk only (sigs.k8s.io/yaml@v1.6.0 Unmarshal): what
 * follows its end that libyaml cannot read as a document ("..." then
 * more) is ignored with a warning, not refused. */
static dra_err *read_chunk(yaml_ctx *y, const char *data, size_t len)
{
    reader *r = y->r;
    if (!yaml_parser_initialize(&y->parser))
        return dra_err_new(DRA_EXIT_RUNTIME, "cannot initialise the YAML parser");
    yaml_parser_set_input_string(&y->parser, (const unsigned char *)data, len);
    dra_err *e = NULL;
    bool ended = false; /* a document of this chunk has ended */
    for (;;) {
        yaml_event_t ev;
        if (!next_event(y, &ev, &e)) {
            if (ended) {
                dra_err_free(e);
                e = NULL;
                r->warnings = dra_err_append(
                    r->warnings, yerr(y, &y->parser.problem_mark, "%s",
                                      "content after the end of a YAML document ignored, as kubectl ignores it "
                                      "(it reads one document between --- lines)"));
            }
            break;
        }
        if (ev.type == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (ev.type == YAML_STREAM_START_EVENT || ev.type == YAML_DOCUMENT_END_EVENT) {
            ended = ended || ev.type == YAML_DOCUMENT_END_EVENT;
            yaml_event_delete(&ev);
            continue;
        }
        if (ev.type != YAML_DOCUMENT_START_EVENT) {
            e = yerr(y, &ev.start_mark, "%s", "unexpected YAML event");
            yaml_event_delete(&ev);
            break;
        }
        y->doc = y->docs + 1;
        clear_anchors(y);
        int doc_line = (int)ev.start_mark.line + 1 + r->line_base;
        yaml_event_delete(&ev);
        yaml_event_t root;
        if (!next_event(y, &root, &e))
            break;
        int line = (int)root.start_mark.line + 1 + r->line_base;
        json_t *v = NULL;
        dra_buf_reset(&y->path);
        e = parse_node(y, &root, 1, &v);
        if (e)
            break;
        if (!json_is_null(v))
            y->docs++;
        e = dra_docs_add_document(r, v, y->doc, line, SIZE_MAX, doc_line);
        if (e)
            break;
    }
    yaml_parser_delete(&y->parser);
    return e;
}

dra_err *dra_read_yaml_stream(reader *r, const char *data, size_t len)
{
    yaml_ctx y = {0};
    y.r = r;
    y.doc = y.docs = r->doc_base;
    int line_base = r->line_base;
    dra_err *e = NULL;
    size_t at = 0;
    do {
        int lines;
        size_t bad;
        size_t end = chunk_end(data, len, at, &lines, &bad);
        e = read_chunk(&y, data + at, end - at);
        r->line_base += lines;
        at = end;
        if (!e && bad != SIZE_MAX)
            e = separator_error(r, data, len, bad, r->line_base + 1, y.docs + 1);
        /* The separator that ended the chunk is no line of the next one to
         * kubectl: one with a comment right after the "---" is left out,
         * for libyaml would read it as text. */
        if (!e && at + 3 < len && memcmp(data + at, "---#", 4) == 0) {
            const char *nl = memchr(data + at, '\n', len - at);
            at = nl ? (size_t)(nl - data) + 1 : len;
            r->line_base++;
        }
    } while (!e && at < len);
    r->line_base = line_base;
    clear_anchors(&y);
    free(y.anchors);
    dra_buf_free(&y.path);
    return e;
}
