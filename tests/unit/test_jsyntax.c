/* Go's encoding/json syntax errors for control characters
 * (src/common/io/jsyntax.c): the messages Go 1.26's json.Unmarshal gives
 * for the same bytes, and the byte each one stops at. */
#include "io/jsyntax.h"
#include "unit.h"

/* in, its length (it holds NULs), Go's message or NULL, the offset */
struct row {
    const char *in;
    size_t len;
    const char *want;
    size_t at;
};
#define ROW(s, want, at) {s, sizeof s - 1, want, at},

/* clang-format off */
static const struct row rows[] = {
    ROW("{\"a\":\"x\0y\"}", "invalid character '\\x00' in string literal", 7)
    ROW("{\"a\":\0\"x\"}", "invalid character '\\x00' looking for beginning of value", 5)
    ROW("{\0\"a\":1}", "invalid character '\\x00' looking for beginning of object key string", 1)
    ROW("{\"a\":1,\0\"b\":2}", "invalid character '\\x00' looking for beginning of object key string", 7)
    ROW("{\"a\"\0:1}", "invalid character '\\x00' after object key", 4)
    ROW("{\"a\":1\0}", "invalid character '\\x00' after object key:value pair", 6)
    ROW("{\"a\":1.5\0}", "invalid character '\\x00' after object key:value pair", 8)
    ROW("{\"a\":[1,\0" "2]}", "invalid character '\\x00' looking for beginning of value", 8)
    ROW("{\"a\":[1\0]}", "invalid character '\\x00' after array element", 7)
    ROW("{\"a\":[\0]}", "invalid character '\\x00' looking for beginning of value", 6)
    ROW("{\"a\":tr\0ue}", "invalid character '\\x00' in literal true (expecting 'u')", 7)
    ROW("{\"a\":f\0}", "invalid character '\\x00' in literal false (expecting 'a')", 6)
    ROW("{\"a\":nul\0}", "invalid character '\\x00' in literal null (expecting 'l')", 8)
    ROW("{\"a\":-\0}", "invalid character '\\x00' in numeric literal", 6)
    ROW("{\"a\":1.\0}", "invalid character '\\x00' after decimal point in numeric literal", 7)
    ROW("{\"a\":1e\0}", "invalid character '\\x00' in exponent of numeric literal", 7)
    ROW("{\"a\":1e+\0}", "invalid character '\\x00' in exponent of numeric literal", 8)
    ROW("{\"a\":\"\\\0\"}", "invalid character '\\x00' in string escape code", 7)
    ROW("{\"a\":\"\\u12\0\"}", "invalid character '\\x00' in \\u hexadecimal character escape", 10)
    ROW("\0{}", "invalid character '\\x00' looking for beginning of value", 0)
    ROW(" \n\0", "invalid character '\\x00' looking for beginning of value", 2)
    ROW("{\"a\":\"\t\"}", "invalid character '\\t' in string literal", 6)
    ROW("{\"a\":\"\n\"}", "invalid character '\\n' in string literal", 6)
    ROW("{\"a\":\"\x7\"}", "invalid character '\\a' in string literal", 6)
    ROW("{\"a\":\"\x1f\"}", "invalid character '\\x1f' in string literal", 6)
    ROW("{\"a\":1\x01}", "invalid character '\\x01' after object key:value pair", 6)
    /* not control characters, or none before the value ends: jansson's words */
    ROW("{\"a\":x}", NULL, 0)
    ROW("{\"a\":1}", NULL, 0)
    ROW("{\"a\":1}\0", NULL, 0)
    ROW("[1,{\"b\":[true,false,null,\"\\u00e9\",-0.5e-3]}] \0", NULL, 0)
    ROW("\"x\"\0", NULL, 0)
    ROW("1\0", NULL, 0)
    ROW("{\"a\":\"x", NULL, 0)
    ROW("", NULL, 0)
};
/* clang-format on */

UNIT_TEST(go_words)
{
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const struct row *r = &rows[i];
        dra_buf msg = DRA_BUF_INIT;
        size_t at = 12345;
        bool got = dra_json_go_control_error(r->in, r->len, 16, &msg, &at);
        if (got != (r->want != NULL) || (got && (strcmp(dra_buf_str(&msg), r->want) != 0 || at != r->at))) {
            fprintf(stderr, "  row %zu: %d \"%s\" at %zu, want \"%s\" at %zu\n", i, got, dra_buf_str(&msg), at,
                    r->want ? r->want : "(none)", r->at);
            *unit_failed = 1;
        }
        dra_buf_free(&msg);
    }
}

UNIT_TEST(too_deep_is_no_answer)
{
    char text[64];
    memset(text, '[', sizeof text);
    text[40] = 0;
    dra_buf msg = DRA_BUF_INIT;
    size_t at = 0;
    CHECK(!dra_json_go_control_error(text, 41, 16, &msg, &at));
    CHECK(dra_json_go_control_error(text, 41, 64, &msg, &at));
    CHECK_INT((int)at, 40);
    dra_buf_free(&msg);
}

UNIT_MAIN()
