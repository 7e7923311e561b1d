//go:build !k8s138

package peer

import (
	"context"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// newAllocator is structured.NewAllocator, which before 1.38 takes the v1
// ResourceSlices as they are.
func newAllocator(ctx context.Context, features structured.Features, state structured.AllocatedState,
	classes structured.DeviceClassLister, slices []*resourceapi.ResourceSlice, celCache *cel.Cache) (structured.Allocator, error) {
	return structured.NewAllocator(ctx, features, state, classes, slices, celCache)
}

// newState is an empty allocated state.
func newState() structured.AllocatedState {
	return structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](), AggregatedCapacity: structured.NewConsumedCapacityCollection()}
}

// addShared records a shared allocation of device id: before 1.38 the
// state holds each share.
func addShared(s *structured.AllocatedState, id structured.DeviceID, share *types.UID) {
	s.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, share))
}
