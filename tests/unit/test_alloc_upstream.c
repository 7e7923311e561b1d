/* Upstream's allocator test table, ported as data: every case in
 * tests/data/alloc/upstream/<name>.yaml is run through the engine with the
 * real CEL evaluator and compared the way upstream's RunTestAllocator
 * compares (structured/internal/allocatortesting/allocator_testing.go):
 *
 *   - claims and, for matcher-built results, devices within a claim are
 *     compared as multisets (gomega.ConsistOf); results built as plain
 *     AllocationResult structs (`ordered: true`) are compared in order;
 *   - shareIDs are compared for presence only (upstream replaces the random
 *     value, we derive ours), quantities by value, node selectors without
 *     regard to the order of terms, requirements and values;
 *   - an expected error is a substring of the fatal error or of the
 *     non-fatal "invalid resource pools were encountered" reason;
 *   - `invocations` (expectNumAllocateOneInvocations) is checked on a run
 *     with the bounded-search pruning off, since pruning skips calls on
 *     purpose; the pruned run must give the same outcome.
 *
 * A case file is a YAML stream: one `kind: AllocatorTestCase` document with
 * the expectations, then the Node, DeviceClasses, ResourceSlices and
 * ResourceClaims exactly as upstream builds them (no defaulting: upstream's
 * allocator sees the objects as written).  Claims with status.allocation are
 * in use (upstream's allocatedDevices / shared IDs / consumed capacity).
 * tests/data/alloc/upstream/SKIP lists cases not run, with reasons.
 *
 * DRA_UPSTREAM_CASE=name runs one case and prints the outcome. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "base/buf.h"
#include "io/stream.h"
#include "model/features.h"
#include "model/quantity.h"
#include "unit.h"

static char *data_dir(void)
{
    const char *here = __FILE__; /* tests/unit/test_alloc_upstream.c */
    const char *slash = strrchr(here, '/');
    int dir = slash ? (int)(slash - here) : 0;
    return dra_xasprintf("%.*s%s../data/alloc/upstream", dir, here, dir ? "/" : "");
}

/* ---- normalisation for comparison ---------------------------------------------- */

static int cmp_dump(const void *a, const void *b)
{
    char *x = json_dumps(*(json_t *const *)a, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    char *y = json_dumps(*(json_t *const *)b, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    int c = strcmp(x ? x : "", y ? y : "");
    free(x);
    free(y);
    return c;
}

/* Sort an array in place by canonical text (a multiset compare). */
static void sort_array(json_t *arr)
{
    size_t n = json_array_size(arr);
    if (n < 2)
        return;
    json_t **v = dra_xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(arr, i));
    qsort(v, n, sizeof *v, cmp_dump);
    json_array_clear(arr);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, v[i]);
    free(v);
}

/* Empty arrays and objects, false adminAccess and nulls are the same as
 * absent (Go's nil vs empty slices compare equal in upstream's matchers
 * where it matters, and omitempty drops them on the wire). */
static void drop_empty(json_t *o)
{
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(o, tmp, k, v) {
        if (json_is_null(v) || (json_is_array(v) && !json_array_size(v)) ||
            (json_is_object(v) && !json_object_size(v)) || (!strcmp(k, "adminAccess") && json_is_false(v)))
            json_object_del(o, k);
    }
}

static void canon_quantity(json_t *obj, const char *key, json_t *v)
{
    const char *s = json_string_value(v);
    dra_quantity q;
    dra_err *e = s ? dra_quantity_parse_as(NULL, s, &q) : NULL;
    if (s && !e) {
        char buf[DRA_QUANTITY_STRMAX];
        json_object_set_new(obj, key, json_string(dra_quantity_format_canonical(&q, buf)));
    }
    dra_err_free(e);
}

static json_t *norm_result(const json_t *r)
{
    json_t *o = json_deep_copy(r);
    drop_empty(o);
    if (json_object_get(o, "shareID"))
        json_object_set_new(o, "shareID", json_string("*"));
    json_t *cc = json_object_get(o, "consumedCapacity");
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(cc, tmp, k, v)
        canon_quantity(cc, k, v);
    return o;
}

static json_t *norm_selector(const json_t *sel)
{
    if (!sel || json_is_null(sel))
        return json_null();
    json_t *o = json_deep_copy(sel);
    json_t *terms = json_object_get(o, "nodeSelectorTerms");
    size_t i;
    json_t *t;
    json_array_foreach(terms, i, t) {
        static const char *const keys[] = {"matchExpressions", "matchFields"};
        for (int k = 0; k < 2; k++) {
            json_t *reqs = json_object_get(t, keys[k]);
            size_t j;
            json_t *rq;
            json_array_foreach(reqs, j, rq) {
                sort_array(json_object_get(rq, "values"));
                drop_empty(rq);
            }
            sort_array(reqs);
        }
        drop_empty(t);
    }
    sort_array(terms);
    return o;
}

/* One AllocationResult as a comparable value.  ordered: keep result order. */
static json_t *norm_alloc(const json_t *a, bool ordered)
{
    const json_t *dev = json_object_get(a, "devices");
    json_t *results = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(dev, "results"), i, r)
        json_array_append_new(results, norm_result(r));
    if (!ordered)
        sort_array(results);
    json_t *cfg = json_array();
    json_array_foreach(json_object_get(dev, "config"), i, r) {
        json_t *c = json_deep_copy(r);
        drop_empty(c);
        json_array_append_new(cfg, c);
    }
    return json_pack("{s:o, s:o, s:o}", "results", results, "config", cfg, "nodeSelector",
                     norm_selector(json_object_get(a, "nodeSelector")));
}

static char *dump(const json_t *v)
{
    return json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

/* ---- one case ------------------------------------------------------------------- */

typedef struct run_out {
    bool ok;
    char *error;    /* fatal error text or non-fatal reason; NULL if none */
    json_t *allocs; /* array of AllocationResults when ok */
    int64_t invocations;
} run_out;

static void run_out_free(run_out *o)
{
    free(o->error);
    json_decref(o->allocs);
}

/* clang-format off */
static const dra_feature optional_gates[] = {
    DRA_FEATURE_ADMIN_ACCESS,        DRA_FEATURE_PRIORITIZED_LIST,      DRA_FEATURE_RESOURCE_CLAIM_DEVICE_STATUS,
    DRA_FEATURE_DEVICE_TAINTS,       DRA_FEATURE_DEVICE_TAINT_RULES,    DRA_FEATURE_PARTITIONABLE_DEVICES,
    DRA_FEATURE_CONSUMABLE_CAPACITY, DRA_FEATURE_DEVICE_BINDING_CONDITIONS, DRA_FEATURE_LIST_TYPE_ATTRIBUTES,
};
/* clang-format on */

typedef struct objs {
    json_t *node;
    json_t *v[5][256]; /* classes, slices, rules, in use, pending */
    size_t n[5];
} objs;

enum { O_CLASS, O_SLICE, O_RULE, O_USED, O_PEND };

/* packed: the slices as compact text (dra_slice_pack), the run done
 * twice with every parsed device released in between (the answer of the
 * second is checked). */
static void run_case(const objs *ob, const dra_features *f, bool no_prune, bool packed, run_out *out)
{
    memset(out, 0, sizeof *out);
    dra_selector_eval ev = dra_cel_selector_eval_new(f);
    dra_slice_packs packs = {0};
    for (size_t i = 0; packed && i < ob->n[O_SLICE]; i++)
        dra_slice_pack(&packs, ob->v[O_SLICE][i]);
    dra_alloc_world_input in = {ob->v[O_CLASS],
                                ob->n[O_CLASS],
                                ob->v[O_SLICE],
                                packed ? 0 : ob->n[O_SLICE],
                                ob->v[O_RULE],
                                ob->n[O_RULE],
                                ob->v[O_USED],
                                ob->n[O_USED],
                                f,
                                &ev,
                                packed ? &packs : NULL,
                                packed ? 1 : 0};
    dra_alloc_world *w = NULL;
    dra_alloc_result *res = NULL;
    dra_err *e = dra_alloc_world_new(&in, &w);
    dra_alloc_opts ao = {.timeout = 10, .no_prune = no_prune};
    if (!e && packed) {
        e = dra_alloc_run(w, ob->node, ob->v[O_PEND], ob->n[O_PEND], &ao, &res);
        dra_alloc_result_free(res);
        res = NULL;
    }
    if (!e)
        e = dra_alloc_run(w, ob->node, ob->v[O_PEND], ob->n[O_PEND], &ao, &res);
    if (e) {
        out->error = dra_xstrdup(e->msg);
        dra_err_free(e);
    } else {
        out->invocations = dra_alloc_result_stats(res)->invocations;
        out->ok = dra_alloc_result_ok(res);
        if (dra_alloc_result_reason(res))
            out->error = dra_xstrdup(dra_alloc_result_reason(res));
        if (out->ok) {
            out->allocs = json_array();
            for (size_t i = 0; i < ob->n[O_PEND]; i++)
                json_array_append_new(out->allocs, dra_alloc_result_allocation(res, i));
        }
    }
    dra_alloc_result_free(res);
    dra_alloc_world_free(w);
    dra_cel_selector_eval_free(&ev);
    dra_slice_packs_free(&packs);
}

/* Compare one run with the expectation; on mismatch append why to b. */
static bool matches(const json_t *expect, const run_out *got, dra_buf *b)
{
    const char *want_err = json_string_value(json_object_get(expect, "error"));
    const json_t *want = json_object_get(expect, "results");
    size_t nwant = json_array_size(want);
    if (want_err) {
        if (got->error && strstr(got->error, want_err) && !got->ok)
            return true;
        dra_buf_printf(b, "want error containing \"%s\", got %s%s%s", want_err, got->ok ? "success" : "no success",
                       got->error ? ", error: " : "", got->error ? got->error : "");
        return false;
    }
    if (got->error) {
        dra_buf_printf(b, "want no error, got: %s", got->error);
        return false;
    }
    if (nwant == 0) {
        if (!got->ok || json_array_size(got->allocs) == 0)
            return true;
        char *s = dump(got->allocs);
        dra_buf_printf(b, "want unsatisfiable, got %s", s);
        free(s);
        return false;
    }
    if (!got->ok) {
        dra_buf_puts(b, "want success, got unsatisfiable");
        return false;
    }
    /* ConsistOf over claims: sort both sides' canonical forms. */
    json_t *ws = json_array(), *gs = json_array();
    size_t i;
    json_t *a;
    json_array_foreach(want, i, a) {
        bool ordered = json_is_true(json_object_get(a, "ordered"));
        json_array_append_new(ws, norm_alloc(a, ordered));
        json_t *g = json_array_get(got->allocs, i);
        if (g)
            json_array_append_new(gs, norm_alloc(g, ordered));
    }
    for (; i < json_array_size(got->allocs); i++)
        json_array_append_new(gs, norm_alloc(json_array_get(got->allocs, i), false));
    /* Claims may match in another order only when they are equal in kind;
     * upstream's ConsistOf allows any permutation, so compare sorted. */
    sort_array(ws);
    sort_array(gs);
    bool eq = json_equal(ws, gs);
    if (!eq) {
        char *x = dump(ws), *y = dump(gs);
        dra_buf_printf(b, "results differ:\n    want %s\n    got  %s", x, y);
        free(x);
        free(y);
    }
    json_decref(ws);
    json_decref(gs);
    return eq;
}

/* Returns 1 pass, 0 fail, -1 setup error (counted as fail). */
static int one_case(const char *dir, const char *file, const char *name, dra_buf *why)
{
    char *path = dra_xasprintf("%s/%s", dir, file);
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_read_path(&set, path);
    free(path);
    if (e) {
        dra_buf_printf(why, "read: %s", e->msg);
        dra_err_free(e);
        dra_objset_free(&set);
        return -1;
    }
    objs ob = {0};
    const json_t *meta = NULL;
    for (size_t i = 0; i < set.n; i++) {
        json_t *o = set.v[i].json;
        const char *kind = json_string_value(json_object_get(o, "kind"));
        int slot = -1;
        if (!kind)
            continue;
        if (!strcmp(kind, "AllocatorTestCase"))
            meta = o;
        else if (!strcmp(kind, "Node"))
            ob.node = o;
        else if (!strcmp(kind, "DeviceClass"))
            slot = O_CLASS;
        else if (!strcmp(kind, "ResourceSlice"))
            slot = O_SLICE;
        else if (!strcmp(kind, "DeviceTaintRule"))
            slot = O_RULE;
        else if (!strcmp(kind, "ResourceClaim"))
            slot = json_object_get(json_object_get(o, "status"), "allocation") ? O_USED : O_PEND;
        if (slot >= 0 && ob.n[slot] < 256)
            ob.v[slot][ob.n[slot]++] = o;
    }
    int rc = 1;
    if (!meta || !ob.node) {
        dra_buf_puts(why, "no AllocatorTestCase or Node document");
        dra_objset_free(&set);
        return -1;
    }
    dra_features f;
    dra_features_default(&f);
    for (size_t i = 0; i < sizeof optional_gates / sizeof *optional_gates; i++)
        f.on[optional_gates[i]] = false; /* upstream's Features{}: everything off */
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(meta, "gates"), i, g) {
        dra_feature id;
        if (!json_string_value(g) || !dra_feature_lookup(json_string_value(g), &id)) {
            dra_buf_printf(why, "unknown gate %s", json_string_value(g) ? json_string_value(g) : "?");
            dra_objset_free(&set);
            return -1;
        }
        f.on[id] = true;
    }
    const json_t *expect = json_object_get(meta, "expect");
    run_out pruned, full, packed;
    run_case(&ob, &f, false, false, &pruned);
    run_case(&ob, &f, true, false, &full);
    run_case(&ob, &f, false, true, &packed);
    if (getenv("DRA_UPSTREAM_CASE")) {
        char *s = full.allocs ? json_dumps(full.allocs, JSON_INDENT(2)) : NULL;
        fprintf(stderr, "# %s: ok=%d error=%s invocations=%lld\n%s\n", name, full.ok, full.error ? full.error : "-",
                (long long)full.invocations, s ? s : "");
        free(s);
    }
    if (!matches(expect, &pruned, why))
        rc = 0;
    else if (!matches(expect, &full, why)) {
        dra_buf_puts(why, " (with pruning off)");
        rc = 0;
    } else if (!matches(expect, &packed, why)) {
        dra_buf_puts(why, " (devices packed)");
        rc = 0;
    } else if (packed.invocations != pruned.invocations) {
        dra_buf_printf(why, "devices packed: %lld invocations, unpacked %lld", (long long)packed.invocations,
                       (long long)pruned.invocations);
        rc = 0;
    }
    const json_t *inv = json_object_get(meta, "invocations");
    if (rc == 1 && json_is_integer(inv) && json_integer_value(inv) != full.invocations) {
        dra_buf_printf(why, "allocateOne invocations: want %lld, got %lld", (long long)json_integer_value(inv),
                       (long long)full.invocations);
        rc = 0;
    }
    run_out_free(&pruned);
    run_out_free(&full);
    run_out_free(&packed);
    dra_objset_free(&set);
    return rc;
}

/* ---- SKIP list -------------------------------------------------------------------- */

static bool skipped(const char *skip, const char *name)
{
    if (!skip)
        return false;
    size_t n = strlen(name);
    for (const char *p = skip; p && *p;) {
        if (!strncmp(p, name, n) && p[n] == ':')
            return true;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return false;
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return NULL;
    dra_buf b = DRA_BUF_INIT;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
        dra_buf_append(&b, chunk, n);
    fclose(fp);
    char *out = dra_xstrdup(dra_buf_str(&b));
    dra_buf_free(&b);
    return out;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

UNIT_TEST(upstream_allocator_table)
{
    char *dir = data_dir();
    char *skip_path = dra_xasprintf("%s/SKIP", dir);
    char *skip = slurp(skip_path);
    free(skip_path);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) {
        free(dir);
        free(skip);
        return;
    }
    char **files = NULL;
    size_t nfiles = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l > 5 && !strcmp(de->d_name + l - 5, ".yaml")) {
            files = dra_xrealloc(files, (nfiles + 1) * sizeof *files);
            files[nfiles++] = dra_xstrdup(de->d_name);
        }
    }
    closedir(d);
    qsort(files, nfiles, sizeof *files, cmp_name);
    const char *only = getenv("DRA_UPSTREAM_CASE");
    int pass = 0, fail = 0, skipn = 0;
    for (size_t i = 0; i < nfiles; i++) {
        char *name = dra_xstrndup(files[i], strlen(files[i]) - 5);
        if (only && strcmp(only, name) != 0) {
            free(name);
            continue;
        }
        if (skipped(skip, name)) {
            skipn++;
            free(name);
            continue;
        }
        dra_buf why = DRA_BUF_INIT;
        int rc = one_case(dir, files[i], name, &why);
        if (rc == 1) {
            pass++;
        } else {
            fail++;
            fprintf(stderr, "  upstream case %s: %s\n", name, dra_buf_str(&why) ? dra_buf_str(&why) : "");
        }
        dra_buf_free(&why);
        free(name);
    }
    printf("# upstream allocator cases: %d passed, %d failed, %d skipped (of %zu files)\n", pass, fail, skipn, nfiles);
    CHECK_INT(fail, 0);
    CHECK(pass > 0);
    for (size_t i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    free(skip);
    free(dir);
}

UNIT_MAIN()
