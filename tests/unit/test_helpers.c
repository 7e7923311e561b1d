/* The one-copy helpers of base/: UTF-8, Go quoting, FNV-1a, the string map. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/utf8.h"
#include "base/problems.h"
#include "model/names.h"
#include "model/pools.h"
#include "model/taints.h"
#include "model/time.h"
#include "unit.h"

static char qbuf[512];
/* Go's strconv.Quote of n bytes at s, in a static buffer. */
static const char *q(const char *s, size_t n)
{
    dra_buf b = DRA_BUF_INIT;
    dra_go_quote(&b, s, n);
    snprintf(qbuf, sizeof qbuf, "%s", dra_buf_str(&b));
    dra_buf_free(&b);
    return qbuf;
}
#define Q(lit) q(lit, sizeof lit - 1)

/* Expected texts follow strconv.Quote: unicode.IsPrint runes as they are,
 * the C escapes, \xNN below U+0080 and for each invalid byte, \uNNNN and
 * \UNNNNNNNN otherwise (lower-case hex). */
UNIT_TEST(go_quote_ascii_and_escapes)
{
    CHECK_STR(Q(""), "\"\"");
    CHECK_STR(Q("abc"), "\"abc\"");
    CHECK_STR(Q("a\"b\\c"), "\"a\\\"b\\\\c\"");
    CHECK_STR(Q("\a\b\f\n\r\t\v"), "\"\\a\\b\\f\\n\\r\\t\\v\"");
    CHECK_STR(Q("\x01\x1f\x7f"), "\"\\x01\\x1f\\x7f\"");
    CHECK_STR(q("a\0b", 3), "\"a\\x00b\"");
    CHECK_STR(Q("'"), "\"'\"");
}

UNIT_TEST(go_quote_non_printable_runes)
{
    /* the example: NBSP (Zs) and ZERO WIDTH SPACE (Cf) */
    CHECK_STR(Q("a\u00a0b\u200b"), "\"a\\u00a0b\\u200b\"");
    CHECK_STR(Q("\xc2\x85"), "\"\\u0085\"");             /* NEL, Cc */
    CHECK_STR(Q("\u00ad"), "\"\\u00ad\"");               /* soft hyphen, Cf */
    CHECK_STR(Q("\u2028\u2029"), "\"\\u2028\\u2029\"");  /* Zl, Zp */
    CHECK_STR(Q("\u3000"), "\"\\u3000\"");               /* ideographic space, Zs */
    CHECK_STR(Q("\ufeff"), "\"\\ufeff\"");               /* BOM, Cf */
    CHECK_STR(Q("\xcd\xb8"), "\"\\u0378\"");             /* unassigned */
    CHECK_STR(Q("\xee\x80\x80"), "\"\\ue000\"");         /* private use, Co */
    CHECK_STR(Q("\U000e0001"), "\"\\U000e0001\"");       /* language tag, Cf */
    CHECK_STR(Q("\xf4\x8f\xbf\xbf"), "\"\\U0010ffff\""); /* noncharacter */
}

UNIT_TEST(go_quote_printable_runes_stay)
{
    CHECK_STR(Q("h\u00e9llo"), "\"h\u00e9llo\"");
    CHECK_STR(Q("e\u0301"), "\"e\u0301\""); /* combining mark, Mn */
    CHECK_STR(Q("\u65e5\u672c"), "\"\u65e5\u672c\"");
    CHECK_STR(Q("\U0001f600"), "\"\U0001f600\"");
    CHECK_STR(Q("\U0001fae8"), "\"\U0001fae8\""); /* new in Unicode 15.0 */
    CHECK_STR(Q("\ufffd"), "\"\ufffd\"");         /* a real U+FFFD prints */
}

UNIT_TEST(go_quote_invalid_utf8)
{
    CHECK_STR(Q("\xff"), "\"\\xff\"");
    CHECK_STR(Q("a\xffz"), "\"a\\xffz\"");
    CHECK_STR(Q("\xc0\x80"), "\"\\xc0\\x80\"");          /* overlong NUL */
    CHECK_STR(Q("\xed\xa0\x80"), "\"\\xed\\xa0\\x80\""); /* surrogate */
    CHECK_STR(Q("\xe2\x82"), "\"\\xe2\\x82\"");          /* truncated */
    CHECK_STR(Q("\xe2\x82z"), "\"\\xe2\\x82z\"");
    CHECK_STR(Q("\xf5\x80\x80\x80"), "\"\\xf5\\x80\\x80\\x80\""); /* past U+10FFFF */
    CHECK_STR(Q("\x80\u00e9"), "\"\\x80\u00e9\"");
}

UNIT_TEST(rune_is_print)
{
    CHECK(dra_rune_is_print(' '));
    CHECK(dra_rune_is_print('~'));
    CHECK(!dra_rune_is_print(0x7f));
    CHECK(!dra_rune_is_print('\t'));
    CHECK(!dra_rune_is_print(0xa0));
    CHECK(dra_rune_is_print(0xa1));
    CHECK(dra_rune_is_print(0x10ffff - 2) == false);
    CHECK(dra_rune_is_print(0x20000)); /* CJK extension B */
    CHECK(!dra_rune_is_print(0xd800));
}

UNIT_TEST(utf8_decode_encode)
{
    uint32_t r = 0;
    CHECK_INT(dra_utf8_decode("", 0, &r), 0);
    CHECK_INT(dra_utf8_decode("A", 1, &r), 1);
    CHECK_INT(r, 'A');
    CHECK_INT(dra_utf8_decode("\u00e9", 2, &r), 2);
    CHECK_INT(r, 0xe9);
    CHECK_INT(dra_utf8_decode("\u20ac", 3, &r), 3);
    CHECK_INT(r, 0x20ac);
    CHECK_INT(dra_utf8_decode("\U0001f600", 4, &r), 4);
    CHECK_INT(r, 0x1f600);
    CHECK_INT(dra_utf8_decode("\u20ac", 2, &r), 0);       /* truncated */
    CHECK_INT(dra_utf8_decode("\xe0\x80\x80", 3, &r), 0); /* overlong */
    CHECK_INT(dra_utf8_decode("\xed\xbf\xbf", 3, &r), 0); /* surrogate */
    char out[4];
    CHECK_INT(dra_utf8_encode(0x1f600, out), 4);
    CHECK(memcmp(out, "\U0001f600", 4) == 0);
    CHECK_INT(dra_utf8_encode(0xe9, out), 2);
    CHECK(memcmp(out, "\u00e9", 2) == 0);
}

UNIT_TEST(utf8_len_offset_valid)
{
    const char *s = "a\u00e9\u20ac\U0001f600 plain ascii tail";
    size_t n = strlen(s);
    CHECK_INT(dra_utf8_len(s, n), 4 + 17);
    CHECK_INT(dra_utf8_offset(s, n, 0), 0);
    CHECK_INT(dra_utf8_offset(s, n, 2), 3);
    CHECK_INT(dra_utf8_offset(s, n, 4), 10);
    CHECK_INT(dra_utf8_offset(s, n, 1000), n);
    CHECK(dra_utf8_valid(s, n));
    CHECK(!dra_utf8_valid("abcdefgh\xff", 9));
    CHECK(!dra_utf8_valid("\xc0\x80", 2));
    CHECK_INT(dra_utf8_len("a\xff\xfe", 3), 3); /* each invalid byte counts one */
}

UNIT_TEST(fnv1a_constants)
{
    /* FNV-1a 64 test vectors from the reference (draft-eastlake-fnv) */
    CHECK(dra_fnv1a(DRA_FNV64_OFFSET, "", 0) == UINT64_C(0xcbf29ce484222325));
    CHECK(dra_fnv1a(DRA_FNV64_OFFSET, "a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
    CHECK(dra_fnv1a_str(DRA_FNV64_OFFSET, "foobar") == UINT64_C(0x85944171f73967e8));
    CHECK(dra_fnv1a(DRA_FNV64_OFFSET, "foobar", 6) == dra_fnv1a_str(DRA_FNV64_OFFSET, "foobar"));
    CHECK(DRA_FNV64_LEGACY_SEED != DRA_FNV64_OFFSET);
}

UNIT_TEST(strmap_put_get_add)
{
    dra_strmap m = {0};
    intptr_t v = -1;
    CHECK(!dra_strmap_get(&m, "x", 1, &v));
    char keys[1000][16];
    for (int i = 0; i < 1000; i++) {
        snprintf(keys[i], sizeof keys[i], "k%d", i);
        CHECK(!dra_strmap_add(&m, keys[i], strlen(keys[i]), i, NULL));
    }
    CHECK_INT(m.n, 1000);
    CHECK(m.cap >= 2000);
    for (int i = 0; i < 1000; i++) {
        CHECK(dra_strmap_get(&m, keys[i], strlen(keys[i]), &v));
        CHECK_INT(v, i);
    }
    intptr_t old = 0;
    CHECK(dra_strmap_add(&m, "k7", 2, 99, &old));
    CHECK_INT(old, 7);
    dra_strmap_put(&m, "k7", 2, 99);
    CHECK(dra_strmap_get(&m, "k7", 2, &v));
    CHECK_INT(v, 99);
    CHECK_INT(m.n, 1000);
    CHECK(!dra_strmap_get(&m, "k7x", 3, NULL));
    CHECK(!dra_strmap_get(&m, "k", 1, NULL));
    /* keys are byte strings: embedded NULs and the empty key */
    dra_strmap_put(&m, "a\0b", 3, 5);
    dra_strmap_put(&m, "", 0, 6);
    CHECK(dra_strmap_get(&m, "a\0b", 3, &v) && v == 5);
    CHECK(!dra_strmap_get(&m, "a", 1, NULL));
    CHECK(dra_strmap_get(&m, "", 0, &v) && v == 6);
    dra_strmap_free(&m);
    CHECK_INT(m.n, 0);
    CHECK(!dra_strmap_get(&m, "k1", 2, NULL));
}

UNIT_TEST(strmap_keys_intact)
{
    dra_strmap m = {0};
    CHECK(dra_strmap_keys_intact(&m));
    char a[] = "device.driver == \"a\"", b[] = "x";
    dra_strmap_put(&m, a, strlen(a), 1);
    dra_strmap_put(&m, b, 1, 2);
    CHECK(dra_strmap_keys_intact(&m));
    a[0] = 'D'; /* a borrowed key written by its owner */
    CHECK(!dra_strmap_keys_intact(&m));
    a[0] = 'd';
    CHECK(dra_strmap_keys_intact(&m));
    dra_strmap_free(&m);
}

UNIT_TEST(xgrow_doubles)
{
    int *v = NULL;
    size_t n = 0, reallocs = 0;
    for (int i = 0; i < 10000; i++) {
        int *before = v;
        v = dra_xgrow(v, n, sizeof *v);
        reallocs += v != before || n == 0 || (n >= 4 && (n & (n - 1)) == 0);
        v[n++] = i;
    }
    for (int i = 0; i < 10000; i++)
        if (v[i] != i) {
            CHECK_INT(v[i], i);
            break;
        }
    CHECK(reallocs <= 14); /* 4, 8, ..., 16384 */
    free(v);
}

/* The one RFC 3339 reader (model/time.h), as Go's time.Parse(time.RFC3339). */
static const char *tparse(const char *s, int64_t *sec, int32_t *nsec)
{
    static char msg[256];
    dra_time t = {0, 0};
    dra_err *e = dra_time_parse_n(s, strlen(s), &t);
    snprintf(msg, sizeof msg, "%s", e ? e->msg : "ok");
    if (!e) {
        *sec = t.sec;
        *nsec = t.nsec;
    }
    dra_err_free(e);
    return msg;
}

UNIT_TEST(rfc3339_one_reader)
{
    int64_t sec = 0;
    int32_t ns = -1;
    CHECK_STR(tparse("2026-03-01T10:02:00Z", &sec, &ns), "ok");
    CHECK_INT(sec, 1772359320);
    CHECK_INT(ns, 0);
    CHECK_STR(tparse("2026-03-01T10:02:00.5Z", &sec, &ns), "ok");
    CHECK_INT(ns, 500000000);
    /* Go reads 'T' and 'Z' in upper case only */
    CHECK_STR(
        tparse("2026-03-01t10:02:00Z", &sec, &ns),
        "parsing time \"2026-03-01t10:02:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"t10:02:00Z\" as \"T\"");
    CHECK_STR(tparse("2026-03-01T12:02:00+02:00", &sec, &ns), "ok");
    CHECK_INT(sec, 1772359320);
    CHECK_STR(tparse("2026-03-01T10:02:00.1234567891Z", &sec, &ns), "ok"); /* past 9 digits dropped */
    CHECK_INT(ns, 123456789);
    CHECK_STR(tparse("1969-12-31T23:59:59Z", &sec, &ns), "ok");
    CHECK_INT(sec, -1);
    CHECK_STR(tparse("2024-02-29T00:00:00Z", &sec, &ns), "ok");
    CHECK_STR(tparse("2026-02-29T00:00:00Z", &sec, &ns), "parsing time \"2026-02-29T00:00:00Z\": day out of range");
    CHECK_STR(tparse("2026-13-01T00:00:00Z", &sec, &ns), "parsing time \"2026-13-01T00:00:00Z\": month out of range");
    CHECK_STR(tparse("2026-01-01T24:00:00Z", &sec, &ns), "parsing time \"2026-01-01T24:00:00Z\": hour out of range");
    CHECK_STR(tparse("2026-01-01T00:00:60Z", &sec, &ns), "parsing time \"2026-01-01T00:00:60Z\": second out of range");
    CHECK_STR(tparse("tomorrow", &sec, &ns),
              "parsing time \"tomorrow\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"tomorrow\" as \"2006\"");
    CHECK(strcmp(tparse("2026-01-01T00:00:00", &sec, &ns), "ok") != 0);
    CHECK(strcmp(tparse("2026-01-01T00:00:00.Z", &sec, &ns), "ok") != 0);
    CHECK(strcmp(tparse("2026-01-01T00:00:00+0200", &sec, &ns), "ok") != 0);
    CHECK(strcmp(tparse("2026-01-01T00:00:00Zx", &sec, &ns), "ok") != 0);
}

UNIT_TEST(tolerations_and_taint_rules)
{
    dra_taint_ref t = {"gpu.example.com/broken", "yes", "NoSchedule"};
    CHECK(dra_tolerates(&(dra_toleration_ref){"gpu.example.com/broken", "Equal", "yes", "NoSchedule"}, &t));
    CHECK(dra_tolerates(&(dra_toleration_ref){"gpu.example.com/broken", NULL, "yes", NULL}, &t));
    CHECK(!dra_tolerates(&(dra_toleration_ref){"gpu.example.com/broken", "Equal", "no", NULL}, &t));
    CHECK(dra_tolerates(&(dra_toleration_ref){NULL, "Exists", NULL, NULL}, &t));
    CHECK(!dra_tolerates(&(dra_toleration_ref){NULL, "Exists", NULL, "NoExecute"}, &t));
    CHECK(!dra_tolerates(&(dra_toleration_ref){"other", "Exists", NULL, NULL}, &t));
    CHECK(!dra_tolerates(&(dra_toleration_ref){NULL, "Bogus", NULL, NULL}, &t));
    CHECK(dra_taint_selector_matches(NULL, NULL, NULL, "d", "p", "x"));
    CHECK(dra_taint_selector_matches("d", NULL, "x", "d", "p", "x"));
    CHECK(!dra_taint_selector_matches("d", "q", NULL, "d", "p", "x"));
    CHECK(!dra_taint_selector_matches("", NULL, NULL, "d", "p", "x"));
}

UNIT_TEST(dns_and_qualified_names)
{
    CHECK(dra_is_dns1123_label_format("a-1", 3));
    CHECK(!dra_is_dns1123_label_format("-a", 2));
    CHECK(!dra_is_dns1123_label_format("A", 1));
    CHECK(dra_is_dns1035_label_format("a1", 2));
    CHECK(!dra_is_dns1035_label_format("1a", 2));
    CHECK(dra_is_dns1123_subdomain_format("a.b-c.d", 7));
    CHECK(!dra_is_dns1123_subdomain_format("a..b", 4));
    CHECK(dra_is_qualified_name("example.com/Name_1.x", 20));
    CHECK(dra_is_qualified_name("Name", 4));
    CHECK(!dra_is_qualified_name("/Name", 5));
    CHECK(!dra_is_qualified_name("a/b/c", 5));
    CHECK(!dra_is_qualified_name("Example.com/x", 13));
    CHECK(!dra_is_qualified_name("x-", 2));
    char long_name[70];
    memset(long_name, 'a', 64);
    CHECK(!dra_is_qualified_name(long_name, 64));
    CHECK(dra_is_qualified_name(long_name, 63));
}

UNIT_TEST(problems_list)
{
    dra_problems l = DRA_PROBLEMS_INIT;
    for (int i = 0; i < 20; i++)
        dra_problems_addf(&l, i % 4 == 0, "problem %d", i);
    dra_problem *p = dra_problems_add(&l);
    p->object = dra_xstrdup("ResourceClaim/ns/c");
    p->msg = dra_xstrdup("stuck");
    p->fix = dra_xstrdup("kubectl delete resourceclaim -n ns c");
    CHECK_INT(l.n, 21);
    CHECK_INT(dra_problems_count(&l, true), 5);
    CHECK_INT(dra_problems_count(&l, false), 16);
    CHECK_STR(l.v[7].msg, "problem 7");
    CHECK(l.v[7].object == NULL && l.v[7].fix == NULL);
    dra_problems_free(&l);
    CHECK_INT(l.n, 0);
}

/* Go's time.ParseDuration: the one duration reader. */
UNIT_TEST(go_durations)
{
    struct {
        const char *s;
        int64_t ns;
    } good[] = {
        {"0", 0},
        {"-0", 0},
        {"5s", 5000000000},
        {"+5s", 5000000000},
        {"-5s", -5000000000},
        {"1.5h", 5400000000000},
        {"1h30m", 5400000000000},
        {"300ms", 300000000},
        {".5s", 500000000},
        {"1.s", 1000000000},
        {"2us", 2000},
        {"2\xc2\xb5s", 2000},
        {"2\xce\xbcs", 2000},
        {"7ns", 7},
        {"2562047h47m16.854775807s", INT64_MAX},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int64_t ns = -1;
        CHECK(dra_duration_parse(good[i].s, strlen(good[i].s), &ns));
        CHECK(ns == good[i].ns);
    }
    const char *bad[] = {"", "5", "s", ".s", "1x", "1s2", "- 1s", "3000000h", "1e3s", "+", "."};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t ns;
        CHECK(!dra_duration_parse(bad[i], strlen(bad[i]), &ns));
    }
    int64_t ns;
    dra_err *e = dra_duration_parse_go("45", &ns);
    CHECK(e && strcmp(e->msg, "time: missing unit in duration \"45\"") == 0);
    dra_err_free(e);
}

static const char *b64(const char *s)
{
    dra_buf b = DRA_BUF_INIT;
    dra_base64_encode(&b, s, strlen(s));
    snprintf(qbuf, sizeof qbuf, "%s", dra_buf_str(&b));
    dra_buf_free(&b);
    return qbuf;
}

/* Go's encoding/base64: StdEncoding, RawStdEncoding fallback (CEL), the
 * byte CorruptInputError names. */
UNIT_TEST(base64_as_go)
{
    CHECK_STR(b64(""), "");
    CHECK_STR(b64("f"), "Zg==");
    CHECK_STR(b64("fo"), "Zm8=");
    CHECK_STR(b64("foo"), "Zm9v");
    CHECK_STR(b64("foobar"), "Zm9vYmFy");
    dra_buf b = DRA_BUF_INIT;
    CHECK(dra_base64_decode_go(&b, "Zm9v\r\nYg==", 10, 0, NULL));
    CHECK_STR(dra_buf_str(&b), "foob");
    dra_buf_reset(&b);
    CHECK(dra_base64_decode_go(&b, "Zm9vYg", 6, DRA_B64_RAW, NULL));
    CHECK_STR(dra_buf_str(&b), "foob");
    size_t bad = 99;
    CHECK(!dra_base64_decode_go(NULL, "Zm9vYg", 6, 0, &bad)); /* padding required */
    CHECK(!dra_base64_decode_go(NULL, "Zm9v!g==", 8, DRA_B64_RAW, &bad));
    CHECK_INT(bad, 4);
    CHECK(!dra_base64_decode_go(NULL, "Zm9vY", 5, DRA_B64_RAW, &bad));
    CHECK_INT(bad, 4);
    CHECK(!dra_base64_decode_go(NULL, "Zm=v", 4, DRA_B64_RAW, &bad));
    CHECK_INT(bad, 2);
    CHECK(!dra_base64_decode_go(NULL, "Zm9 v", 5, 0, &bad)); /* a space is data to Go */
    CHECK(dra_base64_decode_go(NULL, "Zm9 v", 5, DRA_B64_SPACES, NULL));
    dra_buf_free(&b);
}

/* Go's hash/fnv: New32a("") = 0x811c9dc5, New32a("a") = 0xe40c292c, New32a("foobar") = 0xbf9cf968. */
UNIT_TEST(fnv1a_32)
{
    CHECK(dra_fnv1a32_str(DRA_FNV32_OFFSET, "") == UINT32_C(0x811c9dc5));
    CHECK(dra_fnv1a32_str(DRA_FNV32_OFFSET, "a") == UINT32_C(0xe40c292c));
    CHECK(dra_fnv1a32_str(DRA_FNV32_OFFSET, "foobar") == UINT32_C(0xbf9cf968));
}

UNIT_TEST(pool_index)
{
    dra_pool_index x = {0};
    dra_pool_index_add(&x, "gpu.example.com", "node-1", 1, 0);
    dra_pool_index_add(&x, "gpu.example.com", "node-2", 3, 1);
    dra_pool_index_add(&x, "gpu.example.com", "node-1", 2, 2);
    dra_pool_index_add(&x, "gpu.example.com", "node-1", 1, 3);
    CHECK_INT(x.n, 2);
    const dra_pool *p = dra_pool_index_find(&x, "gpu.example.com", "node-1");
    CHECK(p && p->generation == 2 && p->n == 3 && p->slices[0] == 0 && p->slices[1] == 2 && p->slices[2] == 3);
    CHECK(dra_pool_index_find(&x, "gpu.example.com", "node-3") == NULL);
    CHECK(dra_pool_index_find(&x, "gpu.example.co", "mnode-1") == NULL);
    dra_pool_index_free(&x);
}

UNIT_MAIN()
