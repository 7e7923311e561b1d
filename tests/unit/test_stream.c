/* Object streams: format detection, Lists, locations, limits, writing. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "io/jalloc.h"
#include "io/json.h"
#include "io/stream.h"
#include "io/jparse.h"
#include "unit.h"

static dra_err *read_str(dra_objset *set, const char *text)
{
    return dra_read_mem(set, "t.yaml", text, strlen(text));
}

static const char *name_of(const dra_objset *s, size_t i)
{
    return json_string_value(json_object_get(json_object_get(s->v[i].json, "metadata"), "name"));
}

UNIT_TEST(yaml_multi_document)
{
    dra_objset s = DRA_OBJSET_INIT;
    dra_err *e =
        read_str(&s, "kind: A\nmetadata: {name: a}\n---\n# comment only\n---\nkind: B\nmetadata:\n  name: b\n");
    CHECK(e == NULL);
    CHECK_INT(s.n, 2);
    CHECK_STR(name_of(&s, 0), "a");
    CHECK_STR(name_of(&s, 1), "b");
    CHECK_INT(s.v[0].doc, 1);
    CHECK_INT(s.v[0].line, 1);
    CHECK_INT(s.v[1].doc, 2); /* the comment-only document is not counted: kubectl skips it */
    CHECK_INT(s.v[1].line, 6);
    CHECK_STR(s.v[1].file, "t.yaml");
    dra_objset_free(&s);
}

UNIT_TEST(yaml_scalars_resolve_like_go_yaml_v2)
{
    dra_objset s = DRA_OBJSET_INIT;
    dra_err *e = read_str(&s, "a: 1\nb: -7\nc: 1.5\nd: true\ne: yes\nf: 'true'\ng: null\nh: ~\ni: 0x1F\nj: 1_000\n"
                              "k: \"12\"\nl: 1e3\nm: abc\nn: 0755\no: 99999999999999999999\np: Off\nq: 1.0\n");
    CHECK(e == NULL);
    json_t *o = s.v[0].json;
    CHECK_INT(json_integer_value(json_object_get(o, "a")), 1);
    CHECK_INT(json_integer_value(json_object_get(o, "b")), -7);
    CHECK(json_is_real(json_object_get(o, "c")));
    CHECK(json_is_true(json_object_get(o, "d")));
    CHECK(json_is_true(json_object_get(o, "e")));
    CHECK_STR(json_string_value(json_object_get(o, "f")), "true");
    CHECK(json_is_null(json_object_get(o, "g")));
    CHECK(json_is_null(json_object_get(o, "h")));
    CHECK_INT(json_integer_value(json_object_get(o, "i")), 31);
    CHECK_INT(json_integer_value(json_object_get(o, "j")), 1000);
    CHECK_STR(json_string_value(json_object_get(o, "k")), "12");
    CHECK(json_is_real(json_object_get(o, "l")));
    CHECK_STR(json_string_value(json_object_get(o, "m")), "abc");
    CHECK_INT(json_integer_value(json_object_get(o, "n")), 493);
    CHECK(json_is_real(json_object_get(o, "o")));
    CHECK(json_is_false(json_object_get(o, "p")));
    CHECK(json_is_real(json_object_get(o, "q")));
    dra_err_free(e);
    dra_objset_free(&s);
}

UNIT_TEST(json_object_array_and_stream)
{
    dra_objset s = {.arrays = true}; /* lists of objects read as Lists */
    const char *t =
        "{\"kind\":\"A\",\"metadata\":{\"name\":\"a\"}}\n{\"kind\":\"B\"}\n[{\"kind\":\"C\"},{\"kind\":\"D\"}]";
    dra_err *e = dra_read_mem(&s, "t.json", t, strlen(t));
    CHECK(e == NULL);
    CHECK_INT(s.n, 4);
    CHECK_INT(s.v[1].line, 2);
    CHECK_INT(s.v[2].doc, 3);
    CHECK_INT(s.v[3].item, 1);
    dra_objset_free(&s);
    /* concatenated without newlines */
    e = dra_read_mem(&s, "t.json", "{\"a\":1}{\"b\":2}", 14);
    CHECK(e == NULL);
    CHECK_INT(s.n, 2);
    dra_objset_free(&s);
}

UNIT_TEST(lists_are_flattened)
{
    dra_objset s = {.arrays = true}; /* lists of objects read as Lists */
    dra_err *e = read_str(&s, "apiVersion: v1\nkind: List\nitems:\n- kind: A\n  metadata: {name: x}\n- kind: B\n"
                              "  metadata: {name: yy}\n");
    CHECK(e == NULL);
    CHECK_INT(s.n, 2);
    CHECK_STR(name_of(&s, 1), "yy");
    CHECK_INT(s.v[1].item, 1);
    CHECK_INT(s.v[1].line, 6);
    dra_objset_free(&s);
    const char *j = "{\"apiVersion\":\"resource.k8s.io/"
                    "v1\",\"kind\":\"ResourceSliceList\",\"items\":[{\"kind\":\"ResourceSlice\"}]}";
    e = dra_read_mem(&s, "l.json", j, strlen(j));
    CHECK(e == NULL);
    CHECK_INT(s.n, 1);
    CHECK_STR(json_string_value(json_object_get(s.v[0].json, "kind")), "ResourceSlice");
    dra_objset_free(&s);
    /* each item of a JSON List knows its own line */
    const char *k =
        "{\n  \"kind\": \"List\",\n  \"metadata\": {\"items\": [1]},\n  \"items\": [\n    {\"kind\": \"A\",\n"
        "     \"x\": \"[{,\\\"\"},\n    {\"kind\": \"B\"}, {\"kind\": \"C\"}\n  ]\n}\n"
        "[\n{\"kind\": \"D\"},\n\n {\"kind\": \"E\"}]\n";
    e = dra_read_mem(&s, "k.json", k, strlen(k));
    CHECK(e == NULL);
    CHECK_INT(s.n, 5);
    if (s.n == 5) {
        CHECK_INT(s.v[0].line, 5);
        CHECK_INT(s.v[1].line, 7);
        CHECK_INT(s.v[2].line, 7);
        CHECK_INT(s.v[3].line, 11);
        CHECK_INT(s.v[4].line, 13);
    }
    dra_objset_free(&s);
}

/* A List in a List is flattened as kubectl's FlattenListVisitor does it:
 * the outer List's objects first, then the inner Lists' (breadth first);
 * a List without items is empty wherever it is; each object knows its line
 * and the lines of its fields. */
UNIT_TEST(nested_lists_are_flattened_breadth_first)
{
    static const char *const texts[] = {
        "apiVersion: v1\nkind: List\nitems:\n- kind: A\n- apiVersion: v1\n  kind: List\n  items:\n  - kind: C\n"
        "    spec:\n      x: 1\n  - kind: List\n  - {kind: List, items: null}\n  - kind: DList\n    items:\n"
        "    - metadata: {name: d}\n- kind: B\n",
        "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n {\"kind\": \"A\"},\n {\"apiVersion\": \"v1\",\n"
        "  \"kind\": \"List\", \"items\": [\n  {\"kind\": \"C\",\n   \"spec\": {\n    \"x\": 1}},\n  {\"kind\": "
        "\"List\"},\n"
        "  {\"kind\": \"List\", \"items\": null},\n  {\"kind\": \"DList\",\n   \"items\": [\n"
        "    {\"metadata\": {\"name\": \"d\"}}]}]},\n {\"kind\": \"B\"}]}\n",
    };
    for (size_t t = 0; t < 2; t++) {
        dra_objset s = DRA_OBJSET_INIT;
        CHECK(dra_read_mem(&s, t ? "n.json" : "n.yaml", texts[t], strlen(texts[t])) == NULL);
        CHECK_INT(s.n, 4);
        if (s.n != 4)
            continue;
        static const char *const kinds[] = {"A", "B", "C", "D"};
        static const int lines[2][4] = {{4, 16, 8, 15}, {2, 13, 5, 12}};
        for (size_t i = 0; i < 4; i++) {
            CHECK_STR(json_string_value(json_object_get(s.v[i].json, "kind")), kinds[i]);
            CHECK_INT(s.v[i].line, lines[t][i]);
        }
        CHECK(s.v[0].src_path == NULL && s.v[1].src_path == NULL);
        CHECK_STR(s.v[2].src_path, "items[1].items[0]");
        CHECK_STR(s.v[3].src_path, "items[1].items[3].items[0]");
        CHECK_INT(dra_obj_field_line(&s.v[2], "spec.x"), t ? 7 : 10);
        CHECK_INT(dra_obj_field_line(&s.v[3], "metadata.name"), t ? 12 : 15);
        /* an unnamed object is named by its place */
        dra_err *e = dra_obj_locate(dra_err_new(2, "bad"), &s.v[2]);
        CHECK_STR(e->object, "items[1].items[0] <unnamed C>");
        dra_err_free(e);
        dra_objset_free(&s);
    }
    /* a List in a document that is an array; items that are not objects */
    dra_objset s = {.arrays = true}; /* lists of objects read as Lists */
    const char *a = "[{\"kind\": \"A\"}, {\"kind\": \"List\", \"items\": [{\"kind\": \"B\"}]}, {\"kind\": \"C\"}]";
    CHECK(dra_read_mem(&s, "a.json", a, strlen(a)) == NULL);
    CHECK_INT(s.n, 3);
    if (s.n == 3) {
        CHECK_STR(json_string_value(json_object_get(s.v[2].json, "kind")), "B");
        CHECK_STR(s.v[2].src_path, "items[1].items[0]");
    }
    dra_objset_free(&s);
    dra_err *e = read_str(&s, "kind: List\nitems:\n- kind: List\n  items:\n  - 3\n");
    CHECK(e != NULL && strcmp(e->msg, "items[0].items[0]: expected an object") == 0 && e->line == 3);
    dra_err_free(e);
    e = read_str(&s, "kind: List\nitems:\n- kind: A\n- kind: BList\n  items: {}\n");
    CHECK(e != NULL && strcmp(e->msg, "BList: items[1].items: must be a list of objects") == 0 && e->line == 4);
    CHECK_INT(s.n, 0);
    dra_err_free(e);
    dra_objset_free(&s);
}

UNIT_TEST(errors_carry_locations)
{
    dra_objset s = DRA_OBJSET_INIT;
    dra_err *e = read_str(&s, "kind: A\n---\nkind: B\n  bad: indent\n");
    CHECK(e != NULL);
    CHECK_INT(s.n, 0); /* nothing of a failed file is kept */
    if (e) {
        CHECK_INT(e->code, DRA_EXIT_INPUT);
        CHECK_STR(e->file, "t.yaml");
        CHECK_INT(e->doc, 2);
        CHECK_INT(e->line, 4);
        char *line = dra_err_format(e);
        CHECK(strstr(line, "t.yaml:4:") == line);
        CHECK(strstr(line, "invalid YAML") != NULL);
        free(line);
    }
    dra_err_free(e);
    e = dra_read_mem(&s, "x.json", "{\"a\": 1,\n \"b\": }", 17);
    CHECK(e != NULL);
    if (e) {
        CHECK_INT(e->line, 2);
        CHECK(strstr(e->msg, "invalid JSON") != NULL);
    }
    dra_err_free(e);
    e = read_str(&s, "a: 1\na: 2\n");
    CHECK(e != NULL && strstr(e->msg, "duplicate field") != NULL);
    dra_err_free(e);
    e = read_str(&s, "just a string\n");
    CHECK(e != NULL && strstr(e->msg, "expected an object") != NULL);
    dra_err_free(e);
    e = read_str(&s, "- 1\n- 2\n");
    CHECK(e != NULL && strstr(e->msg, "document is a list; expected an object or a List") != NULL);
    dra_err_free(e);
    s.arrays = true;
    e = read_str(&s, "- 1\n- 2\n");
    CHECK(e != NULL && strstr(e->msg, "list item[0]") != NULL);
    dra_err_free(e);
    s.arrays = false;
    e = read_str(&s, "a: .inf\n");
    CHECK(e != NULL && strstr(e->msg, "cannot be represented") != NULL);
    dra_err_free(e);
    dra_objset_free(&s);
}

UNIT_TEST(limits_depth_and_aliases)
{
    dra_objset s = DRA_OBJSET_INIT;
    dra_buf b = DRA_BUF_INIT;
    for (int i = 0; i < 200; i++)
        dra_buf_puts(&b, "[");
    dra_err *e = read_str(&s, dra_buf_str(&b));
    CHECK(e != NULL && (strstr(e->msg, "nesting") || strstr(e->msg, "invalid")));
    dra_err_free(e);
    dra_buf_reset(&b);
    dra_buf_puts(&b, "a: ");
    for (int i = 0; i < 200; i++)
        dra_buf_puts(&b, "{x: ");
    e = read_str(&s, dra_buf_str(&b));
    CHECK(e != NULL && strstr(e->msg, "nesting deeper than 64") != NULL);
    dra_err_free(e);
    /* billion laughs */
    dra_buf_reset(&b);
    dra_buf_puts(&b, "a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    const char *prev = "a";
    char name[8];
    for (int i = 0; i < 9; i++) {
        snprintf(name, sizeof name, "b%d", i);
        dra_buf_printf(&b, "%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", name, name, prev, prev, prev,
                       prev, prev, prev, prev, prev, prev, prev);
        prev = i == 0   ? "b0"
               : i == 1 ? "b1"
               : i == 2 ? "b2"
               : i == 3 ? "b3"
               : i == 4 ? "b4"
               : i == 5 ? "b5"
               : i == 6 ? "b6"
                        : "b7";
    }
    e = read_str(&s, dra_buf_str(&b));
    CHECK(e != NULL && strstr(e->msg, "aliases expand") != NULL);
    dra_err_free(e);
    /* the budget is the whole input's: many documents, each under it alone */
    dra_buf_reset(&b);
    dra_buf_puts(&b, "a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 0; i < 3; i++) {
        char from[8];
        snprintf(from, sizeof from, i ? "b%d" : "a", i - 1);
        dra_buf_printf(&b, "b%d: &b%d [", i, i);
        for (int k = 0; k < 10; k++)
            dra_buf_printf(&b, "%s*%s", k ? ", " : "", from);
        dra_buf_puts(&b, "]\n");
    }
    char *one = dra_xstrdup(dra_buf_str(&b)); /* about 12,000 nodes by aliases */
    dra_objset one_set = DRA_OBJSET_INIT;
    e = read_str(&one_set, one);
    CHECK(e == NULL);
    dra_err_free(e);
    dra_objset_free(&one_set);
    dra_buf_reset(&b);
    for (int d = 0; d < 20; d++)
        dra_buf_printf(&b, "---\n%s", one);
    e = read_str(&s, dra_buf_str(&b));
    CHECK(e != NULL && strstr(e->msg, "aliases expand to more than 100000 nodes in this input") != NULL);
    dra_err_free(e);
    free(one);
    /* small aliases and merge keys work */
    e = read_str(&s, "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\nc: *b\n");
    CHECK(e == NULL);
    if (!e) {
        json_t *m = json_object_get(s.v[0].json, "m");
        CHECK_INT(json_integer_value(json_object_get(m, "x")), 1);
        CHECK_INT(json_integer_value(json_object_get(m, "y")), 3);
    }
    dra_err_free(e);
    dra_buf_free(&b);
    dra_objset_free(&s);
}

UNIT_TEST(yaml_writer_round_trips)
{
    const char *t = "{\"kind\":\"X\",\"s\":\"true\",\"n\":\"123\",\"e\":\"\",\"m\":\"a\\nb\\n\",\"i\":5,\"f\":1.5,"
                    "\"g\":2.0,\"b\":false,\"z\":null,\"l\":[],\"o\":{},\"expr\":\"device.driver == \\\"x\\\"\","
                    "\"u\":\"héllo\",\"colon\":\"a: b\",\"y\":\"yes\"}";
    dra_objset s = DRA_OBJSET_INIT;
    CHECK(dra_read_mem(&s, "in.json", t, strlen(t)) == NULL);
    char *y = dra_yaml_dump(s.v[0].json);
    dra_objset s2 = DRA_OBJSET_INIT;
    dra_err *e = dra_read_mem(&s2, "out.yaml", y, strlen(y));
    CHECK(e == NULL);
    if (!e && s2.n == 1)
        CHECK(json_equal(s.v[0].json, s2.v[0].json));
    CHECK(strstr(y, "s: \"true\"") != NULL);
    CHECK(strstr(y, "g: 2.0") != NULL);
    CHECK(strstr(y, "l: []") != NULL);
    dra_err_free(e);
    free(y);
    dra_objset_free(&s);
    dra_objset_free(&s2);
}

/* A run that fails leaves nothing on its output while the writer holds it
 * all, and a complete document when some was written already; a List is
 * opened only at its second object. */
UNIT_TEST(writer_leaves_no_partial_document)
{
    dra_objset s = DRA_OBJSET_INIT;
    CHECK(read_str(&s, "kind: A\nspec: {x: [1, 2]}\n---\nkind: B\n---\nkind: C\n") == NULL);
    static const dra_format fmts[] = {DRA_FMT_YAML, DRA_FMT_JSON, DRA_FMT_JSONL};
    for (size_t k = 0; k < 3; k++) {
        for (size_t hold = 0; hold < 3; hold++) {
            /* hold 0: nothing held; 1: a few bytes; 2: the default */
            for (size_t nput = 0; nput <= 3; nput++) {
                char *out = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&out, &len);
                dra_writer *w = dra_writer_new(f, fmts[k]);
                if (hold < 2)
                    dra_writer_hold(w, hold ? 10 : 0);
                for (size_t i = 0; i < nput; i++)
                    CHECK(dra_writer_put(w, s.v[i].json) == NULL);
                dra_err *e = dra_writer_finish(w, dra_err_new(2, "failed"));
                CHECK(e != NULL && strcmp(e->msg, "failed") == 0);
                dra_err_free(e);
                fclose(f);
                /* nothing, or a complete document of what was written */
                bool written = hold < 2 && (fmts[k] == DRA_FMT_JSON ? nput >= 2 : nput >= 1);
                CHECK((len > 0) == written);
                if (len > 0) {
                    dra_objset back = DRA_OBJSET_INIT;
                    CHECK(dra_read_mem(&back, "out", out, len) == NULL);
                    CHECK_INT(back.n, nput);
                    dra_objset_free(&back);
                }
                free(out);
                /* the same run succeeding writes it all */
                f = open_memstream(&out, &len);
                w = dra_writer_new(f, fmts[k]);
                if (hold < 2)
                    dra_writer_hold(w, hold ? 10 : 0);
                for (size_t i = 0; i < nput; i++)
                    CHECK(dra_writer_put(w, s.v[i].json) == NULL);
                CHECK(dra_writer_close(w) == NULL);
                fclose(f);
                dra_objset back = DRA_OBJSET_INIT;
                CHECK(dra_read_mem(&back, "out", out, len) == NULL);
                CHECK_INT(back.n, nput);
                dra_objset_free(&back);
                free(out);
            }
        }
    }
    dra_objset_free(&s);
}

UNIT_TEST(write_formats)
{
    dra_objset s = DRA_OBJSET_INIT;
    CHECK(read_str(&s, "kind: A\n---\nkind: B\n") == NULL);
    json_t *objs[2] = {s.v[0].json, s.v[1].json};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    CHECK(dra_write(f, objs, 2, DRA_FMT_JSONL) == NULL);
    fclose(f);
    CHECK_STR(out, "{\"kind\":\"A\"}\n{\"kind\":\"B\"}\n");
    free(out);
    f = open_memstream(&out, &len);
    CHECK(dra_write(f, objs, 2, DRA_FMT_JSON) == NULL);
    fclose(f);
    CHECK(strstr(out, "\"kind\": \"List\"") != NULL);
    free(out);
    f = open_memstream(&out, &len);
    CHECK(dra_write(f, objs, 2, DRA_FMT_YAML) == NULL);
    fclose(f);
    CHECK_STR(out, "kind: A\n---\nkind: B\n");
    free(out);
    dra_format fmt;
    dra_err *e = dra_format_parse("xml", &fmt);
    CHECK(e != NULL && strstr(e->msg, "yaml, json, jsonl") != NULL);
    dra_err_free(e);
    dra_objset_free(&s);
}

UNIT_TEST(streaming_json_matches_kubectl_list)
{
    dra_objset s = DRA_OBJSET_INIT;
    CHECK(read_str(&s, "kind: A\nspec: {x: [1, 2]}\n---\nkind: B\n") == NULL);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    json_t *objs[2] = {s.v[0].json, s.v[1].json};
    CHECK(dra_write(f, objs, 2, DRA_FMT_JSON) == NULL);
    fclose(f);
    /* it must read back as the List of both */
    dra_objset back = DRA_OBJSET_INIT;
    CHECK(dra_read_mem(&back, "out.json", out, len) == NULL);
    CHECK_INT(back.n, 2);
    if (back.n == 2)
        CHECK(json_equal(back.v[0].json, s.v[0].json));
    CHECK(strstr(out, "\n    \"items\": [\n        {\n            \"kind\": \"A\",") != NULL);
    free(out);
    dra_objset_free(&back);
    f = open_memstream(&out, &len);
    CHECK(dra_write(f, objs, 0, DRA_FMT_JSON) == NULL);
    fclose(f);
    CHECK(strstr(out, "\"items\": [],") != NULL);
    CHECK(dra_read_mem(&back, "empty.json", out, len) == NULL);
    CHECK_INT(back.n, 0);
    free(out);
    dra_objset_free(&back);
    dra_objset_free(&s);
}

UNIT_TEST(object_refs)
{
    json_t *o = json_pack("{s:s, s:{s:s, s:s}}", "kind", "ResourceClaim", "metadata", "name", "c", "namespace", "ns");
    char *r = dra_obj_ref(o);
    CHECK_STR(r, "ResourceClaim/ns/c");
    free(r);
    json_decref(o);
    o = json_pack("{s:s}", "kind", "DeviceClass");
    r = dra_obj_ref(o);
    CHECK_STR(r, "<unnamed DeviceClass>");
    free(r);
    json_decref(o);
}

UNIT_TEST(error_chain_formatting)
{
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, "Required value");
    e = dra_err_field(e, "name");
    e = dra_err_field_prefix(e, "devices[3]");
    e = dra_err_field_prefix(e, "spec");
    dra_err *e2 = dra_err_new(DRA_EXIT_INPUT, "second");
    e = dra_err_append(e, e2);
    e = dra_err_locate_all(e, "s.yaml", 2, 10, "ResourceSlice/x");
    char *line = dra_err_format(e);
    CHECK_STR(line, "s.yaml:10 (document 2): ResourceSlice/x: spec.devices[3].name: Required value");
    free(line);
    CHECK_INT(dra_err_count(e), 2);
    dra_err_free(e);
}

UNIT_TEST(error_lines_cap_echoed_input)
{
    char big[2000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, "msg %s", big);
    e = dra_err_object(e, big);
    char *line = dra_err_format(e);
    CHECK(strstr(line, "...(1699 more bytes)") != NULL); /* the object is cut */
    CHECK(strlen(line) > 2000);                          /* the message is not */
    free(line);
    dra_err_free(e);
}

UNIT_MAIN()

/* A number past int64 keeps the digits the API server decodes: a JSON
 * literal as written, a YAML unsigned integer in decimal (go-yaml keeps it
 * as a uint64); a YAML float or signed integer past int64 is a float64 to
 * go-yaml, its text encoding/json's (field_literal_yaml_floats). */
UNIT_TEST(field_literal_big_numbers)
{
    dra_objset s = {0};
    const char *y = "kind: A\nspec:\n  u: 9223372036854775808\n  h: 0xFFFF_FFFF_FFFF_FFFF\n"
                    "  p: +9223372036854775808\n  n: -9223372036854775809\n  f: 1e30\n  i: 5\n"
                    "  q: \"9223372036854775808\"\n";
    CHECK(read_str(&s, y) == NULL);
    const char *j = "{\"kind\": \"B\", \"x\": 12345678901234567890123}\n";
    CHECK(dra_read_mem(&s, "t.json", j, strlen(j)) == NULL);
    CHECK_INT(s.n, 2);
    if (s.n != 2)
        return;
    const json_t *spec = json_object_get(s.v[0].json, "spec");
    CHECK(json_is_real(json_object_get(spec, "h"))); /* a number, not a string */
    static const char *const none[] = {"spec.i", "spec.q", "spec.z"};
    char *t = dra_obj_field_literal(&s.v[0], "spec.u");
    CHECK_STR(t ? t : "(null)", "9223372036854775808");
    free(t);
    t = dra_obj_field_literal(&s.v[0], "spec.h");
    CHECK_STR(t ? t : "(null)", "18446744073709551615");
    free(t);
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        t = dra_obj_field_literal(&s.v[0], none[i]);
        CHECK(t == NULL);
        free(t);
    }
    t = dra_obj_field_literal(&s.v[1], "x");
    CHECK_STR(t ? t : "(null)", "12345678901234567890123");
    free(t);
    dra_objset_free(&s);
}

UNIT_TEST(field_lines)
{
    dra_objset s = {.arrays = true}; /* lists of objects read as Lists */
    /* a List in YAML after a document of its own, with a BOM */
    const char *y = "\xEF\xBB\xBF"
                    "kind: A\nmetadata: {name: a}\n---\nkind: List\nitems:\n- kind: B\n  spec:\n"
                    "    x: 1\n- kind: C\n  spec:\n    devices:\n    - name: d0\n    - name: d1\n      basic:\n"
                    "        attributes:\n          \"a/b\": {int: 1}\n    requests:\n    - name: r\n"
                    "      count: 2\n";
    CHECK(read_str(&s, y) == NULL);
    CHECK_INT(s.n, 3);
    CHECK_INT(dra_obj_field_line(&s.v[0], "metadata.name"), 2);
    CHECK_INT(dra_obj_field_line(&s.v[1], "spec.x"), 8);
    CHECK_INT(dra_obj_field_line(&s.v[2], "spec.devices[1]"), 13);
    /* v1 paths into v1beta1 shapes; quoted map keys */
    CHECK_INT(dra_obj_field_line(&s.v[2], "spec.devices[1].attributes[\"a/b\"]"), 16);
    CHECK_INT(dra_obj_field_line(&s.v[2], "spec.devices[1].attributes[a/b].int"), 16);
    CHECK_INT(dra_obj_field_line(&s.v[2], "spec.requests[0].exactly.count"), 19);
    /* missing parts: the deepest part present; nothing present: 0 */
    CHECK_INT(dra_obj_field_line(&s.v[2], "spec.devices[7].name"), 11);
    CHECK_INT(dra_obj_field_line(&s.v[2], "status.x"), 0);
    CHECK_INT(dra_obj_field_line(&s.v[2], ""), 0);
    /* errors are placed by dra_obj_locate */
    dra_err *e = dra_obj_locate(dra_err_field(dra_err_new(2, "bad"), "spec.x"), &s.v[1]);
    CHECK_INT(e->line, 8);
    dra_err_free(e);
    /* a budget of lookups shared across objects: once spent, an error
     * gets its object's line */
    int lookups = 2;
    e = dra_obj_locate_within(dra_err_field(dra_err_new(2, "bad"), "spec.x"), &s.v[1], &lookups);
    CHECK_INT(e->line, 8);
    dra_err_free(e);
    e = dra_obj_locate_within(dra_err_append(dra_err_field(dra_err_new(2, "one"), "spec.devices[1]"),
                                             dra_err_field(dra_err_new(2, "two"), "spec.devices[1]")),
                              &s.v[2], &lookups);
    CHECK_INT(e->line, 13);
    CHECK(e->next && e->next->line == s.v[2].line && s.v[2].line != 13);
    CHECK_INT(lookups, 0);
    dra_err_free(e);
    dra_objset_free(&s);

    /* JSON: a bare array of objects, then a second value on the same line */
    const char *j =
        "[{\"kind\": \"A\",\n  \"spec\": {\"v\": [1,\n 2]}},\n {\"kind\": \"B\", \"z\": 1}\n] {\"kind\": \"C\",\n"
        "\"q\": {\"r\": 1}}\n";
    CHECK(dra_read_mem(&s, "t.json", j, strlen(j)) == NULL);
    CHECK_INT(s.n, 3);
    CHECK_INT(dra_obj_field_line(&s.v[0], "spec.v[1]"), 3);
    CHECK_INT(dra_obj_field_line(&s.v[1], "z"), 4);
    CHECK_INT(dra_obj_field_line(&s.v[2], "q.r"), 6);
    dra_objset_free(&s);

    /* objects not read from text have no field lines */
    dra_objset_add(&s, json_object(), "x", 1, 1, -1);
    CHECK_INT(dra_obj_field_line(&s.v[0], "a"), 0);
    dra_objset_free(&s);

    /* bad text is no crash: a document that no longer parses */
    CHECK(read_str(&s, "kind: A\nspec:\n  x: 1\n") == NULL);
    ((dra_source *)s.v[0].src)->data[9] = '[';
    CHECK(dra_obj_field_line(&s.v[0], "spec.x") >= 0);
    dra_objset_free(&s);
}

UNIT_TEST(jalloc_recycles_and_changes_nothing)
{
    /* a tree built before installing is freed after it; what jansson
     * returns may still go to free(); the same text reads the same */
    const char *text =
        "{\"a\": [1, 2.5, \"x\", {\"b\": null, \"c\": true}], \"d\": \"a longer string than sixteen bytes\"}";
    json_t *before = json_loads(text, 0, NULL);
    dra_jalloc_install(); /* false in AddressSanitizer builds: the same checks hold */
    for (int round = 0; round < 3; round++) {
        json_t *v = json_loads(text, 0, NULL);
        CHECK(v && json_equal(v, before));
        char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
        CHECK_STR(s, "{\"a\":[1,2.5,\"x\",{\"b\":null,\"c\":true}],\"d\":\"a longer string than sixteen bytes\"}");
        free(s);
        json_decref(v);
    }
    json_t *big = json_array();
    for (int i = 0; i < 1000; i++)
        json_array_append_new(big, json_sprintf("item %d", i));
    CHECK_STR(json_string_value(json_array_get(big, 999)), "item 999");
    json_decref(big);
    json_decref(before);
    dra_jalloc_uninstall();
    json_t *after = json_loads(text, 0, NULL);
    CHECK(after != NULL);
    json_decref(after);
}

UNIT_TEST(jalloc_arena_frees_by_chunk)
{
    /* trees parsed in the arena read as they do on the heap; a chunk is
     * cut again once its blocks are freed; a piece kept past its document
     * stays good; what jansson makes outside a parse, and the leaves an
     * interner keeps, are not in the arena */
    bool on = dra_jalloc_install(); /* false in AddressSanitizer builds: no arena */
    dra_jalloc_arena_allow();
    const char *doc = "{\"spec\":{\"devices\":[{\"name\":\"gpu-0\",\"capacity\":{\"memory\":{\"value\":\"80Gi\"}},"
                      "\"attributes\":{\"uuid\":{\"string\":\"a longer string than sixteen bytes\"}}}]}}";
    json_t *heap = json_loads(doc, 0, NULL);
    size_t used;
    json_t *v = dra_json_parse(doc, strlen(doc), 64, &used);
    CHECK(v && json_equal(v, heap) && used == strlen(doc));
    CHECK(dra_jalloc_in_arena(v) == on);
    CHECK(!dra_jalloc_in_arena(heap));
    char *s = json_dumps(v, JSON_COMPACT); /* made outside a parse: free() takes it */
    CHECK(s && !dra_jalloc_in_arena(s));
    free(s);
    json_t *kept = json_incref(json_object_get(v, "spec"));
    json_t *copy = dra_jalloc_keep(v); /* to keep for long: off the arena */
    CHECK(json_equal(copy, heap) && !dra_jalloc_in_arena(copy) && (copy != v) == on);
    json_decref(copy);
    copy = dra_jalloc_keep(heap); /* already on the heap: itself */
    CHECK(copy == heap);
    json_decref(copy);
    json_decref(v);
    json_t *again = dra_json_parse(doc, strlen(doc), 64, &used);
    CHECK(json_equal(again, heap) && json_equal(kept, json_object_get(heap, "spec")));
    json_decref(kept);
    json_decref(again);
    /* all freed: the next tree is cut from where the last one was */
    json_t *a = dra_json_parse(doc, strlen(doc), 64, &used);
    json_decref(a);
    json_t *b = dra_json_parse(doc, strlen(doc), 64, &used);
    CHECK(!on || a == b); /* without the arena, malloc places it where it will */
    json_decref(b);
    /* many documents, each dropped: the arena is reused, not exhausted */
    for (int i = 0; i < 20000; i++) {
        json_t *x = dra_json_parse(doc, strlen(doc), 64, &used);
        CHECK(x != NULL && dra_jalloc_in_arena(x) == on);
        json_decref(x);
    }
    /* trees kept alive until the region is used up: the next come from
     * the heap, and read the same; once freed, the arena serves again */
    enum { KEEP_MAX = 400000 };
    json_t **alive = malloc(KEEP_MAX * sizeof *alive);
    size_t n = 0;
    bool spilled = false;
    while (n < KEEP_MAX && !spilled) {
        alive[n] = dra_json_parse(doc, strlen(doc), 64, &used);
        spilled = !dra_jalloc_in_arena(alive[n++]);
    }
    CHECK(spilled);
    CHECK(json_equal(alive[n - 1], heap) && json_equal(alive[0], heap));
    for (size_t i = 0; i < n; i++)
        json_decref(alive[i]);
    free(alive);
    json_t *back = dra_json_parse(doc, strlen(doc), 64, &used);
    CHECK(dra_jalloc_in_arena(back) == on);
    json_decref(back);
    /* a capacity map read a third time is the interner's copy, on the heap */
    dra_json_interner *in = dra_json_interner_bounded(64);
    json_t *docs[3];
    for (int i = 0; i < 3; i++)
        docs[i] = dra_json_parse_shared(doc, strlen(doc), 64, &used, in);
    const json_t *caps[3];
    for (int i = 0; i < 3; i++)
        caps[i] = json_object_get(json_array_get(json_object_get(json_object_get(docs[i], "spec"), "devices"), 0),
                                  "capacity");
    CHECK(!dra_jalloc_in_arena(caps[2]) && (!on || caps[2] != caps[1])); /* off: the kept leaf is itself */
    CHECK(json_equal(docs[2], heap));
    for (int i = 0; i < 3; i++)
        json_decref(docs[i]);
    dra_json_interner_free(in);
    json_decref(heap);
    dra_jalloc_uninstall();
}

UNIT_TEST(json_write_compact_reads_back_the_same)
{
    json_t *v =
        json_pack("{s:s, s:i, s:f, s:f, s:b, s:n, s:[s, {}, []], s:{s:s}}", "quote\"back\\slash", "a\tb\x01\n/é", "int",
                  -42, "real", 1.5, "whole", 3.0, "yes", 1, "none", "list", "x", "nested", "empty", "k", "ctl\x1f");
    json_object_set_new(v, "nul", json_stringn("a\0b", 3));
    dra_buf b = DRA_BUF_INIT;
    dra_json_write_compact(&b, v);
    CHECK(strstr(b.data, "\"whole\":3.0") != NULL);
    CHECK(strstr(b.data, "\\u0001") != NULL && strstr(b.data, "\\\"back\\\\slash") != NULL);
    json_t *back = json_loadb(b.data, b.len, JSON_ALLOW_NUL, NULL);
    CHECK(back != NULL && json_equal(v, back));
    /* and through this project's reader (\u0000: jansson's part) */
    json_t *ours = dra_json_read_compact(b.data, b.len);
    CHECK(ours != NULL && json_equal(v, ours));
    json_decref(ours);
    /* deeper than the fast parser goes */
    dra_buf deep = DRA_BUF_INIT;
    for (int i = 0; i < 100; i++)
        dra_buf_putc(&deep, '[');
    for (int i = 0; i < 100; i++)
        dra_buf_putc(&deep, ']');
    ours = dra_json_read_compact(deep.data, deep.len);
    CHECK(json_is_array(ours));
    json_decref(ours);
    CHECK(dra_json_read_compact("{\"a\":", 5) == NULL);
    dra_buf_free(&deep);
    /* the members in their order */
    const char *k1 = strstr(b.data, "\"int\""), *k2 = strstr(b.data, "\"real\""), *k3 = strstr(b.data, "\"nested\"");
    CHECK(k1 && k2 && k3 && k1 < k2 && k2 < k3);
    json_decref(back);
    json_decref(v);
    dra_buf_free(&b);
}

/* A YAML float, or a signed integer past int64, reaches the API server as
 * encoding/json's text of its float64 (sigs.k8s.io/yaml v1.6.0 YAMLToJSON,
 * figures from it). */
UNIT_TEST(field_literal_yaml_floats)
{
    static const char *const rows[][2] = {
        {"+9223372036854775808", "9223372036854776000"},
        {"-9223372036854775809", "-9223372036854776000"},
        {"18446744073709551616", "18446744073709552000"},
        {"1e30", "1e+30"},
        {"1e3", "1000"},
        {"1.5e300", "1.5e+300"},
        {"9.3e18", "9300000000000000000"},
        {"1e-7", "1e-7"},
        {"0.000001", "0.000001"},
        {"123.25", "123.25"},
        {"-0.0", "-0"},
        {"1e21", "1e+21"},
        {"1e20", "100000000000000000000"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        dra_objset s = {0};
        char *y = dra_xasprintf("kind: A\nspec: {x: %s}\n", rows[i][0]);
        CHECK(read_str(&s, y) == NULL);
        free(y);
        char *t = s.n == 1 ? dra_obj_field_literal(&s.v[0], "spec.x") : NULL;
        if (!t || strcmp(t, rows[i][1]) != 0) {
            fprintf(stderr, "  %s: %s, want %s\n", rows[i][0], t ? t : "(null)", rows[i][1]);
            *unit_failed = 1;
        }
        free(t);
        dra_objset_free(&s);
    }
}
