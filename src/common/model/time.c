/* RFC 3339 times and durations; see time.h. */
#include "time.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* cnt digits at p[at..]; -1 when short or not digits. */
static int digits_at(const char *p, size_t n, size_t at, size_t cnt)
{
    if (at + cnt > n)
        return -1;
    int v = 0;
    for (size_t i = 0; i < cnt; i++) {
        if (p[at + i] < '0' || p[at + i] > '9')
            return -1;
        v = v * 10 + (p[at + i] - '0');
    }
    return v;
}

static bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* The one RFC 3339 reader, as Go's time.Parse(time.RFC3339, s):
 * YYYY-MM-DDTHH:MM:SS[.frac](Z|+hh:mm|-hh:mm), 't'/'z' too, fractions of
 * any length (digits past the ninth are dropped), fields range-checked. */
dra_err *dra_time_parse_n(const char *p, size_t n, int64_t *sec, int32_t *nsec)
{
    bool range = false;
    int y = digits_at(p, n, 0, 4), mo = digits_at(p, n, 5, 2), d = digits_at(p, n, 8, 2);
    int h = digits_at(p, n, 11, 2), mi = digits_at(p, n, 14, 2), s = digits_at(p, n, 17, 2);
    if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || s < 0 || p[4] != '-' || p[7] != '-' ||
        (p[10] != 'T' && p[10] != 't') || p[13] != ':' || p[16] != ':')
        goto bad;
    size_t i = 19;
    int32_t ns = 0;
    if (i + 1 < n && p[i] == '.' && p[i + 1] >= '0' && p[i + 1] <= '9') {
        int scale = 100000000;
        for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
            ns += (p[i] - '0') * scale;
            scale /= 10;
        }
    }
    int64_t off = 0;
    if (i < n && (p[i] == 'Z' || p[i] == 'z')) {
        i++;
    } else if (i < n && (p[i] == '+' || p[i] == '-')) {
        int oh = digits_at(p, n, i + 1, 2), om = digits_at(p, n, i + 4, 2);
        if (oh < 0 || om < 0 || p[i + 3] != ':' || oh > 23 || om > 59)
            goto bad;
        off = (oh * 3600 + om * 60) * (p[i] == '-' ? -1 : 1);
        i += 6;
    } else {
        goto bad;
    }
    if (i != n)
        goto bad;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    range = mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap(y)) || h > 23 || mi > 59 || s > 59;
    if (range)
        goto bad; /* Go says "<field> out of range"; the tools' text is one for every bad time */
    *sec = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + s - off;
    *nsec = ns;
    return NULL;
bad:
    return dra_err_new(DRA_EXIT_INPUT, "parsing time \"%.*s\" as RFC3339 (\"2006-01-02T15:04:05Z07:00\"): invalid format",
                       (int)n, p);
}

dra_err *dra_time_parse(const char *s, int64_t *out_ns)
{
    if (!s)
        return dra_err_new(DRA_EXIT_INPUT, "missing time");
    int64_t sec;
    int32_t nsec;
    dra_err *e = dra_time_parse_n(s, strlen(s), &sec, &nsec);
    if (!e)
        *out_ns = sec * DRA_NSEC_PER_SEC + nsec;
    return e;
}

char *dra_time_format(int64_t ns)
{
    /* floor division so that times before 1970 format correctly too */
    int64_t secs = ns / DRA_NSEC_PER_SEC - (ns % DRA_NSEC_PER_SEC < 0 ? 1 : 0);
    time_t t = (time_t)secs;
    struct tm tm;
    gmtime_r(&t, &tm);
    char buf[64];
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return dra_xstrdup(buf);
}

char *dra_duration_format(int64_t ns)
{
    int64_t s = ns / DRA_NSEC_PER_SEC;
    const char *sign = "";
    if (s < 0) {
        sign = "-";
        s = -s;
    }
    if (s < 60)
        return dra_xasprintf("%s%llds", sign, (long long)s);
    if (s < 3600)
        return dra_xasprintf("%s%lldm%llds", sign, (long long)(s / 60), (long long)(s % 60));
    return dra_xasprintf("%s%lldh%lldm%llds", sign, (long long)(s / 3600), (long long)(s / 60 % 60),
                         (long long)(s % 60));
}

bool dra_duration_parse(const char *p, size_t n, int64_t *ns)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (p[i] == '-' || p[i] == '+')) { neg = p[i] == '-'; i++; }
    if (n - i == 1 && p[i] == '0') { *ns = 0; return true; }
    if (i == n)
        return false;
    __int128 total = 0; /* nanoseconds */
    while (i < n) {
        __int128 whole = 0;
        size_t st = i;
        while (i < n && p[i] >= '0' && p[i] <= '9') {
            whole = whole * 10 + (p[i] - '0');
            if (whole > ((__int128)1 << 63)) return false;
            i++;
        }
        bool pre = i > st;
        __int128 frac = 0, scale = 1;
        bool post = false;
        if (i < n && p[i] == '.') {
            i++;
            size_t fs = i;
            while (i < n && p[i] >= '0' && p[i] <= '9') {
                if (scale < (__int128)1000000000000000000LL) { frac = frac * 10 + (p[i] - '0'); scale *= 10; }
                i++;
            }
            post = i > fs;
        }
        if (!pre && !post)
            return false;
        size_t us = i;
        while (i < n && !(p[i] == '.' || (p[i] >= '0' && p[i] <= '9')))
            i++;
        size_t ul = i - us;
        int64_t unit;
        if (ul == 2 && memcmp(p + us, "ns", 2) == 0) unit = 1;
        else if (ul == 2 && memcmp(p + us, "us", 2) == 0) unit = 1000;
        else if (ul == 3 && memcmp(p + us, "\xc2\xb5s", 3) == 0) unit = 1000;
        else if (ul == 3 && memcmp(p + us, "\xce\xbcs", 3) == 0) unit = 1000;
        else if (ul == 2 && memcmp(p + us, "ms", 2) == 0) unit = 1000000;
        else if (ul == 1 && p[us] == 's') unit = 1000000000LL;
        else if (ul == 1 && p[us] == 'm') unit = 60000000000LL;
        else if (ul == 1 && p[us] == 'h') unit = 3600000000000LL;
        else return false;
        total += whole * unit + frac * unit / scale;
        if (total > ((__int128)1 << 63))
            return false;
    }
    if (neg) total = -total;
    if (total > INT64_MAX || total < INT64_MIN)
        return false;
    *ns = (int64_t)total;
    return true;
}

dra_err *dra_duration_parse_go(const char *s, int64_t *ns)
{
    if (s && dra_duration_parse(s, strlen(s), ns))
        return NULL;
    return dra_err_new(DRA_EXIT_INPUT, "time: invalid duration \"%s\"", s ? s : "");
}

dra_err *dra_time_now_or(const char *rfc3339, int64_t *out_ns)
{
    if (rfc3339) {
        return dra_err_param(dra_time_parse(rfc3339, out_ns), "now");
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *out_ns = (int64_t)ts.tv_sec * DRA_NSEC_PER_SEC + ts.tv_nsec;
    return NULL;
}
