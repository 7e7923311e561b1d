/* UTF-8 decoding and Go quoting (see utf8.h).  Rules from Go's unicode/utf8
 * (DecodeRune, Valid, RuneCount) and strconv (Quote, appendEscapedRune). */
#include "utf8.h"

#include <string.h>

#include "isprint.inc"

size_t dra_utf8_decode(const char *s, size_t n, uint32_t *r)
{
    if (n == 0)
        return 0;
    const unsigned char *u = (const unsigned char *)s;
    uint32_t c = u[0], min;
    size_t w;
    if (c < 0x80) {
        *r = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        w = 2, c &= 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        w = 3, c &= 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        w = 4, c &= 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < w)
        return 0;
    for (size_t i = 1; i < w; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (u[i] & 0x3F);
    }
    if (c < min || c > DRA_RUNE_MAX || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *r = c;
    return w;
}

size_t dra_utf8_encode(uint32_t r, char out[4])
{
    if (r < 0x80) {
        out[0] = (char)r;
        return 1;
    }
    if (r < 0x800) {
        out[0] = (char)(0xC0 | (r >> 6));
        out[1] = (char)(0x80 | (r & 0x3F));
        return 2;
    }
    if (r < 0x10000) {
        out[0] = (char)(0xE0 | (r >> 12));
        out[1] = (char)(0x80 | ((r >> 6) & 0x3F));
        out[2] = (char)(0x80 | (r & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (r >> 18));
    out[1] = (char)(0x80 | ((r >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((r >> 6) & 0x3F));
    out[3] = (char)(0x80 | (r & 0x3F));
    return 4;
}

/* Length of the ASCII prefix, eight bytes at a time (CEL's cost accounting
 * asks for the size of every compared string). */
static size_t ascii_prefix(const char *s, size_t n)
{
    size_t i = 0;
    while (i + 8 <= n) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        if (w & 0x8080808080808080ull)
            break;
        i += 8;
    }
    while (i < n && (unsigned char)s[i] < 0x80)
        i++;
    return i;
}

bool dra_utf8_valid(const char *s, size_t n)
{
    uint32_t r;
    for (size_t i = ascii_prefix(s, n); i < n;) {
        size_t w = dra_utf8_decode(s + i, n - i, &r);
        if (w == 0)
            return false;
        i += w;
    }
    return true;
}

size_t dra_utf8_len(const char *s, size_t n)
{
    size_t i = ascii_prefix(s, n), cnt = i;
    uint32_t r;
    for (; i < n; cnt++) {
        size_t w = dra_utf8_decode(s + i, n - i, &r);
        i += w ? w : 1;
    }
    return cnt;
}

size_t dra_utf8_offset(const char *s, size_t n, size_t runes)
{
    size_t i = 0;
    uint32_t r;
    for (; runes > 0 && i < n; runes--) {
        size_t w = dra_utf8_decode(s + i, n - i, &r);
        i += w ? w : 1;
    }
    return i;
}

bool dra_rune_is_print(uint32_t r)
{
    size_t lo = 0, hi = sizeof dra_print_ranges / sizeof dra_print_ranges[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r < dra_print_ranges[mid][0])
            hi = mid;
        else if (r > dra_print_ranges[mid][1])
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

void dra_go_quote(dra_buf *b, const char *s, size_t n)
{
    dra_buf_putc(b, '"');
    for (size_t i = 0; i < n;) {
        uint32_t r;
        size_t w = dra_utf8_decode(s + i, n - i, &r);
        if (w == 0) {
            dra_buf_printf(b, "\\x%02x", (unsigned char)s[i]);
            i++;
            continue;
        }
        if (r == '"' || r == '\\') {
            dra_buf_putc(b, '\\');
            dra_buf_putc(b, (char)r);
        } else if (r < 0x80 ? (r >= 0x20 && r < 0x7F) : dra_rune_is_print(r)) {
            dra_buf_append(b, s + i, w);
        } else {
            switch (r) {
            case '\a': dra_buf_puts(b, "\\a"); break;
            case '\b': dra_buf_puts(b, "\\b"); break;
            case '\f': dra_buf_puts(b, "\\f"); break;
            case '\n': dra_buf_puts(b, "\\n"); break;
            case '\r': dra_buf_puts(b, "\\r"); break;
            case '\t': dra_buf_puts(b, "\\t"); break;
            case '\v': dra_buf_puts(b, "\\v"); break;
            default:
                if (r < 0x80)
                    dra_buf_printf(b, "\\x%02x", (unsigned)r);
                else if (r < 0x10000)
                    dra_buf_printf(b, "\\u%04x", (unsigned)r);
                else
                    dra_buf_printf(b, "\\U%08x", (unsigned)r);
            }
        }
        i += w;
    }
    dra_buf_putc(b, '"');
}

void dra_put_echo(dra_buf *b, const char *s, size_t n)
{
    size_t head, tail;
    if (!dra_echo_cut(n, DRA_ECHO_MAX, &head, &tail)) {
        dra_buf_append(b, s, n);
        return;
    }
    dra_buf_append(b, s, head);
    dra_buf_puts(b, "...");
    dra_buf_append(b, s + n - tail, tail);
}

void dra_go_quote_echo(dra_buf *b, const char *s, size_t n)
{
    if (n <= DRA_ECHO_MAX) {
        dra_go_quote(b, s, n);
        return;
    }
    dra_buf cut = DRA_BUF_INIT;
    dra_put_echo(&cut, s, n);
    dra_go_quote(b, cut.data, cut.len);
    dra_buf_free(&cut);
}

/* Unicode White_Space as Go's unicode.IsSpace: the bytes of the rune at p. */
static size_t go_space_at(const unsigned char *p, size_t n)
{
    if (n == 0)
        return 0;
    unsigned c = p[0];
    if (c == ' ' || (c >= '\t' && c <= '\r'))
        return 1;
    if (c == 0xC2 && n >= 2 && (p[1] == 0x85 || p[1] == 0xA0))
        return 2;
    if (c == 0xE1 && n >= 3 && p[1] == 0x9A && p[2] == 0x80)
        return 3;
    if (c == 0xE2 && n >= 3) {
        if (p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF))
            return 3;
        if (p[1] == 0x81 && p[2] == 0x9F)
            return 3;
    }
    if (c == 0xE3 && n >= 3 && p[1] == 0x80 && p[2] == 0x80)
        return 3;
    return 0;
}

void dra_go_trim_space(const char **s, size_t *n)
{
    const unsigned char *p = (const unsigned char *)*s;
    size_t len = *n, k;
    while ((k = go_space_at(p, len)) > 0) {
        p += k;
        len -= k;
    }
    for (bool more = true; more;) {
        more = false;
        for (k = 1; k <= 3 && k <= len && !more; k++)
            if (go_space_at(p + len - k, k) == k) {
                len -= k;
                more = true;
            }
    }
    *s = (const char *)p;
    *n = len;
}
