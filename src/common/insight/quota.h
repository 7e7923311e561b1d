/* ResourceQuota for DRA, as the API server's quota admission enforces it when
 * ResourceClaims are created (upstream pkg/quota/v1/evaluator/core/
 * resource_claims.go and plugin/pkg/admission/resourcequota/controller.go).
 *
 * A claim is charged, in quotas of its namespace without scopes:
 *   count/resourceclaims.resource.k8s.io          1
 *   <class>.deviceclass.resource.k8s.io/devices   per request: exactly.count, or 32
 *                                                 (AllocationResultsMaxSize) for All;
 *                                                 firstAvailable: the largest
 *                                                 subrequest per class
 *   requests.deviceclass.resource.kubernetes.io/<class> and
 *   requests.<extendedResourceName of the class>  the same (DRAExtendedResource
 *                                                 on; not for the scheduler's
 *                                                 extended-resource claims,
 *                                                 whose pod is charged instead)
 * Admin-access requests count like any other: upstream charges them (KEP-5018,
 * "Requests asking for adminAccess contribute to the quota").
 *
 * Offline, usage is what the input's claims add up to in input order; a
 * claim that would exceed a quota is refused with the API server's message
 * and not charged.  ResourceQuota objects (v1) are read from the set; the
 * quota's status.used is not trusted (the claims of the dump are counted).
 *
 * Ownership: set and model borrowed; the report belongs to the caller.
 */
#ifndef DRA_INSIGHT_QUOTA_H
#define DRA_INSIGHT_QUOTA_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../io/stream.h"
#include "../model/features.h"
#include "../model/load.h"

/* {"quotas": [{"namespace", "name", "resources": {R: {"used", "hard"}}}],
 *  "refused": [{"claim": "ns/name", "quota", "message"}]}
 * Only DRA resources of each quota are listed.  Errors: a hard value that is
 * not a quantity (naming the quota and field). */
DRA_MUST_USE dra_err *dra_quota_evaluate(const dra_objset *set, const dra_model *m, const dra_features *features,
                                         json_t **report);

/* The resources one claim is charged (a new object R -> integer). */
json_t *dra_quota_claim_usage(const json_t *claim, const dra_model *m, const dra_features *features);

/* Table for people: NAMESPACE QUOTA RESOURCE USED HARD. */
DRA_MUST_USE dra_err *dra_quota_table(FILE *f, const json_t *report);

#endif
