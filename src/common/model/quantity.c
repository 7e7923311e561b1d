/* Kubernetes resource.Quantity, see quantity.h.
 *
 * Representation.  A quantity keeps its exact value in normalized form
 * (sign, magnitude without trailing decimal zeros, decimal exponent), which
 * makes comparison and printing independent of how the value was written.
 * Next to it we remember what upstream would hold internally, because two of
 * upstream's accessors depend on it (quantity.go, amount.go):
 *  - dec_backed: upstream keeps an int64Amount{value, scale} when the parse
 *    fast path or int64 arithmetic succeeded, an inf.Dec otherwise;
 *  - rep_scale: that representation's base-10 scale, so upstream's unscaled
 *    integer is |value| / 10^rep_scale.
 * AsInt64 and AsApproximateFloat64 are computed from that pair exactly as
 * upstream computes them.
 *
 * Arithmetic on magnitudes uses a small fixed-size bignum on the stack.
 */
#include "quantity.h"
#include "features.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* ---- fixed-size unsigned bignum ---------------------------------------- */

#define BN_LIMBS 40  /* 1280 bits: room for the ~310 digits of a float64 conversion */
#define MAG_LIMBS 10 /* limbs stored in a dra_quantity */

typedef struct {
    uint32_t d[BN_LIMBS]; /* little-endian base 2^32 */
    int n;                /* limbs in use; d[n-1] != 0 when n > 0 */
} bignum;

static void bn_trim(bignum *a)
{
    while (a->n > 0 && a->d[a->n - 1] == 0)
        a->n--;
}

static void bn_set_u64(bignum *a, uint64_t v)
{
    a->d[0] = (uint32_t)v;
    a->d[1] = (uint32_t)(v >> 32);
    a->n = 2;
    bn_trim(a);
}

static bool bn_is_zero(const bignum *a)
{
    return a->n == 0;
}

/* a = a * m + add; false when the result needs more than BN_LIMBS limbs. */
static bool bn_mul_add_small(bignum *a, uint32_t m, uint32_t add)
{
    uint64_t carry = add;
    for (int i = 0; i < a->n; i++) {
        uint64_t t = (uint64_t)a->d[i] * m + carry;
        a->d[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry) {
        if (a->n >= BN_LIMBS)
            return false;
        a->d[a->n++] = (uint32_t)carry;
    }
    return true;
}

/* a = a / d, returns the remainder. */
static uint32_t bn_div_small(bignum *a, uint32_t d)
{
    uint64_t rem = 0;
    for (int i = a->n - 1; i >= 0; i--) {
        uint64_t cur = (rem << 32) | a->d[i];
        a->d[i] = (uint32_t)(cur / d);
        rem = cur % d;
    }
    bn_trim(a);
    return (uint32_t)rem;
}

static int bn_cmp(const bignum *a, const bignum *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->d[i] != b->d[i])
            return a->d[i] < b->d[i] ? -1 : 1;
    return 0;
}

/* r = a + b (r may alias either); false on overflow. */
static bool bn_add(bignum *r, const bignum *a, const bignum *b)
{
    int n = a->n > b->n ? a->n : b->n;
    uint64_t carry = 0;
    for (int i = 0; i < n; i++) {
        uint64_t t = carry + (i < a->n ? a->d[i] : 0) + (i < b->n ? b->d[i] : 0);
        r->d[i] = (uint32_t)t;
        carry = t >> 32;
    }
    r->n = n;
    if (carry) {
        if (n >= BN_LIMBS)
            return false;
        r->d[r->n++] = 1;
    }
    return true;
}

/* r = a - b for a >= b (r may alias either). */
static void bn_sub(bignum *r, const bignum *a, const bignum *b)
{
    int64_t borrow = 0;
    for (int i = 0; i < a->n; i++) {
        int64_t t = (int64_t)a->d[i] - (i < b->n ? b->d[i] : 0) - borrow;
        borrow = t < 0;
        r->d[i] = (uint32_t)(t + (borrow ? ((int64_t)1 << 32) : 0));
    }
    r->n = a->n;
    bn_trim(r);
}

/* clang-format off */
static const uint32_t pow10_u32[10] = {1,      10,      100,      1000,      10000,
                                       100000, 1000000, 10000000, 100000000, 1000000000};
/* clang-format on */

/* a *= 10^k; false on overflow. */
static bool bn_mul_pow10(bignum *a, int64_t k)
{
    if (bn_is_zero(a) || k == 0)
        return true;
    if (k < 0 || k > BN_LIMBS * 10)
        return false;
    for (; k >= 9; k -= 9)
        if (!bn_mul_add_small(a, pow10_u32[9], 0))
            return false;
    return bn_mul_add_small(a, pow10_u32[k], 0);
}

/* Decimal digits of a into out (no NUL); returns the count.  "0" for zero. */
static size_t bn_to_dec(const bignum *a, char *out, size_t cap)
{
    bignum t = *a;
    char rev[BN_LIMBS * 10 + 1];
    size_t n = 0;
    if (bn_is_zero(&t))
        rev[n++] = '0';
    while (!bn_is_zero(&t)) {
        uint32_t chunk = bn_div_small(&t, 1000000000u);
        for (int i = 0; i < 9 && (chunk || !bn_is_zero(&t)); i++) {
            rev[n++] = (char)('0' + chunk % 10);
            chunk /= 10;
        }
    }
    if (n > cap)
        n = cap;
    for (size_t i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    return n;
}

/* clang-format off */
static const uint64_t pow10_u64[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
    10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
    1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
    10000000000000000000ull};
/* clang-format on */

/* Decimal digits of v > 0: estimated from the bit length (log10(2) ~
 * 1233/4096), then corrected by one comparison. */
static int u64_digits(uint64_t v)
{
    int bits = 64 - __builtin_clzll(v);
    int d = (bits * 1233) >> 12; /* digits - 1 or digits */
    return d + (d < 20 && v >= pow10_u64[d]);
}

/* Decimal digits of a (0 for zero), counted numerically: 9 per division by
 * 10^9 until the rest fits 64 bits (no decimal text, comparisons use it). */
static int bn_digits(const bignum *a)
{
    if (bn_is_zero(a))
        return 0;
    int digits = 0;
    bignum t;
    const bignum *cur = a;
    if (a->n > 2) {
        t = *a;
        while (t.n > 2) {
            bn_div_small(&t, 1000000000u);
            digits += 9;
        }
        cur = &t;
    }
    uint64_t rest = ((uint64_t)(cur->n > 1 ? cur->d[1] : 0) << 32) | (cur->n > 0 ? cur->d[0] : 0);
    return digits + u64_digits(rest); /* rest > 0: a quotient of a value >= 2^64 by 10^9 */
}

/* Divide out factors of 10; returns how many. */
static int64_t bn_strip_zeros(bignum *a)
{
    int64_t count = 0;
    if (bn_is_zero(a))
        return 0;
    for (;;) {
        bignum t = *a;
        if (bn_div_small(&t, 10) != 0)
            return count;
        *a = t;
        count++;
    }
}

/* Nearest float64 (ties to even), +Inf past the range: what Go's
 * big.Float.SetInt(x).Float64() gives. */
static double bn_to_double(const bignum *a)
{
    if (a->n <= 2)
        return (double)(((uint64_t)(a->n > 1 ? a->d[1] : 0) << 32) | (a->n > 0 ? a->d[0] : 0));
    int top_bits = 32 - __builtin_clz(a->d[a->n - 1]);
    int bitlen = (a->n - 1) * 32 + top_bits;
    /* Top 64 bits, with every lower bit folded into a sticky bit so that
     * the one rounding step below is exact. */
    int shift = bitlen - 64;
    uint64_t top = 0;
    bool sticky = false;
    for (int bit = bitlen - 1; bit >= 0; bit--) {
        uint32_t limb = a->d[bit / 32];
        unsigned v = (limb >> (bit % 32)) & 1u;
        if (bit >= shift)
            top = (top << 1) | v;
        else if (v) {
            sticky = true;
            break;
        }
    }
    if (sticky)
        top |= 1;
    return ldexp((double)top, shift);
}

/* ---- quantity value helpers ------------------------------------------- */

static void mag_to_bn(const dra_quantity *q, bignum *out)
{
    memset(out->d, 0, sizeof out->d);
    memcpy(out->d, q->mag, sizeof q->mag);
    out->n = MAG_LIMBS;
    bn_trim(out);
}

/* Set q's value to sign * m * 10^exp (m is normalized here); false when the
 * value is beyond our range.  Leaves the representation fields alone. */
static bool q_set_value(dra_quantity *q, int sign, bignum *m, int64_t exp)
{
    if (bn_is_zero(m) || sign == 0) {
        memset(q->mag, 0, sizeof q->mag);
        q->exp = 0;
        q->sign = 0;
        return true;
    }
    exp += bn_strip_zeros(m);
    if (m->n > MAG_LIMBS || bn_digits(m) > DRA_QUANTITY_DIGITS)
        return false;
    /* Keep headroom so canonical printing (exponent rounded down to a
     * multiple of 3) never leaves int32. */
    if (exp > INT32_MAX || exp < (int64_t)INT32_MIN + 3)
        return false;
    memset(q->mag, 0, sizeof q->mag);
    memcpy(q->mag, m->d, (size_t)m->n * sizeof m->d[0]);
    q->exp = (int32_t)exp;
    q->sign = (int8_t)(sign < 0 ? -1 : 1);
    return true;
}

/* digits(mag) + exp: |value| lies in [10^(order-1), 10^order). */
static int64_t q_order(const dra_quantity *q)
{
    bignum m;
    mag_to_bn(q, &m);
    return bn_digits(&m) + (int64_t)q->exp;
}

/* Any limb of q's magnitude above the low 64 bits is set. */
static bool high_limbs(const dra_quantity *q)
{
    uint32_t any = 0;
    for (size_t i = 2; i < MAG_LIMBS; i++)
        any |= q->mag[i];
    return any != 0;
}

/* cmp_magnitude of magnitudes wider than 64 bits or of exponents too far
 * apart for 128 bits: as bignums (a frame of two, kept out of the common
 * path). */
static __attribute__((noinline)) int cmp_magnitude_wide(const dra_quantity *a, const dra_quantity *b)
{
    int64_t oa = q_order(a), ob = q_order(b);
    if (oa != ob)
        return oa < ob ? -1 : 1;
    /* Same order of magnitude, so the exponents differ by less than
     * DRA_QUANTITY_DIGITS and alignment fits. */
    bignum ma, mb;
    mag_to_bn(a, &ma);
    mag_to_bn(b, &mb);
    if (a->exp > b->exp)
        bn_mul_pow10(&ma, (int64_t)a->exp - b->exp);
    else
        bn_mul_pow10(&mb, (int64_t)b->exp - a->exp);
    return bn_cmp(&ma, &mb);
}

/* |a| <=> |b| for non-zero a and b.  Magnitudes of up to 64 bits (every
 * real capacity) compare in 128-bit arithmetic, of one exponent (a
 * fleet's capacity and a selector's quantity of one suffix) in 64; wider
 * ones as bignums. */
static inline int cmp_magnitude(const dra_quantity *a, const dra_quantity *b)
{
    if (!high_limbs(a) && !high_limbs(b)) {
        uint64_t ma = (uint64_t)a->mag[1] << 32 | a->mag[0], mb = (uint64_t)b->mag[1] << 32 | b->mag[0];
        if (ma && mb) {
            int64_t d = (int64_t)a->exp - b->exp;
            if (d == 0)
                return ma < mb ? -1 : ma > mb;
            if (d < -19 || d > 19) {
                int64_t oa = u64_digits(ma) + (int64_t)a->exp, ob = u64_digits(mb) + (int64_t)b->exp;
                if (oa != ob)
                    return oa < ob ? -1 : 1;
                /* same order with at most 20 digits each: |d| <= 19 after all */
            }
            /* 2^64 * 10^19 < 2^128: aligning the exponents cannot overflow */
            unsigned __int128 xa = ma, xb = mb;
            if (d > 0)
                xa *= pow10_u64[d];
            else
                xb *= pow10_u64[-d];
            return xa < xb ? -1 : xa > xb;
        }
    }
    return cmp_magnitude_wide(a, b);
}

/* Upstream's unscaled int64 for an int64Amount-backed quantity. */
static int64_t q_unscaled_int(const dra_quantity *q)
{
    if (q->sign == 0)
        return 0;
    bignum m;
    mag_to_bn(q, &m);
    bn_mul_pow10(&m, (int64_t)q->exp - q->rep_scale);
    uint64_t v = (uint64_t)(m.n > 0 ? m.d[0] : 0) | ((uint64_t)(m.n > 1 ? m.d[1] : 0) << 32);
    return q->sign < 0 ? (int64_t)(0 - v) : (int64_t)v;
}

/* positiveScaleInt64 (math.go): v * 10^scale, false on int64 overflow. */
static bool int64_scale_up(int64_t v, int64_t scale, int64_t *out)
{
    if (v == 0) {
        *out = 0;
        return true;
    }
    for (int64_t i = 0; i < scale; i++)
        if (__builtin_mul_overflow(v, 10, &v))
            return false;
    *out = v;
    return true;
}

static dra_quantity q_zero(dra_qformat fmt)
{
    dra_quantity q;
    memset(&q, 0, sizeof q);
    q.format = fmt;
    return q;
}

/* ---- parsing ----------------------------------------------------------- */

#define ERR_FORMAT "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define ERR_NUMERIC "unable to parse numeric part of quantity"
#define ERR_SUFFIX "unable to parse quantity's suffix"
#define ERR_TOO_LARGE "quantity too large"

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* What upstream's parseQuantityString splits a quantity into. */
typedef struct {
    bool positive;
    const char *num; /* integer digits, leading zeros removed, "0" when none */
    size_t num_len;
    const char *denom; /* fraction digits as written */
    size_t denom_len;
    bool value_has_digit; /* the numeric text (sign, digits, '.') has a digit */
    const char *suffix;
    size_t suffix_len;
} qscan;

/* Mirrors parseQuantityString (quantity.go) step by step, including what
 * it accepts ("1.", ".5", "-", "Mi" with no digits at all). */
static bool scan_quantity(const char *s, size_t end, qscan *sc)
{
    size_t pos = 0, i, value_end;
    sc->positive = true;
    sc->denom = s;
    sc->denom_len = 0;
    sc->suffix = s + end;
    sc->suffix_len = 0;
    if (end > 0 && (s[0] == '-' || s[0] == '+')) {
        sc->positive = s[0] != '-';
        pos++;
    }
    for (i = pos; i < end && s[i] == '0'; i++)
        ;
    if (i >= end) { /* only zeros (or nothing) after the sign */
        sc->num = "0";
        sc->num_len = 1;
        sc->value_has_digit = true;
        return true;
    }
    pos = i;
    for (; i < end && is_digit(s[i]); i++)
        ;
    sc->num = s + pos;
    sc->num_len = i - pos;
    if (i >= end) {
        value_end = end;
        goto done;
    }
    pos = i;
    if (sc->num_len == 0) {
        sc->num = "0";
        sc->num_len = 1;
    }
    if (s[pos] == '.') {
        pos++;
        for (i = pos; i < end && is_digit(s[i]); i++)
            ;
        sc->denom = s + pos;
        sc->denom_len = i - pos;
        if (i >= end) {
            value_end = end;
            goto done;
        }
        pos = i;
    }
    value_end = pos;
    size_t suffix_start = pos;
    for (i = pos; i < end && s[i] != '\0' && memchr("eEinumkKMGTP", s[i], 12); i++)
        ;
    if (i < end) {
        pos = i;
        if (s[pos] == '-' || s[pos] == '+')
            pos++;
        for (i = pos; i < end && is_digit(s[i]); i++)
            ;
        if (i < end)
            return false; /* something after the exponent digits */
    }
    sc->suffix = s + suffix_start;
    sc->suffix_len = end - suffix_start;
done:
    sc->value_has_digit = false;
    for (size_t k = 0; k < value_end; k++)
        if (is_digit(s[k]))
            sc->value_has_digit = true;
    return true;
}

/* strconv.ParseInt(s, 10, 64). */
static bool go_parse_int64(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (n > 0 && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        i++;
    }
    if (i >= n)
        return false;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, v = 0;
    for (; i < n; i++) {
        if (!is_digit(s[i]))
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (limit - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return true;
}

/* suffixHandler.interpret (suffix.go). */
static bool interpret_suffix(const char *s, size_t n, int *base, int64_t *exponent, dra_qformat *fmt)
{
    static const struct {
        const char *text;
        int base, exp;
        dra_qformat fmt;
    } table[] = {
        {"", 10, 0, DRA_QFMT_DECIMAL_SI},   {"n", 10, -9, DRA_QFMT_DECIMAL_SI}, {"u", 10, -6, DRA_QFMT_DECIMAL_SI},
        {"m", 10, -3, DRA_QFMT_DECIMAL_SI}, {"k", 10, 3, DRA_QFMT_DECIMAL_SI},  {"M", 10, 6, DRA_QFMT_DECIMAL_SI},
        {"G", 10, 9, DRA_QFMT_DECIMAL_SI},  {"T", 10, 12, DRA_QFMT_DECIMAL_SI}, {"P", 10, 15, DRA_QFMT_DECIMAL_SI},
        {"E", 10, 18, DRA_QFMT_DECIMAL_SI}, {"Ki", 2, 10, DRA_QFMT_BINARY_SI},  {"Mi", 2, 20, DRA_QFMT_BINARY_SI},
        {"Gi", 2, 30, DRA_QFMT_BINARY_SI},  {"Ti", 2, 40, DRA_QFMT_BINARY_SI},  {"Pi", 2, 50, DRA_QFMT_BINARY_SI},
        {"Ei", 2, 60, DRA_QFMT_BINARY_SI},
    };
    /* Every text is "", one letter, or a letter and 'i'. */
    for (size_t i = 0; i < sizeof table / sizeof table[0] && n <= 2; i++) {
        const char *t = table[i].text;
        if (n == 0 ? t[0] == 0 : t[0] == s[0] && (n == 1 ? t[1] == 0 : t[1] == 'i' && s[1] == 'i')) {
            *base = table[i].base;
            *exponent = table[i].exp;
            *fmt = table[i].fmt;
            return true;
        }
    }
    if (n > 1 && (s[0] == 'e' || s[0] == 'E')) {
        int64_t v;
        if (!go_parse_int64(s + 1, n - 1, &v))
            return false;
        /* Upstream keeps int32(parsed): an exponent beyond int32 wraps
         * (suffix.go), so "1e4294967296" is 1.  Reproduced on purpose. */
        *exponent = (int32_t)(uint32_t)(uint64_t)v;
        *base = 10;
        *fmt = DRA_QFMT_DECIMAL_EXPONENT;
        return true;
    }
    return false;
}

/* The i-th character of num followed by denom. */
static char digit_at(const qscan *sc, size_t i)
{
    return i < sc->num_len ? sc->num[i] : sc->denom[i - sc->num_len];
}

/* Parse digits [from, to) of num+denom into m; false when too many. */
static bool digits_to_bn(const qscan *sc, size_t from, size_t to, bignum *m)
{
    m->n = 0;
    if (to - from > (size_t)BN_LIMBS * 9)
        return false;
    for (size_t i = from; i < to; i++)
        if (!bn_mul_add_small(m, 10, (uint32_t)(digit_at(sc, i) - '0')))
            return false;
    return true;
}

static int32_t clamp_i32(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

static dra_err *too_large(void)
{
    return dra_err_new(DRA_EXIT_INPUT, ERR_TOO_LARGE);
}

/* The inf.Dec path of ParseQuantity, computed exactly: round a non-zero
 * value up to nano, cap binary SI at 2^63-1, and let a binary SI value
 * between 0 and 1 print as decimal SI.  Under DRA_QUANTITY_RULES_138
 * (apimachinery v0.38.0-beta.0 quantity.go decFromDigits) only the first
 * 29 significant digits (70 before a binary SI suffix) are kept, the
 * value rounded away from zero when a dropped one is not 0, and the
 * representation keeps the scale of those digits (AsScale(Nano) rounds
 * finer ones to nano but expands no coarser one), where v0.37's
 * Round(Nano) always left nano scale. */
static dra_err *parse_slow(const qscan *sc, int base, int64_t exponent, dra_qformat fmt, unsigned rules,
                           dra_quantity *out)
{
    if (!sc->value_has_digit)
        return dra_err_new(DRA_EXIT_INPUT, ERR_NUMERIC);
    bool r138 = (rules & DRA_QUANTITY_RULES_138) != 0;
    if (r138 && base == 10 && exponent == INT32_MIN) /* !Scale(exponent).canInfScale() */
        return dra_err_new(DRA_EXIT_INPUT, ERR_SUFFIX);
    dra_quantity q = q_zero(fmt);
    q.dec_backed = true;
    size_t total = sc->num_len + sc->denom_len, first = 0, last = total;
    while (first < total && digit_at(sc, first) == '0')
        first++;
    if (first == total) { /* zero keeps inf.Dec's scale, without rounding */
        q.rep_scale = clamp_i32((base == 10 ? exponent : 0) - (int64_t)sc->denom_len);
        *out = q;
        return NULL;
    }
    /* The digits kept: all, or under 1.38 the first 29 (70), plus one
     * unit in the last kept place when a dropped digit is not 0. */
    size_t keep = base == 10 ? 29 : 70;
    bool bump = false;
    if (r138 && total - first > keep) {
        last = first + keep;
        for (size_t k = last; k < total && !bump; k++)
            bump = digit_at(sc, k) != '0';
    }
    int64_t rep = (base == 10 ? exponent : 0) - (int64_t)sc->denom_len + (int64_t)(total - last);
    if (!bump)
        while (digit_at(sc, last - 1) == '0')
            last--;
    size_t sig_len = last - first;
    /* value = (sig + bump) * 10^s10 (* 2^exponent for binary SI) */
    int64_t s10 = (base == 10 ? exponent : 0) - (int64_t)sc->denom_len + (int64_t)(total - last);
    int sign = sc->positive ? 1 : -1;
    bignum m;
    /* inf.Dec.Round(amount, Nano, RoundUp) rescales to 9 places; 1.38's
     * AsScale(Nano) only rescales a finer value. */
    q.rep_scale = r138 && rep > -9 ? clamp_i32(rep) : -9;

    if (base == 10) {
        int64_t e = s10;
        if (s10 < -9) {
            /* (sig + bump) rounded up at nano: sig's last digit is not 0
             * or bump is set, so it is the dropped-to prefix plus 1 */
            int64_t drop = -9 - s10;
            e = -9;
            if ((uint64_t)drop >= sig_len) {
                bn_set_u64(&m, 1);
            } else {
                if (!digits_to_bn(sc, first, last - (size_t)drop, &m) || !bn_mul_add_small(&m, 1, 1))
                    return too_large();
            }
        } else if (!digits_to_bn(sc, first, last, &m) || (bump && !bn_mul_add_small(&m, 1, 1))) {
            return too_large();
        }
        if (!q_set_value(&q, sign, &m, e))
            return too_large();
        *out = q;
        return NULL;
    }

    /* Binary SI.  A value of 10^19 or more is over the cap whatever its
     * digits, so long inputs do not need to be computed. */
    bool capped = (int64_t)sig_len - 1 + s10 >= 19;
    int64_t e = s10;
    if (!capped) {
        if (!digits_to_bn(sc, first, last, &m) || (bump && !bn_mul_add_small(&m, 1, 1)))
            return too_large();
        for (int64_t k = exponent; k > 0; k -= 30)
            if (!bn_mul_add_small(&m, (uint32_t)1 << (k > 30 ? 30 : k), 0))
                return too_large();
        if (s10 < -9) {
            int64_t drop = -9 - s10;
            bool rem = false;
            e = -9;
            if (drop > BN_LIMBS * 10) {
                m.n = 0;
                rem = true;
            }
            for (; drop > 0 && !bn_is_zero(&m); drop -= 9)
                rem |= bn_div_small(&m, pow10_u32[drop >= 9 ? 9 : drop]) != 0;
            if (rem || drop > 0)
                bn_mul_add_small(&m, 1, 1);
        }
        /* Over 2^63-1?  Compare m with (2^63-1) / 10^e. */
        bignum cap;
        bn_set_u64(&cap, (uint64_t)INT64_MAX);
        if (e >= 0) {
            bignum scaled = m;
            capped = e > 19 || !bn_mul_pow10(&scaled, e) || bn_cmp(&scaled, &cap) > 0;
        } else {
            capped = bn_mul_pow10(&cap, -e) && bn_cmp(&m, &cap) > 0;
        }
    }
    if (capped) {
        bn_set_u64(&m, (uint64_t)INT64_MAX);
        e = 0;
        q.rep_scale = 0; /* maxAllowed is inf.NewDec(2^63-1, 0) */
    }
    if (!q_set_value(&q, sign, &m, e))
        return too_large();
    if (q_order(&q) <= 0) /* 0 < |value| < 1 */
        q.format = DRA_QFMT_DECIMAL_SI;
    *out = q;
    return NULL;
}

/* Bytes of a white space rune at p (unicode.IsSpace) that JSON can hold
 * unescaped, or 0. */
static size_t raw_space_at(const unsigned char *p, size_t n)
{
    if (n >= 1 && p[0] == ' ')
        return 1;
    if (n >= 2 && p[0] == 0xC2 && (p[1] == 0x85 || p[1] == 0xA0))
        return 2;
    if (n < 3)
        return 0;
    if ((p[0] == 0xE1 && p[1] == 0x9A && p[2] == 0x80) || (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80) ||
        (p[0] == 0xE2 && p[1] == 0x81 && p[2] == 0x9F))
        return 3;
    if (p[0] == 0xE2 && p[1] == 0x80 &&
        ((p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF))
        return 3;
    return 0;
}

dra_err *dra_quantity_parse_json_rules(const char *s, size_t len, unsigned rules, dra_quantity *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t k;
    while ((k = raw_space_at(p, len)) > 0)
        p += k, len -= k;
    for (bool trimmed = true; trimmed;) {
        trimmed = false;
        for (k = 1; k <= 3 && k <= len && !trimmed; k++)
            if (raw_space_at(p + len - k, k) == k)
                len -= k, trimmed = true;
    }
    return dra_quantity_parse_rules((const char *)p, len, rules, out);
}

/* The int64 fast path's digits: ParseInt of at most 18 (v0.37), ParseUint
 * of at most 19 that fits int64, or is 2^63 when negative (v0.38). */
static bool fast_digits(const qscan *sc, int64_t digits, bool r138, uint64_t *value)
{
    if (digits > (r138 ? 19 : 18))
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < (size_t)digits; i++)
        v = v * 10 + (uint64_t)(digit_at(sc, i) - '0');
    *value = v;
    return v <= (uint64_t)INT64_MAX || (!sc->positive && v == (uint64_t)INT64_MAX + 1);
}

dra_err *dra_quantity_parse_rules(const char *s, size_t len, unsigned rules, dra_quantity *out)
{
    if (len == 0)
        return dra_err_new(DRA_EXIT_INPUT, ERR_FORMAT);
    if (len == 1 && s[0] == '0') {
        *out = q_zero(DRA_QFMT_DECIMAL_SI);
        strcpy(out->text, "0");
        return NULL;
    }
    qscan sc;
    if (!scan_quantity(s, len, &sc))
        return dra_err_new(DRA_EXIT_INPUT, ERR_FORMAT);
    int base;
    int64_t exponent;
    dra_qformat fmt;
    if (!interpret_suffix(sc.suffix, sc.suffix_len, &base, &exponent, &fmt))
        return dra_err_new(DRA_EXIT_INPUT, ERR_SUFFIX);

    /* The int64 fast path of ParseQuantity: taken when the digits fit its
     * precision estimate and the scale is at least nano.  Upstream's
     * scale is an int32 and wraps past -2^31 ("1.5e-2147483648"); ours
     * does not (see quantity.h). */
    bool r138 = (rules & DRA_QUANTITY_RULES_138) != 0;
    int64_t digits = (int64_t)(sc.num_len + sc.denom_len), scale = 0;
    uint64_t value = 0;
    bool fast;
    if (base == 10) {
        scale = exponent - (int64_t)sc.denom_len;
        fast = scale >= -9 && fast_digits(&sc, digits, r138, &value);
    } else {
        fast = sc.denom_len == 0 && 15 - digits - exponent * 3 / 10 - 1 >= 0 && fast_digits(&sc, digits, r138, &value);
    }
    uint64_t wrapped_value;
    if (!fast && r138 && base == 10 && (int32_t)(uint32_t)(uint64_t)scale >= -9 &&
        fast_digits(&sc, digits, r138, &wrapped_value))
        rules &= ~(unsigned)DRA_QUANTITY_RULES_138; /* upstream's wrapped fast path: 1.37's answer */
    if (!fast)
        return parse_slow(&sc, base, exponent, fmt, rules, out);

    dra_quantity q = q_zero(fmt);
    q.rep_scale = (int32_t)scale;
    /* value << exponent fits 64 bits: the fast path's estimate keeps it
     * under 10^18.  Its trailing decimal zeros go into the exponent, as
     * q_set_value's bignum would take them, in 64-bit arithmetic. */
    uint64_t mag = base == 2 ? value << exponent : value;
    if (mag) {
        int64_t exp = scale;
        while (mag % 10 == 0) {
            mag /= 10;
            exp++;
        }
        if (exp > INT32_MAX || exp < (int64_t)INT32_MIN + 3) /* q_set_value's headroom */
            return too_large();
        q.mag[0] = (uint32_t)mag;
        q.mag[1] = (uint32_t)(mag >> 32);
        q.exp = (int32_t)exp;
        q.sign = (int8_t)(sc.positive ? 1 : -1);
    }

    /* Upstream keeps the input as String() when it looks canonical. */
    bool keep;
    if (base == 2) {
        keep = (value & 7) != 0;
    } else {
        bool ends000 = digits >= 3 && digit_at(&sc, (size_t)digits - 1) == '0' &&
                       digit_at(&sc, (size_t)digits - 2) == '0' && digit_at(&sc, (size_t)digits - 3) == '0';
        /* v0.38 prints a 19-digit value canonically (forceRecanonicalize) */
        keep = scale % 3 == 0 && !ends000 && digit_at(&sc, 0) != '0' && digits < 19;
    }
    if (keep && len < sizeof q.text) {
        memcpy(q.text, s, len);
        q.text[len] = '\0';
    }
    *out = q;
    return NULL;
}

unsigned dra_quantity_rules_of(int release)
{
    if (!release)
        release = DRA_RELEASE_DEFAULT;
    return release >= DRA_RELEASE_1_38 ? DRA_QUANTITY_RULES_138 : DRA_QUANTITY_RULES_137;
}

unsigned dra_features_quantity_rules(const dra_features *f)
{
    return dra_quantity_rules_of(dra_features_release_of(f));
}

dra_err *dra_quantity_parse_as(const dra_features *f, const char *s, dra_quantity *out)
{
    return dra_quantity_parse_rules(s, strlen(s), dra_features_quantity_rules(f), out);
}

/* ---- printing ---------------------------------------------------------- */

static const char *decimal_si_suffix(int64_t exp)
{
    switch (exp) {
    case -9: return "n";
    case -6: return "u";
    case -3: return "m";
    case 0: return "";
    case 3: return "k";
    case 6: return "M";
    case 9: return "G";
    case 12: return "T";
    case 15: return "P";
    case 18: return "E";
    default: return NULL;
    }
}

/* AsCanonicalBytes + the decimal suffix: mantissa with the exponent moved
 * down to a multiple of 3; decimal SI falls back to "e<exp>" past E. */
static void format_decimal(const dra_quantity *q, dra_qformat fmt, char *buf)
{
    bignum m;
    mag_to_bn(q, &m);
    size_t n = 0;
    if (q->sign < 0)
        buf[n++] = '-';
    n += bn_to_dec(&m, buf + n, DRA_QUANTITY_DIGITS + 1);
    int64_t exp = q->exp, r = ((exp % 3) + 3) % 3;
    for (int64_t i = 0; i < r; i++)
        buf[n++] = '0';
    exp -= r;
    const char *suffix = fmt == DRA_QFMT_DECIMAL_SI ? decimal_si_suffix(exp) : (exp == 0 ? "" : NULL);
    if (suffix)
        strcpy(buf + n, suffix);
    else
        snprintf(buf + n, DRA_QUANTITY_STRMAX - n, "e%lld", (long long)exp);
}

/* AsCanonicalBase1024Bytes for an integer with |value| >= 1024; false when
 * it would not fit the buffer or needs a suffix above Ei. */
static bool format_binary(const dra_quantity *q, char *buf)
{
    static const char *const suffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    bignum m;
    mag_to_bn(q, &m);
    if (q->exp > 100 || !bn_mul_pow10(&m, q->exp))
        return false;
    int k = 0;
    for (;;) {
        bignum t = m;
        if (bn_div_small(&t, 1024) != 0)
            break;
        m = t;
        k++;
    }
    if (k > 6)
        return false;
    char digits[BN_LIMBS * 10 + 1];
    size_t nd = bn_to_dec(&m, digits, sizeof digits);
    if ((q->sign < 0) + nd + strlen(suffixes[k]) >= DRA_QUANTITY_STRMAX)
        return false;
    size_t n = 0;
    if (q->sign < 0)
        buf[n++] = '-';
    memcpy(buf + n, digits, nd);
    strcpy(buf + n + nd, suffixes[k]);
    return true;
}

const char *dra_quantity_format_canonical(const dra_quantity *q, char *buf)
{
    if (q->sign == 0) {
        strcpy(buf, "0");
        return buf;
    }
    dra_qformat fmt = q->format;
    if (fmt == DRA_QFMT_BINARY_SI) {
        /* Below 1024 in magnitude or fractional: shown as decimal SI so
         * nothing is rounded (CanonicalizeBytes). */
        dra_quantity k1024 = dra_quantity_from_int64(1024, DRA_QFMT_DECIMAL_SI);
        if (q->exp < 0 || cmp_magnitude(q, &k1024) < 0 || !format_binary(q, buf))
            fmt = DRA_QFMT_DECIMAL_SI;
        else
            return buf;
    }
    format_decimal(q, fmt, buf);
    return buf;
}

const char *dra_quantity_format(const dra_quantity *q, char *buf)
{
    if (q->text[0]) {
        memcpy(buf, q->text, sizeof q->text);
        return buf;
    }
    return dra_quantity_format_canonical(q, buf);
}

/* ---- comparison and arithmetic ---------------------------------------- */

int dra_quantity_cmp(const dra_quantity *a, const dra_quantity *b)
{
    if (a->sign != b->sign)
        return a->sign < b->sign ? -1 : 1;
    if (a->sign == 0)
        return 0;
    int c = cmp_magnitude(a, b);
    return a->sign > 0 ? c : -c;
}

int dra_quantity_sign(const dra_quantity *q)
{
    return q->sign;
}

bool dra_quantity_is_zero(const dra_quantity *q)
{
    return q->sign == 0;
}

/* int64Amount.Add (amount.go) on upstream's unscaled values: true and the
 * resulting scale when it stays on the int64 path. */
static bool int64_amount_add(int64_t av, int32_t as, int64_t bv, int32_t bs, int32_t *scale)
{
    int64_t c;
    if (bv == 0) {
        *scale = as;
        return true;
    }
    if (av == 0) {
        *scale = bs;
        return true;
    }
    if (as == bs) {
        *scale = as;
        return !__builtin_add_overflow(av, bv, &c);
    }
    if (as > bs) {
        *scale = bs;
        return int64_scale_up(av, (int64_t)as - bs, &c) && !__builtin_add_overflow(c, bv, &c);
    }
    *scale = as;
    return int64_scale_up(bv, (int64_t)bs - as, &c) && !__builtin_add_overflow(av, c, &c);
}

/* Whether Quantity.Add / Sub keeps a and b on the int64 path (both
 * int64-backed and the result fits there). */
static bool int64_path(const dra_quantity *a, const dra_quantity *b, bool subtract)
{
    if (a->dec_backed || b->dec_backed)
        return false;
    int64_t av = q_unscaled_int(a), bv = q_unscaled_int(b);
    int32_t scale;
    if (subtract && bv == INT64_MIN)
        return false;
    return int64_amount_add(av, a->rep_scale, subtract ? -bv : bv, b->rep_scale, &scale);
}

/* infDecAmount.AsScale(scale) of apimachinery v0.38 for a q whose scale is
 * finer: its value rounded away from zero to a multiple of 10^scale, as
 * an inf.Dec at that scale.  False past our range. */
static bool q_round_up_to(dra_quantity *q, int64_t scale)
{
    if (q->exp < scale) {
        bignum m;
        mag_to_bn(q, &m);
        int64_t drop = scale - q->exp;
        if (drop >= bn_digits(&m)) {
            bn_set_u64(&m, 1); /* less than one unit: one unit */
        } else {
            /* m ends in a non-zero digit: something is always dropped */
            for (; drop > 0; drop -= 9)
                bn_div_small(&m, pow10_u32[drop >= 9 ? 9 : drop]);
            bn_mul_add_small(&m, 1, 1);
        }
        if (!q_set_value(q, q->sign, &m, scale))
            return false;
    }
    q->rep_scale = clamp_i32(scale);
    q->dec_backed = true;
    q->text[0] = '\0';
    return true;
}

/* boundScaleGap (amount.go, v0.38.0-beta.0): on the inf.Dec path, of two
 * non-zero operands more than 29 orders of magnitude apart in scale, the
 * finer one is rounded away from zero to 29 orders below the coarser. */
#define MAX_SCALE_GAP 29

static bool add_or_sub(dra_quantity *out, const dra_quantity *a, const dra_quantity *b, bool subtract, unsigned rules)
{
    bool r138 = (rules & DRA_QUANTITY_RULES_138) != 0;
    dra_quantity ra, rb;
    if (r138 && a->sign && b->sign && !int64_path(a, b, subtract)) {
        int64_t gap = (int64_t)a->rep_scale - b->rep_scale;
        if (gap > MAX_SCALE_GAP) {
            rb = *b;
            if (!q_round_up_to(&rb, (int64_t)a->rep_scale - MAX_SCALE_GAP))
                return false;
            b = &rb;
        } else if (-gap > MAX_SCALE_GAP) {
            ra = *a;
            if (!q_round_up_to(&ra, (int64_t)b->rep_scale - MAX_SCALE_GAP))
                return false;
            a = &ra;
        }
    }
    dra_quantity r = q_zero(a->sign == 0 ? b->format : a->format);
    int bsign = subtract ? -b->sign : b->sign;

    /* The exact value. */
    if (a->sign == 0 || bsign == 0) {
        const dra_quantity *src = a->sign == 0 ? b : a;
        memcpy(r.mag, src->mag, sizeof r.mag);
        r.exp = src->exp;
        r.sign = (int8_t)(a->sign == 0 ? bsign : a->sign);
    } else {
        bignum ma, mb, sum;
        mag_to_bn(a, &ma);
        mag_to_bn(b, &mb);
        int64_t e = a->exp < b->exp ? a->exp : b->exp;
        /* A shift past our digits means a result past our digits: the
         * normalized operands end in a non-zero digit, so no cancellation
         * can bring it back. */
        if (!bn_mul_pow10(&ma, a->exp - e) || !bn_mul_pow10(&mb, b->exp - e))
            return false;
        int sign;
        if (a->sign == bsign) {
            if (!bn_add(&sum, &ma, &mb))
                return false;
            sign = a->sign;
        } else if (bn_cmp(&ma, &mb) >= 0) {
            bn_sub(&sum, &ma, &mb);
            sign = a->sign;
        } else {
            bn_sub(&sum, &mb, &ma);
            sign = bsign;
        }
        if (!q_set_value(&r, sign, &sum, e))
            return false;
    }

    /* The representation upstream ends up with (Quantity.Add / Sub). */
    int32_t min_scale = a->rep_scale < b->rep_scale ? a->rep_scale : b->rep_scale;
    r.dec_backed = true;
    r.rep_scale = min_scale;
    if (r138 && (a->sign == 0 || b->sign == 0)) /* addDecBoundedScale: the other operand, as it is */
        r.rep_scale = b->sign == 0 ? a->rep_scale : b->rep_scale;
    if (!a->dec_backed && !b->dec_backed) {
        int64_t av = q_unscaled_int(a), bv = q_unscaled_int(b);
        if (subtract && bv == INT64_MIN) {
            /* -bv does not fit: upstream negates into an inf.Dec, keeping
             * b's scale when a is zero. */
            if (av == 0)
                r.rep_scale = b->rep_scale;
        } else {
            int32_t scale;
            if (int64_amount_add(av, a->rep_scale, subtract ? -bv : bv, b->rep_scale, &scale)) {
                r.dec_backed = false;
                r.rep_scale = scale;
            }
        }
    }
    *out = r;
    return true;
}

bool dra_quantity_add(dra_quantity *out, const dra_quantity *a, const dra_quantity *b)
{
    return add_or_sub(out, a, b, false, DRA_QUANTITY_RULES_137);
}

bool dra_quantity_add_rules(dra_quantity *out, const dra_quantity *a, const dra_quantity *b, unsigned rules)
{
    return add_or_sub(out, a, b, false, rules);
}

bool dra_quantity_sub_rules(dra_quantity *out, const dra_quantity *a, const dra_quantity *b, unsigned rules)
{
    return add_or_sub(out, a, b, true, rules);
}

bool dra_quantity_sub(dra_quantity *out, const dra_quantity *a, const dra_quantity *b)
{
    return add_or_sub(out, a, b, true, DRA_QUANTITY_RULES_137);
}

/* ---- accessors --------------------------------------------------------- */

bool dra_quantity_as_int64(const dra_quantity *q, int64_t *out)
{
    if (q->dec_backed) /* Quantity.AsInt64: an inf.Dec never converts */
        return false;
    int64_t v = q_unscaled_int(q);
    if (q->rep_scale < 0) /* int64Amount.AsInt64 does not reduce factors */
        return false;
    int64_t r;
    if (!int64_scale_up(v, q->rep_scale, &r))
        return false;
    if (out)
        *out = r;
    return true;
}

bool dra_quantity_is_int64(const dra_quantity *q)
{
    return dra_quantity_as_int64(q, NULL);
}

/* math.Pow10, table for table, so products round as Go's do. */
static double go_pow10(int64_t n)
{
    static const double tab[32] = {1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07, 1e08, 1e09, 1e10,
                                   1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
                                   1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31};
    static const double pos32[] = {1e00, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288};
    static const double neg32[] = {1e-00, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320};
    if (n >= 0 && n <= 308)
        return pos32[n / 32] * tab[n % 32];
    if (n >= -323 && n <= 0)
        return neg32[-n / 32] / tab[-n % 32];
    return n > 0 ? INFINITY : 0.0;
}

double dra_quantity_as_float(const dra_quantity *q)
{
    return dra_quantity_as_float_rules(q, DRA_QUANTITY_RULES_137);
}

double dra_quantity_as_float_rules(const dra_quantity *q, unsigned rules)
{
    double base;
    if (q->sign == 0) {
        base = 0.0;
    } else if (!q->dec_backed) {
        base = (double)q_unscaled_int(q);
    } else {
        /* float64 of inf.Dec's unscaled integer; past ~310 digits it is
         * +Inf whatever the digits. */
        bignum m;
        mag_to_bn(q, &m);
        int64_t shift = (int64_t)q->exp - q->rep_scale;
        if (bn_digits(&m) + shift > 330 || !bn_mul_pow10(&m, shift))
            base = INFINITY;
        else
            base = bn_to_double(&m);
        if (q->sign < 0)
            base = -base;
    }
    /* v0.38 returns a zero base as it is ("Avoid 0 * Inf"); v0.37
     * multiplies it, so "0e400" is NaN */
    if (q->rep_scale == 0 || (base == 0 && (rules & DRA_QUANTITY_RULES_138)))
        return base;
    return base * go_pow10(q->rep_scale);
}

/* |unscaled|, upstream's internal integer (mag * 10^(exp - rep_scale)),
 * is at most 2^63: big.Int.Int64() reads it without wrapping. */
static bool unscaled_fits_int64(const dra_quantity *q)
{
    bignum m;
    mag_to_bn(q, &m);
    int64_t shift = (int64_t)q->exp - q->rep_scale;
    if (!bn_mul_pow10(&m, shift > 0 ? shift : 0) || m.n > 2)
        return false;
    uint64_t v = (uint64_t)(m.n > 0 ? m.d[0] : 0) | ((uint64_t)(m.n > 1 ? m.d[1] : 0) << 32);
    return v <= (uint64_t)INT64_MAX + 1;
}

bool dra_quantity_value(const dra_quantity *q, int64_t *out)
{
    if (q->sign == 0) {
        *out = 0;
        return true;
    }
    bignum m;
    mag_to_bn(q, &m);
    bool inexact = false;
    if (q->exp >= 0) {
        if (q->exp > 19 || !bn_mul_pow10(&m, q->exp))
            return false;
    } else {
        int64_t drop = -(int64_t)q->exp;
        for (; drop > 0 && !bn_is_zero(&m); drop -= 9)
            inexact |= bn_div_small(&m, pow10_u32[drop >= 9 ? 9 : drop]) != 0;
        inexact |= drop > 0; /* everything divided away: |value| < 1 */
    }
    /* int64Amount.AsScaledInt64 rounds away from zero.  scaledValue
     * (scale_int.go) rounds an inf.Dec up: a positive one to the ceiling;
     * a negative one, on its fast path (inf.Dec scale below 19), truncates
     * its unscaled.Int64() and adds one, so "-1.5000000000" is 0 and
     * "-0.5000000000" is 1; past that path DivMod floors and adds one,
     * which truncates. */
    bool neg_fast = q->sign < 0 && q->dec_backed && -(int64_t)q->rep_scale > 0 && -(int64_t)q->rep_scale < 19;
    if (neg_fast && !unscaled_fits_int64(q))
        return false; /* unscaled.Int64() wraps */
    bool up = inexact && (q->sign > 0 || !q->dec_backed);
    if (up && !bn_mul_add_small(&m, 1, 1))
        return false;
    if (m.n > 2)
        return false;
    uint64_t v = (uint64_t)(m.n > 0 ? m.d[0] : 0) | ((uint64_t)(m.n > 1 ? m.d[1] : 0) << 32);
    if (neg_fast && inexact) {
        *out = 1 - (int64_t)v; /* v <= 2^63 / 10 */
        return true;
    }
    if (q->sign > 0) {
        if (v > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX + 1)
            return false;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    }
    return true;
}

int dra_quantity_cmp_receiver(dra_quantity *q, const dra_quantity *y)
{
    if (y->dec_backed)
        q->dec_backed = true;
    return dra_quantity_cmp(q, y);
}

/* 10^k modulo 2^64, for k >= 0. */
static uint64_t pow10_mod64(int64_t k)
{
    uint64_t r = 1, b = 10;
    for (; k > 0; k >>= 1, b *= b)
        if (k & 1)
            r *= b;
    return r;
}

/* sign * mag * 10^k modulo 2^64, read as int64 (Go's big.Int.Int64()). */
static int64_t wrap_scaled(const dra_quantity *q, int64_t k)
{
    uint64_t low = (uint64_t)q->mag[0] | (uint64_t)q->mag[1] << 32;
    uint64_t v = low * pow10_mod64(k);
    return (int64_t)(q->sign < 0 ? 0 - v : v);
}

int64_t dra_quantity_value_wrapped(const dra_quantity *q)
{
    int64_t exact;
    bool fits = dra_quantity_value(q, &exact);
    int64_t shift = (int64_t)q->exp - q->rep_scale; /* unscaled = mag * 10^shift */
    if (q->sign == 0 || shift < 0)
        return fits ? exact : 0;
    if (!q->dec_backed) {
        /* int64Amount.AsScaledInt64 via positiveScaleInt64 (math.go): the
         * unrolled scales 1, 2, 3, 6 and 9 return the wrapped product (0 for
         * MinInt64), every other scale 0 on overflow. */
        if (fits)
            return exact;
        int32_t s = q->rep_scale;
        bool unrolled = s == 1 || s == 2 || s == 3 || s == 6 || s == 9;
        bool min_int64 = q->sign < 0 && shift == 0 && q->mag[0] == 0 && q->mag[1] == 0x80000000u && !high_limbs(q);
        return unrolled && !min_int64 ? wrap_scaled(q, q->exp) : 0;
    }
    /* scaledValue (scale_int.go) with dif = the inf.Dec scale. */
    int64_t dif = -(int64_t)q->rep_scale;
    if (dif <= 0) {
        int64_t u = wrap_scaled(q, shift);
        /* int64(math.Pow10(n)) is MinInt64 on amd64 once 10^n passes int64 */
        uint64_t mul = dif == 0 ? 1 : -dif <= 18 ? pow10_mod64(-dif) : (uint64_t)INT64_MIN;
        return (int64_t)((uint64_t)u * mul);
    }
    if (q->sign < 0 && dif < 19) {
        /* the fast path: unscaled.Int64() wraps, then truncates and adds one */
        int64_t u = wrap_scaled(q, shift), d = (int64_t)pow10_mod64(dif);
        return u / d + (u % d != 0);
    }
    /* DivMod: the quotient's low 64 bits plus one when inexact; a negative
     * quotient is floored, which makes that -|quotient| either way. */
    if (q->sign > 0 && fits)
        return exact;
    if (q->exp >= 0)
        return wrap_scaled(q, q->exp);
    bignum m;
    mag_to_bn(q, &m);
    bool inexact = false;
    for (int64_t drop = -(int64_t)q->exp; drop > 0; drop -= 9)
        inexact |= bn_div_small(&m, pow10_u32[drop >= 9 ? 9 : drop]) != 0;
    uint64_t v = (uint64_t)(m.n > 0 ? m.d[0] : 0) | (uint64_t)(m.n > 1 ? m.d[1] : 0) << 32;
    return (int64_t)(q->sign < 0 ? 0 - v : v + inexact);
}

dra_quantity dra_quantity_from_int64(int64_t v, dra_qformat fmt)
{
    dra_quantity q = q_zero(fmt);
    bignum m;
    bn_set_u64(&m, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
    q_set_value(&q, v < 0 ? -1 : 1, &m, 0); /* 19 digits always fit */
    return q;
}

bool dra_quantity_milli_value(const dra_quantity *q, int64_t *out)
{
    /* ScaledValue(Milli): the same integer at a scale three lower */
    dra_quantity s = *q;
    if (s.sign) {
        s.exp += 3;
        s.rep_scale += 3;
    }
    return dra_quantity_value(&s, out);
}

dra_quantity dra_quantity_from_milli(int64_t v, dra_qformat fmt)
{
    dra_quantity q = q_zero(fmt);
    bignum m;
    bn_set_u64(&m, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
    q_set_value(&q, v < 0 ? -1 : 1, &m, -3);
    q.rep_scale = -3;
    return q;
}

bool dra_quantity_milli_exact(const dra_quantity *q, int64_t *out)
{
    int64_t m;
    if (!dra_quantity_milli_value(q, &m))
        return false;
    dra_quantity back = dra_quantity_from_milli(m, q->format);
    if (dra_quantity_cmp(&back, q) != 0)
        return false;
    *out = m;
    return true;
}

const char *dra_quantity_dec_string(const dra_quantity *q, char *buf)
{
    if (q->sign == 0) { /* inf.Dec prints a zero's fraction digits: "0.000" for "0m" */
        int64_t places = -(int64_t)q->rep_scale;
        if (places <= 0 || places + 3 > DRA_QUANTITY_DECMAX)
            return strcpy(buf, "0");
        memcpy(buf, "0.", 2);
        memset(buf + 2, '0', (size_t)places);
        buf[places + 2] = '\0';
        return buf;
    }
    bignum m;
    mag_to_bn(q, &m);
    char digits[BN_LIMBS * 10 + 1];
    size_t nd = bn_to_dec(&m, digits, sizeof digits);
    /* unscaled = mag * 10^(exp - rep_scale), inf.Dec scale = -rep_scale */
    int64_t scale = -(int64_t)q->rep_scale, zeros = (int64_t)q->exp - q->rep_scale;
    if (zeros < 0) { /* not a representation upstream has; print the value */
        scale -= zeros;
        zeros = 0;
    }
    int64_t ulen = (int64_t)nd + zeros; /* digits of |unscaled| */
    int64_t total = 2 + (scale > 0 ? (scale > ulen ? scale + 1 : ulen) : ulen - scale);
    if (total >= DRA_QUANTITY_DECMAX)
        return dra_quantity_format_canonical(q, buf);
    char u[DRA_QUANTITY_DECMAX];
    memcpy(u, digits, nd);
    memset(u + nd, '0', (size_t)zeros);
    char *o = buf;
    if (q->sign < 0)
        *o++ = '-';
    if (scale <= 0) {
        memcpy(o, u, (size_t)ulen);
        o += ulen;
        memset(o, '0', (size_t)-scale);
        o += -scale;
    } else if (ulen <= scale) {
        *o++ = '0';
        *o++ = '.';
        memset(o, '0', (size_t)(scale - ulen));
        o += scale - ulen;
        memcpy(o, u, (size_t)ulen);
        o += ulen;
    } else {
        memcpy(o, u, (size_t)(ulen - scale));
        o += ulen - scale;
        *o++ = '.';
        memcpy(o, u + ulen - scale, (size_t)scale);
        o += scale;
    }
    *o = 0;
    return buf;
}

bool dra_quantity_is_fractional(const dra_quantity *q)
{
    return q->sign != 0 && q->exp < 0; /* mag has no trailing zeros */
}
