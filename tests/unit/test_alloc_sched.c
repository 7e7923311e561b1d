/* Scheduler pieces of the allocator library: scoring, normalisation, the
 * FitError summary and extended-resource requests. */
#include <stdlib.h>
#include <string.h>

#include "sched/schedule.h"
#include "base/buf.h"
#include "unit.h"

static json_t *J(const char *s)
{
    json_error_t e;
    json_t *j = json_loads(s, 0, &e);
    if (!j)
        fprintf(stderr, "bad JSON in test: %s\n", e.text);
    return j;
}

static const char *FA_CLAIM =
    "{\"spec\":{\"devices\":{\"requests\":["
    "{\"name\":\"a\",\"firstAvailable\":[{\"name\":\"x\"},{\"name\":\"y\"},{\"name\":\"z\"}]},"
    "{\"name\":\"b\",\"exactly\":{\"deviceClassName\":\"c\"}},"
    "{\"name\":\"c\",\"firstAvailable\":[{\"name\":\"p\"},{\"name\":\"q\"}]}]}}}";

UNIT_TEST(score_counts_8_minus_subrequest_index)
{
    json_t *claim = J(FA_CLAIM);
    json_t *alloc = J("{\"devices\":{\"results\":["
                      "{\"request\":\"a/z\",\"device\":\"d1\"},{\"request\":\"a/z\",\"device\":\"d2\"},"
                      "{\"request\":\"b\",\"device\":\"d3\"},{\"request\":\"c/p\",\"device\":\"d4\"}]}}");
    /* a/z: 8-2 = 6 once (a set of subrequests), c/p: 8-0 = 8, b is exactly: 0 */
    CHECK_INT(dra_sched_claim_score(claim, alloc), 14);
    CHECK_INT(dra_sched_claim_max_score(claim), 16);
    CHECK_INT(dra_sched_claim_score(claim, NULL), 0);
    json_decref(claim);
    json_decref(alloc);
}

UNIT_TEST(score_without_first_available_is_zero)
{
    json_t *claim =
        J("{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"b\",\"exactly\":{\"deviceClassName\":\"c\"}}]}}}");
    json_t *alloc = J("{\"devices\":{\"results\":[{\"request\":\"b\"}]}}");
    CHECK_INT(dra_sched_claim_score(claim, alloc), 0);
    CHECK_INT(dra_sched_claim_max_score(claim), 0);
    json_decref(claim);
    json_decref(alloc);
}

UNIT_TEST(normalize_scales_to_100_with_integer_division)
{
    int64_t s[4] = {8, 7, 0, 3};
    dra_sched_normalize(s, 4);
    CHECK_INT(s[0], 100);
    CHECK_INT(s[1], 87);
    CHECK_INT(s[2], 0);
    CHECK_INT(s[3], 37);
    int64_t z[2] = {0, 0};
    dra_sched_normalize(z, 2);
    CHECK_INT(z[0], 0);
    CHECK_INT(z[1], 0);
}

UNIT_TEST(fit_error_histogram_sorted_as_strings)
{
    const char *r[] = {"cannot allocate all claims", "resourceclaim not available on the node",
                       "cannot allocate all claims"};
    char *m = dra_sched_fit_error(r, 3);
    CHECK_STR(m, "0/3 nodes are available: 1 resourceclaim not available on the node, 2 cannot allocate all claims.");
    free(m);
    const char *many[12];
    for (int i = 0; i < 12; i++)
        many[i] = i < 10 ? "b" : "a";
    m = dra_sched_fit_error(many, 12);
    CHECK_STR(m, "0/12 nodes are available: 10 b, 2 a."); /* "10 b" < "2 a" as strings */
    free(m);
    m = dra_sched_fit_error(NULL, 0);
    CHECK_STR(m, "no nodes available to schedule pods");
    free(m);
}

UNIT_TEST(extended_resource_names)
{
    CHECK(dra_is_dra_extended_resource_name("example.com/gpu"));
    CHECK(dra_is_dra_extended_resource_name("deviceclass.resource.kubernetes.io/gpu"));
    CHECK(!dra_is_dra_extended_resource_name("cpu"));
    CHECK(!dra_is_dra_extended_resource_name("kubernetes.io/foo"));
    CHECK(!dra_is_dra_extended_resource_name("requests.example.com/gpu"));
    CHECK(!dra_is_dra_extended_resource_name("example.com/-bad"));
}

UNIT_TEST(extended_resource_map_newer_class_wins_then_smaller_name)
{
    json_t *c[3] = {
        J("{\"metadata\":{\"name\":\"old\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},\"spec\":{"
          "\"extendedResourceName\":\"example.com/gpu\"}}"),
        J("{\"metadata\":{\"name\":\"zz-new\",\"creationTimestamp\":\"2026-02-01T00:00:00Z\"},\"spec\":{"
          "\"extendedResourceName\":\"example.com/gpu\"}}"),
        J("{\"metadata\":{\"name\":\"aa-new\",\"creationTimestamp\":\"2026-02-01T00:00:00Z\"},\"spec\":{"
          "\"extendedResourceName\":\"example.com/gpu\"}}"),
    };
    dra_extres_map *m = dra_extres_map_new(c, 3, NULL);
    CHECK_STR(dra_extres_class(m, "example.com/gpu"), "aa-new");
    CHECK_STR(dra_extres_class(m, "deviceclass.resource.kubernetes.io/old"), "old");
    CHECK(dra_extres_class(m, "example.com/other") == NULL);
    dra_extres_map_free(m);
    for (int i = 0; i < 3; i++)
        json_decref(c[i]);
}

UNIT_TEST(extended_resource_requests_and_init_container_reuse)
{
    json_t *cls = J("{\"metadata\":{\"name\":\"gpu\"},\"spec\":{\"extendedResourceName\":\"example.com/gpu\"}}");
    dra_extres_map *m = dra_extres_map_new(&cls, 1, NULL);
    json_t *pod =
        J("{\"spec\":{"
          "\"initContainers\":[{\"name\":\"i1\",\"resources\":{\"requests\":{\"example.com/gpu\":\"3\"}}},"
          "{\"name\":\"i2\",\"resources\":{\"requests\":{\"example.com/gpu\":\"4\"}}}],"
          "\"containers\":[{\"name\":\"m\",\"resources\":{\"requests\":{\"cpu\":\"1\",\"example.com/gpu\":\"1\"}}}]}}");
    const char *served[] = {"example.com/gpu"};
    json_t *reqs, *maps;
    dra_extres_requests(pod, m, served, 1, &reqs, &maps);
    char *r = json_dumps(reqs, JSON_COMPACT);
    /* i1 needs 3: reuses m's 1 and asks 2 more; i2 asks 3 more, the largest:
     * one short-lived request (container-1-request-0) plus m's request. */
    CHECK_STR(r, "[{\"name\":\"container-1-request-0\",\"exactly\":{\"deviceClassName\":\"gpu\",\"allocationMode\":"
                 "\"ExactCount\",\"count\":3}},"
                 "{\"name\":\"container-2-request-1\",\"exactly\":{\"deviceClassName\":\"gpu\",\"allocationMode\":"
                 "\"ExactCount\",\"count\":1}}]");
    free(r);
    char *mp = json_dumps(maps, JSON_COMPACT);
    CHECK_STR(
        mp,
        "[{\"containerName\":\"m\",\"resourceName\":\"example.com/gpu\",\"requestName\":\"container-2-request-1\"},"
        "{\"containerName\":\"i1\",\"resourceName\":\"example.com/gpu\",\"requestName\":\"container-2-request-1\"},"
        "{\"containerName\":\"i1\",\"resourceName\":\"example.com/gpu\",\"requestName\":\"container-1-request-0\"},"
        "{\"containerName\":\"i2\",\"resourceName\":\"example.com/gpu\",\"requestName\":\"container-2-request-1\"},"
        "{\"containerName\":\"i2\",\"resourceName\":\"example.com/gpu\",\"requestName\":\"container-1-request-0\"}]");
    free(mp);
    json_decref(reqs);
    json_decref(maps);
    json_decref(pod);
    dra_extres_map_free(m);
    json_decref(cls);
}

/* A whole run: node n1 with two devices, a template pod, two pods sharing
 * one claim, and a pod with an extended resource.  The shared claim is
 * allocated for the first pod and only reserved for the second (the state
 * carries what the first did); the template claim is made, allocated and
 * reserved in the same run. */
/* clang-format off */
#define SLICE \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: d.example.com\n" \
    "  nodeName: n1\n  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n" \
    "  devices: [{name: g0}, {name: g1}, {name: g2}]\n---\n"
#define CLASS \
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\n" \
    "spec: {extendedResourceName: example.com/gpu}\n---\n"
#define NODE "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {}}\n---\n"
#define SHARED \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: shared, namespace: ns, uid: su}\n" \
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n---\n"
#define TEMPLATE \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: ns}\n" \
    "spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}}\n---\n"
#define SPOD(name, claims) \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ns, uid: u-" name "}\n" \
    "spec: {containers: [{name: c}], resourceClaims: [" claims "]}\n---\n"
#define EPOD(name) \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ns, uid: u-" name "}\n" \
    "spec: {containers: [{name: c, resources: {requests: {example.com/gpu: \"1\"}}}]}\n---\n"
/* clang-format on */

static const json_t *result_obj(const dra_sched_result *r, const char *kind, const char *name)
{
    for (size_t i = 0; i < r->nobjs; i++) {
        const json_t *md = json_object_get(r->objs[i], "metadata");
        if (!strcmp(json_string_value(json_object_get(r->objs[i], "kind")), kind) &&
            !strcmp(json_string_value(json_object_get(md, "name")), name))
            return r->objs[i];
    }
    return NULL;
}

/* Read and load a dump with one Node; that Node. */
static json_t *load_one_node(int *unit_failed, const char *yaml, dra_objset *set, dra_model *m)
{
    CHECK(dra_read_mem(set, "t.yaml", yaml, strlen(yaml)) == NULL);
    dra_load_opts lo = {.skip_unknown = true, .now = 1767225600};
    dra_err *e = dra_load(set, &lo, m);
    CHECK(e == NULL);
    dra_err_free(e);
    const dra_model_list *nl = dra_model_kind(m, DRA_KIND_NODE);
    return nl->n ? nl->v[0]->json : NULL;
}

UNIT_TEST(schedule_reserves_claims_of_earlier_pods_in_the_same_run)
{
    const char *yaml = SLICE CLASS NODE SHARED TEMPLATE SPOD("a", "{name: g, resourceClaimName: shared}")
        SPOD("b", "{name: g, resourceClaimName: shared}") SPOD("t", "{name: g, resourceClaimTemplateName: t}")
            EPOD("e");
    dra_objset set = DRA_OBJSET_INIT;
    dra_model m = DRA_MODEL_INIT;
    json_t *node = load_one_node(unit_failed, yaml, &set, &m);
    dra_sched_opts so = {.now = 1767225600, .name_suffix = DRA_NAME_SUFFIX_NONE};
    dra_sched_result r;
    dra_cluster c = DRA_CLUSTER_INIT;
    CHECK(dra_cluster_adopt(&c, &set, &m) == NULL);
    CHECK(dra_schedule(&c, &node, 1, &so, &r) == NULL);
    CHECK_INT(r.npods, 4);
    CHECK_INT(r.stats.scheduled, 4);
    const json_t *shared = result_obj(&r, "ResourceClaim", "shared");
    CHECK(shared != NULL);
    json_t *rf = json_object_get(json_object_get(shared, "status"), "reservedFor");
    CHECK_INT(json_array_size(rf), 2);
    CHECK_STR(json_string_value(json_object_get(json_array_get(rf, 1), "uid")), "u-b");
    CHECK_INT(json_array_size(json_object_get(json_object_get(shared, "metadata"), "finalizers")), 1);
    /* allocationTimestamp (DRADeviceBindingConditions and DRAResourceClaimDeviceStatus are on by default) */
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_object_get(shared, "status"), "allocation"),
                                                "allocationTimestamp")),
              "2026-01-01T00:00:00Z");
    const json_t *made = result_obj(&r, "ResourceClaim", "t-g");
    CHECK(made != NULL);
    CHECK_STR(json_string_value(json_object_get(
                  json_array_get(json_object_get(json_object_get(made, "status"), "reservedFor"), 0), "name")),
              "t");
    const json_t *ext = result_obj(&r, "ResourceClaim", "e-extended-resources");
    CHECK(ext != NULL);
    const json_t *epod = result_obj(&r, "Pod", "e");
    CHECK_STR(
        json_string_value(json_object_get(
            json_object_get(json_object_get(epod, "status"), "extendedResourceClaimStatus"), "resourceClaimName")),
        "e-extended-resources");
    /* order: input claims, created claims (template first, then extended), pods */
    CHECK(r.nobjs == 7 && r.objs[0] == shared && r.objs[1] == made && r.objs[2] == ext);
    dra_sched_result_free(&r);
    dra_cluster_free(&c);
    dra_model_free(&m);
    dra_objset_free(&set);
}

/* text_results: created claims held as text give the same objects, in the
 * same order, as trees. */
UNIT_TEST(schedule_text_results_are_the_same_objects)
{
    const char *yaml = SLICE CLASS NODE SHARED TEMPLATE SPOD("a", "{name: g, resourceClaimName: shared}")
        SPOD("t", "{name: g, resourceClaimTemplateName: t}") EPOD("e")
            SPOD("u", "{name: g, resourceClaimTemplateName: t}");
    dra_objset set = DRA_OBJSET_INIT;
    dra_model m = DRA_MODEL_INIT;
    json_t *node = load_one_node(unit_failed, yaml, &set, &m);
    dra_sched_opts so = {.now = 1767225600, .name_suffix = DRA_NAME_SUFFIX_NONE};
    dra_sched_result trees, texts;
    dra_cluster c = DRA_CLUSTER_INIT;
    CHECK(dra_cluster_adopt(&c, &set, &m) == NULL);
    CHECK(dra_schedule(&c, &node, 1, &so, &trees) == NULL);
    so.text_results = true;
    CHECK(dra_schedule(&c, &node, 1, &so, &texts) == NULL);
    CHECK_INT(texts.nobjs, trees.nobjs);
    CHECK(trees.texts == NULL && texts.texts != NULL);
    size_t ntext = 0;
    for (size_t i = 0; i < texts.nobjs && i < trees.nobjs; i++) {
        ntext += texts.objs[i] == NULL;
        json_t *a = dra_sched_result_obj(&trees, i), *b = dra_sched_result_obj(&texts, i);
        char *sa = json_dumps(a, JSON_COMPACT), *sb = json_dumps(b, JSON_COMPACT);
        CHECK_STR(sb, sa);
        free(sa);
        free(sb);
        json_decref(a);
        json_decref(b);
    }
    CHECK_INT(ntext,
              3); /* two claims from the template (u's not allocated: three devices), the extended-resources claim */
    CHECK_INT(texts.stats.scheduled, 3);
    dra_sched_result_free(&trees);
    dra_sched_result_free(&texts);
    dra_cluster_free(&c);
    dra_model_free(&m);
    dra_objset_free(&set);
}

/* Pods pinned to nodes by name (matchFields metadata.name In [node], as the
 * DaemonSet controller writes) visit only the nodes named; what they get,
 * the messages and the node-check count are those of walking every node.
 * A selector that is an error (two values) pins nothing. */
/* clang-format off */
#define PSLICE(n) \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s-" n "}\nspec:\n  driver: d.example.com\n" \
    "  nodeName: " n "\n  pool: {name: " n ", generation: 1, resourceSliceCount: 1}\n  devices: [{name: g0}]\n---\n"
#define PNODE(n) "apiVersion: v1\nkind: Node\nmetadata: {name: " n "}\n---\n"
#define PPOD(name, terms) \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ns, uid: u-" name "}\n" \
    "spec: {containers: [{name: c}], resourceClaims: [{name: g, resourceClaimTemplateName: t}],\n" \
    "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: " terms "}}}}\n---\n"
/* clang-format on */
#define PIN(n) "{matchFields: [{key: metadata.name, operator: In, values: [" n "]}]}"

UNIT_TEST(schedule_pods_pinned_by_name_visit_only_their_nodes)
{
    const char *yaml =
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {}\n---\n" TEMPLATE PSLICE(
            "n1") PSLICE("n2") PSLICE("n3") PNODE("n3") PNODE("n1") PNODE("n2") PPOD("a", "[" PIN("n3") "]")
            PPOD("b", "[" PIN("n3") "]") PPOD("c", "[" PIN("n1, n2") "]")
                PPOD("d", "[{}, " PIN("nx") ", " PIN("n2") "]");
    dra_objset set = DRA_OBJSET_INIT;
    dra_model m = DRA_MODEL_INIT;
    CHECK(dra_read_mem(&set, "t.yaml", yaml, strlen(yaml)) == NULL);
    dra_load_opts lo = {.skip_unknown = true, .now = 1767225600};
    dra_err *e = dra_load(&set, &lo, &m);
    CHECK(e == NULL);
    dra_err_free(e);
    const dra_model_list *nl = dra_model_kind(&m, DRA_KIND_NODE);
    json_t *nodes[3];
    for (size_t i = 0; i < 3 && i < nl->n; i++)
        nodes[i] = nl->v[i]->json;
    dra_sched_opts so = {.now = 1767225600, .name_suffix = DRA_NAME_SUFFIX_NONE};
    dra_sched_result r;
    bool three = nl->n == 3;
    dra_cluster c = DRA_CLUSTER_INIT;
    CHECK(dra_cluster_adopt(&c, &set, &m) == NULL);
    CHECK(three && dra_schedule(&c, nodes, 3, &so, &r) == NULL);
    CHECK_INT(r.npods, 4);
    if (r.npods == 4) {
        CHECK_STR(r.pods[0].node, "n3");
        CHECK(r.pods[1].outcome == DRA_POD_UNSCHEDULABLE);
        CHECK_STR(r.pods[1].message, "0/3 nodes are available: 1 cannot allocate all claims, "
                                     "2 node(s) didn't match Pod's node affinity/selector.");
        CHECK_STR(r.pods[2].node, "n1"); /* two values: an error, every node accepted */
        CHECK_STR(r.pods[3].node, "n2");
    }
    CHECK_INT(r.stats.nodes_checked, 3 + 3 + 1 + 2); /* up to the node taken, or all */
    dra_sched_result_free(&r);
    dra_cluster_free(&c);
    dra_model_free(&m);
    dra_objset_free(&set);
}

UNIT_MAIN()
