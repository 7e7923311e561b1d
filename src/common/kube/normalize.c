/* Objects as the server sent them made the tools' own: see
 * dra_kube_api_normalize (api.h). */
#include "api.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../model/convert.h"
#include "../model/features.h"
#include "../model/kinds.h"
#include "../model/strict.h"

const char *dra_kube_meta_str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(json_object_get(o, "metadata"), k));
}

dra_err *dra_kube_api_normalize(const dra_kube_resource *r, const char *version, json_t *obj)
{
    if (!json_is_object(obj))
        return dra_err_new(DRA_EXIT_RUNTIME, "the server sent a %s that is not an object", r->kind);
    char *av = *r->group ? dra_xasprintf("%s/%s", r->group, version) : dra_xstrdup(version);
    if (!json_object_get(obj, "apiVersion") || !json_object_get(obj, "kind")) {
        /* Put apiVersion and kind first, as a decoded unstructured object
         * would print them (keys sorted) and as they appear in the API. */
        json_t *rest = json_copy(obj);
        json_object_clear(obj);
        json_object_set_new(obj, "apiVersion", json_string(av));
        json_object_set_new(obj, "kind", json_string(r->kind));
        const char *k;
        json_t *v;
        json_object_foreach(rest, k, v) {
            if (strcmp(k, "apiVersion") != 0 && strcmp(k, "kind") != 0)
                json_object_set(obj, k, v);
        }
        json_decref(rest);
    }
    /* managedFields: bookkeeping of server-side apply that no tool reads;
     * kubectl get hides it too (--show-managed-fields=false) */
    json_object_del(json_object_get(obj, "metadata"), "managedFields");
    dra_err *e = NULL;
    dra_kind k;
    dra_apiver v;
    if (dra_kube_api_converts(r, version) && dra_kind_lookup(av, r->kind, &k, &v))
        e = dra_convert_to_v1(obj, k, v);
    free(av);
    return e;
}

bool dra_kube_api_converts(const dra_kube_resource *r, const char *version)
{
    if (!*r->group || strcmp(version, "v1") == 0)
        return false;
    dra_kind k = dra_kind_from_name(r->kind);
    for (int rel = DRA_RELEASE_OLDEST; rel <= DRA_RELEASE_NEWEST; rel++) {
        dra_err *e = dra_strict_unserved(k, DRA_APIVER_RESOURCE_V1, rel);
        bool unserved = e != NULL;
        dra_err_free(e);
        if (unserved)
            return false;
    }
    return true;
}
