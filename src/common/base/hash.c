/* The string map (see hash.h): linear probing, at most half full. */
#include "hash.h"

#include <stdlib.h>
#include <string.h>

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

void dra_strmap_free(dra_strmap *m)
{
    free(m->e);
    *m = (dra_strmap){0};
}
