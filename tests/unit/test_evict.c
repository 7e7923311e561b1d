/* Device-taint eviction: times, tolerations, rules, pods, rule status. */
#include <stdlib.h>
#include <string.h>

#include "evict/evict.h"
#include "unit.h"

typedef struct world {
    dra_objset set;
    dra_cluster c;
    dra_evict_result r;
    dra_changes ch;
} world;

static dra_time T(const char *s)
{
    dra_time t = {0, 0};
    dra_err_free(dra_time_parse(s, &t));
    return t;
}

/* Load yaml and compute; returns the error code (0 = fine). */
static int run(world *w, const char *yaml, const char *now, bool all, const char *apply_at)
{
    memset(w, 0, sizeof *w);
    dra_err *e = dra_read_mem(&w->set, "t.yaml", yaml, strlen(yaml));
    if (!e)
        e = dra_cluster_build(&w->c, &w->set);
    dra_evict_opts o = {.now = T(now), .all_devices = all};
    if (apply_at) {
        o.apply = true;
        o.apply_at = T(apply_at);
    }
    if (!e)
        e = dra_evict_compute(&w->c, &o, &w->r, &w->ch);
    int code = e ? e->code : 0;
    dra_err_free(e);
    return code;
}

static void done(world *w)
{
    dra_changes_free(&w->ch);
    dra_evict_result_free(&w->r);
    dra_cluster_free(&w->c);
    dra_objset_free(&w->set);
}

/* clang-format off */
#define SLICE(gen, taints) \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s" #gen "}\n" \
    "spec: {driver: d.example.com, pool: {name: p, generation: " #gen ", resourceSliceCount: 1}, nodeName: n1,\n" \
    "  devices: [{name: x, taints: " taints "}]}\n---\n"
#define CLAIM(tols) \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns, uid: cu}\nspec: {}\n" \
    "status:\n  allocation: {devices: {results: [{request: r, driver: d.example.com, pool: p, device: x, tolerations: " tols "}]}}\n" \
    "  reservedFor: [{resource: pods, name: p, uid: u1}]\n---\n"
#define POD \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u1}\n" \
    "spec: {nodeName: n1, resourceClaims: [{name: gpu, resourceClaimName: c}]}\n---\n"
/* clang-format on */
#define TAINT "[{key: k, value: v, effect: NoExecute, timeAdded: \"2026-03-01T10:00:00Z\"}]"

UNIT_TEST(untolerated_taint_evicts_at_time_added)
{
    world w;
    CHECK_INT(run(&w, SLICE(1, TAINT) CLAIM("[]") POD, "2026-03-01T09:00:00Z", false, NULL), 0);
    CHECK_INT(w.r.n, 1);
    if (w.r.n) {
        CHECK(w.r.v[0].pod != NULL);
        CHECK(dra_time_cmp(w.r.v[0].evict_at, T("2026-03-01T10:00:00Z")) == 0);
        char *s = dra_taint_src_string(&w.r.v[0].src);
        CHECK_STR(s, "ResourceSlice s1 d.example.com/p/x taint #0");
        free(s);
    }
    done(&w);
}

UNIT_TEST(toleration_seconds_minimum_and_negative)
{
    world w;
    CHECK_INT(run(&w,
                  SLICE(1, TAINT) CLAIM("[{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 600},"
                                        " {operator: Exists, effect: NoExecute, tolerationSeconds: 60}]") POD,
                  "2026-03-01T09:00:00Z", false, NULL),
              0);
    CHECK(w.r.n == 1 && dra_time_cmp(w.r.v[0].evict_at, T("2026-03-01T10:01:00Z")) == 0);
    done(&w);
    CHECK_INT(run(&w,
                  SLICE(1, TAINT) CLAIM("[{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: -5}]") POD,
                  "2026-03-01T09:00:00Z", false, NULL),
              0);
    CHECK(w.r.n == 1 && dra_time_cmp(w.r.v[0].evict_at, T("2026-03-01T10:00:00Z")) == 0);
    done(&w);
}

UNIT_TEST(only_noexecute_tolerations_count)
{
    world w;
    /* effect-less wildcard: allows allocation but does not delay eviction */
    CHECK_INT(run(&w, SLICE(1, TAINT) CLAIM("[{operator: Exists}]") POD, "2026-03-01T09:00:00Z", false, NULL), 0);
    CHECK_INT(w.r.n, 1);
    done(&w);
    /* NoExecute without seconds: tolerated forever */
    CHECK_INT(run(&w, SLICE(1, TAINT) CLAIM("[{key: k, value: v, effect: NoExecute}]") POD, "2026-03-01T09:00:00Z",
                  false, NULL),
              0);
    CHECK_INT(w.r.n, 0);
    done(&w);
    /* value mismatch with Equal: not tolerated */
    CHECK_INT(run(&w, SLICE(1, TAINT) CLAIM("[{key: k, value: other, effect: NoExecute}]") POD, "2026-03-01T09:00:00Z",
                  false, NULL),
              0);
    CHECK_INT(w.r.n, 1);
    done(&w);
}

UNIT_TEST(newest_generation_only)
{
    world w;
    CHECK_INT(run(&w, SLICE(1, TAINT) SLICE(2, "[]") CLAIM("[]") POD, "2026-03-01T09:00:00Z", false, NULL), 0);
    CHECK_INT(w.r.n, 0);
    done(&w);
}

/* clang-format off */
#define RULE(name, sel, effect) \
    "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: " name ", uid: ru-" name ", generation: 2}\n" \
    "spec: {" sel "taint: {key: r, effect: " effect ", timeAdded: \"2026-03-01T11:00:00Z\"}}\n---\n"
/* clang-format on */

UNIT_TEST(rules_and_selector_safety)
{
    world w;
    CHECK_INT(run(&w, SLICE(1, "[]") CLAIM("[]") POD RULE("pool-p", "deviceSelector: {pool: p}, ", "NoExecute"),
                  "2026-03-01T09:00:00Z", false, NULL),
              0);
    CHECK(w.r.n == 1 && w.r.v[0].src.rule != NULL);
    CHECK_INT(w.r.nrules, 1);
    json_t *cnd = json_array_get(dra_jarr(w.r.rules[0], "status.conditions"), 0);
    CHECK_STR(dra_jstr(cnd, "reason"), "PodsPendingEviction");
    CHECK_STR(dra_jstr(cnd, "message"), "1 pod needs to be evicted in 1 namespace.");
    CHECK_INT(json_integer_value(json_object_get(cnd, "observedGeneration")), 2);
    done(&w);
    /* no selector: nothing, with a warning; --all: everything */
    CHECK_INT(run(&w, SLICE(1, "[]") CLAIM("[]") POD RULE("all", "", "NoExecute"), "2026-03-01T09:00:00Z", false, NULL),
              0);
    CHECK_INT(w.r.n, 0);
    CHECK_INT(w.r.warnings.n, 1);
    done(&w);
    CHECK_INT(run(&w, SLICE(1, "[]") CLAIM("[]") POD RULE("all", "", "NoExecute"), "2026-03-01T09:00:00Z", true, NULL),
              0);
    CHECK_INT(w.r.n, 1);
    done(&w);
    /* empty selector {} selects everything */
    CHECK_INT(run(&w, SLICE(1, "[]") CLAIM("[]") POD RULE("empty", "deviceSelector: {}, ", "NoExecute"),
                  "2026-03-01T09:00:00Z", false, NULL),
              0);
    CHECK_INT(w.r.n, 1);
    done(&w);
    /* invalid selector */
    CHECK_INT(run(&w, RULE("bad", "deviceSelector: {device: Not_A_Label}, ", "NoExecute"), "2026-03-01T09:00:00Z",
                  false, NULL),
              DRA_EXIT_INPUT);
    done(&w);
}

UNIT_TEST(none_effect_simulates)
{
    world w;
    CHECK_INT(run(&w,
                  SLICE(1, "[]") CLAIM("[]") POD RULE("dry", "deviceSelector: {driver: d.example.com}, ", "None")
                      RULE("other", "deviceSelector: {driver: d.example.com}, ", "NoSchedule"),
                  "2026-03-01T09:00:00Z", false, NULL),
              0);
    CHECK_INT(w.r.n, 0);
    CHECK_INT(w.r.nrules, 2);
    json_t *cnd = json_array_get(dra_jarr(w.r.rules[0], "status.conditions"), 0);
    CHECK_STR(dra_jstr(cnd, "reason"), "NoEffect");
    CHECK_STR(dra_jstr(cnd, "message"),
              "1 published device selected. 1 allocated device selected. 1 pod would be evicted in "
              "1 namespace if the effect was NoExecute. This information will not be updated again. "
              "Recreate the DeviceTaintRule to trigger an update.");
    cnd = json_array_get(dra_jarr(w.r.rules[1], "status.conditions"), 0);
    CHECK_STR(dra_jstr(cnd, "reason"), "OtherEffect");
    CHECK_STR(dra_jstr(cnd, "message"), "Eviction only happens for the NoExecute effect.");
    done(&w);
}

UNIT_TEST(pod_candidates)
{
    world w;
    /* not bound: no pod record, but a claim-level one */
    CHECK_INT(run(&w,
                  SLICE(1, TAINT) CLAIM("[]") "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u1}\n"
                                              "spec: {resourceClaims: [{name: gpu, resourceClaimName: c}]}\n",
                  "2026-03-01T09:00:00Z", false, NULL),
              0);
    CHECK(w.r.n == 1 && w.r.v[0].pod == NULL);
    done(&w);
    /* other UID than in reservedFor */
    CHECK_INT(run(&w,
                  SLICE(1, TAINT)
                      CLAIM("[]") "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u2}\n"
                                  "spec: {nodeName: n1, resourceClaims: [{name: gpu, resourceClaimName: c}]}\n",
                  "2026-03-01T09:00:00Z", false, NULL),
              0);
    CHECK(w.r.n == 1 && w.r.v[0].pod == NULL);
    done(&w);
}

UNIT_TEST(apply_adds_condition_then_deletes)
{
    world w;
    CHECK_INT(run(&w, SLICE(1, TAINT) CLAIM("[]") POD, "2026-03-01T10:00:00Z", false, "2026-03-01T10:00:00Z"), 0);
    CHECK_INT(w.ch.nops, 2);
    if (w.ch.nops == 2) {
        CHECK_STR(w.ch.ops[0].patch_type, "strategic");
        CHECK_STR(dra_jstr(w.ch.ops[0].body, "metadata.uid"), "u1");
        json_t *c = json_array_get(dra_jarr(w.ch.ops[0].body, "status.conditions"), 0);
        CHECK_STR(dra_jstr(c, "reason"), "DeletionByDeviceTaintManager");
        CHECK_STR(dra_jstr(c, "message"), "Device Taint manager: deleting due to NoExecute taint");
        CHECK(w.ch.ops[1].verb == DRA_OP_DELETE);
        CHECK_STR(dra_jstr(w.ch.ops[1].body, "preconditions.uid"), "u1");
    }
    done(&w);
    /* not yet due */
    CHECK_INT(run(&w, SLICE(1, TAINT) CLAIM("[]") POD, "2026-03-01T09:59:59Z", false, "2026-03-01T09:59:59Z"), 0);
    CHECK_INT(w.ch.nops, 0);
    done(&w);
}

UNIT_TEST(missing_time_added)
{
    world w;
    /* no time: no eviction */
    CHECK_INT(run(&w, SLICE(1, "[{key: k, effect: NoExecute}]") CLAIM("[]") POD, "2026-03-01T09:00:00Z", false, NULL),
              0);
    CHECK_INT(w.r.n, 0);
    done(&w);
    /* tolerated for a while without a time: refused rather than guessed */
    CHECK_INT(run(&w,
                  SLICE(1, "[{key: k, effect: NoExecute}]")
                      CLAIM("[{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 5}]") POD,
                  "2026-03-01T09:00:00Z", false, NULL),
              DRA_EXIT_INPUT);
    done(&w);
}

UNIT_TEST(apply_replaces_existing_condition_like_update_pod_condition)
{
    world w;
    /* an older DisruptionTarget=False with a probe time: the whole condition is
     * replaced, the patch carries the changed keys, null for lastProbeTime */
    CHECK_INT(run(&w,
                  SLICE(1, TAINT)
                      CLAIM("[]") "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u1}\n"
                                  "spec: {nodeName: n1, resourceClaims: [{name: gpu, resourceClaimName: c}]}\n"
                                  "status: {conditions: [{type: DisruptionTarget, status: \"False\", lastProbeTime: "
                                  "\"2026-03-01T08:00:00Z\","
                                  " lastTransitionTime: \"2026-03-01T08:00:00Z\", reason: Other, message: m}, {type: "
                                  "DisruptionTarget, status: \"True\"}]}\n",
                  "2026-03-01T10:00:00Z", false, "2026-03-01T10:00:00Z"),
              0);
    CHECK_INT(w.ch.nops, 2);
    if (w.ch.nops == 2) {
        json_t *c = json_array_get(dra_jarr(w.ch.ops[0].body, "status.conditions"), 0);
        char *got = json_dumps(c, JSON_COMPACT);
        CHECK_STR(got,
                  "{\"lastProbeTime\":null,\"lastTransitionTime\":\"2026-03-01T10:00:00Z\",\"message\":\"Device Taint "
                  "manager: deleting due to NoExecute "
                  "taint\",\"reason\":\"DeletionByDeviceTaintManager\",\"status\":\"True\","
                  "\"type\":\"DisruptionTarget\"}");
        free(got);
    }
    done(&w);
}

UNIT_TEST(extended_resource_claim_evicted_like_spec_claims)
{
    world w;
    CHECK_INT(
        run(&w,
            SLICE(1, TAINT) "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns, "
                            "uid: cu,\n"
                            "  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u1, controller: "
                            "true}]}\nspec: {}\n"
                            "status:\n  allocation: {devices: {results: [{request: r, driver: d.example.com, pool: p, "
                            "device: x}]}}\n"
                            "  reservedFor: [{resource: pods, name: p, uid: u1}]\n---\n"
                            "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u1}\n"
                            "spec: {nodeName: n1}\nstatus: {extendedResourceClaimStatus: {resourceClaimName: c}}\n",
            "2026-03-01T10:00:00Z", false, "2026-03-01T10:00:00Z"),
        0);
    CHECK_INT(w.r.n, 1);
    CHECK(w.r.n == 1 && w.r.v[0].pod);
    CHECK_INT(w.ch.nops, 2); /* DisruptionTarget, then the delete */
    done(&w);
}

/* Every change of a run is found by its working copy (dra_changes_find:
 * "an original, a working copy or a created object").  The rule status
 * replaced a rule's working copy after the changes had indexed it: the new
 * copy was not found, and the freed one's address stayed in the index, where
 * the next object allocated there would have found the rule's change. */
UNIT_TEST(rule_status_keeps_the_working_copy_found)
{
    world w;
    CHECK_INT(run(&w,
                  SLICE(1, "[]") CLAIM("[]") POD RULE("pool-p", "deviceSelector: {pool: p}, ", "NoExecute")
                      RULE("other", "deviceSelector: {driver: other.example.com}, ", "NoExecute"),
                  "2026-03-01T11:00:00Z", false, "2026-03-01T11:00:00Z"),
              0);
    CHECK(w.ch.nobjs >= 3); /* the pod, then both rules */
    for (size_t i = 0; i < w.ch.nobjs; i++) {
        dra_change *ch = &w.ch.objs[i];
        CHECK(dra_changes_find(&w.ch, ch->obj) == ch);
        CHECK(dra_changes_find(&w.ch, ch->orig) == ch);
    }
    /* the rule's working copy is its new state */
    const dra_change *r = dra_changes_find(&w.ch, w.c.of[DRA_KIND_DEVICE_TAINT_RULE][0]->json);
    CHECK(r != NULL);
    if (r)
        CHECK_STR(dra_jstr(json_array_get(dra_jarr(r->obj, "status.conditions"), 0), "type"), "EvictionInProgress");
    done(&w);
}

UNIT_MAIN()
