/* A flat tape of a JSON document; see tape.h. */
#include "tape.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "jparse.h"

typedef struct tp {
    dra_tape *t;
    const char *p, *start, *end;
    int max_depth;
    bool spaced; /* white space skipped (in the container being read) */
} tp;

static size_t push(tp *s, dra_tape_type type)
{
    dra_tape *t = s->t;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->tok = dra_xrealloc(t->tok, t->cap * sizeof *t->tok);
    }
    dra_tape_tok *k = &t->tok[t->n];
    k->type = (uint8_t)type;
    k->n = 0;
    k->off = (uint32_t)(s->p - s->start);
    k->next = 0;
    k->plain = true;
    k->v.end = 0;
    return t->n++;
}

static inline void skip_space(tp *s)
{
    if (s->p < s->end && (unsigned char)*s->p > ' ')
        return;
    const char *p = s->p;
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
    s->spaced |= s->p != p;
}

/* A string token for the string whose quote is at s->p. */
static bool string(tp *s)
{
    size_t i = push(s, DRA_TAPE_STRING);
    s->p++;
    const char *v;
    size_t len;
    if (!(s->t->as_jansson ? dra_json_scan_string_jansson : dra_json_scan_string)(&s->p, s->end, &s->t->scratch, &v,
                                                                                  &len))
        return false;
    if (v == s->t->scratch.data) {
        v = dra_arena_strndup(&s->t->arena, v, len);
        s->t->tok[i].plain = false;
    }
    s->t->tok[i].n = (uint32_t)len;
    s->t->tok[i].v.s = v;
    return true;
}

static bool literal(tp *s, const char *word, size_t n, dra_tape_type type)
{
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
        return false;
    push(s, type);
    s->p += n;
    return true;
}

static bool value(tp *s, int depth);

/* The object or array at s->p, its contents after its token. */
static bool container(tp *s, int depth, bool object)
{
    if (depth > s->max_depth)
        return false;
    size_t i = push(s, object ? DRA_TAPE_OBJECT : DRA_TAPE_ARRAY);
    char close = object ? '}' : ']';
    uint32_t n = 0;
    bool outer_spaced = s->spaced, plain = true;
    s->spaced = false;
    s->p++;
    skip_space(s);
    if (s->p < s->end && *s->p == close) {
        s->p++;
        goto done;
    }
    for (;;) {
        if (object) {
            if (s->p >= s->end || *s->p != '"' || !string(s))
                return false;
            const dra_tape_tok *key = &s->t->tok[s->t->n - 1];
            plain &= key->plain;
            skip_space(s);
            if (s->p >= s->end || *s->p != ':')
                return false;
            s->p++;
            skip_space(s);
        }
        size_t child = s->t->n;
        if (!value(s, depth + 1))
            return false;
        plain &= s->t->tok[child].plain;
        n++;
        skip_space(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            skip_space(s);
            continue;
        }
        if (s->p < s->end && *s->p == close) {
            s->p++;
            break;
        }
        return false;
    }
done:
    s->t->tok[i].n = n;
    s->t->tok[i].next = (uint32_t)s->t->n;
    s->t->tok[i].v.end = (uint64_t)(s->p - s->start);
    s->t->tok[i].plain =
        plain && !s->spaced && (!object || n < 2 || (s->t->as_jansson && dra_tape_keys_unique(s->t, i)));
    s->spaced = outer_spaced;
    return true;
}

static bool value(tp *s, int depth)
{
    if (s->p >= s->end)
        return false;
    switch (*s->p) {
    case '{': return container(s, depth, true);
    case '[': return container(s, depth, false);
    case '"': return string(s);
    case 't': return literal(s, "true", 4, DRA_TAPE_TRUE);
    case 'f': return literal(s, "false", 5, DRA_TAPE_FALSE);
    case 'n': return literal(s, "null", 4, DRA_TAPE_NULL);
    default: {
        size_t i = push(s, DRA_TAPE_INT);
        dra_tape_tok *k = &s->t->tok[i];
        const char *start = s->p;
        switch (dra_json_scan_number(&s->p, s->end, &k->v.i, &k->v.d)) {
        case 1: k->plain = !(k->v.i == 0 && *start == '-'); return true;
        case 2:
            k->type = DRA_TAPE_REAL;
            k->plain = false;
            return !s->t->as_jansson || dra_json_jansson_real(start, (size_t)(s->p - start), k->v.d);
        default: return false;
        }
    }
    }
}

bool dra_tape_parse(dra_tape *t, const char *p, size_t n, int max_depth, size_t *used)
{
    t->n = 0;
    dra_arena_reset(&t->arena);
    if (n == 0 || n > UINT32_MAX || (p[0] != '{' && p[0] != '['))
        return false;
    t->text = p;
    tp s = {t, p, p, p + n, max_depth, false};
    if (!value(&s, 1)) {
        t->n = 0;
        return false;
    }
    *used = (size_t)(s.p - p);
    return true;
}

size_t dra_tape_skip(const dra_tape *t, size_t i)
{
    const dra_tape_tok *k = &t->tok[i];
    return k->type == DRA_TAPE_OBJECT || k->type == DRA_TAPE_ARRAY ? k->next : i + 1;
}

size_t dra_tape_member(const dra_tape *t, size_t i, const char *key, size_t keylen)
{
    const dra_tape_tok *o = &t->tok[i];
    if (o->type != DRA_TAPE_OBJECT)
        return SIZE_MAX;
    for (size_t k = i + 1; k < o->next; k = dra_tape_skip(t, k + 1)) {
        const dra_tape_tok *key_tok = &t->tok[k];
        if (key_tok->n == keylen && memcmp(key_tok->v.s, key, keylen) == 0)
            return k + 1;
    }
    return SIZE_MAX;
}

/* The tree of the value at token *i; *i moves past it. */
static json_t *build(const dra_tape *t, size_t *i)
{
    const dra_tape_tok *k = &t->tok[(*i)++];
    switch ((dra_tape_type)k->type) {
    case DRA_TAPE_NULL: return json_null();
    case DRA_TAPE_FALSE: return json_false();
    case DRA_TAPE_TRUE: return json_true();
    case DRA_TAPE_INT: return json_integer(k->v.i);
    case DRA_TAPE_REAL: return json_real(k->v.d);
    case DRA_TAPE_STRING: return json_stringn_nocheck(k->v.s, k->n);
    case DRA_TAPE_ARRAY: {
        json_t *a = json_array();
        for (uint32_t e = 0; e < k->n; e++) {
            json_t *v = build(t, i);
            if (!v || json_array_append_new(a, v) != 0) {
                json_decref(a);
                return NULL;
            }
        }
        return a;
    }
    case DRA_TAPE_OBJECT: {
        json_t *o = json_object();
        for (uint32_t m = 0; m < k->n; m++) {
            const dra_tape_tok *key = &t->tok[(*i)++];
            json_t *v = build(t, i);
            size_t before = json_object_size(o);
            if (!v || json_object_setn_new_nocheck(o, key->v.s, key->n, v) != 0 || json_object_size(o) == before) {
                json_decref(o);
                return NULL; /* a duplicate key */
            }
        }
        return o;
    }
    }
    return NULL;
}

typedef struct key_ref {
    const char *s;
    uint32_t n;
} key_ref;

static int key_cmp(const void *a, const void *b)
{
    const key_ref *x = a, *y = b;
    int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

bool dra_tape_keys_unique(const dra_tape *t, size_t i)
{
    const dra_tape_tok *o = &t->tok[i];
    if (o->type != DRA_TAPE_OBJECT || o->n < 2)
        return true;
    key_ref small[16], *k = o->n <= 16 ? small : dra_xmalloc(o->n * sizeof *k);
    size_t j = i + 1;
    for (uint32_t m = 0; m < o->n; m++) {
        k[m] = (key_ref){t->tok[j].v.s, t->tok[j].n};
        j = dra_tape_skip(t, j + 1);
    }
    bool unique = true;
    if (o->n <= 16) {
        for (uint32_t a = 1; unique && a < o->n; a++)
            for (uint32_t b = 0; unique && b < a; b++)
                unique = k[a].n != k[b].n || memcmp(k[a].s, k[b].s, k[a].n) != 0;
    } else {
        qsort(k, o->n, sizeof *k, key_cmp);
        for (uint32_t a = 1; unique && a < o->n; a++)
            unique = key_cmp(&k[a - 1], &k[a]) != 0;
        free(k);
    }
    return unique;
}

json_t *dra_tape_tree(const dra_tape *t, size_t i)
{
    return build(t, &i);
}

void dra_tape_free(dra_tape *t)
{
    free(t->tok);
    dra_arena_free(&t->arena);
    dra_buf_free(&t->scratch);
    *t = (dra_tape)DRA_TAPE_INIT;
}
