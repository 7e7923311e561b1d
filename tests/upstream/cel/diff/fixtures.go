package main

// The devices expressions are evaluated on: a handful written for the
// generator (every attribute type, list attributes, qualified and
// unqualified names, edge values, a device whose version does not parse),
// then the devices of the project's example and test ResourceSlices.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/yaml"
)

type device struct {
	id     string
	driver string
	json   json.RawMessage // a v1 Device
}

const fixtureDevices = `[
 {"driver": "gpu.example.com", "device": {"name": "full", "allowMultipleAllocations": true,
  "attributes": {
   "cores": {"int": 8}, "index": {"int": 0}, "memory": {"int": 80},
   "model": {"string": "A100"}, "family": {"string": "ampere"},
   "ecc": {"bool": true}, "virt": {"bool": false},
   "driverVersion": {"version": "1.2.3"}, "fw": {"version": "2.0.0-rc.1+build.5"},
   "other.example.com/zone": {"string": "z1"}, "other.example.com/rack": {"int": 3},
   "numa": {"ints": [0, 1]}, "tags": {"strings": ["a", "b", "gpu"]},
   "flags": {"bools": [true, false]}, "compat": {"versions": ["1.0.0", "2.1.0"]}},
  "capacity": {"memory": {"value": "80Gi"}, "cores": {"value": "8"},
   "other.example.com/bandwidth": {"value": "100M"}, "slices": {"value": "7"}}}},
 {"driver": "gpu.example.com", "device": {"name": "sparse",
  "attributes": {"model": {"string": "T4"}, "cores": {"int": 2}, "driverVersion": {"version": "0.9.0"},
   "tags": {"strings": ["b"]}},
  "capacity": {"memory": {"value": "16Gi"}}}},
 {"driver": "gpu.example.com", "device": {"name": "empty"}},
 {"driver": "other.example.com", "device": {"name": "odd", "allowMultipleAllocations": false,
  "attributes": {"model": {"string": "ñandú ☃"}, "cores": {"int": -5}, "index": {"int": 9223372036854775807},
   "driverVersion": {"version": "1.0.0-alpha"}, "gpu.example.com/model": {"string": "x"},
   "numa": {"ints": [3, 1, 2, 1]}, "compat": {"versions": ["0.0.1"]}},
  "capacity": {"memory": {"value": "1.5"}, "cores": {"value": "500m"}, "gpu.example.com/memory": {"value": "1Ei"}}}},
 {"driver": "gpu.example.com", "device": {"name": "badversion",
  "attributes": {"model": {"string": "bad"}, "driverVersion": {"version": "not-a-version"}}}}
]`

func fixtures() []device {
	var raw []struct {
		Driver string          `json:"driver"`
		Device json.RawMessage `json:"device"`
	}
	if err := json.Unmarshal([]byte(fixtureDevices), &raw); err != nil {
		panic(err)
	}
	var out []device
	for _, r := range raw {
		var n struct{ Name string }
		_ = json.Unmarshal(r.Device, &n)
		out = append(out, device{r.Driver + "/fixture/" + n.Name, r.Driver, r.Device})
	}
	return out
}

// sliceDevices reads the devices of every ResourceSlice in the YAML and
// JSON files under dirs (v1beta1's `basic` unwrapped), at most max of
// them, in path order.
func sliceDevices(root string, dirs []string, max int) []device {
	var paths []string
	for _, d := range dirs {
		_ = filepath.WalkDir(filepath.Join(root, d), func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".json")) {
				paths = append(paths, p)
			}
			return nil
		})
	}
	sort.Strings(paths)
	var out []device
	seen := map[string]bool{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		dec := yaml.NewYAMLOrJSONDecoder(f, 4096)
		for len(out) < max {
			var o struct {
				Kind string `json:"kind"`
				Spec struct {
					Driver  string            `json:"driver"`
					Devices []json.RawMessage `json:"devices"`
				} `json:"spec"`
			}
			if dec.Decode(&o) != nil {
				break
			}
			if o.Kind != "ResourceSlice" {
				continue
			}
			for _, d := range o.Spec.Devices {
				v1 := unwrapBasic(d)
				key := o.Spec.Driver + string(v1)
				if seen[key] || len(out) >= max {
					continue
				}
				seen[key] = true
				var n struct{ Name string }
				_ = json.Unmarshal(v1, &n)
				rel, _ := filepath.Rel(root, p)
				out = append(out, device{o.Spec.Driver + "/" + rel + "/" + n.Name, o.Spec.Driver, v1})
			}
		}
		f.Close()
	}
	return out
}

// unwrapBasic turns a v1beta1 device ({name, basic: {...}}) into v1's shape.
func unwrapBasic(d json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(d, &m) != nil {
		return d
	}
	b, ok := m["basic"]
	if !ok {
		return d
	}
	var inner map[string]json.RawMessage
	if json.Unmarshal(b, &inner) != nil {
		return d
	}
	delete(m, "basic")
	for k, v := range inner {
		m[k] = v
	}
	out, _ := json.Marshal(m)
	return out
}
