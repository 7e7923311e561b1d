/* Compiled selector plans (dra_plan.c): matching a compiled selector on a
 * converted device, and the calls cel/dra.c makes to build the plans.  Included by dra.h, which is the public header:
 * include dra.h, not this file. */
#ifndef DRA_CEL_DRA_PLAN_H
#define DRA_CEL_DRA_PLAN_H

#include <stdbool.h>

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/error.h"
#include "value.h"

#define CEL_DRA_MAX_COST 1000000 /* CELSelectorExpressionMaxCost */

typedef struct cel_dra_device cel_dra_device;
struct cel_program;

/* Evaluate a compiled selector on a device.  On success *matched is the
 * result.  Errors (DRA_EXIT_RUNTIME): the CEL runtime error text, e.g.
 * "no such key: x", "operation cancelled: actual cost limit exceeded",
 * "CEL result of type int could not be converted to bool: ...". */
DRA_MUST_USE dra_err *cel_dra_match(struct cel_program *p, const cel_dra_device *d, bool *matched);

/* The compiled plan of a selector as text, for tests and diagnostics:
 * e.g. "and(int_cmp(semver_part(attr)), qty_test(cap))".  Appends to out
 * and returns true, or returns false when the selector runs on the
 * general evaluator (no plan). */
bool cel_dra_plan_format(const struct cel_program *p, dra_buf *out);

/* ---- for cel/dra.c ---- */

/* Compile p's checked AST into a plan (p->ext), when the selector has one. */
void dra_plan_build(struct cel_program *p);
/* The device's conversion error as a runtime error (new; caller frees). */
DRA_MUST_USE dra_err *dra_plan_device_error(const cel_dra_device *d);

#endif
