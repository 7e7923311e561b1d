/* Fuzz the regular expressions of the CEL engine (cel/regex.h: Go's regexp
 * on RE2).  Input: a pattern, one 0x00 byte, then the text searched.
 *
 *   - never crash; a pattern that does not compile gets Go's text,
 *     "error parsing regexp: CODE: `FRAGMENT`" with one of Go's codes;
 *   - the matches are in order, inside the text, one per position at most;
 *   - against RE2 directly, where Go and RE2 C++ read a pattern alike (ASCII,
 *     no \C, \p, (?<, (?P<, shallow): the same patterns compile and, on
 *     ASCII text, the same leftmost-first matches come out;
 *   - against PCRE2 (built in when the fuzzer is built with FUZZ_PCRE2),
 *     where both engines mean the same (a small ASCII subset both compile):
 *     the same answer to "does it match", unless PCRE2 gives up at its
 *     match limit. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel/re2.h"
#include "cel/regex.h"

#ifdef FUZZ_PCRE2
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* clang-format off */
static const char *const go_codes[] = {
    "invalid character class", "invalid character class range", "invalid escape sequence",
    "invalid named capture", "invalid or unsupported Perl syntax", "invalid nested repetition operator",
    "invalid repeat count", "invalid UTF-8", "missing closing ]", "missing closing )",
    "missing argument to repetition operator", "trailing backslash at end of expression", "unexpected )",
    "expression nests too deeply", "expression too large",
};
/* clang-format on */

static void go_error_shape(const char *err)
{
    static const char prefix[] = "error parsing regexp: ";
    if (strncmp(err, prefix, sizeof prefix - 1) != 0)
        abort();
    const char *code = err + sizeof prefix - 1;
    bool known = false;
    for (size_t i = 0; i < sizeof go_codes / sizeof go_codes[0] && !known; i++) {
        size_t n = strlen(go_codes[i]);
        known = strncmp(code, go_codes[i], n) == 0 && strncmp(code + n, ": `", 3) == 0;
    }
    size_t len = strlen(err);
    if (!known || err[len - 1] != '`')
        abort();
}

typedef struct matches {
    size_t n, len, at[64][2], last[2];
} matches;

static void keep(void *ud, size_t start, size_t end)
{
    matches *m = ud;
    if (start > end || end > m->len || (m->n && start < m->last[1] && start != end))
        abort();
    if (m->n && start == m->last[0] && end == m->last[1])
        abort(); /* the same match twice */
    if (m->n < 64) {
        m->at[m->n][0] = start;
        m->at[m->n][1] = end;
    }
    m->last[0] = start;
    m->last[1] = end;
    m->n++;
}

static bool ascii(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] >= 0x80)
            return false;
    return true;
}

/* Patterns whose reading RE2 C++ and Go share. */
static bool shared_syntax(const char *p, size_t n)
{
    if (!ascii(p, n) || memchr(p, '\0', n))
        return false;
    size_t parens = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '(')
            parens++;
        if (p[i] == '\\' && i + 1 < n && (p[i + 1] == 'C' || p[i + 1] == 'p' || p[i + 1] == 'P' || p[i + 1] == 'x'))
            return false;
        if (p[i] == '{') /* repeat counts: Go checks the size before a repeated repetition */
            return false;
        if (p[i] == '(' && i + 2 < n && p[i + 1] == '?' && (p[i + 2] == '<' || p[i + 2] == 'P'))
            return false;
    }
    return parens < 50;
}

/* RE2's own Go-style FindAll, for the comparison. */
static void re2_find_all(const dra_re2 *re, const char *t, size_t len, matches *m)
{
    size_t pos = 0;
    bool have_prev = false;
    size_t prev_end = 0;
    while (pos <= len) {
        size_t w[2];
        if (!dra_re2_search(re, t, len, pos, w))
            break;
        bool accept = !(w[1] == pos && have_prev && w[0] == prev_end);
        pos = w[1] == pos ? pos + 1 : w[1];
        prev_end = w[1];
        have_prev = true;
        if (accept)
            keep(m, w[0], w[1]);
    }
}

#ifdef FUZZ_PCRE2
/* The small subset in which PCRE2 (UTF, $ only at the end) and Go agree. */
static bool pcre2_subset(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strchr("abc.|*+?()[]^$-", p[i]) || p[i] == '\0')
            return false;
    return true;
}

static void against_pcre2(const char *p, size_t n, const char *t, size_t tlen, bool ours)
{
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, n, PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &code, &off, NULL);
    if (!re)
        return;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(mc, 100000);
    int rc = pcre2_match(re, (PCRE2_SPTR)t, tlen, 0, 0, md, mc);
    if ((rc >= 0 || rc == PCRE2_ERROR_NOMATCH) && (rc >= 0) != ours) {
        fprintf(stderr, "PCRE2 says %s\n", rc >= 0 ? "match" : "no match");
        abort();
    }
    pcre2_match_context_free(mc);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 2048)
        return 0;
    const char *in = (const char *)data;
    const char *zero = memchr(in, '\0', size);
    size_t plen = zero ? (size_t)(zero - in) : size;
    const char *text = zero ? zero + 1 : "";
    size_t tlen = zero ? size - plen - 1 : 0;

    char *err = NULL;
    cel_regex *re = cel_regex_compile(in, plen, &err);
    if (!re) {
        go_error_shape(err);
        free(err);
    }
    matches ours = {.len = tlen};
    if (re) {
        bool any = cel_regex_match(re, text, tlen);
        cel_regex_find_all(re, text, tlen, -1, keep, &ours);
        if (any != (ours.n > 0))
            abort();
        matches first = {.len = tlen};
        cel_regex_find_all(re, text, tlen, 1, keep, &first);
        if (first.n > 1 || (first.n && memcmp(first.at[0], ours.at[0], sizeof first.at[0])))
            abort();
    }

    if (shared_syntax(in, plen)) {
        int code;
        char *arg = NULL;
        dra_re2 *direct = dra_re2_new(in, plen, (int64_t)32 << 20, &code, &arg);
        free(arg);
        if ((direct != NULL) != (re != NULL) && code != DRA_RE2_PATTERN_TOO_LARGE) {
            fprintf(stderr, "RE2 %s it\n", direct ? "compiles" : "rejects");
            abort();
        }
        if (direct && re && ascii(text, tlen)) {
            matches theirs = {.len = tlen};
            re2_find_all(direct, text, tlen, &theirs);
            size_t k = ours.n < 64 ? ours.n : 64;
            if (theirs.n != ours.n || memcmp(theirs.at, ours.at, k * sizeof ours.at[0]))
                abort();
        }
        dra_re2_free(direct);
    }
#ifdef FUZZ_PCRE2
    if (re && pcre2_subset(in, plen) && ascii(text, tlen) && !memchr(text, '\0', tlen))
        against_pcre2(in, plen, text, tlen, ours.n > 0);
#endif
    cel_regex_free(re);
    return 0;
}
