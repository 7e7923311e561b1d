/* Server-side defaulting of v1 objects (dra.md §1.9,
 * pkg/apis/resource/v1/defaults.go and the +default tags of the v1 types):
 *
 *  - `exactly` requests and firstAvailable subrequests: empty allocationMode
 *    becomes "ExactCount"; ExactCount with count 0 or absent gets count 1;
 *  - tolerations (requests, subrequests, allocation results): empty operator
 *    becomes "Equal";
 *  - taints (slice devices, slice-level spec.taints[].taint, DeviceTaintRule
 *    spec.taint): missing timeAdded
 *    becomes `now`, printed as RFC 3339 UTC with whole seconds.
 *
 * `now` (Unix seconds) is a parameter so results are reproducible: the
 * library never reads the clock.  Values of the wrong JSON type are left for
 * validation to report.  Works in place on converted (v1) objects; other
 * kinds are untouched.
 */
#ifndef DRA_MODEL_DEFAULTS_H
#define DRA_MODEL_DEFAULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "kinds.h"

/* Returns whether it changed obj. */
bool dra_default_object(json_t *obj, dra_kind kind, int64_t now);

/* "2006-01-02T15:04:05Z" for a Unix time into buf (at least 32 bytes). */
const char *dra_format_rfc3339(int64_t unix_seconds, char *buf, size_t size);

#endif
