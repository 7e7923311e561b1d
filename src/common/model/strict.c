/* Strict decoding; see strict.h.  The tables follow the Go types field by
 * field (json names); a NULL type is a scalar or an opaque value. */
#include "strict.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/utf8.h"
#include "features.h"

typedef struct stype stype;
typedef struct sfield {
    const char *name;
    const stype *t; /* NULL: scalar or opaque (RawExtension, Quantity...) */
} sfield;
struct stype {
    char kind;       /* 'o' object, 'l' list of elem, 'm' map of elem */
    bool open;       /* 'o': fields not listed are allowed (parts we do not model) */
    const sfield *f; /* 'o': NULL-terminated */
    const stype *elem;
};

#define F_END                                                                                                          \
    {                                                                                                                  \
        NULL, NULL                                                                                                     \
    }
/* clang-format off */
#define OBJ(n, ...) static const sfield n##_f[] = {__VA_ARGS__, F_END}; static const stype n = {'o', false, n##_f, NULL};
#define OPEN(n, ...) static const sfield n##_f[] = {__VA_ARGS__, F_END}; static const stype n = {'o', true, n##_f, NULL};
/* clang-format on */
#define LIST(n, e) static const stype n = {'l', false, NULL, &e};
#define MAP(n, e) static const stype n = {'m', false, NULL, &e};

/* ---- metav1 --------------------------------------------------------------- */
OBJ(owner_ref, {"apiVersion", NULL}, {"kind", NULL}, {"name", NULL}, {"uid", NULL}, {"controller", NULL},
    {"blockOwnerDeletion", NULL})
LIST(owner_refs, owner_ref)
OBJ(object_meta, {"name", NULL}, {"generateName", NULL}, {"namespace", NULL}, {"selfLink", NULL}, {"uid", NULL},
    {"resourceVersion", NULL}, {"generation", NULL}, {"creationTimestamp", NULL}, {"deletionTimestamp", NULL},
    {"deletionGracePeriodSeconds", NULL}, {"labels", NULL}, {"annotations", NULL}, {"ownerReferences", &owner_refs},
    {"finalizers", NULL}, {"managedFields", NULL})
OBJ(condition, {"type", NULL}, {"status", NULL}, {"observedGeneration", NULL}, {"lastTransitionTime", NULL},
    {"reason", NULL}, {"message", NULL})
LIST(conditions, condition)

/* ---- core/v1 NodeSelector ------------------------------------------------ */
OBJ(ns_req, {"key", NULL}, {"operator", NULL}, {"values", NULL})
LIST(ns_reqs, ns_req)
OBJ(ns_term, {"matchExpressions", &ns_reqs}, {"matchFields", &ns_reqs})
LIST(ns_terms, ns_term)
OBJ(node_selector, {"nodeSelectorTerms", &ns_terms})

/* ---- resource.k8s.io: shared pieces --------------------------------------- */
OBJ(attribute, {"int", NULL}, {"bool", NULL}, {"string", NULL}, {"version", NULL}, {"ints", NULL}, {"bools", NULL},
    {"strings", NULL}, {"versions", NULL})
MAP(attributes, attribute)
OBJ(valid_range, {"min", NULL}, {"max", NULL}, {"step", NULL})
OBJ(request_policy, {"default", NULL}, {"validValues", NULL}, {"validRange", &valid_range})
OBJ(capacity, {"value", NULL}, {"requestPolicy", &request_policy})
MAP(capacities, capacity)
OBJ(counter, {"value", NULL})
MAP(counters, counter)
OBJ(counter_consumption, {"counterSet", NULL}, {"counters", &counters}, {"compatibilityGroups", NULL})
LIST(counter_consumptions, counter_consumption)
OBJ(counter_set, {"name", NULL}, {"counters", &counters})
/* nodeAllocatableResources (DRANodeAllocatableResources, 1.37); 1.36's
 * nodeAllocatableResourceMappings is tombstoned upstream. */
OBJ(node_alloc_mapping, {"capacityKey", NULL}, {"capacityMultiplier", NULL}, {"deviceMultiplier", NULL})
OBJ(node_alloc_overhead, {"perPod", NULL}, {"perContainer", NULL})
OBJ(node_alloc_resource, {"mapping", &node_alloc_mapping}, {"overhead", &node_alloc_overhead})
MAP(node_alloc_resources, node_alloc_resource)
LIST(counter_sets, counter_set)
OBJ(taint, {"key", NULL}, {"value", NULL}, {"effect", NULL}, {"timeAdded", NULL})
LIST(taints, taint)
OBJ(pool, {"name", NULL}, {"generation", NULL}, {"resourceSliceCount", NULL})
OBJ(cel_sel, {"expression", NULL})
OBJ(selector, {"cel", &cel_sel})
LIST(selectors, selector)
OBJ(toleration, {"key", NULL}, {"operator", NULL}, {"value", NULL}, {"effect", NULL}, {"tolerationSeconds", NULL})
LIST(tolerations, toleration)
OBJ(cap_requirements, {"requests", NULL})
OBJ(opaque, {"driver", NULL}, {"parameters", NULL})
OBJ(claim_config, {"requests", NULL}, {"opaque", &opaque})
LIST(claim_configs, claim_config)
OBJ(class_config, {"opaque", &opaque})
LIST(class_configs, class_config)
OBJ(constraint, {"requests", NULL}, {"matchAttribute", NULL}, {"distinctAttribute", NULL})
LIST(constraints, constraint)

/* ---- ResourceSlice --------------------------------------------------------- */
/* clang-format off */
#define DEVICE_FIELDS                                                                                              \
    {"attributes", &attributes}, {"capacity", &capacities}, {"consumesCounters", &counter_consumptions},          \
        {"nodeName", NULL}, {"nodeSelector", &node_selector}, {"allNodes", NULL}, {"taints", &taints},            \
        {"bindsToNode", NULL}, {"bindingConditions", NULL}, {"bindingFailureConditions", NULL},                  \
        {"allowMultipleAllocations", NULL}, {"nodeAllocatableResources", &node_alloc_resources}
/* clang-format on */
OBJ(device_v1, {"name", NULL}, DEVICE_FIELDS)
LIST(devices_v1, device_v1)
OBJ(basic_device, DEVICE_FIELDS)
OBJ(device_v1beta1, {"name", NULL}, {"basic", &basic_device})
LIST(devices_v1beta1, device_v1beta1)
/* clang-format off */
#define SLICE_SPEC_FIELDS                                                                                          \
    {"driver", NULL}, {"pool", &pool}, {"nodeName", NULL}, {"nodeSelector", &node_selector}, {"allNodes", NULL},  \
        {"perDeviceNodeSelection", NULL}, {"sharedCounters", &counter_sets}, {"taints", NULL},                    \
        {"partitionTypeAttribute", NULL}, {"skipNodeOperations", NULL}
/* clang-format on */
OBJ(slice_spec_v1, SLICE_SPEC_FIELDS, {"devices", &devices_v1})
OBJ(slice_spec_v1beta1, SLICE_SPEC_FIELDS, {"devices", &devices_v1beta1})
OBJ(slice_v1, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &slice_spec_v1})
OBJ(slice_v1beta1, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &slice_spec_v1beta1})

/* ---- DeviceClass --------------------------------------------------------------- */
OBJ(class_spec, {"selectors", &selectors}, {"config", &class_configs}, {"extendedResourceName", NULL})
OBJ(device_class, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &class_spec})

/* ---- ResourceClaim ------------------------------------------------------------- */
OBJ(derived_attribute, {"name", NULL}, {"expression", NULL})
LIST(derived_attributes, derived_attribute)
/* clang-format off */
#define EXACT_FIELDS                                                                                               \
    {"deviceClassName", NULL}, {"selectors", &selectors}, {"allocationMode", NULL}, {"count", NULL},             \
        {"tolerations", &tolerations}, {"capacity", &cap_requirements}, {"derivedAttributes", &derived_attributes}
/* clang-format on */
OBJ(sub_request, {"name", NULL}, EXACT_FIELDS)
LIST(sub_requests, sub_request)
OBJ(exact_request, EXACT_FIELDS, {"adminAccess", NULL})
OBJ(request_v1, {"name", NULL}, {"exactly", &exact_request}, {"firstAvailable", &sub_requests})
LIST(requests_v1, request_v1)
OBJ(request_v1beta1, {"name", NULL}, EXACT_FIELDS, {"adminAccess", NULL}, {"firstAvailable", &sub_requests})
LIST(requests_v1beta1, request_v1beta1)
OBJ(device_claim_v1, {"requests", &requests_v1}, {"constraints", &constraints}, {"config", &claim_configs})
OBJ(device_claim_v1beta1, {"requests", &requests_v1beta1}, {"constraints", &constraints}, {"config", &claim_configs})
OBJ(claim_spec_v1, {"devices", &device_claim_v1})
OBJ(claim_spec_v1beta1, {"devices", &device_claim_v1beta1})

OBJ(alloc_result, {"request", NULL}, {"driver", NULL}, {"pool", NULL}, {"device", NULL}, {"adminAccess", NULL},
    {"tolerations", &tolerations}, {"bindingConditions", NULL}, {"bindingFailureConditions", NULL}, {"shareID", NULL},
    {"consumedCapacity", NULL}, {"skipNodeOperations", NULL})
LIST(alloc_results, alloc_result)
OBJ(alloc_config, {"source", NULL}, {"requests", NULL}, {"opaque", &opaque})
LIST(alloc_configs, alloc_config)
OBJ(device_alloc, {"results", &alloc_results}, {"config", &alloc_configs})
OBJ(allocation, {"devices", &device_alloc}, {"nodeSelector", &node_selector}, {"allocationTimestamp", NULL})
OBJ(consumer_ref, {"apiGroup", NULL}, {"resource", NULL}, {"name", NULL}, {"uid", NULL})
LIST(consumer_refs, consumer_ref)
OBJ(network_data, {"interfaceName", NULL}, {"ips", NULL}, {"hardwareAddress", NULL})
OBJ(device_status, {"driver", NULL}, {"pool", NULL}, {"device", NULL}, {"shareID", NULL}, {"conditions", &conditions},
    {"data", NULL}, {"networkData", &network_data})
LIST(device_statuses, device_status)
OBJ(claim_status, {"allocation", &allocation}, {"reservedFor", &consumer_refs}, {"devices", &device_statuses})
OBJ(claim_v1, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &claim_spec_v1},
    {"status", &claim_status})
OBJ(claim_v1beta1, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &claim_spec_v1beta1},
    {"status", &claim_status})
OBJ(template_spec_v1, {"metadata", &object_meta}, {"spec", &claim_spec_v1})
OBJ(template_spec_v1beta1, {"metadata", &object_meta}, {"spec", &claim_spec_v1beta1})
OBJ(template_v1, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &template_spec_v1})
OBJ(template_v1beta1, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta},
    {"spec", &template_spec_v1beta1})

/* ---- DeviceTaintRule ------------------------------------------------------------ */
/* deviceClassName and selectors were removed in Kubernetes 1.35, from
 * v1alpha3 too: the API server's strict decoding calls them unknown fields
 * (k8s.io/api resource/v1alpha3/types.go DeviceTaintSelector) */
OBJ(taint_selector, {"driver", NULL}, {"pool", NULL}, {"device", NULL})
OBJ(taint_rule_spec_v1alpha3, {"deviceSelector", &taint_selector}, {"taint", &taint})
OBJ(taint_rule_spec, {"deviceSelector", &taint_selector}, {"taint", &taint})
OBJ(taint_rule_status, {"conditions", &conditions})
OBJ(taint_rule_v1alpha3, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta},
    {"spec", &taint_rule_spec_v1alpha3}, {"status", &taint_rule_status})
OBJ(taint_rule, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &taint_rule_spec},
    {"status", &taint_rule_status})

/* ---- core/v1: metadata and the DRA parts of a pod -------------------------------- */
/* Pods of Kubernetes 1.26-1.30 wrap the claim in `source` (ClaimSource) */
OBJ(pod_claim_source, {"resourceClaimName", NULL}, {"resourceClaimTemplateName", NULL})
OBJ(pod_claim, {"name", NULL}, {"resourceClaimName", NULL}, {"resourceClaimTemplateName", NULL},
    {"source", &pod_claim_source})
LIST(pod_claims, pod_claim)
OBJ(container_claim, {"name", NULL}, {"request", NULL})
LIST(container_claims, container_claim)
OBJ(resources, {"limits", NULL}, {"requests", NULL}, {"claims", &container_claims})
OPEN(container, {"resources", &resources})
LIST(containers, container)
OBJ(pod_scheduling_group, {"podGroupName", NULL})
OPEN(pod_spec, {"containers", &containers}, {"initContainers", &containers}, {"resourceClaims", &pod_claims},
     {"schedulingGroup", &pod_scheduling_group})
OPEN(open_part, {NULL, NULL})
OBJ(pod, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &pod_spec}, {"status", &open_part})
OBJ(core_object, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &open_part},
    {"status", &open_part})

/* ---- ResourcePoolStatusRequest (resource.k8s.io/v1alpha3, KEP-5677) ---------- */
OBJ(rpsr_spec, {"driver", NULL}, {"poolName", NULL}, {"limit", NULL}, {"defaultPartitionTypeAttribute", NULL})
OBJ(pool_status, {"driver", NULL}, {"poolName", NULL}, {"nodeName", NULL}, {"generation", NULL},
    {"resourceSliceCount", NULL}, {"totalDevices", NULL}, {"allocatedDevices", NULL}, {"availableDevices", NULL},
    {"unavailableDevices", NULL}, {"validationError", NULL}, {"partitionSummary", NULL}, {"counterSets", NULL},
    {"shareableSummary", NULL})
LIST(pool_statuses, pool_status)
OBJ(rpsr_status, {"conditions", &conditions}, {"poolCount", NULL}, {"pools", &pool_statuses})
OBJ(rpsr, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &rpsr_spec},
    {"status", &rpsr_status})
/* ---- classic DRA (release-1.30 staging/src/k8s.io/api/resource/v1alpha2/types.go) ---- */
OBJ(class_params_ref, {"apiGroup", NULL}, {"kind", NULL}, {"name", NULL}, {"namespace", NULL})
OBJ(claim_params_ref, {"apiGroup", NULL}, {"kind", NULL}, {"name", NULL})
OBJ(resource_class, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"driverName", NULL},
    {"parametersRef", &class_params_ref}, {"suitableNodes", &node_selector}, {"structuredParameters", NULL})
OBJ(classic_claim_spec, {"resourceClassName", NULL}, {"parametersRef", &claim_params_ref}, {"allocationMode", NULL})
OBJ(structured_handle, {"vendorClassParameters", NULL}, {"vendorClaimParameters", NULL}, {"nodeName", NULL},
    {"results", NULL})
OBJ(resource_handle, {"driverName", NULL}, {"data", NULL}, {"structuredData", &structured_handle})
LIST(resource_handles, resource_handle)
OBJ(classic_allocation, {"resourceHandles", &resource_handles}, {"availableOnNodes", &node_selector},
    {"shareable", NULL})
OBJ(classic_claim_status, {"driverName", NULL}, {"allocation", &classic_allocation}, {"reservedFor", &consumer_refs},
    {"deallocationRequested", NULL})
OBJ(classic_claim, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &classic_claim_spec},
    {"status", &classic_claim_status})
OBJ(classic_template_spec, {"metadata", &object_meta}, {"spec", &classic_claim_spec})
OBJ(classic_template, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta},
    {"spec", &classic_template_spec})
OBJ(psc_spec, {"selectedNode", NULL}, {"potentialNodes", NULL})
OBJ(claim_sched_status, {"name", NULL}, {"unsuitableNodes", NULL})
LIST(claim_sched_statuses, claim_sched_status)
OBJ(psc_status, {"resourceClaims", &claim_sched_statuses})
OBJ(pod_scheduling_context, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &psc_spec},
    {"status", &psc_status})

/* ---- PodGroup (scheduling.k8s.io/{v1beta1,v1alpha3} types.go, Kubernetes 1.37) ---- */
static const sfield empty_f[] = {F_END};
static const stype empty_obj = {'o', false, empty_f, NULL};
OBJ(workload_ref, {"workloadName", NULL}, {"templateName", NULL})
OBJ(gang_policy, {"minCount", NULL})
OBJ(pg_sched_policy, {"basic", &empty_obj}, {"gang", &gang_policy})
OBJ(topology_constraint, {"key", NULL})
LIST(topology_constraints, topology_constraint)
OBJ(pg_sched_constraints, {"topology", &topology_constraints})
OBJ(pg_claim, {"name", NULL}, {"resourceClaimName", NULL}, {"resourceClaimTemplateName", NULL})
LIST(pg_claims, pg_claim)
OBJ(disruption_mode, {"single", &empty_obj}, {"all", &empty_obj})
OBJ(pg_spec, {"parentCompositePodGroupName", NULL}, {"workloadRef", &workload_ref},
    {"schedulingPolicy", &pg_sched_policy}, {"schedulingConstraints", &pg_sched_constraints},
    {"resourceClaims", &pg_claims}, {"disruptionMode", &disruption_mode}, {"priorityClassName", NULL},
    {"priority", NULL}, {"preemptionPolicy", NULL})
OBJ(pg_claim_status, {"name", NULL}, {"resourceClaimName", NULL})
LIST(pg_claim_statuses, pg_claim_status)
OBJ(pg_status, {"conditions", &conditions}, {"resourceClaimStatuses", &pg_claim_statuses})
OBJ(pod_group, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &pg_spec},
    {"status", &pg_status})
/* 1.36's v1alpha2 (k8s.io/api@v0.36.3 scheduling/v1alpha2/types.go): the
 * template by podGroupTemplateRef, disruptionMode a string */
OBJ(pg_workload_template_ref, {"workloadName", NULL}, {"podGroupTemplateName", NULL})
OBJ(pg_template_ref, {"workload", &pg_workload_template_ref})
OBJ(pg_spec_v1alpha2, {"podGroupTemplateRef", &pg_template_ref}, {"schedulingPolicy", &pg_sched_policy},
    {"schedulingConstraints", &pg_sched_constraints}, {"resourceClaims", &pg_claims}, {"disruptionMode", NULL},
    {"priorityClassName", NULL}, {"priority", NULL})
OBJ(pod_group_v1alpha2, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &pg_spec_v1alpha2},
    {"status", &pg_status})

/* The fields of the tables a release after the oldest one known added: an
 * older release's API server has no such field in its Go types (k8s.io/api
 * v0.37.2 against v0.36.3, resource/{v1,v1beta2,v1beta1,v1alpha3}/types.go),
 * so its strict decoding calls them unknown.  1.36's
 * nodeAllocatableResourceMappings is not in the tables at all. */
typedef struct newer {
    const stype *in;
    const char *name;
    int since; /* dra_release */
} newer;
/* clang-format off */
static const newer newer_fields[] = {
    {&counter_consumption, "compatibilityGroups", DRA_RELEASE_1_37},   /* DRADeviceCompatibilityGroups */
    {&device_v1, "nodeAllocatableResources", DRA_RELEASE_1_37},        /* DRANodeAllocatableResources */
    {&basic_device, "nodeAllocatableResources", DRA_RELEASE_1_37},
    {&slice_spec_v1, "partitionTypeAttribute", DRA_RELEASE_1_37},     /* DRAPartitionableDevices' partitions */
    {&slice_spec_v1beta1, "partitionTypeAttribute", DRA_RELEASE_1_37},
    {&slice_spec_v1, "skipNodeOperations", DRA_RELEASE_1_37},
    {&slice_spec_v1beta1, "skipNodeOperations", DRA_RELEASE_1_37},
    {&alloc_result, "skipNodeOperations", DRA_RELEASE_1_37},
    {&exact_request, "derivedAttributes", DRA_RELEASE_1_37},          /* DRADerivedAttributes */
    {&sub_request, "derivedAttributes", DRA_RELEASE_1_37},
    {&request_v1beta1, "derivedAttributes", DRA_RELEASE_1_37},
    {&rpsr_spec, "defaultPartitionTypeAttribute", DRA_RELEASE_1_37},
    {&pool_status, "partitionSummary", DRA_RELEASE_1_37},
    {&pool_status, "shareableSummary", DRA_RELEASE_1_37},
    {NULL, NULL, 0},
};
/* clang-format on */

/* The kinds of the tables that not every release known serves in a
 * version: a release outside [since, until] has no such kind there, and
 * kubectl finds no match for it.  k8s.io/api v0.36.3 registers
 * DeviceTaintRule in resource/v1alpha3 and resource/v1beta2 only, PodGroup
 * in scheduling/v1alpha2 only; v0.37.2 adds them to resource/v1,
 * scheduling/v1beta1 and scheduling/v1alpha3 and drops scheduling/v1alpha2
 * (register.go of each). */
typedef struct served {
    dra_kind kind;
    dra_apiver ver;
    int since, until; /* dra_release; until 0: still served */
} served;
/* clang-format off */
static const served newer_kinds[] = {
    {DRA_KIND_DEVICE_TAINT_RULE, DRA_APIVER_RESOURCE_V1, DRA_RELEASE_1_37, 0},
    {DRA_KIND_POD_GROUP, DRA_APIVER_SCHEDULING_V1BETA1, DRA_RELEASE_1_37, 0},
    {DRA_KIND_POD_GROUP, DRA_APIVER_SCHEDULING_V1ALPHA3, DRA_RELEASE_1_37, 0},
    {DRA_KIND_POD_GROUP, DRA_APIVER_SCHEDULING_V1ALPHA2, DRA_RELEASE_1_36, DRA_RELEASE_1_36},
    {DRA_KIND_UNKNOWN, DRA_APIVER_UNKNOWN, 0, 0},
};
/* clang-format on */

/* meta.NoKindMatchError, as for a kind no release serves (kinds.c), when
 * release does not serve this one (yet, or any more); NULL otherwise. */
static dra_err *unserved_kind(dra_kind kind, dra_apiver ver, int release)
{
    for (const served *s = newer_kinds; release && s->kind; s++)
        if (s->kind == kind && s->ver == ver && (release < s->since || (s->until && release > s->until)))
            return dra_err_field(dra_err_new(DRA_EXIT_INPUT, "no matches for kind \"%s\" in version \"%s\"",
                                             dra_kind_name(kind), dra_apiver_name(ver)),
                                 "kind");
    return NULL;
}

dra_err *dra_strict_unserved(dra_kind kind, dra_apiver ver, int release)
{
    return unserved_kind(kind, ver, release);
}

static const stype *schema_of(dra_kind kind, dra_apiver ver)
{
    bool beta1 = ver == DRA_APIVER_RESOURCE_V1BETA1;
    switch (kind) {
    case DRA_KIND_RESOURCE_SLICE: return beta1 ? &slice_v1beta1 : &slice_v1;
    case DRA_KIND_DEVICE_CLASS: return &device_class;
    case DRA_KIND_RESOURCE_CLAIM: return beta1 ? &claim_v1beta1 : &claim_v1;
    case DRA_KIND_RESOURCE_CLAIM_TEMPLATE: return beta1 ? &template_v1beta1 : &template_v1;
    case DRA_KIND_DEVICE_TAINT_RULE: return ver == DRA_APIVER_RESOURCE_V1ALPHA3 ? &taint_rule_v1alpha3 : &taint_rule;
    case DRA_KIND_POD: return &pod;
    case DRA_KIND_NODE:
    case DRA_KIND_NAMESPACE: return &core_object;
    case DRA_KIND_RESOURCE_POOL_STATUS_REQUEST: return &rpsr;
    case DRA_KIND_RESOURCE_CLASS: return &resource_class;
    case DRA_KIND_CLASSIC_CLAIM: return &classic_claim;
    case DRA_KIND_CLASSIC_CLAIM_TEMPLATE: return &classic_template;
    case DRA_KIND_POD_SCHEDULING_CONTEXT: return &pod_scheduling_context;
    case DRA_KIND_POD_GROUP: return ver == DRA_APIVER_SCHEDULING_V1ALPHA2 ? &pod_group_v1alpha2 : &pod_group;
    default: return NULL;
    }
}

/* One step of the path to the value being checked: a key, or an index. */
typedef struct step {
    const char *key; /* NULL: index */
    size_t index;
} step;

typedef struct walk {
    dra_field_validation fv;
    int release; /* fields a newer release added are unknown; 0: none are */
    bool older;  /* release misses fields of newer_fields */
    const dra_obj *at;
    int lookups;                  /* field lines looked up so far */
    const char *prefix;           /* the path of the value checked, or NULL */
    step path[DRA_MAX_DEPTH + 1]; /* the path below it, written out only for an error */
    size_t depth;
    size_t saved; /* unknown fields reported */
    dra_err *errs, *warns;
} walk;

/* sigs.k8s.io/json keeps at most this many strict errors of one decode
 * (internal/golang/encoding/json/kubernetes_patch.go, saveStrictError) */
#define STRICT_MAX_ERRORS 100

/* The latest release that added a field of newer_fields: a release at or
 * past it has them all (found once; the table is constant). */
static int newest_since(void)
{
    static int newest = -1;
    if (newest < 0) {
        newest = 0;
        for (const newer *n = newer_fields; n->in; n++)
            if (n->since > newest)
                newest = n->since;
    }
    return newest;
}

/* Whether the field of t named key is one a release after `release` added
 * (the walk's release, which misses some). */
static bool newer_field(const stype *t, const char *key, int release)
{
    for (const newer *n = newer_fields; n->in; n++)
        if (n->in == t && release < n->since && strcmp(n->name, key) == 0)
            return true;
    return false;
}

static const stype *field_type(const walk *w, const stype *t, const char *key, bool *known)
{
    for (const sfield *f = t->f; f->name; f++)
        if (f->name[0] == key[0] && strcmp(f->name, key) == 0) {
            *known = !w->older || !newer_field(t, key, w->release);
            return *known ? f->t : NULL;
        }
    *known = false;
    return NULL;
}

/* The path as upstream writes it: a.b[3].c */
static void path_text(const walk *w, dra_buf *b)
{
    if (w->prefix)
        dra_buf_puts(b, w->prefix);
    for (size_t i = 0; i < w->depth; i++) {
        if (!w->path[i].key) {
            dra_buf_printf(b, "[%zu]", w->path[i].index);
            continue;
        }
        if (b->len)
            dra_buf_putc(b, '.');
        dra_buf_puts(b, w->path[i].key);
    }
}

static void unknown_field(walk *w)
{
    if (w->saved >= STRICT_MAX_ERRORS)
        return;
    w->saved++;
    dra_buf path = DRA_BUF_INIT;
    path_text(w, &path);
    /* sigs.k8s.io/json's strictError: the path strconv.Quote'd (cut when huge) */
    dra_buf msg = DRA_BUF_INIT;
    dra_buf_puts(&msg, "unknown field ");
    dra_go_quote_echo(&msg, path.data ? path.data : "", path.len);
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, "%s", dra_buf_str(&msg));
    dra_buf_free(&msg);
    int line = w->lookups++ < DRA_FIELD_LINE_LOOKUPS ? dra_obj_field_line(w->at, dra_buf_str(&path)) : 0;
    if (line > 0)
        e = dra_err_at(e, w->at->file, w->at->doc, line, 0);
    if (w->fv == DRA_FV_STRICT)
        w->errs = dra_err_append(w->errs, e);
    else
        w->warns = dra_err_append(w->warns, e);
    dra_buf_free(&path);
}

static void check(walk *w, json_t *v, const stype *t)
{
    if (!t || !v || w->depth >= DRA_MAX_DEPTH)
        return;
    step *at = &w->path[w->depth++];
    if (t->kind == 'o' && json_is_object(v)) {
        for (void *it = json_object_iter(v), *next; it; it = next) {
            next = json_object_iter_next(v, it); /* it may be deleted below */
            const char *k = json_object_iter_key(it);
            json_t *x = json_object_iter_value(it);
            bool known;
            const stype *ft = field_type(w, t, k, &known);
            *at = (step){k, 0};
            if (known) {
                if (ft)
                    check(w, x, ft);
            } else if (!t->open) {
                if (w->fv != DRA_FV_IGNORE)
                    unknown_field(w);
                if (w->fv != DRA_FV_STRICT)
                    json_object_del(v, k);
            }
        }
    } else if (t->kind == 'l' && json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            *at = (step){NULL, i};
            check(w, x, t->elem);
        }
    } else if (t->kind == 'm' && json_is_object(v) && t->elem) {
        for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
            *at = (step){json_object_iter_key(it), 0};
            check(w, json_object_iter_value(it), t->elem);
        }
    }
    w->depth--;
    /* a wrong type is validation's to report, with the expected type */
}

dra_err *dra_strict_check(json_t *obj, dra_kind kind, dra_apiver ver, dra_field_validation fv, dra_err **warnings,
                          const dra_obj *at)
{
    return dra_strict_check_release(obj, kind, ver, fv, 0, warnings, at);
}

dra_err *dra_strict_check_release(json_t *obj, dra_kind kind, dra_apiver ver, dra_field_validation fv, int release,
                                  dra_err **warnings, const dra_obj *at)
{
    dra_err *unserved = unserved_kind(kind, ver, release);
    if (unserved)
        return unserved;
    const stype *t = schema_of(kind, ver);
    if (!t)
        return NULL;
    walk w = {.fv = fv, .release = release, .older = release && release < newest_since(), .at = at};
    check(&w, obj, t);
    if (warnings)
        *warnings = dra_err_append(*warnings, w.warns);
    else
        dra_err_free(w.warns);
    return w.errs;
}

/* ---- core/v1 ResourceQuota (staging/src/k8s.io/api/core/v1/types.go) ---- */
OBJ(scoped_req, {"scopeName", NULL}, {"operator", NULL}, {"values", NULL})
LIST(scoped_reqs, scoped_req)
OBJ(scope_selector, {"matchExpressions", &scoped_reqs})
OBJ(quota_spec, {"hard", NULL}, {"scopes", NULL}, {"scopeSelector", &scope_selector})
OBJ(quota_status, {"hard", NULL}, {"used", NULL})
OBJ(resource_quota, {"apiVersion", NULL}, {"kind", NULL}, {"metadata", &object_meta}, {"spec", &quota_spec},
    {"status", &quota_status})

/* a plain inventory: {devices: [...], sharedCounters: [...]} */
OBJ(inventory, {"devices", &devices_v1}, {"sharedCounters", &counter_sets})

dra_err *dra_strict_check_part(json_t *v, const char *part, const char *prefix, dra_field_validation fv,
                               dra_err **warnings, const dra_obj *at)
{
    const stype *t = strcmp(part, "device") == 0          ? &device_v1
                     : strcmp(part, "counterSet") == 0    ? &counter_set
                     : strcmp(part, "inventory") == 0     ? &inventory
                     : strcmp(part, "resourceQuota") == 0 ? &resource_quota
                                                          : NULL;
    if (!t)
        return NULL;
    walk w = {.fv = fv, .at = at, .prefix = prefix && *prefix ? prefix : NULL};
    check(&w, v, t);
    if (warnings)
        *warnings = dra_err_append(*warnings, w.warns);
    else
        dra_err_free(w.warns);
    return w.errs;
}
