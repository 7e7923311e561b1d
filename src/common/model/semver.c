/* Semantic versions, see semver.h.
 *
 * dra_semver_parse follows github.com/blang/semver/v4 Parse check for check
 * (the order decides which error a bad version reports), normalize follows
 * normalizeAndParse in k8s.io/apiserver/pkg/cel/library/semverlib.go, and
 * the attribute check follows semverRe in pkg/apis/resource/validation.
 */
#include "semver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/utf8.h"

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* blang's "alphanum": letters, digits and '-'. */
static bool is_ident_char(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_digit(s[i]))
            return false;
    return true;
}

static bool all_ident_chars(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_ident_char(s[i]))
            return false;
    return true;
}

static bool leading_zero(const char *s, size_t n)
{
    return n > 1 && s[0] == '0';
}

/* ---- Go's %q (base/utf8.h), so error texts quote like blang's --------- */

/* New error "<prefix> <quoted part>". */
static dra_err *err_quoted(const char *prefix, const char *s, size_t n)
{
    dra_buf q = DRA_BUF_INIT;
    dra_go_quote(&q, s, n);
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, "%s %s", prefix, dra_buf_str(&q));
    dra_buf_free(&q);
    return e;
}

/* strconv.ParseUint(s, 10, 64) on a string already known to be digits. */
static dra_err *parse_uint(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0)
        return dra_err_new(DRA_EXIT_INPUT, "strconv.ParseUint: parsing \"\": invalid syntax");
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) {
            dra_buf q = DRA_BUF_INIT;
            dra_go_quote(&q, s, n);
            dra_err *e =
                dra_err_new(DRA_EXIT_INPUT, "strconv.ParseUint: parsing %s: value out of range", dra_buf_str(&q));
            dra_buf_free(&q);
            return e;
        }
        v = v * 10 + d;
    }
    *out = v;
    return NULL;
}

/* Major, minor or patch number. */
static dra_err *parse_number(const char *which, const char *Which, const char *s, size_t n, uint64_t *out)
{
    char prefix[64];
    if (!all_digits(s, n)) {
        snprintf(prefix, sizeof prefix, "Invalid character(s) found in %s number", which);
        return err_quoted(prefix, s, n);
    }
    if (leading_zero(s, n)) {
        snprintf(prefix, sizeof prefix, "%s number must not contain leading zeroes", Which);
        return err_quoted(prefix, s, n);
    }
    return parse_uint(s, n, out);
}

/* blang's NewPRVersion for each dot-separated identifier. */
static dra_err *check_prerelease(const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.')
            continue;
        const char *id = s + start;
        size_t len = i - start;
        if (len == 0)
            return dra_err_new(DRA_EXIT_INPUT, "Prerelease is empty");
        if (all_digits(id, len)) {
            uint64_t ignored;
            if (leading_zero(id, len))
                return err_quoted("Numeric PreRelease version must not contain leading zeroes", id, len);
            dra_err *e = parse_uint(id, len, &ignored);
            if (e)
                return e;
        } else if (!all_ident_chars(id, len)) {
            return err_quoted("Invalid character(s) found in prerelease", id, len);
        }
        start = i + 1;
    }
    return NULL;
}

static dra_err *check_build(const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.')
            continue;
        if (i == start)
            return dra_err_new(DRA_EXIT_INPUT, "Build meta data is empty");
        if (!all_ident_chars(s + start, i - start))
            return err_quoted("Invalid character(s) found in build meta data", s + start, i - start);
        start = i + 1;
    }
    return NULL;
}

dra_err *dra_semver_parse(const char *s, size_t len, dra_semver *out)
{
    if (len == 0)
        return dra_err_new(DRA_EXIT_INPUT, "Version string empty");
    /* strings.SplitN(s, ".", 3) */
    const char *dot1 = memchr(s, '.', len);
    const char *dot2 = dot1 ? memchr(dot1 + 1, '.', len - (size_t)(dot1 + 1 - s)) : NULL;
    if (!dot2)
        return dra_err_new(DRA_EXIT_INPUT, "No Major.Minor.Patch elements found");
    dra_semver v;
    memset(&v, 0, sizeof v);
    dra_err *e = parse_number("major", "Major", s, (size_t)(dot1 - s), &v.major);
    if (!e)
        e = parse_number("minor", "Minor", dot1 + 1, (size_t)(dot2 - dot1 - 1), &v.minor);
    if (e)
        return e;

    /* Build metadata starts at the first '+', the pre-release at the first
     * '-' before it. */
    const char *rest = dot2 + 1, *end = s + len;
    const char *plus = memchr(rest, '+', (size_t)(end - rest));
    const char *patch_end = plus ? plus : end;
    const char *minus = memchr(rest, '-', (size_t)(patch_end - rest));
    const char *pre = NULL, *build = NULL;
    size_t pre_len = 0, build_len = 0;
    if (plus) {
        build = plus + 1;
        build_len = (size_t)(end - build);
    }
    if (minus) {
        pre = minus + 1;
        pre_len = (size_t)(patch_end - pre);
        patch_end = minus;
    }
    e = parse_number("patch", "Patch", rest, (size_t)(patch_end - rest), &v.patch);
    if (!e && pre)
        e = check_prerelease(pre, pre_len);
    if (!e && build)
        e = check_build(build, build_len);
    if (e)
        return e;
    if (pre_len + build_len > DRA_SEMVER_MAX)
        return dra_err_new(DRA_EXIT_INPUT, "version pre-release and build metadata longer than %d bytes",
                           DRA_SEMVER_MAX);
    if (pre_len)
        memcpy(v.text, pre, pre_len);
    if (build_len)
        memcpy(v.text + pre_len, build, build_len);
    v.pre_len = (uint16_t)pre_len;
    v.build_len = (uint16_t)build_len;
    *out = v;
    return NULL;
}

dra_err *dra_semver_parse_normalize(const char *s, size_t len, dra_semver *out)
{
    /* strings.TrimPrefix(s, "v") */
    if (len > 0 && s[0] == 'v') {
        s++;
        len--;
    }
    /* SplitN into at most 3 parts; trim leading zeros of each part longer
     * than one byte, keeping one "0" when nothing digit-like is left. */
    const char *part[3];
    size_t part_len[3], nparts = 0, start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && (s[i] != '.' || nparts == 2))
            continue;
        part[nparts] = s + start;
        part_len[nparts] = i - start;
        nparts++;
        start = i + 1;
    }
    char *buf = dra_xmalloc(len + 16), *o = buf;
    for (size_t k = 0; k < nparts; k++) {
        const char *p = part[k];
        size_t n = part_len[k];
        if (n > 1) {
            while (n > 0 && p[0] == '0')
                p++, n--;
            if (n == 0 || !is_digit(p[0]))
                *o++ = '0';
        }
        memcpy(o, p, n);
        o += n;
        if (k + 1 < nparts)
            *o++ = '.';
    }
    if (nparts < 3) {
        const char *last = part[nparts - 1];
        size_t last_len = part_len[nparts - 1];
        if (memchr(last, '+', last_len) || memchr(last, '-', last_len)) {
            free(buf);
            return dra_err_new(DRA_EXIT_INPUT, "short version cannot contain PreRelease/Build meta data");
        }
        for (; nparts < 3; nparts++) {
            *o++ = '.';
            *o++ = '0';
        }
    }
    dra_err *e = dra_semver_parse(buf, (size_t)(o - buf), out);
    free(buf);
    return e;
}

/* ---- precedence (SemVer 2.0.0 section 11, blang's Compare) ------------- */

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

/* Next dot-separated identifier of [*p, end); false when none is left. */
static bool next_ident(const char **p, const char *end, const char **id, size_t *n)
{
    if (*p > end)
        return false;
    const char *dot = memchr(*p, '.', (size_t)(end - *p));
    const char *stop = dot ? dot : end;
    *id = *p;
    *n = (size_t)(stop - *p);
    *p = stop + 1;
    return true;
}

static int cmp_ident(const char *a, size_t an, const char *b, size_t bn)
{
    bool anum = all_digits(a, an), bnum = all_digits(b, bn);
    if (anum != bnum)
        return anum ? -1 : 1; /* numeric identifiers sort first */
    if (anum) {
        /* no leading zeros, so the longer number is the larger */
        if (an != bn)
            return an < bn ? -1 : 1;
        int c = memcmp(a, b, an);
        return c < 0 ? -1 : c > 0;
    }
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c)
        return c < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn;
}

int dra_semver_cmp(const dra_semver *a, const dra_semver *b)
{
    int c = cmp_u64(a->major, b->major);
    if (!c)
        c = cmp_u64(a->minor, b->minor);
    if (!c)
        c = cmp_u64(a->patch, b->patch);
    if (c)
        return c;
    /* A version without pre-release ranks above one with it. */
    if (!a->pre_len || !b->pre_len)
        return a->pre_len == b->pre_len ? 0 : a->pre_len ? -1 : 1;
    const char *pa = a->text, *ea = a->text + a->pre_len, *pb = b->text, *eb = b->text + b->pre_len;
    for (;;) {
        const char *ia = NULL, *ib = NULL;
        size_t na = 0, nb = 0;
        bool ha = next_ident(&pa, ea, &ia, &na), hb = next_ident(&pb, eb, &ib, &nb);
        if (!ha || !hb)
            return ha == hb ? 0 : ha ? 1 : -1; /* more identifiers rank higher */
        c = cmp_ident(ia, na, ib, nb);
        if (c)
            return c;
    }
}

const char *dra_semver_format(const dra_semver *v, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    int n = snprintf(buf, size, "%llu.%llu.%llu", (unsigned long long)v->major, (unsigned long long)v->minor,
                     (unsigned long long)v->patch);
    size_t used = n < 0 ? 0 : (size_t)n;
    if (v->pre_len && used < size)
        used += (size_t)snprintf(buf + used, size - used, "-%.*s", (int)v->pre_len, v->text);
    if (v->build_len && used < size)
        snprintf(buf + used, size - used, "+%.*s", (int)v->build_len, v->text + v->pre_len);
    return buf;
}

/* ---- the API server's regex for the `version` attribute ---------------- */

/* numericIdentifier: "0" or [1-9][0-9]*, at most maxd digits (0: any);
 * advances *i past it. */
static bool match_numeric(const char *s, size_t len, size_t *i, size_t maxd)
{
    size_t start = *i;
    while (*i < len && is_digit(s[*i]))
        (*i)++;
    size_t n = *i - start;
    return n > 0 && !leading_zero(s + start, n) && (!maxd || n <= maxd);
}

/* Dot-separated identifiers up to `stop` or the end; pre-release ones must
 * not be numbers with leading zeros, nor longer than maxd digits (0: any). */
static bool match_idents(const char *s, size_t len, size_t *i, char stop, bool prerelease, size_t maxd)
{
    for (;;) {
        size_t start = *i;
        while (*i < len && is_ident_char(s[*i]))
            (*i)++;
        size_t n = *i - start;
        if (n == 0 || (prerelease && all_digits(s + start, n) && (leading_zero(s + start, n) || (maxd && n > maxd))))
            return false;
        if (*i < len && s[*i] == '.') {
            (*i)++;
            continue;
        }
        return *i == len || s[*i] == stop;
    }
}

bool dra_semver_matches_regex_digits(const char *s, size_t len, size_t maxd)
{
    size_t i = 0;
    for (int k = 0; k < 3; k++) {
        if (!match_numeric(s, len, &i, maxd))
            return false;
        if (k < 2 && (i >= len || s[i++] != '.'))
            return false;
    }
    if (i < len && s[i] == '-') {
        i++;
        if (!match_idents(s, len, &i, '+', true, maxd))
            return false;
    }
    if (i < len && s[i] == '+') {
        i++;
        if (!match_idents(s, len, &i, '\0', false, 0) || i != len)
            return false;
    }
    return i == len;
}

bool dra_semver_matches_regex(const char *s, size_t len)
{
    return dra_semver_matches_regex_digits(s, len, 0);
}

bool dra_semver_valid_attribute(const char *s, size_t len)
{
    return len <= DRA_SEMVER_ATTRIBUTE_MAXLEN && dra_semver_matches_regex(s, len);
}
