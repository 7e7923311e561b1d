/* Version conversion and defaulting (src/common/model/convert.c, defaults.c)
 * on upstream-shaped fixtures in tests/data/model/. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/stream.h"
#include "model/convert.h"
#include "model/defaults.h"
#include "model/kinds.h"
#include "model/load.h"
#include "unit.h"

static char *fixture(const char *name)
{
    static const char *const dirs[] = {"tests/data/model", "../tests/data/model", "../../tests/data/model"};
    const char *top = getenv("DRA_SRCDIR");
    for (int i = -1; i < 3; i++) {
        char *p = i < 0 ? (top ? dra_xasprintf("%s/tests/data/model/%s", top, name) : NULL)
                        : dra_xasprintf("%s/%s", dirs[i], name);
        if (p && access(p, R_OK) == 0)
            return p;
        free(p);
    }
    return dra_xasprintf("tests/data/model/%s", name);
}

/* Read the single object of a fixture (reference owned by the caller). */
static json_t *read_one(const char *name)
{
    dra_objset set = DRA_OBJSET_INIT;
    char *path = fixture(name);
    dra_err *e = dra_read_path(&set, path);
    free(path);
    json_t *obj = NULL;
    if (!e && set.n == 1)
        obj = json_incref(set.v[0].json);
    dra_err_free(e);
    dra_objset_free(&set);
    return obj;
}

static json_t *convert(const char *name, dra_err **err)
{
    json_t *obj = read_one(name);
    if (!obj)
        return NULL;
    dra_kind k;
    dra_apiver v;
    dra_err *e = dra_kind_of(obj, &k, &v);
    if (!e)
        e = dra_convert_to_v1(obj, k, v);
    *err = e;
    return obj;
}

static void check_same(int *unit_failed, json_t *got, json_t *want)
{
    if (!got || !want || !json_equal(got, want)) {
        char *g = got ? json_dumps(got, JSON_SORT_KEYS) : NULL, *w = want ? json_dumps(want, JSON_SORT_KEYS) : NULL;
        fprintf(stderr, "  got:  %s\n  want: %s\n", g ? g : "(null)", w ? w : "(null)");
        free(g);
        free(w);
        *unit_failed = 1;
    }
}

UNIT_TEST(kinds)
{
    json_t *o = json_pack("{s:s,s:s}", "apiVersion", "resource.k8s.io/v1beta2", "kind", "DeviceTaintRule");
    dra_kind k;
    dra_apiver v;
    dra_err *e = dra_kind_of(o, &k, &v);
    CHECK(e == NULL && k == DRA_KIND_DEVICE_TAINT_RULE && v == DRA_APIVER_RESOURCE_V1BETA2);
    json_object_set_new(o, "apiVersion", json_string("resource.k8s.io/v1beta1"));
    e = dra_kind_of(o, &k, &v);
    CHECK(e != NULL && dra_kind_unknown_err(e));
    CHECK_STR(e ? e->msg : NULL, "no matches for kind \"DeviceTaintRule\" in version \"resource.k8s.io/v1beta1\"");
    dra_err_free(e);
    json_object_del(o, "kind");
    e = dra_kind_of(o, &k, &v);
    CHECK(e != NULL && !dra_kind_unknown_err(e));
    CHECK_STR(e ? e->field : NULL, "kind");
    dra_err_free(e);
    json_object_clear(o);
    e = dra_kind_of(o, &k, &v);
    CHECK_STR(e ? e->field : NULL, "apiVersion");
    dra_err_free(e);
    json_decref(o);
    CHECK(dra_kind_lookup("v1", "Pod", &k, &v) && k == DRA_KIND_POD && v == DRA_APIVER_CORE_V1);
    CHECK(!dra_kind_lookup("apps/v1", "Pod", &k, &v));
    CHECK(dra_kind_lookup("resource.k8s.io/v1alpha3", "DeviceTaintRule", &k, &v));
    CHECK(!dra_kind_lookup("resource.k8s.io/v1alpha3", "ResourceSlice", &k, &v));
    CHECK(dra_kind_namespaced(DRA_KIND_RESOURCE_CLAIM));
    CHECK(!dra_kind_namespaced(DRA_KIND_RESOURCE_SLICE));
}

UNIT_TEST(slice_v1beta1_basic_is_flattened)
{
    dra_err *e;
    json_t *got = convert("slice-v1beta1.yaml", &e);
    json_t *want = read_one("slice-v1.json");
    CHECK(e == NULL);
    check_same(unit_failed, got, want);
    /* Key order: name first, then the former basic fields. */
    json_t *d0 = json_array_get(json_object_get(json_object_get(got, "spec"), "devices"), 0);
    void *it = json_object_iter(d0);
    CHECK_STR(it ? json_object_iter_key(it) : NULL, "name");
    CHECK_STR(json_object_iter_key(json_object_iter_next(d0, it)), "attributes");
    dra_err_free(e);
    json_decref(got);
    json_decref(want);
}

UNIT_TEST(claim_v1beta1_requests_nest_under_exactly)
{
    dra_err *e;
    json_t *got = convert("claim-v1beta1.yaml", &e);
    json_t *want = read_one("claim-v1.json");
    CHECK(e == NULL);
    check_same(unit_failed, got, want);
    dra_err_free(e);
    json_decref(got);
    json_decref(want);
}

UNIT_TEST(template_v1beta1)
{
    dra_err *e;
    json_t *got = convert("template-v1beta1.yaml", &e);
    json_t *want = read_one("template-v1.json");
    CHECK(e == NULL);
    check_same(unit_failed, got, want);
    dra_err_free(e);
    json_decref(got);
    json_decref(want);
}

UNIT_TEST(v1_is_unchanged)
{
    static const char *const names[] = {"slice-v1.json", "claim-v1.json", "template-v1.json"};
    for (int i = 0; i < 3; i++) {
        dra_err *e;
        json_t *got = convert(names[i], &e);
        json_t *want = read_one(names[i]);
        CHECK(e == NULL);
        check_same(unit_failed, got, want);
        dra_err_free(e);
        json_decref(got);
        json_decref(want);
    }
}

UNIT_TEST(v1beta2_and_v1alpha3_only_change_apiversion)
{
    dra_err *e;
    json_t *got = convert("claim-v1beta2.yaml", &e);
    CHECK(e == NULL);
    CHECK_STR(json_string_value(json_object_get(got, "apiVersion")), "resource.k8s.io/v1");
    CHECK(json_object_get(
              json_array_get(json_object_get(json_object_get(json_object_get(got, "spec"), "devices"), "requests"), 0),
              "exactly") != NULL);
    json_decref(got);
    got = convert("taintrule-v1alpha3.yaml", &e);
    CHECK(e == NULL);
    CHECK_STR(json_string_value(json_object_get(got, "apiVersion")), "resource.k8s.io/v1");
    json_decref(got);
    got = convert("class-v1beta1.yaml", &e);
    CHECK(e == NULL);
    CHECK_STR(json_string_value(json_object_get(got, "apiVersion")), "resource.k8s.io/v1");
    json_decref(got);
}

static json_t *parse(const char *text)
{
    json_error_t err;
    return json_loads(text, 0, &err);
}

UNIT_TEST(v1beta1_edge_cases)
{
    /* A bare request gets no `exactly`: v1beta1 defaults allocationMode only
     * with a deviceClassName, and conversion nests only main fields that are
     * set (hasAnyMainRequestFieldsSet). */
    json_t *o = parse(
        "{\"apiVersion\":\"resource.k8s.io/"
        "v1beta1\",\"kind\":\"ResourceClaim\",\"spec\":{\"devices\":{\"requests\":[{\"name\":\"a\"},"
        "{\"name\":\"b\",\"deviceClassName\":\"c\",\"firstAvailable\":[{\"name\":\"x\",\"deviceClassName\":\"c\"}]},"
        "{\"name\":\"c\",\"exactly\":{}}]}}}");
    dra_err *e = dra_convert_to_v1(o, DRA_KIND_RESOURCE_CLAIM, DRA_APIVER_RESOURCE_V1BETA1);
    json_t *reqs = json_object_get(json_object_get(json_object_get(o, "spec"), "devices"), "requests");
    CHECK(json_object_get(json_array_get(reqs, 0), "exactly") == NULL);
    /* Both set: kept for validation to reject. */
    CHECK(json_object_get(json_array_get(reqs, 1), "exactly") != NULL);
    CHECK(json_object_get(json_array_get(reqs, 1), "firstAvailable") != NULL);
    /* `exactly` does not exist in v1beta1. */
    CHECK(e != NULL);
    CHECK_STR(e ? e->field : NULL, "spec.devices.requests[2].exactly");
    CHECK_STR(e ? e->msg : NULL, "Forbidden: field does not exist in resource.k8s.io/v1beta1");
    dra_err_free(e);
    json_decref(o);

    o = parse("{\"spec\":{\"devices\":[{\"name\":\"d\",\"attributes\":{}}]}}");
    e = dra_convert_to_v1(o, DRA_KIND_RESOURCE_SLICE, DRA_APIVER_RESOURCE_V1BETA1);
    CHECK_STR(e ? e->field : NULL, "spec.devices[0].attributes");
    dra_err_free(e);
    json_decref(o);

    o = parse("{\"spec\":{\"deviceSelector\":{\"deviceClassName\":\"x\"},\"taint\":{}}}");
    /* removed from every version in 1.35: strict decoding calls it an unknown
     * field (test_validate); conversion leaves it to that */
    e = dra_convert_to_v1(o, DRA_KIND_DEVICE_TAINT_RULE, DRA_APIVER_RESOURCE_V1ALPHA3);
    CHECK(e == NULL);
    dra_err_free(e);
    json_decref(o);
}

UNIT_TEST(defaults)
{
    dra_err *e;
    json_t *claim = convert("claim-v1beta1.yaml", &e);
    dra_err_free(e);
    dra_default_object(claim, DRA_KIND_RESOURCE_CLAIM, 1700000000);
    json_t *reqs = json_object_get(json_object_get(json_object_get(claim, "spec"), "devices"), "requests");
    json_t *fa = json_object_get(json_array_get(reqs, 1), "firstAvailable");
    CHECK_STR(json_string_value(json_object_get(json_array_get(fa, 0), "allocationMode")), "ExactCount");
    CHECK_INT(json_integer_value(json_object_get(json_array_get(fa, 0), "count")), 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(fa, 1), "allocationMode")), "All");
    CHECK(json_object_get(json_array_get(fa, 1), "count") == NULL); /* All keeps count unset */
    json_t *admin = json_object_get(json_array_get(reqs, 2), "exactly");
    CHECK_STR(json_string_value(json_object_get(admin, "allocationMode")), "ExactCount");
    CHECK_INT(json_integer_value(json_object_get(admin, "count")), 1);
    json_t *gpu = json_object_get(json_array_get(reqs, 0), "exactly");
    CHECK_INT(json_integer_value(json_object_get(gpu, "count")), 2);
    CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(gpu, "tolerations"), 0), "operator")),
              "Exists");
    json_decref(claim);

    json_t *o = parse("{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"a\",\"exactly\":{\"deviceClassName\":\"c\","
                      "\"tolerations\":[{\"key\":\"k\"}]}}]}}}");
    dra_default_object(o, DRA_KIND_RESOURCE_CLAIM, 0);
    json_t *t = json_array_get(
        json_object_get(
            json_object_get(
                json_array_get(json_object_get(json_object_get(json_object_get(o, "spec"), "devices"), "requests"), 0),
                "exactly"),
            "tolerations"),
        0);
    CHECK_STR(json_string_value(json_object_get(t, "operator")), "Equal");
    json_decref(o);

    json_t *slice = read_one("slice-v1.json");
    json_t *taints =
        json_object_get(json_array_get(json_object_get(json_object_get(slice, "spec"), "devices"), 0), "taints");
    json_object_del(json_array_get(taints, 0), "timeAdded");
    dra_default_object(slice, DRA_KIND_RESOURCE_SLICE, 1700000000);
    CHECK_STR(json_string_value(json_object_get(json_array_get(taints, 0), "timeAdded")), "2023-11-14T22:13:20Z");
    json_decref(slice);

    json_t *rule = read_one("taintrule-v1alpha3.yaml");
    dra_default_object(rule, DRA_KIND_DEVICE_TAINT_RULE, 86400);
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_object_get(rule, "spec"), "taint"), "timeAdded")),
              "1970-01-02T00:00:00Z");
    json_decref(rule);
}

UNIT_TEST(load_fixtures_validate_clean)
{
    static const char *const names[] = {"slice-v1beta1.yaml", "claim-v1beta1.yaml",      "template-v1beta1.yaml",
                                        "claim-v1beta2.yaml", "taintrule-v1alpha3.yaml", "class-v1beta1.yaml"};
    for (int i = 0; i < 6; i++) {
        dra_objset set = DRA_OBJSET_INIT;
        char *p = fixture(names[i]);
        dra_err *e = dra_read_path(&set, p);
        free(p);
        CHECK(e == NULL);
        dra_err_free(e);
        dra_model m = DRA_MODEL_INIT;
        e = dra_load(&set, NULL, &m);
        if (e) {
            dra_err_print(stderr, names[i], e);
            *unit_failed = 1;
        }
        dra_err_free(e);
        dra_model_free(&m);
        dra_objset_free(&set);
    }
}

UNIT_MAIN()

/* Pods of 1.27-1.30: spec.resourceClaims[].source moved onto the entry, each
 * change noted; an entry's own field wins (release-1.31 core/v1 types.go). */
UNIT_TEST(claim_sources_are_flattened_with_notes)
{
    json_t *spec = json_loads("{\"resourceClaims\":[{\"name\":\"a\",\"source\":{\"resourceClaimTemplateName\":\"t\"}},"
                              "{\"name\":\"b\",\"resourceClaimName\":\"own\",\"source\":{\"resourceClaimName\":\"x\"}},"
                              "{\"name\":\"c\",\"resourceClaimName\":\"flat\"},{\"name\":\"d\",\"source\":{}}]}",
                              0, NULL);
    dra_err *notes = NULL;
    CHECK_INT(dra_flatten_claim_sources(spec, "spec.template.spec", &notes), 3);
    char *got = json_dumps(json_object_get(spec, "resourceClaims"), JSON_COMPACT);
    CHECK_STR(got,
              "[{\"name\":\"a\",\"resourceClaimTemplateName\":\"t\"},{\"name\":\"b\",\"resourceClaimName\":\"own\"},"
              "{\"name\":\"c\",\"resourceClaimName\":\"flat\"},{\"name\":\"d\"}]");
    free(got);
    CHECK_INT(dra_err_count(notes), 3);
    CHECK(notes && notes->code == DRA_EXIT_OK);
    CHECK_STR(notes ? notes->field : "", "spec.template.spec.resourceClaims[0].source.resourceClaimTemplateName");
    CHECK_STR(notes ? notes->msg : "", "moved to spec.template.spec.resourceClaims[0].resourceClaimTemplateName");
    CHECK_STR(notes && notes->next ? notes->next->msg : "", "dropped: the entry sets resourceClaimName itself");
    CHECK_STR(notes && notes->next && notes->next->next ? notes->next->next->field : "",
              "spec.template.spec.resourceClaims[3].source");
    dra_err_free(notes);
    notes = NULL;
    /* already flat: nothing to do */
    CHECK_INT(dra_flatten_claim_sources(spec, "spec", &notes), 0);
    CHECK(notes == NULL);
    json_decref(spec);
}
