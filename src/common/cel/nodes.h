/* Internal to the CEL front end (parser.c, macros.c): the parser state that
 * macro expansion needs, and the node constructors (nodes.c).  Not a public
 * interface.
 *
 * Ownership: nodes live in the parser's arena (the AST's); error chains are
 * collected in `errs` and handed to the caller of cel_parse. */
#ifndef DRA_CEL_NODES_H
#define DRA_CEL_NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/arena.h"
#include "../base/error.h"
#include "ast.h"

typedef struct cel_parser {
    const char *src;
    size_t len;
    dra_arena *arena;
    cel_ast *ast;
    int64_t next_id;
    unsigned macros;
    dra_err *errs; /* reported problems kept, in report order */
    dra_err *tail; /* the last of errs */
    int nerrs;     /* problems reported, kept or not */
    int nvisit;    /* the visitor's problems kept in errs */
    int max_errors;
    bool fatal; /* stop parsing (syntax error, limits) */
} cel_parser;

/* The offset of a node cel-go's visitor builds at common.NoLocation (a
 * parse context it does not know, left by a failed prediction): a problem
 * reported there is at 1:0. */
#define CEL_P_NO_LOCATION (SIZE_MAX - 1)

/* Report a problem at a byte offset (SIZE_MAX = no location) and return an
 * error placeholder node.  Every problem is counted; the parser's are all
 * kept (they stop at the syntax error limit), the visitor's only the first
 * max_errors: one left out is counted in the `more` of the last error kept
 * before it, so the display can say how many it does not show, as cel-go
 * counts every report (common/errors.go ReportErrorAtID). */
cel_node *cel_p_error(cel_parser *p, size_t offset, const char *fmt, ...) DRA_PRINTF(3, 4);
/* The same for a problem found while parsing, not visiting (a syntax
 * error, the recursion limit): cel_p_unvisit keeps it. */
cel_node *cel_p_parse_error(cel_parser *p, size_t offset, const char *fmt, ...) DRA_PRINTF(3, 4);
/* cel_p_parse_error for the message prefix + len bytes of msg (NUL bytes
 * kept). */
cel_node *cel_p_parse_error_n(cel_parser *p, size_t offset, const char *prefix, const char *msg, size_t len);

/* dra_err.mark of a problem the parser reports (cel_p_parse_error), not
 * the visitor */
#define CEL_P_PARSE_TIME 1u

/* Drop what the visitor reported after the first `mark` errors of
 * p->errs (dra_err_count before the subtree), keeping the parser's own
 * reports (cel_p_parse_error): cel-go's visitor
 * does not go into a subtree ANTLR parsed but left unused (the arguments
 * of a reserved word's call, a map key with no ':').  A problem counted in
 * the `more` of an error kept stays counted, even one reported after the
 * mark (there are then over max_errors of the visitor's). */
void cel_p_unvisit(cel_parser *p, size_t mark);

cel_node *cel_p_node(cel_parser *p, cel_node_kind kind, size_t offset);
cel_node *cel_p_ident(cel_parser *p, size_t offset, const char *name);
cel_node *cel_p_bool(cel_parser *p, size_t offset, bool v);
cel_node *cel_p_int(cel_parser *p, size_t offset, int64_t v);
cel_node *cel_p_string(cel_parser *p, size_t offset, const char *s, size_t len);
/* args: nargs nodes; target may be NULL. */
cel_node *cel_p_call(cel_parser *p, size_t offset, const char *fn, cel_node *target, cel_node **args, size_t nargs);
cel_node *cel_p_call1(cel_parser *p, size_t offset, const char *fn, cel_node *a);
cel_node *cel_p_call2(cel_parser *p, size_t offset, const char *fn, cel_node *a, cel_node *b);
cel_node *cel_p_call3(cel_parser *p, size_t offset, const char *fn, cel_node *a, cel_node *b, cel_node *c);
cel_node *cel_p_list(cel_parser *p, size_t offset, cel_node **elems, size_t n);
cel_node *cel_p_comprehension(cel_parser *p, size_t offset, cel_node *range, const char *iter_var,
                              const char *iter_var2, const char *accu_var, cel_node *init, cel_node *cond,
                              cel_node *step, cel_node *result);
/* Deep copy with fresh ids (cel-go's ExprHelper.Copy). */
cel_node *cel_p_copy(cel_parser *p, const cel_node *n);

/* Try to expand a macro for a call at `offset`.  Returns NULL when no macro
 * applies (build an ordinary call); otherwise the expansion, or an error
 * placeholder after reporting a problem. */

#endif
