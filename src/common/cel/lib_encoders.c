/* ext.Encoders (cel-go ext/encoders.go): base64.encode(bytes) -> string and
 * base64.decode(string) -> bytes.  Decoding accepts padded input and, like
 * cel-go's fallback to RawStdEncoding, unpadded input; CR and LF are
 * skipped as Go's decoder does. */
#include "functions.h"

#include <stdlib.h>
#include <string.h>

#include "../base/base64.h"

/* b's bytes copied into the call's scratch memory (b is freed). */
static const char *to_scratch(cel_call_ctx *cx, dra_buf *b, size_t *len)
{
    *len = b->len;
    char *p = cel_scratch_alloc(cx->scratch, b->len + 1);
    if (b->len)
        memcpy(p, b->data, b->len);
    p[b->len] = 0;
    dra_buf_free(b);
    return p;
}

static cel_value b64_encode(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    dra_buf b = DRA_BUF_INIT;
    dra_base64_encode(&b, a[0].v.s.ptr, a[0].v.s.len);
    size_t len;
    const char *p = to_scratch(cx, &b, &len);
    return cel_string(p, len);
}

static cel_value b64_decode(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    dra_buf b = DRA_BUF_INIT;
    size_t bad = 0;
    if (!dra_base64_decode_go(&b, a[0].v.s.ptr, a[0].v.s.len, DRA_B64_RAW, &bad)) {
        dra_buf_free(&b);
        return cel_errorf_s(cx->scratch, "illegal base64 data at input byte %zu", bad);
    }
    size_t len;
    const char *p = to_scratch(cx, &b, &len);
    return cel_bytes(p, len);
}

/* clang-format off */
const cel_overload cel_lib_encoders[] = {
    {"base64_encode_bytes", "base64.encode", false, 1, {&cel_t_bytes}, &cel_t_string, b64_encode,
     CEL_COST_ONE, 0, NULL, CEL_LIB_ENCODERS, false},
    {"base64_decode_string", "base64.decode", false, 1, {&cel_t_string}, &cel_t_bytes, b64_decode,
     CEL_COST_ONE, 0, NULL, CEL_LIB_ENCODERS, false},
};
/* clang-format on */
const size_t cel_lib_encoders_n = sizeof cel_lib_encoders / sizeof cel_lib_encoders[0];
