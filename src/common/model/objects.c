/* Pods, claims and PodGroups: which claim a pod means, who controls and
 * reserves a claim, whether an object is going away (DRA/resourceclaim,
 * pkg/controller/resourceclaim). */
#include <string.h>

#include "objects.h"
#include "../base/buf.h"
#include "../base/utf8.h"
#include "../io/json.h"

dra_podclaim_state dra_pod_claim_name(const json_t *pod, const json_t *pod_claim, const char **name, bool *check_owner)
{
    *name = NULL;
    *check_owner = false;
    const char *rc = dra_jstr(pod_claim, "resourceClaimName");
    if (rc) {
        *name = rc;
        return DRA_PODCLAIM_NAMED;
    }
    if (dra_jstr(pod_claim, "resourceClaimTemplateName")) {
        const char *pc = dra_jstr_or(pod_claim, "name", "");
        json_t *st = dra_jarr(pod, "status.resourceClaimStatuses");
        size_t i;
        json_t *e;
        json_array_foreach(st, i, e) {
            if (strcmp(dra_jstr_or(e, "name", ""), pc) == 0) {
                *name = dra_jstr(e, "resourceClaimName");
                *check_owner = true;
                return *name ? DRA_PODCLAIM_NAMED : DRA_PODCLAIM_NOT_NEEDED;
            }
        }
        return DRA_PODCLAIM_NOT_CREATED;
    }
    return DRA_PODCLAIM_UNSUPPORTED;
}

char *dra_pod_claim_name_error(const json_t *pod, const json_t *pod_claim, dra_podclaim_state st)
{
    const char *ns = dra_jstr_or(pod, "metadata.namespace", ""), *n = dra_jstr_or(pod, "metadata.name", "");
    if (st == DRA_PODCLAIM_NOT_CREATED)
        return dra_xasprintf("pod \"%s/%s\": ResourceClaim not created yet", ns, n);
    dra_buf b = DRA_BUF_INIT;
    const char *pc = dra_jstr_or(pod_claim, "name", "");
    dra_buf_printf(&b, "pod \"%s/%s\", spec.resourceClaim ", ns, n);
    dra_go_quote(&b, pc, strlen(pc));
    dra_buf_puts(&b, ": none of the supported fields are set");
    return dra_buf_detach(&b);
}

const json_t *dra_controller_ref(const json_t *obj)
{
    size_t i;
    json_t *r;
    const json_t *owners = dra_jarr(obj, "metadata.ownerReferences");
    json_array_foreach(owners, i, r) {
        if (dra_jtrue(r, "controller"))
            return r;
    }
    return NULL;
}

const json_t *dra_owning_pod_ref(const json_t *claim)
{
    /* owningPod looks at every controller reference, not only the first */
    size_t i;
    json_t *r;
    const json_t *owners = dra_jarr(claim, "metadata.ownerReferences");
    json_array_foreach(owners, i, r) {
        if (dra_jtrue(r, "controller") && strcmp(dra_jstr_or(r, "apiVersion", ""), "v1") == 0 &&
            strcmp(dra_jstr_or(r, "kind", ""), "Pod") == 0)
            return r;
    }
    return NULL;
}

char *dra_claim_is_for_pod(const json_t *pod, const json_t *claim)
{
    const char *pns = dra_jstr_or(pod, "metadata.namespace", ""), *cns = dra_jstr_or(claim, "metadata.namespace", "");
    const json_t *ref = dra_controller_ref(claim);
    const char *puid = dra_jstr_or(pod, "metadata.uid", "");
    /* metav1.IsControlledBy compares the UID of the controller reference only */
    if (strcmp(pns, cns) == 0 && ref && strcmp(dra_jstr_or(ref, "uid", ""), puid) == 0)
        return NULL;
    return dra_xasprintf("ResourceClaim %s/%s was not created for pod %s/%s (pod is not owner)", cns,
                         dra_jstr_or(claim, "metadata.name", ""), pns, dra_jstr_or(pod, "metadata.name", ""));
}

char *dra_claim_is_for_pod_or_group(const json_t *pod, const json_t *claim, const char *group)
{
    char *why = dra_claim_is_for_pod(pod, claim);
    if (!why || !group)
        return why;
    free(why);
    const char *pns = dra_jstr_or(pod, "metadata.namespace", ""), *cns = dra_jstr_or(claim, "metadata.namespace", "");
    if (strcmp(pns, cns) == 0 && dra_claim_controlled_by_group_name(claim, group))
        return NULL;
    return dra_xasprintf("ResourceClaim %s/%s was not created for Pod %s/%s (neither Pod nor PodGroup %s is the owner)",
                         cns, dra_jstr_or(claim, "metadata.name", ""), pns, dra_jstr_or(pod, "metadata.name", ""),
                         group);
}

bool dra_claim_reserved_for_uid(const json_t *claim, const char *uid)
{
    size_t i;
    json_t *r;
    const json_t *reserved = dra_jarr(claim, "status.reservedFor");
    json_array_foreach(reserved, i, r) {
        if (uid && strcmp(dra_jstr_or(r, "uid", ""), uid) == 0)
            return true;
    }
    return false;
}

const char *dra_pod_group_name(const json_t *pod)
{
    const char *g = dra_jstr(pod, "spec.schedulingGroup.podGroupName");
    return g && *g ? g : NULL;
}

/* ptr.Equal on two optional strings */
static bool same_optional(const json_t *a, const json_t *b, const char *key)
{
    const char *x = dra_jstr(a, key), *y = dra_jstr(b, key);
    return x && y ? strcmp(x, y) == 0 : !x && !y;
}

const json_t *dra_pod_group_claim_match(const json_t *group, const json_t *pod_claim)
{
    size_t i;
    json_t *gc;
    const json_t *claims = dra_jarr(group, "spec.resourceClaims");
    json_array_foreach(claims, i, gc) {
        if (same_optional(gc, pod_claim, "name") && same_optional(gc, pod_claim, "resourceClaimName") &&
            same_optional(gc, pod_claim, "resourceClaimTemplateName"))
            return gc;
    }
    return NULL;
}

static bool group_ref(const json_t *ref)
{
    const char *av = dra_jstr_or(ref, "apiVersion", "");
    /* the version may change; the group is still checked */
    return ref && strcmp(dra_jstr_or(ref, "kind", ""), "PodGroup") == 0 &&
           strncmp(av, DRA_SCHEDULING_GROUP "/", sizeof DRA_SCHEDULING_GROUP) == 0;
}

bool dra_claim_controlled_by_group_name(const json_t *claim, const char *group)
{
    const json_t *ref = dra_controller_ref(claim);
    return group && group_ref(ref) && strcmp(dra_jstr_or(ref, "name", ""), group) == 0;
}

bool dra_claim_controlled_by_uid(const json_t *claim, const char *uid)
{
    const json_t *ref = dra_controller_ref(claim);
    return ref && uid && strcmp(dra_jstr_or(ref, "uid", ""), uid) == 0;
}

bool dra_claim_reserved_for_group(const json_t *claim, const char *group)
{
    size_t i;
    json_t *r;
    const json_t *reserved = dra_jarr(claim, "status.reservedFor");
    json_array_foreach(reserved, i, r) {
        if (group && strcmp(dra_jstr_or(r, "apiGroup", ""), DRA_SCHEDULING_GROUP) == 0 &&
            strcmp(dra_jstr_or(r, "resource", ""), "podgroups") == 0 && strcmp(dra_jstr_or(r, "name", ""), group) == 0)
            return true;
    }
    return false;
}

bool dra_claim_allocated(const json_t *claim)
{
    json_t *a = dra_jget(claim, "status.allocation");
    return a && !json_is_null(a);
}

bool dra_obj_deleting(const json_t *obj)
{
    json_t *d = dra_jget(obj, "metadata.deletionTimestamp");
    return d && !json_is_null(d);
}

bool dra_pod_is_done(const json_t *pod)
{
    const char *phase = dra_jstr_or(pod, "status.phase", "");
    if (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0)
        return true;
    return dra_obj_deleting(pod) && !*dra_jstr_or(pod, "spec.nodeName", "");
}

bool dra_has_finalizer(const json_t *obj, const char *finalizer, size_t *index)
{
    size_t i;
    json_t *f;
    const json_t *finalizers = dra_jarr(obj, "metadata.finalizers");
    json_array_foreach(finalizers, i, f) {
        if (json_is_string(f) && strcmp(json_string_value(f), finalizer) == 0) {
            if (index)
                *index = i;
            return true;
        }
    }
    return false;
}
