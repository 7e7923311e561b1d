//go:build k8s138

package main

// The device of 1.38: dracel.Device holds the allocator's own form of a
// device (k8s.io/dynamic-resource-allocation/api DeviceAttributes and
// DeviceCapacities, keyed by unique strings, attribute values converted
// once: api/conversion.go attrValue), and DeviceMatches binds `device` to
// map proxies of its own (cel/compile.go domainToAttributes,
// nameToAttributes, domainToCapacity, nameToCapacity).  The peer takes that
// very variable: it asks DeviceMatches to evaluate through a program that
// keeps its input instead.

import (
	"context"
	"encoding/json"
	"fmt"

	"dra-tools/tests/upstream/celgo/cel"
	"dra-tools/tests/upstream/celgo/ref"
	"dra-tools/tests/upstream/celgo/types"
	"github.com/go-logr/logr"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apiserver/pkg/cel/environment"
	draapi "k8s.io/dynamic-resource-allocation/api"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/klog/v2"
)

// The conversion logs a version it cannot parse (and converts it to no
// value); the batch protocol owns standard error.
func init() { klog.SetLogger(logr.Discard()) }

// decodeDevice converts the device as the scheduler's slice tracker does,
// inside a ResourceSlice of its driver (the conversion needs the slice's
// unique strings), and looks names up in that slice as the allocator does
// (structured/internal/experimental allocator_experimental.go).
func decodeDevice(raw json.RawMessage, driver string) (dracel.Device, string, error) {
	d, err := readDevice(raw)
	if err != nil {
		return dracel.Device{}, "", err
	}
	in := resourceapi.ResourceSlice{Spec: resourceapi.ResourceSliceSpec{
		Driver:  driver,
		Devices: []resourceapi.Device{d},
	}}
	var out draapi.ResourceSlice
	if err := draapi.Convert_v1_ResourceSlice_To_api_ResourceSlice(&in, &out, nil); err != nil {
		return dracel.Device{}, d.Name, err
	}
	dev := out.Spec.Devices[0]
	return dracel.Device{
		Driver:                   driver,
		AllowMultipleAllocations: dev.AllowMultipleAllocations,
		LookupUniqueString:       out.LookupUniqueString,
		Attributes:               dev.Attributes,
		Capacity:                 dev.Capacity,
	}, d.Name, nil
}

// keep is a program that evaluates to true and keeps its activation.
type keep struct {
	cel.Program
	vars any
}

func (k *keep) ContextEval(_ context.Context, vars any) (ref.Val, *cel.EvalDetails, error) {
	k.vars = vars
	return types.True, nil, nil
}

// deviceValue is the `device` variable DeviceMatches binds for d under the
// gates g (its types depend on them).
func deviceValue(g gates, _ types.Adapter, d dracel.Device) (map[string]any, error) {
	r := compileSelector(g, "true", environment.StoredExpressions)
	if r.Error != nil {
		return nil, r.Error
	}
	k := &keep{Program: r.Program}
	r.Program = k
	if _, _, err := r.DeviceMatches(context.Background(), d); err != nil {
		return nil, err
	}
	vars, _ := k.vars.(map[string]any)
	dev, ok := vars["device"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("DeviceMatches bound no device variable (%T)", k.vars)
	}
	return dev, nil
}
