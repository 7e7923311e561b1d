/* Manifests as people write them: strict decoding, workload expansion,
 * assumed pod identity, Pod defaulting, admin access, duplicates. */
#include <stdlib.h>
#include <string.h>

#include "io/stream.h"
#include "model/load.h"
#include "model/strict.h"
#include "model/workloads.h"
#include "unit.h"

static dra_err *read_str(dra_objset *set, const char *text)
{
    return dra_read_mem(set, "m.yaml", text, strlen(text));
}

static const char *meta(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(json_object_get(o, "metadata"), k));
}

UNIT_TEST(strict_unknown_fields_by_version)
{
    dra_objset s = DRA_OBJSET_INIT;
    dra_err *e = read_str(&s, "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
                              "spec:\n  driver: d\n  devices:\n  - name: x\n    basic: {attributes: {}}\n");
    CHECK(e == NULL);
    dra_err *w = NULL;
    e = dra_strict_check(s.v[0].json, DRA_KIND_RESOURCE_SLICE, DRA_APIVER_RESOURCE_V1, DRA_FV_STRICT, &w, NULL);
    CHECK(e != NULL && strcmp(e->msg, "unknown field \"spec.devices[0].basic\"") == 0);
    CHECK(w == NULL);
    dra_err_free(e);
    /* the same is v1beta1's shape */
    e = dra_strict_check(s.v[0].json, DRA_KIND_RESOURCE_SLICE, DRA_APIVER_RESOURCE_V1BETA1, DRA_FV_STRICT, &w, NULL);
    CHECK(e == NULL);
    /* warn: a warning, and the field is gone */
    e = dra_strict_check(s.v[0].json, DRA_KIND_RESOURCE_SLICE, DRA_APIVER_RESOURCE_V1, DRA_FV_WARN, &w, NULL);
    CHECK(e == NULL && w != NULL);
    CHECK(json_object_get(json_array_get(json_object_get(json_object_get(s.v[0].json, "spec"), "devices"), 0),
                          "basic") == NULL);
    dra_err_free(w);
    dra_objset_free(&s);
}

UNIT_TEST(typed_list_items_and_duplicates)
{
    dra_objset s = DRA_OBJSET_INIT;
    dra_err *e = read_str(&s, "{\"kind\":\"DeviceClassList\",\"apiVersion\":\"resource.k8s.io/v1\",\"items\":["
                              "{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":\"a\"}}]}");
    CHECK(e == NULL);
    CHECK_INT(s.n, 2);
    CHECK_STR(json_string_value(json_object_get(s.v[0].json, "kind")), "DeviceClass");
    CHECK_STR(json_string_value(json_object_get(s.v[0].json, "apiVersion")), "resource.k8s.io/v1");
    dra_model m = DRA_MODEL_INIT;
    e = dra_load(&s, NULL, &m);
    CHECK(e == NULL);
    CHECK_INT(m.collapsed, 1);
    CHECK_INT(dra_model_kind(&m, DRA_KIND_DEVICE_CLASS)->n, 1);
    dra_model_free(&m);
    dra_objset_free(&s);
}

UNIT_TEST(pod_requests_default_from_limits)
{
    dra_objset s = DRA_OBJSET_INIT;
    dra_err *e = read_str(&s, "apiVersion: v1\nkind: Pod\nmetadata: {name: p, uid: u}\nspec:\n  containers:\n"
                              "  - name: c\n    image: i\n    resources:\n      limits: {example.com/gpu: 2}\n"
                              "      requests: {cpu: 1}\n");
    CHECK(e == NULL);
    dra_model m = DRA_MODEL_INIT;
    e = dra_load(&s, NULL, &m);
    CHECK(e == NULL);
    json_t *req = json_object_get(
        json_object_get(json_array_get(json_object_get(json_object_get(s.v[0].json, "spec"), "containers"), 0),
                        "resources"),
        "requests");
    CHECK_INT(json_integer_value(json_object_get(req, "example.com/gpu")), 2);
    CHECK_INT(json_integer_value(json_object_get(req, "cpu")), 1);
    dra_model_free(&m);
    dra_objset_free(&s);
}

UNIT_TEST(workloads_expand_deterministically)
{
    const char *text = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: ns}\n"
                       "spec:\n  replicas: 2\n  template:\n    metadata: {labels: {app: db}}\n"
                       "    spec: {containers: [{name: c, image: i}]}\n"
                       "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                       "spec:\n  replicas: 3\n  template:\n    spec: {containers: [{name: c, image: i}]}\n"
                       "---\napiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: m}\nspec: {}\n";
    dra_objset a = DRA_OBJSET_INIT, b = DRA_OBJSET_INIT;
    CHECK(read_str(&a, text) == NULL);
    CHECK(read_str(&b, text) == NULL);
    dra_expand_report ra = {0}, rb = {0};
    CHECK(dra_expand_workloads(&a, NULL, &ra) == NULL);
    CHECK(dra_expand_workloads(&b, NULL, &rb) == NULL);
    CHECK_INT(ra.workloads, 2);
    CHECK_INT(ra.pods, 5);
    CHECK_INT(a.n, 6); /* 2 + 3 pods and the MPIJob */
    /* mpi-operator refuses an MPIJob without a Launcher */
    CHECK(ra.warnings != NULL && strstr(ra.warnings->msg, "Required value: not expanded") != NULL);
    CHECK_STR(meta(a.v[0].json, "name"), "db-0");
    CHECK_STR(meta(a.v[1].json, "name"), "db-1");
    CHECK_STR(meta(a.v[0].json, "namespace"), "ns");
    for (size_t i = 0; i < a.n; i++) {
        CHECK_STR(meta(a.v[i].json, "name"), meta(b.v[i].json, "name"));
        if (i < 5)
            CHECK_STR(meta(a.v[i].json, "uid"), meta(b.v[i].json, "uid"));
    }
    CHECK(strncmp(meta(a.v[2].json, "name"), "web-", 4) == 0);
    /* names and UIDs stay as they were before base/hash.h (FNV-1a) */
    CHECK_STR(meta(a.v[0].json, "uid"), "b4a1d069-d2f1-82b9-8446-fed7151e7342");
    CHECK_STR(meta(a.v[2].json, "name"), "web-dffkfbldll-wb5j8");
    CHECK_STR(meta(a.v[4].json, "uid"), "98dc94bf-0653-8590-f4ba-17aa99cd5257");
    CHECK(strcmp(meta(a.v[2].json, "name"), meta(a.v[3].json, "name")) != 0);
    dra_expand_report_free(&ra);
    dra_expand_report_free(&rb);
    dra_objset_free(&a);
    dra_objset_free(&b);
}

UNIT_TEST(assumed_pod_identity)
{
    dra_objset s = DRA_OBJSET_INIT;
    CHECK(read_str(&s, "apiVersion: v1\nkind: Pod\nmetadata: {generateName: nb-}\nspec: {}\n---\n"
                       "apiVersion: v1\nkind: Pod\nmetadata: {generateName: nb-}\nspec: {}\n---\n"
                       "apiVersion: v1\nkind: Pod\nmetadata: {name: keep, uid: given}\nspec: {}\n") == NULL);
    dra_expand_report r = {0};
    dra_assume_pod_identity(&s, NULL, &r);
    CHECK_INT(r.assumed, 2);
    const char *n0 = meta(s.v[0].json, "name"), *n1 = meta(s.v[1].json, "name");
    CHECK(n0 && n1 && strlen(n0) == 8 && strncmp(n0, "nb-", 3) == 0 && strcmp(n0, n1) != 0);
    CHECK_STR(n0, "nb-m4c4w");
    CHECK_STR(meta(s.v[1].json, "uid"), "462eeba0-bcaa-8bf6-d9bd-417b4de9b259");
    CHECK(meta(s.v[0].json, "uid") != NULL && strlen(meta(s.v[0].json, "uid")) == 36);
    CHECK_STR(meta(s.v[2].json, "uid"), "given");
    json_t *ann = json_object_get(json_object_get(s.v[0].json, "metadata"), "annotations");
    CHECK_STR(json_string_value(json_object_get(ann, DRA_ASSUMED_ANNOTATION)), "name,uid");
    dra_expand_report_free(&r);
    dra_objset_free(&s);
}

UNIT_TEST(admin_access_needs_the_namespace_label)
{
    const char *claim =
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: mon}\n"
        "spec:\n  devices:\n    requests:\n    - name: r\n      exactly: {deviceClassName: x, adminAccess: true}\n";
    dra_objset s = DRA_OBJSET_INIT;
    CHECK(read_str(&s, claim) == NULL);
    CHECK(read_str(&s, "apiVersion: v1\nkind: Namespace\nmetadata: {name: mon}\n") == NULL);
    dra_model m = DRA_MODEL_INIT;
    dra_err *e = dra_load(&s, NULL, &m);
    CHECK(e != NULL &&
          strstr(e->msg, "admin access to devices requires the `resource.kubernetes.io/admin-access: true` label") !=
              NULL);
    CHECK(e && e->field &&
          strcmp(e->field, "spec.devices.requests[0].adminAccess") == 0); /* upstream's path: no "exactly" */
    dra_err_free(e);
    dra_model_free(&m);
    dra_objset_free(&s);
    /* without the Namespace: a warning that it could not be checked */
    CHECK(read_str(&s, claim) == NULL);
    e = dra_load(&s, NULL, &m);
    CHECK(e == NULL);
    CHECK(m.warnings != NULL && strstr(m.warnings->msg, "could not be checked") != NULL);
    dra_model_free(&m);
    dra_objset_free(&s);
}

UNIT_MAIN()
