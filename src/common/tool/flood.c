/* Printing floods of errors; see flood.h. */
#include "flood.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- printing ---- */

/* What the printer knows of a kind. */
typedef struct kind_count {
    size_t entries; /* errors of the kind in the chain */
    size_t total;   /* with the ones they stand for (their `more`) */
    size_t seen, shown;
    bool told; /* "... and N more like the one above" printed */
} kind_count;

static void print_line_n(FILE *f, const char *prog, const char *label, const char *text, size_t n)
{
    if (label)
        fprintf(f, "%s: %s: ", prog, label);
    else
        fprintf(f, "%s: ", prog);
    fwrite(text, 1, n, f); /* a message may hold NUL bytes (dra_err_formatn) */
    fputc('\n', f);
}

static void print_line(FILE *f, const char *prog, const char *label, const char *text)
{
    print_line_n(f, prog, label, text, strlen(text));
}

void dra_tool_print_errs(FILE *f, const char *prog, const char *label, const dra_err *e)
{
    dra_tool_print_errs_every(f, prog, label, e, false);
}

void dra_tool_print_errs_every(FILE *f, const char *prog, const char *label, const dra_err *e, bool every)
{
    if (!e)
        return;
    size_t of_kind = every ? SIZE_MAX : DRA_TOOL_MAX_OF_KIND, cap = every ? SIZE_MAX : DRA_TOOL_MAX_ERRORS;
    dra_err_kinds t = {0};
    kind_count *kc = NULL;
    size_t all = 0; /* errors, with the ones they stand for */
    for (const dra_err *x = e; x; x = x->next) {
        size_t before = t.n, i = dra_err_kinds_index(&t, dra_err_kind(x));
        if (t.n > before) {
            kc = dra_xgrow(kc, before, sizeof *kc);
            kc[i] = (kind_count){0};
        }
        kc[i].entries++;
        kc[i].total += 1 + x->more;
        all += 1 + x->more;
    }
    /* the kinds again in chain order: a second lookup is cheaper than
     * keeping one number per error */
    size_t printed = 0, told = 0;
    for (const dra_err *x = e; x; x = x->next) {
        kind_count *k = &kc[dra_err_kinds_index(&t, dra_err_kind(x))];
        k->seen++;
        if (k->told || printed >= cap)
            continue;
        size_t n;
        char *line = dra_err_formatn(x, &n);
        print_line_n(f, prog, label, line, n);
        free(line);
        printed++;
        k->shown++;
        if (k->shown == of_kind || k->seen == k->entries) {
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
    dra_err_kinds_free(&t);
    free(kc);
}

/* ---- gathering ---- */

void dra_tool_errs_add(dra_tool_errs *c, dra_err *e)
{
    c->errs.fold = c->every ? 0 : DRA_TOOL_MAX_OF_KIND;
    c->errs.cap = c->every ? 0 : DRA_TOOL_MAX_ERRORS;
    dra_errs_add(&c->errs, e);
}
