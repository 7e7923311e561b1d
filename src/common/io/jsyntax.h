/* The syntax error Go's encoding/json scanner reports for a JSON text
 * (scanner.go: "invalid character '\x00' in string literal"), which the
 * API server's decoder (sigs.k8s.io/json, the same scanner) answers for a
 * document jansson refuses in its own words.
 *
 * Only the error path of a reader uses this, for the bytes jansson and Go
 * name differently: control characters (a raw NUL ends jansson's text,
 * "control character 0x0 near ..."). */
#ifndef DRA_IO_JSYNTAX_H
#define DRA_IO_JSYNTAX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

/* Scan the JSON text p[0..n) (one document; what follows its top-level
 * value is not looked at) as encoding/json's scanner does.  When it stops
 * at an invalid byte below 0x20, append Go's message ("invalid character
 * '\x00' looking for beginning of value") to *msg, set *at to the byte's
 * offset and return true.  False for a valid text, one that ends early, an
 * invalid byte of another kind, or nesting deeper than max_depth; *msg is
 * then untouched. */
bool dra_json_go_control_error(const char *p, size_t n, int max_depth, dra_buf *msg, size_t *at);

#endif
