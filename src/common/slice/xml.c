/* A tiny XML reader, enough for nvidia-smi's output (see xml.h). */
#include "xml.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct xparser {
    const char *p, *end;
    dra_arena *arena;
    const char *err;
} xparser;

void dra_xml_free(dra_xnode *n)
{
    while (n) {
        dra_xnode *next = n->next;
        dra_xml_free(n->child);
        dra_buf_free(&n->text);
        n = next;
    }
}

static void append_text(dra_buf *b, const char *s, size_t n)
{
    /* Entities nvidia-smi may write. */
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '&') {
            dra_buf_putc(b, s[i]);
            continue;
        }
        static const struct {
            const char *ent;
            char c;
        } ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool done = false;
        for (size_t k = 0; k < 5 && !done; k++) {
            size_t l = strlen(ents[k].ent);
            if (i + l <= n && strncmp(s + i, ents[k].ent, l) == 0) {
                dra_buf_putc(b, ents[k].c);
                i += l - 1;
                done = true;
            }
        }
        if (!done)
            dra_buf_putc(b, '&');
    }
}

static dra_xnode *x_element(xparser *x, int depth);

/* Content up to the matching end tag; children appended to parent. */
static bool x_content(xparser *x, dra_xnode *parent, int depth)
{
    while (x->p < x->end) {
        const char *lt = memchr(x->p, '<', (size_t)(x->end - x->p));
        if (!lt) {
            x->err = "unterminated element";
            return false;
        }
        append_text(&parent->text, x->p, (size_t)(lt - x->p));
        x->p = lt;
        if (x->p + 1 < x->end && x->p[1] == '/') {
            const char *gt = memchr(x->p, '>', (size_t)(x->end - x->p));
            size_t nlen = strlen(parent->name);
            if (!gt || (size_t)(gt - x->p - 2) < nlen || strncmp(x->p + 2, parent->name, nlen) != 0) {
                x->err = "mismatched end tag";
                return false;
            }
            x->p = gt + 1;
            return true;
        }
        if (x->p + 3 < x->end && strncmp(x->p, "<!--", 4) == 0) {
            const char *e = memmem(x->p, (size_t)(x->end - x->p), "-->", 3);
            if (!e) {
                x->err = "unterminated comment";
                return false;
            }
            x->p = e + 3;
            continue;
        }
        dra_xnode *c = x_element(x, depth + 1);
        if (!c)
            return false;
        if (parent->last)
            parent->last->next = c;
        else
            parent->child = c;
        parent->last = c;
    }
    x->err = "unterminated element";
    return false;
}

static dra_xnode *x_element(xparser *x, int depth)
{
    if (depth > 64) {
        x->err = "nesting too deep";
        return NULL;
    }
    /* x->p at '<' */
    const char *s = x->p + 1;
    const char *gt = memchr(s, '>', (size_t)(x->end - s));
    if (!gt) {
        x->err = "unterminated tag";
        return NULL;
    }
    const char *e = s;
    while (e < gt && !isspace((unsigned char)*e) && *e != '/')
        e++;
    if (e == s) {
        x->err = "empty tag name";
        return NULL;
    }
    dra_xnode *n = dra_arena_zalloc(x->arena, sizeof *n);
    n->name = dra_arena_strndup(x->arena, s, (size_t)(e - s));
    const char *id = NULL;
    for (const char *a = e; a + 4 <= gt; a++)
        if (strncmp(a, "id=\"", 4) == 0 && (a == e || isspace((unsigned char)a[-1]))) {
            id = a + 4;
            break;
        }
    if (id) {
        const char *q = memchr(id, '"', (size_t)(gt - id));
        if (q)
            n->id = dra_arena_strndup(x->arena, id, (size_t)(q - id));
    }
    x->p = gt + 1;
    if (gt[-1] == '/')
        return n;
    if (!x_content(x, n, depth)) {
        dra_xml_free(n);
        return NULL;
    }
    return n;
}

dra_xnode *dra_xml_parse(const char *data, size_t len, dra_arena *arena, const char **err)
{
    xparser x = {data, data + len, arena, NULL};
    while (x.p < x.end) {
        const char *lt = memchr(x.p, '<', (size_t)(x.end - x.p));
        if (!lt)
            break;
        x.p = lt;
        if (x.p + 1 < x.end && (x.p[1] == '?' || x.p[1] == '!')) {
            /* prolog, DOCTYPE, comments */
            const char *gt = memchr(x.p, '>', (size_t)(x.end - x.p));
            if (!gt)
                break;
            x.p = gt + 1;
            continue;
        }
        dra_xnode *root = x_element(&x, 0);
        if (!root)
            *err = x.err ? x.err : "malformed XML";
        return root;
    }
    *err = "no root element";
    return NULL;
}

dra_xnode *dra_xml_child(dra_xnode *n, const char *path)
{
    while (n && *path) {
        const char *slash = strchr(path, '/');
        size_t len = slash ? (size_t)(slash - path) : strlen(path);
        dra_xnode *c = n->child;
        while (c && !(strlen(c->name) == len && strncmp(c->name, path, len) == 0))
            c = c->next;
        n = c;
        path = slash ? slash + 1 : path + len;
    }
    return n;
}

/* Trimmed text of a child; NULL when absent, empty or "N/A". Borrowed from scratch. */
const char *dra_xml_text(dra_xnode *n, const char *path, char *scratch, size_t size)
{
    dra_xnode *c = dra_xml_child(n, path);
    if (!c)
        return NULL;
    const char *s = dra_buf_str(&c->text);
    while (isspace((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    if (len == 0 || len >= size)
        return NULL;
    memcpy(scratch, s, len);
    scratch[len] = '\0';
    if (strcmp(scratch, "N/A") == 0 || strcmp(scratch, "None") == 0)
        return NULL;
    return scratch;
}

bool dra_xml_long(dra_xnode *n, const char *path, long long *out)
{
    char buf[64];
    const char *s = dra_xml_text(n, path, buf, sizeof buf);
    return s && dra_parse_long(s, out);
}

/* "40960 MiB" -> bytes. */
bool dra_xml_mib(dra_xnode *n, const char *path, unsigned long long *bytes)
{
    char buf[64];
    const char *s = dra_xml_text(n, path, buf, sizeof buf);
    if (!s)
        return false;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    while (*end == ' ')
        end++;
    if (end == s || strcmp(end, "MiB") != 0)
        return false;
    *bytes = v << 20;
    return true;
}

bool dra_parse_long(const char *s, long long *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}
