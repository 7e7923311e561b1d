/* RFC 3339 times and durations; see time.h.  The reader follows Go's
 * time.Parse for the layout "2006-01-02T15:04:05Z07:00" step by step (its
 * general path: what it accepts is a superset of the RFC 3339 fast path's,
 * with the same result), and its errors are Go's. */
#include "time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/buf.h"

static const char RFC3339_LAYOUT[] = "2006-01-02T15:04:05Z07:00";

/* ---- the calendar ---- */

/* Floor division of int64 by a positive divisor. */
static int64_t floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b < 0);
}
static int64_t floor_mod(int64_t a, int64_t b)
{
    return a % b < 0 ? a % b + b : a % b;
}

/* Howard Hinnant's days_from_civil, for any year whose days fit (|year| up
 * to about 2.5e16). */
int64_t dra_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = floor_div(y, 400);
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in(int m, int64_t y)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return mdays[m - 1] + (m == 2 && is_leap(y));
}

void dra_civil_from_unix(int64_t t, dra_civil *c)
{
    int64_t days = floor_div(t, 86400), rem = floor_mod(t, 86400);
    c->hour = (int)(rem / 3600);
    c->min = (int)(rem / 60 % 60);
    c->sec = (int)(rem % 60);
    c->wday = (int)floor_mod(days + 4, 7); /* 1970-01-01 was a Thursday */
    /* civil_from_days; days + 719468 cannot overflow: |days| < 2^63 / 86400 */
    int64_t z = days + 719468;
    int64_t era = floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    c->day = (int)(doy - (153 * mp + 2) / 5 + 1);
    c->month = (int)(mp < 10 ? mp + 3 : mp - 9);
    c->year = yoe + era * 400 + (c->month <= 2);
    static const int cum[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    c->yday = cum[c->month - 1] + c->day - 1 + (is_leap(c->year) && c->month > 2);
}

/* ---- times ---- */

int dra_time_cmp(dra_time a, dra_time b)
{
    if (a.sec != b.sec)
        return a.sec < b.sec ? -1 : 1;
    return (a.nsec > b.nsec) - (a.nsec < b.nsec);
}

dra_time dra_time_add(dra_time t, int64_t d)
{
    int64_t dsec = d / DRA_NSEC_PER_SEC;
    int64_t nsec = t.nsec + d % DRA_NSEC_PER_SEC;
    if (nsec >= DRA_NSEC_PER_SEC) {
        dsec++;
        nsec -= DRA_NSEC_PER_SEC;
    } else if (nsec < 0) {
        dsec--;
        nsec += DRA_NSEC_PER_SEC;
    }
    int64_t sec;
    if (__builtin_add_overflow(t.sec, dsec, &sec))
        return dsec > 0 ? (dra_time){INT64_MAX, 999999999} : (dra_time){INT64_MIN, 0};
    return (dra_time){sec, (int32_t)nsec};
}

int64_t dra_time_sub(dra_time a, dra_time b)
{
    __int128 d = ((__int128)a.sec - b.sec) * DRA_NSEC_PER_SEC + (a.nsec - b.nsec);
    if (d > INT64_MAX)
        return INT64_MAX;
    if (d < INT64_MIN)
        return INT64_MIN;
    return (int64_t)d;
}

int64_t dra_time_sub_sec(dra_time a, dra_time b)
{
    __int128 d = (__int128)a.sec - b.sec;
    if (d > 0 && a.nsec < b.nsec)
        d--;
    else if (d < 0 && a.nsec > b.nsec)
        d++;
    return d > INT64_MAX ? INT64_MAX : d < INT64_MIN ? INT64_MIN : (int64_t)d;
}

int64_t dra_duration_of_seconds(int64_t s)
{
    return (int64_t)((uint64_t)s * (uint64_t)DRA_NSEC_PER_SEC); /* two's complement wrap, as Go */
}

dra_time dra_time_from_ns(int64_t ns)
{
    return (dra_time){floor_div(ns, DRA_NSEC_PER_SEC), (int32_t)floor_mod(ns, DRA_NSEC_PER_SEC)};
}

/* ---- reading ---- */

/* Go's time.quote: bytes outside printable ASCII as \xHH, '"' and '\\'
 * escaped. */
static void time_quote(dra_buf *b, const char *s, size_t n)
{
    dra_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < ' ' || c >= 0x80) {
            dra_buf_printf(b, "\\x%02x", c);
        } else {
            if (c == '"' || c == '\\')
                dra_buf_putc(b, '\\');
            dra_buf_putc(b, (char)c);
        }
    }
    dra_buf_putc(b, '"');
}

/* Go's ParseError text: `parsing time "V" as "LAYOUT": cannot parse "REST"
 * as "ELEM"`, or with a message: `parsing time "V"MESSAGE`, where a message
 * "extra text" quotes the rest. */
static dra_err *parse_error(const char *v, size_t n, size_t at, const char *elem, const char *message)
{
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, "parsing time ");
    time_quote(&b, v, n);
    if (message) {
        dra_buf_puts(&b, message);
        if (strcmp(message, ": extra text: ") == 0)
            time_quote(&b, v + at, n - at);
    } else {
        dra_buf_puts(&b, " as ");
        time_quote(&b, RFC3339_LAYOUT, sizeof RFC3339_LAYOUT - 1);
        dra_buf_puts(&b, ": cannot parse ");
        time_quote(&b, v + at, n - at);
        dra_buf_puts(&b, " as ");
        time_quote(&b, elem, strlen(elem));
    }
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, "%s", b.data);
    dra_buf_free(&b);
    return e;
}

static bool digit_at(const char *s, size_t n, size_t i)
{
    return i < n && s[i] >= '0' && s[i] <= '9';
}

/* Go's getnum at s[*i]: one or two digits (two when fixed); false (nothing
 * consumed) when there is no number. */
static bool getnum(const char *s, size_t n, size_t *i, bool fixed, int *out)
{
    if (!digit_at(s, n, *i))
        return false;
    if (!digit_at(s, n, *i + 1)) {
        if (fixed)
            return false;
        *out = s[(*i)++] - '0';
        return true;
    }
    *out = (s[*i] - '0') * 10 + (s[*i + 1] - '0');
    *i += 2;
    return true;
}

dra_err *dra_time_parse_n(const char *s, size_t n, dra_time *out)
{
    /* the layout's elements in order: a literal to skip, then a number */
    static const struct {
        char lit;         /* 0: none */
        const char *elem; /* the layout element */
        bool fixed;       /* two digits */
        int max;          /* out of range when >= max (0: checked later) */
        const char *range;
    } steps[] = {
        {0, "2006", true, 0, NULL},
        {'-', "01", true, 13, ": month out of range"},
        {'-', "02", true, 0, NULL},
        {'T', "15", false, 24, ": hour out of range"},
        {':', "04", true, 60, ": minute out of range"},
        {':', "05", true, 60, ": second out of range"},
    };
    int v[6] = {0};
    size_t i = 0;
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        if (steps[k].lit) {
            if (i >= n || s[i] != steps[k].lit) {
                char lit[2] = {steps[k].lit, 0};
                return parse_error(s, n, i, lit, NULL);
            }
            i++;
        }
        if (k == 0) { /* stdLongYear: four bytes, the first a digit, all digits */
            bool ok = n - i >= 4 && digit_at(s, n, i);
            for (size_t j = 1; ok && j < 4; j++)
                ok = digit_at(s, n, i + j);
            if (!ok)
                return parse_error(s, n, i, steps[k].elem, NULL);
            v[0] = (s[i] - '0') * 1000 + (s[i + 1] - '0') * 100 + (s[i + 2] - '0') * 10 + (s[i + 3] - '0');
            i += 4;
            continue;
        }
        size_t hold = i;
        if (!getnum(s, n, &i, steps[k].fixed, &v[k]))
            return parse_error(s, n, hold, steps[k].elem, NULL);
        if (steps[k].max && (v[k] >= steps[k].max || (k == 1 && v[k] == 0)))
            return parse_error(s, n, i, steps[k].elem, steps[k].range);
    }
    /* a fraction the layout does not have: '.' or ',' then digits, the
     * first nine used */
    int32_t nsec = 0;
    if (n - i >= 2 && (s[i] == '.' || s[i] == ',') && digit_at(s, n, i + 1)) {
        size_t j = i + 1;
        int32_t scale = 100000000;
        for (; digit_at(s, n, j); j++) {
            if (j - i <= 9) {
                nsec += (s[j] - '0') * scale;
                scale /= 10;
            }
        }
        i = j;
    }
    /* Z07:00 */
    int64_t offset = 0;
    if (i < n && s[i] == 'Z') {
        i++;
    } else {
        size_t hold = i;
        if (n - i < 6 || s[i + 3] != ':')
            return parse_error(s, n, hold, "Z07:00", NULL);
        size_t h = i + 1, m = i + 4;
        int hr = 0, mm = 0;
        bool ok = getnum(s, n, &h, true, &hr) && h == i + 3;
        ok = ok && getnum(s, n, &m, true, &mm) && m == i + 6;
        char sign = s[i];
        i += 6;
        /* Go checks the ranges (> 24, > 60: offsets of 24 hours or 60
         * minutes are written) before the sign, the minute's last */
        if (mm > 60)
            return parse_error(s, n, i, NULL, ": time zone offset minute out of range");
        if (hr > 24)
            return parse_error(s, n, i, NULL, ": time zone offset hour out of range");
        if (!ok || (sign != '+' && sign != '-'))
            return parse_error(s, n, hold, "Z07:00", NULL);
        offset = (int64_t)(hr * 60 + mm) * 60 * (sign == '-' ? -1 : 1);
    }
    if (i != n)
        return parse_error(s, n, i, NULL, ": extra text: ");
    if (v[2] < 1 || v[2] > days_in(v[1], v[0]))
        return parse_error(s, n, i, NULL, ": day out of range");
    out->sec = dra_days_from_civil(v[0], v[1], v[2]) * 86400 + v[3] * 3600 + v[4] * 60 + v[5] - offset;
    out->nsec = nsec;
    return NULL;
}

dra_err *dra_time_parse(const char *s, dra_time *out)
{
    if (!s)
        return dra_err_new(DRA_EXIT_INPUT, "missing time");
    return dra_time_parse_n(s, strlen(s), out);
}

/* ---- writing ---- */

/* v in decimal, zero-padded to width digits, at o; returns the end. */
static char *put_padded(char *o, uint64_t v, int width)
{
    char num[24];
    int n = 0;
    do
        num[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n < width)
        num[n++] = '0';
    while (n)
        *o++ = num[--n];
    return o;
}

static char *format(dra_time t, bool nanos)
{
    dra_civil c;
    dra_civil_from_unix(t.sec, &c);
    /* Go's appendInt(year, 4): a sign, then at least four digits */
    uint64_t y = c.year < 0 ? (uint64_t)0 - (uint64_t)c.year : (uint64_t)c.year;
    char out[64], *o = out;
    if (c.year < 0)
        *o++ = '-';
    o = put_padded(o, y, 4);
    const struct {
        char sep;
        int v;
    } parts[] = {{'-', c.month}, {'-', c.day}, {'T', c.hour}, {':', c.min}, {':', c.sec}};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        *o++ = parts[i].sep;
        o = put_padded(o, (uint64_t)parts[i].v, 2);
    }
    if (nanos) {
        *o++ = '.';
        o = put_padded(o, (uint64_t)t.nsec, 9);
    }
    *o++ = 'Z';
    return dra_xstrndup(out, (size_t)(o - out));
}

char *dra_time_format(dra_time t)
{
    return format(t, false);
}
char *dra_time_format_ns(dra_time t)
{
    return format(t, true);
}

/* ---- durations ---- */

char *dra_duration_format_sec(int64_t sec)
{
    uint64_t s = sec < 0 ? (uint64_t)0 - (uint64_t)sec : (uint64_t)sec;
    const char *sign = sec < 0 ? "-" : "";
    if (s < 60)
        return dra_xasprintf("%s%llus", sign, (unsigned long long)s);
    if (s < 3600)
        return dra_xasprintf("%s%llum%llus", sign, (unsigned long long)(s / 60), (unsigned long long)(s % 60));
    return dra_xasprintf("%s%lluh%llum%llus", sign, (unsigned long long)(s / 3600), (unsigned long long)(s / 60 % 60),
                         (unsigned long long)(s % 60));
}

typedef enum { DUR_OK, DUR_INVALID, DUR_MISSING_UNIT, DUR_UNKNOWN_UNIT } dur_status;

#define DUR_LIMIT ((uint64_t)1 << 63)

/* Go's ParseDuration; on DUR_UNKNOWN_UNIT the unit is at *unit, *unit_len. */
static dur_status parse_duration(const char *p, size_t n, int64_t *out, size_t *unit, size_t *unit_len)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (p[i] == '-' || p[i] == '+')) {
        neg = p[i] == '-';
        i++;
    }
    if (n - i == 1 && p[i] == '0') {
        *out = 0;
        return DUR_OK;
    }
    if (i == n)
        return DUR_INVALID;
    uint64_t d = 0;
    while (i < n) {
        if (!(p[i] == '.' || (p[i] >= '0' && p[i] <= '9')))
            return DUR_INVALID;
        /* leadingInt: an error past 1<<63 */
        uint64_t v = 0;
        size_t st = i;
        for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
            if (v > DUR_LIMIT / 10)
                return DUR_INVALID;
            v = v * 10 + (uint64_t)(p[i] - '0');
            if (v > DUR_LIMIT)
                return DUR_INVALID;
        }
        bool pre = i > st, post = false;
        /* leadingFraction: stops taking digits before it would overflow */
        uint64_t f = 0;
        double scale = 1;
        if (i < n && p[i] == '.') {
            size_t fs = ++i;
            bool overflow = false;
            for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
                if (overflow)
                    continue;
                if (f > (DUR_LIMIT - 1) / 10) {
                    overflow = true;
                    continue;
                }
                uint64_t y = f * 10 + (uint64_t)(p[i] - '0');
                if (y > DUR_LIMIT) {
                    overflow = true;
                    continue;
                }
                f = y;
                scale *= 10;
            }
            post = i > fs;
        }
        if (!pre && !post)
            return DUR_INVALID;
        size_t us = i;
        while (i < n && !(p[i] == '.' || (p[i] >= '0' && p[i] <= '9')))
            i++;
        size_t ul = i - us;
        if (ul == 0)
            return DUR_MISSING_UNIT;
        uint64_t u;
        const char *x = p + us;
        if (ul == 2 && memcmp(x, "ns", 2) == 0)
            u = 1;
        else if (ul == 2 && memcmp(x, "us", 2) == 0)
            u = 1000;
        else if (ul == 3 && memcmp(x, "\xc2\xb5s", 3) == 0)
            u = 1000; /* U+00B5 micro sign */
        else if (ul == 3 && memcmp(x, "\xce\xbcs", 3) == 0)
            u = 1000; /* U+03BC Greek mu */
        else if (ul == 2 && memcmp(x, "ms", 2) == 0)
            u = 1000000;
        else if (ul == 1 && x[0] == 's')
            u = 1000000000;
        else if (ul == 1 && x[0] == 'm')
            u = 60000000000;
        else if (ul == 1 && x[0] == 'h')
            u = 3600000000000;
        else {
            *unit = us;
            *unit_len = ul;
            return DUR_UNKNOWN_UNIT;
        }
        if (v > DUR_LIMIT / u)
            return DUR_INVALID;
        v *= u;
        if (f > 0) {
            /* float64, as Go: exact to the nanosecond for fractions of hours */
            v += (uint64_t)((double)f * ((double)u / scale));
            if (v > DUR_LIMIT)
                return DUR_INVALID;
        }
        d += v;
        if (d > DUR_LIMIT)
            return DUR_INVALID;
    }
    if (neg) {
        *out = (int64_t)((uint64_t)0 - d); /* -(1<<63) is INT64_MIN */
        return DUR_OK;
    }
    if (d > DUR_LIMIT - 1)
        return DUR_INVALID;
    *out = (int64_t)d;
    return DUR_OK;
}

bool dra_duration_parse(const char *p, size_t n, int64_t *ns)
{
    size_t u, ul;
    return parse_duration(p, n, ns, &u, &ul) == DUR_OK;
}

dra_err *dra_duration_parse_go(const char *s, int64_t *ns)
{
    size_t n = s ? strlen(s) : 0, u = 0, ul = 0;
    dur_status st = s ? parse_duration(s, n, ns, &u, &ul) : DUR_INVALID;
    if (st == DUR_OK)
        return NULL;
    dra_buf b = DRA_BUF_INIT;
    if (st == DUR_MISSING_UNIT) {
        dra_buf_puts(&b, "time: missing unit in duration ");
    } else if (st == DUR_UNKNOWN_UNIT) {
        dra_buf_puts(&b, "time: unknown unit ");
        time_quote(&b, s + u, ul);
        dra_buf_puts(&b, " in duration ");
    } else {
        dra_buf_puts(&b, "time: invalid duration ");
    }
    time_quote(&b, s ? s : "", n);
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, "%s", b.data);
    dra_buf_free(&b);
    return e;
}

dra_time dra_time_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (dra_time){(int64_t)ts.tv_sec, (int32_t)ts.tv_nsec};
}

dra_err *dra_time_now_or(const char *rfc3339, dra_time *out)
{
    if (rfc3339)
        return dra_err_param(dra_time_parse(rfc3339, out), "now");
    *out = dra_time_now();
    return NULL;
}

/* digits with at most one '.', and at least one digit: seconds */
static bool plain_seconds(const char *s)
{
    size_t digits = 0, dots = 0;
    for (; *s; s++) {
        if (*s >= '0' && *s <= '9')
            digits++;
        else if (*s == '.')
            dots++;
        else
            return false;
    }
    return digits > 0 && dots <= 1;
}

dra_err *dra_duration_arg(const char *s, int64_t *ns)
{
    bool ok = false;
    if (s && plain_seconds(s)) {
        char *go = dra_xasprintf("%ss", s);
        ok = dra_duration_parse(go, strlen(go), ns);
        free(go);
    } else if (s) {
        ok = dra_duration_parse(s, strlen(s), ns);
    }
    if (ok)
        return NULL;
    return dra_err_new(DRA_EXIT_INPUT,
                       "invalid duration \"%s\" (want seconds or a Go duration such as 30s, 500ms, 1h2m3.5s)",
                       s ? s : "");
}
