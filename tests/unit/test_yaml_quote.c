/* YAML output quotes a string exactly when kubectl -o yaml does.  The table
 * is what sigs.k8s.io/yaml v1.6.0's Marshal (go.yaml.in/yaml/v2 v2.4.2)
 * printed for {"k": s}: the hand-picked timestamps, base-60 floats, YAML 1.1
 * booleans and numbers, and a sample of 22,400 random strings over
 * "0123456789-+.:_eExXoObBtTzZ " and date-like strings, all of which agree. */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/stream.h"
#include "io/yaml_resolve.h"
#include "unit.h"

static const struct {
    const char *s, *yaml;
} cases[] = {
    /* clang-format off */
    {"2026-01-02T03:04:05Z", "k: \"2026-01-02T03:04:05Z\"\n"},
    {"2026-1-2", "k: \"2026-1-2\"\n"},
    {"2026-01-02", "k: \"2026-01-02\"\n"},
    {"2026-01-02 03:04:05", "k: \"2026-01-02 03:04:05\"\n"},
    {"2026-01-02t03:04:05z", "k: 2026-01-02t03:04:05z\n"},
    {"2026-01-02T03:04:05.123456789+01:00", "k: \"2026-01-02T03:04:05.123456789+01:00\"\n"},
    {"2026-13-02", "k: 2026-13-02\n"},
    {"2026-02-30", "k: 2026-02-30\n"},
    {"2026-02-29", "k: 2026-02-29\n"},
    {"2024-02-29", "k: \"2024-02-29\"\n"},
    {"0001-01-01", "k: \"0001-01-01\"\n"},
    {"9999-12-31T23:59:59Z", "k: \"9999-12-31T23:59:59Z\"\n"},
    {"2026-01-02T3:4:5Z", "k: \"2026-01-02T3:4:5Z\"\n"},
    {"2026-01-02T03:04:05", "k: 2026-01-02T03:04:05\n"},
    {"2026-01-02T03:04:05+0100", "k: 2026-01-02T03:04:05+0100\n"},
    {"2026-01-02 03:04:05.5", "k: \"2026-01-02 03:04:05.5\"\n"},
    {"2026-01-02 03:04:05 +01:00", "k: 2026-01-02 03:04:05 +01:00\n"},
    {"12026-01-02", "k: 12026-01-02\n"},
    {"226-01-02", "k: 226-01-02\n"},
    {"2026-1-2x", "k: 2026-1-2x\n"},
    {"2026-01-02T24:00:00Z", "k: 2026-01-02T24:00:00Z\n"},
    {"1:20", "k: \"1:20\"\n"},
    {"190:20:30.15", "k: \"190:20:30.15\"\n"},
    {"-1:20", "k: \"-1:20\"\n"},
    {"+1:20", "k: \"+1:20\"\n"},
    {"1:60", "k: 1:60\n"},
    {"1:5", "k: \"1:5\"\n"},
    {"1_0:20", "k: \"1_0:20\"\n"},
    {"1:20.", "k: \"1:20.\"\n"},
    {"1:20.5_", "k: \"1:20.5_\"\n"},
    {"a:1", "k: a:1\n"},
    {"1:2:3", "k: \"1:2:3\"\n"},
    {"0:0", "k: \"0:0\"\n"},
    {"y", "k: \"y\"\n"},
    {"Y", "k: \"Y\"\n"},
    {"yes", "k: \"yes\"\n"},
    {"n", "k: \"n\"\n"},
    {"NO", "k: \"NO\"\n"},
    {"on", "k: \"on\"\n"},
    {"Off", "k: \"Off\"\n"},
    {"yEs", "k: yEs\n"},
    {"nO", "k: nO\n"},
    {"true", "k: \"true\"\n"},
    {"tRue", "k: tRue\n"},
    {"null", "k: \"null\"\n"},
    {"~", "k: \"~\"\n"},
    {"", "k: \"\"\n"},
    {".inf", "k: \".inf\"\n"},
    {".nan", "k: \".nan\"\n"},
    {".nAn", "k: .nAn\n"},
    {"inf", "k: inf\n"},
    {"NaN", "k: NaN\n"},
    {"<<", "k: <<\n"},
    {"0x1F", "k: \"0x1F\"\n"},
    {"0o17", "k: \"0o17\"\n"},
    {"0b101", "k: \"0b101\"\n"},
    {"-0b101", "k: \"-0b101\"\n"},
    {"017", "k: \"017\"\n"},
    {"08", "k: \"08\"\n"},
    {"1_000", "k: \"1_000\"\n"},
    {"1__0", "k: \"1__0\"\n"},
    {"_1", "k: _1\n"},
    {"1_", "k: \"1_\"\n"},
    {"0x_1F", "k: \"0x_1F\"\n"},
    {"0x1p-2", "k: 0x1p-2\n"},
    {"1e3", "k: \"1e3\"\n"},
    {"1.5e-3", "k: \"1.5e-3\"\n"},
    {".5", "k: \".5\"\n"},
    {"._36", "k: ._36\n"},
    {"5.", "k: \"5.\"\n"},
    {"1.", "k: \"1.\"\n"},
    {"1e", "k: 1e\n"},
    {"e3", "k: e3\n"},
    {"-", "k: '-'\n"},
    {"+", "k: +\n"},
    {".", "k: .\n"},
    {"1.2.3", "k: 1.2.3\n"},
    {"9223372036854775807", "k: \"9223372036854775807\"\n"},
    {"9223372036854775808", "k: \"9223372036854775808\"\n"},
    {"18446744073709551616", "k: \"18446744073709551616\"\n"},
    {"1e400", "k: 1e400\n"},
    {"-0", "k: \"-0\"\n"},
    {"1 ", "k: '1 '\n"},
    {" 1", "k: ' 1'\n"},
    {"#x", "k: '#x'\n"},
    {"- x", "k: '- x'\n"},
    {"x: y", "k: 'x: y'\n"},
    {"2381-12-3", "k: \"2381-12-3\"\n"},
    {"6493-1-15", "k: \"6493-1-15\"\n"},
    {"599", "k: \"599\"\n"},
    {"1215-7-10", "k: \"1215-7-10\"\n"},
    {"4", "k: \"4\"\n"},
    {"6614-3-21", "k: \"6614-3-21\"\n"},
    {"5163-12-21", "k: \"5163-12-21\"\n"},
    {"6889-9-17", "k: \"6889-9-17\"\n"},
    {"6372-10-1", "k: \"6372-10-1\"\n"},
    {"0501-5-16", "k: \"0501-5-16\"\n"},
    {"6630-8-7 19:38:45", "k: \"6630-8-7 19:38:45\"\n"},
    {"-97", "k: \"-97\"\n"},
    {"9416-2-20T9:7:40+01:00", "k: \"9416-2-20T9:7:40+01:00\"\n"},
    {"5079-6-30", "k: \"5079-6-30\"\n"},
    {"2648-3-21", "k: \"2648-3-21\"\n"},
    {"6022-11-25", "k: \"6022-11-25\"\n"},
    {"2339-1-4", "k: \"2339-1-4\"\n"},
    {"1923-12-12", "k: \"1923-12-12\"\n"},
    {"7875-7-18", "k: \"7875-7-18\"\n"},
    {"51", "k: \"51\"\n"},
    {"5952-8-25", "k: \"5952-8-25\"\n"},
    {"94", "k: \"94\"\n"},
    {"6014-7-3T14:30:4+01:00", "k: \"6014-7-3T14:30:4+01:00\"\n"},
    {"5185-3-27 22:35:28", "k: \"5185-3-27 22:35:28\"\n"},
    {"4282-5-17", "k: \"4282-5-17\"\n"},
    {"7022-6-28", "k: \"7022-6-28\"\n"},
    {"9742-12-31", "k: \"9742-12-31\"\n"},
    {"1427-8-9", "k: \"1427-8-9\"\n"},
    {"2313-1-1", "k: \"2313-1-1\"\n"},
    {"6_", "k: \"6_\"\n"},
    {"1440-7-8 23:38:26", "k: \"1440-7-8 23:38:26\"\n"},
    {"9826-12-3 3:23:40", "k: \"9826-12-3 3:23:40\"\n"},
    {"5768-2-17", "k: \"5768-2-17\"\n"},
    {"4222-12-19", "k: \"4222-12-19\"\n"},
    {"8178-7-4", "k: \"8178-7-4\"\n"},
    {".2", "k: \".2\"\n"},
    {"7376-7-30t5:36:38Z", "k: \"7376-7-30t5:36:38Z\"\n"},
    {"8691-7-15", "k: \"8691-7-15\"\n"},
    {"0492-2-25", "k: \"0492-2-25\"\n"},
    {"1535-7-24", "k: \"1535-7-24\"\n"},
    {"842255", "k: \"842255\"\n"},
    {"6482-7-15", "k: \"6482-7-15\"\n"},
    {"0207-4-23", "k: \"0207-4-23\"\n"},
    {"3125-12-25", "k: \"3125-12-25\"\n"},
    {"8718-11-5", "k: \"8718-11-5\"\n"},
    {"0082-12-1", "k: \"0082-12-1\"\n"},
    {"9218-10-28", "k: \"9218-10-28\"\n"},
    {"9796-6-13", "k: \"9796-6-13\"\n"},
    {"2788-2-17", "k: \"2788-2-17\"\n"},
    {"5147-11-8", "k: \"5147-11-8\"\n"},
    {"6509-1-12", "k: \"6509-1-12\"\n"},
    {"7912-6-15", "k: \"7912-6-15\"\n"},
    {"9980-1-27", "k: \"9980-1-27\"\n"},
    {"4199-8-8", "k: \"4199-8-8\"\n"},
    {"7830-8-29", "k: \"7830-8-29\"\n"},
    {"8822-9-28", "k: \"8822-9-28\"\n"},
    {"4625-10-11", "k: \"4625-10-11\"\n"},
    {"4263-4-29", "k: \"4263-4-29\"\n"},
    {"7_", "k: \"7_\"\n"},
    {"8983-7-17", "k: \"8983-7-17\"\n"},
    {"Zob1e", "k: Zob1e\n"},
    {"2_1+9TXZ t", "k: 2_1+9TXZ t\n"},
    {"EBT", "k: EBT\n"},
    {"1143-4-16 25:39:29-0530", "k: 1143-4-16 25:39:29-0530\n"},
    {"-+2", "k: -+2\n"},
    {"2o03-ee", "k: 2o03-ee\n"},
    {"eO-3_-b:.", "k: eO-3_-b:.\n"},
    {"6633-0-22", "k: 6633-0-22\n"},
    {"81t", "k: 81t\n"},
    {"Z8O97T:z", "k: Z8O97T:z\n"},
    {":-", "k: :-\n"},
    {"XE5o5b:", "k: 'XE5o5b:'\n"},
    {"o5Be-", "k: o5Be-\n"},
    {"OObxT2X", "k: OObxT2X\n"},
    {"Be2XB0bO1zB", "k: Be2XB0bO1zB\n"},
    {"tt0EO6+E1", "k: tt0EO6+E1\n"},
    {"TeExX.0", "k: TeExX.0\n"},
    {"7..", "k: 7..\n"},
    {"B-Z8e:X", "k: B-Z8e:X\n"},
    {"+OO+E Z_B", "k: +OO+E Z_B\n"},
    {"9149-0-15", "k: 9149-0-15\n"},
    {"4+-__84o_O4", "k: 4+-__84o_O4\n"},
    {":_998:5O3x ", "k: ':_998:5O3x '\n"},
    {"x4887_", "k: x4887_\n"},
    {"zzX", "k: zzX\n"},
    {"zbzo", "k: zbzo\n"},
    {"1762-8-30t2:52:32", "k: 1762-8-30t2:52:32\n"},
    {"610-:t3 bT:", "k: '610-:t3 bT:'\n"},
    {"8: +9X--:o5", "k: '8: +9X--:o5'\n"},
    {"96 ", "k: '96 '\n"},
    {"256exx", "k: 256exx\n"},
    {".Ob ", "k: '.Ob '\n"},
    {"bx2", "k: bx2\n"},
    {"e 20BT7:9", "k: e 20BT7:9\n"},
    {"0Z:9Z", "k: 0Z:9Z\n"},
    {"B92bX17.t ", "k: 'B92bX17.t '\n"},
    {".bZB_2_.1", "k: .bZB_2_.1\n"},
    {"X eBb2Bzz3::", "k: 'X eBb2Bzz3::'\n"},
    {"37OOX1XX.1", "k: 37OOX1XX.1\n"},
    {"+0 0+ :", "k: '+0 0+ :'\n"},
    {"-.INF", "k: \"-.INF\"\n"},
    {".3_6", "k: \".3_6\"\n"},
    {".36_", "k: .36_\n"},
    {".3__6", "k: .3__6\n"},
    {".3e1_0", "k: \".3e1_0\"\n"},
    {"abc", "k: abc\n"},
    /* clang-format on */
};

UNIT_TEST(quotes_as_kubectl)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *o = json_pack("{ss}", "k", cases[i].s);
        char *y = dra_yaml_dump(o);
        if (strcmp(y, cases[i].yaml) != 0)
            fprintf(stderr, "  string \"%s\": got %s  want %s", cases[i].s, y, cases[i].yaml);
        CHECK_STR(y, cases[i].yaml);
        free(y);
        json_decref(o);
    }
}

UNIT_TEST(reads_quoted_back_as_strings)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *o = json_pack("{ss}", "k", cases[i].s);
        char *y = dra_yaml_dump(o);
        dra_objset set = {0};
        dra_err *e = dra_read_mem(&set, "t.yaml", y, strlen(y));
        CHECK(e == NULL);
        if (!e && set.n == 1)
            CHECK(json_equal(set.v[0].json, o));
        dra_err_free(e);
        dra_objset_free(&set);
        free(y);
        json_decref(o);
    }
}

/* The writer's test as it was made before dra_yaml_plain_kind: the JSON
 * value go-yaml v2's rules give a plain scalar, built and then asked for
 * its type.  Kept here as the oracle of the differential test below. */
static bool oracle_in(const char *s, const char *set)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!strchr(set, *s))
            return false;
    return true;
}

static bool oracle_word(const char *s, const char *const *w)
{
    for (; *w; w++)
        if (strcmp(s, *w) == 0)
            return true;
    return false;
}

static json_t *oracle_resolve(const char *s, bool *special)
{
    static const char *const words[] = {"y",   "Y",   "yes", "Yes", "YES",  "true", "True",  "TRUE",  "on",    "On",
                                        "ON",  "n",   "N",   "no",  "No",   "NO",   "false", "False", "FALSE", "off",
                                        "Off", "OFF", "",    "~",   "null", "Null", "NULL",  NULL};
    static const char *const specials[] = {".inf",  ".Inf",  ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
                                           "-.Inf", "-.INF", ".nan", ".NaN",  ".NAN",  NULL};
    *special = false;
    char c = s[0];
    if (c && !strchr("~nNyYtTfFoO.+-0123456789", c))
        return json_string(s);
    if (oracle_word(s, words))
        return json_null();
    if (oracle_word(s, specials)) {
        *special = true;
        return NULL;
    }
    if (!(isdigit((unsigned char)c) || c == '-' || c == '+' || c == '.'))
        return json_string(s);
    if (c == '.')
        for (const char *p = strchr(s, '_'); p; p = strchr(p + 1, '_'))
            if (p == s || !isdigit((unsigned char)p[-1]) || !isdigit((unsigned char)p[1]))
                return json_string(s);
    char tmp[128];
    size_t n = 0;
    for (const char *p = s; *p && n + 1 < sizeof tmp; p++)
        if (*p != '_')
            tmp[n++] = *p;
    if (strlen(s) >= sizeof tmp)
        return json_string(s);
    tmp[n] = '\0';
    const char *body = tmp + (tmp[0] == '-' || tmp[0] == '+');
    bool neg = tmp[0] == '-';
    int base = 10;
    const char *digits = body;
    if (body[0] == '0' && (body[1] == 'x' || body[1] == 'X') && oracle_in(body + 2, "0123456789abcdefABCDEF"))
        base = 16, digits = body + 2;
    else if (body[0] == '0' && (body[1] == 'o' || body[1] == 'O') && oracle_in(body + 2, "01234567"))
        base = 8, digits = body + 2;
    else if (body[0] == '0' && (body[1] == 'b' || body[1] == 'B') && oracle_in(body + 2, "01"))
        base = 2, digits = body + 2;
    else if (body[0] == '0' && body[1] && oracle_in(body + 1, "01234567"))
        base = 8, digits = body + 1;
    else if (!oracle_in(body, "0123456789"))
        base = 0;
    if (base) {
        errno = 0;
        unsigned long long u = strtoull(digits, NULL, base);
        if (errno == 0 && (neg ? u <= (unsigned long long)INT64_MAX + 1 : u <= (unsigned long long)INT64_MAX))
            return json_integer(neg ? (json_int_t)(0 - u) : (json_int_t)u);
        if (errno == 0 && tmp[0] != '-' && tmp[0] != '+')
            return json_real((double)u);
    }
    const char *p = body;
    bool mant = false;
    while (isdigit((unsigned char)*p))
        p++, mant = true;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p))
            p++, mant = true;
    }
    if (!mant)
        return json_string(s);
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '-' || *p == '+')
            p++;
        if (!isdigit((unsigned char)*p))
            return json_string(s);
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p || !isfinite(strtod(tmp, NULL)))
        return json_string(s);
    return json_real(strtod(tmp, NULL));
}

static bool oracle_not_string(const char *s)
{
    bool special;
    json_t *v = oracle_resolve(s, &special);
    bool changes = special || !json_is_string(v);
    json_decref(v);
    return changes;
}

static size_t differ(const char *s)
{
    if (oracle_not_string(s) == (dra_yaml_plain_kind(s) != DRA_YAML_PLAIN_STRING))
        return 0;
    fprintf(stderr, "  \"%s\": the classifier and the oracle disagree\n", s);
    return 1;
}

/* Every string of up to four characters over the characters numbers,
 * booleans and nulls are made of, the table's strings, and long numbers:
 * the classifier that allocates nothing answers as the JSON value did. */
UNIT_TEST(classifier_agrees_with_json_values)
{
    static const char alphabet[] = "019-+._eExXoObBnNyYfF~ a";
    const size_t k = sizeof alphabet - 1;
    size_t bad = 0, tried = 0;
    char s[8];
    for (size_t len = 0; len <= 4; len++) {
        size_t total = 1;
        for (size_t i = 0; i < len; i++)
            total *= k;
        for (size_t x = 0; x < total; x++, tried++) {
            size_t r = x;
            for (size_t i = 0; i < len; i++, r /= k)
                s[i] = alphabet[r % k];
            s[len] = '\0';
            bad += differ(s);
        }
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++, tried++)
        bad += differ(cases[i].s);
    static const char *const more[] = {"9223372036854775807",
                                       "9223372036854775808",
                                       "-9223372036854775808",
                                       "-9223372036854775809",
                                       "18446744073709551615",
                                       "18446744073709551616",
                                       "0x8000000000000000",
                                       "0xFFFFFFFFFFFFFFFFF",
                                       "0o1777777777777777777777",
                                       "0b1"
                                       "000000000000000000000000000000000000000000000000000000000000000",
                                       "1e308",
                                       "1e309",
                                       "-1e309",
                                       "1_000_000",
                                       "1__0",
                                       "_1",
                                       ".1_",
                                       "+.5",
                                       "yes",
                                       "On",
                                       "NULL",
                                       "nulL",
                                       ".NaN",
                                       ".nAn",
                                       "+.INF",
                                       NULL};
    for (size_t i = 0; more[i]; i++, tried++)
        bad += differ(more[i]);
    char big[200];
    memset(big, '7', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    for (size_t cut = 100; cut < sizeof big; cut += 9, tried++) {
        big[cut] = '\0';
        bad += differ(big);
        big[cut] = '7';
    }
    CHECK(tried > 250000);
    CHECK_INT(bad, 0);
}

UNIT_MAIN()
