/* Validation of DRA objects against upstream's rules and limits.
 *
 * Rules follow pkg/apis/resource/validation/validation.go (a recent master
 * copy) and the declarative limits of the v1 types (dra.md §1.1–§1.8): every
 * problem becomes one field error with upstream's wording (see names.h):
 * `field` is the path ("spec.devices[3].name"), `msg` the rest
 * ("Invalid value: \"Foo\": a lowercase RFC 1123 label ...").  Paths are in
 * v1 shape, as upstream normalises v1beta1 paths.
 *
 * Input is a v1 object, converted (convert.h) and defaulted (defaults.h)
 * first; un-defaulted requests fail as upstream's would ("Unsupported value:
 * \"\"").  JSON values of the wrong type are reported as
 * "Invalid value: <json>: must be of type <type>".
 *
 * CEL is not compiled here: when opts->cel is set it is called for every
 * selector expression that is within the 10 KiB limit, and opts->cel_derived
 * for every derived attribute expression (DRADerivedAttributes).
 *
 * Ownership: the returned chain belongs to the caller (dra_err_free).  The
 * object is only read.
 */
#ifndef DRA_MODEL_VALIDATE_H
#define DRA_MODEL_VALIDATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "features.h"
#include "kinds.h"

/* Compile one selector expression.  Return NULL and set *cost to the
 * estimated maximum cost when it compiles; otherwise an error whose msg is
 * the detail upstream puts after `Invalid value: "<expr>": `, or, with code
 * DRA_EXIT_RUNTIME, after `Internal error: ` (the callee's error is freed
 * by the validator).  ctx is opts->cel_ctx. */
typedef dra_err *(*dra_validate_cel_fn)(void *ctx, const char *expr, size_t len, uint64_t *cost);

typedef struct dra_validate_opts {
    const dra_features *features;    /* NULL: the defaults */
    dra_validate_cel_fn cel;         /* NULL: expressions are only length-checked */
    dra_validate_cel_fn cel_derived; /* the same for derived attributes */
    void *cel_ctx;                   /* for both */
    /* The object as read, when the JSON was read from text: a number past
     * int64 given as a quantity is parsed from its digits as written
     * (dra_obj_field_literal), which a real has lost.  NULL: from the real. */
    const struct dra_obj *src;
} dra_validate_opts;

/* Drop, in place, the fields of two disabled features from an object about
 * to be used as new, as the API server's strategies do on create
 * (PrepareForCreate): the list values of device attributes without
 * DRAListTypeAttributes (pkg/registry/resource/resourceslice/strategy.go
 * dropDisableDRAListTypeAttributesFields: every bools/ints/strings/versions
 * that is not null, whatever else the attribute holds) and derivedAttributes
 * without DRADerivedAttributes (pkg/api/resourceclaimspec/util.go
 * dropDisabledDRADerivedAttributesFields).  The fields of other disabled
 * features are dropped by dra_validate for validation only.  Returns one
 * warning a dropped field (one an attribute for list values), its field
 * path set, naming the gate; NULL when nothing was dropped.  The caller
 * owns the chain. */
DRA_MUST_USE dra_err *dra_drop_disabled_fields(json_t *obj, dra_kind kind, const dra_features *features);

/* What a new object loses that the tools keep as stored, for a tool that
 * answers for the API server (dra-slice validate): spec.schedulingGroup of a
 * Pod with GenericWorkload off, which pkg/api/pod/util.go
 * dropDisabledSchedulingGroup drops from a new pod but keeps on an update of
 * a pod that has it; and a PodGroup itself, which the API server does not
 * serve with that gate off.  One warning, its field path set, naming the
 * PodGroup and the gate; NULL when nothing is lost.  The caller owns it. */
DRA_MUST_USE dra_err *dra_drop_on_create_notes(const json_t *obj, dra_kind kind, const dra_features *features);

/* Limits (pkg/apis/resource/types.go). */
#define DRA_RESOURCE_SLICE_MAX_DEVICES 128
#define DRA_RESOURCE_SLICE_MAX_DEVICES_ADVANCED 64
#define DRA_RESOURCE_SLICE_MAX_COUNTER_SETS 8
#define DRA_RESOURCE_SLICE_MAX_COUNTERS_PER_SET 32
#define DRA_RESOURCE_SLICE_MAX_CONSUMPTIONS_PER_DEVICE 2
#define DRA_RESOURCE_SLICE_MAX_COUNTERS_PER_CONSUMPTION 32
#define DRA_RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES 32
#define DRA_RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES 48
#define DRA_DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH 64
#define DRA_DEVICE_TAINTS_MAX 16
#define DRA_BINDING_CONDITIONS_MAX 4
#define DRA_DEVICE_REQUESTS_MAX 32
#define DRA_DEVICE_CONSTRAINTS_MAX 32
#define DRA_DEVICE_CONFIG_MAX 32
#define DRA_DEVICE_SELECTORS_MAX 32
#define DRA_FIRST_AVAILABLE_MAX 8
#define DRA_CEL_EXPRESSION_MAX_LENGTH 10240
#define DRA_CEL_EXPRESSION_MAX_COST 1000000
#define DRA_DEVICE_CLAIM_DERIVED_ATTRIBUTE_MAX_COST 1000000
#define DRA_OPAQUE_PARAMETERS_MAX_LENGTH 10240
#define DRA_RESERVED_FOR_MAX 256
#define DRA_ALLOCATION_RESULTS_MAX 32
/* MaxCapacityRequirements (1.38): capacity requests and consumed capacities of one device. */
#define DRA_CAPACITY_REQUIREMENTS_MAX 32
#define DRA_ALLOCATION_CONFIG_MAX 64
#define DRA_DEVICE_STATUS_MAX_CONDITIONS 8
#define DRA_DEVICE_STATUS_DATA_MAX_LENGTH 10240
#define DRA_NETWORK_MAX_IPS 16
#define DRA_NETWORK_INTERFACE_NAME_MAX 256
#define DRA_NETWORK_HARDWARE_ADDRESS_MAX 128
#define DRA_TAINT_RULE_MAX_CONDITIONS 8
#define DRA_CAPACITY_VALID_VALUES_MAX 10

/* Any supported kind (dispatches on kind).  Fields of features that are
 * disabled in opts->features are left out first, as the API server's
 * strategies drop them from a new object (PrepareForCreate) before they
 * validate it; the kind validators below see the object as it is. */
DRA_MUST_USE dra_err *dra_validate(const json_t *obj, dra_kind kind, const dra_validate_opts *opts);
/* dra_validate, and *nothing_to_drop: true when obj holds no field of a
 * disabled feature at all, so that dra_drop_disabled_fields on it as it
 * is would drop nothing (a caller about to call it may skip it). */
DRA_MUST_USE dra_err *dra_validate_noting_drops(const json_t *obj, dra_kind kind, const dra_validate_opts *opts,
                                                bool *nothing_to_drop);
/* The same without dropping anything: the rules of validation.go alone, as
 * upstream's unit tests call them on an object as it is. */
DRA_MUST_USE dra_err *dra_validate_as_is(const json_t *obj, dra_kind kind, const dra_validate_opts *opts);

DRA_MUST_USE dra_err *dra_validate_device_class(const json_t *obj, const dra_validate_opts *opts);
DRA_MUST_USE dra_err *dra_validate_resource_slice(const json_t *obj, const dra_validate_opts *opts);
/* A resource.k8s.io/v1beta1 slice's errors, found on its v1 form: the API
 * server runs the declarative rules on the v1beta1 object, so their errors
 * name a device's fields under `basic` (spec.devices[i].basic.taints...);
 * the chain's fields are rewritten in place.  Not for 1.36 (features' release),
 * whose API server reports the handwritten rules' errors, on the internal
 * object, instead. */
void dra_validate_slice_v1beta1_paths(dra_err *errs, const dra_features *features);
/* The same for a resource.k8s.io/v1beta1 claim or claim template (obj, its
 * v1 form, kind): the declarative rules' errors under a request's `exactly`
 * name the field at the request's level (spec.devices.requests[i].
 * allocationMode), and a duplicate request is written as v1beta1 writes
 * it (from 1.37 on, as above). */
void dra_validate_claim_v1beta1_paths(dra_err *errs, const json_t *obj, dra_kind kind, const dra_features *features);
DRA_MUST_USE dra_err *dra_validate_resource_claim(const json_t *obj, const dra_validate_opts *opts);
DRA_MUST_USE dra_err *dra_validate_resource_claim_template(const json_t *obj, const dra_validate_opts *opts);
DRA_MUST_USE dra_err *dra_validate_device_taint_rule(const json_t *obj, const dra_validate_opts *opts);
/* Minimal sanity for core objects: metadata names, pod resourceClaims. */
DRA_MUST_USE dra_err *dra_validate_node(const json_t *obj, const dra_validate_opts *opts);
DRA_MUST_USE dra_err *dra_validate_pod(const json_t *obj, const dra_validate_opts *opts);
DRA_MUST_USE dra_err *dra_validate_namespace(const json_t *obj, const dra_validate_opts *opts);
DRA_MUST_USE dra_err *dra_validate_resource_pool_status_request(const json_t *obj, const dra_validate_opts *opts);
/* classic DRA, resource.k8s.io/v1alpha2 (validate_classic.c) */
DRA_MUST_USE dra_err *dra_validate_resource_class(const json_t *obj, const dra_validate_opts *opts);
DRA_MUST_USE dra_err *dra_validate_classic_claim(const json_t *obj, const dra_validate_opts *opts);
DRA_MUST_USE dra_err *dra_validate_classic_claim_template(const json_t *obj, const dra_validate_opts *opts);
DRA_MUST_USE dra_err *dra_validate_pod_scheduling_context(const json_t *obj, const dra_validate_opts *opts);
/* scheduling.k8s.io PodGroup: metadata, schedulingPolicy, resourceClaims (at
 * most 4, unique names, exactly one of resourceClaimName /
 * resourceClaimTemplateName), status.resourceClaimStatuses
 * (validate_podgroup.c) */
DRA_MUST_USE dra_err *dra_validate_pod_group(const json_t *obj, const dra_validate_opts *opts);

#endif
