/* doctor's fixes as operations: composed one after another on the claim, and
 * refused when run a second time.  The operations are applied here as an API
 * server applies a JSON patch (RFC 6902 test and remove; every write bumps
 * metadata.resourceVersion). */
#include "unit.h"

#include <jansson.h>

#include "../../src/common/base/buf.h"
#include "../../src/common/doctor/report.h"

typedef struct world {
    dra_objset set;
    dra_cluster c;
} world;

static int load(world *w, const char *yaml)
{
    memset(w, 0, sizeof *w);
    dra_err *e = dra_read_mem(&w->set, "t.yaml", yaml, strlen(yaml));
    if (!e)
        e = dra_cluster_load_input(&w->c, &w->set, NULL, 0);
    int bad = e != NULL;
    if (e) {
        char *m = dra_err_format(e);
        fprintf(stderr, "  load: %s\n", m);
        free(m);
        dra_err_free(e);
    }
    return bad;
}

static void unload(world *w)
{
    dra_cluster_free(&w->c);
    dra_objset_free(&w->set);
}

/* The parent of an RFC 6901 pointer's last token, and that token. */
static json_t *parent_of(json_t *doc, const char *ptr, char *last, size_t lastsz)
{
    json_t *cur = doc;
    const char *p = ptr;
    while (*p == '/') {
        const char *end = strchr(p + 1, '/');
        size_t n = end ? (size_t)(end - p - 1) : strlen(p + 1);
        if (!end) {
            snprintf(last, lastsz, "%.*s", (int)n, p + 1);
            return cur;
        }
        char tok[128];
        snprintf(tok, sizeof tok, "%.*s", (int)n, p + 1);
        cur = json_is_array(cur) ? json_array_get(cur, strtoul(tok, NULL, 10)) : json_object_get(cur, tok);
        if (!cur)
            return NULL;
        p = end;
    }
    return NULL;
}

static json_t *child(json_t *parent, const char *tok)
{
    if (json_is_array(parent)) {
        char *end;
        unsigned long i = strtoul(tok, &end, 10);
        return *end || i >= json_array_size(parent) ? NULL : json_array_get(parent, i);
    }
    return json_object_get(parent, tok);
}

/* Apply a JSON patch to obj in place; false (obj unchanged) when a test
 * fails or a path is missing. */
static bool apply_patch(json_t *obj, const json_t *patch)
{
    json_t *work = json_deep_copy(obj);
    size_t i;
    json_t *op;
    bool ok = true;
    json_array_foreach(patch, i, op) {
        char last[128];
        json_t *par = parent_of(work, dra_jstr_or(op, "path", ""), last, sizeof last);
        json_t *at = par ? child(par, last) : NULL;
        const char *o = dra_jstr_or(op, "op", "");
        if (!at || (strcmp(o, "test") == 0 && !json_equal(at, json_object_get(op, "value")))) {
            ok = false;
            break;
        }
        if (strcmp(o, "remove") == 0) {
            if (json_is_array(par))
                json_array_remove(par, strtoul(last, NULL, 10));
            else
                json_object_del(par, last);
        }
    }
    if (ok) {
        json_object_update(obj, work);
        json_t *md = json_object_get(obj, "metadata");
        long rv = strtol(dra_jstr_or(obj, "metadata.resourceVersion", "0"), NULL, 10);
        json_object_set_new(md, "resourceVersion", json_sprintf("%ld", rv + 1));
    }
    json_decref(work);
    return ok;
}

/* Run every operation on the server's copy of the claim, in order; how many
 * applied before the first refusal (deletes: the UID precondition). */
static size_t run_ops(json_t *claim, const dra_changes *ch, bool *gone)
{
    size_t n = 0;
    for (; n < ch->nops; n++) {
        const dra_op *op = &ch->ops[n];
        if (*gone)
            break;
        if (op->verb == DRA_OP_DELETE) {
            if (strcmp(dra_jstr_or(op->body, "preconditions.uid", ""), dra_jstr_or(claim, "metadata.uid", "")) != 0)
                break;
            *gone = true;
            continue;
        }
        if (op->verb != DRA_OP_PATCH || !apply_patch(claim, op->body))
            break;
        if (!op->subresource && dra_jstr(claim, "metadata.deletionTimestamp") &&
            !json_array_size(dra_jarr(claim, "metadata.finalizers")))
            *gone = true;
    }
    return n;
}

/* clang-format off */
#define CLAIM_HEAD                                                                                                     \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"                                                            \
    "metadata: {name: c, namespace: ns, uid: cu, resourceVersion: \"7\", finalizers: [resource.kubernetes.io/delete-protection]%s}\n" \
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n"                                       \
    "status:\n  allocation:\n    devices:\n      results: [{request: r, driver: d.example.com, pool: p, device: d0}]\n"
#define POD(name, uid) \
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ns, uid: " uid "}\nspec: {containers: [{name: c, image: i}]}\nstatus: {phase: Running}\n"
/* clang-format on */

static char *claim_yaml(const char *extra_meta, const char *reserved, const char *pods)
{
    dra_buf b = DRA_BUF_INIT;
    dra_buf_printf(&b, CLAIM_HEAD, extra_meta);
    dra_buf_printf(&b, "  reservedFor: %s\n%s", reserved, pods);
    return dra_buf_detach(&b);
}

/* the server's copy: the claim as read */
static json_t *server_copy(const world *w)
{
    return json_deep_copy(w->c.of[DRA_KIND_RESOURCE_CLAIM][0]->json);
}

UNIT_TEST(two_stale_reservations_apply_one_after_another)
{
    char *y = claim_yaml("",
                         "[{resource: pods, name: gone1, uid: u1}, {resource: pods, name: keep, uid: uk}, "
                         "{resource: pods, name: gone2, uid: u2}]",
                         POD("keep", "uk"));
    world w;
    CHECK(!load(&w, y));
    dra_changes ch = DRA_CHANGES_INIT;
    dra_doctor_opts o = {.ops = &ch};
    dra_findings f = DRA_FINDINGS_INIT;
    dra_doctor(&w.c, &o, &f);
    CHECK_INT(f.n, 0); /* both findings are fixed by the operations */
    CHECK_INT(ch.nops, 2);
    json_t *srv = server_copy(&w);
    bool gone = false;
    CHECK_INT(run_ops(srv, &ch, &gone), 2);
    json_t *rf = dra_jarr(srv, "status.reservedFor");
    CHECK_INT(json_array_size(rf), 1);
    CHECK_STR(dra_jstr(json_array_get(rf, 0), "name"), "keep");
    /* the whole script again: its first precondition fails, nothing changes */
    json_t *before = json_deep_copy(srv);
    CHECK_INT(run_ops(srv, &ch, &gone), 0);
    CHECK(json_equal(before, srv));
    json_decref(before);
    json_decref(srv);
    dra_problems_free(&f);
    dra_changes_free(&ch);
    unload(&w);
    free(y);
}

UNIT_TEST(each_finding_fix_tests_the_index_the_fixes_before_it_leave)
{
    char *y = claim_yaml("", "[{resource: pods, name: gone1, uid: u1}, {resource: pods, name: gone2, uid: u2}]",
                         POD("other", "uo"));
    world w;
    CHECK(!load(&w, y));
    dra_findings f = DRA_FINDINGS_INIT;
    dra_doctor(&w.c, NULL, &f);
    CHECK_INT(f.n, 2);
    if (f.n == 2) {
        /* the first tests the input's resourceVersion; the second the entry at
         * index 0, where it is once the first is gone */
        CHECK(strstr(f.v[0].fix, "\"/metadata/resourceVersion\",\"value\":\"7\"") != NULL);
        CHECK(strstr(f.v[0].fix, "{\"op\":\"test\",\"path\":\"/status/reservedFor/0/uid\",\"value\":\"u1\"}") != NULL);
        CHECK(strstr(f.v[1].fix, "resourceVersion") == NULL);
        CHECK(strstr(f.v[1].fix, "{\"op\":\"test\",\"path\":\"/status/reservedFor/0/uid\",\"value\":\"u2\"}") != NULL);
    }
    dra_problems_free(&f);
    unload(&w);
    free(y);
}

UNIT_TEST(deleting_claim_with_stale_users_then_stuck_finalizer_compose)
{
    /* a deleting claim without users and an orphaned one in one run */
    char *y = claim_yaml(", deletionTimestamp: \"2026-01-01T00:00:00Z\"", "[]", POD("other", "uo"));
    world w;
    CHECK(!load(&w, y));
    dra_changes ch = DRA_CHANGES_INIT;
    dra_doctor_opts o = {.ops = &ch};
    dra_findings f = DRA_FINDINGS_INIT;
    dra_doctor(&w.c, &o, &f);
    CHECK_INT(ch.nops, 2); /* deallocate, then the finalizer */
    if (ch.nops == 2) {
        CHECK_STR(ch.ops[0].subresource, "status");
        CHECK(ch.ops[1].subresource == NULL);
    }
    json_t *srv = server_copy(&w);
    bool gone = false;
    CHECK_INT(run_ops(srv, &ch, &gone), 2);
    CHECK(gone);
    json_decref(srv);
    dra_problems_free(&f);
    dra_changes_free(&ch);
    unload(&w);
    free(y);
}

UNIT_TEST(two_findings_with_one_fix_record_it_once)
{
    /* an allocation from a pool without slices on a node that is gone: one deallocation */
    static const char extra[] = "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
                                "spec: {driver: d.example.com, pool: {name: other, generation: 1, resourceSliceCount: "
                                "1}, nodeName: n1, devices: [{name: d0}]}\n"
                                "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n";
    dra_buf b = DRA_BUF_INIT;
    dra_buf_printf(&b, CLAIM_HEAD, "");
    dra_buf_puts(
        &b,
        "    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n9]}]}]}\n");
    dra_buf_puts(&b, extra);
    char *y = dra_buf_detach(&b);
    world w;
    CHECK(!load(&w, y));
    dra_findings f = DRA_FINDINGS_INIT;
    dra_doctor(&w.c, NULL, &f);
    CHECK_INT(f.n, 2);
    if (f.n == 2) {
        CHECK(strstr(f.v[0].fix, "\"remove\",\"path\":\"/status/allocation\"") != NULL);
        CHECK_STR(f.v[1].fix, "# the fix above does it");
    }
    dra_problems_free(&f);
    dra_changes ch = DRA_CHANGES_INIT;
    dra_doctor_opts o = {.ops = &ch};
    dra_doctor(&w.c, &o, &f);
    CHECK_INT(ch.nops, 1);
    CHECK_INT(f.n, 0);
    dra_problems_free(&f);
    dra_changes_free(&ch);
    unload(&w);
    free(y);
}

UNIT_TEST(orphan_delete_carries_the_uid)
{
    static const char y[] =
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
        "metadata: {name: o, namespace: ns, uid: ou, annotations: {resource.kubernetes.io/pod-claim-name: gpu}}\n"
        "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n" POD("other", "uo");
    world w;
    CHECK(!load(&w, y));
    dra_findings f = DRA_FINDINGS_INIT;
    dra_doctor(&w.c, NULL, &f);
    CHECK_INT(f.n, 1);
    if (f.n)
        CHECK(strstr(f.v[0].fix, "\"preconditions\":{\"uid\":\"ou\"}") != NULL &&
              strstr(f.v[0].fix, "kubectl delete --raw /apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/o -f -") !=
                  NULL);
    dra_problems_free(&f);
    unload(&w);
}

UNIT_MAIN()
