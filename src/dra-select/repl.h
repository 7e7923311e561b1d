/* dra-select repl: the interactive session (repl.c). */
#ifndef DRA_SELECT_REPL_H
#define DRA_SELECT_REPL_H

#include <stddef.h>

#include <stdbool.h>

#include "base/error.h"
#include "io/stream.h"
#include "model/features.h"

/* Run the REPL over the objects in paths (stdin when npaths == 0), read as
 * reading's options say (--validate, -R; for every :load too); verbose: say
 * what was skipped. */
DRA_MUST_USE dra_err *dra_select_repl(char *const *paths, size_t npaths, const dra_features *f,
                                      const dra_objset *reading, bool verbose);

#endif
