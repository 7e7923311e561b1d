/* Static validation of string.format calls (cel-go v0.29.2
 * ext/formatting.go stringFormatValidator, which the Strings extension of
 * Kubernetes' environment installs as an AST validator): every
 * `'literal'.format([list literal])` of a checked AST has its clauses
 * parsed and each clause's argument type checked, with cel-go's messages:
 * "error during formatting: decimal clause can only be used on integers,
 * was given string" (at the argument), "could not parse formatting clause:
 * unrecognized formatting clause \"v\"", "index 1 out of range",
 * "unexpected end of string", "too many arguments supplied to
 * string.format (expected 1, got 2)" (at the call).
 *
 * Ownership: nothing is kept; report() receives borrowed text that is
 * valid during the call only.
 */
#ifndef DRA_CEL_FORMAT_CHECK_H
#define DRA_CEL_FORMAT_CHECK_H

#include "ast.h"

typedef void (*cel_format_report)(void *ud, const cel_node *at, const char *msg);

/* Report each format call that does not validate, in the AST's order. */
void cel_check_format_calls(const cel_ast *ast, cel_format_report report, void *ud);

#endif
