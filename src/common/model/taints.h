/* Device taints: the one copy of toleration and taint-rule matching, shared
 * by the allocator and the eviction view.
 *
 * Plain strings in, no allocation; NULL reads as "" (an absent field).
 * Upstream: k8s.io/dynamic-resource-allocation/resourceclaim
 * (ToleratesTaint) and the DeviceTaintRule deviceSelector rules of
 * pkg/controller/devicetainteviction.
 */
#ifndef DRA_MODEL_TAINTS_H
#define DRA_MODEL_TAINTS_H

#include <stdbool.h>

typedef struct dra_toleration_ref {
    const char *key, *op, *value, *effect;
} dra_toleration_ref;

typedef struct dra_taint_ref {
    const char *key, *value, *effect;
} dra_taint_ref;

/* ToleratesTaint: an empty effect or key matches any; operator "" or
 * "Equal" compares values, "Exists" matches any value, others never. */
bool dra_tolerates(const dra_toleration_ref *tol, const dra_taint_ref *taint);

/* A DeviceTaintRule's deviceSelector matches a device when each of driver,
 * pool and device that the selector sets (non-NULL) equals the device's. */
bool dra_taint_selector_matches(const char *sel_driver, const char *sel_pool, const char *sel_device,
                                const char *driver, const char *pool, const char *device);

#endif
