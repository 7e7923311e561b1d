/* Reading JSON documents into objects, whole or a document at a time.
 * See read_json.h. */
#include "read_json.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/utf8.h"
#include "jdups.h"
#include "jsyntax.h"

static int depth_of(const json_t *v, int limit)
{
    if (limit < 0)
        return 1;
    int max = 0;
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x) {
            int d = depth_of(x, limit - 1);
            if (d > max)
                max = d;
        }
        return max + 1;
    }
    if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            int d = depth_of(x, limit - 1);
            if (d > max)
                max = d;
        }
        return max + 1;
    }
    return 0;
}

static void advance_lines(const char *p, size_t n, int *line, int *col)
{
    const char *end = p + n, *last = NULL;
    for (const char *q = p; q < end && (q = memchr(q, '\n', (size_t)(end - q))); q++) {
        (*line)++;
        last = q;
    }
    if (last)
        *col = 1 + (int)(end - last - 1);
    else
        *col += (int)n;
}

/* The elements of a document's Lists, in text order: the elements of the
 * document if it is an array, else of its "items" array, and after each
 * element that is an object with an "items" array, the elements of that
 * (a List in a List), depth first.  Kind is not looked at: the text scan
 * below goes by the same shape, so the two orders match. */
static void list_elements(const json_t *arr, const json_t ***v, size_t *n, int depth)
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x) {
        *v = dra_xgrow(*v, *n, sizeof **v);
        (*v)[(*n)++] = x;
        const json_t *items = json_object_get(x, "items");
        if (json_is_array(items) && depth < DRA_MAX_DEPTH)
            list_elements(items, v, n, depth + 1);
    }
}

/* The lines of those elements from the document's text (p[0..len), which
 * jansson has accepted), at most max of them: the errors of a kubectl -o
 * json List then point at the item.  A light scan: brackets are counted
 * outside strings, and an "items" key is recognised by its text. */
static size_t json_element_lines(const char *p, size_t len, int first_line, int *lines, size_t max)
{
    enum { OTHER, CHAIN_OBJ, CHAIN_ARR, MAX_OPEN = DRA_MAX_DEPTH + 2 };
    unsigned char open[MAX_OPEN]; /* what each open bracket is */
    bool want[MAX_OPEN];          /* CHAIN_OBJ: the last string at this level was "items" */
    bool next_elem = false;       /* CHAIN_ARR on top: an element starts at the next value */
    int depth = 0, line = first_line;
    size_t n = 0;
    for (size_t i = 0; i < len && n < max; i++) {
        char ch = p[i];
        unsigned char top = depth > 0 ? open[depth - 1] : OTHER;
        if (ch == '\n') {
            line++;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == ':')
            continue;
        if (ch == ',') {
            if (top == CHAIN_ARR)
                next_elem = true;
            else if (top == CHAIN_OBJ)
                want[depth - 1] = false;
            continue;
        }
        if (top == CHAIN_ARR && next_elem && ch != ']') {
            lines[n++] = line;
            next_elem = false;
        }
        if (ch == '"') {
            size_t k = i + 1;
            while (k < len && p[k] != '"')
                k += p[k] == '\\' ? 2 : 1;
            if (top == CHAIN_OBJ && k - i - 1 == 5 && memcmp(p + i + 1, "items", 5) == 0)
                want[depth - 1] = true;
            i = k; /* strings hold no newline JSON accepts */
            continue;
        }
        if (ch == '{' || ch == '[') {
            if (depth >= MAX_OPEN)
                break;
            unsigned char what = OTHER;
            if (ch == '{' && (depth == 0 || top == CHAIN_ARR))
                what = CHAIN_OBJ;
            else if (ch == '[' && (depth == 0 || (top == CHAIN_OBJ && want[depth - 1])))
                what = CHAIN_ARR;
            if (top == CHAIN_OBJ)
                want[depth - 1] = false;
            open[depth] = what;
            want[depth] = false;
            depth++;
            next_elem = what == CHAIN_ARR;
            continue;
        }
        if (ch == '}' || ch == ']') {
            if (depth == 0)
                break;
            depth--;
            next_elem = false;
        }
    }
    return n;
}

/* The lines of the items of the document's Lists, from its text, noted for
 * the items' lookups. */
static void note_items(reader *r, const json_t *v, const char *p, size_t used, int line)
{
    const json_t *items = json_is_array(v) ? v : json_object_get(v, "items");
    if (!json_is_array(items) || json_array_size(items) == 0)
        return;
    const json_t **nodes = NULL;
    size_t n = 0;
    list_elements(items, &nodes, &n, 0);
    int *lines = dra_xcalloc(n, sizeof *lines);
    size_t got = json_element_lines(p, used, line, lines, n);
    for (size_t i = 0; i < got; i++)
        dra_docs_note_line(r, nodes[i], lines[i]);
    free(lines);
    free(nodes);
}

/* "duplicate field \"a.b\"" (sigs.k8s.io/json's strict error), or
 * jansson's text when the path is unknown. */
static dra_err *duplicate_field(const char *path, const char *jtext)
{
    if (!path)
        return dra_err_new(DRA_EXIT_INPUT, "%s", jtext);
    dra_buf text = DRA_BUF_INIT;
    dra_buf_puts(&text, "duplicate field ");
    dra_go_quote_echo(&text, path, strlen(path));
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, "%s", text.data);
    dra_buf_free(&text);
    return e;
}

/* Go's syntax error for a control character in p[0..n) (document doc, at
 * line:col), placed at its byte, columns counted in characters as jansson
 * counts them; NULL when Go's scanner finds none.  jansson words these its
 * own way ("control character 0x0 near ...") and takes a raw NUL for the
 * end of the text, which can even leave a document it accepts. */
static dra_err *go_control_error(reader *r, const char *p, size_t n, int doc, int line, int col)
{
    dra_buf go = DRA_BUF_INIT;
    size_t at;
    if (!dra_json_go_control_error(p, n, DRA_MAX_DEPTH, &go, &at))
        return NULL;
    for (size_t i = 0; i < at; i++) {
        if (p[i] == '\n') {
            line++;
            col = 1;
        } else if (((unsigned char)p[i] & 0xC0) != 0x80) {
            col++;
        }
    }
    dra_err *e = dra_err_at(dra_err_new(DRA_EXIT_INPUT, "invalid JSON: %s", go.data), r->name, doc, line, col);
    dra_buf_free(&go);
    return e;
}

/* json_loadb of p[0..n) (document doc, at line:col) with the reader's rule
 * for duplicate keys: strict rejects them; warn and ignore take the last
 * value, as encoding/json does (warn notes it).  A parse error names its
 * place in the file; *jerr is the successful parse's (for its position). */
static dra_err *load_json(reader *r, const char *p, size_t n, int flags, int doc, int line, int col, json_t **out,
                          json_error_t *jerr)
{
    dra_err *ce = go_control_error(r, p, n, doc, line, col);
    if (ce) {
        *out = NULL;
        return ce;
    }
    json_t *v = json_loadb(p, n, flags | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, jerr);
    if (!v && strstr(jerr->text, "duplicate object key")) {
        json_error_t jerr2;
        v = json_loadb(p, n, flags | JSON_ALLOW_NUL, &jerr2);
        int eline = line + (jerr->line > 0 ? jerr->line - 1 : 0);
        int ecol = jerr->line <= 1 ? col + (jerr->column > 0 ? jerr->column - 1 : 0) : jerr->column;
        /* as the API server decodes: by the field's path, none inside a
         * RawExtension (kept as bytes) */
        char *path = NULL;
        size_t len = v ? (size_t)jerr2.position : 0;
        bool scanned = v && len > 0 && len <= n && dra_json_first_duplicate(p, len, DRA_MAX_DEPTH, &path);
        if (v && scanned && !path) {
            *jerr = jerr2;
        } else if (v && r->set->field_validation != DRA_FV_STRICT) {
            if (r->set->field_validation == DRA_FV_WARN)
                r->warnings =
                    dra_err_append(r->warnings, dra_err_at(duplicate_field(path, jerr->text), r->name, doc, eline, 0));
            *jerr = jerr2;
        } else if (v && path) {
            json_decref(v);
            v = NULL;
            *out = NULL;
            dra_err *e = dra_err_at(duplicate_field(path, jerr->text), r->name, doc, eline, ecol);
            free(path);
            return e;
        } else if (v) { /* not scanned: jansson's words */
            json_decref(v);
            v = NULL;
        }
        free(path);
    }
    *out = v;
    if (!v) {
        int eline = line + (jerr->line > 0 ? jerr->line - 1 : 0);
        int ecol = jerr->line <= 1 ? col + (jerr->column > 0 ? jerr->column - 1 : 0) : jerr->column;
        return dra_err_at(dra_err_new(DRA_EXIT_INPUT, "invalid JSON: %s", jerr->text), r->name, doc, eline, ecol);
    }
    return NULL;
}

/* One JSON document at the start of p[0..n) (document doc, at line:col):
 * parsed with the relaxed duplicate rule and the depth limit, the lines of
 * its List items noted; *used is the bytes it took. */
static dra_err *json_document(reader *r, const char *p, size_t n, int doc, int line, int col, json_t **out,
                              size_t *used)
{
    /* streaming: the content hash too (a set's objects are hashed when loaded) */
    json_t *v = dra_json_parse_hashed(p, n, DRA_MAX_DEPTH, used, r->in, r->fn ? &r->doc_hash : NULL);
    r->hashed = r->fn ? v : NULL;
    if (v) { /* the fast path took it: the text is valid and shallow enough */
        note_items(r, v, p, *used, line);
        *out = v;
        return NULL;
    }
    json_error_t jerr;
    dra_err *e = load_json(r, p, n, JSON_DISABLE_EOF_CHECK, doc, line, col, &v, &jerr);
    if (e)
        return e;
    *used = (size_t)jerr.position;
    if (*used == 0 || *used > n)
        *used = n;
    if (depth_of(v, DRA_MAX_DEPTH + 1) > DRA_MAX_DEPTH) {
        json_decref(v);
        return dra_err_at(dra_err_new(DRA_EXIT_INPUT, "nesting deeper than %d levels", DRA_MAX_DEPTH), r->name, doc,
                          line, col);
    }
    note_items(r, v, p, *used, line);
    *out = v;
    return NULL;
}

dra_err *dra_read_json_stream(reader *r, const char *data, size_t len)
{
    size_t off = 0;
    int line = 1, col = 1, doc = 0;
    for (;;) {
        size_t start = off;
        off += dra_json_space_len(data + off, len - off);
        advance_lines(data + start, off - start, &line, &col);
        if (off >= len)
            return NULL;
        doc++;
        json_t *v;
        size_t used;
        dra_err *e = json_document(r, data + off, len - off, doc, line, col, &v, &used);
        if (!e)
            e = dra_docs_add_document(r, v, doc, line, off, line);
        if (e)
            return e;
        advance_lines(data + off, used, &line, &col);
        off += used;
        /* values must be separated by white space or follow one another directly ("}{") */
    }
}

/* ---- streaming JSON: a document at a time from a file descriptor ---------- */

/* Where the JSON container that starts a text ends, found across reads: the
 * brackets outside strings are counted, nothing else is checked (the parser
 * does that on exactly the document's bytes). */
typedef struct value_scan {
    size_t pos; /* bytes of the document scanned so far */
    long depth;
    bool in_string, escape;
} value_scan;

/* True when the container's end is within p[0..n): s->pos is then just past it. */
static bool scan_value(value_scan *s, const char *p, size_t n)
{
    size_t i = s->pos;
    long depth = s->depth;
    bool in_string = s->in_string, escape = s->escape;
    while (i < n) {
        if (in_string) {
            /* the bulk of a document: runs of plain string bytes */
            if (!escape)
                i = (size_t)(dra_json_string_stop(p + i, p + n) - p);
            if (i >= n)
                break;
            char c = p[i++];
            if (escape)
                escape = false;
            else if (c == '\\')
                escape = true;
            else
                in_string = false;
            continue;
        }
        char c = p[i++];
        if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth <= 0) {
                s->pos = i;
                return true;
            }
        }
    }
    s->pos = i;
    s->depth = depth;
    s->in_string = in_string;
    s->escape = escape;
    return false;
}

/* Read more: at least a chunk, and as much again as is unread (a document
 * that spans reads is scanned in a linear number of steps). */
dra_err *dra_inbuf_more(inbuf *b)
{
    if (b->eof)
        return NULL;
    if (b->start > 0 && !b->keep) {
        memmove(b->data, b->data + b->start, b->len - b->start);
        b->len -= b->start;
        b->start = 0;
    }
    size_t want = b->len > b->chunk ? b->len : b->chunk;
    if (b->len > DRA_MAX_INPUT_BYTES)
        return dra_err_new(DRA_EXIT_INPUT, "%s: a document larger than the limit of %zu bytes",
                           strcmp(b->name, "-") == 0 ? "<stdin>" : b->name, DRA_MAX_INPUT_BYTES);
    if (b->cap - b->len < want + 1) {
        b->cap = b->len + want + 1;
        b->data = dra_xrealloc(b->data, b->cap);
    }
    for (;;) {
        ssize_t n = read(b->fd, b->data + b->len, b->cap - b->len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return dra_err_new(DRA_EXIT_INPUT, "%s: read error: %s", strcmp(b->name, "-") == 0 ? "<stdin>" : b->name,
                               strerror(errno));
        if (n == 0)
            b->eof = true;
        b->len += (size_t)n;
        b->data[b->len] = '\0';
        return NULL;
    }
}

/* The rest of the input, all of it (for YAML, which is read whole). */
dra_err *dra_inbuf_all(inbuf *b)
{
    while (!b->eof) {
        if (b->len - b->start > DRA_MAX_INPUT_BYTES)
            return dra_err_new(DRA_EXIT_INPUT, "%s: input larger than the limit of %zu bytes",
                               strcmp(b->name, "-") == 0 ? "<stdin>" : b->name, DRA_MAX_INPUT_BYTES);
        dra_err *e = dra_inbuf_more(b);
        if (e)
            return e;
    }
    return NULL;
}

/* Lists of at least this many bytes are handed out item by item (unless the
 * set says otherwise). */
#define LIST_STREAM_MIN ((size_t)64 << 10)
/* Leaves (attribute and capacity values) a JSON Lines stream keeps parsed,
 * so that the values a fleet repeats are read once: at most this many. */
#define STREAM_LEAVES 4096

/* One List item at p[0..n) (at line:col) that the fast path did not take:
 * jansson's tree or its error, placed in the document. */
static dra_err *list_item_slow(reader *r, const char *p, size_t n, int doc, int line, int col, size_t i, json_t **out,
                               size_t *used)
{
    int flags = JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY;
    json_error_t jerr;
    json_t *v;
    dra_err *e = load_json(r, p, n, flags, doc, line, col, &v, &jerr);
    if (e)
        return e;
    if (!json_is_object(v)) {
        json_decref(v);
        return dra_err_at(dra_err_new(DRA_EXIT_INPUT, "items[%zu]: expected an object", i), r->name, doc, line, 0);
    }
    if (depth_of(v, DRA_MAX_DEPTH) > DRA_MAX_DEPTH - 2) {
        json_decref(v);
        return NULL; /* the document's depth error: left to the whole-document path */
    }
    *used = (size_t)jerr.position;
    if (*used == 0 || *used > n)
        *used = n;
    *out = v;
    return NULL;
}

/* One item of a List streamed item by item (item: its tree, stolen; its
 * text p[0..n) at line l of document doc): a List among the items waits
 * in lists for the items after it, anything else is handed out with its
 * own text as its source. */
static dra_err *list_item_out(reader *r, const json_t *env, json_t *item, const char *text, const char *p, size_t n,
                              int doc, int l, size_t i, list_queue *lists)
{
    size_t members = json_object_size(item);
    dra_docs_list_item_type(env, item);
    if (json_object_size(item) != members)
        r->hashed = NULL; /* typed by its List: not the content the parser hashed */
    if (dra_docs_is_list_kind(item)) {
        dra_docs_queue_push(lists, item, dra_xasprintf("items[%zu]", i), l);
        lists->v[lists->n - 1].text_off = (size_t)(p - text);
        lists->v[lists->n - 1].text_len = n;
        return NULL;
    }
    dra_source isrc = {.data = (char *)p, .len = n};
    r->src = &isrc;
    r->src_base = 0;
    r->item_src = true;
    dra_err *e = dra_docs_add_pending(r, item, doc, l, (int)i, 0, l, NULL);
    r->item_src = false;
    r->src = NULL;
    free(isrc.line_off);
    return e;
}

/* One List item at p[0..n) whose tree the fast paths did not give: the
 * slow path's tree, or its error (a too deep item: the document's). */
static dra_err *list_item_or_error(reader *r, const char *p, size_t n, int doc, int line, int col, int l, int c,
                                   size_t i, json_t **item, size_t *used)
{
    dra_err *e = list_item_slow(r, p, n, doc, l, c, i, item, used);
    if (!e && !*item)
        e = dra_err_at(dra_err_new(DRA_EXIT_INPUT, "nesting deeper than %d levels", DRA_MAX_DEPTH), r->name, doc, line,
                       col);
    return e;
}

/* The Lists among the items, after them: their items' source is the whole
 * document, their place in it a path. */
static dra_err *flatten_waiting(reader *r, list_queue *lists, const char *text, size_t used, int doc, int line)
{
    if (!lists->n)
        return NULL;
    dra_source dsrc = {.data = (char *)text, .len = used};
    r->src = &dsrc;
    r->src_base = 0;
    for (size_t k = 0; k < lists->n; k++)
        note_items(r, lists->v[k].list, text + lists->v[k].text_off, lists->v[k].text_len, lists->v[k].line);
    dra_err *e = dra_docs_flatten(r, lists, doc, 0, line);
    dra_docs_forget_notes(r);
    r->src = NULL;
    free(dsrc.line_off);
    return e;
}

/* A big JSON object that is a List (kubectl get -o json): its items handed
 * out one at a time from the document's text, each the source of its own
 * field lines, instead of building the whole List first.  *taken: it was a
 * List with an array of items (else nothing was done).  The envelope is
 * read with the items' brackets counted, then each item is parsed as a
 * line of JSON Lines is (its content hash while parsing, the leaves it
 * repeats shared), once; the items before a bad one are handed out, then
 * its error. */
static dra_err *stream_list(reader *r, const char *text, size_t len, int doc, int line, int col, bool *taken,
                            size_t *used)
{
    dra_err *e = NULL;
    size_t ioff, ilen;
    json_t *env = dra_json_parse_envelope(text, len, DRA_MAX_DEPTH, used, &ioff, &ilen);
    *taken = env && dra_docs_is_list_kind(env);
    if (!*taken) {
        json_decref(env);
        return NULL;
    }
    if (!r->leaves)
        r->leaves = dra_json_interner_bounded(STREAM_LEAVES);
    int l = line, c = col;
    advance_lines(text, ioff + 1, &l, &c);
    const char *p = text + ioff + 1, *end = text + ioff + ilen - 1; /* inside the brackets */
    list_queue lists = {0};                                         /* Lists among the items: flattened after them */
    for (size_t i = 0; !e; i++) {
        const char *q = p + dra_json_space_len(p, (size_t)(end - p));
        bool comma = i > 0 && q < end && *q == ',';
        if (comma) {
            q++;
            q += dra_json_space_len(q, (size_t)(end - q));
        }
        if ((i > 0 && q < end && !comma) || (comma && q >= end)) {
            /* not a list of values: jansson's error for the whole document */
            json_t *v = NULL;
            size_t u;
            e = json_document(r, text, len, doc, line, col, &v, &u);
            json_decref(v);
            r->hashed = NULL;
            if (!e)
                e = dra_err_at(dra_err_new(DRA_EXIT_INPUT, "%s", "invalid JSON"), r->name, doc, l, c);
            break;
        }
        advance_lines(p, (size_t)(q - p), &l, &c);
        p = q;
        if (p >= end)
            break;
        size_t n = 0;
        json_t *item = *p == '{'
                           ? dra_json_parse_hashed(p, (size_t)(end - p), DRA_MAX_DEPTH - 2, &n, r->leaves, &r->doc_hash)
                           : NULL;
        r->hashed = item;
        if (!item)
            e = list_item_or_error(r, p, (size_t)(end - p), doc, line, col, l, c, i, &item, &n);
        if (!e)
            e = list_item_out(r, env, item, text, p, n, doc, l, i, &lists);
        if (e)
            break;
        advance_lines(p, n, &l, &c);
        p += n;
    }
    r->hashed = NULL;
    if (!e)
        e = flatten_waiting(r, &lists, text, *used, doc, line);
    dra_docs_queue_free(&lists);
    json_decref(env);
    return e;
}

/* JSON values one at a time; each document's text is its objects' source
 * while they are handed out, and is dropped after. */
dra_err *dra_stream_json(reader *r, inbuf *b)
{
    int line = 1, col = 1, doc = 0;
    for (;;) {
        for (;;) {
            const char *p = b->data + b->start;
            size_t n = b->len - b->start, i = dra_json_space_len(p, n);
            advance_lines(p, i, &line, &col);
            b->start += i;
            if (b->start < b->len || b->eof)
                break;
            dra_err *e = dra_inbuf_more(b);
            if (e)
                return e;
        }
        if (b->start >= b->len)
            return NULL;
        doc++;
        value_scan sc = {0};
        bool found = false;
        char c0 = b->data[b->start];
        /* JSON Lines: a document usually ends its line; the parser finds
         * whether it does (and the scan is not needed) */
        const char *nl = memchr(b->data + b->start, '\n', b->len - b->start);
        size_t used = 0;
        size_t list_min = r->set->stream_list_min ? r->set->stream_list_min : LIST_STREAM_MIN;
        if (nl && (size_t)(nl - b->data) - b->start > list_min)
            nl = NULL;                   /* a long line may be a List: see below */
        if (nl && !r->leaves && doc > 1) /* a file of one document has no leaves to share */
            r->leaves = dra_json_interner_bounded(STREAM_LEAVES);
        json_t *fast = nl ? dra_json_parse_hashed(b->data + b->start, (size_t)(nl - b->data) - b->start, DRA_MAX_DEPTH,
                                                  &used, r->leaves, &r->doc_hash)
                          : NULL;
        r->hashed = fast;
        if (fast) {
            sc.pos = used;
            found = true;
        } else if (c0 == '{' || c0 == '[') {
            while (!(found = scan_value(&sc, b->data + b->start, b->len - b->start)) && !b->eof) {
                dra_err *e = dra_inbuf_more(b);
                if (e)
                    return e;
            }
        }
        dra_source src = {.data = b->data + b->start, .len = found ? sc.pos : b->len - b->start};
        if (!fast && found && c0 == '{' && src.len > list_min) {
            /* a big object: maybe a List, handed out an item at a time */
            bool taken = false;
            dra_err *e = stream_list(r, src.data, src.len, doc, line, col, &taken, &used);
            if (e)
                return e;
            if (taken) {
                b->keep = false;
                advance_lines(b->data + b->start, used, &line, &col);
                b->start += used;
                continue;
            }
        }
        r->src = &src;
        r->src_base = 0;
        json_t *v = fast;
        dra_err *e = NULL;
        if (fast)
            note_items(r, v, src.data, used, line);
        else
            e = json_document(r, src.data, src.len, doc, line, col, &v, &used);
        if (!e)
            e = dra_docs_add_document(r, v, doc, line, 0, line);
        free(src.line_off);
        r->src = NULL;
        if (e)
            return e;
        b->keep = false;
        advance_lines(b->data + b->start, used, &line, &col);
        b->start += used;
    }
}
