/* Reading parsed options by id: for tool/ itself (the standard options
 * every tool shares) and its unit tests.  A tool reads its own options from
 * its value table (dra_args_apply, cli.h), never through these. */
#ifndef DRA_TOOL_ARGS_H
#define DRA_TOOL_ARGS_H

#include <stdbool.h>
#include <stddef.h>

struct dra_args; /* tool/cli.h */

/* Last value of an option, or NULL; count of occurrences. */
const char *dra_args_get(const struct dra_args *a, int id);
size_t dra_args_count(const struct dra_args *a, int id);
bool dra_args_has(const struct dra_args *a, int id);

#endif
