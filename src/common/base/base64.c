#include "base64.h"

#include <stdint.h>
#include <stdlib.h>

#include "error.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int digit(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

static bool fail(size_t *bad, size_t at)
{
    if (bad)
        *bad = at;
    return false;
}

static bool decode(dra_buf *out, const unsigned char *p, size_t len, int flags, size_t *pos, size_t *bad)
{
    /* the significant characters: pos[i] is where the i-th one is */
    size_t m = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] == '\r' || p[i] == '\n')
            continue;
        if ((flags & DRA_B64_SPACES) && (p[i] == ' ' || p[i] == '\t'))
            continue;
        pos[m++] = i;
    }
    /* padding: only at the end, only to complete a quantum of 4 */
    size_t data = m;
    while (data > 0 && p[pos[data - 1]] == '=' && m - data < 2)
        data--;
    size_t pad = m - data;
    if (pad && m % 4 != 0)
        return fail(bad, pos[data]);
    if (data % 4 == 1)
        return fail(bad, pos[data - 1]);
    if (pad && (data % 4) + pad != 4)
        return fail(bad, pos[data]);
    if (!pad && data % 4 != 0 && !(flags & DRA_B64_RAW))
        return fail(bad, len);
    uint32_t w = 0;
    int k = 0;
    for (size_t i = 0; i < data; i++) {
        int d = digit(p[pos[i]]);
        if (d < 0)
            return fail(bad, pos[i]);
        w = w << 6 | (uint32_t)d;
        if (++k == 4) {
            if (out) {
                dra_buf_putc(out, (char)(w >> 16));
                dra_buf_putc(out, (char)(w >> 8));
                dra_buf_putc(out, (char)w);
            }
            w = 0;
            k = 0;
        }
    }
    if (out && k == 2) {
        dra_buf_putc(out, (char)(w >> 4));
    } else if (out && k == 3) {
        dra_buf_putc(out, (char)(w >> 10));
        dra_buf_putc(out, (char)(w >> 2));
    }
    return true;
}

bool dra_base64_decode_go(dra_buf *out, const char *in, size_t len, int flags, size_t *bad)
{
    size_t *pos = dra_xcalloc(len ? len : 1, sizeof *pos);
    bool ok = decode(out, (const unsigned char *)in, len, flags, pos, bad);
    free(pos);
    return ok;
}

bool dra_base64_decode(dra_buf *out, const char *in, size_t len)
{
    return dra_base64_decode_go(out, in, len, DRA_B64_RAW | DRA_B64_SPACES, NULL);
}

void dra_base64_encode(dra_buf *out, const void *p, size_t len)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t w = (uint32_t)s[i] << 16;
        if (i + 1 < len)
            w |= (uint32_t)s[i + 1] << 8;
        if (i + 2 < len)
            w |= s[i + 2];
        dra_buf_putc(out, alphabet[(w >> 18) & 63]);
        dra_buf_putc(out, alphabet[(w >> 12) & 63]);
        dra_buf_putc(out, i + 1 < len ? alphabet[(w >> 6) & 63] : '=');
        dra_buf_putc(out, i + 2 < len ? alphabet[w & 63] : '=');
    }
}
