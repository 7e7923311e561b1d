/* The small string map and JSON getters of the allocator (defined in
 * world.c), usable by the engines above it (sched/) without the allocator's
 * private types.  Ownership: a map owns its entry array (amap_free) and
 * borrows its keys, which must outlive it; the getters borrow.
 */
#ifndef DRA_ALLOC_HELPERS_H
#define DRA_ALLOC_HELPERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- small string map (open addressing, arena keys) -------------------- */

typedef struct amap_entry {
    const char *key;
    size_t len;
    uint64_t hash;
    intptr_t val;
} amap_entry;

typedef struct amap {
    amap_entry *e;
    size_t n, cap; /* cap is a power of two */
} amap;

uint64_t amap_hash(const char *s, size_t len);
/* Lookup; returns true and sets *val when found. */
bool amap_get(const amap *m, const char *key, size_t len, intptr_t *val);
/* Insert or replace; the key must stay valid (arena or JSON). */
void amap_put(amap *m, const char *key, size_t len, intptr_t val);
void amap_free(amap *m);

/* ---- JSON (NULL-safe; a JSON null reads as absent; one key, no path) ---- */

const json_t *al_jget(const json_t *o, const char *key);
const char *al_jstr(const json_t *o, const char *key);
bool al_jbool(const json_t *o, const char *key);

#endif
