/* Feature gates; see features.h.  Parser behaviour and messages follow
 * k8s.io/component-base/featuregate/feature_gate.go (Set / SetFromMap). */
#include "features.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kinds.h"

static const char *const names[DRA_FEATURE_COUNT] = {
    [DRA_FEATURE_DYNAMIC_RESOURCE_ALLOCATION] = "DynamicResourceAllocation",
    [DRA_FEATURE_ADMIN_ACCESS] = "DRAAdminAccess",
    [DRA_FEATURE_PRIORITIZED_LIST] = "DRAPrioritizedList",
    [DRA_FEATURE_RESOURCE_CLAIM_DEVICE_STATUS] = "DRAResourceClaimDeviceStatus",
    [DRA_FEATURE_DEVICE_TAINTS] = "DRADeviceTaints",
    [DRA_FEATURE_DEVICE_TAINT_RULES] = "DRADeviceTaintRules",
    [DRA_FEATURE_PARTITIONABLE_DEVICES] = "DRAPartitionableDevices",
    [DRA_FEATURE_CONSUMABLE_CAPACITY] = "DRAConsumableCapacity",
    [DRA_FEATURE_DEVICE_BINDING_CONDITIONS] = "DRADeviceBindingConditions",
    [DRA_FEATURE_EXTENDED_RESOURCE] = "DRAExtendedResource",
    [DRA_FEATURE_SCHEDULER_FILTER_TIMEOUT] = "DRASchedulerFilterTimeout",
    [DRA_FEATURE_LIST_TYPE_ATTRIBUTES] = "DRAListTypeAttributes",
    [DRA_FEATURE_NODE_ALLOCATABLE_RESOURCES] = "DRANodeAllocatableResources",
    [DRA_FEATURE_OPTIONAL_NODE_OPERATIONS] = "DRAOptionalNodeOperations",
    [DRA_FEATURE_FRACTIONAL_CAPACITY_RANGE] = "DRAFractionalCapacityRange",
    [DRA_FEATURE_PARTITIONABLE_DEVICES_TYPE] = "DRAPartitionableDevicesType",
    [DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS] = "DRAWorkloadResourceClaims",
    [DRA_FEATURE_DERIVED_ATTRIBUTES] = "DRADerivedAttributes",
    [DRA_FEATURE_DEVICE_COMPATIBILITY_GROUPS] = "DRADeviceCompatibilityGroups",
    [DRA_FEATURE_RESOURCE_POOL_STATUS] = "DRAResourcePoolStatus",
    [DRA_FEATURE_RESOURCE_CLAIM_GRANULAR_STATUS_AUTHORIZATION] = "DRAResourceClaimGranularStatusAuthorization",
    [DRA_FEATURE_GENERIC_WORKLOAD] = "GenericWorkload",
    [DRA_FEATURE_NODE_DECLARED_FEATURES] = "NodeDeclaredFeatures",
    [DRA_FEATURE_GANG_SCHEDULING] = "GangScheduling",
    [DRA_FEATURE_WORKLOAD_AWARE_PREEMPTION] = "WorkloadAwarePreemption",
};

#define D(x) (1ull << DRA_FEATURE_##x)
#define G(id, d, st, lock, dep) [DRA_FEATURE_##id] = {true, d, lock, DRA_STAGE_##st, dep}
/* A gate removed after GA: unknown, its behaviour on. */
#define REMOVED(id) [DRA_FEATURE_##id] = {false, true, false, DRA_STAGE_GA, 0}

/* Each release's gates: pkg/features/kube_features.go of k8s.io/kubernetes
 * at that release, defaultVersionedKubernetesFeatureGates (the spec in
 * effect at emulation version 1.N, min compatibility version 1.N-1: a spec
 * with MinCompatibilityVersion 1.37 does not apply in 1.37) and
 * defaultKubernetesFeatureGateDependencies.  Gates left out are ones the
 * release does not have yet. */
/* clang-format off */
static const dra_gate_spec specs[][DRA_FEATURE_COUNT] = {
    [0] = { /* v1.36.3 */
        G(DYNAMIC_RESOURCE_ALLOCATION, true, GA, true, 0),
        G(ADMIN_ACCESS, true, GA, true, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(PRIORITIZED_LIST, true, GA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(RESOURCE_CLAIM_DEVICE_STATUS, true, BETA, false, 0),
        G(DEVICE_TAINTS, true, BETA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(DEVICE_TAINT_RULES, false, BETA, false, D(DEVICE_TAINTS)),
        G(PARTITIONABLE_DEVICES, true, BETA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(CONSUMABLE_CAPACITY, true, BETA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(DEVICE_BINDING_CONDITIONS, true, BETA, false, D(RESOURCE_CLAIM_DEVICE_STATUS) | D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(EXTENDED_RESOURCE, true, BETA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(SCHEDULER_FILTER_TIMEOUT, true, BETA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(LIST_TYPE_ATTRIBUTES, false, ALPHA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(NODE_ALLOCATABLE_RESOURCES, false, ALPHA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(WORKLOAD_RESOURCE_CLAIMS, false, ALPHA, false, D(DYNAMIC_RESOURCE_ALLOCATION) | D(GENERIC_WORKLOAD)),
        G(RESOURCE_POOL_STATUS, false, ALPHA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(RESOURCE_CLAIM_GRANULAR_STATUS_AUTHORIZATION, true, BETA, false,
          D(RESOURCE_CLAIM_DEVICE_STATUS) | D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(GENERIC_WORKLOAD, false, ALPHA, false, 0),
        G(NODE_DECLARED_FEATURES, true, BETA, false, 0),
        G(GANG_SCHEDULING, false, ALPHA, false, D(GENERIC_WORKLOAD)),
        G(WORKLOAD_AWARE_PREEMPTION, false, ALPHA, false, D(GANG_SCHEDULING)),
    },
    [1] = { /* v1.37.2 */
        G(DYNAMIC_RESOURCE_ALLOCATION, true, GA, true, 0),
        G(ADMIN_ACCESS, true, GA, true, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(PRIORITIZED_LIST, true, GA, true, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(RESOURCE_CLAIM_DEVICE_STATUS, true, GA, true, 0),
        G(DEVICE_TAINTS, true, GA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(DEVICE_TAINT_RULES, true, GA, false, D(DEVICE_TAINTS)),
        G(PARTITIONABLE_DEVICES, true, BETA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(CONSUMABLE_CAPACITY, true, BETA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(DEVICE_BINDING_CONDITIONS, true, BETA, false, D(RESOURCE_CLAIM_DEVICE_STATUS) | D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(EXTENDED_RESOURCE, true, GA, true, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(SCHEDULER_FILTER_TIMEOUT, true, BETA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(LIST_TYPE_ATTRIBUTES, false, ALPHA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(NODE_ALLOCATABLE_RESOURCES, false, ALPHA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(OPTIONAL_NODE_OPERATIONS, false, ALPHA, false, D(DYNAMIC_RESOURCE_ALLOCATION) | D(NODE_DECLARED_FEATURES)),
        G(FRACTIONAL_CAPACITY_RANGE, false, BETA, false, D(CONSUMABLE_CAPACITY)),
        G(PARTITIONABLE_DEVICES_TYPE, false, ALPHA, false,
          D(PARTITIONABLE_DEVICES) | D(RESOURCE_POOL_STATUS) | D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(WORKLOAD_RESOURCE_CLAIMS, false, BETA, false, D(DYNAMIC_RESOURCE_ALLOCATION) | D(GENERIC_WORKLOAD)),
        G(DERIVED_ATTRIBUTES, false, ALPHA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(DEVICE_COMPATIBILITY_GROUPS, false, ALPHA, false, D(PARTITIONABLE_DEVICES) | D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(RESOURCE_POOL_STATUS, false, ALPHA, false, D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(RESOURCE_CLAIM_GRANULAR_STATUS_AUTHORIZATION, true, BETA, false,
          D(RESOURCE_CLAIM_DEVICE_STATUS) | D(DYNAMIC_RESOURCE_ALLOCATION)),
        G(GENERIC_WORKLOAD, false, BETA, false, 0),
        G(NODE_DECLARED_FEATURES, true, GA, true, 0),
    },
    [2] = { /* v1.38.0-beta.0: DynamicResourceAllocation removed, DRADeviceTaints,
             * DRADeviceTaintRules, DRAPartitionableDevices and
             * DRADeviceBindingConditions locked on, DRAConsumableCapacity and
             * DRAFractionalCapacityRange GA (not locked) */
        REMOVED(DYNAMIC_RESOURCE_ALLOCATION),
        G(ADMIN_ACCESS, true, GA, true, 0),
        G(PRIORITIZED_LIST, true, GA, true, 0),
        G(RESOURCE_CLAIM_DEVICE_STATUS, true, GA, true, 0),
        G(DEVICE_TAINTS, true, GA, true, 0),
        G(DEVICE_TAINT_RULES, true, GA, true, D(DEVICE_TAINTS)),
        G(PARTITIONABLE_DEVICES, true, GA, true, 0),
        G(CONSUMABLE_CAPACITY, true, GA, false, 0),
        G(DEVICE_BINDING_CONDITIONS, true, GA, true, D(RESOURCE_CLAIM_DEVICE_STATUS)),
        G(EXTENDED_RESOURCE, true, GA, true, 0),
        G(SCHEDULER_FILTER_TIMEOUT, true, BETA, false, 0),
        G(LIST_TYPE_ATTRIBUTES, false, ALPHA, false, 0),
        G(NODE_ALLOCATABLE_RESOURCES, false, ALPHA, false, 0),
        G(OPTIONAL_NODE_OPERATIONS, false, ALPHA, false, D(NODE_DECLARED_FEATURES)),
        G(FRACTIONAL_CAPACITY_RANGE, true, GA, false, D(CONSUMABLE_CAPACITY)),
        G(PARTITIONABLE_DEVICES_TYPE, false, ALPHA, false, D(PARTITIONABLE_DEVICES) | D(RESOURCE_POOL_STATUS)),
        G(WORKLOAD_RESOURCE_CLAIMS, false, BETA, false, D(GENERIC_WORKLOAD)),
        G(DERIVED_ATTRIBUTES, false, ALPHA, false, 0),
        G(DEVICE_COMPATIBILITY_GROUPS, false, ALPHA, false, D(PARTITIONABLE_DEVICES)),
        G(RESOURCE_POOL_STATUS, false, ALPHA, false, 0),
        G(RESOURCE_CLAIM_GRANULAR_STATUS_AUTHORIZATION, true, BETA, false, D(RESOURCE_CLAIM_DEVICE_STATUS)),
        G(GENERIC_WORKLOAD, false, BETA, false, 0),
        G(NODE_DECLARED_FEATURES, true, GA, true, 0),
    },
};
/* clang-format on */
_Static_assert(sizeof specs / sizeof *specs == DRA_RELEASE_NEWEST - DRA_RELEASE_OLDEST + 1, "a table per release");
_Static_assert(DRA_FEATURE_COUNT <= 64, "dependencies are a 64-bit mask");

static bool release_known(dra_release r)
{
    return r >= DRA_RELEASE_OLDEST && r <= DRA_RELEASE_NEWEST;
}

const dra_gate_spec *dra_gate_spec_at(dra_release r, dra_feature id)
{
    static const dra_gate_spec none = {0};
    if ((unsigned)id >= DRA_FEATURE_COUNT)
        return &none;
    return &specs[(release_known(r) ? r : DRA_RELEASE_DEFAULT) - DRA_RELEASE_OLDEST][id];
}

/* f's table */
static const dra_gate_spec *spec(const dra_features *f, dra_feature id)
{
    return dra_gate_spec_at(dra_features_release_of(f), id);
}

dra_release dra_features_release_of(const dra_features *f)
{
    return f && release_known(f->release) ? f->release : DRA_RELEASE_DEFAULT;
}

void dra_features_release(dra_features *f, dra_release r)
{
    f->release = release_known(r) ? r : DRA_RELEASE_DEFAULT;
    for (int i = 0; i < DRA_FEATURE_COUNT; i++)
        f->on[i] = dra_gate_spec_at(f->release, (dra_feature)i)->def;
}

void dra_features_default(dra_features *f)
{
    dra_features_release(f, DRA_RELEASE_DEFAULT);
}

const char *dra_release_name(dra_release r)
{
    static const char *const n[] = {"1.36", "1.37", "1.38"};
    return release_known(r) ? n[r - DRA_RELEASE_OLDEST] : "?";
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0 || n > 4)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

dra_err *dra_release_parse(const char *s, dra_release *out)
{
    const char *p = s && (*s == 'v') ? s + 1 : s;
    size_t minor_len = 0, patch_len = 0;
    bool ok = p && strncmp(p, "1.", 2) == 0;
    if (ok) {
        p += 2;
        minor_len = strspn(p, "0123456789");
        ok = all_digits(p, minor_len) && (minor_len == 1 || p[0] != '0');
    }
    if (ok && p[minor_len] == '.') { /* a patch, then maybe -pre or +build */
        patch_len = strspn(p + minor_len + 1, "0123456789");
        const char *rest = p + minor_len + 1 + patch_len;
        ok = all_digits(p + minor_len + 1, patch_len) && (*rest == '\0' || *rest == '-' || *rest == '+');
    } else if (ok) {
        ok = p[minor_len] == '\0';
    }
    if (ok) {
        long minor = strtol(p, NULL, 10);
        ok = minor >= DRA_RELEASE_OLDEST && minor <= DRA_RELEASE_NEWEST;
        if (ok)
            *out = (dra_release)minor;
    }
    if (!ok)
        return dra_err_new(DRA_EXIT_INPUT, "unknown Kubernetes version \"%s\" (known: %s)", s ? s : "",
                           DRA_RELEASES_KNOWN);
    return NULL;
}

const char *dra_release_setting(const char *flag, bool *from_env)
{
    *from_env = false;
    if (flag)
        return flag;
    const char *env = getenv(DRA_KUBERNETES_VERSION_ENV);
    if (!env || !*env)
        return NULL;
    *from_env = true;
    return env;
}

bool dra_feature_enabled(const dra_features *f, dra_feature id)
{
    if ((unsigned)id >= DRA_FEATURE_COUNT)
        return false;
    return f ? f->on[id] : dra_gate_spec_at(DRA_RELEASE_DEFAULT, id)->def;
}

const char *dra_feature_name(dra_feature id)
{
    return (unsigned)id < DRA_FEATURE_COUNT ? names[id] : "?";
}

bool dra_feature_default(dra_feature id)
{
    return dra_gate_spec_at(DRA_RELEASE_DEFAULT, id)->def;
}

bool dra_feature_locked(dra_feature id)
{
    return dra_gate_spec_at(DRA_RELEASE_DEFAULT, id)->locked;
}

dra_feature_stage dra_feature_stage_of(dra_feature id)
{
    return dra_gate_spec_at(DRA_RELEASE_DEFAULT, id)->stage;
}

bool dra_feature_lookup(const char *name, dra_feature *out)
{
    for (int i = 0; i < DRA_FEATURE_COUNT; i++) {
        if (strcmp(names[i], name) == 0) {
            *out = (dra_feature)i;
            return true;
        }
    }
    return false;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(names[*(const int *)a], names[*(const int *)b]);
}

void dra_features_table(dra_buf *out, dra_release r)
{
    static const char *const stages[] = {[DRA_STAGE_ALPHA] = "alpha", [DRA_STAGE_BETA] = "beta", [DRA_STAGE_GA] = "GA"};
    int order[DRA_FEATURE_COUNT];
    for (int i = 0; i < DRA_FEATURE_COUNT; i++)
        order[i] = i;
    qsort(order, DRA_FEATURE_COUNT, sizeof *order, cmp_name);
    for (int i = 0; i < DRA_FEATURE_COUNT; i++) {
        const dra_gate_spec *g = dra_gate_spec_at(r, (dra_feature)order[i]);
        if (!g->known)
            continue;
        dra_buf_printf(out, "%s %s %s %s %s ", dra_release_name(r), names[order[i]], g->def ? "true" : "false",
                       stages[g->stage], g->locked ? "true" : "false");
        int n = 0;
        for (int j = 0; j < DRA_FEATURE_COUNT; j++)
            if (g->deps & (1ull << order[j]))
                dra_buf_printf(out, "%s%s", n++ ? "," : "", names[order[j]]);
        dra_buf_printf(out, "%s\n", n ? "" : "-");
    }
}

dra_err *dra_features_set(dra_features *f, dra_feature id, bool on)
{
    if ((unsigned)id >= DRA_FEATURE_COUNT)
        return dra_err_new(DRA_EXIT_INPUT, "unrecognized feature gate: %d", (int)id);
    const dra_gate_spec *g = spec(f, id);
    if (!g->known)
        return dra_err_new(DRA_EXIT_INPUT, "unrecognized feature gate: %s", names[id]);
    if (g->locked && on != g->def)
        return dra_err_new(DRA_EXIT_INPUT, "cannot set feature gate %s to %s, feature is locked to %s", names[id],
                           on ? "true" : "false", g->def ? "true" : "false");
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
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == '\v' ||
                 s[n - 1] == '\f'))
        s[--n] = '\0';
    return s;
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
        unsigned long long deps = spec(f, (dra_feature)i)->deps;
        for (int d = 0; d < DRA_FEATURE_COUNT; d++)
            if ((deps & (1ull << d)) && !f->on[d])
                dra_buf_printf(&off, "%s%s", off.len ? " " : "", names[d]);
        if (off.len)
            dra_buf_printf(&all, "%s%s is enabled, but depends on features that are disabled: [%s]", n++ ? ", " : "",
                           names[i], dra_buf_str(&off));
        dra_buf_free(&off);
    }
    dra_err *e = n == 0 ? NULL : dra_err_new(DRA_EXIT_INPUT, n == 1 ? "%s" : "[%s]", dra_buf_str(&all));
    dra_buf_free(&all);
    return e;
}

/* One gate of the list: the last value given for its key, at the place
 * of the first (Set reads the list into a map). */
typedef struct gate_item {
    const char *key;
    bool on;
} gate_item;

/* Set's reading of the list "key=value,...": strings.Split, empty items
 * skipped, spaces around keys and values trimmed, values as
 * strconv.ParseBool.  Fills items (as many as the list has items at
 * most); the keys point into copy. */
static dra_err *read_gates(char *copy, gate_item *items, size_t *n)
{
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq)
            return dra_err_new(DRA_EXIT_INPUT, "missing bool value for %s", trim(item));
        *eq = '\0';
        char *k = trim(item);
        char *v = trim(eq + 1);
        bool on;
        if (!parse_bool(v, &on))
            return dra_err_new(DRA_EXIT_INPUT,
                               "invalid value of %s=%s, err: strconv.ParseBool: parsing \"%s\": invalid syntax", k, v,
                               v);
        size_t i = 0;
        while (i < *n && strcmp(items[i].key, k) != 0)
            i++;
        if (i == *n)
            items[(*n)++].key = k;
        items[i].on = on;
    }
    return NULL;
}

/* unsafeSetFromMap over the gates read: each locked gate set otherwise is
 * an error, the first unknown one ends the walk (its error last), the
 * errors as utilerrors.NewAggregate prints them ("[e1, e2]" for several).
 * AllAlpha/AllBeta set the gates of their stage not given in the list,
 * so a gate given wins wherever it stands (setUnsetAlphaGates).  Upstream
 * walks a Go map, in random order; this walk is the list's order. */
static dra_err *apply_gates(dra_features *f, const gate_item *items, size_t n)
{
    bool given[DRA_FEATURE_COUNT] = {false};
    dra_buf errs = DRA_BUF_INIT;
    int nerr = 0;
    for (size_t i = 0; i < n; i++) {
        const char *k = items[i].key;
        if (strcmp(k, "AllAlpha") == 0 || strcmp(k, "AllBeta") == 0)
            continue;
        dra_feature id;
        if (!dra_feature_lookup(k, &id) || !spec(f, id)->known) {
            dra_buf_printf(&errs, "%sunrecognized feature gate: %s", nerr++ ? ", " : "", k);
            break;
        }
        dra_err *e = dra_features_set(f, id, items[i].on);
        if (e) {
            dra_buf_printf(&errs, "%s%s", nerr++ ? ", " : "", e->msg);
            dra_err_free(e);
            continue;
        }
        given[id] = true;
    }
    for (size_t i = 0; i < n && nerr == 0; i++) {
        const char *k = items[i].key;
        if (strcmp(k, "AllAlpha") != 0 && strcmp(k, "AllBeta") != 0)
            continue;
        dra_feature_stage stage = k[3] == 'A' ? DRA_STAGE_ALPHA : DRA_STAGE_BETA;
        for (int g = 0; g < DRA_FEATURE_COUNT; g++) {
            const dra_gate_spec *gs = spec(f, (dra_feature)g);
            if (gs->known && gs->stage == stage && !gs->locked && !given[g])
                f->on[g] = items[i].on;
        }
    }
    dra_err *e = nerr == 0 ? NULL : dra_err_new(DRA_EXIT_INPUT, nerr == 1 ? "%s" : "[%s]", dra_buf_str(&errs));
    dra_buf_free(&errs);
    return e;
}

dra_err *dra_features_parse(dra_features *f, const char *spec_text)
{
    char *copy = dra_xstrdup(spec_text ? spec_text : "");
    size_t max = 1;
    for (const char *p = copy; *p; p++)
        max += *p == ',';
    gate_item *items = dra_xcalloc(max, sizeof *items);
    size_t n = 0;
    dra_features work = *f;
    dra_err *err = read_gates(copy, items, &n);
    if (!err)
        err = apply_gates(&work, items, n);
    if (!err)
        err = check_dependencies(&work);
    if (!err)
        *f = work;
    free(items);
    free(copy);
    return err;
}

/* The text from p on: YAML or JSON punctuation and blanks skipped. */
static const char *skip_punct(const char *p, const char *end)
{
    while (p < end && strchr(" \t\r\n\":{,", *p))
        p++;
    return p;
}

/* The kind whose resource name (its lower-case plural, "deviceclasses")
 * is res; DRA_KIND_UNKNOWN when none. */
static dra_kind kind_of_resource(const char *res)
{
    size_t n = strlen(res);
    for (int k = DRA_KIND_UNKNOWN + 1; k < DRA_KIND_COUNT; k++) {
        const char *name = dra_kind_name((dra_kind)k);
        size_t m = strlen(name), i = 0;
        while (i < m && i < n && tolower((unsigned char)name[i]) == res[i])
            i++;
        if (i == m && (strcmp(res + m, "s") == 0 || strcmp(res + m, "es") == 0))
            return (dra_kind)k;
    }
    return DRA_KIND_UNKNOWN;
}

uint32_t dra_snapshot_forbidden(const json_t *obj)
{
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *kd = json_string_value(json_object_get(obj, "kind"));
    if (!av || !kd || strcmp(av, DRA_SNAPSHOT_API_VERSION) != 0 || strcmp(kd, DRA_SNAPSHOT_KIND) != 0)
        return 0;
    uint32_t kinds = 0;
    size_t i;
    json_t *r;
    const json_t *forbidden = json_object_get(obj, DRA_SNAPSHOT_FORBIDDEN);
    json_array_foreach(forbidden, i, r) {
        dra_kind k = json_is_string(r) ? kind_of_resource(json_string_value(r)) : DRA_KIND_UNKNOWN;
        if (k != DRA_KIND_UNKNOWN)
            kinds |= 1u << k;
    }
    return kinds;
}

char *dra_snapshot_git_version(const char *text, size_t n)
{
    const char *end = text + n, *p = text;
    p = skip_punct(p, end);
    while (p < end && *p == '#') { /* YAML comments, "---" */
        while (p < end && *p != '\n')
            p++;
        p = skip_punct(p, end);
    }
    if (end - p > 3 && strncmp(p, "---", 3) == 0)
        p += 3;
    /* the first object: its first keys name the kind */
    size_t head = (size_t)(end - p) < 512 ? (size_t)(end - p) : 512;
    char *first = dra_xstrndup(p, head);
    bool is_snapshot = strstr(first, DRA_SNAPSHOT_API_VERSION) && strstr(first, DRA_SNAPSHOT_KIND);
    free(first);
    if (!is_snapshot)
        return NULL;
    static const char key[] = "gitVersion";
    for (const char *k = p; k + sizeof key - 1 < end; k++) {
        if (memcmp(k, key, sizeof key - 1) != 0)
            continue;
        const char *v = skip_punct(k + sizeof key - 1, end), *w = v;
        while (w < end &&
               (strchr("+-._", *w) || (*w >= '0' && *w <= '9') || (*w >= 'a' && *w <= 'z') || (*w >= 'A' && *w <= 'Z')))
            w++;
        return w > v ? dra_xstrndup(v, (size_t)(w - v)) : NULL;
    }
    return NULL;
}
