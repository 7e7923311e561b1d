/* dra_json_write_line: the bytes of jansson's compact dump, faster. */
#include <jansson.h>

#include "io/jline.h"
#include "io/json.h"
#include "io/stream.h"
#include "io/jparse.h"
#include "unit.h"

/* v written both ways; true when the bytes agree. */
static int same_as_jansson(const json_t *v)
{
    dra_buf b = DRA_BUF_INIT;
    bool ok = dra_json_write_line(&b, v);
    char *want = json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17));
    int same = ok && want && strcmp(dra_buf_str(&b), want) == 0;
    if (!same)
        fprintf(stderr, "  got  %s\n  want %s\n", dra_buf_str(&b), want ? want : "(dump failed)");
    free(want);
    dra_buf_free(&b);
    return same;
}

UNIT_TEST(jline_strings_as_jansson)
{
    json_t *o = json_object();
    json_object_set_new(o, "plain", json_string("gpu-0"));
    json_object_set_new(o, "quote\"back\\slash", json_string("a\"b\\c/d"));
    json_object_set_new(o, "short", json_string("\b\f\n\r\t"));
    json_object_set_new(o, "ctl", json_string("\x01\x1f\x7f"));
    json_object_set_new(o, "nul", json_stringn("a\0b", 3));
    json_object_set_new(o, "utf8", json_string("\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80"));
    json_object_set_new(o, "empty", json_string(""));
    char all[128];
    for (int c = 0; c < 128; c++)
        all[c] = (char)c;
    json_object_set_new(o, "ascii", json_stringn(all, sizeof all));
    json_object_set_new(o, "tail\n", json_string("plain, then \"quoted\" and \xc3\xa9\t"));
    CHECK(same_as_jansson(o));
    json_decref(o);
}

UNIT_TEST(jline_numbers_as_jansson)
{
    static const double reals[] = {
        0.0,   -0.0,   1.0,  0.5, 1e20, 1e21, 1e-5, 1.5e-7, 123456789012345678.0, -2.5e300, 3.0000000000000004,
        1e100, 5e-324, 100.0};
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof reals / sizeof *reals; i++)
        json_array_append_new(a, json_real(reals[i]));
    json_array_append_new(a, json_integer(0));
    json_array_append_new(a, json_integer(-7));
    json_array_append_new(a, json_integer(INT64_MAX));
    json_array_append_new(a, json_integer(INT64_MIN));
    json_array_append_new(a, json_true());
    json_array_append_new(a, json_false());
    json_array_append_new(a, json_null());
    json_array_append_new(a, json_object());
    json_array_append_new(a, json_array());
    CHECK(same_as_jansson(a));
    json_decref(a);
}

UNIT_TEST(jline_nested_in_order)
{
    const char *text = "{\"z\":1,\"a\":{\"y\":[1,{\"k\":\"v\"},[]],\"b\":{}},\"m\":[\"x\",null]}";
    json_t *v = dra_json_read_compact(text, strlen(text));
    CHECK(v != NULL);
    CHECK(same_as_jansson(v));
    dra_buf b = DRA_BUF_INIT;
    CHECK(dra_json_write_line(&b, v));
    CHECK_STR(dra_buf_str(&b), text);
    dra_buf_free(&b);
    json_decref(v);
}

UNIT_TEST(jline_invalid_utf8_fails_as_jansson)
{
    static const char *bad[] = {"\xff", "a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "k", json_stringn_nocheck(bad[i], strlen(bad[i])));
        dra_buf b = DRA_BUF_INIT;
        CHECK(!dra_json_write_line(&b, o));
        char *j = json_dumps(o, JSON_COMPACT);
        CHECK(j == NULL);
        free(j);
        dra_buf_free(&b);
        json_decref(o);
    }
}

UNIT_TEST(jline_compact_keeps_its_own_bytes)
{
    /* dra_json_write_compact shares the walk, not jansson's escapes or exponents */
    json_t *o = json_pack("{s:s,s:f,s:f,s:f,s:I}", "k\n", "a\tb\x01\"\\\xc3\xa9", "big", 1e20, "small", 1.5e-7, "whole",
                          3.0, "int", (json_int_t)-42);
    dra_buf b = DRA_BUF_INIT;
    dra_json_write_compact(&b, o);
    CHECK_STR(dra_buf_str(&b), "{\"k\\u000a\":\"a\\u0009b\\u0001\\\"\\\\\xc3\xa9\",\"big\":1e+20,"
                               "\"small\":1.4999999999999999e-07,\"whole\":3.0,\"int\":-42}");
    dra_buf_reset(&b);
    CHECK(dra_json_write_line(&b, o));
    CHECK_STR(dra_buf_str(&b), "{\"k\\n\":\"a\\tb\\u0001\\\"\\\\\xc3\xa9\",\"big\":1e20,"
                               "\"small\":1.4999999999999999e-7,\"whole\":3.0,\"int\":-42}");
    dra_buf_free(&b);
    json_decref(o);
}

/* Objects put as trees and as their lines, in every format: the same bytes. */
static char *written(dra_format fmt, json_t *const *objs, size_t n, bool as_lines)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    dra_writer *w = dra_writer_new(f, fmt);
    dra_err *e = NULL;
    for (size_t i = 0; i < n && !e; i++) {
        if (!as_lines) {
            e = dra_writer_put(w, objs[i]);
            continue;
        }
        dra_buf b = DRA_BUF_INIT;
        dra_json_write_line(&b, objs[i]);
        e = dra_writer_put_line(w, b.data, b.len);
        dra_buf_free(&b);
    }
    e = dra_writer_finish(w, e);
    dra_err_free(e);
    fclose(f);
    return text;
}

UNIT_TEST(jline_writer_puts_lines_as_objects)
{
    json_t *objs[2] = {
        json_pack("{s:s,s:{s:s},s:f}", "kind", "ResourceClaim", "metadata", "name", "a\nb", "r", 1e20),
        json_pack("{s:s,s:[i,b]}", "kind", "Pod", "list", 7, 1),
    };
    for (int fmt = DRA_FMT_YAML; fmt <= DRA_FMT_JSONL; fmt++)
        for (size_t n = 1; n <= 2; n++) {
            char *a = written((dra_format)fmt, objs, n, false), *b = written((dra_format)fmt, objs, n, true);
            CHECK(a && *a);
            CHECK_STR(b, a);
            free(a);
            free(b);
        }
    json_decref(objs[0]);
    json_decref(objs[1]);
}

UNIT_MAIN()

/* dra_jstrings builds what json_pack "{s:s,...}" builds, NULL where it
 * answers NULL (a NULL or non-UTF-8 value). */
UNIT_TEST(jstrings_as_json_pack)
{
    json_t *got = dra_jstrings(3, "resource", "pods", "name", "p", "uid", "u\xc3\xa9");
    json_t *want = json_pack("{s:s,s:s,s:s}", "resource", "pods", "name", "p", "uid", "u\xc3\xa9");
    CHECK(got != NULL && want != NULL);
    char *a = json_dumps(got, JSON_COMPACT), *b = json_dumps(want, JSON_COMPACT);
    CHECK_STR(a, b);
    CHECK_STR(a, "{\"resource\":\"pods\",\"name\":\"p\",\"uid\":\"u\xc3\xa9\"}");
    free(a);
    free(b);
    json_decref(got);
    json_decref(want);
    CHECK(dra_jstrings(2, "name", "p", "uid", (const char *)NULL) == NULL);
    CHECK(dra_jstrings(1, "name", "\xff") == NULL);
    json_t *none = dra_jstrings(0);
    CHECK(json_is_object(none) && json_object_size(none) == 0);
    json_decref(none);
}
