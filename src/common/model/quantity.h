/* Kubernetes resource.Quantity: exact decimal quantities with suffixes.
 *
 * Semantics follow k8s.io/apimachinery/pkg/api/resource (quantity.go,
 * amount.go, math.go, suffix.go): parse every form (plain numbers, decimal SI
 * "n u m k M G T P E", binary SI "Ki Mi Gi Ti Pi Ei", exponents "1e3"/"1E3",
 * signs, fractions), exact comparison and arithmetic, and canonical printing
 * (Quantity.String()).  Precision is limited as upstream: values are rounded
 * up to the nano (10^-9) scale on parse.
 *
 * A dra_quantity is a value type: no heap memory, copy it freely.
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

/* Internal representation: see quantity.c.  Treat the fields as private. */
typedef struct dra_quantity {
    int64_t hi, lo;     /* value = (hi * 10^18 + lo) * 10^scale; hi and lo carry the same sign */
    int32_t scale;
    dra_qformat format;
} dra_quantity;

/* Longest canonical string dra_quantity_format() can produce, with NUL. */
#define DRA_QUANTITY_STRMAX 64

/* Parse like resource.ParseQuantity.  Errors use upstream's texts
 * ("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
 * "unable to parse quantity's suffix"). */
dra_err *dra_quantity_parse(const char *s, dra_quantity *out);
dra_err *dra_quantity_parsen(const char *s, size_t len, dra_quantity *out);

/* Canonical string (Quantity.String()) into buf of at least DRA_QUANTITY_STRMAX bytes. */
const char *dra_quantity_format(const dra_quantity *q, char *buf);

int dra_quantity_cmp(const dra_quantity *a, const dra_quantity *b); /* -1, 0, 1 */
int dra_quantity_sign(const dra_quantity *q);                       /* -1, 0, 1 */
bool dra_quantity_is_zero(const dra_quantity *q);
/* a + b and a - b, exact; the result keeps a's format (as upstream's Add/Sub).
 * Returns false on overflow of the representation. */
bool dra_quantity_add(dra_quantity *out, const dra_quantity *a, const dra_quantity *b);
bool dra_quantity_sub(dra_quantity *out, const dra_quantity *a, const dra_quantity *b);
/* CEL library helpers: isInteger / asInteger (false when not an integer or out of int64 range). */
bool dra_quantity_is_int64(const dra_quantity *q);
bool dra_quantity_as_int64(const dra_quantity *q, int64_t *out);
double dra_quantity_as_float(const dra_quantity *q); /* AsApproximateFloat64 */
dra_quantity dra_quantity_from_int64(int64_t v, dra_qformat fmt);

#endif
