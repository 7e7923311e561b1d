/* Fleet insight engines: the allocation diff (insight/diff.h). */
#include <stdlib.h>
#include <string.h>

#include "insight/capacity.h"
#include "insight/diff.h"
#include "insight/quota.h"
#include "insight/whatif.h"
#include "io/json.h"
#include "unit.h"

typedef struct side {
    dra_objset set;
    dra_model m;
} side;

static void load(side *s, const char *yaml)
{
    memset(s, 0, sizeof *s);
    dra_err *e = dra_read_mem(&s->set, "t.yaml", yaml, strlen(yaml));
    dra_load_opts lo = {.skip_unknown = true};
    if (!e)
        e = dra_load(&s->set, &lo, &s->m);
    dra_err_free(e);
}

static void unload(side *s)
{
    dra_model_free(&s->m);
    dra_objset_free(&s->set);
}

/* clang-format off */
#define CLAIM(name, dev, node) \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " name ", namespace: ns, uid: u-" name "}\n" \
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n" \
    "status: {allocation: {devices: {results: [{request: r, driver: d.example.com, pool: p, device: " dev "}]},\n" \
    "  nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [" node "]}]}]}}}\n---\n"
#define POD(name, node) "apiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ns, uid: u-" name "}\n" \
                        "spec: {nodeName: " node ", containers: [{name: c, image: x}]}\n---\n"
/* clang-format on */

UNIT_TEST(diff_equal_and_moved)
{
    side a, b;
    load(&a, CLAIM("c1", "x", "n1") CLAIM("c2", "z", "n1") POD("p", "n1"));
    load(&b, CLAIM("c1", "x", "n1") CLAIM("c2", "w", "n2") POD("p", "n2"));
    json_t *r = dra_diff_models(&a.m, &a.m);
    CHECK(!dra_diff_differs(r));
    CHECK_INT(json_integer_value(dra_jget(r, "summary.unchanged")), 2);
    json_decref(r);
    r = dra_diff_models(&a.m, &b.m);
    CHECK(dra_diff_differs(r));
    CHECK_INT(json_array_size(dra_jget(r, "changes")), 2);
    const json_t *c = json_array_get(dra_jget(r, "changes"), 0);
    CHECK_STR(dra_jstr(c, "name"), "c2");
    CHECK_STR(dra_jstr(c, "node.from"), "n1");
    CHECK_STR(dra_jstr(c, "node.to"), "n2");
    CHECK_STR(dra_jstr(json_array_get(dra_jget(c, "devices.added"), 0), "device"), "w");
    CHECK_INT(json_integer_value(dra_jget(r, "summary.podsMoved")), 1);
    dra_buf t = DRA_BUF_INIT;
    dra_diff_text(r, &t);
    CHECK(strstr(dra_buf_str(&t),
                 "ResourceClaim ns/c2: devices -d.example.com/p/z (r) +d.example.com/p/w (r); node n1 -> n2\n"));
    CHECK(strstr(dra_buf_str(&t), "Pod ns/p: node n1 -> n2\n"));
    dra_buf_free(&t);
    json_decref(r);
    unload(&a);
    unload(&b);
}

/* Records of each side's claims and Pods, keeping their objects whole. */
static void records_of(const side *s, dra_compact *cp)
{
    memset(cp, 0, sizeof *cp);
    dra_compact_keep_whole(cp);
    const dra_model_list *cl = dra_model_kind(&s->m, DRA_KIND_RESOURCE_CLAIM);
    for (size_t i = 0; i < cl->n; i++)
        dra_compact_claim(cp, cl->v[i]->json);
    const dra_model_list *pl = dra_model_kind(&s->m, DRA_KIND_POD);
    for (size_t i = 0; i < pl->n; i++)
        dra_compact_pod(cp, pl->v[i]->json);
}

/* The diff of records is the diff of the objects: changed, added, removed
 * (both ways), moved Pods, config and reservations. */
UNIT_TEST(diff_records_as_objects)
{
    static const char *const yamls[][2] = {
        {CLAIM("c1", "x", "n1") CLAIM("c2", "z", "n1") POD("p", "n1"),
         CLAIM("c1", "x", "n1") CLAIM("c2", "w", "n2") POD("p", "n2")},
        {CLAIM("gone", "x", "n1") POD("p", "n1") POD("q", "n1"), CLAIM("new", "y", "n1") POD("p", "n1")},
        {"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns, uid: u}\n"
         "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n"
         "status: {allocation: {devices: {results: [{request: r, driver: d.example.com, pool: p, device: x}],\n"
         "  config: [{source: FromClaim, opaque: {driver: d.example.com, parameters: {a: 1}}}]}},\n"
         "  reservedFor: [{resource: pods, name: p, uid: u-p}]}\n",
         CLAIM("c", "x", "n1")},
    };
    for (size_t k = 0; k < sizeof yamls / sizeof *yamls; k++) {
        for (int way = 0; way < 2; way++) {
            side a, b;
            load(&a, yamls[k][way]);
            load(&b, yamls[k][!way]);
            dra_compact ra, rb;
            records_of(&a, &ra);
            records_of(&b, &rb);
            json_t *want = dra_diff_models(&a.m, &b.m), *got = dra_diff_records(&ra, &rb);
            CHECK(dra_diff_differs(want));
            CHECK(json_equal(want, got));
            json_decref(want);
            json_decref(got);
            dra_compact_free(&ra);
            dra_compact_free(&rb);
            unload(&a);
            unload(&b);
        }
    }
}

UNIT_TEST(alloc_node_forms)
{
    json_t *a = json_loads("{\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\","
                           "\"operator\":\"In\",\"values\":[\"n1\"]}]}]}}",
                           0, NULL);
    char *s = dra_diff_alloc_node(a);
    CHECK_STR(s, "n1");
    free(s);
    json_decref(a);
    a = json_loads("{\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\","
                   "\"operator\":\"In\",\"values\":[\"a\"]}]}]}}",
                   0, NULL);
    s = dra_diff_alloc_node(a);
    CHECK(s && strstr(s, "\"zone\""));
    free(s);
    json_decref(a);
    a = json_object();
    s = dra_diff_alloc_node(a);
    CHECK_STR(s, "");
    free(s);
    json_decref(a);
    CHECK(dra_diff_alloc_node(NULL) == NULL);
}

UNIT_TEST(whatif_taint_rule)
{
    json_t *r = NULL;
    dra_err *e = dra_whatif_taint_rule("d.example.com/p:example.com/k=v:NoExecute", 2, &r);
    CHECK(!e);
    CHECK_STR(dra_jstr(r, "metadata.name"), "whatif-taint-2");
    CHECK_STR(dra_jstr(r, "spec.deviceSelector.driver"), "d.example.com");
    CHECK_STR(dra_jstr(r, "spec.deviceSelector.pool"), "p");
    CHECK(!dra_jget(r, "spec.deviceSelector.device"));
    CHECK_STR(dra_jstr(r, "spec.taint.key"), "example.com/k");
    CHECK_STR(dra_jstr(r, "spec.taint.value"), "v");
    CHECK_STR(dra_jstr(r, "spec.taint.effect"), "NoExecute");
    json_decref(r);
    e = dra_whatif_taint_rule("d/p/x:k:None", 0, &r);
    CHECK(!e && !dra_jget(r, "spec.taint.value") && dra_jstr(r, "spec.deviceSelector.device"));
    json_decref(r);
    static const char *const bad[] = {"d", "d:k", ":k:NoSchedule", "d:=v:NoSchedule", "d:k:Never", "a/b/c/d:k:None"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = NULL;
        e = dra_whatif_taint_rule(bad[i], 0, &r);
        CHECK(e && e->code == DRA_EXIT_INPUT && !r);
        dra_err_free(e);
    }
}

UNIT_TEST(whatif_drain_releases_claims)
{
    side a;
    load(&a, "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n" CLAIM("c1", "x", "n1") POD("p", "n1")
                 POD("q", "n2"));
    /* the pod names its claim directly */
    json_t *pod = (json_t *)dra_model_pod(&a.m, "ns", "p")->json;
    json_object_set_new(json_object_get(pod, "spec"), "resourceClaims",
                        json_pack("[{s:s,s:s}]", "name", "gpu", "resourceClaimName", "c1"));
    const char *drain[] = {"n1"};
    dra_whatif_spec sp = {.drain = drain, .ndrain = 1};
    json_t *lost = NULL;
    dra_err *e = dra_whatif_apply(&a.m, &sp, &lost);
    CHECK(!e);
    CHECK_INT(json_array_size(lost), 1);
    CHECK_STR(dra_jstr(json_array_get(lost, 0), "pod"), "ns/p");
    CHECK_STR(dra_jstr(json_array_get(lost, 0), "reason"), "node n1 drained");
    CHECK(!dra_jget(pod, "spec.nodeName"));
    CHECK(!dra_jget(dra_model_claim(&a.m, "ns", "c1")->json, "status.allocation"));
    CHECK(dra_whatif_drained(&sp, "n1") && !dra_whatif_drained(&sp, "n2"));
    json_decref(lost);
    const char *unknown[] = {"n9"};
    dra_whatif_spec sp2 = {.drain = unknown, .ndrain = 1};
    e = dra_whatif_apply(&a.m, &sp2, &lost);
    CHECK(e && strstr(e->msg, "node n9 is not in the input") && !lost);
    dra_err_free(e);
    unload(&a);
}

UNIT_TEST(quota_usage_and_refusal)
{
    side a;
    load(&a, "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: ns}\n"
             "spec: {hard: {count/resourceclaims.resource.k8s.io: '1', cpu: '4'}}\n---\n" CLAIM("c1", "x", "n1")
                 CLAIM("c2", "z", "n1"));
    json_t *u = dra_quota_claim_usage(dra_model_claim(&a.m, "ns", "c1")->json, &a.m, NULL);
    CHECK_INT(json_integer_value(json_object_get(u, "count/resourceclaims.resource.k8s.io")), 1);
    CHECK_INT(json_integer_value(json_object_get(u, "gpu.deviceclass.resource.k8s.io/devices")), 1);
    json_decref(u);
    json_t *r = NULL;
    dra_cluster c = DRA_CLUSTER_INIT;
    dra_err *e = dra_cluster_adopt(&c, &a.set, &a.m);
    CHECK(!e);
    e = dra_quota_evaluate(&c, NULL, &r);
    CHECK(!e);
    const json_t *q = json_array_get(dra_jget(r, "quotas"), 0);
    CHECK_INT(json_object_size(dra_jget(q, "resources")), 1); /* cpu is not DRA's */
    CHECK_INT(json_array_size(dra_jget(r, "refused")), 1);
    CHECK_STR(dra_jstr(json_array_get(dra_jget(r, "refused"), 0), "message"),
              "resourceclaims.resource.k8s.io \"c2\" is forbidden: exceeded quota: q, requested: "
              "count/resourceclaims.resource.k8s.io=1, used: count/resourceclaims.resource.k8s.io=1, limited: "
              "count/resourceclaims.resource.k8s.io=1");
    json_decref(r);
    dra_cluster_free(&c);
    unload(&a);
}

UNIT_TEST(quota_ledger_starts_from_status_used_or_the_claims)
{
    side a;
    /* q1 lists count in status.used (0): the claims of the input are not
     * counted again; q2 does not: the quota controller's figure, 2 */
    load(&a, "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q1, namespace: ns}\n"
             "spec: {hard: {count/resourceclaims.resource.k8s.io: '3'}}\n"
             "status: {used: {count/resourceclaims.resource.k8s.io: '0'}}\n---\n"
             "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q2, namespace: ns}\n"
             "spec: {hard: {gpu.deviceclass.resource.k8s.io/devices: '3'}}\n---\n" CLAIM("c1", "x", "n1")
                 CLAIM("c2", "z", "n1"));
    dra_quota_ledger *l = NULL;
    dra_err *e = dra_quota_ledger_new(&a.set, &a.m, NULL, true, &l);
    CHECK(!e && l);
    const json_t *c1 = dra_model_claim(&a.m, "ns", "c1")->json;
    char *m = dra_quota_admit(l, c1); /* q2: 2 + 1 = 3 fits */
    CHECK(!m);
    m = dra_quota_admit(l, c1); /* q2: 3 + 1 > 3 */
    CHECK(m &&
          strstr(m, "exceeded quota: q2, requested: gpu.deviceclass.resource.k8s.io/devices=1, used: "
                    "gpu.deviceclass.resource.k8s.io/devices=3, limited: gpu.deviceclass.resource.k8s.io/devices=3"));
    free(m);
    json_t *r = dra_quota_ledger_report(l);
    const json_t *res1 = dra_jget(json_array_get(dra_jget(r, "quotas"), 0), "resources");
    const json_t *count = json_object_get(res1, "count/resourceclaims.resource.k8s.io");
    CHECK_INT(json_integer_value(json_object_get(count, "start")), 0);
    CHECK_INT(json_integer_value(json_object_get(count, "used")), 1);
    CHECK(json_is_true(json_object_get(count, "fromStatus")));
    CHECK_INT(json_array_size(dra_jget(r, "charged")), 1);
    CHECK_INT(json_array_size(dra_jget(r, "refused")), 1);
    json_decref(r);
    dra_quota_ledger_free(l);
    unload(&a);
}

/* The claims of a model one at a time, as a reader of claims held out of
 * memory gives them to dra_quota_ledger_new_each. */
typedef struct feed {
    const dra_model_list *claims;
    size_t i;
} feed;

static const json_t *feed_next(void *ctx)
{
    feed *f = ctx;
    return f->i < f->claims->n ? f->claims->v[f->i++]->json : NULL;
}

/* Claims given one at a time start the ledger where the model's do, and the
 * model's own claims are then not counted. */
UNIT_TEST(quota_ledger_from_claims_one_at_a_time)
{
    side a, b;
    const char *quotas = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q2, namespace: ns}\n"
                         "spec: {hard: {gpu.deviceclass.resource.k8s.io/devices: '3'}}\n---\n";
    char *with = dra_xasprintf("%s" CLAIM("c1", "x", "n1") CLAIM("c2", "z", "n1"), quotas);
    load(&a, with);
    load(&b, quotas);
    free(with);
    dra_quota_ledger *l1 = NULL, *l2 = NULL;
    CHECK(!dra_quota_ledger_new(&a.set, &a.m, NULL, true, &l1) && l1);
    feed f = {dra_model_kind(&a.m, DRA_KIND_RESOURCE_CLAIM), 0};
    CHECK(!dra_quota_ledger_new_each(&b.set, &b.m, NULL, feed_next, &f, &l2) && l2);
    CHECK_INT(f.i, 2);
    json_t *r1 = dra_quota_ledger_report(l1), *r2 = dra_quota_ledger_report(l2);
    const json_t *dev = json_object_get(dra_jget(json_array_get(dra_jget(r2, "quotas"), 0), "resources"),
                                        "gpu.deviceclass.resource.k8s.io/devices");
    CHECK_INT(json_integer_value(json_object_get(dev, "start")), 2);
    CHECK(json_equal(r1, r2));
    json_decref(r1);
    json_decref(r2);
    dra_quota_ledger_free(l1);
    dra_quota_ledger_free(l2);
    /* the model's claims are not counted when they come one at a time */
    f.i = f.claims->n;
    CHECK(!dra_quota_ledger_new_each(&a.set, &a.m, NULL, feed_next, &f, &l2) && l2);
    r2 = dra_quota_ledger_report(l2);
    dev = json_object_get(dra_jget(json_array_get(dra_jget(r2, "quotas"), 0), "resources"),
                          "gpu.deviceclass.resource.k8s.io/devices");
    CHECK_INT(json_integer_value(json_object_get(dev, "start")), 0);
    json_decref(r2);
    dra_quota_ledger_free(l2);
    unload(&a);
    unload(&b);
}

/* Claims kept as text and admitted one at a time answer as the model's
 * claims do, in the same order. */
UNIT_TEST(quota_evaluate_claims_kept_as_text)
{
    side a, b;
    const char *quotas = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: ns}\n"
                         "spec: {hard: {count/resourceclaims.resource.k8s.io: '1'}}\n---\n";
    char *with = dra_xasprintf("%s" CLAIM("c1", "x", "n1") CLAIM("c2", "z", "n1"), quotas);
    load(&a, with);
    load(&b, quotas);
    free(with);
    dra_fleet_claims texts = {0};
    const dra_model_list *cl = dra_model_kind(&a.m, DRA_KIND_RESOURCE_CLAIM);
    for (size_t i = 0; i < cl->n; i++)
        dra_fleet_claims_keep(&texts, cl->v[i]->json);
    json_t *r1 = NULL, *r2 = NULL;
    dra_cluster c = DRA_CLUSTER_INIT;
    CHECK(!dra_cluster_adopt(&c, &a.set, &a.m));
    CHECK(!dra_quota_evaluate(&c, NULL, &r1));
    dra_quota_feed tf = {&texts, 0, NULL};
    CHECK(!dra_quota_evaluate_each(&b.set, &b.m, NULL, dra_quota_feed_next, &tf, &r2));
    dra_quota_feed_end(&tf);
    CHECK_INT(tf.i, 2);
    CHECK_STR(dra_jstr(json_array_get(dra_jget(r2, "refused"), 0), "claim"), "ns/c2");
    CHECK(json_equal(r1, r2));
    json_decref(r1);
    json_decref(r2);
    dra_fleet_claims_free(&texts);
    dra_cluster_free(&c);
    unload(&a);
    unload(&b);
}

static int ledgers;
static void count_ledger(void *ctx, dra_quota_ledger *l, bool changed)
{
    ledgers += 1 + changed;
    dra_quota_ledger_free(l);
}

/* The whole what-if over two clusters: the drained node's pod loses its
 * device and the changed input's run places it on the other node. */
UNIT_TEST(whatif_run_drain_moves_the_pod)
{
    const char *yaml =
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {}\n---\n"
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n---\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\nspec: {driver: d.example.com, "
        "nodeName: n1, pool: {name: p, generation: 1, resourceSliceCount: 1}, devices: [{name: x}]}\n---\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s2}\nspec: {driver: d.example.com, "
        "nodeName: n2, pool: {name: q, generation: 1, resourceSliceCount: 1}, devices: [{name: g1}]}\n---\n" CLAIM(
            "c1", "x", "n1") "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u-p}\n"
                             "spec: {nodeName: n1, containers: [{name: c, image: x}], resourceClaims: [{name: g, "
                             "resourceClaimName: c1}]}\n---\n";
    side a, b;
    load(&a, yaml);
    load(&b, yaml);
    dra_cluster before = DRA_CLUSTER_INIT, after = DRA_CLUSTER_INIT;
    CHECK(dra_cluster_adopt(&before, &a.set, &a.m) == NULL);
    CHECK(dra_cluster_adopt(&after, &b.set, &b.m) == NULL);
    CHECK(before.set == &a.set && dra_model_kind(&before.model, DRA_KIND_POD)->n == 1);
    const char *drain[] = {"n1"};
    dra_whatif_spec sp = {.drain = drain, .ndrain = 1};
    dra_whatif_opts o = {.sched = {.now = 1767225600, .name_suffix = DRA_NAME_SUFFIX_NONE},
                         .ledger_done = count_ledger};
    dra_whatif_result r;
    ledgers = 0;
    dra_err *e = dra_whatif_run(&before, &after, &sp, &o, &r);
    CHECK(!e);
    dra_err_free(e);
    CHECK_INT(ledgers, 3); /* both runs told, the input's first */
    CHECK_INT(json_integer_value(dra_jget(r.report, "summary.lost")), 1);
    CHECK_INT(r.after.npods, 1);
    if (r.after.npods == 1)
        CHECK_STR(r.after.pods[0].node, "n2");
    CHECK(dra_whatif_hurts(r.report));
    dra_whatif_result_free(&r);
    dra_cluster_free(&before);
    dra_cluster_free(&after);
    unload(&a);
    unload(&b);
}

/* What the changing hook was told: the objects, and how many runs were
 * done by then. */
typedef struct told {
    const json_t *objs[4];
    size_t n;
    int ledgers_then;
} told;

static void tell_changing(void *ctx, json_t *obj)
{
    told *t = ctx;
    if (t->n < 4)
        t->objs[t->n++] = obj;
    t->ledgers_then = ledgers;
}

/* A caller sharing objects between the two inputs is told of each object
 * of the changed input before a change changes it, once the input as given
 * was scheduled: the released claim and Pod, the slice a device leaves. */
UNIT_TEST(whatif_run_tells_what_changes)
{
    const char *yaml =
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {}\n---\n"
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\nspec: {driver: d.example.com, "
        "nodeName: n1, pool: {name: p, generation: 1, resourceSliceCount: 1}, devices: [{name: x}, {name: "
        "z}]}\n---\n" CLAIM("c1", "x",
                            "n1") "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u-p}\n"
                                  "spec: {nodeName: n1, containers: [{name: c, image: x}], resourceClaims: [{name: g, "
                                  "resourceClaimName: c1}]}\n---\n";
    side a, b;
    load(&a, yaml);
    load(&b, yaml);
    dra_cluster before = DRA_CLUSTER_INIT, after = DRA_CLUSTER_INIT;
    CHECK(dra_cluster_adopt(&before, &a.set, &a.m) == NULL);
    CHECK(dra_cluster_adopt(&after, &b.set, &b.m) == NULL);
    const char *rm[] = {"d.example.com/p/x"};
    dra_whatif_spec sp = {.remove = rm, .nremove = 1};
    told t = {.n = 0};
    dra_whatif_opts o = {.sched = {.now = 1767225600, .name_suffix = DRA_NAME_SUFFIX_NONE},
                         .ledger_done = count_ledger,
                         .changing = tell_changing,
                         .ctx = &t};
    dra_whatif_result r;
    ledgers = 0;
    dra_err *e = dra_whatif_run(&before, &after, &sp, &o, &r);
    CHECK(!e);
    dra_err_free(e);
    CHECK_INT(t.ledgers_then, 1); /* after the input as given, before the changed input */
    CHECK_INT(t.n, 3);
    CHECK(t.objs[0] == dra_model_kind(&after.model, DRA_KIND_RESOURCE_SLICE)->v[0]->json);
    CHECK(t.objs[1] == dra_model_claim(&after.model, "ns", "c1")->json);
    CHECK(t.objs[2] == dra_model_pod(&after.model, "ns", "p")->json);
    /* the input as given (a copy of its own here) is not changed */
    CHECK(dra_jget(dra_model_claim(&before.model, "ns", "c1")->json, "status.allocation"));
    CHECK_STR(dra_jstr(dra_model_pod(&before.model, "ns", "p")->json, "spec.nodeName"), "n1");
    CHECK_INT(json_integer_value(dra_jget(r.report, "summary.lost")), 1);
    dra_whatif_result_free(&r);
    dra_cluster_free(&before);
    dra_cluster_free(&after);
    unload(&a);
    unload(&b);
}

UNIT_MAIN()

/* The scheduler's claim for a pod's extended resources is charged what its
 * pod does not request itself, the pod's request added up as
 * resourcehelper.PodRequests does: containers and sidecars (3 + 1), or an
 * init container with the sidecars before it (5 + 1) when more, plus the
 * overhead (1): 7 of the claim's 9 devices are the pod's. */
UNIT_TEST(quota_extended_claim_less_its_pods_requests)
{
    side a;
    load(&a, "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\n"
             "spec: {extendedResourceName: example.com/gpu}\n---\n"
             "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u-p}\n"
             "spec:\n  overhead: {example.com/gpu: '1'}\n"
             "  initContainers:\n"
             "  - {name: side, image: x, restartPolicy: Always, resources: {requests: {example.com/gpu: '1'}}}\n"
             "  - {name: init, image: x, resources: {requests: {example.com/gpu: '5'}}}\n"
             "  containers:\n  - {name: c, image: x, resources: {requests: {example.com/gpu: '3'}}}\n---\n"
             "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: p-ext\n  namespace: ns\n"
             "  annotations: {resource.kubernetes.io/extended-resource-claim: 'true'}\n"
             "  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u-p, controller: true}]\n"
             "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, allocationMode: ExactCount, count: "
             "9}}]}}\n");
    dra_features f;
    dra_features_default(&f);
    const dra_obj *c = dra_model_claim(&a.m, "ns", "p-ext");
    CHECK(c != NULL);
    json_t *u = dra_quota_claim_usage(c->json, &a.m, &f);
    CHECK_INT(json_integer_value(json_object_get(u, "gpu.deviceclass.resource.k8s.io/devices")), 9);
    CHECK_INT(json_integer_value(json_object_get(u, "requests.example.com/gpu")), 2);
    CHECK_INT(json_integer_value(json_object_get(u, "requests.deviceclass.resource.kubernetes.io/gpu")), 9);
    json_decref(u);
    /* without the pod the claim is charged in full */
    u = dra_quota_claim_usage(c->json, NULL, &f);
    CHECK(json_object_get(u, "requests.example.com/gpu") == NULL); /* no class known: no extendedResourceName */
    CHECK_INT(json_integer_value(json_object_get(u, "requests.deviceclass.resource.kubernetes.io/gpu")), 9);
    json_decref(u);
    unload(&a);
}

/* status.hard is admission's limit; a DRA resource of it without a
 * status.used figure refuses every claim, naming all the quota's DRA
 * resources (hasUsageStats). */
UNIT_TEST(quota_status_hard_and_status_unknown)
{
    side a;
    load(&a,
         "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: ns}\n"
         "spec: {hard: {gpu.deviceclass.resource.k8s.io/devices: '9', count/resourceclaims.resource.k8s.io: '9'}}\n"
         "status:\n  hard: {gpu.deviceclass.resource.k8s.io/devices: '9', count/resourceclaims.resource.k8s.io: '9'}\n"
         "  used: {count/resourceclaims.resource.k8s.io: '0'}\n---\n"
         "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: r, namespace: ns}\n"
         "spec: {hard: {gpu.deviceclass.resource.k8s.io/devices: '9'}}\n"
         "status: {hard: {gpu.deviceclass.resource.k8s.io/devices: '0'}, used: "
         "{gpu.deviceclass.resource.k8s.io/devices: '0'}}\n"
         "---\n" CLAIM("c1", "x", "n1"));
    dra_quota_ledger *l = NULL;
    CHECK(!dra_quota_ledger_new(&a.set, &a.m, NULL, true, &l) && l);
    char *m = dra_quota_admit(l, dra_model_claim(&a.m, "ns", "c1")->json);
    CHECK_STR(m, "resourceclaims.resource.k8s.io \"c1\" is forbidden: status unknown for quota: q, resources: "
                 "count/resourceclaims.resource.k8s.io,gpu.deviceclass.resource.k8s.io/devices");
    free(m);
    json_t *r = dra_quota_ledger_report(l);
    const json_t *q = json_array_get(dra_jget(r, "quotas"), 0);
    CHECK_STR(dra_jstr(q, "hardFrom"), "status.hard");
    CHECK_STR(dra_jstr(q, "statusUnknown.missing"), "gpu.deviceclass.resource.k8s.io/devices");
    const json_t *dev = json_object_get(dra_jget(json_array_get(dra_jget(r, "quotas"), 1), "resources"),
                                        "gpu.deviceclass.resource.k8s.io/devices");
    CHECK(dev != NULL);
    CHECK_INT(json_integer_value(json_object_get(dev, "hard")), 0); /* status.hard's, not spec.hard's 9 */
    json_decref(r);
    dra_quota_ledger_free(l);
    unload(&a);
}
