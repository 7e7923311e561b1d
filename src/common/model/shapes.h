/* Shape checks (shapes.c). */
#ifndef DRA_MODEL_SHAPES_H
#define DRA_MODEL_SHAPES_H

#include <jansson.h>

#include "../base/error.h"
#include "../io/stream.h"

/* Shape checks for the fields this code relies on (status.reservedFor,
 * allocation results, pod claims), worded like upstream's field errors.
 * Returns an input error chain located at the object, NULL when fine. */
DRA_MUST_USE dra_err *dra_check_claim_shape(const dra_obj *o);
/* The field error "Invalid value: <v as JSON>: must be of type <type>". */
void dra_ferr_wrong_type(dra_errs *l, const char *field, const json_t *v, const char *type);
DRA_MUST_USE dra_err *dra_check_pod_shape(const dra_obj *o);

#endif
