/* A ResourceClaim's compact record.  See compact.h. */
#include "compact.h"

#include <string.h>

#include "../base/error.h"
#include "../io/json.h"
#include "nodesel.h"
#include "objects.h"

static const char *str(dra_compact *cp, const json_t *o, const char *path)
{
    return dra_compact_str(cp, dra_jstr(o, path));
}

static const char *own(dra_compact *cp, const json_t *o, const char *path)
{
    return dra_compact_own(cp, dra_jstr(o, path));
}

/* The claim's status.devices entry for result r as the record keeps it
 * (see dra_rec_result.status): a new object or NULL. */
static json_t *device_status(const json_t *claim, const json_t *r)
{
    const char *share = dra_jstr(r, "shareID");
    size_t i;
    json_t *d;
    const json_t *devices = dra_jarr(claim, "status.devices");
    json_array_foreach(devices, i, d) {
        const char *ds = dra_jstr(d, "shareID");
        if (strcmp(dra_jstr_or(d, "driver", ""), dra_jstr_or(r, "driver", "")) != 0 ||
            strcmp(dra_jstr_or(d, "pool", ""), dra_jstr_or(r, "pool", "")) != 0 ||
            strcmp(dra_jstr_or(d, "device", ""), dra_jstr_or(r, "device", "")) != 0 ||
            ((share || ds) && (!share || !ds || strcmp(share, ds) != 0)))
            continue;
        json_t *st = json_object();
        static const char *const keep[] = {"conditions", "data", "networkData"};
        for (size_t k = 0; k < sizeof keep / sizeof *keep; k++) {
            json_t *v = json_object_get(d, keep[k]);
            if (v && !json_is_null(v))
                json_object_set(st, keep[k], v);
        }
        if (json_object_size(st))
            return st;
        json_decref(st);
        return NULL;
    }
    return NULL;
}

/* v (a new reference, or NULL) owned by cp from now on. */
static json_t *keep(dra_compact *cp, json_t *v)
{
    if (v) {
        cp->owned = dra_xgrow(cp->owned, cp->nowned, sizeof *cp->owned);
        cp->owned[cp->nowned++] = v;
    }
    return v;
}

dra_claim_rec *dra_compact_claim(dra_compact *cp, const json_t *claim)
{
    dra_claim_rec *r = dra_arena_zalloc(&cp->arena, sizeof *r);
    r->ns = str(cp, claim, "metadata.namespace");
    r->name = own(cp, claim, "metadata.name");
    r->uid = own(cp, claim, "metadata.uid");
    r->deleting = dra_obj_deleting(claim);
    r->allocated = dra_claim_allocated(claim);
    if (r->allocated)
        r->node = dra_compact_str(cp, dra_selector_node(dra_jget(claim, "status.allocation.nodeSelector")));
    const json_t *results = dra_jarr(claim, "status.allocation.devices.results");
    r->nresults = (uint32_t)json_array_size(results);
    r->results = r->nresults ? dra_arena_zalloc(&cp->arena, r->nresults * sizeof *r->results) : NULL;
    size_t i;
    json_t *e;
    json_array_foreach(results, i, e) {
        dra_rec_result *x = &r->results[i];
        x->request = str(cp, e, "request");
        x->driver = str(cp, e, "driver");
        x->pool = str(cp, e, "pool");
        x->device = str(cp, e, "device");
        x->share_id = str(cp, e, "shareID");
        x->status = keep(cp, device_status(claim, e));
        x->admin_access = json_is_true(json_object_get(e, "adminAccess"));
        json_t *consumed = json_object_get(e, "consumedCapacity");
        if (json_object_size(consumed))
            x->consumed = keep(cp, json_incref(consumed));
    }
    const json_t *rf = dra_jarr(claim, "status.reservedFor");
    r->nreserved = (uint32_t)json_array_size(rf);
    r->reserved = r->nreserved ? dra_arena_zalloc(&cp->arena, r->nreserved * sizeof *r->reserved) : NULL;
    json_array_foreach(rf, i, e) {
        r->reserved[i] =
            (dra_rec_consumer){str(cp, e, "apiGroup"), str(cp, e, "resource"), own(cp, e, "name"), own(cp, e, "uid")};
    }
    const json_t *refs = dra_jarr(claim, "metadata.ownerReferences");
    json_array_foreach(refs, i, e) {
        r->nowners += json_is_true(json_object_get(e, "controller"));
    }
    r->owners = r->nowners ? dra_arena_zalloc(&cp->arena, r->nowners * sizeof *r->owners) : NULL;
    uint32_t k = 0;
    json_array_foreach(refs, i, e) {
        if (!json_is_true(json_object_get(e, "controller")))
            continue;
        const char *uid = dra_jstr_or(e, "uid", "");
        r->owners[k] = NULL;
        for (uint32_t j = 0; j < r->nreserved && !r->owners[k]; j++) /* the pod it is reserved for, mostly */
            if (r->reserved[j].uid && strcmp(r->reserved[j].uid, uid) == 0)
                r->owners[k] = r->reserved[j].uid;
        if (!r->owners[k])
            r->owners[k] = dra_compact_own(cp, uid);
        k++;
    }
    r->whole = dra_compact_store(cp, claim);
    if (cp->nclaims == cp->capclaims) {
        cp->capclaims = cp->capclaims ? 2 * cp->capclaims : 64;
        cp->claims = dra_xrealloc(cp->claims, cp->capclaims * sizeof *cp->claims);
    }
    cp->claims[cp->nclaims++] = r;
    return r;
}
