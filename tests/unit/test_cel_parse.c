/* Unit tests for the CEL lexer/parser/macros (src/common/cel/parser.h). */
#include "unit.h"

#include <string.h>

#include "base/buf.h"
#include "cel/ast.h"
#include "cel/parser.h"

/* Parse and render the AST (debug form) or the first error "L:C: msg". */
static char *parse_str(const char *src)
{
    dra_arena a = DRA_ARENA_INIT;
    cel_ast *ast = NULL;
    dra_err *e = cel_parse(src, strlen(src), NULL, &a, &ast);
    char *out;
    if (e) {
        out = dra_xasprintf("%d:%d: %s", e->line, e->col, e->msg);
        dra_err_free(e);
    } else {
        out = cel_ast_debug(ast->root);
    }
    dra_arena_free(&a);
    return out;
}

/* clang-format off */
#define P(src, want)                    \
    do {                                \
        char *got_ = parse_str(src);    \
        CHECK_STR(got_, want);          \
        free(got_);                     \
    } while (0)
/* clang-format on */

/* Only the error message of the first error. */
#define PERR(src, want) P(src, want)

UNIT_TEST(literals_int)
{
    P("0", "0");
    P("42", "42");
    P("-42", "-42");
    P("0x1F", "31");
    P("-0x10", "-16");
    P("9223372036854775807", "9223372036854775807");
    P("-9223372036854775808", "-9223372036854775808");
    PERR("9223372036854775808", "1:1: invalid int literal");
    PERR("-9223372036854775809", "1:1: invalid int literal");
    P("- 5", "-5");
}

UNIT_TEST(literals_uint)
{
    P("1u", "1u");
    P("1U", "1u");
    P("0xFFu", "255u");
    P("18446744073709551615u", "18446744073709551615u");
    PERR("18446744073709551616u", "1:1: invalid uint literal");
    P("-1u", "-_(1u)");
}

UNIT_TEST(literals_double)
{
    P("1.5", "1.5");
    P("-2.5", "-2.5");
    P(".5", "0.5");
    P("1e3", "1000.0");
    P("1E-2", "0.01");
    P("1.5e+2", "150.0");
    P("1e", "1:2: Syntax error: extraneous input 'e' expecting <EOF>");
    PERR("1e999", "1:1: invalid double literal");
    P("1.size()", "1.size()");
}

UNIT_TEST(literals_other)
{
    P("true", "true");
    P("false", "false");
    P("null", "null");
    P("'abc'", "\"abc\"");
    P("\"abc\"", "\"abc\"");
    P("'''a\nb'''", "\"a\\nb\"");
    P("\"\"\"x\"y\"\"\"", "\"x\\\"y\"");
    P("r'\\n'", "\"\\\\n\"");
    P("R\"\\d\"", "\"\\\\d\"");
    P("b'abc'", "b\"abc\"");
    P("B\"\\xff\"", "b\"\\xff\"");
    P("br'\\x'", "b\"\\\\x\"");
    P("''", "\"\"");
}

UNIT_TEST(escapes)
{
    P("'\\a\\b\\f\\n\\r\\t\\v'", "\"\\x07\\x08\\x0c\\n\\x0d\\x09\\x0b\"");
    P("'\\\\ \\' \\\" \\? \\`'", "\"\\\\ ' \\\" ? `\"");
    P("'\\x41\\101\\u0041\\U00000041'", "\"AAAA\"");
    P("'\\u00e9'", "\"\xc3\xa9\"");
    P("'\\xff'", "\"\xc3\xbf\"");                         /* code point in strings */
    P("b'\\xff\\377'", "b\"\\xff\\xff\"");                /* raw bytes in bytes */
    PERR("b'\\u00e9'", "1:1: unable to unescape string"); /* no \\u, \\U in bytes */
    PERR("'\\ud800'", "1:1: unable to unescape string");
    PERR("'\\U00110000'", "1:1: unable to unescape string");
    PERR("'\\q'", "1:1: Syntax error: token recognition error at: ''\\q'");
    PERR("'abc", "1:1: Syntax error: token recognition error at: ''abc'");
    PERR("'a\nb'", "1:1: Syntax error: token recognition error at: ''a\n'"); /* raw, as antlr4-go has it */
    PERR("'\xff'", "1:2: Syntax error: invalid UTF-8 input");
    P("'\xe2\x82\xac'", "\"\xe2\x82\xac\"");
}

UNIT_TEST(identifiers)
{
    P("a", "a");
    P("_x1", "_x1");
    P(".a", ".a");
    P(".a.b", ".a.b");
    P("a.b.c", "a.b.c");
    P("a.`b-c`", "a.b-c");
    P("a.if", "a.if");
    PERR("if", "1:1: reserved identifier: if");
    PERR("while", "1:1: reserved identifier: while");
    PERR("package", "1:1: reserved identifier: package");
    PERR("a.b + var", "1:7: reserved identifier: var");
    PERR("in", "1:1: Syntax error: mismatched input 'in' expecting "
               "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, "
               "IDENTIFIER}");
    P("a.true", "1:3: Syntax error: mismatched input 'true' expecting IDENTIFIER");
}

UNIT_TEST(precedence)
{
    P("a || b && c", "_||_(a, _&&_(b, c))");
    P("a && b || c", "_||_(_&&_(a, b), c)");
    P("a + b * c", "_+_(a, _*_(b, c))");
    P("a * b + c", "_+_(_*_(a, b), c)");
    P("a - b - c", "_-_(_-_(a, b), c)");
    P("a / b % c", "_%_(_/_(a, b), c)");
    P("a < b == c", "_==_(_<_(a, b), c)");
    P("a + 1 < b", "_<_(_+_(a, 1), b)");
    P("x in [1, 2]", "@in(x, [1, 2])");
    P("a ? b : c ? d : e", "_?_:_(a, b, _?_:_(c, d, e))");
    P("a || b ? c : d", "_?_:_(_||_(a, b), c, d)");
    P("!a", "!_(a)");
    P("!!a", "a");
    P("!!!a", "!_(a)");
    P("-a", "-_(a)");
    P("--a", "a");
    P("--1", "1");
    P("-(1)", "-_(1)");
    P("-a.b", "-_(a.b)");
    P("a.b[1].c(2)", "_[_](a.b, 1).c(2)");
}

UNIT_TEST(precedence_more)
{
    P("a.b[1]", "_[_](a.b, 1)");
    P("a.f(1, 2)", "a.f(1, 2)");
    P("f(a)(b)", "1:5: Syntax error: mismatched input '(' expecting <EOF>");
    P("(a + b) * c", "_*_(_+_(a, b), c)");
    P("a && b && c && d", "_&&_(_&&_(a, b), _&&_(c, d))");
    P("a || b || c", "_||_(_||_(a, b), c)");
    P("a <= b != c >= d", "_>=_(_!=_(_<=_(a, b), c), d)");
    P("a > b", "_>_(a, b)");
    P("1 + 2 - 3 * 4 / 5 % 6", "_-_(_+_(1, 2), _%_(_/_(_*_(3, 4), 5), 6))");
}

UNIT_TEST(aggregates)
{
    P("[]", "[]");
    P("[1, 2, 3]", "[1, 2, 3]");
    P("[1, 2,]", "[1, 2]");
    P("[,]", "[]");
    P("{}", "{}");
    P("{'a': 1, 'b': 2}", "{\"a\":1, \"b\":2}");
    P("{'a': 1,}", "{\"a\":1}");
    P("Msg{}", "Msg{}");
    P("a.b.Msg{f: 1, g: 'x'}", "a.b.Msg{f:1, g:\"x\"}");
    P(".Msg{f: 1}", ".Msg{f:1}");
    P("Msg{`f-g`: 1}", "Msg{f-g:1}");
    P("[1, 2", "1:6: Syntax error: mismatched input '<EOF>' expecting {']', ','}");
    P("{'a' 1}", "1:6: Syntax error: missing ':' at '1'");
}

UNIT_TEST(optional_syntax)
{
    P("a.?b", "_?._(a, \"b\")");
    P("a[?'k']", "_[?_](a, \"k\")");
    P("[?a, b]", "[?a, b]");
    P("{?'k': v}", "{?\"k\":v}");
    P("Msg{?f: v}", "Msg{?f:v}");
    P("a.?b.c", "_?._(a, \"b\").c");
    dra_arena a = DRA_ARENA_INIT;
    cel_ast *ast;
    cel_parse_limits lim = {.disable_optional_syntax = true};
    dra_err *e = cel_parse("a.?b", 4, &lim, &a, &ast);
    CHECK(e != NULL);
    if (e)
        CHECK_STR(e->msg, "unsupported syntax '.?'");
    dra_err_free(e);
    e = cel_parse("[?a]", 4, &lim, &a, &ast);
    CHECK(e != NULL);
    if (e)
        CHECK_STR(e->msg, "unsupported syntax '?'");
    dra_err_free(e);
    e = cel_parse("a[?b]", 5, &lim, &a, &ast);
    CHECK(e && !strcmp(e->msg, "unsupported syntax '[?'"));
    dra_err_free(e);
    dra_arena_free(&a);
}

UNIT_TEST(macros_standard)
{
    P("has(a.b)", "a.b~test-only~");
    PERR("has(a)", "1:5: invalid argument to has() macro");
    P("l.all(x, x > 0)",
      "__comprehension__(x, l, @result, true, @not_strictly_false(@result), _&&_(@result, _>_(x, 0)), @result)");
    P("l.exists(x, x > 0)",
      "__comprehension__(x, l, @result, false, @not_strictly_false(!_(@result)), _||_(@result, _>_(x, 0)), @result)");
    P("l.exists_one(x, x > 0)",
      "__comprehension__(x, l, @result, 0, true, _?_:_(_>_(x, 0), _+_(@result, 1), @result), _==_(@result, 1))");
    P("l.existsOne(x, p)",
      "__comprehension__(x, l, @result, 0, true, _?_:_(p, _+_(@result, 1), @result), _==_(@result, 1))");
    P("l.map(x, x * 2)", "__comprehension__(x, l, @result, [], true, _+_(@result, [_*_(x, 2)]), @result)");
    P("l.map(x, x > 1, x * 2)",
      "__comprehension__(x, l, @result, [], true, _?_:_(_>_(x, 1), _+_(@result, [_*_(x, 2)]), @result), @result)");
    P("l.filter(x, x > 1)",
      "__comprehension__(x, l, @result, [], true, _?_:_(_>_(x, 1), _+_(@result, [x]), @result), @result)");
    PERR("l.all(x.y, true)", "1:8: argument must be a simple name");
    PERR("l.map(1, true)", "1:7: argument is not an identifier");
    PERR("l.all(__result__, true)", "1:7: iteration variable overwrites accumulator variable");
    P("l.all(x)", "l.all(x)"); /* wrong arity: ordinary call */
    P("all(l, x, true)", "all(l, x, true)");
}

UNIT_TEST(macros_two_var_bind_opt)
{
    P("m.all(k, v, v > k)",
      "__comprehension__(k, v, m, @result, true, @not_strictly_false(@result), _&&_(@result, _>_(v, k)), @result)");
    P("m.exists(k, v, v)",
      "__comprehension__(k, v, m, @result, false, @not_strictly_false(!_(@result)), _||_(@result, v), @result)");
    P("m.existsOne(k, v, v)",
      "__comprehension__(k, v, m, @result, 0, true, _?_:_(v, _+_(@result, 1), @result), _==_(@result, 1))");
    P("l.transformList(i, v, v * i)",
      "__comprehension__(i, v, l, @result, [], true, _+_(@result, [_*_(v, i)]), @result)");
    P("l.transformList(i, v, i > 0, v)",
      "__comprehension__(i, v, l, @result, [], true, _?_:_(_>_(i, 0), _+_(@result, [v]), @result), @result)");
    P("m.transformMap(k, v, v + 1)",
      "__comprehension__(k, v, m, @result, {}, true, cel.@mapInsert(@result, k, _+_(v, 1)), @result)");
    P("m.transformMapEntry(k, v, {v: k})",
      "__comprehension__(k, v, m, @result, {}, true, cel.@mapInsert(@result, {v:k}), @result)");
    PERR("m.all(k, k, true)", "1:10: duplicate variable name: k");
    P("cel.bind(x, 1, x + 1)", "__comprehension__(#unused, [], x, 1, false, x, _+_(x, 1))");
    P("other.bind(x, 1, x)", "other.bind(x, 1, x)");
    PERR("cel.bind(x.y, 1, 2)", "1:11: cel.bind() variable names must be simple identifiers");
    P("o.optMap(v, v + 1)", "_?_:_(o.hasValue(), optional.of(__comprehension__(#unused, [], v, o.value(), false, v, "
                            "_+_(v, 1))), optional.none())");
    P("o.optFlatMap(v, f(v))",
      "_?_:_(o.hasValue(), __comprehension__(#unused, [], v, o.value(), false, v, f(v)), optional.none())");
}

UNIT_TEST(macro_ids_unique)
{
    dra_arena a = DRA_ARENA_INIT;
    cel_ast *ast;
    const char *src = "o.optMap(v, v + 1)";
    CHECK(cel_parse(src, strlen(src), NULL, &a, &ast) == NULL);
    /* the copied target has a fresh id */
    cel_node *root = ast->root;
    cel_node *has = root->u.call.args[0];
    cel_node *comp = root->u.call.args[1]->u.call.args[0];
    CHECK(has->u.call.target->id != comp->u.comp.accu_init->u.call.target->id);
    CHECK(ast->max_id >= root->id);
    CHECK(cel_ast_find(root, has->u.call.target->id) == has->u.call.target);
    dra_arena_free(&a);
}

UNIT_TEST(errors_and_positions)
{
    P("", "1:1: Syntax error: mismatched input '<EOF>' expecting "
          "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, "
          "IDENTIFIER}");
    P("device.x ==", "1:12: Syntax error: mismatched input '<EOF>' expecting "
                     "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, "
                     "BYTES, IDENTIFIER}");
    P("1 2", "1:3: Syntax error: extraneous input '2' expecting <EOF>");
    P("1 2 3", "1:3: Syntax error: mismatched input '2' expecting <EOF>");
    P("a #", "1:3: Syntax error: token recognition error at: '#'");
    P("f(1,", "1:5: Syntax error: mismatched input '<EOF>' expecting "
              "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, "
              "IDENTIFIER}");
    P("(a", "1:3: Syntax error: missing ')' at '<EOF>'");
    P("a ? b", "1:6: Syntax error: mismatched input '<EOF>' expecting ':'");
    P("a\n  + if", "2:5: reserved identifier: if");
    P("'\xc3\xa9' + if", "1:7: reserved identifier: if"); /* columns count code points */
    P("a = b", "1:3: Syntax error: token recognition error at: '= '");
}

UNIT_TEST(error_display)
{
    char *c = cel_error_caret("device.x ==", 11, 1, 12);
    CHECK_STR(c, " | device.x ==\n | ...........^");
    free(c);
    c = cel_error_caret("a\n\tb c", 6, 2, 3);
    CHECK_STR(c, " |  b c\n | ..^");
    free(c);
    c = cel_error_caret("\xc3\xa9x", 3, 1, 2);
    CHECK_STR(c, " | \xc3\xa9x\n | \xef\xbc\x8e^");
    free(c);
    CHECK(cel_error_caret("a", 1, 3, 1) == NULL);

    dra_arena a = DRA_ARENA_INIT;
    cel_ast *ast;
    const char *src = "x == if";
    dra_err *e = cel_parse(src, strlen(src), NULL, &a, &ast);
    char *d = cel_errors_display(e, src, strlen(src));
    CHECK_STR(d, "ERROR: <input>:1:6: reserved identifier: if\n | x == if\n | .....^");
    free(d);
    dra_err_free(e);
    dra_arena_free(&a);
}

/* cel-go echoes a NUL byte of the expression raw, in the lexer's message
 * and in the snippet under it */
UNIT_TEST(display_keeps_nul_bytes)
{
    dra_arena a = DRA_ARENA_INIT;
    cel_ast *ast;
    dra_err *e = cel_parse("\0", 1, NULL, &a, &ast);
    CHECK(e != NULL);
    size_t n = 0;
    char *d = cel_errors_display_n(e, "\0", 1, &n);
    static const char want[] = "ERROR: <input>:1:1: Syntax error: token recognition error at: '\0'\n | \0\n | ^\n"
                               "ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', "
                               "'.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, "
                               "IDENTIFIER}\n | \0\n | .^";
    CHECK_INT(n, sizeof want - 1);
    CHECK(d && memcmp(d, want, sizeof want - 1) == 0);
    free(d);
    dra_err_free(e);
    dra_arena_free(&a);
}

/* cel-go's ANTLR parser: a stray token before an operand is deleted
 * ("extraneous input"), a '-' at the end is ambiguous before it is missing */
UNIT_TEST(antlr_recovery_words)
{
    static const char set[] = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
                              "STRING, BYTES, IDENTIFIER}";
    dra_arena a = DRA_ARENA_INIT;
    cel_ast *ast;
    dra_err *e = cel_parse("+1", 2, NULL, &a, &ast);
    char *d = cel_errors_display(e, "+1", 2);
    char *want = dra_xasprintf("ERROR: <input>:1:1: Syntax error: extraneous input '+' expecting %s\n | +1\n | ^", set);
    CHECK_STR(d, want);
    free(want);
    free(d);
    dra_err_free(e);
    e = cel_parse("--", 2, NULL, &a, &ast);
    d = cel_errors_display(e, "--", 2);
    want = dra_xasprintf("ERROR: <input>:1:3: Syntax error: no viable alternative at input '-'\n | --\n | ..^\n"
                         "ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting %s\n | --\n | ..^",
                         set);
    CHECK_STR(d, want);
    free(want);
    free(d);
    dra_err_free(e);
    dra_arena_free(&a);
}

/* Each case's source parsed: every error as cel-go shows them. */
static void check_displays(int *unit_failed, const char *const (*cases)[2], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        dra_arena a = DRA_ARENA_INIT;
        cel_ast *ast = NULL;
        const char *src = cases[i][0];
        dra_err *e = cel_parse(src, strlen(src), NULL, &a, &ast);
        char *d = e ? cel_errors_display(e, src, strlen(src)) : dra_xstrdup("(parsed)");
        CHECK_STR(d, cases[i][1]);
        free(d);
        dra_err_free(e);
        dra_arena_free(&a);
    }
}

/* cel-go's ANTLR error strategy, byte for byte (upstream-cel check): what
 * its adaptive prediction cannot decide ("no viable alternative", with
 * the reserved-word rewrite of parser.go), single-token deletion and
 * insertion at a match, the expected sets of each rule's start, the
 * lexer's fallback to the last accepted token. */
UNIT_TEST(antlr_error_strategy)
{
    /* clang-format off */
    static const char *const cases[][2] = {
        {".",
         "ERROR: <input>:1:2: Syntax error: no viable alternative at input '.'\n | .\n | .^"},
        {"a.",
         "ERROR: <input>:1:3: Syntax error: no viable alternative at input '.'\n | a.\n | ..^"},
        {"..",
         "ERROR: <input>:1:2: Syntax error: no viable alternative at input '..'\n | ..\n | .^"},
        {"a..b",
         "ERROR: <input>:1:3: Syntax error: no viable alternative at input '..'\n | a..b\n | ..^"},
        {"a.(",
         "ERROR: <input>:1:3: Syntax error: no viable alternative at input '.('\n | a.(\n | ..^"},
        {".a.",
         "ERROR: <input>:1:4: Syntax error: no viable alternative at input '.'\n | .a.\n | ...^"},
        {"a.null",
         "ERROR: <input>:1:3: Syntax error: mismatched input 'null' expecting IDENTIFIER\n | a.null\n | ..^"},
        {"1..2",
         "ERROR: <input>:1:3: Syntax error: no viable alternative at input '..2'\n | 1..2\n | ..^"},
        {"a[1",
         "ERROR: <input>:1:4: Syntax error: missing ']' at '<EOF>'\n | a[1\n | ...^"},
        {"a[",
         "ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | a[\n | ..^"},
        {"f(",
         "ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | f(\n | ..^"},
        {"f(1 2)",
         "ERROR: <input>:1:5: Syntax error: extraneous input '2' expecting ')'\n | f(1 2)\n | ....^"},
        {"{1 2}",
         "ERROR: <input>:1:4: Syntax error: missing ':' at '2'\n | {1 2}\n | ...^"},
        {"[,1]",
         "ERROR: <input>:1:3: Syntax error: extraneous input '1' expecting ']'\n | [,1]\n | ..^"},
        {"[1,",
         "ERROR: <input>:1:4: Syntax error: missing ']' at '<EOF>'\n | [1,\n | ...^"},
        {"[1 2]",
         "ERROR: <input>:1:4: Syntax error: extraneous input '2' expecting {']', ','}\n | [1 2]\n | ...^"},
        {"{1:2,",
         "ERROR: <input>:1:6: Syntax error: missing '}' at '<EOF>'\n | {1:2,\n | .....^"},
        {"[",
         "ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', ']', '{', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | [\n | .^"},
        {"{",
         "ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | {\n | .^"},
        {"has(a",
         "ERROR: <input>:1:5: invalid argument to has() macro\n | has(a\n | ....^\nERROR: <input>:1:6: Syntax error: missing ')' at '<EOF>'\n | has(a\n | .....^"},
        {"has(a..b)",
         "ERROR: <input>:1:5: invalid argument to has() macro\n | has(a..b)\n | ....^\nERROR: <input>:1:7: Syntax error: no viable alternative at input '..'\n | has(a..b)\n | ......^"},
        {"has(a.b..c)",
         "ERROR: <input>:1:9: Syntax error: no viable alternative at input '..'\n | has(a.b..c)\n | ........^"},
        {"1 =! 1",
         "ERROR: <input>:1:3: Syntax error: token recognition error at: '=!'\n | 1 =! 1\n | ..^\nERROR: <input>:1:6: Syntax error: extraneous input '1' expecting <EOF>\n | 1 =! 1\n | .....^"},
        {"r'",
         "ERROR: <input>:1:2: Syntax error: token recognition error at: '''\n | r'\n | .^"},
        {"!",
         "ERROR: <input>:1:2: Syntax error: extraneous input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | !\n | .^"},
        {"A{",
         "ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}\n | A{\n | ..^"},
        {"A{1:2}",
         "ERROR: <input>:1:3: Syntax error: mismatched input '1' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}\n | A{1:2}\n | ..^"},
        {"a.?==x",
         "ERROR: <input>:1:4: Syntax error: extraneous input '==' expecting {IDENTIFIER, ESC_IDENTIFIER}\n | a.?==x\n | ...^"},
        {"a.?",
         "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {IDENTIFIER, ESC_IDENTIFIER}\n | a.?\n | ...^\nERROR: <input>:1:4: unsupported ident kind\n | a.?\n | ...^"},
        {"f(,)",
         "ERROR: <input>:1:3: Syntax error: extraneous input ',' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | f(,)\n | ..^"},
        /* errors met while recovering */
        {"+",
         "ERROR: <input>:1:1: Syntax error: mismatched input '+' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | +\n | ^\nERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | +\n | .^"},
        {"/* c */",
         "ERROR: <input>:1:1: Syntax error: mismatched input '/' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | /* c */\n | ^\nERROR: <input>:1:2: Syntax error: extraneous input '*' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | /* c */\n | .^\nERROR: <input>:1:7: Syntax error: mismatched input '/' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | /* c */\n | ......^\nERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | /* c */\n | .......^"},
        {"?",
         "ERROR: <input>:1:1: Syntax error: mismatched input '?' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | ?\n | ^\nERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | ?\n | .^"},
        {"!in",
         "ERROR: <input>:1:2: Syntax error: extraneous input 'in' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | !in\n | .^\nERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | !in\n | ...^"},
        {"[1 +]",
         "ERROR: <input>:1:5: Syntax error: mismatched input ']' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | [1 +]\n | ....^"},
        {"1 % `é6",
         "ERROR: <input>:1:5: Syntax error: token recognition error at: '`é'\n | 1 % `é6\n | ....^"},
        {"a.b.c(d, e[f[]).g",
         "ERROR: <input>:1:14: Syntax error: mismatched input ']' expecting {'[', '{', '(', '.', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | a.b.c(d, e[f[]).g\n | .............^"},
        {"cel.bindv(, ",
         "ERROR: <input>:1:11: Syntax error: mismatched input ',' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | cel.bindv(, \n | ..........^"},
        {"a.?1.b",
         "ERROR: <input>:1:4: Syntax error: mismatched input '1' expecting {IDENTIFIER, ESC_IDENTIFIER}\n | a.?1.b\n | ...^\nERROR: <input>:1:4: unsupported ident kind\n | a.?1.b\n | ...^"},
        {"a.`b",
         "ERROR: <input>:1:3: Syntax error: token recognition error at: '`b'\n | a.`b\n | ..^\nERROR: <input>:1:5: Syntax error: no viable alternative at input '.'\n | a.`b\n | ....^"},
        {"has(",
         "ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | has(\n | ....^"},
        {"'''''",
         "ERROR: <input>:1:3: Syntax error: extraneous input '''' expecting <EOF>\n | '''''\n | ..^\nERROR: <input>:1:5: Syntax error: token recognition error at: '''\n | '''''\n | ....^"},
        {"'''x",
         "ERROR: <input>:1:3: Syntax error: token recognition error at: ''x'\n | '''x\n | ..^"},
        {"r'''x",
         "ERROR: <input>:1:4: Syntax error: token recognition error at: ''x'\n | r'''x\n | ...^"},
        {"'\\x4'",
         "ERROR: <input>:1:1: Syntax error: token recognition error at: ''\\x4''\n | '\\x4'\n | ^\nERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | '\\x4'\n | .....^"},
        {"'\\u12'",
         "ERROR: <input>:1:1: Syntax error: token recognition error at: ''\\u12''\n | '\\u12'\n | ^\nERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | '\\u12'\n | ......^"},
        {"'\\0'",
         "ERROR: <input>:1:1: Syntax error: token recognition error at: ''\\0''\n | '\\0'\n | ^\nERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | '\\0'\n | ....^"},
        {"'a\nb'",
         "ERROR: <input>:1:1: Syntax error: token recognition error at: ''a\n'\n | 'a\n | ^\nERROR: <input>:2:2: Syntax error: token recognition error at: '''\n | b'\n | .^"},
        {"-!",
         "ERROR: <input>:1:2: Syntax error: no viable alternative at input '-!'\n | -!\n | .^\nERROR: <input>:1:3: Syntax error: extraneous input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | -!\n | ..^"},
        {"!-",
         "ERROR: <input>:1:3: Syntax error: no viable alternative at input '-'\n | !-\n | ..^\nERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | !-\n | ..^"},
        {"!-1u",
         "ERROR: <input>:1:3: Syntax error: no viable alternative at input '-1u'\n | !-1u\n | ..^"},
        {"--!",
         "ERROR: <input>:1:3: Syntax error: no viable alternative at input '-!'\n | --!\n | ..^\nERROR: <input>:1:4: Syntax error: extraneous input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | --!\n | ...^"},
        {"[1true, 2]",
         "ERROR: <input>:1:3: Syntax error: extraneous input 'true' expecting {']', ','}\n | [1true, 2]\n | ..^\nERROR: <input>:1:9: Syntax error: extraneous input '2' expecting ']'\n | [1true, 2]\n | ........^"},
        {"{<=}",
         "ERROR: <input>:1:2: Syntax error: extraneous input '<=' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | {<=}\n | .^"},
        {"x[]?y]",
         "ERROR: <input>:1:3: Syntax error: extraneous input ']' expecting {'[', '{', '(', '.', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | x[]?y]\n | ..^"},
        {"[)1]",
         "ERROR: <input>:1:2: Syntax error: extraneous input ')' expecting {'[', ']', '{', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | [)1]\n | .^"},
    };
    /* clang-format on */
    check_displays(unit_failed, cases, sizeof cases / sizeof *cases);
}

/* The input a failed prediction names: the tokens' text and the hidden
 * ones between them, not what the lexer refused; tabs and line ends
 * escaped (DefaultErrorStrategy escapeWSAndQuote). */
UNIT_TEST(antlr_input_text)
{
    /* clang-format off */
    static const char *const cases[][2] = {
        {"a.\"b.c(d, [f]).g",
         "ERROR: <input>:1:3: Syntax error: token recognition error at: '\"b.c(d, [f]).g'\n | a.\"b.c(d, [f]).g\n | ..^\n"
         "ERROR: <input>:1:17: Syntax error: no viable alternative at input '.'\n | a.\"b.c(d, [f]).g\n | ................^"},
        {"a.`b == 'c'",
         "ERROR: <input>:1:3: Syntax error: token recognition error at: '`b ='\n | a.`b == 'c'\n | ..^\n"
         "ERROR: <input>:1:7: Syntax error: token recognition error at: '= '\n | a.`b == 'c'\n | ......^\n"
         "ERROR: <input>:1:9: Syntax error: no viable alternative at input '.'c''\n | a.`b == 'c'\n | ........^"},
        {"a.b.\n(cd, e[f]).g",
         "ERROR: <input>:2:1: Syntax error: no viable alternative at input '.\\n('\n | (cd, e[f]).g\n | ^"},
        {"a.\t\r(",
         "ERROR: <input>:1:5: Syntax error: no viable alternative at input '.\\t\\r('\n | a. \r(\n | ....^"},
    };
    /* clang-format on */
    check_displays(unit_failed, cases, sizeof cases / sizeof *cases);
}

/* A stray token before an expression is deleted at unary's sync, before
 * member is entered: recovery after it does not stop at a '.' or '[',
 * and no member loop goes on after the operand recovered. */
UNIT_TEST(antlr_deletion_before_unary)
{
    /* clang-format off */
    static const char *const cases[][2] = {
        {"A{a: 1, b:: [1.., 2]}.a == 1",
         "ERROR: <input>:1:11: Syntax error: extraneous input ':' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | A{a: 1, b:: [1.., 2]}.a == 1\n | ..........^\nERROR: <input>:1:16: Syntax error: no viable alternative at input '..'\n | A{a: 1, b:: [1.., 2]}.a == 1\n | ...............^"},
        {"*a.b.c(d,x e[f]).g",
         "ERROR: <input>:1:1: Syntax error: extraneous input '*' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | *a.b.c(d,x e[f]).g\n | ^\nERROR: <input>:1:12: Syntax error: mismatched input 'e' expecting ')'\n | *a.b.c(d,x e[f]).g\n | ...........^"},
        {"!=size(a..b) > 3 && c",
         "ERROR: <input>:1:1: Syntax error: extraneous input '!=' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | !=size(a..b) > 3 && c\n | ^\nERROR: <input>:1:10: Syntax error: no viable alternative at input '..'\n | !=size(a..b) > 3 && c\n | .........^"},
    };
    /* clang-format on */
    check_displays(unit_failed, cases, sizeof cases / sizeof *cases);
}

/* What ANTLR parses but cel-go's visitor leaves: the arguments of a
 * reserved word's call, a map key with no ':' (only their syntax errors
 * are reported). */
UNIT_TEST(antlr_parsed_unvisited)
{
    /* clang-format off */
    static const char *const cases[][2] = {
        {"1 + as (4 -5) % 6",
         "ERROR: <input>:1:5: reserved identifier: as\n | 1 + as (4 -5) % 6\n | ....^"},
        {"for(a.all(1, x))",
         "ERROR: <input>:1:1: reserved identifier: for\n | for(a.all(1, x))\n | ^"},
        {"as(1 +)",
         "ERROR: <input>:1:1: reserved identifier: as\n | as(1 +)\n | ^\nERROR: <input>:1:7: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | as(1 +)\n | ......^"},
        {"{for}",
         "ERROR: <input>:1:5: Syntax error: mismatched input '}' expecting ':'\n | {for}\n | ....^"},
        {"{if: 1}",
         "ERROR: <input>:1:2: reserved identifier: if\n | {if: 1}\n | .^"},
        {"{1: 2, a.all(1, x)}",
         "ERROR: <input>:1:19: Syntax error: mismatched input '}' expecting ':'\n | {1: 2, a.all(1, x)}\n | ..................^"},
    };
    /* clang-format on */
    check_displays(unit_failed, cases, sizeof cases / sizeof *cases);
}

/* A '.' that starts no name: primary's prediction fails before any
 * alternative, and cel-go's visitor makes an expression at NoLocation of
 * the context it does not know; a macro refusing it says 1:0. */
UNIT_TEST(antlr_primary_no_location)
{
    /* clang-format off */
    static const char *const cases[][2] = {
        {"has(..a)",
         "ERROR: <input>:1:0: invalid argument to has() macro\n | has(..a)\n | ^\nERROR: <input>:1:6: Syntax error: no viable alternative at input '..'\n | has(..a)\n | .....^"},
        {"[1].all(..x, x)",
         "ERROR: <input>:1:0: argument must be a simple name\n | [1].all(..x, x)\n | ^\nERROR: <input>:1:10: Syntax error: no viable alternative at input '..'\n | [1].all(..x, x)\n | .........^"},
        {"cel.bind(.%v, 1, v)",
         "ERROR: <input>:1:11: Syntax error: no viable alternative at input '.%'\n | cel.bind(.%v, 1, v)\n | ..........^\nERROR: <input>:1:11: cel.bind() variable names must be simple identifiers\n | cel.bind(.%v, 1, v)\n | ..........^"},
    };
    /* clang-format on */
    check_displays(unit_failed, cases, sizeof cases / sizeof *cases);
}

/* '?' and no field name in a message: escapeIdent's sync deletes one
 * stray token, else it throws and recovers; a ':' is conjured silently
 * and the visitor refuses the nameless field at the list's start,
 * without visiting its value. */
UNIT_TEST(antlr_optional_field_no_name)
{
    /* clang-format off */
    static const char *const cases[][2] = {
        {"A{?1: if}",
         "ERROR: <input>:1:3: unsupported ident kind\n | A{?1: if}\n | ..^\nERROR: <input>:1:4: Syntax error: mismatched input '1' expecting {IDENTIFIER, ESC_IDENTIFIER}\n | A{?1: if}\n | ...^"},
        {"A{?1: has(a), b: if}",
         "ERROR: <input>:1:3: unsupported ident kind\n | A{?1: has(a), b: if}\n | ..^\nERROR: <input>:1:4: Syntax error: mismatched input '1' expecting {IDENTIFIER, ESC_IDENTIFIER}\n | A{?1: has(a), b: if}\n | ...^\nERROR: <input>:1:18: reserved identifier: if\n | A{?1: has(a), b: if}\n | .................^"},
        {"A{[?].b}",
         "ERROR: <input>:1:3: Syntax error: extraneous input '[' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}\n | A{[?].b}\n | ..^\nERROR: <input>:1:4: unsupported ident kind\n | A{[?].b}\n | ...^\nERROR: <input>:1:5: Syntax error: mismatched input ']' expecting {IDENTIFIER, ESC_IDENTIFIER}\n | A{[?].b}\n | ....^"},
        {"A{?1: 2}",
         "ERROR: <input>:1:3: unsupported ident kind\n | A{?1: 2}\n | ..^\nERROR: <input>:1:4: Syntax error: mismatched input '1' expecting {IDENTIFIER, ESC_IDENTIFIER}\n | A{?1: 2}\n | ...^"},
        {"A{a: 1, ?.b}",
         "ERROR: <input>:1:10: Syntax error: extraneous input '.' expecting {IDENTIFIER, ESC_IDENTIFIER}\n | A{a: 1, ?.b}\n | .........^\nERROR: <input>:1:12: Syntax error: mismatched input '}' expecting ':'\n | A{a: 1, ?.b}\n | ...........^"},
        {"A{a: 1, ?,b: 2}",
         "ERROR: <input>:1:10: Syntax error: extraneous input ',' expecting {IDENTIFIER, ESC_IDENTIFIER}\n | A{a: 1, ?,b: 2}\n | .........^"},
    };
    /* clang-format on */
    check_displays(unit_failed, cases, sizeof cases / sizeof *cases);
}

/* Once '?', '.?' or '[' is matched cel-go's visitor builds the
 * conditional, the optional selection or the index at that operator,
 * whatever is missing after it: has() refuses it there. */
UNIT_TEST(antlr_operator_kept_when_broken)
{
    /* clang-format off */
    static const char *const cases[][2] = {
        {"has(a.b[)",
         "ERROR: <input>:1:8: invalid argument to has() macro\n | has(a.b[)\n | .......^\nERROR: <input>:1:9: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | has(a.b[)\n | ........^"},
        {"has(a[?1)",
         "ERROR: <input>:1:6: invalid argument to has() macro\n | has(a[?1)\n | .....^\nERROR: <input>:1:9: Syntax error: missing ']' at ')'\n | has(a[?1)\n | ........^"},
        {"has(a?.b)",
         "ERROR: <input>:1:6: invalid argument to has() macro\n | has(a?.b)\n | .....^\nERROR: <input>:1:9: Syntax error: mismatched input ')' expecting ':'\n | has(a?.b)\n | ........^"},
        {"has(a.b?)",
         "ERROR: <input>:1:8: invalid argument to has() macro\n | has(a.b?)\n | .......^\nERROR: <input>:1:9: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | has(a.b?)\n | ........^"},
        {"has(a.b.?)",
         "ERROR: <input>:1:8: invalid argument to has() macro\n | has(a.b.?)\n | .......^\nERROR: <input>:1:10: Syntax error: mismatched input ')' expecting {IDENTIFIER, ESC_IDENTIFIER}\n | has(a.b.?)\n | .........^\nERROR: <input>:1:10: unsupported ident kind\n | has(a.b.?)\n | .........^"},
    };
    /* clang-format on */
    check_displays(unit_failed, cases, sizeof cases / sizeof *cases);
}

/* A unary operator matched ends error recovery: what goes wrong after
 * it is reported again ("missing ':'" conjured a token and left the
 * parser recovering). */
UNIT_TEST(antlr_unary_ends_recovery)
{
    /* clang-format off */
    static const char *const cases[][2] = {
        {"{'a'!",
         "ERROR: <input>:1:5: Syntax error: missing ':' at '!'\n | {'a'!\n | ....^\nERROR: <input>:1:6: Syntax error: extraneous input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | {'a'!\n | .....^"},
        {"{'a'--",
         "ERROR: <input>:1:7: Syntax error: no viable alternative at input '-'\n | {'a'--\n | ......^\nERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | {'a'--\n | ......^"},
    };
    /* clang-format on */
    check_displays(unit_failed, cases, sizeof cases / sizeof *cases);
}

/* A match forgets where the last error was (endErrorCondition): a later
 * error at one token does not consume it for an error met earlier. */
UNIT_TEST(antlr_match_forgets_last_error)
{
    /* clang-format off */
    static const char *const cases[][2] = {
        {"x.f({).?x..y()",
         "ERROR: <input>:1:6: Syntax error: extraneous input ')' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | x.f({).?x..y()\n | .....^\nERROR: <input>:1:8: Syntax error: no viable alternative at input '.?'\n | x.f({).?x..y()\n | .......^\nERROR: <input>:1:11: Syntax error: no viable alternative at input '..'\n | x.f({).?x..y()\n | ..........^\nERROR: <input>:1:15: Syntax error: missing ')' at '<EOF>'\n | x.f({).?x..y()\n | ..............^"},
    };
    /* clang-format on */
    check_displays(unit_failed, cases, sizeof cases / sizeof *cases);
}

UNIT_TEST(depth_limits)
{
    dra_arena a = DRA_ARENA_INIT;
    cel_ast *ast;
    size_t n = 100000;
    char *deep = malloc(n + 1);
    memset(deep, '(', n);
    deep[n] = 0;
    dra_err *e = cel_parse(deep, n, NULL, &a, &ast);
    CHECK(e != NULL);
    if (e) {
        CHECK_STR(e->msg, "expression recursion limit exceeded: 250");
        CHECK_INT(e->line, 0);
    }
    char *d = cel_errors_display(e, deep, n);
    CHECK(d && !strncmp(d, "ERROR: <input>:-1:0: expression recursion limit exceeded: 250", 61));
    free(d);
    dra_err_free(e);
    memset(deep, '[', n);
    e = cel_parse(deep, n, NULL, &a, &ast);
    CHECK(e && !strcmp(e->msg, "expression recursion limit exceeded: 250"));
    dra_err_free(e);
    memset(deep, '-', n - 1);
    deep[n - 1] = 'a';
    e = cel_parse(deep, n, NULL, &a, &ast);
    CHECK(e == NULL); /* unary runs are folded, not nested */
    dra_err_free(e);

    /* 100 nested parens are fine */
    char buf[512];
    memset(buf, '(', 100);
    buf[100] = 'a';
    memset(buf + 101, ')', 100);
    buf[201] = 0;
    e = cel_parse(buf, strlen(buf), NULL, &a, &ast);
    CHECK(e == NULL);
    dra_err_free(e);

    /* long select chains count as nesting too */
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, "a");
    for (int i = 0; i < 300; i++)
        dra_buf_puts(&b, ".b");
    e = cel_parse(b.data, b.len, NULL, &a, &ast);
    CHECK(e && !strcmp(e->msg, "expression recursion limit exceeded: 250"));
    dra_err_free(e);
    dra_buf_reset(&b);
    dra_buf_puts(&b, "a");
    for (int i = 0; i < 100; i++)
        dra_buf_puts(&b, ".b");
    e = cel_parse(b.data, b.len, NULL, &a, &ast);
    CHECK(e == NULL);
    dra_err_free(e);
    /* && chains are balanced, not nested */
    dra_buf_reset(&b);
    dra_buf_puts(&b, "a");
    for (int i = 0; i < 5000; i++)
        dra_buf_puts(&b, " && a");
    e = cel_parse(b.data, b.len, NULL, &a, &ast);
    CHECK(e == NULL);
    dra_err_free(e);

    cel_parse_limits lim = {.max_recursion_depth = 5};
    e = cel_parse("((((((a))))))", 13, &lim, &a, &ast);
    CHECK(e && !strcmp(e->msg, "expression recursion limit exceeded: 5"));
    dra_err_free(e);

    /* a limit stops cel-go's parser before its visitor runs: has()'s
     * refusal is not reported, nor is the entry whose value hit it */
    const char *visited = "{1: has(1), 2: ((((((a))))))}";
    e = cel_parse(visited, strlen(visited), &lim, &a, &ast);
    CHECK(e && !strcmp(e->msg, "expression recursion limit exceeded: 5") && !e->next);
    dra_err_free(e);
    visited = "{1: has(1), 2: ((a))}";
    e = cel_parse(visited, strlen(visited), &lim, &a, &ast);
    CHECK(e && !strcmp(e->msg, "invalid argument to has() macro") && !e->next);
    dra_err_free(e);

    lim = (cel_parse_limits){.max_expression_size = 4};
    e = cel_parse("1 + 2", 5, &lim, &a, &ast);
    CHECK(e && !strcmp(e->msg, "expression code point size exceeds limit: size: 5, limit 4"));
    dra_err_free(e);

    /* error reporting cap */
    memset(deep, '#', 500);
    e = cel_parse(deep, 500, NULL, &a, &ast);
    CHECK_INT(dra_err_count(e), 101);
    dra_err_free(e);
    dra_buf_free(&b);
    free(deep);
    dra_arena_free(&a);
}

/* The display of src's errors, the source lines left out ("ERROR: ..."
 * lines only, and the truncation line). */
static char *error_lines(const char *src)
{
    dra_arena a = DRA_ARENA_INIT;
    cel_ast *ast = NULL;
    dra_err *e = cel_parse(src, strlen(src), NULL, &a, &ast);
    char *d = e ? cel_errors_display(e, src, strlen(src)) : dra_xstrdup("");
    dra_err_free(e);
    dra_arena_free(&a);
    dra_buf b = DRA_BUF_INIT;
    for (char *line = strtok(d, "\n"); line; line = strtok(NULL, "\n"))
        if (strncmp(line, " | ", 3) != 0)
            dra_buf_printf(&b, "%s\n", line);
    free(d);
    dra_buf_puts(&b, "");
    return dra_buf_detach(&b);
}

static size_t count_lines(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* cel-go's parser counts every report of its lexer and its parser against
 * the limit of 100 syntax errors, in the order ANTLR makes them (a token is
 * lexed when the parser fetches it); common.Errors keeps the first 100
 * reported and sorts those (cel-go v0.29.2 parser/parser.go SyntaxError,
 * common/errors.go).  Each display as upstream-cel shows it. */
UNIT_TEST(syntax_error_limit_counts_lexer_and_parser)
{
    char src[512];
    /* 99 lexer errors, then 'b' mismatched: the '#' after it is lexed
     * first (the deletion looks one token ahead), 'b' is the 101st report:
     * "More than 100 syntax errors", not kept */
    memset(src, '#', 99);
    strcpy(src + 99, " a b # c");
    char *d = error_lines(src);
    CHECK(count_lines(d, "token recognition error") == 100);
    CHECK(strstr(d, "mismatched input 'b'") == NULL);
    CHECK(
        strstr(d,
               "ERROR: <input>:1:105: Syntax error: token recognition error at: '#'\n1 more errors were truncated\n") !=
        NULL);
    free(d);
    /* 40 parser errors before 70 lexer errors: the parser's are kept, the
     * lexer's 61st report is the 101st */
    size_t n = 0;
    src[n++] = '[';
    for (int i = 0; i < 40; i++) {
        memcpy(src + n, "a[ , ", 5);
        n += 5;
    }
    src[n++] = ']';
    memset(src + n, '#', 70);
    src[n + 70] = '\0';
    d = error_lines(src);
    CHECK(count_lines(d, "Syntax error: extraneous input ','") + count_lines(d, "Syntax error: mismatched input ','") ==
          40);
    CHECK(count_lines(d, "token recognition error") == 60);
    CHECK(strstr(d, "ERROR: <input>:1:200: Syntax error: mismatched input ','") != NULL);
    CHECK(strstr(d, "1 more errors were truncated") != NULL);
    free(d);
}

/* cel-go counts every report, the visitor's too, and says how many of
 * them it does not show (common/errors.go ReportErrorAtID, ToDisplayString):
 * 150 int literals out of range are "50 more", not "1 more". */
UNIT_TEST(error_display_counts_every_report)
{
    char src[8192] = "[";
    for (int i = 0; i < 150; i++)
        strcat(src, "99999999999999999999, ");
    strcat(src, "1]");
    char *d = error_lines(src);
    CHECK(count_lines(d, "invalid int literal") == 100);
    CHECK(strstr(d, "\n50 more errors were truncated\n") != NULL);
    free(d);
    /* 30 lexer errors after them: the parser's are shown first, then the
     * first 70 of the visitor's */
    strcat(src, " ##############################");
    d = error_lines(src);
    CHECK(count_lines(d, "token recognition error") == 30);
    CHECK(count_lines(d, "invalid int literal") == 70);
    CHECK(strstr(d, "\n80 more errors were truncated\n") != NULL);
    free(d);
}

UNIT_TEST(positions_recorded)
{
    dra_arena a = DRA_ARENA_INIT;
    cel_ast *ast;
    const char *src = "a.b + x.size()";
    CHECK(cel_parse(src, strlen(src), NULL, &a, &ast) == NULL);
    cel_node *r = ast->root;
    CHECK_INT(r->offset, 4);                  /* '+' */
    CHECK_INT(r->u.call.args[0]->offset, 1);  /* '.' of a.b */
    CHECK_INT(r->u.call.args[1]->offset, 12); /* '(' of size() */
    CHECK_INT(r->u.call.args[0]->u.select.operand->offset, 0);
    int line, col;
    cel_ast_location(ast, 12, &line, &col);
    CHECK_INT(line, 1);
    CHECK_INT(col, 13);
    dra_arena_free(&a);
}

UNIT_MAIN()
