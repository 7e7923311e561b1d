/* A cluster dump indexed by kind, plus the small JSON, time and pod/claim
 * helpers the claim-lifecycle and eviction code share.
 *
 * A dra_cluster borrows the objects of a dra_objset (which must outlive it)
 * and owns only its index arrays: free it with dra_cluster_free().  Objects
 * keep the input order inside each kind, so "first match wins" rules of
 * upstream (orphan lookup, ...) follow the order of the dump.
 *
 * Every lookup below is a hash lookup (dra_cluster_build/load index the
 * dump once), so whole-dump passes stay linear in the number of objects.
 *
 * Times are int64 nanoseconds since the Unix epoch (UTC).  The library never
 * reads the clock: callers pass "now" in.
 */
#ifndef DRA_CLUSTER_CLUSTER_H
#define DRA_CLUSTER_CLUSTER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "../io/json.h"
#include "../io/stream.h"
#include "../model/features.h"
#include "../model/kinds.h"
#include "../model/load.h"
#include "../model/names.h"
#include "../model/time.h"
#include "index.h"

/* Annotations, finalizer and labels upstream uses (k8s.io/api/resource/v1). */
#define DRA_POD_CLAIM_NAME_ANNOTATION "resource.kubernetes.io/pod-claim-name"
#define DRA_EXTENDED_CLAIM_ANNOTATION "resource.kubernetes.io/extended-resource-claim"
#define DRA_DELETE_PROTECTION_FINALIZER "resource.kubernetes.io/delete-protection"

/* An object whose apiVersion the load pipeline changed (v1beta1 -> v1). */
typedef struct dra_served_version {
    const json_t *obj;   /* borrowed */
    char *api_version;   /* owned: the version the input used */
} dra_served_version;

typedef struct dra_cluster {
    const dra_obj **of[DRA_KIND_COUNT]; /* per kind, input order; borrowed objects */
    size_t n[DRA_KIND_COUNT];
    size_t cap[DRA_KIND_COUNT];
    size_t unknown;                     /* objects of kinds the tools do not use (skipped) */
    bool no_validate;                   /* set before dra_cluster_load_input: convert and default only */
    dra_model model;                    /* name index, set by dra_cluster_load() only */
    bool has_model;
    dra_served_version *served;         /* set by dra_cluster_load() only */
    size_t nserved;
    dra_lc_index ix;                    /* names (without a model), owners, object identities (private) */
} dra_cluster;

#define DRA_CLUSTER_INIT {0}

/* Index every object of set as it is (no conversion, defaulting or
 * validation).  Objects without apiVersion/kind are input errors;
 * well-formed kinds the tools do not know (Events, ...) are counted in
 * `unknown` and skipped. */
DRA_MUST_USE dra_err *dra_cluster_build(dra_cluster *c, const dra_objset *set);
/* The same for the claim lifecycle alone (lifecycle/claims.h): ResourceSlices
 * and Nodes, which it never looks up and a fleet has most of, are left out. */
DRA_MUST_USE dra_err *dra_cluster_build_lifecycle(dra_cluster *c, const dra_objset *set);

/* What the tools use: run the shared load pipeline (model/load.h: kind
 * check, v1beta1/v1beta2 -> v1 conversion in place, namespace and server-side
 * defaulting, validation, duplicates) over set, then the shape checks below,
 * and index the result.  Unknown kinds are skipped and counted in `unknown`
 * when opts->skip_unknown, else errors.  The original apiVersion of every
 * converted object is remembered for dra_cluster_served_version().  Any
 * error leaves c empty (but still to be freed).  set must outlive c. */
DRA_MUST_USE dra_err *dra_cluster_load(dra_cluster *c, dra_objset *set, const dra_load_opts *opts);
/* The tools' way in: dra_cluster_load() with unknown kinds skipped (counted
 * in c->unknown), now (Unix seconds) for defaulted timestamps,
 * features (NULL: defaults) for validation, and CEL selectors of classes,
 * claims and templates compiled as the API server does
 * (cel_dra_validate_hook).  Every error is DRA_EXIT_INPUT. */
DRA_MUST_USE dra_err *dra_cluster_load_input(dra_cluster *c, dra_objset *set, const dra_features *features, int64_t now);
/* dra_cluster_load_input over paths read as a stream, for the tools that
 * never look inside devices (dra-evict, dra-claim): every object is checked
 * (kind, strict fields, conversion, defaults, validation, duplicates) on a
 * copy as it is read, then kept unconverted with its ResourceSlices' device
 * attributes and capacity dropped, so memory follows the objects the tool
 * uses, not the devices' descriptions.  The objects go into set (with the
 * reading options already set); errors and warnings are those of
 * dra_cluster_load_input; field lines are found by reading a file again. */
DRA_MUST_USE dra_err *dra_cluster_read_input(dra_cluster *c, dra_objset *set, char *const *paths, size_t npaths,
                                             const dra_features *features, int64_t now);
void dra_cluster_free(dra_cluster *c);

/* The apiVersion the input used for obj (before conversion to v1): what API
 * operations on that object should address, since status, finalizer and
 * reservedFor paths are the same in every version.  NULL when unchanged. */
const char *dra_cluster_served_version(const dra_cluster *c, const json_t *obj);

/* Lookups by namespace/name (namespace NULL or "" for cluster-scoped kinds).
 * First object in input order wins; NULL when missing. */
const dra_obj *dra_cluster_find(const dra_cluster *c, dra_kind k, const char *ns, const char *name);
/* The dra_obj an object of the index came from (for error locations), or NULL. */
const dra_obj *dra_cluster_source(const dra_cluster *c, const json_t *obj);
/* ResourceClaims with a controller owner reference (any kind) of this UID,
 * input order: `for (size_t it = dra_cluster_owned(c, uid); (o =
 * dra_cluster_owned_next(c, &it));)`.  A claim may come twice when it has two
 * such references; callers check the reference they need. */
size_t dra_cluster_owned(const dra_cluster *c, const char *uid);
const dra_obj *dra_cluster_owned_next(const dra_cluster *c, size_t *it);
/* Whether the input holds a Pod in namespace ns. */
bool dra_cluster_has_pods_in(const dra_cluster *c, const char *ns);

/* JSON access: io/json.h (dra_jget, dra_jstr, dra_jstr_or, dra_jtrue, dra_jarr, dra_jset_new). */

/* Times: model/time.h (dra_time_parse, dra_time_format, dra_time_cmp). */

/* ---- pods and claims (DRA/resourceclaim, pkg/controller/resourceclaim) ---- */

typedef enum {
    DRA_PODCLAIM_NAMED,       /* *name is the claim; check_owner says IsForPod must hold */
    DRA_PODCLAIM_NOT_NEEDED,  /* status names it with a null claim: nothing to do */
    DRA_PODCLAIM_NOT_CREATED, /* template claim not in status.resourceClaimStatuses yet */
    DRA_PODCLAIM_UNSUPPORTED, /* neither resourceClaimName nor resourceClaimTemplateName */
} dra_podclaim_state;

/* resourceclaim.Name: which claim a pod.spec.resourceClaims[] entry refers to.
 * *name is borrowed from the pod. */
dra_podclaim_state dra_pod_claim_name(const json_t *pod, const json_t *pod_claim, const char **name, bool *check_owner);
/* The error text upstream gives for NOT_CREATED / UNSUPPORTED; caller frees. */
char *dra_pod_claim_name_error(const json_t *pod, const json_t *pod_claim, dra_podclaim_state st);

/* The controlling owner reference (first with controller: true), or NULL. */
const json_t *dra_controller_ref(const json_t *obj);
/* Controller owner with apiVersion "v1" and kind "Pod" (owningPod). */
const json_t *dra_owning_pod_ref(const json_t *claim);
/* resourceclaim.IsForPod: NULL when the claim is controlled by the pod, else
 * the upstream text "ResourceClaim NS/C was not created for pod NS/P (pod is
 * not owner)"; caller frees. */
char *dra_claim_is_for_pod(const json_t *pod, const json_t *claim);
/* IsForPod with acceptPodGroupOwner: group is the pod's PodGroup name (NULL:
 * as dra_claim_is_for_pod); a claim controlled by that PodGroup is fine too,
 * else "ResourceClaim NS/C was not created for Pod NS/P (neither Pod nor
 * PodGroup G is the owner)". */
char *dra_claim_is_for_pod_or_group(const json_t *pod, const json_t *claim, const char *group);
/* ---- PodGroup claims (DRAWorkloadResourceClaims; DRA/resourceclaim
 * resourceclaim.go BindTo, IsForPod, IsReservedForPod, isForPodGroupByPod) ---- */
#define DRA_SCHEDULING_GROUP "scheduling.k8s.io"
/* spec.schedulingGroup.podGroupName, or NULL (borrowed). */
const char *dra_pod_group_name(const json_t *pod);
/* The entry of group.spec.resourceClaims a pod claim matches: name,
 * resourceClaimName and resourceClaimTemplateName all equal (absent equals
 * absent only); NULL when none does (borrowed). */
const json_t *dra_pod_group_claim_match(const json_t *group, const json_t *pod_claim);
/* The claim's controller is a PodGroup of scheduling.k8s.io (any version)
 * named `group` (isForPodGroupByPod) / with that UID (IsControlledBy). */
bool dra_claim_controlled_by_group_name(const json_t *claim, const char *group);
bool dra_claim_controlled_by_uid(const json_t *claim, const char *uid);
/* status.reservedFor has {apiGroup: scheduling.k8s.io, resource: podgroups,
 * name: group} (pods know their group's name, not its UID). */
bool dra_claim_reserved_for_group(const json_t *claim, const char *group);

/* Whether status.allocation is set (not absent, not null). */
bool dra_claim_allocated(const json_t *claim);
/* Whether status.reservedFor lists the pod's UID. */
bool dra_claim_reserved_for_uid(const json_t *claim, const char *uid);
/* isPodDone: phase Succeeded/Failed, or being deleted while unscheduled. */
bool dra_pod_is_done(const json_t *pod);
bool dra_obj_deleting(const json_t *obj); /* metadata.deletionTimestamp set */
bool dra_has_finalizer(const json_t *obj, const char *finalizer, size_t *index);

/* Shape checks for the fields this code relies on (status.reservedFor,
 * allocation results, pod claims), worded like upstream's field errors.
 * Returns an input error chain located at the object, NULL when fine. */
DRA_MUST_USE dra_err *dra_check_claim_shape(const dra_obj *o);
/* The field error "Invalid value: <v as JSON>: must be of type <type>". */
void dra_ferr_wrong_type(dra_errs *l, const char *field, const json_t *v, const char *type);
DRA_MUST_USE dra_err *dra_check_pod_shape(const dra_obj *o);

#endif
