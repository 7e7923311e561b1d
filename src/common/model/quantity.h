/* Kubernetes resource.Quantity: exact decimal quantities with suffixes.
 *
 * Semantics follow k8s.io/apimachinery/pkg/api/resource (quantity.go,
 * amount.go, math.go, suffix.go): parse every form (plain numbers, decimal SI
 * "n u m k M G T P E", binary SI "Ki Mi Gi Ti Pi Ei", exponents "1e3"/"1E3",
 * signs, fractions), exact comparison and arithmetic, and canonical printing
 * (Quantity.String()).  Precision is limited as upstream: values are rounded
 * up (away from zero) to the nano (10^-9) scale on parse, and binary SI
 * values are capped at 2^63-1 on parse.
 *
 * A dra_quantity is a value type: no heap memory, copy it freely.
 *
 * Range.  Upstream keeps arbitrary-precision decimals; we keep up to
 * DRA_QUANTITY_DIGITS significant decimal digits and a 32-bit decimal
 * exponent.  Anything beyond that is refused ("quantity too large" from the
 * parser, false from add/sub), never silently changed.
 *
 * Upstream quirks that are reproduced on purpose (the CEL library and the
 * API server show them):
 *  - String() returns the parsed text verbatim when upstream's parser thinks
 *    it is canonical, which includes "+1", "01", "1.500" and "1E3"
 *    (kubernetes#138165).  dra_quantity_format() does the same;
 *    dra_quantity_format_canonical() always prints the canonical form.
 *  - AsInt64 (CEL isInteger/asInteger) depends on upstream's internal
 *    representation, not only on the value: "1000m", "0.0", "1Pi" and
 *    "0.5Ki" report false, "1Ki" and "1.5k" report true.
 *  - AsApproximateFloat64 multiplies upstream's unscaled integer by
 *    math.Pow10(scale), so even its rounding (and the NaN of "0e400") match.
 * Deliberate differences (upstream wraps or corrupts; we stay exact):
 *  - an exponent so negative that upstream's int32 scale arithmetic wraps
 *    ("1.5e-2147483648") rounds to 1n-scale like any tiny value;
 *  - a binary SI value whose canonical text would not fit
 *    DRA_QUANTITY_STRMAX (or needs a suffix above "Ei", which upstream
 *    prints without suffix, i.e. wrongly) prints in decimal SI form;
 *  - parsed text longer than DRA_QUANTITY_TEXTMAX-1 bytes is not kept, so
 *    the canonical form is printed instead of the verbatim input.
 */
#ifndef DRA_MODEL_QUANTITY_H
#define DRA_MODEL_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"

typedef enum {
    DRA_QFMT_DECIMAL_EXPONENT, /* "1e3" */
    DRA_QFMT_BINARY_SI,        /* "1Ki" */
    DRA_QFMT_DECIMAL_SI,       /* "1k" */
} dra_qformat;

/* Longest canonical string dra_quantity_format() can produce, with NUL:
 * a sign, DRA_QUANTITY_DIGITS digits, two zeros moving the exponent to a
 * multiple of 3 and "e-2147483646". */
#define DRA_QUANTITY_STRMAX 112

/* Longest parsed text a quantity keeps for String(), with NUL. */
#define DRA_QUANTITY_TEXTMAX 64

/* Most significant decimal digits a quantity can hold: three times the 29
 * digits apimachinery v0.38 keeps of a parsed value and the 29 orders of
 * magnitude its Add and Sub keep between operands, and then some, so that
 * sums of a few parsed values stay exact. */
#define DRA_QUANTITY_DIGITS 96

/* Internal representation: see quantity.c.  Treat the fields as private.
 * (Changed from the first draft's hi/lo pair, which held only 36 digits and
 * could not tell upstream's int64/inf.Dec representations apart.) */
typedef struct dra_quantity {
    uint32_t mag[10];  /* |value| without trailing decimal zeros, base 2^32 little-endian */
    int32_t exp;       /* value = sign * mag * 10^exp; 0 for zero */
    int32_t rep_scale; /* upstream's internal base-10 scale (int64Amount.scale or -inf.Dec.Scale()) */
    int8_t sign;       /* -1, 0, 1 */
    bool dec_backed;   /* upstream would hold this value as an inf.Dec */
    dra_qformat format;
    char text[DRA_QUANTITY_TEXTMAX]; /* parsed text upstream's String() returns verbatim, or "" */
} dra_quantity;

/* Parsing.  Every parser follows resource.ParseQuantity of one
 * apimachinery release (releases differ: see dra_quantity_rules below).
 * There is no parser without a release: a tool parses by the release it
 * follows, so that it reads a quantity as that release's API server and
 * scheduler do.  Errors use upstream's texts
 * ("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
 * "unable to parse quantity's suffix", "unable to parse numeric part of quantity")
 * plus "quantity too large" beyond our range.  The caller owns the error.
 * Functions that take a length need no NUL-terminated text (a NUL inside
 * is just an invalid character). */
struct dra_features;
/* The rules (dra_quantity_rules below) of f's release (features.h; NULL
 * f: the default release's): how that release's apimachinery parses and
 * sums quantities.  Code that holds a tool's features reads quantities by
 * them rather than choosing rules itself. */
unsigned dra_features_quantity_rules(const struct dra_features *f);
/* s, NUL-terminated, by the rules of f's release. */
DRA_MUST_USE dra_err *dra_quantity_parse_as(const struct dra_features *f, const char *s, dra_quantity *out);
/* ParseQuantity of an apimachinery release, where releases differ. */
typedef enum {
    DRA_QUANTITY_RULES_137 = 0,       /* v0.36.3 and v0.37.2 */
    DRA_QUANTITY_RULES_138 = 1u << 0, /* v0.38.0-beta.0: see below */
} dra_quantity_rules;
/* Under DRA_QUANTITY_RULES_138: a decimal number of 19 digits that fits
 * int64 (or is -2^63) stays int64-backed, printed canonically; a decimal
 * exponent of -2^31 is refused ("unable to parse quantity's suffix");
 * an inf.Dec-backed value keeps its first 29 significant digits (70 before
 * a binary SI suffix), rounded away from zero, and the scale of its digits
 * when that is coarser than nano.  rules is a set of dra_quantity_rules.
 * The caller owns the error. */
DRA_MUST_USE dra_err *dra_quantity_parse_rules(const char *s, size_t len, unsigned rules, dra_quantity *out);
/* The rules of a release: release is a dra_release (features.h), 0 for
 * the default one.  Every quantity a release's API server or scheduler
 * decodes is parsed by its own apimachinery. */
unsigned dra_quantity_rules_of(int release);
/* A quantity written as a JSON string, as Quantity.UnmarshalJSON reads it:
 * the string's text with Go's white space around it trimmed, then parsed.
 * Upstream trims the raw text between the quotes, so only white space
 * that can stand unescaped in JSON is trimmed (a space, U+0085, U+00A0 and
 * the other non-ASCII spaces); an escaped tab or newline is no space to it. */
DRA_MUST_USE dra_err *dra_quantity_parse_json_rules(const char *s, size_t len, unsigned rules, dra_quantity *out);

/* Quantity.String() into buf of at least DRA_QUANTITY_STRMAX bytes; returns buf. */
const char *dra_quantity_format(const dra_quantity *q, char *buf);
/* Quantity.CanonicalizeBytes() (String() without the verbatim-input cache). */
const char *dra_quantity_format_canonical(const dra_quantity *q, char *buf);

int dra_quantity_cmp(const dra_quantity *a, const dra_quantity *b); /* -1, 0, 1 */
int dra_quantity_sign(const dra_quantity *q);                       /* -1, 0, 1 */
bool dra_quantity_is_zero(const dra_quantity *q);
/* a + b and a - b, exact, as upstream's Add/Sub: the result keeps a's
 * format, except that a zero a takes b's format.  Returns false (and leaves
 * *out untouched) when the result is beyond our range. out may alias a or b. */
bool dra_quantity_add(dra_quantity *out, const dra_quantity *a, const dra_quantity *b);
bool dra_quantity_sub(dra_quantity *out, const dra_quantity *a, const dra_quantity *b);
/* The same by a release's rules (dra_quantity_rules): under
 * DRA_QUANTITY_RULES_138, when the sum leaves the int64 path, a non-zero
 * operand whose scale is more than 29 orders of magnitude finer than the
 * other's is first rounded away from zero to 29 orders below it, and a
 * zero operand leaves the other's scale as it is (apimachinery
 * v0.38.0-beta.0 amount.go boundScaleGap, addDecBoundedScale). */
bool dra_quantity_add_rules(dra_quantity *out, const dra_quantity *a, const dra_quantity *b, unsigned rules);
bool dra_quantity_sub_rules(dra_quantity *out, const dra_quantity *a, const dra_quantity *b, unsigned rules);
/* CEL library helpers: isInteger / asInteger, i.e. upstream's Quantity.AsInt64
 * (see the representation quirk above: false for "1000m" although it is 1). */
bool dra_quantity_is_int64(const dra_quantity *q);
bool dra_quantity_as_int64(const dra_quantity *q, int64_t *out);
double dra_quantity_as_float(const dra_quantity *q); /* AsApproximateFloat64 */
/* The same by a release's rules (dra_quantity_rules): v0.38 returns a zero
 * as 0 where v0.37 gives NaN for "0e400". */
double dra_quantity_as_float_rules(const dra_quantity *q, unsigned rules);
/* Quantity.Value(): the value rounded up to an integer as upstream's two
 * code paths do: away from zero for int64-backed values; for inf.Dec-backed
 * ones the ceiling, except that a negative fraction at an inf.Dec scale
 * below 19 is truncated and then one is added ("-1.5000000000" is 0,
 * "-0.5000000000" is 1; scale_int.go scaledValue).  False where upstream
 * silently overflows: the result or, for those negatives, the internal
 * unscaled integer does not fit int64. */
bool dra_quantity_value(const dra_quantity *q, int64_t *out);
/* Quantity.Value() as apimachinery computes it through v0.37: on overflow
 * an int64-backed value at scale 1, 2, 3, 6 or 9 wraps, one at any other
 * scale gives 0, and an inf.Dec-backed value keeps the low 64 bits of its
 * rounded quantity (math.go positiveScaleInt64, scale_int.go scaledValue). */
int64_t dra_quantity_value_wrapped(const dra_quantity *q);
/* q.Cmp(y) with its side effect: when either side is an inf.Dec, Cmp's
 * AsDec() turns the receiver q into one for good, at its scale
 * (quantity.go), which later changes what Value() returns. */
int dra_quantity_cmp_receiver(dra_quantity *q, const dra_quantity *y);
/* resource.NewQuantity(v, fmt). */
dra_quantity dra_quantity_from_int64(int64_t v, dra_qformat fmt);
/* Quantity.MilliValue(): the value times 1000, rounded up as Value() rounds
 * (ScaledValue(Milli), so "-1.5000000001" gives -1499);
 * false when it does not fit int64.  And resource.NewMilliQuantity(v, fmt). */
bool dra_quantity_milli_value(const dra_quantity *q, int64_t *out);
/* Quantity.AsDec().String(): upstream's internal unscaled integer and scale
 * printed as inf.Dec prints them ("0.100" for "100m", "1024" for "1Ki",
 * "1.5" for "1.5"), into buf of at least DRA_QUANTITY_DECMAX bytes; returns
 * buf.  The text depends on the representation, not only on the value (the
 * API server keys validValues by it with DRAFractionalCapacityRange).  A text
 * longer than the buffer (exponents beyond a few hundred digits) is replaced
 * by the canonical form. */
#define DRA_QUANTITY_DECMAX 512
/* The value has a fractional part (the validation's isFractionalQuantity). */
bool dra_quantity_is_fractional(const dra_quantity *q);
const char *dra_quantity_dec_string(const dra_quantity *q, char *buf);
dra_quantity dra_quantity_from_milli(int64_t v, dra_qformat fmt);
/* The milli value when it is exact: q equals NewMilliQuantity(q.MilliValue())
 * (a whole number of milli-units that fits int64), as the DRA allocator's
 * safeMilliValue and the API validation's milli guard ask. */
bool dra_quantity_milli_exact(const dra_quantity *q, int64_t *out);

#endif
