/* dra_json_loadb: json_loadb's answer on every text, from the fast path
 * where it reads the text as jansson does. */
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "io/jparse.h"
#include "unit.h"

/* dra_json_loadb and json_loadb give the same tree (members in the same
 * order), or both NULL with the same error. */
static bool same_as_jansson(const char *text, size_t flags)
{
    size_t n = strlen(text);
    json_error_t ej, ed;
    json_t *j = json_loadb(text, n, flags, &ej);
    json_t *d = dra_json_loadb(text, n, flags, &ed);
    bool same = !j == !d;
    if (same && j) {
        char *tj = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
        char *td = json_dumps(d, JSON_COMPACT | JSON_REAL_PRECISION(17));
        same = json_equal(j, d) && strcmp(tj, td) == 0;
        free(tj);
        free(td);
    } else if (same) {
        same =
            strcmp(ej.text, ed.text) == 0 && ej.line == ed.line && ej.column == ed.column && ej.position == ed.position;
    }
    json_decref(j);
    json_decref(d);
    return same;
}

UNIT_TEST(loadb_trees_as_jansson)
{
    static const char *const texts[] = {
        "{\"kind\":\"List\",\"items\":[{\"b\":1,\"a\":[true,false,null]}]}",
        "  \n[1, 2.5, -0, 0.0, 1E2, -3e-2, 9223372036854775807, -9223372036854775808]\n\t",
        "{\"s\":\"\\u00e9\\ud83d\\ude00 \\\"\\\\\\/\\b\\f\\n\\r\\t\",\"e\":{},\"a\":[]}",
        "{\"t\":1.7976931348623157e308,\"u\":2.2250738585072014e-308}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        CHECK(same_as_jansson(texts[i], 0));
        CHECK(same_as_jansson(texts[i], JSON_REJECT_DUPLICATES));
    }
}

UNIT_TEST(loadb_refusals_as_jansson)
{
    /* what Go reads and jansson refuses is jansson's error here too */
    static const char *const texts[] = {
        "{\"n\":123456789012345678901234567890}",
        "[-9223372036854775809]",
        "{\"r\":1e400}",
        "{\"s\":\"\xff ok\"}",
        "{\"s\":\"\\ud800 x\"}",
        "[\"\\udc00\"]",
        "{\"s\":\"a\\u0000b\"}",
        "{\"a\":1} x",
        "{\"a\":1}{}",
        "\"scalar\"",
        "",
        "   ",
        "{\"a\":",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        CHECK(same_as_jansson(texts[i], 0));
        CHECK(same_as_jansson(texts[i], JSON_REJECT_DUPLICATES));
    }
}

UNIT_TEST(loadb_duplicates_as_jansson)
{
    /* the last value without the flag, jansson's error with it */
    const char *text = "{\"a\":1,\"b\":{\"c\":2,\"c\":3},\"a\":4}";
    CHECK(same_as_jansson(text, 0));
    CHECK(same_as_jansson(text, JSON_REJECT_DUPLICATES));
    json_t *v = dra_json_loadb(text, strlen(text), 0, NULL);
    CHECK(v && json_integer_value(json_object_get(v, "a")) == 4);
    json_decref(v);
    CHECK(!dra_json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES, NULL));
}

UNIT_TEST(loadb_deep_as_jansson)
{
    char deep[2 * 700 + 1];
    for (int depth = 500; depth <= 700; depth += 100) {
        memset(deep, '[', (size_t)depth);
        memset(deep + depth, ']', (size_t)depth);
        deep[2 * depth] = '\0';
        CHECK(same_as_jansson(deep, 0));
    }
}

UNIT_MAIN()
