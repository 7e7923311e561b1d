/* Claim lifecycle: names, generate, reserve, release, doctor, status. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "lifecycle/claims.h"
#include "lifecycle/report.h"
#include "unit.h"

typedef struct world {
    dra_objset set;
    dra_cluster c;
} world;

static int load(world *w, const char *yaml)
{
    memset(w, 0, sizeof *w);
    dra_err *e = dra_read_mem(&w->set, "t.yaml", yaml, strlen(yaml));
    if (!e)
        e = dra_cluster_build(&w->c, &w->set);
    int bad = e != NULL;
    dra_err_free(e);
    return bad;
}

static void unload(world *w)
{
    dra_cluster_free(&w->c);
    dra_objset_free(&w->set);
}

#define POD(name, uid, extra) \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ns, uid: " uid "}\n" \
    "spec:\n  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: tmpl}\n" extra "---\n"
#define TMPL \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: tmpl, namespace: ns}\n" \
    "spec:\n  metadata: {labels: {a: b}, annotations: {x: y}}\n  spec: {devices: {requests: [{name: r, exactly: {deviceClassName: c}}]}}\n---\n"

UNIT_TEST(generate_name_truncates_proportionally)
{
    char *g = dra_claim_generate_name("pod", "gpu");
    CHECK_STR(g, "pod-gpu-");
    free(g);
    /* 40 + 30 + 2 = 72 > 57: pod 40*57/72 = 31, claim 30*57/72 = 23, no trailing dash */
    char pod[41], claim[31];
    memset(pod, 'p', 40);
    pod[40] = 0;
    memset(claim, 'c', 30);
    claim[30] = 0;
    g = dra_claim_generate_name(pod, claim);
    CHECK_INT(strlen(g), 31 + 1 + 23);
    CHECK(g[31] == '-' && g[strlen(g) - 1] == 'c');
    char *n = dra_claim_name_for(g, DRA_NAME_SUFFIX_HASH, "ns", "uid", claim);
    CHECK_INT(strlen(n), 55 + 5);
    CHECK(strncmp(n, g, 55) == 0);
    free(n);
    free(g);
    /* exactly 57 is not truncated */
    memset(pod, 'p', 27);
    pod[27] = 0;
    memset(claim, 'c', 28);
    claim[28] = 0;
    g = dra_claim_generate_name(pod, claim);
    CHECK_INT(strlen(g), 57);
    CHECK(g[56] == '-');
    free(g);
}

UNIT_TEST(name_suffix_modes)
{
    char *a = dra_claim_name_for("p-gpu-", DRA_NAME_SUFFIX_HASH, "ns", "u1", "gpu");
    char *b = dra_claim_name_for("p-gpu-", DRA_NAME_SUFFIX_HASH, "ns", "u1", "gpu");
    char *c = dra_claim_name_for("p-gpu-", DRA_NAME_SUFFIX_HASH, "ns", "u2", "gpu");
    CHECK_STR(a, b);
    CHECK(strcmp(a, c) != 0);
    CHECK_INT(strlen(a), 11);
    for (const char *p = a + 6; *p; p++)
        CHECK(strchr("bcdfghjklmnpqrstvwxz2456789", *p) != NULL);
    char *n = dra_claim_name_for("p-gpu-", DRA_NAME_SUFFIX_NONE, "ns", "u1", "gpu");
    CHECK_STR(n, "p-gpu");
    CHECK(dra_claim_name_for("p-gpu-", DRA_NAME_SUFFIX_RANDOM, "ns", "u1", "gpu") == NULL);
    dra_name_suffix m;
    dra_err *e = dra_name_suffix_parse("bogus", &m);
    CHECK(e && e->code == DRA_EXIT_INPUT);
    dra_err_free(e);
    free(a);
    free(b);
    free(c);
    free(n);
}

UNIT_TEST(generate_creates_claim_and_pod_status)
{
    world w;
    CHECK(!load(&w, TMPL POD("p", "u1", "")));
    dra_changes ch = DRA_CHANGES_INIT;
    dra_lc_opts o = {.name_suffix = DRA_NAME_SUFFIX_NONE};
    dra_err *e = dra_claims_generate(&w.c, &o, &ch);
    CHECK(e == NULL);
    CHECK_INT(ch.nobjs, 2);
    CHECK_INT(ch.nops, 2);
    const json_t *claim = ch.objs[0].obj;
    CHECK_STR(dra_jstr(claim, "metadata.name"), "p-gpu");
    CHECK_STR(dra_jstr(claim, "metadata.generateName"), "p-gpu-");
    CHECK_STR(dra_jstr(claim, "metadata.labels.a"), "b");
    CHECK_STR(json_string_value(json_object_get(dra_jget(claim, "metadata.annotations"), DRA_POD_CLAIM_NAME_ANNOTATION)), "gpu");
    const json_t *ref = dra_controller_ref(claim);
    CHECK_STR(dra_jstr(ref, "uid"), "u1");
    CHECK(json_object_get(ref, "blockOwnerDeletion") == NULL);
    CHECK_STR(dra_jstr(claim, "spec.devices.requests") ? "x" : "array", "array");
    CHECK(ch.ops[1].verb == DRA_OP_APPLY);
    CHECK_STR(ch.ops[1].field_manager, "ResourceClaimController");
    const json_t *st = json_array_get(dra_jarr(ch.objs[1].obj, "status.resourceClaimStatuses"), 0);
    CHECK_STR(dra_jstr(st, "resourceClaimName"), "p-gpu");
    dra_changes_free(&ch);
    unload(&w);
}

UNIT_TEST(generate_reuses_owned_and_orphan_claims)
{
    const char *owned =
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: p-gpu-abcde\n  namespace: ns\n"
        "  annotations: {resource.kubernetes.io/pod-claim-name: gpu}\n"
        "  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u1, controller: true}]\nspec: {}\n---\n";
    world w;
    /* orphan: the claim exists but the pod status does not name it yet */
    char *y = dra_xasprintf("%s%s%s", TMPL, POD("p", "u1", ""), owned);
    CHECK(!load(&w, y));
    dra_changes ch = DRA_CHANGES_INIT;
    CHECK(dra_claims_generate(&w.c, NULL, &ch) == NULL);
    CHECK_INT(ch.nops, 1); /* only the pod status */
    CHECK_STR(dra_jstr(json_array_get(dra_jarr(ch.objs[0].obj, "status.resourceClaimStatuses"), 0), "resourceClaimName"),
              "p-gpu-abcde");
    dra_changes_free(&ch);
    unload(&w);
    free(y);
    /* already recorded and owned: nothing to do */
    y = dra_xasprintf("%s%s%s", TMPL,
                      POD("p", "u1", "status: {resourceClaimStatuses: [{name: gpu, resourceClaimName: p-gpu-abcde}]}\n"), owned);
    CHECK(!load(&w, y));
    CHECK(dra_claims_generate(&w.c, NULL, &ch) == NULL);
    CHECK_INT(ch.nops, 0);
    dra_changes_free(&ch);
    unload(&w);
    free(y);
}

UNIT_TEST(generate_errors_use_upstream_texts)
{
    world w;
    CHECK(!load(&w, POD("p", "u1", "")));
    dra_changes ch = DRA_CHANGES_INIT;
    dra_err *e = dra_claims_generate(&w.c, NULL, &ch);
    CHECK(e != NULL);
    if (e)
        CHECK_STR(e->msg, "pod ns/p, PodResourceClaim gpu: resource claim template \"tmpl\": "
                          "resourceclaimtemplate.resource.k8s.io \"tmpl\" not found");
    dra_err_free(e);
    dra_changes_free(&ch);
    unload(&w);

    CHECK(!load(&w, "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: tmpl, namespace: ns}\n"
                    "spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: c, adminAccess: true}}]}}}\n---\n"
                    POD("p", "u1", "")));
    dra_features f;
    dra_features_default(&f);
    dra_err_free(dra_features_parse(&f, "DRAAdminAccess=false"));
    dra_lc_opts o = {.features = &f, .name_suffix = DRA_NAME_SUFFIX_HASH};
    e = dra_claims_generate(&w.c, &o, &ch);
    CHECK(e && strstr(e->msg, "admin access is requested, but the feature is disabled"));
    dra_err_free(e);
    dra_changes_free(&ch);
    unload(&w);
}

#define CLAIM(extra_md, status) \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c\n  namespace: ns\n  uid: cu\n" \
    "  resourceVersion: \"7\"\n" extra_md "spec: {}\n" status "---\n"
#define ALLOC "status:\n  allocation: {devices: {results: [{request: r, driver: d.example.com, pool: p, device: x}]}}\n"
#define RPOD(name, uid, extra) \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ns, uid: " uid "}\n" \
    "spec:\n  nodeName: n1\n  resourceClaims:\n  - {name: gpu, resourceClaimName: c}\n" extra "---\n"

UNIT_TEST(reserve_appends_and_refuses)
{
    world w;
    dra_changes ch = DRA_CHANGES_INIT;
    CHECK(!load(&w, CLAIM("", ALLOC) RPOD("p", "u1", "")));
    CHECK(dra_claims_reserve(&w.c, "ns", "p", &ch) == NULL);
    CHECK_INT(ch.nops, 1);
    const json_t *e0 = json_array_get(dra_jarr(ch.objs[0].obj, "status.reservedFor"), 0);
    CHECK_STR(dra_jstr(e0, "resource"), "pods");
    CHECK_STR(dra_jstr(e0, "uid"), "u1");
    CHECK(json_object_get(e0, "apiGroup") == NULL);
    /* preconditions: uid and resourceVersion tests first */
    const json_t *p = ch.ops[0].body;
    CHECK_STR(dra_jstr(json_array_get(p, 0), "path"), "/metadata/uid");
    CHECK_STR(dra_jstr(json_array_get(p, 1), "path"), "/metadata/resourceVersion");
    dra_changes_free(&ch);
    unload(&w);

    CHECK(!load(&w, CLAIM("", "") RPOD("p", "u1", "")));
    dra_err *e = dra_claims_reserve(&w.c, "ns", "p", &ch);
    CHECK(e && e->code == DRA_EXIT_NEGATIVE);
    if (e)
        CHECK_STR(e->msg, "ResourceClaim.resource.k8s.io \"c\" is invalid: status.reservedFor: Forbidden: "
                          "may not be specified when `allocated` is not set");
    CHECK_INT(ch.nops, 0);
    dra_err_free(e);
    unload(&w);

    CHECK(!load(&w, CLAIM("  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n", ALLOC) RPOD("p", "u1", "")));
    e = dra_claims_reserve(&w.c, "ns", "p", &ch);
    CHECK(e && strstr(e->msg, "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"));
    dra_err_free(e);
    unload(&w);

    /* 256 entries already */
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, CLAIM("", ALLOC "  reservedFor:\n"));
    b.len -= 4; /* drop the document separator to extend the status */
    b.data[b.len] = 0;
    for (int i = 0; i < 256; i++)
        dra_buf_printf(&b, "  - {resource: pods, name: q%d, uid: q%d}\n", i, i);
    dra_buf_puts(&b, "---\n" RPOD("p", "u1", ""));
    CHECK(!load(&w, dra_buf_str(&b)));
    e = dra_claims_reserve(&w.c, "ns", "p", &ch);
    CHECK(e && strstr(e->msg, "status.reservedFor: Too many: 257: must have at most 256 items"));
    dra_err_free(e);
    unload(&w);
    dra_buf_free(&b);
    dra_changes_free(&ch);
}

UNIT_TEST(release_deallocates_then_removes_finalizer_then_deletes)
{
    world w;
    dra_changes ch = DRA_CHANGES_INIT;
    CHECK(!load(&w, CLAIM("  finalizers: [resource.kubernetes.io/delete-protection]\n"
                          "  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u1, controller: true}]\n",
                          ALLOC "  reservedFor: [{resource: pods, name: p, uid: u1}, {apiGroup: example.com, resource: things, name: t, uid: t1}]\n")
                        RPOD("p", "u1", "status: {phase: Failed}\n")));
    /* the unknown consumer is kept: no deallocation, no delete */
    CHECK(dra_claims_release(&w.c, NULL, &ch) == NULL);
    CHECK_INT(ch.nops, 1);
    CHECK_INT(json_array_size(dra_jarr(ch.objs[0].obj, "status.reservedFor")), 1);
    CHECK(dra_jget(ch.objs[0].obj, "status.allocation") != NULL);
    dra_changes_free(&ch);
    unload(&w);

    CHECK(!load(&w, CLAIM("  finalizers: [resource.kubernetes.io/delete-protection]\n"
                          "  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u1, controller: true}]\n",
                          ALLOC "  reservedFor: [{resource: pods, name: p, uid: u1}]\n")
                        RPOD("p", "u1", "status: {phase: Succeeded}\n")));
    CHECK(dra_claims_release(&w.c, NULL, &ch) == NULL);
    CHECK_INT(ch.nops, 3);
    CHECK(ch.ops[0].verb == DRA_OP_PATCH && ch.ops[0].subresource && strcmp(ch.ops[0].subresource, "status") == 0);
    CHECK(ch.ops[1].verb == DRA_OP_PATCH && ch.ops[1].subresource == NULL);
    CHECK(ch.ops[2].verb == DRA_OP_DELETE);
    /* the finalizer patch cannot test resourceVersion any more */
    CHECK_INT(json_array_size(ch.ops[1].body), 3);
    CHECK(ch.objs[0].deleted);
    dra_changes_free(&ch);
    unload(&w);

    /* without the finalizer the allocation stays (E5-6) */
    CHECK(!load(&w, CLAIM("", ALLOC "  reservedFor: [{resource: pods, name: gone, uid: g1}]\n") RPOD("p", "u1", "")));
    CHECK(dra_claims_release(&w.c, NULL, &ch) == NULL);
    CHECK_INT(ch.nops, 1);
    CHECK(dra_jget(ch.objs[0].obj, "status.allocation") != NULL);
    dra_changes_free(&ch);
    unload(&w);

    /* no pods at all: refused */
    CHECK(!load(&w, CLAIM("", ALLOC "  reservedFor: [{resource: pods, name: gone, uid: g1}]\n")));
    dra_err *e = dra_claims_release(&w.c, NULL, &ch);
    CHECK(e && e->code == DRA_EXIT_INPUT);
    dra_err_free(e);
    dra_changes_free(&ch);
    unload(&w);
}

UNIT_TEST(load_converts_and_addresses_served_versions)
{
    static const char yaml[] =
        "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\n"
        "metadata: {name: c, namespace: ns, uid: cu, resourceVersion: \"7\"}\n"
        "spec: {devices: {requests: [{name: r, deviceClassName: gpu.example.com}]}}\n"
        "status:\n  allocation: {devices: {results: [{request: r, driver: d.example.com, pool: p, device: x}]}}\n"
        "  reservedFor: [{resource: pods, name: gone, uid: g1}]\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: other, namespace: ns, uid: u9}\nspec: {containers: [{name: c, image: i}]}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: ns}\n";
    dra_objset set = DRA_OBJSET_INIT;
    dra_cluster c = DRA_CLUSTER_INIT;
    CHECK(dra_read_mem(&set, "t.yaml", yaml, strlen(yaml)) == NULL);
    CHECK(dra_cluster_load_input(&c, &set, NULL, 0) == NULL);
    CHECK_INT(c.unknown, 1);
    CHECK_INT(c.n[DRA_KIND_RESOURCE_CLAIM], 1);
    const dra_obj *co = dra_cluster_find(&c, DRA_KIND_RESOURCE_CLAIM, "ns", "c");
    CHECK(co != NULL);
    if (co) {
        CHECK_STR(dra_jstr(co->json, "apiVersion"), "resource.k8s.io/v1");
        CHECK_STR(dra_jstr(json_array_get(dra_jarr(co->json, "spec.devices.requests"), 0), "exactly.deviceClassName"),
                  "gpu.example.com");
        CHECK_STR(dra_cluster_served_version(&c, co->json), "resource.k8s.io/v1beta1");
    }
    dra_changes ch = DRA_CHANGES_INIT;
    CHECK(dra_claims_release(&c, NULL, &ch) == NULL);
    dra_cluster_address_ops(&c, &ch);
    CHECK_INT(ch.nops, 1);
    if (ch.nops == 1)
        CHECK_STR(ch.ops[0].api_version, "resource.k8s.io/v1beta1");
    dra_changes_free(&ch);
    dra_cluster_free(&c);
    dra_objset_free(&set);

    /* invalid objects and DRA-group typos: errors, nothing indexed */
    static const char bad[] = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: Bad, namespace: ns}\nspec: {}\n---\n"
                              "apiVersion: resource.k8s.io/v3\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\n";
    CHECK(dra_read_mem(&set, "bad.yaml", bad, strlen(bad)) == NULL);
    dra_err *e = dra_cluster_load_input(&c, &set, NULL, 0);
    CHECK_INT((int)dra_err_count(e), 2);
    CHECK(e && e->code == DRA_EXIT_INPUT);
    CHECK_INT(c.n[DRA_KIND_RESOURCE_CLAIM], 0);
    dra_err_free(e);
    dra_cluster_free(&c);
    dra_objset_free(&set);
}

UNIT_TEST(doctor_and_status)
{
    world w;
    CHECK(!load(&w, CLAIM("  finalizers: [resource.kubernetes.io/delete-protection]\n"
                          "  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n", ALLOC)
                        RPOD("p", "u1", "")));
    dra_findings f = DRA_FINDINGS_INIT;
    dra_doctor(&w.c, NULL, &f);
    CHECK(f.n >= 1);
    if (f.n) {
        CHECK_STR(f.v[0].object, "ResourceClaim/ns/c");
        CHECK(strstr(f.v[0].problem, "holds it without users") != NULL);
        CHECK(strstr(f.v[0].fix, "/status/allocation") != NULL && strstr(f.v[0].fix, "/metadata/finalizers/0") != NULL);
    }
    dra_findings_free(&f);
    json_t *rows = dra_claim_status_rows(&w.c);
    CHECK_STR(dra_jstr(json_array_get(rows, 0), "state"), "deleting");
    CHECK_STR(dra_jstr(json_array_get(rows, 0), "node"), "*");
    json_decref(rows);
    unload(&w);
}

UNIT_TEST(time_parse_and_format)
{
    int64_t t;
    CHECK(dra_time_parse("2026-03-01T10:00:00Z", &t) == NULL);
    char *s = dra_time_format(t);
    CHECK_STR(s, "2026-03-01T10:00:00Z");
    free(s);
    CHECK(dra_time_parse("2026-03-01T12:00:00.5+02:00", &t) == NULL);
    s = dra_time_format(t);
    CHECK_STR(s, "2026-03-01T10:00:00Z");
    free(s);
    dra_err *e = dra_time_parse("yesterday", &t);
    CHECK(e != NULL);
    dra_err_free(e);
    s = dra_duration_format(90 * DRA_NSEC_PER_SEC);
    CHECK_STR(s, "1m30s");
    free(s);
    s = dra_duration_format(7200 * DRA_NSEC_PER_SEC);
    CHECK_STR(s, "2h0m0s");
    free(s);
}

UNIT_MAIN()
