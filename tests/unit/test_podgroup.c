/* PodGroup claims (DRAWorkloadResourceClaims): kind, validation, matching,
 * generate, reserve, release.  Cases after upstream's
 * pkg/controller/resourceclaim/controller_test.go (TestSyncHandler: "create
 * for PodGroup", "update Pod status with PodGroup claim", "skip create for
 * Pod with PodGroup ...", "skip-create-for-pod-podgroup-does-not-exist",
 * "find-existing-claim-by-label-podgroup", "recreate for PodGroup",
 * "add-reserved-podgroup", "clear-reserved-podgroup",
 * "dont-clear-reserved-podgroup-feature-disabled") and
 * staging/.../dynamic-resource-allocation/resourceclaim/resourceclaim.go. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "io/stream.h"
#include "lifecycle/claims.h"
#include "model/kinds.h"
#include "model/load.h"
#include "model/validate.h"
#include "cluster_world.h"
#include "unit.h"

static dra_features gate_on(void)
{
    dra_features f;
    dra_features_default(&f);
    f.on[DRA_FEATURE_GENERIC_WORKLOAD] = true; /* DRAWorkloadResourceClaims needs it */
    f.on[DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS] = true;
    return f;
}

/* clang-format off */
#define GROUP(extra)                                                                                            \
    "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ns, uid: ug}\n"     \
    "spec:\n  schedulingPolicy: {basic: {}}\n  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: tmpl}\n" \
    extra "---\n"
#define MEMBER(name, uid, extra)                                                                          \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ns, uid: " uid "}\n"                \
    "spec:\n  schedulingGroup: {podGroupName: g}\n  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: tmpl}\n" \
    extra "---\n"
#define TMPL                                                                                                    \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: tmpl, namespace: ns}\n"     \
    "spec:\n  spec: {devices: {requests: [{name: r, exactly: {deviceClassName: c}}]}}\n---\n"
#define GROUP_CLAIM(name, extra)                                                                                \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: " name "\n  namespace: ns\n"      \
    "  annotations: {resource.kubernetes.io/pod-claim-name: gpu}\n"                                            \
    "  ownerReferences: [{apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, name: g, uid: ug, controller: true}]\n" \
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: c}}]}}\n" extra "---\n"
/* clang-format on */

UNIT_TEST(podgroup_kind_and_versions)
{
    dra_kind k;
    dra_apiver v;
    CHECK(dra_kind_lookup("scheduling.k8s.io/v1beta1", "PodGroup", &k, &v));
    CHECK(k == DRA_KIND_POD_GROUP && v == DRA_APIVER_SCHEDULING_V1BETA1);
    CHECK(dra_kind_lookup("scheduling.k8s.io/v1alpha3", "PodGroup", &k, &v));
    CHECK_STR(dra_apiver_name(v), "scheduling.k8s.io/v1alpha3");
    /* 1.36's version: known; strict.c says only 1.36 serves it */
    CHECK(dra_kind_lookup("scheduling.k8s.io/v1alpha2", "PodGroup", &k, &v));
    CHECK(v == DRA_APIVER_SCHEDULING_V1ALPHA2);
    CHECK(!dra_kind_lookup("scheduling.k8s.io/v1alpha1", "PodGroup", NULL, NULL));
    CHECK(!dra_kind_lookup("v1", "PodGroup", NULL, NULL));
    CHECK(dra_kind_namespaced(DRA_KIND_POD_GROUP));
    CHECK(!dra_kind_is_resource(DRA_KIND_POD_GROUP));
}

/* Load one document through the whole pipeline; its errors as lines.
 * GenericWorkload and DRAWorkloadResourceClaims are on: without them the
 * API server drops a Pod's schedulingGroup, a PodGroup's resourceClaims
 * and resourceClaimStatuses. */
/* The errors of loading text under release r, GenericWorkload and
 * DRAWorkloadResourceClaims on. */
static char *errs_at(const char *text, dra_release r)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_buf out = DRA_BUF_INIT;
    dra_err *e = dra_read_mem(&set, "t.yaml", text, strlen(text));
    dra_features gates;
    dra_features_release(&gates, r);
    dra_err_free(dra_features_set(&gates, DRA_FEATURE_GENERIC_WORKLOAD, true));
    dra_err_free(dra_features_set(&gates, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS, true));
    if (!e) {
        dra_load_opts opts = {0};
        opts.validate.features = &gates;
        dra_model m = DRA_MODEL_INIT;
        e = dra_load(&set, &opts, &m);
        dra_model_free(&m);
    }
    for (dra_err *i = e; i; i = i->next)
        dra_buf_printf(&out, "%s: %s\n", i->field ? i->field : "", i->msg);
    dra_err_free(e);
    dra_objset_free(&set);
    dra_buf_puts(&out, "");
    return dra_buf_detach(&out);
}

static char *errs_of(const char *text)
{
    return errs_at(text, DRA_RELEASE_DEFAULT);
}

#define PG_HEAD "apiVersion: scheduling.k8s.io/v1alpha3\nkind: PodGroup\nmetadata: {name: g, namespace: ns}\n"

UNIT_TEST(podgroup_validation_wording)
{
    char *got = errs_of(GROUP(""));
    CHECK_STR(got, "");
    free(got);
    got = errs_of(PG_HEAD "spec:\n  schedulingPolicy: {basic: {}, gang: {minCount: -1}}\n  resourceClaims:\n"
                          "  - {name: a, resourceClaimName: c, resourceClaimTemplateName: t}\n  - {name: a}\n"
                          "  - {resourceClaimName: Bad}\n");
    CHECK(strstr(
        got,
        "spec.schedulingPolicy: Invalid value: \"{basic, gang}\": must specify exactly one of: `basic`, `gang`\n"));
    CHECK(strstr(got, "spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or equal to 1\n"));
    CHECK(strstr(got, "spec.resourceClaims[1]: Duplicate value: {\"name\":\"a\"}\n"));
    CHECK(strstr(got, "spec.resourceClaims[0]: Invalid value: \"{resourceClaimName, resourceClaimTemplateName}\": must "
                      "specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`\n"));
    CHECK(strstr(got, "spec.resourceClaims[1]: Invalid value: \"\": must specify one of: `resourceClaimName`, "
                      "`resourceClaimTemplateName`\n"));
    CHECK(strstr(got, "spec.resourceClaims[2].name: Required value\n"));
    CHECK(strstr(got,
                 "spec.resourceClaims[2].resourceClaimName: Invalid value: \"Bad\": a lowercase RFC 1123 subdomain"));
    free(got);
    /* at most 4 claims: nothing more is said about the items */
    got = errs_of(PG_HEAD "spec:\n  schedulingPolicy: {basic: {}}\n  resourceClaims: [{name: a}, {name: a}, {name: a}, "
                          "{name: a}, {name: a}]\n");
    CHECK_STR(got, "spec.resourceClaims: Too many: 5: must have at most 4 items\n");
    free(got);
    /* no policy; status names an entry the spec lacks */
    got = errs_of(PG_HEAD "spec: {}\nstatus:\n  resourceClaimStatuses: [{name: x, resourceClaimName: c}]\n");
    CHECK(strstr(got, "spec.schedulingPolicy: Invalid value: \"\": must specify one of: `basic`, `gang`\n"));
    CHECK(strstr(got, "status.resourceClaimStatuses[0].name: Invalid value: \"x\": must match the name of an entry in "
                      "`spec.resourceClaims`\n"));
    free(got);
    /* strict decoding knows the fields */
    got = errs_of(PG_HEAD "spec: {schedulingPolicy: {basic: {}}, bogus: 1}\n");
    CHECK(strstr(got, "unknown field \"spec.bogus\"") != NULL);
    free(got);
    /* a pod's group name is a DNS subdomain */
    got = errs_of(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec: {schedulingGroup: {podGroupName: A_}}\n");
    CHECK(strstr(got, "spec.schedulingGroup.podGroupName: Invalid value: \"A_\"") != NULL);
    free(got);
}

/* 1.36's v1alpha2: its template reference, its fields (strict decoding) */
UNIT_TEST(podgroup_v1alpha2_template_ref)
{
#define PG_V1ALPHA2 "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: g, namespace: ns}\n"
#define errs_of(text) errs_at(text, DRA_RELEASE_1_36)
    char *got =
        errs_of(PG_V1ALPHA2 "spec:\n  schedulingPolicy: {gang: {minCount: 2}}\n"
                            "  podGroupTemplateRef: {workload: {workloadName: job, podGroupTemplateName: w}}\n");
    CHECK_STR(got, "");
    free(got);
    got = errs_of(PG_V1ALPHA2 "spec:\n  schedulingPolicy: {basic: {}}\n  podGroupTemplateRef: {}\n");
    CHECK_STR(got, "spec.podGroupTemplateRef: Invalid value: \"\": must specify one of: `workload`\n");
    free(got);
    got = errs_of(PG_V1ALPHA2 "spec:\n  schedulingPolicy: {basic: {}}\n"
                              "  podGroupTemplateRef: {workload: {workloadName: Job_1}}\n");
    CHECK(strstr(got, "spec.podGroupTemplateRef.workload.workloadName: Invalid value: \"Job_1\"") != NULL);
    CHECK(strstr(got, "spec.podGroupTemplateRef.workload.podGroupTemplateName: Required value\n") != NULL);
    free(got);
    /* 1.37's workloadRef is not a field of v1alpha2 */
    got =
        errs_of(PG_V1ALPHA2 "spec: {schedulingPolicy: {basic: {}}, workloadRef: {workloadName: j, templateName: t}}\n");
    CHECK(strstr(got, "unknown field \"spec.workloadRef\"") != NULL);
    free(got);
#undef errs_of
    /* 1.37 does not serve it: no such object in its cluster */
    got = errs_of(PG_V1ALPHA2 "spec:\n  schedulingPolicy: {basic: {}}\n");
    CHECK_STR(got, "kind: no matches for kind \"PodGroup\" in version \"scheduling.k8s.io/v1alpha2\"\n");
    free(got);
#undef PG_V1ALPHA2
}

UNIT_TEST(podgroup_claim_match_is_exact)
{
    json_t *g = json_pack("{s:{s:[{s:s,s:s},{s:s,s:s}]}}", "spec", "resourceClaims", "name", "a",
                          "resourceClaimTemplateName", "t", "name", "b", "resourceClaimName", "c");
    json_t *pc = json_pack("{s:s,s:s}", "name", "a", "resourceClaimTemplateName", "t");
    CHECK(dra_pod_group_claim_match(g, pc) == json_array_get(dra_jarr(g, "spec.resourceClaims"), 0));
    json_object_set_new(pc, "resourceClaimTemplateName", json_string("other"));
    CHECK(dra_pod_group_claim_match(g, pc) == NULL);
    json_decref(pc);
    pc = json_pack("{s:s,s:s}", "name", "b", "resourceClaimName", "c");
    CHECK(dra_pod_group_claim_match(g, pc) != NULL);
    json_object_set_new(pc, "resourceClaimTemplateName", json_string("t"));
    CHECK(dra_pod_group_claim_match(g, pc) == NULL); /* absent equals absent only */
    json_decref(pc);
    json_decref(g);
}

UNIT_TEST(podgroup_generate_creates_group_claim_and_member_statuses)
{
    world w;
    CHECK(!load(&w, TMPL GROUP("") MEMBER("p0", "u0", "") MEMBER("p1", "u1", "")));
    dra_features f = gate_on();
    dra_changes ch = DRA_CHANGES_INIT;
    dra_lc_opts o = {.features = &f, .name_suffix = DRA_NAME_SUFFIX_NONE};
    CHECK(dra_claims_generate(&w.c, &o, &ch) == NULL);
    const json_t *claim = dra_state_find(&w.c, &ch, DRA_KIND_RESOURCE_CLAIM, "ns", "g-gpu");
    CHECK(claim != NULL);
    CHECK_STR(dra_jstr(claim, "metadata.generateName"), "g-gpu-");
    const json_t *ref = json_array_get(dra_jarr(claim, "metadata.ownerReferences"), 0);
    CHECK_STR(dra_jstr(ref, "apiVersion"), "scheduling.k8s.io/v1beta1");
    CHECK_STR(dra_jstr(ref, "kind"), "PodGroup");
    CHECK_STR(dra_jstr(ref, "uid"), "ug");
    CHECK(dra_jtrue(ref, "controller"));
    CHECK_STR(
        json_string_value(json_object_get(dra_jget(claim, "metadata.annotations"), DRA_POD_CLAIM_NAME_ANNOTATION)),
        "gpu");
    const json_t *g = dra_state_find(&w.c, &ch, DRA_KIND_POD_GROUP, "ns", "g");
    CHECK_STR(dra_jstr(json_array_get(dra_jarr(g, "status.resourceClaimStatuses"), 0), "resourceClaimName"), "g-gpu");
    for (int i = 0; i < 2; i++) {
        const json_t *p = dra_state_find(&w.c, &ch, DRA_KIND_POD, "ns", i ? "p1" : "p0");
        CHECK_STR(dra_jstr(json_array_get(dra_jarr(p, "status.resourceClaimStatuses"), 0), "resourceClaimName"),
                  "g-gpu");
    }
    /* one claim, one group apply, two pod applies */
    CHECK_INT(ch.nops, 4);
    CHECK_STR(ch.ops[1].kind, "PodGroup");
    CHECK_STR(ch.ops[1].subresource, "status");
    CHECK_STR(ch.ops[1].field_manager, "ResourceClaimController");
    dra_changes_free(&ch);
    unload(&w);
}

UNIT_TEST(podgroup_generate_reuses_and_recreates)
{
    /* find-existing-claim-by-label-podgroup: the group's claim is found by owner and annotation */
    world w;
    CHECK(!load(&w, TMPL GROUP("") GROUP_CLAIM("existing", "") MEMBER("p0", "u0", "")));
    dra_features f = gate_on();
    dra_changes ch = DRA_CHANGES_INIT;
    dra_lc_opts o = {.features = &f, .name_suffix = DRA_NAME_SUFFIX_NONE};
    CHECK(dra_claims_generate(&w.c, &o, &ch) == NULL);
    CHECK(dra_state_find(&w.c, &ch, DRA_KIND_RESOURCE_CLAIM, "ns", "g-gpu") == NULL);
    const json_t *g = dra_state_find(&w.c, &ch, DRA_KIND_POD_GROUP, "ns", "g");
    CHECK_STR(dra_jstr(json_array_get(dra_jarr(g, "status.resourceClaimStatuses"), 0), "resourceClaimName"),
              "existing");
    const json_t *p = dra_state_find(&w.c, &ch, DRA_KIND_POD, "ns", "p0");
    CHECK_STR(dra_jstr(json_array_get(dra_jarr(p, "status.resourceClaimStatuses"), 0), "resourceClaimName"),
              "existing");
    dra_changes_free(&ch);
    unload(&w);

    /* nop for PodGroup: status and claim agree, nothing to do */
    CHECK(!load(&w, TMPL GROUP("status: {resourceClaimStatuses: [{name: gpu, resourceClaimName: existing}]}\n")
                        GROUP_CLAIM("existing", "")));
    ch = (dra_changes)DRA_CHANGES_INIT;
    CHECK(dra_claims_generate(&w.c, &o, &ch) == NULL);
    CHECK_INT(ch.nops, 0);
    dra_changes_free(&ch);
    unload(&w);

    /* recreate for PodGroup: the status names a claim that is gone */
    CHECK(!load(&w, TMPL GROUP("status: {resourceClaimStatuses: [{name: gpu, resourceClaimName: gone}]}\n")));
    ch = (dra_changes)DRA_CHANGES_INIT;
    CHECK(dra_claims_generate(&w.c, &o, &ch) == NULL);
    g = dra_state_find(&w.c, &ch, DRA_KIND_POD_GROUP, "ns", "g");
    CHECK_INT(json_array_size(dra_jarr(g, "status.resourceClaimStatuses")), 1);
    CHECK_STR(dra_jstr(json_array_get(dra_jarr(g, "status.resourceClaimStatuses"), 0), "resourceClaimName"), "g-gpu");
    dra_changes_free(&ch);
    unload(&w);
}

UNIT_TEST(podgroup_generate_refusals)
{
    dra_features f = gate_on();
    dra_lc_opts on = {.features = &f, .name_suffix = DRA_NAME_SUFFIX_NONE};
    dra_lc_opts off = {.name_suffix = DRA_NAME_SUFFIX_NONE};
    dra_features g = gate_on();
    g.on[DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS] = false;
    dra_lc_opts generic = {.features = &g, .name_suffix = DRA_NAME_SUFFIX_NONE};
    world w;
    /* skip-create-for-pod-podgroup-does-not-exist; the same with
     * GenericWorkload alone (getPodGroup looks the group up); and with
     * GenericWorkload off: the pod as stored still names its group, and
     * getPodGroup refuses it before any claim */
    CHECK(!load(&w, TMPL MEMBER("p0", "u0", "")));
    const struct {
        const dra_lc_opts *o;
        const char *want;
    } cases[] = {
        {&on, "get PodGroup for Pod ns/p0: podgroup.scheduling.k8s.io \"g\" not found"},
        {&generic, "get PodGroup for Pod ns/p0: podgroup.scheduling.k8s.io \"g\" not found"},
        {&off, "get PodGroup for Pod ns/p0: Pod is a member of PodGroup g but GenericWorkload feature is disabled"},
    };
    dra_changes ch;
    dra_err *e;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ch = (dra_changes)DRA_CHANGES_INIT;
        e = dra_claims_generate(&w.c, cases[i].o, &ch);
        CHECK(e != NULL);
        CHECK_STR(e ? e->msg : NULL, cases[i].want);
        CHECK_INT(ch.nops, 0);
        dra_err_free(e);
        dra_changes_free(&ch);
    }
    unload(&w);

    /* missing-template-podgroup */
    CHECK(!load(&w, GROUP("")));
    ch = (dra_changes)DRA_CHANGES_INIT;
    e = dra_claims_generate(&w.c, &on, &ch);
    CHECK(e && strcmp(e->msg, "PodGroup ns/g, PodGroupResourceClaim gpu: resource claim template \"tmpl\": "
                              "resourceclaimtemplate.resource.k8s.io \"tmpl\" not found") == 0);
    dra_err_free(e);
    dra_changes_free(&ch);
    unload(&w);

    /* DRAWorkloadResourceClaims off, the pod's claim matches the group's:
     * refused (upstream's "DRAWorkloadResourceClaims feature is disabled");
     * no claim for the pod */
    CHECK(!load(&w, TMPL GROUP("") MEMBER("p0", "u0", "")));
    ch = (dra_changes)DRA_CHANGES_INIT;
    e = dra_claims_generate(&w.c, &generic, &ch);
    CHECK(e && strstr(e->msg, "DRAWorkloadResourceClaims feature is disabled"));
    CHECK_INT(ch.nops, 0);
    dra_err_free(e);
    dra_changes_free(&ch);
    unload(&w);
}

UNIT_TEST(podgroup_reserve_for_the_group)
{
    /* add-reserved-podgroup: a bound member reserves the group's claim for the group */
    world w;
    CHECK(!load(
        &w,
        TMPL GROUP("status: {resourceClaimStatuses: [{name: gpu, resourceClaimName: gc}]}\n")
            GROUP_CLAIM("gc", "status: {allocation: {devices: {results: []}}}\n") MEMBER(
                "p0", "u0", "  nodeName: n\nstatus: {resourceClaimStatuses: [{name: gpu, resourceClaimName: gc}]}\n")
                MEMBER("p1", "u1",
                       "  nodeName: n\nstatus: {resourceClaimStatuses: [{name: gpu, resourceClaimName: gc}]}\n")));
    dra_features f = gate_on();
    dra_changes ch = DRA_CHANGES_INIT;
    CHECK(dra_claims_reserve(&w.c, "ns", "p0", &f, &ch) == NULL);
    const json_t *c = dra_state_find(&w.c, &ch, DRA_KIND_RESOURCE_CLAIM, "ns", "gc");
    const json_t *r = json_array_get(dra_jarr(c, "status.reservedFor"), 0);
    CHECK_STR(dra_jstr(r, "apiGroup"), "scheduling.k8s.io");
    CHECK_STR(dra_jstr(r, "resource"), "podgroups");
    CHECK_STR(dra_jstr(r, "name"), "g");
    CHECK_STR(dra_jstr(r, "uid"), "ug");
    /* the other member finds it reserved already */
    size_t nops = ch.nops;
    CHECK(dra_claims_reserve(&w.c, "ns", "p1", &f, &ch) == NULL);
    CHECK_INT(ch.nops, nops);
    CHECK_INT(
        json_array_size(dra_jarr(dra_state_find(&w.c, &ch, DRA_KIND_RESOURCE_CLAIM, "ns", "gc"), "status.reservedFor")),
        1);
    dra_changes_free(&ch);
    /* gate off (skip-add-reserved-podgroup-workloadresourceclaims-disabled): nothing is reserved */
    ch = (dra_changes)DRA_CHANGES_INIT;
    CHECK(dra_claims_reserve(&w.c, "ns", "p0", NULL, &ch) == NULL);
    CHECK_INT(ch.nops, 0);
    dra_changes_free(&ch);
    unload(&w);
}

UNIT_TEST(podgroup_release_stale_group_reservation)
{
    /* clear-reserved-podgroup / dont-clear-reserved-podgroup-feature-disabled */
    world w;
    CHECK(!load(&w, GROUP_CLAIM("gc", "status:\n  allocation: {devices: {results: []}}\n"
                                      "  reservedFor: [{apiGroup: scheduling.k8s.io, resource: podgroups, name: g, "
                                      "uid: ug}]\n") "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: "
                                                     "{name: other, namespace: ns, uid: uo}\n"
                                                     "spec: {schedulingPolicy: {basic: {}}}\n"));
    dra_features f = gate_on();
    dra_release_opts ro = {.features = &f};
    dra_changes ch = DRA_CHANGES_INIT;
    CHECK(dra_claims_release(&w.c, &ro, &ch) == NULL);
    const json_t *c = dra_state_find(&w.c, &ch, DRA_KIND_RESOURCE_CLAIM, "ns", "gc");
    CHECK(c != NULL && dra_jarr(c, "status.reservedFor") == NULL);
    CHECK(ch.nops >= 1 && strstr(ch.ops[0].reason, "PodGroup g is gone"));
    dra_changes_free(&ch);
    ch = (dra_changes)DRA_CHANGES_INIT;
    CHECK(dra_claims_release(&w.c, NULL, &ch) == NULL);
    CHECK_INT(ch.nops, 0);
    dra_changes_free(&ch);
    unload(&w);

    /* no PodGroup at all in the namespace: refused rather than guessed */
    CHECK(!load(
        &w,
        GROUP_CLAIM("gc", "status:\n  allocation: {devices: {results: []}}\n"
                          "  reservedFor: [{apiGroup: scheduling.k8s.io, resource: podgroups, name: g, uid: ug}]\n")));
    ch = (dra_changes)DRA_CHANGES_INIT;
    dra_err *e = dra_claims_release(&w.c, &ro, &ch);
    CHECK(e && strstr(e->msg, "the input has no PodGroups in namespace ns"));
    dra_err_free(e);
    dra_changes_free(&ch);
    unload(&w);
}

UNIT_MAIN()
