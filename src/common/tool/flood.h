/* Printing many errors: a flood of one kind does not hide the others.
 *
 * The kind of an error is dra_err_kind's (base/error.h): its message and
 * field path without the parts that name one particular thing, so one
 * problem about many names or objects is one kind.  A tool
 * prints at most DRA_TOOL_MAX_OF_KIND errors of a kind, then "... and N more
 * like the one above", and at most DRA_TOOL_MAX_ERRORS errors in all, then
 * "... and N more errors".  Warnings print the same way.  What is printed
 * changes nothing else: the exit code is the first error's.  With -v
 * (DRA_OPT_VERBOSE) a tool prints every error and warning, none capped.
 *
 * An error's `more` (base/error.h) counts errors of its kind a gatherer left
 * out after it; they print as part of its kind's count.
 */
#ifndef DRA_TOOL_FLOOD_H
#define DRA_TOOL_FLOOD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../base/error.h"

#define DRA_TOOL_MAX_OF_KIND 10 /* errors of one kind printed */
#define DRA_TOOL_MAX_ERRORS 100 /* errors printed in all */

/* Print a chain: each error "prog: [label: ]file:line: ...", capped as
 * above.  label: NULL for errors, "warning" for warnings (the counts then
 * say "warnings").  The chain is only read. */
void dra_tool_print_errs(FILE *f, const char *prog, const char *label, const dra_err *e);
/* The same; every: print all of them (-v), only counting what a gatherer
 * left out (an error's `more`). */
void dra_tool_print_errs_every(FILE *f, const char *prog, const char *label, const dra_err *e, bool every);

/* Errors of a streaming run, kept only as many as will be printed, so that
 * memory stays bounded however many objects fail: at most
 * DRA_TOOL_MAX_OF_KIND of a kind and DRA_TOOL_MAX_ERRORS in all; the rest
 * are counted on the last kept error of their kind, or, for a kind first
 * seen when all are kept, in errs.dropped.  Zero-initialise; the errors
 * are taken by dra_tool_errs_take (tool.h). */
typedef struct dra_tool_errs {
    dra_errs errs; /* folding at DRA_TOOL_MAX_OF_KIND, capped at DRA_TOOL_MAX_ERRORS */
    bool every;    /* keep every error, neither folded nor capped (-v) */
} dra_tool_errs;

/* Folding and capped from the start: its list can be handed to a library
 * that adds to a dra_errs itself. */
#define DRA_TOOL_ERRS_INIT                                                                                             \
    {                                                                                                                  \
        {.fold = DRA_TOOL_MAX_OF_KIND, .cap = DRA_TOOL_MAX_ERRORS}, false                                              \
    }

/* Take a chain (NULL is fine). */
void dra_tool_errs_add(dra_tool_errs *c, dra_err *e);

#endif
