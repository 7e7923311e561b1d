/* Internal to the CEL front end (parser.c, macros.c): macro expansion
 * (the parser state and node constructors are in nodes.h).  Not a public interface. */
#ifndef DRA_CEL_MACROS_H
#define DRA_CEL_MACROS_H

#include <stdbool.h>
#include <stddef.h>

#include "ast.h"
#include "nodes.h"
#include "syntax.h"

cel_node *cel_expand_macro(cel_parser *p, size_t offset, const char *fn, cel_node *target, cel_node **args,
                           size_t nargs);

/* cel-go parser.AccumulatorName and the hidden name the expansions use. */
#define CEL_ACCU_LEGACY "__result__"
#define CEL_ACCU_HIDDEN "@result"
#define CEL_UNUSED_ITER_VAR "#unused"

#endif
