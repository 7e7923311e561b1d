/* The string map (see hash.h): linear probing, at most half full. */
#include "hash.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "error.h"

static uint64_t key_hash(const char *key, size_t len)
{
    return dra_fnv1a(DRA_FNV64_OFFSET, key, len);
}

static void place(dra_strmap_entry *tab, size_t cap, const dra_strmap_entry *src)
{
    for (size_t i = src->hash & (cap - 1);; i = (i + 1) & (cap - 1))
        if (!tab[i].key) {
            tab[i] = *src;
            return;
        }
}

static void resize(dra_strmap *m, size_t ncap)
{
    dra_strmap_entry *t = dra_xcalloc(ncap, sizeof *t);
    for (size_t i = 0; i < m->cap; i++)
        if (m->e[i].key)
            place(t, ncap, &m->e[i]);
    free(m->e);
    m->e = t;
    m->cap = ncap;
}

void dra_strmap_reserve(dra_strmap *m, size_t n)
{
    size_t cap = m->cap ? m->cap : 16;
    while (n * 2 > cap)
        cap *= 2;
    if (cap != m->cap)
        resize(m, cap);
}

static dra_strmap_entry *slot(const dra_strmap *m, const char *key, size_t len, uint64_t h)
{
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        dra_strmap_entry *e = &m->e[i];
        if (!e->key || (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0))
            return e;
    }
}

bool dra_strmap_get(const dra_strmap *m, const char *key, size_t len, intptr_t *val)
{
    if (!m->cap)
        return false;
    const dra_strmap_entry *e = slot(m, key, len, key_hash(key, len));
    if (!e->key)
        return false;
    if (val)
        *val = e->val;
    return true;
}

bool dra_strmap_add(dra_strmap *m, const char *key, size_t len, intptr_t val, intptr_t *old)
{
    dra_strmap_reserve(m, m->n + 1);
    uint64_t h = key_hash(key, len);
    dra_strmap_entry *e = slot(m, key, len, h);
    if (e->key) {
        if (old)
            *old = e->val;
        return true;
    }
    *e = (dra_strmap_entry){key ? key : "", len, h, val};
    m->n++;
    return false;
}

void dra_strmap_put(dra_strmap *m, const char *key, size_t len, intptr_t val)
{
    dra_strmap_reserve(m, m->n + 1);
    uint64_t h = key_hash(key, len);
    dra_strmap_entry *e = slot(m, key, len, h);
    if (!e->key) {
        *e = (dra_strmap_entry){key ? key : "", len, h, 0};
        m->n++;
    }
    e->val = val;
}

bool dra_strmap_keys_intact(const dra_strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->e[i].key && key_hash(m->e[i].key, m->e[i].len) != m->e[i].hash)
            return false;
    return true;
}

void dra_strmap_free(dra_strmap *m)
{
    free(m->e);
    *m = (dra_strmap){0};
}

/* ---- the compact string set ---------------------------------------------- */

static size_t strset_probe(const dra_strset *set, const char *s, size_t n, uint64_t h)
{
    size_t mask = set->nslot - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        uint32_t v = set->slot[i];
        if (!v)
            return i;
        const char *t = set->text + set->off[v - 1];
        if (strncmp(t, s, n) == 0 && t[n] == 0)
            return i;
    }
}

static void strset_rehash(dra_strset *set, size_t nslot)
{
    free(set->slot);
    set->slot = dra_xcalloc(nslot, sizeof *set->slot);
    set->nslot = nslot;
    for (size_t k = 0; k < set->n; k++) {
        const char *t = set->text + set->off[k];
        size_t tl = strlen(t);
        set->slot[strset_probe(set, t, tl, key_hash(t, tl))] = (uint32_t)(k + 1);
    }
}

size_t dra_strset_add(dra_strset *set, const char *s, size_t n, bool *added)
{
    if (2 * (set->n + 1) > set->nslot)
        strset_rehash(set, set->nslot ? 2 * set->nslot : 64);
    size_t i = strset_probe(set, s, n, key_hash(s, n));
    if (set->slot[i]) {
        if (added)
            *added = false;
        return set->slot[i] - 1;
    }
    if (set->n >= UINT32_MAX - 1 || set->len + n + 1 > UINT32_MAX)
        abort(); /* past its 32-bit offsets: as out of memory */
    if (set->len + n + 1 > set->cap) {
        while (set->len + n + 1 > set->cap)
            set->cap = set->cap ? 2 * set->cap : 1024;
        set->text = dra_xrealloc(set->text, set->cap);
    }
    memcpy(set->text + set->len, s, n);
    set->text[set->len + n] = 0;
    set->off = dra_xgrow(set->off, set->n, sizeof *set->off);
    set->off[set->n] = (uint32_t)set->len;
    set->len += n + 1;
    set->slot[i] = (uint32_t)(++set->n);
    if (added)
        *added = true;
    return set->n - 1;
}

void dra_strset_free(dra_strset *set)
{
    free(set->text);
    free(set->off);
    free(set->slot);
    *set = (dra_strset){0};
}

const char *dra_strmap_intern(dra_strmap *m, dra_arena *arena, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    intptr_t v;
    if (dra_strmap_get(m, s, n, &v))
        return (const char *)v;
    char *copy = dra_arena_strndup(arena, s, n);
    dra_strmap_put(m, copy, n, (intptr_t)copy);
    return copy;
}
