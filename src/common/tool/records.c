#include "records.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/utf8.h"

/* n bytes of s as a JSON string, each byte of invalid UTF-8 as U+FFFD (as
 * Go's encoding/json writes it) */
static json_t *text_n(const char *s, size_t n)
{
    if (dra_utf8_valid(s, n))
        return json_stringn(s, n);
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = 0; i < n;) {
        uint32_t r;
        size_t w = dra_utf8_decode(s + i, n - i, &r);
        char enc[4];
        if (w == 0) {
            dra_buf_append(&b, enc, dra_utf8_encode(DRA_RUNE_ERROR, enc));
            i++;
        } else {
            dra_buf_append(&b, s + i, w);
            i += w;
        }
    }
    json_t *j = json_stringn(dra_buf_str(&b), b.len);
    dra_buf_free(&b);
    return j;
}

static json_t *text(const char *s)
{
    return text_n(s, strlen(s));
}

static json_t *str_or_null(const char *s)
{
    return s ? text(s) : json_null();
}

/* "Kind/name" or "Kind/namespace/name" */
static json_t *object_of(const char *o)
{
    if (!o || !*o)
        return json_null();
    const char *a = strchr(o, '/');
    if (!a)
        return json_pack("{s:o, s:n, s:s}", "kind", text(o), "namespace", "name", "");
    const char *b = strchr(a + 1, '/');
    json_t *k = text_n(o, (size_t)(a - o));
    json_t *ns = b ? text_n(a + 1, (size_t)(b - a - 1)) : json_null();
    return json_pack("{s:o, s:o, s:o}", "kind", k, "namespace", ns, "name", text(b ? b + 1 : a + 1));
}

static json_t *file_of(const char *f)
{
    return !f ? json_null() : text(strcmp(f, "-") == 0 ? "<stdin>" : f);
}

static json_t *line_of(int line)
{
    return line > 0 ? json_integer(line) : json_null();
}

static dra_err *put(dra_records *r, json_t *rec)
{
    if (r->fmt == 1) {
        json_array_append_new(r->all, rec);
        return NULL;
    }
    char *s = json_dumps(rec, JSON_COMPACT);
    json_decref(rec);
    int n = s ? fprintf(r->f, "%s\n", s) : -1;
    free(s);
    return n < 0 ? dra_err_new(DRA_EXIT_RUNTIME, "error writing the findings") : NULL;
}

dra_err *dra_records_start(dra_records *r, const char *output, FILE *f)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    if (!output || strcmp(output, "text") == 0)
        return NULL;
    if (strcmp(output, "json") == 0) {
        r->fmt = 1;
        r->all = json_array();
    } else if (strcmp(output, "jsonl") == 0) {
        r->fmt = 2;
    } else {
        return dra_err_field(dra_err_new(DRA_EXIT_INPUT, "unknown output format %s (want text, json or jsonl)", output),
                             "--output");
    }
    return NULL;
}

bool dra_records_on(const dra_records *r)
{
    return r->fmt != 0;
}

dra_err *dra_records_errs(dra_records *r, const dra_err *e, bool warning)
{
    dra_err *w = NULL;
    for (; e && !w; e = e->next) {
        json_t *rec = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "severity", warning ? "warning" : "error", "file",
                                file_of(e->file), "line", line_of(e->line), "object", object_of(e->object), "field",
                                str_or_null(e->field), "message", text_n(e->msg, dra_err_msg_len(e)));
        w = put(r, rec);
    }
    return w;
}

dra_err *dra_records_problems(dra_records *r, const dra_problems *l)
{
    dra_err *w = NULL;
    for (size_t i = 0; i < l->n && !w; i++) {
        const dra_problem *p = &l->v[i];
        json_t *rec = json_pack("{s:s, s:o, s:o, s:o, s:n, s:o}", "severity", p->warning ? "warning" : "error", "file",
                                file_of(p->file), "line", line_of(p->line), "object", object_of(p->object), "field",
                                "message", text(p->msg));
        if (p->scope)
            json_object_set_new(rec, "scope", text(p->scope));
        if (p->fix)
            json_object_set_new(rec, "fix", text(p->fix));
        w = put(r, rec);
    }
    return w;
}

dra_err *dra_records_take(dra_records *r, dra_err *chain, int *rc)
{
    dra_err *failed = NULL, *found = NULL;
    for (dra_err *e; (e = dra_err_pop(&chain));) {
        if (e->code == DRA_EXIT_RUNTIME) {
            failed = dra_err_append(failed, e);
            continue;
        }
        if (e->code > *rc)
            *rc = e->code;
        found = dra_err_append(found, e);
    }
    dra_err *w = dra_records_errs(r, found, false);
    dra_err_free(found);
    return dra_err_append(failed, w);
}

dra_err *dra_records_finish(dra_records *r)
{
    dra_err *e = NULL;
    if (r->fmt == 1) {
        char *s = json_dumps(r->all, JSON_INDENT(4));
        if (!s || fprintf(r->f, "%s\n", s) < 0)
            e = dra_err_new(DRA_EXIT_RUNTIME, "error writing the findings");
        free(s);
        json_decref(r->all);
    }
    r->all = NULL;
    return e;
}

dra_err *dra_records_end(dra_records *r, dra_err *errs, dra_err *warnings, const dra_problems *problems, int *rc)
{
    int code = DRA_EXIT_OK;
    dra_err *e = dra_records_take(r, errs, &code);
    e = dra_err_append(e, dra_records_errs(r, warnings, true));
    dra_err_free(warnings);
    if (!e && problems)
        e = dra_records_problems(r, problems);
    if (code == DRA_EXIT_OK && problems && dra_problems_count(problems, false) > 0)
        code = DRA_EXIT_NEGATIVE;
    if (code != DRA_EXIT_OK)
        *rc = code;
    return dra_err_append(e, dra_records_finish(r));
}
