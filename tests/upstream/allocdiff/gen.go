package main

// The seeded generator of cases: a fleet (Nodes, ResourceSlices, DeviceClasses,
// DeviceTaintRules), claims already allocated, pending claims, and feature
// gates, all from one math/rand/v2 PCG stream seeded by the case's number, so
// that a seed names its case for good.

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// A generated case: its objects in input order, the gates, the nodes to
// allocate for.
type genCase struct {
	seed  uint64
	objs  []any
	gates map[string]bool
	nodes []string
}

func (c *genCase) gateString() string {
	var out []string
	for k, v := range c.gates {
		out = append(out, fmt.Sprintf("%s=%t", k, v))
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

type gen struct {
	r *rand.Rand
	// pools whose slices disagree (disagree), drawn apart from r so that
	// the cases without them stay as they were
	rp    *rand.Rand
	c     *genCase
	on    func(string) bool // a gated field may be written
	gate  func(string) bool // the gate is on
	nodes []*corev1.Node
	// devices made, for allocated neighbours: driver, pool, device, shared
	devs []genDev
}

type genDev struct {
	driver, pool, name string
	shared             bool
	capacity           map[resourceapi.QualifiedName]resourceapi.DeviceCapacity
}

const (
	gpuDriver = "gpu.example.com"
	nicDriver = "nic.example.com"
)

func (g *gen) n(k int) int          { return g.r.IntN(k) }
func (g *gen) p(pct int) bool       { return g.r.IntN(100) < pct }
func pick[T any](g *gen, xs ...T) T { return xs[g.r.IntN(len(xs))] }

func meta(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name} }

func q(s string) resource.Quantity { return resource.MustParse(s) }

// The gates a case runs with: each settable gate of the allocator on or off,
// the dependencies kept (kube_features.go).
func (g *gen) gates() {
	gs := map[string]bool{}
	for _, name := range []string{"DRADeviceTaints", "DRADeviceTaintRules", "DRAPartitionableDevices",
		"DRAConsumableCapacity", "DRADeviceBindingConditions", "DRAFractionalCapacityRange",
		"DRAListTypeAttributes", "DRAOptionalNodeOperations", "DRADeviceCompatibilityGroups", "DRADerivedAttributes"} {
		gs[name] = g.p(70)
	}
	if !gs["DRADeviceTaints"] {
		gs["DRADeviceTaintRules"] = false
	}
	if !gs["DRAConsumableCapacity"] {
		gs["DRAFractionalCapacityRange"] = false
	}
	if !gs["DRAPartitionableDevices"] {
		gs["DRADeviceCompatibilityGroups"] = false
	}
	g.c.gates = gs
	// One case in eight writes every gated field whatever the gates, as
	// objects stored while a gate was on are when it is off.
	stale := g.p(12)
	g.on = func(name string) bool { return gs[name] || stale }
	g.gate = func(name string) bool { return gs[name] }
}

func generate(seed uint64) *genCase {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x5eed)), rp: rand.New(rand.NewPCG(seed, 0x9001)), c: &genCase{seed: seed}}
	g.gates()
	nn := 1 + g.n(3)
	for i := 0; i < nn; i++ {
		n := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: meta(fmt.Sprintf("node-%d", i))}
		n.Labels = map[string]string{"zone": pick(g, "a", "b")}
		if g.p(50) {
			n.Status.DeclaredFeatures = []string{"DRAOptionalNodeOperations"}
		}
		g.nodes = append(g.nodes, n)
		g.c.objs = append(g.c.objs, n)
	}
	g.c.nodes = append(g.c.nodes, g.nodes[0].Name)
	if nn > 1 && g.p(40) {
		g.c.nodes = append(g.c.nodes, g.nodes[1].Name)
	}
	if g.p(10) {
		g.c.nodes = append(g.c.nodes, "node-missing")
	}
	for _, ns := range []string{"default", "admin"} {
		n := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: meta(ns)}
		if ns == "admin" {
			n.Labels = map[string]string{"resource.kubernetes.io/admin-access": "true"}
		}
		g.c.objs = append(g.c.objs, n)
	}
	g.classes()
	for i, n := range g.nodes {
		g.nodeSlices(i, n)
	}
	if g.p(40) {
		g.networkSlices()
	}
	if g.on("DRADeviceTaintRules") && g.p(30) {
		g.taintRules()
	}
	for i := g.n(3); i > 0; i-- {
		g.allocated(i)
	}
	for i := 1 + g.n(3); i > 0; i-- {
		g.claim(i)
	}
	return g.c
}

func (g *gen) classes() {
	add := func(name string, exprs ...string) {
		c := &resourceapi.DeviceClass{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "DeviceClass"}, ObjectMeta: meta(name)}
		for _, e := range exprs {
			c.Spec.Selectors = append(c.Spec.Selectors, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: e}})
		}
		if g.p(20) {
			c.Spec.Config = []resourceapi.DeviceClassConfiguration{{DeviceConfiguration: resourceapi.DeviceConfiguration{
				Opaque: &resourceapi.OpaqueDeviceConfiguration{Driver: gpuDriver, Parameters: rawJSON(`{"class":"` + name + `"}`)}}}}
		}
		g.c.objs = append(g.c.objs, c)
	}
	add("gpu", `device.driver == "gpu.example.com"`)
	add("gpu-a", `device.driver == "gpu.example.com"`, `device.attributes["gpu.example.com"].model == "a"`)
	add("nic", `device.driver == "nic.example.com"`)
	add("any")
	if g.p(30) {
		add("big", `device.driver == "gpu.example.com" && device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) >= 0`)
	}
}

func (g *gen) attrs(driver string, i int) map[resourceapi.QualifiedName]resourceapi.DeviceAttribute {
	a := map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
		"model": {StringValue: ptr.To(pick(g, "a", "b"))},
		"numa":  {IntValue: ptr.To(int64(g.n(2)))},
	}
	if g.p(50) {
		a["healthy"] = resourceapi.DeviceAttribute{BoolValue: ptr.To(g.p(80))}
	}
	if g.p(40) {
		a["driverVersion"] = resourceapi.DeviceAttribute{VersionValue: ptr.To(pick(g, "1.0.0", "1.2.0", "2.0.0"))}
	}
	if g.on("DRAListTypeAttributes") && g.p(40) {
		switch g.n(3) {
		case 0:
			a["pcieRoots"] = resourceapi.DeviceAttribute{StringValues: pickSome(g, []string{"r0", "r1", "r2"})}
		case 1:
			a["numas"] = resourceapi.DeviceAttribute{IntValues: pickSome(g, []int64{0, 1, 2})}
		default:
			a["numa"] = resourceapi.DeviceAttribute{IntValues: pickSome(g, []int64{0, 1})}
		}
	}
	if g.p(30) {
		a[resourceapi.QualifiedName("resource.kubernetes.io/pcieRoot")] = resourceapi.DeviceAttribute{StringValue: ptr.To(pick(g, "pci0", "pci1"))}
	}
	return a
}

func pickSome[T any](g *gen, xs []T) []T {
	var out []T
	for _, x := range xs {
		if g.p(60) {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		out = append(out, xs[g.n(len(xs))])
	}
	return out
}

func (g *gen) capacity() (map[resourceapi.QualifiedName]resourceapi.DeviceCapacity, bool) {
	c := map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
		"memory": {Value: q(pick(g, "8Gi", "16Gi", "40Gi"))},
	}
	shared := g.on("DRAConsumableCapacity") && g.p(35)
	if !shared {
		if g.p(30) {
			c["cores"] = resourceapi.DeviceCapacity{Value: q(pick(g, "4", "8"))}
		}
		return c, false
	}
	mem := c["memory"]
	switch g.n(4) {
	case 0:
		mem.RequestPolicy = &resourceapi.CapacityRequestPolicy{Default: ptr.To(q("1Gi")),
			ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: ptr.To(q("1Gi")), Step: ptr.To(q(pick(g, "1Gi", "2Gi")))}}
	case 1:
		mem.RequestPolicy = &resourceapi.CapacityRequestPolicy{Default: ptr.To(q("4Gi")),
			ValidValues: []resource.Quantity{q("2Gi"), q("4Gi"), q("8Gi")}}
	case 2:
		mem.RequestPolicy = &resourceapi.CapacityRequestPolicy{Default: ptr.To(q("2Gi")),
			ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: ptr.To(q("1Gi")), Max: ptr.To(q("8Gi"))}}
	}
	c["memory"] = mem
	if g.p(40) {
		bw := resourceapi.DeviceCapacity{Value: q(pick(g, "10", "2500m", "100"))}
		if g.on("DRAFractionalCapacityRange") || g.p(50) {
			// default, min, step: consistent triples
			t := pick(g, [3]string{"1", "1", "1"}, [3]string{"500m", "500m", "250m"}, [3]string{"1", "500m", "500m"}, [3]string{"750m", "250m", "250m"})
			bw.RequestPolicy = &resourceapi.CapacityRequestPolicy{Default: ptr.To(q(t[0])),
				ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: ptr.To(q(t[1])), Step: ptr.To(q(t[2]))}}
		}
		c["bandwidth"] = bw
	}
	return c, true
}

func slice(name, driver, pool string, gen int64, count int64) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceSlice"}, ObjectMeta: meta(name)}
	s.Spec.Driver = driver
	s.Spec.Pool = resourceapi.ResourcePool{Name: pool, Generation: gen, ResourceSliceCount: count}
	return s
}

func (g *gen) taints() []resourceapi.DeviceTaint {
	if !g.on("DRADeviceTaints") || !g.p(15) {
		return nil
	}
	return []resourceapi.DeviceTaint{{Key: "example.com/" + pick(g, "broken", "maint"), Value: pick(g, "", "yes"),
		Effect:    pick(g, resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute, resourceapi.DeviceTaintEffectNone),
		TimeAdded: ptr.To(metav1.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}}
}

func (g *gen) nodeSlices(i int, n *corev1.Node) {
	for _, driver := range []string{gpuDriver, nicDriver} {
		if driver == nicDriver && g.p(50) {
			continue
		}
		pool := fmt.Sprintf("%s-%s", n.Name, strings.Split(driver, ".")[0])
		first := len(g.c.objs) // the pool's slices start here
		partitioned := driver == gpuDriver && g.on("DRAPartitionableDevices") && g.p(40)
		nslices := 1
		if g.p(20) {
			nslices = 2
		}
		var counters *resourceapi.ResourceSlice
		if partitioned {
			nslices++
		}
		gen := int64(1 + g.n(2))
		incomplete := g.p(5)
		count := int64(nslices)
		if incomplete {
			count++
		}
		if partitioned {
			counters = slice(pool+"-counters", driver, pool, gen, count)
			counters.Spec.NodeName = ptr.To(n.Name)
			counters.Spec.SharedCounters = []resourceapi.CounterSet{{Name: "gpu-counters",
				Counters: map[string]resourceapi.Counter{"memory": {Value: q("40Gi")}, "slices": {Value: q("4")}}}}
			g.c.objs = append(g.c.objs, counters)
			nslices--
		}
		for si := 0; si < nslices; si++ {
			s := slice(fmt.Sprintf("%s-%d", pool, si), driver, pool, gen, count)
			switch {
			case g.p(85) || !g.on("DRAPartitionableDevices"):
				s.Spec.NodeName = ptr.To(n.Name)
			default:
				s.Spec.PerDeviceNodeSelection = ptr.To(true)
			}
			if g.on("DRAOptionalNodeOperations") && g.p(15) {
				skipAllNodeOperations(s)
			}
			nd := 1 + g.n(4)
			if g.p(3) {
				nd = 30 + g.n(10) // past the 32 results of a claim with All
			}
			for d := 0; d < nd; d++ {
				dev := resourceapi.Device{Name: fmt.Sprintf("dev-%d-%d", si, d), Attributes: g.attrs(driver, d)}
				capa, shared := g.capacity()
				dev.Capacity = capa
				if shared {
					dev.AllowMultipleAllocations = ptr.To(true)
				}
				dev.Taints = g.taints()
				if partitioned {
					cc := resourceapi.DeviceCounterConsumption{CounterSet: "gpu-counters",
						Counters: map[string]resourceapi.Counter{"memory": {Value: q(pick(g, "10Gi", "20Gi", "40Gi"))}}}
					if g.p(50) {
						cc.Counters["slices"] = resourceapi.Counter{Value: q(pick(g, "1", "2"))}
					}
					if g.on("DRADeviceCompatibilityGroups") && g.p(40) {
						setCompatibilityGroups(&cc, pickSome(g, []string{"mig", "vgpu"}))
					}
					dev.ConsumesCounters = []resourceapi.DeviceCounterConsumption{cc}
				}
				if s.Spec.PerDeviceNodeSelection != nil {
					switch g.n(3) {
					case 0:
						dev.NodeName = ptr.To(n.Name)
					case 1:
						dev.AllNodes = ptr.To(true)
					default:
						dev.NodeSelector = zoneSelector(pick(g, "a", "b"))
					}
				}
				if g.on("DRADeviceBindingConditions") && g.p(10) {
					dev.BindingConditions = []string{"example.com/ready"}
					dev.BindingFailureConditions = []string{"example.com/failed"}
					if g.p(50) {
						dev.BindsToNode = ptr.To(true)
					}
				}
				s.Spec.Devices = append(s.Spec.Devices, dev)
				g.devs = append(g.devs, genDev{driver: driver, pool: pool, name: dev.Name, shared: shared, capacity: capa})
			}
			if si > 0 && g.p(4) {
				// a name the pool's first slice has too: the pool is invalid
				s.Spec.Devices[0].Name = "dev-0-0"
			}
			g.c.objs = append(g.c.objs, s)
		}
		if gen > 1 && g.p(30) {
			// an older generation of the pool, which does not count
			old := slice(pool+"-old", driver, pool, gen-1, 1)
			old.Spec.NodeName = ptr.To(n.Name)
			old.Spec.Devices = []resourceapi.Device{{Name: "stale"}}
			g.c.objs = append(g.c.objs, old)
		}
		g.disagree(first, n, driver, pool, gen)
		_ = i
	}
}

// disagree makes, in a few pools, slices that disagree with each other, as
// GatherPools (k8s.io/dynamic-resource-allocation v0.37.2
// structured/internal/*/pools_*.go) meets them: more slices than they
// declare, one slice declaring another count, a first slice listed that is
// another node's (GatherPools compares with the first slice relevant for
// the node), a slice of a newer generation, or a device name published
// twice.  The pool's slices are g.c.objs[first:].
func (g *gen) disagree(first int, n *corev1.Node, driver, pool string, gen int64) {
	if g.rp.IntN(100) >= 8 {
		return
	}
	var slices []*resourceapi.ResourceSlice
	for _, o := range g.c.objs[first:] {
		if s, ok := o.(*resourceapi.ResourceSlice); ok && s.Spec.Pool.Generation == gen {
			slices = append(slices, s)
		}
	}
	if len(slices) == 0 {
		return
	}
	other := "node-elsewhere"
	if len(g.nodes) > 1 && g.rp.IntN(2) == 0 {
		other = g.nodes[(g.rp.IntN(len(g.nodes)-1)+1+indexOf(g.nodes, n))%len(g.nodes)].Name
	}
	insert := func(at int, s *resourceapi.ResourceSlice) {
		g.c.objs = append(g.c.objs[:at], append([]any{s}, g.c.objs[at:]...)...)
	}
	switch g.rp.IntN(6) {
	case 0: // more slices than declared
		for _, s := range slices {
			if s.Spec.Pool.ResourceSliceCount > 1 {
				s.Spec.Pool.ResourceSliceCount--
			} else {
				extra := slice(pool+"-extra", driver, pool, gen, 1)
				extra.Spec.NodeName = ptr.To(n.Name)
				extra.Spec.Devices = []resourceapi.Device{{Name: "extra-0"}}
				g.c.objs = append(g.c.objs, extra)
				break
			}
		}
	case 1: // one slice declaring another count
		s := slices[g.rp.IntN(len(slices))]
		s.Spec.Pool.ResourceSliceCount += int64(1 + g.rp.IntN(2))
	case 2, 3: // the first slice listed is another node's, and counts otherwise
		x := slice(pool+"-elsewhere", driver, pool, gen, slices[0].Spec.Pool.ResourceSliceCount+int64(g.rp.IntN(3))-1)
		if x.Spec.Pool.ResourceSliceCount < 1 {
			x.Spec.Pool.ResourceSliceCount = 1
		}
		x.Spec.NodeName = ptr.To(other)
		x.Spec.Devices = []resourceapi.Device{{Name: "elsewhere-0"}}
		insert(first, x)
	case 4: // a slice of a newer generation, here or elsewhere
		x := slice(pool+"-newer", driver, pool, gen+1, int64(1+g.rp.IntN(2)))
		x.Spec.NodeName = ptr.To(n.Name)
		if g.rp.IntN(2) == 0 {
			x.Spec.NodeName = ptr.To(other)
		}
		x.Spec.Devices = []resourceapi.Device{{Name: "newer-0"}}
		insert(first+g.rp.IntN(len(g.c.objs)-first+1), x)
	default: // a device name published twice in the pool
		s := slices[len(slices)-1]
		if len(slices[0].Spec.Devices) > 0 && len(s.Spec.Devices) > 0 {
			s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: slices[0].Spec.Devices[0].Name})
		}
	}
}

func indexOf(nodes []*corev1.Node, n *corev1.Node) int {
	for i, x := range nodes {
		if x == n {
			return i
		}
	}
	return 0
}

func zoneSelector(zone string) *corev1.NodeSelector {
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}
}

// Pools of network-attached devices: all nodes, or a zone.
func (g *gen) networkSlices() {
	s := slice("net", nicDriver, "net", 1, 1)
	if g.p(50) {
		s.Spec.AllNodes = ptr.To(true)
	} else {
		s.Spec.NodeSelector = zoneSelector(pick(g, "a", "b"))
	}
	for d := 1 + g.n(3); d > 0; d-- {
		dev := resourceapi.Device{Name: fmt.Sprintf("nic-%d", d), Attributes: g.attrs(nicDriver, d)}
		capa, shared := g.capacity()
		dev.Capacity = capa
		if shared {
			dev.AllowMultipleAllocations = ptr.To(true)
		}
		dev.Taints = g.taints()
		s.Spec.Devices = append(s.Spec.Devices, dev)
		g.devs = append(g.devs, genDev{driver: nicDriver, pool: "net", name: dev.Name, shared: shared, capacity: capa})
	}
	g.c.objs = append(g.c.objs, s)
}

func claimObj(name string) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim"}, ObjectMeta: meta(name)}
	c.Namespace = "default"
	c.UID = types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", len(name)*1000+int(name[len(name)-1])))
	return c
}

// A claim already allocated: some devices, shared ones with a share ID and
// consumed capacity.
func (g *gen) allocated(i int) {
	if len(g.devs) == 0 {
		return
	}
	c := claimObj(fmt.Sprintf("neighbour-%d", i))
	k := 1 + g.n(2)
	c.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: "r", Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: "any", Count: int64(k)}}}
	alloc := &resourceapi.AllocationResult{}
	seen := map[string]bool{}
	for j := 0; j < k; j++ {
		d := g.devs[g.n(len(g.devs))]
		key := d.driver + "/" + d.pool + "/" + d.name
		if seen[key] {
			continue
		}
		seen[key] = true
		res := resourceapi.DeviceRequestAllocationResult{Request: "r", Driver: d.driver, Pool: d.pool, Device: d.name}
		if d.shared {
			res.ShareID = ptr.To(types.UID(fmt.Sprintf("11111111-0000-0000-0000-%012d", i*10+j)))
			res.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{}
			for name, cp := range d.capacity {
				if cp.RequestPolicy != nil && cp.RequestPolicy.Default != nil {
					res.ConsumedCapacity[name] = *cp.RequestPolicy.Default
				} else {
					res.ConsumedCapacity[name] = cp.Value
				}
			}
		}
		if g.p(10) {
			res.AdminAccess = ptr.To(true)
			c.Namespace = "admin"
		}
		alloc.Devices.Results = append(alloc.Devices.Results, res)
	}
	c.Spec.Devices.Requests[0].Exactly.Count = int64(len(alloc.Devices.Results))
	c.Status.Allocation = alloc
	g.c.objs = append(g.c.objs, c)
}

var selectorExprs = []string{
	`device.attributes["gpu.example.com"].numa == 0`,
	`device.attributes["gpu.example.com"].model == "b"`,
	`device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) >= 0`,
	`device.attributes["nic.example.com"].model == "a"`,
	`"healthy" in device.attributes["gpu.example.com"] && device.attributes["gpu.example.com"].healthy`,
	`device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.1.0"))`,
	`device.allowMultipleAllocations == true`,
}

func (g *gen) taintRules() {
	driver, pool, device := ptr.To(gpuDriver), (*string)(nil), (*string)(nil)
	if len(g.devs) > 0 && g.p(60) {
		d := g.devs[g.n(len(g.devs))]
		driver, pool, device = ptr.To(d.driver), ptr.To(d.pool), ptr.To(d.name)
	}
	effect := pick(g, resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute)
	g.c.objs = append(g.c.objs, taintRule(meta("rule"), driver, pool, device,
		resourceapi.DeviceTaint{Key: "example.com/rule", Effect: effect}))
}

func (g *gen) exact(class string) *resourceapi.ExactDeviceRequest {
	e := &resourceapi.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: int64(1 + g.n(2))}
	if g.p(10) {
		e.Count = 3
	}
	if g.p(1) {
		e.Count = 33 // past a claim's 32 results
	}
	if g.p(2) {
		e.DeviceClassName = "no-such-class"
	}
	if g.p(10) {
		e.AllocationMode = resourceapi.DeviceAllocationModeAll
		e.Count = 0
	}
	if g.p(35) {
		e.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: pick(g, selectorExprs...)}}}
	}
	if g.on("DRADeviceTaints") && g.p(30) {
		t := resourceapi.DeviceToleration{Operator: resourceapi.DeviceTolerationOpExists}
		if g.p(50) {
			t.Key = pick(g, "example.com/broken", "example.com/maint", "example.com/rule")
			t.Effect = pick(g, resourceapi.DeviceTaintEffect(""), resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute)
			if g.p(40) {
				t.Operator = resourceapi.DeviceTolerationOpEqual
				t.Value = pick(g, "", "yes")
			}
		}
		e.Tolerations = []resourceapi.DeviceToleration{t}
	}
	if g.on("DRAConsumableCapacity") && g.p(35) {
		e.Capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{
			"memory": q(pick(g, "1Gi", "3Gi", "5Gi", "8Gi", "9Gi", "16Gi"))}}
		if g.p(40) {
			e.Capacity.Requests["bandwidth"] = q(pick(g, "1", "600m", "3", "2"))
		}
	}
	if g.gate("DRADerivedAttributes") && g.p(20) {
		setDerivedAttribute(e, "derived.example.com/numa",
			pick(g, `device.attributes["gpu.example.com"].numa`, `device.attributes["gpu.example.com"].?numa.orValue(7)`,
				`device.attributes["gpu.example.com"].model`, `"x"`))
	}
	if g.p(6) {
		e.AdminAccess = ptr.To(true)
	}
	return e
}

func (g *gen) claim(i int) {
	c := claimObj(fmt.Sprintf("claim-%d", i))
	if g.p(15) {
		c.Namespace = "admin"
	}
	nr := 1 + g.n(2)
	var names []string
	for r := 0; r < nr; r++ {
		name := fmt.Sprintf("req-%d", r)
		names = append(names, name)
		req := resourceapi.DeviceRequest{Name: name}
		if g.p(25) {
			for s := 1 + g.n(3); s > 0; s-- {
				e := g.exact(pick(g, "gpu", "gpu-a", "nic", "any", "gpu"))
				sub := resourceapi.DeviceSubRequest{Name: fmt.Sprintf("s%d", s), DeviceClassName: e.DeviceClassName,
					Selectors: e.Selectors, AllocationMode: e.AllocationMode, Count: e.Count, Tolerations: e.Tolerations, Capacity: e.Capacity}
				copyDerivedAttributes(&sub, e)
				req.FirstAvailable = append(req.FirstAvailable, sub)
			}
		} else {
			req.Exactly = g.exact(pick(g, "gpu", "gpu-a", "nic", "any", "gpu"))
		}
		c.Spec.Devices.Requests = append(c.Spec.Devices.Requests, req)
	}
	if g.p(30) {
		attr := resourceapi.FullyQualifiedName(pick(g, "gpu.example.com/numa", "gpu.example.com/model", "resource.kubernetes.io/pcieRoot",
			"gpu.example.com/pcieRoots", "gpu.example.com/numas", "derived.example.com/numa"))
		con := resourceapi.DeviceConstraint{}
		if g.p(70) || !g.on("DRAConsumableCapacity") {
			con.MatchAttribute = &attr
		} else {
			con.DistinctAttribute = &attr
		}
		if g.p(40) {
			con.Requests = []string{names[0]}
		}
		c.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{con}
	}
	derived := false
	for _, r := range c.Spec.Devices.Requests {
		if r.Exactly != nil && r.Exactly.AdminAccess != nil {
			c.Namespace = "admin"
		}
		derived = derived || hasDerivedAttributes(r)
	}
	if derived {
		// a derived attribute must be used by a constraint on its request
		attr := resourceapi.FullyQualifiedName("derived.example.com/numa")
		con := resourceapi.DeviceConstraint{MatchAttribute: &attr}
		if g.p(30) && g.gate("DRAConsumableCapacity") {
			con = resourceapi.DeviceConstraint{DistinctAttribute: &attr}
		}
		c.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{con}
	}
	if g.p(25) {
		c.Spec.Devices.Config = []resourceapi.DeviceClaimConfiguration{{Requests: names[:1], DeviceConfiguration: resourceapi.DeviceConfiguration{
			Opaque: &resourceapi.OpaqueDeviceConfiguration{Driver: gpuDriver, Parameters: rawJSON(`{"claim":"` + c.Name + `"}`)}}}}
	}
	g.c.objs = append(g.c.objs, c)
}

func rawJSON(s string) runtime.RawExtension { return runtime.RawExtension{Raw: []byte(s)} }
