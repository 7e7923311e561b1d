/* dra-slice library: splitting, naming, generations, equality, inventory
 * checks, lint, discovery parsing and profiles. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "io/stream.h"
#include "slice/build.h"
#include "slice/discover.h"
#include "slice/lint.h"
#include "slice/nvidia.h"
#include "slice/poolstatus.h"
#include "slice/profile.h"
#include "model/load.h"
#include "unit.h"

/* tests/data/slice, found from this file's path so any working directory works
 * as long as the build ran from the repository root. */
static char *data_path(const char *rel)
{
    const char *here = __FILE__; /* tests/unit/test_slice.c */
    const char *slash = strrchr(here, '/');
    int dir = slash ? (int)(slash - here) : 0;
    return dra_xasprintf("%.*s%s../data/slice/%s", dir, here, dir ? "/" : "", rel);
}

static json_t *device(const char *name, int advanced)
{
    json_t *d = json_pack("{s:s}", "name", name);
    if (advanced)
        json_object_set_new(d, "taints", json_pack("[{s:s, s:s}]", "key", "k", "effect", "NoSchedule"));
    return d;
}

static json_t **devices(size_t n, int advanced_every)
{
    json_t **v = dra_xcalloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "dev-%zu", i);
        v[i] = device(name, advanced_every && i % (size_t)advanced_every == 0);
    }
    return v;
}

static void free_devices(json_t **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        json_decref(v[i]);
    free(v);
}

UNIT_TEST(split_plain_devices_in_128s)
{
    json_t **v = devices(300, 0);
    size_t ends[301];
    CHECK_INT(dra_slice_split_devices(v, 300, ends), 3);
    CHECK_INT(ends[0], 128);
    CHECK_INT(ends[1], 256);
    CHECK_INT(ends[2], 300);
    free_devices(v, 300);
}

UNIT_TEST(split_with_taints_uses_64)
{
    json_t **v = devices(130, 1); /* every device tainted */
    size_t ends[131];
    CHECK_INT(dra_slice_split_devices(v, 130, ends), 3);
    CHECK_INT(ends[0], 64);
    CHECK_INT(ends[1], 128);
    CHECK_INT(ends[2], 130);
    free_devices(v, 130);
}

UNIT_TEST(split_mixed_closes_chunk_before_overflow)
{
    /* 100 plain devices, then one tainted: 101 > 64, so the tainted device
     * starts the next slice; the first stays at 100 plain devices. */
    json_t **v = devices(101, 0);
    json_decref(v[100]);
    v[100] = device("dev-100", 1);
    size_t ends[102];
    CHECK_INT(dra_slice_split_devices(v, 101, ends), 2);
    CHECK_INT(ends[0], 100);
    CHECK_INT(ends[1], 101);
    free_devices(v, 101);
}

UNIT_TEST(split_empty_gives_one_empty_slice)
{
    size_t ends[1];
    CHECK_INT(dra_slice_split_devices(NULL, 0, ends), 1);
    CHECK_INT(ends[0], 0);
}

UNIT_TEST(index_width_and_decoding)
{
    CHECK_INT(dra_slice_index_width(1), 5);
    CHECK_INT(dra_slice_index_width(0x100000), 5);
    CHECK_INT(dra_slice_index_width(0x100001), 6);
    CHECK_INT(dra_slice_decode_index("0000a-gpu.example.com-node-x", 5), 10);
    CHECK_INT(dra_slice_decode_index("0000A-x", 5), 10);
    CHECK_INT(dra_slice_decode_index("00000a-x", 5), -1);
    CHECK_INT(dra_slice_decode_index("node-1-gpu.example.com-abcde", 5), -1);
    CHECK_INT(dra_slice_decode_index("0000g-x", 5), -1);
}

UNIT_TEST(names_are_deterministic_and_bounded)
{
    char *a = dra_slice_name("gpu.example.com", "node-1", "node-1", 0, 1);
    char *b = dra_slice_name("gpu.example.com", "node-1", "node-1", 0, 1);
    char *c = dra_slice_name("gpu.example.com", "node-1", "node-1", 1, 2);
    CHECK_STR(a, b);
    CHECK(strncmp(a, "00000-gpu.example.com-node-1-", 29) == 0);
    CHECK_INT(strlen(a), 34);
    CHECK(strncmp(c, "00001-gpu.example.com-node-1-", 29) == 0);
    CHECK(strcmp(a + 29, c + 29) != 0);
    for (const char *p = a + 29; *p; p++)
        CHECK(strchr("bcdfghjklmnpqrstvwxz2456789", *p) != NULL);
    char *noowner = dra_slice_name("gpu.example.com", NULL, "pool", 0x12345, 0x12346);
    CHECK(strncmp(noowner, "12345-gpu.example.com-", 22) == 0);
    char *longer =
        dra_slice_name("a-very-long-driver-name.example.com", "a-node-with-a-rather-long-name-that-goes-on", "p", 0, 1);
    CHECK_INT(strlen(longer), 63);
    free(a);
    free(b);
    free(c);
    free(noowner);
    free(longer);
}

UNIT_TEST(semantic_equality)
{
    json_t *a = json_pack("[{s:s, s:{s:{s:s}}}]", "name", "d", "capacity", "memory", "value", "1Gi");
    json_t *b = json_pack("[{s:s, s:{s:{s:s}}}]", "name", "d", "capacity", "memory", "value", "1024Mi");
    json_t *c = json_pack("[{s:s, s:{s:{s:s}}, s:[]}]", "name", "d", "capacity", "memory", "value", "1Gi", "taints");
    json_t *d = json_pack("[{s:s, s:{s:{s:s}}}]", "name", "d", "capacity", "memory", "value", "2Gi");
    CHECK(dra_slice_json_equal(a, b, NULL));
    CHECK(dra_slice_json_equal(a, c, NULL)); /* empty list == absent */
    CHECK(!dra_slice_json_equal(a, d, NULL));
    json_t *t1 = json_pack("[{s:s, s:s, s:s}]", "key", "k", "effect", "NoExecute", "timeAdded", "2026-01-01T00:00:00Z");
    json_t *t2 = json_pack("[{s:s, s:s, s:s}]", "key", "k", "effect", "NoExecute", "timeAdded", "2026-01-01T00:00:01Z");
    json_t *t3 = json_pack("[{s:s, s:s, s:s}]", "key", "k", "effect", "NoExecute", "timeAdded", "2026-01-01T00:00:05Z");
    json_t *t4 = json_pack("[{s:s, s:s}]", "key", "k", "effect", "NoExecute");
    json_t *da = json_pack("{s:O}", "taints", t1), *db = json_pack("{s:O}", "taints", t2);
    json_t *dc = json_pack("{s:O}", "taints", t3), *dd = json_pack("{s:O}", "taints", t4);
    CHECK(dra_slice_json_equal(da, db, NULL)); /* within a second */
    CHECK(!dra_slice_json_equal(da, dc, NULL));
    CHECK(dra_slice_json_equal(da, dd, NULL)); /* timeAdded unset matches anything */
    json_decref(a), json_decref(b), json_decref(c), json_decref(d);
    json_decref(t1), json_decref(t2), json_decref(t3), json_decref(t4);
    json_decref(da), json_decref(db), json_decref(dc), json_decref(dd);
}

/* An inventory of n plain devices held in `store`. */
static void make_inventory(dra_inventory *inv, json_t *store, size_t n, const char *model)
{
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "gpu-%zu", i);
        json_t *d = json_pack("{s:s, s:{s:{s:s}}}", "name", name, "attributes", "model", "string", model);
        json_array_append_new(store, d);
        dra_inventory_add_device(inv, d, NULL, NULL);
    }
}

static dra_objset result_as_set(const dra_slice_result *r)
{
    dra_objset set = DRA_OBJSET_INIT;
    for (size_t i = 0; i < r->nslices; i++)
        dra_objset_add(&set, json_deep_copy(r->slices[i]), "prev.yaml", 1, 0, -1);
    return set;
}

static json_int_t generation_of(const json_t *slice)
{
    return json_integer_value(json_object_get(json_object_get(json_object_get(slice, "spec"), "pool"), "generation"));
}

typedef struct collected {
    json_t *slices;
} collected;

static dra_err *collect(void *ctx, json_t *slice)
{
    json_array_append(((collected *)ctx)->slices, slice);
    return NULL;
}

/* 300 devices gpu-<i> of model "a" and the counter set "mem", held in store. */
static void make_pool_with_set(dra_inventory *inv, json_t *store)
{
    make_inventory(inv, store, 300, "a");
    json_t *set = json_pack("{s:s, s:{s:{s:s}}}", "name", "mem", "counters", "bytes", "value", "1Gi");
    json_array_append_new(store, set);
    dra_inventory_add_counter_set(inv, set, NULL, NULL);
}

/* The slices given out one at a time, the generation and the obsolete
 * names are those of the whole build. */
static void check_same_build(int *unit_failed, const collected *c, const dra_slice_result *each,
                             const dra_slice_result *whole)
{
    CHECK_INT(json_array_size(c->slices), whole->nslices);
    CHECK_INT(each->generation, whole->generation);
    CHECK_INT(each->nobsolete, whole->nobsolete);
    for (size_t i = 0; i < whole->nslices && i < json_array_size(c->slices); i++)
        CHECK(json_equal(json_array_get(c->slices, i), whole->slices[i]));
}

/* The stream builder over JSON Lines read three times; texts[k] is the
 * input of pass k + 1 (the same text three times, or one that changed). */
static dra_err *stream_build(const dra_slice_opts *o, const char *const texts[3], collected *c, dra_slice_result *out)
{
    dra_slice_builder *b = dra_slice_builder_new(o, DRA_FV_STRICT, collect, c, out);
    dra_err *e = NULL;
    for (int pass = 0; !e && pass < 3; pass++) {
        dra_objset set = DRA_OBJSET_INIT;
        e = dra_read_mem(&set, "inv.jsonl", texts[pass], strlen(texts[pass]));
        for (size_t i = 0; !e && i < set.n; i++)
            e = dra_slice_builder_read(b, &set.v[i]);
        if (!e)
            e = dra_slice_builder_next(b);
        dra_objset_free(&set);
    }
    dra_slice_builder_free(b);
    return e;
}

/* n devices gpu-<i> as JSON Lines, one attribute of device `odd` set to b,
 * then a line with one counter set. */
static char *inventory_lines(size_t n, size_t odd)
{
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        dra_buf_printf(&b, "{\"name\":\"gpu-%zu\",\"attributes\":{\"model\":{\"string\":\"%s\"}}}\n", i,
                       i == odd ? "b" : "a");
    dra_buf_printf(&b, "{\"sharedCounters\":[{\"name\":\"mem\",\"counters\":{\"bytes\":{\"value\":\"1Gi\"}}}]}\n");
    char *s = dra_xstrdup(dra_buf_str(&b));
    dra_buf_free(&b);
    return s;
}

/* The inventory held as text, slices given out one at a time, and the same
 * devices as JSON Lines read three times as a stream: the same slices,
 * generation and obsolete names as a whole build, without and against
 * previous slices; a problem anywhere gives no slice at all. */
UNIT_TEST(build_each_and_stream_are_the_whole_build)
{
    json_t *store = json_array();
    dra_inventory inv = DRA_INVENTORY_INIT;
    make_pool_with_set(&inv, store);
    dra_slice_opts o = {.driver = "gpu.example.com", .node_name = "node-1"};
    dra_slice_result first, whole;
    CHECK(dra_slice_build(&o, &inv, &first) == NULL);
    collected c = {json_array()};
    dra_slice_result each;
    char *text = inventory_lines(300, SIZE_MAX);
    const char *texts[3] = {text, text, text};
    CHECK(stream_build(&o, texts, &c, &each) == NULL);
    check_same_build(unit_failed, &c, &each, &first);
    dra_slice_result_free(&each);
    json_array_clear(c.slices);
    free(text);

    /* one device changed against the previous slices */
    dra_objset prev = result_as_set(&first);
    json_object_set_new(json_object_get(json_array_get(store, 5), "attributes"), "model",
                        json_pack("{s:s}", "string", "b"));
    o.previous = &prev;
    CHECK(dra_slice_build(&o, &inv, &whole) == NULL);
    text = inventory_lines(300, 5);
    texts[0] = texts[1] = texts[2] = text;
    CHECK(stream_build(&o, texts, &c, &each) == NULL);
    check_same_build(unit_failed, &c, &each, &whole);
    dra_slice_result_free(&each);
    json_array_clear(c.slices);
    free(text);

    dra_inventory_hold(&inv, 0, 0);
    CHECK(inv.devices[0].json == NULL && inv.devices[0].text != NULL && inv.counter_sets[0].text != NULL);
    CHECK(dra_slice_build_each(&o, &inv, collect, &c, &each) == NULL);
    check_same_build(unit_failed, &c, &each, &whole);
    dra_slice_result_free(&each);
    json_array_clear(c.slices);

    /* a bad device name: errors, and nothing given out */
    dra_inventory bad = DRA_INVENTORY_INIT;
    make_inventory(&bad, store, 3, "a");
    json_object_set_new(json_array_get(store, json_array_size(store) - 1), "name", json_string("Bad_Name"));
    dra_inventory_hold(&bad, 0, 0);
    dra_err *e = dra_slice_build_each(&o, &bad, collect, &c, &each);
    CHECK(e != NULL && json_array_size(c.slices) == 0 && each.nobsolete == 0);
    dra_err_free(e);
    dra_inventory_free(&bad);

    json_decref(c.slices);
    dra_slice_result_free(&first);
    dra_slice_result_free(&whole);
    dra_objset_free(&prev);
    dra_inventory_free(&inv);
    json_decref(store);
}

/* Duplicate names are found through a 32-bit hash of each: names whose
 * hashes collide ("costarring" and "liquid" under FNV-1a) are not
 * duplicates; a name given twice is, once, at its second device. */
UNIT_TEST(build_stream_duplicates_past_hash_collisions)
{
    dra_slice_opts o = {.driver = "gpu.example.com", .node_name = "node-1"};
    const char *ok = "{\"name\":\"costarring\"}\n{\"name\":\"liquid\"}\n";
    const char *texts[3] = {ok, ok, ok};
    collected c = {json_array()};
    dra_slice_result r;
    CHECK(stream_build(&o, texts, &c, &r) == NULL);
    CHECK_INT(json_array_size(c.slices), 1);
    dra_slice_result_free(&r);
    const char *dup = "{\"name\":\"liquid\"}\n{\"name\":\"costarring\"}\n{\"name\":\"x\"}\n{\"name\":\"liquid\"}\n";
    const char *texts2[3] = {dup, dup, dup};
    dra_err *e = stream_build(&o, texts2, &c, &r);
    CHECK(e != NULL && e->next == NULL);
    CHECK_STR(e ? e->msg : "", "found duplicate device \"liquid\" in pool \"node-1\"");
    CHECK_INT(e ? e->line : 0, 4);
    CHECK_INT(json_array_size(c.slices), 1); /* nothing more given */
    dra_err_free(e);
    json_decref(c.slices);
}

/* Input that changes between the passes is an error, not slices built from
 * two different inputs: a device renamed before the checks, or changed
 * before its slice is given out (the slices before it were). */
UNIT_TEST(build_stream_input_that_changed)
{
    dra_slice_opts o = {.driver = "gpu.example.com", .node_name = "node-1"};
    char *text = inventory_lines(300, SIZE_MAX), *changed = inventory_lines(300, 200);
    char *renamed = dra_xstrdup(text);
    memcpy(strstr(renamed, "gpu-7\""), "gpu-X", 5);
    const char *fewer = "{\"name\":\"gpu-0\"}\n";
    const char *const cases[][3] = {{text, renamed, text}, {text, fewer, text}, {text, text, changed}};
    for (size_t k = 0; k < 3; k++) {
        collected c = {json_array()};
        dra_slice_result r;
        dra_err *e = stream_build(&o, cases[k], &c, &r);
        CHECK(e != NULL && e->code == DRA_EXIT_RUNTIME);
        CHECK(e && strstr(e->msg, "changed while it was read"));
        /* the counter-set slice and the first device slice (gpu-0..127) went out */
        CHECK_INT(json_array_size(c.slices), k == 2 ? 2 : 0);
        dra_err_free(e);
        dra_slice_result_free(&r);
        json_decref(c.slices);
    }
    free(text);
    free(changed);
    free(renamed);
}

UNIT_TEST(build_new_pool_and_generations)
{
    json_t *store = json_array();
    dra_inventory inv = DRA_INVENTORY_INIT;
    make_inventory(&inv, store, 200, "a");
    dra_slice_opts o = {.driver = "gpu.example.com", .node_name = "node-1"};
    dra_slice_result r;
    dra_err *e = dra_slice_build(&o, &inv, &r);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(r.nslices, 2);
    CHECK_INT(r.generation, 1); /* a new pool starts at 1 (0 + bump) */
    CHECK_INT(json_integer_value(
                  json_object_get(json_object_get(json_object_get(r.slices[1], "spec"), "pool"), "resourceSliceCount")),
              2);
    CHECK_STR(json_string_value(json_object_get(json_object_get(r.slices[0], "spec"), "nodeName")), "node-1");

    /* Unchanged content against the previous slices keeps generation and names. */
    dra_objset prev = result_as_set(&r);
    dra_slice_opts o2 = o;
    o2.previous = &prev;
    dra_slice_result r2;
    CHECK(dra_slice_build(&o2, &inv, &r2) == NULL);
    CHECK_INT(r2.generation, 1);
    CHECK_INT(r2.nobsolete, 0);
    CHECK_STR(json_string_value(json_object_get(json_object_get(r2.slices[1], "metadata"), "name")),
              json_string_value(json_object_get(json_object_get(r.slices[1], "metadata"), "name")));
    dra_slice_result_free(&r2);

    /* One slice changes in place: generation kept (single atomic update). */
    json_object_set_new(json_object_get(json_array_get(store, 150), "attributes"), "model",
                        json_pack("{s:s}", "string", "b"));
    CHECK(dra_slice_build(&o2, &inv, &r2) == NULL);
    CHECK_INT(r2.generation, 1);
    dra_slice_result_free(&r2);

    /* Two slices change: bumped. */
    json_object_set_new(json_object_get(json_array_get(store, 0), "attributes"), "model",
                        json_pack("{s:s}", "string", "b"));
    CHECK(dra_slice_build(&o2, &inv, &r2) == NULL);
    CHECK_INT(r2.generation, 2);
    CHECK_INT(generation_of(r2.slices[0]), 2);
    dra_slice_result_free(&r2);

    /* A driver-supplied generation above the previous one wins. */
    o2.generation = 7;
    CHECK(dra_slice_build(&o2, &inv, &r2) == NULL);
    CHECK_INT(r2.generation, 7);
    dra_slice_result_free(&r2);

    /* Growing the pool needs new slices: bumped, count changes everywhere. */
    o2.generation = 0;
    make_inventory(&inv, store, 0, "a");
    for (size_t i = 200; i < 300; i++) {
        char name[32];
        snprintf(name, sizeof name, "gpu-%zu", i);
        json_t *d = json_pack("{s:s}", "name", name);
        json_array_append_new(store, d);
        dra_inventory_add_device(&inv, d, NULL, NULL);
    }
    CHECK(dra_slice_build(&o2, &inv, &r2) == NULL);
    CHECK_INT(r2.nslices, 3);
    CHECK_INT(r2.generation, 2);
    dra_slice_result_free(&r2);

    /* Shrinking to one slice: the second previous slice is obsolete. */
    dra_inventory small = DRA_INVENTORY_INIT;
    make_inventory(&small, store, 3, "a");
    CHECK(dra_slice_build(&o2, &small, &r2) == NULL);
    CHECK_INT(r2.nslices, 1);
    CHECK_INT(r2.nobsolete, 1);
    dra_slice_result_free(&r2);
    dra_inventory_free(&small);

    dra_objset_free(&prev);
    dra_slice_result_free(&r);
    dra_inventory_free(&inv);
    json_decref(store);
}

UNIT_TEST(build_counter_sets_get_their_own_slices)
{
    json_t *store = json_array();
    dra_inventory inv = DRA_INVENTORY_INIT;
    for (int i = 0; i < 9; i++) {
        char name[32];
        snprintf(name, sizeof name, "set-%d", i);
        json_t *s = json_pack("{s:s, s:{s:{s:s}}}", "name", name, "counters", "memory", "value", "8Gi");
        json_array_append_new(store, s);
        dra_inventory_add_counter_set(&inv, s, NULL, NULL);
    }
    json_t *d = json_pack("{s:s, s:[{s:s, s:{s:{s:s}}}]}", "name", "part-0", "consumesCounters", "counterSet", "set-8",
                          "counters", "memory", "value", "4Gi");
    json_array_append_new(store, d);
    dra_inventory_add_device(&inv, d, NULL, NULL);
    dra_slice_opts o = {.driver = "gpu.example.com", .all_nodes = true, .pool = "shared"};
    dra_slice_result r;
    dra_err *e = dra_slice_build(&o, &inv, &r);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(r.nslices, 3); /* 8 sets, 1 set, 1 device slice */
    const json_t *spec0 = json_object_get(r.slices[0], "spec");
    CHECK_INT(json_array_size(json_object_get(spec0, "sharedCounters")), 8);
    CHECK(json_object_get(spec0, "devices") == NULL);
    CHECK(json_is_true(json_object_get(spec0, "allNodes")));
    CHECK(json_object_get(json_object_get(r.slices[2], "spec"), "sharedCounters") == NULL);
    CHECK(strncmp(json_string_value(json_object_get(json_object_get(r.slices[2], "metadata"), "name")),
                  "00002-gpu.example.com-", 22) == 0);
    dra_slice_result_free(&r);
    dra_inventory_free(&inv);
    json_decref(store);
}

UNIT_TEST(build_reports_inventory_problems)
{
    json_t *store = json_array();
    dra_inventory inv = DRA_INVENTORY_INIT;
    json_t *a = json_pack("{s:s}", "name", "gpu-0");
    json_t *b = json_pack("{s:s}", "name", "gpu-0");
    json_t *c = json_pack("{s:s, s:[{s:s, s:{s:{s:s}}}]}", "name", "gpu-1", "consumesCounters", "counterSet", "nope",
                          "counters", "memory", "value", "1");
    json_t *bad = json_pack("{s:s}", "name", "Bad_Name");
    json_array_append_new(store, a);
    json_array_append_new(store, b);
    json_array_append_new(store, c);
    json_array_append_new(store, bad);
    dra_inventory_add_device(&inv, a, NULL, "devices[0]");
    dra_inventory_add_device(&inv, b, NULL, "devices[1]");
    dra_inventory_add_device(&inv, c, NULL, "devices[2]");
    dra_slice_opts o = {.driver = "gpu.example.com", .node_name = "n"};
    dra_slice_result r;
    dra_err *e = dra_slice_build(&o, &inv, &r);
    CHECK(e != NULL);
    CHECK_INT(dra_err_count(e), 2);
    CHECK(e && strstr(e->msg, "found duplicate device \"gpu-0\" in pool \"n\""));
    CHECK(e && e->field && strcmp(e->field, "devices[1].name") == 0);
    CHECK(e && e->next && strstr(e->next->msg, "counter set nope not found"));
    dra_err_free(e);

    dra_inventory inv2 = DRA_INVENTORY_INIT;
    dra_inventory_add_device(&inv2, bad, NULL, "devices[0]");
    e = dra_slice_build(&o, &inv2, &r);
    CHECK(e != NULL && e->field && strcmp(e->field, "devices[0].name") == 0);
    CHECK(e && e->object && strcmp(e->object, "Device/Bad_Name") == 0);
    dra_err_free(e);

    dra_slice_opts none = {.driver = "gpu.example.com"};
    e = dra_slice_build(&none, &inv2, &r);
    CHECK(e != NULL && strstr(e->msg, "exactly one of nodeName, allNodes, nodeSelector"));
    dra_err_free(e);
    dra_slice_opts baddrv = {.driver = "Not A Driver", .node_name = "n"};
    e = dra_slice_build(&baddrv, &inv2, &r);
    CHECK(e != NULL && e->param && e->field && strcmp(e->field, "driver") == 0); /* the parameter, not a flag */
    dra_err_free(e);
    dra_inventory_free(&inv);
    dra_inventory_free(&inv2);
    json_decref(store);
}

static size_t lint_skipped;

static dra_lint_report lint_text(const char *yaml, dra_err **err)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_lint_report r = DRA_LINT_REPORT_INIT;
    lint_skipped = 0;
    *err = dra_read_mem(&set, "slices.yaml", yaml, strlen(yaml));
    if (!*err)
        *err = dra_slice_lint(&set, &r, &lint_skipped);
    /* Problems keep pointers into the set's file names: format them now. */
    for (size_t i = 0; i < r.n; i++)
        r.v[i].file = NULL;
    dra_objset_free(&set);
    return r;
}

static bool has_problem(const dra_lint_report *r, const char *text)
{
    for (size_t i = 0; i < r->n; i++) {
        char *line = dra_lint_format(&r->v[i]);
        bool hit = strstr(line, text) != NULL;
        free(line);
        if (hit)
            return true;
    }
    return false;
}

/* clang-format off */
#define SLICE(name, gen, count, body)                                                                     \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " name "}\nspec:\n"          \
    "  driver: gpu.example.com\n  pool: {name: p, generation: " gen ", resourceSliceCount: " count "}\n" \
    "  nodeName: node-a\n" body "---\n"
/* clang-format on */

UNIT_TEST(lint_pool_problems)
{
    dra_err *e;
    dra_lint_report r = lint_text(
        SLICE("s0", "2", "3",
              "  devices:\n  - name: gpu-0\n  - name: gpu-1\n    consumesCounters:\n"
              "    - counterSet: cs\n      counters: {memory: {value: 90Gi}, other: {value: '1'}}\n")
            SLICE("s1", "2", "3",
                  "  devices:\n  - name: gpu-0\n    consumesCounters:\n"
                  "    - counterSet: missing\n      counters: {memory: {value: 1Gi}}\n")
                SLICE("s2", "2", "3", "  sharedCounters:\n  - name: cs\n    counters: {memory: {value: 80Gi}}\n")
                    SLICE("old", "1", "1", "  devices:\n  - name: gpu-9\n"),
        &e);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK(has_problem(&r, "pool gpu.example.com/p: ResourceSlice/s1: duplicate device name gpu-0"));
    CHECK(has_problem(&r, "ResourceSlice/s1: device gpu-0: counter set missing not found"));
    CHECK(has_problem(&r, "device gpu-1: counter other not found in counter set cs"));
    CHECK(has_problem(&r, "device gpu-1: consumes 90Gi of counter memory in counter set cs, which has only 80Gi"));
    CHECK(has_problem(&r, "ResourceSlice/old: obsolete: generation 1, the pool is at generation 2"));
    CHECK(!has_problem(&r, "incomplete"));
    CHECK(dra_problems_count(&r, false) == 5);
    dra_problems_free(&r);

    r = lint_text(SLICE("a", "1", "2",
                        "  devices:\n  - name: dx\n    attributes: {m: {string: a}}\n"
                        "  - name: dy\n    attributes: {k: {string: a}}\n"),
                  &e);
    CHECK(e == NULL);
    CHECK(has_problem(&r, "incomplete: 1 of 2 slices at generation 1"));
    CHECK(has_problem(&r, "warning: attribute names differ: device dy: missing m; extra k (compared with dx)"));
    CHECK_INT(dra_problems_count(&r, false), 1);
    dra_problems_free(&r);

    /* other kinds are skipped and counted; a typo in a DRA kind is an error */
    r = lint_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n", &e);
    CHECK(e == NULL);
    CHECK_INT(lint_skipped, 1);
    dra_err_free(e);
    dra_problems_free(&r);
    r = lint_text("apiVersion: resource.k8s.io/v1\nkind: ResourceSlise\nmetadata: {name: p}\n", &e);
    CHECK(e != NULL && strstr(e->msg, "no matches for kind \"ResourceSlise\""));
    dra_err_free(e);
    dra_problems_free(&r);
}

/* Pools validation refuses: lint reports the slices and answers for the
 * pool as the allocator would count it, never reading past its slices. */
UNIT_TEST(lint_refused_pools)
{
    dra_err *e;
    /* every slice below generation 0 (the newest is then negative) */
    dra_lint_report r = lint_text(SLICE("a", "-3", "2", "  devices:\n  - name: d0\n")
                                      SLICE("b", "-2", "2", "  devices:\n  - name: d1\n")
                                          SLICE("c", "-2", "1", "  devices:\n  - name: d2\n"),
                                  &e);
    CHECK(e == NULL);
    CHECK(has_problem(
        &r, "ResourceSlice/a: spec.pool.generation: Invalid value: -3: must be greater than or equal to zero"));
    CHECK(has_problem(&r, "ResourceSlice/a: obsolete: generation -3, the pool is at generation -2"));
    CHECK(has_problem(&r, "ResourceSlice/c: resourceSliceCount 1 differs from 2 in ResourceSlice/b"));
    CHECK_INT(dra_problems_count(&r, false), 5);
    dra_problems_free(&r);

    r = lint_text(SLICE("a", "-1", "1", "  devices:\n  - name: d0\n"), &e);
    CHECK(e == NULL);
    CHECK_INT(dra_problems_count(&r, false), 1);
    dra_problems_free(&r);

    /* the int64 edges; a generation past them is not an integer: that
     * slice is no part of the pool (not "generation 0") */
    r = lint_text(SLICE("a", "9223372036854775807", "2", "  devices:\n  - name: d0\n")
                      SLICE("b", "-9223372036854775808", "2", "  devices:\n  - name: d1\n")
                          SLICE("c", "9223372036854775808", "2", "  devices:\n  - name: d2\n"),
                  &e);
    CHECK(e == NULL);
    CHECK(has_problem(&r, "ResourceSlice/b: obsolete: generation -9223372036854775808, the pool is at generation "
                          "9223372036854775807"));
    CHECK(has_problem(
        &r, "ResourceSlice/c: spec.pool.generation: Invalid value: 9.2233720368547758e18: must be of type integer"));
    CHECK(!has_problem(&r, "ResourceSlice/c: obsolete"));
    CHECK(has_problem(&r, "incomplete: 1 of 2 slices at generation 9223372036854775807"));
    dra_problems_free(&r);

    /* nothing of the pool decodes: only the slices' own problems */
    r = lint_text(SLICE("a", "'1'", "1", "  devices:\n  - name: d0\n"), &e);
    CHECK(e == NULL);
    CHECK(has_problem(&r, "ResourceSlice/a: spec.pool.generation: Invalid value: \"1\": must be of type integer"));
    CHECK(!has_problem(&r, "incomplete") && !has_problem(&r, "obsolete"));
    dra_problems_free(&r);

    /* resourceSliceCount 0, negative, huge */
    r = lint_text(
        SLICE("a", "1", "0", "  devices:\n  - name: d0\n") SLICE("b", "1", "-1", "  devices:\n  - name: d1\n"), &e);
    CHECK(e == NULL);
    CHECK(
        has_problem(&r, "ResourceSlice/a: spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero"));
    CHECK(has_problem(&r, "ResourceSlice/b: resourceSliceCount -1 differs from 0 in ResourceSlice/a"));
    CHECK(!has_problem(&r, "incomplete") && !has_problem(&r, "but resourceSliceCount is"));
    dra_problems_free(&r);
    r = lint_text(SLICE("a", "1", "9223372036854775807", "  devices:\n  - name: d0\n"), &e);
    CHECK(e == NULL);
    CHECK(has_problem(&r, "incomplete: 1 of 9223372036854775807 slices at generation 1"));
    dra_problems_free(&r);

    /* a pool split across versions: the v1beta1 slice is read as the
     * cluster keeps it (v1), its devices' fields out of `basic` */
    r = lint_text("apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata: {name: old}\nspec:\n"
                  "  driver: gpu.example.com\n  pool: {name: p, generation: 1, resourceSliceCount: 2}\n"
                  "  nodeName: node-a\n  devices:\n  - name: d0\n    basic:\n      attributes: {'bad name': {int: 1}}\n"
                  "      consumesCounters:\n      - counterSet: nope\n        counters: {m: {value: '1'}}\n---\n" SLICE(
                      "new", "1", "2", "  devices:\n  - name: d0\n"),
                  &e);
    CHECK(e == NULL);
    CHECK(has_problem(&r, "ResourceSlice/old: spec.devices[0].attributes: Invalid value: \"bad name\""));
    CHECK(has_problem(&r, "ResourceSlice/old: device d0: counter set nope not found"));
    CHECK(has_problem(&r, "ResourceSlice/new: duplicate device name d0"));
    dra_problems_free(&r);

    /* unknown fields are problems (strict field validation, the default):
     * v1beta2 has no `basic`; it was linted silently */
    r = lint_text("apiVersion: resource.k8s.io/v1beta2\nkind: ResourceSlice\nmetadata: {name: b2}\nspec:\n"
                  "  driver: gpu.example.com\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
                  "  nodeName: node-a\n  devices:\n  - name: d0\n    basic: {}\n",
                  &e);
    CHECK(e == NULL);
    CHECK(has_problem(&r, "pool gpu.example.com/p: ResourceSlice/b2: unknown field \"spec.devices[0].basic\""));
    dra_problems_free(&r);

    /* a ResourceSlice without apiVersion is an input error (it crashed) */
    r = lint_text("kind: ResourceSlice\nmetadata: {name: x}\n", &e);
    CHECK(e != NULL && strstr(e->msg, "object has no apiVersion"));
    dra_err_free(e);
    dra_problems_free(&r);

    /* a ResourceSlice of another group is not a slice of resource.k8s.io */
    r = lint_text("apiVersion: example.com/v1\nkind: ResourceSlice\nmetadata: {name: x}\nspec: {devices: 5}\n", &e);
    CHECK(e == NULL);
    CHECK_INT(lint_skipped, 1);
    CHECK_INT((long long)r.n, 0);
    dra_problems_free(&r);
}

UNIT_TEST(discover_fake_sysfs)
{
    char *root = data_path("sysfs");
    char *pr = dra_discover_pcie_root(root, "0000:3b:00.0");
    CHECK_STR(pr, "pci0000:3a");
    free(pr);
    CHECK(dra_discover_pcie_root(root, "0000:99:00.0") == NULL);
    CHECK(dra_discover_pcie_root(root, "not-a-bdf") == NULL);

    dra_discover_opts o = {.sysfs_root = root, .sources = DRA_SRC_PCI | DRA_SRC_NET};
    dra_discovery d;
    dra_err *e = dra_discover(&o, &d);
    CHECK(e == NULL);
    CHECK_INT(d.n, 2);
    CHECK_INT(json_array_size(d.v[0].devices), 4);
    CHECK_INT(json_array_size(d.v[1].devices), 2); /* eth0, veth_a1; no loopback */
    const json_t *eth0 = json_array_get(d.v[1].devices, 0);
    CHECK_STR(json_string_value(json_object_get(eth0, "name")), "net-eth0");
    const json_t *attrs = json_object_get(eth0, "attributes");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(attrs, "mtu"), "int")), 9000);
    CHECK(json_is_false(json_object_get(json_object_get(attrs, "virtual"), "bool")));
    CHECK_STR(json_string_value(json_object_get(json_object_get(attrs, "resource.kubernetes.io/pcieRoot"), "string")),
              "pci0000:00");
    const json_t *veth = json_array_get(d.v[1].devices, 1);
    CHECK(strncmp(json_string_value(json_object_get(veth, "name")), "net-veth-a1-", 12) == 0);
    dra_discovery_free(&d);

    unsigned src;
    e = dra_discover_parse_sources("pci,usb", &src);
    CHECK(e != NULL && strstr(e->msg, "unknown source 'usb'"));
    dra_err_free(e);
    free(root);
}

/* A runner that answers nvidia-smi's arguments from captured files. */
typedef struct capture_dir {
    const char *dir;
    int calls;
} capture_dir;

static dra_err *from_captures(void *ctx, const char *const *args, dra_buf *out)
{
    capture_dir *c = ctx;
    c->calls++;
    const char *f = NULL;
    if (strcmp(args[0], "-q") == 0)
        f = "nvidia-smi-q.xml";
    else if (strncmp(args[0], "--query-gpu=", 12) == 0)
        f = "query.csv";
    else if (strcmp(args[0], "-L") == 0)
        f = "nvidia-smi-L.txt";
    else if (strcmp(args[0], "mig") == 0)
        f = strcmp(args[1], "-lgip") == 0    ? "mig-lgip.txt"
            : strcmp(args[1], "-lgipp") == 0 ? "mig-lgipp.txt"
                                             : "mig-lgi.txt";
    char *rel = dra_xasprintf("nvidia/%s/%s", c->dir, f);
    char *path = data_path(rel);
    dra_err *e = dra_buf_read_path(out, path, 0);
    free(rel);
    free(path);
    return e;
}

static const json_t *find_device(const json_t *devs, const char *name)
{
    size_t i;
    json_t *d;
    json_array_foreach(devs, i, d)
        if (strcmp(json_string_value(json_object_get(d, "name")), name) == 0)
            return d;
    return NULL;
}

static const char *attr_of(const json_t *dev, const char *attr, const char *type)
{
    return json_string_value(json_object_get(json_object_get(json_object_get(dev, "attributes"), attr), type));
}

static const char *cap_of(const json_t *dev, const char *cap)
{
    return json_string_value(json_object_get(json_object_get(json_object_get(dev, "capacity"), cap), "value"));
}

UNIT_TEST(discover_nvidia_h200)
{
    /* The real H200 capture: driver 580's XML has no compute capability. */
    capture_dir c = {"h200", 0};
    dra_nvidia_opts o = {"nvidia-smi", NULL, false, from_captures, &c};
    json_t *devs = json_array(), *sets = json_array();
    dra_err *e = dra_discover_nvidia(&o, devs, sets);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(c.calls, 2); /* -q -x and --query-gpu */
    CHECK_INT(json_array_size(devs), 1);
    CHECK_INT(json_array_size(sets), 0);
    const json_t *g = find_device(devs, "gpu-0");
    CHECK(g != NULL);
    CHECK_STR(attr_of(g, "brand", "string"), "Nvidia");
    CHECK_STR(attr_of(g, "architecture", "string"), "Hopper");
    CHECK_STR(attr_of(g, "productName", "string"), "NVIDIA H200");
    CHECK_STR(attr_of(g, "type", "string"), "gpu");
    CHECK_STR(attr_of(g, "uuid", "string"), "GPU-d55d1438-023a-d127-abb9-77c3f4eddbe9");
    CHECK_STR(attr_of(g, "cudaComputeCapability", "version"), "9.0.0");
    CHECK_STR(attr_of(g, "driverVersion", "version"), "580.159.4");
    CHECK_STR(attr_of(g, "cudaDriverVersion", "version"), "13.0.0");
    CHECK_STR(attr_of(g, "addressingMode", "string"), "None");
    CHECK_STR(attr_of(g, "resource.kubernetes.io/pciBusID", "string"), "0000:00:06.0");
    CHECK_STR(cap_of(g, "memory"), "143771Mi");
    json_decref(devs);
    json_decref(sets);

    /* DynamicMIG: the full GPU and 25 placements on one counter set. */
    c.calls = 0;
    o.dynamic_mig = true;
    devs = json_array(), sets = json_array();
    e = dra_discover_nvidia(&o, devs, sets);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(c.calls, 4);
    CHECK_INT(json_array_size(devs), 26); /* 7 + 7 + 4 + 3 + 2 + 1 + 1 */
    CHECK_INT(json_array_size(sets), 1);
    const json_t *set = json_array_get(sets, 0);
    CHECK_STR(json_string_value(json_object_get(set, "name")), "gpu-0-counter-set");
    const json_t *counters = json_object_get(set, "counters");
    CHECK_INT(json_object_size(counters), 15); /* 7 dimensions, 8 memory slices */
    CHECK_STR(json_string_value(json_object_get(json_object_get(counters, "memory-slice-7"), "value")), "1");
    CHECK_STR(json_string_value(json_object_get(json_object_get(counters, "multiprocessors"), "value")), "132");
    g = find_device(devs, "gpu-0");
    CHECK_STR(cap_of(g, "memory"), "140Gi"); /* the largest profile, as PartCapacities */
    const json_t *m = find_device(devs, "gpu-0-mig-3g71gb-9-4");
    CHECK(m != NULL);
    CHECK_STR(attr_of(m, "type", "string"), "mig");
    CHECK_STR(attr_of(m, "profile", "string"), "3g.71gb");
    CHECK_STR(attr_of(m, "parentUUID", "string"), "GPU-d55d1438-023a-d127-abb9-77c3f4eddbe9");
    CHECK(attr_of(m, "uuid", "string") == NULL);
    CHECK_STR(cap_of(m, "memory"), "71424Mi");
    CHECK_STR(cap_of(m, "multiprocessors"), "60");
    const json_t *use = json_object_get(json_array_get(json_object_get(m, "consumesCounters"), 0), "counters");
    CHECK(json_object_get(use, "memory-slice-4") && json_object_get(use, "memory-slice-7") &&
          !json_object_get(use, "memory-slice-3"));
    CHECK(find_device(devs, "gpu-0-mig-1g18gb-me-20-6") != NULL);
    json_decref(devs);
    json_decref(sets);
}

UNIT_TEST(discover_nvidia_static_mig)
{
    /* Eight H100s in MIG mode: only the MIG devices that exist. */
    capture_dir c = {"dgx-h100-mig", 0};
    dra_nvidia_opts o = {"nvidia-smi", NULL, false, from_captures, &c};
    json_t *devs = json_array(), *sets = json_array();
    dra_err *e = dra_discover_nvidia(&o, devs, sets);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(json_array_size(devs), 22);
    CHECK_INT(json_array_size(sets), 0);
    CHECK(find_device(devs, "gpu-0") == NULL);
    const json_t *m = find_device(devs, "gpu-4-mig-1g20gb-15-4");
    CHECK(m != NULL);
    CHECK_STR(attr_of(m, "profile", "string"), "1g.20gb");
    CHECK(strncmp(attr_of(m, "uuid", "string"), "MIG-", 4) == 0);
    CHECK_STR(cap_of(m, "memory"), "20096Mi");
    CHECK_STR(cap_of(m, "memorySlice4"), "1");
    CHECK_STR(cap_of(m, "memorySlice5"), "1");
    CHECK(cap_of(m, "memorySlice6") == NULL);
    CHECK(json_object_get(m, "consumesCounters") == NULL);
    json_decref(devs);
    json_decref(sets);

    /* A100 (Ampere, MIG enabled) and T4: with DynamicMIG the A100 itself is
     * not published (MIG cannot be toggled without a reset). */
    capture_dir a = {"a100-t4", 0};
    dra_nvidia_opts oa = {"nvidia-smi", NULL, true, from_captures, &a};
    devs = json_array(), sets = json_array();
    e = dra_discover_nvidia(&oa, devs, sets);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK(find_device(devs, "gpu-0") == NULL);
    CHECK(find_device(devs, "gpu-1") != NULL);
    CHECK(find_device(devs, "gpu-0-mig-7g40gb-0-0") != NULL);
    CHECK_INT(json_array_size(sets), 1);
    CHECK_STR(attr_of(find_device(devs, "gpu-1"), "cudaComputeCapability", "version"), "7.5.0");
    CHECK_STR(attr_of(find_device(devs, "gpu-0-mig-7g40gb-0-0"), "cudaComputeCapability", "version"), "8.0.0");
    json_decref(devs);
    json_decref(sets);
}

static dra_err *fixed_output(void *ctx, const char *const *args, dra_buf *out)
{
    (void)args;
    dra_buf_puts(out, ctx);
    return NULL;
}

UNIT_TEST(discover_nvidia_bad_output)
{
    json_t *devs = json_array(), *sets = json_array();
    dra_nvidia_opts o = {"x", NULL, false, fixed_output, "<html></html>"};
    dra_err *e = dra_discover_nvidia(&o, devs, sets);
    CHECK(e != NULL && e->code == DRA_EXIT_RUNTIME && strstr(e->msg, "not nvidia-smi XML"));
    dra_err_free(e);
    o.ctx = "<nvidia_smi_log><gpu>";
    e = dra_discover_nvidia(&o, devs, sets);
    CHECK(e != NULL);
    dra_err_free(e);
    /* the XML lacks compute_cap, and the query answers with XML */
    o.ctx = "<nvidia_smi_log><gpu><uuid>GPU-1</uuid></gpu></nvidia_smi_log>";
    e = dra_discover_nvidia(&o, devs, sets);
    CHECK(e != NULL && e->code == DRA_EXIT_RUNTIME);
    dra_err_free(e);
    CHECK_INT(json_array_size(devs), 0);
    json_decref(devs);
    json_decref(sets);
}

UNIT_TEST(nvidia_tables)
{
    CHECK(dra_nvidia_gib_to_mib("16.00") == 16384);
    CHECK(dra_nvidia_gib_to_mib("19.62") == 20096);
    CHECK(dra_nvidia_gib_to_mib("4.75") == 4864);
    CHECK(dra_nvidia_gib_to_mib("69.75") == 71424);
    CHECK(dra_nvidia_gib_to_mib("1.5") == -1);
    CHECK(dra_nvidia_gib_to_mib("x.00") == -1);
    CHECK_STR(dra_nvidia_brand("NVIDIA"), "Nvidia");
    CHECK_STR(dra_nvidia_brand("Quadro RTX"), "QuadroRTX");
    CHECK_STR(dra_nvidia_brand("NVIDIA Virtual Compute Server"), "NvidiaVCS");
    CHECK(dra_nvidia_brand("Acme") == NULL);

    dra_mig_profile *p;
    size_t n;
    const char *lgip = "|   0  MIG 2g.35gb   14   3/3   32.50   No   32   2   0   |\n"
                       "|                                        2   2   0   |\n";
    dra_err *e = dra_nvidia_parse_lgip(lgip, strlen(lgip), "nvidia-smi mig -lgip", &p, &n);
    CHECK(e == NULL && n == 1 && p[0].id == 14 && p[0].memory_mib == 33280 && p[0].sm == 32 && p[0].ce == 2 &&
          strcmp(p[0].name, "2g.35gb") == 0);
    free(p);
    const char *half = "|   0  MIG 2g.35gb 14 3/3 32.50 No 32 2 0 |\n";
    e = dra_nvidia_parse_lgip(half, strlen(half), "lgip", &p, &n);
    CHECK(e != NULL && strstr(e->msg, "CE JPEG OFA"));
    dra_err_free(e);
    e = dra_nvidia_parse_lgip("No MIG-enabled devices found.\n", 30, "lgip", &p, &n);
    CHECK(e == NULL && n == 0 && p == NULL);
    e = dra_nvidia_parse_lgip("garbage\n", 8, "lgip", &p, &n);
    CHECK(e != NULL && e->line == 1);
    dra_err_free(e);

    dra_mig_placement *pl;
    const char *lgipp = "GPU  0 Profile ID 15 Placements: {0,2,4,6}:2\nGPU  1 Profile ID  0 Placement : {0}:8\n";
    e = dra_nvidia_parse_lgipp(lgipp, strlen(lgipp), "lgipp", &pl, &n);
    CHECK(e == NULL && n == 5 && pl[3].start == 6 && pl[3].size == 2 && pl[4].gpu == 1 && pl[4].size == 8);
    free(pl);
    e = dra_nvidia_parse_lgipp("GPU  0 Profile ID 15 Placements: {0,x}:2\n", 41, "lgipp", &pl, &n);
    CHECK(e != NULL);
    dra_err_free(e);

    dra_mig_instance *gi;
    const char *lgi = "|   0  MIG 3g.71gb   9   1   4:4   |\n";
    e = dra_nvidia_parse_lgi(lgi, strlen(lgi), "lgi", &gi, &n);
    CHECK(e == NULL && n == 1 && gi[0].profile == 9 && gi[0].gi == 1 && gi[0].start == 4 && gi[0].size == 4);
    free(gi);

    dra_mig_listed *l;
    const char *list = "GPU 0: NVIDIA H100 (UUID: GPU-1)\n  MIG 1g.10gb  Device  3: (UUID: MIG-abc)\n";
    e = dra_nvidia_parse_list(list, strlen(list), "-L", &l, &n);
    CHECK(e == NULL && n == 1 && l[0].gpu == 0 && l[0].index == 3 && strcmp(l[0].uuid, "MIG-abc") == 0);
    free(l);
    e = dra_nvidia_parse_list("  MIG 1g.10gb  Device  3: (UUID: MIG-abc)\n", 42, "-L", &l, &n);
    CHECK(e != NULL);
    dra_err_free(e);

    dra_gpu_query *q;
    const char *csv = "index, uuid, compute_cap\n0, GPU-1, 9.0\n1, GPU-2, [N/A]\n";
    e = dra_nvidia_parse_query(csv, strlen(csv), "query", &q, &n);
    CHECK(e == NULL && n == 2 && q[0].index == 0 && strcmp(q[0].compute_cap, "9.0") == 0 && q[1].compute_cap[0] == 0);
    free(q);
    e = dra_nvidia_parse_query("", 0, "query", &q, &n);
    CHECK(e != NULL);
    dra_err_free(e);
}

UNIT_TEST(profiles_are_deterministic)
{
    dra_profile_opts o = {.kind = DRA_PROFILE_MIG, .nodes = 1, .devices = 2};
    json_t *d1, *s1, *d2, *s2;
    dra_profile_node(&o, 0, &d1, &s1);
    dra_profile_node(&o, 0, &d2, &s2);
    CHECK(json_equal(d1, d2) && json_equal(s1, s2));
    CHECK_INT(json_array_size(d1), 30);
    CHECK_INT(json_array_size(s1), 2);
    CHECK_STR(json_string_value(json_object_get(json_array_get(d1, 1), "name")), "gpu-0-mig-1g5gb-19-0");
    json_decref(d1), json_decref(s1), json_decref(d2), json_decref(s2);

    dra_profile_opts g = {.kind = DRA_PROFILE_GPU, .nodes = 1, .devices = 2, .partitions = 4};
    dra_profile_node(&g, 3, &d1, &s1);
    CHECK_INT(json_array_size(d1), 10);
    CHECK_STR(json_string_value(json_object_get(
                  json_object_get(json_object_get(json_array_get(d1, 1), "capacity"), "memory"), "value")),
              "20Gi");
    json_decref(d1), json_decref(s1);

    dra_profile_opts bad = {.kind = DRA_PROFILE_NET, .nodes = 1, .devices = 2, .partitions = 3};
    dra_err *e = dra_profile_check(&bad);
    CHECK(e != NULL && e->param && e->field && strcmp(e->field, "partitions") == 0);
    dra_err_free(e);
    dra_profile_kind k;
    e = dra_profile_parse("tpu", &k);
    CHECK(e != NULL && strstr(e->msg, "unknown profile 'tpu'"));
    dra_err_free(e);
}

UNIT_MAIN()

/* tests/data/slice/NAME read and loaded as pool-status loads it (not
 * validated); false on an error. */
static bool load_data(const char *name, dra_objset *set, dra_model *m)
{
    char *path = data_path(name);
    dra_err *e = dra_read_path(set, path);
    dra_load_opts lo = {.skip_unknown = true, .no_validate = true};
    if (!e)
        e = dra_load(set, &lo, m);
    bool ok = e == NULL;
    dra_err_free(e);
    free(path);
    return ok;
}

/* ResourcePoolStatusRequest: newest generation only, taints and taint rules
 * make devices unavailable, admin access is not allocation, limit cuts the
 * list after poolCount (KEP-5677 controller's calculatePoolStatus). */
UNIT_TEST(pool_status_counts_as_the_controller)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_model m = DRA_MODEL_INIT;
    CHECK(load_data("pool-status.yaml", &set, &m));
    dra_features f;
    dra_features_default(&f);
    const dra_model_list *reqs = dra_model_kind(&m, DRA_KIND_RESOURCE_POOL_STATUS_REQUEST);
    CHECK_INT(reqs->n, 1);
    json_t *st = dra_pool_status(&m, reqs->v[0]->json, &f, 0);
    CHECK_INT(json_integer_value(json_object_get(st, "poolCount")), 2);
    const json_t *p0 = json_array_get(json_object_get(st, "pools"), 0);
    CHECK_INT(json_integer_value(json_object_get(p0, "totalDevices")), 4);
    CHECK_INT(json_integer_value(json_object_get(p0, "allocatedDevices")), 2);
    CHECK_INT(json_integer_value(json_object_get(p0, "unavailableDevices")), 2);
    CHECK_INT(json_integer_value(json_object_get(p0, "generation")), 2);
    json_decref(st);
    /* without DeviceTaintRules only the embedded taint counts */
    f.on[DRA_FEATURE_DEVICE_TAINT_RULES] = false;
    st = dra_pool_status(&m, reqs->v[0]->json, &f, 0);
    p0 = json_array_get(json_object_get(st, "pools"), 0);
    CHECK_INT(json_integer_value(json_object_get(p0, "unavailableDevices")), 1);
    CHECK_INT(json_integer_value(json_object_get(p0, "availableDevices")), 1);
    json_decref(st);
    /* limit 1: one pool shown, both counted */
    json_t *req = json_deep_copy(reqs->v[0]->json);
    json_object_set_new(json_object_get(req, "spec"), "limit", json_integer(1));
    st = dra_pool_status(&m, req, &f, 0);
    CHECK_INT(json_array_size(json_object_get(st, "pools")), 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(st, "conditions"), 0), "message")),
              "Calculated status for 1 pools");
    json_decref(st);
    json_decref(req);
    dra_model_free(&m);
    dra_objset_free(&set);
}

/* The views of 1.37: partitionSummary over the counters left after the
 * devices in use, each type alone; shareableSummary sums capacity over the
 * shareable devices (views.go computePartitionSummary, computeShareableSummary). */
UNIT_TEST(pool_status_views)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_model m = DRA_MODEL_INIT;
    CHECK(load_data("pool-views.yaml", &set, &m));
    dra_features f;
    dra_features_default(&f);
    json_t *req = dra_pool_status_request_new("gpu.example.com", NULL, 0);
    json_t *st = dra_pool_status(&m, req, &f, 0);
    const json_t *pools = json_object_get(st, "pools");
    const json_t *ps = json_object_get(json_array_get(pools, 0), "partitionSummary");
    CHECK_INT(json_array_size(ps), 3);
    static const int want[][2] = {{1, 0}, {2, 1}, {4, 2}}; /* full, half, quarter: total, allocatable */
    for (size_t i = 0; i < 3 && i < json_array_size(ps); i++) {
        CHECK_INT(json_integer_value(json_object_get(json_array_get(ps, i), "total")), want[i][0]);
        CHECK_INT(json_integer_value(json_object_get(json_array_get(ps, i), "allocatable")), want[i][1]);
    }
    const json_t *sh = json_object_get(json_array_get(pools, 1), "shareableSummary");
    CHECK_INT(json_integer_value(json_object_get(sh, "partiallyAvailableDevices")), 1);
    const json_t *cap = json_array_get(json_object_get(sh, "capacity"), 0);
    CHECK_STR(json_string_value(json_object_get(cap, "available")), "28Gi");
    json_decref(st);
    /* nothing in use: every type fits as often as the whole GPU allows */
    dra_model_list *cl = (dra_model_list *)dra_model_kind(&m, DRA_KIND_RESOURCE_CLAIM);
    size_t saved = cl->n;
    cl->n = 0;
    st = dra_pool_status(&m, req, &f, 0);
    ps = json_object_get(json_array_get(json_object_get(st, "pools"), 0), "partitionSummary");
    CHECK_INT(json_integer_value(json_object_get(json_array_get(ps, 0), "allocatable")), 1);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(ps, 1), "allocatable")), 2);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(ps, 2), "allocatable")), 4);
    cl->n = saved;
    json_decref(st);
    /* a request's default attribute groups every device of node-b, where no
     * slice declares one, though none consumes counters: with no shared
     * counters the pool is flagged, its shareable view kept
     * (resolveDevicePartitions, computePoolViews) */
    json_object_set_new(json_object_get(req, "spec"), "defaultPartitionTypeAttribute",
                        json_string("gpu.example.com/shape"));
    st = dra_pool_status(&m, req, &f, 0);
    pools = json_object_get(st, "pools");
    CHECK(json_object_get(json_array_get(pools, 0), "validationError") == NULL);
    CHECK_STR(json_string_value(json_object_get(json_array_get(pools, 1), "validationError")),
              "PartitionTypeMissing: pool gpu.example.com/node-b declares partitionTypeAttribute but publishes no "
              "sharedCounters");
    CHECK(json_object_get(json_array_get(pools, 1), "shareableSummary") != NULL);
    json_decref(st);
    json_decref(req);
    dra_model_free(&m);
    dra_objset_free(&set);
}

/* partitionSummary: each type's cost is parsed once and is the group's
 * cost; a cost naming a counter the pool does not publish never fits;
 * devices in use are debited once. */
UNIT_TEST(pool_status_partition_costs)
{
    static const char yaml[] =
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"
        "spec:\n  driver: gpu.example.com\n  nodeName: n\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
        "  partitionTypeAttribute: gpu.example.com/type\n"
        "  sharedCounters: [{name: s, counters: {mem: {value: '10'}, eng: {value: '4'}}}]\n"
        "  devices:\n"
        "  - {name: a0, attributes: {type: {string: A}}, consumesCounters: [{counterSet: s, counters: {mem: {value: "
        "'3'}, eng: {value: '1'}}}]}\n"
        "  - {name: a1, attributes: {type: {string: A}}, consumesCounters: [{counterSet: s, counters: {eng: {value: "
        "'1'}, mem: {value: 3000m}}}]}\n"
        "  - {name: a2, attributes: {type: {string: A}}, consumesCounters: [{counterSet: s, counters: {mem: {value: "
        "'3'}, eng: {value: '1'}}}]}\n"
        "  - {name: a3, attributes: {type: {string: A}}, consumesCounters: [{counterSet: s, counters: {mem: {value: "
        "'3'}, eng: {value: '1'}}}]}\n"
        "  - {name: b0, attributes: {type: {string: B}}, consumesCounters: [{counterSet: s, counters: {mem: {value: "
        "'1'}, other: {value: '1'}}}]}\n"
        "  - {name: b1, attributes: {type: {string: B}}, consumesCounters: [{counterSet: s, counters: {mem: {value: "
        "'1'}, other: {value: '1'}}}]}\n"
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns, uid: u}\n"
        "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: x}}]}}\n"
        "status: {allocation: {devices: {results: [{request: r, driver: gpu.example.com, pool: p, device: a0}]}}}\n";
    dra_objset set = DRA_OBJSET_INIT;
    dra_model m = DRA_MODEL_INIT;
    CHECK(!dra_read_mem(&set, "pc.yaml", yaml, sizeof yaml - 1));
    dra_load_opts lo = {.skip_unknown = true, .no_validate = true};
    CHECK(!dra_load(&set, &lo, &m));
    dra_features f;
    dra_features_default(&f);
    json_t *req = dra_pool_status_request_new("gpu.example.com", NULL, 0);
    json_t *st = dra_pool_status(&m, req, &f, 0);
    /* a1 spells its cost "3000m": the same quantity, so the same type cost */
    const json_t *ps = json_object_get(json_array_get(json_object_get(st, "pools"), 0), "partitionSummary");
    CHECK_INT(json_array_size(ps), 2);
    /* A: 3 fresh, mem 10-3=7 fits 2 more, eng 4-1=3: 2; B: "other" is not published */
    CHECK_STR(json_string_value(json_object_get(json_array_get(ps, 0), "type")), "A");
    CHECK_INT(json_integer_value(json_object_get(json_array_get(ps, 0), "total")), 4);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(ps, 0), "allocatable")), 2);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(ps, 1), "total")), 2);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(ps, 1), "allocatable")), 0);
    json_decref(st);
    json_decref(req);
    dra_model_free(&m);
    dra_objset_free(&set);
}

/* The status from the fields dra_pool_slice_keep keeps of the slices is the
 * status from the slices themselves: counts, taints, rules, both views, with
 * and without a request's default partition attribute. */
UNIT_TEST(pool_status_from_kept_slices)
{
    static const char *const files[] = {"pool-status.yaml", "pool-views.yaml"};
    for (size_t fi = 0; fi < 2; fi++) {
        dra_objset set = DRA_OBJSET_INIT;
        dra_model m = DRA_MODEL_INIT;
        CHECK(load_data(files[fi], &set, &m));
        dra_features f;
        dra_features_default(&f);
        const dra_model_list *sl = dra_model_kind(&m, DRA_KIND_RESOURCE_SLICE);
        const dra_model_list *cl = dra_model_kind(&m, DRA_KIND_RESOURCE_CLAIM);
        json_t *kept = json_array();
        dra_compact claims = DRA_COMPACT_INIT;
        for (size_t i = 0; i < sl->n; i++)
            dra_pool_slice_keep(kept, sl->v[i]->json);
        for (size_t i = 0; i < cl->n; i++)
            dra_compact_claim(&claims, cl->v[i]->json);
        CHECK_INT(json_array_size(kept), sl->n);
        for (int k = 0; k < 3; k++) {
            json_t *req = dra_pool_status_request_new("gpu.example.com", k == 2 ? "node-b" : NULL, 0);
            if (k == 1)
                json_object_set_new(json_object_get(req, "spec"), "defaultPartitionTypeAttribute",
                                    json_string("gpu.example.com/shape"));
            json_t *want = dra_pool_status(&m, req, &f, 0), *got = dra_pool_status_of(&m, &claims, kept, req, &f, 0);
            CHECK(json_array_size(json_object_get(want, "pools")) > 0 || k == 2);
            CHECK(json_equal(want, got));
            json_decref(want), json_decref(got), json_decref(req);
        }
        json_decref(kept);
        dra_compact_free(&claims);
        dra_model_free(&m);
        dra_objset_free(&set);
    }
    /* a device read only for its name is kept as its name */
    json_t *s =
        json_pack("{s:{s:s,s:{s:s},s:[{s:s,s:{}},{s:s,s:[{s:s,s:s}]}]}}", "spec", "driver", "d", "pool", "name", "p",
                  "devices", "name", "a", "attributes", "name", "b", "taints", "key", "k", "effect", "NoSchedule");
    json_t *kept = json_array();
    dra_pool_slice_keep(kept, s);
    const json_t *devs = json_object_get(json_object_get(json_array_get(kept, 0), "spec"), "devices");
    CHECK_STR(json_string_value(json_array_get(devs, 0)), "a");
    CHECK(json_object_get(json_array_get(devs, 1), "taints") != NULL);
    CHECK(json_object_get(json_array_get(devs, 1), "attributes") == NULL);
    json_decref(kept), json_decref(s);
}
