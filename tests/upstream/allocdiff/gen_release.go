//go:build !k8s136

// The generator's objects of 1.37 and 1.38; gen_release_136.go has 1.36's.
package main

import (
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/dynamic-resource-allocation/structured"
)

// taintRule is a v1 DeviceTaintRule selecting driver, pool and device
// (nil: any).
func taintRule(m metav1.ObjectMeta, driver, pool, device *string, taint resourceapi.DeviceTaint) any {
	return &resourceapi.DeviceTaintRule{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceTaintRule"}, ObjectMeta: m,
		Spec: resourceapi.DeviceTaintRuleSpec{DeviceSelector: &resourceapi.DeviceTaintSelector{Driver: driver, Pool: pool, Device: device}, Taint: taint}}
}

func skipAllNodeOperations(s *resourceapi.ResourceSlice) {
	s.Spec.SkipNodeOperations = []resourceapi.SkipNodeOperation{resourceapi.SkipNodeOperationAll}
}

func setCompatibilityGroups(cc *resourceapi.DeviceCounterConsumption, groups []string) {
	cc.CompatibilityGroups = groups
}

func setDerivedAttribute(e *resourceapi.ExactDeviceRequest, name resourceapi.FullyQualifiedName, expr string) {
	e.DerivedAttributes = []resourceapi.DeviceDerivedAttribute{{Name: name, Expression: expr}}
}

func copyDerivedAttributes(sub *resourceapi.DeviceSubRequest, e *resourceapi.ExactDeviceRequest) {
	sub.DerivedAttributes = e.DerivedAttributes
}

func hasDerivedAttributes(r resourceapi.DeviceRequest) bool {
	if r.Exactly != nil && len(r.Exactly.DerivedAttributes) > 0 {
		return true
	}
	for _, s := range r.FirstAvailable {
		if len(s.DerivedAttributes) > 0 {
			return true
		}
	}
	return false
}

// newerFeatures: a feature 1.36's allocator does not have is on.
func newerFeatures(f structured.Features) bool {
	return f.FractionalCapacityRange || f.OptionalNodeOperations || f.DerivedAttributes || f.CompatibilityGroups
}
