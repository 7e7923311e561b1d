/* Writing objects: yaml, json and jsonl, whole or streamed.  See stream.h. */
#include "stream.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/buf.h"
#include "base/utf8.h"
#include "jline.h"
#include "jparse.h"
#include "yaml_quote.h"

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
        if (dra_yaml_plain_would_change(s))
            style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        else if (memchr(s, '\n', len))
            style = YAML_LITERAL_SCALAR_STYLE;
        yaml_scalar_event_initialize(&ev, NULL, (yaml_char_t *)YAML_STR_TAG, (yaml_char_t *)s, (int)len,
                                     style == YAML_ANY_SCALAR_STYLE, 1, style);
        return yaml_emitter_emit(em, &ev);
    }
    case JSON_INTEGER: snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
    case JSON_REAL: format_real(json_real_value(v), num, sizeof num); break;
    case JSON_TRUE: strcpy(num, "true"); break;
    case JSON_FALSE: strcpy(num, "false"); break;
    case JSON_NULL: strcpy(num, "null"); break;
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
        e = s->failed
                ? dra_err_new(DRA_EXIT_RUNTIME, "error writing output: %s", strerror(errno))
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
    return dra_err_new(DRA_EXIT_RUNTIME, "error writing output: %s",
                       ferror(f) && errno ? strerror(errno) : "write failed");
}

struct dra_writer {
    FILE *f;
    dra_format fmt;
    size_t count; /* objects put so far */
    json_t *held; /* json: the first object, until we know whether a List is needed */
    dra_buf text; /* reused for each object's text */
    dra_buf out;  /* text not written yet */
    size_t hold;  /* write nothing until out holds this much */
    bool started; /* some of the output reached f */
    dra_err *err; /* first error; later puts do nothing */
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
        rc = dra_json_write_line(&w->text, obj) ? 0 : -1; /* jansson's bytes, sooner */
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

dra_err *dra_writer_put_line(dra_writer *w, const char *text, size_t len)
{
    if (w->fmt == DRA_FMT_JSONL) {
        if (w->err)
            return NULL;
        put_text(w, text, len);
        put_text(w, "\n", 1);
        w->count++;
        return w->err ? dra_err_new(w->err->code, "%s", w->err->msg) : NULL;
    }
    json_t *obj = dra_json_read_compact(text, len);
    dra_err *e = obj ? dra_writer_put(w, obj) : dra_err_new(DRA_EXIT_RUNTIME, "cannot write JSON");
    json_decref(obj);
    return e;
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
