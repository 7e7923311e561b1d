//go:build !k8s138

// What differs in the harness for the tables of 1.36 and 1.37
// (k8s.io/dynamic-resource-allocation v0.36.3, v0.37.2): the table hands the
// allocator v1 ResourceSlices.
package allocatortesting_test

import (
	"os"
	"sort"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/structured/internal"
)

// the release dra-alloc is run as (the same variable reaches it)
var release = map[bool]string{true: "1.36", false: "1.37"}[os.Getenv("DRA_KUBERNETES_VERSION") == "1.36"]

type tableSlice = *resourceapi.ResourceSlice

func v1Slice(s tableSlice) (*resourceapi.ResourceSlice, error) { return s, nil }

// Gates locked on in the release dra-alloc answers for: a cluster cannot
// turn them off, so they are not named (kube_features.go LockToDefault).
var locked = map[string]bool{
	"DRAAdminAccess":               true,
	"DRAPrioritizedList":           release != "1.36",
	"DRAResourceClaimDeviceStatus": release != "1.36",
}

// Cases the release cannot reach, by name, with the reason: they turn off
// a gate that release locks on.  Every other case runs.
var unreachable = func() map[string]string {
	m := map[string]string{"admin-access-disabled": "DRAAdminAccess is locked on (GA in 1.36)"}
	if release != "1.36" {
		m["prioritized-list-disabled"] = "DRAPrioritizedList is locked on (GA, locked in 1.37)"
	}
	return m
}()

// capacityName is the name of a consumed capacity in the allocated state.
func capacityName(n resourceapi.QualifiedName) resourceapi.QualifiedName { return n }

// sharedDevices are the shares of the allocated state, sorted.
func sharedDevices(st internal.AllocatedState) []sharedDevice {
	shared := st.AllocatedSharedDeviceIDs.UnsortedList()
	sort.Slice(shared, func(i, j int) bool { return shared[i].String() < shared[j].String() })
	out := make([]sharedDevice, len(shared))
	for i, s := range shared {
		out[i] = sharedDevice{internal.DeviceID{Driver: s.Driver, Pool: s.Pool, Device: s.Device}, types.UID(s.ShareID.String())}
	}
	return out
}
