/* Timestamp and duration accessors (cel-go checker/stdlib timestamp and
 * duration getters).  Timestamps are UTC unless a time zone argument is
 * given (DefaultUTCTimeZone): "UTC", an offset "+05:30" / "-8:00", or an
 * IANA name read from the system tz database (/usr/share/zoneinfo); see
 * zone_offset. */
#include "functions.h"
#include "../base/utf8.h"
#include "../model/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F(name) static cel_value name(cel_call_ctx *cx, const cel_value *a, size_t n)

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t be64(const unsigned char *p)
{
    return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* UTC offset (seconds) of IANA zone `name` at instant t; false when unknown. */
static bool tzif_offset(const char *name, int64_t t, int64_t *off)
{
    if (!name[0] || name[0] == '/' || strstr(name, ".."))
        return false;
    char path[512];
    snprintf(path, sizeof path, "/usr/share/zoneinfo/%s", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    unsigned char *buf = dra_xmalloc(1 << 20);
    size_t len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    bool ok = false;
    if (len < 44 || memcmp(buf, "TZif", 4) != 0)
        goto out;
    /* skip the v1 block when a v2+ block with 64-bit times follows */
    size_t base = 0;
    int tsize = 4;
    uint32_t isutc = be32(buf + 20), isstd = be32(buf + 24), leap = be32(buf + 28);
    uint32_t timecnt = be32(buf + 32), typecnt = be32(buf + 36), charcnt = be32(buf + 40);
    if (buf[4] >= '2') {
        size_t v1 = 44 + (size_t)timecnt * 5 + (size_t)typecnt * 6 + charcnt + (size_t)leap * 8 + isstd + isutc;
        if (v1 + 44 <= len && memcmp(buf + v1, "TZif", 4) == 0) {
            base = v1;
            tsize = 8;
            isutc = be32(buf + base + 20), isstd = be32(buf + base + 24), leap = be32(buf + base + 28);
            timecnt = be32(buf + base + 32), typecnt = be32(buf + base + 36), charcnt = be32(buf + base + 40);
        }
    }
    size_t times = base + 44, idx = times + (size_t)timecnt * tsize, types = idx + timecnt;
    if (types + (size_t)typecnt * 6 > len || typecnt == 0)
        goto out;
    size_t type = 0;
    for (uint32_t i = 0; i < timecnt; i++) {
        int64_t tt =
            tsize == 8 ? (int64_t)be64(buf + times + (size_t)i * 8) : (int32_t)be32(buf + times + (size_t)i * 4);
        if (tt > t)
            break;
        type = buf[idx + i];
    }
    if (type >= typecnt)
        goto out;
    *off = (int32_t)be32(buf + types + type * 6);
    ok = true;
out:
    free(buf);
    return ok;
}

/* Go's strconv.Atoi (base 10, int64): an optional sign and digits; on
 * failure *why is "invalid syntax" or "value out of range" (range first when
 * the digits overflow before a bad byte, as ParseUint stops there). */
static bool go_atoi(const char *s, size_t n, int64_t *out, const char **why)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == n) {
        *why = "invalid syntax";
        return false;
    }
    uint64_t v = 0;
    bool range = false;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            *why = "invalid syntax";
            return false;
        }
        uint64_t v1 = v * 10 + (uint64_t)(s[i] - '0');
        if (v >= UINT64_MAX / 10 + 1 || v1 < v) {
            range = true;
            break;
        }
        v = v1;
    }
    if (range || (!neg && v > (uint64_t)INT64_MAX) || (neg && v > (uint64_t)INT64_MAX + 1)) {
        *why = "value out of range";
        return false;
    }
    *out = neg ? (int64_t)((uint64_t)0 - v) : (int64_t)v;
    return true;
}

static cel_value atoi_error(cel_call_ctx *cx, const char *s, size_t n, const char *why)
{
    dra_buf b = DRA_BUF_INIT;
    dra_go_quote(&b, s, n);
    cel_value e = cel_errorf_s(cx->scratch, "strconv.Atoi: parsing %s: %s", dra_buf_str(&b), why);
    dra_buf_free(&b);
    return e;
}

/* The offset east of UTC (seconds) of time zone argument tz at instant t,
 * as cel-go's stdlib inTimeZone: without ':' a location (time.LoadLocation:
 * "" and "UTC" are UTC, as is "Local" in the API server's images; else an
 * IANA name from the system tz database), with one "H:M" read by
 * strconv.Atoi each, the offset H*60 +/- M minutes (- when tz starts with
 * '-'), scaled as time.Duration(offset) * time.Minute: int64 arithmetic
 * that wraps around as Go's does.  Returns the error value, or a non-error
 * value on success. */
static cel_value zone_offset(cel_call_ctx *cx, const cel_value *tz, int64_t t, int64_t *off)
{
    const char *s = tz->v.s.ptr;
    size_t n = tz->v.s.len;
    const char *colon = memchr(s, ':', n);
    if (!colon) {
        if (n == 0 || (n == 3 && memcmp(s, "UTC", 3) == 0) || (n == 5 && memcmp(s, "Local", 5) == 0)) {
            *off = 0;
            return cel_bool(true);
        }
        bool dotdot = false;
        for (size_t i = 0; i + 1 < n && !dotdot; i++)
            dotdot = s[i] == '.' && s[i + 1] == '.';
        if (dotdot || s[0] == '/' || s[0] == '\\')
            return cel_error("time: invalid location name");
        char name[256];
        if (n < sizeof name && !memchr(s, '\0', n)) {
            memcpy(name, s, n);
            name[n] = '\0';
            if (tzif_offset(name, t, off))
                return cel_bool(true);
        }
        return cel_errorf_s(cx->scratch, "unknown time zone %.*s", (int)n, s);
    }
    size_t hl = (size_t)(colon - s);
    int64_t hr, min;
    const char *why;
    if (!go_atoi(s, hl, &hr, &why))
        return atoi_error(cx, s, hl, why);
    if (!go_atoi(colon + 1, n - hl - 1, &min, &why))
        return atoi_error(cx, colon + 1, n - hl - 1, why);
    uint64_t minutes = (uint64_t)hr * 60u;
    minutes = s[0] == '-' ? minutes - (uint64_t)min : minutes + (uint64_t)min;
    /* time.Duration(offset) * time.Minute, then Duration.Seconds() as an int */
    int64_t d = (int64_t)(minutes * UINT64_C(60000000000));
    int64_t sec = d / DRA_NSEC_PER_SEC, nsec = d % DRA_NSEC_PER_SEC;
    *off = (int64_t)((double)sec + (double)nsec / 1e9);
    return cel_bool(true);
}

enum { G_YEAR, G_MONTH, G_DOY, G_DOM, G_DATE, G_DOW, G_HOURS, G_MINUTES, G_SECONDS, G_MILLIS };

static cel_value ts_get(cel_call_ctx *cx, const cel_value *a, size_t n, int what)
{
    int64_t off = 0;
    if (n == 2) {
        cel_value z = zone_offset(cx, &a[1], a[0].v.t.sec, &off);
        if (z.kind == CEL_ERROR)
            return z;
    }
    /* a timestamp is within years 0001-9999 and an offset within about 292
     * years (the most a Duration holds): no overflow */
    dra_civil c;
    dra_civil_from_unix(a[0].v.t.sec + off, &c);
    switch (what) {
    case G_YEAR: return cel_int(c.year);
    case G_MONTH: return cel_int(c.month - 1);
    case G_DOY: return cel_int(c.yday);
    case G_DOM: return cel_int(c.day - 1);
    case G_DATE: return cel_int(c.day);
    case G_DOW: return cel_int(c.wday);
    case G_HOURS: return cel_int(c.hour);
    case G_MINUTES: return cel_int(c.min);
    case G_SECONDS: return cel_int(c.sec);
    default: return cel_int(a[0].v.t.nsec / 1000000);
    }
}

#define TSG(name, what)                                                                                                \
    F(name)                                                                                                            \
    {                                                                                                                  \
        return ts_get(cx, a, n, what);                                                                                 \
    }
TSG(ts_year, G_YEAR)
TSG(ts_month, G_MONTH)
TSG(ts_doy, G_DOY)
TSG(ts_dom, G_DOM)
TSG(ts_date, G_DATE)
TSG(ts_dow, G_DOW)
TSG(ts_hours, G_HOURS)
TSG(ts_minutes, G_MINUTES)
TSG(ts_seconds, G_SECONDS)
TSG(ts_millis, G_MILLIS)

static __int128 dur_ns(const cel_value *v)
{
    return (__int128)v->v.t.sec * 1000000000 + v->v.t.nsec;
}
F(dur_hours)
{
    return cel_int((int64_t)(dur_ns(&a[0]) / 3600000000000LL));
}
F(dur_minutes)
{
    return cel_int((int64_t)(dur_ns(&a[0]) / 60000000000LL));
}
F(dur_seconds)
{
    return cel_int((int64_t)(dur_ns(&a[0]) / 1000000000LL));
}
F(dur_millis)
{
    return cel_int((int64_t)(dur_ns(&a[0]) / 1000000LL));
} /* total ms, as cel-go */

#define TS (&cel_t_timestamp)
#define DU (&cel_t_duration)
#define S (&cel_t_string)
#define I (&cel_t_int)
#define T(id, fn, impl, n, ...)                                                                                        \
    {                                                                                                                  \
        id, fn, true, n, {__VA_ARGS__}, I, impl, CEL_COST_ONE, 0, NULL, CEL_LIB_STD, false                             \
    }
/* clang-format off */
#define TSPAIR(id, fn, impl) T("timestamp_to_" id, fn, impl, 1, TS), T("timestamp_to_" id "_with_tz", fn, impl, 2, TS, S)
/* clang-format on */
const cel_overload cel_lib_time[] = {
    TSPAIR("year", "getFullYear", ts_year),
    TSPAIR("month", "getMonth", ts_month),
    TSPAIR("day_of_year", "getDayOfYear", ts_doy),
    TSPAIR("day_of_month_zero_based", "getDayOfMonth", ts_dom),
    TSPAIR("day_of_month_one_based", "getDate", ts_date),
    TSPAIR("day_of_week", "getDayOfWeek", ts_dow),
    TSPAIR("hours", "getHours", ts_hours),
    TSPAIR("minutes", "getMinutes", ts_minutes),
    TSPAIR("seconds", "getSeconds", ts_seconds),
    TSPAIR("milliseconds", "getMilliseconds", ts_millis),
    T("duration_to_hours", "getHours", dur_hours, 1, DU),
    T("duration_to_minutes", "getMinutes", dur_minutes, 1, DU),
    T("duration_to_seconds", "getSeconds", dur_seconds, 1, DU),
    T("duration_to_milliseconds", "getMilliseconds", dur_millis, 1, DU),
};
const size_t cel_lib_time_n = sizeof cel_lib_time / sizeof cel_lib_time[0];
