/* Object-stream reader and writer.  See stream.h. */
#include "stream.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../base/utf8.h"
#include "jdups.h"
#include "jparse.h"
#include "read_yaml.h"

/* ---- object sets ------------------------------------------------------- */

const char *dra_objset_intern_file(dra_objset *set, const char *name)
{
    intptr_t i;
    if (dra_strmap_get(&set->file_index, name, strlen(name), &i))
        return set->files[i];
    set->files = dra_xgrow(set->files, set->nfiles, sizeof *set->files);
    char *copy = set->files[set->nfiles] = dra_xstrdup(name);
    dra_strmap_put(&set->file_index, copy, strlen(copy), (intptr_t)set->nfiles);
    return set->files[set->nfiles++];
}

void dra_objset_add(dra_objset *set, json_t *json, const char *file, int doc, int line, int item)
{
    if (set->n == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 16;
        set->v = dra_xrealloc(set->v, set->cap * sizeof *set->v);
    }
    set->v[set->n++] = (dra_obj){
        .json = json, .file = file ? dra_objset_intern_file(set, file) : NULL, .doc = doc, .line = line, .item = item,
        .src_off = SIZE_MAX};
}

void dra_source_free(dra_source *s)
{
    if (s) {
        free(s->data);
        free(s->line_off);
        free(s->path);
        free(s);
    }
}

void dra_objset_free(dra_objset *set)
{
    for (size_t i = 0; i < set->n; i++)
        json_decref(set->v[i].json);
    for (size_t i = 0; i < set->nfiles; i++)
        free(set->files[i]);
    for (size_t i = 0; i < set->npaths; i++)
        free(set->paths[i]);
    free(set->paths);
    for (size_t i = 0; i < set->nsources; i++)
        dra_source_free(set->sources[i]);
    free(set->sources);
    free(set->v);
    free(set->files);
    dra_strmap_free(&set->file_index);
    dra_strmap_free(&set->source_index);
    dra_err_free(set->warnings);
    dra_field_validation fv = set->field_validation;
    bool rec = set->recursive, arrays = set->arrays;
    memset(set, 0, sizeof *set);
    set->field_validation = fv; /* reading options survive a reset */
    set->recursive = rec;
    set->arrays = arrays;
}

/* A string member of a reference: its bytes, a NUL written as Go's %q
 * writes it (\x00), since a message cannot carry the byte; NULL when x is
 * not a string or is empty. */
static char *ref_part(const json_t *x)
{
    if (!json_is_string(x) || json_string_length(x) == 0)
        return NULL;
    const char *s = json_string_value(x);
    size_t n = json_string_length(x);
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\0')
            dra_buf_puts(&b, "\\x00");
        else
            dra_buf_putc(&b, s[i]);
    }
    return dra_buf_detach(&b);
}

char *dra_obj_ref(const json_t *obj)
{
    const json_t *md = json_object_get(obj, "metadata");
    char *kind = ref_part(json_object_get(obj, "kind"));
    char *name = ref_part(json_object_get(md, "name"));
    char *ns = ref_part(json_object_get(md, "namespace"));
    const char *k = kind ? kind : "object";
    char *ref;
    if (!name) {
        char *gen = ref_part(json_object_get(md, "generateName"));
        if (gen)
            ref = ns ? dra_xasprintf("%s/%s/%s*", k, ns, gen) : dra_xasprintf("%s/%s*", k, gen);
        else
            ref = dra_xasprintf("<unnamed %s>", k);
        free(gen);
    } else {
        ref = ns ? dra_xasprintf("%s/%s/%s", k, ns, name) : dra_xasprintf("%s/%s", k, name);
    }
    free(kind);
    free(name);
    free(ns);
    return ref;
}

dra_err *dra_obj_locate(dra_err *e, const dra_obj *o)
{
    int lookups = DRA_FIELD_LINE_LOOKUPS;
    return dra_obj_locate_within(e, o, &lookups);
}

dra_err *dra_obj_locate_within(dra_err *e, const dra_obj *o, int *lookups)
{
    if (!e || !o)
        return e;
    char *ref = o->json ? dra_obj_ref(o->json) : NULL;
    /* an unnamed object from a List is best named by its position */
    if (ref && ref[0] == '<' && o->item >= 0) {
        char *r2 = o->src_path ? dra_xasprintf("%s %s", o->src_path, ref) : dra_xasprintf("items[%d] %s", o->item, ref);
        free(ref);
        ref = r2;
    }
    if (o->src) {
        /* each lookup parses the object's document again: the first errors
         * get their field's line, a flood of them the object's */
        for (dra_err *i = e; i && *lookups > 0; i = i->next) {
            if (i->file || !i->field || !*i->field)
                continue;
            --*lookups;
            int line = dra_obj_field_line(o, i->field);
            if (line > 0)
                i = dra_err_at(i, o->file, o->doc, line, 0);
        }
    }
    e = dra_err_locate_all(e, o->file, o->doc, o->line, ref);
    free(ref);
    return e;
}

/* Give src to the set, found by its path when it has one. */
void dra_objset_add_source(dra_objset *set, dra_source *src)
{
    set->sources = dra_xgrow(set->sources, set->nsources, sizeof *set->sources);
    set->sources[set->nsources] = src;
    if (src->path)
        dra_strmap_put(&set->source_index, src->path, strlen(src->path), (intptr_t)set->nsources);
    set->nsources++;
}

/* A copy of path the set owns (NULL for NULL). */
const char *dra_objset_own_path(dra_objset *set, const char *path)
{
    if (!path)
        return NULL;
    set->paths = dra_xgrow(set->paths, set->npaths, sizeof *set->paths);
    set->paths[set->npaths] = dra_xstrdup(path);
    return set->paths[set->npaths++];
}

/* ---- writing --------------------------------------------------------------- */

dra_err *dra_format_parse(const char *s, dra_format *out)
{
    if (strcmp(s, "yaml") == 0)
        *out = DRA_FMT_YAML;
    else if (strcmp(s, "json") == 0)
        *out = DRA_FMT_JSON;
    else if (strcmp(s, "jsonl") == 0)
        *out = DRA_FMT_JSONL;
    else
        return dra_err_new(DRA_EXIT_INPUT, "unknown output format '%s' (yaml, json, jsonl)", s);
    return NULL;
}

static bool plain_would_change(const char *s)
{
    bool special;
    json_t *v = dra_yaml_resolve_plain(s, &special);
    bool changes = special || !json_is_string(v);
    json_decref(v);
    return changes;
}

static void format_real(double d, char *buf, size_t size)
{
    snprintf(buf, size, "%.15g", d);
    if (strtod(buf, NULL) != d)
        snprintf(buf, size, "%.17g", d);
    if (!strpbrk(buf, ".eEn")) /* keep it a float when read back */
        strncat(buf, ".0", size - strlen(buf) - 1);
}

static int emit_value(yaml_emitter_t *em, const json_t *v)
{
    yaml_event_t ev;
    char num[64];
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        int flow = json_object_size(v) == 0;
        yaml_mapping_start_event_initialize(&ev, NULL, (yaml_char_t *)YAML_MAP_TAG, 1,
                                            flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
        if (!yaml_emitter_emit(em, &ev))
            return 0;
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x) {
            json_t *key = json_string(k);
            int ok = key && emit_value(em, key);
            json_decref(key);
            if (!ok || !emit_value(em, x))
                return 0;
        }
        yaml_mapping_end_event_initialize(&ev);
        return yaml_emitter_emit(em, &ev);
    }
    case JSON_ARRAY: {
        int flow = json_array_size(v) == 0;
        yaml_sequence_start_event_initialize(&ev, NULL, (yaml_char_t *)YAML_SEQ_TAG, 1,
                                             flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
        if (!yaml_emitter_emit(em, &ev))
            return 0;
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            if (!emit_value(em, x))
                return 0;
        }
        yaml_sequence_end_event_initialize(&ev);
        return yaml_emitter_emit(em, &ev);
    }
    case JSON_STRING: {
        const char *s = json_string_value(v);
        size_t len = json_string_length(v);
        yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
        if (plain_would_change(s))
            style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        else if (memchr(s, '\n', len))
            style = YAML_LITERAL_SCALAR_STYLE;
        yaml_scalar_event_initialize(&ev, NULL, (yaml_char_t *)YAML_STR_TAG, (yaml_char_t *)s, (int)len,
                                     style == YAML_ANY_SCALAR_STYLE, 1, style);
        return yaml_emitter_emit(em, &ev);
    }
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        format_real(json_real_value(v), num, sizeof num);
        break;
    case JSON_TRUE:
        strcpy(num, "true");
        break;
    case JSON_FALSE:
        strcpy(num, "false");
        break;
    case JSON_NULL:
        strcpy(num, "null");
        break;
    }
    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)num, (int)strlen(num), 1, 1, YAML_PLAIN_SCALAR_STYLE);
    return yaml_emitter_emit(em, &ev);
}

typedef struct sink {
    FILE *f;
    dra_buf *b;
    int failed;
} sink;

static int sink_write(void *data, unsigned char *buffer, size_t size)
{
    sink *s = data;
    if (s->b) {
        dra_buf_append(s->b, buffer, size);
        return 1;
    }
    if (fwrite(buffer, 1, size, s->f) != size) {
        s->failed = 1;
        return 0;
    }
    return 1;
}

/* Emit values as YAML documents.  `markers`: put "---" between documents. */
static dra_err *emit_yaml(sink *s, const json_t *const *vals, size_t n, bool markers)
{
    yaml_emitter_t em;
    if (!yaml_emitter_initialize(&em))
        return dra_err_new(DRA_EXIT_RUNTIME, "cannot initialise the YAML emitter");
    yaml_emitter_set_output(&em, sink_write, s);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, -1);
    yaml_emitter_set_indent(&em, 2);
    yaml_event_t ev;
    int ok = 1;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    ok = yaml_emitter_emit(&em, &ev);
    for (size_t i = 0; ok && i < n; i++) {
        yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, !(markers && i > 0));
        ok = yaml_emitter_emit(&em, &ev) && emit_value(&em, vals[i]);
        if (ok) {
            yaml_document_end_event_initialize(&ev, 1);
            ok = yaml_emitter_emit(&em, &ev);
        }
    }
    if (ok) {
        yaml_stream_end_event_initialize(&ev);
        ok = yaml_emitter_emit(&em, &ev);
    }
    if (ok)
        ok = yaml_emitter_flush(&em);
    dra_err *e = NULL;
    if (!ok)
        e = s->failed ? dra_err_new(DRA_EXIT_RUNTIME, "error writing output: %s", strerror(errno))
                      : dra_err_new(DRA_EXIT_RUNTIME, "cannot write YAML: %s", em.problem ? em.problem : "emitter error");
    yaml_emitter_delete(&em);
    return e;
}

char *dra_yaml_dump(const json_t *v)
{
    dra_buf b = DRA_BUF_INIT;
    sink s = {NULL, &b, 0};
    dra_err *e = emit_yaml(&s, &v, 1, false);
    dra_err_free(e);
    return dra_buf_detach(&b);
}

static int buf_cb(const char *buffer, size_t size, void *data)
{
    dra_buf_append((dra_buf *)data, buffer, size);
    return 0;
}

/* jansson's dumper emits a token at a time; collect them in b. */
static int dump_json_buf(dra_buf *b, const json_t *v, size_t flags)
{
    return json_dump_callback(v, buf_cb, b, flags);
}

/* The same, written once to f. */
static int dump_json(FILE *f, const json_t *v, size_t flags, dra_buf *scratch)
{
    dra_buf_reset(scratch);
    if (dump_json_buf(scratch, v, flags) != 0)
        return -1;
    return fwrite(dra_buf_str(scratch), 1, scratch->len, f) == scratch->len ? 0 : -1;
}

static dra_err *write_failed(FILE *f)
{
    return dra_err_new(DRA_EXIT_RUNTIME, "error writing output: %s", ferror(f) && errno ? strerror(errno) : "write failed");
}

struct dra_writer {
    FILE *f;
    dra_format fmt;
    size_t count;   /* objects put so far */
    json_t *held;   /* json: the first object, until we know whether a List is needed */
    dra_buf text;   /* reused for each object's text */
    dra_buf out;    /* text not written yet */
    size_t hold;    /* write nothing until out holds this much */
    bool started;   /* some of the output reached f */
    dra_err *err;   /* first error; later puts do nothing */
};

dra_writer *dra_writer_new(FILE *f, dra_format fmt)
{
    dra_writer *w = dra_xcalloc(1, sizeof *w);
    w->f = f;
    w->fmt = fmt;
    w->hold = DRA_WRITER_HOLD;
    return w;
}

void dra_writer_hold(dra_writer *w, size_t bytes)
{
    w->hold = bytes;
}

/* Write what the writer holds. */
static void flush_out(dra_writer *w)
{
    if (w->err || w->out.len == 0)
        return;
    w->started = true;
    if (fwrite(w->out.data, 1, w->out.len, w->f) != w->out.len || ferror(w->f))
        w->err = write_failed(w->f);
    dra_buf_reset(&w->out);
}

/* Output text: held while the writer holds less than its limit. */
static void put_text(dra_writer *w, const char *p, size_t n)
{
    dra_buf_append(&w->out, p, n);
    if (w->out.len >= w->hold)
        flush_out(w);
}

/* One List item: the object dumped with 4-space indentation, shifted right by 8. */
static int put_list_item(dra_writer *w, const json_t *obj, bool first)
{
    dra_buf_reset(&w->text);
    if (dump_json_buf(&w->text, obj, JSON_INDENT(4) | JSON_REAL_PRECISION(17)) != 0)
        return -1;
    if (!first)
        put_text(w, ",\n", 2);
    const char *s = dra_buf_str(&w->text);
    for (const char *line = s; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);
        put_text(w, "        ", 8);
        put_text(w, line, n);
        line = nl ? nl + 1 : NULL;
    }
    return 0;
}

#define LIST_HEAD "{\n    \"apiVersion\": \"v1\",\n    \"items\": ["
#define LIST_TAIL "\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"

dra_err *dra_writer_put(dra_writer *w, const json_t *obj)
{
    if (w->err)
        return NULL;
    int rc = 0;
    switch (w->fmt) {
    case DRA_FMT_YAML: {
        if (w->count > 0)
            put_text(w, "---\n", 4);
        dra_buf_reset(&w->text);
        sink s = {NULL, &w->text, 0};
        w->err = emit_yaml(&s, &obj, 1, false);
        if (!w->err)
            put_text(w, w->text.data, w->text.len);
        break;
    }
    case DRA_FMT_JSONL:
        dra_buf_reset(&w->text);
        rc = dump_json_buf(&w->text, obj, JSON_COMPACT | JSON_REAL_PRECISION(17));
        dra_buf_putc(&w->text, '\n');
        if (rc == 0)
            put_text(w, w->text.data, w->text.len);
        break;
    case DRA_FMT_JSON:
        if (w->count == 0) {
            w->held = json_deep_copy(obj);
            break;
        }
        if (w->count == 1) {
            put_text(w, LIST_HEAD "\n", strlen(LIST_HEAD "\n"));
            rc = put_list_item(w, w->held, true);
            json_decref(w->held);
            w->held = NULL;
        }
        if (rc == 0)
            rc = put_list_item(w, obj, false);
        break;
    }
    w->count++;
    if (rc != 0 && !w->err)
        w->err = dra_err_new(DRA_EXIT_RUNTIME, "cannot write JSON");
    return w->err ? dra_err_new(w->err->code, "%s", w->err->msg) : NULL;
}

/* The end of the document: a JSON List closed, or its one object. */
static void put_end(dra_writer *w)
{
    if (w->err || w->fmt != DRA_FMT_JSON)
        return;
    if (w->count == 1) {
        dra_buf_reset(&w->text);
        if (dump_json_buf(&w->text, w->held, JSON_INDENT(4) | JSON_REAL_PRECISION(17)) != 0) {
            w->err = dra_err_new(DRA_EXIT_RUNTIME, "cannot write JSON");
            return;
        }
        dra_buf_putc(&w->text, '\n');
        put_text(w, w->text.data, w->text.len);
    } else {
        const char *mid = w->count == 0 ? "]," : "\n    ],";
        put_text(w, w->count == 0 ? LIST_HEAD : "", w->count == 0 ? strlen(LIST_HEAD) : 0);
        put_text(w, mid, strlen(mid));
        put_text(w, LIST_TAIL, strlen(LIST_TAIL));
    }
}

dra_err *dra_writer_finish(dra_writer *w, dra_err *e)
{
    /* a run that failed before any output was written writes none; one
     * that failed later ends what it wrote as a complete document */
    if (!e || w->started) {
        put_end(w);
        flush_out(w);
        if (!w->err && ferror(w->f))
            w->err = write_failed(w->f);
    }
    dra_err *ce = w->err;
    json_decref(w->held);
    dra_buf_free(&w->text);
    dra_buf_free(&w->out);
    free(w);
    if (!e)
        return ce;
    dra_err_free(ce);
    return e;
}

dra_err *dra_writer_close(dra_writer *w)
{
    return dra_writer_finish(w, NULL);
}

dra_err *dra_write(FILE *f, json_t *const *objs, size_t n, dra_format fmt)
{
    dra_writer *w = dra_writer_new(f, fmt);
    for (size_t i = 0; i < n; i++) {
        dra_err *e = dra_writer_put(w, objs[i]);
        if (e) {
            dra_err_free(e);
            break;
        }
    }
    return dra_writer_close(w);
}

dra_err *dra_write_array(FILE *f, const json_t *arr, dra_format fmt)
{
    dra_writer *w = dra_writer_new(f, fmt);
    dra_err *e = NULL;
    size_t i;
    json_t *it;
    json_array_foreach(arr, i, it) {
        if (!e)
            e = dra_writer_put(w, it);
    }
    return dra_writer_finish(w, e);
}

dra_err *dra_write_value(FILE *f, const json_t *v, dra_format fmt)
{
    if (fmt == DRA_FMT_YAML) {
        sink s = {f, NULL, 0};
        dra_err *e = emit_yaml(&s, &v, 1, false);
        if (!e && ferror(f))
            e = write_failed(f);
        return e;
    }
    size_t flags = JSON_ENCODE_ANY | JSON_REAL_PRECISION(17) | (fmt == DRA_FMT_JSON ? JSON_INDENT(4) : JSON_COMPACT);
    dra_buf text = DRA_BUF_INIT;
    int rc = dump_json(f, v, flags, &text);
    dra_buf_free(&text);
    if (rc != 0 || fputc('\n', f) == EOF || ferror(f))
        return write_failed(f);
    return NULL;
}

/* A regular file's source that reads its text again when asked (owned by
 * the set, one per file); NULL for stdin and anything else. */
static const dra_source *file_source(dra_objset *set, const char *file)
{
    if (!file || strcmp(file, "-") == 0)
        return NULL;
    intptr_t i;
    if (dra_strmap_get(&set->source_index, file, strlen(file), &i))
        return set->sources[i];
    struct stat st;
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    dra_source *src = dra_xcalloc(1, sizeof *src);
    src->len = (size_t)st.st_size;
    src->path = dra_xstrdup(file);
    src->mtime_ns = (long long)((unsigned long long)st.st_mtim.tv_sec * 1000000000u + (unsigned long long)st.st_mtim.tv_nsec);
    dra_objset_add_source(set, src);
    return src;
}

/* A YAML document marker: "---" or "..." at the start of a line, alone or
 * followed by a blank. */
static bool doc_marker(const char *p, const char *end)
{
    if (end - p < 3 || (memcmp(p, "---", 3) != 0 && memcmp(p, "...", 3) != 0))
        return false;
    return end - p == 3 || p[3] == ' ' || p[3] == '\t' || p[3] == '\r' || p[3] == '\n';
}

/* The text of o's document as a source of its own (the set's), for input
 * that cannot be read again: from where the document starts to where the
 * text handed out with it ends (a JSON document, a List item), or, in
 * YAML read whole, to the next document marker.  The objects of one
 * document share one copy.  NULL when o has no text. */
static const dra_source *document_copy(dra_objset *set, const dra_obj *o)
{
    dra_source *from = (dra_source *)o->src; /* the reader's; its line index is built here at most */
    if (!from || !from->data || o->src_line < 1)
        return NULL;
    size_t start = o->src_off != SIZE_MAX ? o->src_off : dra_source_line_start(from, o->src_line);
    if (start == SIZE_MAX || start > from->len)
        return NULL;
    /* the same document's text again (the items of a List; each item of a
     * List streamed item by item is a text of its own) */
    if (set->copied_src && set->copied_file == o->file && set->copied_doc == o->doc &&
        set->copied_at == from->data + start)
        return set->copied_src;
    size_t end = from->len;
    if (o->src_off == SIZE_MAX) {
        const char *p = from->data + start, *stop = from->data + from->len;
        const char *nl = memchr(p, '\n', (size_t)(stop - p)); /* the first line is the document's own */
        while (nl && nl + 1 < stop && !doc_marker(nl + 1, stop))
            nl = memchr(nl + 1, '\n', (size_t)(stop - nl - 1));
        if (nl && nl + 1 < stop)
            end = (size_t)(nl + 1 - from->data);
    }
    dra_source *copy = dra_xcalloc(1, sizeof *copy);
    copy->len = end - start;
    copy->data = dra_xmalloc(copy->len + 1);
    memcpy(copy->data, from->data + start, copy->len);
    copy->data[copy->len] = 0;
    dra_objset_add_source(set, copy);
    set->copied_file = o->file;
    set->copied_doc = o->doc;
    set->copied_at = from->data + start;
    set->copied_src = copy;
    return copy;
}

void dra_objset_keep(dra_objset *set, const dra_obj *o)
{
    if (o->file != set->kept_file || !set->kept_file) {
        set->kept_file = o->file;
        set->kept_src = file_source(set, o->file);
    }
    const dra_source *src = set->kept_src;
    size_t off = SIZE_MAX;
    if (!src) { /* stdin: the document's text, copied */
        src = document_copy(set, o);
        off = 0;
    }
    dra_objset_add(set, json_incref(o->json), o->file, o->doc, o->line, o->item);
    dra_obj *n = &set->v[set->n - 1];
    n->src = src;
    n->src_off = off;
    n->src_line = src ? o->src_line : 0;
    n->src_item = o->src_item;
    n->src_path = dra_objset_own_path(set, o->src_path);
}
