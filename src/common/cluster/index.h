/* A small hash index for the claim-lifecycle code: keys -> lists of
 * positions (size_t), in the order they were added.
 *
 * The lifecycle entry points run over whole cluster dumps (5,000 pods and
 * more), so every "which claim has this name / this owner / this object"
 * question must be a lookup, not a scan.  A key is a one-byte tag (which
 * question) plus one or two byte strings; the index copies what it keeps.
 * "First wins" rules of upstream (first claim in input order) are the head
 * of the list.
 *
 * Ownership: a dra_lc_index owns its memory; dra_lc_index_free() releases it
 * (zero-initialised = empty, reusable after free).  Positions are plain
 * numbers: what they index is up to the caller.
 */
#ifndef DRA_CLUSTER_INDEX_H
#define DRA_CLUSTER_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dra_lc_slot dra_lc_slot;
typedef struct dra_lc_entry dra_lc_entry;

/* 8 bytes a slot (at most 3/4 full), 12 bytes a key and its bytes, 12
 * bytes a value: at most 2^32-2 keys, values and bytes of keys (aborts past
 * them, as on OOM). */
typedef struct dra_lc_index {
    dra_lc_slot *slots; /* open addressing, power-of-two size */
    size_t cap;
    dra_lc_entry *entries; /* the keys in the order added */
    size_t nentries;
    unsigned char *text; /* the keys' bytes, one after another */
    size_t textlen, textcap;
    size_t *vals; /* value lists: vals[i] then node next[i] (number + 1) */
    uint32_t *next;
    size_t nnodes, capnodes;
} dra_lc_index;

/* Append val to the list of key (tag, a, b); b may be NULL (= ""). */
void dra_lc_index_add(dra_lc_index *ix, int tag, const char *a, const char *b, size_t val);
/* The same keyed by a pointer's value (object identity). */
void dra_lc_index_add_ptr(dra_lc_index *ix, int tag, const void *p, size_t val);

/* Iterate the values of a key: `for (size_t it = dra_lc_index_find(...), v;
 * dra_lc_index_next(ix, &it, &v);)`.  An iterator of 0 is the end. */
size_t dra_lc_index_find(const dra_lc_index *ix, int tag, const char *a, const char *b);
size_t dra_lc_index_find_ptr(const dra_lc_index *ix, int tag, const void *p);
bool dra_lc_index_next(const dra_lc_index *ix, size_t *it, size_t *val);

/* The first value of a key; false when the key is absent. */
bool dra_lc_index_first(const dra_lc_index *ix, int tag, const char *a, const char *b, size_t *val);
bool dra_lc_index_first_ptr(const dra_lc_index *ix, int tag, const void *p, size_t *val);

void dra_lc_index_free(dra_lc_index *ix);

#endif
