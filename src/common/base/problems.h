/* A list of problems found in the input: the one result type of the
 * checking commands (`dra-slice lint`, `dra-claim doctor`, the eviction
 * view's warnings).  Unlike dra_err (which stops a command), a problem is
 * an answer: the command ran and found it.
 *
 * Ownership: the list owns every string except `file` (borrowed from the
 * object set).  Start with `dra_problems l = DRA_PROBLEMS_INIT;`, release
 * with dra_problems_free() (the list is reusable after).  Never fails
 * (aborts on OOM).
 */
#ifndef DRA_BASE_PROBLEMS_H
#define DRA_BASE_PROBLEMS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

typedef struct dra_problem {
    bool warning;     /* a warning, not a problem that fails the check */
    char *scope;      /* what it is grouped under ("driver/pool"), or NULL */
    char *object;     /* "Kind/name" or "Kind/ns/name", or NULL */
    const char *file; /* where the object was read (borrowed), or NULL */
    int line;         /* 1-based, 0 when unknown */
    char *msg;        /* one line */
    char *fix;        /* one shell command line that fixes it, or NULL */
    const char *hint; /* a parameter that changes the answer (as dra_err's hint), or NULL */
} dra_problem;

typedef struct dra_problems {
    dra_problem *v;
    size_t n, cap;
} dra_problems;

#define DRA_PROBLEMS_INIT                                                                                              \
    {                                                                                                                  \
        0, 0, 0                                                                                                        \
    }

/* Append a zeroed problem and return it for the caller to fill (with
 * strings the list then owns). */
dra_problem *dra_problems_add(dra_problems *l);
/* Append a problem with only a message. */
void dra_problems_addf(dra_problems *l, bool warning, const char *fmt, ...) DRA_PRINTF(3, 4);
/* How many are warnings (warnings = true) or not. */
size_t dra_problems_count(const dra_problems *l, bool warnings);
void dra_problems_free(dra_problems *l);
/* Whether an object named "Kind/ns/name" or "Kind/name" is shown when only
 * namespace ns is (NULL: every one): cluster-scoped objects always are, as
 * kubectl lists them whatever -n says. */
bool dra_problem_in_namespace(const char *object, const char *ns);
/* Drop the problems whose object is in another namespace than ns (NULL:
 * keep all), keeping the order of the others. */
void dra_problems_keep_namespace(dra_problems *l, const char *ns);

#endif
