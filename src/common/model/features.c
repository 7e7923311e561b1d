/* Feature gates; see features.h.  Parser behaviour and messages follow
 * k8s.io/component-base/featuregate/feature_gate.go (Set / SetFromMap). */
#include "features.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"

static const struct gate {
    const char *name;
    bool def;
    bool locked;
    dra_feature_stage stage;
} gates[DRA_FEATURE_COUNT] = {
    /* Kubernetes 1.37, package features defaultVersionedKubernetesFeatureGates
     * (the DRA gates' VersionedSpecs; a spec with MinCompatibilityVersion
     * 1.37 does not apply at the default compatibility version 1.36). */
    [DRA_FEATURE_DYNAMIC_RESOURCE_ALLOCATION] = {"DynamicResourceAllocation", true, true, DRA_STAGE_GA},
    [DRA_FEATURE_ADMIN_ACCESS] = {"DRAAdminAccess", true, true, DRA_STAGE_GA},                    /* GA 1.36, locked */
    [DRA_FEATURE_PRIORITIZED_LIST] = {"DRAPrioritizedList", true, true, DRA_STAGE_GA},            /* locked 1.37 */
    [DRA_FEATURE_RESOURCE_CLAIM_DEVICE_STATUS] = {"DRAResourceClaimDeviceStatus", true, true, DRA_STAGE_GA}, /* GA 1.37 */
    [DRA_FEATURE_DEVICE_TAINTS] = {"DRADeviceTaints", true, false, DRA_STAGE_GA},                 /* locked in 1.38 */
    [DRA_FEATURE_DEVICE_TAINT_RULES] = {"DRADeviceTaintRules", true, false, DRA_STAGE_GA},        /* locked in 1.38 */
    [DRA_FEATURE_PARTITIONABLE_DEVICES] = {"DRAPartitionableDevices", true, false, DRA_STAGE_BETA},
    [DRA_FEATURE_CONSUMABLE_CAPACITY] = {"DRAConsumableCapacity", true, false, DRA_STAGE_BETA},
    [DRA_FEATURE_DEVICE_BINDING_CONDITIONS] = {"DRADeviceBindingConditions", true, false, DRA_STAGE_BETA},
    [DRA_FEATURE_EXTENDED_RESOURCE] = {"DRAExtendedResource", true, true, DRA_STAGE_GA},          /* GA 1.37, locked */
    [DRA_FEATURE_SCHEDULER_FILTER_TIMEOUT] = {"DRASchedulerFilterTimeout", true, false, DRA_STAGE_BETA},
    [DRA_FEATURE_LIST_TYPE_ATTRIBUTES] = {"DRAListTypeAttributes", false, false, DRA_STAGE_ALPHA},
    [DRA_FEATURE_NODE_ALLOCATABLE_RESOURCES] = {"DRANodeAllocatableResources", false, false, DRA_STAGE_ALPHA},
    [DRA_FEATURE_OPTIONAL_NODE_OPERATIONS] = {"DRAOptionalNodeOperations", false, false, DRA_STAGE_ALPHA},
    [DRA_FEATURE_FRACTIONAL_CAPACITY_RANGE] = {"DRAFractionalCapacityRange", false, false, DRA_STAGE_BETA}, /* beta 1.37, off */
    /* An API-server gate (resource.k8s.io field), alpha 1.37. */
    [DRA_FEATURE_PARTITIONABLE_DEVICES_TYPE] = {"DRAPartitionableDevicesType", false, false, DRA_STAGE_ALPHA},
    /* dra-corrections.md E5-9 (PodGroup consumers); beta 1.37, off. */
    [DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS] = {"DRAWorkloadResourceClaims", false, false, DRA_STAGE_BETA},
    [DRA_FEATURE_DERIVED_ATTRIBUTES] = {"DRADerivedAttributes", false, false, DRA_STAGE_ALPHA},    /* alpha 1.37 */
    [DRA_FEATURE_DEVICE_COMPATIBILITY_GROUPS] = {"DRADeviceCompatibilityGroups", false, false, DRA_STAGE_ALPHA}, /* alpha 1.37 */
    /* KEP-5677 ResourcePoolStatusRequest API and its controller; alpha since 1.36. */
    [DRA_FEATURE_RESOURCE_POOL_STATUS] = {"DRAResourcePoolStatus", false, false, DRA_STAGE_ALPHA},
    [DRA_FEATURE_GENERIC_WORKLOAD] = {"GenericWorkload", false, false, DRA_STAGE_BETA},          /* beta 1.37, off */
    [DRA_FEATURE_NODE_DECLARED_FEATURES] = {"NodeDeclaredFeatures", true, true, DRA_STAGE_GA},   /* GA 1.37, locked */
};

/* defaultKubernetesFeatureGateDependencies (k8s.io/kubernetes v1.37.2
 * pkg/features/kube_features.go): a gate may be on only when these are;
 * DynamicResourceAllocation, which nearly all depend on, is locked on. */
#define DEPS_MAX 3
static const dra_feature deps[DRA_FEATURE_COUNT][DEPS_MAX] = {
    [DRA_FEATURE_DEVICE_BINDING_CONDITIONS] = {DRA_FEATURE_RESOURCE_CLAIM_DEVICE_STATUS},
    [DRA_FEATURE_DEVICE_COMPATIBILITY_GROUPS] = {DRA_FEATURE_PARTITIONABLE_DEVICES},
    [DRA_FEATURE_DEVICE_TAINT_RULES] = {DRA_FEATURE_DEVICE_TAINTS},
    [DRA_FEATURE_FRACTIONAL_CAPACITY_RANGE] = {DRA_FEATURE_CONSUMABLE_CAPACITY},
    [DRA_FEATURE_OPTIONAL_NODE_OPERATIONS] = {DRA_FEATURE_NODE_DECLARED_FEATURES},
    [DRA_FEATURE_PARTITIONABLE_DEVICES_TYPE] = {DRA_FEATURE_PARTITIONABLE_DEVICES, DRA_FEATURE_RESOURCE_POOL_STATUS},
    [DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS] = {DRA_FEATURE_GENERIC_WORKLOAD},
};

void dra_features_default(dra_features *f)
{
    for (int i = 0; i < DRA_FEATURE_COUNT; i++)
        f->on[i] = gates[i].def;
}

bool dra_feature_enabled(const dra_features *f, dra_feature id)
{
    if ((unsigned)id >= DRA_FEATURE_COUNT)
        return false;
    return f ? f->on[id] : gates[id].def;
}

const char *dra_feature_name(dra_feature id)
{
    return (unsigned)id < DRA_FEATURE_COUNT ? gates[id].name : "?";
}

bool dra_feature_default(dra_feature id)
{
    return (unsigned)id < DRA_FEATURE_COUNT && gates[id].def;
}

bool dra_feature_locked(dra_feature id)
{
    return (unsigned)id < DRA_FEATURE_COUNT && gates[id].locked;
}

dra_feature_stage dra_feature_stage_of(dra_feature id)
{
    return (unsigned)id < DRA_FEATURE_COUNT ? gates[id].stage : DRA_STAGE_ALPHA;
}

bool dra_feature_lookup(const char *name, dra_feature *out)
{
    for (int i = 0; i < DRA_FEATURE_COUNT; i++) {
        if (strcmp(gates[i].name, name) == 0) {
            *out = (dra_feature)i;
            return true;
        }
    }
    return false;
}

static dra_err *locked_err(dra_feature id, bool on)
{
    return dra_err_new(DRA_EXIT_INPUT, "cannot set feature gate %s to %s, feature is locked to %s", gates[id].name,
                       on ? "true" : "false", gates[id].def ? "true" : "false");
}

dra_err *dra_features_set(dra_features *f, dra_feature id, bool on)
{
    if ((unsigned)id >= DRA_FEATURE_COUNT)
        return dra_err_new(DRA_EXIT_INPUT, "unrecognized feature gate: %d", (int)id);
    if (gates[id].locked && on != gates[id].def)
        return locked_err(id, on);
    f->on[id] = on;
    return NULL;
}

/* strconv.ParseBool */
static bool parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (strcmp(s, yes[i]) == 0) {
            *out = true;
            return true;
        }
        if (strcmp(s, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\v' || *s == '\f')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r' ||
                 s[n - 1] == '\v' || s[n - 1] == '\f'))
        s[--n] = '\0';
    return s;
}

static dra_err *apply_one(dra_features *f, const char *key, bool on)
{
    if (strcmp(key, "AllAlpha") == 0 || strcmp(key, "AllBeta") == 0) {
        dra_feature_stage stage = key[3] == 'A' ? DRA_STAGE_ALPHA : DRA_STAGE_BETA;
        for (int i = 0; i < DRA_FEATURE_COUNT; i++)
            if (gates[i].stage == stage && !gates[i].locked)
                f->on[i] = on;
        return NULL;
    }
    dra_feature id;
    if (!dra_feature_lookup(key, &id))
        return dra_err_new(DRA_EXIT_INPUT, "unrecognized feature gate: %s", key);
    return dra_features_set(f, id, on);
}

/* The gates that are on with a dependency off, as unsafeSetFromMap says
 * it: one error alone, several as utilerrors.NewAggregate prints them. */
static dra_err *check_dependencies(const dra_features *f)
{
    dra_buf all = DRA_BUF_INIT;
    int n = 0;
    for (int i = 0; i < DRA_FEATURE_COUNT; i++) {
        if (!f->on[i])
            continue;
        dra_buf off = DRA_BUF_INIT;
        for (int d = 0; d < DEPS_MAX && deps[i][d]; d++)
            if (!f->on[deps[i][d]])
                dra_buf_printf(&off, "%s%s", off.len ? " " : "", gates[deps[i][d]].name);
        if (off.len)
            dra_buf_printf(&all, "%s%s is enabled, but depends on features that are disabled: [%s]", n++ ? ", " : "",
                           gates[i].name, dra_buf_str(&off));
        dra_buf_free(&off);
    }
    dra_err *e = n == 0 ? NULL : dra_err_new(DRA_EXIT_INPUT, n == 1 ? "%s" : "[%s]", dra_buf_str(&all));
    dra_buf_free(&all);
    return e;
}

dra_err *dra_features_parse(dra_features *f, const char *spec)
{
    dra_features work = *f;
    char *copy = dra_xstrdup(spec ? spec : "");
    dra_err *err = NULL;
    char *save = NULL;
    /* Like strings.Split(value, ","): empty items are skipped. */
    for (char *item = strtok_r(copy, ",", &save); item && !err; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) {
            char *k = trim(item);
            if (*k == '\0')
                continue;
            err = dra_err_new(DRA_EXIT_INPUT, "missing bool value for %s", k);
            break;
        }
        *eq = '\0';
        char *k = trim(item);
        char *v = trim(eq + 1);
        bool on;
        if (!parse_bool(v, &on)) {
            err = dra_err_new(DRA_EXIT_INPUT,
                              "invalid value of %s=%s, err: strconv.ParseBool: parsing \"%s\": invalid syntax", k, v, v);
            break;
        }
        err = apply_one(&work, k, on);
    }
    free(copy);
    if (!err)
        err = check_dependencies(&work);
    if (!err)
        *f = work;
    return err;
}
