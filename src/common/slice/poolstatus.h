/* ResourcePoolStatusRequest answered offline (KEP-5677; upstream
 * pkg/controller/resourcepoolstatusrequest/controller.go, calculatePoolStatus).
 *
 * For a request (resource.k8s.io/v1alpha3, spec.driver, optional
 * spec.poolName and spec.limit), the status the controller in
 * kube-controller-manager would write, computed from the ResourceSlices,
 * ResourceClaims and DeviceTaintRules of a model:
 *  - per pool of that driver (and pool name), only slices of the pool's
 *    newest generation count;
 *  - totalDevices: devices in those slices; unavailableDevices: devices with a
 *    NoSchedule or NoExecute taint, embedded or from a DeviceTaintRule whose
 *    driver/pool/device selector matches (rules only with DRADeviceTaintRules);
 *  - allocatedDevices: distinct devices in allocation results of claims,
 *    admin-access results excluded; availableDevices = total - allocated -
 *    unavailable, at least 0;
 *  - nodeName when every slice of the pool names the same node;
 *  - a pool with fewer slices than resourceSliceCount gets validationError
 *    "PoolIncomplete: pool D/P is incomplete: observed N/M slices at
 *    generation G" and no counts (the controller retries such a request and
 *    finally drops it; offline the answer is given as is);
 *  - pools sorted by driver then pool name, poolCount before the limit
 *    (default 100), and one condition Complete/True, reason
 *    CalculationComplete, "Calculated status for N pools[ (K incomplete)]".
 *  - the views of 1.37 (pkg/controller/resourcepoolstatusrequest/views.go),
 *    for complete pools: partitionSummary (counter-consuming devices grouped
 *    by their slice's partitionTypeAttribute, or the request's
 *    defaultPartitionTypeAttribute where no slice of the pool declares one:
 *    total, and allocatable = how many more fit greedily in the counters left
 *    after the devices in use, each type alone) and shareableSummary (devices
 *    with allowMultipleAllocations, untouched or partly used, capacity total /
 *    consumed / available); a view that cannot be computed sets a prefixed
 *    validationError (PartitionTypeMissing:, PartitionCostMismatch:,
 *    ...OverCap:) and keeps the counts.  The counterSets view of some
 *    revisions is not computed.
 *  - under 1.36 (features' release; k8s.io/kubernetes@v1.36.3 controller.go,
 *    which reads no DeviceTaintRule and has no views.go): allocatedDevices
 *    counts every allocation result naming the pool, admin access and
 *    repeats included; unavailableDevices is always 0; validationError has
 *    no "PoolIncomplete: " prefix; no views; and the request written back
 *    has no spec.defaultPartitionTypeAttribute (v0.36.3's API has none).
 * Pools are found by name through a hash map and claims are read once, so
 * the cost is linear in slices, devices and allocation results.
 *
 * Ownership: the returned status is a new reference owned by the caller;
 * the model and the claims' records are borrowed.  Nothing here prints. */
#ifndef DRA_SLICE_POOLSTATUS_H
#define DRA_SLICE_POOLSTATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/error.h"
#include "../io/stream.h"
#include "../model/features.h"
#include "../model/compact.h"
#include "../model/load.h"

#define DRA_POOL_STATUS_LIMIT_DEFAULT 100

/* The status for `request` (a v1alpha3 ResourcePoolStatusRequest object);
 * now (Unix seconds) is the condition's lastTransitionTime. */
json_t *dra_pool_status(const dra_model *m, const json_t *request, const dra_features *features, int64_t now);
/* The same with the claims as records (borrowed; the model's claims are not
 * read) and, when kept is not NULL, the ResourceSlices kept by
 * dra_pool_slice_keep (the model's are not read): what a tool that keeps no
 * claim or slice objects answers from. */
json_t *dra_pool_status_of(const dra_model *m, const dra_compact *claims, const json_t *kept, const json_t *request,
                           const dra_features *features, int64_t now);

/* Append to the JSON array kept what the status reads of a (checked, v1)
 * ResourceSlice: driver, pool, node, counter sets and partition attribute,
 * and per device its name alone (a JSON string) unless it has taints,
 * consumes counters or allows multiple allocations (then an object of those
 * fields, its attributes and capacity).  The slice is borrowed; kept holds
 * copies. */
void dra_pool_slice_keep(json_t *kept, const json_t *slice);

/* A new ResourcePoolStatusRequest named after `driver` for that driver and,
 * when given, one pool and a limit (0: none). */
json_t *dra_pool_status_request_new(const char *driver, const char *pool, long long limit);

/* Every ResourcePoolStatusRequest of the model (only those read from the
 * file named `only_file`, when not NULL) to w, with the status above where
 * the request has none, from the claims' records when claims is not NULL,
 * else from the model's claims, and from the kept slices when claims and
 * kept are not NULL.  An input error when there is no request. */
DRA_MUST_USE dra_err *dra_pool_status_write(dra_writer *w, const dra_model *m, const dra_compact *claims,
                                            const json_t *kept, const char *only_file, const dra_features *features,
                                            int64_t now);

#endif
