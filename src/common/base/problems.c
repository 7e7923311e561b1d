/* The list of problems; see problems.h. */
#include "problems.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

dra_problem *dra_problems_add(dra_problems *l)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = dra_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    dra_problem *p = &l->v[l->n++];
    memset(p, 0, sizeof *p);
    return p;
}

void dra_problems_addf(dra_problems *l, bool warning, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = dra_xvasprintf(fmt, ap);
    va_end(ap);
    dra_problem *p = dra_problems_add(l);
    p->warning = warning;
    p->msg = msg;
}

size_t dra_problems_count(const dra_problems *l, bool warnings)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += l->v[i].warning == warnings;
    return n;
}

void dra_problems_free(dra_problems *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].scope);
        free(l->v[i].object);
        free(l->v[i].msg);
        free(l->v[i].fix);
    }
    free(l->v);
    *l = (dra_problems)DRA_PROBLEMS_INIT;
}
