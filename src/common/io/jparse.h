/* A fast path for reading JSON documents into jansson trees.
 *
 * json_loadb() reads a character at a time through a stream layer and
 * copies every token twice; on JSON Lines that is most of a reader's time.
 * dra_json_parse() scans the bytes directly and builds the same tree, for
 * the input it accepts.  It accepts what jansson accepts, and a number
 * jansson refuses but Go's decoders read (as json.Number): an integer
 * outside int64 becomes a real, a real that overflows the largest real of
 * its sign (-DBL_MAX or DBL_MAX), so that the object holding it is refused
 * by its own checks and the rest of the file is read; in a string, a byte
 * that starts no valid UTF-8 sequence and a surrogate escape not in a pair
 * are U+FFFD, as encoding/json reads them.  Any text it does not
 * take (invalid JSON, a duplicate key, \u0000, nesting deeper than
 * max_depth, a top level that is not an object or an array) returns NULL,
 * and the caller asks jansson, which gives its own error, or its own tree,
 * for that text.
 *
 * Ownership: the returned tree is the caller's (one reference).  Nothing is
 * kept between calls.
 */
#ifndef DRA_IO_JPARSE_H
#define DRA_IO_JPARSE_H

#include <jansson.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"

/* The object or array at the start of p[0..n) (no white space before it),
 * as json_loadb(p, n, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES)
 * returns it; *used is the bytes it took (through the closing bracket).
 * NULL: not taken (see above). */
json_t *dra_json_parse(const char *p, size_t n, int max_depth, size_t *used);

/* json_loadb(p, n, flags, err)'s answer, flags 0 or JSON_REJECT_DUPLICATES:
 * the text read by this parser where it reads it as jansson does (none of
 * the numbers or strings above that only Go reads, no duplicate key, not
 * deeper than 512), else by json_loadb itself.  err (may be NULL) is
 * filled only when NULL is returned.  The tree is the caller's. */
json_t *dra_json_loadb(const char *p, size_t n, size_t flags, json_error_t *err);

/* Text dra_json_write_compact() wrote (p[0..n), an object or an array),
 * read back: this parser, and jansson for what it does not take (\u0000,
 * deep nesting).  NULL only for text that is not JSON. */
json_t *dra_json_read_compact(const char *p, size_t n);

/* The lexical pieces of this parser, for other readers of JSON text
 * (io/tape.c) that must accept exactly what it accepts.
 *
 * A string whose opening quote is just before *p: true and *p past its
 * closing quote, *out its bytes (into the text when it has no escapes and
 * is valid UTF-8, else decoded into scratch, valid until scratch changes);
 * false for text this parser refuses. */
bool dra_json_scan_string(const char **p, const char *end, dra_buf *scratch, const char **out, size_t *len);
/* The same, refusing (false) what dra_json_loadb leaves to jansson: a
 * string that is not valid UTF-8 or holds half a surrogate pair. */
bool dra_json_scan_string_jansson(const char **p, const char *end, dra_buf *scratch, const char **out, size_t *len);
/* A number at *p: 1 and *ival for an integer within int64, 2 and *dval
 * for anything else (as read above), *p past it; 0 for no number. */
int dra_json_scan_number(const char **p, const char *end, json_int_t *ival, double *dval);
/* Would jansson read the real t[0..n) (scanned as d) as this parser does?
 * Not an integer too big for json_int_t, nor one at DBL_MAX. */
bool dra_json_jansson_real(const char *t, size_t n, double d);

/* The first quote or backslash in p[0..end), or end: how far the bytes
 * of a string can be passed over unread (when only its end is sought). */
const char *dra_json_string_stop(const char *p, const char *end);
/* The bytes of JSON white space (space, tab, CR, LF) that start p[0..n). */
size_t dra_json_space_len(const char *p, size_t n);

/* A List read item by item: the object at p (as dra_json_parse takes it)
 * without its top-level member "items", whose value must be an array: its
 * text is p[*items_off .. + *items_len) (the brackets included), its
 * brackets counted but its items not parsed (parse them one at a time with
 * dra_json_parse).  NULL when not taken, or when there is no such member. */
json_t *dra_json_parse_envelope(const char *p, size_t n, int max_depth, size_t *used, size_t *items_off,
                                size_t *items_len);

/* Sharing the small leaf objects that repeat across a fleet: a device
 * attribute value ({"string": "A100"}, {"int": 3}, {"bool": true},
 * {"version": "1.0.0"}) or a capacity value ({"value": "80Gi"}) read twice
 * is one object with two references, and so is a small map whose values
 * are all such shared leaves (a device's capacity map), compared by its
 * keys and the leaves' addresses.  Only these shapes are shared, and only
 * deep in a document (DRA_JSON_INTERN_DEPTH): nothing in the library
 * changes such an object in place after reading (strict decoding drops
 * unknown fields, and these have none; conversion and defaulting move or
 * add whole maps one level up).  Code that would change one must copy it
 * first (json_deep_copy).
 *
 * Ownership: the interner holds one reference to each object it shares;
 * dra_json_interner_free() drops them (the objects live on in their
 * documents). */
typedef struct dra_json_interner dra_json_interner;
dra_json_interner *dra_json_interner_new(void);
/* A bounded interner, for reading a stream of documents: it holds at most
 * max leaves (attribute and capacity values, and capacity maps of them),
 * found by their text before they are built, so a leaf that repeats is
 * parsed once; a text is kept the second time it is seen, and a full
 * interner starts over.  Its memory is bounded by max, not by the input.
 * When few lookups find their leaf (values that do not repeat), it stops
 * looking for a while. */
dra_json_interner *dra_json_interner_bounded(size_t max);
void dra_json_interner_free(dra_json_interner *in);
/* What an object is taken for: its shape must match, else it is kept as
 * it is.  An attribute value is shared only in an "attributes" map, a
 * capacity value and a capacity map only under "capacity". */
typedef enum {
    DRA_SHARE_NONE,
    DRA_SHARE_ATTRIBUTE,    /* {"int"|"string"|"bool"|"version": scalar} */
    DRA_SHARE_CAPACITY,     /* {"value": scalar} */
    DRA_SHARE_CAPACITY_MAP, /* {name: shared capacity value, ...} */
} dra_share;
/* The shallowest nesting at which readers share leaves (the document is 1;
 * a ResourceSlice device's attribute and capacity maps are at 5, their
 * values at 6). */
#define DRA_JSON_INTERN_DEPTH 5
/* obj itself (steals the reference), or the equal leaf already seen (one
 * new reference; obj is released). */
json_t *dra_json_intern(dra_json_interner *in, json_t *obj, dra_share kind);
/* dra_json_parse sharing leaves through in (NULL: none). */
json_t *dra_json_parse_shared(const char *p, size_t n, int max_depth, size_t *used, dra_json_interner *in);

/* A hash of a value's content: equal for json_equal values (object members
 * in any order), 64 bits, not keyed (input crafted to collide can). */
uint64_t dra_json_content_hash(const json_t *v);
/* dra_json_parse_shared, and *hash = dra_json_content_hash of the tree it
 * returns, computed while parsing (at a fraction of a walk's cost). */
json_t *dra_json_parse_hashed(const char *p, size_t n, int max_depth, size_t *used, dra_json_interner *in,
                              uint64_t *hash);

#endif
