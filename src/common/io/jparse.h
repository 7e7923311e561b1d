/* A fast path for reading JSON documents into jansson trees.
 *
 * json_loadb() reads a character at a time through a stream layer and
 * copies every token twice; on JSON Lines that is most of a reader's time.
 * dra_json_parse() scans the bytes directly and builds the same tree, for
 * the input it accepts.  It accepts less than jansson and never more: any
 * text it does not take (invalid JSON, a duplicate key, an integer outside
 * int64, a real that overflows, \u0000, nesting deeper than max_depth, a top
 * level that is not an object or an array) returns NULL, and the caller
 * asks jansson, which gives its own error, or its own tree, for that text.
 *
 * Ownership: the returned tree is the caller's (one reference).  Nothing is
 * kept between calls.
 */
#ifndef DRA_IO_JPARSE_H
#define DRA_IO_JPARSE_H

#include <jansson.h>
#include <stddef.h>

/* The object or array at the start of p[0..n) (no white space before it),
 * as json_loadb(p, n, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES)
 * returns it; *used is the bytes it took (through the closing bracket).
 * NULL: not taken (see above). */
json_t *dra_json_parse(const char *p, size_t n, int max_depth, size_t *used);

/* A List read item by item: the object at p (as dra_json_parse takes it)
 * without its top-level member "items", whose value must be an array: its
 * text is p[*items_off .. + *items_len) (the brackets included), its
 * brackets counted but its items not parsed (parse them one at a time with
 * dra_json_parse).  NULL when not taken, or when there is no such member. */
json_t *dra_json_parse_envelope(const char *p, size_t n, int max_depth, size_t *used, size_t *items_off,
                                size_t *items_len);

#endif
