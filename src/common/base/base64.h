/* Standard base64 (RFC 4648 section 4, padded) as Kubernetes' `[]byte` fields
 * carry it in JSON (kubeconfig `*-data` fields, Secrets).
 *
 * dra_base64_decode appends the decoded bytes to out and returns false on
 * invalid input (out is then left with whatever was decoded so far; the caller
 * discards it).  Whitespace (newlines of wrapped PEM-style input) is skipped.
 * No allocation besides out's growth.
 */
#ifndef DRA_BASE_BASE64_H
#define DRA_BASE_BASE64_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

bool dra_base64_decode(dra_buf *out, const char *in, size_t len);

#endif
