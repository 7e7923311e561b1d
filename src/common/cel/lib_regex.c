/* Regular expressions: the standard `matches` and the Kubernetes regex
 * library's `find` / `findAll` (apiserver pkg/cel/library/regex.go), with
 * Go's regexp as cel-go and Kubernetes run it (regex.h: RE2 syntax and
 * linear-time matching, Go's error texts).
 *
 * Runtime errors as upstream words them: a pattern that does not compile
 * is Go's "error parsing regexp: ..." for matches (cel-go
 * common/types/string.go) and "Illegal regex: error parsing regexp: ..."
 * for find and findAll (library/regex.go). */
#include "functions.h"
#include "regex.h"

#include <stdlib.h>
#include <string.h>

enum { REGEX_CACHE_SLOTS = 16 };

typedef struct regex_slot {
    char *pattern;
    size_t len;
    cel_regex *re;
    unsigned long last_use;
} regex_slot;

struct cel_regex_cache {
    regex_slot slot[REGEX_CACHE_SLOTS];
    unsigned long clock;
};

cel_regex_cache *cel_regex_cache_new(void)
{
    return dra_xcalloc(1, sizeof(cel_regex_cache));
}

static void slot_clear(regex_slot *s)
{
    free(s->pattern);
    cel_regex_free(s->re);
    memset(s, 0, sizeof *s);
}

void cel_regex_cache_free(cel_regex_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < REGEX_CACHE_SLOTS; i++)
        slot_clear(&c->slot[i]);
    free(c);
}

char *cel_regex_check(const char *pattern, size_t len)
{
    char *err = NULL;
    cel_regex_free(cel_regex_compile(pattern, len, &err));
    return err;
}

/* The compiled pattern, from the cache or compiled now (kept in *tmp when
 * there is no cache: the caller frees it).  NULL with an error value in
 * *errv, its message prefixed with `prefix`, when it does not compile. */
static const cel_regex *get_regex(cel_call_ctx *cx, const cel_value *pat, const char *prefix, cel_value *errv,
                                  cel_regex **tmp)
{
    cel_regex_cache *c = cx->regexes;
    *tmp = NULL;
    if (c) {
        for (size_t i = 0; i < REGEX_CACHE_SLOTS; i++) {
            regex_slot *s = &c->slot[i];
            if (s->re && s->len == pat->v.s.len && memcmp(s->pattern, pat->v.s.ptr, s->len) == 0) {
                s->last_use = ++c->clock;
                return s->re;
            }
        }
    }
    char *err = NULL;
    cel_regex *re = cel_regex_compile(pat->v.s.ptr, pat->v.s.len, &err);
    if (!re) {
        *errv = cel_errorf_s(cx->scratch, "%s%s", prefix, err);
        free(err);
        return NULL;
    }
    if (!c) {
        *tmp = re;
        return re;
    }
    regex_slot *s = &c->slot[0];
    for (size_t i = 1; i < REGEX_CACHE_SLOTS; i++)
        if (!c->slot[i].re || c->slot[i].last_use < s->last_use)
            s = &c->slot[i];
    slot_clear(s);
    s->last_use = ++c->clock;
    /* patterns may contain NUL bytes: copy by length */
    s->pattern = dra_xmalloc(pat->v.s.len + 1);
    if (pat->v.s.len)
        memcpy(s->pattern, pat->v.s.ptr, pat->v.s.len);
    s->pattern[pat->v.s.len] = 0;
    s->len = pat->v.s.len;
    s->re = re;
    return re;
}

static cel_value do_matches(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    cel_value err;
    cel_regex *tmp;
    const cel_regex *re = get_regex(cx, &a[1], "", &err, &tmp);
    if (!re)
        return err;
    bool m = cel_regex_match(re, a[0].v.s.ptr, a[0].v.s.len);
    cel_regex_free(tmp);
    return cel_bool(m);
}

typedef struct found {
    cel_call_ctx *cx;
    const char *text;
    cel_value *items;
    size_t n, cap;
} found;

static void keep_match(void *ud, size_t start, size_t end)
{
    found *f = ud;
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        cel_value *bigger = cel_scratch_alloc(f->cx->scratch, cap * sizeof *bigger);
        if (f->n)
            memcpy(bigger, f->items, f->n * sizeof *bigger);
        f->items = bigger;
        f->cap = cap;
    }
    f->items[f->n++] = cel_string(f->text + start, end - start);
}

/* The first `limit` matches (all when limit < 0), as Go's FindAllString. */
static bool find_matches(cel_call_ctx *cx, const cel_value *a, int64_t limit, found *f, cel_value *err)
{
    cel_regex *tmp;
    const cel_regex *re = get_regex(cx, &a[1], "Illegal regex: ", err, &tmp);
    if (!re)
        return false;
    *f = (found){.cx = cx, .text = a[0].v.s.ptr};
    cel_regex_find_all(re, a[0].v.s.ptr, a[0].v.s.len, limit, keep_match, f);
    cel_regex_free(tmp);
    return true;
}

static cel_value do_find(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    found f;
    cel_value err;
    if (!find_matches(cx, a, 1, &f, &err))
        return err;
    return f.n ? f.items[0] : cel_string("", 0);
}

static cel_value find_all(cel_call_ctx *cx, const cel_value *a, int64_t limit)
{
    found f;
    cel_value err;
    if (!find_matches(cx, a, limit, &f, &err))
        return err;
    if (f.n == 0)
        return cel_listval(&cel_empty_list);
    cel_list *l = cel_scratch_zalloc(cx->scratch, sizeof *l);
    l->n = f.n;
    l->items_ = f.items;
    return cel_listval(l);
}

static cel_value do_find_all(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    return find_all(cx, a, -1);
}
static cel_value do_find_all_n(cel_call_ctx *cx, const cel_value *a, size_t n)
{
    return find_all(cx, a, a[2].v.i);
}

#define S (&cel_t_string)
/* clang-format off */
const cel_overload cel_lib_regex[] = {
    {"matches", "matches", false, 2, {S, S}, &cel_t_bool, do_matches, CEL_COST_MATCHES, 0, NULL, CEL_LIB_STD, false},
    {"matches_string", "matches", true, 2, {S, S}, &cel_t_bool, do_matches, CEL_COST_MATCHES, 0, NULL, CEL_LIB_STD, false},
    {"string_find_string", "find", true, 2, {S, S}, S, do_find, CEL_COST_MATCHES, 0, NULL, CEL_LIB_K8S_REGEX, false},
    {"string_find_all_string", "findAll", true, 2, {S, S}, &cel_t_list_string, do_find_all, CEL_COST_MATCHES, 0, NULL, CEL_LIB_K8S_REGEX, false},
    {"string_find_all_string_int", "findAll", true, 3, {S, S, &cel_t_int}, &cel_t_list_string, do_find_all_n, CEL_COST_MATCHES, 0, NULL, CEL_LIB_K8S_REGEX, false},
};
/* clang-format on */
const size_t cel_lib_regex_n = sizeof cel_lib_regex / sizeof cel_lib_regex[0];
