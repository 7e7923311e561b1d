/* Fast JSON documents into jansson trees; see jparse.h. */
#include "jparse.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/utf8.h"
#include "jalloc.h"

typedef struct jp {
    const char *p, *end;
    int max_depth;
    dra_buf scratch;       /* a string with escapes, decoded */
    dra_json_interner *in; /* shared leaves, or NULL */
    bool hashing;          /* h: the content hash of the value just parsed */
    uint64_t h;
    bool as_jansson; /* refuse what jansson refuses and Go reads (dra_json_loadb) */
} jp;

/* A leaf of a bounded interner, found by its text. */
typedef struct leaf_entry {
    uint64_t key; /* hash of the text; 0: a free slot */
    char *text;
    size_t len;
    json_t *v;        /* one reference */
    uint64_t content; /* dra_json_content_hash(v) */
} leaf_entry;

struct dra_json_interner {
    json_t **v; /* open addressing; NULL = free */
    uint64_t *hash;
    size_t n, cap; /* cap: 0 or a power of two */
    /* bounded (dra_json_interner_bounded): leaves by text, the above unused */
    size_t max;       /* 0: unbounded, by content */
    size_t mask;      /* leaf_slots(max) - 1, for leaf and seen */
    leaf_entry *leaf; /* open addressing over leaf_slots(max) */
    size_t nleaf;
    uint64_t *seen;       /* hashes of texts seen once, each in one of two places (leaf_slots(max)) */
    uint32_t tries, hits; /* lookups in the current window, and how many found their leaf */
    uint32_t rest;        /* lookups left out: a stream whose values do not repeat */
};

/* Lookups are counted in windows of LEAF_WINDOW: when fewer than one in
 * eight of a window finds its leaf, the next LEAF_REST are not made. */
#define LEAF_WINDOW 1024
#define LEAF_REST 16384

/* Slots for a bounded interner of max leaves: a power of two, at most half full. */
static size_t leaf_slots(size_t max)
{
    size_t n = 16;
    while (n < 2 * max)
        n *= 2;
    return n;
}

static void leaves_clear(dra_json_interner *in)
{
    for (size_t i = 0; i <= in->mask; i++) {
        if (!in->leaf[i].key)
            continue;
        /* shared leaves are never written (jparse.h) */
        DRA_ASSERT(dra_json_content_hash(in->leaf[i].v) == in->leaf[i].content);
        json_decref(in->leaf[i].v);
        free(in->leaf[i].text);
        in->leaf[i] = (leaf_entry){0};
    }
    in->nleaf = 0;
}

/* ---- content hash (dra_json_content_hash) ---------------------------------- */

/* One word into h (a multiply and a shift: this runs over every key and
 * string of the input). */
static inline uint64_t mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * DRA_FNV64_PRIME;
    return h ^ (h >> 32);
}

/* n bytes into h, eight at a time; the tail zero-padded, the length last. */
static inline uint64_t hash_words(uint64_t h, const char *p, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = mix(h, w);
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, p + i, n - i);
        h = mix(h, w);
    }
    return mix(h, n);
}

/* The parts of an object's hash: each member's, summed (so that order does
 * not count), then the sum. */
static inline uint64_t member_hash(const char *k, size_t kl, uint64_t vh)
{
    uint64_t m = hash_words(DRA_FNV64_OFFSET, k, kl) * 31 + vh;
    return m ^ (m >> 29);
}

static inline uint64_t seed(json_type t)
{
    return DRA_FNV64_OFFSET ^ (uint64_t)t;
}

/* A scalar's hash (strings hash their bytes). */
static uint64_t scalar_hash(const json_t *v)
{
    uint64_t h = seed(json_typeof(v));
    switch (json_typeof(v)) {
    case JSON_STRING: return hash_words(h, json_string_value(v), json_string_length(v));
    case JSON_INTEGER: return mix(h, (uint64_t)json_integer_value(v));
    case JSON_REAL: {
        double d = json_real_value(v);
        uint64_t w;
        memcpy(&w, &d, sizeof w);
        return mix(h, w);
    }
    default: return h;
    }
}

uint64_t dra_json_content_hash(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        uint64_t sum = 0;
        for (void *it = json_object_iter((json_t *)v); it; it = json_object_iter_next((json_t *)v, it))
            sum += member_hash(json_object_iter_key(it), json_object_iter_key_len(it),
                               dra_json_content_hash(json_object_iter_value(it)));
        return mix(seed(JSON_OBJECT), sum);
    }
    case JSON_ARRAY: {
        uint64_t h = seed(JSON_ARRAY);
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x)
            h = mix(h, dra_json_content_hash(x));
        return h;
    }
    default: return scalar_hash(v);
    }
}

static void skip_space(jp *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
}

static int hex4(const char *q, const char *end)
{
    if (end - q < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = q[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* A high bit in each byte of w that is a quote, a backslash, a control
 * character or non-ASCII: exact for the lowest such byte (a borrow only
 * runs upwards, so bits above it may be spurious). */
static inline uint64_t special_bytes(uint64_t w)
{
    uint64_t quote = w ^ ONES * '"', bslash = w ^ ONES * '\\';
    return ((quote - ONES) & ~quote) | ((bslash - ONES) & ~bslash) | ((w - ONES * 0x20) & ~w) | w;
}

/* The offset of the lowest byte whose high bit is set in m (not 0). */
static inline unsigned first_byte(uint64_t m)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (unsigned)__builtin_clzll(m) >> 3;
#else
    return (unsigned)__builtin_ctzll(m) >> 3;
#endif
}

const char *dra_json_string_stop(const char *p, const char *end)
{
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t quote = w ^ ONES * '"', bslash = w ^ ONES * '\\';
        uint64_t m = (((quote - ONES) & ~quote) | ((bslash - ONES) & ~bslash)) & HIGHS;
        if (m)
            return p + first_byte(m);
        p += 8;
    }
    while (p < end && *p != '"' && *p != '\\')
        p++;
    return p;
}

size_t dra_json_space_len(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t'))
        i++;
    return i;
}

static bool string_escaped(jp *s, const char *q, bool high, const char **out, size_t *len);

/* Append n bytes at p to b as Go's encoding/json reads them: each byte
 * that starts no valid UTF-8 sequence becomes U+FFFD (decode.go unquote). */
static void append_valid(dra_buf *b, const char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t r;
        size_t w = dra_utf8_decode(p + i, n - i, &r);
        if (w == 0) {
            char u[4];
            dra_buf_append(b, u, dra_utf8_encode(DRA_RUNE_ERROR, u));
            i++;
        } else {
            dra_buf_append(b, p + i, w);
            i += w;
        }
    }
}

/* The string whose opening quote was just passed: *out points into the text
 * (no escapes, valid UTF-8) or into s->scratch (valid until the next
 * string). */
static bool string(jp *s, const char **out, size_t *len)
{
    const char *q = s->p, *end = s->end;
    bool high = false;
    while (q < end) {
        /* Eight bytes at a time to the next byte that needs a look. */
        while (end - q >= 8) {
            uint64_t w;
            memcpy(&w, q, 8);
            uint64_t m = special_bytes(w) & HIGHS;
            if (m) {
                q += first_byte(m);
                break;
            }
            q += 8;
        }
        if (q >= end)
            break;
        unsigned char c = (unsigned char)*q;
        if (c == '"') {
            *out = s->p;
            *len = (size_t)(q - s->p);
            s->p = q + 1;
            if (high && !dra_utf8_valid(*out, *len)) {
                if (s->as_jansson)
                    return false;
                dra_buf_reset(&s->scratch);
                append_valid(&s->scratch, *out, *len);
                *out = dra_buf_str(&s->scratch);
                *len = s->scratch.len;
            }
            return true;
        }
        if (c == '\\')
            return string_escaped(s, q, high, out, len);
        if (c < 0x20)
            return false;
        high |= c >= 0x80;
        q++;
    }
    return false;
}

/* The rest of a string from its first backslash at q, decoded into the
 * scratch buffer (kept apart so that the common case stays small). */
static __attribute__((noinline)) bool string_escaped(jp *s, const char *q, bool high, const char **out, size_t *len)
{
    const char *end = s->end;
    dra_buf *b = &s->scratch;
    dra_buf_reset(b);
    dra_buf_append(b, s->p, (size_t)(q - s->p));
    while (q < end) {
        unsigned char c = (unsigned char)*q;
        if (c == '"') {
            s->p = q + 1;
            if (high && !dra_utf8_valid(b->data, b->len)) {
                if (s->as_jansson)
                    return false;
                char *raw = dra_xstrndup(b->data, b->len);
                size_t n = b->len;
                dra_buf_reset(b);
                append_valid(b, raw, n);
                free(raw);
            }
            *out = dra_buf_str(b);
            *len = b->len;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c != '\\') {
            const char *run = q;
            while (q < end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20) {
                high |= (unsigned char)*q >= 0x80;
                q++;
            }
            dra_buf_append(b, run, (size_t)(q - run));
            continue;
        }
        if (++q >= end)
            return false;
        char e = *q++;
        switch (e) {
        case '"':
        case '\\':
        case '/': dra_buf_putc(b, e); break;
        case 'b': dra_buf_putc(b, '\b'); break;
        case 'f': dra_buf_putc(b, '\f'); break;
        case 'n': dra_buf_putc(b, '\n'); break;
        case 'r': dra_buf_putc(b, '\r'); break;
        case 't': dra_buf_putc(b, '\t'); break;
        case 'u': {
            int cp = hex4(q, end);
            if (cp <= 0) /* invalid, or \u0000 (jansson refuses it) */
                return false;
            q += 4;
            /* a surrogate not in a valid pair is U+FFFD, as Go reads it */
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                if (s->as_jansson)
                    return false;
                cp = DRA_RUNE_ERROR;
            } else if (cp >= 0xD800 && cp <= 0xDBFF) {
                int lo = end - q >= 6 && q[0] == '\\' && q[1] == 'u' ? hex4(q + 2, end) : -1;
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    q += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (s->as_jansson) {
                    return false;
                } else {
                    cp = DRA_RUNE_ERROR;
                }
            }
            char u[4];
            dra_buf_append(b, u, dra_utf8_encode((uint32_t)cp, u));
            break;
        }
        default: return false;
        }
    }
    return false;
}

int dra_json_scan_number(const char **p, const char *end, json_int_t *ival, double *dval)
{
    const char *start = *p, *q = start;
    bool real = false;
    if (q < end && *q == '-')
        q++;
    if (q < end && *q == '0')
        q++;
    else if (q < end && *q >= '1' && *q <= '9')
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    else
        return 0;
    if (q < end && *q == '.') {
        real = true;
        q++;
        if (q >= end || *q < '0' || *q > '9')
            return 0;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        real = true;
        q++;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        if (q >= end || *q < '0' || *q > '9')
            return 0;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    char small[64];
    size_t n = (size_t)(q - start);
    char *buf = n < sizeof small ? small : dra_xmalloc(n + 1);
    memcpy(buf, start, n);
    buf[n] = 0;
    *p = q;
    int kind = 0;
    errno = 0;
    if (!real) {
        long long i = strtoll(buf, NULL, 10);
        if (errno != ERANGE) {
            *ival = (json_int_t)i;
            kind = 1;
        }
    }
    if (!kind) {
        /* Go's decoders keep a number as its text (json.Number) and refuse
         * it only where a field's type cannot hold it: an integer beyond
         * int64 is kept as a real, a real beyond double as the largest
         * double of its sign (the object's checks refuse it, or echo its
         * text, dra_obj_field_literal) */
        double d = strtod(buf, NULL);
        *dval = isinf(d) ? copysign(DBL_MAX, d) : d;
        kind = 2;
    }
    if (buf != small)
        free(buf);
    return kind;
}

/* jansson reads the number text t[0..n), read as the real d, as d: it
 * refuses an integer beyond int64 and a real beyond double (read as
 * DBL_MAX; one that is DBL_MAX is left to jansson too). */
bool dra_json_jansson_real(const char *t, size_t n, double d)
{
    return (memchr(t, '.', n) || memchr(t, 'e', n) || memchr(t, 'E', n)) && fabs(d) != DBL_MAX;
}

static json_t *number(jp *s)
{
    json_int_t i;
    double d;
    const char *start = s->p;
    switch (dra_json_scan_number(&s->p, s->end, &i, &d)) {
    case 1: return json_integer(i);
    case 2:
        if (s->as_jansson && !dra_json_jansson_real(start, (size_t)(s->p - start), d))
            return NULL;
        return json_real(d);
    default: return NULL;
    }
}

static bool scan_string(const char **p, const char *end, dra_buf *scratch, const char **out, size_t *len,
                        bool as_jansson)
{
    jp s = {.p = *p, .end = end, .scratch = *scratch, .as_jansson = as_jansson};
    bool ok = string(&s, out, len);
    *scratch = s.scratch;
    *p = s.p;
    return ok;
}

bool dra_json_scan_string(const char **p, const char *end, dra_buf *scratch, const char **out, size_t *len)
{
    return scan_string(p, end, scratch, out, len, false);
}

bool dra_json_scan_string_jansson(const char **p, const char *end, dra_buf *scratch, const char **out, size_t *len)
{
    return scan_string(p, end, scratch, out, len, true);
}

/* Where an object sits, for sharing (see dra_json_intern): the value of
 * an "attributes" or "capacity" member, or a value inside one of those. */
enum { AT_NONE, AT_ATTRS, AT_CAPS, AT_ATTR_VALUE, AT_CAP_VALUE };

static json_t *value(jp *s, int depth, int at);

static int child_at(int at, const char *k, size_t kl)
{
    if (at == AT_ATTRS)
        return AT_ATTR_VALUE;
    if (at == AT_CAPS)
        return AT_CAP_VALUE;
    if (kl == 10 && memcmp(k, "attributes", 10) == 0)
        return AT_ATTRS;
    if (kl == 8 && memcmp(k, "capacity", 8) == 0)
        return AT_CAPS;
    return AT_NONE;
}

/* ---- leaves by text (bounded interners) ---------------------------------- */

#define LEAF_TEXT_MAX 160 /* longer leaves are not kept */

static uint64_t leaf_hash(json_t *obj, dra_share kind);
static uint64_t shared_hash(const dra_json_interner *in, json_t *v);

/* The closing brace of the object at p whose members are objects of
 * scalars (a capacity map), brackets counted outside strings; NULL when
 * it nests deeper, holds an array or runs past LEAF_TEXT_MAX. */
static const char *map_end(const char *p, const char *end)
{
    const char *limit = end - p > LEAF_TEXT_MAX ? p + LEAF_TEXT_MAX : end;
    int depth = 0;
    for (const char *q = p; q < limit; q++) {
        char c = *q;
        if (c == '"') {
            for (q++; q < limit && *q != '"'; q++)
                if (*q == '\\')
                    q++;
        } else if (c == '{') {
            if (++depth > 2)
                return NULL;
        } else if (c == '}') {
            if (--depth == 0)
                return q;
        } else if (c == '[') {
            return NULL;
        }
    }
    return NULL;
}

/* The leaf (map: the capacity map) whose text starts at s->p ('{'), when a
 * bounded interner holds it: s->p moves past it, s->h is its content hash.
 * Otherwise NULL, and *key and *len say which text to remember once it is
 * parsed (*key 0: none).
 *
 * A leaf's text is taken up to its first '}': if that is a kept leaf's
 * whole text, a parse ends there too (the same bytes parse the same way),
 * so a match is that leaf even when this '}' sits inside a string; when it
 * does, or the object nests, the parse ends elsewhere and nothing is kept. */
static json_t *leaf_lookup(jp *s, bool map, uint64_t *key, size_t *len)
{
    *key = 0;
    dra_json_interner *in = s->in;
    if (in->rest) {
        in->rest--;
        return NULL;
    }
    if (++in->tries == LEAF_WINDOW) {
        if (in->hits < LEAF_WINDOW / 8)
            in->rest = LEAF_REST;
        in->tries = in->hits = 0;
    }
    const char *p = s->p;
    size_t room = (size_t)(s->end - p) < LEAF_TEXT_MAX ? (size_t)(s->end - p) : LEAF_TEXT_MAX;
    const char *q = map ? map_end(p, s->end) : memchr(p, '}', room);
    if (!q)
        return NULL;
    size_t n = (size_t)(q + 1 - p);
    uint64_t h = hash_words(DRA_FNV64_OFFSET, p, n) | 1;
    size_t mask = in->mask;
    for (size_t i = (size_t)h & mask; in->leaf[i].key; i = (i + 1) & mask) {
        const leaf_entry *e = &in->leaf[i];
        if (e->key == h && e->len == n && memcmp(e->text, p, n) == 0) {
            /* handed out again: it must still be what its text says */
            DRA_ASSERT(dra_json_content_hash(e->v) == e->content);
            s->p = q + 1;
            s->h = e->content;
            in->hits++;
            return json_incref(e->v);
        }
    }
    *key = h;
    *len = n;
    return NULL;
}

/* Whether o is a capacity map of shareable capacity values. */
static bool capacity_map(json_t *o)
{
    size_t n = json_object_size(o);
    if (n == 0 || n > 16)
        return false;
    for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it))
        if (!leaf_hash(json_object_iter_value(it), DRA_SHARE_CAPACITY))
            return false;
    return true;
}

/* o was parsed from the text of a leaf_lookup miss: kept when it is a
 * shareable leaf (or map of them) whose text was seen before (a text seen
 * once is only noted, so that values that never repeat cost no copies).
 * A full interner starts over. */
static void leaf_remember(jp *s, const char *text, uint64_t key, size_t len, json_t *o, int at)
{
    dra_json_interner *in = s->in;
    size_t mask = in->mask;
    /* seen once: noted in one of two places (two texts that share one
     * place do not keep pushing each other out) */
    uint64_t *a = &in->seen[key & mask], *b = &in->seen[(key >> 32) & mask];
    if (*a != key && *b != key) {
        *(*a < *b ? a : b) = key;
        return;
    }
    if (at == AT_CAPS ? !capacity_map(o)
                      : !leaf_hash(o, at == AT_ATTR_VALUE ? DRA_SHARE_ATTRIBUTE : DRA_SHARE_CAPACITY))
        return;
    if (in->nleaf >= in->max)
        leaves_clear(in);
    size_t i = (size_t)key & mask;
    while (in->leaf[i].key)
        i = (i + 1) & mask;
    /* kept past this document: out of the arena (jalloc.h) */
    in->leaf[i] = (leaf_entry){key, dra_xstrndup(text, len), len, dra_jalloc_keep(o),
                               s->hashing ? s->h : dra_json_content_hash(o)};
    in->nleaf++;
}

static json_t *object(jp *s, int depth, int at)
{
    if (depth > s->max_depth)
        return NULL;
    const char *start = s->p;
    uint64_t leaf_key = 0;
    size_t leaf_len = 0;
    if (s->in && s->in->max && (at == AT_ATTR_VALUE || at == AT_CAP_VALUE || at == AT_CAPS) &&
        depth >= DRA_JSON_INTERN_DEPTH) {
        json_t *hit = leaf_lookup(s, at == AT_CAPS, &leaf_key, &leaf_len);
        if (hit)
            return hit;
    }
    json_t *o = json_object();
    uint64_t sum = 0;
    s->h = mix(seed(JSON_OBJECT), 0);
    s->p++;
    skip_space(s);
    if (s->p < s->end && *s->p == '}') {
        s->p++;
        return o;
    }
    char *owned = NULL;
    for (;;) {
        if (s->p >= s->end || *s->p != '"')
            break;
        s->p++;
        const char *k;
        size_t kl;
        if (!string(s, &k, &kl))
            break;
        if (k == s->scratch.data) /* the value's strings reuse the scratch */
            k = owned = dra_xstrndup(k, kl);
        skip_space(s);
        if (s->p >= s->end || *s->p != ':')
            break;
        s->p++;
        skip_space(s);
        json_t *v = value(s, depth + 1, child_at(at, k, kl));
        if (!v)
            break;
        if (s->hashing)
            sum += member_hash(k, kl, s->h);
        size_t before = json_object_size(o);
        if (json_object_setn_new_nocheck(o, k, kl, v) != 0 || json_object_size(o) == before)
            break; /* a duplicate key: jansson's error */
        free(owned);
        owned = NULL;
        skip_space(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            skip_space(s);
            continue;
        }
        if (s->p < s->end && *s->p == '}') {
            s->p++;
            s->h = mix(seed(JSON_OBJECT), sum);
            if (leaf_key && (size_t)(s->p - start) == leaf_len)
                leaf_remember(s, start, leaf_key, leaf_len, o, at);
            else if (s->in && !s->in->max && at != AT_NONE && depth >= DRA_JSON_INTERN_DEPTH)
                return dra_json_intern(s->in, o,
                                       at == AT_ATTR_VALUE  ? DRA_SHARE_ATTRIBUTE
                                       : at == AT_CAP_VALUE ? DRA_SHARE_CAPACITY
                                       : at == AT_CAPS      ? DRA_SHARE_CAPACITY_MAP
                                                            : DRA_SHARE_NONE);
            return o;
        }
        break;
    }
    free(owned);
    json_decref(o);
    return NULL;
}

static json_t *array(jp *s, int depth)
{
    if (depth > s->max_depth)
        return NULL;
    json_t *a = json_array();
    uint64_t h = seed(JSON_ARRAY);
    s->h = h;
    s->p++;
    skip_space(s);
    if (s->p < s->end && *s->p == ']') {
        s->p++;
        return a;
    }
    for (;;) {
        json_t *v = value(s, depth + 1, AT_NONE);
        if (!v || json_array_append_new(a, v) != 0)
            break;
        h = mix(h, s->h);
        skip_space(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            skip_space(s);
            continue;
        }
        if (s->p < s->end && *s->p == ']') {
            s->p++;
            s->h = h;
            return a;
        }
        break;
    }
    json_decref(a);
    return NULL;
}

static json_t *literal(jp *s, const char *word, size_t n, json_t *v)
{
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
        return NULL;
    s->p += n;
    return v;
}

static json_t *value(jp *s, int depth, int at)
{
    if (s->p >= s->end)
        return NULL;
    switch (*s->p) {
    case '{': return object(s, depth, at);
    case '[': return array(s, depth);
    case '"': {
        s->p++;
        const char *v;
        size_t n;
        if (!string(s, &v, &n))
            return NULL;
        if (s->hashing)
            s->h = hash_words(seed(JSON_STRING), v, n);
        return json_stringn_nocheck(v, n);
    }
    case 't': s->h = seed(JSON_TRUE); return literal(s, "true", 4, json_true());
    case 'f': s->h = seed(JSON_FALSE); return literal(s, "false", 5, json_false());
    case 'n': s->h = seed(JSON_NULL); return literal(s, "null", 4, json_null());
    default: {
        json_t *v = number(s);
        if (v && s->hashing)
            s->h = scalar_hash(v);
        return v;
    }
    }
}

json_t *dra_json_parse(const char *p, size_t n, int max_depth, size_t *used)
{
    return dra_json_parse_shared(p, n, max_depth, used, NULL);
}

json_t *dra_json_read_compact(const char *p, size_t n)
{
    size_t used;
    json_t *v = dra_json_parse(p, n, 64, &used); /* the readers' nesting limit; deeper: jansson */
    return v ? v : json_loadb(p, n, JSON_ALLOW_NUL, NULL);
}

static json_t *parse(const char *p, size_t n, int max_depth, size_t *used, dra_json_interner *in, uint64_t *hash,
                     bool as_jansson)
{
    if (n == 0 || (p[0] != '{' && p[0] != '['))
        return NULL;
    jp s = {p, p + n, max_depth, DRA_BUF_INIT, in, hash != NULL, 0, as_jansson};
    /* an unbounded interner keeps what it shares for good: not in the arena */
    bool was = dra_jalloc_arena_set(!in || in->max);
    json_t *v = value(&s, 1, AT_NONE);
    dra_jalloc_arena_set(was);
    dra_buf_free(&s.scratch);
    if (v) {
        *used = (size_t)(s.p - p);
        if (hash)
            *hash = s.h;
    }
    return v;
}

json_t *dra_json_parse_shared(const char *p, size_t n, int max_depth, size_t *used, dra_json_interner *in)
{
    return parse(p, n, max_depth, used, in, NULL, false);
}

json_t *dra_json_parse_hashed(const char *p, size_t n, int max_depth, size_t *used, dra_json_interner *in,
                              uint64_t *hash)
{
    return parse(p, n, max_depth, used, in, hash, false);
}

/* The depth past which dra_json_loadb leaves a document to jansson (whose
 * own limit is 2048). */
#define LOADB_DEPTH 512

json_t *dra_json_loadb(const char *p, size_t n, size_t flags, json_error_t *err)
{
    DRA_ASSERT((flags & ~(size_t)JSON_REJECT_DUPLICATES) == 0);
    size_t i = dra_json_space_len(p, n), used = 0;
    json_t *v = parse(p + i, n - i, LOADB_DEPTH, &used, NULL, NULL, true);
    if (v) {
        i += used;
        if (dra_json_space_len(p + i, n - i) == n - i)
            return v;
        json_decref(v); /* more after the value: jansson's error */
    }
    return json_loadb(p, n, flags, err);
}

/* Past the array that starts at p (its brackets counted outside strings;
 * the parser checks its items later), or NULL when the text ends first. */
static const char *skip_array(const char *p, const char *end)
{
    long depth = 0;
    while (p < end) {
        char c = *p++;
        if (c == '"') {
            while ((p = dra_json_string_stop(p, end)) < end && *p == '\\')
                p += 2;
            if (p >= end)
                return NULL;
            p++;
        } else if (c == '[' || c == '{') {
            depth++;
        } else if (c == ']' || c == '}') {
            if (--depth == 0)
                return c == ']' ? p : NULL;
        }
    }
    return NULL;
}

json_t *dra_json_parse_envelope(const char *p, size_t n, int max_depth, size_t *used, size_t *items_off,
                                size_t *items_len)
{
    if (n == 0 || p[0] != '{')
        return NULL;
    jp s = {.p = p, .end = p + n, .max_depth = max_depth, .scratch = DRA_BUF_INIT};
    json_t *o = json_object();
    const char *items = NULL, *items_end = NULL;
    bool ok = false;
    s.p++;
    skip_space(&s);
    if (s.p < s.end && *s.p == '}') {
        s.p++;
        ok = true;
    }
    while (!ok) {
        if (s.p >= s.end || *s.p != '"')
            break;
        s.p++;
        const char *k;
        size_t kl;
        if (!string(&s, &k, &kl) || k == s.scratch.data) /* escaped keys: not an envelope */
            break;
        skip_space(&s);
        if (s.p >= s.end || *s.p != ':')
            break;
        s.p++;
        skip_space(&s);
        if (kl == 5 && memcmp(k, "items", 5) == 0 && s.p < s.end && *s.p == '[') {
            if (items || json_object_get(o, "items"))
                break; /* a duplicate key */
            items = s.p;
            items_end = skip_array(s.p, s.end);
            if (!items_end)
                break;
            s.p = items_end;
        } else {
            json_t *v = value(&s, 2, AT_NONE);
            if (!v)
                break;
            size_t before = json_object_size(o);
            if (json_object_setn_new_nocheck(o, k, kl, v) != 0 || json_object_size(o) == before ||
                (kl == 5 && memcmp(k, "items", 5) == 0 && items))
                break;
        }
        skip_space(&s);
        if (s.p < s.end && *s.p == ',') {
            s.p++;
            skip_space(&s);
            continue;
        }
        if (s.p < s.end && *s.p == '}') {
            s.p++;
            ok = true;
        }
        break;
    }
    dra_buf_free(&s.scratch);
    if (!ok || !items) {
        json_decref(o);
        return NULL;
    }
    *used = (size_t)(s.p - p);
    *items_off = (size_t)(items - p);
    *items_len = (size_t)(items_end - items);
    return o;
}

/* ---- shared leaves ---------------------------------------------------------- */

dra_json_interner *dra_json_interner_new(void)
{
    return dra_xcalloc(1, sizeof(dra_json_interner));
}

dra_json_interner *dra_json_interner_bounded(size_t max)
{
    dra_json_interner *in = dra_xcalloc(1, sizeof(dra_json_interner));
    in->max = max ? max : 1;
    in->mask = leaf_slots(in->max) - 1;
    in->leaf = dra_xcalloc(in->mask + 1, sizeof *in->leaf);
    in->seen = dra_xcalloc(in->mask + 1, sizeof *in->seen);
    return in;
}

void dra_json_interner_free(dra_json_interner *in)
{
    if (!in)
        return;
    /* Shared leaves are never written (jparse.h): each still hashes as it
     * did when it was shared (checked before any is released: a map's hash
     * is its leaves' addresses). */
    for (size_t i = 0; i < in->cap; i++)
        DRA_ASSERT(!in->v[i] || shared_hash(in, in->v[i]) == in->hash[i]);
    for (size_t i = 0; i < in->cap; i++)
        json_decref(in->v[i]);
    free(in->v);
    free(in->hash);
    if (in->max)
        leaves_clear(in);
    free(in->leaf);
    free(in->seen);
    free(in);
}

/* The hash of a shareable leaf ({"int"|"string"|"bool"|"version"|"value":
 * scalar}), or 0 when obj is not one. */
static uint64_t leaf_hash(json_t *obj, dra_share kind)
{
    if (json_object_size(obj) != 1)
        return 0;
    void *it = json_object_iter(obj);
    const char *k = json_object_iter_key(it);
    size_t kl = json_object_iter_key_len(it);
    bool attr = (kl == 3 && memcmp(k, "int", 3) == 0) || (kl == 6 && memcmp(k, "string", 6) == 0) ||
                (kl == 4 && memcmp(k, "bool", 4) == 0) || (kl == 7 && memcmp(k, "version", 7) == 0);
    bool cap = kl == 5 && memcmp(k, "value", 5) == 0;
    if (!(kind == DRA_SHARE_ATTRIBUTE ? attr : kind == DRA_SHARE_CAPACITY ? cap : attr || cap))
        return 0;
    json_t *v = json_object_iter_value(it);
    uint64_t h = dra_fnv1a(DRA_FNV64_OFFSET, k, kl);
    h = dra_fnv1a(h, &(int){json_typeof(v)}, sizeof(int));
    if (json_is_string(v))
        h = dra_fnv1a(h, json_string_value(v), json_string_length(v));
    else if (json_is_integer(v))
        h = dra_fnv1a(h, &(json_int_t){json_integer_value(v)}, sizeof(json_int_t));
    else if (!json_is_boolean(v))
        return 0;
    return h ? h : 1;
}

static void intern_grow(dra_json_interner *in)
{
    size_t oldcap = in->cap;
    json_t **ov = in->v;
    uint64_t *oh = in->hash;
    in->cap = oldcap ? oldcap * 2 : 256;
    in->v = dra_xcalloc(in->cap, sizeof *in->v);
    in->hash = dra_xcalloc(in->cap, sizeof *in->hash);
    for (size_t i = 0; i < oldcap; i++) {
        if (!ov[i])
            continue;
        size_t j = (size_t)oh[i] & (in->cap - 1);
        while (in->v[j])
            j = (j + 1) & (in->cap - 1);
        in->v[j] = ov[i];
        in->hash[j] = oh[i];
    }
    free(ov);
    free(oh);
}

/* Whether v is a leaf the interner shares (by address). */
static bool is_shared(const dra_json_interner *in, json_t *v)
{
    uint64_t h = in->cap ? leaf_hash(v, DRA_SHARE_CAPACITY) : 0;
    if (!h)
        return false;
    for (size_t j = (size_t)h & (in->cap - 1); in->v[j]; j = (j + 1) & (in->cap - 1))
        if (in->v[j] == v)
            return true;
    return false;
}

/* The hash of a small map whose values are all shared leaves (a device's
 * capacity: {"memory": {"value": "80Gi"}, ...}), from its keys and their
 * leaves' addresses; 0 when obj is not one. */
static uint64_t map_hash(const dra_json_interner *in, json_t *obj)
{
    size_t n = json_object_size(obj);
    if (n == 0 || n > 16)
        return 0;
    uint64_t h = DRA_FNV64_OFFSET ^ 0x6d6170; /* apart from the leaves' */
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        if (!is_shared(in, v))
            return 0;
        h = dra_fnv1a_str(h, k);
        uintptr_t a = (uintptr_t)v;
        h = dra_fnv1a(h, &a, sizeof a);
    }
    return h ? h : 1;
}

/* The hash an object was shared under: a leaf's, else a map's. */
static uint64_t shared_hash(const dra_json_interner *in, json_t *v)
{
    uint64_t h = leaf_hash(v, DRA_SHARE_NONE);
    return h ? h : map_hash(in, v);
}

/* Maps of shared leaves compare by their leaves' addresses. */
static bool same_map(json_t *a, json_t *b)
{
    if (json_object_size(a) != json_object_size(b))
        return false;
    const char *k;
    json_t *v;
    json_object_foreach(a, k, v) {
        if (json_object_get(b, k) != v)
            return false;
    }
    return true;
}

json_t *dra_json_intern(dra_json_interner *in, json_t *obj, dra_share kind)
{
    bool map = kind == DRA_SHARE_CAPACITY_MAP;
    uint64_t h = kind == DRA_SHARE_NONE ? 0 : map ? map_hash(in, obj) : leaf_hash(obj, kind);
    if (!h)
        return obj;
    if (2 * (in->n + 1) > in->cap)
        intern_grow(in);
    size_t j = (size_t)h & (in->cap - 1);
    for (; in->v[j]; j = (j + 1) & (in->cap - 1)) {
        if (in->hash[j] == h && (map ? same_map(in->v[j], obj) : json_equal(in->v[j], obj))) {
            json_decref(obj);
            return json_incref(in->v[j]);
        }
    }
    in->v[j] = json_incref(obj);
    in->hash[j] = h;
    in->n++;
    return obj;
}
