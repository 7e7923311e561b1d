/* CEL selector evaluation benchmark: nanoseconds per device evaluation and
 * heap allocations per evaluation (counted by wrapping malloc/calloc/realloc
 * at link time: -Wl,--wrap=malloc,...; see bench-cel.sh).
 *
 *   cel_bench ITERATIONS [SELECTOR [cx]]
 * (SELECTOR: that one alone, and no conversion line; cx: with conversion only,
 * ITERATIONS devices, e.g. to count instructions under callgrind)
 * prints one line per selector: "c <name> <ns/eval> <allocations/eval> <result>"
 * (the device converted once), then one per selector with the conversion
 * included, as dra-alloc pays it for a device it meets for the first time:
 * "cx <name> <ns/device> <allocations/device>" (from the device's compact
 * JSON text and the facts its packed slice holds with it, as the allocator
 * meets a packed slice's device: build, match, drop; see device_from_text;
 * the NDEV devices of one packed slice in turn, named apart as
 * scheduler_perf's are, not one device's text again and again),
 * and "ct <name> <ns/device>" for the same through a jansson tree of the
 * text (the tools' path before they built devices from text), then
 * "conv device <ns/device> <allocations/device> <bytes/device>" for
 * converting the device alone, in full (build, read its value, free). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cel/dra.h"
#include "io/jparse.h"
#include "io/json.h"
#include "model/packed.h"

static size_t allocations;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n)
{
    allocations++;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m)
{
    allocations++;
    return __real_calloc(n, m);
}
void *__wrap_realloc(void *p, size_t n)
{
    allocations++;
    return __real_realloc(p, n);
}

/* CPU time of this thread: the machine running the benchmarks is often
 * shared, and waiting for a core is no cost of ours. */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static const struct {
    const char *name, *expr;
} selectors[] = {
    {"driver", "device.driver == \"x\""},
    {"attribute", "device.attributes[\"test-driver.cdi.k8s.io\"].model == \"test\""},
    {"capacity", "device.capacity[\"test-driver.cdi.k8s.io\"].memory.compareTo(quantity(\"1Gi\")) >= 0"},
    {"scheduler_perf", "device.attributes[\"test-driver.cdi.k8s.io\"].driverVersion.major() >= 1 && "
                       "device.capacity[\"test-driver.cdi.k8s.io\"].memory.isGreaterThan(quantity(\"1Mi\"))"},
};

/* A packed device as dra-alloc meets it for a selector (alloc/cel_eval.c
 * c_match_text): built from its text and the facts its slice holds. */
static cel_dra_device *device_from_text(const char *text, size_t len, dra_arena *scratch, cel_dra_reuse *reuse)
{
    static const cel_dra_convert as_1_37 = {0};
    return cel_dra_device_build_packed(text, len, "test-driver.cdi.k8s.io", scratch, &as_1_37, reuse);
}

enum { NDEV = 1024 };

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? atol(argv[1]) : 1000000;
    json_error_t je;
    /* A scheduler_perf test-driver device (test/integration/scheduler_perf/dra). */
    json_t *dev = json_loads("{\"name\": \"device-1\", \"attributes\": {\"driverVersion\": {\"version\": \"1.0.0\"},"
                             " \"model\": {\"string\": \"test\"}}, \"capacity\": {\"memory\": {\"value\": \"8Gi\"}}}",
                             0, &je);
    /* NDEV such devices, device-0 first, as a packed slice holds them
     * (model/packed.c) */
    json_t *devs = json_array();
    for (int i = 0; i < NDEV; i++) {
        json_t *c = json_deep_copy(dev);
        json_object_set_new(c, "name", json_sprintf("device-%d", i));
        json_array_append_new(devs, c);
    }
    json_t *slice = json_pack("{s:{s:s,s:o}}", "spec", "driver", "test-driver.cdi.k8s.io", "devices", devs);
    dra_slice_packs packs = {0};
    dra_slice_pack(&packs, slice);
    json_decref(slice);
    static const char *texts[NDEV];
    static size_t lens[NDEV];
    const char *cur = NULL;
    for (int i = 0; i < NDEV; i++) {
        if (!(cur = dra_packed_next(packs.v[0], cur))) {
            fprintf(stderr, "cel_bench: %d devices packed, not %d\n", i, NDEV);
            return 1;
        }
        texts[i] = cur;
        lens[i] = strlen(cur);
    }
    cel_env *env = cel_dra_env_new(NULL);
    cel_dra_device *d = cel_dra_device_new(dev, "test-driver.cdi.k8s.io");
    int rc = 0;
    const char *only = argc > 2 ? argv[2] : NULL;
    bool cx_only = argc > 3 && !strcmp(argv[3], "cx");
    for (size_t s = 0; s < sizeof selectors / sizeof selectors[0]; s++) {
        if (only && strcmp(only, selectors[s].name))
            continue;
        cel_program *p = NULL;
        dra_err *e = cel_dra_compile(env, selectors[s].expr, strlen(selectors[s].expr), &p);
        if (e) {
            fprintf(stderr, "cel_bench: %s: %s\n", selectors[s].name, e->msg);
            dra_err_free(e);
            rc = 1;
            continue;
        }
        bool matched = false;
        for (int i = 0; i < 1000; i++) /* warm the program's scratch memory */
            dra_err_free(cel_dra_match(p, d, &matched));
        size_t before = allocations;
        double t0 = now_ns();
        size_t hits = 0;
        for (long i = 0; i < (cx_only ? 0 : iterations); i++) {
            e = cel_dra_match(p, d, &matched);
            if (e) {
                fprintf(stderr, "cel_bench: %s: %s\n", selectors[s].name, e->msg);
                dra_err_free(e);
                rc = 1;
                break;
            }
            hits += matched;
        }
        double t1 = now_ns();
        size_t allocs = allocations - before;
        printf("c %s %.1f %.3f %s\n", selectors[s].name, (t1 - t0) / (double)iterations,
               (double)allocs / (double)iterations, hits == (size_t)iterations ? "true" : "false");
        /* The same with the device converted each time from its text (the
         * tools' scratch arena reused), and through a tree as the tools did
         * before building from text: in turns, a quarter at a time. */
        long nx = cx_only ? iterations : iterations / 10 ? iterations / 10 : 1;
        dra_arena xs = DRA_ARENA_INIT;
        cel_dra_reuse reuse = {0}; /* as alloc/cel_eval.c: a device's block for the next */
        double tx = 0, tt = 0;
        size_t ax = 0;
        for (int round = 0; round < (cx_only ? 1 : 4); round++) {
            long n = cx_only ? nx : nx / 4 + (round < nx % 4);
            before = allocations;
            t0 = now_ns();
            for (long i = 0; i < n; i++) {
                cel_dra_device *x = device_from_text(texts[i % NDEV], lens[i % NDEV], &xs, &reuse);
                dra_err_free(cel_dra_match(p, x, &matched));
                cel_dra_device_drop(x, &reuse);
            }
            tx += now_ns() - t0;
            ax += allocations - before;
            t0 = now_ns();
            for (long i = 0; !cx_only && i < n; i++) {
                json_t *tree = dra_json_read_compact(texts[i % NDEV], lens[i % NDEV]);
                cel_dra_device *x = cel_dra_device_build(tree, "test-driver.cdi.k8s.io", &xs);
                dra_err_free(cel_dra_match(p, x, &matched));
                cel_dra_device_free(x);
                json_decref(tree);
            }
            tt += now_ns() - t0;
        }
        printf("cx %s %.1f %.3f\n", selectors[s].name, tx / (double)nx, (double)ax / (double)nx);
        if (!cx_only)
            printf("ct %s %.1f\n", selectors[s].name, tt / (double)nx);
        dra_arena_free(&xs);
        cel_dra_reuse_free(&reuse);
        cel_program_free(p);
    }
    /* Converting a device: ns, heap allocations and bytes held per device
     * (one allocation of the bytes it uses, not an arena block each). */
    long nconv = only ? 0 : iterations / 20 ? iterations / 20 : 1;
    dra_arena scratch = DRA_ARENA_INIT; /* as the tools convert: one scratch arena for all */
    cel_dra_device_free(cel_dra_device_build(dev, "test-driver.cdi.k8s.io", &scratch));
    size_t before = allocations, bytes = 0;
    uintptr_t hold = 0;
    double t0 = now_ns();
    for (long i = 0; i < nconv; i++) {
        cel_dra_device *x = cel_dra_device_build(dev, "test-driver.cdi.k8s.io", &scratch);
        cel_value v = cel_dra_device_value(x); /* the whole `device` map */
        hold ^= (uintptr_t)v.v.map;
        bool single;
        bytes = cel_dra_device_bytes(x, &single);
        cel_dra_device_free(x);
    }
    double t1 = now_ns();
    if (hold == 1)
        puts("");
    if (nconv)
        printf("conv device %.1f %.3f %zu\n", (t1 - t0) / (double)nconv, (double)(allocations - before) / (double)nconv,
               bytes);
    dra_arena_free(&scratch);
    cel_dra_device_free(d);
    cel_env_free(env);
    json_decref(dev);
    dra_slice_packs_free(&packs);
    return rc;
}
