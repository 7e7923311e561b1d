/* DRA feature gates of each Kubernetes release the tools know: names,
 * defaults, stages, locks, dependencies, and `--feature-gates` parsing.
 *
 * A release's table is what that release's own components start with: the
 * spec of pkg/features/kube_features.go's VersionedSpecs at emulation
 * version = the release and min compatibility version = one minor before
 * (k8s.io/kubernetes v1.36.3, v1.37.2, v1.38.0-beta.0; `make
 * upstream-check-gates` checks the tables against those sources).  A gate
 * the release does not have -- not yet added, or removed after GA -- is
 * "unrecognized feature gate: X" there, as upstream says it; a gate
 * removed after GA stays on (its behaviour is the only one left).  Locked
 * gates (LockToDefault) cannot be set to the other value.  Library callers
 * may still clear a locked gate in dra_features.on directly, as upstream's
 * tests emulate an older version to test the gate off.  Gates that are not
 * DRA's own are unknown here and rejected, as the component-base parser
 * rejects gates it does not know, except the two that DRA gates depend on
 * (GenericWorkload, NodeDeclaredFeatures) and 1.36's GangScheduling and
 * WorkloadAwarePreemption, which the scheduling and validation of PodGroups
 * read.
 *
 * A dra_features is a value type (no heap memory): copy it freely.  Start with
 * dra_features_default() or dra_features_release(), then apply any number of
 * --feature-gates values.  Its `release` is the hook for rules that differ
 * by release beyond gates: code that must behave as one release does reads
 * dra_features_release_of().
 */
#ifndef DRA_MODEL_FEATURES_H
#define DRA_MODEL_FEATURES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/buf.h"
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
    DRA_FEATURE_RESOURCE_CLAIM_GRANULAR_STATUS_AUTHORIZATION,
    /* not DRA's own, but DRA gates depend on them */
    DRA_FEATURE_GENERIC_WORKLOAD,
    DRA_FEATURE_NODE_DECLARED_FEATURES,
    /* 1.36's gang scheduling of PodGroups (from 1.37 GenericWorkload's) */
    DRA_FEATURE_GANG_SCHEDULING,
    /* 1.36's gate of a PodGroup's disruptionMode, priorityClassName and
     * priority (from 1.37 those fields have no gate) */
    DRA_FEATURE_WORKLOAD_AWARE_PREEMPTION,
    DRA_FEATURE_COUNT
} dra_feature;

typedef enum { DRA_STAGE_ALPHA, DRA_STAGE_BETA, DRA_STAGE_GA } dra_feature_stage;

/* A release, by its minor version (Kubernetes 1.MINOR).  0 in a
 * dra_features means DRA_RELEASE_DEFAULT.  Adding one: its column in
 * features.c, the names below, GATES_RELEASES in tests/upstream/gates.mk,
 * scripts/gen-man-gates. */
typedef enum dra_release {
    DRA_RELEASE_1_36 = 36,
    DRA_RELEASE_1_37 = 37,
    DRA_RELEASE_1_38 = 38, /* as of v1.38.0-beta.0 */
} dra_release;
#define DRA_RELEASE_OLDEST DRA_RELEASE_1_36
#define DRA_RELEASE_NEWEST DRA_RELEASE_1_38
/* The release the tools follow when none is named: the newest final
 * release (1.38 has only a beta so far; the upstream peers are 1.37.2). */
#define DRA_RELEASE_DEFAULT DRA_RELEASE_1_37
/* For messages. */
#define DRA_RELEASES_KNOWN "1.36, 1.37, 1.38"

typedef struct dra_features {
    bool on[DRA_FEATURE_COUNT];
    dra_release release; /* whose table this is; 0: DRA_RELEASE_DEFAULT */
} dra_features;

/* The defaults of DRA_RELEASE_DEFAULT. */
void dra_features_default(dra_features *f);
/* The defaults of release r (a known one; else DRA_RELEASE_DEFAULT's). */
void dra_features_release(dra_features *f, dra_release r);
/* f's release (DRA_RELEASE_DEFAULT for NULL f or an unset one). */
dra_release dra_features_release_of(const dra_features *f);
/* The quantity rules of f's release ride with it: quantity.h
 * dra_features_quantity_rules and dra_quantity_parse_as. */

/* A snapshot's first object (dra-watch snapshot): {apiVersion:
 * dra-tools.io/v1alpha1, kind: Snapshot, metadata: {name: snapshot},
 * serverVersion: the server's /version ({major, minor, gitVersion, ...}),
 * forbidden: the kinds its user may not list, as resource names
 * ["nodes", "deviceclasses", ...], when there are any: the snapshot has
 * none of them, where the cluster may}.  The tools skip it as an object of
 * a kind they do not use, take the release from its gitVersion when none
 * is named, and say a class or node is not readable rather than missing
 * when its kind is forbidden (dra_snapshot_forbidden). */
#define DRA_SNAPSHOT_API_VERSION "dra-tools.io/v1alpha1"
#define DRA_SNAPSHOT_KIND "Snapshot"
#define DRA_SNAPSHOT_FORBIDDEN "forbidden"
/* The kinds (bits 1u << dra_kind) that obj, when it is a snapshot object,
 * says its user may not list; 0 for any other object. */
uint32_t dra_snapshot_forbidden(const json_t *obj);
/* The gitVersion of the snapshot object that text (the first bytes of a
 * YAML, JSON or JSON Lines file) begins with, or NULL.  Caller frees. */
char *dra_snapshot_git_version(const char *text, size_t n);

/* "1.37" (static storage); "?" for an unknown release. */
const char *dra_release_name(dra_release r);
/* A release from "1.37", "v1.37", "1.37.2", or a server's gitVersion
 * ("v1.38.0-beta.0", "v1.37.2+k3s1", "v1.37.2-gke.100").  Errors (input):
 * "unknown Kubernetes version \"X\" (known: 1.36, 1.37, 1.38)". */
DRA_MUST_USE dra_err *dra_release_parse(const char *s, dra_release *out);

/* The environment variable that names the release when no
 * --kubernetes-version does (and which the tools a pipeline runs inherit). */
#define DRA_KUBERNETES_VERSION_ENV "DRA_KUBERNETES_VERSION"
/* Which release the user named: flag (the value of --kubernetes-version;
 * NULL when not given) as it is, else $DRA_KUBERNETES_VERSION when set and
 * not empty (*from_env then true), else NULL.  Borrowed (flag, or the
 * environment's string). */
const char *dra_release_setting(const char *flag, bool *from_env);

/* Apply a --feature-gates value over f's release's table: "A=true,B=false"
 * (spaces around names and values are ignored; values as Go's
 * strconv.ParseBool; a gate given twice takes its last value;
 * AllAlpha=/AllBeta= set every unlocked gate of that stage the release has
 * that the list does not name).  Errors, upstream's texts:
 *   "unrecognized feature gate: X" (also a gate the release does not have)
 *   "missing bool value for X"
 *   "invalid value of X=v, err: strconv.ParseBool: parsing \"v\": invalid syntax"
 *   "cannot set feature gate X to false, feature is locked to true"
 *   "X is enabled, but depends on features that are disabled: [Y]" (the
 *   dependencies of kube_features.go)
 * Every locked gate is named, up to the first unknown one, in the list's
 * order (upstream's is a Go map's, random); several errors read "[e1, e2]"
 * (utilerrors.NewAggregate).  On error f is unchanged.  Input errors
 * (DRA_EXIT_INPUT). */
DRA_MUST_USE dra_err *dra_features_parse(dra_features *f, const char *spec);

/* Set one gate; fails like dra_features_parse for a locked gate or one
 * f's release does not have. */
DRA_MUST_USE dra_err *dra_features_set(dra_features *f, dra_feature id, bool on);

bool dra_feature_enabled(const dra_features *f, dra_feature id);
/* NULL f means the defaults. */

const char *dra_feature_name(dra_feature id);                /* "DRAAdminAccess" */
bool dra_feature_lookup(const char *name, dra_feature *out); /* exact, case-sensitive */
/* Of DRA_RELEASE_DEFAULT: */
bool dra_feature_default(dra_feature id);
bool dra_feature_locked(dra_feature id);
dra_feature_stage dra_feature_stage_of(dra_feature id);

/* One gate at one release. */
typedef struct dra_gate_spec {
    bool known;  /* the release has the gate; else "unrecognized feature gate" */
    bool def;    /* default (a gate removed after GA: true) */
    bool locked; /* LockToDefault */
    dra_feature_stage stage;
    unsigned long long deps; /* 1ull << dependency, as defaultKubernetesFeatureGateDependencies */
} dra_gate_spec;
/* Static storage; r unknown: DRA_RELEASE_DEFAULT's. */
const dra_gate_spec *dra_gate_spec_at(dra_release r, dra_feature id);

/* The gate table of release r as `dra-slice gates` prints it: one line per
 * gate the release has, sorted by name, columns separated by one space:
 * "RELEASE GATE DEFAULT STAGE LOCKED DEPENDS-ON" (stage alpha, beta or GA;
 * dependencies sorted and comma-separated, "-" for none); no header. */
void dra_features_table(dra_buf *out, dra_release r);

#endif
