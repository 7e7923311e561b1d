/* When a string needs quotes in YAML output.  go-yaml v2's encoder
 * (go.yaml.in/yaml/v2 encode.go stringv, used by sigs.k8s.io/yaml and so by
 * kubectl -o yaml) writes a string plain only when resolve() gives it the
 * string tag and it is not a base-60 float; resolve() tries a timestamp
 * (resolve.go parseTimestamp: time.Parse with four layouts) before numbers.
 * The reader keeps timestamps as strings, so only the writer asks here. */
#include "yaml_quote.h"

#include <ctype.h>
#include <string.h>

#include "read_yaml.h"

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

/* time.Parse's getnum for a non-padded field: one or two digits. */
static bool num12(const char **p, int *v)
{
    const char *s = *p;
    if (!digit(s[0]))
        return false;
    if (!digit(s[1])) {
        *v = s[0] - '0';
        *p = s + 1;
        return true;
    }
    *v = (s[0] - '0') * 10 + (s[1] - '0');
    *p = s + 2;
    return true;
}

static int days_in(int month, int year)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    return month == 2 && leap ? 29 : days[month - 1];
}

/* "15:4:5" then an optional ".999999999" (a period or comma and digits). */
static bool clock(const char **p)
{
    int h, m, s;
    if (!num12(p, &h) || h > 23 || **p != ':')
        return false;
    (*p)++;
    if (!num12(p, &m) || m > 59 || **p != ':')
        return false;
    (*p)++;
    if (!num12(p, &s) || s > 59)
        return false;
    if ((**p == '.' || **p == ',') && digit((*p)[1])) {
        (*p)++;
        while (digit(**p))
            (*p)++;
    }
    return true;
}

/* "Z07:00": Z, or a sign and a two-digit hour and minute (time.Parse lets
 * the hour reach 24 and the minute 60). */
static bool zone(const char **p)
{
    const char *s = *p;
    if (s[0] == 'Z') {
        *p = s + 1;
        return true;
    }
    if (strlen(s) < 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':')
        return false;
    if (!digit(s[1]) || !digit(s[2]) || !digit(s[4]) || !digit(s[5]))
        return false;
    int h = (s[1] - '0') * 10 + (s[2] - '0'), m = (s[4] - '0') * 10 + (s[5] - '0');
    *p = s + 6;
    return h <= 24 && m <= 60;
}

/* One of go-yaml v2's timestamp layouts: "2006-1-2T15:4:5.999999999Z07:00",
 * the same with "t", "2006-1-2 15:4:5.999999999" (a run of spaces), or
 * "2006-1-2"; the day must exist in that month. */
static bool timestamp(const char *s)
{
    for (int i = 0; i < 4; i++)
        if (!digit(s[i]))
            return false;
    if (s[4] != '-')
        return false;
    int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    const char *p = s + 5;
    int month, day;
    if (!num12(&p, &month) || month < 1 || month > 12 || *p != '-')
        return false;
    p++;
    if (!num12(&p, &day))
        return false;
    if (*p == 'T' || *p == 't') {
        p++;
        if (!clock(&p) || !zone(&p))
            return false;
    } else if (*p == ' ') {
        while (*p == ' ')
            p++;
        if (!clock(&p))
            return false;
    }
    return *p == '\0' && day >= 1 && day <= days_in(month, year);
}

/* ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$ (encode.go isBase60Float) */
static bool base60_float(const char *s)
{
    const char *p = s + (*s == '-' || *s == '+');
    if (!digit(*p))
        return false;
    while (digit(*p) || *p == '_')
        p++;
    if (*p != ':')
        return false;
    while (*p == ':') {
        p++;
        if (!digit(*p))
            return false;
        if (*p <= '5' && digit(p[1]))
            p++;
        p++;
    }
    if (*p == '.') {
        p++;
        while (digit(*p) || *p == '_')
            p++;
    }
    return *p == '\0';
}

bool dra_yaml_plain_would_change(const char *s)
{
    return dra_yaml_plain_kind(s) != DRA_YAML_PLAIN_STRING || timestamp(s) || base60_float(s);
}
