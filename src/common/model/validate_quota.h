/* ResourceQuota (core v1) validation, as the API server decodes and
 * validates a quota (pkg/apis/core/validation/validation.go
 * ValidateResourceQuota: object metadata, spec.hard, spec.scopes,
 * spec.scopeSelector, status.hard and status.used; resource names and
 * values by ValidateResourceQuotaResourceName and
 * ValidateResourceQuantityValue, with pkg/apis/core/helper's resource
 * sets), after strict decoding of its fields (unknown ones, e.g.
 * spec.used, are errors; model/strict.h part "resourceQuota").
 *
 * The quota is not a kind of the model: the loader (load.c) runs this on
 * every v1 ResourceQuota it meets and then skips it as it skips other
 * kinds; tools that apply quotas read them from the set.
 *
 * Ownership: the returned chain belongs to the caller; obj is only read
 * (strict decoding prunes unknown fields unless fv is strict, as for
 * every kind).
 */
#ifndef DRA_MODEL_VALIDATE_QUOTA_H
#define DRA_MODEL_VALIDATE_QUOTA_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/error.h"
#include "../io/stream.h"
#include "validate.h"

/* Is obj a v1 ResourceQuota (apiVersion v1, kind ResourceQuota)? */
bool dra_is_resource_quota(const json_t *obj);

/* The rules of ValidateResourceQuota on a v1 ResourceQuota; errors have
 * upstream's field paths and words, e.g.
 *   spec.hard[gpu.deviceclass.resource.k8s.io/devices]: Invalid value:
 *   "1500m": must be an integer */
DRA_MUST_USE dra_err *dra_validate_resource_quota(const json_t *obj, const dra_validate_opts *opts);

#endif
