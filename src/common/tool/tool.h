/* The few lines every tool's main() shares.
 *
 *   int main(int argc, char **argv) {
 *       dra_args a;
 *       int rc;
 *       if (dra_tool_start(&tool, argc, argv, &a, &rc)) return rc;  // usage error, --help, --version
 *       ... library calls ...
 *       return dra_tool_finish(&tool, &a, err);  // prints err, checks stdout, frees a
 *   }
 */
#ifndef DRA_TOOL_TOOL_H
#define DRA_TOOL_TOOL_H

#include "cli.h"

/* Parse argv and handle --help/--version/--completion and usage errors.
 * Returns true when main should return *rc right away (a is then freed). */
bool dra_tool_start(const dra_tool *tool, int argc, char **argv, dra_args *a, int *rc);
/* Print err (if any, freeing it), flush and check stdout, free a.
 * Returns the exit code: err's class, DRA_EXIT_RUNTIME when stdout failed, else ok_code. */
int dra_tool_finish(const dra_tool *tool, dra_args *a, dra_err *err, int ok_code);

#endif
