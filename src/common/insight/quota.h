/* ResourceQuota for DRA, as the API server's quota admission enforces it when
 * ResourceClaims are created (upstream k8s.io/kubernetes pkg/quota/v1/
 * evaluator/core/resource_claims.go and k8s.io/apiserver pkg/admission/
 * plugin/resourcequota/controller.go).
 *
 * A claim is charged, in quotas of its namespace without scopes:
 *   count/resourceclaims.resource.k8s.io          1
 *   <class>.deviceclass.resource.k8s.io/devices   per request: exactly.count, or 32
 *                                                 (AllocationResultsMaxSize) for All;
 *                                                 firstAvailable: the largest
 *                                                 subrequest per class
 *   requests.deviceclass.resource.kubernetes.io/<class> and
 *   requests.<extendedResourceName of the class>  the same (DRAExtendedResource
 *                                                 on), less, for the scheduler's
 *                                                 claim for a pod's extended
 *                                                 resources, what its verified
 *                                                 pod requests of that resource
 *                                                 (getVerifiedPodUsage,
 *                                                 addExtendedResourceQuota)
 * Admin-access requests count like any other: upstream charges them (KEP-5018,
 * "Requests asking for adminAccess contribute to the quota").  A quota counts
 * the names claimEvaluator.MatchingResources matches: requests.<R> only where
 * a class of the model serves R.
 *
 * Quotas: v1 ResourceQuotas of the set.  Upstream's admission reads a
 * quota's status alone (CheckRequest): limits status.hard, use status.used;
 * a DRA resource of status.hard that status.used lacks refuses every claim
 * ("status unknown for quota: Q, resources: ..." over all its DRA
 * resources, hasUsageStats), before any quota's limits are checked.  A quota
 * without status.hard, which admission ignores until the quota controller
 * syncs it (moments after its creation), is taken as synced: limits
 * spec.hard; the start of each resource's use is status.used's figure when it
 * lists it, else, for a ledger of existing claims, the quota controller's:
 * the namespace's claims of the model; else 0.  A quota with scopes (scopes
 * or scopeSelector) never applies (generic.MatchesNoScopeFunc).  A claim that
 * would exceed a quota (the first of its namespace, input order) is refused
 * with the API server's message and not charged.
 *
 * Ownership: set and model borrowed; the report belongs to the caller.
 */
#ifndef DRA_INSIGHT_QUOTA_H
#define DRA_INSIGHT_QUOTA_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../cluster/cluster.h"
#include "../io/stream.h"
#include "../model/features.h"
#include "../model/load.h"
#include "../model/validate_quota.h" /* dra_is_resource_quota */
#include "../sched/schedule.h"

/* Quota admission over a run: claims are admitted one by one, in the order
 * they are created. */
typedef struct dra_quota_ledger dra_quota_ledger;

/* The quotas of set.  existing: used starts from the model's claims where
 * status.used does not say (the tool creates claims on top of them); false:
 * from 0 (the model's claims are the ones being created).  Errors: a hard or
 * used value that is not a quantity (naming the quota and field).  m (and
 * features, may be NULL) must outlive the ledger. */
DRA_MUST_USE dra_err *dra_quota_ledger_new(const dra_objset *set, const dra_model *m, const dra_features *features,
                                           bool existing, dra_quota_ledger **out);
/* dra_quota_ledger_new with existing true, the existing claims read one at
 * a time from next instead of m's (m's claims are not counted): a claim
 * (borrowed until next is called again), NULL at the end.  For claims held
 * out of memory (model/compact.h), made again one at a time.  An
 * extended-resource claim's pod (getVerifiedPodUsage) is still looked up
 * among m's Pods and claims. */
DRA_MUST_USE dra_err *dra_quota_ledger_new_each(const dra_objset *set, const dra_model *m, const dra_features *features,
                                                const json_t *(*next)(void *ctx), void *ctx, dra_quota_ledger **out);
/* Admit one claim being created: NULL when it fits every quota of its
 * namespace (it is then charged), else the API server's message (a new
 * string; the claim is not charged):
 *   resourceclaims.resource.k8s.io "NAME" is forbidden: exceeded quota: Q,
 *   requested: R=n,..., used: R=n,..., limited: R=n,...
 * or "... is forbidden: status unknown for quota: Q, resources: R,...".
 * NAME is metadata.name.  For a create the server names, admission sees the
 * name the server generated (AdmissionToValidateObjectFunc runs after the
 * Store made it), which cannot be known here: the generateName stands in. */
char *dra_quota_admit(dra_quota_ledger *l, const json_t *claim);
/* What the ledger did (a new object):
 * {"quotas": [{"namespace", "name", "hardFrom": "status.hard"|"spec.hard",
 *              "resources": {R: {"used", "hard", "start", "fromStatus"}},
 *              "statusUnknown": {"resources", "missing"} (when status.used lacks some)}],
 *  "refused": [{"claim": "ns/name", "quota", "message"}],
 *  "charged": [{"claim", "quotas": [names], "usage": {R: n}}] (admission order),
 *  "uncharged": [{"claim", "reason"}],
 *  "skippedQuotas": [{"namespace", "name", "scopes", "reason"}]}
 * Only DRA resources of each quota are listed. */
json_t *dra_quota_ledger_report(const dra_quota_ledger *l);
void dra_quota_ledger_free(dra_quota_ledger *l);

/* The model's claims (c->model; the quotas from c->set) admitted in input
 * order on a ledger starting from 0 (or status.used): the report above. */
DRA_MUST_USE dra_err *dra_quota_evaluate(const dra_cluster *c, const dra_features *features, json_t **report);
/* dra_quota_evaluate over the claims read one at a time from next (as
 * dra_quota_ledger_new_each reads them; m's claims are not admitted): the
 * quotas from set, the classes, and (for getVerifiedPodUsage) the claims
 * dra_quota_pod_claim picks and the Pods they name from m, which must hold
 * every such claim that next gives and its Pod. */
DRA_MUST_USE dra_err *dra_quota_evaluate_each(const dra_objset *set, const dra_model *m, const dra_features *features,
                                              const json_t *(*next)(void *ctx), void *ctx, json_t **report);
/* The claims kept as text (insight/capacity.h), made again one at a time
 * for dra_quota_ledger_new_each and dra_quota_evaluate_each: next is
 * dra_quota_feed_next, ctx a feed that starts as {claims}; cur, the claim
 * given last, is dropped when the next is asked for, and by
 * dra_quota_feed_end.  claims is borrowed. */
struct dra_fleet_claims;
typedef struct dra_quota_feed {
    const struct dra_fleet_claims *claims;
    size_t i;
    json_t *cur;
} dra_quota_feed;
const json_t *dra_quota_feed_next(void *ctx);
void dra_quota_feed_end(dra_quota_feed *f);
/* Whether the quota's charge of claim may depend on a Pod and the other
 * claims (getVerifiedPodUsage): for the scheduler's claim for a pod's
 * extended resources, controlled by a Pod, that Pod's name (in the claim's
 * namespace; borrowed from claim), else NULL. */
const char *dra_quota_pod_claim(const json_t *claim);

/* Quota admission for a scheduling run: a ledger of c->set's ResourceQuotas
 * over c's claims (existing: true) as so's admit (*out, NULL when the
 * input has no ResourceQuota; the caller frees it after the run). */
DRA_MUST_USE dra_err *dra_quota_admission(const dra_cluster *c, const dra_features *features, dra_sched_opts *so,
                                          dra_quota_ledger **out);

/* The resources one claim is charged (a new object R -> integer); m (may
 * be NULL) gives the classes and the pod of an extended-resource claim. */
json_t *dra_quota_claim_usage(const json_t *claim, const dra_model *m, const dra_features *features);

/* Table for people: NAMESPACE QUOTA RESOURCE USED HARD. */
DRA_MUST_USE dra_err *dra_quota_table(FILE *f, const json_t *report);

#endif
