/* Lazily converted DRA devices (cel/dra.c, cel/dra_plan.c): a compiled
 * selector reads only what it needs from the device's scan, and answers
 * exactly as the device converted in full and the general evaluator do. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cel/dra.h"
#include "io/json.h"
#include "model/packed.h"
#include "unit.h"

static const char *perf_device =
    "{\"name\": \"device-1\", \"attributes\": {\"driverVersion\": {\"version\": \"1.0.0\"},"
    " \"model\": {\"string\": \"test\"}}, \"capacity\": {\"memory\": {\"value\": \"8Gi\"}}}";

/* The answer of p on d as text: "true", "false" or "ERROR: <msg>". */
static void answer(cel_program *p, const cel_dra_device *d, char *out, size_t n)
{
    bool m = false;
    dra_err *e = cel_dra_match(p, d, &m);
    if (e)
        snprintf(out, n, "ERROR: %s", e->msg);
    else
        snprintf(out, n, "%s", m ? "true" : "false");
    dra_err_free(e);
}

/* The general evaluator's answer on the fully converted device. */
static void general(cel_program *p, const cel_dra_device *d, char *out, size_t n)
{
    const char *err = cel_dra_device_error_in(p, d);
    if (err) {
        snprintf(out, n, "ERROR: %s", err);
        return;
    }
    cel_activation act = CEL_ACTIVATION_INIT;
    cel_activation_bind(&act, "device", cel_dra_device_value(d));
    cel_eval_options eo = {.cost_limit = CEL_DRA_MAX_COST};
    cel_value v = cel_eval(p, &act, &eo);
    if (v.kind == CEL_BOOL)
        snprintf(out, n, "%s", v.v.b ? "true" : "false");
    else if (v.kind == CEL_ERROR)
        snprintf(out, n, "ERROR: %s", v.v.err);
    else
        snprintf(out, n, "other");
}

/* The device of tree j built from its compact text, as a packed slice
 * holds it (model/packed.c). */
static cel_dra_device *from_text(const json_t *j, const char *driver, const cel_dra_convert *how)
{
    dra_buf b = DRA_BUF_INIT;
    dra_json_write_compact(&b, j);
    dra_arena scratch = DRA_ARENA_INIT;
    cel_dra_device *d = cel_dra_device_build_text(b.data ? b.data : "", b.len, driver, &scratch, how);
    dra_arena_free(&scratch);
    dra_buf_free(&b); /* the device keeps a copy */
    return d;
}

/* The device of tree j as dra-alloc builds it from a packed slice: its
 * text and the facts packed with it (kept in *packs, which the device
 * borrows), through reuse as the allocator passes a block and a parsed
 * capacity from one device to the next. */
static cel_dra_device *from_packed(const json_t *j, const char *driver, const cel_dra_convert *how,
                                   dra_slice_packs *packs, cel_dra_reuse *reuse)
{
    json_t *slice = json_pack("{s:{s:[O]}}", "spec", "devices", j);
    dra_slice_pack(packs, slice);
    json_decref(slice);
    const char *text = dra_packed_next(packs->v[packs->n - 1], NULL);
    dra_arena scratch = DRA_ARENA_INIT;
    cel_dra_device *d = cel_dra_device_build_packed(text, strlen(text), driver, &scratch, how, reuse);
    dra_arena_free(&scratch);
    return d;
}

/* A planned selector on a fresh device reads what it needs and no more:
 * the full conversion is made only when the whole `device` is asked for. */
UNIT_TEST(lazy_device_not_converted_for_a_plan)
{
    cel_env *env = cel_dra_env_new(NULL);
    json_t *j = json_loads(perf_device, 0, NULL);
    static const char *const sels[] = {
        "device.driver == \"test-driver.cdi.k8s.io\"",
        "device.attributes[\"test-driver.cdi.k8s.io\"].model == \"test\"",
        "device.capacity[\"test-driver.cdi.k8s.io\"].memory.compareTo(quantity(\"1Gi\")) >= 0",
        "device.attributes[\"test-driver.cdi.k8s.io\"].driverVersion.major() >= 1",
    };
    for (size_t i = 0; i < sizeof sels / sizeof sels[0]; i++) {
        cel_program *p = NULL;
        dra_err *e = cel_dra_compile(env, sels[i], strlen(sels[i]), &p);
        CHECK(!e);
        dra_buf plan = DRA_BUF_INIT;
        CHECK(cel_dra_plan_format(p, &plan));
        dra_buf_free(&plan);
        cel_dra_device *d = cel_dra_device_new(j, "test-driver.cdi.k8s.io");
        char out[256];
        answer(p, d, out, sizeof out);
        CHECK_STR(out, "true");
        bool single;
        size_t lazy = cel_dra_device_bytes(d, &single);
        cel_value v = cel_dra_device_value(d);
        CHECK(v.kind == CEL_MAP);
        size_t full = cel_dra_device_bytes(d, &single);
        CHECK(full > lazy); /* the full conversion came only now */
        answer(p, d, out, sizeof out);
        CHECK_STR(out, "true");
        cel_dra_device_free(d);
        cel_program_free(p);
    }
    json_decref(j);
    cel_env_free(env);
}

/* A device of the usual shape is built from its text alone (it holds a
 * copy of the text and nothing more than the device of its tree); one of
 * unusual shape, or of more than DRA_DEV_TEXT_MAX entries, from its tree,
 * with the same answers. */
UNIT_TEST(text_device_scanned_or_left_to_its_tree)
{
    cel_env *env = cel_dra_env_new(NULL);
    const char *sel = "device.attributes[\"gpu.example.com\"].a69 == 69 && "
                      "device.capacity[\"gpu.example.com\"].memory.isGreaterThan(quantity(\"1Gi\"))";
    cel_program *p = NULL;
    CHECK(!cel_dra_compile(env, sel, strlen(sel), &p));
    dra_buf many = DRA_BUF_INIT;
    dra_buf_puts(&many, "{\"attributes\": {");
    for (int i = 0; i < 70; i++)
        dra_buf_printf(&many, "%s\"a%d\": {\"int\": %d}", i ? ", " : "", i, i);
    dra_buf_puts(&many, "}, \"capacity\": {\"memory\": {\"value\": \"8Gi\"}}}");
    const char *devs[] = {perf_device, "{\"attributes\": {\"model\": {\"string\": \"a\\\"\"}}}", dra_buf_str(&many)};
    const bool scanned[] = {true, false, false};
    for (size_t i = 0; i < 3; i++) {
        json_t *j = json_loads(devs[i], 0, NULL);
        CHECK(j != NULL);
        dra_buf b = DRA_BUF_INIT;
        dra_json_write_compact(&b, j);
        cel_dra_device *tree = cel_dra_device_new(j, "gpu.example.com");
        cel_dra_device *text = from_text(j, "gpu.example.com", &(cel_dra_convert){0});
        bool single;
        size_t tb = cel_dra_device_bytes(tree, &single), xb = cel_dra_device_bytes(text, &single);
        CHECK_INT((int)xb, (int)(tb + (scanned[i] ? b.len + 1 : 0)));
        char a[512], t[512];
        answer(p, tree, a, sizeof a);
        answer(p, text, t, sizeof t);
        CHECK_STR(a, t);
        CHECK_STR(t, i == 2 ? "true" : "ERROR: no such key: a69");
        cel_dra_device_free(tree);
        cel_dra_device_free(text);
        dra_buf_free(&b);
        json_decref(j);
    }
    dra_buf_free(&many);
    cel_program_free(p);
    cel_env_free(env);
}

/* The device holds its JSON: values read after the caller let go of it
 * are intact. */
UNIT_TEST(lazy_device_outlives_callers_json)
{
    cel_env *env = cel_dra_env_new(NULL);
    json_t *j = json_loads(perf_device, 0, NULL);
    cel_dra_device *d = cel_dra_device_new(j, "test-driver.cdi.k8s.io");
    json_decref(j);
    const char *sel = "device.attributes[\"test-driver.cdi.k8s.io\"].model == \"test\"";
    cel_program *p = NULL;
    CHECK(!cel_dra_compile(env, sel, strlen(sel), &p));
    char out[256];
    answer(p, d, out, sizeof out);
    CHECK_STR(out, "true");
    cel_program_free(p);
    cel_dra_device_free(d);
    cel_env_free(env);
}

/* Devices the scan vouches for and devices it leaves to the full
 * conversion, each selector on a fresh device, on one converted in full
 * first, and through the general evaluator: the same answers. */
UNIT_TEST(lazy_matches_full_conversion)
{
    static const char *const devices[] = {
        "{\"attributes\": {\"model\": {\"string\": \"a100\"}, \"n\": {\"int\": 3}, \"ecc\": {\"bool\": true},"
        " \"v\": {\"version\": \"1.2.3\"}, \"x.io/b\": {\"bool\": true},"
        " \"a-rather-long-attribute-name\": {\"string\": \"long\"}},"
        " \"capacity\": {\"mem\": {\"value\": \"8Gi\"}, \"x.io/c\": {\"value\": \"1500m\"}, \"z\": {}}}",
        /* "model" and "gpu.example.com/model" both */
        "{\"attributes\": {\"model\": {\"string\": \"a\"}, \"gpu.example.com/model\": {\"string\": \"b\"}}}",
        /* valid values off the quick paths */
        "{\"attributes\": {\"v\": {\"version\": \"1.2.3-rc.1+b\"}}, \"capacity\": {\"mem\": {\"value\": \"1.5Gi\"},"
        " \"x.io/c\": {\"value\": \"1e3\"}, \"big\": {\"value\": \"99999999999999999999E\"}}}",
        /* conversion errors, a list, an unusual attribute */
        "{\"attributes\": {\"v\": {\"version\": \"01.2.3\"}, \"model\": {\"string\": \"a\"}}}",
        "{\"attributes\": {\"model\": {\"string\": \"a\"}}, \"capacity\": {\"mem\": {\"value\": \"8Gx\"}}}",
        "{\"attributes\": {\"model\": {\"string\": \"a\"}, \"l\": {\"ints\": [1, 2]}}}",
        "{\"attributes\": {\"model\": {\"string\": \"a\", \"int\": 3}}}",
        "{\"attributes\": {\"model\": {\"int\": \"3\"}}}",
        "{\"allowMultipleAllocations\": true}",
        "[]",
        /* text the scan of text leaves to the tree, or reads off its
         * usual shape: escapes, non-ASCII, nested and odd values, reals,
         * big integers, members given before, after and between */
        "{\"name\": \"d\", \"capacity\": {\"mem\": {\"value\": \"8Gi\", \"requestPolicy\": {\"default\": \"1Gi\","
        " \"validRange\": {\"min\": \"1Gi\", \"step\": \"1Gi\"}}}, \"x.io/c\": 3, \"z\": {\"value\": 7}},"
        " \"taints\": [{\"key\": \"a\\\"}\", \"effect\": \"NoSchedule\"}], \"attributes\": {\"model\":"
        " {\"string\": \"a100\"}, \"n\": {\"int\": -3}}, \"allowMultipleAllocations\": false}",
        "{\"attributes\": {\"model\": {\"string\": \"a\\\"100\"}, \"n\": {\"int\": 3}}}",
        "{\"attributes\": {\"model\": {\"string\": \"a100 \u00fc\"}, \"ecc\": {\"bool\": false}}}",
        "{\"attributes\": {\"mod\\u0065l\": {\"string\": \"a100\"}}}",
        "{\"attributes\": {\"n\": {\"int\": 3.0}}}",
        "{\"attributes\": {\"n\": {\"int\": 9223372036854775807}, \"v\": {\"version\": \"1.2\"}}}",
        "{\"attributes\": {\"n\": {\"int\": 1e2}}}",
        "{\"attributes\": null, \"capacity\": [], \"allowMultipleAllocations\": \"true\"}",
        "{\"attributes\": {}, \"capacity\": {}, \"allowMultipleAllocations\": true}",
        "{}",
        "{\"capacity\": {\"mem\": {\"value\": \"\"}}}",
        "{\"attributes\": {\"model\": {\"string\": \"\"}, \"v\": {\"version\": \"\"}}}",
    };
    static const char *const sels[] = {
        "device.driver == \"gpu.example.com\"",
        "device.allowMultipleAllocations",
        "device.attributes[\"gpu.example.com\"].model == \"a100\"",
        "device.attributes[\"gpu.example.com\"].model == \"b\"",
        "device.attributes[\"gpu.example.com\"].n > 2",
        "device.attributes[\"gpu.example.com\"].ecc",
        "device.attributes[\"gpu.example.com\"].v.major() == 1",
        "device.attributes[\"gpu.example.com\"].v.isGreaterThan(semver(\"1.0.0\"))",
        "device.attributes[\"gpu.example.com\"][\"a-rather-long-attribute-name\"] == \"long\"",
        "device.attributes[\"gpu.example.com\"][\"a-rather-long-attribute-namE\"] == \"long\"",
        "device.attributes[\"x.io\"].b",
        "has(device.attributes[\"x.io\"].b) && !has(device.attributes[\"x.io\"].c)",
        "has(device.capacity[\"x.io\"].c)",
        "device.capacity[\"gpu.example.com\"].mem.compareTo(quantity(\"1Gi\")) >= 0",
        "device.capacity[\"gpu.example.com\"].z.isLessThan(quantity(\"1\"))",
        "device.capacity[\"gpu.example.com\"].big.isGreaterThan(quantity(\"1\"))",
        "device.capacity[\"x.io\"].c.isGreaterThan(quantity(\"1\"))",
        "device.attributes[\"other.io\"].model == \"a\"",
        "\"model\" in device.attributes[\"gpu.example.com\"]",
        "device.attributes[\"gpu.example.com\"].exists(k, k == \"model\")",
        "size(device.capacity) > 0",
    };
    cel_env *env = cel_dra_env_new(NULL);
    cel_dra_reuse reuse = {0};
    int compared = 0;
    for (size_t s = 0; s < sizeof sels / sizeof sels[0]; s++) {
        cel_program *p = NULL;
        dra_err *e = cel_dra_compile(env, sels[s], strlen(sels[s]), &p);
        if (e) {
            fprintf(stderr, "%s: %s\n", sels[s], e->msg);
            dra_err_free(e);
            CHECK(0);
            continue;
        }
        for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
            json_t *j = json_loads(devices[i], 0, NULL);
            CHECK(j != NULL);
            cel_dra_device *lazy = cel_dra_device_new(j, "gpu.example.com");
            cel_dra_device *full = cel_dra_device_new(j, "gpu.example.com");
            cel_dra_device *text = from_text(j, "gpu.example.com", &(cel_dra_convert){0});
            dra_slice_packs packs = {0};
            cel_dra_device *pk = from_packed(j, "gpu.example.com", &(cel_dra_convert){0}, &packs, &reuse);
            (void)cel_dra_device_value(full);
            char a[512], b[512], c[512], t[512], k[512];
            answer(p, lazy, a, sizeof a);
            answer(p, full, b, sizeof b);
            general(p, full, c, sizeof c);
            answer(p, text, t, sizeof t);
            answer(p, pk, k, sizeof k);
            if (strcmp(a, b) || strcmp(a, t) || strcmp(a, k) || (strcmp(c, "other") && strcmp(a, c)))
                fprintf(stderr, "device %zu, %s: lazy %s, full %s, evaluator %s, text %s, packed %s\n", i, sels[s], a,
                        b, c, t, k);
            CHECK_STR(a, b);
            CHECK_STR(a, t);
            CHECK_STR(a, k);
            cel_dra_device_drop(pk, &reuse);
            dra_slice_packs_free(&packs);
            if (strcmp(c, "other"))
                CHECK_STR(a, c);
            compared++;
            cel_dra_device_free(lazy);
            cel_dra_device_free(full);
            cel_dra_device_free(text);
            json_decref(j);
        }
        cel_program_free(p);
    }
    CHECK_INT(compared, (int)(sizeof sels / sizeof sels[0] * (sizeof devices / sizeof devices[0])));
    cel_dra_reuse_free(&reuse);
    cel_env_free(env);
}

/* A device of many attributes and capacities read again and again (its
 * index of ids filled on the DRA_DEV_INDEX_AFTER-th read), and one of few,
 * from trees, text and packed slices: every read answers as the full
 * conversion, ambiguous and long ids included. */
UNIT_TEST(lazy_index_answers_as_full_conversion)
{
    const char *dev =
        "{\"attributes\": {\"a0\": {\"int\": 0}, \"a1\": {\"int\": 1}, \"a2\": {\"int\": 2}, \"a3\": {\"int\": 3},"
        " \"a4\": {\"int\": 4}, \"a5\": {\"int\": 5}, \"a6\": {\"int\": 6}, \"x.io/a6\": {\"int\": 60},"
        " \"name-of-twenty-bytes\": {\"string\": \"x\"}, \"name-of-twenty-BYTES\": {\"string\": \"y\"},"
        " \"name-Of-twenty-bytes\": {\"string\": \"z\"}, \"v\": {\"version\": \"1.2.3\"}},"
        " \"capacity\": {\"c0\": {\"value\": \"1\"}, \"c1\": {\"value\": \"2\"}, \"c2\": {\"value\": \"3\"},"
        " \"c3\": {\"value\": \"4\"}, \"c4\": {\"value\": \"5\"}, \"c5\": {\"value\": \"6\"},"
        " \"c6\": {\"value\": \"7\"}, \"x.io/c6\": {\"value\": \"70\"}}}";
    const char *twice = /* the same, "a3" also as the driver's qualified name */
        "{\"attributes\": {\"a0\": {\"int\": 0}, \"a1\": {\"int\": 1}, \"a2\": {\"int\": 2}, \"a3\": {\"int\": 3},"
        " \"a4\": {\"int\": 4}, \"a5\": {\"int\": 5}, \"a6\": {\"int\": 6}, \"gpu.example.com/a3\": {\"int\": 30}}}";
    static const char *const sels[] = {
        "device.attributes[\"gpu.example.com\"].a0 == 0",
        "device.attributes[\"gpu.example.com\"].a6 == 6 && device.attributes[\"x.io\"].a6 == 60",
        "device.attributes[\"gpu.example.com\"].a3 == 3",
        "device.attributes[\"gpu.example.com\"][\"name-of-twenty-BYTES\"] == \"y\"",
        "device.attributes[\"gpu.example.com\"][\"name-Of-twenty-bytes\"] == \"z\"",
        "device.attributes[\"gpu.example.com\"][\"name-of-twenty-bytez\"] == \"z\"",
        "has(device.attributes[\"gpu.example.com\"].a7) || device.attributes[\"gpu.example.com\"].v.minor() == 2",
        "device.attributes[\"x.io\"].a5 == 5",
        "device.capacity[\"gpu.example.com\"].c6.isLessThan(quantity(\"8\"))",
        "device.capacity[\"x.io\"].c6.compareTo(quantity(\"70\")) == 0",
        "has(device.capacity[\"x.io\"].c5)",
    };
    const char *few = /* too few for an index: a packed device finds them from its facts */
        "{\"attributes\": {\"a3\": {\"int\": 3}, \"gpu.example.com/a3\": {\"int\": 30}, \"x.io/a5\": {\"int\": 5}},"
        " \"capacity\": {\"c6\": {\"value\": \"7\"}, \"x.io/c6\": {\"value\": \"70\"}}}";
    const char *const devs[] = {dev, twice, few};
    cel_env *env = cel_dra_env_new(NULL);
    int compared = 0;
    for (size_t i = 0; i < 3; i++) {
        json_t *j = json_loads(devs[i], 0, NULL);
        CHECK(j != NULL);
        cel_dra_device *lazy = cel_dra_device_new(j, "gpu.example.com");
        cel_dra_device *full = cel_dra_device_new(j, "gpu.example.com");
        cel_dra_device *text = from_text(j, "gpu.example.com", &(cel_dra_convert){0});
        dra_slice_packs packs = {0};
        cel_dra_device *pk = from_packed(j, "gpu.example.com", &(cel_dra_convert){0}, &packs, NULL);
        (void)cel_dra_device_value(full);
        for (int round = 0; round < 3; round++) {
            for (size_t s = 0; s < sizeof sels / sizeof sels[0]; s++) {
                cel_program *p = NULL;
                dra_err *e = cel_dra_compile(env, sels[s], strlen(sels[s]), &p);
                CHECK(e == NULL);
                dra_err_free(e);
                if (!p)
                    continue;
                char a[512], b[512], t[512], k[512];
                answer(p, lazy, a, sizeof a);
                answer(p, full, b, sizeof b);
                answer(p, text, t, sizeof t);
                answer(p, pk, k, sizeof k);
                if (strcmp(a, b) || strcmp(a, t) || strcmp(a, k))
                    fprintf(stderr, "device %zu, round %d, %s: lazy %s, full %s, text %s, packed %s\n", i, round,
                            sels[s], a, b, t, k);
                CHECK_STR(a, b);
                CHECK_STR(a, t);
                CHECK_STR(a, k);
                compared++;
                cel_program_free(p);
            }
        }
        cel_dra_device_free(lazy);
        cel_dra_device_free(full);
        cel_dra_device_free(text);
        cel_dra_device_free(pk);
        dra_slice_packs_free(&packs);
        json_decref(j);
    }
    CHECK_INT(compared, 99);
    cel_env_free(env);
}

/* An ext.Lists call on a value that failed: cel-go's cost tracker panics
 * and the whole evaluation fails with "internal error: ..." (a || around
 * it included), which a match answers too, not the failed value's error
 * (cel-diff #1317, #4090). */
UNIT_TEST(list_call_on_failed_value_fails_the_match)
{
    static const char *const sels[] = {
        "(device.attributes[\"gpu.example.com\"].numa.distinct()).isSorted()",
        "device.attributes[\"gpu.example.com\"].numa.distinct() == [1] || true",
    };
    json_t *j = json_loads("{\"attributes\": {\"model\": {\"string\": \"a\"}}}", 0, NULL);
    cel_env *env = cel_dra_env_new(NULL);
    dra_slice_packs packs = {0};
    cel_dra_device *tree = cel_dra_device_new(j, "gpu.example.com");
    cel_dra_device *pk = from_packed(j, "gpu.example.com", &(cel_dra_convert){0}, &packs, NULL);
    for (size_t s = 0; s < sizeof sels / sizeof sels[0]; s++) {
        cel_program *p = NULL;
        CHECK(!cel_dra_compile(env, sels[s], strlen(sels[s]), &p));
        char a[512], b[512];
        answer(p, tree, a, sizeof a);
        answer(p, pk, b, sizeof b);
        CHECK_STR(a,
                  "ERROR: internal error: interface conversion: *types.Err is not traits.Lister: missing method Add");
        CHECK_STR(b, a);
        cel_program_free(p);
    }
    cel_dra_device_free(tree);
    cel_dra_device_free(pk);
    dra_slice_packs_free(&packs);
    cel_env_free(env);
    json_decref(j);
}

/* A packed device borrows its driver's name: a block passed on through
 * reuse, of the same layout, reads the name the next device is built
 * with, though it lies at the same address (the slice before is gone). */
UNIT_TEST(packed_device_reads_its_borrowed_driver)
{
    cel_env *env = cel_dra_env_new(NULL);
    json_t *j = json_loads("{\"name\":\"g0\",\"attributes\":{\"model\":{\"string\":\"a\"}}}", 0, NULL);
    cel_program *p = NULL;
    const char *sel = "device.driver == \"bbbb.example.com\" && device.attributes[device.driver].model == \"a\"";
    CHECK(!cel_dra_compile(env, sel, strlen(sel), &p));
    cel_dra_reuse reuse = {0};
    char driver[32];
    static const char *const names[] = {"a.example", "bbbb.example.com", "a.example", "bbbb.example.com"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(driver, sizeof driver, "%s", names[i]);
        dra_slice_packs packs = {0};
        cel_dra_device *pk = from_packed(j, driver, &(cel_dra_convert){0}, &packs, &reuse);
        char a[512];
        answer(p, pk, a, sizeof a);
        CHECK_STR(a, i % 2 ? "true" : "false");
        cel_dra_device_drop(pk, &reuse);
        dra_slice_packs_free(&packs);
    }
    cel_dra_reuse_free(&reuse);
    cel_program_free(p);
    cel_env_free(env);
    json_decref(j);
}

/* A selector's step tries first the position where it found its entry
 * on the device before: devices of other layouts in turn (the id there in
 * another domain, elsewhere, missing, given twice, past the end, many
 * entries), packed, from text and from a tree, answer as the full
 * conversion. */
UNIT_TEST(guessed_entry_answers_as_full_conversion)
{
    static const char *const devices[] = {
        "{\"attributes\": {\"x\": {\"int\": 1}, \"model\": {\"string\": \"a\"}},"
        " \"capacity\": {\"c\": {\"value\": \"1\"}, \"mem\": {\"value\": \"2Gi\"}}}",
        "{\"attributes\": {\"y\": {\"int\": 1}, \"x.io/model\": {\"string\": \"a\"}},"
        " \"capacity\": {\"c\": {\"value\": \"1\"}, \"x.io/mem\": {\"value\": \"2Gi\"}}}",
        "{\"attributes\": {\"model\": {\"string\": \"a\"}, \"gpu.example.com/model\": {\"string\": \"b\"}}}",
        "{\"attributes\": {\"a\": {\"int\": 1}, \"gpu.example.com/model\": {\"string\": \"a\"}},"
        " \"capacity\": {\"mem\": {\"value\": \"1\"}, \"gpu.example.com/mem\": {\"value\": \"3Gi\"}}}",
        "{\"attributes\": {\"model\": {\"string\": \"b\"}}, \"capacity\": {\"mem\": {\"value\": \"1\"}}}",
        "{\"attributes\": {\"a0\": {\"int\": 0}, \"a1\": {\"int\": 1}, \"a2\": {\"int\": 2}, \"a3\": {\"int\": 3},"
        " \"a4\": {\"int\": 4}, \"a5\": {\"int\": 5}, \"a6\": {\"int\": 6}, \"a7\": {\"int\": 7},"
        " \"model\": {\"string\": \"a\"}, \"v\": {\"version\": \"2.0.0\"}}}",
        "{\"attributes\": {\"x\": {\"int\": 1}, \"model\": {\"int\": 3}}}",
        "{\"attributes\": {\"x\": {\"int\": 1}, \"mode\": {\"string\": \"a\"}}}",
    };
    static const char *const sels[] = {
        "device.attributes[\"gpu.example.com\"].model == \"a\"",
        "has(device.attributes[\"gpu.example.com\"].model)",
        "device.capacity[\"gpu.example.com\"].mem.isGreaterThan(quantity(\"1Gi\"))",
        "device.attributes[\"x.io\"].model == \"a\" || device.attributes[\"gpu.example.com\"].v.major() == 2",
    };
    cel_env *env = cel_dra_env_new(NULL);
    cel_dra_reuse reuse = {0};
    int compared = 0;
    for (size_t s = 0; s < sizeof sels / sizeof sels[0]; s++) {
        cel_program *p = NULL;
        CHECK(!cel_dra_compile(env, sels[s], strlen(sels[s]), &p));
        for (int round = 0; round < 2; round++) {
            for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
                size_t at = round ? sizeof devices / sizeof devices[0] - 1 - i : i; /* the other order too */
                json_t *j = json_loads(devices[at], 0, NULL);
                CHECK(j != NULL);
                cel_dra_device *full = cel_dra_device_new(j, "gpu.example.com");
                cel_dra_device *text = from_text(j, "gpu.example.com", &(cel_dra_convert){0});
                cel_dra_device *tree = cel_dra_device_new(j, "gpu.example.com");
                dra_slice_packs packs = {0};
                cel_dra_device *pk = from_packed(j, "gpu.example.com", &(cel_dra_convert){0}, &packs, &reuse);
                (void)cel_dra_device_value(full);
                char b[512], t[512], k[512], r[512];
                answer(p, full, b, sizeof b);
                answer(p, pk, k, sizeof k);
                answer(p, text, t, sizeof t);
                answer(p, tree, r, sizeof r);
                if (strcmp(b, t) || strcmp(b, k) || strcmp(b, r))
                    fprintf(stderr, "device %zu, %s: full %s, text %s, packed %s, tree %s\n", at, sels[s], b, t, k, r);
                CHECK_STR(k, b);
                CHECK_STR(t, b);
                CHECK_STR(r, b);
                compared++;
                cel_dra_device_drop(pk, &reuse);
                dra_slice_packs_free(&packs);
                cel_dra_device_free(full);
                cel_dra_device_free(text);
                cel_dra_device_free(tree);
                json_decref(j);
            }
        }
        cel_program_free(p);
    }
    CHECK_INT(compared, 64);
    cel_dra_reuse_free(&reuse);
    cel_env_free(env);
}

/* A plain version read is passed on through reuse to the next device,
 * and a step reading a version's part keeps the part of the last version
 * text it read: devices of the same, other and unusual versions in turn
 * answer as the full conversion. */
UNIT_TEST(reused_version_answers_as_full_conversion)
{
    static const char *const versions[] = {"1.2.3",  "1.2.3",  "1.2.4",   "1.2.3-rc.1", "1.2.3",
                                           "11.2.3", "1.2.30", "1.2.3+b", "1.2.3"};
    static const char *const sels[] = {
        "device.attributes[\"gpu.example.com\"].v.patch() == 3",
        "device.attributes[\"gpu.example.com\"].v.isLessThan(semver(\"1.2.3\"))",
        "device.attributes[\"gpu.example.com\"].v.compareTo(semver(\"1.2.3\")) == 0",
    };
    cel_env *env = cel_dra_env_new(NULL);
    cel_dra_reuse reuse = {0};
    int compared = 0;
    for (size_t s = 0; s < sizeof sels / sizeof sels[0]; s++) {
        cel_program *p = NULL;
        CHECK(!cel_dra_compile(env, sels[s], strlen(sels[s]), &p));
        for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
            char dev[256];
            snprintf(dev, sizeof dev, "{\"attributes\": {\"v\": {\"version\": \"%s\"}}}", versions[i]);
            json_t *j = json_loads(dev, 0, NULL);
            CHECK(j != NULL);
            cel_dra_device *full = cel_dra_device_new(j, "gpu.example.com");
            dra_slice_packs packs = {0};
            cel_dra_device *pk = from_packed(j, "gpu.example.com", &(cel_dra_convert){0}, &packs, &reuse);
            (void)cel_dra_device_value(full);
            char b[512], k[512];
            answer(p, full, b, sizeof b);
            answer(p, pk, k, sizeof k);
            CHECK_STR(k, b);
            compared++;
            cel_dra_device_drop(pk, &reuse);
            dra_slice_packs_free(&packs);
            cel_dra_device_free(full);
            json_decref(j);
        }
        cel_program_free(p);
    }
    CHECK_INT(compared, 27);
    cel_dra_reuse_free(&reuse);
    cel_env_free(env);
}

/* A step ordering a capacity against a constant quantity keeps the order
 * of the last capacity text it ordered: devices of the same, other and
 * missing capacities in turn, under each release's parse rules, answer as
 * the full conversion, also when a second selector reads the value. */
UNIT_TEST(remembered_capacity_order_answers_as_full_conversion)
{
    static const char *const caps[] = {"8Gi", "8Gi",   "1Gi", "1024Mi", "8Gi", NULL,
                                       "8Gi", "1.5Gi", "0",   "1Gi",    "1Gi", "8589934592"};
    static const char *const sels[] = {
        "device.capacity[\"gpu.example.com\"].mem.isGreaterThan(quantity(\"1Gi\"))",
        "device.capacity[\"gpu.example.com\"].mem.compareTo(quantity(\"1Gi\")) >= 0",
        "device.capacity[\"gpu.example.com\"].mem.isLessThan(quantity(\"1Gi\")) || "
        "device.capacity[\"gpu.example.com\"].mem.compareTo(quantity(\"8Gi\")) == 0",
    };
    const char *again = "device.capacity[\"gpu.example.com\"].mem.compareTo(quantity(\"1536Mi\")) < 0";
    cel_env *env = cel_dra_env_new(NULL);
    cel_program *q = NULL;
    CHECK(!cel_dra_compile(env, again, strlen(again), &q));
    cel_dra_reuse reuse = {0};
    int compared = 0;
    for (size_t s = 0; s < sizeof sels / sizeof sels[0]; s++) {
        cel_program *p = NULL;
        CHECK(!cel_dra_compile(env, sels[s], strlen(sels[s]), &p));
        for (size_t i = 0; i < 2 * sizeof caps / sizeof caps[0]; i++) {
            size_t at = i % (sizeof caps / sizeof caps[0]);
            cel_dra_convert how = {.quantity_rules = i & 1 ? DRA_QUANTITY_RULES_138 : DRA_QUANTITY_RULES_137};
            char dev[256];
            if (caps[at])
                snprintf(dev, sizeof dev, "{\"capacity\": {\"x\": {\"value\": \"1\"}, \"mem\": {\"value\": \"%s\"}}}",
                         caps[at]);
            else
                snprintf(dev, sizeof dev, "{\"capacity\": {\"x\": {\"value\": \"1\"}, \"mem\": {}}}");
            json_t *j = json_loads(dev, 0, NULL);
            CHECK(j != NULL);
            dra_arena scratch = DRA_ARENA_INIT;
            cel_dra_device *full = cel_dra_device_build_as(j, "gpu.example.com", &scratch, &how);
            dra_arena_free(&scratch);
            dra_slice_packs packs = {0};
            cel_dra_device *pk = from_packed(j, "gpu.example.com", &how, &packs, &reuse);
            (void)cel_dra_device_value(full);
            char b[512], k[512];
            answer(p, full, b, sizeof b);
            answer(p, pk, k, sizeof k);
            CHECK_STR(k, b);
            answer(q, full, b, sizeof b); /* the value itself, after the memo answered */
            answer(q, pk, k, sizeof k);
            CHECK_STR(k, b);
            compared++;
            cel_dra_device_drop(pk, &reuse);
            dra_slice_packs_free(&packs);
            cel_dra_device_free(full);
            json_decref(j);
        }
        cel_program_free(p);
    }
    CHECK_INT(compared, 72);
    cel_program_free(q);
    cel_dra_reuse_free(&reuse);
    cel_env_free(env);
}

UNIT_MAIN()
