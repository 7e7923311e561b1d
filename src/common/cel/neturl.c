/* Go's net/url parsing (Go 1.26 src/net/url/url.go: parse, getScheme,
 * parseAuthority, parseHost, unescape, setPath, EscapedPath,
 * splitHostPort), the parts Kubernetes reads.  See neturl.h. */
#include "neturl.h"

#include <string.h>

#include "../base/utf8.h"
#include "netip.h"

typedef enum mode { M_PATH, M_HOST, M_ZONE, M_USER, M_FRAGMENT } mode;

/* url.go shouldEscape for the modes parsing uses. */
static bool should_escape(unsigned char c, mode m)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return false;
    if ((m == M_HOST || m == M_ZONE) && strchr("!$&'()*+,;=:[]<>\"", c) && c)
        return false;
    if (c && strchr("-_.~", c))
        return false;
    if (c && strchr("$&+,/:;=?@", c)) {
        switch (m) {
        case M_PATH: return c == '?';
        case M_USER: return c == '@' || c == '/' || c == '?' || c == ':';
        case M_FRAGMENT: return false;
        default: break;
        }
    }
    if (m == M_FRAGMENT && c && strchr("!()*", c))
        return false;
    return true;
}

static int unhex(unsigned char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static bool fail(dra_buf *why, const char *prefix, const char *q, size_t qn, const char *suffix)
{
    dra_buf_puts(why, prefix);
    dra_go_quote(why, q, qn);
    dra_buf_puts(why, suffix);
    return false;
}

/* url.go unescape: the unescaped copy of s in *out, or false and why. */
static bool unescape(cel_scratch *sc, const char *s, size_t n, mode m, char **out, dra_buf *why)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%') {
            if (i + 2 >= n || unhex((unsigned char)s[i + 1]) < 0 || unhex((unsigned char)s[i + 2]) < 0)
                return fail(why, "invalid URL escape ", s + i, n - i > 3 ? 3 : n - i, "");
            int v = unhex((unsigned char)s[i + 1]) << 4 | unhex((unsigned char)s[i + 2]);
            bool pct25 = s[i + 1] == '2' && s[i + 2] == '5';
            if (m == M_HOST && unhex((unsigned char)s[i + 1]) < 8 && !pct25)
                return fail(why, "invalid URL escape ", s + i, 3, "");
            if (m == M_ZONE && !pct25 && v != ' ' && should_escape((unsigned char)v, M_HOST))
                return fail(why, "invalid URL escape ", s + i, 3, "");
            i += 3;
        } else {
            if ((m == M_HOST || m == M_ZONE) && c < 0x80 && should_escape(c, m))
                return fail(why, "invalid character ", s + i, 1, " in host name");
            i++;
        }
    }
    char *o = cel_scratch_alloc(sc, n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            o[k++] = (char)(unhex((unsigned char)s[i + 1]) << 4 | unhex((unsigned char)s[i + 2]));
            i += 2;
        } else {
            o[k++] = s[i];
        }
    }
    o[k] = 0;
    *out = o;
    return true;
}

/* url.go escape(s, encodePath). */
static char *escape_path(cel_scratch *sc, const char *s)
{
    size_t n = strlen(s), k = 0;
    char *o = cel_scratch_alloc(sc, 3 * n + 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (should_escape(c, M_PATH)) {
            o[k++] = '%';
            o[k++] = "0123456789ABCDEF"[c >> 4];
            o[k++] = "0123456789ABCDEF"[c & 15];
        } else {
            o[k++] = (char)c;
        }
    }
    o[k] = 0;
    return o;
}

/* url.go validEncoded(s, encodePath). */
static bool valid_encoded_path(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c && strchr("!$&'()*+,;=:@[]%", c))
            continue;
        if (should_escape(c, M_PATH))
            return false;
    }
    return true;
}

static bool valid_optional_port(const char *p, size_t n)
{
    if (n == 0)
        return true;
    if (p[0] != ':')
        return false;
    for (size_t i = 1; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return false;
    return true;
}

static bool valid_userinfo(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
            continue;
        if (!c || !strchr("-._:~!$&'()*+,;=%@", c))
            return false;
    }
    return true;
}

static const char *last_of(const char *s, size_t n, char c)
{
    for (size_t i = n; i-- > 0;)
        if (s[i] == c)
            return s + i;
    return NULL;
}

/* url.go parseHost: the unescaped host[:port] in *out. */
static bool parse_host(cel_scratch *sc, const char *scheme, const char *h, size_t n, char **out, dra_buf *why)
{
    const char *ob = last_of(h, n, '[');
    if (ob && ob > h) {
        dra_buf_puts(why, "invalid IP-literal");
        return false;
    }
    if (ob == h) {
        const char *cb = last_of(h, n, ']');
        if (!cb) {
            dra_buf_puts(why, "missing ']' in host");
            return false;
        }
        const char *port = cb + 1;
        size_t pn = (size_t)(h + n - port);
        if (!valid_optional_port(port, pn))
            return fail(why, "invalid port ", port, pn, " after host");
        char *uport, *uhost;
        if (!unescape(sc, port, pn, M_HOST, &uport, why))
            return false;
        const char *name = h + 1;
        size_t nn = (size_t)(cb - name);
        const char *zone = NULL;
        for (size_t i = 0; i + 3 <= nn; i++)
            if (!memcmp(name + i, "%25", 3)) {
                zone = name + i;
                break;
            }
        if (zone) {
            char *hp, *zp;
            if (!unescape(sc, name, (size_t)(zone - name), M_HOST, &hp, why) ||
                !unescape(sc, zone, (size_t)(name + nn - zone), M_ZONE, &zp, why))
                return false;
            size_t a = strlen(hp), b = strlen(zp);
            uhost = cel_scratch_alloc(sc, a + b + 1);
            memcpy(uhost, hp, a);
            memcpy(uhost + a, zp, b + 1);
        } else if (!unescape(sc, name, nn, M_HOST, &uhost, why)) {
            return false;
        }
        cel_netip ip;
        dra_buf e = DRA_BUF_INIT;
        if (!cel_netip_parse_addr(uhost, strlen(uhost), &ip, &e)) {
            dra_buf_printf(why, "invalid host: %s", dra_buf_str(&e));
            dra_buf_free(&e);
            return false;
        }
        dra_buf_free(&e);
        if (ip.family == 4) {
            dra_buf_puts(why, "invalid IP-literal");
            return false;
        }
        size_t a = strlen(uhost), b = strlen(uport);
        char *o = cel_scratch_alloc(sc, a + b + 3);
        o[0] = '[';
        memcpy(o + 1, uhost, a);
        o[a + 1] = ']';
        memcpy(o + a + 2, uport, b + 1);
        *out = o;
        return true;
    }
    const char *colon = memchr(h, ':', n);
    if (colon) {
        const char *last = last_of(h, n, ':');
        /* strict colons for http and https (the default since Go 1.26) */
        if (last != colon && strcmp(scheme, "http") && strcmp(scheme, "https"))
            colon = last;
        if (!valid_optional_port(colon, (size_t)(h + n - colon)))
            return fail(why, "invalid port ", colon, (size_t)(h + n - colon), " after host");
    }
    return unescape(sc, h, n, M_HOST, out, why);
}

static bool has_ctl(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < ' ' || s[i] == 0x7f)
            return true;
    return false;
}

/* url.go parse(rawURL, viaRequest): false and why. */
static bool parse(cel_scratch *sc, const char *s, size_t n, bool via_request, cel_url *u, dra_buf *why)
{
    static const char empty[] = "";
    u->scheme = u->opaque = u->userinfo = u->host = u->hostname = u->port = u->path = u->query = empty;
    if (has_ctl(s, n)) {
        dra_buf_puts(why, "net/url: invalid control character in URL");
        return false;
    }
    if (n == 0 && via_request) {
        dra_buf_puts(why, "empty url");
        return false;
    }
    if (n == 1 && s[0] == '*') {
        u->path = "*";
        return true;
    }
    /* getScheme */
    size_t sl = 0;
    const char *rest = s;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            continue;
        if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
            if (i == 0)
                break;
            continue;
        }
        if (c == ':') {
            if (i == 0) {
                dra_buf_puts(why, "missing protocol scheme");
                return false;
            }
            sl = i;
            rest = s + i + 1;
        }
        break;
    }
    char *scheme = cel_scratch_strndup(sc, s, sl);
    for (char *c = scheme; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    u->scheme = scheme;
    size_t rn = (size_t)(s + n - rest);
    const char *q = memchr(rest, '?', rn);
    if (q && q == rest + rn - 1 && !memchr(rest, '?', (size_t)(q - rest))) {
        rn--; /* ForceQuery: an empty query */
    } else if (q) {
        u->query = cel_scratch_strndup(sc, q + 1, (size_t)(rest + rn - q - 1));
        rn = (size_t)(q - rest);
    }
    if (rn == 0 || rest[0] != '/') {
        if (*scheme) { /* a rootless path is opaque */
            u->opaque = cel_scratch_strndup(sc, rest, rn);
            return true;
        }
        if (via_request) {
            dra_buf_puts(why, "invalid URI for request");
            return false;
        }
        const char *slash = memchr(rest, '/', rn);
        if (memchr(rest, ':', slash ? (size_t)(slash - rest) : rn)) {
            dra_buf_puts(why, "first path segment in URL cannot contain colon");
            return false;
        }
    }
    bool two = rn >= 2 && rest[0] == '/' && rest[1] == '/';
    bool three = rn >= 3 && two && rest[2] == '/';
    if ((*scheme || (!via_request && !three)) && two) {
        const char *auth = rest + 2;
        size_t an = rn - 2;
        const char *slash = memchr(auth, '/', an);
        if (slash)
            an = (size_t)(slash - auth);
        rest = auth + an;
        rn = rn - 2 - an;
        const char *at = last_of(auth, an, '@');
        const char *h = at ? at + 1 : auth;
        char *host;
        if (!parse_host(sc, scheme, h, (size_t)(auth + an - h), &host, why))
            return false;
        if (at) {
            if (!valid_userinfo(auth, (size_t)(at - auth))) {
                dra_buf_puts(why, "net/url: invalid userinfo");
                return false;
            }
            const char *colon = memchr(auth, ':', (size_t)(at - auth));
            char *user, *pass = NULL;
            if (!unescape(sc, auth, (size_t)((colon ? colon : at) - auth), M_USER, &user, why) ||
                (colon && !unescape(sc, colon + 1, (size_t)(at - colon - 1), M_USER, &pass, why)))
                return false;
            u->userinfo = cel_scratch_strndup(sc, auth, (size_t)(at - auth));
        }
        u->host = host;
        /* splitHostPort */
        size_t hn = strlen(host);
        const char *c = last_of(host, hn, ':');
        size_t name_n = hn;
        if (c && valid_optional_port(c, (size_t)(host + hn - c))) {
            u->port = c + 1;
            name_n = (size_t)(c - host);
        }
        const char *name = host;
        if (name_n >= 2 && name[0] == '[' && name[name_n - 1] == ']') {
            name++;
            name_n -= 2;
        }
        u->hostname = cel_scratch_strndup(sc, name, name_n);
    }
    /* setPath and EscapedPath: the path as written when it is a valid
     * encoding, else the unescaped path escaped again */
    char *path;
    if (!unescape(sc, rest, rn, M_PATH, &path, why))
        return false;
    u->path = valid_encoded_path(rest, rn) ? cel_scratch_strndup(sc, rest, rn) : escape_path(sc, path);
    return true;
}

bool cel_neturl_parse(cel_scratch *sc, const char *s, size_t n, bool via_request, cel_url *u, dra_buf *err)
{
    dra_buf why = DRA_BUF_INIT;
    size_t un = n;
    const char *hash = via_request ? NULL : memchr(s, '#', n);
    if (hash)
        un = (size_t)(hash - s); /* Parse cuts off the fragment first */
    bool ok = parse(sc, s, un, via_request, u, &why);
    const char *quoted = s;
    size_t qn = un;
    u->fragment = "";
    if (ok && hash) {
        char *frag;
        ok = unescape(sc, hash + 1, (size_t)(s + n - hash - 1), M_FRAGMENT, &frag, &why);
        if (ok)
            u->fragment = frag;
        qn = n;
    }
    if (!ok && err) {
        dra_buf_puts(err, "parse ");
        dra_go_quote(err, quoted, qn);
        dra_buf_printf(err, ": %s", dra_buf_str(&why));
    }
    dra_buf_free(&why);
    u->text = cel_scratch_strndup(sc, s, n);
    return ok;
}
