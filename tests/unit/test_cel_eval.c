/* CEL runtime: values, libraries, evaluator semantics, cost, DRA device. */
#include "unit.h"

#include <jansson.h>
#include <stdint.h>
#include <time.h>

#include "cel/cel.h"
#include "cel/dra.h"
#include "cel/regex.h"

/* Compile (checked unless `unchecked`) and evaluate with x=5, s="hello", l=[1,2,3],
 * m={"a":1}; return the result printed (or "ERROR: msg" / "COMPILE: msg"). */
static char *run(const char *expr, bool unchecked)
{
    static char out[4096];
    cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES | CEL_LIB_MATH | CEL_LIB_K8S_INCLUDES | CEL_LIB_ENCODERS);
    dra_arena *a = cel_env_arena(env);
    cel_env_declare(env, "x", &cel_t_int);
    cel_env_declare(env, "s", &cel_t_string);
    cel_env_declare(env, "l", cel_type_list(a, &cel_t_int));
    cel_env_declare(env, "m", cel_type_map(a, &cel_t_string, &cel_t_int));
    cel_env_declare(env, "d", &cel_t_dyn);
    cel_program *p = NULL;
    cel_compile_options co = {.skip_check = unchecked};
    dra_err *e = cel_compile(env, expr, strlen(expr), &co, &p);
    if (e) {
        snprintf(out, sizeof out, "COMPILE: %s", e->msg);
        dra_err_free(e);
        cel_env_free(env);
        return out;
    }
    dra_arena va = DRA_ARENA_INIT;
    cel_value items[3] = {cel_int(1), cel_int(2), cel_int(3)};
    cel_value mk = cel_string("a", 1), mv = cel_int(1);
    cel_activation act = CEL_ACTIVATION_INIT;
    cel_activation_bind(&act, "x", cel_int(5));
    cel_activation_bind(&act, "s", cel_string("hello", 5));
    cel_activation_bind(&act, "l", cel_list_copy_a(&va, items, 3));
    cel_activation_bind(&act, "m", cel_map_build_a(&va, &mk, &mv, 1, 0));
    cel_activation_bind(&act, "d", cel_uint(7));
    cel_value v = cel_eval(p, &act, NULL);
    if (v.kind == CEL_ERROR) {
        snprintf(out, sizeof out, "ERROR: %s", v.v.err);
    } else {
        char *t = cel_value_to_string(&v);
        snprintf(out, sizeof out, "%s", t);
        free(t);
    }
    dra_arena_free(&va);
    cel_program_free(p);
    cel_env_free(env);
    return out;
}

#define EV(expr, want) CHECK_STR(run(expr, false), want)
#define EVU(expr, want) CHECK_STR(run(expr, true), want)

UNIT_TEST(arithmetic)
{
    EV("1 + 2", "3");
    EV("x * 2 - 1", "9");
    EV("7 / 2", "3");
    EV("-7 / 2", "-3");
    EV("-7 % 3", "-1");
    EV("7u % 3u", "1u");
    EV("2.5 * 2.0", "5.0");
    EV("1.0 / 0.0", "+Inf");
    EV("9223372036854775807 + 1", "ERROR: integer overflow");
    EV("-9223372036854775808 - 1", "ERROR: integer overflow");
    EV("-(-9223372036854775808)", "ERROR: integer overflow");
    EV("9223372036854775807 * 2", "ERROR: integer overflow");
    EV("-9223372036854775808 / -1", "ERROR: integer overflow");
    EV("1 / 0", "ERROR: division by zero");
    EV("1 % 0", "ERROR: modulus by zero");
    EV("0u - 1u", "ERROR: unsigned integer overflow");
    EV("18446744073709551615u + 1u", "ERROR: unsigned integer overflow");
    EV("1u / 0u", "ERROR: division by zero");
    EV("\"ab\" + \"cd\"", "\"abcd\"");
    EV("b\"ab\" + b\"\\x00\"", "b\"ab\\x00\"");
    EV("[1] + [2, 3]", "[1, 2, 3]");
    EV("-x", "-5");
    EV("-(1.5)", "-1.5");
}

UNIT_TEST(logic_absorption)
{
    EV("false && (1 / 0 == 1)", "false");
    EV("(1 / 0 == 1) && false", "false");
    EV("true || (1 / 0 == 1)", "true");
    EV("(1 / 0 == 1) || true", "true");
    EV("(1 / 0 == 1) && true", "ERROR: division by zero");
    EV("true && (1 / 0 == 1)", "ERROR: division by zero");
    EV("(1 / 0 == 1) || false", "ERROR: division by zero");
    EV("false || false", "false");
    EV("true && true", "true");
    EV("!true", "false");
    EV("true ? 1 : 1 / 0", "1");
    EV("false ? 1 / 0 : 2", "2");
    EV("x > 3 ? 'big' : 'small'", "\"big\"");
    EVU("(1 / 0 == 1) ? 1 : 2", "ERROR: division by zero");
    EVU("d && true", "ERROR: no such overload");
    EVU("d || true", "true");
}

UNIT_TEST(equality_ordering)
{
    EV("1 == 1", "true");
    EV("dyn(1) == 1u", "true");
    EV("dyn(1) == 1.0", "true");
    EV("1 < 2u", "true");
    EV("2.5 > 2", "true");
    EV("-1 < 0u", "true");
    EV("18446744073709551615u > 9223372036854775807", "true");
    EV("1.0 == 1", "COMPILE: found no matching overload for '_==_' applied to '(double, int)'");
    EV("dyn(1.0) == 1", "true");
    EV("0.0 / 0.0 == 0.0 / 0.0", "false");
    EV("'a' < 'b'", "true");
    EV("'abc' <= 'abd'", "true");
    EV("b'a' < b'b'", "true");
    EV("true > false", "true");
    EV("[1, 2] == [1, 2]", "true");
    EV("[1, 2] != [2, 1]", "true");
    EV("{'a': 1} == {'a': 1}", "true");
    EV("{'a': 1, 'b': 2} == {'b': 2, 'a': 1}", "true");
    EV("[dyn(1)] == [dyn(1.0)]", "true");
    EV("null == null", "true");
    EVU("dyn('a') == 1", "false");
    EV("duration('1s') < duration('2s')", "true");
    EV("timestamp('2020-01-01T00:00:00Z') < timestamp('2021-01-01T00:00:00Z')", "true");
    EV("x >= 5", "true");
}

UNIT_TEST(containers)
{
    EV("2 in [1, 2, 3]", "true");
    EV("4 in l", "false");
    EV("'a' in m", "true");
    EV("'b' in m", "false");
    EV("l[0]", "1");
    EV("l[3]", "ERROR: index out of bounds: 3");
    EV("l[-1]", "ERROR: index out of bounds: -1");
    EV("m['a']", "1");
    EV("m['zz']", "ERROR: no such key: zz");
    EV("m.a", "1");
    EV("m.zz", "ERROR: no such key: zz");
    EV("{1: 'a'}[dyn(1u)]", "\"a\"");
    EV("{1: 'a'}[dyn(1.0)]", "\"a\"");
    EV("{1: 'a'}[dyn(1.5)]", "ERROR: no such key: 1.5");
    EV("{'k': 1}.size()", "1");
    EV("size([1, 2])", "2");
    EV("size('héllo')", "5");
    EV("size(b'ab')", "2");
    EV("has(m.a)", "true");
    EV("has(m.b)", "false");
    EV("[1, 2, 3].size()", "3");
    EV("dyn([1, 'a'])[1]", "\"a\"");
    EV("{'a': {'b': 2}}.a.b", "2");
    EV("[[1], [2]][1][0]", "2");
}

UNIT_TEST(conversions)
{
    EV("int('42')", "42");
    /* cel-go String.ConvertToType: any strconv failure is one conversion error */
    EV("int(' 42')", "ERROR: type conversion error from 'string' to 'int'");
    EV("int('9223372036854775808')", "ERROR: type conversion error from 'string' to 'int'");
    EV("int('-9223372036854775808')", "-9223372036854775808");
    EV("uint('+1')", "ERROR: type conversion error from 'string' to 'uint'");
    EV("uint('18446744073709551615')", "18446744073709551615u");
    /* Go ParseFloat syntax: hex needs a p exponent, underscores between digits, overflow is an error */
    EV("double('0x10')", "ERROR: type conversion error from 'string' to 'double'");
    EV("double('0x1p4')", "16.0");
    EV("double('0x_1p4')", "16.0");
    EV("double('1_000.5')", "1000.5");
    EV("double('1__0')", "ERROR: type conversion error from 'string' to 'double'");
    EV("double(' 1')", "ERROR: type conversion error from 'string' to 'double'");
    EV("double('1e400')", "ERROR: type conversion error from 'string' to 'double'");
    EV("double('1e-400')", "0.0");
    EV("double('-Infinity') < 0.0", "true");
    EV("double('+nan')", "ERROR: type conversion error from 'string' to 'double'");
    EV("double('.5e1')", "5.0");
    EV("double('5.')", "5.0");
    EV("double('.')", "ERROR: type conversion error from 'string' to 'double'");
    /* cel-diff: indexOf / lastIndexOf offsets (cel-go v0.29 ext/strings.go;
     * an empty needle is clamped to the length, 1.36's v0.26 returned the
     * offset as it was: test_cel_release38) */
    EV("'abc'.indexOf('', 7)", "3");
    EV("'abc'.indexOf('', -1)", "ERROR: index out of range: -1");
    EV("'abc'.indexOf('b', -1)", "ERROR: index out of range: -1");
    EV("'abc'.indexOf('b', 3)", "-1");
    EV("'abc'.lastIndexOf('', 7)", "3");
    EV("'abc'.lastIndexOf('c', 3)", "-1");
    EV("'abc'.lastIndexOf('c', 2)", "2");
    EV("'abc'.lastIndexOf('c', -1)", "ERROR: index out of range: -1");
    EV("''.lastIndexOf('@@')", "-1");
    EV("'abc'.lastIndexOf('')", "3");
    /* cel-diff: double keys convert losslessly or not at all (cel-go map Find) */
    EV("{9223372036854775807: 1}[dyn(9223372036854775808.0)]", "ERROR: no such key: 9.223372036854776e+18");
    EV("dyn(18446744073709551616.0) in {18446744073709551615u: 1}", "false");
    EV("dyn(9223372036854775808.0) in {9223372036854775808u: 1}", "true");
    EV("dyn(-9223372036854775808.0) in {-9223372036854775808: 1}", "false");
    EV("dyn(-2.0) in {-2: 1}", "true");
    EV("dyn(2.5) in {2: 1}", "false");
    EV("{1u: 'a'}[dyn(1)]", "\"a\"");
    EV("int(3.9)", "3");
    EV("int(-3.9)", "-3");
    EV("int(1e19)", "ERROR: integer overflow");
    EV("int(18446744073709551615u)", "ERROR: integer overflow");
    EV("uint(-1)", "ERROR: unsigned integer overflow");
    EV("uint('7')", "7u");
    EV("double(2)", "2.0");
    EV("double('1.5')", "1.5");
    EV("string(1.5)", "\"1.5\"");
    EV("string(100000000.0)", "\"1e+08\"");
    EV("string(123.0)", "\"123\"");
    EV("string(123456.0)", "\"123456\"");
    EV("string(1234567.0)", "\"1.234567e+06\"");
    EV("string(0.0001)", "\"0.0001\"");
    EV("string(0.00001)", "\"1e-05\"");
    EV("string(-2)", "\"-2\"");
    EV("string(3u)", "\"3\"");
    EV("string(true)", "\"true\"");
    EV("string(b'abc')", "\"abc\"");
    EV("string(b'\\xff')", "ERROR: invalid UTF-8 in bytes, cannot convert to string");
    EV("bytes('é')", "b\"\\xc3\\xa9\"");
    EV("bool('true')", "true");
    EV("bool('TRUE')", "true");
    EV("bool('yes')", "ERROR: type conversion error from 'string' to 'bool'");
    EV("type(1)", "int");
    EV("type(1u) == uint", "true");
    EV("type('a') == string", "true");
    EV("type([]) == list", "true");
    EV("type({}) == map", "true");
    EV("type(type(1))", "type");
    EV("type(null)", "null_type");
    EV("type(duration('1s'))", "google.protobuf.Duration");
    EV("dyn(1) + 2", "3");
    EV("string(int)", "\"int\"");
    EV("int(timestamp('1970-01-01T00:01:00Z'))", "60");
}

UNIT_TEST(strings_std)
{
    EV("'hello'.contains('ell')", "true");
    EV("'hello'.contains('')", "true");
    EV("'hello'.startsWith('he')", "true");
    EV("'hello'.endsWith('lo')", "true");
    EV("'hello'.endsWith('hello!')", "false");
    EV("'hello'.matches('^h.*o$')", "true");
    EV("matches('abc', 'b')", "true");
    EV("'abc'.matches('(?=a)')", "ERROR: error parsing regexp: invalid or unsupported Perl syntax: `(?=`");
    EV("'a\\nb'.matches('a$')", "false");
    EV("'héllo'.matches('^h.llo$')", "true");
}

UNIT_TEST(strings_ext)
{
    EV("'hello'.charAt(1)", "\"e\"");
    EV("'héllo'.charAt(1)", "\"é\"");
    EV("'hello'.charAt(5)", "\"\"");
    EV("'hello'.charAt(6)", "ERROR: index out of range: 6");
    EV("'hello'.indexOf('l')", "2");
    EV("'hello'.indexOf('')", "0");
    EV("'héllo'.indexOf('l')", "2");
    EV("'hello'.indexOf('l', 3)", "3");
    EV("'hello'.indexOf('z')", "-1");
    EV("'hello'.lastIndexOf('l')", "3");
    EV("'hello'.lastIndexOf('')", "5");
    EV("'hello'.lastIndexOf('l', 2)", "2");
    EV("'HeLLo'.lowerAscii()", "\"hello\"");
    EV("'héllo'.upperAscii()", "\"HéLLO\"");
    EV("'aaa'.replace('a', 'b')", "\"bbb\"");
    EV("'aaa'.replace('a', 'b', 2)", "\"bba\"");
    EV("'abc'.replace('', '-')", "\"-a-b-c-\"");
    EV("'a,b,c'.split(',')", "[\"a\", \"b\", \"c\"]");
    EV("'a,b,c'.split(',', 2)", "[\"a\", \"b,c\"]");
    EV("'abc'.split('')", "[\"a\", \"b\", \"c\"]");
    EV("'a,b'.split(',', 0)", "[]");
    EV("'hello'.substring(1)", "\"ello\"");
    EV("'hello'.substring(1, 3)", "\"el\"");
    EV("'héllo'.substring(1, 2)", "\"é\"");
    EV("'hello'.substring(3, 1)", "ERROR: invalid substring range. start: 3, end: 1");
    EV("'hello'.substring(6)", "ERROR: index out of range: 6");
    EV("'  hi \\t'.trim()", "\"hi\"");
    EV("['a', 'b'].join()", "\"ab\"");
    EV("['a', 'b'].join('-')", "\"a-b\"");
    EV("[].join('-')", "\"\"");
    EV("strings.quote('a\"b\\n')", "\"\\\"a\\\\\\\"b\\\\n\\\"\"");
    EV("'%s and %d'.format(['x', 5])", "\"x and 5\"");
    EV("'%.2f'.format([3.14159])", "\"3.14\"");
    EV("'%x'.format([255])", "\"ff\"");
    EV("'%b'.format([5])", "\"101\"");
    EV("'%o'.format([8])", "\"10\"");
    EV("'%s'.format([[1, 'a']])", "\"[1, \\\"a\\\"]\"");
    /* ext/formatting.go FormatString: %s converts bytes to a string, so
     * invalid UTF-8 fails, in a list or map too (upstream-cel 1.37, 1.38) */
    EV("'%s'.format([b'\\xff\\x00'])",
       "ERROR: error during formatting: could not convert argument \"invalid UTF-8 in bytes, cannot convert to "
       "string\" to string");
    EV("'%s'.format([[b'\\xff']]).size()",
       "ERROR: error during formatting: could not convert argument \"invalid UTF-8 in bytes, cannot convert to "
       "string\" to string");
    EV("'%s'.format([b'abc'])", "\"abc\"");
    EV("'%d'.format(['a'])",
       "COMPILE: error during formatting: decimal clause can only be used on integers, was given string");
    EV("'%%'.format([])", "\"%\"");
    /* ext/formatting.go: %f and %e through golang.org/x/text/message (en),
     * "%<precision>e" taking the precision as a width; %s prints nested
     * doubles with Go's %.6f and sorts a map by its keys' text (upstream-cel
     * 1.36, 1.37, 1.38) */
    EV("'%.2f'.format([-1234567.891])", "\"-1,234,567.89\"");
    EV("'%.2f'.format([-0.0])", "\"0.00\"");
    EV("'%f'.format(['-Infinity'])", "\"-\u221e\"");
    EV("'%e'.format([1234.5678])", "\"1.234568\u00d710\u2070\u00b3\"");
    EV("'%.3e'.format([-0.000123])", "\"-1.230000\u00d710\u207b\u2070\u2074\"");
    EV("'%.20e'.format([2.5])", "\"       2.500000\u00d710\u2070\u2070\"");
    EV("'%e'.format(['NaN'])", "\"   NaN\"");
    EV("'%e'.format([dyn(5)])",
       "ERROR: error during formatting: scientific clause can only be used on doubles, was given int");
    EV("'%s'.format([double('Infinity')])", "\"+Inf\"");
    EV("'%s'.format([[double('-Infinity'), 1.5]])", "\"[\\\"-Inf\\\", 1.500000]\"");
    EV("'%s'.format([{10: 1, 9: 2, -1: 3}])", "\"{-1:3, 10:1, 9:2}\"");
    EV("'%s'.format([{'b': 1, 'a': 2}])", "\"{\\\"a\\\":2, \\\"b\\\":1}\"");
}

UNIT_TEST(lists_ext)
{
    EV("[1, 2, 3, 4].slice(1, 3)", "[2, 3]");
    EV("[1, 2].slice(2, 1)", "ERROR: cannot slice(2, 1), start index must be less than or equal to end index");
    EV("[[1], [2, 3]].flatten()", "[1, 2, 3]");
    EV("dyn([[1, [2]], 3]).flatten(2)", "[1, 2, 3]");
    EV("[1, 2, 1, 3].distinct()", "[1, 2, 3]");
    EV("lists.range(3)", "[0, 1, 2]");
    EV("[1, 2, 3].reverse()", "[3, 2, 1]");
    EV("[3, 1, 2].sort()", "[1, 2, 3]");
    EV("['b', 'a'].sort()", "[\"a\", \"b\"]");
    EV("[1, 2, 3].isSorted()", "true");
    EV("[1, 3, 2].isSorted()", "false");
    EV("[1, 2, 3].sum()", "6");
    EV("[1.5, 2.5].sum()", "4.0");
    /* from the zero of the element type, the first element added to it
     * (library/lists.go sum(init)): 0.0 + -0.0 is 0.0 (upstream-cel 1.36
     * to 1.38) */
    EV("[-0.0].sum()", "0.0");
    EV("[-0.0, -0.0].sum()", "0.0");
    EV("dyn([-0.0]).sum()", "0.0");
    EV("[3, 1, 2].min()", "1");
    EV("[3, 1, 2].max()", "3");
    EV("[1, 2, 1].indexOf(1)", "0");
    EV("[1, 2, 1].lastIndexOf(1)", "2");
    EV("[1, 2].indexOf(5)", "-1");
    EV("[].min()", "ERROR: min called on empty list");
    EV("[1, 2].includes(2)", "true");
}

UNIT_TEST(sets_ext)
{
    EV("sets.contains([1, 2, 3], [2, 3])", "true");
    EV("sets.contains([1, 2], [3])", "false");
    EV("sets.contains([dyn(1)], [dyn(1.0)])", "true");
    EV("sets.equivalent([1, 2], [2, 1, 1])", "true");
    EV("sets.equivalent([1, 2], [1])", "false");
    EV("sets.intersects([1, 2], [2, 5])", "true");
    EV("sets.intersects([1], [])", "false");
}

UNIT_TEST(macros_comprehensions)
{
    EV("[1, 2, 3].all(i, i > 0)", "true");
    EV("[1, 2, 3].exists(i, i > 2)", "true");
    EV("[1, 2, 3].exists_one(i, i > 1)", "false");
    EV("[1, 2, 3].map(i, i * 2)", "[2, 4, 6]");
    EV("[1, 2, 3].filter(i, i % 2 == 1)", "[1, 3]");
    EV("[1, 2, 3].map(i, i > 1, i * 10)", "[20, 30]");
    EV("{'a': 1, 'b': 2}.all(k, k.size() == 1)", "true");
    EV("[0, 1].exists(i, 1 / i == 1)", "true");
    EV("[0, 1].all(i, 1 / i == 1)", "ERROR: division by zero");
    EV("[1, 0].all(i, 1 / i > 5)", "false");
    EV("[1, 2].all(i, v, i < v)", "true");
    EV("{'a': 1}.exists(k, v, v == 1)", "true");
    EV("[1, 2].existsOne(i, v, v == 2)", "true");
    EV("[1, 2].transformList(i, v, v + i)", "[1, 3]");
    EV("[1, 2].transformMap(i, v, v * 2)", "{0: 2, 1: 4}");
    EV("{'a': 1}.transformMapEntry(k, v, {v: k})", "{1: \"a\"}");
    EV("[1, 1].transformMapEntry(i, v, {v: i})", "ERROR: insert failed: key 1 already exists");
    EV("cel.bind(y, x + 1, y * y)", "36");
    EV("cel.bind(a, 1, cel.bind(b, a + 1, a + b))", "3");
    EV("[[1, 2], [3]].all(l2, l2.all(e, e > 0))", "true");
    /* cel-go evalFold names the Go type of a non-iterable range */
    EV("dyn(x).exists(i, true)", "ERROR: got 'types.Int', expected iterable type");
    EV("dyn(true).all(i, true)", "ERROR: got 'types.Bool', expected iterable type");
    EV("dyn(s).map(i, i)", "ERROR: got 'types.String', expected iterable type");
    EV("dyn(d).exists_one(i, true)", "ERROR: got 'types.Uint', expected iterable type");
    EV("dyn(semver('1.2.3')).exists(i, true)", "ERROR: got 'cel.Semver', expected iterable type");
    EV("dyn(quantity('1Gi')).all(i, true)", "ERROR: got 'cel.Quantity', expected iterable type");
    EV("dyn(duration('1s')).all(i, true)", "ERROR: got 'types.Duration', expected iterable type");
    EV("dyn(optional.none()).all(i, true)", "ERROR: got '*types.Optional', expected iterable type");
}

UNIT_TEST(dra_includes_environments)
{
    /* StoredExpressions always declare includes(); NewExpressions only
     * with DRAListTypeAttributes (dra-corrections E2-6). */
    const char *expr = "device.attributes['dra.example.com'].m.includes('a')";
    struct {
        cel_dra_options o;
        bool ok;
    } cases[] = {
        {{.new_expressions = false}, true},
        {{.new_expressions = true}, false},
        {{.new_expressions = true, .list_type_attributes = true}, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cel_env *env = cel_dra_env_new(&cases[i].o);
        cel_program *p = NULL;
        dra_err *e = cel_dra_compile(env, expr, strlen(expr), &p);
        CHECK((e == NULL) == cases[i].ok);
        if (e)
            CHECK(strstr(e->msg, "undeclared reference to 'includes'") != NULL);
        dra_err_free(e);
        cel_program_free(p);
        cel_env_free(env);
    }
    /* on a device: scalar equality and list membership */
    json_t *dev = json_pack("{s:s, s:{s:{s:s}, s:{s:[s, s]}}}", "name", "d", "attributes", "m", "string", "a", "l",
                            "strings", "x", "y");
    cel_dra_device *d = cel_dra_device_new(dev, "dra.example.com");
    cel_env *env = cel_dra_env_new(NULL);
    const char *exprs[] = {"device.attributes['dra.example.com'].m.includes('a')",
                           "device.attributes['dra.example.com'].l.includes('y')",
                           "!device.attributes['dra.example.com'].l.includes('z')"};
    for (size_t i = 0; i < 3; i++) {
        cel_program *p = NULL;
        dra_err *e = cel_dra_compile(env, exprs[i], strlen(exprs[i]), &p);
        CHECK(e == NULL);
        bool m = false;
        if (!e)
            e = cel_dra_match(p, d, &m);
        CHECK(e == NULL && m);
        dra_err_free(e);
        cel_program_free(p);
    }
    cel_env_free(env);
    cel_dra_device_free(d);
    json_decref(dev);
}

UNIT_TEST(optionals)
{
    EV("optional.of(1).value()", "1");
    EV("optional.of(1).hasValue()", "true");
    EV("optional.none().hasValue()", "false");
    EV("optional.none().orValue(5)", "5");
    EV("optional.of(2).orValue(5)", "2");
    EV("optional.none().or(optional.of(3)).value()", "3");
    EV("optional.of(1).or(optional.of(1 / 0)).value()", "1");
    EV("optional.ofNonZeroValue(0).hasValue()", "false");
    EV("optional.ofNonZeroValue('a').hasValue()", "true");
    EV("optional.none().value()", "ERROR: optional.none() dereference");
    EV("m.?a.orValue(0)", "1");
    EV("m.?zz.orValue(0)", "0");
    EV("m[?'zz'].hasValue()", "false");
    EV("l[?1].value()", "2");
    EV("l[?9].hasValue()", "false");
    EV("[1, ?optional.none(), ?optional.of(3)]", "[1, 3]");
    EV("{'a': 1, ?'b': optional.none()}", "{\"a\": 1}");
    EV("optional.of(2).optMap(v, v * 3).value()", "6");
    EV("optional.none().optMap(v, v * 3).hasValue()", "false");
    EV("optional.of(2).optFlatMap(v, optional.of(v + 1)).value()", "3");
    EV("[1, 2].first().value()", "1");
    EV("[1, 2].last().value()", "2");
    EV("[].first().hasValue()", "false");
    EV("optional.unwrap([optional.of(1), optional.none()])", "[1]");
    /* an optional reached by a plain qualifier has no fields or keys:
     * only the optional an attribute chain starts from is unwrapped */
    EV("{'foo': optional.none()}.foo.bar", "ERROR: no such key: bar");
    EV("{'foo': optional.none()}.foo['bar']", "ERROR: no such key: bar");
    EV("{'foo': optional.of({'bar': 1})}.foo.bar", "ERROR: no such key: bar");
    EV("[optional.none()][0][1]", "ERROR: no such key: 1");
    EV("has({'foo': optional.none()}.foo.bar)", "false");
    EV("{'a': {'b': 1}}.?a.?b.orValue(0)", "1");
    EV("{'a': {'b': 1}}.?a.?c.orValue(0)", "0");
}

UNIT_TEST(time)
{
    EV("timestamp('2023-05-06T07:08:09Z').getFullYear()", "2023");
    EV("timestamp('2023-05-06T07:08:09Z').getMonth()", "4");
    EV("timestamp('2023-05-06T07:08:09Z').getDate()", "6");
    EV("timestamp('2023-05-06T07:08:09Z').getDayOfMonth()", "5");
    EV("timestamp('2023-05-06T07:08:09Z').getDayOfYear()", "125");
    EV("timestamp('2023-05-06T07:08:09Z').getDayOfWeek()", "6");
    EV("timestamp('2023-05-06T07:08:09Z').getHours()", "7");
    EV("timestamp('2023-05-06T07:08:09.250Z').getMilliseconds()", "250");
    EV("timestamp('2023-05-06T07:08:09Z').getHours('+02:00')", "9");
    EV("timestamp('2023-01-06T07:08:09Z').getHours('America/Los_Angeles')", "23");
    EV("timestamp('2023-05-06T07:08:09Z').getHours('Mars/Base')", "ERROR: unknown time zone Mars/Base");
    EV("timestamp('2023-05-06T07:08:09+01:00')", "timestamp(\"2023-05-06T06:08:09Z\")");
    EV("timestamp('2023-01-01T00:00:00Z') + duration('1h30m')", "timestamp(\"2023-01-01T01:30:00Z\")");
    EV("timestamp('2023-01-02T00:00:00Z') - timestamp('2023-01-01T00:00:00Z')", "duration(\"86400s\")");
    EV("duration('1.5s')", "duration(\"1.5s\")");
    EV("duration('1m').getSeconds()", "60");
    EV("duration('1h').getMinutes()", "60");
    EV("duration('1500ms').getMilliseconds()", "1500");
    EV("duration('-2h').getHours()", "-2");
    EV("duration('1x')", "ERROR: type conversion error from 'string' to 'google.protobuf.Duration'");
    EV("timestamp('2023-13-01T00:00:00Z')",
       "ERROR: type conversion error from 'string' to 'google.protobuf.Timestamp'");
    EV("string(timestamp('2023-01-01T00:00:00.5Z'))", "\"2023-01-01T00:00:00.5Z\"");
    EV("timestamp('9999-12-31T23:59:59Z') + duration('1s')", "ERROR: timestamp overflow");
    EV("duration('2562047h') + duration('2562047h')", "ERROR: integer overflow");
}

UNIT_TEST(k8s_quantity_semver)
{
    EV("quantity('1Gi').isGreaterThan(quantity('1G'))", "true");
    EV("quantity('1k').compareTo(quantity('1000'))", "0");
    EV("quantity('1.5').isInteger()", "false");
    EV("quantity('2k').asInteger()", "2000");
    EV("quantity('1.5').asApproximateFloat()", "1.5");
    /* declared as a global overload upstream (library/quantity.go
     * cel.Overload("quantity_sign"), though documented as a member) */
    EV("sign(quantity('-3'))", "-1");
    CHECK(strstr(run("quantity('-3').sign()", false),
                 "found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'") != NULL);
    EV("quantity('1Ki').add(quantity('1Ki'))", "quantity(\"2Ki\")");
    EV("quantity('1Ki').add(1024)", "quantity(\"2Ki\")");
    EV("quantity('2').sub(1).asInteger()", "1");
    /* add() and sub() return a *Quantity, which Quantity.Equal refuses
     * as its argument (apiserver pkg/cel/quantity.go other.(Quantity),
     * library/quantity.go quantityAdd): == fails with it on the right
     * only, and `in`, indexOf, includes, sets.* and distinct() ask the
     * value on their side of Equal (upstream-cel 1.37 and 1.38) */
    EV("quantity('2') == quantity('1').add(1)", "ERROR: no such overload");
    EV("quantity('1').add(1) == quantity('2')", "true");
    EV("quantity('1').add(1) == quantity('1').sub(-1)", "ERROR: no such overload");
    EV("quantity('2') != quantity('1').add(1)", "true"); /* evalNe: not true */
    EV("quantity('1').add(1) == null", "false");
    EV("[quantity('2')] == [quantity('1').add(1)]", "true"); /* a failed pair is not False */
    EV("[quantity('1')] == [quantity('1').add(1)]", "true");
    EV("quantity('2') in [quantity('1').add(1)]", "false");
    EV("quantity('1').add(1) in [quantity('2')]", "true");
    EV("[quantity('1').add(1)].indexOf(quantity('2'))", "0");
    EV("[quantity('2')].indexOf(quantity('1').add(1))", "-1");
    EV("sets.contains([quantity('1').add(1)], [quantity('2')])", "false");
    EV("sets.intersects([quantity('1').add(1)], [quantity('2')])", "true");
    EV("sets.intersects([quantity('2')], [quantity('1').add(1)])", "false");
    EV("[quantity('1').add(1), quantity('2')].distinct().size()", "2");
    EV("[quantity('2'), quantity('1').add(1)].distinct().size()", "1");
    /* quantityAddInt, quantitySubInt: NewQuantity(i, DecimalExponent),
     * whose format a zero receiver takes (quantity.go Add, Sub) */
    EV("quantity('0').add(1000)", "quantity(\"1e3\")");
    EV("quantity('0').sub(1000)", "quantity(\"-1e3\")");
    EV("quantity('0').add(quantity('1k'))", "quantity(\"1k\")");
    /* through apimachinery v0.37.2 int64Amount.Sub adds -y, and Go's
     * -MinInt64 is MinInt64 (upstream-cel 1.37's answers) */
    EV("quantity('8').sub(-9223372036854775808)", "quantity(\"-9223372036854775800\")");
    EV("quantity('0').sub(-9223372036854775808)", "quantity(\"-9223372036854775808\")");
    EV("quantity('8k').sub(-9223372036854775808)", "quantity(\"-9223372036854767808\")");
    EV("quantity('-1').sub(-9223372036854775808)", "quantity(\"9223372036854775807\")"); /* sum past int64: exact */
    EV("isQuantity('1Mi')", "true");
    EV("isQuantity('abc')", "false");
    EV("quantity('1.5').asInteger()", "ERROR: cannot convert value to integer");
    EV("quantity('10m').isLessThan(quantity('1'))", "true");
    /* sum, min, max and isSorted are declared per type (apiserver
     * v0.37.2 pkg/cel/library/lists.go summableTypes, comparableTypes):
     * no quantities, [] binds int, [dyn(..)] picks by the first element */
    EV("[quantity('1'), quantity('2')].sum()",
       "COMPILE: found no matching overload for 'sum' applied to 'list(kubernetes.Quantity).()'");
    EV("[quantity('5'), quantity('2')].min()",
       "COMPILE: found no matching overload for 'min' applied to 'list(kubernetes.Quantity).()'");
    EV("[[1]].isSorted()", "COMPILE: found no matching overload for 'isSorted' applied to 'list(list(int)).()'");
    EV("1.0 * [].sum()", "COMPILE: found no matching overload for '_*_' applied to '(double, int)'");
    EV("[].sum() == 0", "true");
    /* overloads in cel-go's order (common/stdlib/standard.go): a type
     * variable binds to the first that fits, double before int, bytes
     * before int for + */
    EV("(-([][0])) == 1", "COMPILE: found no matching overload for '_==_' applied to '(double, int)'");
    EV("([][0] + [][1]) == 1", "COMPILE: found no matching overload for '_==_' applied to '(bytes, int)'");
    EV("[1.5].map(x, x).filter(x, x > 2.0).sum()", "0.0");
    EV("[dyn(1u)].sum()", "1u");
    EV("[dyn(1), dyn(2.0)].sum()", "ERROR: no such overload");
    /* min and max keep the best so far when a comparison fails (a NaN,
     * another type) */
    EV("[0.0 / 0.0, 1.0].max()", "NaN");
    EV("[dyn(1), dyn('a')].max()", "1");
    EV("semver('1.2.3').major()", "1");
    EV("semver('1.2.3').minor()", "2");
    EV("semver('1.2.3').patch()", "3");
    EV("semver('1.2.3').isLessThan(semver('1.10.0'))", "true");
    EV("semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", "true");
    EV("semver('2.0.0').compareTo(semver('1.9.9'))", "1");
    EV("isSemver('1.2')", "false");
    EV("isSemver('v1.2', true)", "true");
    EV("semver('v1.2', true).minor()", "2");
    EV("semver('1.2.3') == semver('1.2.3+build')", "true");
}

UNIT_TEST(k8s_net_url_regex)
{
    EV("ip('192.168.0.1').family()", "4");
    EV("ip('::1').isLoopback()", "true");
    EV("ip('10.0.0.1').isGlobalUnicast()", "true");
    EV("ip('fe80::1').isLinkLocalUnicast()", "true");
    EV("isIP('1.2.3')", "false");
    EV("isIP('::ffff:1.2.3.4')", "false");
    EV("ip.isCanonical('2001:db8::1')", "true");
    EV("ip.isCanonical('2001:DB8::1')", "false");
    EV("string(ip('10.0.0.1'))", "\"10.0.0.1\"");
    EV("cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))", "true");
    EV("cidr('10.0.0.0/8').containsIP('11.1.2.3')", "false");
    EV("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", "true");
    EV("cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')", "true");
    EV("cidr('10.0.0.0/8').prefixLength()", "8");
    EV("string(cidr('10.1.2.3/8').ip())", "\"10.1.2.3\"");
    EV("isCIDR('10.0.0.0/33')", "false");
    EV("url('https://example.com:8080/a/b?x=1').getHost()", "\"example.com:8080\"");
    EV("url('https://example.com:8080/a/b?x=1').getHostname()", "\"example.com\"");
    EV("url('https://example.com:8080/a/b?x=1').getPort()", "\"8080\"");
    EV("url('https://example.com/a/b').getEscapedPath()", "\"/a/b\"");
    EV("url('https://example.com/a/b').getScheme()", "\"https\"");
    EV("url('https://e.com/?x=1&x=2&y=3').getQuery()", "{\"x\": [\"1\", \"2\"], \"y\": [\"3\"]}");
    EV("isURL('not a url')", "false");
    EV("'abc123def456'.find('[0-9]+')", "\"123\"");
    EV("'abc'.find('[0-9]+')", "\"\"");
    EV("'abc123def456'.findAll('[0-9]+')", "[\"123\", \"456\"]");
    EV("'a1b2c3'.findAll('[0-9]', 2)", "[\"1\", \"2\"]");
}

UNIT_TEST(math_ext)
{
    EV("math.greatest(1, 2)", "2");
    EV("math.least([3, 1, 2])", "1");
    EV("math.greatest(5.4, 10, 3u, -5.0, 9223372036854775807)", "9223372036854775807");
    EV("math.least(5.4, 10, 3u, 1u, 18446744073709551615u)", "1u");
    EV("math.greatest(1, 1.0)", "1");
    EV("math.greatest()", "COMPILE: math.greatest() requires at least one argument");
    CHECK(strstr(run("math.least('a', 1)", false), "math.least() simple literal arguments must be numeric") != NULL);
    EV("math.least([])", "COMPILE: math.least() invalid single argument value");
    EV("math.greatest(dyn([]))", "ERROR: math.@max(list) argument must not be empty");
    EV("math.ceil(-1.2)", "-1.0");
    EV("math.floor(-1.2)", "-2.0");
    EV("math.round(-1.5)", "-2.0");
    EV("math.round(2.5)", "3.0");
    EV("math.trunc(-1.7)", "-1.0");
    EV("math.isNaN(0.0/0.0) && math.isInf(1.0/0.0) && !math.isFinite(1.0/0.0)", "true");
    EV("math.abs(-11)", "11");
    EV("math.abs(-9223372036854775808)", "ERROR: integer overflow");
    EV("math.abs(-1.5)", "1.5");
    EV("math.sign(-32.0)", "-1.0");
    EV("math.sign(0u)", "0u");
    EV("math.sign(dyn(true))", "ERROR: no such overload: math.sign(bool)"); /* decls.go MaybeNoSuchOverload */
    EV("math.bitAnd(1, 3)", "1");
    EV("math.bitOr(4, -2)", "-2");
    EV("math.bitXor(1u, 3u)", "2u");
    EV("math.bitNot(0)", "-1");
    EV("math.bitNot(0u)", "18446744073709551615u");
    EV("math.bitShiftLeft(1, 200)", "0");
    EV("math.bitShiftRight(-1024, 3)", "2305843009213693824");
    EV("math.bitShiftRight(1u, -1)", "ERROR: math.bitShiftRight() negative offset: -1");
    EV("math.sqrt(16)", "4.0");
    /* not in the Kubernetes environment: neither the macro nor the functions */
    cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES);
    cel_program *p = NULL;
    dra_err *e = cel_compile(env, "math.greatest(1, 2) == 2", 24, NULL, &p);
    CHECK(e != NULL);
    dra_err_free(e);
    cel_program_free(p);
    cel_env_free(env);
}

UNIT_TEST(encoders_ext)
{
    EV("base64.encode(b'hello')", "\"aGVsbG8=\"");
    EV("base64.encode(b'')", "\"\"");
    EV("base64.encode(b'ab')", "\"YWI=\"");
    EV("base64.decode('aGVsbG8=')", "b\"hello\"");
    EV("base64.decode('aGVsbG8')", "b\"hello\"");
    EV("base64.decode('YWI=')", "b\"ab\"");
    EV("base64.decode('YW\\nI=')", "b\"ab\"");
    EV("base64.decode(base64.encode(b'Hello World!'))", "b\"Hello World!\"");
    EV("base64.decode('a')", "ERROR: illegal base64 data at input byte 0");
    EV("base64.decode('aGVsbG8*')", "ERROR: illegal base64 data at input byte 7");
    EV("base64.decode('YQ=')", "ERROR: illegal base64 data at input byte 2");
}

UNIT_TEST(conformance_gaps_closed)
{
    /* int/double ordering near 2^63 is computed as cel-go does (lossy) */
    EV("dyn(9223372036854775807) < 9223372036854775808.0", "false");
    EV("dyn(9223372036854775807) >= 9223372036854775808.0", "true");
    EV("dyn(9223372036854775808.0) <= 9223372036854775807", "true");
    EV("dyn(18446744073709551615u) < 18446744073709551616.0", "false");
    EV("dyn(-1) < -9223372036854775809.0", "false");
    EV("1 < 1.5 && 2u > 1.5 && -1 < 0u", "true");
    /* dyn is not a value; optional_type and qualified type names are */
    CHECK(strstr(run("dyn", false), "undeclared reference to 'dyn'") != NULL);
    CHECK(strstr(run("dyn", true), "ERROR: no such attribute") != NULL);
    EV("type(optional.none()) == optional_type", "true");
    EV("google.protobuf.Timestamp == type(timestamp('2009-02-13T23:31:30Z'))", "true");
    EVU("google.protobuf.Duration == type(duration('1s'))", "true");
    /* list indices: uint and integral double behind dyn */
    EV("[7, 8, 9][dyn(0u)]", "7");
    EV("[7, 8, 9][dyn(2.0)]", "9");
    EV("[7, 8, 9][dyn(1.5)]", "ERROR: unsupported index value 1.5 in list");
    EV("[7, 8, 9][3]", "ERROR: index out of bounds: 3");
    /* indexing an optional value */
    EV("optional.of({'c': {'index': 'goodbye'}}).c['index'].orValue('none')", "\"goodbye\"");
    EV("optional.of({'c': {}}).c['index'].orValue('none')", "\"none\"");
    EV("optional.of([1, 2])[1]", "optional.of(2)");
    EV("optional.of([1, 2])[5]", "optional.none()");
    EV("optional.none()[0]", "optional.none()");
}

UNIT_TEST(k8s_format)
{
    EV("format.dns1123Label().validate('my-name')", "optional.none()");
    EV("format.dns1123Label().validate('My_Name')",
       "optional.of([\"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
       "must start and end with an alphanumeric character (e.g. 'my-name' or '123-abc', regex used for validation "
       "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\"])");
    EV("format.dns1123Label().validate('a.b')", "optional.of([\"must not contain dots\"])");
    EV("format.dns1123LabelPrefix().validate('my-prefix-')", "optional.none()");
    EV("format.dns1123Subdomain().validate('apiextensions.k8s.io')", "optional.none()");
    EV("format.dns1035Label().validate('1abc').value().size()", "1");
    EV("format.qualifiedName().validate('example.com/MyName')", "optional.none()");
    EV("format.qualifiedName().validate('/x')", "optional.of([\"prefix part must be non-empty\"])");
    EV("format.qualifiedName().validate('Example.com/x').value()[0].startsWith('prefix part a lowercase RFC 1123 "
       "subdomain')",
       "true");
    EV("format.qualifiedName().validate('a/b/c').value()[0].startsWith('a qualified name must consist')", "true");
    EV("format.labelValue().validate('')", "optional.none()");
    EV("format.labelValue().validate('-x').hasValue()", "true");
    EV("format.named('uuid').value().validate('123e4567-e89b-12d3-a456-426614174000')", "optional.none()");
    EV("format.uuid().validate('nope')", "optional.of([\"does not match the UUID format\"])");
    EV("format.byte().validate('aGVsbG8=')", "optional.none()");
    EV("format.byte().validate('aGVsbG8')", "optional.of([\"invalid base64\"])");
    EV("format.date().validate('2021-02-29')", "optional.of([\"invalid date\"])");
    EV("format.date().validate('2024-02-29')", "optional.none()");
    EV("format.datetime().validate('2021-01-01T00:00:00Z')", "optional.none()");
    EV("format.uri().validate('http://example.com')", "optional.none()");
    EV("format.uri().validate('example')", "optional.of([\"parse \\\"example\\\": invalid URI for request\"])");
    EV("format.named('nope')", "optional.none()");
    EV("format.named('labelValue')", "optional.of(format.labelValue())");
}

UNIT_TEST(sort_by_macro)
{
    EV("[3, 1, 2].sortBy(e, e)", "[1, 2, 3]");
    EV("[3, 1, 2].sortBy(e, -e)", "[3, 2, 1]");
    EV("['ab', 'c', 'def'].sortBy(s, s.size())", "[\"c\", \"ab\", \"def\"]");
    EV("[{'n': 2}, {'n': 1}].sortBy(m, m.n)[0].n", "1");
    /* ext/lists.go: sort and sortBy take lists of comparable types only
     * (comparableTypes), bound once to a list: other elements are
     * refused at runtime, a receiver that is no list by name */
    EV("[1, 2].sortBy(x, [x])",
       "COMPILE: found no matching overload for '@sortByAssociatedKeys' applied to 'list(int).(list(list(int)))'");
    EV("dyn([[1], [2]]).sort()", "ERROR: list elements must be comparable");
    EV("dyn(1).sort()", "ERROR: no such overload: sort");
    EV("dyn([1, 'a']).sort()", "ERROR: list elements must have the same type");
    EV("l.sortBy(x, x % 2)", "[2, 1, 3]");
    CHECK(strstr(run("1.sortBy(e, e)", false), "sortBy can only be applied to a list") != NULL);
}

UNIT_TEST(literal_validation)
{
    cel_env *env = cel_dra_env_new(NULL); /* Kubernetes validators on */
    const char *bad[] = {"duration('1x') > duration('1s')", "timestamp('2023-13-01T00:00:00Z') == timestamp(0)",
                         "device.driver.matches('[')", "timestamp(253402300800) == timestamp(0)"};
    const char *want[] = {"compilation failed: ERROR: <input>:1:10: invalid duration argument\n"
                          " | duration('1x') > duration('1s')\n | .........^",
                          "compilation failed: ERROR: <input>:1:11: invalid timestamp argument\n"
                          " | timestamp('2023-13-01T00:00:00Z') == timestamp(0)\n | ..........^",
                          "compilation failed: ERROR: <input>:1:23: invalid matches argument\n"
                          " | device.driver.matches('[')\n | ......................^",
                          "compilation failed: ERROR: <input>:1:11: invalid timestamp argument\n"
                          " | timestamp(253402300800) == timestamp(0)\n | ..........^"};
    for (size_t i = 0; i < 4; i++) {
        cel_program *p = NULL;
        dra_err *e = cel_dra_compile(env, bad[i], strlen(bad[i]), &p);
        CHECK(e != NULL);
        if (e)
            CHECK_STR(e->msg, want[i]);
        dra_err_free(e);
        cel_program_free(p);
    }
    const char *good = "duration('1h2m') > duration('1s') && device.driver.matches('^a.*$') && "
                       "timestamp('2023-01-01T00:00:00Z') > timestamp(0)";
    cel_program *p = NULL;
    dra_err *e = cel_dra_compile(env, good, strlen(good), &p);
    CHECK(e == NULL);
    dra_err_free(e);
    cel_program_free(p);
    cel_env_free(env);
    /* without the option the error comes at runtime */
    EV("duration('1x') > duration('1s')", "ERROR: type conversion error from 'string' to 'google.protobuf.Duration'");
}

UNIT_TEST(containers_resolution)
{
    for (int unchecked = 0; unchecked < 2; unchecked++) {
        cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES);
        cel_env_declare(env, "x.y", &cel_t_bool);
        cel_env_declare(env, "y", &cel_t_string);
        cel_env_declare(env, "a.b.c", &cel_t_int);
        cel_env_set_container(env, "x");
        cel_activation act = CEL_ACTIVATION_INIT;
        cel_activation_bind(&act, "x.y", cel_bool(true));
        cel_activation_bind(&act, "y", cel_string("no", 2));
        cel_activation_bind(&act, "a.b.c", cel_int(3));
        const char *exprs[] = {"y", ".y", "a.b.c", "[1].all(z, z == 1)"};
        const char *want[] = {"true", "\"no\"", "3", "true"};
        for (size_t i = 0; i < 4; i++) {
            cel_program *p = NULL;
            cel_compile_options co = {.skip_check = unchecked};
            dra_err *e = cel_compile(env, exprs[i], strlen(exprs[i]), &co, &p);
            CHECK(e == NULL);
            if (e) {
                fprintf(stderr, "%s: %s\n", exprs[i], e->msg);
                dra_err_free(e);
                continue;
            }
            cel_value v = cel_eval(p, &act, NULL);
            char *t = cel_value_to_string(&v);
            CHECK_STR(t, want[i]);
            free(t);
            cel_program_free(p);
        }
        cel_env_free(env);
    }
}

UNIT_TEST(cost_limit)
{
    cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES);
    cel_program *p = NULL;
    const char *expr = "lists.range(1000).map(i, lists.range(1000).map(j, i * j)).size() > 0";
    dra_err *e = cel_compile(env, expr, strlen(expr), NULL, &p);
    CHECK(e == NULL);
    if (p) {
        uint64_t cost = 0;
        cel_eval_options eo = {.cost_limit = 1000000, .actual_cost = &cost};
        cel_value v = cel_eval(p, NULL, &eo);
        CHECK(v.kind == CEL_ERROR);
        if (v.kind == CEL_ERROR)
            CHECK_STR(v.v.err, "operation cancelled: actual cost limit exceeded");
        cel_program_free(p);
    }
    dra_err_free(e);
    /* costs of simple expressions as cel-go counts them */
    /* ... and the Kubernetes library costs (apiserver library/cost.go CallCost) */
    const char *exprs[] = {"1 + 2",
                           "x > 1 && x < 10",
                           "[1, 2, 3]",
                           "{'a': 1}",
                           "'abc'.contains('b')",
                           "'hello world'.split(' ').size() == 2",
                           "quantity('1Gi').isGreaterThan(quantity('1Mi'))",
                           "'abcdefghijklmnopqrstuvwxyz'.lowerAscii() != ''",
                           "[1, 2, 3].sum() == 6",
                           "['aaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbbb'].isSorted()",
                           "'abc123def456'.findAll('[0-9]+').size() == 2",
                           "cidr('10.0.0.0/8').containsIP('10.1.2.3')",
                           "cidr('10.0.0.0/8').containsCIDR(cidr('10.1.0.0/16'))",
                           "isCIDR('10.0.0.0/8')"};
    const uint64_t want[] = {1, 4, 0, 0, 1, 5, 3, 3, 4, 3, 6, 3, 6, 1};
    cel_env_declare(env, "x", &cel_t_int);
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        e = cel_compile(env, exprs[i], strlen(exprs[i]), NULL, &p);
        CHECK(e == NULL);
        if (!p)
            continue;
        cel_activation act = CEL_ACTIVATION_INIT;
        cel_activation_bind(&act, "x", cel_int(5));
        uint64_t cost = 0;
        cel_eval_options eo = {.actual_cost = &cost};
        cel_eval(p, &act, &eo);
        if (cost != want[i])
            fprintf(stderr, "  cost of %s\n", exprs[i]);
        CHECK_INT(cost, want[i]);
        cel_program_free(p);
    }
    cel_env_free(env);
}

/* Comprehensions whose accumulator starts as an empty list or map build it
 * in place, as cel-go's mutable accumulator does: memory and time grow
 * linearly with the list (copying the accumulator at each step was
 * quadratic: 8 times the items took 64 times the memory). */
static size_t scratch_after(const char *expr)
{
    cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES);
    cel_program *p = NULL;
    dra_err *e = cel_compile(env, expr, strlen(expr), NULL, &p);
    size_t bytes = 0;
    if (e) {
        fprintf(stderr, "  %s\n", e->msg);
        dra_err_free(e);
    } else {
        cel_value v = cel_eval(p, NULL, NULL);
        if (v.kind == CEL_BOOL && v.v.b)
            bytes = cel_program_scratch_bytes(p);
        cel_program_free(p);
    }
    cel_env_free(env);
    return bytes;
}

/* Check the value (when want_value is set, else that it is no error) and
 * the actual cost of expr in the Kubernetes environment. */
static void check_cost(int *unit_failed, const char *expr, uint64_t want, const char *want_value)
{
    cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES);
    cel_program *p = NULL;
    dra_err *e = cel_compile(env, expr, strlen(expr), NULL, &p);
    CHECK(e == NULL);
    dra_err_free(e);
    if (p) {
        uint64_t cost = 0;
        cel_eval_options eo = {.actual_cost = &cost};
        cel_value v = cel_eval(p, NULL, &eo);
        char *got = cel_value_to_string(&v);
        if (want_value)
            CHECK_STR(got, want_value);
        else
            CHECK(v.kind != CEL_ERROR);
        free(got);
        if (cost != want)
            fprintf(stderr, "  cost of %s\n", expr);
        CHECK_INT(cost, want);
        cel_program_free(p);
    }
    cel_env_free(env);
}

UNIT_TEST(comprehension_memory_linear)
{
    const char *shapes[] = {
        "lists.range(%d).map(x, x).filter(y, y >= 0).size() == %d",
        "lists.range(%d).map(x, x >= 0, [x]).size() == %d",
        "lists.range(%d).transformList(i, v, v).size() == %d",
        "lists.range(%d).transformMap(i, v, v)[%d - 1] >= 0",
        "lists.range(%d).transformMapEntry(i, v, {v: i}).size() == %d",
        "cel.bind(r, lists.range(%d).map(x, string(x)), r.size() == %d)",
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char small[256], big[256];
        snprintf(small, sizeof small, shapes[i], 250, 250);
        snprintf(big, sizeof big, shapes[i], 2000, 2000);
        size_t a = scratch_after(small), b = scratch_after(big);
        CHECK(a > 0 && b > 0);
        if (!(b < 16 * a && b < 2 * 1024 * 1024))
            fprintf(stderr, "  %s: %zu bytes for 250 items, %zu for 2000\n", shapes[i], a, b);
        CHECK(b < 16 * a);
        CHECK(b < 2 * 1024 * 1024);
    }
}

/* What a step makes and nothing keeps is freed before the next step: a
 * concatenation of 2,000 items in each of 2,000 steps (96 MB when kept)
 * stays within a few blocks whether the result is a bool, an int or the
 * iteration variable. */
UNIT_TEST(comprehension_step_garbage_freed)
{
    const char *shapes[] = {
        "cel.bind(l, lists.range(1000), lists.range(2000).all(x, (l + l).size() > 0))",
        "cel.bind(l, lists.range(1000), lists.range(2000).exists(x, (l + l).size() == 0) == false)",
        "cel.bind(l, lists.range(1000), lists.range(2000).exists_one(x, (l + l).size() == x + 1))",
        "cel.bind(l, lists.range(1000), lists.range(2000).filter(x, (l + l).size() > x).size() == 2000)",
        "cel.bind(l, lists.range(1000), lists.range(2000).map(x, (l + l).size() + x)[1999] == 3999)",
        "cel.bind(l, lists.range(1000), lists.range(2000).transformMap(i, v, (l + l).size())[5] == 2000)",
        "cel.bind(l, lists.range(1000), lists.range(2000).map(x, l.map(y, string(y)).size()).size() == 2000)",
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        size_t b = scratch_after(shapes[i]);
        if (!(b > 0 && b < 2 * 1024 * 1024))
            fprintf(stderr, "  %s: %zu bytes\n", shapes[i], b);
        CHECK(b > 0 && b < 2 * 1024 * 1024);
    }
    /* kept values stay valid: strings made in the step, maps built in it */
    EV("lists.range(3).map(x, string(x) + '!')", "[\"0!\", \"1!\", \"2!\"]");
    EV("lists.range(3).filter(x, [x, x].size() == 2).map(y, {'k': [y]})", "[{\"k\": [0]}, {\"k\": [1]}, {\"k\": [2]}]");
    EV("cel.bind(x, [], lists.range(3).all(y, (x + [string(y)]).size() > 0) ? x : [])", "[\"0\", \"1\", \"2\"]");
    EV("lists.range(20).transformMapEntry(i, v, {string(v): [v]})['19']", "[19]");
}

/* What upstream's mutable accumulator makes visible: cel.bind(x, [], ...)
 * binds x to a list the additions grow in place (cel-go
 * common/types/list.go mutableList.Add), and a key inserted twice is
 * named as Go's %v prints it. */
UNIT_TEST(comprehension_mutable_accumulator)
{
    EV("cel.bind(x, [], (x + [1]).size() + x.size())", "2");
    EV("cel.bind(x, [], [1, 2].map(y, x + [y]))", "[[1, 2], [1, 2]]");
    EV("cel.bind(x, [], cel.bind(y, x + [1], x + y))", "[1, 1]");
    EV("cel.bind(x, [1], (x + [1]).size() + x.size())", "3");
    EV("cel.bind(m, {}, m.size())", "0");
    EV("[1, 2, 3].map(x, [x]).map(y, y + y)", "[[1, 1], [2, 2], [3, 3]]");
    EV("lists.range(3).map(x, lists.range(3).filter(y, y <= x))", "[[0], [0, 1], [0, 1, 2]]");
    EV("[].map(x, x)", "[]");
    EV("lists.range(100).transformMap(i, v, v * 2)[99]", "198");
    EV("lists.range(40).transformMapEntry(i, v, {string(v): v})['39']", "39");
    EV("{'a': 1, 'b': 2}.transformMapEntry(k, v, {'x': v})", "ERROR: insert failed: key x already exists");
    EV("lists.range(50).transformMapEntry(i, v, {v % 40: v})", "ERROR: insert failed: key 0 already exists");
    EV("[1, 2].transformMapEntry(i, v, {true: v})", "ERROR: insert failed: key true already exists");
    EV("[1, 2].transformMapEntry(i, v, {2u: v})", "ERROR: insert failed: key 2 already exists");
    EV("{'a': 1}.transformMapEntry(k, v, {k: v, 'b': 2, 'a': 3})", "{\"a\": 3, \"b\": 2}");
    /* actual costs as cel-go v0.29.2 counts them in Kubernetes' environment, with
     * OptOptimize (constant literals free; upstream-cel prints the same) */
    const char *exprs[] = {"[1, 2, 3].map(x, x * 2)",
                           "[[1], [2, 3]].map(a, a.map(b, b + 1))",
                           "{'a': 1}.transformMap(k, v, v + 1)",
                           "[1, 2].transformList(i, v, v * i)",
                           "cel.bind(x, [], (x + [1]).size() + x.size())",
                           "cel.bind(x, [], [1, 2].map(y, x + [y]))",
                           "{'a': 1, 'b': 2}.transformMapEntry(k, v, {v: k})",
                           "cel.bind(m, {}, m.size())",
                           "[1, 2, 3].exists(y, y == 1)",
                           "[1, 2, 3].all(y, y > 0)",
                           "[].map(y, y)"};
    const uint64_t want[] = {43, 71, 6, 31, 6, 51, 69, 2, 10, 16, 1};
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++)
        check_cost(unit_failed, exprs[i], want[i], NULL);
}

UNIT_TEST(value_printing)
{
    dra_arena a = DRA_ARENA_INIT;
    cel_value items[2] = {cel_int(1), cel_uint(2)};
    cel_value k = cel_string("k", 1), v = cel_double(1.5);
    cel_value vals[] = {
        cel_int(1),
        cel_uint(1),
        cel_double(1),
        cel_double(1e100),
        cel_string("s", 1),
        cel_bytes("\0", 1),
        cel_list_copy_a(&a, items, 2),
        cel_map_build_a(&a, &k, &v, 1, 0),
        cel_null(),
        cel_bool(true),
        cel_typeval(&cel_t_int),
        cel_optional_of_a(&a, cel_int(3)),
        cel_optional_none(),
        cel_double(0.1),
    };
    const char *want[] = {
        "1",    "1u",   "1.0", "1e+100",         "\"s\"",           "b\"\\x00\"", "[1, 2u]", "{\"k\": 1.5}",
        "null", "true", "int", "optional.of(3)", "optional.none()", "0.1",
    };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        char *s = cel_value_to_string(&vals[i]);
        CHECK_STR(s, want[i]);
        free(s);
    }
    json_t *j = json_loads("{\"a\": [1, 2.5, \"x\", null, true]}", 0, NULL);
    cel_value jv = cel_value_from_json(&a, j);
    char *s = cel_value_to_string(&jv);
    CHECK_STR(s, "{\"a\": [1, 2.5, \"x\", null, true]}");
    free(s);
    json_decref(j);
    dra_arena_free(&a);
}

/* Heap-allocation counter: the test binary replaces malloc & co. (glibc
 * supports replacing them; the __libc_* entry points are the originals).
 * Not under ASan, which owns malloc itself. */
#if !defined(__SANITIZE_ADDRESS__)
#define HAVE_MALLOC_COUNTER 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
static size_t heap_allocations;
void *malloc(size_t n)
{
    heap_allocations++;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m)
{
    heap_allocations++;
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n)
{
    heap_allocations++;
    return __libc_realloc(p, n);
}
void free(void *p)
{
    __libc_free(p);
}
#endif

static const char *device_json = "{\"name\": \"gpu-0\","
                                 " \"attributes\": {\"model\": {\"string\": \"a100\"}, \"count\": {\"int\": 4},"
                                 "   \"ecc\": {\"bool\": true}, \"driverVersion\": {\"version\": \"1.2.3\"},"
                                 "   \"other.example.com/zone\": {\"string\": \"z1\"}},"
                                 " \"capacity\": {\"memory\": {\"value\": \"80Gi\"}}}";

static const char *dra_eval(cel_env *env, cel_dra_device *dev, const char *expr)
{
    static char out[1024];
    cel_program *p = NULL;
    dra_err *e = cel_dra_compile(env, expr, strlen(expr), &p);
    if (e) {
        snprintf(out, sizeof out, "COMPILE: %s", e->msg);
        dra_err_free(e);
        return out;
    }
    bool m = false;
    e = cel_dra_match(p, dev, &m);
    if (e) {
        snprintf(out, sizeof out, "ERROR: %s", e->msg);
        dra_err_free(e);
    } else {
        snprintf(out, sizeof out, "%s", m ? "true" : "false");
    }
    cel_program_free(p);
    return out;
}

/* Actual costs as cel-go v0.29.2 counts them for variables, selections,
 * indexes and ternaries (attributes: 1 for the attribute, 1 per constant
 * qualifier, nothing for an attribute ternary branch itself, 1 more for a
 * relative attribute), which filter(), map(x, p, f) and exists_one() hit
 * with their accumulator, and for opt.or() and opt.orValue() (no call). */
UNIT_TEST(costs_as_cel_go)
{
    static const struct {
        const char *expr;
        uint64_t cost;
    } rows[] = {
        {"[1, 2, 3].filter(y, y > 1)", 33},
        {"[1, 2, 3].filter(y, y > 5)", 7},
        {"[1, 2, 3].map(y, y > 1, y)", 33},
        {"[1, 2, 3].exists_one(y, y == 2)", 10},
        {"[1, 2, 3].filter(y, y > 1).map(z, z * 2)", 62},
        {"{'a': 1, 'b': 2}.transformMap(k, v, v > 1, v)", 9},
        {"[1, 2].transformList(i, v, i > 0, v * 2)", 19},
        {"cel.bind(x, [1, 2], true ? x : [2])", 0},
        {"cel.bind(x, [1, 2], false ? [2] : x)", 0},
        {"cel.bind(x, {'a': {'b': 1}}, true ? x.a.b : 2)", 2},
        {"cel.bind(x, {'a': {'b': 1}}, true ? x['a']['b'] : 2)", 2},
        {"cel.bind(x, [1, 2], cel.bind(i, 1, true ? x[i] : 3))", 1},
        {"cel.bind(x, [1, 2], cel.bind(i, 1, x[i]))", 2},
        {"cel.bind(x, [[1], [2]], cel.bind(i, 1, x[i][0]))", 3},
        {"cel.bind(x, {'a': {'b': 1}}, cel.bind(k, 'a', x[k].b))", 3},
        {"cel.bind(x, 1, true ? (true ? x : 2) : 3)", 0},
        {"cel.bind(x, 1, (true ? x : 3) + 1)", 1},
        {"cel.bind(x, {'a': 1}, (true ? x : {}).a)", 1},
        {"[1, 2][0]", 2},
        {"{'a': 1}.a", 2},
        {"{'a': {'b': 1}}.a.b", 3},
        {"true ? [1, 2][0] : 3", 1},
        {"optional.of(1).orValue(2)", 1},
        {"optional.none().orValue(2)", 1},
        {"optional.of(1).or(optional.of(2))", 1},
        {"optional.none().or(optional.of(2))", 2},
        {"cel.bind(x, {'a': {'b': 1}}, true ? x.?a.b.orValue(0) : 3)", 3},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        check_cost(unit_failed, rows[i].expr, rows[i].cost, NULL);
}

/* ext.Lists version 3 (cel-go ext/lists.go): the actual costs of its
 * cost trackers (cel-go v0.29.2) and, in the DRA environment, the
 * estimates Kubernetes 1.37 makes (dynamic-resource-allocation
 * CompileCELExpression MaxCost), cel.bind's variable sized by its value. */
UNIT_TEST(lists_ext_costs_as_cel_go)
{
    static const struct {
        const char *expr;
        uint64_t cost;
    } actual[] =
        {
            {"lists.range(5)", 16},
            {"lists.range(0)", 11},
            {"[1, 2, 3].slice(0, 2)", 13},
            {"[[1], [2, 3]].flatten()", 13},
            {"[[1], [[2], 3]].flatten(2)", 15},
            {"[3, 1, 2].sort()", 29},
            {"['b', 'a'].sort()", 19},
            {"[1, 1, 2].distinct()", 29},
            {"[].distinct()", 11},
            {"[1, 2].reverse()", 13},
            {"[3, 1, 2].sortBy(x, -x)", 74},
            {"['a', 'bb'].sortBy(x, x)", 48},
            {"[b'a'].distinct()", 13},
        },
      estimated[] = {
          {"lists.range(5).size() > 0", 18},
          {"lists.range(100000).size() > 0", 100013},
          {"[3,1,2].sort().size() > 0", 41},
          {"['b','a'].sort().size() > 0", 32},
          {"[1,2,3].slice(0, 2).size() > 0", 25},
          {"[1,2,3].slice(1, 2).size() > 0", 24},
          {"[[1],[2,3]].flatten().size() > 0", 45},
          {"[1,1,2].distinct().size() > 0", 41},
          {"[1,2].reverse().size() > 0", 25},
          {"[3,1,2].sortBy(x, -x).size() > 0", 106},
          {"['a','bb'].sortBy(x, x).size() > 0", 81},
          {"lists.range(10).map(x, x * 2).size() > 0", 174},
          {"lists.range(3).sort().size() > 0", 45},
          {"cel.bind(x, [1,2,3], x.map(y, y).size() > 0)", 73},
          {"cel.bind(x, [1,2,3], x.size() > 0)", 23},
          {"cel.bind(x, device.attributes['dra.example.com'], x.s == 'a')", 16},
      };
    for (size_t i = 0; i < sizeof actual / sizeof actual[0]; i++)
        check_cost(unit_failed, actual[i].expr, actual[i].cost, NULL);
    cel_env *env = cel_dra_env_new(NULL);
    for (size_t i = 0; i < sizeof estimated / sizeof estimated[0]; i++) {
        cel_program *p = NULL;
        dra_err *e = cel_dra_compile(env, estimated[i].expr, strlen(estimated[i].expr), &p);
        CHECK(e == NULL);
        dra_err_free(e);
        if (!p)
            continue;
        uint64_t min = 0, max = 0;
        cel_program_estimated_cost(p, &min, &max);
        if (max != estimated[i].cost)
            fprintf(stderr, "  estimated cost of %s\n", estimated[i].expr);
        CHECK_INT(max, estimated[i].cost);
        cel_program_free(p);
    }
    cel_env_free(env);
}

/* An accumulator's initial value is evaluated when the variable is first
 * read (cel-go folder.ResolveName): cel.bind(x, e, r) costs nothing for e
 * when r does not read x, and a step that never read the accumulator
 * still replaces it.  Values and costs as cel-go v0.29.2. */
UNIT_TEST(accumulator_initialised_when_read)
{
    static const struct {
        const char *expr, *value;
        uint64_t cost;
    } rows[] = {
        {"cel.bind(x, [1,2,3].map(y, y), 1)", "1", 0},
        {"cel.bind(x, 1/0, 1)", "1", 0},
        {"cel.bind(x, [1,2], cel.bind(i, 1, 0))", "0", 0},
        {"cel.bind(x, 1/0, false ? x : 2)", "2", 0},
        {"cel.bind(x, [1, 2], true ? 0 : x.size())", "0", 0},
        {"cel.bind(x, lists.range(3).map(y, string(y)), lists.range(100).all(i, x[0] == '0') ? x : [])",
         "[\"0\", \"1\", \"2\"]", 769},
        {"cel.bind(x, [3, 2, 1, 0].exists_one(v, 6 / v > 1), 1)", "1", 0},
        {"cel.bind(a, 1, cel.bind(b, a + 1, cel.bind(c, b + a, c * 2)))", "6", 7},
        {"cel.bind(a, [1, 2], [3, 4].map(y, cel.bind(b, a.size() + y, b)))", "[5, 6]", 35},
        {"[1, 2].map(y, cel.bind(b, [y, y], b.size()))", "[2, 2]", 53},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        check_cost(unit_failed, rows[i].expr, rows[i].cost, rows[i].value);
    EV("[3, 2, 1, 0].exists_one(v, 6 / v > 1)", "ERROR: division by zero");
    EV("[2, 1, 0].map(v, 6 / v > 2, v)", "ERROR: division by zero");
}

/* Kubernetes makes programs with cel-go's OptOptimize (apiserver v0.37.2
 * pkg/cel/environment/base.go; cel-go v0.29.2 interpreter/decorators.go
 * decOptimize): constant literals, type names and conversions of
 * constants cost nothing, `x in CONSTANT_LIST` is a free set lookup, and
 * a constant conversion or pattern that fails stops the program from
 * being made.  Values, costs and texts as upstream-cel prints them. */
UNIT_TEST(opt_optimize_as_kubernetes)
{
    static const struct {
        const char *expr, *value;
        uint64_t cost;
    } rows[] = {
        {"[1,2,3].size() == 3", "true", 2},
        {"type(1) == int", "true", 1},
        {"dyn(1u) in [1]", "true", 0},
        {"(1/0) in []", "false", 0},
        {"'a' in ['a', 'b']", "true", 0},
        {"b'a' in [b'a']", "true", 1},
        {"{1: 2, 1: 3}", "{1: 3}", 0},
        {"dyn(2.0) in [2]", "true", 0},
        {"dyn(9223372036854775807) in [9.223372036854775807e18]", "false", 0},
        {"timestamp('2024-01-01T00:00:00Z') + duration('1s')", "timestamp(\"2024-01-01T00:00:01Z\")", 1},
        {"[[1, 2], [3]].size()", "2", 1},
        {"{'a': [1], 'b': [2]}['a'][0]", "1", 3},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        check_cost(unit_failed, rows[i].expr, rows[i].cost, rows[i].value);
    static const char *const bad[][2] = {
        {"int('x') == 1 || true", "type conversion error from 'string' to 'int'"},
        {"uint(-1)", "unsigned integer overflow"},
        {"'a'.matches(string(b'['))", "error parsing regexp: missing closing ]: `[`"},
        {"cel.bind(t, int, t)", "reference to undefined type: t"},
        {"'x'.find('a{1001}')", "error parsing regexp: invalid repeat count: `{1001}`"},
    };
    cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cel_program *p = NULL;
        dra_err *e = cel_compile(env, bad[i][0], strlen(bad[i][0]), NULL, &p);
        CHECK(e == NULL);
        dra_err_free(e);
        char *why = p ? cel_program_instantiation_error(p) : NULL;
        CHECK_STR(why, bad[i][1]);
        free(why);
        cel_program_free(p);
    }
    cel_env_free(env);
    /* a selector: after the result type, "program instantiation failed" */
    env = cel_dra_env_new(NULL);
    const char *sel = "int('x') == 1 || device.driver == 'a'";
    cel_program *p = NULL;
    dra_err *e = cel_dra_compile(env, sel, strlen(sel), &p);
    CHECK(e && !strcmp(e->msg, "program instantiation failed: type conversion error from 'string' to 'int'"));
    dra_err_free(e);
    cel_program_free(p);
    cel_env_free(env);
}

/* How cel-go v0.29.2 charges calls, attributes and literals around errors
 * and dynamic dispatch (interpreter/runtimecost.go, interpretable.go,
 * planner.go): a call dispatched dynamically costs 1 (no overload cost);
 * var-args calls (3+ arguments, compiled patterns, and one or two
 * arguments dispatched dynamically, unless the standard library binds
 * the function once, as its operators, size and matches) stop at the
 * first failing argument and are charged only when every argument ran; list
 * and map literals are charged even when an element fails; an absent
 * optional qualifier is not charged; has() on a non-attribute costs its
 * relative attribute; a selection or index on a failed operand is still
 * charged the relative attribute (1), a failed index also its qualifier.  Costs and values as upstream-cel prints them.
 */
UNIT_TEST(runtime_costs_as_upstream)
{
    static const struct {
        const char *expr, *value;
        uint64_t cost;
    } rows[] = {
        {"has({}.a)", "false", 1},
        {"has([{'a': 1}][0].a)", "true", 2},
        {"{'a': 1}[?'b']", "optional.none()", 1},
        {"['a'][?3]", "optional.none()", 1},
        {"{'a': {'b': 1}}.?c.?b", "optional.none()", 1},
        {"dyn('abcdefghijklmnopqrstuvwxyz') + dyn('abcdefghijklmnopqrstuvwxyz')",
         "\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\"", 1},
        {"[1/0]", "error(\"division by zero\")", 11},
        {"{'a': 1/0}", "error(\"division by zero\")", 31},
        {"'abc'.substring(1, 1/0)", "error(\"division by zero\")", 2},
        {"'abc'.substring(1/0, 2)", "error(\"division by zero\")", 1},
        {"string(1/0).matches('a')", "error(\"division by zero\")", 2},
        {"string(1/0).contains('a')", "error(\"division by zero\")", 3},
        {"dyn(1/0) < 1", "error(\"division by zero\")", 3},
        {"dyn(1/0) >= [1].map(x, x)[0]", "error(\"division by zero\")", 19},
        {"dyn(1/0) * [1].map(x, x)[0]", "error(\"division by zero\")", 19},
        {"dyn(1/0) in [[1].map(x, x)[0]]", "error(\"division by zero\")", 29},
        {"[1][1/0]", "error(\"division by zero\")", 3},
        {"dyn(1/0)[0]", "error(\"division by zero\")", 3},
        {"dyn(1/0).a.b", "error(\"division by zero\")", 3},
        {"dyn(1/0)[0][1]", "error(\"division by zero\")", 3},
        {"[1][?(1/0)]", "error(\"division by zero\")", 2},
        {"dyn(1/0)[?0]", "error(\"division by zero\")", 3},
        {"string(1/0).split('-')[0].substring(4)", "error(\"division by zero\")", 5},
        /* ext.Lists trackers size an error result 1 (ext/costs.go actualSize) */
        {"lists.range(-1)", "error(\"lists.range: size must be non-negative, got -1\")", 12},
        {"[1, 2].slice(2, 1)", "error(\"cannot slice(2, 1), start index must be less than or equal to end index\")",
         12},
        /* startsWith and endsWith traverse the prefix, not the string
         * (interpreter/runtimecost.go costCall: args[1]) */
        {"'abcdefghijklmnopqrstuvwxyz'.startsWith('a')", "true", 1},
        {"'abcdefghijklmnopqrstuvwxyz'.endsWith('xyz')", "true", 1},
        /* ext/sets.go trackSetsCost: 1 + the product, twice for equivalent */
        {"sets.contains([1, 2, 3], [1, 2])", "true", 7},
        {"sets.equivalent([1, 2, 3], [3, 2, 1])", "true", 19},
        {"sets.intersects([1, 2], [5])", "false", 3},
        /* ext/strings.go below version 5: no trackers, 1 a call */
        {"'abcdefghijklmnopqrstuvwxyz'.charAt(3)", "\"d\"", 1},
        {"strings.quote('abcdefghijklmnopqrstuvwxyz')", "\"\\\"abcdefghijklmnopqrstuvwxyz\\\"\"", 3},
        /* a computed key no qualifier takes (attributes.go newQualifier),
         * charged as the qualifier it failed to make */
        {"{'a': 1}[?dyn([null][0])]", "error(\"invalid qualifier type: types.Null\")", 4},
        {"['a'][dyn([[1]][0])]", "error(\"invalid qualifier type: *types.baseList\")", 5},
        /* FindRegexOptimization: the receiver unguarded by the signature */
        {"dyn(1).find('a')", "error(\"no such overload\")", 1},
        {"dyn(1).findAll('a', 2)", "error(\"no such overload\")", 1},
        /* IP and CIDR values have sizes (apiserver pkg/cel ip.go, cidr.go
         * Size()); == with a Kubernetes value on the left costs 1
         * (library/cost.go CallCost), != by the smaller size */
        {"cidr('::1/128').containsIP('a')", "error(\"no such overload\")", 6},
        {"ip('::1') == ip('::1')", "true", 3},
        {"ip('::1') != ip('::1')", "false", 4},
        /* a type variable binds to the first overload declared: string */
        {"cidr('10.0.0.0/8').containsIP([][2])", "error(\"index out of bounds: 2\")", 5},
        /* a lazy cel.bind variable whose value panics a tracker is not
         * charged (the sortBy macro binds its receiver) */
        {"dyn(1/0).sortBy(i0, 1).sortBy(y3, 0u)",
         "error(\"internal error: interface conversion: *types.Err is not traits.Lister: missing method Add\")", 4},
        /* an optional qualifier that fails is not observed, nor an
         * attribute key that failed on a qualifier of an attribute */
        {"['a'][?dyn(true)]", "error(\"unsupported index type 'bool' in list\")", 1},
        {"{'a': {'b': 1}}['a'][?(['a'][3])]", "error(\"index out of bounds: 3\")", 3},
        /* ext/strings.go joinValSeparator: an element that is no string */
        {"(['a'] + [dyn(null)]).join('-')", "error(\"join: invalid input: 0\")", 2},
        /* a ternary in the operand of a waived branch keeps the waiver */
        {"true ? (['a'].filter(e0, true))[1] : 'a'", "error(\"index out of bounds: 1\")", 15},
        /* evalFold with two variables */
        {"dyn('a').transformList(k, v, 1)", "error(\"unsupported comprehension range type: types.String\")", 0},
        {"dyn(1).all(k, v, true)", "error(\"unsupported comprehension range type: types.Int\")", 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        check_cost(unit_failed, rows[i].expr, rows[i].cost, rows[i].value);
}

/* has() on an attribute that fails, its variable unbound (dra-select eval
 * with no device) or a qualifier failing: cel-go charges the evalTestOnly
 * 1 less the presence test, and the qualifiers that ran; a plain
 * selection on the unbound variable costs 1.  As upstream-cel prints. */
UNIT_TEST(presence_on_unbound_variable)
{
    static const struct {
        const char *expr;
        uint64_t cost;
    } rows[] = {
        {"has(v.a.b)", 0},
        {"has(v.a)", 0},
        {"[has(v.a['k'].b)]", 10},
        {"v.a.b", 1},
        {"has(v.a) || true", 0},
        /* an optional index whose key is a failed attribute: neither the
         * qualifier nor the attribute it qualifies is observed */
        {"{'a': 1}[?v.x]", 1},
        {"['a'][?v.a.y]", 1},
        /* has() on a chain that fails on a value: the qualifiers that ran */
        {"has([{'a': 1}][1].a)", 1},
        {"has(({'a': {'b': 1}})['x'].b)", 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES);
        cel_env_declare(env, "v", &cel_t_dyn);
        cel_program *p = NULL;
        dra_err *e = cel_compile(env, rows[i].expr, strlen(rows[i].expr), NULL, &p);
        CHECK(e == NULL);
        dra_err_free(e);
        if (p) {
            uint64_t cost = 99;
            cel_activation act = CEL_ACTIVATION_INIT;
            cel_eval_options eo = {.actual_cost = &cost};
            cel_value v = cel_eval(p, &act, &eo);
            CHECK(v.kind == (strstr(rows[i].expr, "||") ? CEL_BOOL : CEL_ERROR));
            if (cost != rows[i].cost)
                fprintf(stderr, "  cost of %s\n", rows[i].expr);
            CHECK_INT(cost, rows[i].cost);
            cel_program_free(p);
        }
        cel_env_free(env);
    }
}

/* URLs as Go's net/url parses them (the Kubernetes URL library checks
 * with url.ParseRequestURI, then splits with url.Parse), Go's texts; as
 * upstream-cel prints them. */
UNIT_TEST(url_as_go)
{
    EV("url('')", "ERROR: URL parse error during conversion from string: parse \"\": empty url");
    EV("url('::1')", "ERROR: URL parse error during conversion from string: parse \"::1\": missing protocol scheme");
    EV("url('x\\ny')", "ERROR: URL parse error during conversion from string: parse \"x\\ny\": net/url: invalid "
                       "control character in URL");
    EV("url('http://h:80:90/')", "ERROR: URL parse error during conversion from string: parse \"http://h:80:90/\": "
                                 "invalid port \":80:90\" after host");
    EV("url('http://[1.2.3.4]/')",
       "ERROR: URL parse error during conversion from string: parse \"http://[1.2.3.4]/\": invalid IP-literal");
    EV("url('http://h/p#%zz')",
       "ERROR: URL parse error during conversion from string: parse \"http://h/p#%zz\": invalid URL escape \"%zz\"");
    EV("url('http://a b/')", "ERROR: URL parse error during conversion from string: parse \"http://a b/\": invalid "
                             "character \" \" in host name");
    EV("url('http://[::1/')",
       "ERROR: URL parse error during conversion from string: parse \"http://[::1/\": missing ']' in host");
    EV("url('http://user@h:80/p?q=1#f').getHostname()", "\"h\"");
    EV("url('http://[::1%25eth0]/').getHostname()", "\"::1%eth0\"");
    EV("url('https://example.com/a b').getEscapedPath()", "\"/a%20b\"");
    EV("url('ftp://h:80:90/').getPort()", "\"90\"");
}

/* == runs lhs.Equal(rhs) (cel-go v0.29.2 common/types/util.go Equal): a
 * Kubernetes value compared with another type fails with "no such
 * overload" (apiserver pkg/cel quantity.go, ip.go ... Equal), the other
 * way round is false; list and map equality only stop at a plain false,
 * so a failed element comparison counts as equal.  != is "not true".
 * Compile-time, string.format calls on literals are validated
 * (ext/formatting.go stringFormatValidator).  As upstream-cel prints. */
UNIT_TEST(equality_and_format_as_upstream)
{
    EV("quantity('1') == dyn(1)", "ERROR: no such overload");
    EV("dyn(1) == quantity('1')", "false");
    EV("quantity('1') != dyn(1)", "true");
    EV("ip('::1') == dyn('::1')", "ERROR: no such overload");
    EV("semver('1.0.0') == dyn(null)", "false");
    EV("[semver('1.0.0')] == [dyn('1.0.0')]", "true");
    EV("[dyn('1.0.0')] == [semver('1.0.0')]", "false");
    EV("{'a': quantity('1')} == {'a': dyn(1)}", "true");
    EV("optional.of(quantity('1')) == optional.of(dyn(1))", "ERROR: no such overload");
    EV("'%s %d'.format(['a', 1])", "\"a 1\"");
    EV("'%d %d'.format([1])", "COMPILE: index 1 out of range");
    EV("'%v'.format([1])", "COMPILE: could not parse formatting clause: unrecognized formatting clause \"v\"");
    EV("'%x'.format([1, 'a'])", "COMPILE: too many arguments supplied to string.format (expected 1, got 2)");
    EV("'%s-%d'.format(['a', 0.0])",
       "COMPILE: error during formatting: decimal clause can only be used on integers, was given double");
    EV("'%s'.format([[semver('1.0.0')]])",
       "COMPILE: error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, "
       "maps, lists, types, durations, and timestamps, was given kubernetes.Semver");
    EV("'%.3'.format([1])", "COMPILE: could not parse formatting clause: error while parsing precision: could not "
                            "find end of precision specifier");
    EV("'%d'.format([dyn('a')])", "ERROR: error during formatting: decimal clause can only be used on integers, was "
                                  "given string");
}

/* Map literals are Go maps of ref.Val in cel-go v0.29.2 (interpreter.go
 * evalMap, common/types/map.go): any scalar or null is a key, 1, 1u and
 * 1.0 are three keys, a repeated key (also the float key) is replaced;
 * lookups try the key, then a double as a lossless int or uint, an int
 * as a uint, a uint as an int (refValMapAccessor.Find); an insert that
 * finds the key fails with Go's %v of it.  As upstream-cel prints. */
UNIT_TEST(map_keys_as_upstream)
{
    EV("[1,2].transformMapEntry(i, v, {2.0: v})", "ERROR: insert failed: key 2 already exists");
    EV("[1,2].transformMapEntry(i, v, {2.5: v})", "ERROR: insert failed: key 2.5 already exists");
    EV("[1,2].transformMapEntry(i, v, {null: v})", "ERROR: insert failed: key 0 already exists");
    EV("{dyn(1): 'a', dyn(1u): 'b'}.size()", "2");
    EV("{dyn(1): 'a', dyn(1.0): 'b'}[1]", "\"a\"");
    EV("{dyn(1.0): 'b'}[1]", "ERROR: no such key: 1");
    EV("dyn({2: 1})[2.0]", "1");
    EV("dyn({2u: 1})[2]", "1");
    EV("{null: 1}", "{null: 1}");
    EV("{-0.0: 1, 0.0: 2}", "{0.0: 2}");
    EV("[1.0, 2.0].transformMapEntry(i, v, {v: i})", "{1.0: 0, 2.0: 1}");
    cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES);
    cel_program *p = NULL;
    CHECK(cel_compile(env, "{null: 1}[null]", 15, NULL, &p) == NULL);
    char *why = p ? cel_program_instantiation_error(p) : NULL;
    CHECK_STR(why, "invalid qualifier type: types.Null");
    free(why);
    cel_program_free(p);
    cel_env_free(env);
}

/* List + is a view of both lists, as cel-go's concatList (common/types/
 * list.go baseList.Add): adding a list to itself in a loop costs memory in
 * proportion to the additions, not to the items (3000 views of 6000 items
 * took 436 MB before; cel-go 21 MB).  The items are made when first read,
 * and every reader sees the same list. */
UNIT_TEST(list_concat_views)
{
    cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES);
    const char *big = "cel.bind(big, lists.range(3000), big.map(x, big + big).size())";
    cel_program *p = NULL;
    CHECK(cel_compile(env, big, strlen(big), NULL, &p) == NULL);
    if (p) {
        uint64_t cost = 0;
        cel_eval_options eo = {.actual_cost = &cost};
        cel_value v = cel_eval(p, NULL, &eo);
        CHECK(v.kind == CEL_INT && v.v.i == 3000);
        CHECK_INT(cost, 48014); /* upstream-cel */
        CHECK(cel_program_scratch_bytes(p) < 4u << 20);
        cel_program_free(p);
    }
    cel_env_free(env);
    EV("(lists.range(40) + lists.range(40))[79]", "39");
    EV("(lists.range(20) + lists.range(20) + lists.range(20)).size()", "60");
    EV("lists.range(40) + lists.range(40) == lists.range(40) + lists.range(40)", "true");
    EV("(lists.range(20) + lists.range(20)).sort()[1]", "0");
    EV("(lists.range(30) + [1, 2]).filter(x, x > 28)", "[29]");
    EV("cel.bind(a, lists.range(32), cel.bind(b, a + a, cel.bind(c, b + b, cel.bind(d, c + c, d + d))))[255]", "31");
    EV("(lists.range(16) + lists.range(16)).exists(x, x == 15)", "true");
    EV("'%s'.format([lists.range(16) + lists.range(17)]).size()", "112"); /* upstream-cel */
}

/* cel-go v0.29.2's runtime error texts (common/decls/decls.go
 * MaybeNoSuchOverload, interpreter.go evalBinary, attributes.go
 * refQualify and missingIndex, ext/lists.go genRange), as upstream-cel
 * prints them. */
UNIT_TEST(error_texts_as_upstream)
{
    /* Kubernetes object types have no fields a provider knows */
    EV("has(semver('1.0.0').a)", "COMPILE: unexpected failed resolution of 'kubernetes.Semver'");
    EV("quantity('1').a", "COMPILE: unexpected failed resolution of 'kubernetes.Quantity'");
    EV("ip('::1').a", "COMPILE: type 'net.IP' does not support field selection");
    /* matches is bound once with the Matcher trait, unless a constant
     * pattern made it MatchesRegexOptimization's plain function */
    EV("dyn(false).matches(['a'][0])", "ERROR: no such overload: matches");
    EV("dyn(false).matches('a')", "ERROR: no such overload");
    /* orderings: a NaN is an error (common/types double.go Compare); a
     * value that is no Comparer names the operator */
    EV("0.0 / 0.0 < 1.0", "ERROR: NaN values cannot be ordered");
    EV("1u > 0.0 / 0.0", "ERROR: NaN values cannot be ordered");
    EV("dyn(null) < 1", "ERROR: no such overload: _<_");
    EV("dyn(true) < 1", "ERROR: no such overload");
    /* the standard library's int(duration) and no -duration */
    EV("int(duration('1.5s'))", "1500000000");
    EV("-duration('1s')", "COMPILE: found no matching overload for '-_' applied to '(duration)'");
    /* but -_ is bound once for every Negater (stdlib/standard.go
     * SingletonUnaryBinding): a dyn duration is negated, a bool and the
     * receivers refused plainly, anything else names the operator */
    EV("-dyn(duration('1.5s'))", "duration(\"-1.5s\")");
    EV("-dyn(duration('-2s')) == duration('2s')", "true");
    EV("-dyn(true)", "ERROR: no such overload");
    EV("-dyn('a')", "ERROR: no such overload");
    EV("-dyn(timestamp('2024-01-01T00:00:00Z'))", "ERROR: no such overload");
    EV("-dyn(null)", "ERROR: no such overload: -_");
    EV("-dyn(1u)", "ERROR: no such overload: -_");
    EV("-dyn([1])", "ERROR: no such overload: -_");
    EV("-dyn(quantity('1'))", "ERROR: no such overload: -_");
    /* || and &&: the first term that is no bool answers (evalOr, evalAnd) */
    EV("dyn(1) || (1/0 == 1)", "ERROR: no such overload");
    EV("dyn(1) && (1/0 == 1)", "ERROR: no such overload");
    EV("(1/0 == 1) || dyn(1)", "ERROR: division by zero");
    EV("dyn(true) + 1", "ERROR: no such overload: _+_");
    EV("dyn([1]) - 1", "ERROR: no such overload: _-_");
    EV("dyn(true) < 1", "ERROR: no such overload");
    EV("size(dyn(1))", "ERROR: no such overload: size");
    EV("'a'.substring(dyn(''))", "ERROR: no such overload: substring(string, string)");
    EV("dyn(1).lowerAscii()", "ERROR: no such overload: lowerAscii(int)");
    EV("sets.contains(dyn(1), [1])", "ERROR: no such overload: sets.contains(int, list)");
    EV("dyn(1).compareTo(quantity('1'))", "ERROR: no such overload: compareTo(int, kubernetes.Quantity)");
    EV("dyn(null).lowerAscii()", "ERROR: no such overload: lowerAscii(null_type)");
    EV("dyn(1).contains('a')", "ERROR: no such overload");
    EV("dyn(1).a", "ERROR: no such key: a");
    EV("dyn('abc')[0]", "ERROR: no such key: 0");
    EV("dyn(1)[1.5]", "ERROR: no such key: 1.5");
    EV("dyn(1)[?0]", "optional.none()");
    EV("has(dyn(1).a)", "false");
    EV("[1,2][9223372036854775807]", "ERROR: index out of bounds: 9223372036854775807");
    EV("[1][dyn(2.0)]", "ERROR: index out of bounds: 2");
    EV("lists.range(-1)", "ERROR: lists.range: size must be non-negative, got -1");
    EV("lists.range(1000001)", "ERROR: lists.range: size 1000001 exceeds maximum allowed (1000000)");
}

/* cel-go v0.29.2's ext.Lists cost trackers (ext/lists.go trackListFlatten,
 * trackListDistinct, trackListSort, trackListSortBy) assert their
 * arguments' Go types; charging a call on an error panics, and
 * Program.Eval fails the whole evaluation with the panic's text, past
 * any || that would have absorbed the error.  As upstream-cel prints. */
UNIT_TEST(list_tracker_panics_as_upstream)
{
    EV("[[1]].flatten(1/0)", "ERROR: internal error: interface conversion: ref.Val is *types.Err, not types.Int");
    EV("dyn(1/0).distinct()",
       "ERROR: internal error: interface conversion: *types.Err is not traits.Lister: missing method Add");
    EV("(1/0 > 0 ? [1] : [2]).sort()",
       "ERROR: internal error: interface conversion: *types.Err is not traits.Lister: missing method Add");
    EV("[1].sortBy(x, 1/0)",
       "ERROR: internal error: interface conversion: *types.Err is not traits.Lister: missing method Add");
    EV("dyn(1/0).distinct() == [] || true",
       "ERROR: internal error: interface conversion: *types.Err is not traits.Lister: missing method Add");
    EV("true || dyn(1/0).distinct() == []", "true");
    EV("[[1]].flatten(dyn(1)) == [1]", "true");
    /* a value of another type panics the same way; Go names the first
     * method of traits.Lister the type lacks */
    EV("dyn(false).distinct()",
       "ERROR: internal error: interface conversion: types.Bool is not traits.Lister: missing method Add");
    EV("dyn(1).distinct() == [] || true",
       "ERROR: internal error: interface conversion: types.Int is not traits.Lister: missing method Contains");
    EV("dyn({}).distinct()",
       "ERROR: internal error: interface conversion: *types.baseMap is not traits.Lister: missing method Add");
    EV("[1].flatten(dyn('a'))", "ERROR: internal error: interface conversion: ref.Val is types.String, not types.Int");
    /* flatten has no type guards (DisableTypeGuards): it judges itself */
    EV("[dyn('')].flatten()", "[\"\"]");
    EV("dyn(false).flatten()", "ERROR: no such overload: bool.flatten()");
}

/* IP and CIDR strings are parsed as Go's net/netip does, under the
 * Kubernetes libraries' rules (apiserver v0.37.2 library/ip.go
 * parseIPAddr, cidr.go parseCIDR and stringToCIDR), with their texts;
 * addresses print as Addr.String().  As upstream-cel prints them. */
UNIT_TEST(ip_cidr_as_upstream)
{
    EV("ip('a')", "ERROR: IP Address \"a\" parse error during conversion from string: ParseAddr(\"a\"): unable "
                  "to parse IP");
    EV("ip('01.2.3.4')", "ERROR: IP Address \"01.2.3.4\" parse error during conversion from string: "
                         "ParseAddr(\"01.2.3.4\"): IPv4 field has octet with leading zero");
    EV("ip('1..2.3')", "ERROR: IP Address \"1..2.3\" parse error during conversion from string: "
                       "ParseAddr(\"1..2.3\"): IPv4 field must have at least one digit (at \".2.3\")");
    EV("ip('1::2::3')", "ERROR: IP Address \"1::2::3\" parse error during conversion from string: "
                        "ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")");
    EV("ip('::ffff:1.2.3.4')", "ERROR: IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed");
    EV("ip('fe80::1%eth0')", "ERROR: IP address \"fe80::1%eth0\" with zone value is not allowed");
    EV("cidr('a')", "ERROR: network address parse error during conversion from string: network address parse error "
                    "during conversion from string: netip.ParsePrefix(\"a\"): no '/'");
    EV("cidr('10.0.0.0/01')", "ERROR: network address parse error during conversion from string: network address "
                              "parse error during conversion from string: netip.ParsePrefix(\"10.0.0.0/01\"): bad "
                              "bits after slash: \"01\"");
    EV("cidr('10.1.2.3/8').containsIP('')", "ERROR: no such overload");
    EV("ip('::1.2.3.4')", "ip(\"::102:304\")");
    EV("ip('2001:0:0:1:0:0:0:1')", "ip(\"2001:0:0:1::1\")");
    EV("cidr('2001:db8::/32').masked()", "cidr(\"2001:db8::/32\")");
    EV("isIP('1.2.3.04')", "false");
}

/* IPs and CIDRs are map keys compared by value, as Go map keys of the
 * apiserver's cel.IP and cel.CIDR (structs of a netip.Addr, a
 * netip.Prefix whose address is not masked); a map cannot be indexed by
 * one (cel-go attributes.go newQualifier).  As upstream-cel eval prints. */
UNIT_TEST(ip_cidr_map_keys_as_upstream)
{
    EV("{ip('1.2.3.4'): 1, ip('1.2.3.5'): 2}", "{ip(\"1.2.3.4\"): 1, ip(\"1.2.3.5\"): 2}");
    EV("{ip('1.2.3.4'): 1, ip('1.2.3.4'): 2}", "{ip(\"1.2.3.4\"): 2}");
    EV("{cidr('10.0.0.0/8'): 1, cidr('10.0.0.0/8'): 2}", "{cidr(\"10.0.0.0/8\"): 2}");
    EV("ip('::1') in {ip('0:0::1'): 1}", "true");
    EV("ip('1.2.3.5') in {ip('1.2.3.4'): 1}", "false");
    EV("cidr('10.0.0.0/8') in {cidr('10.0.0.0/8'): 1}", "true");
    EV("cidr('10.0.0.1/8') in {cidr('10.0.0.0/8'): 1}", "false");
    EV("cidr('10.0.0.0/16') in {cidr('10.0.0.0/8'): 1}", "false");
    EV("dyn('a') in {ip('1.2.3.4'): 1}", "false");
    EV("ip('1.2.3.4') in dyn({'a': 1})", "false");
    EV("{ip('1.2.3.4'): 1} == {ip('1.2.3.4'): 1}", "true");
    EV("{cidr('10.0.0.0/8'): 1} == {cidr('10.0.0.0/8'): 2}", "false");
    EV("{ip('1.2.3.4'): 1}.all(k, k == ip('1.2.3.4'))", "true");
    EV("{ip('1.2.3.4'): 1}[ip('1.2.3.4')]", "ERROR: invalid qualifier type: cel.IP");
    EV("[cidr('10.0.0.0/8')].all(k, {cidr('10.0.0.0/8'): 1}[k] == 1)", "ERROR: invalid qualifier type: cel.CIDR");
    EV("[ip('::1'), ip('0::1')].transformMapEntry(i, v, {v: i})", "ERROR: insert failed: key ::1 already exists");
    EV("[cidr('10.0.0.0/8'), cidr('10.0.0.0/8')].transformMapEntry(i, v, {v: i})",
       "ERROR: insert failed: key 10.0.0.0/8 already exists");
    /* more than a small map's linear search: the hashed index */
    EV("[1,2,3,4,5,6,7,8,9,10,11,12,13].map(i, ip('10.0.0.' + string(i))).all(x, x in [1,2,3,4,5,6,7,8,9,10,11,12,"
       "13].map(i, ip('10.0.0.' + string(i))).transformMapEntry(i, v, {v: i}))",
       "true");
    EV("ip('10.0.0.14') in [1,2,3,4,5,6,7,8,9,10,11,12,13].map(i, ip('10.0.0.' + string(i))).transformMapEntry(i, v, "
       "{v: i})",
       "false");
}

/* Runtime costs of Kubernetes functions as library/cost.go CallCost
 * charges them (apiserver v0.37.2): semver() and isSemver() traverse the
 * string, validate() matches it against the format's MaxRegexSize.  As
 * upstream-cel prints them. */
UNIT_TEST(k8s_call_costs_as_upstream)
{
    check_cost(unit_failed, "isSemver('1.0.0-aaaaaaaaaaaaaaaaaaaaaaaaa')", 4, "true");
    check_cost(unit_failed, "semver('1.0.0-aaaaaaaaaaaaaaaaaaaaaaaaa').major()", 5, "1");
    check_cost(unit_failed, "format.dns1123Label().validate('abcdefghijklmnopqrstuvwxyz0123456789').hasValue()", 34,
               "false");
    check_cost(unit_failed, "format.uri().validate('abc').hasValue()", 278, "true");
}

/* Go's regexp, which Kubernetes' CEL runs, on RE2: each row is a pattern,
 * a text, and what regexp.Compile and FindAllStringIndex answer (Go 1.26,
 * the regexp of Kubernetes 1.37): its error text, or the matches. */
static void emit_match(void *ud, size_t start, size_t end)
{
    dra_buf *b = ud;
    dra_buf_printf(b, "%s[%zu %zu]", b->len > 1 ? " " : "", start, end);
}

static char *go_regexp(const char *pattern, size_t plen, const char *text, size_t tlen)
{
    char *err = NULL;
    cel_regex *re = cel_regex_compile(pattern, plen, &err);
    if (!re)
        return err;
    dra_buf b = DRA_BUF_INIT;
    dra_buf_putc(&b, '[');
    cel_regex_find_all(re, text, tlen, -1, emit_match, &b);
    dra_buf_putc(&b, ']');
    cel_regex_free(re);
    return dra_buf_detach(&b);
}

UNIT_TEST(regex_as_go)
{
    static const struct {
        const char *pattern, *text, *want;
    } rows[] = {
        /* linear time: no backtracking limit to run into */
        {"(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "[]"},
        {"(a|aa)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "[]"},
        /* repeat counts: at most 1,000, nested ones multiplied */
        {"a{1001}", "", "error parsing regexp: invalid repeat count: `{1001}`"},
        {"a{2,1}", "", "error parsing regexp: invalid repeat count: `{2,1}`"},
        {"(a{10}){101}", "", "error parsing regexp: invalid repeat count: `{101}`"},
        {"\\pL*{1001}", "", "error parsing regexp: invalid repeat count: `{1001}`"},
        {"a{1001}?", "", "error parsing regexp: invalid repeat count: `{1001}`"},
        {"a{1000}", "", "[]"},
        /* what RE2 C++ reads differently from Go */
        {"\\C", "", "error parsing regexp: invalid escape sequence: `\\C`"},
        {"[\\C]", "", "error parsing regexp: invalid escape sequence: `\\C`"},
        {"(?<n>a)", "xa", "[[1 2]]"},
        {"(?<=a)b", "", "error parsing regexp: invalid named capture: `(?<=a)b`"},
        {"(?P<\xc3\xa9>a)", "", "error parsing regexp: invalid named capture: `(?P<\xc3\xa9>`"},
        {"\\p{greek}+", "x\xce\xb1\xce\xb2", "[[1 5]]"},
        {"\\p{Old_Italic}", "", "error parsing regexp: invalid character class range: `\\p{Old_Italic}`"},
        {"\\p{Lc}", "aB1", "[[0 1] [1 2]]"},
        {"[^\\p{C}]+",
         "a\x01"
         "b",
         "[[0 1] [2 3]]"},
        {"\\p{Cn}",
         "\xcd\xb8"
         "a",
         "[[0 2]]"},
        {"[\\P{Lc}0]+", "ab12..", "[[2 6]]"},
        {"\\B", "A\xce\xa3\xcf\x83", "[[3 3] [5 5]]"},
        {"\\x{", "", "error parsing regexp: invalid escape sequence: `\\x{`"},
        {"\\x{110000}", "", "error parsing regexp: invalid escape sequence: `\\x{110000`"},
        {"(?i)k", "\xe2\x84\xaa", "[[0 3]]"},
        /* each byte of invalid UTF-8 in the text is one U+FFFD */
        {".",
         "a\xff"
         "b",
         "[[0 1] [1 2] [2 3]]"},
        {"x*",
         "\xff"
         "a",
         "[[0 0] [1 1] [2 2]]"},
        /* Go's error texts */
        {"[a", "", "error parsing regexp: missing closing ]: `[a`"},
        {"a)", "", "error parsing regexp: unexpected ): `a)`"},
        {"(a", "", "error parsing regexp: missing closing ): `(a`"},
        {"a\\", "", "error parsing regexp: trailing backslash at end of expression: ``"},
        {"*", "", "error parsing regexp: missing argument to repetition operator: `*`"},
        {"a**", "", "error parsing regexp: invalid nested repetition operator: `**`"},
        {"(?x)a", "", "error parsing regexp: invalid or unsupported Perl syntax: `(?x`"},
        {"\\8", "", "error parsing regexp: invalid escape sequence: `\\8`"},
        {"a\xff", "", "error parsing regexp: invalid UTF-8: `\xff`"},
        {"[[:foo:]]", "", "error parsing regexp: invalid character class range: `[:foo:]`"},
        {"\\Qa.b\\E+", "a.bb", "[[0 4]]"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *got = go_regexp(rows[i].pattern, strlen(rows[i].pattern), rows[i].text, strlen(rows[i].text));
        CHECK_STR(got, rows[i].want);
        free(got);
    }
    /* nesting deeper than Go's 1,000 */
    char deep[4096];
    size_t n = 0;
    for (int k = 0; k < 1001; k++)
        deep[n++] = '(';
    deep[n++] = 'a';
    for (int k = 0; k < 1001; k++)
        deep[n++] = ')';
    char *got = go_regexp(deep, n, "", 0);
    CHECK(strncmp(got, "error parsing regexp: expression nests too deeply: `((((", 56) == 0);
    free(got);
    got = go_regexp(deep + 2, n - 4, "a", 1);
    CHECK_STR(got, "[[0 1]]");
    free(got);
}

/* The regex functions in CEL: runtime and compile-time errors worded as
 * cel-go and Kubernetes word them. */
UNIT_TEST(regex_in_cel)
{
    EV("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'.matches('(a+)+$')", "false");
    EV("'x'.matches('a{' + '1001}')", "ERROR: error parsing regexp: invalid repeat count: `{1001}`");
    EV("'x'.find('[' + '')", "ERROR: Illegal regex: error parsing regexp: missing closing ]: `[`");
    EV("'x'.findAll('(?=' + 'x)')",
       "ERROR: Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=`");
    EV("'a\\u03a3a'.matches('\\\\B')", "false");
    EV("'\\u00e9!'.findAll('\\\\B')", "[\"\", \"\", \"\"]");
    EV("'abc'.matches('(?<n>b)')", "true");
    cel_env *env = cel_dra_env_new(NULL);
    json_t *j = json_loads("{\"name\": \"d\"}", 0, NULL);
    cel_dra_device *dev = cel_dra_device_new(j, "gpu.example.com");
    /* a constant pattern of matches() is checked with the literals ... */
    CHECK_STR(dra_eval(env, dev, "device.driver.matches('a{1001}')"),
              "COMPILE: compilation failed: ERROR: <input>:1:23: invalid matches argument\n"
              " | device.driver.matches('a{1001}')\n | ......................^");
    /* ... one of find() and findAll() when the program is made, after the result type */
    CHECK_STR(dra_eval(env, dev, "device.driver.find('a{1001}') == ''"),
              "COMPILE: program instantiation failed: error parsing regexp: invalid repeat count: `{1001}`");
    CHECK_STR(dra_eval(env, dev, "device.driver.findAll('[a-').size() == 0 && device.driver.find('(') == ''"),
              "COMPILE: program instantiation failed: error parsing regexp: missing closing ]: `[a-`");
    CHECK_STR(dra_eval(env, dev, "device.driver.find('[')"),
              "COMPILE: must evaluate to bool or the unknown type, not string");
    CHECK_STR(dra_eval(env, dev, "device.driver.find(device.driver + '[') == ''"),
              "ERROR: Illegal regex: error parsing regexp: missing closing ]: `[`");
    CHECK_STR(dra_eval(env, dev, "device.driver.matches('^gpu\\\\.example\\\\.com$')"), "true");
    cel_dra_device_free(dev);
    json_decref(j);
    cel_env_free(env);
}

UNIT_TEST(dra_device)
{
    cel_env *env = cel_dra_env_new(NULL);
    json_t *j = json_loads(device_json, 0, NULL);
    CHECK(j != NULL);
    cel_dra_device *dev = cel_dra_device_new(j, "gpu.example.com");
    CHECK_STR(dra_eval(env, dev, "device.driver == 'gpu.example.com'"), "true");
    CHECK_STR(dra_eval(env, dev, "device.attributes['gpu.example.com'].model == 'a100'"), "true");
    CHECK_STR(dra_eval(env, dev, "device.attributes['gpu.example.com'].count > 2"), "true");
    CHECK_STR(dra_eval(env, dev, "device.attributes['gpu.example.com'].ecc"), "true");
    CHECK_STR(dra_eval(env, dev, "device.attributes['other.example.com'].zone == 'z1'"), "true");
    CHECK_STR(dra_eval(env, dev, "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('1.0.0'))"),
              "true");
    CHECK_STR(dra_eval(env, dev, "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) > 0"), "true");
    CHECK_STR(dra_eval(env, dev, "device.attributes['unknown.domain'].size() == 0"), "true");
    CHECK_STR(dra_eval(env, dev, "'unknown.domain' in device.attributes"), "false");
    CHECK_STR(dra_eval(env, dev, "'gpu.example.com' in device.attributes"), "true");
    CHECK_STR(dra_eval(env, dev, "has(device.attributes.anything)"), "true");
    CHECK_STR(dra_eval(env, dev, "device.attributes['gpu.example.com'].missing == 1"), "ERROR: no such key: missing");
    CHECK_STR(dra_eval(env, dev, "has(device.attributes['gpu.example.com'].missing)"), "false");
    CHECK_STR(dra_eval(env, dev, "device.attributes['gpu.example.com'].?missing.orValue(false)"), "false");
    CHECK_STR(
        dra_eval(env, dev, "device.attributes['gpu.example.com'].count"),
        "ERROR: CEL result of type int could not be converted to bool: type conversion error from 'int' to 'bool'");
    CHECK_STR(dra_eval(env, dev, "1"), "COMPILE: must evaluate to bool or the unknown type, not int");
    /* StoredExpressions declare it whatever the gates (upstream-cel) */
    CHECK_STR(dra_eval(env, dev, "device.allowMultipleAllocations"), "false");
    CHECK_STR(dra_eval(env, dev, "lists.range(2000).all(i, lists.range(2000).all(k, true))"),
              "ERROR: operation cancelled: actual cost limit exceeded");
    CHECK_STR(cel_dra_runtime_hint(0, "no such key: x"),
              ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for "
              "optional fields");
    CHECK_STR(cel_dra_runtime_hint(0, "division by zero"), "");
    /* conversion errors make every selector fail */
    json_t *bad = json_loads("{\"attributes\": {\"v\": {\"version\": \"1.02.3\"}, \"x\": {}}}", 0, NULL);
    cel_dra_device *bd = cel_dra_device_new(bad, "d.example.com");
    const char *r = dra_eval(env, bd, "true");
    CHECK(strncmp(r, "ERROR: attribute v: parse semantic version", 42) == 0);
    cel_dra_device_free(bd);
    json_decref(bad);
    cel_env_free(env);
    cel_dra_options o = {.consumable_capacity = true};
    env = cel_dra_env_new(&o);
    CHECK_STR(dra_eval(env, dev, "!device.allowMultipleAllocations"), "true");
    cel_env_free(env);
    cel_dra_device_free(dev);
    json_decref(j);
}

/* A converted device is one allocation of the bytes it uses; one too large
 * for an arena block keeps its arena.  Both answer the same way, lists,
 * strings, versions, quantities and conversion errors included. */
UNIT_TEST(dra_device_one_allocation)
{
    cel_env *env = cel_dra_env_new(NULL);
    json_t *j = json_loads(device_json, 0, NULL);
    cel_dra_device *dev = cel_dra_device_new(j, "gpu.example.com");
    bool single = false;
    size_t bytes = cel_dra_device_bytes(dev, &single);
    CHECK(single);
    CHECK(bytes > 0 && bytes < 8192);
    CHECK_STR(dra_eval(env, dev, "device.attributes['gpu.example.com'].model == 'a100'"), "true");
    CHECK_STR(dra_eval(env, dev, "device.attributes['other.example.com'].zone == 'z1'"), "true");
    CHECK_STR(dra_eval(env, dev, "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) > 0"), "true");
    CHECK_STR(dra_eval(env, dev, "device.attributes['gpu.example.com'].exists(k, k == 'model')"), "true");
    cel_dra_device_free(dev);
    json_decref(j);

    /* lists and a conversion error, moved with the rest */
    json_t *l =
        json_loads("{\"attributes\": {\"s\": {\"strings\": [\"a\", \"bc\"]}, \"v\": {\"versions\": [\"1.2.3\"]},"
                   " \"i\": {\"ints\": [4, 5]}}}",
                   0, NULL);
    dev = cel_dra_device_new(l, "d.example.com");
    (void)cel_dra_device_bytes(dev, &single);
    CHECK(single);
    CHECK_STR(dra_eval(env, dev, "device.attributes['d.example.com'].s[1] == 'bc'"), "true");
    CHECK_STR(dra_eval(env, dev, "device.attributes['d.example.com'].v[0].major() == 1"), "true");
    CHECK_STR(dra_eval(env, dev, "device.attributes['d.example.com'].i.size() == 2"), "true");
    cel_dra_device_free(dev);
    json_decref(l);
    json_t *bad = json_loads("{\"attributes\": {\"x\": {}}}", 0, NULL);
    dev = cel_dra_device_new(bad, "d.example.com");
    CHECK_STR(dra_eval(env, dev, "true"), "ERROR: attribute x: unsupported attribute value");
    cel_dra_device_free(dev);
    json_decref(bad);

    /* 9,000 strings: more than one arena block */
    json_t *big = json_pack("{s:{s:{s:[]}}}", "attributes", "s", "strings");
    json_t *arr = json_object_get(json_object_get(json_object_get(big, "attributes"), "s"), "strings");
    for (int i = 0; i < 9000; i++)
        json_array_append_new(arr, json_sprintf("item-%d", i));
    dev = cel_dra_device_new(big, "d.example.com");
    bytes = cel_dra_device_bytes(dev, &single);
    CHECK(!single);
    CHECK(bytes > 65536);
    CHECK_STR(dra_eval(env, dev, "device.attributes['d.example.com'].s[8999] == 'item-8999'"), "true");
    cel_dra_device_free(dev);

    /* through one scratch arena: small, large (which takes the arena with
     * it), small again; every device outlives the next build */
    json_t *small = json_loads(device_json, 0, NULL);
    dra_arena scratch = DRA_ARENA_INIT;
    cel_dra_device *v[3] = {cel_dra_device_build(small, "gpu.example.com", &scratch),
                            cel_dra_device_build(big, "d.example.com", &scratch),
                            cel_dra_device_build(small, "gpu.example.com", &scratch)};
    (void)cel_dra_device_bytes(v[0], &single);
    CHECK(single);
    (void)cel_dra_device_bytes(v[1], &single);
    CHECK(!single);
    (void)cel_dra_device_bytes(v[2], &single);
    CHECK(single);
    CHECK_STR(dra_eval(env, v[0], "device.attributes['gpu.example.com'].model == 'a100'"), "true");
    CHECK_STR(dra_eval(env, v[1], "device.attributes['d.example.com'].s[1] == 'item-1'"), "true");
    CHECK_STR(dra_eval(env, v[2], "device.attributes['other.example.com'].zone == 'z1'"), "true");
    for (int i = 0; i < 3; i++)
        cel_dra_device_free(v[i]);
    dra_arena_free(&scratch);
    json_decref(small);
    json_decref(big);
    cel_env_free(env);
}

UNIT_TEST(dra_no_heap_after_warmup)
{
    /* Evaluating repeatedly must reuse the scratch memory: the result of a
     * list-building selector keeps the same address across evaluations. */
    cel_env *env = cel_dra_env_new(NULL);
    json_t *j = json_loads(device_json, 0, NULL);
    cel_dra_device *dev = cel_dra_device_new(j, "gpu.example.com");
    cel_program *p = NULL;
    const char *expr =
        "[1, 2, 3].map(i, i * 2).size() == 3 && device.attributes['gpu.example.com'].model.startsWith('a')";
    CHECK(cel_dra_compile(env, expr, strlen(expr), &p) == NULL);
    bool m = false;
    for (int i = 0; i < 1000 && p; i++) {
        dra_err *e = cel_dra_match(p, dev, &m);
        CHECK(e == NULL);
        dra_err_free(e);
    }
    CHECK(m);
    cel_program_free(p);
    cel_dra_device_free(dev);
    json_decref(j);
    cel_env_free(env);
}

/* Compiled selector plans (dra.c) give exactly the evaluator's results and
 * error texts: every expression runs both ways on several devices. */
UNIT_TEST(dra_plan_matches_evaluator)
{
    static const char *devices[] = {
        "{\"attributes\": {\"model\": {\"string\": \"a100\"}, \"count\": {\"int\": 4}, \"ecc\": {\"bool\": true},"
        " \"driverVersion\": {\"version\": \"1.2.3\"}, \"other.example.com/zone\": {\"string\": \"z1\"}},"
        " \"capacity\": {\"memory\": {\"value\": \"80Gi\"}}}",
        "{\"attributes\": {\"model\": {\"int\": 7}, \"ecc\": {\"string\": \"yes\"}}}",
        "{}",
        /* the typed steps' names with other types: each must fall back exactly */
        "{\"attributes\": {\"count\": {\"string\": \"4\"}, \"driverVersion\": {\"int\": 1},"
        " \"model\": {\"version\": \"1.0.0\"}, \"ecc\": {\"int\": 0}, \"gpu.example.com/zone\": {\"bool\": false},"
        " \"other.example.com/zone\": {\"ints\": [1]}},"
        " \"capacity\": {\"memory\": {\"value\": \"1Mi\"}, \"other.example.com/memory\": {\"value\": \"1500m\"}}}",
        "{\"attributes\": {\"driverVersion\": {\"version\": \"0.9.1-rc.1+b\"}, \"count\": {\"int\": "
        "-9223372036854775808}},"
        " \"capacity\": {\"memory\": {\"value\": \"-80Gi\"}}}",
    };
    static const char *exprs[] = {
        "device.driver == 'gpu.example.com'",
        "device.driver != 'x'",
        "device.driver == ''",
        "device.attributes['gpu.example.com'].model == 'a100'",
        "device.attributes['gpu.example.com']['model'] == 'a100'",
        "device.attributes['gpu.example.com'].count > 2",
        "device.attributes['gpu.example.com'].ecc",
        "device.attributes['gpu.example.com'].ecc || device.attributes['gpu.example.com'].missing",
        "device.attributes['gpu.example.com'].missing || true",
        "device.attributes['gpu.example.com'].missing && false",
        "!device.attributes['gpu.example.com'].ecc",
        "device.attributes['other.example.com'].zone == 'z1'",
        "device.attributes['gpu.example.com'].driverVersion.major() >= 1",
        "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('1.0.0'))",
        "device.capacity['gpu.example.com'].memory.isGreaterThan(quantity('1Mi'))",
        "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) > 0",
        "device.attributes['nope'].x == 1",
        "device.attributes['gpu.example.com'].model.startsWith('a')",
        "device.attributes['gpu.example.com'].model.matches('^a[0-9]+$')",
        "device.attributes['gpu.example.com'].model.size() == 4",
        "device.attributes['gpu.example.com'].model + 'x' == 'a100x'",
        "device.attributes['gpu.example.com'].count + 1 == 5",
        "device.attributes['gpu.example.com'].count / 0 == 1",
        "'gpu.example.com' in device.attributes",
        "device.attributes.size() > 0",
        "device.attributes['gpu.example.com'].model.x == 1",
        "device.attributes['gpu.example.com'].model",
        "[1, 2].exists(i, i == 2)",
        /* typed steps: table lookups, int / string / semver / quantity against constants, has(), ! */
        "device.attributes.gpu.model == 'a100'",
        "device.attributes['gpu.example.com'].zone == 'z1'",
        "device.attributes['gpu.example.com']['count'] == 4",
        "device.attributes['gpu.example.com'].count != 4",
        "device.attributes['gpu.example.com'].count < 5",
        "device.attributes['gpu.example.com'].count <= 4",
        "device.attributes['gpu.example.com'].count > -1",
        "device.attributes['gpu.example.com'].count >= 4",
        "device.attributes['gpu.example.com'].count == 4.0",
        "device.attributes['gpu.example.com'].count == 4u",
        "5 > device.attributes['gpu.example.com'].count",
        "device.attributes['gpu.example.com'].driverVersion.minor() == 2",
        "device.attributes['gpu.example.com'].driverVersion.patch() < 3",
        "device.attributes['gpu.example.com'].driverVersion.major() == 0",
        "device.attributes['gpu.example.com'].model.major() >= 1",
        "device.capacity['gpu.example.com'].memory.isLessThan(quantity('1Gi'))",
        "device.capacity['gpu.example.com'].memory.compareTo(quantity('1Mi')) == 0",
        "device.capacity['other.example.com'].memory.isGreaterThan(quantity('1'))",
        "device.capacity['gpu.example.com'].nothing.isGreaterThan(quantity('1'))",
        "device.capacity['nope'].memory.isGreaterThan(quantity('1'))",
        "has(device.attributes['gpu.example.com'].count)",
        "has(device.attributes['x'].count)",
        "has(device.capacity['gpu.example.com'].memory)",
        "has(device.capacity.gpu.memory)",
        "!has(device.attributes['gpu.example.com'].zone) || device.attributes['gpu.example.com'].zone == 'z1'",
        "!device.attributes['gpu.example.com'].ecc",
        "!(device.attributes['gpu.example.com'].count > 1)",
        "device.attributes['gpu.example.com'].count > 1 && device.attributes['gpu.example.com'].model == 'a100'",
        "device.attributes['gpu.example.com'].missing > 1 || device.attributes['gpu.example.com'].zone == 'z1'",
        "device.attributes['gpu.example.com'].ecc && device.attributes['gpu.example.com'].count",
        "device.attributes['gpu.example.com'].count && device.attributes['gpu.example.com'].missing",
        "device.attributes['gpu.example.com'].model != 'a100' && device.attributes['gpu.example.com'].missing",
        "device.attributes['gpu.example.com'].driverVersion.major() >= 1 && "
        "device.capacity['gpu.example.com'].memory.isGreaterThan(quantity('1Mi'))",
        "device.capacity['gpu.example.com'].memory.isGreaterThan(quantity('1Mi')) == true",
        "device.attributes['gpu.example.com'].driverVersion == semver('1.2.3')",
        "device.attributes['gpu.example.com'].driverVersion.isLessThan(semver('1.2.4'))",
        "device.attributes['gpu.example.com'].driverVersion.compareTo(semver('1.2.3')) == 0",
        "device.attributes['gpu.example.com'].model.isGreaterThan(semver('0.1.0'))",
        "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('0.9.0')) && "
        "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0",
        "device.attributes['gpu.example.com']['']  == ''",
        "device.attributes['']['count'] == 4",
        "device.attributes['gpu.example.com/x']['count'] == 4",
        "device.attributes['gpu.example.com']['x/count'] == 4",
    };
    cel_env *env = cel_dra_env_new(NULL);
    for (size_t di = 0; di < sizeof devices / sizeof devices[0]; di++) {
        json_t *j = json_loads(devices[di], 0, NULL);
        cel_dra_device *dev = cel_dra_device_new(j, "gpu.example.com");
        for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
            cel_program *p = NULL;
            dra_err *e = cel_dra_compile(env, exprs[i], strlen(exprs[i]), &p);
            CHECK(e == NULL);
            if (e) {
                fprintf(stderr, "  %s: %s\n", exprs[i], e->msg);
                dra_err_free(e);
                continue;
            }
            char plan_out[512], eval_out[512];
            bool m = false;
            e = cel_dra_match(p, dev, &m);
            snprintf(plan_out, sizeof plan_out, "%s", e ? e->msg : m ? "true" : "false");
            dra_err_free(e);
            cel_activation act = CEL_ACTIVATION_INIT;
            cel_activation_bind(&act, "device", cel_dra_device_value(dev));
            cel_value v = cel_eval(p, &act, NULL);
            if (v.kind == CEL_BOOL)
                snprintf(eval_out, sizeof eval_out, "%s", v.v.b ? "true" : "false");
            else if (v.kind == CEL_ERROR)
                snprintf(eval_out, sizeof eval_out, "%s", v.v.err);
            else
                snprintf(
                    eval_out, sizeof eval_out,
                    "CEL result of type %s could not be converted to bool: type conversion error from '%s' to 'bool'",
                    cel_value_type_name(&v), cel_value_type_name(&v));
            if (strcmp(plan_out, eval_out))
                fprintf(stderr, "  device %zu, %s\n", di, exprs[i]);
            CHECK_STR(plan_out, eval_out);
            cel_program_free(p);
        }
        cel_dra_device_free(dev);
        json_decref(j);
    }
    cel_env_free(env);
}

/* Selectors compile to the typed plan steps meant for them. */
UNIT_TEST(dra_plan_shapes)
{
    static const char *cases[][2] = {
        {"device.driver == 'x'", "str_eq(field)"},
        {"device.attributes['test-driver.cdi.k8s.io'].driverVersion.major() >= 1 && "
         "device.capacity['test-driver.cdi.k8s.io'].memory.isGreaterThan(quantity('1Mi'))",
         "and(int_cmp(semver_part(attr)), qty_test(cap))"},
        {"device.attributes['d'].model != 'a'", "str_ne(attr)"},
        {"device.attributes.d.count < 3 || !device.attributes['d'].ecc", "or(int_cmp(attr), not(attr))"},
        {"has(device.attributes['d'].x) && has(device.capacity['d'].y)", "and(has_attr, has_cap)"},
        {"device.capacity['d'].memory.compareTo(quantity('1Gi')) > 0", "int_cmp(qty_cmp(cap))"},
        {"device.attributes['d'].model.startsWith('a')", "call startsWith(attr, const)"},
        {"'d' in device.attributes", NULL},
        {"device.attributes['d'].v.isGreaterThan(semver('1.0.0'))", "semver_test(attr)"},
        {"device.attributes['d'].v.compareTo(semver('1.0.0')) >= 0 && "
         "device.attributes['d'].v.isLessThan(semver('2.0.0'))",
         "and(int_cmp(semver_cmp(attr)), semver_test(attr))"},
        {"device.attributes['d'].v.compareTo(device.attributes['d'].w) == 0", "int_cmp(call compareTo(attr, attr))"},
        {"device.attributes['d'].x == 1.5", "call _==_(attr, const)"},
        {"[1].exists(i, i == 1)", NULL},
        {"device.attributes['d'].x.orValue(1) == 1", NULL},
    };
    cel_env *env = cel_dra_env_new(NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cel_program *p = NULL;
        dra_err *e = cel_dra_compile(env, cases[i][0], strlen(cases[i][0]), &p);
        CHECK(e == NULL);
        dra_err_free(e);
        if (!p)
            continue;
        dra_buf b = DRA_BUF_INIT;
        bool planned = cel_dra_plan_format(p, &b);
        CHECK_INT(planned, cases[i][1] != NULL);
        if (cases[i][1])
            CHECK_STR(dra_buf_str(&b), cases[i][1]);
        dra_buf_free(&b);
        cel_program_free(p);
    }
    cel_env_free(env);
}

/* The fast quantity comparison in lib_k8s.c agrees with the model's. */
UNIT_TEST(quantity_compare_fast_path)
{
    static const char *qs[] = {"0",
                               "1",
                               "-1",
                               "1Mi",
                               "1048576",
                               "1M",
                               "999999",
                               "2Gi",
                               "2G",
                               "1.5",
                               "1500m",
                               "0.001",
                               "1m",
                               "1n",
                               "1u",
                               "1000n",
                               "1e3",
                               "1k",
                               "1Ki",
                               "-1Ki",
                               "-1k",
                               "80Gi",
                               "9223372036854775807",
                               "18446744073709551616",
                               "1E",
                               "1Ei",
                               "123456789012345678901234567890",
                               "0.000000001",
                               "-0.5",
                               "12e-3"};
    size_t nq = sizeof qs / sizeof qs[0];
    cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES);
    cel_program *p = NULL;
    const char *expr = "quantity(a).compareTo(quantity(b))";
    dra_err *e = cel_compile(env, expr, strlen(expr), &(cel_compile_options){.skip_check = true}, &p);
    CHECK(e == NULL);
    for (size_t i = 0; p && i < nq; i++)
        for (size_t k = 0; k < nq; k++) {
            dra_quantity x, y;
            dra_err *ex = dra_quantity_parse_as(NULL, qs[i], &x), *ey = dra_quantity_parse_as(NULL, qs[k], &y);
            CHECK(ex == NULL && ey == NULL);
            dra_err_free(ex);
            dra_err_free(ey);
            cel_activation act = CEL_ACTIVATION_INIT;
            cel_activation_bind(&act, "a", cel_string(qs[i], strlen(qs[i])));
            cel_activation_bind(&act, "b", cel_string(qs[k], strlen(qs[k])));
            cel_value v = cel_eval(p, &act, NULL);
            CHECK(v.kind == CEL_INT);
            if (v.kind == CEL_INT && v.v.i != dra_quantity_cmp(&x, &y))
                fprintf(stderr, "  compare %s %s: %lld\n", qs[i], qs[k], (long long)v.v.i);
            CHECK(v.kind == CEL_INT && v.v.i == dra_quantity_cmp(&x, &y));
        }
    cel_program_free(p);
    cel_env_free(env);
}

/* The selectors of the performance goal: no heap allocation per evaluation
 * once the program's scratch memory is warm, and a measured ns/eval. */
static const char *perf_device_json =
    "{\"name\": \"gpu-0\","
    " \"attributes\": {\"driverVersion\": {\"version\": \"1.2.3\"}, \"model\": {\"string\": \"x\"}},"
    " \"capacity\": {\"memory\": {\"value\": \"2Gi\"}}}";

UNIT_TEST(dra_selector_no_heap_and_speed)
{
    const char *exprs[] = {
        "device.driver == \"test-driver.cdi.k8s.io\"",
        "device.attributes[\"test-driver.cdi.k8s.io\"].driverVersion.major() >= 1 && "
        "device.capacity[\"test-driver.cdi.k8s.io\"].memory.isGreaterThan(quantity(\"1Mi\"))",
    };
    cel_env *env = cel_dra_env_new(NULL);
    json_t *j = json_loads(perf_device_json, 0, NULL);
    cel_dra_device *dev = cel_dra_device_new(j, "test-driver.cdi.k8s.io");
    for (size_t k = 0; k < 2; k++) {
        cel_program *p = NULL;
        dra_err *ce = cel_dra_compile(env, exprs[k], strlen(exprs[k]), &p);
        CHECK(ce == NULL);
        if (ce) {
            fprintf(stderr, "%s\n", ce->msg);
            dra_err_free(ce);
            continue;
        }
        bool m = false;
        dra_err *e = cel_dra_match(p, dev, &m); /* warm-up */
        CHECK(e == NULL && m);
        dra_err_free(e);
        size_t scratch_before = cel_program_scratch_bytes(p);
#ifdef HAVE_MALLOC_COUNTER
        size_t before = heap_allocations;
#endif
        enum { N = 200000 };
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        size_t matched = 0;
        for (int i = 0; i < N; i++) {
            e = cel_dra_match(p, dev, &m);
            matched += m && !e;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
#ifdef HAVE_MALLOC_COUNTER
        CHECK_INT(heap_allocations - before, 0);
#endif
        CHECK_INT(cel_program_scratch_bytes(p), scratch_before);
        CHECK_INT(matched, N);
        double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / N;
        fprintf(stderr, "# selector %zu: %.1f ns/eval\n", k + 1, ns);
        cel_program_free(p);
    }
    cel_dra_device_free(dev);
    json_decref(j);
    cel_env_free(env);
}

/* CEL's timestamps at the ends of cel-go's range (0001-01-01 to 9999-12-31):
 * its overflow checks and its time zone argument (stdlib inTimeZone); every
 * answer below is cel-go v0.29.2's. */
UNIT_TEST(cel_timestamps)
{
    EV("timestamp('0001-01-01T00:00:00Z')", "timestamp(\"0001-01-01T00:00:00Z\")");
    EV("timestamp('9999-12-31T23:59:59.999999999Z')", "timestamp(\"9999-12-31T23:59:59.999999999Z\")");
    EV("timestamp('0000-12-31T23:59:59Z')", "ERROR: timestamp overflow");
    EV("timestamp('0001-01-01T00:00:00+01:00')", "ERROR: timestamp overflow");
    EV("timestamp('9999-12-31T23:59:59-01:00')", "ERROR: timestamp overflow");
    EV("timestamp('10000-01-01T00:00:00Z')",
       "ERROR: type conversion error from 'string' to 'google.protobuf.Timestamp'");
    EV("timestamp('2023-01-01t00:00:00Z')",
       "ERROR: type conversion error from 'string' to 'google.protobuf.Timestamp'");
    EV("timestamp('2023-01-01T1:00:00,5Z')", "timestamp(\"2023-01-01T01:00:00.5Z\")");
    EV("timestamp(253402300800)", "ERROR: timestamp overflow");
    EV("timestamp('0001-01-01T00:00:00Z') - duration('1ns')", "ERROR: timestamp overflow");
    /* a - b: the seconds are scaled before the nanoseconds are added */
    EV("timestamp('2262-04-11T23:47:16Z') - timestamp('1970-01-01T00:00:00.5Z')", "duration(\"9223372035.5s\")");
    EV("timestamp('2262-04-11T23:47:17Z') - timestamp('1970-01-01T00:00:00.5Z')", "ERROR: integer overflow");
    EV("timestamp('9999-12-31T23:59:59Z') - timestamp('0001-01-01T00:00:00Z')", "ERROR: integer overflow");
    /* t - d negates d first: the most negative duration overflows */
    EV("timestamp('2023-01-01T00:00:00Z') - duration('-2562047h47m16.854775808s')", "ERROR: integer overflow");
    EV("timestamp('2023-01-01T00:00:00Z') + duration('-2562047h47m16.854775808s')",
       "timestamp(\"1730-09-22T00:12:43.145224192Z\")");
    /* time zones */
    EV("timestamp('9999-12-31T23:59:59Z').getFullYear('+23:59')", "10000");
    EV("timestamp('0001-01-01T00:00:00Z').getFullYear('-01:00')", "0");
    EV("timestamp('2023-05-06T07:08:09Z').getHours('5:30')", "12");
    EV("timestamp('2023-05-06T07:08:09Z').getHours('-0:30')", "6");
    EV("timestamp('2023-05-06T07:08:09Z').getHours('+5:60')", "13");
    EV("timestamp('2023-05-06T07:08:09Z').getMinutes('+5:-30')", "38");
    EV("timestamp('2023-05-06T07:08:09Z').getHours('')", "7");
    EV("timestamp('2023-05-06T07:08:09Z').getHours('Z')", "ERROR: unknown time zone Z");
    EV("timestamp('2023-05-06T07:08:09Z').getHours('../etc')", "ERROR: time: invalid location name");
    EV("timestamp('2023-05-06T07:08:09Z').getHours('x5:30')", "ERROR: strconv.Atoi: parsing \"x5\": invalid syntax");
    EV("timestamp('2023-05-06T07:08:09Z').getHours('99999999999999999999:00')",
       "ERROR: strconv.Atoi: parsing \"99999999999999999999\": value out of range");
    /* offsets past a Duration wrap around as Go's arithmetic does */
    EV("timestamp('2023-05-06T07:08:09Z').getFullYear('99999999999:00')", "1812");
    EV("timestamp('2023-05-06T07:08:09Z').getFullYear('-153722867280912930:07')", "2023");
    EV("timestamp('9999-12-31T23:59:59Z').getFullYear('2562047:00')", "10292");
    EV("timestamp('0001-01-01T00:00:00Z').getFullYear('-2562047:00')", "-292");
}

UNIT_MAIN()

/* cost of expr in the DRA environment of o (no device) */
static uint64_t dra_cost(const cel_dra_options *o, const char *expr)
{
    cel_env *env = cel_dra_env_new(o);
    cel_program *p = NULL;
    dra_err *e = cel_dra_compile_value(env, expr, strlen(expr), &p);
    uint64_t cost = UINT64_MAX;
    if (!e) {
        cel_eval_options eo = {.actual_cost = &cost};
        cel_eval(p, NULL, &eo);
    }
    dra_err_free(e);
    cel_program_free(p);
    cel_env_free(env);
    return cost;
}

/* expr's cost in release a's DRA environment and in release b's */
typedef struct release_costs {
    const char *expr;
    uint64_t a, b;
} release_costs;

static void check_release_costs(dra_release a, dra_release b, const release_costs *cases, size_t n, int *unit_failed)
{
    cel_dra_options oa = {.release = a}, ob = {.release = b};
    for (size_t i = 0; i < n; i++) {
        CHECK_INT(dra_cost(&oa, cases[i].expr), cases[i].a);
        CHECK_INT(dra_cost(&ob, cases[i].expr), cases[i].b);
    }
}

UNIT_TEST(dra_release_1_38_cel_go)
{
    /* 1.38 builds on cel-go v0.33 (cel.dev/cel-go interpreter/
     * interpretable.go): a strict call whose operand is an error is not
     * charged, but for ==, != and !; 1.37's v0.29 charges every call whose
     * operands were all evaluated.  Figures: upstream-cel of each release. */
    static const release_costs cases[] = {
        {"[1][3] + 1", 3, 2},
        {"1 + [1][3]", 3, 2},
        {"string([1][3])", 3, 2},
        {"'abc'.substring([1][5])", 3, 2},
        {"[1][3] == 1", 3, 3},
        {"1 != [1][3]", 3, 3},
        {"!([true][3])", 3, 3},
        /* a list or map literal stops at a failed element, uncharged
         * (evalList.Exec, evalMap.Exec) */
        {"size({'a': [1][3]})", 33, 2},
        {"size({[1][3]: 1})", 33, 2},
        {"[[1][3], 2]", 12, 2},
        /* a failed call's result has no length in v0.33's cost models
         * (common/cost/model.go lengthExpr.track), 1 in v0.29's trackers */
        {"lists.range(-1)", 12, 11},
        /* an optional qualifier whose key fails is charged 1 (attributes.go
         * Qualify on an error of QualifyIfPresent) */
        {"['a'][?[1][5]].hasValue()", 3, 3},
        {"{'a': 1}[?string(ip('a'))].hasValue()", 4, 3},
        {"[1].slice(0, 5)", 12, 11},
    };
    check_release_costs(DRA_RELEASE_1_37, DRA_RELEASE_1_38, cases, sizeof cases / sizeof *cases, unit_failed);
    /* an undeclared reference names no empty container (checker/errors.go),
     * and NewExpressions have includes() without DRAListTypeAttributes */
    const char *exprs[] = {"frobnicate(device.driver)", "device.attributes['d'].l.includes(1)"};
    for (int rel = 37; rel <= 38; rel++) {
        cel_dra_options o = {.new_expressions = true, .release = (dra_release)rel};
        cel_env *env = cel_dra_env_new(&o);
        for (size_t i = 0; i < 2; i++) {
            cel_program *p = NULL;
            dra_err *e = cel_dra_compile(env, exprs[i], strlen(exprs[i]), &p);
            if (i == 0) {
                CHECK(e && strstr(e->msg, "undeclared reference to 'frobnicate'") != NULL);
                CHECK(e && (strstr(e->msg, "(in container '')") != NULL) == (rel == 37));
            } else {
                CHECK((e == NULL) == (rel == 38));
            }
            dra_err_free(e);
            cel_program_free(p);
        }
        cel_env_free(env);
    }
}

UNIT_TEST(dra_release_1_36_lists)
{
    /* 1.36 types attribute values by DRAListTypeAttributes in both
     * environments and, with it off, fails a device with a list attribute
     * (k8s.io/dynamic-resource-allocation v0.36.3 cel/compile.go
     * newCompiler, getAttributeValue); 1.37 takes lists always. */
    json_t *dev =
        json_pack("{s:s, s:{s:{s:s}, s:{s:[s]}}}", "name", "d", "attributes", "m", "string", "a", "l", "strings", "x");
    cel_dra_device *d = cel_dra_device_new(dev, "dra.example.com");
    const char *expr = "device.attributes['dra.example.com'].m == 'a'";
    const char *range = "device.attributes['dra.example.com'].l.exists(x, x == 'x')";
    struct {
        cel_dra_options o;
        const char *match_err;
        bool range_ok;
    } cases[] = {
        {{.release = DRA_RELEASE_1_36}, "attribute l: unsupported attribute value", false},
        {{.release = DRA_RELEASE_1_36, .list_type_attributes = true}, NULL, true},
        {{.release = DRA_RELEASE_1_37}, NULL, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cel_env *env = cel_dra_env_new(&cases[i].o);
        cel_program *p = NULL;
        dra_err *e = cel_dra_compile(env, expr, strlen(expr), &p);
        CHECK(e == NULL);
        bool m = false;
        if (!e)
            e = cel_dra_match(p, d, &m);
        if (cases[i].match_err)
            CHECK(e && !strcmp(e->msg, cases[i].match_err));
        else
            CHECK(e == NULL && m);
        dra_err_free(e);
        cel_program_free(p);
        p = NULL;
        e = cel_dra_compile(env, range, strlen(range), &p);
        CHECK((e == NULL) == cases[i].range_ok);
        dra_err_free(e);
        cel_program_free(p);
        cel_env_free(env);
    }
    cel_dra_device_free(d);
    json_decref(dev);
}

UNIT_TEST(dra_release_1_36_includes)
{
    /* 1.36 declares its own includes (dra_includes_dyn_dyn, v0.36.3
     * cel/compile.go includesFunc): estimated 0..48 by its draCostEstimator
     * whatever the target, charged cel-go's default 1 when it runs, a list
     * searched through its first 48 values only.  Figures: upstream-cel of
     * each release. */
    struct {
        const char *expr;
        uint64_t lo, hi, cost;
        const char *value;
    } cases[] = {
        {"'a'.includes('a')", 0, 48, 1, "true"},
        {"device.attributes['d'].m.includes('a')", 4, 52, 0, NULL},
        {"[1, 2].includes(2)", 10, 58, 1, "true"},
        {"lists.range(50).includes(3)", 61, 109, 62, "true"},
        {"lists.range(50).includes(49)", 61, 109, 62,
         "ERROR: 'includes' function cannot be applied to lists longer than 48 values"},
    };
    cel_dra_options o = {.release = DRA_RELEASE_1_36, .list_type_attributes = true};
    cel_env *env = cel_dra_env_new(&o);
    json_t *empty = json_object();
    cel_dra_device *dev = cel_dra_device_new(empty, "d.example.com");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cel_program *p = NULL;
        dra_err *e = cel_dra_compile(env, cases[i].expr, strlen(cases[i].expr), &p);
        CHECK(e == NULL);
        uint64_t lo = 0, hi = 0;
        if (p)
            cel_program_estimated_cost(p, &lo, &hi);
        CHECK_INT(lo, cases[i].lo);
        CHECK_INT(hi, cases[i].hi);
        dra_err_free(e);
        cel_program_free(p);
        if (!cases[i].value)
            continue;
        CHECK_INT(dra_cost(&o, cases[i].expr), cases[i].cost);
        CHECK_STR(dra_eval(env, dev, cases[i].expr), cases[i].value);
    }
    cel_dra_device_free(dev);
    json_decref(empty);
    cel_env_free(env);
}

UNIT_TEST(dra_release_1_36_cel_go)
{
    /* 1.36 builds on cel-go v0.26.0, whose cost tracker charges startsWith
     * and endsWith by the receiver's length (v0.29: the argument's) and
     * the global matches() 1, as its estimator does (interpreter/
     * runtimecost.go costCall, checker/cost.go functionCost).  Figures:
     * upstream-cel of each release. */
    static const release_costs cases[] = {
        {"'abcdefghijklmnopqrstu'.startsWith('a')", 3, 1},
        {"'a'.endsWith('abcdefghijklmnopqrstu')", 1, 3},
        {"matches('abcdefghijklmnopqrstu', 'a+')", 1, 3},
    };
    check_release_costs(DRA_RELEASE_1_36, DRA_RELEASE_1_37, cases, sizeof cases / sizeof *cases, unit_failed);
    /* the estimate of the global matches() */
    const char *m = "matches(device.driver, 'a+')";
    for (int rel = 36; rel <= 37; rel++) {
        cel_dra_options o = {.release = (dra_release)rel};
        cel_env *env = cel_dra_env_new(&o);
        cel_program *p = NULL;
        dra_err *e = cel_dra_compile(env, m, strlen(m), &p);
        CHECK(e == NULL);
        uint64_t lo = 0, hi = 0;
        if (p)
            cel_program_estimated_cost(p, &lo, &hi);
        CHECK_INT(hi, rel == 36 ? 3 : 9);
        dra_err_free(e);
        cel_program_free(p);
        cel_env_free(env);
    }
}

UNIT_TEST(dra_release_1_36_dotted_locals)
{
    /* cel-go v0.26 (1.36) looks `.v` up as `v` in every scope, a
     * comprehension's or cel.bind's variable first (checker/env.go
     * LookupIdent); v0.29 (1.37) only among the declared variables
     * (resolveSimpleIdent).  Answers: upstream-cel of each release. */
    const char *src = "cel.bind(v, 'abc', .v.startsWith('a')) && [1].all(x, .x == 1)";
    for (int rel = 36; rel <= 37; rel++) {
        cel_dra_options o = {.release = (dra_release)rel};
        cel_env *env = cel_dra_env_new(&o);
        cel_program *p = NULL;
        dra_err *e = cel_dra_compile(env, src, strlen(src), &p);
        if (rel == 36)
            CHECK(e == NULL);
        else
            CHECK(e && strstr(e->msg, "undeclared reference to '.v'"));
        dra_err_free(e);
        cel_program_free(p);
        cel_env_free(env);
    }
}

UNIT_TEST(dra_release_1_38_empty_ranges)
{
    /* cel-go v0.33 (1.38): a comprehension over a range of size 0 goes to
     * its result whatever the range's type (interpretable.go
     * evalFold.Exec); v0.29 (1.37) fails on a string or bytes range.
     * Answers: upstream-cel of each release. */
    struct {
        const char *expr, *v137, *v138;
    } cases[] = {
        {"dyn('').all(x, true)", "ERROR: got 'types.String', expected iterable type", "true"},
        {"dyn(b'').exists(x, true)", "ERROR: got 'types.Bytes', expected iterable type", "false"},
        {"size(dyn('').transformMapEntry(k, v, {k: v})) == 0",
         "ERROR: unsupported comprehension range type: types.String", "true"},
        {"dyn('a').all(x, true)", "ERROR: got 'types.String', expected iterable type",
         "ERROR: got 'types.String', expected iterable type"},
    };
    json_t *empty = json_object();
    cel_dra_device *dev = cel_dra_device_new(empty, "d.example.com");
    for (int rel = 37; rel <= 38; rel++) {
        cel_dra_options o = {.release = (dra_release)rel};
        cel_env *env = cel_dra_env_new(&o);
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
            CHECK_STR(dra_eval(env, dev, cases[i].expr), rel == 37 ? cases[i].v137 : cases[i].v138);
        cel_env_free(env);
    }
    cel_dra_device_free(dev);
    json_decref(empty);
}
