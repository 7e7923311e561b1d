/* Claim lifecycle: names, generate, reserve, release, doctor, status. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "lifecycle/claims.h"
#include "doctor/report.h"
#include "cluster_world.h"
#include "testdata.h"
#include "unit.h"

/* clang-format off */
#define POD(name, uid, extra) \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ns, uid: " uid "}\n" \
    "spec:\n  resourceClaims:\n  - {name: gpu, resourceClaimTemplateName: tmpl}\n" extra "---\n"
#define TMPL \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: tmpl, namespace: ns}\n" \
    "spec:\n  metadata: {labels: {a: b}, annotations: {x: z}}\n  spec: {devices: {requests: [{name: r, exactly: {deviceClassName: c}}]}}\n---\n"
/* clang-format on */

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
    CHECK_STR(
        json_string_value(json_object_get(dra_jget(claim, "metadata.annotations"), DRA_POD_CLAIM_NAME_ANNOTATION)),
        "gpu");
    const json_t *ref = dra_controller_ref(claim);
    CHECK_STR(dra_jstr(ref, "uid"), "u1");
    CHECK(json_object_get(ref, "blockOwnerDeletion") == NULL);
    CHECK_STR(dra_jstr(claim, "spec.devices.requests") ? "x" : "array", "array");
    CHECK(ch.ops[1].verb == DRA_OP_APPLY);
    CHECK_STR(ch.ops[1].field_manager, "ResourceClaimController");
    const json_t *st = json_array_get(dra_jarr(ch.objs[1].obj, "status.resourceClaimStatuses"), 0);
    CHECK_STR(dra_jstr(st, "resourceClaimName"), "p-gpu");
    dra_changes_free(&ch);
    /* objects only: the same objects, no operations */
    ch.objects_only = true;
    CHECK(dra_claims_generate(&w.c, &o, &ch) == NULL);
    CHECK_INT(ch.nobjs, 2);
    CHECK_INT(ch.nops, 0);
    dra_changes_free(&ch);
    unload(&w);
}

/* A classic (v1alpha2) template is used only when the caller takes notes:
 * converted, and noted once however many pods use it. */
UNIT_TEST(generate_uses_classic_templates_when_noting)
{
    world w;
    CHECK(!load(
        &w, "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimTemplate\nmetadata: {name: tmpl, namespace: ns}\n"
            "spec: {spec: {resourceClassName: gpu.example.com}}\n---\n" POD("p", "u1", "") POD("q", "u2", "")));
    dra_changes ch = DRA_CHANGES_INIT;
    dra_lc_opts o = {.name_suffix = DRA_NAME_SUFFIX_NONE};
    dra_err *e = dra_claims_generate(&w.c, &o, &ch);
    CHECK_INT(dra_err_count(e), 2); /* not found */
    dra_err_free(e);
    dra_changes_free(&ch);
    dra_err *notes = NULL;
    o.notes = &notes;
    CHECK(dra_claims_generate(&w.c, &o, &ch) == NULL);
    CHECK_INT(ch.nobjs, 4);
    CHECK_STR(dra_jstr(ch.objs[0].obj, "apiVersion"), "resource.k8s.io/v1");
    CHECK_STR(dra_jstr(json_array_get(dra_jarr(ch.objs[0].obj, "spec.devices.requests"), 0), "exactly.deviceClassName"),
              "gpu.example.com");
    CHECK_INT(dra_err_count(notes), 1);
    CHECK(notes && notes->code == DRA_EXIT_OK && notes->line == 1);
    dra_err_free(notes);
    dra_changes_free(&ch);
    unload(&w);
}

/* A frozen created object is held as text and comes back, equal and in
 * member order, into the same object through every accessor; objects that
 * are not the changes' own alone are left as trees. */
UNIT_TEST(changes_freeze_holds_created_objects_as_text)
{
    const char *src = "{\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\","
                      "\"ownerReferences\":[{\"uid\":\"u1\",\"controller\":true}]},"
                      "\"spec\":{\"z\":1,\"a\":[0.5,true,null,\"x\\u0000y\",\"\xc3\xa9\"],\"m\":{}}}";
    json_t *obj = json_loads(src, JSON_ALLOW_NUL, NULL);
    CHECK(obj != NULL);
    char *before = json_dumps(obj, JSON_COMPACT);
    dra_changes ch = DRA_CHANGES_INIT;
    dra_change *x = dra_changes_add_created(&ch, obj);
    dra_changes_freeze(&ch, x);
    CHECK(x->text != NULL);
    CHECK_INT(json_object_size(obj), 0);
    dra_changes_freeze(&ch, x); /* twice: still the one text */
    x = dra_changes_find(&ch, obj);
    CHECK(x != NULL && x->obj == obj && x->text == NULL);
    char *after = json_dumps(obj, JSON_COMPACT);
    CHECK_STR(after, before);
    free(after);
    /* by name and by owner, too */
    dra_changes_freeze(&ch, x);
    CHECK(dra_changes_created(&ch, "ResourceClaim", "ns", "c") == x && json_object_size(obj) == 3);
    dra_changes_freeze(&ch, x);
    size_t it = dra_changes_owned(&ch, "u1");
    CHECK(dra_changes_owned_next(&ch, &it) == x && json_object_size(obj) == 3);
    /* the text given up for writing */
    dra_changes_freeze(&ch, x);
    size_t len;
    char *text = dra_changes_take_text(x, &len);
    CHECK(text != NULL && len == strlen(text) && x->text == NULL);
    json_t *back = json_loadb(text, len, JSON_ALLOW_NUL, NULL);
    after = json_dumps(back, JSON_COMPACT);
    CHECK_STR(after, before);
    free(after);
    json_decref(back);
    free(text);
    /* held elsewhere too, or an original's working copy: not frozen */
    json_t *shared = json_pack("{s:s}", "kind", "ResourceClaim");
    dra_change *y = dra_changes_add_created(&ch, json_incref(shared));
    dra_changes_freeze(&ch, y);
    CHECK(y->text == NULL && json_object_size(shared) == 1);
    json_decref(shared);
    json_t *orig = json_pack("{s:s}", "kind", "Pod");
    dra_change *z = dra_changes_touch(&ch, orig);
    dra_changes_freeze(&ch, z);
    CHECK(z->text == NULL && json_object_size(z->obj) == 1);
    dra_changes_freeze(&ch, &ch.objs[0]); /* freed with the changes */
    dra_changes_free(&ch);
    json_decref(orig);
    free(before);
}

/* A created object's last member shared with another tree (a claim's spec,
 * its template's) is held by reference, out of the text: it comes back the
 * same tree, last, and the text given up for writing has it written in. */
UNIT_TEST(changes_freeze_keeps_a_shared_last_member)
{
    json_t *spec = json_pack("{s:{s:[{s:s}]}}", "devices", "requests", "name", "r");
    json_t *obj = json_pack("{s:s,s:{s:s,s:s},s:O}", "kind", "ResourceClaim", "metadata", "name", "c", "namespace",
                            "ns", "spec", spec);
    char *before = json_dumps(obj, JSON_COMPACT);
    dra_changes ch = DRA_CHANGES_INIT;
    dra_change *x = dra_changes_add_created(&ch, obj);
    dra_changes_freeze(&ch, x);
    CHECK(x->text != NULL && x->kept == spec && strstr(x->text, "requests") == NULL);
    x = dra_changes_created(&ch, "ResourceClaim", "ns", "c");
    CHECK(x != NULL && x->text == NULL && x->kept == NULL && json_object_get(obj, "spec") == spec);
    char *after = json_dumps(obj, JSON_COMPACT);
    CHECK_STR(after, before);
    free(after);
    dra_changes_freeze(&ch, x);
    size_t len;
    char *text = dra_changes_take_text(x, &len);
    CHECK(text != NULL && len == strlen(text) && x->kept == NULL);
    CHECK_STR(text, "{\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},"
                    "\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\"}]}}}");
    free(text);
    /* not the last member: written with the rest */
    json_t *mid = json_pack("{s:s,s:O,s:{}}", "kind", "ResourceClaim", "spec", spec, "status");
    dra_change *y = dra_changes_add_created(&ch, mid);
    dra_changes_freeze(&ch, y);
    CHECK(y->text != NULL && y->kept == NULL && strstr(y->text, "requests") != NULL);
    /* written once: the next object sharing it takes the same text */
    CHECK_INT((long long)ch.nshared, 1);
    json_t *mid2 = json_pack("{s:s,s:O,s:{}}", "kind", "ResourceClaim", "spec", spec, "status");
    dra_change *y2 = dra_changes_add_created(&ch, mid2);
    dra_changes_freeze(&ch, y2);
    CHECK_INT((long long)ch.nshared, 1);
    CHECK_STR(y2->text, "{\"kind\":\"ResourceClaim\",\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\"}]}},"
                        "\"status\":{}}");
    /* only the member left: {} around it */
    json_t *only = json_pack("{s:O}", "spec", spec);
    dra_change *z = dra_changes_add_created(&ch, only);
    dra_changes_freeze(&ch, z);
    text = dra_changes_take_text(z, &len);
    CHECK_STR(text, "{\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\"}]}}}");
    free(text);
    dra_changes_free(&ch);
    CHECK_INT((long long)spec->refcount, 1);
    json_decref(spec);
    free(before);
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
    CHECK_STR(
        dra_jstr(json_array_get(dra_jarr(ch.objs[0].obj, "status.resourceClaimStatuses"), 0), "resourceClaimName"),
        "p-gpu-abcde");
    dra_changes_free(&ch);
    unload(&w);
    free(y);
    /* already recorded and owned: nothing to do */
    y = dra_xasprintf(
        "%s%s%s", TMPL,
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

    CHECK(!load(
        &w,
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: tmpl, namespace: ns}\n"
        "spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: c, adminAccess: true}}]}}}\n---\n" POD(
            "p", "u1", "")));
    dra_features f;
    dra_features_default(&f);
    f.on[DRA_FEATURE_ADMIN_ACCESS] = false; /* locked at 1.37: as upstream's tests, emulate an older version */
    dra_lc_opts o = {.features = &f, .name_suffix = DRA_NAME_SUFFIX_HASH};
    e = dra_claims_generate(&w.c, &o, &ch);
    CHECK(e && strstr(e->msg, "admin access is requested, but the feature is disabled"));
    dra_err_free(e);
    dra_changes_free(&ch);
    unload(&w);
}

/* clang-format off */
#define CLAIM(extra_md, status) \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c\n  namespace: ns\n  uid: cu\n" \
    "  resourceVersion: \"7\"\n" extra_md "spec: {}\n" status "---\n"
#define ALLOC "status:\n  allocation: {devices: {results: [{request: r, driver: d.example.com, pool: p, device: x}]}}\n"
#define RPOD(name, uid, extra) \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ns, uid: " uid "}\n" \
    "spec:\n  nodeName: n1\n  resourceClaims:\n  - {name: gpu, resourceClaimName: c}\n" extra "---\n"
/* clang-format on */

UNIT_TEST(reserve_appends_and_refuses)
{
    world w;
    dra_changes ch = DRA_CHANGES_INIT;
    CHECK(!load(&w, CLAIM("", ALLOC) RPOD("p", "u1", "")));
    CHECK(dra_claims_reserve(&w.c, "ns", "p", NULL, &ch) == NULL);
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
    dra_err *e = dra_claims_reserve(&w.c, "ns", "p", NULL, &ch);
    CHECK(e && e->code == DRA_EXIT_NEGATIVE);
    if (e)
        CHECK_STR(e->msg, "ResourceClaim.resource.k8s.io \"c\" is invalid: status.reservedFor: Forbidden: "
                          "may not be specified when `allocated` is not set");
    CHECK_INT(ch.nops, 0);
    dra_err_free(e);
    unload(&w);

    CHECK(!load(&w, CLAIM("  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n", ALLOC) RPOD("p", "u1", "")));
    e = dra_claims_reserve(&w.c, "ns", "p", NULL, &ch);
    CHECK(e &&
          strstr(e->msg, "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"));
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
    e = dra_claims_reserve(&w.c, "ns", "p", NULL, &ch);
    CHECK(e && strstr(e->msg, "status.reservedFor: Too many: 257: must have at most 256 items"));
    dra_err_free(e);
    unload(&w);
    dra_buf_free(&b);
    dra_changes_free(&ch);
}

UNIT_TEST(bind_reserves_claims_made_earlier_in_the_same_state)
{
    /* generate, then PreBind on the claim just made: the state carries it */
    world w;
    CHECK(!load(&w, TMPL POD("p", "u1", "")));
    dra_changes ch = DRA_CHANGES_INIT;
    dra_lc_opts o = {.name_suffix = DRA_NAME_SUFFIX_NONE, .pending_only = true};
    CHECK(dra_claims_generate(&w.c, &o, &ch) == NULL);
    const json_t *pod = dra_state_find(&w.c, &ch, DRA_KIND_POD, "ns", "p");
    CHECK(pod != NULL && pod != w.c.of[DRA_KIND_POD][0]->json); /* the working copy, with the status */
    const json_t *claim = dra_state_find(&w.c, &ch, DRA_KIND_RESOURCE_CLAIM, "ns", "p-gpu");
    CHECK(claim != NULL);
    json_t *alloc = json_pack("{s:{s:[{s:s,s:s,s:s,s:s}]}}", "devices", "results", "request", "r", "driver", "d",
                              "pool", "p", "device", "x");
    dra_reserve_claim rc = {"p-gpu", claim, true, alloc, NULL};
    dra_reserve_opts ro = {.bind = true, .now = INT64_C(1767225600)};
    size_t nops = ch.nops;
    CHECK(dra_claims_reserve_in(&w.c, &ch, pod, &rc, 1, &ro) == NULL);
    json_decref(alloc);
    claim = dra_state_find(&w.c, &ch, DRA_KIND_RESOURCE_CLAIM, "ns", "p-gpu");
    CHECK(dra_has_finalizer(claim, DRA_DELETE_PROTECTION_FINALIZER, NULL));
    CHECK_STR(dra_jstr(claim, "status.allocation.allocationTimestamp"), "2026-01-01T00:00:00Z");
    CHECK(dra_claim_reserved_for_uid(claim, "u1"));
    /* finalizer update first, then one status update */
    CHECK_INT(ch.nops, nops + 2);
    CHECK(ch.ops[nops].subresource == NULL);
    CHECK_STR(ch.ops[nops + 1].subresource, "status");
    CHECK_STR(dra_jstr(json_array_get(ch.ops[nops + 1].body, 0), "path"), "/status/allocation");

    /* a second pod reserving the now allocated claim: reservedFor only, no second finalizer */
    ro.now += 60;
    json_t *other = json_pack("{s:s,s:s,s:{s:s,s:s,s:s}}", "apiVersion", "v1", "kind", "Pod", "metadata", "name", "q",
                              "namespace", "ns", "uid", "u2");
    dra_reserve_claim rc2 = {"p-gpu", NULL, false, NULL, NULL};
    CHECK(dra_claims_reserve_in(&w.c, &ch, other, &rc2, 1, &ro) == NULL);
    claim = dra_state_find(&w.c, &ch, DRA_KIND_RESOURCE_CLAIM, "ns", "p-gpu");
    CHECK_INT(json_array_size(dra_jarr(claim, "status.reservedFor")), 2);
    CHECK_INT(json_array_size(dra_jarr(claim, "metadata.finalizers")), 1);
    CHECK_STR(dra_jstr(claim, "status.allocation.allocationTimestamp"), "2026-01-01T00:00:00Z");
    /* as the controller's reserveForPod, ownership is checked: q does not own p-gpu */
    rc2.check_owner = true;
    json_t *third = json_pack("{s:{s:s,s:s,s:s}}", "metadata", "name", "r", "namespace", "ns", "uid", "u3");
    dra_err *e = dra_claims_reserve_in(&w.c, &ch, third, &rc2, 1, NULL);
    CHECK(e && e->code == DRA_EXIT_NEGATIVE);
    if (e)
        CHECK_STR(e->msg, "ResourceClaim ns/p-gpu was not created for pod ns/r (pod is not owner)");
    dra_err_free(e);
    json_decref(third);
    json_decref(other);
    dra_changes_free(&ch);
    unload(&w);
}

UNIT_TEST(bind_stamps_existing_allocations_only_when_gated)
{
    world w;
    CHECK(!load(&w, CLAIM("", ALLOC) RPOD("p", "u1", "")));
    dra_features f;
    dra_features_default(&f);
    dra_err_free(dra_features_parse(&f, "DRADeviceBindingConditions=false"));
    dra_reserve_opts ro = {.bind = true, .features = &f, .now = 0};
    dra_changes ch = DRA_CHANGES_INIT;
    const json_t *pod = dra_state_find(&w.c, &ch, DRA_KIND_POD, "ns", "p");
    CHECK(dra_claims_reserve_in(&w.c, &ch, pod, NULL, 0, &ro) == NULL);
    const json_t *claim = dra_state_find(&w.c, &ch, DRA_KIND_RESOURCE_CLAIM, "ns", "c");
    CHECK(dra_claim_reserved_for_uid(claim, "u1"));
    CHECK(dra_jget(claim, "status.allocation.allocationTimestamp") == NULL);
    CHECK(!dra_has_finalizer(claim, DRA_DELETE_PROTECTION_FINALIZER, NULL)); /* no new allocation */
    dra_changes_free(&ch);
    /* gated on (the defaults): the existing allocation gets its timestamp in the same update */
    ro.features = NULL;
    CHECK(dra_claims_reserve_in(&w.c, &ch, pod, NULL, 0, &ro) == NULL);
    claim = dra_state_find(&w.c, &ch, DRA_KIND_RESOURCE_CLAIM, "ns", "c");
    CHECK_STR(dra_jstr(claim, "status.allocation.allocationTimestamp"), "1970-01-01T00:00:00Z");
    CHECK_INT(ch.nops, 1);
    const json_t *last = json_array_get(ch.ops[0].body, json_array_size(ch.ops[0].body) - 1);
    CHECK_STR(dra_jstr(last, "path"), "/status/allocation/allocationTimestamp");
    dra_changes_free(&ch);
    unload(&w);
}

/* Many pods in one call: every lookup is indexed, so 20,000 pods take a
 * blink (the scans made this minutes).  Also checks first-wins and orphans
 * at scale. */
UNIT_TEST(generate_scales_over_a_whole_dump)
{
    enum { N = 20000 };
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, TMPL);
    for (int i = 0; i < N; i++) {
        dra_buf_printf(&b,
                       "{apiVersion: v1, kind: Pod, metadata: {name: p%d, namespace: ns, uid: u%d}, spec: "
                       "{resourceClaims: [{name: gpu, resourceClaimTemplateName: tmpl}]}}\n---\n",
                       i, i);
        if (i % 1000 == 0) /* an orphan for every thousandth pod */
            dra_buf_printf(&b,
                           "{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: orphan%d, "
                           "namespace: ns, annotations: {resource.kubernetes.io/pod-claim-name: gpu}, "
                           "ownerReferences: [{apiVersion: v1, kind: Pod, name: p%d, uid: u%d, controller: true}]}, "
                           "spec: {}}\n---\n",
                           i, i, i);
    }
    world w;
    CHECK(!load(&w, dra_buf_str(&b)));
    dra_changes ch = DRA_CHANGES_INIT;
    dra_lc_opts o = {.name_suffix = DRA_NAME_SUFFIX_NONE};
    CHECK(dra_claims_generate(&w.c, &o, &ch) == NULL);
    CHECK_INT(ch.nobjs, N + N - N / 1000); /* every pod, claims for all but the orphans' pods */
    const json_t *p1000 = dra_state_find(&w.c, &ch, DRA_KIND_POD, "ns", "p1000");
    CHECK_STR(dra_jstr(json_array_get(dra_jarr(p1000, "status.resourceClaimStatuses"), 0), "resourceClaimName"),
              "orphan1000");
    CHECK(dra_state_find(&w.c, &ch, DRA_KIND_RESOURCE_CLAIM, "ns", "p19999-gpu") != NULL);
    CHECK(dra_changes_created(&ch, "ResourceClaim", "ns", "p1000-gpu") == NULL);
    dra_changes_free(&ch);
    unload(&w);
    dra_buf_free(&b);
}

UNIT_TEST(index_lists_values_in_insertion_order)
{
    dra_lc_index ix = {0};
    for (size_t i = 0; i < 1000; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%zu", i % 100);
        dra_lc_index_add(&ix, 1, k, NULL, i);
    }
    dra_lc_index_add(&ix, 2, "k1", NULL, 7);
    dra_lc_index_add(&ix, 1, "k", "1", 9); /* ("k","1") is not ("k1","") */
    size_t v, n = 0, last = 0;
    bool ordered = true;
    for (size_t it = dra_lc_index_find(&ix, 1, "k1", NULL); dra_lc_index_next(&ix, &it, &v); n++) {
        ordered = ordered && (n == 0 || v > last) && v % 100 == 1;
        last = v;
    }
    CHECK_INT(n, 10);
    CHECK(ordered);
    CHECK(dra_lc_index_first(&ix, 2, "k1", "", &v) && v == 7);
    CHECK(dra_lc_index_first(&ix, 1, "k", "1", &v) && v == 9);
    CHECK(!dra_lc_index_first(&ix, 1, "k100", NULL, &v));
    int x;
    dra_lc_index_add_ptr(&ix, 3, &x, 42);
    CHECK(dra_lc_index_first_ptr(&ix, 3, &x, &v) && v == 42);
    CHECK(!dra_lc_index_first_ptr(&ix, 3, &n, &v));
    dra_lc_index_free(&ix);
}

UNIT_TEST(release_deallocates_then_removes_finalizer_then_deletes)
{
    world w;
    dra_changes ch = DRA_CHANGES_INIT;
    CHECK(!load(&w, CLAIM("  finalizers: [resource.kubernetes.io/delete-protection]\n"
                          "  ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u1, controller: true}]\n",
                          ALLOC "  reservedFor: [{resource: pods, name: p, uid: u1}, {apiGroup: example.com, resource: "
                                "things, name: t, uid: t1}]\n") RPOD("p", "u1", "status: {phase: Failed}\n")));
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
        "apiVersion: v1\nkind: Pod\nmetadata: {name: other, namespace: ns, uid: u9}\nspec: {containers: [{name: c, "
        "image: i}]}\n---\n"
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
    static const char bad[] =
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: Bad, namespace: ns}\nspec: {}\n---\n"
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
                          "  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n",
                          ALLOC) RPOD("p", "u1", "")));
    dra_findings f = DRA_FINDINGS_INIT;
    dra_doctor(&w.c, NULL, &f);
    CHECK(f.n >= 1);
    if (f.n) {
        CHECK_STR(f.v[0].object, "ResourceClaim/ns/c");
        CHECK(strstr(f.v[0].msg, "holds it without users") != NULL);
        CHECK(strstr(f.v[0].fix, "/status/allocation") != NULL && strstr(f.v[0].fix, "/metadata/finalizers/0") != NULL);
    }
    dra_problems_free(&f);
    json_t *rows = dra_claim_status_rows(&w.c);
    CHECK_STR(dra_jstr(json_array_get(rows, 0), "state"), "deleting");
    CHECK_STR(dra_jstr(json_array_get(rows, 0), "node"), "*");
    json_decref(rows);
    unload(&w);
}

UNIT_TEST(time_parse_and_format)
{
    dra_time t;
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
    s = dra_duration_format_sec(90);
    CHECK_STR(s, "1m30s");
    free(s);
    s = dra_duration_format_sec(7200);
    CHECK_STR(s, "2h0m0s");
    free(s);
}

UNIT_MAIN()

/* dra_cluster_read_input: checked as read, kept unconverted without device
 * descriptions; field lines found by reading the file again. */

/* clang-format off */
#define SLICE_V1BETA1 \
    "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata: {name: s1}\n" \
    "spec:\n  driver: d.example.com\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  nodeName: n1\n" \
    "  devices:\n  - name: gpu-0\n    basic:\n      attributes: {model: {string: big}}\n      capacity: {memory: {value: 8Gi}}\n---\n"
/* clang-format on */
#define CLASS "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\n---\n"

UNIT_TEST(cluster_read_input_keeps_what_the_tools_use)
{
    char *path = unit_write_temp(SLICE_V1BETA1 CLASS CLASS
                                 "apiVersion: v1\nkind: Event\nmetadata: {name: e, namespace: ns}\n---\n" TMPL);
    CHECK(path != NULL);
    dra_objset set = DRA_OBJSET_INIT;
    dra_cluster c = DRA_CLUSTER_INIT;
    char *paths[] = {path};
    dra_err *e = dra_cluster_read_input(&c, &set, paths, 1, NULL, 0);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(c.n[DRA_KIND_RESOURCE_SLICE], 1);
    CHECK_INT(c.n[DRA_KIND_DEVICE_CLASS], 1);
    CHECK_INT(c.model.collapsed, 1); /* the class twice */
    CHECK_INT(c.unknown, 1);         /* the Event */
    if (c.n[DRA_KIND_RESOURCE_SLICE]) {
        const json_t *s = c.of[DRA_KIND_RESOURCE_SLICE][0]->json;
        const json_t *dev = json_array_get(dra_jget(s, "spec.devices"), 0);
        CHECK_STR(dra_jstr(dev, "name"), "gpu-0");
        CHECK(json_object_get(dev, "attributes") == NULL && json_object_get(dev, "capacity") == NULL);
        CHECK_STR(dra_cluster_served_version(&c, s), "resource.k8s.io/v1beta1");
    }
    dra_cluster_free(&c);
    dra_objset_free(&set);
    unlink(path);
    free(path);
}

UNIT_TEST(cluster_read_input_errors_name_the_field_line)
{
    /* found while reading: the document's own text */
    char *path = unit_write_temp(
        CLASS "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: bad, namespace: ns}\n"
              "spec:\n  devices:\n    requests:\n    - name: r\n      exactly:\n        deviceClassName: c\n"
              "        allocationMode: Sometimes\n");
    CHECK(path != NULL);
    dra_objset set = DRA_OBJSET_INIT;
    dra_cluster c = DRA_CLUSTER_INIT;
    char *paths[] = {path};
    dra_err *e = dra_cluster_read_input(&c, &set, paths, 1, NULL, 0);
    CHECK(e != NULL);
    if (e) {
        CHECK_INT(e->code, DRA_EXIT_INPUT);
        CHECK_INT(e->line, 14);
        CHECK(e->field && strstr(e->field, "allocationMode") != NULL);
    }
    dra_err_free(e);
    dra_cluster_free(&c);
    dra_objset_free(&set);
    unlink(path);
    free(path);
    /* asked for later: the file read again, and nothing once it changed */
    path = unit_write_temp(CLASS TMPL);
    CHECK(path != NULL);
    set = (dra_objset)DRA_OBJSET_INIT;
    c = (dra_cluster)DRA_CLUSTER_INIT;
    paths[0] = path;
    e = dra_cluster_read_input(&c, &set, paths, 1, NULL, 0);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(c.n[DRA_KIND_RESOURCE_CLAIM_TEMPLATE], 1);
    CHECK_INT(c.n[DRA_KIND_DEVICE_CLASS], 1);
    if (c.n[DRA_KIND_RESOURCE_CLAIM_TEMPLATE] && c.n[DRA_KIND_DEVICE_CLASS]) {
        CHECK_INT(dra_obj_field_line(c.of[DRA_KIND_RESOURCE_CLAIM_TEMPLATE][0], "spec.spec.devices"), 10);
    }
    dra_cluster_free(&c);
    dra_objset_free(&set);
    /* read again, then changed before a line is asked for: no line rather than a wrong one */
    set = (dra_objset)DRA_OBJSET_INIT;
    c = (dra_cluster)DRA_CLUSTER_INIT;
    e = dra_cluster_read_input(&c, &set, paths, 1, NULL, 0);
    CHECK(e == NULL);
    dra_err_free(e);
    FILE *f = fopen(path, "a");
    fputs("# changed\n", f);
    fclose(f);
    if (c.n[DRA_KIND_RESOURCE_CLAIM_TEMPLATE])
        CHECK_INT(dra_obj_field_line(c.of[DRA_KIND_RESOURCE_CLAIM_TEMPLATE][0], "spec.spec.devices"), 0);
    dra_cluster_free(&c);
    dra_objset_free(&set);
    unlink(path);
    free(path);
}
