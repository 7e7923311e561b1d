#include "error.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct dra_buf_lite {
    char *data;
    size_t len, cap;
} dra_buf_lite;

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

void *dra_xgrow(void *p, size_t n, size_t elem)
{
    if (n != 0 && (n < 4 || (n & (n - 1)) != 0))
        return p; /* room left: capacity is 4, 8, 16, ... */
    size_t cap = n ? n * 2 : 4;
    if (elem && cap > SIZE_MAX / elem)
        oom();
    return dra_xrealloc(p, cap * elem);
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
    /* one formatting pass for the usual short text, a second for a long one */
    char small[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        n = 0;
        small[0] = '\0';
    }
    char *p = dra_xmalloc((size_t)n + 1);
    if ((size_t)n < sizeof small)
        memcpy(p, small, (size_t)n + 1);
    else
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
    e->len = strlen(e->msg);
    e->len_of = e->msg;
    return e;
}

dra_err *dra_err_newn(int code, const char *msg, size_t len)
{
    dra_err *e = dra_xcalloc(1, sizeof *e);
    e->code = code;
    e->msg = dra_xmalloc(len + 1);
    if (len)
        memcpy(e->msg, msg, len);
    e->msg[len] = '\0';
    e->len = len;
    e->len_of = e->msg;
    return e;
}

dra_err *dra_err_set_msg(dra_err *e, char *msg)
{
    free(e->msg);
    e->msg = msg;
    e->len = strlen(msg);
    e->len_of = msg;
    return e;
}

size_t dra_err_msg_len(const dra_err *e)
{
    /* a message set by hand, without dra_err_set_msg, is read as a C string */
    return e->len_of == e->msg ? e->len : strlen(e->msg);
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
    if (e) {
        replace(&e->field, field);
        e->param = 0;
    }
    return e;
}

dra_err *dra_err_hint(dra_err *e, const char *name)
{
    if (e)
        e->hint = name;
    return e;
}

dra_err *dra_err_param(dra_err *e, const char *name)
{
    if (e) {
        replace(&e->field, name);
        e->param = 1;
    }
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

/* The last error of the chain that starts at e, found from where e last
 * saw its end (a chain extended by hand is walked from there); e keeps it. */
static dra_err *chain_end(dra_err *e)
{
    if (!e->next) {
        e->last = NULL; /* alone: whatever it remembered is gone */
        return e;
    }
    dra_err *t = e->last ? e->last : e->next;
    while (t->next)
        t = t->next;
    e->last = t;
    return t;
}

dra_err *dra_err_append(dra_err *a, dra_err *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    dra_err *end = chain_end(a);
    dra_err *b_end = chain_end(b);
    end->next = b;
    b->last = NULL; /* no longer a head */
    a->last = b_end;
    return a;
}

dra_err *dra_err_pop(dra_err **chain)
{
    dra_err *e = *chain;
    if (!e)
        return NULL;
    dra_err *rest = e->next;
    if (rest) /* the end e knew is the rest's end too, unless it is the rest's head */
        rest->last = e->last != rest ? e->last : NULL;
    e->next = NULL;
    e->last = NULL;
    *chain = rest;
    return e;
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

/* Object references and field paths come from input; a 20 MB name must not
 * become a 20 MB error line. */
enum { MAX_ECHO = 300 };

bool dra_echo_cut(size_t n, size_t max, size_t *head, size_t *tail)
{
    if (max < 16)
        max = 16;
    if (n <= max)
        return false;
    size_t remaining = max - 3;
    *head = (remaining + 1) / 2;
    *tail = remaining / 2;
    return true;
}

static void put_capped(dra_buf_lite *b, const char *s, size_t cap);
static void put_capped_n(dra_buf_lite *b, const char *s, size_t n, size_t cap);

char *dra_err_format(const dra_err *e)
{
    return dra_err_formatn(e, NULL);
}

char *dra_err_formatn(const dra_err *e, size_t *len)
{
    dra_buf_lite b = {0};
    if (e->file) {
        put_capped(&b, strcmp(e->file, "-") == 0 ? "<stdin>" : e->file, MAX_ECHO);
        char num[64];
        if (e->line > 0) {
            snprintf(num, sizeof num, ":%d", e->line);
            put_capped(&b, num, MAX_ECHO);
        }
        if (e->line > 0 && e->col > 0) {
            snprintf(num, sizeof num, ":%d", e->col);
            put_capped(&b, num, MAX_ECHO);
        }
        if (e->doc > 1 || (e->doc == 1 && e->line == 0)) {
            snprintf(num, sizeof num, " (document %d)", e->doc);
            put_capped(&b, num, MAX_ECHO);
        }
        put_capped(&b, ": ", MAX_ECHO);
    }
    if (e->object) {
        put_capped(&b, e->object, MAX_ECHO);
        put_capped(&b, ": ", MAX_ECHO);
    }
    if (e->field && *e->field) {
        put_capped(&b, e->field, MAX_ECHO);
        put_capped(&b, ": ", MAX_ECHO);
    }
    /* room for a CEL error's caret under a 10 KiB expression */
    put_capped_n(&b, e->msg, dra_err_msg_len(e), DRA_MSG_MAX);
    if (len)
        *len = b.len;
    return b.data ? b.data : dra_xstrdup("");
}

bool dra_err_put_line(FILE *f, const char *prefix, const dra_err *e)
{
    size_t n;
    char *line = dra_err_formatn(e, &n);
    bool ok = (!prefix || fprintf(f, "%s: ", prefix) >= 0) && fwrite(line, 1, n, f) == n && fputc('\n', f) != EOF;
    free(line);
    return ok;
}

void dra_err_print(FILE *f, const char *prog, const dra_err *e)
{
    for (; e; e = e->next)
        (void)dra_err_put_line(f, prog, e);
}

static void put_capped(dra_buf_lite *b, const char *s, size_t cap)
{
    put_capped_n(b, s, strlen(s), cap);
}

static void put_capped_n(dra_buf_lite *b, const char *s, size_t n, size_t cap)
{
    size_t all = n;
    bool cut = n > cap;
    if (cut)
        n = cap;
    size_t need = b->len + n + 32;
    if (need > b->cap) {
        b->cap = need * 2;
        b->data = dra_xrealloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    if (cut) {
        size_t rest = all - n;
        b->len += (size_t)snprintf(b->data + b->len, b->cap - b->len, "...(%zu more bytes)", rest);
    }
    b->data[b->len] = '\0';
}
