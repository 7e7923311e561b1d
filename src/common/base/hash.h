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
void dra_strmap_free(dra_strmap *m);

#endif
