/* Fields of disabled features, dropped before validation as the API server
 * drops them from a new object (see validate_common.h). */
#include "validate_common.h"

/* One pass over an object: with apply unset it only finds whether there is
 * something to drop (the object is not changed), with apply set it drops. */
typedef struct dropper {
    const dra_features *f;
    bool apply;
    bool found;
} dropper;

static bool on(const dropper *d, dra_feature id)
{
    return dra_feature_enabled(d->f, id);
}

/* A member set to a value; null and absent are nil for upstream alike. */
static void drop(dropper *d, json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return;
    d->found = true;
    if (d->apply)
        json_object_del(obj, key);
}

#define EACH(arr, i, x) for (size_t i = 0; i < json_array_size(arr) && ((x) = json_array_get((arr), i)); i++)

/* pkg/registry/resource/resourceslice/strategy.go dropDisabledFields */
static void drop_slice(dropper *d, json_t *spec)
{
    json_t *devices = json_object_get(spec, "devices"), *dev;
    bool partitionable = on(d, DRA_FEATURE_PARTITIONABLE_DEVICES);
    if (!partitionable) {
        drop(d, spec, "sharedCounters");
        drop(d, spec, "perDeviceNodeSelection");
    }
    if (!on(d, DRA_FEATURE_PARTITIONABLE_DEVICES_TYPE))
        drop(d, spec, "partitionTypeAttribute");
    if (!on(d, DRA_FEATURE_OPTIONAL_NODE_OPERATIONS))
        drop(d, spec, "skipNodeOperations");
    bool binding = on(d, DRA_FEATURE_DEVICE_BINDING_CONDITIONS) && on(d, DRA_FEATURE_RESOURCE_CLAIM_DEVICE_STATUS);
    EACH(devices, i, dev) {
        if (!json_is_object(dev))
            continue;
        if (!on(d, DRA_FEATURE_DEVICE_TAINTS))
            drop(d, dev, "taints");
        if (!partitionable) {
            static const char *const keys[] = {"consumesCounters", "nodeName", "nodeSelector", "allNodes"};
            for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
                drop(d, dev, keys[k]);
        }
        if (!binding) {
            drop(d, dev, "bindingConditions");
            drop(d, dev, "bindingFailureConditions");
            drop(d, dev, "bindsToNode");
        }
        if (!on(d, DRA_FEATURE_CONSUMABLE_CAPACITY)) {
            drop(d, dev, "allowMultipleAllocations");
            const char *k;
            json_t *c;
            json_object_foreach(json_object_get(dev, "capacity"), k, c) {
                if (json_is_object(c))
                    drop(d, c, "requestPolicy");
            }
        }
        if (!on(d, DRA_FEATURE_DEVICE_COMPATIBILITY_GROUPS)) {
            json_t *cc;
            EACH(json_object_get(dev, "consumesCounters"), j, cc) {
                if (json_is_object(cc))
                    drop(d, cc, "compatibilityGroups");
            }
        }
        if (!on(d, DRA_FEATURE_NODE_ALLOCATABLE_RESOURCES))
            drop(d, dev, "nodeAllocatableResources");
        if (!on(d, DRA_FEATURE_LIST_TYPE_ATTRIBUTES)) {
            const char *k;
            json_t *a;
            json_object_foreach(json_object_get(dev, "attributes"), k, a) {
                if (!json_is_object(a))
                    continue;
                drop(d, a, "bools");
                drop(d, a, "ints");
                drop(d, a, "strings");
                drop(d, a, "versions");
            }
        }
    }
}

static void drop_request_fields(dropper *d, json_t *r)
{
    if (!json_is_object(r))
        return;
    if (!on(d, DRA_FEATURE_DEVICE_TAINTS))
        drop(d, r, "tolerations");
    if (!on(d, DRA_FEATURE_CONSUMABLE_CAPACITY))
        drop(d, r, "capacity");
    if (!on(d, DRA_FEATURE_DERIVED_ATTRIBUTES))
        drop(d, r, "derivedAttributes");
}

/* pkg/api/resourceclaimspec/util.go DropDisabledFields (prioritized lists
 * and admin access are locked on in 1.37) */
static void drop_claim_spec(dropper *d, json_t *spec)
{
    json_t *devices = json_object_get(spec, "devices"), *r, *c;
    EACH(json_object_get(devices, "requests"), i, r) {
        drop_request_fields(d, json_object_get(r, "exactly"));
        json_t *sub;
        EACH(json_object_get(r, "firstAvailable"), j, sub)
            drop_request_fields(d, sub);
    }
    if (!on(d, DRA_FEATURE_CONSUMABLE_CAPACITY)) {
        EACH(json_object_get(devices, "constraints"), i, c) {
            if (json_is_object(c))
                drop(d, c, "distinctAttribute");
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
    EACH(json_object_get(json_object_get(json_object_get(status, "allocation"), "devices"), "results"), i, r) {
        if (!json_is_object(r))
            continue;
        if (!consumable) {
            drop(d, r, "shareID");
            drop(d, r, "consumedCapacity");
        }
        if (!on(d, DRA_FEATURE_DEVICE_BINDING_CONDITIONS)) {
            drop(d, r, "bindingConditions");
            drop(d, r, "bindingFailureConditions");
        }
        if (!on(d, DRA_FEATURE_OPTIONAL_NODE_OPERATIONS))
            drop(d, r, "skipNodeOperations");
    }
    if (!consumable) {
        EACH(json_object_get(status, "devices"), i, dev) {
            if (json_is_object(dev))
                drop(d, dev, "shareID");
        }
    }
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
            drop_claim_spec(d, spec);
        if (json_is_object(json_object_get(obj, "status")))
            drop_claim_status(d, json_object_get(obj, "status"));
        break;
    case DRA_KIND_RESOURCE_CLAIM_TEMPLATE:
        if (spec && json_is_object(json_object_get(spec, "spec")))
            drop_claim_spec(d, json_object_get(spec, "spec"));
        break;
    case DRA_KIND_RESOURCE_POOL_STATUS_REQUEST:
        /* resourcepoolstatusrequest/strategy.go */
        if (spec && !on(d, DRA_FEATURE_PARTITIONABLE_DEVICES_TYPE))
            drop(d, spec, "defaultPartitionTypeAttribute");
        break;
    case DRA_KIND_POD_GROUP:
        /* pkg/registry/scheduling/podgroup/strategy.go */
        if (!on(d, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS)) {
            if (spec)
                drop(d, spec, "resourceClaims");
            if (json_is_object(json_object_get(obj, "status")))
                drop(d, json_object_get(obj, "status"), "resourceClaimStatuses");
        }
        break;
    default:
        break;
    }
}

json_t *dra_v_drop_disabled(const json_t *obj, dra_kind kind, const dra_features *features)
{
    dropper d = {features, false, false};
    drop_object(&d, (json_t *)obj, kind); /* only looks */
    if (!d.found)
        return NULL;
    json_t *copy = json_deep_copy(obj);
    if (!copy)
        return NULL;
    d.apply = true;
    drop_object(&d, copy, kind);
    return copy;
}
