#include "error.h"

#include <stdlib.h>
#include <string.h>

static void oom(void)
{
    fputs("dra-tools: out of memory\n", stderr);
    abort();
}

void *dra_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *dra_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *dra_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        oom();
    return p;
}

char *dra_xstrdup(const char *s)
{
    return dra_xstrndup(s, strlen(s));
}

char *dra_xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = dra_xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *dra_xvasprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    char *p = dra_xmalloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *dra_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = dra_xvasprintf(fmt, ap);
    va_end(ap);
    return p;
}

dra_err *dra_err_newv(int code, const char *fmt, va_list ap)
{
    dra_err *e = dra_xcalloc(1, sizeof *e);
    e->code = code;
    e->msg = dra_xvasprintf(fmt, ap);
    return e;
}

dra_err *dra_err_new(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dra_err *e = dra_err_newv(code, fmt, ap);
    va_end(ap);
    return e;
}

static void replace(char **slot, const char *s)
{
    free(*slot);
    *slot = s ? dra_xstrdup(s) : NULL;
}

dra_err *dra_err_at(dra_err *e, const char *file, int doc, int line, int col)
{
    if (!e)
        return e;
    replace(&e->file, file);
    e->doc = doc;
    e->line = line;
    e->col = col;
    return e;
}

dra_err *dra_err_object(dra_err *e, const char *object)
{
    if (e)
        replace(&e->object, object);
    return e;
}

dra_err *dra_err_field(dra_err *e, const char *field)
{
    if (e)
        replace(&e->field, field);
    return e;
}

dra_err *dra_err_field_prefix(dra_err *e, const char *prefix)
{
    if (!e || !prefix || !*prefix)
        return e;
    char *joined;
    if (!e->field || !*e->field)
        joined = dra_xstrdup(prefix);
    else if (e->field[0] == '[')
        joined = dra_xasprintf("%s%s", prefix, e->field);
    else
        joined = dra_xasprintf("%s.%s", prefix, e->field);
    free(e->field);
    e->field = joined;
    return e;
}

dra_err *dra_err_locate_all(dra_err *e, const char *file, int doc, int line, const char *object)
{
    for (dra_err *i = e; i; i = i->next) {
        if (!i->file && file) {
            i->file = dra_xstrdup(file);
            i->doc = doc;
            i->line = line;
        }
        if (!i->object && object)
            i->object = dra_xstrdup(object);
    }
    return e;
}

dra_err *dra_err_append(dra_err *a, dra_err *b)
{
    if (!a)
        return b;
    dra_err *t = a;
    while (t->next)
        t = t->next;
    t->next = b;
    return a;
}

size_t dra_err_count(const dra_err *e)
{
    size_t n = 0;
    for (; e; e = e->next)
        n++;
    return n;
}

void dra_err_free(dra_err *e)
{
    while (e) {
        dra_err *next = e->next;
        free(e->msg);
        free(e->file);
        free(e->object);
        free(e->field);
        free(e);
        e = next;
    }
}

char *dra_err_format(const dra_err *e)
{
    size_t cap = strlen(e->msg) + 64;
    if (e->file)
        cap += strlen(e->file);
    if (e->object)
        cap += strlen(e->object);
    if (e->field)
        cap += strlen(e->field);
    char *out = dra_xmalloc(cap);
    size_t n = 0;
    if (e->file) {
        const char *f = strcmp(e->file, "-") == 0 ? "<stdin>" : e->file;
        n += (size_t)snprintf(out + n, cap - n, "%s", f);
        if (e->line > 0)
            n += (size_t)snprintf(out + n, cap - n, ":%d", e->line);
        if (e->line > 0 && e->col > 0)
            n += (size_t)snprintf(out + n, cap - n, ":%d", e->col);
        if (e->doc > 1 || (e->doc == 1 && e->line == 0))
            n += (size_t)snprintf(out + n, cap - n, " (document %d)", e->doc);
        n += (size_t)snprintf(out + n, cap - n, ": ");
    }
    if (e->object)
        n += (size_t)snprintf(out + n, cap - n, "%s: ", e->object);
    if (e->field && *e->field)
        n += (size_t)snprintf(out + n, cap - n, "%s: ", e->field);
    snprintf(out + n, cap - n, "%s", e->msg);
    return out;
}

void dra_err_print(FILE *f, const char *prog, const dra_err *e)
{
    for (; e; e = e->next) {
        char *line = dra_err_format(e);
        fprintf(f, "%s: %s\n", prog, line);
        free(line);
    }
}
