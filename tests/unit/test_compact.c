/* Compact records of ResourceClaims and Pods (model/compact.h), and a
 * cluster read that holds them instead of the objects. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "doctor/report.h"
#include "io/json.h"
#include "model/compact.h"
#include "testdata.h"
#include "unit.h"

static json_t *parse(const char *text)
{
    json_error_t err;
    json_t *v = json_loads(text, 0, &err);
    if (!v)
        fprintf(stderr, "  bad test JSON: %s\n", err.text);
    return v;
}

/* clang-format off */
#define CLAIM_JSON(name, dev, extra)                                                                                  \
    "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\","                                               \
    "\"metadata\":{\"name\":\"" name "\",\"namespace\":\"ns\",\"uid\":\"u-" name "\"},"                                \
    "\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"r\",\"driver\":\"d.example.com\","           \
    "\"pool\":\"n1\",\"device\":\"" dev "\"}]},\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":"            \
    "[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"n1\"]}]}]}}," extra                                \
    "\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"p\",\"uid\":\"u-p\"},"                                         \
    "{\"apiGroup\":\"scheduling.k8s.io\",\"resource\":\"podgroups\",\"name\":\"g\",\"uid\":\"u-g\"}]}}"
/* clang-format on */

UNIT_TEST(claim_record_keeps_what_status_reads)
{
    json_t *a = parse(CLAIM_JSON("a", "gpu-0",
                                 "\"devices\":[{\"driver\":\"d.example.com\",\"pool\":\"n1\",\"device\":\"gpu-0\","
                                 "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],\"data\":null},"
                                 "{\"driver\":\"d.example.com\",\"pool\":\"n1\",\"device\":\"gpu-9\",\"data\":{}}],"));
    json_t *b = parse(CLAIM_JSON("b", "gpu-1", ""));
    dra_compact cp = DRA_COMPACT_INIT;
    const dra_claim_rec *ra = dra_compact_claim(&cp, a);
    const dra_claim_rec *rb = dra_compact_claim(&cp, b);
    json_decref(a); /* the records need nothing of the objects */
    json_decref(b);
    CHECK_INT(cp.nclaims, 2);
    CHECK_STR(ra->ns, "ns");
    CHECK_STR(ra->name, "a");
    CHECK_STR(ra->uid, "u-a");
    CHECK(ra->allocated && !ra->deleting);
    CHECK_STR(ra->node, "n1");
    CHECK_INT(ra->nresults, 1);
    CHECK_INT(ra->nreserved, 2);
    if (ra->nresults && rb->nresults) {
        CHECK_STR(ra->results[0].device, "gpu-0");
        CHECK(ra->results[0].share_id == NULL);
        /* the driver's report, null fields left out; none for b */
        char *st = json_dumps(ra->results[0].status, JSON_COMPACT);
        CHECK_STR(st, "{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}");
        free(st);
        CHECK(rb->results[0].status == NULL);
        /* strings are held once */
        CHECK(ra->results[0].driver == rb->results[0].driver);
        CHECK(ra->ns == rb->ns);
    }
    if (ra->nreserved == 2) {
        CHECK(ra->reserved[0].api_group == NULL);
        CHECK_STR(ra->reserved[1].api_group, "scheduling.k8s.io");
        CHECK_STR(ra->reserved[1].resource, "podgroups");
    }
    dra_compact_free(&cp);
    CHECK_INT(cp.nclaims, 0);
}

UNIT_TEST(claim_record_unallocated_and_deleting)
{
    json_t *c =
        parse("{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"},"
              "\"status\":{\"allocation\":{\"devices\":{\"results\":[]}}}}");
    json_t *p = parse("{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"}}");
    dra_compact cp = DRA_COMPACT_INIT;
    const dra_claim_rec *r = dra_compact_claim(&cp, c);
    CHECK(r->deleting && r->allocated);
    CHECK_STR(r->node, "*"); /* allocated without a node selector: any node */
    CHECK(r->uid == NULL);
    r = dra_compact_claim(&cp, p);
    CHECK(!r->allocated && r->node == NULL && r->nresults == 0 && r->nreserved == 0);
    json_decref(c);
    json_decref(p);
    dra_compact_free(&cp);
}

UNIT_TEST(pod_record_keeps_claims_and_node)
{
    json_t *p = parse(
        "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u\"},"
        "\"spec\":{\"nodeName\":\"n1\",\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimTemplateName\":\"t\"},"
        "{\"name\":\"nic\",\"resourceClaimName\":\"shared\"}]},"
        "\"status\":{\"phase\":\"Running\",\"resourceClaimStatuses\":[{\"name\":\"gpu\",\"resourceClaimName\":\"p-gpu-"
        "x\"}]}}");
    dra_compact cp = DRA_COMPACT_INIT;
    const dra_pod_rec *r = dra_compact_pod(&cp, p);
    json_decref(p);
    CHECK_STR(r->name, "p");
    CHECK_STR(r->uid, "u");
    CHECK_STR(r->node_name, "n1");
    CHECK_STR(r->phase, "Running");
    CHECK_INT(r->nclaims, 2);
    CHECK_INT(r->nstatuses, 1);
    if (r->nclaims == 2 && r->nstatuses == 1) {
        CHECK_STR(r->claims[0].template, "t");
        CHECK(r->claims[0].claim == NULL);
        CHECK_STR(r->claims[1].claim, "shared");
        CHECK_STR(r->statuses[0].claim, "p-gpu-x");
        CHECK(r->statuses[0].template == NULL);
    }
    CHECK(dra_compact_bytes(&cp) > 0);
    dra_compact_free(&cp);
}

#define CLASS "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\n---\n"
#define NODE "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
/* clang-format off */
#define YCLAIM(name, ns)                                                                                              \
    "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {name: " name ", namespace: " ns "}\n"        \
    "spec: {devices: {requests: [{name: r, deviceClassName: c}]}}\n---\n"
#define YPOD(name)                                                                                                    \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ns, uid: u-" name "}\n"                          \
    "spec:\n  containers: [{name: c, image: i}]\n  resourceClaims: [{name: gpu, resourceClaimName: a}]\n---\n"
/* clang-format on */

static dra_err *read_as_records(const char *text, dra_cluster *c, dra_objset *set)
{
    char *path = unit_write_temp(text);
    if (!path)
        return dra_err_new(DRA_EXIT_RUNTIME, "no temporary file");
    c->as_records = (1u << DRA_KIND_RESOURCE_CLAIM) | (1u << DRA_KIND_POD);
    c->dropped = 1u << DRA_KIND_NODE;
    char *paths[] = {path};
    dra_err *e = dra_cluster_read_input(c, set, paths, 1, NULL, 0);
    unlink(path);
    free(path);
    return e;
}

UNIT_TEST(cluster_read_holds_claims_and_pods_as_records)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_cluster c = DRA_CLUSTER_INIT;
    dra_err *e = read_as_records(CLASS NODE YCLAIM("a", "ns") YPOD("p1") YCLAIM("b", "other") YPOD("p2"), &c, &set);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(c.n[DRA_KIND_RESOURCE_CLAIM], 0);
    CHECK_INT(c.n[DRA_KIND_POD], 0);
    CHECK_INT(c.n[DRA_KIND_NODE], 0);
    CHECK_INT(c.n[DRA_KIND_DEVICE_CLASS], 1);
    CHECK_INT(c.recs.nclaims, 2);
    CHECK_INT(c.recs.npods, 2);
    CHECK_INT(c.unknown, 0); /* dropped kinds are read, not skipped */
    CHECK(dra_cluster_has_pods_in(&c, "ns") && !dra_cluster_has_pods_in(&c, "other"));
    const dra_pod_rec *p = dra_cluster_pod_record(&c, "ns", "p2", NULL);
    CHECK(p != NULL && p == c.recs.pods[1]);
    CHECK(dra_cluster_pod_record(&c, "other", "p2", NULL) == NULL);
    json_t *rows = dra_claim_status_rows(&c);
    CHECK_INT(json_array_size(rows), 2);
    CHECK_STR(dra_jstr(json_array_get(rows, 1), "metadata.namespace"), "other");
    CHECK_STR(dra_jstr(json_array_get(rows, 1), "state"), "pending");
    json_decref(rows);
    dra_cluster_free(&c);
    dra_objset_free(&set);
}

UNIT_TEST(cluster_read_as_records_keeps_shape_errors_and_nothing_else)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_cluster c = DRA_CLUSTER_INIT;
    /* fields of the wrong type, unvalidated: the shape checks' errors as
     * without records, the claims' before the Pods' */
    c.no_validate = true;
    dra_err *e = read_as_records(
        CLASS "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\n"
              "spec: {resourceClaims: 5}\n---\n"
              "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: a, namespace: ns}\n"
              "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: c}}]}}\n"
              "status: {reservedFor: 7}\n---\n" YPOD("p1"),
        &c, &set);
    CHECK(e != NULL && e->next != NULL);
    if (e && e->next) {
        CHECK(strstr(e->msg, "status.reservedFor") || (e->field && strstr(e->field, "status.reservedFor")));
        CHECK_INT(e->line, 14);      /* the claim's status */
        CHECK_INT(e->next->line, 8); /* the Pod's spec, read first */
        CHECK(e->next->next == NULL);
    }
    for (dra_err *x = e; x; x = x->next)
        CHECK_INT(x->code, DRA_EXIT_INPUT);
    dra_err_free(e);
    CHECK_INT(c.recs.nclaims, 0);
    CHECK_INT(c.recs.npods, 0);
    CHECK_INT(c.n[DRA_KIND_DEVICE_CLASS], 0);
    dra_cluster_free(&c);
    dra_objset_free(&set);
}

UNIT_MAIN()

/* A temporary file that cannot be read back is an error the tool gets
 * (dra_compact_failure), not the end of the process. */
UNIT_TEST(whole_object_unreadable_is_an_error)
{
    json_t *a = parse(CLAIM_JSON("a", "gpu-0", ""));
    dra_compact cp = DRA_COMPACT_INIT;
    dra_compact_keep_whole(&cp);
    const dra_claim_rec *ra = dra_compact_claim(&cp, a);
    CHECK(cp.spill != NULL && ra->whole && !ra->whole->in_arena);
    dra_obj back;
    CHECK(dra_compact_whole(&cp, ra->whole, &back) && json_equal(back.json, a));
    json_decref(back.json);
    CHECK(dra_compact_failure(&cp) == NULL);
    /* the file's descriptor now open for writing only: reading fails */
    int wo = open("/dev/null", O_WRONLY);
    CHECK(wo >= 0 && dup2(wo, fileno(cp.spill)) >= 0);
    close(wo);
    CHECK(!dra_compact_whole(&cp, ra->whole, &back) && back.json == NULL);
    CHECK(!dra_compact_whole(&cp, ra->whole, &back)); /* the first failure is kept */
    dra_err *e = dra_compact_failure(&cp);
    CHECK(e && e->code == DRA_EXIT_RUNTIME);
    if (e)
        CHECK_STR(e->msg, "cannot read back an object kept in a temporary file: Bad file descriptor");
    dra_err_free(e);
    CHECK(dra_compact_failure(&cp) == NULL);
    json_decref(a);
    dra_compact_free(&cp);
}
