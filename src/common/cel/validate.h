/* Validate objects as the API server does on create: convert, default and
 * validate every object of a set, with CEL selectors compiled by
 * cel_dra_validate_hook (a selector that does not compile is invalid) in the
 * NewExpressions environment (includes() only with DRAListTypeAttributes).
 *
 * Objects of kinds outside DRA are skipped (counted in the model), except
 * unknown kinds or versions of resource.k8s.io, which are errors.
 *
 * Ownership: set is converted and defaulted in place and stays the
 * caller's; the returned chain (every problem found) is the caller's, and
 * so is the loaded model (dra_model_free, also after an error).
 */
#ifndef DRA_CEL_VALIDATE_H
#define DRA_CEL_VALIDATE_H

#include "../base/error.h"
#include "../io/stream.h"
#include "../model/features.h"
#include "../model/load.h"

/* Every error is DRA_EXIT_INPUT.  features NULL: the defaults. */
DRA_MUST_USE dra_err *cel_dra_validate_objects(dra_objset *set, const dra_features *features, dra_model *model);

/* The same one object at a time, as they are read (dra_read_each): see
 * dra_loader in load.h for what differs.  add() returns the object's
 * errors; finish() the held checks' errors, adds the counts and warnings
 * to stats, and frees v. */
typedef struct cel_dra_validator cel_dra_validator;
cel_dra_validator *cel_dra_validator_new(const dra_features *features, dra_field_validation fv);
DRA_MUST_USE dra_err *cel_dra_validator_add(cel_dra_validator *v, dra_obj *o);
DRA_MUST_USE dra_err *cel_dra_validator_finish(cel_dra_validator *v, dra_model *stats);

#endif
