#include "base64.h"

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

bool dra_base64_decode(dra_buf *out, const char *in, size_t len)
{
    unsigned w = 0;
    int bits = 0, pad = 0;
    size_t n = 0; /* significant characters seen */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c == '=') {
            pad++;
            continue;
        }
        if (pad)
            return false; /* data after padding */
        int d = digit(c);
        if (d < 0)
            return false;
        n++;
        w = (w << 6) | (unsigned)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            dra_buf_putc(out, (char)((w >> bits) & 0xff));
        }
    }
    if (n % 4 == 1)
        return false;
    if (pad && (n + (size_t)pad) % 4 != 0)
        return false;
    if (pad > 2)
        return false;
    return true;
}
