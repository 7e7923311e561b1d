/* ResourceClaim lifecycle as kube-controller-manager's resourceclaim
 * controller and the scheduler's reserve step do it (dra.md §5, §6.1,
 * dra-corrections.md E5-1..E5-9; upstream pkg/controller/resourceclaim/
 * controller.go, staging/.../dynamic-resource-allocation/resourceclaim/).
 *
 * This is the one place where claims are made from templates: dra-claim
 * generate and dra-alloc schedule both call dra_claim_from_template() or
 * dra_claims_generate().
 *
 * Every entry point reads a dra_cluster (borrowed, never modified) and
 * records its changes in a dra_changes (cluster/ops.h) the caller owns.  The
 * current state of the run is the cluster plus those changes: objects
 * touched or created by an earlier call are seen by the next one (see
 * dra_state_find), so one dra_changes can carry a whole pipeline (generate,
 * allocate, reserve) as dra-alloc schedule does.  Lookups are indexed: each
 * entry point is linear in the size of the dump.  Problems
 * found in the data (a refusal, a missing template) come back as an error
 * chain (caller frees); the changes recorded for other pods stay valid.
 */
#ifndef DRA_LIFECYCLE_CLAIMS_H
#define DRA_LIFECYCLE_CLAIMS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/error.h"
#include "../model/features.h"
#include "../cluster/cluster.h"
#include "../cluster/ops.h"

/* How a generated claim gets its name.  Upstream leaves it to the API server
 * (generateName + 5 random characters); offline pipelines need names now. */
typedef enum {
    DRA_NAME_SUFFIX_HASH,   /* generateName + 5 characters from a hash of namespace, pod UID and pod claim name */
    DRA_NAME_SUFFIX_RANDOM, /* only generateName, as upstream sends it: the server picks the name */
    DRA_NAME_SUFFIX_NONE,   /* generateName without its trailing '-' (the pre-1.28 "<pod>-<claim>" names) */
} dra_name_suffix;

/* "hash", "random", "none". */
DRA_MUST_USE dra_err *dra_name_suffix_parse(const char *s, dra_name_suffix *out);

typedef struct dra_lc_opts {
    const dra_features *features; /* NULL: defaults (DRAAdminAccess, DRAPrioritizedList) */
    dra_name_suffix name_suffix;
    bool pending_only; /* generate: only pods a scheduler would place (no nodeName, not done) */
    /* generate: hold each created claim as text at once (dra_changes_freeze),
     * its spec the template's own tree, shared and held by reference: the
     * caller changes no created claim's spec */
    bool freeze;
    /* generate, with changes made in place: hold each changed pod as text
     * too (dra_changes_freeze_in_place), for a caller that reads pods only
     * through the changes */
    bool freeze_pods;
    /* generate: NULL (only v1 templates are used), or where notes go
     * (DRA_EXIT_OK errors, caller owns): a classic (resource.k8s.io/v1alpha2)
     * ResourceClaimTemplate of the pod's namespace is then used for want of
     * a v1 one, converted as dra-claim convert does (model/classic.h), and
     * noted once per template, followed by what its conversion did not carry
     * over */
    dra_err **notes;
    /* generate: quota admission of each claim about to be created (NULL:
     * none).  A non-NULL return is the API server's refusal (a new string):
     * the claim is not created and the pod (group) gets the error, as a
     * failed create stops upstream's syncPod: "pod NS/NAME, PodResourceClaim
     * C: <refusal>"; claims created before it for the same pod stay. */
    char *(*admit)(void *ctx, const json_t *claim);
    void *admit_ctx;
    /* generate: the pods in this order (their objects in the cluster; pods
     * not listed are not visited), e.g. the scheduling queue's; NULL: the
     * cluster's pods in input order */
    const json_t *const *pod_order;
    size_t npod_order;
} dra_lc_opts;

/* generateName upstream uses for a pod claim: "<pod>-<podClaimName>-", or, when
 * longer than 57 characters, both parts cut proportionally and joined by '-'
 * without a trailing '-'.  Caller frees. */
char *dra_claim_generate_name(const char *pod_name, const char *pod_claim_name);

/* The name a claim gets under the suffix mode (NULL for RANDOM); caller frees.
 * Like the API server, a generateName over 58 characters is cut to 58 first. */
char *dra_claim_name_for(const char *generate_name, dra_name_suffix mode, const char *ns, const char *pod_uid,
                         const char *pod_claim_name);

/* A new ResourceClaim for pod.spec.resourceClaims[i] from its template, as
 * handleClaim builds it: apiVersion of the template, metadata {name (by mode),
 * generateName, namespace, labels = template labels, annotations = template
 * annotations + resource.kubernetes.io/pod-claim-name, ownerReferences =
 * [{apiVersion v1, kind Pod, name, uid, controller: true}]}, spec = template
 * spec.  Feature checks: admin access with DRAAdminAccess off ("admin access is
 * requested, but the feature is disabled"), firstAvailable with
 * DRAPrioritizedList off ("template includes a prioritized list of
 * subrequests, but the feature is disabled").  *out is new (caller decrefs). */
DRA_MUST_USE dra_err *dra_claim_from_template(const json_t *pod, const json_t *pod_claim, const json_t *tmpl,
                                              const dra_lc_opts *opts, json_t **out);

/* The same for PodGroup group.spec.resourceClaims[] entry group_claim
 * (handlePodGroupClaim, DRAWorkloadResourceClaims): generateName
 * "<group>-<claim>-" (cut as above), the annotation with the group's claim
 * name, ownerReferences = [{apiVersion of the group (scheduling.k8s.io/...),
 * kind PodGroup, name, uid, controller: true}]. */
DRA_MUST_USE dra_err *dra_claim_from_template_for_group(const json_t *group, const json_t *group_claim,
                                                        const json_t *tmpl, const dra_lc_opts *opts, json_t **out);

/* The current state of kind k ns/name in a run: the input object (first in
 * input order) or its working copy in ch, else the first object of that kind
 * created in ch; NULL when missing or deleted in ch.  Pods and
 * ResourceClaims (any kind the cluster indexes). */
const json_t *dra_state_find(const dra_cluster *c, const dra_changes *ch, dra_kind k, const char *ns, const char *name);

/* Pod sync steps 1-2 for every pod of the cluster (input order; pods being
 * deleted are skipped): reuse a claim the pod owns (status or orphan lookup),
 * else create one from the template; then server-side-apply
 * status.resourceClaimStatuses; then, for a pod bound to a node, step 3:
 * reserve its allocated claims not yet reserved for it (reserveForPod, as
 * dra_claims_reserve_in; skipped where upstream would retry later).
 * Terminated pods are skipped.  Errors name the pod as upstream does:
 * "pod NS/NAME, PodResourceClaim C: ...".  With opts->pending_only, pods
 * bound to a node or done are skipped too. */
DRA_MUST_USE dra_err *dra_claims_generate(const dra_cluster *c, const dra_lc_opts *opts, dra_changes *out);
/*
 * With DRAWorkloadResourceClaims on (dra-corrections.md E5-9; upstream
 * syncPodGroup / handlePodGroupClaim / findPodGroupResourceClaim), PodGroups
 * come first, in input order (all of them, pending_only or not; those being
 * deleted are skipped): each spec.resourceClaims[] entry with a template
 * reuses the claim named in status.resourceClaimStatuses while the group
 * controls it, else a claim the group controls with the annotation naming
 * the entry, else gets a new claim (dra_claim_from_template_for_group); the
 * new names are server-side-applied to status.resourceClaimStatuses (only
 * the new entries, unsorted).  Errors: "PodGroup NS/NAME,
 * PodGroupResourceClaim C: ...".  Then pods: a pod claim that matches a claim
 * of the pod's group (dra_pod_group_claim_match) creates nothing; once the
 * group's claim exists its name goes into the pod's resourceClaimStatuses.
 * A pod with claims whose group is missing is refused ("pod NS/NAME:
 * podgroup.scheduling.k8s.io \"G\" not found").  With the gate off a matched
 * pod claim is refused ("... the DRAWorkloadResourceClaims feature is
 * disabled"); pods whose claims match no group claim are unaffected.
 */

/* One claim to reserve for a pod. */
typedef struct dra_reserve_claim {
    const char *name;    /* claim in the pod's namespace (for lookup and texts) */
    const json_t *claim; /* the claim itself (an input object or one created in the state); NULL: look up name */
    bool check_owner;    /* a claim from a template: must be controlled by the pod (IsForPod) */
    json_t *allocation;  /* bind: status.allocation made for it now; the claim takes a reference and
                          * may add allocationTimestamp to it.  NULL: must be allocated already */
    const json_t *group; /* the pod's PodGroup when the claim is the group's (BindTo): reserved for
                          * {apiGroup scheduling.k8s.io, resource podgroups, name, uid}; NULL: the pod */
} dra_reserve_claim;

/* BindTo with DRAWorkloadResourceClaims on: the PodGroup (current state in
 * (c, ch)) pod_claim of pod is shared with, else NULL. */
const json_t *dra_pod_claim_group(const dra_cluster *c, const dra_changes *ch, const json_t *pod,
                                  const json_t *pod_claim, const dra_features *f);

typedef struct dra_reserve_opts {
    /* false: the claim controller's reserveForPod (status.reservedFor only).
     * true: the scheduler's PreBind (bindClaim): with a new allocation first
     * add the delete-protection finalizer, then one status update with the
     * allocation, the reservedFor entry and, when DRADeviceBindingConditions
     * and DRAResourceClaimDeviceStatus are on, allocationTimestamp = now if
     * the allocation has none. */
    bool bind;
    const dra_features *features; /* NULL: defaults */
    int64_t now;                  /* allocationTimestamp (bind), Unix seconds */
} dra_reserve_opts;

/* Reserve claims for pod (its current state) in the state (c, out): append
 * {resource: pods, name, uid} (or, for a claim with .group, the PodGroup's
 * entry) to status.reservedFor of each claim not yet reserved for the pod's
 * UID (with DRAWorkloadResourceClaims: nor for the pod's PodGroup, by name,
 * as IsReservedForPod), reading and writing the working copies in out.
 * Ownership checks accept the pod's PodGroup as owner under that gate.
 * claims NULL: the pod's claims as resourceclaim.PodClaims lists them
 * (including status.extendedResourceClaimStatus).  All-or-nothing: any
 * refusal (claim not created, missing, not owned, not allocated, being
 * deleted, 256 entries) records no change.  The refusals use the API
 * server's texts, e.g. `ResourceClaim.resource.k8s.io "c" is invalid:
 * status.reservedFor: Forbidden: may not be specified when `allocated` is not
 * set`, exit class DRA_EXIT_NEGATIVE.  opts NULL: reserveForPod. */
DRA_MUST_USE dra_err *dra_claims_reserve_in(const dra_cluster *c, dra_changes *out, const json_t *pod,
                                            const dra_reserve_claim *claims, size_t n, const dra_reserve_opts *opts);

/* dra_claims_reserve_in for the pod pod_ns/pod_name of the state with the
 * pod's own claims (what dra-claim reserve does; f: the gates, NULL =
 * defaults).  A missing pod is DRA_EXIT_INPUT. */
DRA_MUST_USE dra_err *dra_claims_reserve(const dra_cluster *c, const char *pod_ns, const char *pod_name,
                                         const dra_features *f, dra_changes *out);

/* Options of dra_claims_release(); zero = upstream's claim controller only. */
typedef struct dra_release_opts {
    /* Also delete unused generated claims whose owning pod is missing from
     * the input.  The claim controller leaves those to the garbage collector
     * (it cannot tell "gone" from "not in my cache yet"); an offline run can
     * do the collector's work when the input is known to be complete. */
    bool delete_orphans;
    /* Do not refuse namespaces that have pod reservations but no Pods in the
     * input (see below): the caller vouches that the input is complete. */
    bool no_pods_ok;
    /* DRAWorkloadResourceClaims on: reservedFor PodGroup entries whose group
     * is missing from the input or has another UID are stale too.  NULL:
     * defaults (off: such entries are kept). */
    const dra_features *features;
} dra_release_opts;

/* Claim sync for every claim (syncClaim): drop reservedFor pods that are gone
 * (missing from the input, other UID) or done; clear the allocation in that
 * same status update when the list becomes empty and the claim carries
 * resource.kubernetes.io/delete-protection; then remove the finalizer; for
 * deleting claims without users clear the allocation then the finalizer;
 * delete unused claims generated for pods that are done or replaced (and,
 * with opts->delete_orphans, missing).  Entries that are not pods are kept.
 *
 * Safety beyond upstream: a namespace whose claims have pod reservations but
 * for which the input holds no Pod at all is refused (DRA_EXIT_INPUT, one
 * error naming every such namespace) unless opts->no_pods_ok, because every
 * reservation there would look stale: a dump of pods from one namespace
 * combined with claims from all would otherwise deallocate claims of
 * running pods.  opts may be NULL (zero). */
DRA_MUST_USE dra_err *dra_claims_release(const dra_cluster *c, const dra_release_opts *opts, dra_changes *out);

#endif
