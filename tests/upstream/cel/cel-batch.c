/* cel-batch: the project's CEL behind the differential suite's protocol,
 * the twin of `upstream-cel batch` (tests/upstream/cmd/upstream-cel/batch.go; the driver is diff/).
 *
 * One JSON request per line on stdin:
 *   {"expr": "...", "gates": "G=B,...", "driver": "...", "device": {v1 Device}}
 * one JSON response per line on stdout:
 *   {"stored": R, "new": R, "eval": E}
 * R is what `dra-select check` computes for the selector in the
 * StoredExpressions (scheduler) or NewExpressions (API validation)
 * environment: {"type": T, "min": N, "max": N} or {"error": "..."}.
 * E is what `dra-select eval` computes with `device` bound:
 * {"value": "...", "cost": N}, {"error": "...", "cost": N}, or
 * {"compile": "..."}.  Values are in CEL syntax with map entries ordered
 * by their key's text (the peer cannot know cel-go's insertion order).
 * The selector is also matched on the device as dra-alloc holds it, packed
 * as text (through_packed): an answer of that path other than the
 * evaluation's turns E into an error naming both.
 *
 * The gates are those of the release DRA_KUBERNETES_VERSION names (1.36,
 * 1.37, 1.38), else 1.37's: the release whose upstream-cel answers.
 *
 * Exit: 0, or 2 on a malformed request (with its line number) or an
 * unknown release. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "base/buf.h"
#include "cel/dra.h"
#include "model/features.h"
#include "model/packed.h"
#include "select/select.h"

static void put_canonical(const cel_value *v, dra_buf *b);

typedef struct kv {
    char *k, *v;
} kv;

static int cmp_kv(const void *a, const void *b)
{
    return strcmp(((const kv *)a)->k, ((const kv *)b)->k);
}

static char *canonical(const cel_value *v)
{
    dra_buf b = DRA_BUF_INIT;
    put_canonical(v, &b);
    return dra_buf_detach(&b);
}

/* cel_value_format, with map entries sorted by key text. */
static void put_canonical(const cel_value *v, dra_buf *b)
{
    if (v->kind == CEL_LIST) {
        dra_buf_putc(b, '[');
        for (size_t i = 0; i < v->v.list->n; i++) {
            if (i)
                dra_buf_puts(b, ", ");
            put_canonical(&cel_list_items(v->v.list)[i], b);
        }
        dra_buf_putc(b, ']');
    } else if (v->kind == CEL_MAP) {
        size_t n = v->v.map->n;
        kv *e = dra_xcalloc(n ? n : 1, sizeof *e);
        for (size_t i = 0; i < n; i++) {
            e[i].k = canonical(&v->v.map->keys[i]);
            e[i].v = canonical(&v->v.map->vals[i]);
        }
        qsort(e, n, sizeof *e, cmp_kv);
        dra_buf_putc(b, '{');
        for (size_t i = 0; i < n; i++) {
            dra_buf_printf(b, "%s%s: %s", i ? ", " : "", e[i].k, e[i].v);
            free(e[i].k);
            free(e[i].v);
        }
        dra_buf_putc(b, '}');
        free(e);
    } else if (v->kind == CEL_OPTIONAL && v->v.opt) {
        dra_buf_puts(b, "optional.of(");
        put_canonical(v->v.opt, b);
        dra_buf_putc(b, ')');
    } else {
        cel_value_format(v, b);
    }
}

/* The selector verdict of `dra-select check` in one environment. */
static json_t *check(cel_env *env, const char *expr, size_t len)
{
    cel_program *p = NULL;
    dra_err *e = cel_dra_compile(env, expr, len, &p);
    if (e) {
        json_t *r = json_pack("{ss}", "error", e->msg);
        dra_err_free(e);
        return r;
    }
    uint64_t lo, hi;
    cel_program_estimated_cost(p, &lo, &hi);
    json_t *r =
        json_pack("{ss sI sI}", "type", cel_program_result_type_str(p), "min", (json_int_t)lo, "max", (json_int_t)hi);
    /* Costs past INT64_MAX (unknown sizes: UINT64_MAX) travel as text. */
    if (lo > INT64_MAX)
        json_object_set_new(r, "min", json_integer(-1));
    if (hi > INT64_MAX)
        json_object_set_new(r, "max", json_integer(-1));
    cel_program_free(p);
    return r;
}

/* The value of `dra-select eval` with `device` bound to d (or unbound). */
static json_t *eval(const dra_features *f, const char *expr, const dra_sel_device *d)
{
    dra_sel_eval ev;
    dra_sel_eval_init(&ev, f);
    if (d)
        dra_sel_eval_set_device(&ev, d);
    cel_program *p = NULL;
    json_t *r;
    dra_err *e = dra_sel_eval_compile(&ev, expr, &p);
    if (e) {
        r = json_pack("{ss}", "compile", e->msg);
        dra_err_free(e);
    } else {
        cel_value v = dra_sel_eval_run(&ev, p, NULL);
        if (v.kind == CEL_ERROR) {
            char *t = dra_xasprintf("%s%s", v.v.err, cel_dra_runtime_hint(ev.release, v.v.err));
            r = json_pack("{ss}", "error", t);
            free(t);
        } else {
            char *t = canonical(&v);
            r = json_pack("{ss}", "value", t);
            free(t);
        }
        json_object_set_new(r, "cost", json_integer((json_int_t)ev.cost));
    }
    cel_program_free(p);
    dra_sel_eval_free(&ev);
    return r;
}

/* The selector on the device as dra-alloc meets it: its slice packed
 * (model/packed.h), the device built from its text and the facts packed
 * with it, matched by the allocator's CEL engine (alloc/cel_eval.c
 * match_text).  Its answer must be the evaluation's (r): the same bool,
 * the same error, an error for any other value.  When it is not, r's
 * answer becomes an error naming both, which the peer's answer then
 * differs from.  Skipped when either side does not compile. */
static void through_packed(const dra_features *f, const char *expr, size_t len, const char *driver,
                           const json_t *device, json_t *r)
{
    if (json_object_get(r, "compile"))
        return;
    dra_selector_eval ev = dra_cel_selector_eval_new(f);
    void *prog = NULL;
    dra_err *e = ev.compile(ev.ctx, expr, len, &prog);
    if (e) {
        dra_err_free(e);
        dra_cel_selector_eval_free(&ev);
        return;
    }
    json_t *slice = json_pack("{s:{s:s,s:[O]}}", "spec", "driver", driver, "devices", device);
    dra_slice_packs packs = {0};
    dra_slice_pack(&packs, slice);
    json_decref(slice);
    const char *text = dra_packed_next(packs.v[0], NULL);
    void *cache = NULL;
    bool matched = false;
    e = ev.match_text(ev.ctx, prog, driver, text, strlen(text), f, &cache, &matched);
    const char *value = json_string_value(json_object_get(r, "value"));
    const char *error = json_string_value(json_object_get(r, "error"));
    bool same;
    if (error)
        same = e && !strcmp(e->msg, error);
    else if (value && (!strcmp(value, "true") || !strcmp(value, "false")))
        same = !e && matched == !strcmp(value, "true");
    else
        same = e != NULL;
    if (!same) {
        const char *got = e ? e->msg : matched ? "true" : "false", *want = error ? error : value ? value : "?";
        char *t = dra_xasprintf("the allocator's packed path answers %s%s, the evaluation %s%s", e ? "error " : "", got,
                                error ? "error " : "", want);
        json_object_del(r, "value");
        json_object_set_new(r, "error", json_string(t));
        free(t);
    }
    dra_err_free(e);
    ev.free_device_cache(ev.ctx, cache);
    ev.free_prog(ev.ctx, prog);
    dra_cel_selector_eval_free(&ev);
    dra_slice_packs_free(&packs);
}

static json_t *one(json_t *req, dra_release rel, const char *default_gates, char **why)
{
    const char *expr = json_string_value(json_object_get(req, "expr"));
    size_t len = json_string_length(json_object_get(req, "expr"));
    const char *gates = json_string_value(json_object_get(req, "gates"));
    const char *driver = json_string_value(json_object_get(req, "driver"));
    json_t *device = json_object_get(req, "device");
    if (!expr) {
        *why = dra_xstrdup("no \"expr\" string");
        return NULL;
    }
    dra_features f;
    dra_features_release(&f, rel);
    dra_err *e = default_gates ? dra_features_parse(&f, default_gates) : NULL;
    if (!e && gates)
        e = dra_features_parse(&f, gates);
    if (e) {
        *why = dra_xstrdup(e->msg);
        dra_err_free(e);
        return NULL;
    }
    cel_dra_options o = {.consumable_capacity = dra_feature_enabled(&f, DRA_FEATURE_CONSUMABLE_CAPACITY),
                         .list_type_attributes = dra_feature_enabled(&f, DRA_FEATURE_LIST_TYPE_ATTRIBUTES),
                         .release = rel};
    cel_env *stored = cel_dra_env_new(&o);
    o.new_expressions = true;
    cel_env *fresh = cel_dra_env_new(&o);

    dra_sel_device d = {.driver = driver ? driver : "", .pool = "pool", .device = device};
    const char *name = json_string_value(json_object_get(device, "name"));
    d.name = name ? name : "";
    d.id = dra_xasprintf("%s/%s/%s", d.driver, d.pool, d.name);

    json_t *ev = eval(&f, expr, json_is_object(device) ? &d : NULL);
    if (json_is_object(device))
        through_packed(&f, expr, len, d.driver, device, ev);
    json_t *r = json_pack("{so so so}", "stored", check(stored, expr, len), "new", check(fresh, expr, len), "eval", ev);
    dra_sel_device_release(&d);
    free(d.id);
    cel_env_free(stored);
    cel_env_free(fresh);
    return r;
}

int main(int argc, char **argv)
{
    const char *gates = argc > 1 ? argv[1] : NULL;
    dra_release rel = DRA_RELEASE_DEFAULT;
    const char *v = getenv("DRA_KUBERNETES_VERSION");
    if (v && *v) {
        dra_err *e = dra_release_parse(v, &rel);
        if (e) {
            fprintf(stderr, "cel-batch: DRA_KUBERNETES_VERSION: %s\n", e->msg);
            dra_err_free(e);
            return 2;
        }
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    for (size_t lineno = 1; (n = getline(&line, &cap, stdin)) > 0; lineno++) {
        json_error_t jerr;
        json_t *req = json_loadb(line, (size_t)n, JSON_ALLOW_NUL, &jerr);
        char *why = NULL;
        json_t *r = req ? one(req, rel, gates, &why) : NULL;
        json_decref(req);
        if (!r) {
            fprintf(stderr, "cel-batch: line %zu: %s\n", lineno, why ? why : jerr.text);
            free(why);
            free(line);
            return 2;
        }
        char *s = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
        json_decref(r);
        if (!s || printf("%s\n", s) < 0 || fflush(stdout) != 0) {
            fprintf(stderr, "cel-batch: write failed\n");
            free(s);
            free(line);
            return 3;
        }
        free(s);
    }
    free(line);
    return 0;
}
