/* Fields given twice in a JSON document, found as the API server's strict
 * decoder finds them (sigs.k8s.io/json: "duplicate field \"a.b[0].c\"").
 *
 * A RawExtension's text is not decoded strictly (it is kept as bytes), so
 * keys repeated inside opaque.parameters or a claim's status.devices[].data
 * are no duplicates.  Only the error path of a reader uses this: jansson
 * has already said the document repeats a key somewhere. */
#ifndef DRA_IO_JDUPS_H
#define DRA_IO_JDUPS_H

#include <stdbool.h>
#include <stddef.h>

/* Scan the JSON text p[0..n) (one document, nothing after it but space)
 * for repeated keys.  Returns true when the text could be scanned (valid
 * JSON, nesting at most max_depth); then *first is the first repeated
 * field's path outside RawExtensions (caller frees), or NULL when every
 * repeat is inside one. */
bool dra_json_first_duplicate(const char *p, size_t n, int max_depth, char **first);

#endif
