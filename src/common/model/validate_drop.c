/* Fields of disabled features, dropped before validation as the API server
 * drops them from a new object (see validate_common.h and validate.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"
#include "validate_common.h"

/* One pass over an object: with apply unset it only finds whether there is
 * something to drop (the object is not changed), with apply set it drops
 * and, with warn set, says what it dropped: one warning a field (one an
 * attribute for list values), at its path, naming the gate that is off. */
typedef struct dropper {
    const dra_features *f;
    bool apply;
    bool found;
    bool warn;
    bool stored_gates; /* only the fields of the gates dra_drop_disabled_fields drops */
    dra_err *warnings;
    /* the members of the object drop() last looked in (a device is asked
     * for a dozen fields, most of them absent); emptied whenever anything
     * is deleted, so that it never outlives what it points into */
    vmemo memo;
} dropper;

/* The gates whose fields the tools drop from the objects they use (see
 * validate.h); the fields of the others are dropped for validation only. */
static bool dropped_for_use(dra_feature gate)
{
    return gate == DRA_FEATURE_LIST_TYPE_ATTRIBUTES || gate == DRA_FEATURE_DERIVED_ATTRIBUTES;
}

static bool on(const dropper *d, dra_feature id)
{
    return dra_feature_enabled(d->f, id);
}

static void say(dropper *d, dra_feature gate, const char *what, const char *fmt, ...) DRA_PRINTF(4, 5);
static void say(dropper *d, dra_feature gate, const char *what, const char *fmt, ...)
{
    if (!d->apply || !d->warn)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *path = dra_xvasprintf(fmt, ap);
    va_end(ap);
    dra_err *w =
        dra_err_new(DRA_EXIT_INPUT, "%s dropped: the %s feature gate is disabled (the API server drops it too)", what,
                    dra_feature_name(gate));
    d->warnings = dra_err_append(d->warnings, dra_err_field(w, path));
    free(path);
}

/* This pass drops the fields of gate (when it is off): stored_gates
 * passes leave those of most gates alone, and need not look for them. */
static bool acts_on(const dropper *d, dra_feature gate)
{
    return !d->stored_gates || dropped_for_use(gate);
}

/* gate is off and this pass drops its fields. */
static bool dropping(const dropper *d, dra_feature gate)
{
    return !on(d, gate) && acts_on(d, gate);
}

/* obj's member key (json_object_get), through the memo. */
static json_t *member(dropper *d, json_t *obj, const char *key)
{
    if (d->memo.obj != obj)
        dra_vmemo_fill(&d->memo, obj);
    return d->memo.obj == obj ? (json_t *)dra_vmemo_get(&d->memo, key) : json_object_get(obj, key);
}

/* A member set to a value; null and absent are nil for upstream alike.
 * at is obj's path, for the warning. */
static void drop(dropper *d, json_t *obj, const char *key, dra_feature gate, const char *at)
{
    if (!acts_on(d, gate))
        return;
    const json_t *v = member(d, obj, key);
    if (!v || json_is_null(v))
        return;
    d->found = true;
    if (d->apply) {
        say(d, gate, "field", "%s%s%s", at, *at ? "." : "", key);
        d->memo.obj = NULL;
        json_object_del(obj, key);
    }
}

/* An attribute holds a list value (bools, ints, strings or versions, not
 * null): one pass over its members (a value, most often), not a lookup a
 * list. */
static bool has_list_value(json_t *a)
{
    static const struct {
        const char *s;
        size_t n;
    } lists[] = {{"bools", 5}, {"ints", 4}, {"strings", 7}, {"versions", 8}};
    for (void *it = json_object_iter(a); it; it = json_object_iter_next(a, it)) {
        if (json_is_null(json_object_iter_value(it)))
            continue;
        const char *k = json_object_iter_key(it);
        size_t n = json_object_iter_key_len(it);
        for (size_t l = 0; l < sizeof lists / sizeof *lists; l++)
            if (n == lists[l].n && memcmp(k, lists[l].s, n) == 0)
                return true;
    }
    return false;
}

#define EACH(arr, i, x) for (size_t i = 0; i < json_array_size(arr) && ((x) = json_array_get((arr), i)); i++)

/* pkg/registry/resource/resourceslice/strategy.go dropDisabledFields */
static void drop_slice(dropper *d, json_t *spec)
{
    json_t *devices = json_object_get(spec, "devices"), *dev;
    bool partitionable = on(d, DRA_FEATURE_PARTITIONABLE_DEVICES);
    if (!partitionable) {
        drop(d, spec, "sharedCounters", DRA_FEATURE_PARTITIONABLE_DEVICES, "spec");
        drop(d, spec, "perDeviceNodeSelection", DRA_FEATURE_PARTITIONABLE_DEVICES, "spec");
    }
    if (dropping(d, DRA_FEATURE_PARTITIONABLE_DEVICES_TYPE))
        drop(d, spec, "partitionTypeAttribute", DRA_FEATURE_PARTITIONABLE_DEVICES_TYPE, "spec");
    if (dropping(d, DRA_FEATURE_OPTIONAL_NODE_OPERATIONS))
        drop(d, spec, "skipNodeOperations", DRA_FEATURE_OPTIONAL_NODE_OPERATIONS, "spec");
    /* both gates must be on; the warning names the first that is off */
    dra_feature binding = on(d, DRA_FEATURE_DEVICE_BINDING_CONDITIONS) ? DRA_FEATURE_RESOURCE_CLAIM_DEVICE_STATUS
                                                                       : DRA_FEATURE_DEVICE_BINDING_CONDITIONS;
    bool binding_on = on(d, DRA_FEATURE_DEVICE_BINDING_CONDITIONS) && on(d, DRA_FEATURE_RESOURCE_CLAIM_DEVICE_STATUS);
    dra_buf path = DRA_BUF_INIT; /* spec.devices[i], no printf a device */
    dra_buf_puts(&path, "spec.devices");
    EACH(devices, i, dev)
    {
        if (!json_is_object(dev))
            continue;
        if (d->apply) { /* the path is only said */
            dra_path_pop(&path, strlen("spec.devices"));
            dra_path_index(&path, i);
        }
        const char *at = path.data;
        if (dropping(d, DRA_FEATURE_DEVICE_TAINTS))
            drop(d, dev, "taints", DRA_FEATURE_DEVICE_TAINTS, at);
        if (!partitionable && acts_on(d, DRA_FEATURE_PARTITIONABLE_DEVICES)) {
            static const char *const keys[] = {"consumesCounters", "nodeName", "nodeSelector", "allNodes"};
            for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
                drop(d, dev, keys[k], DRA_FEATURE_PARTITIONABLE_DEVICES, at);
        }
        if (!binding_on && acts_on(d, binding)) {
            drop(d, dev, "bindingConditions", binding, at);
            drop(d, dev, "bindingFailureConditions", binding, at);
            drop(d, dev, "bindsToNode", binding, at);
        }
        if (dropping(d, DRA_FEATURE_CONSUMABLE_CAPACITY)) {
            drop(d, dev, "allowMultipleAllocations", DRA_FEATURE_CONSUMABLE_CAPACITY, at);
            const char *k;
            json_t *c, *caps = json_object_get(dev, "capacity"); /* the macro names it at each step */
            json_object_foreach(caps, k, c) {
                if (!json_is_object(c))
                    continue;
                char *cat = dra_xasprintf("%s.capacity[%s]", at, k);
                drop(d, c, "requestPolicy", DRA_FEATURE_CONSUMABLE_CAPACITY, cat);
                free(cat);
            }
        }
        if (dropping(d, DRA_FEATURE_DEVICE_COMPATIBILITY_GROUPS)) {
            json_t *cc;
            json_t *counters = member(d, dev, "consumesCounters");
            EACH(counters, j, cc)
            {
                if (!json_is_object(cc))
                    continue;
                char cat[96];
                snprintf(cat, sizeof cat, "%s.consumesCounters[%zu]", at, j);
                drop(d, cc, "compatibilityGroups", DRA_FEATURE_DEVICE_COMPATIBILITY_GROUPS, cat);
            }
        }
        if (dropping(d, DRA_FEATURE_NODE_ALLOCATABLE_RESOURCES))
            drop(d, dev, "nodeAllocatableResources", DRA_FEATURE_NODE_ALLOCATABLE_RESOURCES, at);
        if (dropping(d, DRA_FEATURE_LIST_TYPE_ATTRIBUTES)) {
            /* dropDisableDRAListTypeAttributesFields: each list value (an
             * empty list too: only nil is kept), whatever else the
             * attribute holds; one warning an attribute */
            static const char *const lists[] = {"bools", "ints", "strings", "versions"};
            json_t *attrs = member(d, dev, "attributes");
            /* the attributes themselves are not deleted, only their members */
            for (void *it = json_object_iter(attrs); it; it = json_object_iter_next(attrs, it)) {
                json_t *a = json_object_iter_value(it);
                if (!json_is_object(a) || !has_list_value(a))
                    continue;
                const char *k = json_object_iter_key(it);
                char names[40] = "";
                for (size_t l = 0; l < sizeof lists / sizeof *lists; l++) {
                    json_t *v = json_object_get(a, lists[l]);
                    if (!v || json_is_null(v))
                        continue;
                    d->found = true;
                    if (!d->apply)
                        continue;
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", *names ? ", " : "", lists[l]);
                    d->memo.obj = NULL;
                    json_object_del(a, lists[l]);
                }
                if (*names) {
                    char *what = dra_xasprintf("list value %s", names);
                    say(d, DRA_FEATURE_LIST_TYPE_ATTRIBUTES, what, "%s.attributes[%s]", at, k);
                    free(what);
                }
            }
        }
    }
    dra_buf_free(&path);
}

static void drop_request_fields(dropper *d, json_t *r, const char *at)
{
    if (!json_is_object(r))
        return;
    if (!on(d, DRA_FEATURE_DEVICE_TAINTS))
        drop(d, r, "tolerations", DRA_FEATURE_DEVICE_TAINTS, at);
    if (!on(d, DRA_FEATURE_CONSUMABLE_CAPACITY))
        drop(d, r, "capacity", DRA_FEATURE_CONSUMABLE_CAPACITY, at);
    if (!on(d, DRA_FEATURE_DERIVED_ATTRIBUTES))
        drop(d, r, "derivedAttributes", DRA_FEATURE_DERIVED_ATTRIBUTES, at);
}

/* pkg/api/resourceclaimspec/util.go DropDisabledFields (prioritized lists
 * and admin access are locked on in 1.37); at is the spec's path */
static void drop_claim_spec(dropper *d, json_t *spec, const char *at)
{
    json_t *devices = json_object_get(spec, "devices"), *r, *c;
    EACH(json_object_get(devices, "requests"), i, r)
    {
        char *rat = dra_xasprintf("%s.devices.requests[%zu]", at, i);
        char *x = dra_xasprintf("%s.exactly", rat);
        drop_request_fields(d, json_object_get(r, "exactly"), x);
        free(x);
        json_t *sub;
        EACH(json_object_get(r, "firstAvailable"), j, sub)
        {
            x = dra_xasprintf("%s.firstAvailable[%zu]", rat, j);
            drop_request_fields(d, sub, x);
            free(x);
        }
        free(rat);
    }
    if (!on(d, DRA_FEATURE_CONSUMABLE_CAPACITY)) {
        EACH(json_object_get(devices, "constraints"), i, c)
        {
            if (!json_is_object(c))
                continue;
            char *cat = dra_xasprintf("%s.devices.constraints[%zu]", at, i);
            drop(d, c, "distinctAttribute", DRA_FEATURE_CONSUMABLE_CAPACITY, cat);
            free(cat);
        }
    }
}

/* pkg/registry/resource/resourceclaim/strategy.go dropDisabledStatusFields:
 * a status is checked as written by the status subresource, which drops
 * these (admin access and device status are locked on in 1.37) */
static void drop_claim_status(dropper *d, json_t *status)
{
    json_t *r, *dev;
    bool consumable = on(d, DRA_FEATURE_CONSUMABLE_CAPACITY);
    EACH(json_object_get(json_object_get(json_object_get(status, "allocation"), "devices"), "results"), i, r)
    {
        if (!json_is_object(r))
            continue;
        char at[64];
        snprintf(at, sizeof at, "status.allocation.devices.results[%zu]", i);
        if (!consumable) {
            drop(d, r, "shareID", DRA_FEATURE_CONSUMABLE_CAPACITY, at);
            drop(d, r, "consumedCapacity", DRA_FEATURE_CONSUMABLE_CAPACITY, at);
        }
        if (!on(d, DRA_FEATURE_DEVICE_BINDING_CONDITIONS)) {
            drop(d, r, "bindingConditions", DRA_FEATURE_DEVICE_BINDING_CONDITIONS, at);
            drop(d, r, "bindingFailureConditions", DRA_FEATURE_DEVICE_BINDING_CONDITIONS, at);
        }
        if (!on(d, DRA_FEATURE_OPTIONAL_NODE_OPERATIONS))
            drop(d, r, "skipNodeOperations", DRA_FEATURE_OPTIONAL_NODE_OPERATIONS, at);
    }
    if (!consumable) {
        EACH(json_object_get(status, "devices"), i, dev)
        {
            if (!json_is_object(dev))
                continue;
            char at[40];
            snprintf(at, sizeof at, "status.devices[%zu]", i);
            drop(d, dev, "shareID", DRA_FEATURE_CONSUMABLE_CAPACITY, at);
        }
    }
}

/* The PodGroup fields 1.36 has behind WorkloadAwarePreemption
 * (k8s.io/kubernetes@v1.36.3 pkg/registry/scheduling/podgroup/strategy.go
 * dropDisabledPodGroupSpecFields: PrepareForCreate drops them before
 * validation, so a new pod group never fails for them; the declarative
 * +featureGate tags forbid them only on an update that changes them).
 * 1.37 has no such gate: the fields are always served. */
static const char *const preemption_fields[] = {"disruptionMode", "priorityClassName", "priority"};

/* The release has the gate and it is off. */
static bool preemption_gated(const dra_features *f)
{
    return dra_gate_spec_at(dra_features_release_of(f), DRA_FEATURE_WORKLOAD_AWARE_PREEMPTION)->known &&
           !dra_feature_enabled(f, DRA_FEATURE_WORKLOAD_AWARE_PREEMPTION);
}

static void drop_object(dropper *d, json_t *obj, dra_kind kind)
{
    json_t *spec = json_object_get(obj, "spec");
    if (!json_is_object(spec))
        spec = NULL;
    switch (kind) {
    case DRA_KIND_RESOURCE_SLICE:
        if (spec)
            drop_slice(d, spec);
        break;
    case DRA_KIND_RESOURCE_CLAIM:
        if (spec)
            drop_claim_spec(d, spec, "spec");
        if (json_is_object(json_object_get(obj, "status")))
            drop_claim_status(d, json_object_get(obj, "status"));
        break;
    case DRA_KIND_RESOURCE_CLAIM_TEMPLATE:
        if (spec && json_is_object(json_object_get(spec, "spec")))
            drop_claim_spec(d, json_object_get(spec, "spec"), "spec.spec");
        break;
    case DRA_KIND_RESOURCE_POOL_STATUS_REQUEST:
        /* resourcepoolstatusrequest/strategy.go */
        if (spec && !on(d, DRA_FEATURE_PARTITIONABLE_DEVICES_TYPE))
            drop(d, spec, "defaultPartitionTypeAttribute", DRA_FEATURE_PARTITIONABLE_DEVICES_TYPE, "spec");
        break;
    case DRA_KIND_POD:
        /* pkg/api/pod/util.go dropDisabledSchedulingGroup */
        if (spec && !on(d, DRA_FEATURE_GENERIC_WORKLOAD))
            drop(d, spec, "schedulingGroup", DRA_FEATURE_GENERIC_WORKLOAD, "spec");
        break;
    case DRA_KIND_POD_GROUP:
        /* pkg/registry/scheduling/podgroup/strategy.go */
        if (spec && preemption_gated(d->f)) {
            for (size_t k = 0; k < sizeof preemption_fields / sizeof *preemption_fields; k++)
                drop(d, spec, preemption_fields[k], DRA_FEATURE_WORKLOAD_AWARE_PREEMPTION, "spec");
        }
        if (!on(d, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS)) {
            if (spec)
                drop(d, spec, "resourceClaims", DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS, "spec");
            if (json_is_object(json_object_get(obj, "status")))
                drop(d, json_object_get(obj, "status"), "resourceClaimStatuses", DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS,
                     "status");
        }
        break;
    default: break;
    }
}

json_t *dra_v_drop_disabled(const json_t *obj, dra_kind kind, const dra_features *features, bool *none)
{
    /* this pass looks for the fields of every gate, those of
     * dra_drop_disabled_fields (stored_gates) among them */
    dropper d = {features, false, false, false, false, NULL, {0}};
    drop_object(&d, (json_t *)obj, kind); /* only looks */
    *none = !d.found;
    if (!d.found)
        return NULL;
    json_t *copy = json_deep_copy(obj);
    if (!copy)
        return NULL;
    d.apply = true;
    d.memo.obj = NULL;
    drop_object(&d, copy, kind);
    return copy;
}

dra_err *dra_drop_disabled_fields(json_t *obj, dra_kind kind, const dra_features *features)
{
    dropper d = {features, true, false, true, true, NULL, {0}};
    drop_object(&d, obj, kind);
    return d.warnings;
}

dra_err *dra_drop_on_create_notes(const json_t *obj, dra_kind kind, const dra_features *features)
{
    /* pkg/registry/scheduling/rest/storage_scheduling.go: no podgroups
     * storage without the gate, so kubectl finds no such kind; a release
     * that does not serve the version has none at all, which validation
     * reports as an error (strict.c: 1.36 serves v1alpha2 alone) */
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    bool v1alpha2 = av && strcmp(av, "scheduling.k8s.io/v1alpha2") == 0;
    if (kind == DRA_KIND_POD_GROUP && !dra_feature_enabled(features, DRA_FEATURE_GENERIC_WORKLOAD) &&
        (dra_features_release_of(features) >= DRA_RELEASE_1_37) != v1alpha2)
        return dra_err_field(dra_err_new(DRA_EXIT_OK,
                                         "no matches for kind \"PodGroup\" in version \"%s\": the API server serves "
                                         "PodGroups only with the %s feature gate on, and it is off",
                                         json_string_value(json_object_get(obj, "apiVersion")),
                                         dra_feature_name(DRA_FEATURE_GENERIC_WORKLOAD)),
                             "kind");
    dra_err *notes = NULL;
    const json_t *pg_spec = json_object_get(obj, "spec");
    for (size_t k = 0; kind == DRA_KIND_POD_GROUP && json_is_object(pg_spec) && preemption_gated(features) &&
                       k < sizeof preemption_fields / sizeof *preemption_fields;
         k++) {
        const json_t *x = json_object_get(pg_spec, preemption_fields[k]);
        if (!x || json_is_null(x))
            continue;
        char *path = dra_xasprintf("spec.%s", preemption_fields[k]);
        notes = dra_err_append(
            notes, dra_err_field(dra_err_new(DRA_EXIT_OK,
                                             "field dropped: the %s feature gate is disabled (the API server drops "
                                             "it from a new pod group, not from a stored one)",
                                             dra_feature_name(DRA_FEATURE_WORKLOAD_AWARE_PREEMPTION)),
                                 path));
        free(path);
    }
    if (notes)
        return notes;
    json_t *sg = json_object_get(json_object_get(obj, "spec"), "schedulingGroup");
    if (kind != DRA_KIND_POD || !sg || json_is_null(sg) || dra_feature_enabled(features, DRA_FEATURE_GENERIC_WORKLOAD))
        return NULL;
    const char *g = json_string_value(json_object_get(sg, "podGroupName"));
    return dra_err_field(dra_err_new(DRA_EXIT_OK,
                                     "field dropped: the %s feature gate is disabled (the API server drops it from "
                                     "a new pod, not from a stored one): the pod is not a member of PodGroup %s",
                                     dra_feature_name(DRA_FEATURE_GENERIC_WORKLOAD), g && *g ? g : "(none named)"),
                         "spec.schedulingGroup");
}
