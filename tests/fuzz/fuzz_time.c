/* Fuzz times and durations (model/time.h).
 *
 * The input is read three ways:
 *   - as an RFC 3339 time: one that parses formats (with and without its
 *     nanoseconds) to text that parses back to the same time, or, for the
 *     years Go cannot write back in four digits, to text that is refused;
 *   - as a Go duration: both readers agree, and a duration's seconds
 *     format and compare as they should; the option reader
 *     (dra_duration_arg) agrees with them, a plain number being seconds;
 *   - as raw int64s: times and durations anywhere in their ranges, where
 *     the arithmetic (add, sub, the calendar, formatting) must be free of
 *     undefined behaviour (UBSan) and consistent: cmp antisymmetric and in
 *     step with sub, t + (u - t) == u while nothing saturates, the calendar
 *     inverts to the same second. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/time.h"

static void check(bool ok)
{
    if (!ok)
        abort();
}

static int64_t rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return (int64_t)v;
}

static bool same(dra_time a, dra_time b)
{
    return a.sec == b.sec && a.nsec == b.nsec;
}

static void round_trip(dra_time t)
{
    dra_civil c;
    dra_civil_from_unix(t.sec, &c);
    bool four_digits = c.year >= 0 && c.year <= 9999;
    char *full = dra_time_format_ns(t), *whole = dra_time_format(t);
    dra_time back;
    dra_err *e = dra_time_parse(full, &back);
    check(four_digits ? e == NULL && same(back, t) : e != NULL);
    dra_err_free(e);
    e = dra_time_parse(whole, &back);
    check(four_digits ? e == NULL && back.sec == t.sec && back.nsec == 0 : e != NULL);
    dra_err_free(e);
    free(full);
    free(whole);
}

static void arithmetic(dra_time a, dra_time b, int64_t d)
{
    int ab = dra_time_cmp(a, b), ba = dra_time_cmp(b, a);
    check(ab == -ba && (ab == 0) == same(a, b));
    int64_t s = dra_time_sub(a, b);
    check((s > 0) == (ab > 0) && (s < 0) == (ab < 0) && (s == 0) == (ab == 0));
    int64_t ss = dra_time_sub_sec(a, b);
    check(ab >= 0 ? ss >= 0 : ss <= 0);
    if (s != INT64_MIN && s != INT64_MAX) {
        dra_time u = dra_time_add(b, s);
        check(same(u, a));
        check(ss == s / DRA_NSEC_PER_SEC);
    }
    dra_time t = dra_time_add(a, d);
    check(t.nsec >= 0 && t.nsec < 1000000000);
    if (d > 0)
        check(dra_time_cmp(t, a) > 0 || t.sec == INT64_MAX);
    if (d < 0)
        check(dra_time_cmp(t, a) < 0 || t.sec == INT64_MIN);
    dra_time f = dra_time_from_ns(d);
    check(f.nsec >= 0 && f.nsec < 1000000000 && dra_time_sub(f, (dra_time){0, 0}) == d);
    int64_t w = dra_duration_of_seconds(d);
    check((uint64_t)w == (uint64_t)d * 1000000000u);

    /* the calendar inverts, for any second */
    dra_civil c;
    dra_civil_from_unix(a.sec, &c);
    check(c.month >= 1 && c.month <= 12 && c.day >= 1 && c.day <= 31 && c.hour >= 0 && c.hour < 24 && c.min >= 0 &&
          c.min < 60 && c.sec >= 0 && c.sec < 60 && c.wday >= 0 && c.wday < 7 && c.yday >= 0 && c.yday < 366);
    if (c.year > -25000000000000LL && c.year < 25000000000000LL) {
        __int128 back =
            (__int128)dra_days_from_civil(c.year, c.month, c.day) * 86400 + c.hour * 3600 + c.min * 60 + c.sec;
        check(back == a.sec);
    }
    free(dra_time_format(a));
    free(dra_time_format_ns(b));
    free(dra_duration_format_sec(d));
    free(dra_duration_format_sec(ss));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    dra_time t;
    dra_err *e = dra_time_parse_n(s, size, &t);
    if (!e) {
        check(t.nsec >= 0 && t.nsec < 1000000000);
        /* years 0000-9999 and offsets of at most 25 hours */
        check(t.sec >= INT64_C(-62167219200) - 90000 && t.sec <= INT64_C(253402300799) + 90000);
        round_trip(t);
    }
    dra_err_free(e);

    int64_t ns;
    bool ok = dra_duration_parse(s, size, &ns);
    if (!memchr(s, '\0', size)) {
        char *z = malloc(size + 1);
        memcpy(z, s, size);
        z[size] = '\0';
        int64_t ns2;
        e = dra_duration_parse_go(z, &ns2);
        check((e == NULL) == ok && (!ok || ns2 == ns));
        dra_err_free(e);
        /* options: a plain number is that many seconds, else as Go */
        size_t dots = 0;
        for (const char *p = z; *p; p++)
            dots += *p == '.';
        bool plain = strspn(z, "0123456789.") == size && size > dots && dots <= 1;
        int64_t ns3 = 0;
        e = dra_duration_arg(z, &ns3);
        if (plain) {
            char *go = malloc(size + 2);
            memcpy(go, z, size);
            memcpy(go + size, "s", 2);
            int64_t ns4;
            bool ok4 = dra_duration_parse(go, size + 1, &ns4);
            check((e == NULL) == ok4 && (!ok4 || ns3 == ns4));
            free(go);
        } else {
            check((e == NULL) == ok && (!ok || ns3 == ns));
        }
        check(!e || e->code == DRA_EXIT_INPUT);
        dra_err_free(e);
        free(z);
    }
    if (ok)
        free(dra_duration_format_sec(ns / DRA_NSEC_PER_SEC));

    if (size >= 32) {
        dra_time a = {rd64(data), (int32_t)((uint64_t)rd64(data + 8) % 1000000000u)};
        dra_time b = {rd64(data + 16), (int32_t)((uint64_t)rd64(data + 8) / 1000000000u % 1000000000u)};
        arithmetic(a, b, rd64(data + 24));
        /* the same near the times people write, where nothing saturates */
        dra_time a2 = {a.sec % INT64_C(400000000000), a.nsec}, b2 = {b.sec % INT64_C(400000000000), b.nsec};
        arithmetic(a2, b2, rd64(data + 24) % INT64_C(10000000000000000));
        round_trip(a2);
    }
    return 0;
}
