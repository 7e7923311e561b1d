/* Fuzz the Quantity parser: anything it accepts must print (String() and
 * the canonical form) to text that parses back to an equal value, the
 * canonical form must be a fixed point, and the accessors and arithmetic
 * must hold their invariants on whatever was parsed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/quantity.h"

static dra_quantity reparse(const char *text)
{
    dra_quantity q;
    dra_err *e = dra_quantity_parse_as(NULL, text, &q);
    if (e)
        abort(); /* printed text must parse */
    return q;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dra_quantity q;
    dra_err *e = dra_quantity_parse_rules((const char *)data, size, DRA_QUANTITY_RULES_137, &q);
    if (e) {
        dra_err_free(e);
        return 0;
    }
    char s[DRA_QUANTITY_STRMAX], c[DRA_QUANTITY_STRMAX], c2[DRA_QUANTITY_STRMAX];
    dra_quantity_format(&q, s);
    dra_quantity_format_canonical(&q, c);
    if (strlen(s) >= DRA_QUANTITY_STRMAX || strlen(c) >= DRA_QUANTITY_STRMAX)
        abort();
    dra_quantity a = reparse(s), b = reparse(c);
    if (dra_quantity_cmp(&q, &a) != 0 || dra_quantity_cmp(&q, &b) != 0)
        abort();
    /* A binary SI value printed without suffix reads back as decimal SI, so
     * the canonical text is a fixed point from the second round on. */
    char c3[DRA_QUANTITY_STRMAX];
    dra_quantity_format_canonical(&b, c2);
    dra_quantity b2 = reparse(c2);
    dra_quantity_format_canonical(&b2, c3);
    if (strcmp(c2, c3) != 0 || dra_quantity_cmp(&b2, &q) != 0)
        abort();
    if (dra_quantity_sign(&q) != dra_quantity_cmp(&q, &(dra_quantity){0}))
        abort();

    int64_t v, m;
    (void)dra_quantity_as_float(&q);
    (void)dra_quantity_value(&q, &v);
    /* An exact milli value is MilliValue() and reads back as the value. */
    if (dra_quantity_milli_exact(&q, &m)) {
        dra_quantity x = dra_quantity_from_milli(m, q.format);
        if (!dra_quantity_milli_value(&q, &v) || v != m || dra_quantity_cmp(&x, &q) != 0)
            abort();
    }
    if (dra_quantity_as_int64(&q, &v)) {
        dra_quantity i = dra_quantity_from_int64(v, DRA_QFMT_DECIMAL_SI);
        if (dra_quantity_cmp(&i, &q) != 0)
            abort();
    }

    dra_quantity r, back;
    if (!dra_quantity_sub(&r, &q, &q) || !dra_quantity_is_zero(&r))
        abort();
    if (dra_quantity_add(&r, &q, &q)) {
        if (!dra_quantity_sub(&back, &r, &q) || dra_quantity_cmp(&back, &q) != 0)
            abort();
        /* Parsing caps binary SI at 2^63-1, so a larger binary SI sum
         * (e.g. "10Ei") does not read back (kubernetes#140674). */
        dra_quantity cap = dra_quantity_from_int64(INT64_MAX, DRA_QFMT_DECIMAL_SI), neg_cap;
        dra_quantity zero = {0};
        dra_quantity_sub(&neg_cap, &zero, &cap);
        bool capped =
            r.format == DRA_QFMT_BINARY_SI && (dra_quantity_cmp(&r, &cap) > 0 || dra_quantity_cmp(&r, &neg_cap) < 0);
        dra_quantity_format(&r, s);
        a = reparse(s);
        if (!capped && dra_quantity_cmp(&a, &r) != 0)
            abort();
    }
    return 0;
}
