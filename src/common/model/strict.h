/* Strict decoding: unknown fields, as the API server's strict field
 * validation and `kubectl --validate=strict` (the default) report them.
 *
 * The schemas are the Go types of the version the object is written in
 * (staging/src/k8s.io/api/resource/{v1,v1beta2,v1beta1,v1alpha3}/types.go,
 * ObjectMeta from apimachinery/pkg/apis/meta/v1/types.go).  For Pods, Nodes
 * and Namespaces only metadata and the DRA parts of a pod spec are checked
 * (spec.resourceClaims, containers' resources); the rest is left open.
 *
 * An unknown field is reported as sigs.k8s.io/json's strict decoder does:
 *   unknown field "spec.devices[0].basic"
 * With DRA_FV_STRICT each is an error; with DRA_FV_WARN a warning; with
 * DRA_FV_IGNORE nothing.  Unless strict, unknown fields are removed from the
 * object (the decoder drops them), so later stages never see them.
 *
 * Must run before version conversion (the path is the one the user wrote).
 * Ownership: errors and warnings are returned to the caller, who frees them.
 */
#ifndef DRA_MODEL_STRICT_H
#define DRA_MODEL_STRICT_H

#include <jansson.h>

#include "../base/error.h"
#include "../io/stream.h"
#include "kinds.h"

/* Check (and, unless strict, prune) obj.  Returns the errors (strict) and
 * appends warnings to *warnings (warn).  With `at` (the object as read; may
 * be NULL), each is placed at the line of the unknown field itself. */
DRA_MUST_USE dra_err *dra_strict_check(json_t *obj, dra_kind kind, dra_apiver ver, dra_field_validation fv,
                                       dra_err **warnings, const dra_obj *at);

/* The same as the API server of `release` (a dra_release) decodes: fields
 * a newer release added are unknown fields too (resource.k8s.io fields of
 * 1.37: k8s.io/api v0.37.2 resource/{v1,v1beta2,v1beta1,v1alpha3}/types.go
 * against v0.36.3), and a kind it does not serve in that version (yet, or
 * any more) is
 *   kind: no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1"
 * (1.36: resource.k8s.io/v1 DeviceTaintRule, scheduling.k8s.io/v1beta1 and
 * v1alpha3 PodGroup; 1.37 and 1.38: scheduling.k8s.io/v1alpha2 PodGroup).
 * Release 0: every field of the tables is known, as dra_strict_check does
 * -- right for the tools that read an older release's objects as its
 * scheduler does, whose disabled gates drop such fields. */
DRA_MUST_USE dra_err *dra_strict_check_release(json_t *obj, dra_kind kind, dra_apiver ver, dra_field_validation fv,
                                               int release, dra_err **warnings, const dra_obj *at);

/* The kind check alone of dra_strict_check_release: the "no matches for
 * kind" error (input, field "kind"; the caller owns it) when `release` (a
 * dra_release; 0: every release) does not serve kind in ver, else NULL. */
DRA_MUST_USE dra_err *dra_strict_unserved(dra_kind kind, dra_apiver ver, int release);

/* The same for a part of an object that stands on its own in an inventory:
 * part "device" (a v1 Device), "counterSet" (a CounterSet) or "inventory"
 * (a mapping of `devices` and `sharedCounters`), or for an object of a kind
 * outside the model: "resourceQuota" (a core v1 ResourceQuota); paths start
 * with prefix ("devices[3]", or "" for the object itself).  Unknown part:
 * nothing is checked. */
dra_err *dra_strict_check_part(json_t *v, const char *part, const char *prefix, dra_field_validation fv,
                               dra_err **warnings, const dra_obj *at);

#endif
