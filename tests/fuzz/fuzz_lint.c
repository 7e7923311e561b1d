/* Fuzz `dra-slice lint` (slice/lint.h) over object streams.
 *
 * An input whose first byte is even is text, read as YAML/JSON; an odd one
 * describes pools of ResourceSlices, so that generations and counts reach
 * every shape validation refuses: per slice a pool (of three), a version
 * (v1 or v1beta1), a generation and a resourceSliceCount each an int64 (edges
 * likely), a string, a real or absent, and a few devices, counter sets and
 * counter uses.  Either way lint runs on the whole set and through the
 * streaming path (dra_lint_keep on a second read), which must answer the
 * same, line for line; nothing may crash or leak. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/stream.h"
#include "slice/lint.h"

typedef struct bytes {
    const uint8_t *p;
    size_t n;
} bytes;

static uint8_t u8(bytes *b)
{
    if (!b->n)
        return 0;
    b->n--;
    return *b->p++;
}

static int64_t i64(bytes *b)
{
    static const int64_t edges[] = {0, 1, -1, 2, 3, INT64_MAX, INT64_MIN, INT64_MAX - 1, 128, 129};
    uint8_t k = u8(b);
    if (k < 200)
        return edges[k % 10];
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | u8(b);
    return (int64_t)v;
}

/* An integer field, or the same of another JSON type, or nothing. */
static void set_number(json_t *o, const char *key, bytes *b)
{
    uint8_t how = u8(b) % 8;
    int64_t v = i64(b);
    if (how == 5)
        json_object_set_new(o, key, json_sprintf("%lld", (long long)v));
    else if (how == 6)
        json_object_set_new(o, key, json_real((double)v * 1e6));
    else if (how != 7)
        json_object_set_new(o, key, json_integer(v));
}

static json_t *slice_of(bytes *b, int i)
{
    static const char *const pools[] = {"p", "q", ""};
    uint8_t f = u8(b);
    bool beta = f & 1;
    json_t *pool = json_pack("{s:s}", "name", pools[(f >> 1) % 3]);
    set_number(pool, "generation", b);
    set_number(pool, "resourceSliceCount", b);
    json_t *spec = json_pack("{s:s,s:o}", "driver", "d.example.com", "pool", pool);
    if (f & 8)
        json_object_set_new(spec, "nodeName", json_string("n"));
    else
        json_object_set_new(spec, "allNodes", json_true());
    size_t ndev = u8(b) % 4, nsets = f & 16 ? 1 + u8(b) % 2 : 0;
    if (nsets) {
        json_t *sets = json_array();
        for (size_t k = 0; k < nsets; k++)
            json_array_append_new(sets, json_pack("{s:s,s:{s:{s:s}}}", "name", k ? "cs1" : "cs0", "counters", "mem",
                                                  "value", u8(b) & 1 ? "80Gi" : "1"));
        json_object_set_new(spec, "sharedCounters", sets);
    }
    if (ndev) {
        json_t *devs = json_array();
        for (size_t k = 0; k < ndev; k++) {
            uint8_t d = u8(b);
            json_t *dev = json_pack("{s:s+}", "name", "dev-", (const char[]){(char)('0' + d % 4), 0});
            json_t *attrs = json_object();
            if (d & 4)
                json_object_set_new(attrs, d & 8 ? "model" : "index", json_pack("{s:i}", "int", d));
            if (d & 16) {
                json_t *use = json_pack("[{s:s,s:{s:{s:s}}}]", "counterSet", d & 32 ? "cs0" : "cs9", "counters",
                                        d & 64 ? "mem" : "cores", "value", d & 128 ? "96Gi" : "1");
                json_object_set_new(dev, "consumesCounters", use);
            }
            if (beta) { /* v1beta1 keeps the device's fields under `basic` */
                json_t *basic = json_object();
                json_object_set_new(basic, "attributes", attrs);
                json_t *use = json_object_get(dev, "consumesCounters");
                if (use) {
                    json_object_set(basic, "consumesCounters", use);
                    json_object_del(dev, "consumesCounters");
                }
                json_object_set_new(dev, "basic", basic);
            } else {
                json_object_set_new(dev, "attributes", attrs);
            }
            json_array_append_new(devs, dev);
        }
        json_object_set_new(spec, "devices", devs);
    }
    char name[32];
    snprintf(name, sizeof name, "s%d", i);
    return json_pack("{s:s,s:s,s:{s:s},s:o}", "apiVersion", beta ? "resource.k8s.io/v1beta1" : "resource.k8s.io/v1",
                     "kind", "ResourceSlice", "metadata", "name", name, "spec", spec);
}

/* The input as a stream of JSON documents (the structured form) or itself. */
static char *input_text(const uint8_t *data, size_t size, size_t *len)
{
    if (size == 0 || !(data[0] & 1)) {
        char *t = malloc(size ? size : 1);
        memcpy(t, data, size);
        *len = size;
        return t;
    }
    bytes b = {data + 1, size - 1};
    size_t n = 1 + u8(&b) % 12;
    char *out = NULL;
    size_t olen = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *s = slice_of(&b, (int)i);
        char *t = json_dumps(s, JSON_COMPACT);
        json_decref(s);
        size_t tl = strlen(t);
        out = realloc(out, olen + tl + 2);
        memcpy(out + olen, t, tl);
        olen += tl;
        out[olen++] = '\n';
        free(t);
    }
    *len = olen;
    return out;
}

static char *report_text(const dra_lint_report *r)
{
    size_t len = 0;
    char *out = calloc(1, 1);
    for (size_t i = 0; i < r->n; i++) {
        char *line = dra_lint_format(&r->v[i]);
        size_t l = strlen(line);
        out = realloc(out, len + l + 2);
        memcpy(out + len, line, l);
        len += l;
        out[len++] = '\n';
        out[len] = '\0';
        free(line);
    }
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t len;
    char *text = input_text(data, size, &len);

    dra_objset whole = DRA_OBJSET_INIT;
    dra_lint_report r1 = DRA_LINT_REPORT_INIT;
    size_t skipped1 = 0;
    dra_err *e1 = dra_read_mem(&whole, "fuzz", text, len);
    bool read_ok = e1 == NULL;
    if (read_ok)
        e1 = dra_slice_lint(&whole, &r1, &skipped1);

    if (read_ok) {
        /* the streaming path: each object of a second read through
         * dra_lint_keep, as `dra-slice lint` reads */
        dra_objset again = DRA_OBJSET_INIT, kept_set = DRA_OBJSET_INIT;
        dra_lint_kept kept = {.set = &kept_set};
        dra_err *e2 = dra_read_mem(&again, "fuzz", text, len);
        for (size_t i = 0; !e2 && i < again.n; i++)
            e2 = dra_lint_keep(&kept, &again.v[i]);
        dra_lint_report r2 = DRA_LINT_REPORT_INIT;
        size_t skipped2 = 0;
        if (!e2)
            e2 = dra_slice_lint_kept(&kept, &r2, &skipped2);
        if ((e1 == NULL) != (e2 == NULL) || skipped1 != skipped2)
            abort();
        char *t1 = report_text(&r1), *t2 = report_text(&r2);
        if (strcmp(t1, t2) != 0)
            abort();
        free(t1);
        free(t2);
        dra_problems_free(&r2);
        dra_err_free(e2);
        dra_lint_kept_free(&kept);
        dra_objset_free(&kept_set);
        dra_objset_free(&again);
    }
    dra_problems_free(&r1);
    dra_err_free(e1);
    dra_objset_free(&whole);
    free(text);
    return 0;
}
