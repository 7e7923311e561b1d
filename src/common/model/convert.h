/* Conversion of older resource.k8s.io versions to v1, in place.
 *
 *  - v1beta2: already in v1's shape (flattened devices, `exactly` /
 *    `firstAvailable` requests); only apiVersion changes.
 *  - v1beta1: ResourceSlice devices carry their fields under `basic`, which
 *    is flattened into the device; ResourceClaim(Template) requests carry
 *    deviceClassName/selectors/allocationMode/count/adminAccess/tolerations/
 *    capacity directly and are nested under `exactly`.  As upstream, a
 *    request without firstAvailable always gets `exactly` (v1beta1 defaults
 *    allocationMode before converting), and a request with firstAvailable
 *    gets `exactly` too when any of those fields is set, which validation
 *    then rejects as "multiple fields are set".
 *    Sources: pkg/apis/resource/v1beta1/conversion.go, defaults.go.
 *  - v1alpha3 DeviceTaintRule: same shape; the selector fields removed in
 *    1.35 (deviceClassName, selectors) are rejected.
 * Status (allocation results, device status) has the same shape in every
 * version and is left as is.  Key order is kept; moved keys take the place
 * of the key they replace.
 *
 * On success apiVersion is "resource.k8s.io/v1" (core objects are
 * untouched).  Errors are field errors (names.h style) for fields that do not
 * exist in the source version; the object may be partly converted then.
 * The caller owns the returned chain.
 */
#ifndef DRA_MODEL_CONVERT_H
#define DRA_MODEL_CONVERT_H

#include <jansson.h>

#include "../base/error.h"
#include "kinds.h"

/* Pods of Kubernetes 1.26-1.30 name their claims under
 * spec.resourceClaims[].source.{resourceClaimName,resourceClaimTemplateName}
 * (core/v1 ClaimSource); 1.31 moved both onto the entry (release-1.31
 * staging/src/k8s.io/api/core/v1/types.go PodResourceClaim).  In the pod spec
 * pod_spec (a Pod's spec or a pod template's), every entry's source is
 * dropped, its fields moved onto the entry unless the entry sets them.  With
 * notes, each change is appended there as a DRA_EXIT_OK error whose field
 * is "<prefix>.resourceClaims[i].source...." (caller owns the chain).
 * Returns the number of entries changed.  dra_convert_to_v1 does this for
 * Pods. */
size_t dra_flatten_claim_sources(json_t *pod_spec, const char *prefix, dra_err **notes);

DRA_MUST_USE dra_err *dra_convert_to_v1(json_t *obj, dra_kind kind, dra_apiver from);

#endif
