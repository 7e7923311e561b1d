//go:build k8s138

// What differs in the harness for the table of 1.38
// (k8s.io/dynamic-resource-allocation v0.38.0-beta.0): the table hands the
// allocator its own ResourceSlice (structured/internal/allocatortesting
// TestAllocator takes []*draapi.ResourceSlice), which the harness turns
// back into v1 for dra-alloc (k8s.io/dynamic-resource-allocation/api
// conversion.go).
package allocatortesting_test

import (
	"fmt"
	"sort"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	draapi "k8s.io/dynamic-resource-allocation/api"
	"k8s.io/dynamic-resource-allocation/structured/internal"
)

const release = "1.38"

type tableSlice = *draapi.ResourceSlice

func v1Slice(s tableSlice) (*resourceapi.ResourceSlice, error) {
	var out resourceapi.ResourceSlice
	if err := draapi.Convert_api_ResourceSlice_To_v1_ResourceSlice(s, &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// Gates locked on in 1.38: a cluster cannot turn them off, so they are
// not named (kube_features.go LockToDefault).
var locked = map[string]bool{
	"DRAAdminAccess":               true,
	"DRADeviceBindingConditions":   true,
	"DRADeviceTaintRules":          true,
	"DRADeviceTaints":              true,
	"DRAPartitionableDevices":      true,
	"DRAPrioritizedList":           true,
	"DRAResourceClaimDeviceStatus": true,
}

// Cases a 1.38 cluster cannot reach, by name, with the reason: they turn
// off a gate that release locks on.  Every other case runs.
var unreachable = map[string]string{
	"admin-access-disabled":                                               "DRAAdminAccess is locked on (GA in 1.36)",
	"prioritized-list-disabled":                                           "DRAPrioritizedList is locked on (GA, locked in 1.37)",
	"binding-conditions-without-feature-gate":                             "DRADeviceBindingConditions is locked on in 1.38",
	"partitionable-devices-disabled-other-device-do-not-consume-counters": "DRAPartitionableDevices is locked on in 1.38",
	"partitionable-devices-disabled-per-device-node-selection":            "DRAPartitionableDevices is locked on in 1.38",
	"tainted-admin-access-disabled":                                       "DRADeviceTaints is locked on in 1.38",
	"tainted-all-devices-single-disabled":                                 "DRADeviceTaints is locked on in 1.38",
	"tainted-disabled":                                                    "DRADeviceTaints is locked on in 1.38",
	"tainted-prioritized-list-disabled":                                   "DRADeviceTaints is locked on in 1.38",
}

// capacityName: 1.38's allocated state names a capacity with its domain
// (structured/schedulerapi ConsumedCapacity).
func capacityName(n draapi.FullyQualifiedName) resourceapi.QualifiedName {
	return resourceapi.QualifiedName(n.String())
}

// sharedDevices: 1.38's allocated state holds the devices with a share,
// not the shares; each gets a share of its own.
func sharedDevices(st internal.AllocatedState) []sharedDevice {
	shared := st.AllocatedSharedDeviceIDs.UnsortedList()
	sort.Slice(shared, func(i, j int) bool { return shared[i].String() < shared[j].String() })
	out := make([]sharedDevice, len(shared))
	for i, id := range shared {
		out[i] = sharedDevice{id, types.UID(fmt.Sprintf("dra-tools-shared-%d", i))}
	}
	return out
}
