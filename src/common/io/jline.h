/* One object as `-o jsonl` writes it: the bytes of jansson's json_dumps
 * with JSON_COMPACT | JSON_REAL_PRECISION(17) (jansson dump.c, strconv.c),
 * written without jansson's callback per token.
 *
 * Strings: '"' and '\\' escaped, \b \f \n \r \t as such, other control
 * characters as \u00XX (upper-case hex), everything else as it is.  Reals:
 * "%.17g", ".0" added when neither '.' nor 'e' is there, the exponent
 * without '+' or leading zeros ("1e20", "1e-5").  A string or key that is
 * not valid UTF-8 fails the write, as jansson's does.
 *
 * Ownership: v (or the tape t) is borrowed; the text is appended to b (the
 * caller's).
 */
#ifndef DRA_IO_JLINE_H
#define DRA_IO_JLINE_H

#include <jansson.h>
#include <stdbool.h>

#include "base/buf.h"
#include "tape.h"

/* Append v to b; false (b then holds part of it) when a string is not
 * valid UTF-8. */
bool dra_json_write_line(dra_buf *b, const json_t *v);

/* A string (an object's key, say) as dra_json_write_line writes it; false
 * when it is not valid UTF-8. */
bool dra_json_write_line_string(dra_buf *b, const char *s, size_t n);

/* The value at token i of t, as dra_json_write_line writes the tree
 * dra_tape_tree builds of it, without building it.  false (b then holds
 * part of it) where dra_tape_tree has no tree (a key twice in an object)
 * or a string is not valid UTF-8: the caller then builds the tree and
 * writes that. */
bool dra_json_write_line_tape(dra_buf *b, const dra_tape *t, size_t i);

#endif
