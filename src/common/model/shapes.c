/* Shape checks of the claim and pod fields the engines rely on, worded like
 * upstream's field errors. */
#include <stdlib.h>

#include "shapes.h"
#include "names.h"
#include "../io/json.h"

void dra_ferr_wrong_type(dra_errs *l, const char *field, const json_t *v, const char *type)
{
    char *r = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    char *d = dra_xasprintf("must be of type %s", type);
    dra_ferr_invalid_raw(l, field, r ? r : "?", d);
    free(d);
    free(r);
}

static void check_string_field(dra_errs *l, const json_t *parent, const char *key, const char *path, bool required)
{
    json_t *v = json_object_get(parent, key);
    char *field = dra_xasprintf("%s.%s", path, key);
    if (!v || json_is_null(v) || (json_is_string(v) && !json_string_length(v))) {
        if (required)
            dra_ferr_required(l, field, NULL);
    } else if (!json_is_string(v)) {
        dra_ferr_wrong_type(l, field, v, "string");
    }
    free(field);
}

static void check_array(dra_errs *l, const json_t *v, const char *field)
{
    if (v && !json_is_null(v) && !json_is_array(v))
        dra_ferr_wrong_type(l, field, v, "array");
}

dra_err *dra_check_claim_shape(const dra_obj *o)
{
    dra_errs l = DRA_ERRS_INIT;
    const json_t *c = o->json;
    json_t *rf = dra_jget(c, "status.reservedFor");
    check_array(&l, rf, "status.reservedFor");
    size_t i;
    json_t *e;
    json_array_foreach(json_is_array(rf) ? rf : NULL, i, e) {
        char *p = dra_xasprintf("status.reservedFor[%zu]", i);
        if (!json_is_object(e)) {
            dra_ferr_wrong_type(&l, p, e, "object");
        } else {
            check_string_field(&l, e, "apiGroup", p, false);
            check_string_field(&l, e, "resource", p, true);
            check_string_field(&l, e, "name", p, true);
            check_string_field(&l, e, "uid", p, true);
        }
        free(p);
    }
    if (json_array_size(rf) > 256)
        dra_ferr_too_many(&l, "status.reservedFor", (long)json_array_size(rf), 256);
    json_t *res = dra_jget(c, "status.allocation.devices.results");
    check_array(&l, res, "status.allocation.devices.results");
    json_array_foreach(json_is_array(res) ? res : NULL, i, e) {
        char *p = dra_xasprintf("status.allocation.devices.results[%zu]", i);
        if (!json_is_object(e)) {
            dra_ferr_wrong_type(&l, p, e, "object");
        } else {
            check_string_field(&l, e, "driver", p, true);
            check_string_field(&l, e, "pool", p, true);
            check_string_field(&l, e, "device", p, true);
            char *tp = dra_xasprintf("%s.tolerations", p);
            check_array(&l, json_object_get(e, "tolerations"), tp);
            free(tp);
        }
        free(p);
    }
    check_array(&l, dra_jget(c, "metadata.ownerReferences"), "metadata.ownerReferences");
    check_array(&l, dra_jget(c, "metadata.finalizers"), "metadata.finalizers");
    dra_err *e2 = dra_errs_take(&l);
    return e2 ? dra_obj_locate(e2, o) : NULL;
}

dra_err *dra_check_pod_shape(const dra_obj *o)
{
    dra_errs l = DRA_ERRS_INIT;
    const json_t *p = o->json;
    json_t *rc = dra_jget(p, "spec.resourceClaims");
    check_array(&l, rc, "spec.resourceClaims");
    size_t i;
    json_t *e;
    json_array_foreach(json_is_array(rc) ? rc : NULL, i, e) {
        char *f = dra_xasprintf("spec.resourceClaims[%zu]", i);
        if (!json_is_object(e))
            dra_ferr_wrong_type(&l, f, e, "object");
        else
            check_string_field(&l, e, "name", f, true);
        free(f);
    }
    check_array(&l, dra_jget(p, "status.resourceClaimStatuses"), "status.resourceClaimStatuses");
    check_array(&l, dra_jget(p, "metadata.ownerReferences"), "metadata.ownerReferences");
    dra_err *e2 = dra_errs_take(&l);
    return e2 ? dra_obj_locate(e2, o) : NULL;
}
