/* Times and durations (model/time.h) at the ends of their ranges: every
 * value below is what Go 1.26's time package gives for the same input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/time.h"
#include "unit.h"

static dra_time P(const char *s)
{
    dra_time t = {-1, -1};
    dra_err *e = dra_time_parse(s, &t);
    if (e) {
        fprintf(stderr, "  unexpected: %s\n", e->msg);
        dra_err_free(e);
    }
    return t;
}

static const char *perr(const char *s)
{
    static char msg[512];
    dra_time t;
    dra_err *e = dra_time_parse(s, &t);
    snprintf(msg, sizeof msg, "%s", e ? e->msg : "ok");
    dra_err_free(e);
    return msg;
}

#define CHECK_FMT(call, want)                                                                                          \
    do {                                                                                                               \
        char *s_ = (call);                                                                                             \
        CHECK_STR(s_, want);                                                                                           \
        free(s_);                                                                                                      \
    } while (0)

/* Go reads years 0000-9999 with offsets up to 24:60: UTC from -0001-12-31
 * to 10000-01-01, all exact (nanoseconds since 1970 in int64 covered only
 * 1677-09-21 to 2262-04-11). */
UNIT_TEST(parse_range_edges)
{
    dra_time t = P("0000-01-01T00:00:00Z");
    CHECK(t.sec == INT64_C(-62167219200) && t.nsec == 0);
    t = P("0001-01-01T00:00:00Z");
    CHECK(t.sec == INT64_C(-62135596800) && t.nsec == 0);
    t = P("9999-12-31T23:59:59.999999999Z");
    CHECK(t.sec == INT64_C(253402300799) && t.nsec == 999999999);
    t = P("0000-01-01T00:00:00+23:59");
    CHECK(t.sec == INT64_C(-62167305540));
    t = P("9999-12-31T23:59:59-23:59");
    CHECK(t.sec == INT64_C(253402387139));
    t = P("2026-03-01T10:00:00+24:60"); /* Go allows 24 hours and 60 minutes of offset */
    CHECK(t.sec == INT64_C(1772269200));
    /* the old nanosecond edges and past them */
    t = P("1677-09-21T00:12:43.145224192Z");
    CHECK(t.sec == INT64_C(-9223372037) && t.nsec == 145224192);
    t = P("1677-09-21T00:12:43.145224191Z");
    CHECK(t.sec == INT64_C(-9223372037) && t.nsec == 145224191);
    t = P("2262-04-11T23:47:16.854775808Z");
    CHECK(t.sec == INT64_C(9223372036) && t.nsec == 854775808);
    t = P("2600-01-01T00:00:00Z");
    CHECK(t.sec == INT64_C(19880899200) && t.nsec == 0);
    t = P("0000-02-29T00:00:00Z"); /* year 0 is a leap year */
    CHECK(t.sec == INT64_C(-62162121600));
    t = P("2026-03-01T1:00:00,5Z"); /* a one-digit hour, a comma */
    CHECK(t.sec == INT64_C(1772326800) && t.nsec == 500000000);
    t = P("2026-03-01T10:00:00.9999999999Z"); /* digits past the ninth dropped */
    CHECK(t.nsec == 999999999);

    CHECK_STR(perr("10000-01-01T00:00:00Z"), "parsing time \"10000-01-01T00:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": "
                                             "cannot parse \"0-01-01T00:00:00Z\" as \"-\"");
    CHECK_STR(perr("-0001-01-01T00:00:00Z"), "parsing time \"-0001-01-01T00:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": "
                                             "cannot parse \"-0001-01-01T00:00:00Z\" as \"2006\"");
    CHECK_STR(perr("2026-03-01T10:00:00+25:00"),
              "parsing time \"2026-03-01T10:00:00+25:00\": time zone offset hour out of range");
    CHECK_STR(perr("2026-03-01T10:00:00+25:61"),
              "parsing time \"2026-03-01T10:00:00+25:61\": time zone offset minute out of range");
    CHECK_STR(perr("2026-03-01T10:00:00x25:00"),
              "parsing time \"2026-03-01T10:00:00x25:00\": time zone offset hour out of range");
    CHECK_STR(perr("2026-03-01T10:00:00x05:00"),
              "parsing time \"2026-03-01T10:00:00x05:00\" as "
              "\"2006-01-02T15:04:05Z07:00\": cannot parse \"x05:00\" as \"Z07:00\"");
    CHECK_STR(perr("2026-03-01T10:00:00z"), "parsing time \"2026-03-01T10:00:00z\" as \"2006-01-02T15:04:05Z07:00\": "
                                            "cannot parse \"z\" as \"Z07:00\"");
    CHECK_STR(perr("2026-03-01T10:00:00Z\xff\n"),
              "parsing time \"2026-03-01T10:00:00Z\\xff\\x0a\": extra text: \"\\xff\\x0a\"");
    CHECK_STR(perr("2025-02-29T00:00:00Zjunk"), "parsing time \"2025-02-29T00:00:00Zjunk\": extra text: \"junk\"");
    CHECK_STR(perr("\"\\"),
              "parsing time \"\\\"\\\\\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\\\"\\\\\" as \"2006\"");
    CHECK_STR(perr(""), "parsing time \"\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"2006\"");
    dra_time u;
    dra_err *e = dra_time_parse(NULL, &u);
    CHECK(e && strcmp(e->msg, "missing time") == 0);
    dra_err_free(e);
    e = dra_time_parse_n("2026-03-01T10:00:00Z", 19, &u); /* n bytes only: no zone */
    CHECK(e != NULL);
    dra_err_free(e);
}

/* metav1.Time marshals t.UTC().Format(time.RFC3339): whole seconds, and years
 * outside 0000-9999 as Go writes them. */
UNIT_TEST(format_range_edges)
{
    CHECK_FMT(dra_time_format(P("0000-01-01T00:00:00+23:59")), "-0001-12-31T00:01:00Z");
    CHECK_FMT(dra_time_format(P("9999-12-31T23:59:59-23:59")), "10000-01-01T23:58:59Z");
    CHECK_FMT(dra_time_format(P("9999-12-31T23:59:59.999999999Z")), "9999-12-31T23:59:59Z");
    CHECK_FMT(dra_time_format(P("1969-12-31T23:59:59.5Z")), "1969-12-31T23:59:59Z");
    CHECK_FMT(dra_time_format((dra_time){INT64_C(-62135596800) - 86400 * 366, 0}), "0000-01-01T00:00:00Z");
    CHECK_FMT(dra_time_format((dra_time){INT64_C(253402300800) + INT64_C(86400) * 365 * 1000, 0}),
              "10999-05-03T00:00:00Z");
    CHECK_FMT(dra_time_format_ns(P("2600-01-01T00:00:00.000000001Z")), "2600-01-01T00:00:00.000000001Z");
    CHECK_FMT(dra_time_format_ns((dra_time){0, 0}), "1970-01-01T00:00:00.000000000Z");
    /* the int64 ends: no overflow, a proleptic date */
    CHECK_FMT(dra_time_format((dra_time){INT64_MAX, 999999999}), "292277026596-12-04T15:30:07Z");
    CHECK_FMT(dra_time_format((dra_time){INT64_MIN, 0}), "-292277022657-01-27T08:29:52Z");
    /* parse, format, parse: the same second */
    const char *round[] = {"0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "1677-09-21T00:12:43Z",
                           "2262-04-11T23:47:17Z", "2600-01-01T00:00:00Z", "9999-12-31T23:59:59Z"};
    for (size_t i = 0; i < sizeof round / sizeof round[0]; i++)
        CHECK_FMT(dra_time_format(P(round[i])), round[i]);
}

UNIT_TEST(calendar)
{
    dra_civil c;
    dra_civil_from_unix(P("0000-01-01T00:00:00Z").sec, &c);
    CHECK(c.year == 0 && c.month == 1 && c.day == 1 && c.wday == 6 && c.yday == 0);
    dra_civil_from_unix(P("0000-03-01T00:00:00Z").sec, &c);
    CHECK(c.wday == 3 && c.yday == 60);
    dra_civil_from_unix(P("0001-01-01T00:00:00Z").sec, &c);
    CHECK(c.year == 1 && c.wday == 1);
    dra_civil_from_unix(P("9999-12-31T23:59:59Z").sec, &c);
    CHECK(c.year == 9999 && c.month == 12 && c.day == 31 && c.hour == 23 && c.min == 59 && c.sec == 59 && c.wday == 5 &&
          c.yday == 364);
    dra_civil_from_unix(P("0000-01-01T00:00:00+23:59").sec, &c);
    CHECK(c.year == -1 && c.month == 12 && c.day == 31 && c.wday == 5 && c.yday == 364);
    dra_civil_from_unix(-1, &c);
    CHECK(c.year == 1969 && c.hour == 23 && c.sec == 59 && c.wday == 3);
    dra_civil_from_unix(INT64_MIN, &c);
    CHECK(c.year == INT64_C(-292277022657) && c.month == 1 && c.day == 27);
    CHECK_INT(dra_days_from_civil(1970, 1, 1), 0);
    CHECK_INT(dra_days_from_civil(0, 1, 1), -719528);
    CHECK_INT(dra_days_from_civil(-1, 12, 31), -719529);
    CHECK_INT(dra_days_from_civil(10000, 1, 1), 2932897);
}

/* Go's Add is exact and saturates; Sub saturates at ±292 years. */
UNIT_TEST(arithmetic)
{
    dra_time t26 = P("2026-01-01T00:00:00Z"), t2600 = P("2600-01-01T00:00:00Z");
    CHECK(dra_time_cmp(t2600, t26) > 0 && dra_time_cmp(t26, t2600) < 0 && dra_time_cmp(t26, t26) == 0);
    CHECK(dra_time_cmp((dra_time){5, 1}, (dra_time){5, 0}) > 0);
    CHECK(dra_time_cmp((dra_time){-1, 999999999}, (dra_time){0, 0}) < 0);
    CHECK_INT(dra_time_sub(t2600, t26), INT64_MAX); /* Go: 2562047h47m16.854775807s */
    CHECK_INT(dra_time_sub(t26, t2600), INT64_MIN);
    CHECK_INT(dra_time_sub((dra_time){1, 0}, (dra_time){0, 999999999}), 1);
    CHECK_INT(dra_time_sub_sec(t2600, t26), INT64_C(18113673600));
    CHECK_INT(dra_time_sub_sec(t26, t2600), INT64_C(-18113673600));
    CHECK_INT(dra_time_sub_sec((dra_time){1, 0}, (dra_time){0, 999999999}), 0);
    CHECK_INT(dra_time_sub_sec((dra_time){0, 999999999}, (dra_time){2, 0}), -1);
    CHECK_INT(dra_time_sub_sec((dra_time){INT64_MAX, 0}, (dra_time){INT64_MIN, 0}), INT64_MAX);
    CHECK_INT(dra_time_sub_sec((dra_time){INT64_MIN, 0}, (dra_time){INT64_MAX, 0}), INT64_MIN);

    dra_time a = dra_time_add(t26, -1);
    CHECK(a.sec == t26.sec - 1 && a.nsec == 999999999);
    a = dra_time_add((dra_time){0, 999999999}, 1);
    CHECK(a.sec == 1 && a.nsec == 0);
    a = dra_time_add(t26, INT64_MIN);
    CHECK(a.sec == t26.sec - INT64_C(9223372037) && a.nsec == 145224192);
    a = dra_time_add((dra_time){INT64_MAX, 999999999}, 1);
    CHECK(a.sec == INT64_MAX && a.nsec == 999999999);
    a = dra_time_add((dra_time){INT64_MIN, 0}, -1);
    CHECK(a.sec == INT64_MIN && a.nsec == 0);
    a = dra_time_add((dra_time){INT64_MAX, 0}, INT64_MAX);
    CHECK(a.sec == INT64_MAX);

    a = dra_time_from_ns(INT64_MIN);
    CHECK(a.sec == INT64_C(-9223372037) && a.nsec == 145224192);
    a = dra_time_from_ns(-1);
    CHECK(a.sec == -1 && a.nsec == 999999999);

    /* time.Duration(s) * time.Second wraps as Go: 1e10 s is 1758 from 2026 */
    CHECK_INT(dra_duration_of_seconds(9223372036), INT64_C(9223372036000000000));
    CHECK_INT(dra_duration_of_seconds(INT64_C(10000000000)), INT64_C(-8446744073709551616));
    CHECK_INT(dra_duration_of_seconds(INT64_MAX), -1000000000);
    CHECK_INT(dra_duration_of_seconds(INT64_MIN), 0);
    CHECK_FMT(dra_time_format_ns(dra_time_add(t26, dra_duration_of_seconds(INT64_C(10000000000)))),
              "1758-05-02T18:12:06.290448384Z");
}

UNIT_TEST(durations)
{
    CHECK_FMT(dra_duration_format_sec(0), "0s");
    CHECK_FMT(dra_duration_format_sec(59), "59s");
    CHECK_FMT(dra_duration_format_sec(-60), "-1m0s");
    CHECK_FMT(dra_duration_format_sec(INT64_C(18113673600)), "5031576h0m0s");
    CHECK_FMT(dra_duration_format_sec(INT64_MIN), "-2562047788015215h30m8s");
    CHECK_FMT(dra_duration_format_sec(INT64_MAX), "2562047788015215h30m7s");

    int64_t ns = 0;
    CHECK(dra_duration_parse("-2562047h47m16.854775808s", 25, &ns) && ns == INT64_MIN);
    CHECK(!dra_duration_parse("2562047h47m16.854775808s", 24, &ns));
    CHECK(dra_duration_parse("9223372036854775807ns", 21, &ns) && ns == INT64_MAX);
    CHECK(!dra_duration_parse("9223372036854775808ns", 21, &ns));
    /* float64 scaling of fractions, as Go */
    CHECK(dra_duration_parse("0.333333333333333333333h", 24, &ns) && ns == INT64_C(1200000000000));
    CHECK(dra_duration_parse("1.0000000000000000001h", 22, &ns) && ns == INT64_C(3600000000000));
    dra_err *e = dra_duration_parse_go("5x", &ns);
    CHECK(e && strcmp(e->msg, "time: unknown unit \"x\" in duration \"5x\"") == 0);
    dra_err_free(e);
    e = dra_duration_parse_go("1.5.5s", &ns);
    CHECK(e && strcmp(e->msg, "time: missing unit in duration \"1.5.5s\"") == 0);
    dra_err_free(e);
    e = dra_duration_parse_go("1\xffs", &ns);
    CHECK(e && strcmp(e->msg, "time: unknown unit \"\\xffs\" in duration \"1\\xffs\"") == 0);
    dra_err_free(e);
    e = dra_duration_parse_go(NULL, &ns);
    CHECK(e && strcmp(e->msg, "time: invalid duration \"\"") == 0);
    dra_err_free(e);
}

UNIT_TEST(duration_arg_takes_seconds_or_go)
{
    int64_t ns = -1;
    CHECK(dra_duration_arg("10", &ns) == NULL && ns == INT64_C(10000000000));
    CHECK(dra_duration_arg("2.5", &ns) == NULL && ns == INT64_C(2500000000));
    CHECK(dra_duration_arg("0", &ns) == NULL && ns == 0);
    CHECK(dra_duration_arg("1h2m3.5s", &ns) == NULL && ns == INT64_C(3723500000000));
    CHECK(dra_duration_arg("300ms", &ns) == NULL && ns == INT64_C(300000000));
    CHECK(dra_duration_arg("-1s", &ns) == NULL && ns == INT64_C(-1000000000));
    const char *bad[] = {"", ".", "1.2.3", "5x", "-1", "1 s", "s", NULL};
    for (int i = 0; i < 8; i++) {
        dra_err *e = dra_duration_arg(bad[i], &ns);
        char *want =
            dra_xasprintf("invalid duration \"%s\" (want seconds or a Go duration such as 30s, 500ms, 1h2m3.5s)",
                          bad[i] ? bad[i] : "");
        CHECK(e && e->code == DRA_EXIT_INPUT && strcmp(e->msg, want) == 0);
        free(want);
        dra_err_free(e);
    }
}

UNIT_TEST(now_or)
{
    dra_time t;
    CHECK(dra_time_now_or("9999-12-31T23:59:59Z", &t) == NULL && t.sec == INT64_C(253402300799));
    dra_err *e = dra_time_now_or("soon", &t);
    CHECK(e && e->param);
    dra_err_free(e);
    CHECK(dra_time_now_or(NULL, &t) == NULL && t.sec > INT64_C(1700000000) && t.nsec >= 0 && t.nsec < 1000000000);
}

UNIT_MAIN()
