/* DRA feature gates: names, defaults, and `--feature-gates` parsing.
 *
 * Defaults are the newest release column of dra.md §0 (Kubernetes 1.37).
 * Locked gates (GA and LockToDefault upstream) cannot be set to the other
 * value: DynamicResourceAllocation, DRAAdminAccess, DRAPrioritizedList,
 * DRAExtendedResource and DRAResourceClaimDeviceStatus.  Library callers
 * may still clear a locked gate in dra_features.on directly, as upstream's
 * tests emulate an older version to test the gate off.  Gates that are
 * not DRA's own are unknown here and rejected, as the component-base parser
 * rejects gates it does not know, except the two that DRA gates depend on
 * (GenericWorkload, NodeDeclaredFeatures).
 *
 * A dra_features is a value type (no heap memory): copy it freely.  Start with
 * dra_features_default(), then apply any number of --feature-gates values.
 */
#ifndef DRA_MODEL_FEATURES_H
#define DRA_MODEL_FEATURES_H

#include <stdbool.h>

#include "../base/error.h"

typedef enum {
    DRA_FEATURE_DYNAMIC_RESOURCE_ALLOCATION,
    DRA_FEATURE_ADMIN_ACCESS,
    DRA_FEATURE_PRIORITIZED_LIST,
    DRA_FEATURE_RESOURCE_CLAIM_DEVICE_STATUS,
    DRA_FEATURE_DEVICE_TAINTS,
    DRA_FEATURE_DEVICE_TAINT_RULES,
    DRA_FEATURE_PARTITIONABLE_DEVICES,
    DRA_FEATURE_CONSUMABLE_CAPACITY,
    DRA_FEATURE_DEVICE_BINDING_CONDITIONS,
    DRA_FEATURE_EXTENDED_RESOURCE,
    DRA_FEATURE_SCHEDULER_FILTER_TIMEOUT,
    DRA_FEATURE_LIST_TYPE_ATTRIBUTES,
    DRA_FEATURE_NODE_ALLOCATABLE_RESOURCES,
    DRA_FEATURE_OPTIONAL_NODE_OPERATIONS,
    DRA_FEATURE_FRACTIONAL_CAPACITY_RANGE,
    DRA_FEATURE_PARTITIONABLE_DEVICES_TYPE,
    DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS,
    DRA_FEATURE_DERIVED_ATTRIBUTES,
    DRA_FEATURE_DEVICE_COMPATIBILITY_GROUPS,
    DRA_FEATURE_RESOURCE_POOL_STATUS,
    /* not DRA's own, but DRA gates depend on them */
    DRA_FEATURE_GENERIC_WORKLOAD,
    DRA_FEATURE_NODE_DECLARED_FEATURES,
    DRA_FEATURE_COUNT
} dra_feature;

typedef enum { DRA_STAGE_ALPHA, DRA_STAGE_BETA, DRA_STAGE_GA } dra_feature_stage;

typedef struct dra_features {
    bool on[DRA_FEATURE_COUNT];
} dra_features;

/* The 1.37 defaults. */
void dra_features_default(dra_features *f);

/* Apply a --feature-gates value: "A=true,B=false" (spaces around names and
 * values are ignored; values as Go's strconv.ParseBool; AllAlpha=/AllBeta=
 * set every unlocked gate of that stage).  Errors, upstream's texts:
 *   "unrecognized feature gate: X"
 *   "missing bool value for X"
 *   "invalid value of X=v, err: strconv.ParseBool: parsing \"v\": invalid syntax"
 *   "cannot set feature gate X to false, feature is locked to true"
 *   "X is enabled, but depends on features that are disabled: [Y]" (the
 *   dependencies of kube_features.go; several such errors as "[e1, e2]")
 * On error f is unchanged.  Input errors (DRA_EXIT_INPUT). */
DRA_MUST_USE dra_err *dra_features_parse(dra_features *f, const char *spec);

/* Set one gate; fails like dra_features_parse for a locked gate. */
DRA_MUST_USE dra_err *dra_features_set(dra_features *f, dra_feature id, bool on);

bool dra_feature_enabled(const dra_features *f, dra_feature id);
/* NULL f means the defaults. */

const char *dra_feature_name(dra_feature id);           /* "DRAAdminAccess" */
bool dra_feature_lookup(const char *name, dra_feature *out); /* exact, case-sensitive */
bool dra_feature_default(dra_feature id);
bool dra_feature_locked(dra_feature id);
dra_feature_stage dra_feature_stage_of(dra_feature id);

#endif
