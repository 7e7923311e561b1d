//go:build k8s136

package peer

import (
	resourceapi "k8s.io/api/resource/v1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	resourceinternal "k8s.io/kubernetes/pkg/apis/resource"
)

// taintRule is the DeviceTaintRule of 1.36, which has none in v1: the
// tracker reads v1beta2's (k8s.io/dynamic-resource-allocation v0.36.3
// resourceslice/tracker).
type taintRule = resourcev1beta2.DeviceTaintRule

var taintRuleVersion = resourcev1beta2.SchemeGroupVersion

// ruleTarget is what a rule selects (nil: any) and the taint it adds, as
// 1.36's tracker applies it: a rule without deviceSelector selects every
// device, and the taint is converted field by field
// (resourceslice/tracker/tracker.go applyDeviceTaintRules).
func ruleTarget(r *taintRule) (driver, pool, device *string, taint resourceapi.DeviceTaint, ok bool) {
	t := r.Spec.Taint
	taint = resourceapi.DeviceTaint{Key: t.Key, Value: t.Value, Effect: resourceapi.DeviceTaintEffect(t.Effect), TimeAdded: t.TimeAdded}
	if sel := r.Spec.DeviceSelector; sel != nil {
		return sel.Driver, sel.Pool, sel.Device, taint, true
	}
	return nil, nil, nil, taint, true
}

// keepDerived: 1.36 has no derivedAttributes.
func keepDerived(r, created *resourceinternal.DeviceRequest) {}
