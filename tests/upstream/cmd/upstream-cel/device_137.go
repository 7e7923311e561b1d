//go:build !k8s138

package main

// The device of 1.36 and 1.37: dracel.Device holds the v1 maps, and the
// `device` variable is built here as DeviceMatches builds it (1.38 has a
// twin, device_138.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"dra-tools/tests/upstream/celgo/ref"
	"dra-tools/tests/upstream/celgo/traits"
	"dra-tools/tests/upstream/celgo/types"
	"github.com/blang/semver/v4"

	resourceapi "k8s.io/api/resource/v1"
	apiservercel "k8s.io/apiserver/pkg/cel"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// decodeDevice turns one v1 (or v1beta1/v1beta2) Device object into the
// scheduler's input.
func decodeDevice(raw json.RawMessage, driver string) (dracel.Device, string, error) {
	d, err := readDevice(raw)
	if err != nil {
		return dracel.Device{}, "", err
	}
	return dracel.Device{
		Driver:                   driver,
		AllowMultipleAllocations: d.AllowMultipleAllocations,
		Attributes:               d.Attributes,
		Capacity:                 d.Capacity,
	}, d.Name, nil
}

// deviceValue is the `device` variable: the map DeviceMatches binds, with
// attributes and capacity grouped by domain ("dom/id", or the driver for
// an unqualified id), and a missing domain yielding an empty map.
func deviceValue(g gates, adapter types.Adapter, d dracel.Device) (map[string]any, error) {
	attributes := map[string]any{}
	for name, attr := range d.Attributes {
		v, err := attributeValue(attr, listsAlways || g.listType)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
		dom, id := splitName(string(name), d.Driver)
		if attributes[dom] == nil {
			attributes[dom] = map[string]any{}
		}
		attributes[dom].(map[string]any)[id] = v
	}
	capacity := map[string]any{}
	for name, c := range d.Capacity {
		dom, id := splitName(string(name), d.Driver)
		if capacity[dom] == nil {
			capacity[dom] = map[string]apiservercel.Quantity{}
		}
		q := c.Value
		capacity[dom].(map[string]apiservercel.Quantity)[id] = apiservercel.Quantity{Quantity: &q}
	}
	empty := adapter.NativeToValue(map[string]any{})
	multi := d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations
	return map[string]any{
		"driver":                   d.Driver,
		"allowMultipleAllocations": multi,
		"attributes":               emptyDefault{types.NewStringInterfaceMap(adapter, attributes), empty},
		"capacity":                 emptyDefault{types.NewStringInterfaceMap(adapter, capacity), empty},
	}, nil
}

func splitName(name, driver string) (string, string) {
	if i := strings.Index(name, "/"); i >= 0 {
		return name[:i], name[i+1:]
	}
	return driver, name
}

// The Go value of an attribute, as upstream's getAttributeValue picks it:
// lists first (when lists are taken), then scalars; versions parsed as
// semver.
func attributeValue(a resourceapi.DeviceAttribute, lists bool) (any, error) {
	parse := func(s string) (apiservercel.Semver, error) {
		var v apiservercel.Semver
		sv, err := semver.Parse(s)
		if err != nil {
			return v, fmt.Errorf("parse semantic version: %w", err)
		}
		v.Version = sv
		return v, nil
	}
	if lists {
		switch {
		case a.IntValues != nil:
			return a.IntValues, nil
		case a.BoolValues != nil:
			return a.BoolValues, nil
		case a.StringValues != nil:
			return a.StringValues, nil
		case a.VersionValues != nil:
			out := make([]apiservercel.Semver, len(a.VersionValues))
			for i, s := range a.VersionValues {
				v, err := parse(s)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		}
	}
	switch {
	case a.IntValue != nil:
		return *a.IntValue, nil
	case a.BoolValue != nil:
		return *a.BoolValue, nil
	case a.StringValue != nil:
		return *a.StringValue, nil
	case a.VersionValue != nil:
		return parse(*a.VersionValue)
	}
	return nil, errors.New("unsupported attribute value")
}

// emptyDefault answers every lookup of a missing key with an empty map.
type emptyDefault struct {
	traits.Mapper
	empty ref.Val
}

func (m emptyDefault) Find(key ref.Val) (ref.Val, bool) {
	if v, ok := m.Mapper.Find(key); ok {
		return v, true
	}
	return m.empty, true
}
