/* Streaming reads: the fast JSON path against jansson, dra_read_each against
 * the whole-file reader (at any read size), errors mid-stream, and the
 * streaming loader's duplicates and held admin-access checks. */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/buf.h"
#include "io/jparse.h"
#include "io/stream.h"
#include "model/features.h"
#include "model/load.h"
#include "model/packed.h"
#include "unit.h"

static json_t *slow_parse(const char *s, size_t *used)
{
    json_error_t jerr;
    json_t *v = json_loadb(s, strlen(s), JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
    *used = v ? (size_t)jerr.position : 0;
    return v;
}

UNIT_TEST(jparse_takes_what_jansson_takes_and_builds_the_same)
{
    static const char *const taken[] = {
        "{}",
        "[]",
        "{\"a\":1}",
        " [1, -2, 0, -0, 3.5, -1e3, 2E+2, 1e-400, true, false, null, \"x\"]",
        "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n\",\"labels\":{}}} trailing",
        "{\"s\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\u20AC\\ud83d\\ude00\"}",
        "{\"k\\u00e9y\":{\"k\\n\":[]}}",
        "{\"u\":\"caf\xc3\xa9 \xe2\x82\xac\"}",
        "[9223372036854775807,-9223372036854775808]",
        "{\"a\":{\"b\":[{\"c\":[]}]}}",
        "[\n\t1 ,\r\n 2 ]",
        "{\"a\":1}{\"b\":2}",
    };
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++) {
        const char *s = taken[i];
        while (*s == ' ')
            s++;
        size_t used = 0, sused = 0;
        json_t *fast = dra_json_parse(s, strlen(s), DRA_MAX_DEPTH, &used);
        json_t *slow = slow_parse(s, &sused);
        CHECK(fast != NULL);
        CHECK(slow != NULL);
        if (fast && slow) {
            CHECK(json_equal(fast, slow));
            CHECK_INT(used, sused);
            /* same member order as jansson */
            char *a = json_dumps(fast, JSON_COMPACT), *b = json_dumps(slow, JSON_COMPACT);
            CHECK_STR(a, b);
            free(a);
            free(b);
        }
        json_decref(fast);
        json_decref(slow);
    }
    /* declined: jansson gives its own error (or its own tree) */
    static const char *const declined[] = {
        "",
        "1",
        "\"x\"",
        "{",
        "{\"a\":1,\"a\":2}",
        "{\"a\":01}",
        "[1.]",
        "[1e]",
        "[-]",
        "{\"a\":\"\\u0000\"}",
        "{\"a\":\"\\x\"}",
        "{\"a\":\"\x01\"}",
        "[tru]",
        "[nul]",
        "{\"a\" 1}",
        "{a:1}",
        "[1,]",
        "{\"a\":1,}",
        "[1 2]",
        "{\"a\":[1}",
    };
    for (size_t i = 0; i < sizeof declined / sizeof *declined; i++) {
        size_t used = 0;
        json_t *fast = dra_json_parse(declined[i], strlen(declined[i]), DRA_MAX_DEPTH, &used);
        if (fast)
            fprintf(stderr, "  taken: %s\n", declined[i]);
        CHECK(fast == NULL);
        json_decref(fast);
    }
    /* numbers jansson refuses and Go's json.Number reads: an integer beyond
     * int64 as a real, a real beyond double as the largest of its sign */
    {
        static const char big[] = "[9223372036854775808,-1e400,1e400,"
                                  "1234567890123456789012345678901234567890123456789012345678901234567890e400]";
        size_t used = 0;
        json_t *v = dra_json_parse(big, strlen(big), DRA_MAX_DEPTH, &used);
        CHECK(v != NULL);
        CHECK_INT(used, strlen(big));
        CHECK(json_real_value(json_array_get(v, 0)) == 9223372036854775808.0);
        CHECK(json_real_value(json_array_get(v, 1)) == -DBL_MAX);
        CHECK(json_real_value(json_array_get(v, 2)) == DBL_MAX);
        CHECK(json_real_value(json_array_get(v, 3)) == DBL_MAX);
        json_decref(v);
    }
    /* strings as Go's encoding/json reads them: a byte that starts no
     * valid UTF-8 sequence, and a surrogate not in a pair, is U+FFFD */
    {
        static const char *const in[][2] = {
            {"[\"\\ud800\"]", "\xef\xbf\xbd"},
            {"[\"\\udc00x\"]", "\xef\xbf\xbdx"},
            {"[\"\\ud800\\u0041\"]", "\xef\xbf\xbd"
                                     "A"},
            {"[\"\\ud83d\\ude00\"]", "\xf0\x9f\x98\x80"},
            {"[\"a\xff\xfe"
             "b\"]",
             "a\xef\xbf\xbd\xef\xbf\xbd"
             "b"},
            {"[\"\xc3\"]", "\xef\xbf\xbd"},
            {"[\"\xed\xa0\x80\"]", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
            {"[\"\\n\xff\"]", "\n\xef\xbf\xbd"},
            {"{\"k\xff\":1}", NULL},
        };
        for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
            size_t used = 0;
            json_t *v = dra_json_parse(in[i][0], strlen(in[i][0]), DRA_MAX_DEPTH, &used);
            CHECK(v != NULL);
            if (in[i][1])
                CHECK_STR(json_string_value(json_array_get(v, 0)), in[i][1]);
            else
                CHECK(json_object_get(v, "k\xef\xbf\xbd") != NULL);
            json_decref(v);
        }
    }
    /* depth: 64 levels taken, 65 declined */
    char deep[200];
    for (int d = 64; d <= 65; d++) {
        memset(deep, '[', (size_t)d);
        memset(deep + d, ']', (size_t)d);
        size_t used;
        json_t *v = dra_json_parse(deep, 2 * (size_t)d, DRA_MAX_DEPTH, &used);
        CHECK((v != NULL) == (d == 64));
        json_decref(v);
    }
}

/* The hash taken while parsing is the tree's hash: the same whatever the
 * member order, the escapes or the shared leaves; different content, a
 * different hash. */
UNIT_TEST(jparse_hash_while_parsing_is_the_content_hash)
{
    static const char *const texts[] = {
        "{}",
        "[]",
        "{\"a\":1}",
        "[1, -2, 0, -0, 3.5, -1e3, 2E+2, 1e-400, true, false, null, \"x\", {}, []]",
        "{\"s\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\u20AC\\ud83d\\ude00\"}",
        "{\"k\\u00e9y\":{\"k\\n\":[]}}",
        "{\"u\":\"caf\xc3\xa9 \xe2\x82\xac, a string longer than eight bytes\"}",
        "[9223372036854775807,-9223372036854775808]",
        "{\"a\":{\"b\":[{\"c\":[]}]}}",
        "{\"spec\":{\"devices\":[{\"name\":\"gpu-0\",\"attributes\":{\"model\":{\"string\":\"A\"},\"i\":{\"int\":1}},"
        "\"capacity\":{\"memory\":{\"value\":\"80Gi\"}}},{\"name\":\"gpu-1\",\"attributes\":{\"model\":{\"string\":"
        "\"A\"}},"
        "\"capacity\":{\"memory\":{\"value\":\"80Gi\"}}}]}}",
    };
    dra_json_interner *in = dra_json_interner_new();
    uint64_t seen[sizeof texts / sizeof *texts];
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        for (int shared = 0; shared < 2; shared++) {
            size_t used = 0;
            uint64_t h = 0;
            json_t *v = dra_json_parse_hashed(texts[i], strlen(texts[i]), DRA_MAX_DEPTH, &used, shared ? in : NULL, &h);
            CHECK(v != NULL);
            if (!v)
                continue;
            CHECK(h == dra_json_content_hash(v));
            json_t *slow = slow_parse(texts[i], &used);
            CHECK(h == dra_json_content_hash(slow));
            json_decref(slow);
            json_decref(v);
            seen[i] = h;
        }
        for (size_t j = 0; j < i; j++)
            CHECK(seen[j] != seen[i]);
    }
    dra_json_interner_free(in);
    /* members in another order, an escape for a plain letter: the same */
    const char *a = "{\"x\":[1,{\"p\":\"q\",\"r\":2.5}],\"y\":\"z\"}",
               *b = "{\"y\":\"\\u007a\",\"x\":[1,{\"r\":2.5,\"p\":\"q\"}]}";
    const char *c = "{\"y\":\"z\",\"x\":[{\"r\":2.5,\"p\":\"q\"},1]}"; /* items in another order: not */
    uint64_t ha, hb, hc;
    size_t used;
    json_t *va = dra_json_parse_hashed(a, strlen(a), DRA_MAX_DEPTH, &used, NULL, &ha);
    json_t *vb = dra_json_parse_hashed(b, strlen(b), DRA_MAX_DEPTH, &used, NULL, &hb);
    json_t *vc = dra_json_parse_hashed(c, strlen(c), DRA_MAX_DEPTH, &used, NULL, &hc);
    CHECK(va && vb && vc);
    CHECK(ha == hb);
    CHECK(ha != hc);
    json_decref(va);
    json_decref(vb);
    json_decref(vc);
}

/* A bounded interner: leaves that repeat across documents are parsed once
 * (the second document on shares them), every tree is still the one
 * jansson reads, and the content hash is unchanged; leaves that do not
 * qualify (long, nested, a real, two members) are read as they are. */
UNIT_TEST(jparse_bounded_interner_shares_repeated_leaves)
{
    static const char *const docs[] = {
        "{\"spec\":{\"devices\":[{\"name\":\"a\",\"attributes\":{\"m\":{\"string\":\"A100\"},\"i\":{\"int\":3},"
        "\"b\":{\"bool\":true},\"v\":{\"version\":\"1.0.0\"},\"e\":{\"string\":\"x\\\"}y\"},"
        "\"r\":{\"int\":1.5},\"two\":{\"int\":1,\"bogus\":2},\"l\":{\"ints\":[1,2]},"
        "\"long\":{\"string\":\"0123456789012345678901234567890123456789012345678901234567890123456789"
        "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123\"}},"
        "\"capacity\":{\"memory\":{\"value\":\"80Gi\"},\"c\":{\"value\":\"100\"}}},"
        "{\"name\":\"b\",\"capacity\":{\"n\":{\"value\":null}}}]}}",
    };
    dra_json_interner *in = dra_json_interner_bounded(64);
    json_t *prev = NULL;
    for (int round = 0; round < 4; round++) {
        size_t used;
        uint64_t h;
        json_t *v = dra_json_parse_hashed(docs[0], strlen(docs[0]), DRA_MAX_DEPTH, &used, in, &h);
        json_t *slow = slow_parse(docs[0], &used);
        CHECK(v && slow && json_equal(v, slow));
        CHECK(v && h == dra_json_content_hash(v));
        json_t *attrs =
            json_object_get(json_array_get(json_object_get(json_object_get(v, "spec"), "devices"), 0), "attributes");
        json_t *pattrs =
            prev ? json_object_get(json_array_get(json_object_get(json_object_get(prev, "spec"), "devices"), 0),
                                   "attributes")
                 : NULL;
        json_t *devs = json_object_get(json_object_get(v, "spec"), "devices");
        json_t *pdevs = prev ? json_object_get(json_object_get(prev, "spec"), "devices") : NULL;
        if (round >= 2) { /* kept on the second sighting, shared from the third */
            CHECK(json_object_get(json_array_get(devs, 0), "capacity") ==
                  json_object_get(json_array_get(pdevs, 0), "capacity"));
            CHECK(json_object_get(attrs, "m") == json_object_get(pattrs, "m"));
            CHECK(json_object_get(attrs, "i") == json_object_get(pattrs, "i"));
        }
        if (pdevs) /* a capacity map with a value that is not shared */
            CHECK(json_object_get(json_array_get(devs, 1), "capacity") !=
                  json_object_get(json_array_get(pdevs, 1), "capacity"));
        if (pattrs) { /* never shared: not a one-member scalar leaf, too long, or a '}' inside */
            static const char *const own[] = {"r", "two", "l", "long", "e"};
            for (size_t i = 0; i < 5; i++)
                CHECK(json_object_get(attrs, own[i]) != json_object_get(pattrs, own[i]));
        }
        json_decref(slow);
        json_decref(prev);
        prev = v;
    }
    json_decref(prev);
    /* many values that never repeat, then many that do, past the bound:
     * every tree is still right */
    char buf[160];
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(buf, sizeof buf,
                         "{\"spec\":{\"devices\":[{\"attributes\":{\"a\":{\"string\":\"v%d\"},\"b\":{\"int\":%d}}}]}}",
                         i < 2500 ? i : i % 100, i % 7);
        size_t used;
        uint64_t h;
        json_t *v = dra_json_parse_hashed(buf, (size_t)n, DRA_MAX_DEPTH, &used, in, &h);
        json_t *slow = slow_parse(buf, &used);
        if (!v || !json_equal(v, slow) || h != dra_json_content_hash(v)) {
            CHECK(false);
            fprintf(stderr, "  at %s\n", buf);
            json_decref(v);
            json_decref(slow);
            break;
        }
        json_decref(v);
        json_decref(slow);
    }
    dra_json_interner_free(in);

    /* values that never repeat: it stops looking, and looks again later */
    in = dra_json_interner_bounded(64);
    json_t *last[2] = {NULL, NULL};
    for (int i = 0; i < 30000; i++) {
        int n = snprintf(buf, sizeof buf, "{\"spec\":{\"devices\":[{\"attributes\":{\"a\":{\"string\":\"v%d\"}}}]}}",
                         i < 3000 ? i : -1);
        size_t used;
        uint64_t h;
        json_t *v = dra_json_parse_hashed(buf, (size_t)n, DRA_MAX_DEPTH, &used, in, &h);
        CHECK(v != NULL);
        json_decref(last[0]);
        last[0] = last[1];
        last[1] = v;
    }
    json_t *a0 =
        json_object_get(json_array_get(json_object_get(json_object_get(last[0], "spec"), "devices"), 0), "attributes");
    json_t *a1 =
        json_object_get(json_array_get(json_object_get(json_object_get(last[1], "spec"), "devices"), 0), "attributes");
    CHECK(a0 && json_object_get(a0, "a") == json_object_get(a1, "a"));
    json_decref(last[0]);
    json_decref(last[1]);
    dra_json_interner_free(in);
}

typedef struct got {
    json_t *objs;  /* copies of what was handed out */
    json_t *lines; /* [line, doc, item, field line of "spec.x" or 0] per object */
    int stop_at;   /* return an error at this object (1-based), 0 never */
} got;

static dra_err *keep(void *ctx, dra_obj *o)
{
    got *g = ctx;
    json_array_append(g->objs, o->json);
    json_array_append_new(g->lines, json_pack("[iiii]", o->line, o->doc, o->item, dra_obj_field_line(o, "spec.x")));
    if (g->stop_at && (int)json_array_size(g->objs) == g->stop_at)
        return dra_err_new(DRA_EXIT_RUNTIME, "stop here");
    return NULL;
}

/* A file with the text, as a path (memfd). */
static char *text_file(const char *text, int *fd)
{
    *fd = memfd_create("t", 0);
    size_t n = strlen(text);
    if (*fd < 0 || write(*fd, text, n) != (ssize_t)n)
        return NULL;
    return dra_xasprintf("/proc/self/fd/%d", *fd);
}

static dra_err *read_each_text(const char *text, size_t chunk, got *g)
{
    int fd;
    char *path = text_file(text, &fd);
    dra_objset set = DRA_OBJSET_INIT;
    set.stream_chunk = chunk;
    g->objs = json_array();
    g->lines = json_array();
    dra_err *e = path ? dra_read_each(&set, path, keep, g) : dra_err_new(3, "no memfd");
    dra_objset_free(&set);
    free(path);
    if (fd >= 0)
        close(fd);
    return e;
}

static void got_free(got *g)
{
    json_decref(g->objs);
    json_decref(g->lines);
}

UNIT_TEST(read_each_matches_the_whole_file_reader_at_any_read_size)
{
    static const char *const texts[] = {
        "{\"kind\":\"A\",\"spec\":{\"x\":1}}\n{\"kind\":\"B\"}\n\n{\"kind\":\"C\",\"s\":\"}]\\\"{\"}\n",
        "{\n  \"kind\": \"A\",\n  \"spec\": {\n    \"x\": 1\n  }\n}\n{\"kind\": \"B\",\n \"spec\": {\"x\": 2}}",
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{\"kind\":\"A\"},\n "
        "{\"kind\":\"B\",\n\"spec\":{\"x\":1}}]}\n"
        "{\"kind\":\"C\"}",
        "[{\"kind\":\"A\"},{\"kind\":\"B\"}]{\"kind\":\"C\",\"spec\":{\"x\":[1]}}",
        "\xEF\xBB\xBF{\"kind\":\"A\",\"d\":{\"a\":1,\"a\":2}}",
        "kind: A\nspec:\n  x: 1\n---\nkind: B\n",
        "{kind: A, spec: {x: 1}}\n",
        "\xEF\xBB\xBF\n\n  [{kind: A, spec: {x: 1}},\n {kind: B}]", /* flow YAML after a few reads */
        "  \n\n",
        /* Lists in Lists, some empty */
        "{\"kind\":\"List\",\"items\":[{\"kind\":\"A\"},{\"kind\":\"List\",\"items\":[\n{\"kind\":\"C\",\"spec\":\n{"
        "\"x\":1}},"
        "{\"kind\":\"List\"}]},{\"kind\":\"B\"}]}\n[{\"kind\":\"List\",\"items\":null},{\"kind\":\"DList\",\"items\":[{"
        "}]}]",
        "kind: List\nitems:\n- kind: List\n  items:\n  - kind: C\n    spec:\n      x: 1\n- kind: B\n",
    };
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
        dra_objset whole = DRA_OBJSET_INIT;
        whole.field_validation = DRA_FV_IGNORE;
        dra_err *we = dra_read_mem(&whole, "t", texts[t], strlen(texts[t]));
        static const size_t chunks[] = {1, 2, 5, 64, 0};
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
            got g = {0};
            int fd;
            char *path = text_file(texts[t], &fd);
            dra_objset set = DRA_OBJSET_INIT;
            set.stream_chunk = chunks[c];
            set.field_validation = DRA_FV_IGNORE;
            g.objs = json_array();
            g.lines = json_array();
            dra_err *e = dra_read_each(&set, path, keep, &g);
            CHECK((e == NULL) == (we == NULL));
            if (!e && !we) {
                CHECK_INT(json_array_size(g.objs), whole.n);
                for (size_t i = 0; i < whole.n && i < json_array_size(g.objs); i++) {
                    const dra_obj *o = &whole.v[i];
                    json_t *l = json_array_get(g.lines, i);
                    CHECK(json_equal(json_array_get(g.objs, i), o->json));
                    CHECK_INT(json_integer_value(json_array_get(l, 0)), o->line);
                    CHECK_INT(json_integer_value(json_array_get(l, 1)), o->doc);
                    CHECK_INT(json_integer_value(json_array_get(l, 2)), o->item);
                    CHECK_INT(json_integer_value(json_array_get(l, 3)), dra_obj_field_line(o, "spec.x"));
                }
            }
            dra_err_free(e);
            dra_objset_free(&set);
            got_free(&g);
            free(path);
            close(fd);
        }
        dra_err_free(we);
        dra_objset_free(&whole);
    }
}

/* kubectl's YAMLOrJSONDecoder (k8s.io/apimachinery@v0.37.2 pkg/util/yaml/
 * decoder.go) reads on as YAML from the end of a first JSON document when
 * the second is not JSON (a raw tab in a string, a YAML document): both
 * readers take it, the lines and documents counted from the file's start.
 * From the third document on, the stream is JSON for good. */
UNIT_TEST(read_on_as_yaml_after_one_json_document)
{
    static const struct {
        const char *text;
        int n;           /* objects; -1: refused */
        int line2, doc2; /* the second object's */
    } cases[] = {
        {"{\"kind\":\"A\"}\n\n{\"kind\":\"B\",\"spec\":{\"s\":\"a\tb\"}}\n", 2, 3, 2},
        {"{\"kind\":\"A\"}\n---\nkind: B\nspec:\n  x: 1\n", 2, 3, 2},
        {"{\"kind\":\"A\"}\nkind: B\n---\nkind: C\n", 3, 2, 2},
        {"{\"kind\":\"A\"}\n  kind: B\n  spec: {x: 1}\n", 2, 2, 2},
        {"{\"kind\":\"A\"}\n{\"kind\":\"B\"}\n{\"kind\":\"C\",\"s\":\"a\tb\"}\n", -1, 0, 0},
        {"[{\"kind\":\"A\"}]\nkind: B\n", -1, 0, 0}, /* '[' is YAML to kubectl from the start */
    };
    for (size_t t = 0; t < sizeof cases / sizeof *cases; t++) {
        dra_objset whole = DRA_OBJSET_INIT;
        whole.arrays = true;
        dra_err *we = dra_read_mem(&whole, "t.json", cases[t].text, strlen(cases[t].text));
        CHECK((we == NULL) == (cases[t].n >= 0));
        if (!we) {
            CHECK_INT(whole.n, cases[t].n);
            CHECK_INT(whole.v[1].line, cases[t].line2);
            CHECK_INT(whole.v[1].doc, cases[t].doc2);
            CHECK_STR(json_string_value(json_object_get(whole.v[1].json, "kind")), "B");
        }
        /* any read size: a first document read across reads is read again */
        static const size_t chunks[] = {1, 7, 0};
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
            got g = {0};
            dra_err *e = read_each_text(cases[t].text, chunks[c], &g);
            CHECK((e == NULL) == (we == NULL));
            if (!e && !we) {
                CHECK_INT(json_array_size(g.objs), whole.n);
                for (size_t i = 0; i < whole.n && i < json_array_size(g.objs); i++) {
                    CHECK(json_equal(json_array_get(g.objs, i), whole.v[i].json));
                    CHECK_INT(json_integer_value(json_array_get(json_array_get(g.lines, i), 0)), whole.v[i].line);
                    CHECK_INT(json_integer_value(json_array_get(json_array_get(g.lines, i), 1)), whole.v[i].doc);
                }
            }
            dra_err_free(e);
            got_free(&g);
        }
        dra_err_free(we);
        dra_objset_free(&whole);
    }
}

static dra_err *keep_in_set(void *ctx, dra_obj *o)
{
    dra_objset_keep(ctx, o);
    return NULL;
}

/* Objects kept from input that cannot be read again (a pipe, as stdin is)
 * find their fields' lines after the read, from their documents' text. */
UNIT_TEST(kept_objects_from_a_pipe_keep_their_field_lines)
{
    static const char *const texts[] = {
        "{\"kind\":\"A\",\"spec\":{\"x\":1}}\n{\"kind\":\"B\"}\n\n{\"kind\":\"C\",\"spec\":\n {\"x\":3}}\n",
        "kind: A\nspec:\n  x: 1\n---\nkind: B\n---\n# c\nkind: C\nspec:\n  y: 0\n  x: 2\n...\n---\nkind: D\nspec: {x: "
        "4}\n",
        "kind: List\nitems:\n- kind: A\n  spec:\n    x: 1\n- kind: B\n  spec:\n\n    x: 2\n---\nkind: C\nspec:\n  x: "
        "3\n",
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{\"kind\":\"A\"},\n "
        "{\"kind\":\"B\",\n\"spec\":{\"x\":1}},\n"
        "{\"kind\":\"List\",\"items\":[{\"kind\":\"C\",\n\"spec\":{\"x\":1}}]}]}\n{\"kind\":\"D\",\"spec\":{\"x\":5}}",
        /* a document that is a list is refused, as kubectl refuses it */
    };
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
        dra_objset whole = DRA_OBJSET_INIT;
        CHECK(dra_read_mem(&whole, "t", texts[t], strlen(texts[t])) == NULL);
        for (int list_min = 0; list_min < 2; list_min++) {
            int p[2];
            CHECK(pipe(p) == 0);
            CHECK(write(p[1], texts[t], strlen(texts[t])) == (ssize_t)strlen(texts[t]));
            close(p[1]);
            char *path = dra_xasprintf("/proc/self/fd/%d", p[0]);
            dra_objset reading = DRA_OBJSET_INIT, kept = DRA_OBJSET_INIT;
            reading.stream_list_min = list_min ? 1 : 0; /* 1: every JSON List item by item */
            reading.stream_chunk = 7;
            CHECK(dra_read_each(&reading, path, keep_in_set, &kept) == NULL);
            CHECK_INT(kept.n, whole.n);
            for (size_t i = 0; i < whole.n && i < kept.n; i++) {
                int want = dra_obj_field_line(&whole.v[i], "spec.x"), have = dra_obj_field_line(&kept.v[i], "spec.x");
                bool has_x = json_object_get(json_object_get(whole.v[i].json, "spec"), "x") != NULL;
                if (want != have || (has_x && want == 0)) {
                    fprintf(stderr, "  text %zu object %zu: line %d, want %d\n", t, i, have, want);
                    CHECK(false);
                }
            }
            dra_objset_free(&kept);
            dra_objset_free(&reading);
            free(path);
            close(p[0]);
        }
        dra_objset_free(&whole);
    }
}

/* A List too big to build whole: items handed out one at a time, with the
 * same lines, items and field lines as the whole-file reader gives. */
UNIT_TEST(read_each_big_list_item_by_item)
{
    dra_buf b = DRA_BUF_INIT;
    for (int form = 0; form < 4; form++) {
        dra_buf_reset(&b);
        dra_buf_puts(&b, form == 2 ? "{\"apiVersion\":\"example.com/v1\",\"items\":["
                                   : "{\"apiVersion\":\"v1\",\"items\": [\n");
        for (int i = 0; i < 3000; i++) {
            /* form 3: Lists in the List, some empty, some two deep */
            bool nest = form == 3 && i % 500 == 1, empty = form == 3 && i % 500 == 2;
            dra_buf_printf(
                &b,
                "%s%s%s{\"kind\":\"Thing\",\"metadata\":{\"name\":\"t-%d\"},%s\"spec\":{\"x\":%d,\"s\":\"a\\\"]}\"}}%s",
                i ? (form == 1 ? "," : ",\n ") : "",
                empty ? "{\"kind\":\"List\"},\n{\"kind\":\"ThingList\",\"items\":null}, " : "",
                nest ? "{\"kind\":\"List\",\n \"items\":[{\"kind\":\"List\",\"items\":[\n  " : "", i,
                (form == 0 || form == 3) && i % 7 == 0 ? "\n" : "", i, nest ? "]}]}" : "");
        }
        dra_buf_puts(&b, form == 2 ? "],\"kind\":\"ThingList\"}\n{\"kind\":\"After\"}"
                                   : "\n],\n\"kind\": \"List\"}\n{\"kind\":\"After\"}\n");
        CHECK(b.len > (64 << 10));
        dra_objset whole = DRA_OBJSET_INIT;
        CHECK(dra_read_mem(&whole, "t", b.data, b.len) == NULL);
        got g = {0};
        dra_err *e = read_each_text(b.data, 4096, &g);
        CHECK(e == NULL);
        CHECK_INT(json_array_size(g.objs), whole.n);
        CHECK_INT(whole.n, 3001);
        for (size_t i = 0; i < whole.n && i < json_array_size(g.objs); i++) {
            const dra_obj *o = &whole.v[i];
            json_t *l = json_array_get(g.lines, i);
            if (!json_equal(json_array_get(g.objs, i), o->json) ||
                json_integer_value(json_array_get(l, 0)) != o->line ||
                json_integer_value(json_array_get(l, 2)) != o->item ||
                json_integer_value(json_array_get(l, 3)) != dra_obj_field_line(o, "spec.x")) {
                fprintf(stderr, "  form %d object %zu: line %lld/%d field line %lld/%d\n", form, i,
                        json_integer_value(json_array_get(l, 0)), o->line, json_integer_value(json_array_get(l, 3)),
                        dra_obj_field_line(o, "spec.x"));
                CHECK(0);
                break;
            }
        }
        dra_err_free(e);
        got_free(&g);
        dra_objset_free(&whole);
    }
    /* a bad item after good ones: those were handed out, the error names the item's line */
    dra_buf_reset(&b);
    dra_buf_puts(&b, "{\"kind\":\"List\",\"items\":[\n");
    for (int i = 0; i < 3000; i++)
        dra_buf_printf(&b, "{\"kind\":\"Thing\",\"metadata\":{\"name\":\"t-%d\"},\"spec\":{\"x\":%d}},\n", i, i);
    dra_buf_puts(&b, "{\"kind\":\"Bad\",\"x\":1,\"x\":2}]}\n");
    got g = {0};
    dra_err *e = read_each_text(b.data, 0, &g);
    CHECK(e && strcmp(e->msg, "duplicate field \"x\"") == 0 && e->line == 3002 && e->col == 23);
    CHECK_INT(json_array_size(g.objs), 3000);
    dra_err_free(e);
    got_free(&g);
    dra_buf_free(&b);
}

UNIT_TEST(read_each_error_in_the_middle_of_a_stream)
{
    /* objects before the bad line were handed out; the error names its line */
    got g = {0};
    dra_err *e = read_each_text("{\"kind\":\"A\"}\n{\"kind\":\"B\"}\n{\"kind\": \"C\", \"x\n{\"kind\":\"D\"}\n", 4, &g);
    CHECK(e != NULL);
    if (e) {
        CHECK_INT(e->line, 3);
        CHECK_INT(e->doc, 3);
        CHECK(strstr(e->msg, "invalid JSON") != NULL);
    }
    CHECK_INT(json_array_size(g.objs), 2);
    dra_err_free(e);
    got_free(&g);

    /* a truncated last document */
    g = (got){0};
    e = read_each_text("{\"kind\":\"A\"}\n{\"kind\":\"B\",\"spec\":{", 0, &g);
    CHECK(e && strstr(e->msg, "near end of file") && e->line == 2);
    CHECK_INT(json_array_size(g.objs), 1);
    dra_err_free(e);
    got_free(&g);

    /* an error fn returns stops reading and comes back as it is */
    g = (got){.stop_at = 2};
    e = read_each_text("{\"kind\":\"A\"}\n{\"kind\":\"B\"}\n{\"kind\":\"C\"}\n", 0, &g);
    CHECK(e && strcmp(e->msg, "stop here") == 0 && e->file == NULL);
    CHECK_INT(json_array_size(g.objs), 2);
    dra_err_free(e);
    got_free(&g);

    /* a missing file */
    dra_objset set = DRA_OBJSET_INIT;
    e = dra_read_each(&set, "/nonexistent/x.json", keep, &g);
    CHECK(e && strstr(e->msg, "No such file"));
    dra_err_free(e);
    dra_objset_free(&set);
}

static json_t *dig(json_t *v, const char *a, const char *b, const char *c)
{
    json_t *dev = json_array_get(json_object_get(json_object_get(v, "spec"), "devices"), 0);
    json_t *x = json_object_get(json_object_get(dev, a), b);
    return c ? json_object_get(x, c) : x;
}

UNIT_TEST(whole_file_reads_share_repeated_attribute_and_capacity_values)
{
    const char *t = "{\"kind\":\"ResourceSlice\",\"spec\":{\"devices\":[{\"name\":\"a\",\"attributes\":{\"model\":{"
                    "\"string\":\"X\"},"
                    "\"odd\":{\"value\":\"1\"},\"u\":{\"string\":\"u1\"}},\"capacity\":{\"mem\":{\"value\":\"1\"}}}],"
                    "\"x\":{\"string\":\"X\"}}}\n"
                    "{\"kind\":\"ResourceSlice\",\"spec\":{\"devices\":[{\"name\":\"b\",\"attributes\":{\"model\":{"
                    "\"string\":\"X\"},"
                    "\"odd\":{\"value\":\"1\"},\"u\":{\"string\":\"u2\"}},\"capacity\":{\"mem\":{\"value\":\"1\"}}}],"
                    "\"x\":{\"string\":\"X\"}}}\n";
    dra_objset s = DRA_OBJSET_INIT;
    CHECK(dra_read_mem(&s, "t.json", t, strlen(t)) == NULL);
    CHECK_INT(s.n, 2);
    if (s.n == 2) {
        json_t *a = s.v[0].json, *b = s.v[1].json;
        CHECK(dig(a, "attributes", "model", NULL) == dig(b, "attributes", "model", NULL));
        CHECK(dig(a, "attributes", "u", NULL) != dig(b, "attributes", "u", NULL));
        CHECK(dig(a, "capacity", "mem", NULL) == dig(b, "capacity", "mem", NULL));
        CHECK(json_object_get(json_array_get(json_object_get(json_object_get(a, "spec"), "devices"), 0), "capacity") ==
              json_object_get(json_array_get(json_object_get(json_object_get(b, "spec"), "devices"), 0), "capacity"));
        /* a capacity-shaped attribute is not shared, nor with a capacity value */
        CHECK(dig(a, "attributes", "odd", NULL) != dig(b, "attributes", "odd", NULL));
        CHECK(dig(a, "attributes", "odd", NULL) != dig(a, "capacity", "mem", NULL));
        /* nor anything outside attributes and capacity */
        CHECK(json_object_get(json_object_get(a, "spec"), "x") != json_object_get(json_object_get(b, "spec"), "x"));
        json_t *want = json_pack("{s:s}", "string", "X");
        CHECK(json_equal(dig(a, "attributes", "model", NULL), want));
        json_decref(want);
    }
    dra_objset_free(&s);
    /* streaming shares nothing (each object is freed after its turn) */
    got g = {0};
    CHECK(read_each_text(t, 0, &g) == NULL);
    CHECK(dig(json_array_get(g.objs, 0), "attributes", "model", NULL) !=
          dig(json_array_get(g.objs, 1), "attributes", "model", NULL));
    got_free(&g);
}

static const char *const claim_admin =
    "{\"apiVersion\":\"resource.k8s.io/"
    "v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c\",\"namespace\":\"x\"},"
    "\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"gpu\",\"adminAccess\":"
    "true}}]}}}";

static dra_err *load_text(dra_loader *l, const char *text, int line, bool *passed)
{
    json_error_t jerr;
    dra_obj o = {
        .json = json_loads(text, 0, &jerr), .file = "t", .doc = 1, .line = line, .item = -1, .src_off = SIZE_MAX};
    dra_kind k;
    dra_err *e = dra_loader_add(l, &o, &k, passed);
    json_decref(o.json);
    return e;
}

UNIT_TEST(loader_duplicates_and_held_admin_checks)
{
    dra_features f;
    dra_features_default(&f);
    dra_load_opts lo = {.skip_unknown = true, .validate = {.features = &f}};
    dra_loader *l = dra_loader_new(&lo, DRA_FV_STRICT);
    const char *node = "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n\"}}";
    bool passed;
    CHECK(load_text(l, node, 1, &passed) == NULL && passed);
    CHECK(load_text(l, node, 2, &passed) == NULL && !passed); /* the same again: one object */
    dra_err *e =
        load_text(l, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n\",\"labels\":{\"a\":\"b\"}}}",
                  3, &passed);
    CHECK(e && strstr(e->msg, "duplicate object Node/n, first defined at t:1"));
    dra_err_free(e);
    CHECK(load_text(l, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"n\"}}", 4, &passed) ==
          NULL);
    /* admin access before its Namespace: checked at the end */
    e = load_text(l, claim_admin, 5, &passed);
    CHECK(e == NULL);
    CHECK(load_text(l, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"x\"}}", 6, &passed) ==
          NULL);
    dra_model stats = DRA_MODEL_INIT;
    e = dra_loader_finish(l, &stats);
    CHECK(e && strstr(e->msg, "admin access to devices requires") && e->line == 5);
    CHECK(stats.warnings == NULL);
    CHECK_INT(stats.collapsed, 1);
    dra_err_free(e);
    dra_model_free(&stats);

    /* no Namespace at all: a warning, as dra_load gives */
    l = dra_loader_new(&lo, DRA_FV_STRICT);
    CHECK(load_text(l, claim_admin, 1, &passed) == NULL && passed);
    stats = (dra_model)DRA_MODEL_INIT;
    e = dra_loader_finish(l, &stats);
    CHECK(e == NULL);
    CHECK(stats.warnings && strstr(stats.warnings->msg, "could not be checked"));
    dra_model_free(&stats);
}
UNIT_TEST(slice_pack_keeps_a_slice_as_compact_text)
{
    json_t *slice = json_loads("{\"kind\":\"ResourceSlice\",\"spec\":{\"driver\":\"d\",\"nodeName\":\"n1\","
                               "\"devices\":[{\"name\":\"a\",\"attributes\":{\"m\":{\"string\":\"x y\"}}},"
                               "{\"name\":\"b\",\"capacity\":{\"mem\":{\"value\":\"1Gi\"}}}]}}",
                               0, NULL);
    json_t *none = json_loads("{\"kind\":\"ResourceSlice\",\"spec\":{\"driver\":\"d\",\"nodeName\":\"\"}}", 0, NULL);
    char *before = json_dumps(slice, JSON_SORT_KEYS);
    dra_slice_packs p = {0};
    dra_slice_pack(&p, slice);
    dra_slice_pack(&p, none);
    CHECK_INT(p.n, 2);
    char *after = json_dumps(slice, JSON_SORT_KEYS);
    CHECK_STR(after, before); /* the object is not changed */
    const dra_packed_slice *d = p.v[0];
    /* what the world reads: metadata.name (none here) and spec without devices */
    CHECK_STR(d->rest, "{\"spec\":{\"driver\":\"d\",\"nodeName\":\"n1\"}}");
    CHECK_STR(d->node_name, "n1");
    CHECK_INT(d->n, 2);
    const char *t = dra_packed_next(d, NULL);
    CHECK_STR(t, "{\"name\":\"a\",\"attributes\":{\"m\":{\"string\":\"x y\"}}}");
    t = dra_packed_next(d, t);
    CHECK_STR(t, "{\"name\":\"b\",\"capacity\":{\"mem\":{\"value\":\"1Gi\"}}}");
    CHECK(dra_packed_next(d, t) == NULL);
    /* no devices, an empty nodeName */
    CHECK_INT(p.v[1]->n, 0);
    CHECK(p.v[1]->node_name == NULL);
    CHECK(dra_packed_next(p.v[1], NULL) == NULL);
    dra_slice_packs_free(&p);
    free(before);
    free(after);
    json_decref(slice);
    json_decref(none);
}
UNIT_MAIN()
