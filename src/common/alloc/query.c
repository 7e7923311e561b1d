/* Read-only questions about a world, for the scheduler's node prefilter
 * (see alloc.h). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int64_t dra_alloc_free_bound(const dra_alloc_world *w, const char *node_name)
{
    int64_t n = w->shared_free;
    intptr_t v;
    if (node_name && dra_strmap_get(&w->bynode, node_name, strlen(node_name), &v))
        n += w->node_free[((al_pool_slices *)v)->node_idx];
    return n;
}

bool dra_alloc_world_has_class(const dra_alloc_world *w, const char *name)
{
    intptr_t v;
    return name && dra_strmap_get(&w->classes, name, strlen(name), &v);
}

/* A slice whose pool can be invalid: counter sets, several slices, device
 * names that may repeat (checked for up to 64 devices). */
static bool slice_risky(const al_slice *s)
{
    const al_pool_slices *pool = s->pool_slices;
    if (s->nsets || pool->n > 1)
        return true;
    for (size_t i = 0; i < s->ndev; i++) {
        if (s->dev[i].ncons)
            return true;
        for (size_t k = 0; k < i && s->ndev <= 64; k++)
            if (strcmp(s->dev[i].name, s->dev[k].name) == 0)
                return true;
    }
    return s->ndev > 64; /* not checked: assume the worst */
}

bool dra_alloc_shared_pools_risky(const dra_alloc_world *w)
{
    for (size_t i = 0; i < w->shared.n; i++)
        if (slice_risky(w->shared.s[i]))
            return true;
    return false;
}

bool dra_alloc_node_pools_risky(const dra_alloc_world *w, const char *node_name)
{
    intptr_t v;
    if (!node_name || !dra_strmap_get(&w->bynode, node_name, strlen(node_name), &v))
        return false;
    const al_pool_slices *ns = (const al_pool_slices *)v;
    for (size_t k = 0; k < ns->n; k++)
        if (slice_risky(ns->s[k]))
            return true;
    return false;
}
