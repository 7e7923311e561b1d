/* Strings in messages and the server URL's scheme; see text.h.  Facts: Go's
 * net/url (url.Parse: control characters, scheme, authority),
 * net/http client.go (stripPassword: "user:***@"), and
 * k8s.io/client-go/rest/config.go, url_utils.go (IsConfigTransportTLS,
 * DefaultServerURL: a URL without scheme or host is taken as http://). */
#include "text.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "../base/buf.h"
#include "../base/utf8.h"

const char *dra_kube_q(dra_arena *a, const char *s)
{
    dra_buf b = DRA_BUF_INIT;
    dra_go_quote(&b, s ? s : "", s ? strlen(s) : 0);
    const char *out = dra_arena_strndup(a, dra_buf_str(&b), b.len);
    dra_buf_free(&b);
    return out;
}

const char *dra_kube_strerror(dra_arena *a, int err)
{
    char *s = dra_arena_strdup(a, strerror(err));
    if (s[0] && isupper((unsigned char)s[0]) && !isupper((unsigned char)s[1]))
        s[0] = (char)tolower((unsigned char)s[0]);
    return s;
}

/* unicode.Z: the space separators (Zs), U+2028 (Zl) and U+2029 (Zp). */
static bool is_space_sep(uint32_t r)
{
    return r == 0x20 || r == 0xA0 || r == 0x1680 || (r >= 0x2000 && r <= 0x200A) || r == 0x2028 || r == 0x2029 ||
           r == 0x202F || r == 0x205F || r == 0x3000;
}

char *dra_kube_clean_ansi(const char *s)
{
    dra_buf b = DRA_BUF_INIT;
    size_t n = s ? strlen(s) : 0;
    for (size_t i = 0; i < n;) {
        uint32_t r;
        size_t w = dra_utf8_decode(s + i, n - i, &r);
        if (w == 0) { /* Go ranges over an invalid byte as U+FFFD, a symbol */
            r = DRA_RUNE_ERROR;
            w = 1;
        }
        if (dra_rune_is_print(r) || is_space_sep(r) || (r >= 0x09 && r <= 0x0D)) {
            char enc[4];
            dra_buf_append(&b, enc, dra_utf8_encode(r, enc));
        } else {
            dra_buf_printf(&b, "U+%04X", (unsigned)r);
        }
        i += w;
    }
    return dra_buf_detach(&b);
}

/* Would %q escape anything in s? */
static bool needs_quote(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t r;
        size_t w = dra_utf8_decode(s + i, n - i, &r);
        if (w == 0 || !dra_rune_is_print(r))
            return true;
        i += w;
    }
    return false;
}

const char *dra_kube_v(dra_arena *a, const char *s)
{
    if (!s)
        return "";
    return needs_quote(s, strlen(s)) ? dra_kube_q(a, s) : s;
}

/* Length of a URL scheme at the start of s followed by ':' (url.getScheme),
 * 0 when there is none. */
static size_t scheme_len(const char *s)
{
    size_t i = 0;
    for (; s[i]; i++) {
        char c = s[i];
        bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        bool other = (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
        if (letter || (i > 0 && other))
            continue;
        return c == ':' ? i : 0;
    }
    return 0;
}

const char *dra_kube_redacted(dra_arena *a, const char *url)
{
    if (!url)
        return "";
    size_t start = 0, sl = scheme_len(url);
    if (sl && strncmp(url + sl, "://", 3) == 0)
        start = sl + 3;
    size_t end = start + strcspn(url + start, "/?#");
    const char *at = NULL;
    for (const char *p = url + start; p < url + end; p++)
        if (*p == '@')
            at = p;
    const char *colon = at ? memchr(url + start, ':', (size_t)(at - (url + start))) : NULL;
    if (!colon)
        return url;
    return dra_arena_printf(a, "%.*s:***%s", (int)(colon - url), url, at);
}

/* url.Parse refuses these bytes anywhere in a URL. */
static bool has_ctl(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

bool dra_kube_server_tls(const char *server)
{
    if (!server || has_ctl(server)) {
        /* url.Parse fails: IsConfigTransportTLS says no (the error is
         * reported when the URL is checked at load) */
        return false;
    }
    size_t sl = scheme_len(server);
    if (sl != 5 || strncasecmp(server, "https", 5) != 0 || strncmp(server + 5, "://", 3) != 0)
        return false;
    /* the host (after any userinfo) must not be empty, or DefaultServerURL
     * puts "http://" in front of the whole string */
    const char *auth = server + 8;
    size_t n = strcspn(auth, "/?#");
    const char *host = auth;
    for (const char *p = auth; p < auth + n; p++)
        if (*p == '@')
            host = p + 1;
    return host < auth + n && *host != ':';
}

dra_err *dra_kube_url_check(const char *url)
{
    if (!url || !has_ctl(url))
        return NULL;
    dra_arena a = DRA_ARENA_INIT;
    dra_err *e =
        dra_err_new(DRA_EXIT_INPUT, "parse %s: net/url: invalid control character in URL", dra_kube_q(&a, url));
    dra_arena_free(&a);
    return e;
}
