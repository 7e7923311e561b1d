/* Device taints and tolerations during allocation (dra.md §3.9,
 * dra-corrections.md A7; upstream resourceclaim/devicetoleration.go
 * ToleratesTaint and allocator_incubating.go taintPreventsAllocation). */
#include <string.h>

#include "taints.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

void al_parse_tolerations(dra_arena *a, const json_t *arr, al_toleration **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!json_is_array(arr) || !json_array_size(arr))
        return;
    al_toleration *t = dra_arena_zalloc(a, json_array_size(arr) * sizeof *t);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *j = json_array_get(arr, i);
        al_toleration *x = &t[(*n)++];
        x->key = nz(al_jstr(j, "key"));
        x->op = nz(al_jstr(j, "operator"));
        x->value = nz(al_jstr(j, "value"));
        x->effect = nz(al_jstr(j, "effect"));
    }
    *out = t;
}

bool al_toleration_tolerates(const al_toleration *t, const al_taint *taint)
{
    if (*t->effect && strcmp(t->effect, nz(taint->effect)) != 0)
        return false;
    if (*t->key && strcmp(t->key, nz(taint->key)) != 0)
        return false;
    if (!*t->op || strcmp(t->op, "Equal") == 0)
        return strcmp(t->value, nz(taint->value)) == 0;
    return strcmp(t->op, "Exists") == 0;
}

/* Only NoSchedule and NoExecute block; None and unknown effects are ignored. */
const al_taint *al_taint_blocks(const al_device *d, const al_req *req)
{
    for (size_t i = 0; i < d->ntaints; i++) {
        const al_taint *t = &d->taints[i];
        const char *eff = nz(t->effect);
        if (strcmp(eff, "NoSchedule") != 0 && strcmp(eff, "NoExecute") != 0)
            continue;
        bool ok = false;
        for (size_t j = 0; j < req->ntol && !ok; j++)
            ok = al_toleration_tolerates(&req->tol[j], t);
        if (!ok)
            return t;
    }
    return NULL;
}

/* A rule applies when each of driver, pool and device of its deviceSelector
 * that is set equals the device's.  A rule without deviceSelector applies to
 * every device: the scheduler's slice tracker reads it so
 * (staging/src/k8s.io/dynamic-resource-allocation/resourceslice/tracker,
 * kubernetes#141422; upstream's scheduler_perf rule relies on it), while the
 * eviction controller matches nothing -- dra-evict keeps that safe default. */
void al_apply_taint_rules(dra_alloc_world *w, json_t *const *rules, size_t n)
{
    for (size_t ri = 0; ri < n; ri++) {
        const json_t *spec = al_jget(rules[ri], "spec");
        const json_t *sel = al_jget(spec, "deviceSelector");
        const json_t *taint = al_jget(spec, "taint");
        if ((sel && !json_is_object(sel) && !json_is_null(sel)) || !json_is_object(taint))
            continue;
        const char *drv = al_jstr(sel, "driver"), *pool = al_jstr(sel, "pool"), *dev = al_jstr(sel, "device");
        const char *rname = al_jstr(al_jget(rules[ri], "metadata"), "name");
        for (size_t di = 0; di < w->ndevices; di++) {
            al_device *d = w->devices[di];
            if ((drv && strcmp(drv, d->slice->driver) != 0) || (pool && strcmp(pool, d->slice->pool) != 0) ||
                (dev && strcmp(dev, d->name) != 0))
                continue;
            al_taint *nt = dra_arena_alloc(&w->arena, (d->ntaints + 1) * sizeof *nt);
            if (d->ntaints)
                memcpy(nt, d->taints, d->ntaints * sizeof *nt);
            nt[d->ntaints] = (al_taint){al_jstr(taint, "key"), al_jstr(taint, "value"), al_jstr(taint, "effect"),
                                        taint, rname ? rname : ""};
            d->taints = nt;
            d->ntaints++;
        }
    }
}
