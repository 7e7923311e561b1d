package main

// Devices: read from ResourceSlices as dra-select reads them (the newest
// generation of every pool; src/common/select/devices.c), and made into
// the `device` variable as upstream's scheduler makes it
// (k8s.io/dynamic-resource-allocation cel/compile.go DeviceMatches).
//
// Accepted input: YAML or JSON documents, `kind: List` wrappers, files or
// standard input ("-" or no file).  ResourceSlices of resource.k8s.io v1
// and v1beta2 are read as they are; v1beta1 devices have their fields
// under `basic`, which is unwrapped.  Other objects are ignored.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

type sliceDevice struct {
	id     string // driver/pool/device
	device dracel.Device
}

type slice struct {
	driver, pool string
	generation   int64
	devices      []json.RawMessage
}

func readObjects(r io.Reader, name string, out *[]map[string]any) error {
	d := yaml.NewYAMLOrJSONDecoder(r, 4096)
	for {
		var raw json.RawMessage
		err := d.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		// Numbers stay exact (json.Number), so int attributes survive.
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil || obj == nil {
			continue
		}
		if items, ok := obj["items"].([]any); ok && strings.HasSuffix(fmt.Sprint(obj["kind"]), "List") {
			for _, it := range items {
				if m, ok := it.(map[string]any); ok {
					*out = append(*out, m)
				}
			}
			continue
		}
		*out = append(*out, obj)
	}
}

// readDevices reads every device of the newest generation of every pool,
// in the allocator's order (pools by driver and name, slices by name).
func readDevices(paths []string) ([]sliceDevice, error) {
	var objs []map[string]any
	if len(paths) == 0 {
		paths = []string{"-"}
	}
	for _, p := range paths {
		var data []byte
		var err error
		if p == "-" {
			data, err = io.ReadAll(os.Stdin)
		} else {
			data, err = os.ReadFile(p)
		}
		if err != nil {
			return nil, err
		}
		if err := readObjects(bytes.NewReader(data), p, &objs); err != nil {
			return nil, err
		}
	}
	type named struct {
		name string
		s    slice
	}
	var slices []named
	newest := map[[2]string]int64{}
	for _, o := range objs {
		if o["kind"] != "ResourceSlice" || !strings.HasPrefix(fmt.Sprint(o["apiVersion"]), "resource.k8s.io/") {
			continue
		}
		raw, _ := json.Marshal(o)
		var s struct {
			Metadata struct{ Name string } `json:"metadata"`
			Spec     struct {
				Driver string `json:"driver"`
				Pool   struct {
					Name       string `json:"name"`
					Generation int64  `json:"generation"`
				} `json:"pool"`
				Devices []json.RawMessage `json:"devices"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("ResourceSlice %s: %v", s.Metadata.Name, err)
		}
		sl := slice{s.Spec.Driver, s.Spec.Pool.Name, s.Spec.Pool.Generation, s.Spec.Devices}
		key := [2]string{sl.driver, sl.pool}
		if g, ok := newest[key]; !ok || sl.generation > g {
			newest[key] = sl.generation
		}
		slices = append(slices, named{s.Metadata.Name, sl})
	}
	sort.SliceStable(slices, func(i, j int) bool {
		a, b := slices[i].s, slices[j].s
		if a.driver != b.driver {
			return a.driver < b.driver
		}
		if a.pool != b.pool {
			return a.pool < b.pool
		}
		return slices[i].name < slices[j].name
	})
	var devs []sliceDevice
	for _, n := range slices {
		if n.s.generation != newest[[2]string{n.s.driver, n.s.pool}] {
			continue
		}
		for _, raw := range n.s.devices {
			d, name, err := decodeDevice(raw, n.s.driver)
			if err != nil {
				return nil, fmt.Errorf("ResourceSlice %s: device %s: %v", n.name, name, err)
			}
			devs = append(devs, sliceDevice{n.s.driver + "/" + n.s.pool + "/" + name, d})
		}
	}
	return devs, nil
}

// readDevice reads one v1 (or v1beta1/v1beta2) Device object: v1beta1's
// fields under `basic` are unwrapped.
func readDevice(raw json.RawMessage) (resourceapi.Device, error) {
	var d resourceapi.Device
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return d, err
	}
	if basic, ok := m["basic"]; ok { // v1beta1
		var inner map[string]json.RawMessage
		if err := json.Unmarshal(basic, &inner); err != nil {
			return d, err
		}
		for k, v := range inner {
			m[k] = v
		}
		delete(m, "basic")
		raw, _ = json.Marshal(m)
	}
	err := json.Unmarshal(raw, &d)
	return d, err
}
