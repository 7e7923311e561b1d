//go:build k8s136

// The generator's objects of 1.36: DeviceTaintRule is v1beta2's, and
// skipNodeOperations, compatibility groups and derived attributes do not
// exist (their gates neither, so the generator never asks for them).
package main

import (
	resourceapi "k8s.io/api/resource/v1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/dynamic-resource-allocation/structured"
)

func taintRule(m metav1.ObjectMeta, driver, pool, device *string, taint resourceapi.DeviceTaint) any {
	return &resourcev1beta2.DeviceTaintRule{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1beta2", Kind: "DeviceTaintRule"}, ObjectMeta: m,
		Spec: resourcev1beta2.DeviceTaintRuleSpec{
			DeviceSelector: &resourcev1beta2.DeviceTaintSelector{Driver: driver, Pool: pool, Device: device},
			Taint: resourcev1beta2.DeviceTaint{Key: taint.Key, Value: taint.Value,
				Effect: resourcev1beta2.DeviceTaintEffect(taint.Effect), TimeAdded: taint.TimeAdded}}}
}

func skipAllNodeOperations(*resourceapi.ResourceSlice) {}

func setCompatibilityGroups(*resourceapi.DeviceCounterConsumption, []string) {}

func setDerivedAttribute(*resourceapi.ExactDeviceRequest, resourceapi.FullyQualifiedName, string) {}

func copyDerivedAttributes(*resourceapi.DeviceSubRequest, *resourceapi.ExactDeviceRequest) {}

func hasDerivedAttributes(resourceapi.DeviceRequest) bool { return false }

func newerFeatures(structured.Features) bool { return false }
