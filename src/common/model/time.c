/* RFC 3339 times and durations; see time.h. */
#include "time.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)**p))
            return -1;
        v = v * 10 + (**p - '0');
        (*p)++;
    }
    *out = v;
    return 0;
}

dra_err *dra_time_parse(const char *s, int64_t *out_ns)
{
    const char *p = s;
    int Y, M, D, h, m, sec;
    int64_t frac = 0;
    if (!s)
        return dra_err_new(DRA_EXIT_INPUT, "missing time");
    if (digits(&p, 4, &Y) || *p++ != '-' || digits(&p, 2, &M) || *p++ != '-' || digits(&p, 2, &D) ||
        (*p != 'T' && *p != 't') || !*p++ || digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &m) ||
        *p++ != ':' || digits(&p, 2, &sec))
        goto bad;
    if (*p == '.') {
        p++;
        int64_t scale = 100000000;
        if (!isdigit((unsigned char)*p))
            goto bad;
        while (isdigit((unsigned char)*p)) {
            frac += (*p - '0') * scale;
            scale /= 10;
            p++;
        }
    }
    int offset = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1, oh, om;
        if (digits(&p, 2, &oh) || *p++ != ':' || digits(&p, 2, &om) || oh > 23 || om > 59)
            goto bad;
        offset = sign * (oh * 3600 + om * 60);
    } else {
        goto bad;
    }
    if (*p || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
        goto bad;
    struct tm tm = {0};
    tm.tm_year = Y - 1900;
    tm.tm_mon = M - 1;
    tm.tm_mday = D;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = sec;
    time_t t = timegm(&tm);
    *out_ns = ((int64_t)t - offset) * DRA_NSEC_PER_SEC + frac;
    return NULL;
bad:
    return dra_err_new(DRA_EXIT_INPUT, "parsing time \"%s\" as RFC3339 (\"2006-01-02T15:04:05Z07:00\"): invalid format", s);
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
