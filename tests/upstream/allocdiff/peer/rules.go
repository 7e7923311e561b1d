//go:build !k8s136

package peer

import (
	resourceapi "k8s.io/api/resource/v1"
	resourceinternal "k8s.io/kubernetes/pkg/apis/resource"
)

// taintRule is the DeviceTaintRule of the allocator's API version (v1 since
// 1.37).
type taintRule = resourceapi.DeviceTaintRule

var taintRuleVersion = resourceapi.SchemeGroupVersion

// ruleTarget is what a rule selects (nil: any) and the taint it adds; ok
// false when it selects no device: a rule without deviceSelector matches
// none (resourceslice/tracker, kubernetes#141648, 1.37 on).
func ruleTarget(r *taintRule) (driver, pool, device *string, taint resourceapi.DeviceTaint, ok bool) {
	sel := r.Spec.DeviceSelector
	if sel == nil {
		return nil, nil, nil, taint, false
	}
	return sel.Driver, sel.Pool, sel.Device, r.Spec.Taint, true
}

// keepDerived keeps a request's derivedAttributes (1.37 on) as created.
func keepDerived(r, created *resourceinternal.DeviceRequest) {
	if r.Exactly != nil {
		r.Exactly.DerivedAttributes = created.Exactly.DerivedAttributes
	}
	for j := range r.FirstAvailable {
		r.FirstAvailable[j].DerivedAttributes = created.FirstAvailable[j].DerivedAttributes
	}
}
