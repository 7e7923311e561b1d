/* Printing floods of errors; see flood.h. */
#include "flood.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>


/* ---- printing ---- */

typedef struct kind_count {
    uint64_t key;
    size_t entries; /* errors of the kind in the chain; 0: a free slot */
    size_t total;   /* with the ones they stand for (their `more`) */
    size_t seen, shown;
    bool told;      /* "... and N more like the one above" printed */
} kind_count;

typedef struct kind_table {
    kind_count *v;
    size_t cap, n; /* cap: 0 or a power of two, at most half full */
} kind_table;

static kind_count *kind_slot(kind_table *t, uint64_t key)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        kind_count *v = dra_xcalloc(cap, sizeof *v);
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->v[i].entries)
                continue;
            size_t j = (size_t)t->v[i].key & (cap - 1);
            while (v[j].entries)
                j = (j + 1) & (cap - 1);
            v[j] = t->v[i];
        }
        free(t->v);
        t->v = v;
        t->cap = cap;
    }
    size_t j = (size_t)key & (t->cap - 1);
    while (t->v[j].entries && t->v[j].key != key)
        j = (j + 1) & (t->cap - 1);
    if (!t->v[j].entries) {
        t->v[j].key = key;
        t->n++;
    }
    return &t->v[j];
}

static void print_line(FILE *f, const char *prog, const char *label, const char *text)
{
    if (label)
        fprintf(f, "%s: %s: %s\n", prog, label, text);
    else
        fprintf(f, "%s: %s\n", prog, text);
}

void dra_tool_print_errs(FILE *f, const char *prog, const char *label, const dra_err *e)
{
    if (!e)
        return;
    kind_table t = {0};
    size_t all = 0; /* errors, with the ones they stand for */
    for (const dra_err *x = e; x; x = x->next) {
        kind_count *k = kind_slot(&t, dra_err_kind(x));
        k->entries++;
        k->total += 1 + x->more;
        all += 1 + x->more;
    }
    /* the kinds again in chain order: a second lookup is cheaper than
     * keeping one pointer per error into a table that moves as it grows */
    size_t printed = 0, told = 0;
    for (const dra_err *x = e; x; x = x->next) {
        kind_count *k = kind_slot(&t, dra_err_kind(x));
        k->seen++;
        if (k->told || printed >= DRA_TOOL_MAX_ERRORS)
            continue;
        char *line = dra_err_format(x);
        print_line(f, prog, label, line);
        free(line);
        printed++;
        k->shown++;
        if (k->shown == DRA_TOOL_MAX_OF_KIND || k->seen == k->entries) {
            /* the rest of the kind, the ones shown errors stand for too */
            size_t rest = k->total - k->shown;
            if (rest > 0) {
                char *more = dra_xasprintf("... and %zu more like the one above", rest);
                print_line(f, prog, label, more);
                free(more);
            }
            told += rest;
            k->told = true;
        }
    }
    size_t left = all - printed - told;
    if (left) {
        char *more = dra_xasprintf("... and %zu more %s", left, label ? "warnings" : "errors");
        print_line(f, prog, label, more);
        free(more);
    }
    free(t.v);
}

/* ---- gathering ---- */

void dra_tool_errs_add(dra_tool_errs *c, dra_err *e)
{
    while (e) {
        dra_err *x = dra_err_pop(&e);
        uint64_t key = dra_err_kind(x);
        size_t j = (size_t)key & (DRA_TOOL_KIND_SLOTS - 1);
        while (c->kinds[j].kept && c->kinds[j].key != key)
            j = (j + 1) & (DRA_TOOL_KIND_SLOTS - 1);
        dra_tool_kind *k = &c->kinds[j];
        if (k->kept < DRA_TOOL_MAX_OF_KIND && c->kept.n < DRA_TOOL_MAX_ERRORS) {
            k->key = key;
            k->kept++;
            k->last = x;
            dra_errs_add(&c->kept, x);
            continue;
        }
        if (k->kept) /* a kind kept: the last one kept stands for it */
            k->last->more += 1 + x->more;
        else
            c->dropped += 1 + x->more;
        dra_err_free(x);
    }
}
