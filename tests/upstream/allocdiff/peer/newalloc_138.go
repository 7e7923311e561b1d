//go:build k8s138

package peer

import (
	"context"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	draapi "k8s.io/dynamic-resource-allocation/api"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// newAllocator is structured.NewAllocator of 1.38, which takes the
// allocator's own ResourceSlice (k8s.io/dynamic-resource-allocation/api):
// each v1 slice is converted as the scheduler's informer does
// (api/conversion.go Convert_v1_ResourceSlice_To_api_ResourceSlice).
func newAllocator(ctx context.Context, features structured.Features, state structured.AllocatedState,
	classes structured.DeviceClassLister, slices []*resourceapi.ResourceSlice, celCache *cel.Cache) (structured.Allocator, error) {
	converted := make([]*draapi.ResourceSlice, len(slices))
	for i, s := range slices {
		converted[i] = new(draapi.ResourceSlice)
		if err := draapi.Convert_v1_ResourceSlice_To_api_ResourceSlice(s, converted[i], nil); err != nil {
			return nil, err
		}
	}
	return structured.NewAllocator(ctx, features, state, classes, converted, celCache)
}

// newState is an empty allocated state.
func newState() structured.AllocatedState {
	return structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.DeviceID](), AggregatedCapacity: structured.NewConsumedCapacityCollection()}
}

// addShared records a shared allocation of device id: from 1.38 the state
// holds the devices with a share, as the scheduler's getSharedDeviceIDs
// gives them (pkg/scheduler/framework/plugins/dynamicresources/
// allocateddevices.go).
func addShared(s *structured.AllocatedState, id structured.DeviceID, _ *types.UID) {
	s.AllocatedSharedDeviceIDs.Insert(id)
}
