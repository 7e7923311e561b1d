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
 * Ownership: v is borrowed; the text is appended to b (the caller's).
 */
#ifndef DRA_IO_JLINE_H
#define DRA_IO_JLINE_H

#include <jansson.h>
#include <stdbool.h>

#include "base/buf.h"

/* Append v to b; false (b then holds part of it) when a string is not
 * valid UTF-8. */
bool dra_json_write_line(dra_buf *b, const json_t *v);

#endif
