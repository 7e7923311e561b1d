/* Timestamp and duration accessors (cel-go checker/stdlib timestamp and
 * duration getters).  Timestamps are UTC unless a time zone argument is
 * given (DefaultUTCTimeZone): "UTC", a fixed offset "+05:30" / "-08:00", or
 * an IANA name read from the system tz database (/usr/share/zoneinfo). */
#include "functions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F(name) static cel_value name(cel_call_ctx *cx, const cel_value *a, size_t n)

static uint32_t be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint64_t be64(const unsigned char *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

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
        int64_t tt = tsize == 8 ? (int64_t)be64(buf + times + (size_t)i * 8) : (int32_t)be32(buf + times + (size_t)i * 4);
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

static bool zone_offset(const cel_value *tz, int64_t t, int64_t *off)
{
    char name[128];
    if (tz->v.s.len == 0 || tz->v.s.len >= sizeof name)
        return false;
    memcpy(name, tz->v.s.ptr, tz->v.s.len);
    name[tz->v.s.len] = 0;
    if (strcmp(name, "UTC") == 0 || strcmp(name, "Z") == 0) {
        *off = 0;
        return true;
    }
    if (name[0] == '+' || name[0] == '-' || (name[0] >= '0' && name[0] <= '9')) {
        int sign = name[0] == '-' ? -1 : 1;
        const char *p = (name[0] == '+' || name[0] == '-') ? name + 1 : name;
        int h, m;
        if (sscanf(p, "%2d:%2d", &h, &m) != 2 || strlen(p) != 5)
            return false;
        *off = sign * (h * 3600 + m * 60);
        return true;
    }
    return tzif_offset(name, t, off);
}

typedef struct civil { int64_t year; int month, mday, yday, wday, hour, min, sec; } civil;

static void to_civil(int64_t t, civil *c)
{
    int64_t days = t / 86400, rem = t % 86400;
    if (rem < 0) { rem += 86400; days--; }
    c->hour = (int)(rem / 3600);
    c->min = (int)(rem / 60 % 60);
    c->sec = (int)(rem % 60);
    c->wday = (int)((days % 7 + 11) % 7); /* 1970-01-01 was a Thursday (4) */
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    c->mday = (int)(doy - (153 * mp + 2) / 5 + 1);
    c->month = (int)(mp < 10 ? mp + 3 : mp - 9);
    c->year = (int64_t)yoe + era * 400 + (c->month <= 2);
    static const int cum[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    bool leapy = (c->year % 4 == 0 && c->year % 100 != 0) || c->year % 400 == 0;
    c->yday = cum[c->month - 1] + c->mday - 1 + (leapy && c->month > 2);
}

enum { G_YEAR, G_MONTH, G_DOY, G_DOM, G_DATE, G_DOW, G_HOURS, G_MINUTES, G_SECONDS, G_MILLIS };

static cel_value ts_get(cel_call_ctx *cx, const cel_value *a, size_t n, int what)
{
    int64_t off = 0;
    if (n == 2 && !zone_offset(&a[1], a[0].v.t.sec, &off))
        return cel_errorf_s(cx->scratch, "unknown time zone %.*s", (int)(a[1].v.s.len > 64 ? 64 : a[1].v.s.len), a[1].v.s.ptr);
    civil c;
    to_civil(a[0].v.t.sec + off, &c);
    switch (what) {
    case G_YEAR: return cel_int(c.year);
    case G_MONTH: return cel_int(c.month - 1);
    case G_DOY: return cel_int(c.yday);
    case G_DOM: return cel_int(c.mday - 1);
    case G_DATE: return cel_int(c.mday);
    case G_DOW: return cel_int(c.wday);
    case G_HOURS: return cel_int(c.hour);
    case G_MINUTES: return cel_int(c.min);
    case G_SECONDS: return cel_int(c.sec);
    default: return cel_int(a[0].v.t.nsec / 1000000);
    }
}

#define TSG(name, what) F(name) { return ts_get(cx, a, n, what); }
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

static __int128 dur_ns(const cel_value *v) { return (__int128)v->v.t.sec * 1000000000 + v->v.t.nsec; }
F(dur_hours) { return cel_int((int64_t)(dur_ns(&a[0]) / 3600000000000LL)); }
F(dur_minutes) { return cel_int((int64_t)(dur_ns(&a[0]) / 60000000000LL)); }
F(dur_seconds) { return cel_int((int64_t)(dur_ns(&a[0]) / 1000000000LL)); }
F(dur_millis) { return cel_int((int64_t)(dur_ns(&a[0]) / 1000000LL)); } /* total ms, as cel-go */

#define TS (&cel_t_timestamp)
#define DU (&cel_t_duration)
#define S (&cel_t_string)
#define I (&cel_t_int)
#define T(id, fn, impl, n, ...) {id, fn, true, n, {__VA_ARGS__}, I, impl, CEL_COST_ONE, 0, NULL, CEL_LIB_STD, false}
#define TSPAIR(id, fn, impl) T("timestamp_to_" id, fn, impl, 1, TS), T("timestamp_to_" id "_with_tz", fn, impl, 2, TS, S)
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
