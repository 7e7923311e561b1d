/* Regular expressions: the standard `matches` and the Kubernetes regex
 * library's `find` / `findAll` (apiserver pkg/cel/library/regex.go).
 *
 * cel-go uses Go's RE2 engine; we use PCRE2 with options that bring it close:
 *   - UTF mode, ASCII \w \d \s \b (no PCRE2_UCP), as RE2 without flags;
 *   - PCRE2_DOLLAR_ENDONLY: `$` matches only at the very end, as RE2;
 *   - constructs RE2 does not support are rejected like cel-go rejects them:
 *     lookaround (?= (?! (?<= (?<!, backreferences \1..\9 and \g, atomic groups
 *     (?>, possessive quantifiers *+ ++ ?+, recursion (?R / (?1, \C;
 *   - a match limit replaces RE2's linear-time guarantee: a pattern that
 *     backtracks past it yields an error instead of running on.
 * Remaining differences: RE2's \pN class names and Perl classes inside
 * brackets behave the same; RE2 rejects some PCRE-only escapes (\A\z are
 * shared; \Z, \G, \K, \R, \X are PCRE-only and are rejected here). */
#include "functions.h"
#include "../base/utf8.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

enum { REGEX_CACHE_SLOTS = 16, REGEX_MATCH_LIMIT = 1000000 };

typedef struct regex_slot {
    char *pattern;
    size_t len;
    pcre2_code *code;
    pcre2_match_data *md;
    unsigned long last_use;
} regex_slot;

struct cel_regex_cache {
    regex_slot slot[REGEX_CACHE_SLOTS];
    pcre2_match_context *mctx;
    unsigned long clock;
};

cel_regex_cache *cel_regex_cache_new(void)
{
    cel_regex_cache *c = dra_xcalloc(1, sizeof *c);
    c->mctx = pcre2_match_context_create(NULL);
    if (c->mctx)
        pcre2_set_match_limit(c->mctx, REGEX_MATCH_LIMIT);
    return c;
}

static void slot_clear(regex_slot *s)
{
    free(s->pattern);
    if (s->md)
        pcre2_match_data_free(s->md);
    if (s->code)
        pcre2_code_free(s->code);
    memset(s, 0, sizeof *s);
}

void cel_regex_cache_free(cel_regex_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < REGEX_CACHE_SLOTS; i++)
        slot_clear(&c->slot[i]);
    if (c->mctx)
        pcre2_match_context_free(c->mctx);
    free(c);
}

/* RE2 syntax check for the constructs PCRE2 accepts and RE2 does not. */
static const char *unsupported_syntax(const char *p, size_t n)
{
    bool in_class = false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\\' && i + 1 < n) {
            char d = p[i + 1];
            if ((d >= '1' && d <= '9') || d == 'g' || d == 'k' || d == 'Z' || d == 'G' || d == 'K' ||
                d == 'R' || d == 'X' || d == 'C')
                return "invalid escape sequence";
            i++;
            continue;
        }
        if (in_class) {
            if (c == ']')
                in_class = false;
            continue;
        }
        if (c == '[') {
            in_class = true;
            if (i + 1 < n && p[i + 1] == ']')
                i++;
            else if (i + 2 < n && p[i + 1] == '^' && p[i + 2] == ']')
                i += 2;
            continue;
        }
        if (c == '(' && i + 1 < n && p[i + 1] == '?') {
            const char *rest = p + i + 2;
            size_t left = n - i - 2;
            if (left >= 1 && (rest[0] == '=' || rest[0] == '!' || rest[0] == '>' || rest[0] == 'R' ||
                              rest[0] == '|' || rest[0] == '#' || (rest[0] >= '0' && rest[0] <= '9') ||
                              rest[0] == '+' || rest[0] == '&' || rest[0] == '('))
                return "invalid or unsupported Perl syntax";
            if (left >= 2 && rest[0] == '<' && (rest[1] == '=' || rest[1] == '!'))
                return "invalid or unsupported Perl syntax";
        }
        if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < n && p[i + 1] == '+')
            return "invalid nested repetition operator";
    }
    return NULL;
}

static pcre2_code *compile(const char *p, size_t n, char *err, size_t errcap)
{
    const char *bad = unsupported_syntax(p, n);
    if (bad) {
        snprintf(err, errcap, "error parsing regexp: %s: `%.*s`", bad, (int)(n > 64 ? 64 : n), p);
        return NULL;
    }
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, n, PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_NO_UTF_CHECK * 0,
                                   &code, &off, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        snprintf(err, errcap, "error parsing regexp: %s: `%.*s`", (const char *)msg, (int)(n > 64 ? 64 : n), p);
    }
    return re;
}

char *cel_regex_check(const char *pattern, size_t len)
{
    char err[512];
    pcre2_code *re = compile(pattern, len, err, sizeof err);
    if (!re)
        return dra_xstrdup(err);
    pcre2_code_free(re);
    return NULL;
}

/* Look up or compile; on error returns NULL with an error value in *errv. */
static regex_slot *get_regex(cel_call_ctx *cx, const cel_value *pat, cel_value *errv, regex_slot *tmp)
{
    cel_regex_cache *c = cx->regexes;
    if (c) {
        for (size_t i = 0; i < REGEX_CACHE_SLOTS; i++) {
            regex_slot *s = &c->slot[i];
            if (s->code && s->len == pat->v.s.len && memcmp(s->pattern, pat->v.s.ptr, s->len) == 0) {
                s->last_use = ++c->clock;
                return s;
            }
        }
    }
    char err[512];
    pcre2_code *re = compile(pat->v.s.ptr, pat->v.s.len, err, sizeof err);
    if (!re) {
        *errv = cel_string_copy_s(cx->scratch, err, strlen(err));
        errv->kind = CEL_ERROR;
        errv->v.err = errv->v.s.ptr;
        return NULL;
    }
    regex_slot *s = tmp;
    if (c) {
        s = &c->slot[0];
        for (size_t i = 1; i < REGEX_CACHE_SLOTS; i++)
            if (!c->slot[i].code || c->slot[i].last_use < s->last_use)
                s = &c->slot[i];
        slot_clear(s);
        s->last_use = ++c->clock;
    }
    /* patterns may contain NUL bytes: copy by length */
    s->pattern = dra_xmalloc(pat->v.s.len + 1);
    if (pat->v.s.len)
        memcpy(s->pattern, pat->v.s.ptr, pat->v.s.len);
    s->pattern[pat->v.s.len] = 0;
    s->len = pat->v.s.len;
    s->code = re;
    s->md = pcre2_match_data_create_from_pattern(re, NULL);
    return s;
}

/* One match from `start`; returns 1 on match, 0 on none, <0 on error. */
static int match_at(cel_call_ctx *cx, regex_slot *s, const cel_value *str, size_t start)
{
    int rc = pcre2_match(s->code, (PCRE2_SPTR)(str->v.s.ptr ? str->v.s.ptr : ""), str->v.s.len, start,
                         start > 0 ? PCRE2_NOTEMPTY_ATSTART * 0 : 0, s->md,
                         cx->regexes ? cx->regexes->mctx : NULL);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    return rc < 0 ? rc : 1;
}

static cel_value regex_failure(void)
{
    return cel_error("regex match failed: backtracking limit exceeded");
}

static cel_value do_matches(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    cel_value err;
    regex_slot tmp = {0};
    regex_slot *s = get_regex(cx, &a[1], &err, &tmp);
    if (!s)
        return err;
    int rc = match_at(cx, s, &a[0], 0);
    if (s == &tmp)
        slot_clear(&tmp);
    return rc < 0 ? regex_failure() : cel_bool(rc == 1);
}

static cel_value do_find(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    cel_value err;
    regex_slot tmp = {0};
    regex_slot *s = get_regex(cx, &a[1], &err, &tmp);
    if (!s)
        return err;
    int rc = match_at(cx, s, &a[0], 0);
    cel_value r = cel_string("", 0);
    if (rc == 1) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
        r = cel_string(a[0].v.s.ptr + ov[0], ov[1] - ov[0]);
    } else if (rc < 0) {
        r = regex_failure();
    }
    if (s == &tmp)
        slot_clear(&tmp);
    return r;
}

/* findAll with Go's FindAllString semantics: empty matches adjacent to a
 * previous match are skipped; limit < 0 means all. */
static cel_value find_all(cel_call_ctx *cx, const cel_value *a, int64_t limit)
{
    cel_value err;
    regex_slot tmp = {0};
    regex_slot *s = get_regex(cx, &a[1], &err, &tmp);
    if (!s)
        return err;
    size_t cap = 8, cnt = 0;
    cel_value *items = cel_scratch_alloc(cx->scratch, cap * sizeof *items);
    size_t pos = 0;
    long prev_end = -1;
    cel_value result = {0};
    while (limit < 0 || (int64_t)cnt < limit) {
        if (pos > a[0].v.s.len)
            break;
        int rc = match_at(cx, s, &a[0], pos);
        if (rc < 0) {
            result = regex_failure();
            break;
        }
        if (rc == 0)
            break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
        size_t ms = ov[0], me = ov[1];
        bool accept = !(me == ms && (long)ms == prev_end);
        if (accept) {
            if (cnt == cap) {
                cel_value *bigger = cel_scratch_alloc(cx->scratch, cap * 2 * sizeof *items);
                memcpy(bigger, items, cnt * sizeof *items);
                items = bigger;
                cap *= 2;
            }
            items[cnt++] = cel_string(a[0].v.s.ptr + ms, me - ms);
        }
        prev_end = (long)me;
        if (me == ms) {
            /* advance one code point past an empty match */
            uint32_t r;
            size_t step = ms < a[0].v.s.len ? dra_utf8_decode(a[0].v.s.ptr + ms, a[0].v.s.len - ms, &r) : 0;
            pos = me + (step ? step : 1); /* an invalid byte is one step, as Go's decoder reads it */
        } else {
            pos = me;
        }
    }
    if (s == &tmp)
        slot_clear(&tmp);
    if (result.kind)
        return result;
    cel_list *l = cel_scratch_alloc(cx->scratch, sizeof *l);
    l->n = cnt;
    l->items = items;
    return cel_listval(l);
}

static cel_value do_find_all(cel_call_ctx *cx, const cel_value *a, size_t n) { return find_all(cx, a, -1); }
static cel_value do_find_all_n(cel_call_ctx *cx, const cel_value *a, size_t n) { return find_all(cx, a, a[2].v.i); }

#define S (&cel_t_string)
const cel_overload cel_lib_regex[] = {
    {"matches", "matches", false, 2, {S, S}, &cel_t_bool, do_matches, CEL_COST_MATCHES, 0, NULL, CEL_LIB_STD, false},
    {"matches_string", "matches", true, 2, {S, S}, &cel_t_bool, do_matches, CEL_COST_MATCHES, 0, NULL, CEL_LIB_STD, false},
    {"string_find_string", "find", true, 2, {S, S}, S, do_find, CEL_COST_MATCHES, 0, NULL, CEL_LIB_K8S_REGEX, false},
    {"string_find_all_string", "findAll", true, 2, {S, S}, &cel_t_list_string, do_find_all, CEL_COST_MATCHES, 0, NULL, CEL_LIB_K8S_REGEX, false},
    {"string_find_all_string_int", "findAll", true, 3, {S, S, &cel_t_int}, &cel_t_list_string, do_find_all_n, CEL_COST_MATCHES, 0, NULL, CEL_LIB_K8S_REGEX, false},
};
const size_t cel_lib_regex_n = sizeof cel_lib_regex / sizeof cel_lib_regex[0];
