/* dra_alloc_explain_verdict: one sentence from the explain traces of the
 * nodes tried (alloc/explain.c). */
#include <jansson.h>
#include <stdlib.h>

#include "../../src/common/alloc/alloc.h"
#include "unit.h"

static json_t *trace(const char *rejected_json, const char *cut_json)
{
    json_t *claim = json_pack("{s:s,s:[{s:s,s:o}],s:[]}", "claim", "ns/c", "requests", "request", "gpu", "rejected",
                              json_loads(rejected_json, 0, NULL), "allocated");
    if (cut_json)
        json_object_set_new(claim, "cut", json_loads(cut_json, 0, NULL));
    return json_pack("{s:[{s:s}],s:[o]}", "pools", "status", "usable", "claims", claim);
}

UNIT_TEST(verdict_prefers_the_device_with_least_to_change)
{
    json_t *a = trace(
        "[{\"device\":\"d/a/x\",\"reason\":\"class-selector\",\"detail\":\"class gpu selector #0 is false\"}]", NULL);
    json_t *b = trace("[{\"device\":\"d/b/y\",\"reason\":\"taint\",\"detail\":\"taint k=v:NoSchedule not tolerated\"},"
                      "{\"device\":\"d/b/z\",\"reason\":\"in-use\",\"detail\":\"allocated to claim ns/other\"}]",
                      NULL);
    const json_t *t[] = {a, b};
    const char *names[] = {"node-a", "node-b"};
    char *v = dra_alloc_explain_verdict(t, names, 2);
    CHECK_STR(v, "claim ns/c, request gpu finds no device on 2 nodes; nearest: d/b/z on node-b, allocated to claim "
                 "ns/other; fix: free it (delete that claim or end its pod), or add a device");
    free(v);
    json_decref(a);
    json_decref(b);
}

UNIT_TEST(verdict_of_a_capacity_name_and_of_the_pods_own_requests)
{
    /* a device taken earlier in the same attempt is not a fix: the capacity name is */
    json_t *a = trace("[{\"device\":\"d/a/x\",\"reason\":\"in-use\",\"detail\":\"allocated earlier in this attempt\"},"
                      "{\"device\":\"d/a/y\",\"reason\":\"capacity\",\"detail\":\"capacity ex.com/mem requested; the "
                      "device publishes mem\"}]",
                      NULL);
    const json_t *t[] = {a};
    const char *names[] = {"node-a"};
    char *v = dra_alloc_explain_verdict(t, names, 1);
    CHECK_STR(v, "claim ns/c, request gpu finds no device on 1 node; nearest: d/a/y on node-a, capacity ex.com/mem "
                 "requested; the device publishes mem; fix: ask for a capacity the device publishes");
    free(v);
    json_decref(a);
}

UNIT_TEST(verdict_of_a_cut_of_no_pools_and_of_nothing)
{
    json_t *a = trace("[]", "{\"request\":\"gpu\",\"laterRequests\":false,\"need\":3,\"available\":1}");
    json_t *b = trace("[]", "{\"request\":\"gpu\",\"laterRequests\":false,\"need\":3,\"available\":2}");
    const json_t *t[] = {a, NULL, b};
    const char *names[] = {"node-a", "node-x", "node-b"};
    char *v = dra_alloc_explain_verdict(t, names, 3);
    CHECK_STR(v, "claim ns/c, request gpu needs 3 devices, and at most 2 could serve on node-b; fix: add devices, or "
                 "ask for fewer");
    free(v);
    json_t *none = json_pack("{s:[],s:[]}", "pools", "claims");
    const json_t *u[] = {none};
    v = dra_alloc_explain_verdict(u, names, 1);
    CHECK_STR(v, "no ResourceSlice serves the node tried; fix: publish devices there (is the driver running?)");
    free(v);
    CHECK(dra_alloc_explain_verdict(u, names, 0) == NULL);
    json_decref(a);
    json_decref(b);
    json_decref(none);
}

UNIT_MAIN()
