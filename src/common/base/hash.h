/* Hashing and the string -> value map: the one copy for the whole library.
 *
 * FNV-1a (64-bit) with named constants.  dra_strmap is an open-addressing
 * map from byte strings to intptr_t values (an index, a pointer).  It
 * borrows its keys: they must outlive the map (arena or JSON strings).  A
 * zero-initialised dra_strmap is empty; dra_strmap_free() releases its table
 * (the map is reusable after).  Never fails (aborts on OOM).  Iteration order
 * is the table's, not insertion order: keep an array beside the map when the
 * order matters.
 */
#ifndef DRA_BASE_HASH_H
#define DRA_BASE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DRA_FNV64_OFFSET UINT64_C(14695981039346656037) /* FNV-1a 64-bit offset basis */
#define DRA_FNV64_PRIME UINT64_C(1099511628211)
/* The offset basis with its last digit lost.  Printed share IDs
 * (dra_alloc_share_id) were derived from it and stay stable; use it nowhere
 * else. */
#define DRA_FNV64_LEGACY_SEED UINT64_C(1469598103934665603)

/* h = FNV-1a of n bytes at p, continuing from h (start with DRA_FNV64_OFFSET). */
static inline uint64_t dra_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * DRA_FNV64_PRIME;
    return h;
}

/* The same over a NUL-terminated string (the NUL not included). */
static inline uint64_t dra_fnv1a_str(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * DRA_FNV64_PRIME;
    return h;
}

/* FNV-1a 32-bit (Go's hash/fnv New32a: the Deployment controller's
 * pod-template-hash) over a NUL-terminated string. */
#define DRA_FNV32_OFFSET UINT32_C(2166136261)
#define DRA_FNV32_PRIME UINT32_C(16777619)
static inline uint32_t dra_fnv1a32_str(uint32_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * DRA_FNV32_PRIME;
    return h;
}

/* FNV-1a 128-bit (offset basis 0x6c62272e07bb014262b821756295c58d, prime
 * 2^88 + 0x13b), as two 64-bit halves, for keys kept as hashes alone: n
 * distinct keys, if the hash behaves as a random function, all differ but
 * with probability at most n(n-1)/2 * 2^-128 (below 2^-68 for n = 2^30).
 * Not a defence against input crafted to collide (FNV is not keyed). */
typedef struct dra_hash128 {
    uint64_t hi, lo;
} dra_hash128;
#define DRA_FNV128_OFFSET ((dra_hash128){UINT64_C(0x6c62272e07bb0142), UINT64_C(0x62b821756295c58d)})

/* h = FNV-1a 128 of n bytes at p, continuing from h. */
static inline dra_hash128 dra_fnv1a128(dra_hash128 h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h.lo ^= s[i];
        /* h * (2^88 + 0x13b) mod 2^128: the low half times 0x13b with its
         * carry, plus the low half shifted up by 88 */
        uint64_t a = h.lo >> 32, b = h.lo & 0xffffffffu;
        uint64_t bl = b * 0x13b, ah = a * 0x13b + (bl >> 32);
        uint64_t lo = (ah << 32) | (bl & 0xffffffffu);
        h.hi = h.hi * 0x13b + (ah >> 32) + (h.lo << 24);
        h.lo = lo;
    }
    return h;
}

static inline bool dra_hash128_eq(dra_hash128 a, dra_hash128 b)
{
    return a.hi == b.hi && a.lo == b.lo;
}

/* An ordered set of strings held compactly: each distinct string once, its
 * bytes copied into one buffer (NUL-terminated), 4 bytes of index a slot
 * (at most half full) and 4 bytes of order a string.  For large sets of
 * short names (a node name per ResourceSlice of a fleet); at most 2^32-1
 * strings and 4 GiB of text.  Zero-initialised is empty; dra_strset_free()
 * releases it (reusable after).  Never fails (aborts on OOM). */
typedef struct dra_strset {
    char *text; /* the strings, NUL-terminated, in insertion order */
    size_t len, cap;
    uint32_t *off;  /* off[i]: where string i starts in text */
    size_t n;       /* strings */
    uint32_t *slot; /* open addressing: 0 = free, else i + 1 */
    size_t nslot;   /* 0 or a power of two */
} dra_strset;

/* Add s (n bytes, no NUL inside) when absent; returns its ordinal, new or
 * old, and *added (may be NULL) says which. */
size_t dra_strset_add(dra_strset *set, const char *s, size_t n, bool *added);
/* String i (i < set->n), valid until the next add or the free. */
static inline const char *dra_strset_at(const dra_strset *set, size_t i)
{
    return set->text + set->off[i];
}
void dra_strset_free(dra_strset *set);

typedef struct dra_strmap_entry {
    const char *key; /* borrowed; NULL = free slot */
    size_t len;
    uint64_t hash;
    intptr_t val;
} dra_strmap_entry;

typedef struct dra_strmap {
    dra_strmap_entry *e;
    size_t n, cap; /* cap is 0 or a power of two */
} dra_strmap;

/* Lookup; true and *val (may be NULL) when found. */
bool dra_strmap_get(const dra_strmap *m, const char *key, size_t len, intptr_t *val);
/* Insert or replace. */
void dra_strmap_put(dra_strmap *m, const char *key, size_t len, intptr_t val);
/* Insert when absent and return false; when present keep the old value,
 * store it in *old (may be NULL) and return true. */
bool dra_strmap_add(dra_strmap *m, const char *key, size_t len, intptr_t val, intptr_t *old);
/* Make room for n entries without growing again. */
void dra_strmap_reserve(dra_strmap *m, size_t n);
/* Whether every key still holds the bytes it was added with (it hashes as
 * it did then).  A key freed or written since fails this, or, under
 * AddressSanitizer, the read reports it: DRA_ASSERT(dra_strmap_keys_intact(m))
 * checks that a map's keys outlive it.  Time: the keys' length. */
bool dra_strmap_keys_intact(const dra_strmap *m);
void dra_strmap_free(dra_strmap *m);

/* Interning: s (NULL gives NULL) as one copy in arena per distinct string,
 * m mapping each copy to itself.  Equal strings come back as one pointer,
 * valid while the arena lives. */
struct dra_arena;
const char *dra_strmap_intern(dra_strmap *m, struct dra_arena *arena, const char *s);

#endif
