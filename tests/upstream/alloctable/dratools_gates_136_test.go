//go:build k8s136

// 1.36's table (k8s.io/dynamic-resource-allocation v0.36.3): its allocator
// has no compatibility groups, derived attributes, fractional capacity
// range or optional node operations (structured/internal/types.go
// Features), and dra-alloc --kubernetes-version 1.36 no such gates.
package allocatortesting_test

import (
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured/internal"
)

// releaseGates: DRAResourceClaimDeviceStatus is not locked in 1.36, and
// DRAResourceClaimGranularStatusAuthorization (beta, on) depends on it.
func releaseGates(f internal.Features, g map[string]bool) {
	g["DRAResourceClaimGranularStatusAuthorization"] = f.DeviceBindingAndStatus
}

func fractionalCapacityRange(internal.Features) bool { return false }

func emptySkipNodeOperations(*resourceapi.DeviceRequestAllocationResult, *resourceapi.ResourceSlice) {
}
