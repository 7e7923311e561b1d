/* Classic DRA (resource.k8s.io/v1alpha2): kinds, validation, conversion to
 * v1, and the scheduler's side of the PodSchedulingContext negotiation with a
 * callback playing the driver's controller. */
#include <string.h>

#include "io/stream.h"
#include "model/classic.h"
#include "model/load.h"
#include "sched/classic.h"
#include "unit.h"

static const char CLUSTER[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
    "apiVersion: v1\nkind: Node\nmetadata: {name: n2}\n---\n"
    "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClass\nmetadata: {name: c}\ndriverName: d.example.com\n"
    "parametersRef: {kind: P, name: p}\n---\n"
    "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: ns}\n"
    "spec: {spec: {resourceClassName: c}}\n---\n"
    "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: now, namespace: ns}\n"
    "spec: {resourceClassName: c, allocationMode: Immediate}\n---\n"
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u1}\n"
    "spec:\n  resourceClaims:\n  - name: gpu\n    source: {resourceClaimTemplateName: t}\n  containers: [{name: c}]\n";

static dra_err *load(dra_objset *set, dra_model *m, const char *text)
{
    dra_err *e = dra_read_mem(set, "c.yaml", text, strlen(text));
    if (!e) {
        dra_load_opts lo = {.skip_unknown = true};
        e = dra_load(set, &lo, m);
    }
    return e;
}

UNIT_TEST(kinds_and_era_pods)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_model m = DRA_MODEL_INIT;
    CHECK(load(&set, &m, CLUSTER) == NULL);
    CHECK_INT(dra_model_kind(&m, DRA_KIND_RESOURCE_CLASS)->n, 1);
    CHECK_INT(dra_model_kind(&m, DRA_KIND_CLASSIC_CLAIM)->n, 1);
    CHECK_INT(dra_model_kind(&m, DRA_KIND_CLASSIC_CLAIM_TEMPLATE)->n, 1);
    CHECK_INT(dra_model_kind(&m, DRA_KIND_RESOURCE_CLAIM)->n, 0);
    /* defaulted, never converted */
    const dra_obj *t = dra_model_find(&m, DRA_KIND_CLASSIC_CLAIM_TEMPLATE, "ns", "t");
    CHECK(t && strcmp(json_string_value(json_object_get(t->json, "apiVersion")), "resource.k8s.io/v1alpha2") == 0);
    CHECK(t && strcmp(json_string_value(
                          json_object_get(json_object_get(json_object_get(t->json, "spec"), "spec"), "allocationMode")),
                      "WaitForFirstConsumer") == 0);
    /* the era pod's source is the flat field now */
    const dra_obj *p = dra_model_pod(&m, "ns", "p");
    json_t *c0 = p ? json_array_get(json_object_get(json_object_get(p->json, "spec"), "resourceClaims"), 0) : NULL;
    CHECK(c0 && json_is_string(json_object_get(c0, "resourceClaimTemplateName")) && !json_object_get(c0, "source"));
    dra_model_free(&m);
    dra_objset_free(&set);
}

UNIT_TEST(validation)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_model m = DRA_MODEL_INIT;
    dra_err *e = load(&set, &m,
                      "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns1}\n"
                      "spec: {resourceClassName: c, allocationMode: Later}\nstatus: {deallocationRequested: true}\n");
    CHECK_INT(dra_err_count(e), 2);
    CHECK(e && strcmp(e->field, "spec.allocationMode") == 0);
    CHECK(e && e->next && strcmp(e->next->field, "status.deallocationRequested") == 0);
    dra_err_free(e);
    dra_model_free(&m);
    dra_objset_free(&set);
}

UNIT_TEST(convert)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_model m = DRA_MODEL_INIT;
    CHECK(load(&set, &m, CLUSTER) == NULL);
    dra_classic_result r = {0};
    dra_classic_convert(&set, &m, &r);
    CHECK_INT(r.classic, 3);
    CHECK_INT(r.n, 3);
    CHECK_STR(json_string_value(json_object_get(r.objs[0], "kind")), "DeviceClass");
    CHECK_INT(dra_err_count(r.lost), 2); /* the class's parametersRef, the claim's Immediate */
    CHECK(r.lost && strcmp(r.lost->field, "parametersRef") == 0 && r.lost->line == 13);
    dra_classic_result_free(&r);
    dra_model_free(&m);
    dra_objset_free(&set);
}

/* A controller: n1 is unsuitable; allocations on the selected node. */
static int asked;
static dra_err *fake(void *ctx, const char *driver, const json_t *q, json_t **answer)
{
    (void)ctx;
    asked++;
    if (strcmp(driver, "d.example.com") != 0)
        return dra_err_new(DRA_EXIT_RUNTIME, "wrong driver %s", driver);
    const char *sel = json_string_value(json_object_get(q, "selectedNode"));
    const char *mode =
        json_string_value(json_object_get(json_object_get(json_object_get(q, "claim"), "spec"), "allocationMode"));
    if (!sel && mode && strcmp(mode, "Immediate") == 0)
        *answer = json_pack("{s:{s:[{s:s}]}}", "allocation", "resourceHandles", "data", "x");
    else if (!sel || strcmp(sel, "n1") == 0)
        *answer = json_pack("{s:[s]}", "unsuitableNodes", "n1");
    else
        *answer =
            json_pack("{s:{s:{s:[{s:[{s:s,s:s,s:[s]}]}]}}}", "allocation", "availableOnNodes", "nodeSelectorTerms",
                      "matchFields", "key", "metadata.name", "operator", "In", "values", sel);
    return NULL;
}

UNIT_TEST(schedule)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_model m = DRA_MODEL_INIT;
    CHECK(load(&set, &m, CLUSTER) == NULL);
    json_t *nodes[2] = {dra_model_node(&m, "n1")->json, dra_model_node(&m, "n2")->json};
    const char *drivers[] = {"d.example.com"};
    dra_classic_sched_opts o = {drivers, 1, fake, NULL};
    dra_classic_sched_result r = {0};
    asked = 0;
    dra_cluster c = DRA_CLUSTER_INIT;
    CHECK(dra_cluster_adopt(&c, &set, &m) == NULL);
    CHECK(dra_classic_schedule(&c, nodes, 2, &o, &r) == NULL);
    CHECK_INT(asked, 3); /* the Immediate claim; the potential nodes; n2 selected */
    CHECK_INT(r.npods, 1);
    CHECK(r.npods && r.pods[0].scheduled && strcmp(r.pods[0].node, "n2") == 0);
    CHECK_INT(r.nobjs, 4); /* the Immediate claim, the made claim, the context, the pod */
    dra_classic_sched_result_free(&r);

    /* a failing controller ends the run */
    dra_classic_sched_opts bad = {(const char *[]){"other"}, 1, fake, NULL};
    CHECK(dra_classic_schedule(&c, nodes, 2, &bad, &r) == NULL); /* d.example.com has no controller: pending */
    CHECK(r.npods == 1 && !r.pods[0].scheduled && strstr(r.pods[0].message, "waiting for resource driver"));
    dra_classic_sched_result_free(&r);
    dra_cluster_free(&c);
    dra_model_free(&m);
    dra_objset_free(&set);
}

UNIT_MAIN()
