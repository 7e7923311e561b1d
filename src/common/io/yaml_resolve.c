/* How go-yaml v2 (which sigs.k8s.io/yaml uses) resolves a plain scalar:
 * the YAML reader's values and the field lookups' number texts. */
#include "yaml_resolve.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"

static bool all_digits(const char *s, const char *digits)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!strchr(digits, *s))
            return false;
    return true;
}

static bool is_one_of(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (strcmp(s, *words) == 0)
            return true;
    return false;
}

static const char *const yaml_true[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL};
/* clang-format off */
static const char *const yaml_false[] = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL};
/* clang-format on */
static const char *const yaml_null[] = {"", "~", "null", "Null", "NULL", NULL};
/* clang-format off */
static const char *const yaml_special_float[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
                                                 "-.Inf", "-.INF", ".nan", ".NaN", ".NAN", NULL};
/* clang-format on */

/* Go's rule for underscores in a number (strconv underscoreOK): each one
 * has a digit on both sides. */
static bool underscores_between_digits(const char *s)
{
    for (const char *p = strchr(s, '_'); p; p = strchr(p + 1, '_'))
        if (p == s || !isdigit((unsigned char)p[-1]) || !isdigit((unsigned char)p[1]))
            return false;
    return true;
}

/* What a plain scalar resolves to, allocating nothing: for an integer its
 * value in *ival, for an unsigned integer past int64 (go-yaml keeps it as a
 * uint64 with all its digits: resolve.go, strconv.ParseUint, no sign
 * allowed) its value in *big, for a float its value in *dval. */
static dra_yaml_plain plain_kind(const char *s, long long *ival, unsigned long long *big, double *dval)
{
    char c = s[0];
    /* only these first characters can start a null, a boolean or a number */
    if (c && !strchr("~nNyYtTfFoO.+-0123456789", c))
        return DRA_YAML_PLAIN_STRING;
    if (is_one_of(s, yaml_null))
        return DRA_YAML_PLAIN_NULL;
    if (is_one_of(s, yaml_true))
        return DRA_YAML_PLAIN_TRUE;
    if (is_one_of(s, yaml_false))
        return DRA_YAML_PLAIN_FALSE;
    if (is_one_of(s, yaml_special_float))
        return DRA_YAML_PLAIN_SPECIAL;
    if (!(isdigit((unsigned char)c) || c == '-' || c == '+' || c == '.'))
        return DRA_YAML_PLAIN_STRING;
    if (c == '.' && !underscores_between_digits(s))
        return DRA_YAML_PLAIN_STRING; /* '.' goes to strconv.ParseFloat as written */
    /* numbers: underscores are ignored, as go-yaml v2 does */
    char tmp[128];
    size_t n = 0;
    for (const char *p = s; *p && n + 1 < sizeof tmp; p++)
        if (*p != '_')
            tmp[n++] = *p;
    if (strlen(s) >= sizeof tmp)
        return DRA_YAML_PLAIN_STRING;
    tmp[n] = '\0';
    const char *body = tmp + (tmp[0] == '-' || tmp[0] == '+');
    bool neg = tmp[0] == '-';
    int base = 10;
    const char *digits = body;
    if (body[0] == '0' && (body[1] == 'x' || body[1] == 'X') && all_digits(body + 2, "0123456789abcdefABCDEF"))
        base = 16, digits = body + 2;
    else if (body[0] == '0' && (body[1] == 'o' || body[1] == 'O') && all_digits(body + 2, "01234567"))
        base = 8, digits = body + 2;
    else if (body[0] == '0' && (body[1] == 'b' || body[1] == 'B') && all_digits(body + 2, "01"))
        base = 2, digits = body + 2;
    else if (body[0] == '0' && body[1] && all_digits(body + 1, "01234567"))
        base = 8, digits = body + 1;
    else if (!all_digits(body, "0123456789"))
        base = 0;
    if (base) {
        errno = 0;
        unsigned long long u = strtoull(digits, NULL, base);
        if (errno == 0 && (neg ? u <= (unsigned long long)INT64_MAX + 1 : u <= (unsigned long long)INT64_MAX)) {
            *ival = neg ? (long long)(0 - u) : (long long)u;
            return DRA_YAML_PLAIN_INT;
        }
        if (errno == 0 && tmp[0] != '-' && tmp[0] != '+') {
            /* a uint64: a number, its digits kept in the text
             * (dra_obj_field_literal) */
            *big = u;
            return DRA_YAML_PLAIN_BIG_UINT;
        }
        /* too large for int64: fall through to a float, as go-yaml does */
    }
    /* float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
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
        return DRA_YAML_PLAIN_STRING;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '-' || *p == '+')
            p++;
        if (!isdigit((unsigned char)*p))
            return DRA_YAML_PLAIN_STRING;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p)
        return DRA_YAML_PLAIN_STRING;
    *dval = strtod(tmp, NULL);
    if (!isfinite(*dval)) /* go-yaml v2 (resolve.go): a float ParseFloat refuses is a string */
        return DRA_YAML_PLAIN_STRING;
    return DRA_YAML_PLAIN_FLOAT;
}

dra_yaml_plain dra_yaml_plain_kind(const char *s)
{
    long long i;
    unsigned long long u;
    double d;
    return plain_kind(s, &i, &u, &d);
}

json_t *dra_yaml_resolve_plain(const char *s, bool *special)
{
    long long i = 0;
    unsigned long long u = 0;
    double d = 0;
    *special = false;
    switch (plain_kind(s, &i, &u, &d)) {
    case DRA_YAML_PLAIN_NULL: return json_null();
    case DRA_YAML_PLAIN_TRUE: return json_true();
    case DRA_YAML_PLAIN_FALSE: return json_false();
    case DRA_YAML_PLAIN_SPECIAL: *special = true; return NULL;
    case DRA_YAML_PLAIN_INT: return json_integer((json_int_t)i);
    case DRA_YAML_PLAIN_BIG_UINT: return json_real((double)u);
    case DRA_YAML_PLAIN_FLOAT: return json_real(d);
    case DRA_YAML_PLAIN_STRING: break;
    }
    return json_string(s);
}

/* encoding/json's text of a float64 (encode.go floatEncoder): the
 * shortest digits that read back as d, in 'f' form, or in 'e' form with
 * at least two exponent digits below 1e-6 and from 1e21 on. */
static char *go_json_float(double d)
{
    char sci[40];
    for (int prec = 0; prec <= 16; prec++) {
        snprintf(sci, sizeof sci, "%.*e", prec, d);
        if (strtod(sci, NULL) == d)
            break;
    }
    if (d == 0)
        return dra_xstrdup(signbit(d) ? "-0" : "0");
    /* sci is [-]D[.DDD]e(+|-)XX: split it into digits and exponent */
    const char *p = sci;
    bool neg = *p == '-';
    p += neg;
    char digits[24];
    int nd = 0;
    for (; *p != 'e'; p++)
        if (*p != '.')
            digits[nd++] = *p;
    int exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    dra_buf b = DRA_BUF_INIT;
    if (neg)
        dra_buf_putc(&b, '-');
    double a = fabs(d);
    if (a < 1e-6 || a >= 1e21) {
        dra_buf_putc(&b, digits[0]);
        if (nd > 1) {
            dra_buf_putc(&b, '.');
            dra_buf_append(&b, digits + 1, (size_t)nd - 1);
        }
        dra_buf_printf(&b, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
        /* encode.go trims e-07 to e-7 (only negative exponents) */
        if (exp < 0 && exp > -10) {
            b.data[b.len - 2] = b.data[b.len - 1];
            b.data[--b.len] = 0;
        }
    } else if (exp >= nd - 1) { /* an integer: the digits, then zeros */
        dra_buf_append(&b, digits, (size_t)nd);
        for (int i = nd - 1; i < exp; i++)
            dra_buf_putc(&b, '0');
    } else if (exp >= 0) {
        dra_buf_append(&b, digits, (size_t)exp + 1);
        dra_buf_putc(&b, '.');
        dra_buf_append(&b, digits + exp + 1, (size_t)(nd - exp - 1));
    } else {
        dra_buf_puts(&b, "0.");
        for (int i = -1; i > exp; i--)
            dra_buf_putc(&b, '0');
        dra_buf_append(&b, digits, (size_t)nd);
    }
    return dra_buf_detach(&b);
}

char *dra_yaml_plain_number_text(const char *s)
{
    long long i = 0;
    unsigned long long u = 0;
    double d = 0;
    switch (plain_kind(s, &i, &u, &d)) {
    case DRA_YAML_PLAIN_BIG_UINT: return dra_xasprintf("%llu", u);
    case DRA_YAML_PLAIN_FLOAT: return go_json_float(d);
    default: return NULL;
    }
}
