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

bool dra_problem_in_namespace(const char *object, const char *ns)
{
    if (!ns || !object)
        return true;
    const char *a = strchr(object, '/'), *b = a ? strchr(a + 1, '/') : NULL;
    if (!b) /* Kind/name: cluster-scoped */
        return true;
    return (size_t)(b - a - 1) == strlen(ns) && strncmp(a + 1, ns, strlen(ns)) == 0;
}

void dra_problems_keep_namespace(dra_problems *l, const char *ns)
{
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (dra_problem_in_namespace(l->v[i].object, ns)) {
            l->v[k++] = l->v[i];
            continue;
        }
        free(l->v[i].scope);
        free(l->v[i].object);
        free(l->v[i].msg);
        free(l->v[i].fix);
    }
    l->n = k;
}
