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

size_t dra_err_kinds_index(dra_err_kinds *t, uint64_t key)
{
    if (2 * (t->n + 1) > t->nslot) {
        size_t nslot = t->nslot ? 2 * t->nslot : 64;
        uint32_t *slot = dra_xcalloc(nslot, sizeof *slot);
        for (size_t i = 0; i < t->n; i++) {
            size_t j = (size_t)t->keys[i] & (nslot - 1);
            while (slot[j])
                j = (j + 1) & (nslot - 1);
            slot[j] = (uint32_t)(i + 1);
        }
        free(t->slot);
        t->slot = slot;
        t->nslot = nslot;
    }
    size_t j = (size_t)key & (t->nslot - 1);
    while (t->slot[j] && t->keys[t->slot[j] - 1] != key)
        j = (j + 1) & (t->nslot - 1);
    if (!t->slot[j]) {
        t->keys = dra_xgrow(t->keys, t->n, sizeof *t->keys);
        t->keys[t->n] = key;
        t->slot[j] = (uint32_t)(++t->n);
    }
    return t->slot[j] - 1;
}

void dra_err_kinds_free(dra_err_kinds *t)
{
    free(t->keys);
    free(t->slot);
    *t = (dra_err_kinds){0};
}

/* A folding list's kinds: how many of each it kept, and the last one. */
struct dra_errs_kinds {
    dra_err_kinds set;
    size_t *kept;
    dra_err **last;
};

/* Append e alone (next NULL). */
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
    if (!l->fold) { /* the whole chain at once: its end found by walking it */
        dra_err *end = e;
        size_t n = 1;
        for (; end->next; end = end->next)
            n++;
        link_one(l, e);
        e->last = NULL;
        l->tail = end;
        l->n += n - 1;
        return;
    }
    if (!l->kinds)
        l->kinds = dra_xcalloc(1, sizeof *l->kinds);
    struct dra_errs_kinds *k = l->kinds;
    while (e) {
        dra_err *x = dra_err_pop(&e);
        size_t before = k->set.n, i = dra_err_kinds_index(&k->set, dra_err_kind(x));
        if (k->set.n > before) {
            k->kept = dra_xgrow(k->kept, before, sizeof *k->kept);
            k->last = dra_xgrow(k->last, before, sizeof *k->last);
            k->kept[i] = 0;
        }
        if (k->kept[i] < l->fold && (!l->cap || l->n < l->cap)) {
            k->kept[i]++;
            k->last[i] = x;
            link_one(l, x);
            continue;
        }
        if (k->kept[i]) /* a kind kept: its last one stands for the rest */
            k->last[i]->more += 1 + x->more;
        else
            l->dropped += 1 + x->more;
        dra_err_free(x);
    }
}

dra_err *dra_errs_take(dra_errs *l)
{
    dra_err *h = l->head;
    if (h)
        h->last = h != l->tail ? l->tail : NULL;
    if (l->kinds) {
        dra_err_kinds_free(&l->kinds->set);
        free(l->kinds->kept);
        free(l->kinds->last);
        free(l->kinds);
    }
    size_t fold = l->fold, cap = l->cap;
    *l = (dra_errs)DRA_ERRS_INIT;
    l->fold = fold;
    l->cap = cap;
    return h;
}

void dra_errs_free(dra_errs *l)
{
    dra_err_free(dra_errs_take(l));
}
