/* Hash index of positions.  See index.h. */
#include "index.h"
#include "../base/hash.h"

#include <stdlib.h>
#include <string.h>

#include "../base/error.h"

struct dra_lc_slot {
    uint64_t hash;
    const unsigned char *key; /* tag, a, 0, b (in the arena); NULL = free slot */
    size_t len;
    size_t head, tail; /* node numbers + 1 */
};

struct dra_lc_node {
    size_t val;
    size_t next; /* node number + 1, 0 = end */
};

/* A key as parts, so that lookups need no copy. */
typedef struct key {
    unsigned char tag;
    const void *a, *b;
    size_t alen, blen;
} key;

static uint64_t key_hash(const key *k)
{
    uint64_t h = dra_fnv1a(DRA_FNV64_OFFSET, &k->tag, 1);
    h = dra_fnv1a(h, k->a, k->alen);
    h = dra_fnv1a(h, "", 1);
    return dra_fnv1a(h, k->b, k->blen);
}

static bool key_eq(const dra_lc_slot *s, uint64_t h, const key *k)
{
    if (s->hash != h || s->len != 2 + k->alen + k->blen || s->key[0] != k->tag)
        return false;
    const unsigned char *p = s->key + 1;
    return memcmp(p, k->a, k->alen) == 0 && p[k->alen] == 0 && memcmp(p + k->alen + 1, k->b, k->blen) == 0;
}

static key str_key(int tag, const char *a, const char *b)
{
    a = a ? a : "";
    b = b ? b : "";
    return (key){(unsigned char)tag, a, b, strlen(a), strlen(b)};
}

static key ptr_key(int tag, const void *const *p)
{
    return (key){(unsigned char)tag, p, "", sizeof *p, 0};
}

static dra_lc_slot *lookup(const dra_lc_index *ix, const key *k, uint64_t h)
{
    if (!ix->cap)
        return NULL;
    size_t mask = ix->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        dra_lc_slot *s = &ix->slots[i];
        if (!s->key || key_eq(s, h, k))
            return s;
    }
}

static void grow(dra_lc_index *ix)
{
    size_t ncap = ix->cap ? ix->cap * 2 : 64;
    dra_lc_slot *ns = dra_xcalloc(ncap, sizeof *ns);
    for (size_t i = 0; i < ix->cap; i++) {
        dra_lc_slot *s = &ix->slots[i];
        if (!s->key)
            continue;
        size_t j = s->hash & (ncap - 1);
        while (ns[j].key)
            j = (j + 1) & (ncap - 1);
        ns[j] = *s;
    }
    free(ix->slots);
    ix->slots = ns;
    ix->cap = ncap;
}

static void add(dra_lc_index *ix, const key *k, size_t val)
{
    if ((ix->used + 1) * 4 > ix->cap * 3)
        grow(ix);
    uint64_t h = key_hash(k);
    dra_lc_slot *s = lookup(ix, k, h);
    if (ix->nnodes == ix->capnodes) {
        ix->capnodes = ix->capnodes ? ix->capnodes * 2 : 64;
        ix->nodes = dra_xrealloc(ix->nodes, ix->capnodes * sizeof *ix->nodes);
    }
    ix->nodes[ix->nnodes] = (dra_lc_node){val, 0};
    size_t node = ++ix->nnodes;
    if (s->key) {
        ix->nodes[s->tail - 1].next = node;
        s->tail = node;
        return;
    }
    unsigned char *kb = dra_arena_alloc(&ix->keys, 2 + k->alen + k->blen);
    kb[0] = k->tag;
    memcpy(kb + 1, k->a, k->alen);
    kb[1 + k->alen] = 0;
    memcpy(kb + 2 + k->alen, k->b, k->blen);
    *s = (dra_lc_slot){h, kb, 2 + k->alen + k->blen, node, node};
    ix->used++;
}

void dra_lc_index_add(dra_lc_index *ix, int tag, const char *a, const char *b, size_t val)
{
    key k = str_key(tag, a, b);
    add(ix, &k, val);
}

void dra_lc_index_add_ptr(dra_lc_index *ix, int tag, const void *p, size_t val)
{
    key k = ptr_key(tag, &p);
    add(ix, &k, val);
}

static size_t find(const dra_lc_index *ix, const key *k)
{
    const dra_lc_slot *s = lookup(ix, k, key_hash(k));
    return s && s->key ? s->head : 0;
}

size_t dra_lc_index_find(const dra_lc_index *ix, int tag, const char *a, const char *b)
{
    key k = str_key(tag, a, b);
    return find(ix, &k);
}

size_t dra_lc_index_find_ptr(const dra_lc_index *ix, int tag, const void *p)
{
    key k = ptr_key(tag, &p);
    return find(ix, &k);
}

bool dra_lc_index_next(const dra_lc_index *ix, size_t *it, size_t *val)
{
    if (!*it)
        return false;
    const dra_lc_node *n = &ix->nodes[*it - 1];
    *val = n->val;
    *it = n->next;
    return true;
}

bool dra_lc_index_first(const dra_lc_index *ix, int tag, const char *a, const char *b, size_t *val)
{
    size_t it = dra_lc_index_find(ix, tag, a, b);
    return dra_lc_index_next(ix, &it, val);
}

bool dra_lc_index_first_ptr(const dra_lc_index *ix, int tag, const void *p, size_t *val)
{
    size_t it = dra_lc_index_find_ptr(ix, tag, p);
    return dra_lc_index_next(ix, &it, val);
}

void dra_lc_index_free(dra_lc_index *ix)
{
    free(ix->slots);
    free(ix->nodes);
    dra_arena_free(&ix->keys);
    memset(ix, 0, sizeof *ix);
}
