/* Semantic versions: blang/semver/v4 Parse and Compare behaviour, the
 * Kubernetes CEL library's normalize variant (semverlib.go and
 * semver_test.go in k8s.io/apiserver/pkg/cel/library), and the API server's
 * `version` attribute regex.  Every table row is its own test. */
#include "model/semver.h"
#include "unit.h"

#define T_(name) UNIT_TEST(name)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

static const char *fmt(const dra_semver *v)
{
    static char buf[3 * 21 + DRA_SEMVER_MAX + 3];
    return dra_semver_format(v, buf, sizeof buf);
}

static void check_ok(int *unit_failed, const char *in, bool normalize, const char *want)
{
    dra_semver v;
    dra_err *e = normalize ? dra_semver_parse_normalize(in, strlen(in), &v) : dra_semver_parse(in, strlen(in), &v);
    if (e) {
        fprintf(stderr, "  parse(\"%s\"): %s\n", in, e->msg);
        *unit_failed = 1;
        dra_err_free(e);
        return;
    }
    CHECK_STR(fmt(&v), want);
    /* formatting gives a strict version equal to the original */
    dra_semver again;
    const char *text = fmt(&v);
    e = dra_semver_parse(text, strlen(text), &again);
    CHECK(e == NULL);
    dra_err_free(e);
    if (!e)
        CHECK_INT(dra_semver_cmp(&v, &again), 0);
}

static void check_err(int *unit_failed, const char *in, size_t len, bool normalize, const char *msg)
{
    dra_semver v;
    dra_err *e = normalize ? dra_semver_parse_normalize(in, len, &v) : dra_semver_parse(in, len, &v);
    CHECK(e != NULL);
    if (e) {
        CHECK_STR(e->msg, msg);
        CHECK_INT(e->code, DRA_EXIT_INPUT);
    }
    dra_err_free(e);
}

#define OK(in, want)                                                                                                   \
    T_(CAT(parse_L, __LINE__))                                                                                         \
    {                                                                                                                  \
        check_ok(unit_failed, in, false, want);                                                                        \
    }
#define NORM(in, want)                                                                                                 \
    T_(CAT(normalize_L, __LINE__))                                                                                     \
    {                                                                                                                  \
        check_ok(unit_failed, in, true, want);                                                                         \
    }
#define BAD(in, msg)                                                                                                   \
    T_(CAT(invalid_L, __LINE__))                                                                                       \
    {                                                                                                                  \
        check_err(unit_failed, in, strlen(in), false, msg);                                                            \
    }
#define NBAD(in, msg)                                                                                                  \
    T_(CAT(normalize_invalid_L, __LINE__))                                                                             \
    {                                                                                                                  \
        check_err(unit_failed, in, strlen(in), true, msg);                                                             \
    }

/* strict parse: valid */
OK("1.2.3", "1.2.3")
OK("0.0.0", "0.0.0")
OK("1.2.3-beta.1+build.1", "1.2.3-beta.1+build.1")
OK("1.2.3-alpha", "1.2.3-alpha")
OK("1.2.3-0.3.7", "1.2.3-0.3.7")
OK("1.0.0-x.7.z.92", "1.0.0-x.7.z.92")
OK("1.0.0-x-y-z.--", "1.0.0-x-y-z.--")
OK("1.0.0+20130313144700", "1.0.0+20130313144700")
OK("1.0.0-beta+exp.sha.5114f85", "1.0.0-beta+exp.sha.5114f85")
OK("1.0.0+21AF26D3----117B344092BD", "1.0.0+21AF26D3----117B344092BD")
OK("1.2.3-01a", "1.2.3-01a")
OK("1.2.3+001", "1.2.3+001")
OK("1.2.3-a+b-c", "1.2.3-a+b-c")
OK("18446744073709551615.0.0", "18446744073709551615.0.0")
OK("1.2.3-18446744073709551615", "1.2.3-18446744073709551615")

/* strict parse: invalid, with blang's messages */
BAD("", "Version string empty")
BAD("1", "No Major.Minor.Patch elements found")
BAD("1.1", "No Major.Minor.Patch elements found")
BAD("v1.0", "No Major.Minor.Patch elements found")
BAD("v1.0.0", "Invalid character(s) found in major number \"v1\"")
BAD(" 1.0.0", "Invalid character(s) found in major number \" 1\"")
BAD("1. 0.0", "Invalid character(s) found in minor number \" 0\"")
BAD("1.0.0 ", "Invalid character(s) found in patch number \"0 \"")
BAD("01.01.01", "Major number must not contain leading zeroes \"01\"")
BAD("1.01.1", "Minor number must not contain leading zeroes \"01\"")
BAD("1.1.01", "Patch number must not contain leading zeroes \"01\"")
BAD("0.0.1NaN", "Invalid character(s) found in patch number \"1NaN\"")
BAD("1.2.3.4", "Invalid character(s) found in patch number \"3.4\"")
BAD("1..3", "strconv.ParseUint: parsing \"\": invalid syntax")
BAD(".2.3", "strconv.ParseUint: parsing \"\": invalid syntax")
BAD("1.2.-x", "strconv.ParseUint: parsing \"\": invalid syntax")
BAD("18446744073709551616.0.0", "strconv.ParseUint: parsing \"18446744073709551616\": value out of range")
BAD("0.0.1-", "Prerelease is empty")
BAD("0.0.1-a..b", "Prerelease is empty")
BAD("0.0.1-01", "Numeric PreRelease version must not contain leading zeroes \"01\"")
BAD("0.0.1-@", "Invalid character(s) found in prerelease \"@\"")
BAD("0.0.1-99999999999999999999", "strconv.ParseUint: parsing \"99999999999999999999\": value out of range")
BAD("0.0.1+", "Build meta data is empty")
BAD("0.0.1+a.", "Build meta data is empty")
BAD("0.0.1+a+b", "Invalid character(s) found in build meta data \"a+b\"")
BAD("0.0.1-a_b", "Invalid character(s) found in prerelease \"a_b\"")
BAD("1.0.0-\"\\\n\xc3\xa9\xff", "Invalid character(s) found in prerelease \"\\\"\\\\\\n\xc3\xa9\\xff\"")
BAD("200K", "No Major.Minor.Patch elements found")
T_(invalid_embedded_nul)
{
    check_err(unit_failed, "1.0.0\0", 6, false, "Invalid character(s) found in patch number \"0\\x00\"");
}

T_(invalid_too_long)
{
    char buf[400];
    strcpy(buf, "1.0.0-");
    memset(buf + 6, 'a', 300);
    buf[306] = '\0';
    check_err(unit_failed, buf, strlen(buf), false, "version pre-release and build metadata longer than 256 bytes");
    buf[6 + 256] = '\0'; /* exactly 256 bytes of pre-release is kept */
    dra_semver v;
    dra_err *e = dra_semver_parse(buf, strlen(buf), &v);
    CHECK(e == NULL);
    dra_err_free(e);
    if (!e)
        CHECK_STR(fmt(&v), buf);
}

/* normalize (semver(s, true)) */
NORM("v1.0.0", "1.0.0")
NORM("1.0", "1.0.0")
NORM("1", "1.0.0")
NORM("01.01.01", "1.1.1")
NORM("v01.01", "1.1.0")
NORM("1.2.003-alpha+01", "1.2.3-alpha+01")
NORM("00.0.0", "0.0.0")
NORM("1.2.0-0", "1.2.0-0")
NORM("1.2.00-x", "1.2.0-x")
NORM("1.2.3", "1.2.3")
NBAD("", "strconv.ParseUint: parsing \"\": invalid syntax")
NBAD("v", "strconv.ParseUint: parsing \"\": invalid syntax")
NBAD(" 1.0.0", "Invalid character(s) found in major number \"0 1\"") /* "0" prepended to a non-digit part */
NBAD("1. 0.0", "Invalid character(s) found in minor number \"0 0\"")
NBAD("1.0.0 ", "Invalid character(s) found in patch number \"0 \"")
NBAD("1.2-alpha", "short version cannot contain PreRelease/Build meta data")
NBAD("1+b", "short version cannot contain PreRelease/Build meta data")
NBAD("vv1.0.0", "Invalid character(s) found in major number \"0v1\"")
NBAD("0a.1.2", "Invalid character(s) found in major number \"0a\"")

/* precedence, SemVer 2.0.0 section 11 */
static void check_cmp(int *unit_failed, const char *a, const char *b, int want)
{
    dra_semver va, vb;
    dra_err *ea = dra_semver_parse(a, strlen(a), &va), *eb = dra_semver_parse(b, strlen(b), &vb);
    CHECK(ea == NULL && eb == NULL);
    if (!ea && !eb) {
        CHECK_INT(dra_semver_cmp(&va, &vb), want);
        CHECK_INT(dra_semver_cmp(&vb, &va), -want);
    }
    dra_err_free(ea);
    dra_err_free(eb);
}
#define CMP(a, b, want)                                                                                                \
    T_(CAT(cmp_L, __LINE__))                                                                                           \
    {                                                                                                                  \
        check_cmp(unit_failed, a, b, want);                                                                            \
    }
CMP("1.2.3", "1.2.3", 0)
CMP("1.0.0", "1.2.3", -1)
CMP("1.2.3", "1.0.0", 1)
CMP("1.0.0", "2.0.0", -1)
CMP("2.0.0", "2.1.0", -1)
CMP("2.1.0", "2.1.1", -1)
CMP("1.0.0-alpha", "1.0.0", -1)
CMP("1.0.0-alpha", "1.0.0-alpha.1", -1)
CMP("1.0.0-alpha.1", "1.0.0-alpha.beta", -1)
CMP("1.0.0-alpha.beta", "1.0.0-beta", -1)
CMP("1.0.0-beta", "1.0.0-beta.2", -1)
CMP("1.0.0-beta.2", "1.0.0-beta.11", -1)
CMP("1.0.0-beta.11", "1.0.0-rc.1", -1)
CMP("1.0.0-rc.1", "1.0.0", -1)
CMP("1.0.0+build.1", "1.0.0+build.2", 0)
CMP("1.0.0-1", "1.0.0-a", -1)
CMP("1.0.0-A", "1.0.0-a", -1)
CMP("1.0.0-ab", "1.0.0-abc", -1)
CMP("18446744073709551615.0.0", "18446744073709551614.9.9", 1)

/* the API server's regex and length limit for the `version` attribute */
static void check_attr(int *unit_failed, const char *in, bool want)
{
    CHECK_INT(dra_semver_valid_attribute(in, strlen(in)), want);
}
#define ATTR(in, want)                                                                                                 \
    T_(CAT(attribute_L, __LINE__))                                                                                     \
    {                                                                                                                  \
        check_attr(unit_failed, in, want);                                                                             \
    }
ATTR("1.2.3", true)
ATTR("0.0.0", true)
ATTR("1.2.3-alpha.1+build.20240305", true)
ATTR("1.0.0-x-y-z.--", true)
ATTR("1.0.0-01a", true)
ATTR("1.0.0+001", true)
ATTR("99999999999999999999.0.0", true)
ATTR("1.2", false)
ATTR("v1.2.3", false)
ATTR("01.2.3", false)
ATTR("1.2.3-01", false)
ATTR("1.2.3-", false)
ATTR("1.2.3+", false)
ATTR("1.2.3-a..b", false)
ATTR("1.2.3+a+b", false)
ATTR("1.2.3 ", false)
ATTR("1.2.3-a_b", false)
ATTR("", false)
ATTR("1.2.3-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", true)   /* 64 bytes */
ATTR("1.2.3-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false) /* 65 bytes */

T_(attribute_regex_ignores_length)
{
    const char *s = "1.2.3-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    CHECK(dra_semver_matches_regex(s, strlen(s)));
    CHECK(!dra_semver_valid_attribute(s, strlen(s)));
    CHECK(!dra_semver_matches_regex("1.2.3\0", 6));
}

/* 1.38's numericIdentifier (0|[1-9]\d{0,17}), also for all-digit pre-release identifiers */
T_(attribute_regex_18_digits)
{
    const size_t d = DRA_SEMVER_MAX_DIGITS_1_38;
#define RX(s) dra_semver_matches_regex_digits(s, strlen(s), d)
    CHECK(RX("123456789012345678.0.0"));
    CHECK(!RX("1234567890123456789.0.0"));
    CHECK(!RX("1.1234567890123456789.0"));
    CHECK(!RX("1.0.1234567890123456789"));
    CHECK(RX("1.0.0-123456789012345678"));
    CHECK(!RX("1.0.0-1234567890123456789"));
    CHECK(RX("1.0.0-a234567890123456789"));     /* not all digits */
    CHECK(RX("1.0.0+12345678901234567890123")); /* build metadata is not bounded */
    CHECK(!RX("01.0.0"));
#undef RX
    CHECK(dra_semver_matches_regex("1234567890123456789.0.0", 23));
}

T_(format_truncates)
{
    dra_semver v;
    dra_err *e = dra_semver_parse("10.20.30-rc.1+b", 15, &v);
    CHECK(e == NULL);
    dra_err_free(e);
    char small[8];
    CHECK_STR(dra_semver_format(&v, small, sizeof small), "10.20.3");
    CHECK(v.major == 10 && v.minor == 20 && v.patch == 30);
}

UNIT_MAIN()
