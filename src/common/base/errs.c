/* Lists of errors and the kinds of errors; see dra_errs and dra_err_kind
 * in error.h. */
#include <stdlib.h>

#include "error.h"
#include "hash.h"

/* h continued over s with quoted text, digits and bracketed parts left
 * out: `unknown field "spec.x1"` and `unknown field "spec.x2"` hash alike. */
static uint64_t hash_shape(uint64_t h, const char *s)
{
    static const unsigned char sep = 0x1f;
    for (const char *p = s ? s : ""; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') { /* a Go-quoted value: its quotes stay, its text goes */
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                break;
        } else if (c == '[') { /* an index or a key */
            int depth = 1;
            while (p[1] && depth > 0) {
                p++;
                depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
            }
            h = dra_fnv1a(h, "[", 1);
            c = ']';
        } else if (c >= '0' && c <= '9') {
            while (p[1] >= '0' && p[1] <= '9')
                p++;
            c = '#';
        }
        h = dra_fnv1a(h, &c, 1);
    }
    return dra_fnv1a(h, &sep, 1);
}

uint64_t dra_err_kind(const dra_err *e)
{
    unsigned char code = (unsigned char)e->code;
    uint64_t h = dra_fnv1a(DRA_FNV64_OFFSET, &code, 1);
    h = hash_shape(h, e->field);
    return hash_shape(h, e->msg);
}

/* The kinds a folding list has seen: open addressing, at most half full. */
typedef struct errs_kind {
    uint64_t key;
    size_t kept;   /* 0: a free slot */
    dra_err *last; /* the last error of the kind kept */
} errs_kind;

struct dra_errs_kinds {
    errs_kind *v;
    size_t cap, n;
};

static errs_kind *kind_slot(struct dra_errs_kinds *t, uint64_t key)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        errs_kind *v = dra_xcalloc(cap, sizeof *v);
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->v[i].kept)
                continue;
            size_t j = (size_t)t->v[i].key & (cap - 1);
            while (v[j].kept)
                j = (j + 1) & (cap - 1);
            v[j] = t->v[i];
        }
        free(t->v);
        t->v = v;
        t->cap = cap;
    }
    size_t j = (size_t)key & (t->cap - 1);
    while (t->v[j].kept && t->v[j].key != key)
        j = (j + 1) & (t->cap - 1);
    return &t->v[j];
}

static void link_one(dra_errs *l, dra_err *e)
{
    if (l->tail)
        l->tail->next = e;
    else
        l->head = e;
    l->tail = e;
    l->n++;
}

void dra_errs_add(dra_errs *l, dra_err *e)
{
    if (!e)
        return;
    if (!l->fold) {
        if (l->tail)
            l->tail->next = e;
        else
            l->head = e;
        e->last = NULL;
        l->n++;
        while (e->next) {
            e = e->next;
            l->n++;
        }
        l->tail = e;
        return;
    }
    if (!l->kinds)
        l->kinds = dra_xcalloc(1, sizeof *l->kinds);
    while (e) {
        dra_err *x = dra_err_pop(&e);
        uint64_t key = dra_err_kind(x);
        errs_kind *k = kind_slot(l->kinds, key);
        if (k->kept < l->fold) {
            if (!k->kept)
                l->kinds->n++;
            k->key = key;
            k->kept++;
            k->last = x;
            link_one(l, x);
        } else {
            k->last->more += 1 + x->more;
            dra_err_free(x);
        }
    }
}

dra_err *dra_errs_take(dra_errs *l)
{
    dra_err *h = l->head;
    if (h)
        h->last = h != l->tail ? l->tail : NULL;
    if (l->kinds) {
        free(l->kinds->v);
        free(l->kinds);
    }
    size_t fold = l->fold;
    *l = (dra_errs)DRA_ERRS_INIT;
    l->fold = fold;
    return h;
}

void dra_errs_free(dra_errs *l)
{
    dra_err_free(dra_errs_take(l));
}
