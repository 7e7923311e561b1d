/* resource.Quantity: cases ported from upstream
 * k8s.io/apimachinery/pkg/api/resource/quantity_test.go (TestQuantityParse,
 * TestQuantityParseEmit, TestQuantityString, TestQuantityCmp*, TestAdd,
 * TestSub, TestNewSet, TestNegAndSubAtMostNegative, the float tables) and
 * k8s.io/apiserver/pkg/cel/library/quantity_test.go, plus our own edges.
 * Every table row is its own test. */
#include <math.h>

#include "model/features.h"
#include "model/quantity.h"
#include "unit.h"

#define T_(name) UNIT_TEST(name)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#define DSI DRA_QFMT_DECIMAL_SI
#define BSI DRA_QFMT_BINARY_SI
#define DEX DRA_QFMT_DECIMAL_EXPONENT

static dra_quantity must(int *unit_failed, const char *s)
{
    dra_quantity q;
    memset(&q, 0, sizeof q);
    dra_err *e = dra_quantity_parse_as(NULL, s, &q);
    if (e) {
        fprintf(stderr, "  parse(\"%s\"): %s\n", s, e->msg);
        *unit_failed = 1;
        dra_err_free(e);
    }
    return q;
}

static const char *canon(const dra_quantity *q)
{
    static char buf[DRA_QUANTITY_STRMAX];
    return dra_quantity_format_canonical(q, buf);
}

static const char *str(const dra_quantity *q)
{
    static char buf[DRA_QUANTITY_STRMAX];
    return dra_quantity_format(q, buf);
}

/* Parse, check the canonical text and format, and that "-"/"+" prefixes
 * give the negated/same value (as upstream's table loops do). */
static void check_parse(int *unit_failed, const char *in, const char *want, dra_qformat fmt)
{
    dra_quantity q = must(unit_failed, in);
    CHECK_STR(canon(&q), want);
    CHECK_INT(q.format, fmt);
    dra_quantity again = must(unit_failed, canon(&q));
    CHECK_INT(dra_quantity_cmp(&q, &again), 0);
    char buf[128];
    snprintf(buf, sizeof buf, "-%s", in);
    dra_quantity neg = must(unit_failed, buf);
    CHECK_INT(neg.format, fmt);
    CHECK_INT(dra_quantity_sign(&neg), -dra_quantity_sign(&q));
    if (dra_quantity_sign(&q) != 0) {
        snprintf(buf, sizeof buf, "-%s", want);
        CHECK_STR(canon(&neg), buf);
    }
    snprintf(buf, sizeof buf, "+%s", in);
    dra_quantity pos = must(unit_failed, buf);
    CHECK_INT(dra_quantity_cmp(&pos, &q), 0);
    CHECK_INT(pos.format, fmt);
}

/* clang-format off */
#define PARSE(in, want, fmt) \
    T_(CAT(parse_L, __LINE__)) { check_parse(unit_failed, in, want, fmt); }
/* clang-format on */

/* TestQuantityParse: zeros */
PARSE("0", "0", DSI)
PARSE("0n", "0", DSI)
PARSE("0u", "0", DSI)
PARSE("0m", "0", DSI)
PARSE("0Ki", "0", BSI)
PARSE("0k", "0", DSI)
PARSE("0Mi", "0", BSI)
PARSE("0M", "0", DSI)
PARSE("0Gi", "0", BSI)
PARSE("0G", "0", DSI)
PARSE("0Ti", "0", BSI)
PARSE("0T", "0", DSI)
PARSE("1", "1", DSI)
/* binary suffixes */
PARSE("1Ki", "1Ki", BSI)
PARSE("8Ki", "8Ki", BSI)
PARSE("7Mi", "7Mi", BSI)
PARSE("6Gi", "6Gi", BSI)
PARSE("5Ti", "5Ti", BSI)
PARSE("4Pi", "4Pi", BSI)
PARSE("3Ei", "3Ei", BSI)
PARSE("10Ti", "10Ti", BSI)
PARSE("100Ti", "100Ti", BSI)
/* decimal suffixes */
PARSE("5n", "5n", DSI)
PARSE("4u", "4u", DSI)
PARSE("3m", "3m", DSI)
PARSE("9", "9", DSI)
PARSE("8k", "8k", DSI)
PARSE("50k", "50k", DSI)
PARSE("7M", "7M", DSI)
PARSE("6G", "6G", DSI)
PARSE("5T", "5T", DSI)
PARSE("40T", "40T", DSI)
PARSE("300T", "300T", DSI)
PARSE("2P", "2P", DSI)
PARSE("1E", "1E", DSI)
/* decimal exponents */
PARSE("1E-3", "1e-3", DEX)
PARSE("1e3", "1e3", DEX)
PARSE("1E6", "1e6", DEX)
PARSE("1e9", "1e9", DEX)
PARSE("1E12", "1e12", DEX)
PARSE("1e15", "1e15", DEX)
PARSE("1E18", "1e18", DEX)
/* nonstandard but parsable */
PARSE("1e14", "100e12", DEX)
PARSE("1e13", "10e12", DEX)
PARSE("100.035k", "100035", DSI)
/* things that look like floating point */
PARSE("0.001", "1m", DSI)
PARSE("0.0005k", "500m", DSI)
PARSE("0.005", "5m", DSI)
PARSE("0.05", "50m", DSI)
PARSE("0.5", "500m", DSI)
PARSE("0.00050k", "500m", DSI)
PARSE("0.00500", "5m", DSI)
PARSE("0.05000", "50m", DSI)
PARSE("0.50000", "500m", DSI)
PARSE("0.5e0", "500e-3", DEX)
PARSE("0.5e-1", "50e-3", DEX)
PARSE("0.5e-2", "5e-3", DEX)
PARSE("10.035M", "10035k", DSI)
PARSE("1.2e3", "1200", DEX)
PARSE("1.3E+6", "1300e3", DEX)
PARSE("1.40e9", "1400e6", DEX)
PARSE("1.53E12", "1530e9", DEX)
PARSE("1.6e15", "1600e12", DEX)
PARSE("1.7E18", "1700e15", DEX)
PARSE("9.01", "9010m", DSI)
PARSE("8.1k", "8100", DSI)
PARSE("7.123456M", "7123456", DSI)
PARSE("6.987654321G", "6987654321", DSI)
PARSE("5.444T", "5444G", DSI)
PARSE("40.1T", "40100G", DSI)
PARSE("300.2T", "300200G", DSI)
PARSE("2.5P", "2500T", DSI)
PARSE("1.01E", "1010P", DSI)
/* things that saturate/round */
PARSE("3.001n", "4n", DSI)
PARSE("1.1E-9", "2e-9", DEX)
PARSE("0.0000000001", "1n", DSI)
PARSE("0.0000000005", "1n", DSI)
PARSE("0.00000000050", "1n", DSI)
PARSE("0.5e-9", "1e-9", DEX)
PARSE("0.9n", "1n", DSI)
PARSE("0.00000012345", "124n", DSI)
PARSE("0.00000012354", "124n", DSI)
PARSE("9Ei", "9223372036854775807", BSI)
PARSE("9223372036854775807Ki", "9223372036854775807", BSI)
PARSE("12E", "12E", DSI)
/* fractional binary */
PARSE("100.035Ki", "102435840m", BSI)
PARSE("0.5Mi", "512Ki", BSI)
PARSE("0.05Gi", "53687091200m", BSI)
PARSE("0.025Ti", "27487790694400m", BSI)
/* things written by trolls */
PARSE("0.000000000001Ki", "2n", DSI)
PARSE(".001", "1m", DSI)
PARSE(".0001k", "100m", DSI)
PARSE("1.", "1", DSI)
PARSE("1.G", "1G", DSI)
/* our own: what the scanner accepts without digits, wrapped exponents, long digit runs */
PARSE("Mi", "0", BSI)
PARSE(".", "0", DSI)
PARSE("e3", "0", DEX)
PARSE("1e4294967296", "1", DEX)
PARSE("1e4294967299", "1e3", DEX)
PARSE("1e2147483647", "10e2147483646", DEX)
PARSE("0.000000000000000000000000000000000000000000000000000000000001", "1n", DSI)
PARSE("123456789012345678901234567890", "123456789012345678901234567890", DSI)
PARSE("9999999999999999999999999999999999999G", "9999999999999999999999999999999999999G", DSI)
PARSE("1000000000000000000000000000000000000000000000000000000000000000", "1e63", DSI)
PARSE("123456789012345678901234567890Ki", "9223372036854775807", BSI)
PARSE("1.00000000000000000000000000000000000000000000000000001Ki", "1024000000001n", BSI)

/* TestQuantityParse invalid inputs, with upstream's messages */
#define ERR_FORMAT "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define ERR_SUFFIX "unable to parse quantity's suffix"
#define ERR_NUMERIC "unable to parse numeric part of quantity"

static void check_invalid(int *unit_failed, const char *in, size_t len, const char *msg)
{
    dra_quantity q;
    dra_err *e = dra_quantity_parse_rules(in, len, DRA_QUANTITY_RULES_137, &q);
    CHECK(e != NULL);
    if (e) {
        CHECK_STR(e->msg, msg);
        CHECK_INT(e->code, DRA_EXIT_INPUT);
    }
    dra_err_free(e);
}

/* clang-format off */
#define INVALID(in, msg) \
    T_(CAT(invalid_L, __LINE__)) { check_invalid(unit_failed, in, strlen(in), msg); }
/* clang-format on */

INVALID("", ERR_FORMAT)
INVALID("1.1.M", ERR_FORMAT)
INVALID("1+1.0M", ERR_FORMAT)
INVALID("0.1mi", ERR_SUFFIX)
INVALID("0.1am", ERR_FORMAT)
INVALID("aoeu", ERR_FORMAT)
INVALID(".5i", ERR_SUFFIX)
INVALID("1i", ERR_SUFFIX)
INVALID("-3.01i", ERR_SUFFIX)
INVALID("-3.01e-", ERR_SUFFIX)
INVALID(" 1", ERR_FORMAT)
INVALID("1 ", ERR_FORMAT)
INVALID("10Mo", ERR_FORMAT)
INVALID("10Mm", ERR_SUFFIX)
INVALID("1e", ERR_SUFFIX)
INVALID("1e3e", ERR_FORMAT)
INVALID("1e99999999999999999999", ERR_SUFFIX)
INVALID("1Kii", ERR_SUFFIX)
INVALID("Pi", ERR_NUMERIC)
INVALID(".Pi", ERR_NUMERIC)
INVALID(".e-20", ERR_NUMERIC)
INVALID("1234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567",
        "quantity too large")
INVALID("10e2147483647", "quantity too large")
T_(parse_sign_only)
{
    dra_quantity q = must(unit_failed, "-");
    CHECK_STR(str(&q), "0");
    q = must(unit_failed, "+");
    CHECK_STR(str(&q), "0");
    check_invalid(unit_failed, "--", 2, ERR_SUFFIX);
}
T_(invalid_embedded_nul)
{
    check_invalid(unit_failed, "1\0k", 3, ERR_FORMAT);
}

/* TestQuantityParseEmit (String(), including the verbatim cache) */
static void check_emit(int *unit_failed, const char *in, const char *want)
{
    dra_quantity q = must(unit_failed, in);
    CHECK_STR(str(&q), want);
    char buf[64], wbuf[64];
    snprintf(buf, sizeof buf, "-%s", in);
    snprintf(wbuf, sizeof wbuf, "-%s", want);
    q = must(unit_failed, buf);
    CHECK_STR(str(&q), wbuf);
}
/* clang-format off */
#define EMIT(in, want) \
    T_(CAT(emit_L, __LINE__)) { check_emit(unit_failed, in, want); }
/* clang-format on */
EMIT("1Ki", "1Ki")
EMIT("1Mi", "1Mi")
EMIT("1Gi", "1Gi")
EMIT("1024Mi", "1Gi")
EMIT("1000M", "1G")
EMIT(".001Ki", "1024m")
EMIT(".000001Ki", "1024u")
EMIT(".000000001Ki", "1024n")
EMIT(".000000000001Ki", "2n")

/* String() returns the parsed text when upstream's check calls it
 * canonical (kubernetes#138165), the canonical form otherwise. */
static void check_string(int *unit_failed, const char *in, const char *want_str, const char *want_canon)
{
    dra_quantity q = must(unit_failed, in);
    CHECK_STR(str(&q), want_str);
    CHECK_STR(canon(&q), want_canon);
}
/* clang-format off */
#define STRING(in, s, c) \
    T_(CAT(string_L, __LINE__)) { check_string(unit_failed, in, s, c); }
/* clang-format on */
STRING("1.500", "1.500", "1500m")
STRING("1.001", "1.001", "1001m")
STRING("1.44", "1440m", "1440m")
STRING("+1", "+1", "1")
STRING("01", "01", "1")
STRING("1E3", "1E3", "1e3")
STRING("1000", "1k", "1k")
STRING("1025Ki", "1025Ki", "1025Ki")
STRING("1024Ki", "1Mi", "1Mi")
STRING("0Ki", "0", "0")
STRING("0.5", "500m", "500m")

/* TestQuantityString: canonical and alternate spellings */
static void check_alternate(int *unit_failed, const char *want, const char *alt)
{
    dra_quantity q = must(unit_failed, want);
    CHECK_STR(str(&q), want);
    q = must(unit_failed, alt);
    CHECK_STR(str(&q), want);
}
/* clang-format off */
#define ALT(want, alt) \
    T_(CAT(alternate_L, __LINE__)) { check_alternate(unit_failed, want, alt); }
/* clang-format on */
ALT("1Gi", "1024Mi")
ALT("300Mi", "307200Ki")
ALT("1001Gi", "1025024Mi")
ALT("1Ti", "1024Gi")
ALT("5", "5000m")
ALT("500m", "0.5")
ALT("1G", "1000M")
ALT("1G", "0.001T")
ALT("1m", "1000u")
ALT("1080m", "1.08")
ALT("1080m", "1080000000n")
ALT("1e21", "1000E")
ALT("5e21", "5000E")
ALT("1e24", "1000000E")
ALT("1e9", ".001e12")
ALT("1e-3", "0.001e0")
ALT("1e-9", "1000e-12")
ALT("0", "00")
ALT("80n", "0.08u")
ALT("1234567M", "1234567000000")

/* TestQuantityCmp, TestQuantityCmpInt64AndDec, and the CEL library's comparisons */
static void check_cmp(int *unit_failed, const char *a, const char *b, int want)
{
    dra_quantity qa = must(unit_failed, a), qb = must(unit_failed, b);
    CHECK_INT(dra_quantity_cmp(&qa, &qb), want);
    CHECK_INT(dra_quantity_cmp(&qb, &qa), -want);
}
/* clang-format off */
#define CMP(a, b, want) \
    T_(CAT(cmp_L, __LINE__)) { check_cmp(unit_failed, a, b, want); }
/* clang-format on */
CMP("0", "0", 0)
CMP("100m", "50m", 1)
CMP("50m", "100m", -1)
CMP("10000T", "100Gi", 1)
CMP("9.01", "9.01", 0)
CMP("9.0", "9.01", -1)
CMP("9.01", "9.00", 1)
CMP("0e1", "0e-1", 0)
CMP("800m", "1", -1)
CMP("800m", "790m", 1)
CMP("9223372036854775807", "0.1", 1)
CMP("92233720368547758070", "1", 1)
CMP("922.3372036854775807", "1000", -1)
CMP("-9223372036854775808", "0", -1)
CMP("-9.223372036854775808", "-1", -1)
CMP("-0.9223372036854775808", "-1", 1)
CMP("1000000000000000000e-17", "10", 0)
CMP("1000000000000000000e-17", "-10", 1)
/* one exponent, magnitudes of up to 64 bits: compared as they are */
CMP("8Gi", "1Gi", 1)
CMP("-8Gi", "-1Gi", -1)
CMP("18446744073709551615", "18446744073709551614", 1)
CMP("18446744073709551615", "18446744073709551616", -1)
CMP("1844674407370955161.5", "1844674407370955161.4", 1)
CMP("-1000000000000000000e-17", "-10", 0)
CMP("1000000000000000001e-17", "10", 1)
CMP("9999999999e-9", "10", -1)
CMP("999999999999999999e-17", "10", 0) /* rounds up to nano: exactly 10 */
CMP("50M", "50Mi", -1)
CMP("200M", "0.2G", 0)
CMP("2M", "0.002G", 0)
CMP("2000k", "2M", 0)
CMP("1e2147483647", "1e2147483646", 1)
CMP("-1e300", "1n", -1)
CMP("123456789012345678901234567890", "123456789012345678901234567891", -1)

/* TestAdd / TestSub / zero-preserves-suffix / the CEL arithmetic cases */
static void check_arith(int *unit_failed, const char *a, char op, const char *b, const char *want, dra_qformat fmt)
{
    dra_quantity qa = must(unit_failed, a), qb = must(unit_failed, b), r;
    bool ok = op == '+' ? dra_quantity_add(&r, &qa, &qb) : dra_quantity_sub(&r, &qa, &qb);
    CHECK(ok);
    if (ok) {
        CHECK_STR(str(&r), want);
        CHECK_INT(r.format, fmt);
    }
}
/* clang-format off */
#define ARITH(a, op, b, want, fmt) \
    T_(CAT(arith_L, __LINE__)) { check_arith(unit_failed, a, op, b, want, fmt); }
/* clang-format on */
ARITH("10", '+', "1e1", "20", DSI)
ARITH("10", '+', "1Ki", "1034", DSI)
ARITH("10Ki", '+', "1", "10241", BSI)
ARITH("0", '+', "50", "50", DSI)
ARITH("50", '+', "0", "50", DSI)
ARITH("0", '+', "0", "0", DSI)
ARITH("10", '-', "1e1", "0", DSI)
ARITH("10", '-', "1", "9", DSI)
ARITH("0", '-', "50", "-50", DSI)
ARITH("100m", '+', "0", "100m", DSI)
ARITH("0", '+', "100m", "100m", DSI)
ARITH("1Gi", '+', "0", "1Gi", BSI)
ARITH("0", '+', "1Gi", "1Gi", BSI)
ARITH("0", '-', "100m", "-100m", DSI)
ARITH("0", '-', "1Gi", "-1Gi", BSI)
ARITH("50k", '+', "20", "50020", DSI)
ARITH("50k", '-', "20", "49980", DSI)
ARITH("1Ki", '-', "1Ki", "0", BSI)
ARITH("0Ki", '+', "1e3", "1e3", DEX)
ARITH("1Gi", '+', "1.5", "1073741825500m", BSI)
ARITH("4Ei", '+', "4Ei", "8Ei", BSI)
ARITH("1e40", '-', "1", "9999999999999999999999999999999999999999", DEX)

T_(arith_equal_to_parsed)
{
    dra_quantity a = must(unit_failed, "50k"), b = must(unit_failed, "20"), r;
    CHECK(dra_quantity_add(&r, &a, &b));
    dra_quantity want = must(unit_failed, "50.02k");
    CHECK_INT(dra_quantity_cmp(&r, &want), 0);
    CHECK(dra_quantity_sub(&r, &a, &b));
    want = must(unit_failed, "49.98k");
    CHECK_INT(dra_quantity_cmp(&r, &want), 0);
}

T_(arith_out_of_range)
{
    dra_quantity a = must(unit_failed, "1e100"), b = must(unit_failed, "1"), r;
    r = b;
    CHECK(!dra_quantity_add(&r, &a, &b));
    CHECK(!dra_quantity_sub(&r, &b, &a));
    CHECK_STR(str(&r), "1"); /* untouched on failure */
}

T_(arith_aliasing)
{
    dra_quantity a = must(unit_failed, "1Ki"), b = must(unit_failed, "1Ki");
    CHECK(dra_quantity_add(&a, &a, &b));
    CHECK_STR(str(&a), "2Ki");
    CHECK(dra_quantity_sub(&b, &a, &b));
    CHECK_STR(str(&b), "1Ki");
}

/* TestNegAndSubAtMostNegative / TestZeroSubMostNegativeInheritsFormat */
T_(sub_most_negative)
{
    dra_quantity zero = must(unit_failed, "0"), one = must(unit_failed, "1"), ten = must(unit_failed, "1e1");
    dra_quantity mn = dra_quantity_from_int64(INT64_MIN, DSI), r;
    CHECK(dra_quantity_sub(&r, &zero, &mn));
    CHECK_STR(str(&r), "9223372036854775808");
    CHECK(!dra_quantity_is_int64(&r));
    CHECK_INT(dra_quantity_sign(&r), 1);
    CHECK(dra_quantity_sub(&r, &one, &mn));
    CHECK_STR(str(&r), "9223372036854775809");
    CHECK(!dra_quantity_is_int64(&r));
    CHECK(dra_quantity_sub(&r, &ten, &mn));
    CHECK_STR(str(&r), "9223372036854775818");
    dra_quantity mnb = dra_quantity_from_int64(INT64_MIN, BSI);
    CHECK(dra_quantity_sub(&r, &zero, &mnb));
    CHECK_INT(r.format, BSI);
    CHECK_STR(str(&r), "8Ei");
    dra_quantity neighbor = dra_quantity_from_int64(INT64_MIN + 1, DSI);
    int64_t v = 0;
    CHECK(dra_quantity_sub(&r, &zero, &neighbor));
    CHECK(dra_quantity_as_int64(&r, &v));
    CHECK(v == INT64_MAX);
}

/* TestNewSet */
static void check_new(int *unit_failed, int64_t v, dra_qformat fmt, const char *want)
{
    dra_quantity q = dra_quantity_from_int64(v, fmt);
    CHECK_STR(str(&q), want);
    int64_t back = 0;
    CHECK(dra_quantity_as_int64(&q, &back));
    CHECK(back == v);
    dra_quantity p = must(unit_failed, want);
    CHECK_INT(dra_quantity_cmp(&p, &q), 0);
}
/* clang-format off */
#define NEWQ(v, fmt, want) \
    T_(CAT(new_L, __LINE__)) { check_new(unit_failed, v, fmt, want); }
/* clang-format on */
NEWQ(1, DSI, "1")
NEWQ(1000, DSI, "1k")
NEWQ(1234000, DSI, "1234k")
NEWQ(1024, BSI, "1Ki")
NEWQ(1000000, DEX, "1e6")
NEWQ(1024 * 1024, BSI, "1Mi")
NEWQ(INT64_MIN, DSI, "-9223372036854775808")
NEWQ(0, BSI, "0")

/* AsInt64 as the CEL library sees it (isInteger / asInteger), including
 * the dependence on upstream's internal representation. */
static void check_int(int *unit_failed, const char *in, bool ok, int64_t want)
{
    dra_quantity q = must(unit_failed, in);
    int64_t v = 0;
    CHECK_INT(dra_quantity_as_int64(&q, &v), ok);
    CHECK_INT(dra_quantity_is_int64(&q), ok);
    if (ok)
        CHECK(v == want);
}
/* clang-format off */
#define ASINT(in, ok, want) \
    T_(CAT(as_int_L, __LINE__)) { check_int(unit_failed, in, ok, want); }
/* clang-format on */
ASINT("50k", true, 50000)
ASINT("50", true, 50)
ASINT("9999999999999999999999999999999999999G", false, 0)
ASINT("1Ki", true, 1024)
ASINT("1.5k", true, 1500)
ASINT("-7Mi", true, -7340032)
ASINT("1000m", false, 0)
ASINT("0m", false, 0)
ASINT("0.0", false, 0)
ASINT("1Pi", false, 0)
ASINT("0.5Ki", false, 0)
ASINT("10E", false, 0)
ASINT("9E", true, 9000000000000000000)
ASINT("9223372036854775807", false, 0)
ASINT("922337203685477580", true, 922337203685477580)
ASINT("0e2000000000", true, 0)

T_(as_int_arith_chain)
{
    /* quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() */
    dra_quantity q = must(unit_failed, "50k"), k100 = must(unit_failed, "100k");
    dra_quantity twenty = dra_quantity_from_int64(20, DEX), m50k = dra_quantity_from_int64(-50000, DEX);
    int64_t v = 0;
    CHECK(dra_quantity_add(&q, &q, &twenty));
    CHECK(dra_quantity_sub(&q, &q, &k100));
    CHECK(dra_quantity_as_int64(&q, &v));
    CHECK(v == -49980);
    CHECK(dra_quantity_sub(&q, &q, &m50k));
    CHECK(dra_quantity_as_int64(&q, &v));
    CHECK(v == 20);
    /* 1 + 500m + 500m stays int64-backed at scale -3: not an integer upstream */
    dra_quantity one = must(unit_failed, "1"), half = must(unit_failed, "500m");
    CHECK(dra_quantity_add(&one, &one, &half));
    CHECK(dra_quantity_add(&one, &one, &half));
    CHECK_STR(str(&one), "2");
    CHECK(!dra_quantity_is_int64(&one));
}

/* An int64 read of a quantity: whether it has one, and which. */
static void check_int64(int *unit_failed, const char *in, bool (*read)(const dra_quantity *, int64_t *), bool ok,
                        int64_t want)
{
    dra_quantity q = must(unit_failed, in);
    int64_t v = 0;
    CHECK_INT(read(&q, &v), ok);
    if (ok)
        CHECK(v == want);
}

/* Quantity.Value() */
/* clang-format off */
#define VALUE(in, ok, want) \
    T_(CAT(value_L, __LINE__)) { check_int64(unit_failed, in, dra_quantity_value, ok, want); }
/* clang-format on */
VALUE("1000m", true, 1)
VALUE("1001m", true, 2)
VALUE("-1001m", true, -2)                /* int64-backed: away from zero */
VALUE("-1.0000000000000000001", true, 0) /* inf.Dec-backed: truncate, +1 */
VALUE("1n", true, 1)
VALUE("9223372036854775807", true, INT64_MAX)
VALUE("9223372036854775808", false, 0)
VALUE("-9223372036854775808", false, 0) /* inf.Dec: unscaled.Int64() wraps */
VALUE("1Pi", true, 1125899906842624)
VALUE("1e20", false, 0)

/* Quantity.Value() through apimachinery v0.37, overflow and all (figures
 * from v0.37.2's Value() on amd64). */
static void check_value_wrapped(int *unit_failed, const char *in, bool as_dec, int64_t want)
{
    dra_quantity q = must(unit_failed, in);
    if (as_dec) {
        dra_quantity dec = must(unit_failed, "100000000000000000000000");
        dra_quantity_cmp_receiver(&q, &dec);
    }
    int64_t got = dra_quantity_value_wrapped(&q);
    if (got != want) {
        fprintf(stderr, "  value_wrapped(%s%s) = %lld, want %lld\n", in, as_dec ? " as inf.Dec" : "", (long long)got,
                (long long)want);
        *unit_failed = 1;
    }
}
/* clang-format off */
#define VALUE_WRAPPED(in, as_dec, want) \
    T_(CAT(value_wrapped_L, __LINE__)) { check_value_wrapped(unit_failed, in, as_dec, want); }
/* clang-format on */
VALUE_WRAPPED("0", false, 0)
VALUE_WRAPPED("1001m", false, 2)
VALUE_WRAPPED("-1001m", false, -2)
VALUE_WRAPPED("-1.5", false, -2)
VALUE_WRAPPED("-1.0000000000000000001", false, 0) /* inf.Dec: truncate, then +1 */
VALUE_WRAPPED("-1.5000000000", false, 0)
VALUE_WRAPPED("-2.5000000000", false, -1)
VALUE_WRAPPED("1.5000000000", false, 2)
VALUE_WRAPPED("9223372036854775807", false, INT64_MAX)
VALUE_WRAPPED("100E", false, 0) /* scale 18: 0 on overflow */
VALUE_WRAPPED("200E", false, 0)
VALUE_WRAPPED("1e19", false, 0)
VALUE_WRAPPED("12.5e19", false, 0)
VALUE_WRAPPED("10E", false, 0)
VALUE_WRAPPED("10000000000G", false, -8446744073709551616) /* scale 9 wraps */
VALUE_WRAPPED("20000000000000000k", false, 1553255926290448384)
VALUE_WRAPPED("-9223372036854775808k", false, 0) /* MinInt64 gives 0 */
VALUE_WRAPPED("9223372036854775807k", false, -1000)
VALUE_WRAPPED("1000000000000000M", false, 3875820019684212736)
VALUE_WRAPPED("9223372036854775808", false, INT64_MIN)
VALUE_WRAPPED("18446744073709551616", false, 0)
VALUE_WRAPPED("36893488147419103232.5", false, 1)
VALUE_WRAPPED("-9223372036854775809", false, -1)
VALUE_WRAPPED("-92233720368547758090", false, -10)
VALUE_WRAPPED("10Ei", false, INT64_MAX) /* binary SI is capped on parse */
VALUE_WRAPPED("1234567890123456789012e-5", false, 12345678901234568)
VALUE_WRAPPED("200E", true, -2914184810805067776) /* 200*10^18 mod 2^64 */
VALUE_WRAPPED("1e19", true, INT64_MIN)            /* int64(math.Pow10(19)) */
VALUE_WRAPPED("3e19", true, INT64_MIN)
VALUE_WRAPPED("2e19", true, 0)

/* AsApproximateFloat64 tables */
static void check_float(int *unit_failed, const char *in, double want)
{
    dra_quantity q = must(unit_failed, in);
    double got = dra_quantity_as_float(&q);
    if (!(got == want || (isnan(want) && isnan(got)))) {
        fprintf(stderr, "  as_float(%s) = %.17g, want %.17g\n", in, got, want);
        *unit_failed = 1;
    }
}
/* clang-format off */
#define FLOAT(in, want) \
    T_(CAT(float_L, __LINE__)) { check_float(unit_failed, in, want); }
/* clang-format on */
FLOAT("0", 0.0)
FLOAT("1", 1.0)
FLOAT("2Ki", 2048)
FLOAT("1.1Ki", 1126.4)
FLOAT("1Mi", 1.048576e+06)
FLOAT("2Gi", 2.147483648e+09)
FLOAT("50.703k", 50703)
FLOAT("734003.2", 7340032 * 0.1)
FLOAT("0.07340032", 7340032 / 100000000.0)
FLOAT("12E", 1.2e19)
FLOAT("9Ei", 9223372036854775807.0)
FLOAT("12e500", INFINITY)
FLOAT("-12e500", -INFINITY)
FLOAT("0e400", NAN)

/* parse -> format -> parse is the identity on values */
T_(round_trip_samples)
{
    static const char *const samples[] = {"1.5Gi", "-0.3",       "123e-5",
                                          "7.5Ti", "1e-9",       "999999999999Ki",
                                          "-8Ei",  "0.000001Mi", "12345678901234567890123456789e20"};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        dra_quantity a = must(unit_failed, samples[i]);
        dra_quantity b = must(unit_failed, str(&a));
        CHECK_INT(dra_quantity_cmp(&a, &b), 0);
        b = must(unit_failed, canon(&a));
        CHECK_INT(dra_quantity_cmp(&a, &b), 0);
    }
}

UNIT_MAIN()

/* Quantity.MilliValue() and NewMilliQuantity (DRAFractionalCapacityRange) */
/* clang-format off */
#define MILLI(in, ok, want) \
    T_(CAT(milli_L, __LINE__)) { check_int64(unit_failed, in, dra_quantity_milli_value, ok, want); }
/* clang-format on */
MILLI("1", true, 1000)
MILLI("250m", true, 250)
MILLI("1.5", true, 1500)
MILLI("1u", true, 1) /* rounded up */
MILLI("0", true, 0)
MILLI("9223372036854775807", false, 0)

/* safeMilliValue: exact milli values only. */
/* clang-format off */
#define MILLI_EXACT(in, ok, want) \
    T_(CAT(milli_exact_L, __LINE__)) { check_int64(unit_failed, in, dra_quantity_milli_exact, ok, want); }
/* clang-format on */
MILLI_EXACT("1.5", true, 1500)
MILLI_EXACT("-2", true, -2000)
MILLI_EXACT("1u", false, 0) /* 1m after rounding: not the same value */
MILLI_EXACT("9223372036854775807", false, 0)
MILLI_EXACT("9223372036854775807m", true, INT64_MAX)

T_(from_milli)
{
    dra_quantity q = dra_quantity_from_milli(750, DRA_QFMT_DECIMAL_SI);
    CHECK_STR(str(&q), "750m");
    q = dra_quantity_from_milli(2000, DRA_QFMT_DECIMAL_SI);
    CHECK_STR(str(&q), "2");
    int64_t v = 0;
    CHECK(dra_quantity_milli_value(&q, &v) && v == 2000);
    q = dra_quantity_from_milli(0, DRA_QFMT_DECIMAL_SI);
    CHECK_STR(str(&q), "0");
}

/* Quantity.AsDec().String() (validValues keys with DRAFractionalCapacityRange):
 * the representation's unscaled integer and scale as inf.Dec prints them. */
static void check_dec(int *unit_failed, const char *in, const char *want)
{
    dra_quantity q = must(unit_failed, in);
    char buf[DRA_QUANTITY_DECMAX];
    CHECK_STR(dra_quantity_dec_string(&q, buf), want);
}
/* clang-format off */
#define DEC(in, want) \
    T_(CAT(dec_L, __LINE__)) { check_dec(unit_failed, in, want); }
/* clang-format on */
DEC("100m", "0.100")
DEC("1Ki", "1024")
DEC("1024", "1024")
DEC("1Gi", "1073741824")
DEC("1.5", "1.5")
DEC("-250m", "-0.250")
DEC("1k", "1000")
DEC("0", "0")
DEC("9900m", "9.900")

T_(is_fractional)
{
    static const char *yes[] = {"100m", "1.5", "1u", "-0.5", "1001m"};
    static const char *no[] = {"0", "1", "1000m", "1Ki", "10P", "-3", "1e3"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        dra_quantity q = must(unit_failed, yes[i]);
        CHECK(dra_quantity_is_fractional(&q));
    }
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        dra_quantity q = must(unit_failed, no[i]);
        CHECK(!dra_quantity_is_fractional(&q));
    }
}

/* Quantity.UnmarshalJSON trims the white space JSON holds unescaped. */
UNIT_TEST(parse_json_trims_raw_white_space)
{
    static const char *const ok[] = {" 1Gi ",
                                     "\xc2\xa0"
                                     "1",
                                     "2\xe3\x80\x80", "\xe2\x80\xa8 3 \xc2\x85"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        dra_quantity q;
        dra_err *e = dra_quantity_parse_json_rules(ok[i], strlen(ok[i]), DRA_QUANTITY_RULES_137, &q);
        CHECK(e == NULL);
        dra_err_free(e);
    }
    static const char *const bad[] = {"1\t", "\n1", " ", "1 x", "\xc2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        dra_quantity q;
        dra_err *e = dra_quantity_parse_json_rules(bad[i], strlen(bad[i]), DRA_QUANTITY_RULES_137, &q);
        CHECK(e != NULL);
        dra_err_free(e);
    }
    dra_quantity q;
    dra_err *e = dra_quantity_parse_json_rules(" 1500m ", 7, DRA_QUANTITY_RULES_137, &q);
    char buf[DRA_QUANTITY_STRMAX];
    CHECK(e == NULL);
    CHECK_STR(dra_quantity_format(&q, buf), "1500m");
    dra_err_free(e);
}

/* What apimachinery v0.37.2 says of tricky quantities (negative fractions,
 * values past int64, many decimals, exponent forms), row for row as a Go
 * program printed them: Value() and whether it is computed without int64
 * overflow, MilliValue() and the same, String(), AsDec().String() and
 * AsInt64()'s ok.  An inf.Dec-backed negative fraction truncates, then adds
 * one (scale_int.go scaledValue's fast path): "-1.5000000000" is 0. */
struct goq_row {
    const char *in;
    int64_t value;
    bool value_ok;
    int64_t milli;
    bool milli_ok;
    const char *str, *dec;
    bool is_int;
};
/* clang-format off */
#define GOQ(in, v, vok, m, mok, s, d, i) {in, v, vok, m, mok, s, d, i},
static const struct goq_row goq_rows[] = {
    GOQ("-1.5000000000", 0, true, -1500, true, "-1500m", "-1.500000000", false)
    GOQ("-1.5", -2, true, -1500, true, "-1500m", "-1.5", false)
    GOQ("-1.5000000001", 0, true, -1499, true, "-1500000001n", "-1.500000001", false)
    GOQ("-2.5000000000", -1, true, -2500, true, "-2500m", "-2.500000000", false)
    GOQ("1.5000000000", 2, true, 1500, true, "1500m", "1.500000000", false)
    GOQ("-0.5000000000", 1, true, -500, true, "-500m", "-0.500000000", false)
    GOQ("-0.4", -1, true, -400, true, "-400m", "-0.4", false)
    GOQ("-0.5", -1, true, -500, true, "-500m", "-0.5", false)
    GOQ("-1.0000000000000000001", 0, true, -999, true, "-1000000001n", "-1.000000001", false)
    GOQ("-1001m", -2, true, -1001, true, "-1001m", "-1.001", false)
    GOQ("-1.5m", -1, true, -2, true, "-1500u", "-0.0015", false)
    GOQ("-1.5001m", -1, true, -2, true, "-1500100n", "-0.0015001", false)
    GOQ("-0.0000000001", 1, true, 1, true, "-1n", "-0.000000001", false)
    GOQ("-1n", -1, true, -1, true, "-1n", "-0.000000001", false)
    GOQ("-1.5n", 1, true, 1, true, "-2n", "-0.000000002", false)
    GOQ("1.5n", 1, true, 1, true, "2n", "0.000000002", false)
    GOQ("-1.25", -2, true, -1250, true, "-1250m", "-1.25", false)
    GOQ("-123456789012345678.5", 1055827309, false, 1055827308903, false, "-123456789012345678500m", "-123456789012345678.500000000", false)
    GOQ("123456789012345678.5", 123456789012345679, true, -5670419503621182812, false, "123456789012345678500m", "123456789012345678.500000000", false)
    GOQ("-12345678901234567890", -5097733591, false, -5097733592001, false, "-12345678901234567890", "-12345678901234567890.000000000", false)
    GOQ("12345678901234567890", -6101065172474983726, false, 4807115922877858896, false, "12345678901234567890", "12345678901234567890.000000000", false)
    GOQ("9223372036854775807", 9223372036854775807, true, -1000, false, "9223372036854775807", "9223372036854775807.000000000", false)
    GOQ("9223372036854775808", INT64_MIN, false, 0, false, "9223372036854775808", "9223372036854775808.000000000", false)
    GOQ("-9223372036854775808", 0, false, 0, false, "-9223372036854775808", "-9223372036854775808.000000000", false)
    GOQ("-9223372036854775809", -1, false, -1000, false, "-9223372036854775809", "-9223372036854775809.000000000", false)
    GOQ("18446744073709551616", 0, false, 0, false, "18446744073709551616", "18446744073709551616.000000000", false)
    GOQ("1e30", 0, false, 0, false, "1e30", "1000000000000000000000000000000", false)
    GOQ("-1e30", 0, false, 0, false, "-1e30", "-1000000000000000000000000000000", false)
    GOQ("1e-3", 1, true, 1, true, "1e-3", "0.001", false)
    GOQ("-1e-3", -1, true, -1, true, "-1e-3", "-0.001", false)
    GOQ("-1.5e-3", -1, true, -2, true, "-1500e-6", "-0.0015", false)
    GOQ("1.5e-10", 1, true, 1, true, "1e-9", "0.000000001", false)
    GOQ("-1.5e-10", 1, true, 1, true, "-1e-9", "-0.000000001", false)
    GOQ("1.5e3", 1500, true, 1500000, true, "1500", "1500", true)
    GOQ("-1.5e3", -1500, true, -1500000, true, "-1500", "-1500", true)
    GOQ("1.23456789e-1", 1, true, 124, true, "1.23456789e-1", "0.123456789", false)
    GOQ("-1.23456789e-1", -1, true, -124, true, "-1.23456789e-1", "-0.123456789", false)
    GOQ("1.234567891e-1", 1, true, 124, true, "123456790e-9", "0.123456790", false)
    GOQ("-1.234567891e-1", 1, true, -122, true, "-123456790e-9", "-0.123456790", false)
    GOQ("0.1234567891", 1, true, 124, true, "123456790n", "0.123456790", false)
    GOQ("-0.1234567891", 1, true, -122, true, "-123456790n", "-0.123456790", false)
    GOQ("1E3", 1000, true, 1000000, true, "1E3", "1000", true)
    GOQ("1E18", 1000000000000000000, true, 0, false, "1E18", "1000000000000000000", true)
    GOQ("1E19", 0, false, 0, false, "10e18", "10000000000000000000", false)
    GOQ("-1E19", 0, false, 0, false, "-10e18", "-10000000000000000000", false)
    GOQ("9.2233720368547758e18", 9223372036854775800, true, 0, false, "9223372036854775800", "9223372036854775800", true)
    GOQ("1.5Ki", 1536, true, 1536000, true, "1536", "1536.000000000", false)
    GOQ("-1.5Ki", -1536, true, -1536000, true, "-1536", "-1536.000000000", false)
    GOQ("-0.5Ki", -512, true, -512000, true, "-512", "-512.000000000", false)
    GOQ("1Ei", 1152921504606846976, true, INT64_MIN, false, "1Ei", "1152921504606846976.000000000", false)
    GOQ("8Ei", 9223372036854775807, true, -1000, false, "9223372036854775807", "9223372036854775807", false)
    GOQ("-8Ei", -9223372036854775807, true, 1000, false, "-9223372036854775807", "-9223372036854775807", false)
    GOQ("9223372036854775807m", 9223372036854776, true, 9223372036854775807, true, "9223372036854775807m", "9223372036854775.807000000", false)
    GOQ("-9223372036854775807m", 1, false, 1, false, "-9223372036854775807m", "-9223372036854775.807000000", false)
    GOQ("9223372036854775.807k", 9223372036854775807, true, -1000, false, "9223372036854775807", "9223372036854775807.000000000", false)
    GOQ("-1.5k", -1500, true, -1500000, true, "-1500", "-1500", true)
    GOQ("-1.5M", -1500000, true, -1500000000, true, "-1500k", "-1500000", true)
    GOQ("-999999999.999999999", -1000000000, true, -1000000000000, true, "-999999999.999999999", "-999999999.999999999", false)
    GOQ("-999999999999999999.9", 6930898828, false, 6930898827545, false, "-999999999999999999900m", "-999999999999999999.900000000", false)
};
#undef GOQ
/* clang-format on */

T_(go_value_table)
{
    for (size_t i = 0; i < sizeof goq_rows / sizeof *goq_rows; i++) {
        const struct goq_row *r = &goq_rows[i];
        dra_quantity q = must(unit_failed, r->in);
        char b1[DRA_QUANTITY_STRMAX], b2[DRA_QUANTITY_DECMAX];
        int64_t v = 0, m = 0;
        bool vok = dra_quantity_value(&q, &v), mok = dra_quantity_milli_value(&q, &m);
        int64_t w = dra_quantity_value_wrapped(&q);
        const char *s = dra_quantity_format(&q, b1);
        bool isint = dra_quantity_is_int64(&q);
        const char *d = dra_quantity_dec_string(&q, b2);
        if (vok != r->value_ok || (vok && v != r->value) || w != r->value || mok != r->milli_ok ||
            (mok && m != r->milli) || strcmp(s, r->str) != 0 || strcmp(d, r->dec) != 0 || isint != r->is_int) {
            fprintf(stderr,
                    "  %s: value %d/%lld wrapped %lld milli %d/%lld \"%s\" \"%s\" %d, want %d/%lld %d/%lld \"%s\" "
                    "\"%s\" %d\n",
                    r->in, vok, (long long)v, (long long)w, mok, (long long)m, s, d, isint, r->value_ok,
                    (long long)r->value, r->milli_ok, (long long)r->milli, r->str, r->dec, r->is_int);
            *unit_failed = 1;
        }
    }
}
/* ParseQuantity under apimachinery v0.38.0-beta.0 (DRA_QUANTITY_RULES_138):
 * String(), AsDec().String(), AsInt64 ok and AsApproximateFloat64 (%.17g) as
 * that release prints them (a Go program over resource.ParseQuantity). */
/* clang-format off */
static const struct q138_row { const char *in, *str, *dec; bool is_int; const char *flt; } q138_rows[] = {
    {"1234567890123456789", "1234567890123456789", "1234567890123456789", true, "1.2345678901234568e+18"},
    {"-9223372036854775808", "-9223372036854775808", "-9223372036854775808", true, "-9.2233720368547758e+18"},
    {"9223372036854775808", "9223372036854775808", "9223372036854775808", false, "9.2233720368547758e+18"},
    {"1234567890123456789012345678901", "1234567890123456789012345679k", "1234567890123456789012345679000", false, "1.2345678901234568e+30"},
    {"12345678901234567890123456789.01", "12345678901234567890123456790", "12345678901234567890123456790", false, "1.2345678901234568e+28"},
    {"-99999999999999999999999999999.5", "-100e27", "-100000000000000000000000000000", false, "-9.9999999999999991e+28"},
    {"1234567890123456789012345678900000000000000000000000000001", "1234567890123456789012345679e30", "1234567890123456789012345679000000000000000000000000000000", false, "1.2345678901234568e+57"},
    {"0.1234567890123456789012345678901", "123456790n", "0.123456790", false, "0.12345679000000001"},
    {"98765432109876543217.3", "98765432109876543217300m", "98765432109876543217.3", false, "9.8765432109876543e+19"},
    {"1.5", "1500m", "1.5", false, "1.5"},
    {"0.5Ki", "512", "512.0", false, "512"},
    {"1Pi", "1Pi", "1125899906842624", false, "1125899906842624"},
    {"1.23456789012345678901234567890123456789012345678901234567890123456789012345Ki", "1264197519487n", "1264.197519487", false, "1264.1975194870001"},
    {"0.000000000000000000000000000000000000000000000000000000000000000000000000001Ki", "1n", "0.000000001", false, "1.0000000000000001e-09"},
    {"1e-2147483648", NULL, "unable to parse quantity's suffix", false, NULL},
    {"0e-2147483648", NULL, "unable to parse quantity's suffix", false, NULL},
    {"0m", "0", "0.000", false, "0"},
    {"0E-30", "0", "0.000000000000000000000000000000", false, "0"},
    {".0Mi", "0", "0.0", false, "0"},
    {"1000000000000000000000", "1e21", "1000000000000000000000", false, "1e+21"},
    {"123456789012345678901234567890123456789012345678901234567890", "123456789012345678901234567900e30", "123456789012345678901234567900000000000000000000000000000000", false, "1.2345678901234567e+59"},
};
/* clang-format on */

/* An error row has str NULL and the error text in dec. */
T_(parse_rules_138_table)
{
    for (size_t i = 0; i < sizeof q138_rows / sizeof *q138_rows; i++) {
        const struct q138_row *r = &q138_rows[i];
        dra_quantity q;
        dra_err *e = dra_quantity_parse_rules(r->in, strlen(r->in), DRA_QUANTITY_RULES_138, &q);
        if (e || !r->str) {
            if (!e || r->str || strcmp(e->msg, r->dec) != 0) {
                fprintf(stderr, "  %s: error \"%s\", want \"%s\"\n", r->in, e ? e->msg : "", r->str ? "" : r->dec);
                *unit_failed = 1;
            }
            dra_err_free(e);
            continue;
        }
        char b1[DRA_QUANTITY_STRMAX], b2[DRA_QUANTITY_DECMAX], f[32];
        const char *s = dra_quantity_format(&q, b1), *d = dra_quantity_dec_string(&q, b2);
        snprintf(f, sizeof f, "%.17g", dra_quantity_as_float(&q));
        bool isint = dra_quantity_is_int64(&q);
        if (strcmp(s, r->str) != 0 || strcmp(d, r->dec) != 0 || isint != r->is_int || strcmp(f, r->flt) != 0) {
            fprintf(stderr, "  %s: \"%s\" \"%s\" %d %s, want \"%s\" \"%s\" %d %s\n", r->in, s, d, isint, f, r->str,
                    r->dec, r->is_int, r->flt);
            *unit_failed = 1;
        }
    }
}

/* The same texts under 1.37's rules keep their earlier answers: no
 * 29-digit rounding, nano scale, 19 digits on the inf.Dec path. */
T_(parse_rules_137_unchanged)
{
    dra_quantity q;
    char b1[DRA_QUANTITY_STRMAX], b2[DRA_QUANTITY_DECMAX];
    dra_err *e = dra_quantity_parse_rules("1234567890123456789012345678901", 31, DRA_QUANTITY_RULES_137, &q);
    CHECK(e == NULL);
    CHECK_STR(dra_quantity_format(&q, b1), "1234567890123456789012345678901");
    e = dra_quantity_parse_rules("1234567890123456789", 19, DRA_QUANTITY_RULES_137, &q);
    CHECK(e == NULL);
    CHECK(!dra_quantity_is_int64(&q));
    CHECK_STR(dra_quantity_dec_string(&q, b2), "1234567890123456789.000000000");
    e = dra_quantity_parse_rules("0.5Ki", 5, DRA_QUANTITY_RULES_137, &q);
    CHECK(e == NULL);
    CHECK_STR(dra_quantity_dec_string(&q, b2), "512.000000000");
    e = dra_quantity_parse_rules("1e-2147483648", 13, DRA_QUANTITY_RULES_137, &q);
    CHECK(e == NULL);
    CHECK_STR(dra_quantity_format(&q, b1), "1e-9");
    e = dra_quantity_parse_rules("0m", 2, DRA_QUANTITY_RULES_137, &q);
    CHECK(e == NULL);
    CHECK_STR(dra_quantity_dec_string(&q, b2), "0.000");
}

/* A tool's features carry its release's rules: dra_quantity_parse_as
 * reads by them, NULL features by the default release's (1.37). */
T_(parse_as_the_features_release)
{
    dra_quantity q;
    char b[DRA_QUANTITY_STRMAX];
    dra_features f;
    dra_features_release(&f, DRA_RELEASE_1_38);
    CHECK(dra_features_quantity_rules(&f) == DRA_QUANTITY_RULES_138);
    CHECK(dra_quantity_parse_as(&f, "1234567890123456789012345678901", &q) == NULL);
    CHECK_STR(dra_quantity_format(&q, b), "1234567890123456789012345679k");
    CHECK(dra_quantity_parse_as(&f, "1000000000000000001", &q) == NULL);
    CHECK(dra_quantity_is_int64(&q));
    dra_features_release(&f, DRA_RELEASE_1_36);
    CHECK(dra_features_quantity_rules(&f) == DRA_QUANTITY_RULES_137);
    CHECK(dra_features_quantity_rules(NULL) == DRA_QUANTITY_RULES_137);
    CHECK(dra_quantity_parse_as(NULL, "1234567890123456789012345678901", &q) == NULL);
    CHECK_STR(dra_quantity_format(&q, b), "1234567890123456789012345678901");
    CHECK(dra_quantity_parse_as(NULL, "1000000000000000001", &q) == NULL);
    CHECK(!dra_quantity_is_int64(&q));
}

/* Add and Sub of apimachinery v0.38.0-beta.0 (amount.go boundScaleGap,
 * addDecBoundedScale, subDecBoundedScale), as the 1.38 peer's CEL
 * quantity add/sub answers. */
T_(add_rules_138_bound_scale_gap)
{
    dra_quantity a, b, r;
    char b1[DRA_QUANTITY_STRMAX], b2[DRA_QUANTITY_DECMAX];
    CHECK(dra_quantity_parse_rules("1e30", 4, DRA_QUANTITY_RULES_138, &a) == NULL);
    CHECK(dra_quantity_parse_rules("1n", 2, DRA_QUANTITY_RULES_138, &b) == NULL);
    /* 39 orders apart: 1n is rounded up to 10 */
    CHECK(dra_quantity_add_rules(&r, &a, &b, DRA_QUANTITY_RULES_138));
    CHECK_STR(dra_quantity_format(&r, b1), "1000000000000000000000000000010");
    CHECK_STR(dra_quantity_dec_string(&r, b2), "1000000000000000000000000000010");
    CHECK(dra_quantity_sub_rules(&r, &b, &a, DRA_QUANTITY_RULES_138));
    CHECK_STR(dra_quantity_format(&r, b1), "-999999999999999999999999999990");
    /* 1.37 stays exact */
    CHECK(dra_quantity_add_rules(&r, &a, &b, DRA_QUANTITY_RULES_137));
    CHECK_STR(dra_quantity_format(&r, b1), "1000000000000000000000000000000000000001e-9");
    /* 49 orders apart: 50 digits exact, 30 once bounded */
    CHECK(dra_quantity_parse_rules("1e40", 4, DRA_QUANTITY_RULES_138, &a) == NULL);
    CHECK(dra_quantity_add_rules(&r, &a, &b, DRA_QUANTITY_RULES_137));
    CHECK_STR(dra_quantity_format(&r, b1), "10000000000000000000000000000000000000000000000001e-9");
    CHECK(dra_quantity_sub_rules(&r, &a, &b, DRA_QUANTITY_RULES_138));
    CHECK_STR(dra_quantity_format(&r, b1), "9999999999999999999999999999900e9");
    /* on the int64 path nothing is rounded */
    CHECK(dra_quantity_parse_rules("1k", 2, DRA_QUANTITY_RULES_138, &a) == NULL);
    CHECK(dra_quantity_add_rules(&r, &a, &b, DRA_QUANTITY_RULES_138));
    CHECK_STR(dra_quantity_format(&r, b1), "1000000000001n");
    /* a zero operand leaves the other's scale as it is */
    CHECK(dra_quantity_parse_rules("123456789012345678901234567890", 30, DRA_QUANTITY_RULES_138, &a) == NULL);
    CHECK(dra_quantity_parse_rules("0.000", 5, DRA_QUANTITY_RULES_138, &b) == NULL);
    CHECK(dra_quantity_add_rules(&r, &a, &b, DRA_QUANTITY_RULES_138));
    CHECK_STR(dra_quantity_dec_string(&r, b2), "123456789012345678901234567890");
    CHECK(dra_quantity_sub_rules(&r, &b, &a, DRA_QUANTITY_RULES_138));
    CHECK_STR(dra_quantity_dec_string(&r, b2), "-123456789012345678901234567890");
    CHECK(dra_quantity_add_rules(&r, &a, &b, DRA_QUANTITY_RULES_137));
    CHECK_STR(dra_quantity_dec_string(&r, b2), "123456789012345678901234567890.000");
}
