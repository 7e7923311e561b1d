/* The JSON tape: tokens, offsets, lookups and trees, against the fast path. */
#include <float.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "io/jline.h"
#include "io/jparse.h"
#include "io/tape.h"
#include "unit.h"

/* The tape's tree of text equals the fast path's (or both refuse it). */
static bool same_as_fast(const char *text, int max_depth)
{
    size_t n = strlen(text), uf = 0, ut = 0;
    json_t *fast = dra_json_parse(text, n, max_depth, &uf);
    dra_tape t = DRA_TAPE_INIT;
    json_t *tree = dra_tape_parse(&t, text, n, max_depth, &ut) ? dra_tape_tree(&t, 0) : NULL;
    bool same = !fast == !tree && (!fast || (uf == ut && json_equal(fast, tree)));
    json_decref(fast);
    json_decref(tree);
    dra_tape_free(&t);
    return same;
}

/* A text parsed into a tape (the readers' nesting limit). */
typedef struct parsed {
    dra_tape t;
    size_t used;
    bool ok;
} parsed;

static parsed parse_text(const char *text)
{
    parsed p = {DRA_TAPE_INIT, 0, false};
    p.ok = dra_tape_parse(&p.t, text, strlen(text), 64, &p.used);
    return p;
}

UNIT_TEST(tape_tokens_in_text_order)
{
    const char *text = "{\"a\": [1, 2.5, \"x\"], \"b\": {\"c\": null}, \"d\": true} rest";
    parsed p = parse_text(text);
    CHECK(p.ok);
    CHECK_INT(p.used, strlen(text) - 5);
    CHECK_INT(p.t.n, 12);
    CHECK_INT(p.t.tok[0].type, DRA_TAPE_OBJECT);
    CHECK_INT(p.t.tok[0].n, 3);
    CHECK_INT(p.t.tok[0].next, 12);
    CHECK_INT(p.t.tok[0].v.end, p.used);
    CHECK_INT(p.t.tok[2].type, DRA_TAPE_ARRAY);
    CHECK_INT(p.t.tok[2].off, 6);
    CHECK_INT(p.t.tok[2].v.end, 19);
    CHECK_INT(p.t.tok[2].next, 6);
    CHECK_INT(p.t.tok[3].type, DRA_TAPE_INT);
    CHECK_INT(p.t.tok[3].v.i, 1);
    CHECK_INT(p.t.tok[4].type, DRA_TAPE_REAL);
    CHECK(p.t.tok[4].v.d == 2.5);
    CHECK_INT(p.t.tok[5].type, DRA_TAPE_STRING);
    CHECK_INT(p.t.tok[5].n, 1);
    CHECK(p.t.tok[5].v.s == text + 16); /* plain strings point into the text */
    CHECK_INT(dra_tape_member(&p.t, 0, "b", 1), 7);
    CHECK_INT(p.t.tok[dra_tape_member(&p.t, 7, "c", 1)].type, DRA_TAPE_NULL);
    CHECK_INT(p.t.tok[dra_tape_member(&p.t, 0, "d", 1)].type, DRA_TAPE_TRUE);
    CHECK_INT(dra_tape_member(&p.t, 0, "e", 1), SIZE_MAX);
    CHECK_INT(dra_tape_member(&p.t, 2, "a", 1), SIZE_MAX); /* not an object */
    CHECK_INT(dra_tape_skip(&p.t, 2), 6);
    CHECK_INT(dra_tape_skip(&p.t, 3), 4);
    dra_tape_free(&p.t);
}

UNIT_TEST(tape_strings_decoded_into_its_arena)
{
    const char *text = "[\"a\\nb\", \"\\u00e9\\ud83d\\ude00\", \"\\udc00\", \"\xff!\"]";
    parsed p = parse_text(text);
    CHECK(p.ok);
    CHECK_INT(p.t.n, 5);
    CHECK_INT(p.t.tok[1].n, 3);
    CHECK(memcmp(p.t.tok[1].v.s, "a\nb", 3) == 0);
    CHECK(memcmp(p.t.tok[2].v.s, "\xc3\xa9\xf0\x9f\x98\x80", 6) == 0);
    CHECK(memcmp(p.t.tok[3].v.s, "\xef\xbf\xbd", 3) == 0);  /* a lone surrogate: U+FFFD */
    CHECK(memcmp(p.t.tok[4].v.s, "\xef\xbf\xbd!", 4) == 0); /* a byte that starts nothing */
    /* each kept apart, not in a scratch buffer the next string reuses */
    CHECK(p.t.tok[1].v.s != p.t.tok[2].v.s);
    dra_tape_free(&p.t);
}

UNIT_TEST(tape_numbers_as_go_reads_them)
{
    const char *text = "[9223372036854775807, 9223372036854775808, -1e999, 1e999, -0]";
    parsed p = parse_text(text);
    CHECK(p.ok);
    CHECK_INT(p.t.tok[1].type, DRA_TAPE_INT);
    CHECK(p.t.tok[1].v.i == INT64_MAX);
    CHECK_INT(p.t.tok[2].type, DRA_TAPE_REAL); /* past int64: a real */
    CHECK(p.t.tok[3].v.d == -DBL_MAX);
    CHECK(p.t.tok[4].v.d == DBL_MAX);
    CHECK_INT(p.t.tok[5].type, DRA_TAPE_INT);
    dra_tape_free(&p.t);
}

UNIT_TEST(tape_refuses_what_the_fast_path_refuses)
{
    static const char *const bad[] = {
        "",     " {}", "1",     "\"x\"",         "{",         "[1,]",       "{\"a\" 1}", "{\"a\":1,}", "[01]",
        "[1.]", "[-]", "[tru]", "[\"\\u0000\"]", "[\"\\x\"]", "[\"a\nb\"]", "{1:2}",     "[[[[1]]]]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        dra_tape t = DRA_TAPE_INIT;
        size_t used = 0;
        CHECK(!dra_tape_parse(&t, bad[i], strlen(bad[i]), 3, &used));
        CHECK_INT(t.n, 0);
        CHECK(same_as_fast(bad[i], 3));
        dra_tape_free(&t);
    }
}

UNIT_TEST(tape_repeated_keys_refused_when_built)
{
    const char *text = "{\"ok\": {\"a\": 1}, \"dup\": {\"a\": 1, \"a\": 2}}";
    parsed p = parse_text(text);
    CHECK(p.ok);
    CHECK(dra_tape_tree(&p.t, 0) == NULL);
    json_t *ok = dra_tape_tree(&p.t, dra_tape_member(&p.t, 0, "ok", 2));
    CHECK(ok && json_integer_value(json_object_get(ok, "a")) == 1);
    json_decref(ok);
    /* the first of two is the one found */
    size_t dup = dra_tape_member(&p.t, 0, "dup", 3);
    CHECK_INT(p.t.tok[dra_tape_member(&p.t, dup, "a", 1)].v.i, 1);
    CHECK(same_as_fast(text, 64));
    dra_tape_free(&p.t);
}

UNIT_TEST(tape_trees_equal_the_fast_paths)
{
    static const char *const texts[] = {
        "{}",
        "[]",
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"a\":{\"b\":[1,2,{\"c\":\"d\"}]}},{}]}",
        "[1, -2.5e3, \"s\\\"q\", null, false, true, {\"k\\u0041\": []}]\n",
        "[[[1]]]",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        CHECK(same_as_fast(texts[i], 64));
        CHECK(same_as_fast(texts[i], 3));
    }
}

UNIT_TEST(tape_reused_after_a_refusal)
{
    dra_tape t = DRA_TAPE_INIT;
    size_t used = 0;
    const char *a = "[\"a\\tb\", 1, 2]", *b = "[1, 2", *c = "{\"x\\ty\": 3}";
    CHECK(dra_tape_parse(&t, a, strlen(a), 64, &used));
    CHECK(!dra_tape_parse(&t, b, strlen(b), 64, &used));
    CHECK_INT(t.n, 0);
    CHECK(dra_tape_parse(&t, c, strlen(c), 64, &used));
    CHECK_INT(t.n, 3);
    CHECK(memcmp(t.tok[1].v.s, "x\ty", 3) == 0);
    dra_tape_free(&t);
}

/* A value the line writer copies from the text (plain) or walks; either
 * way its line is the one jansson's tree of it gives. */
static bool line_case(const char *text, bool plain)
{
    dra_tape t = DRA_TAPE_INIT;
    t.as_jansson = true;
    size_t used = 0;
    bool ok = dra_tape_parse(&t, text, strlen(text), 64, &used) && t.tok[0].plain == plain;
    json_t *tree = json_loads(text, 0, NULL);
    dra_buf a = DRA_BUF_INIT, b = DRA_BUF_INIT;
    ok = ok && tree && dra_json_write_line_tape(&a, &t, 0) && dra_json_write_line(&b, tree) && a.len == b.len &&
         memcmp(a.data, b.data, a.len) == 0;
    json_decref(tree);
    dra_buf_free(&a);
    dra_buf_free(&b);
    dra_tape_free(&t);
    return ok;
}

UNIT_TEST(tape_lines_copied_where_the_text_is_the_line)
{
    CHECK(line_case("{\"a\":[1,-2,true,null],\"b\":{\"c\":\"\xc3\xa9<>&\"}}", true));
    CHECK(line_case("{\"a\": 1}", false));           /* white space */
    CHECK(line_case("{\"a\":\"x\\u0041\"}", false)); /* an escape */
    CHECK(line_case("{\"a\":1.50}", false));         /* a real */
    CHECK(line_case("{\"a\":-0}", false));           /* "-0" is 0 */
    CHECK(line_case("[{\"a\":1},{\"b\": 2}]", false));
    /* a key twice: no line (jansson's tree keeps the last value) */
    dra_tape t = DRA_TAPE_INIT;
    size_t used = 0;
    const char *dup = "{\"a\":1,\"a\":2}";
    dra_buf b = DRA_BUF_INIT;
    CHECK(dra_tape_parse(&t, dup, strlen(dup), 64, &used));
    CHECK(!t.tok[0].plain);
    CHECK(!dra_json_write_line_tape(&b, &t, 0));
    dra_buf_free(&b);
    dra_tape_free(&t);
}

UNIT_TEST(tape_as_jansson_refuses_what_jansson_refuses)
{
    dra_tape t = DRA_TAPE_INIT;
    t.as_jansson = true;
    size_t used = 0;
    const char *bad[] = {"[\"\xff\"]", "[\"\\ud800\"]", "[123456789012345678901234567890]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK(!dra_tape_parse(&t, bad[i], strlen(bad[i]), 64, &used));
        CHECK(!json_loads(bad[i], 0, NULL));
    }
    t.as_jansson = false;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(dra_tape_parse(&t, bad[i], strlen(bad[i]), 64, &used));
    dra_tape_free(&t);
}

UNIT_MAIN()
