/* Unit tests of src/common/select: gathering, selections, explain, eval,
 * lint and the REPL session engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "select/select.h"
#include "select/session.h"
#include "unit.h"

static const char slices[] =
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: a-old}\n"
    "spec:\n  driver: gpu.example.com\n  nodeName: node-a\n  pool: {name: a, generation: 1, resourceSliceCount: 1}\n"
    "  devices:\n  - name: old\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: a-new}\n"
    "spec:\n  driver: gpu.example.com\n  nodeName: node-a\n  pool: {name: a, generation: 2, resourceSliceCount: 1}\n"
    "  devices:\n"
    "  - name: gpu-0\n    attributes:\n      model: {string: A100}\n      driverVersion: {version: 1.2.0}\n"
    "    capacity:\n      memory: {value: 40Gi}\n"
    "  - name: gpu-1\n    attributes:\n      model: {string: H100}\n      driverVersion: {version: 2.0.0}\n"
    "    capacity:\n      memory: {value: 80Gi}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: b}\n"
    "spec:\n  driver: net.example.com\n  nodeName: node-b\n  pool: {name: b, generation: 0, resourceSliceCount: 2}\n"
    "  devices:\n  - name: eth0\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\n"
    "spec:\n  selectors:\n  - cel: {expression: 'device.driver == \"gpu.example.com\"'}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: by-model}\n"
    "spec:\n  selectors:\n  - cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"H100\"'}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ns}\n"
    "spec:\n  devices:\n    requests:\n    - name: r\n      exactly:\n        deviceClassName: gpu\n"
    "        selectors:\n        - cel: {expression: 'device.attributes[\"gpu.example.com\"].driverVersion == "
    "\"1.2.0\"'}\n";

static dra_err *load(dra_sel_input *in)
{
    memset(in, 0, sizeof *in);
    dra_err *e = dra_read_mem(&in->set, "test.yaml", slices, sizeof slices - 1);
    if (e)
        return e;
    dra_load_opts lo = {.skip_unknown = true};
    e = dra_load(&in->set, &lo, &in->model);
    return e ? e : dra_sel_gather(&in->model, NULL, &in->devs);
}

UNIT_TEST(gather_newest_generation_and_incomplete_note)
{
    dra_sel_input in;
    dra_err *e = load(&in);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(in.devs.n, 3);
    CHECK_STR(in.devs.v[0].id, "gpu.example.com/a/gpu-0");
    CHECK_STR(in.devs.v[1].id, "gpu.example.com/a/gpu-1");
    CHECK_STR(in.devs.v[2].id, "net.example.com/b/eth0");
    CHECK_STR(in.devs.v[2].node, "node-b");
    CHECK(dra_sel_find(&in.devs, "gpu.example.com/a/old") == NULL);
    CHECK_INT(in.devs.nnotes, 1);
    CHECK(strstr(in.devs.notes[0], "pool net.example.com/b is incomplete (1 of 2") != NULL);
    json_t *j = dra_sel_device_json(&in.devs.v[0]);
    CHECK_STR(json_string_value(json_object_get(j, "pool")), "a");
    CHECK_STR(json_string_value(json_object_get(json_object_get(j, "device"), "name")), "gpu-0");
    json_decref(j);
    dra_sel_input_free(&in);
}

UNIT_TEST(selection_class_and_expr_with_explain)
{
    dra_sel_input in;
    dra_err_free(load(&in));
    dra_selection s;
    dra_selection_init(&s, NULL);
    CHECK(dra_selection_add_class(&s, &in.model, "gpu") == NULL);
    CHECK(dra_selection_add_expr(&s, "device.attributes[\"gpu.example.com\"].model == \"H100\"") == NULL);
    dra_sel_verdict v;
    dra_buf b = DRA_BUF_INIT;
    dra_selection_match(&s, &in.devs.v[0], &v);
    CHECK(!v.matched);
    CHECK_INT(v.failed, 1);
    CHECK(v.error == NULL);
    dra_sel_explain_text(&s, &in.devs.v[0], &v, &b);
    CHECK_STR(dra_buf_str(&b), "gpu.example.com/a/gpu-0: -e #0: false");
    dra_sel_verdict_clear(&v);
    dra_selection_match(&s, &in.devs.v[1], &v);
    CHECK(v.matched);
    dra_sel_verdict_clear(&v);
    dra_buf_reset(&b);
    dra_selection_match(&s, &in.devs.v[2], &v);
    dra_sel_explain_text(&s, &in.devs.v[2], &v, &b);
    CHECK_STR(dra_buf_str(&b), "net.example.com/b/eth0: class gpu selector #0: false");
    dra_sel_verdict_clear(&v);
    dra_buf_free(&b);
    dra_selection_free(&s);
    dra_sel_input_free(&in);
}

UNIT_TEST(selection_runtime_error_has_upstream_hint)
{
    dra_sel_input in;
    dra_err_free(load(&in));
    dra_selection s;
    dra_selection_init(&s, NULL);
    CHECK(dra_selection_add_class(&s, &in.model, "by-model") == NULL);
    dra_sel_verdict v;
    dra_selection_match(&s, &in.devs.v[2], &v);
    CHECK(!v.matched);
    CHECK(v.error != NULL);
    CHECK(v.error && strncmp(v.error, "no such key: model. consider using CEL optional chaining", 56) == 0);
    char *t = dra_sel_runtime_error_text(&s, &in.devs.v[2], &v);
    CHECK(strncmp(t,
                  "class by-model: selector #0 on device net.example.com/b/eth0: CEL runtime error: no such key: model",
                  98) == 0);
    free(t);
    json_t *j = dra_sel_explain_json(&s, &in.devs.v[2], &v);
    CHECK_STR(json_string_value(json_object_get(j, "selector")), "class by-model selector #0");
    CHECK(json_object_get(j, "error") != NULL);
    json_decref(j);
    dra_sel_verdict_clear(&v);
    dra_selection_free(&s);
    dra_sel_input_free(&in);
}

UNIT_TEST(selection_request_and_errors)
{
    dra_sel_input in;
    dra_err_free(load(&in));
    dra_selection s;
    dra_selection_init(&s, NULL);
    dra_err *e = dra_selection_add_request(&s, &in.model, "ns/c", NULL);
    CHECK(e == NULL);
    CHECK_INT(s.n, 2);
    CHECK_STR(s.v[1].label, "request r selector #0");
    dra_err_free(e);
    e = dra_selection_add_request(&s, &in.model, "ns/c", "nope");
    CHECK(e && strstr(e->msg, "has no request \"nope\""));
    dra_err_free(e);
    e = dra_selection_add_request(&s, &in.model, "ns/missing", NULL);
    CHECK(e && strstr(e->msg, "not found"));
    dra_err_free(e);
    e = dra_selection_add_class(&s, &in.model, "missing");
    CHECK(e && !strcmp(e->msg, "device class \"missing\" not found"));
    dra_err_free(e);
    e = dra_selection_add_expr(&s, "device.driver ==");
    CHECK(e && !strncmp(e->msg, "-e #0: CEL compile error: compilation failed: ERROR: <input>:1:17", 65));
    dra_err_free(e);
    e = dra_selection_add_expr(&s, "1");
    CHECK(e && strstr(e->msg, "must evaluate to bool or the unknown type, not int"));
    dra_err_free(e);
    dra_selection_free(&s);
    dra_sel_input_free(&in);
}

UNIT_TEST(eval_vars_device_and_errors)
{
    dra_sel_input in;
    dra_err_free(load(&in));
    dra_sel_eval ev;
    dra_sel_eval_init(&ev, NULL);
    dra_sel_eval_set_device(&ev, &in.devs.v[1]);
    CHECK(dra_sel_eval_add_var(&ev, "n=40") == NULL);
    CHECK(dra_sel_eval_add_var(&ev, "m=device.attributes[\"gpu.example.com\"].model") == NULL);
    dra_err *e = dra_sel_eval_add_var(&ev, "bad");
    CHECK(e != NULL);
    dra_err_free(e);
    cel_program *p = NULL;
    CHECK(dra_sel_eval_compile(&ev, "[n + 2, size(m)]", &p) == NULL);
    cel_value v = dra_sel_eval_run(&ev, p, NULL);
    char *s = cel_value_to_string(&v);
    CHECK_STR(s, "[42, 4]");
    free(s);
    cel_program_free(p);
    CHECK(dra_sel_eval_compile(&ev, "device.attributes[\"gpu.example.com\"].nope", &p) == NULL);
    v = dra_sel_eval_run(&ev, p, NULL);
    CHECK(v.kind == CEL_ERROR);
    cel_program_free(p);
    e = dra_sel_eval_compile(&ev, "n +", &p);
    CHECK(e && strstr(e->msg, " | n +\n | ...^"));
    dra_err_free(e);
    CHECK(dra_sel_uses_device("device.driver == \"x\""));
    CHECK(!dra_sel_uses_device("[1, 2].all(x, x > 0)"));
    CHECK(!dra_sel_uses_device("device.driver =="));
    dra_sel_eval_free(&ev);
    dra_sel_input_free(&in);
}

/* A device whose attribute does not convert fails every evaluation with
 * that error before evaluating, as upstream's DeviceMatches does
 * (dynamic-resource-allocation v0.37.2 cel/compile.go; upstream-cel
 * eval prints the same). */
UNIT_TEST(eval_device_conversion_error)
{
    json_t *dev = json_loads("{\"name\": \"d\", \"attributes\": {\"v\": {\"version\": \"not-a-version\"}}}", 0, NULL);
    dra_sel_device d = {.driver = "x.example.com", .pool = "p", .name = "d", .device = dev, .id = "x.example.com/p/d"};
    dra_sel_eval ev;
    dra_sel_eval_init(&ev, NULL);
    dra_sel_eval_set_device(&ev, &d);
    const char *exprs[] = {"device.driver", "1 + 1"};
    for (size_t i = 0; i < 2; i++) {
        cel_program *p = NULL;
        CHECK(dra_sel_eval_compile(&ev, exprs[i], &p) == NULL);
        cel_value v = dra_sel_eval_run(&ev, p, NULL);
        CHECK(v.kind == CEL_ERROR);
        if (v.kind == CEL_ERROR)
            CHECK_STR(v.v.err, "attribute v: parse semantic version: No Major.Minor.Patch elements found");
        CHECK_INT(ev.cost, 0);
        cel_program_free(p);
    }
    dra_err *e = dra_sel_eval_add_var(&ev, "n=1");
    CHECK(e && !strcmp(e->msg, "attribute v: parse semantic version: No Major.Minor.Patch elements found"));
    dra_err_free(e);
    dra_sel_eval_free(&ev);
    dra_sel_device_release(&d);
    json_decref(dev);
}

/* What expr gives on dev at release rel: the value's kind, a bool's
 * value, an error's text with its runtime hint (the caller frees it), and
 * the cost; kind -1 when expr does not compile. */
typedef struct {
    int kind;
    bool b;
    char *err;
    uint64_t cost;
} eval_out;

static eval_out eval_on(json_t *dev, dra_release rel, const char *expr)
{
    eval_out o = {0};
    dra_sel_device d = {.driver = "x.example.com", .pool = "p", .name = "d", .device = dev, .id = "x.example.com/p/d"};
    dra_features f;
    dra_features_release(&f, rel);
    dra_sel_eval ev;
    dra_sel_eval_init(&ev, &f);
    dra_sel_eval_set_device(&ev, &d);
    cel_program *p = NULL;
    dra_err *e = dra_sel_eval_compile(&ev, expr, &p);
    cel_value v = e ? cel_error(e->msg) : dra_sel_eval_run(&ev, p, NULL);
    o.kind = e ? -1 : (int)v.kind;
    o.b = v.kind == CEL_BOOL && v.v.b;
    if (v.kind == CEL_ERROR)
        o.err = dra_xasprintf("%s%s", v.v.err, cel_dra_runtime_hint(ev.release, v.v.err));
    o.cost = ev.cost;
    dra_err_free(e);
    cel_program_free(p);
    dra_sel_eval_free(&ev);
    dra_sel_device_release(&d);
    return o;
}

/* 1.38: an unusable attribute is not `in` its map, and has() or an
 * optional selection of it answers with its error (dynamic-resource-
 * allocation v0.38.0-beta.0 cel/compile.go nameToAttributes.Find returns
 * the error with found false; Contains is found), as the 1.38 peer does. */
UNIT_TEST(eval_1_38_unusable_attribute_presence)
{
    json_t *dev = json_loads("{\"name\": \"d\", \"attributes\": {\"v\": {\"version\": \"x.y\"}, "
                             "\"m\": {\"int\": 1}}}",
                             0, NULL);
    const char *bad = "attribute v: value is invalid or its type is not supported by this version";
    struct {
        const char *expr, *err;
        bool value;
        uint64_t cost;
    } cases[] = {
        {"'v' in device.attributes['x.example.com']", NULL, false, 4},
        {"'m' in device.attributes['x.example.com']", NULL, true, 4},
        {"has(device.attributes['x.example.com'].v)", bad, false, 3},
        {"has(device.attributes['x.example.com'].m)", NULL, true, 3},
        {"device.attributes['x.example.com'].?v.hasValue()", bad, false, 4},
        {"device.attributes['x.example.com'].?m.hasValue()", NULL, true, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        eval_out o = eval_on(dev, DRA_RELEASE_1_38, cases[i].expr);
        if (cases[i].err)
            CHECK(o.kind == CEL_ERROR && o.err && !strcmp(o.err, cases[i].err));
        else
            CHECK(o.kind == CEL_BOOL && o.b == cases[i].value);
        CHECK_INT(o.cost, cases[i].cost);
        free(o.err);
    }
    json_decref(dev);
}

/* 1.38 converts each attribute apart: a device with an unusable one
 * fails only the selectors reading it (dynamic-resource-allocation
 * v0.38.0-beta.0 api/conversion.go attrValue, cel/compile.go
 * nameToAttributes.Find); 1.36 has no optional chaining hint (its cel
 * package has no errors.go, EnhanceRuntimeError came with 1.37). */
UNIT_TEST(eval_release_conversion_and_hint)
{
    json_t *dev = json_loads("{\"name\": \"d\", \"attributes\": {\"v\": {\"version\": \"not-a-version\"}, "
                             "\"m\": {\"string\": \"a\"}}}",
                             0, NULL);
    struct {
        dra_release rel;
        const char *expr, *want;
        uint64_t cost;
    } cases[] = {
        {DRA_RELEASE_1_38, "device.driver", NULL, 2},
        {DRA_RELEASE_1_38, "device.attributes['x.example.com'].v",
         "attribute v: value is invalid or its type is not supported by this version", 4},
        {DRA_RELEASE_1_38, "device.attributes['x.example.com'].n",
         "no such key: n. consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
         "with has() for optional fields",
         4},
        {DRA_RELEASE_1_37, "device.driver", "attribute v: parse semantic version: No Major.Minor.Patch elements found",
         0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        eval_out o = eval_on(dev, cases[i].rel, cases[i].expr);
        if (cases[i].want)
            CHECK(o.kind == CEL_ERROR && o.err && !strcmp(o.err, cases[i].want));
        else
            CHECK(o.kind == CEL_STRING);
        CHECK_INT(o.cost, cases[i].cost);
        free(o.err);
    }
    json_decref(dev);

    /* the same selection, its runtime error with the hint from 1.37 on */
    dra_sel_input in;
    dra_err_free(load(&in));
    for (int rel = DRA_RELEASE_1_36; rel <= DRA_RELEASE_1_38; rel++) {
        dra_features f;
        dra_features_release(&f, (dra_release)rel);
        dra_selection s;
        dra_selection_init(&s, &f);
        CHECK(dra_selection_add_class(&s, &in.model, "by-model") == NULL);
        dra_sel_verdict v;
        dra_selection_match(&s, &in.devs.v[2], &v);
        CHECK(v.error != NULL);
        CHECK(v.error && (strstr(v.error, "consider using CEL optional chaining") != NULL) == (rel >= 37));
        dra_sel_verdict_clear(&v);
        dra_selection_free(&s);
    }
    dra_sel_input_free(&in);
}

UNIT_TEST(lint_finds_problems)
{
    dra_sel_input in;
    dra_err_free(load(&in));
    dra_err *p = dra_sel_lint(&in.model, &in.devs, NULL);
    CHECK(p != NULL);
    bool no_such_key = false, version = false, none = false;
    for (dra_err *x = p; x; x = x->next) {
        CHECK_INT(x->code, DRA_EXIT_NEGATIVE);
        if (strstr(x->msg, "no such key: model") && x->object && !strcmp(x->object, "DeviceClass/by-model"))
            no_such_key = true;
        if (strstr(x->msg, "version attribute gpu.example.com/driverVersion") && x->field &&
            !strcmp(x->field, "spec.devices.requests[0].exactly.selectors[0].cel.expression"))
            version = true;
        if (strstr(x->msg, "matches none of the 2 devices"))
            none = true;
    }
    CHECK(no_such_key);
    CHECK(version);
    CHECK(none);
    dra_err_free(p);
    dra_sel_input_free(&in);
}

UNIT_TEST(session_lines_and_completion)
{
    dra_session *s = dra_session_new(NULL);
    dra_buf out = DRA_BUF_INIT;
    CHECK(dra_session_line(s, "1 + 1", &out));
    CHECK_STR(dra_buf_str(&out), "2\n");
    dra_buf_reset(&out);
    CHECK(dra_session_line(s, "device.driver == \"x\"", &out));
    CHECK_STR(dra_buf_str(&out), "no devices loaded (:load FILE)\n");
    dra_buf_reset(&out);
    CHECK(dra_session_line(s, ":load /nonexistent/file.yaml", &out));
    CHECK(strncmp(dra_buf_str(&out), "error: ", 7) == 0);
    dra_buf_reset(&out);
    CHECK(!dra_session_line(s, ":quit", &out));

    dra_session_completion c;
    const char *line = "device.dr";
    dra_session_complete(s, line, 0, strlen(line), &c);
    CHECK_INT(c.n, 1);
    CHECK_STR(c.n ? c.v[0] : "", "device.driver");
    dra_session_completion_free(&c);
    line = "qua";
    dra_session_complete(s, line, 0, 3, &c);
    CHECK_INT(c.n, 1);
    CHECK_STR(c.n ? c.v[0] : "", "quantity(");
    dra_session_completion_free(&c);
    line = ":ex";
    dra_session_complete(s, line, 1, 3, &c);
    CHECK_INT(c.n, 1);
    CHECK_STR(c.n ? c.v[0] : "", "explain ");
    dra_session_completion_free(&c);
    line = ":load fi";
    dra_session_complete(s, line, 6, 8, &c);
    CHECK(c.files);
    dra_session_completion_free(&c);
    dra_buf_free(&out);
    dra_session_free(s);
}

static void write_temp(char *path, const char *text)
{
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Completing line (the word: its last `back` bytes) gives want[0..n). */
static void expect_completion(int *unit_failed, const dra_session *s, const char *line, size_t back,
                              const char *const *want, size_t n)
{
    dra_session_completion c;
    dra_session_complete(s, line, strlen(line) - back, strlen(line), &c);
    CHECK_INT(c.n, n);
    for (size_t i = 0; i < n && i < c.n; i++)
        CHECK_STR(c.v[i], want[i]);
    dra_session_completion_free(&c);
}

/* Completion of attribute and capacity keys: domains (a key without one is
 * in its driver's), then names within a domain, in first-seen order; a
 * second :load brings the new file's keys. */
UNIT_TEST(session_completes_device_keys)
{
    char a[] = "/tmp/dra-unit-sel-XXXXXX", b[] = "/tmp/dra-unit-sel-XXXXXX";
    write_temp(a,
               "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: a}\nspec:\n"
               "  driver: gpu.example.com\n  nodeName: n1\n  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n"
               "  devices:\n  - {name: g0, attributes: {model: {string: A}, example.com/numa: {int: 0}},"
               " capacity: {memory: {value: 1Gi}}}\n"
               "  - {name: g1, attributes: {mode: {string: B}, model: {string: C}}}\n");
    write_temp(b,
               "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: b}\nspec:\n"
               "  driver: nic.example.com\n  nodeName: n1\n  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n"
               "  devices: [{name: e0, attributes: {speed: {int: 100}}}]\n");
    dra_session *s = dra_session_new(NULL);
    dra_err *e = dra_session_load(s, a);
    CHECK(e == NULL);
    dra_err_free(e);
    const char *const domains[] = {"\"gpu.example.com\"]", "\"example.com\"]", "\"nic.example.com\"]"};
    expect_completion(unit_failed, s, "device.attributes[\"", 1, domains, 2);
    const char *const names[] = {"model", "mode"};
    expect_completion(unit_failed, s, "device.attributes[\"gpu.example.com\"].mod", 3, names, 2);
    const char *const caps[] = {"\"memory\"]"};
    expect_completion(unit_failed, s, "device.capacity[\"gpu.example.com\"][\"", 1, caps, 1);
    e = dra_session_load(s, b);
    CHECK(e == NULL);
    dra_err_free(e);
    expect_completion(unit_failed, s, "device.attributes[\"", 1, domains, 3);
    dra_session_free(s);
    unlink(a);
    unlink(b);
}

UNIT_MAIN()

/* dra_sel_input_load keeps devices as text: the same devices, answers and
 * objects as a whole load. */
UNIT_TEST(input_load_keeps_devices_as_text)
{
    char path[] = "/tmp/dra-unit-sel-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(slices, f);
    fclose(f);
    dra_sel_input whole, text;
    dra_err *e = load(&whole);
    CHECK(e == NULL);
    dra_err_free(e);
    memset(&text, 0, sizeof text);
    char *paths[] = {path};
    e = dra_sel_input_load(&text, paths, 1, NULL);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(text.devs.n, whole.devs.n);
    for (size_t i = 0; i < text.devs.n && i < whole.devs.n; i++) {
        const dra_sel_device *t = &text.devs.v[i], *w = &whole.devs.v[i];
        CHECK_STR(t->id, w->id);
        CHECK(t->text != NULL && t->device == NULL);
        CHECK((t->node == NULL) == (w->node == NULL) && (!t->node || strcmp(t->node, w->node) == 0));
        json_t *a = dra_sel_device_ref(t), *b = dra_sel_device_ref(w);
        CHECK(json_equal(a, b));
        json_decref(a);
        json_decref(b);
    }
    dra_selection s;
    dra_selection_init(&s, NULL);
    e = dra_selection_add_class(&s, &text.model, "by-model");
    CHECK(e == NULL);
    dra_err_free(e);
    size_t matched = 0;
    for (size_t i = 0; i < text.devs.n; i++) {
        dra_sel_verdict v;
        dra_selection_match(&s, &text.devs.v[i], &v);
        matched += v.matched;
        dra_sel_verdict_clear(&v);
    }
    CHECK_INT(matched, 1);
    dra_selection_free(&s);
    dra_sel_input_free(&text);
    dra_sel_input_free(&whole);
    unlink(path);
}
