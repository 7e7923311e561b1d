/* Object kinds the tools understand, recognised from apiVersion and kind.
 *
 *   resource.k8s.io/{v1,v1beta1,v1beta2}  DeviceClass, ResourceSlice,
 *                                          ResourceClaim, ResourceClaimTemplate
 *   resource.k8s.io/{v1alpha3,v1beta2,v1} DeviceTaintRule
 *   resource.k8s.io/v1alpha3               ResourcePoolStatusRequest (KEP-5677)
 *   v1                                     Node, Pod, Namespace
 *   scheduling.k8s.io/{v1beta1,v1alpha3}   PodGroup (the group's shared
 *                                          claims, DRAWorkloadResourceClaims;
 *                                          v1alpha2, which only 1.36 serves)
 *   resource.k8s.io/v1alpha2               classic DRA (Kubernetes 1.27-1.30,
 *                                          KEP-3063): ResourceClass,
 *                                          ResourceClaim, ResourceClaimTemplate,
 *                                          PodSchedulingContext (also v1alpha3,
 *                                          where 1.31 kept it)
 * Classic claims and templates are kinds of their own (DRA_KIND_CLASSIC_*):
 * they are never converted to v1, and engines that know only structured
 * parameters do not see them.
 *
 * dra_kind_of() reports a missing or non-string apiVersion/kind and unknown
 * combinations as errors; tools decide whether to skip unknown kinds
 * (dra_kind_unknown_err tells the two apart).  No heap memory except the
 * returned errors (caller frees).
 */
#ifndef DRA_MODEL_KINDS_H
#define DRA_MODEL_KINDS_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/error.h"
#include "../io/stream.h"

/* clang-format off */
typedef enum {
    DRA_KIND_UNKNOWN = 0,
    DRA_KIND_DEVICE_CLASS,
    DRA_KIND_RESOURCE_SLICE,
    DRA_KIND_RESOURCE_CLAIM,
    DRA_KIND_RESOURCE_CLAIM_TEMPLATE,
    DRA_KIND_DEVICE_TAINT_RULE,
    DRA_KIND_NODE,
    DRA_KIND_POD,
    DRA_KIND_NAMESPACE,
    DRA_KIND_RESOURCE_POOL_STATUS_REQUEST,
    DRA_KIND_RESOURCE_CLASS,          /* classic DRA, v1alpha2 */
    DRA_KIND_CLASSIC_CLAIM,           /* ResourceClaim of v1alpha2 */
    DRA_KIND_CLASSIC_CLAIM_TEMPLATE,  /* ResourceClaimTemplate of v1alpha2 */
    DRA_KIND_POD_SCHEDULING_CONTEXT,  /* classic DRA, v1alpha2 (and 1.31's v1alpha3) */
    DRA_KIND_POD_GROUP,               /* scheduling.k8s.io PodGroup (workload claims) */
    DRA_KIND_COUNT
} dra_kind;

typedef enum {
    DRA_APIVER_UNKNOWN = 0,
    DRA_APIVER_RESOURCE_V1,       /* resource.k8s.io/v1 */
    DRA_APIVER_RESOURCE_V1BETA2,  /* resource.k8s.io/v1beta2 */
    DRA_APIVER_RESOURCE_V1BETA1,  /* resource.k8s.io/v1beta1 */
    DRA_APIVER_RESOURCE_V1ALPHA3, /* resource.k8s.io/v1alpha3 */
    DRA_APIVER_RESOURCE_V1ALPHA2, /* resource.k8s.io/v1alpha2: classic DRA */
    DRA_APIVER_CORE_V1,           /* v1 */
    DRA_APIVER_SCHEDULING_V1BETA1,  /* scheduling.k8s.io/v1beta1 (PodGroup, 1.37) */
    DRA_APIVER_SCHEDULING_V1ALPHA3, /* scheduling.k8s.io/v1alpha3 (PodGroup, 1.37) */
    DRA_APIVER_SCHEDULING_V1ALPHA2, /* scheduling.k8s.io/v1alpha2 (PodGroup, 1.36 only) */
    DRA_APIVER_COUNT
} dra_apiver;
/* clang-format on */

#define DRA_RESOURCE_V1 "resource.k8s.io/v1"

/* Recognise a combination; false when unknown. */
bool dra_kind_lookup(const char *api_version, const char *kind, dra_kind *k, dra_apiver *v);

/* From an object's apiVersion/kind.  Errors (DRA_EXIT_INPUT, field set):
 *   apiVersion: Required value: object has no apiVersion
 *   kind: Required value: object has no kind
 *   kind: no matches for kind "X" in version "Y"   (unknown; see below) */
DRA_MUST_USE dra_err *dra_kind_of(const json_t *obj, dra_kind *k, dra_apiver *v);
/* dra_kind_of for an object read from text: a number given as apiVersion
 * or kind in a JSON document is echoed as written ("Invalid value: 1e3",
 * "-0", "9223372036854775808"), as the API server's decoder reads it (a
 * json.Number), not as the tree holds it (1000.0). */
DRA_MUST_USE dra_err *dra_kind_of_read(const dra_obj *o, dra_kind *k, dra_apiver *v);
/* True when e came from dra_kind_of for a well-formed but unknown kind. */
bool dra_kind_unknown_err(const dra_err *e);

const char *dra_kind_name(dra_kind k);     /* "ResourceSlice"; "" for unknown */
bool dra_kind_is_classic(dra_kind k);      /* ResourceClass, classic claims/templates, PodSchedulingContext */
const char *dra_apiver_name(dra_apiver v); /* "resource.k8s.io/v1beta1" */
bool dra_kind_namespaced(dra_kind k);      /* ResourceClaim(Template), Pod, PodGroup, ... */
bool dra_kind_is_resource(dra_kind k);
/* For a classic kind (dra_kind_is_classic) of version v: a warning
 * (DRA_EXIT_OK, field apiVersion) in kubectl's words, "no matches for kind
 * \"K\" in version \"V\"", that no supported Kubernetes release serves it:
 * 1.36 to 1.38 serve resource.k8s.io as v1, v1beta1, v1beta2 and v1alpha3
 * (DeviceTaintRule, ResourcePoolStatusRequest) only, as k8s.io/api v0.37.2
 * registers it (resource/{v1,v1beta1,v1beta2,v1alpha3}/register.go).  NULL
 * for other kinds.  Caller frees. */
DRA_MUST_USE dra_err *dra_kind_unserved(dra_kind k, dra_apiver v); /* in group resource.k8s.io */
dra_kind dra_kind_from_name(const char *kind);                     /* by kind alone, any version */

#endif
