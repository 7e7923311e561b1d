//go:build !k8s136

// The allocator features of 1.37 on that 1.36's table does not have.
package allocatortesting_test

import (
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured/internal"
)

// releaseGates adds the gates of the features 1.36 lacks to g.
func releaseGates(f internal.Features, g map[string]bool) {
	g["DRADeviceCompatibilityGroups"] = f.CompatibilityGroups
	g["DRADerivedAttributes"] = f.DerivedAttributes
	g["DRAFractionalCapacityRange"] = f.FractionalCapacityRange
	g["DRAOptionalNodeOperations"] = f.OptionalNodeOperations
}

func fractionalCapacityRange(f internal.Features) bool { return f.FractionalCapacityRange }

// emptySkipNodeOperations: see emptyAsUpstream.
func emptySkipNodeOperations(r *resourceapi.DeviceRequestAllocationResult, s *resourceapi.ResourceSlice) {
	emptyList(&r.SkipNodeOperations, s.Spec.SkipNodeOperations)
}
