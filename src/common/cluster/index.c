/* Hash index of positions.  See index.h. */
#include "index.h"
#include "../base/hash.h"

#include <stdlib.h>
#include <string.h>

#include "../base/error.h"

/* A slot is 8 bytes: the key's 32-bit hash and its entry number + 1 (0 =
 * free).  An entry is where its key starts in the text (its length is up to
 * the next entry's start) and its value list, as node numbers + 1.  The
 * values and the links of the nodes are two arrays (8 + 4 bytes a value). */
struct dra_lc_slot {
    uint32_t hash;
    uint32_t entry;
};

struct dra_lc_entry {
    uint32_t off;
    uint32_t head, tail;
};

/* A key as parts, so that lookups need no copy. */
typedef struct key {
    unsigned char tag;
    const void *a, *b;
    size_t alen, blen;
} key;

static uint32_t key_hash(const key *k)
{
    uint64_t h = dra_fnv1a(DRA_FNV64_OFFSET, &k->tag, 1);
    h = dra_fnv1a(h, k->a, k->alen);
    h = dra_fnv1a(h, "", 1);
    h = dra_fnv1a(h, k->b, k->blen);
    return (uint32_t)(h ^ (h >> 32));
}

static size_t key_len(const key *k)
{
    return 2 + k->alen + k->blen;
}

/* The stored key of entry e (0-based) and its length. */
static const unsigned char *entry_key(const dra_lc_index *ix, size_t e, size_t *len)
{
    size_t end = e + 1 < ix->nentries ? ix->entries[e + 1].off : ix->textlen;
    *len = end - ix->entries[e].off;
    return ix->text + ix->entries[e].off;
}

static bool key_eq(const dra_lc_index *ix, const dra_lc_slot *s, uint32_t h, const key *k)
{
    if (s->hash != h)
        return false;
    size_t len;
    const unsigned char *p = entry_key(ix, s->entry - 1, &len);
    if (len != key_len(k) || p[0] != k->tag)
        return false;
    p++;
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

static dra_lc_slot *lookup(const dra_lc_index *ix, const key *k, uint32_t h)
{
    if (!ix->cap)
        return NULL;
    size_t mask = ix->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        dra_lc_slot *s = &ix->slots[i];
        if (!s->entry || key_eq(ix, s, h, k))
            return s;
    }
}

static void grow(dra_lc_index *ix)
{
    size_t ncap = ix->cap ? ix->cap * 2 : 64;
    if (ncap > UINT32_MAX)
        abort(); /* past its 32-bit hashes: as out of memory */
    dra_lc_slot *ns = dra_xcalloc(ncap, sizeof *ns);
    for (size_t i = 0; i < ix->cap; i++) {
        dra_lc_slot *s = &ix->slots[i];
        if (!s->entry)
            continue;
        size_t j = s->hash & (ncap - 1);
        while (ns[j].entry)
            j = (j + 1) & (ncap - 1);
        ns[j] = *s;
    }
    free(ix->slots);
    ix->slots = ns;
    ix->cap = ncap;
}

/* A new node holding val; its number + 1. */
static uint32_t new_node(dra_lc_index *ix, size_t val)
{
    if (ix->nnodes >= UINT32_MAX - 1)
        abort(); /* past its 32-bit node numbers: as out of memory */
    if (ix->nnodes == ix->capnodes) {
        ix->capnodes = ix->capnodes ? ix->capnodes * 2 : 64;
        ix->vals = dra_xrealloc(ix->vals, ix->capnodes * sizeof *ix->vals);
        ix->next = dra_xrealloc(ix->next, ix->capnodes * sizeof *ix->next);
    }
    ix->vals[ix->nnodes] = val;
    ix->next[ix->nnodes] = 0;
    return (uint32_t)++ix->nnodes;
}

/* Copy the key to the end of the text as entry number ix->nentries. */
static void new_entry(dra_lc_index *ix, const key *k, uint32_t node)
{
    size_t n = key_len(k);
    if (ix->nentries >= UINT32_MAX - 1 || ix->textlen + n > UINT32_MAX)
        abort(); /* past its 32-bit offsets: as out of memory */
    if (ix->textlen + n > ix->textcap) {
        while (ix->textlen + n > ix->textcap)
            ix->textcap = ix->textcap ? ix->textcap * 2 : 1024;
        ix->text = dra_xrealloc(ix->text, ix->textcap);
    }
    unsigned char *kb = ix->text + ix->textlen;
    kb[0] = k->tag;
    memcpy(kb + 1, k->a, k->alen);
    kb[1 + k->alen] = 0;
    memcpy(kb + 2 + k->alen, k->b, k->blen);
    ix->entries = dra_xgrow(ix->entries, ix->nentries, sizeof *ix->entries);
    ix->entries[ix->nentries++] = (dra_lc_entry){(uint32_t)ix->textlen, node, node};
    ix->textlen += n;
}

static void add(dra_lc_index *ix, const key *k, size_t val)
{
    if ((ix->nentries + 1) * 4 > ix->cap * 3)
        grow(ix);
    uint32_t h = key_hash(k);
    dra_lc_slot *s = lookup(ix, k, h);
    uint32_t node = new_node(ix, val);
    if (s->entry) {
        dra_lc_entry *e = &ix->entries[s->entry - 1];
        ix->next[e->tail - 1] = node;
        e->tail = node;
        return;
    }
    new_entry(ix, k, node);
    *s = (dra_lc_slot){h, (uint32_t)ix->nentries};
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
    return s && s->entry ? ix->entries[s->entry - 1].head : 0;
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
    *val = ix->vals[*it - 1];
    *it = ix->next[*it - 1];
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
    free(ix->entries);
    free(ix->text);
    free(ix->vals);
    free(ix->next);
    memset(ix, 0, sizeof *ix);
}
