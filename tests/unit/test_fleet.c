/* Fleet capacity (insight/capacity.h): counts, counters, shapes, largest fit. */
#include <stdlib.h>
#include <string.h>

#include "alloc/node.h"
#include "alloc/walk.h"
#include "insight/capacity.h"
#include "io/json.h"
#include "unit.h"

typedef struct fx {
    dra_objset set;
    dra_model m;
    json_t *rep;
    dra_err *warn;
} fx;

/* clang-format off */
#define CLASS "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\n" \
              "spec: {selectors: [{cel: {expression: 'device.driver == \"g.example.com\"'}}]}\n---\n"
#define NODE(n) "apiVersion: v1\nkind: Node\nmetadata: {name: " n "}\n---\n"
/* n devices d0..d{n-1} on node N, pool N */
#define SLICE(N, devs) "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " N "}\n" \
                       "spec: {driver: g.example.com, nodeName: " N ", pool: {name: " N ", generation: 1, resourceSliceCount: 1},\n" \
                       "  devices: " devs "}\n---\n"
#define INUSE(name, N, dev) "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " name ", namespace: ns, uid: u-" name "}\n" \
                            "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n" \
                            "status: {allocation: {devices: {results: [{request: r, driver: g.example.com, pool: " N ", device: " dev "}]}}}\n---\n"
/* clang-format on */

static int run(fx *f, const char *yaml, dra_fleet_by by, const char *attr)
{
    memset(f, 0, sizeof *f);
    dra_err *e = dra_read_mem(&f->set, "t.yaml", yaml, strlen(yaml));
    dra_load_opts lo = {.skip_unknown = true};
    if (!e)
        e = dra_load(&f->set, &lo, &f->m);
    json_t *nodes[8];
    size_t nn = 0;
    const dra_model_list *l = dra_model_kind(&f->m, DRA_KIND_NODE);
    for (size_t i = 0; i < l->n && nn < 8; i++)
        nodes[nn++] = l->v[i]->json;
    dra_fleet_opts o = {.by = by, .match_attribute = attr, .timeout = 10};
    if (!e)
        e = dra_fleet_capacity(&f->m, nodes, nn, &o, &f->rep, &f->warn);
    int code = e ? e->code : 0;
    dra_err_free(e);
    return code;
}

static void done(fx *f)
{
    json_decref(f->rep);
    dra_err_free(f->warn);
    dra_model_free(&f->m);
    dra_objset_free(&f->set);
}

static long long num(const json_t *o, const char *path)
{
    return (long long)json_integer_value(dra_jget(o, path));
}

UNIT_TEST(counts_free_and_largest_fit)
{
    fx f;
    CHECK_INT(run(&f,
                  CLASS NODE("n1") NODE("n2") SLICE("n1", "[{name: d0}, {name: d1}, {name: d2}]") SLICE(
                      "n2", "[{name: d0}, {name: d1, taints: [{key: k, effect: NoSchedule}]}]") INUSE("a", "n1", "d0"),
                  DRA_FLEET_BY_CLASS, NULL),
              0);
    const json_t *c = json_array_get(dra_jget(f.rep, "classes"), 0);
    CHECK_INT(num(c, "total"), 5);
    CHECK_INT(num(c, "allocated"), 1);
    CHECK_INT(num(c, "tainted"), 1);
    CHECK_INT(num(c, "free"), 3);
    CHECK_INT(num(c, "largestFit.devices"), 2);
    CHECK_STR(dra_jstr(c, "largestFit.node"), "n1");
    CHECK_INT(dra_fleet_free(f.rep, "gpu"), 3);
    CHECK_INT(dra_fleet_free(f.rep, "other"), -1);
    done(&f);
}

UNIT_TEST(by_node_probes_every_node)
{
    fx f;
    CHECK_INT(run(&f, CLASS NODE("n1") NODE("n2") SLICE("n1", "[{name: d0}]") SLICE("n2", "[{name: d0}, {name: d1}]"),
                  DRA_FLEET_BY_NODE, NULL),
              0);
    const json_t *nodes = dra_jget(json_array_get(dra_jget(f.rep, "classes"), 0), "nodes");
    CHECK_INT(json_array_size(nodes), 2);
    CHECK_STR(dra_jstr(json_array_get(nodes, 0), "name"), "n1");
    CHECK_INT(num(json_array_get(nodes, 0), "largestFit"), 1);
    CHECK_INT(num(json_array_get(nodes, 1), "largestFit"), 2);
    done(&f);
}

UNIT_TEST(match_attribute_limits_the_fit)
{
    fx f;
    CHECK_INT(run(&f,
                  CLASS NODE("n1")
                      SLICE("n1", "[{name: d0, attributes: {numa: {int: 0}}}, {name: d1, attributes: {numa: {int: 1}}},"
                                  " {name: d2, attributes: {numa: {int: 1}}}]"),
                  DRA_FLEET_BY_CLASS, "numa"),
              0);
    const json_t *c = json_array_get(dra_jget(f.rep, "classes"), 0);
    CHECK_INT(num(c, "largestFit.devices"), 2);
    done(&f);
}

UNIT_TEST(counters_block_and_shapes_fit)
{
    fx f;
    const char *y = CLASS NODE(
        "n1") "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: c}\n"
              "spec: {driver: g.example.com, nodeName: n1, pool: {name: n1, generation: 1, resourceSliceCount: 2},\n"
              "  sharedCounters: [{name: cs, counters: {mem: {value: '4'}}}]}\n---\n"
              "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: d}\n"
              "spec: {driver: g.example.com, nodeName: n1, pool: {name: n1, generation: 1, resourceSliceCount: 2}, "
              "devices: [\n"
              "  {name: whole, consumesCounters: [{counterSet: cs, counters: {mem: {value: '4'}}}]},\n"
              "  {name: q0, consumesCounters: [{counterSet: cs, counters: {mem: {value: '1'}}}]},\n"
              "  {name: q1, consumesCounters: [{counterSet: cs, counters: {mem: {value: '1'}}}]},\n"
              "  {name: q2, consumesCounters: [{counterSet: cs, counters: {mem: {value: '1'}}}]},\n"
              "  {name: q3, consumesCounters: [{counterSet: cs, counters: {mem: {value: '1'}}}]}]}\n---\n" INUSE(
                  "a", "n1", "q0");
    CHECK_INT(run(&f, y, DRA_FLEET_BY_POOL, NULL), 0);
    const json_t *c = json_array_get(dra_jget(f.rep, "classes"), 0);
    CHECK_INT(num(c, "blocked"), 1);
    CHECK_INT(num(c, "free"), 3);
    CHECK_INT(num(c, "largestFit.devices"), 3);
    const json_t *parts = dra_jget(c, "partitions");
    CHECK_INT(json_array_size(parts), 2);
    CHECK_STR(dra_jstr(json_array_get(parts, 0), "shape"), "mem=4");
    CHECK_INT(num(json_array_get(parts, 0), "fit"), 0);
    CHECK_INT(num(json_array_get(parts, 1), "fit"), 3);
    const json_t *pool = json_array_get(dra_jget(c, "pools"), 0);
    const json_t *mem = dra_jget(json_array_get(dra_jget(pool, "counterSets"), 0), "counters");
    CHECK_STR(dra_jstr(json_object_get(mem, "mem"), "left"), "3");
    done(&f);
}

/* A slice of pool N (generation 1, count slices) with the given spec tail. */
/* clang-format off */
#define PSLICE(name, N, count, rest) "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " name "}\n" \
                                     "spec: {driver: g.example.com, nodeName: " N ", pool: {name: " N ", generation: 1, " \
                                     "resourceSliceCount: " count "},\n  " rest "}\n---\n"
/* clang-format on */

/* Devices of pools the allocator skips (incomplete, invalid) are not free:
 * the counts agree with the largest fit the allocator finds. */
UNIT_TEST(unusable_pools_are_not_free)
{
    static const struct {
        const char *yaml, *reason;
        long long total;
    } cases[] = {
        {PSLICE("a", "n1", "2", "devices: [{name: d0}]"), "incomplete: 1 of 2 ResourceSlices at generation 1", 1},
        {PSLICE("a", "n1", "1", "devices: [{name: d0}]") PSLICE("b", "n1", "1", "devices: [{name: d1}]"),
         "incomplete: 2 ResourceSlices at generation 1, but resourceSliceCount is 1", 2},
        {PSLICE("a", "n1", "2", "devices: [{name: d0}]") PSLICE("b", "n1", "2", "devices: [{name: d0}, {name: d1}]"),
         "duplicate device name d0", 3},
        {PSLICE("a", "n1", "2", "sharedCounters: [{name: cs, counters: {mem: {value: 8}}}]") PSLICE(
             "b", "n1", "2", "devices: [{name: d0, consumesCounters: [{counterSet: cs, counters: {x: {value: 1}}}]}]"),
         "counter x not found in counter set cs", 1},
        {PSLICE("a", "n1", "1",
                "devices: [{name: d0, consumesCounters: [{counterSet: nope, counters: {x: {value: 1}}}]}]"),
         "counter set nope not found", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char yaml[2048];
        snprintf(yaml, sizeof yaml, "%s%s%s%s", CLASS NODE("n1"), NODE("n2"), cases[i].yaml,
                 SLICE("n2", "[{name: d0}]"));
        fx f;
        CHECK_INT(run(&f, yaml, DRA_FLEET_BY_POOL, NULL), 0);
        const json_t *c = json_array_get(dra_jget(f.rep, "classes"), 0);
        CHECK_INT(num(c, "total"), cases[i].total + 1);
        CHECK_INT(num(c, "unusable"), cases[i].total);
        CHECK_INT(num(c, "free"), 1); /* n2's */
        CHECK_INT(num(c, "largestFit.devices"), 1);
        CHECK_STR(dra_jstr(c, "largestFit.node"), "n2");
        const json_t *up = dra_jget(c, "unusablePools");
        CHECK_INT(json_array_size(up), 1);
        CHECK_STR(dra_jstr(json_array_get(up, 0), "pool"), "n1");
        CHECK_STR(dra_jstr(json_array_get(up, 0), "reason"), cases[i].reason);
        CHECK_INT(num(json_array_get(up, 0), "devices"), cases[i].total);
        const json_t *pools = dra_jget(c, "pools");
        CHECK_STR(dra_jstr(json_array_get(pools, 0), "unusableReason"), cases[i].reason);
        CHECK(dra_jget(json_array_get(pools, 1), "unusableReason") == NULL);
        if (!c || num(c, "unusable") != cases[i].total)
            fprintf(stderr, "  case %zu\n", i);
        done(&f);
    }
}

UNIT_TEST(unknown_class_and_compile_error)
{
    fx f;
    memset(&f, 0, sizeof f);
    const char *y = CLASS;
    dra_err *e = dra_read_mem(&f.set, "t.yaml", y, strlen(y));
    CHECK(!e);
    dra_load_opts lo = {.skip_unknown = true};
    e = dra_load(&f.set, &lo, &f.m);
    CHECK(!e);
    const char *want[] = {"nope"};
    dra_fleet_opts o = {.classes = want, .nclasses = 1};
    e = dra_fleet_capacity(&f.m, NULL, 0, &o, &f.rep, &f.warn);
    CHECK(e && e->code == DRA_EXIT_INPUT && strstr(e->msg, "DeviceClass nope is not in the input"));
    CHECK(!f.rep);
    dra_err_free(e);
    done(&f);
    CHECK_INT(run(&f,
                  "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: bad}\n"
                  "spec: {selectors: [{cel: {expression: 'device.driver =='}}]}\n---\n" SLICE("n1", "[{name: d0}]"),
                  DRA_FLEET_BY_CLASS, NULL),
              2);
    CHECK(!f.rep);
    done(&f);
}

/* The allocator's public walk: every device with its state, in pool and
 * slice order, and class matching through the world. */
UNIT_TEST(walk_gives_devices_with_their_state)
{
    const char *yaml = CLASS SLICE("n1", "[{name: d0}, {name: d1}, {name: d2, taints: [{key: k, effect: NoExecute}]}]")
        INUSE("a", "n1", "d0");
    dra_objset set = DRA_OBJSET_INIT;
    dra_model m = DRA_MODEL_INIT;
    dra_err *e = dra_read_mem(&set, "t.yaml", yaml, strlen(yaml));
    dra_load_opts lo = {.skip_unknown = true};
    if (!e)
        e = dra_load(&set, &lo, &m);
    CHECK(e == NULL);
    dra_selector_eval ev = dra_cel_selector_eval_new(NULL);
    dra_alloc_world *w = NULL;
    if (!e)
        e = dra_alloc_world_of_model(&m, NULL, NULL, &ev, &w, NULL, NULL);
    CHECK(e == NULL);
    dra_err_free(e);
    if (w) {
        dra_alloc_walk wk;
        dra_alloc_walk_new(w, &m, &wk);
        CHECK_INT(wk.npools, 1);
        CHECK_INT(wk.ndevs, 3);
        if (wk.npools == 1 && wk.ndevs == 3) {
            CHECK_STR(wk.pools[0].pool, "n1");
            CHECK_STR(wk.pools[0].node, "n1");
            CHECK(wk.pools[0].unusable == NULL);
            CHECK_STR(wk.devs[0].name, "d0");
            CHECK(wk.devs[0].allocated && wk.devs[0].inuse && !wk.devs[0].free);
            CHECK(wk.devs[1].free && !wk.devs[1].inuse && !wk.devs[1].tainted);
            CHECK(wk.devs[2].tainted && !wk.devs[2].free);
            bool ok = false, warned = false;
            dra_err *warn = NULL;
            CHECK(dra_alloc_walk_match(&wk, "gpu", 1, &ok, &warn, &warned) == NULL && ok);
            CHECK(dra_alloc_walk_match(&wk, "other", 1, &ok, &warn, &warned) == NULL && !ok);
            CHECK(warn == NULL);
            CHECK_INT(dra_alloc_walk_nconsumed(&wk, 1), 0);
            CHECK(dra_alloc_walk_attr_str(&wk, 1, "profile") == NULL);
        }
        dra_alloc_walk_free(&wk);
    }
    dra_alloc_world_free(w);
    dra_cel_selector_eval_free(&ev);
    dra_model_free(&m);
    dra_objset_free(&set);
}

/* One pass that keeps both groupings gives the rows of --by node and of
 * --by pool. */
UNIT_TEST(node_and_pool_in_one_pass_are_both_groupings)
{
    const char *yaml = CLASS NODE("n1") NODE("n2") SLICE("n1", "[{name: d0}, {name: d1}]") SLICE("n2", "[{name: d0}]")
        INUSE("a", "n1", "d0");
    fx both, node, pool;
    CHECK_INT(run(&both, yaml, DRA_FLEET_BY_NODE_AND_POOL, NULL), 0);
    CHECK_INT(run(&node, yaml, DRA_FLEET_BY_NODE, NULL), 0);
    CHECK_INT(run(&pool, yaml, DRA_FLEET_BY_POOL, NULL), 0);
    const json_t *b = json_array_get(dra_jget(both.rep, "classes"), 0);
    const json_t *n = json_array_get(dra_jget(node.rep, "classes"), 0);
    const json_t *p = json_array_get(dra_jget(pool.rep, "classes"), 0);
    CHECK(json_equal(dra_jget(b, "nodes"), dra_jget(n, "nodes")));
    CHECK(json_equal(dra_jget(b, "pools"), dra_jget(p, "pools")));
    CHECK(json_equal(dra_jget(b, "largestFit"), dra_jget(n, "largestFit")));
    CHECK_INT(json_array_size(dra_jget(b, "pools")), 2);
    done(&both);
    done(&node);
    done(&pool);
}

UNIT_MAIN()

/* The report from claims held as text (made again one at a time) and
 * slices held as text is the report from the model's claims and slices:
 * allocated, shared through consumed capacity, unhealthy by
 * status.devices, every grouping. */
UNIT_TEST(claims_as_records_count_as_claims)
{
    /* clang-format off */
    static const char *const yamls[] = {
        CLASS NODE("n1") NODE("n2") SLICE("n1", "[{name: d0}, {name: d1}, {name: d2}]")
            SLICE("n2", "[{name: d0}, {name: d1, taints: [{key: k, effect: NoSchedule}]}]")
            INUSE("a", "n1", "d0") INUSE("b", "n2", "d0")
            "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns, uid: u-c}\n"
            "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n"
            "status: {allocation: {devices: {results: [{request: r, driver: g.example.com, pool: n1, device: d1}]}},\n"
            "  devices: [{driver: g.example.com, pool: n1, device: d1, conditions: [{type: Ready, status: 'False',\n"
            "    reason: R, message: m, lastTransitionTime: '2026-01-01T00:00:00Z'}]}]}\n---\n"
            "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: pending, namespace: ns, uid: u-p}\n"
            "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n",
        CLASS NODE("n1")
            SLICE("n1", "[{name: d0, allowMultipleAllocations: true, capacity: {mem: {value: 10Gi}}}, {name: d1}]")
            "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: s, namespace: ns, uid: u-s}\n"
            "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\n"
            "status: {allocation: {devices: {results: [{request: r, driver: g.example.com, pool: n1, device: d0,\n"
            "  shareID: 11111111-1111-4111-8111-111111111111, consumedCapacity: {mem: 4Gi}}]}}}\n---\n",
    };
    /* clang-format on */
    for (size_t k = 0; k < sizeof yamls / sizeof *yamls; k++) {
        for (int by = DRA_FLEET_BY_CLASS; by <= DRA_FLEET_BY_NODE_AND_POOL; by++) {
            fx want;
            int code = run(&want, yamls[k], (dra_fleet_by)by, NULL);
            CHECK_INT(code, 0);
            fx got;
            memset(&got, 0, sizeof got);
            dra_load_opts lo = {.skip_unknown = true};
            CHECK(!dra_read_mem(&got.set, "t.yaml", yamls[k], strlen(yamls[k])));
            CHECK(!dra_load(&got.set, &lo, &got.m));
            dra_fleet_claims cp = {0};
            dra_model_list *cl = &got.m.by_kind[DRA_KIND_RESOURCE_CLAIM];
            for (size_t i = 0; i < cl->n; i++)
                dra_fleet_claims_keep(&cp, cl->v[i]->json);
            cl->n = 0; /* the model holds no claims: their texts answer */
            dra_slice_packs packs = {0};
            dra_model_list *sl = &got.m.by_kind[DRA_KIND_RESOURCE_SLICE];
            for (size_t i = 0; i < sl->n; i++)
                dra_slice_pack(&packs, sl->v[i]->json);
            sl->n = 0; /* nor slices: their text does */
            json_t *nodes[8];
            size_t nn = 0;
            const dra_model_list *l = dra_model_kind(&got.m, DRA_KIND_NODE);
            for (size_t i = 0; i < l->n && nn < 8; i++)
                nodes[nn++] = l->v[i]->json;
            dra_fleet_opts o = {.by = (dra_fleet_by)by, .timeout = 10, .claims = &cp, .packs = &packs};
            dra_err *e = dra_fleet_capacity(&got.m, nodes, nn, &o, &got.rep, &got.warn);
            CHECK(e == NULL);
            dra_err_free(e);
            CHECK(want.rep && got.rep && json_equal(want.rep, got.rep));
            if (k == 0 && by == DRA_FLEET_BY_CLASS) {
                CHECK_INT(num(json_array_get(json_object_get(got.rep, "classes"), 0), "unhealthy"), 1);
                CHECK_INT(num(json_array_get(json_object_get(got.rep, "classes"), 0), "allocated"), 3);
            }
            dra_fleet_claims_free(&cp);
            dra_slice_packs_free(&packs);
            done(&got);
            done(&want);
        }
    }
}
