package peer

// Objects as the API server stores them when they are created: the fields
// of disabled features dropped by the registry's own code, with the API
// server's feature gates as --feature-gates sets them
// (pkg/registry/resource/resourceslice/strategy.go PrepareForCreate:
// dropDisabledFields, the list values of device attributes without
// DRAListTypeAttributes among them; pkg/api/resourceclaimspec/util.go
// DropDisabledFields, derivedAttributes without DRADerivedAttributes among
// them).  dra-alloc does the same to the objects it validates, for these
// two features (the fields of others it drops for validation only: here
// the dropped copy gives those two fields back); objects it takes as
// stored (--no-validate) are used as they are, here too.

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/resourceclaimspec"
	resourceinternal "k8s.io/kubernetes/pkg/apis/resource"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"
)

// The strategies read the process's gates (utilfeature.DefaultFeatureGate):
// runs that set them for a moment, and readers of them, take turns.
var gateMu sync.Mutex

// gatesCopy is a copy of the process's gates with gates set on top.
func gatesCopy(gates string) (featuregate.MutableFeatureGate, error) {
	gateMu.Lock()
	defer gateMu.Unlock()
	fg := feature.DefaultFeatureGate.DeepCopy()
	if gates != "" {
		if err := fg.Set(gates); err != nil {
			return nil, err
		}
	}
	return fg, nil
}

// DecodeCreated is Decode of objects being created with these gates.
func DecodeCreated(raws []Raw, gates string) (*Input, error) {
	return decodeCreated(raws, gates, false)
}

// DecodeSchedule is DecodeCreated with the Pods, ResourceClaimTemplates
// and PriorityClasses of the input too (stored: Decode's way, as given).
func DecodeSchedule(raws []Raw, gates string, stored bool) (*Input, error) {
	if stored {
		return decode(raws, nil, true)
	}
	return decodeCreated(raws, gates, true)
}

func decodeCreated(raws []Raw, gates string, sched bool) (*Input, error) {
	fg, err := gatesCopy(gates)
	if err != nil {
		return nil, err
	}
	return decode(raws, func(obj runtime.Object) {
		gateMu.Lock()
		defer gateMu.Unlock()
		saved := feature.DefaultFeatureGate
		feature.DefaultFeatureGate = fg
		defer func() { feature.DefaultFeatureGate = saved }()
		switch o := obj.(type) {
		case *resourceinternal.ResourceSlice:
			c := o.DeepCopy()
			resourceslice.Strategy.PrepareForCreate(context.Background(), c)
			for i := range o.Spec.Devices {
				o.Spec.Devices[i].Attributes = c.Spec.Devices[i].Attributes
			}
		case *resourceinternal.ResourceClaim:
			c := o.DeepCopy()
			resourceclaimspec.DropDisabledFields(&c.Spec, nil)
			for i := range o.Spec.Devices.Requests {
				keepDerived(&o.Spec.Devices.Requests[i], &c.Spec.Devices.Requests[i])
			}
		}
	}, sched)
}
