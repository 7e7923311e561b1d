/* A Pod's compact record.  See compact.h. */
#include "compact.h"

#include "../base/error.h"
#include "../io/json.h"
#include "objects.h"

static const char *str(dra_compact *cp, const json_t *o, const char *path)
{
    return dra_compact_str(cp, dra_jstr(o, path));
}

static const char *own(dra_compact *cp, const json_t *o, const char *path)
{
    return dra_compact_own(cp, dra_jstr(o, path));
}

/* The entries of the array at path (template read when with_template). */
static dra_rec_pod_claim *entries(dra_compact *cp, const json_t *pod, const char *path, bool with_template, uint32_t *n)
{
    const json_t *arr = dra_jarr(pod, path);
    *n = (uint32_t)json_array_size(arr);
    if (!*n)
        return NULL;
    dra_rec_pod_claim *v = dra_arena_zalloc(&cp->arena, *n * sizeof *v);
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        v[i] = (dra_rec_pod_claim){str(cp, e, "name"), own(cp, e, "resourceClaimName"),
                                   with_template ? str(cp, e, "resourceClaimTemplateName") : NULL};
    }
    return v;
}

dra_pod_rec *dra_compact_pod(dra_compact *cp, const json_t *pod)
{
    dra_pod_rec *r = dra_arena_zalloc(&cp->arena, sizeof *r);
    r->ns = str(cp, pod, "metadata.namespace");
    r->name = own(cp, pod, "metadata.name");
    r->uid = own(cp, pod, "metadata.uid");
    r->node_name = str(cp, pod, "spec.nodeName");
    r->phase = str(cp, pod, "status.phase");
    r->deleting = dra_obj_deleting(pod);
    r->claims = entries(cp, pod, "spec.resourceClaims", true, &r->nclaims);
    r->statuses = entries(cp, pod, "status.resourceClaimStatuses", false, &r->nstatuses);
    r->whole = dra_compact_store(cp, pod);
    if (cp->npods == cp->cappods) {
        cp->cappods = cp->cappods ? 2 * cp->cappods : 64;
        cp->pods = dra_xrealloc(cp->pods, cp->cappods * sizeof *cp->pods);
    }
    cp->pods[cp->npods++] = r;
    return r;
}
