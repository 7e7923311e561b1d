/* Standard base64 (RFC 4648 section 4) as Go's encoding/base64 reads and
 * writes it: Kubernetes' `[]byte` fields in JSON (kubeconfig `*-data`
 * fields, Secrets) and CEL's base64.encode/decode (cel-go ext/encoders.go).
 *
 * Decoding skips CR and LF, as Go's decoder does; padding may only end the
 * input and only complete a quantum of 4.  Bits after the last whole byte
 * are ignored (Go's non-strict StdEncoding).
 *
 * Ownership: output is appended to the caller's buffer; no allocation
 * besides its growth and a temporary index freed before return.
 */
#ifndef DRA_BASE_BASE64_H
#define DRA_BASE_BASE64_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

enum {
    DRA_B64_RAW = 1,    /* padding optional (cel-go falls back to RawStdEncoding) */
    DRA_B64_SPACES = 2, /* also skip spaces and tabs (wrapped PEM-style input) */
};

/* Decode len bytes at in, appending to out (NULL: only check).  On invalid
 * input returns false with *bad (may be NULL) set to the offset in `in` of
 * the byte Go's CorruptInputError names; out then holds a partial result
 * the caller discards. */
bool dra_base64_decode_go(dra_buf *out, const char *in, size_t len, int flags, size_t *bad);
/* Kubernetes' []byte fields: padded or not, whitespace skipped. */
bool dra_base64_decode(dra_buf *out, const char *in, size_t len);
/* Encode len bytes at p, padded, appending to out. */
void dra_base64_encode(dra_buf *out, const void *p, size_t len);

#endif
