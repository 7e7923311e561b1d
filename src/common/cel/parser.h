/* CEL parser: source text -> AST (ast.h), macros expanded.
 *
 * Grammar: google/cel-spec doc/langdef.md; behaviour details (macro
 * expansion, error recovery limits, reserved words) follow cel-go parser/.
 *
 * Errors: on failure cel_parse() returns a chain of dra_err (DRA_EXIT_INPUT),
 * one per problem kept (the parser's, and the first limits->max_errors of
 * the visitor's; one not kept is counted in the `more` of the last kept
 * before it: cel_errors_display says how many); each has line/col set (1-based,
 * column in code points) and a message such as
 *   "Syntax error: mismatched input ')' expecting <expression>"
 *   "Syntax error: token recognition error at: '#'"
 *   "expression recursion limit exceeded: 250"
 * cel_error_caret() renders the source line and caret as cel-go prints them.
 */
#ifndef DRA_CEL_PARSER_H
#define DRA_CEL_PARSER_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/arena.h"
#include "../base/error.h"
#include "ast.h"
#include "syntax.h"

typedef struct cel_parse_limits {
    size_t max_expression_size;   /* code points; 0 = 100000 (cel-go default) */
    int max_recursion_depth;      /* 0 = 250 (cel-go default) */
    int max_errors;               /* 0 = 100 (cel-go default error reporting limit) */
    unsigned macros;              /* 0 = CEL_MACROS_ALL */
    bool disable_optional_syntax; /* reject .? [?] and ?entries ("unsupported syntax '.?'") */
    bool disable_ident_escape;    /* reject `quoted` field names, as cel-go v0.26 ("unsupported syntax: '`'") */
} cel_parse_limits;

/* Parse `src` (len bytes, need not be NUL-terminated).  limits may be NULL
 * (defaults).  On success *out is set to an AST allocated in `arena` (caller
 * owns the arena) and NULL is returned.  On failure *out is NULL and the
 * caller frees the returned error chain. */
DRA_MUST_USE dra_err *cel_parse(const char *src, size_t len, const cel_parse_limits *limits, dra_arena *arena,
                                cel_ast **out);

/* The source line `line` (1-based) followed by a caret under column `col`
 * (1-based, code points), formatted as cel-go's common.Errors.ToDisplayString:
 *   " | device.x ==\n | ...........^"
 * (no trailing newline; tabs count as one column).  Returns NULL when line is
 * out of range.  Caller frees. */
char *cel_error_caret(const char *src, size_t len, int line, int col);

/* cel-go's full error display for a chain produced by cel_parse or
 * cel_check: one "ERROR: <input>:L:C: msg\n | src\n | ..^" block per error,
 * joined with "\n".  Caller frees. */
char *cel_errors_display(const dra_err *errs, const char *src, size_t len);
/* The same with its length in *out_len (NULL: not wanted): the display
 * echoes the source's bytes and the errors' messages as they are, NUL
 * bytes too (cel-go prints them raw), and ends at the first as a C string. */
char *cel_errors_display_n(const dra_err *errs, const char *src, size_t len, size_t *out_len);

#endif
