/* Pods, claims and PodGroups as upstream's DRA/resourceclaim and
 * pkg/controller/resourceclaim read them (objects.c).  Every json_t * is
 * borrowed for the call; returned pointers point into the arguments unless
 * "caller frees" says otherwise. */
#ifndef DRA_MODEL_OBJECTS_H
#define DRA_MODEL_OBJECTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Annotations, finalizer and labels upstream uses (k8s.io/api/resource/v1). */
#define DRA_POD_CLAIM_NAME_ANNOTATION "resource.kubernetes.io/pod-claim-name"
#define DRA_EXTENDED_CLAIM_ANNOTATION "resource.kubernetes.io/extended-resource-claim"
#define DRA_DELETE_PROTECTION_FINALIZER "resource.kubernetes.io/delete-protection"

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

#endif
