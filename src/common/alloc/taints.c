/* Device taints and tolerations during allocation (dra.md §3.9,
 * dra-corrections.md A7; upstream resourceclaim/devicetoleration.go
 * ToleratesTaint and allocator_incubating.go taintPreventsAllocation). */
#include <string.h>

#include "taints.h"
#include "state.h"
#include "../model/taints.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

void dra_al_parse_tolerations(dra_arena *a, const json_t *arr, al_toleration **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!json_is_array(arr) || !json_array_size(arr))
        return;
    al_toleration *t = dra_arena_zalloc(a, json_array_size(arr) * sizeof *t);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *j = json_array_get(arr, i);
        al_toleration *x = &t[(*n)++];
        x->key = nz(dra_jfield_str(j, "key"));
        x->op = nz(dra_jfield_str(j, "operator"));
        x->value = nz(dra_jfield_str(j, "value"));
        x->effect = nz(dra_jfield_str(j, "effect"));
    }
    *out = t;
}

bool dra_al_toleration_tolerates(const al_toleration *t, const al_taint *taint)
{
    return dra_tolerates(&(dra_toleration_ref){t->key, t->op, t->value, t->effect},
                         &(dra_taint_ref){taint->key, taint->value, taint->effect});
}

/* Only NoSchedule and NoExecute block; None and unknown effects are ignored. */
const al_taint *dra_al_taint_blocks(const al_device *d, const al_req *req)
{
    const al_devx *dx = al_x(d);
    for (size_t i = 0; i < dx->ntaints; i++) {
        const al_taint *t = &dx->taints[i];
        const char *eff = nz(t->effect);
        if (strcmp(eff, "NoSchedule") != 0 && strcmp(eff, "NoExecute") != 0)
            continue;
        bool ok = false;
        for (size_t j = 0; j < req->ntol && !ok; j++)
            ok = dra_al_toleration_tolerates(&req->tol[j], t);
        if (!ok)
            return t;
    }
    return NULL;
}

/* A rule applies when each of driver, pool and device of its deviceSelector
 * that is set equals the device's.  A rule without deviceSelector applies to
 * no device from 1.37 on, as the eviction controller has always read it
 * (staging/src/k8s.io/dynamic-resource-allocation/resourceslice/tracker/
 * tracker.go applyPatches, v0.37.2 and v0.38.0-beta.0, kubernetes#141648);
 * 1.36's tracker (v0.36.3) applied it to every device (kubernetes#141422). */
void dra_al_apply_taint_rules(dra_alloc_world *w, json_t *const *rules, size_t n)
{
    bool nil_selects_all = dra_features_release_of(&w->features) < DRA_RELEASE_1_37;
    for (size_t ri = 0; ri < n; ri++) {
        const json_t *spec = dra_jfield(rules[ri], "spec");
        const json_t *sel = dra_jfield(spec, "deviceSelector");
        const json_t *taint = dra_jfield(spec, "taint");
        if ((sel && !json_is_object(sel) && !json_is_null(sel)) || !json_is_object(taint))
            continue;
        if ((!sel || json_is_null(sel)) && !nil_selects_all)
            continue;
        const char *drv = dra_jfield_str(sel, "driver"), *pool = dra_jfield_str(sel, "pool"),
                   *dev = dra_jfield_str(sel, "device");
        const char *rname = dra_jfield_str(dra_jfield(rules[ri], "metadata"), "name");
        for (size_t di = 0; di < w->ndevices; di++) {
            al_device *d = w->devices[di];
            if (!dra_taint_selector_matches(drv, pool, dev, d->slice->driver, d->slice->pool, d->name))
                continue;
            al_devx *dx = dra_al_devx(w, d);
            al_taint *nt = dra_arena_alloc(&w->arena, (dx->ntaints + 1) * sizeof *nt);
            if (dx->ntaints)
                memcpy(nt, dx->taints, dx->ntaints * sizeof *nt);
            nt[dx->ntaints] = (al_taint){dra_jfield_str(taint, "key"), dra_jfield_str(taint, "value"),
                                         dra_jfield_str(taint, "effect"), taint, rname ? rname : ""};
            dx->taints = nt;
            dx->ntaints++;
        }
    }
}
