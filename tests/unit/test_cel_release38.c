/* CEL differences of Kubernetes 1.38 (cel-go v0.33) from 1.36 and 1.37. */
#include "unit.h"

#include <jansson.h>
#include <string.h>

#include "cel/cel.h"
#include "cel/dra.h"

/* Match expr on a device with int attribute n=3 in release rel's
 * environment: "true", "false", or the error's message. */
static const char *match(int rel, const char *expr)
{
    static char out[512];
    cel_dra_options o = {.release = (dra_release)rel};
    cel_env *env = cel_dra_env_new(&o);
    json_t *dev = json_pack("{s:s, s:{s:{s:i}}}", "name", "d", "attributes", "n", "int", 3);
    cel_dra_device *d = cel_dra_device_new(dev, "dra.example.com");
    cel_program *p = NULL;
    bool matched = false;
    dra_err *e = cel_dra_compile(env, expr, strlen(expr), &p);
    if (!e)
        e = cel_dra_match(p, d, &matched);
    snprintf(out, sizeof out, "%s", e ? e->msg : matched ? "true" : "false");
    dra_err_free(e);
    cel_program_free(p);
    cel_dra_device_free(d);
    json_decref(dev);
    cel_env_free(env);
    return out;
}

/* A case answered one way before a release and another from it on. */
typedef struct {
    const char *expr, *before, *later;
} rel_case;

/* Each case in 1.36, 1.37 and 1.38: its answer holds `later` from release
 * 1.`from` on, `before` below it. */
static void check_releases(const rel_case *cases, size_t n, int from, int *unit_failed)
{
    for (size_t i = 0; i < n; i++)
        for (int rel = 36; rel <= 38; rel++) {
            const char *got = match(rel, cases[i].expr);
            const char *want = rel >= from ? cases[i].later : cases[i].before;
            if (!strstr(got, want)) {
                fprintf(stderr, "  1.%d %s: got \"%s\", want \"%s\"\n", rel, cases[i].expr, got, want);
                *unit_failed = 1;
            }
        }
}

UNIT_TEST(nan_relations)
{
    /* cel-go v0.33 common/stdlib/standard.go: < <= > >= answer false for a
     * NaN on either side (before the operand types' Compare); v0.26 and
     * v0.29 common/types double.go, int.go, uint.go Compare: an error for
     * a NaN on the left, or on the right of a number. */
    static const rel_case cases[] = {
        {"0.0/0.0 < 1.0", "NaN values cannot be ordered", "false"},
        {"1.0 >= 0.0/0.0", "NaN values cannot be ordered", "false"},
        {"1 <= 0.0/0.0", "NaN values cannot be ordered", "false"},
        {"2u > double('NaN')", "NaN values cannot be ordered", "false"},
        {"device.attributes['dra.example.com'].n < 0.0/0.0", "NaN values cannot be ordered", "false"},
        {"!(0.0/0.0 > device.attributes['dra.example.com'].n)", "NaN values cannot be ordered", "true"},
        {"dyn(0.0/0.0) < 'a'", "NaN values cannot be ordered", "false"},
        {"0.0/0.0 != 0.0/0.0", "true", "true"},
        {"1.0 < 2.0", "true", "true"},
    };
    check_releases(cases, sizeof cases / sizeof *cases, 38, unit_failed);
}

UNIT_TEST(undeclared_suggestions)
{
    /* cel-go v0.33 checker/errors.go formatSuggestionSuffix over
     * common/env/catalog.go Find; 1.36 and 1.37 suggest nothing. */
    static const struct {
        const char *expr, *name, *hint, *name37; /* name37: 1.37's name when another */
    } cases[] = {
        {"device.attributes.Exists(x, true)", "Exists", " (did you mean 'exists'?)", NULL},
        {"devic.driver == 'a'", "devic", " (did you mean 'device'?)", NULL},
        {"Device.driver == 'a'", "Device", " (did you mean 'device'?)", NULL},
        {"lst(1)", "lst", " (did you mean 'last' or 'list'?)", NULL}, /* nearest two, shortest first */
        {"bin(1)", "bin", " (did you mean 'in' or '@in'?)", NULL},    /* a disabled declaration */
        {"sortB(1)", "sortB", " (did you mean 'sort' or 'sortBy'?)", NULL},
        {"semve('1.0.0')", "semve", " (did you mean 'semver'?)", NULL}, /* begun, past the distance */
        {"pat(1)", "pat", " (did you mean 'path'?)", NULL},             /* the authorizer's */
        {"url == 'a'", "url", "", NULL},                                /* a symbol itself */
        {"x == 1", "x", "", NULL},
        /* a dotted name with no declared leading part, whole when the
         * catalog has something for it (checkUndeclaredFunction,
         * checkUndeclaredIdent) */
        {"optional.o(1)", "optional.o", " (did you mean 'optional.of'?)", "optional"},
        {"optional.none == 1", "optional.none", "", "optional"},
        {"strings.quote.x == 1", "strings.quote.x", " (did you mean 'strings.quote'?)", "strings"},
        {"foo.bar(1)", "foo", "", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int rel = 37; rel <= 38; rel++) {
            char want[256];
            const char *name = rel == 37 && cases[i].name37 ? cases[i].name37 : cases[i].name;
            snprintf(want, sizeof want, "undeclared reference to '%s'%s", name,
                     rel == 38 ? cases[i].hint : " (in container '')");
            const char *got = match(rel, cases[i].expr);
            if (strcmp(got, want) && !(strstr(got, want) && strstr(got, want)[strlen(want)] == '\n')) {
                fprintf(stderr, "  1.%d %s: got \"%s\", want \"%s\"\n", rel, cases[i].expr, got, want);
                *unit_failed = 1;
            }
        }
}

UNIT_TEST(quantity_parse_138)
{
    /* apimachinery v0.38.0-beta.0 resource/quantity.go ParseQuantity:
     * maxInt64Factors 19 (v0.37.2: 18) puts a 19-digit decimal that fits
     * int64 on the int64Amount fast path, printed canonically; through
     * 1.37 it is an inf.Dec at nano scale, which AsInt64 refuses and
     * AsApproximateFloat64 rounds from 10^9 times the value. */
    static const rel_case cases[] = {
        {"quantity('9223372036854775807').isInteger()", "false", "true"},
        {"quantity('9223372036854775807').asInteger() == 9223372036854775807", "cannot convert value to integer",
         "true"},
        {"quantity('-9223372036854775808').asInteger() == -9223372036854775807 - 1", "cannot convert value to integer",
         "true"},
        {"quantity('1234567890123456.789k').asInteger() == 1234567890123456789", "cannot convert value to integer",
         "true"},
        {"quantity('1234567890123456789e-9').isInteger()", "false", "false"},  /* scale -9: int64, not an integer */
        {"quantity('1234567890123456789e-10').isInteger()", "false", "false"}, /* past nano: inf.Dec */
        {"quantity('9999999999999999999').isInteger()", "false", "false"},     /* past int64: inf.Dec */
        {"quantity('123456789012345678').isInteger()", "true", "true"},        /* 18 digits: both */
        {"quantity('1234567890123456789').compareTo(quantity('1234567890123456789')) == 0", "true", "true"},
        {"quantity('9223372036854775807').add(quantity('1e3')).asApproximateFloat() == 9.223372036854775808e18",
         "false", "true"},
        /* v0.38 int64Amount.Sub leaves MinInt64 to inf.Dec (v0.37.2
         * added -MinInt64, which is MinInt64) */
        {"quantity('8').sub(-9223372036854775808) == quantity('9223372036854775816')", "false", "true"},
        /* an exponent of -2^31 off the fast path: ErrSuffix (canInfScale)
         * from 1.38; 1.37's apimachinery wraps the scale and spins, the
         * project rounds the value to 1n */
        {"isQuantity('1e-2147483648')", "true", "false"},
        {"quantity('1E-2147483648') == quantity('1n')", "true", "unable to parse quantity's suffix"},
        {"isQuantity('0e-2147483648')", "true", "false"},
        /* decFromDigits keeps 29 significant digits (maxSignificantDigits),
         * rounded away from zero, and AsScale(Nano) keeps a coarser scale:
         * v0.37.2 kept every digit at nano scale (the project: up to 96) */
        {"quantity('1234567890123456789012345678901') == quantity('1234567890123456789012345679k')", "false", "true"},
        {"quantity('98765432109876543217.3').asApproximateFloat() == 9.876543210987654e+19", "false", "true"},
        /* AsApproximateFloat64: v0.38 returns a zero base as it is */
        {"string(quantity('0e400').asApproximateFloat()) == '0'", "false", "true"},
        {"quantity('1234567890123456789012345678900000000000000000000000000001').isGreaterThan(quantity('1e57'))",
         "true", "true"},
        {"quantity('1234567890123456789012345678900000000000000000000000000000000000000000000000000000000000000000001')"
         ".isGreaterThan(quantity('1e57'))",
         "quantity too large", "true"},
    };
    check_releases(cases, sizeof cases / sizeof *cases, 38, unit_failed);
}

UNIT_TEST(constant_qualifiers)
{
    /* interpreter/attributes.go newQualifier refuses a folded list or map
     * literal (and a type) as an index when the program is planned:
     * "program instantiation failed" with Go's %T of the constant, a
     * baseList or baseMap through cel-go v0.29, a sliceList or nativeMap
     * in v0.33 (common/types list.go NewRefValList, map.go NewRefValMap);
     * upstream-cel 1.37 and 1.38 answer so. */
    static const rel_case cases[] = {
        {"device.attributes['dra.example.com'].n[{'a': 1.0}] == 1", "invalid qualifier type: *types.baseMap",
         "invalid qualifier type: *types.nativeMap[cel.dev/cel-go/common/types/ref.Val,"
         "cel.dev/cel-go/common/types/ref.Val]"},
        {"[1][dyn([1])] == 1", "invalid qualifier type: *types.baseList",
         "invalid qualifier type: *types.sliceList[cel.dev/cel-go/common/types/ref.Val]"},
        {"[1][?dyn([])] == optional.none()", "invalid qualifier type: *types.baseList",
         "invalid qualifier type: *types.sliceList[cel.dev/cel-go/common/types/ref.Val]"},
        {"[1][dyn(int)] == 1", "invalid qualifier type: *types.Type", "invalid qualifier type: *types.Type"},
        /* computed: refused when evaluated, with the same names */
        {"[1][dyn([device.driver])] == 1", "invalid qualifier type: *types.baseList",
         "invalid qualifier type: *types.sliceList[cel.dev/cel-go/common/types/ref.Val]"},
    };
    check_releases(cases, sizeof cases / sizeof *cases, 38, unit_failed);
}

UNIT_TEST(index_of_declaration_order)
{
    /* apiserver v0.38.0-beta.0 pkg/cel/environment/base.go declares the
     * Kubernetes lists library (ListsVersion(1)) after ext.Strings, so a
     * free receiver of indexOf or lastIndexOf binds to string first;
     * through 1.37 ListsVersion(0), declared before, binds it to a list.
     * upstream-cel 1.37 and 1.38 answer so. */
    static const rel_case cases[] = {
        {"cel.bind(x, [][1], x.indexOf('a') == 0 ? x : x)", "not list(string)", "not string"},
        {"cel.bind(x, [][1], x.lastIndexOf('a') == 0 ? x : x)", "not list(string)", "not string"},
        {"cel.bind(x, [][1], x.indexOf(1) == 0 ? x : x)", "not list(int)", "not list(int)"},
        {"cel.bind(x, [][1], x.indexOf('a', 1) == 0 ? x : x)", "not string", "not string"},
        /* the standard library is declared first (cel.StdLib): a free k
         * binds to string_to_string, not ip_to_string, in every release */
        {"{}.exists(k, string(k) < k)", "false", "false"},
        {"cel.bind(x, [][1], string(x) == '' ? x : x)", "not string", "not string"},
    };
    check_releases(cases, sizeof cases / sizeof *cases, 38, unit_failed);
}

UNIT_TEST(int_to_duration_136)
{
    /* cel-go v0.26 (1.36) declares duration(int), bound to a conversion
     * no int passes; v0.29 dropped it (upstream-cel 1.36, 1.37) */
    static const rel_case cases[] = {
        /* before: 1.36's answer; later: 1.37's and 1.38's */
        {"duration(dyn(1)) == duration('1s')", "type conversion error from 'int' to 'google.protobuf.Duration'",
         "no such overload"},
        {"duration(1) == duration('1s')", "1:10: invalid duration argument",
         "found no matching overload for 'duration' applied to '(int)'"},
    };
    check_releases(cases, sizeof cases / sizeof *cases, 37, unit_failed);
}

UNIT_TEST(empty_needle_136)
{
    /* ext/strings.go indexOfOffset, lastIndexOfOffset: cel-go v0.26
     * (1.36) returns an empty needle's offset before any range check;
     * v0.29 and v0.33 refuse a negative one and clamp it to the length
     * (upstream-cel 1.36, 1.37, 1.38) */
    static const rel_case cases[] = {
        {"'abc'.indexOf('', 7) == 7", "true", "false"},
        {"'abc'.indexOf('', 7) == 3", "false", "true"},
        {"'abc'.lastIndexOf('', 7) == 3", "false", "true"},
        {"'abc'.indexOf('', -1) == -1", "true", "index out of range: -1"},
        {"'abc'.lastIndexOf('', -19) == -19", "true", "index out of range: -19"},
        /* parser.go normalizeIdent: v0.26 parses no escaped identifier */
        {"{'a-b': 1}.`a-b` == 1", "unsupported syntax: '`'", "true"},
    };
    check_releases(cases, sizeof cases / sizeof *cases, 37, unit_failed);
}

UNIT_MAIN()
