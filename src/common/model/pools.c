/* The pool index; see pools.h. */
#include "pools.h"

#include <stdlib.h>
#include <string.h>

#include "../base/error.h"

/* "driver\x1fpool" into buf when it fits (else NULL); *len its length. */
static const char *key_of(const char *driver, const char *pool, char *buf, size_t size, size_t *len)
{
    size_t dl = strlen(driver), pl = strlen(pool);
    if (dl + pl + 2 > size)
        return NULL;
    memcpy(buf, driver, dl);
    buf[dl] = '\x1f';
    memcpy(buf + dl + 1, pool, pl + 1);
    *len = dl + 1 + pl;
    return buf;
}

const dra_pool *dra_pool_index_find(const dra_pool_index *x, const char *driver, const char *pool)
{
    char buf[512];
    size_t len;
    char *big = NULL;
    const char *k = key_of(driver, pool, buf, sizeof buf, &len);
    if (!k) {
        big = dra_xasprintf("%s\x1f%s", driver, pool);
        k = big;
        len = strlen(big);
    }
    intptr_t v;
    bool found = dra_strmap_get(&x->map, k, len, &v);
    free(big);
    return found ? &x->v[v] : NULL;
}

dra_pool *dra_pool_index_add(dra_pool_index *x, const char *driver, const char *pool, int64_t generation, size_t slice)
{
    dra_pool *p = (dra_pool *)dra_pool_index_find(x, driver, pool);
    if (!p) {
        x->v = dra_xgrow(x->v, x->n, sizeof *x->v);
        char *key = dra_xasprintf("%s\x1f%s", driver, pool);
        dra_strmap_put(&x->map, key, strlen(key), (intptr_t)x->n);
        p = &x->v[x->n++];
        *p = (dra_pool){driver, pool, generation, NULL, 0};
    } else if (generation > p->generation) {
        p->generation = generation;
    }
    p->slices = dra_xgrow(p->slices, p->n, sizeof *p->slices);
    p->slices[p->n++] = slice;
    return p;
}

void dra_pool_index_free(dra_pool_index *x)
{
    for (size_t i = 0; i < x->map.cap; i++)
        free((char *)x->map.e[i].key);
    dra_strmap_free(&x->map);
    for (size_t i = 0; i < x->n; i++)
        free(x->v[i].slices);
    free(x->v);
    *x = (dra_pool_index){0};
}
