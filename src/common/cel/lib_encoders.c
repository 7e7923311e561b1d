/* ext.Encoders (cel-go ext/encoders.go): base64.encode(bytes) -> string and
 * base64.decode(string) -> bytes.  Decoding accepts padded input and, like
 * cel-go's fallback to RawStdEncoding, unpadded input; CR and LF are
 * skipped as Go's decoder does. */
#include "functions.h"

#include <string.h>

static const char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static cel_value b64_encode(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    const unsigned char *p = (const unsigned char *)a[0].v.s.ptr;
    size_t len = a[0].v.s.len;
    size_t out_len = (len + 2) / 3 * 4;
    char *out = cel_scratch_alloc(cx->scratch, out_len + 1);
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t w = (uint32_t)p[i] << 16;
        if (i + 1 < len)
            w |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < len)
            w |= p[i + 2];
        out[o++] = b64_alphabet[(w >> 18) & 63];
        out[o++] = b64_alphabet[(w >> 12) & 63];
        out[o++] = i + 1 < len ? b64_alphabet[(w >> 6) & 63] : '=';
        out[o++] = i + 2 < len ? b64_alphabet[w & 63] : '=';
    }
    out[o] = 0;
    return cel_string(out, o);
}

static int b64_digit(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

static cel_value b64_decode(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    const unsigned char *p = (const unsigned char *)a[0].v.s.ptr;
    size_t len = a[0].v.s.len;
    /* the significant characters, without CR/LF */
    unsigned char *in = cel_scratch_alloc(cx->scratch, len + 1);
    size_t *pos = cel_scratch_alloc(cx->scratch, (len + 1) * sizeof *pos);
    size_t m = 0;
    for (size_t i = 0; i < len; i++)
        if (p[i] != '\r' && p[i] != '\n') {
            pos[m] = i;
            in[m++] = p[i];
        }
    /* padding: only at the end, only to complete a quantum of 4 */
    size_t data = m;
    while (data > 0 && in[data - 1] == '=' && m - data < 2)
        data--;
    size_t pad = m - data;
    if (pad && m % 4 != 0)
        return cel_errorf_s(cx->scratch, "illegal base64 data at input byte %zu", pos[data]);
    if (data % 4 == 1)
        return cel_errorf_s(cx->scratch, "illegal base64 data at input byte %zu", pos[data - 1]);
    if (pad && (data % 4) + pad != 4)
        return cel_errorf_s(cx->scratch, "illegal base64 data at input byte %zu", pos[data]);
    unsigned char *out = cel_scratch_alloc(cx->scratch, data / 4 * 3 + 3);
    size_t o = 0;
    uint32_t w = 0;
    int k = 0;
    for (size_t i = 0; i < data; i++) {
        int d = b64_digit(in[i]);
        if (d < 0)
            return cel_errorf_s(cx->scratch, "illegal base64 data at input byte %zu", pos[i]);
        w = w << 6 | (uint32_t)d;
        if (++k == 4) {
            out[o++] = (unsigned char)(w >> 16);
            out[o++] = (unsigned char)(w >> 8);
            out[o++] = (unsigned char)w;
            w = 0;
            k = 0;
        }
    }
    if (k == 2) {
        out[o++] = (unsigned char)(w >> 4);
    } else if (k == 3) {
        out[o++] = (unsigned char)(w >> 10);
        out[o++] = (unsigned char)(w >> 2);
    }
    return cel_bytes(out, o);
}

const cel_overload cel_lib_encoders[] = {
    {"base64_encode_bytes", "base64.encode", false, 1, {&cel_t_bytes}, &cel_t_string, b64_encode,
     CEL_COST_ONE, 0, NULL, CEL_LIB_ENCODERS, false},
    {"base64_decode_string", "base64.decode", false, 1, {&cel_t_string}, &cel_t_bytes, b64_decode,
     CEL_COST_ONE, 0, NULL, CEL_LIB_ENCODERS, false},
};
const size_t cel_lib_encoders_n = sizeof cel_lib_encoders / sizeof cel_lib_encoders[0];
