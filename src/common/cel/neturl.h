/* URLs parsed as Go's net/url parses them (url.Parse, url.ParseRequestURI:
 * which strings are URLs, their parts, and Go's error texts), for the
 * Kubernetes URL library (apiserver pkg/cel/library/urls.go stringToUrl,
 * isURL) and the "uri" format.
 *
 * Ownership: the parts of *u are NUL-terminated strings in the caller's
 * scratch memory; err may be NULL, otherwise Go's error text is appended
 * to the caller's buffer on failure ("parse \"\": empty url").
 */
#ifndef DRA_CEL_NETURL_H
#define DRA_CEL_NETURL_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"
#include "value.h"

/* url.ParseRequestURI(s) when via_request, url.Parse(s) otherwise. */
bool cel_neturl_parse(cel_scratch *sc, const char *s, size_t n, bool via_request, cel_url *u, dra_buf *err);

#endif
