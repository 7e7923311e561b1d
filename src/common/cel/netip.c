/* IP addresses and prefixes as Go's net/netip parses them (ParseAddr,
 * ParsePrefix), with Go's error texts.  See netip.h. */
#include "netip.h"

#include <stdio.h>
#include <string.h>

#include "../base/utf8.h"

/* parseAddrError: "ParseAddr(\"in\"): msg" and " (at \"at\")" when set. */
static bool addr_error(dra_buf *err, const char *in, size_t n, const char *msg, const char *at, size_t atn)
{
    if (!err)
        return false;
    dra_buf_puts(err, "ParseAddr(");
    dra_go_quote(err, in, n);
    dra_buf_printf(err, "): %s", msg);
    if (at && atn) {
        dra_buf_puts(err, " (at ");
        dra_go_quote(err, at, atn);
        dra_buf_putc(err, ')');
    }
    return false;
}

/* parseIPv4Fields over in[off, end) into four bytes. */
static bool ipv4_fields(const char *in, size_t inn, size_t off, size_t end, uint8_t *fields, dra_buf *err)
{
    const char *s = in + off;
    size_t n = end - off;
    int val = 0, pos = 0, dig = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            if (dig == 1 && val == 0)
                return addr_error(err, in, inn, "IPv4 field has octet with leading zero", NULL, 0);
            val = val * 10 + (c - '0');
            dig++;
            if (val > 255)
                return addr_error(err, in, inn, "IPv4 field has value >255", NULL, 0);
        } else if (c == '.') {
            if (i == 0 || i == n - 1 || s[i - 1] == '.')
                return addr_error(err, in, inn, "IPv4 field must have at least one digit", s + i, n - i);
            if (pos == 3)
                return addr_error(err, in, inn, "IPv4 address too long", NULL, 0);
            fields[pos++] = (uint8_t)val;
            val = 0;
            dig = 0;
        } else {
            return addr_error(err, in, inn, "unexpected character", s + i, n - i);
        }
    }
    if (pos < 3)
        return addr_error(err, in, inn, "IPv4 address too short", NULL, 0);
    fields[3] = (uint8_t)val;
    return true;
}

static bool parse_ipv6(const char *in, size_t inn, cel_netip *out, dra_buf *err)
{
    const char *s = in;
    size_t n = inn, zone = 0;
    const char *pct = memchr(in, '%', inn);
    if (pct) {
        n = (size_t)(pct - in);
        zone = inn - n - 1;
        if (!zone)
            return addr_error(err, in, inn, "zone must be a non-empty string", NULL, 0);
    }
    uint8_t ip[16] = {0};
    int ellipsis = -1;
    if (n >= 2 && s[0] == ':' && s[1] == ':') {
        ellipsis = 0;
        s += 2;
        n -= 2;
        if (!n) {
            memset(out, 0, sizeof *out);
            out->family = 6;
            out->zoned = zone > 0;
            return true;
        }
    }
    int i = 0;
    while (i < 16) {
        size_t off = 0;
        uint32_t acc = 0;
        for (; off < n; off++) {
            char c = s[off];
            if (c >= '0' && c <= '9')
                acc = (acc << 4) + (uint32_t)(c - '0');
            else if (c >= 'a' && c <= 'f')
                acc = (acc << 4) + (uint32_t)(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                acc = (acc << 4) + (uint32_t)(c - 'A' + 10);
            else
                break;
            if (off > 3)
                return addr_error(err, in, inn, "each group must have 4 or less digits", s, n);
            if (acc > 0xffff)
                return addr_error(err, in, inn, "IPv6 field has value >=2^16", s, n);
        }
        if (off == 0)
            return addr_error(err, in, inn, "each colon-separated field must have at least one digit", s, n);
        if (off < n && s[off] == '.') {
            if (ellipsis < 0 && i != 12)
                return addr_error(err, in, inn, "embedded IPv4 address must replace the final 2 fields of the address",
                                  s, n);
            if (i + 4 > 16)
                return addr_error(err, in, inn, "too many hex fields to fit an embedded IPv4 at the end of the address",
                                  s, n);
            size_t end = inn - (zone ? zone + 1 : 0);
            if (!ipv4_fields(in, inn, end - n, end, ip + i, err))
                return false;
            n = 0;
            i += 4;
            break;
        }
        ip[i] = (uint8_t)(acc >> 8);
        ip[i + 1] = (uint8_t)acc;
        i += 2;
        s += off;
        n -= off;
        if (!n)
            break;
        if (s[0] != ':')
            return addr_error(err, in, inn, "unexpected character, want colon", s, n);
        if (n == 1)
            return addr_error(err, in, inn, "colon must be followed by more characters", s, n);
        s++;
        n--;
        if (s[0] == ':') {
            if (ellipsis >= 0)
                return addr_error(err, in, inn, "multiple :: in address", s, n);
            ellipsis = i;
            s++;
            n--;
            if (!n)
                break;
        }
    }
    if (n)
        return addr_error(err, in, inn, "trailing garbage after address", s, n);
    if (i < 16) {
        if (ellipsis < 0)
            return addr_error(err, in, inn, "address string too short", NULL, 0);
        int k = 16 - i;
        for (int j = i - 1; j >= ellipsis; j--)
            ip[j + k] = ip[j];
        memset(ip + ellipsis, 0, (size_t)k);
    } else if (ellipsis >= 0) {
        return addr_error(err, in, inn, "the :: must expand to at least one field of zeros", NULL, 0);
    }
    memcpy(out->addr, ip, 16);
    out->family = 6;
    out->zoned = zone > 0;
    return true;
}

bool cel_netip_parse_addr(const char *s, size_t n, cel_netip *out, dra_buf *err)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '.': {
            if (!ipv4_fields(s, n, 0, n, out->addr, err))
                return false;
            out->family = 4;
            return true;
        }
        case ':': return parse_ipv6(s, n, out, err);
        case '%': return addr_error(err, s, n, "missing IPv6 address", NULL, 0);
        default: break;
        }
    }
    return addr_error(err, s, n, "unable to parse IP", NULL, 0);
}

bool cel_netip_is_4in6(const cel_netip *a)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return a->family == 6 && memcmp(a->addr, mapped, 12) == 0;
}

static bool prefix_error(dra_buf *err, const char *s, size_t n, const char *msg, const char *extra, size_t en)
{
    if (!err)
        return false;
    dra_buf_puts(err, "netip.ParsePrefix(");
    dra_go_quote(err, s, n);
    dra_buf_printf(err, "): %s", msg);
    if (extra)
        dra_go_quote(err, extra, en);
    return false;
}

bool cel_netip_parse_prefix(const char *s, size_t n, cel_netip *out, int *bits, dra_buf *err)
{
    size_t slash = n;
    for (size_t i = n; i-- > 0;)
        if (s[i] == '/') {
            slash = i;
            break;
        }
    if (slash == n)
        return prefix_error(err, s, n, "no '/'", NULL, 0);
    dra_buf why = DRA_BUF_INIT;
    if (!cel_netip_parse_addr(s, slash, out, err ? &why : NULL)) {
        prefix_error(err, s, n, dra_buf_str(&why), NULL, 0);
        dra_buf_free(&why);
        return false;
    }
    dra_buf_free(&why);
    if (out->family == 6 && out->zoned)
        return prefix_error(err, s, n, "IPv6 zones cannot be present in a prefix", NULL, 0);
    const char *b = s + slash + 1;
    size_t bn = n - slash - 1;
    /* strconv.Atoi, without the sign and leading zeros it would take */
    bool ok = bn > 0 && !(bn > 1 && (b[0] < '1' || b[0] > '9'));
    uint64_t v = 0;
    for (size_t i = 0; ok && i < bn; i++) {
        if (b[i] < '0' || b[i] > '9' || v > (UINT64_C(9223372036854775807) - (uint64_t)(b[i] - '0')) / 10)
            ok = false; /* not a digit, or past int64: Atoi fails */
        else
            v = v * 10 + (uint64_t)(b[i] - '0');
    }
    if (!ok)
        return prefix_error(err, s, n, "bad bits after slash: ", b, bn);
    if (v > (uint64_t)(out->family == 4 ? 32 : 128))
        return prefix_error(err, s, n, "prefix length out of range", NULL, 0);
    *bits = (int)v;
    return true;
}

void cel_netip_format(const uint8_t addr[16], int family, dra_buf *b)
{
    if (family == 4) {
        dra_buf_printf(b, "%u.%u.%u.%u", addr[0], addr[1], addr[2], addr[3]);
        return;
    }
    /* Addr.string6: the longest run of two or more zero groups (the
     * first of equals) as "::", lowercase hex, no embedded IPv4 */
    unsigned g[8];
    for (int i = 0; i < 8; i++)
        g[i] = (unsigned)addr[2 * i] << 8 | addr[2 * i + 1];
    int zs = 255, ze = 255;
    for (int i = 0; i < 8; i++) {
        int j = i;
        while (j < 8 && g[j] == 0)
            j++;
        if (j - i >= 2 && j - i > ze - zs) {
            zs = i;
            ze = j;
        }
    }
    for (int i = 0; i < 8; i++) {
        if (i == zs) {
            dra_buf_puts(b, "::");
            i = ze;
            if (i >= 8)
                break;
        } else if (i > 0) {
            dra_buf_putc(b, ':');
        }
        dra_buf_printf(b, "%x", g[i]);
    }
}
