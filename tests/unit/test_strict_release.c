/* Strict decoding as an older release's API server: the fields a newer
 * release added are unknown fields there, and only the loads that ask for
 * it (release_fields) see them so. */
#include <stdlib.h>
#include <string.h>

#include "io/stream.h"
#include "model/features.h"
#include "model/load.h"
#include "model/strict.h"
#include "unit.h"

static const char slice[] = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
                            "spec:\n  driver: a.b\n  pool: {name: p, resourceSliceCount: 1}\n  allNodes: true\n"
                            "  devices:\n  - name: d\n    consumesCounters:\n    - counterSet: cs\n"
                            "      counters: {mem: {value: \"1\"}}\n      compatibilityGroups: [g]\n";

static dra_err *read_slice(dra_objset *s)
{
    return dra_read_mem(s, "s.yaml", slice, strlen(slice));
}

UNIT_TEST(strict_release_36_lacks_fields_of_37)
{
    dra_objset s = DRA_OBJSET_INIT;
    CHECK(read_slice(&s) == NULL && s.n == 1);
    json_t *o = s.v[0].json;
    dra_err *w = NULL;
    /* every release from 1.37 on, and release 0, know the field */
    CHECK(dra_strict_check_release(o, DRA_KIND_RESOURCE_SLICE, DRA_APIVER_RESOURCE_V1, DRA_FV_STRICT, 0, &w, NULL) ==
          NULL);
    CHECK(dra_strict_check_release(o, DRA_KIND_RESOURCE_SLICE, DRA_APIVER_RESOURCE_V1, DRA_FV_STRICT, DRA_RELEASE_1_37,
                                   &w, NULL) == NULL);
    CHECK(dra_strict_check_release(o, DRA_KIND_RESOURCE_SLICE, DRA_APIVER_RESOURCE_V1, DRA_FV_STRICT, DRA_RELEASE_1_38,
                                   &w, NULL) == NULL);
    CHECK(w == NULL);
    dra_err *e = dra_strict_check_release(o, DRA_KIND_RESOURCE_SLICE, DRA_APIVER_RESOURCE_V1, DRA_FV_STRICT,
                                          DRA_RELEASE_1_36, &w, NULL);
    CHECK(e != NULL && e->next == NULL &&
          strcmp(e->msg, "unknown field \"spec.devices[0].consumesCounters[0].compatibilityGroups\"") == 0);
    dra_err_free(e);
    /* warn: a warning, and the field is gone as a 1.36 decoder drops it */
    e = dra_strict_check_release(o, DRA_KIND_RESOURCE_SLICE, DRA_APIVER_RESOURCE_V1, DRA_FV_WARN, DRA_RELEASE_1_36, &w,
                                 NULL);
    CHECK(e == NULL && w != NULL);
    json_t *cc = json_array_get(
        json_object_get(json_array_get(json_object_get(json_object_get(o, "spec"), "devices"), 0), "consumesCounters"),
        0);
    CHECK(json_is_object(cc) && json_object_get(cc, "compatibilityGroups") == NULL);
    dra_err_free(w);
    dra_objset_free(&s);
}

static dra_err *load_136(bool release_fields)
{
    dra_objset s = DRA_OBJSET_INIT;
    dra_err *e = read_slice(&s);
    if (e) {
        dra_objset_free(&s);
        return e;
    }
    dra_features f;
    dra_features_release(&f, DRA_RELEASE_1_36);
    dra_load_opts lo = {.release_fields = release_fields, .validate = {.features = &f}};
    dra_model m = DRA_MODEL_INIT;
    e = dra_load(&s, &lo, &m);
    dra_model_free(&m);
    dra_objset_free(&s);
    return e;
}

UNIT_TEST(load_release_fields_only_when_asked)
{
    /* a 1.36 scheduler's read: the disabled gate's field is dropped */
    CHECK(load_136(false) == NULL);
    /* a 1.36 API server's strict decoding: an unknown field */
    dra_err *e = load_136(true);
    CHECK(e != NULL && strstr(e->msg, "unknown field \"spec.devices[0].consumesCounters[0].compatibilityGroups\""));
    dra_err_free(e);
}

UNIT_MAIN()
