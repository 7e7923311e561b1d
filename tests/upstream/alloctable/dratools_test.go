// Upstream's own allocator test table run against dra-alloc.
//
// `make upstream-alloctable` copies the pinned k8s.io/dynamic-resource-allocation
// module into build/upstream/ and places this file beside upstream's shared
// table (structured/internal/allocatortesting), which only code inside that
// module may import.  TestDraAlloc hands the table an allocator that writes
// each case's inputs to a file, runs `dra-alloc --node` on it and reads the
// results back, so every expectation upstream holds its own allocators to is
// checked against the C allocator, unmodified.
package allocatortesting_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured/internal"
	"k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting"
	"k8s.io/dynamic-resource-allocation/structured/internal/experimental"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

// Every feature the newest allocator supports: a case runs unless it needs
// more than that.
func TestDraAlloc(t *testing.T) {
	bin := os.Getenv("DRA_ALLOC")
	if bin == "" {
		t.Skip("DRA_ALLOC (the dra-alloc binary to test) is not set")
	}
	keep := os.Getenv("DRA_ALLOCTABLE_KEEP") // a folder: each case's input is kept there
	allocatortesting.TestAllocator(t, experimental.SupportedFeatures,
		func(ctx context.Context, features internal.Features, state internal.AllocatedState,
			classes internal.DeviceClassLister, tableSlices []tableSlice, _ *cel.Cache) (internal.Allocator, error) {
			if t := caseT(ctx); t != nil {
				name := t.Name()[strings.LastIndex(t.Name(), "/")+1:]
				if why, ok := unreachable[name]; ok {
					t.Skipf("unreachable in a %s cluster: %s", release, why)
				}
			}
			slices := make([]*resourceapi.ResourceSlice, len(tableSlices))
			for i, s := range tableSlices {
				v1, err := v1Slice(s)
				if err != nil {
					return nil, fmt.Errorf("dra-tools harness: %w", err)
				}
				slices[i] = v1
			}
			return &cAllocator{bin: bin, keep: keep, features: features, state: state, classes: classes, slices: slices}, nil
		})
}

// sharedDevice is one shared allocation of the allocated state.
type sharedDevice struct {
	id    internal.DeviceID
	share types.UID
}

// caseT is the running case's *testing.T, which the table hands the
// allocator only inside its logger.
func caseT(ctx context.Context) *testing.T {
	if u, ok := klog.FromContext(ctx).GetSink().(ktesting.Underlier); ok {
		if t, ok := u.GetUnderlying().(*testing.T); ok {
			return t
		}
	}
	return nil
}

type cAllocator struct {
	bin      string
	keep     string
	features internal.Features
	state    internal.AllocatedState
	classes  internal.DeviceClassLister
	slices   []*resourceapi.ResourceSlice
	// The last Allocate's input and arguments (but the file), for GetStats.
	lastInput []byte
	lastArgs  []string
	logger    klog.Logger
}

func (a *cAllocator) Channel() internal.AllocatorChannel { return "dra-tools" }

var _ internal.AllocatorExtended = &cAllocator{}

// GetStats runs the last allocation again with --explain=json, whose stats
// count allocateOne calls as upstream does (the search unpruned, as the
// harness always runs it).  -1 when it cannot tell, so that the table fails.
func (a *cAllocator) GetStats() internal.Stats {
	fail := func(err error) internal.Stats {
		a.logger.Error(err, "dra-tools harness: no stats")
		return internal.Stats{NumAllocateOneInvocations: -1}
	}
	dir, err := os.MkdirTemp("", "dra-tools-stats-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "input.jsonl")
	if err := os.WriteFile(file, a.lastInput, 0o644); err != nil {
		return fail(err)
	}
	args := append(append([]string{"--explain=json"}, a.lastArgs...), file)
	cmd := exec.Command(a.bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run() // the outcome is Allocate's; the trace comes first on stderr either way
	var trace struct {
		Stats struct {
			Invocations *int64 `json:"invocations"`
		} `json:"stats"`
	}
	if err := json.NewDecoder(&stderr).Decode(&trace); err != nil || trace.Stats.Invocations == nil {
		return fail(fmt.Errorf("dra-alloc %s: no stats.invocations in the trace (%v)", strings.Join(args, " "), err))
	}
	return internal.Stats{NumAllocateOneInvocations: *trace.Stats.Invocations}
}

// gates spells the case's features as --feature-gates, every gate the
// allocator knows named explicitly (dra-alloc's defaults are a release's,
// the table's are all off).
func gates(f internal.Features) string {
	g := map[string]bool{
		"DRAAdminAccess":        f.AdminAccess,
		"DRAConsumableCapacity": f.ConsumableCapacity,
		"DRADeviceTaints":       f.DeviceTaints,
		// on only with DRADeviceTaints (kube_features.go's dependencies,
		// which dra-alloc checks as every component does)
		"DRADeviceTaintRules":          f.DeviceTaints,
		"DRAListTypeAttributes":        f.ListTypeAttributes,
		"DRAPartitionableDevices":      f.PartitionableDevices,
		"DRAPrioritizedList":           f.PrioritizedList,
		"DRADeviceBindingConditions":   f.DeviceBindingAndStatus,
		"DRAResourceClaimDeviceStatus": f.DeviceBindingAndStatus,
	}
	releaseGates(f, g)
	var out []string
	for k, v := range g {
		if locked[k] {
			continue
		}
		out = append(out, fmt.Sprintf("%s=%t", k, v))
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// stateClaim expresses the allocated state as one allocated claim, the way
// the scheduler derives that state from claims: a result without a shareID
// marks a device allocated; a shared one adds its shareID and its consumed
// capacity.
func (a *cAllocator) stateClaim() *resourceapi.ResourceClaim {
	var results []resourceapi.DeviceRequestAllocationResult
	ids := a.state.AllocatedDevices.UnsortedList()
	sort.Slice(ids, func(i, j int) bool { return ids[i].String() < ids[j].String() })
	for _, id := range ids {
		results = append(results, resourceapi.DeviceRequestAllocationResult{
			Request: "r", Driver: id.Driver.String(), Pool: id.Pool.String(), Device: id.Device.String(),
		})
	}
	capacityLeft := map[internal.DeviceID]bool{}
	for id := range a.state.AggregatedCapacity {
		capacityLeft[id] = true
	}
	n := 0
	add := func(id internal.DeviceID, share types.UID) {
		r := resourceapi.DeviceRequestAllocationResult{
			Request: "r", Driver: id.Driver.String(), Pool: id.Pool.String(), Device: id.Device.String(),
			ShareID: &share,
		}
		if capacityLeft[id] {
			r.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{}
			for name, q := range a.state.AggregatedCapacity[id] {
				if q != nil {
					r.ConsumedCapacity[capacityName(name)] = *q
				}
			}
			delete(capacityLeft, id)
		}
		results = append(results, r)
	}
	for _, s := range sharedDevices(a.state) {
		add(s.id, s.share)
	}
	var rest []internal.DeviceID
	for id := range capacityLeft {
		rest = append(rest, id)
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].String() < rest[j].String() })
	for _, id := range rest {
		n++
		add(id, types.UID(fmt.Sprintf("dra-tools-state-%d", n)))
	}
	if len(results) == 0 {
		return nil
	}
	c := &resourceapi.ResourceClaim{}
	c.APIVersion, c.Kind = "resource.k8s.io/v1", "ResourceClaim"
	c.Name, c.Namespace = "dra-tools-allocated-state", "default"
	c.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: results}}
	return c
}

func (a *cAllocator) Allocate(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim) ([]resourceapi.AllocationResult, error) {
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	// The table reuses names (one slice name in two pools, one claim
	// allocated twice); the tools refuse an object given twice, so a
	// repeated name gets a suffix.  Results come back in input order.
	seen := map[string]int{}
	put := func(apiVersion, kind string, obj runtime.Object) {
		obj = obj.DeepCopyObject()
		exactQuantities(reflect.ValueOf(obj))
		b, _ := json.Marshal(obj)
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber() // a count past 2^53 stays exact
		_ = dec.Decode(&m)
		m["apiVersion"], m["kind"] = apiVersion, kind
		if md, ok := m["metadata"].(map[string]any); ok {
			key := fmt.Sprintf("%s/%v/%v", kind, md["namespace"], md["name"])
			if n := seen[key]; n > 0 {
				md["name"] = fmt.Sprintf("%v-dra-tools-%d", md["name"], n)
			}
			seen[key]++
		}
		_ = enc.Encode(m)
	}
	if node != nil {
		put("v1", "Node", node)
	}
	classes, err := a.classes.List()
	if err != nil {
		return nil, err
	}
	for _, c := range classes {
		put("resource.k8s.io/v1", "DeviceClass", c)
	}
	for _, s := range a.slices {
		put("resource.k8s.io/v1", "ResourceSlice", s)
	}
	if c := a.stateClaim(); c != nil {
		put("resource.k8s.io/v1", "ResourceClaim", c)
	}
	for _, c := range claims {
		put("resource.k8s.io/v1", "ResourceClaim", c)
	}
	logger := klog.FromContext(ctx)
	dir, err := os.MkdirTemp(a.keep, "case-")
	if err != nil {
		return nil, fmt.Errorf("dra-tools harness: %w", err)
	}
	if a.keep == "" {
		defer os.RemoveAll(dir)
	}
	file := filepath.Join(dir, "input.jsonl")
	if err := os.WriteFile(file, in.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("dra-tools harness: %w", err)
	}
	nodeName := "node-1"
	if node != nil {
		nodeName = node.Name
	}
	args := []string{"--node", nodeName, "--no-validate", "--no-prune", "--timeout", "0",
		"--feature-gates", gates(a.features), "-o", "json"}
	a.lastInput, a.lastArgs, a.logger = in.Bytes(), args, logger
	args = append(args, file)
	cmd := exec.CommandContext(ctx, a.bin, args...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err = cmd.Run()
	logger.Info("dra-alloc", "args", strings.Join(args, " "), "stderr", stderr.String(), "stdout", out.String())
	var exit *exec.ExitError
	msg := unqualify(strings.TrimSpace(stderr.String()), claims)
	switch {
	case ctx.Err() != nil:
		// The table's context ended: the process was not started, or killed.
		return nil, fmt.Errorf("dra-tools harness: dra-alloc stopped: %w", ctx.Err())
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() == 1 &&
		(strings.Contains(msg, invalidPools) || strings.Contains(msg, allDevicesOfPool)):
		// Upstream's node-local errors: an error wrapping
		// ErrFailedAllocationOnNode, where the tool answers "not on this
		// node" (exit 1) and says why.
		return nil, fmt.Errorf("%s%w", msg, internal.ErrFailedAllocationOnNode)
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return nil, nil // cannot allocate on this node
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		return nil, errors.New(msg)
	default:
		return nil, fmt.Errorf("dra-tools harness: dra-alloc failed: %v: %s", err, stderr.String())
	}
	got, err := decodeClaims[resourceapi.ResourceClaim](out.Bytes())
	if err != nil {
		return nil, err
	}
	// The text of each consumed capacity, as dra-alloc wrote it.
	texts, err := decodeClaims[claimText](out.Bytes())
	if err != nil {
		return nil, err
	}
	if len(got) != len(claims) {
		return nil, fmt.Errorf("dra-tools harness: %d claims given, dra-alloc returned %d", len(claims), len(got))
	}
	// Opaque parameters come back re-encoded: hand back the input's own
	// bytes for the same JSON value, as the allocator copies them.
	raws := map[string][]byte{}
	keepRaw := func(cfgs []resourceapi.DeviceConfiguration) {
		for _, cfg := range cfgs {
			if cfg.Opaque != nil {
				raws[compact(cfg.Opaque.Parameters.Raw)] = cfg.Opaque.Parameters.Raw
			}
		}
	}
	for _, c := range claims {
		for _, cfg := range c.Spec.Devices.Config {
			keepRaw([]resourceapi.DeviceConfiguration{cfg.DeviceConfiguration})
		}
	}
	for _, c := range classes {
		for _, cfg := range c.Spec.Config {
			keepRaw([]resourceapi.DeviceConfiguration{cfg.DeviceConfiguration})
		}
	}
	var results []resourceapi.AllocationResult
	for ci, c := range got {
		if c.Status.Allocation != nil {
			// A quantity read from JSON has a representation of its own;
			// the table compares Go values as upstream builds them.
			for i, r := range c.Status.Allocation.Devices.Results {
				for name, q := range r.ConsumedCapacity {
					u := a.asUpstream(claims[ci], r, name, q)
					// The API server stores upstream's quantity as its
					// String(), unless that text loses the value (see
					// exactQuantities): dra-alloc must write the same.
					text := texts[ci].Status.Allocation.Devices.Results[i].ConsumedCapacity[name]
					cp := u.DeepCopy() // String() caches its text in the quantity
					want := cp.String()
					if back, err := resource.ParseQuantity(want); err == nil && back.Cmp(u) == 0 && text != want {
						return nil, fmt.Errorf("dra-tools harness: claim %s, result #%d, consumedCapacity %s: dra-alloc wrote %q, upstream's quantity is written %q",
							c.Name, i, name, text, want)
					}
					c.Status.Allocation.Devices.Results[i].ConsumedCapacity[name] = u
				}
				a.emptyAsUpstream(claims[ci], &c.Status.Allocation.Devices.Results[i])
			}
			for i, cfg := range c.Status.Allocation.Devices.Config {
				if cfg.Opaque != nil {
					if raw, ok := raws[compact(cfg.Opaque.Parameters.Raw)]; ok {
						c.Status.Allocation.Devices.Config[i].Opaque.Parameters.Raw = raw
					}
				}
			}
		}
		if c.Status.Allocation == nil {
			return nil, fmt.Errorf("dra-tools harness: dra-alloc exited 0 but claim %s has no allocation", c.Name)
		}
		results = append(results, *c.Status.Allocation)
	}
	return results, nil
}

// exactQuantities rewrites, in place, every quantity under v whose text
// does not read back as its value: Quantity.String() drops a decimal
// exponent past 10^18 ("1000000000000000000000" prints as "1"), so such a
// value is written with its exponent ("1e21").
func exactQuantities(v reflect.Value) {
	quantity := reflect.TypeOf(resource.Quantity{})
	exact := func(q resource.Quantity) (resource.Quantity, bool) {
		back, err := resource.ParseQuantity(q.String())
		if err == nil && back.Cmp(q) == 0 {
			return q, false
		}
		return *resource.NewDecimalQuantity(*q.AsDec(), resource.DecimalExponent), true
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			exactQuantities(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == quantity {
			if q, changed := exact(v.Interface().(resource.Quantity)); changed && v.CanSet() {
				v.Set(reflect.ValueOf(q))
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				exactQuantities(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			exactQuantities(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := v.MapIndex(k)
			if e.Type() == quantity {
				if q, changed := exact(e.Interface().(resource.Quantity)); changed {
					v.SetMapIndex(k, reflect.ValueOf(q))
				}
				continue
			}
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			exactQuantities(c)
			v.SetMapIndex(k, c)
		}
	}
}

// claimText is what the harness reads of a claim as text.
type claimText struct {
	Status struct {
		Allocation struct {
			Devices struct {
				Results []struct {
					ConsumedCapacity map[resourceapi.QualifiedName]string `json:"consumedCapacity"`
				} `json:"results"`
			} `json:"devices"`
		} `json:"allocation"`
	} `json:"status"`
}

// decodeClaims reads dra-alloc's -o json output: nothing (no pending
// claims), one claim, or a List of them.
func decodeClaims[T any](out []byte) ([]T, error) {
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, nil
	}
	var list struct {
		Kind  string `json:"kind"`
		Items []T    `json:"items"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("dra-tools harness: dra-alloc output: %v", err)
	}
	if list.Kind == "List" || list.Kind == "ResourceClaimList" {
		return list.Items, nil
	}
	var one T
	if err := json.Unmarshal(out, &one); err != nil {
		return nil, fmt.Errorf("dra-tools harness: dra-alloc output: %v", err)
	}
	return []T{one}, nil
}

// The texts of upstream's non-fatal errors: invalid pools seen, and from
// 1.38 on All over a pool being updated or invalid
// (allocator_experimental.go, v0.38.0-beta.0), which dra-alloc answers
// with exit 1 and that message under --kubernetes-version 1.38.
const (
	invalidPools     = "invalid resource pools were encountered"
	allDevicesOfPool = ": asks for all devices, but resource pool "
)

// unqualify undoes the tools' namespace default in msg: the table's claims
// have none, which a cluster never stores, so the tools read them as in
// "default" and name them "default/NAME" where upstream prints the bare name
// (klog.KObj of an object without a namespace).
func unqualify(msg string, claims []*resourceapi.ResourceClaim) string {
	for _, c := range claims {
		if c.Namespace == "" {
			re := regexp.MustCompile(`\bdefault/` + regexp.QuoteMeta(c.Name) + `\b`)
			msg = re.ReplaceAllLiteralString(msg, c.Name)
		}
	}
	return msg
}

func compact(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// asUpstream gives the consumed capacity q (dra-alloc's value) the
// representation upstream's allocator gives it.  That allocator copies one
// of the quantities it was given (the request, the policy's default, minimum
// or valid value, the capacity) or builds a new one in the step's format
// (calculateConsumedCapacity and roundUpRange in experimental/
// consumable_capacity.go).  Which one follows its decision, taken here on
// dra-alloc's value; the value itself is never changed: a quantity that
// differs from the one chosen is returned as read, and the table fails.
func (a *cAllocator) asUpstream(claim *resourceapi.ResourceClaim, r resourceapi.DeviceRequestAllocationResult,
	name resourceapi.QualifiedName, q resource.Quantity) resource.Quantity {
	capacity, ok := a.deviceCapacity(r, name)
	if !ok {
		return q
	}
	same := func(src *resource.Quantity) resource.Quantity {
		if src != nil && src.Cmp(q) == 0 {
			return src.DeepCopy()
		}
		return q
	}
	built := func(b *resource.Quantity) resource.Quantity {
		if b.Cmp(q) == 0 {
			return *b
		}
		return q
	}
	req := requestedCapacity(claim, r.Request, name, r.Driver)
	policy := capacity.RequestPolicy
	switch {
	case req == nil && policy != nil && policy.Default != nil:
		return same(policy.Default)
	case req == nil:
		return same(&capacity.Value)
	case policy == nil:
		return same(req)
	case policy.ValidRange != nil && policy.ValidRange.Min != nil:
		rng := policy.ValidRange
		switch {
		case req.Cmp(*rng.Min) < 0:
			return same(rng.Min)
		case rng.Step == nil:
			return same(req)
		case useMilli(rng, fractionalCapacityRange(a.features)):
			if q.MilliValue()%1000 == 0 {
				return built(resource.NewQuantity(q.MilliValue()/1000, rng.Step.Format))
			}
			return built(resource.NewMilliQuantity(q.MilliValue(), rng.Step.Format))
		default:
			return built(resource.NewQuantity(q.Value(), rng.Step.Format))
		}
	case policy.ValidValues != nil:
		for i := range policy.ValidValues {
			if req.Cmp(policy.ValidValues[i]) <= 0 {
				return same(&policy.ValidValues[i])
			}
		}
	}
	return same(req)
}

// emptyAsUpstream gives r the empty lists upstream copies into a result
// from the device (binding conditions), its slice (skipNodeOperations) and
// the request (tolerations): JSON drops an empty list (omitempty), so a
// list read back is nil where upstream's Go value is empty but not nil.
// Only a list dra-alloc left out is filled, and only with an empty one.
func (a *cAllocator) emptyAsUpstream(claim *resourceapi.ResourceClaim, r *resourceapi.DeviceRequestAllocationResult) {
	for _, s := range a.slices {
		if s.Spec.Driver != r.Driver || s.Spec.Pool.Name != r.Pool {
			continue
		}
		for _, d := range s.Spec.Devices {
			if d.Name != r.Device {
				continue
			}
			emptySkipNodeOperations(r, s)
			if a.features.DeviceBindingAndStatus {
				emptyList(&r.BindingConditions, d.BindingConditions)
				emptyList(&r.BindingFailureConditions, d.BindingFailureConditions)
			}
		}
	}
	parent, sub, _ := strings.Cut(r.Request, "/")
	for _, rq := range claim.Spec.Devices.Requests {
		var tolerations []resourceapi.DeviceToleration
		switch {
		case rq.Name != parent:
			continue
		case sub == "" && rq.Exactly != nil:
			tolerations = rq.Exactly.Tolerations
		default:
			for _, s := range rq.FirstAvailable {
				if s.Name == sub {
					tolerations = s.Tolerations
				}
			}
		}
		emptyList(&r.Tolerations, tolerations)
	}
}

// emptyList sets *dst to src when dst is nil and src empty but not nil.
func emptyList[T any](dst *[]T, src []T) {
	if *dst == nil && src != nil && len(src) == 0 {
		*dst = src
	}
}

// useMilli is upstream's choice of milli-unit range arithmetic: the gate on,
// every bound a whole number of milli-units, the step at least 1m.
func useMilli(rng *resourceapi.CapacityRequestPolicyRange, gate bool) bool {
	if !gate {
		return false
	}
	for _, b := range []*resource.Quantity{rng.Min, rng.Max, rng.Step} {
		if b != nil && b.Cmp(*resource.NewMilliQuantity(b.MilliValue(), b.Format)) != 0 {
			return false
		}
	}
	return rng.Step == nil || rng.Step.MilliValue() >= 1
}

// deviceCapacity is the capacity name of the device of result r.
func (a *cAllocator) deviceCapacity(r resourceapi.DeviceRequestAllocationResult, name resourceapi.QualifiedName) (resourceapi.DeviceCapacity, bool) {
	for _, s := range a.slices {
		if s.Spec.Driver != r.Driver || s.Spec.Pool.Name != r.Pool {
			continue
		}
		for _, d := range s.Spec.Devices {
			if c, ok := d.Capacity[name]; ok && d.Name == r.Device {
				return c, true
			}
		}
	}
	return resourceapi.DeviceCapacity{}, false
}

// requestedCapacity is what request ("req" or "req/sub") of claim asks of
// capacity name of a device of driver, nil when nothing.  From 1.38 on a
// request may name the capacity with or without the driver's domain
// whichever way the slice spells it (consumable_capacity.go); through 1.37
// the two spellings never meet, so the other one is looked up too.
func requestedCapacity(claim *resourceapi.ResourceClaim, request string, name resourceapi.QualifiedName, driver string) *resource.Quantity {
	other := resourceapi.QualifiedName(driver + "/" + string(name))
	if d, n, ok := strings.Cut(string(name), "/"); ok {
		other = ""
		if d == driver {
			other = resourceapi.QualifiedName(n)
		}
	}
	parent, sub, _ := strings.Cut(request, "/")
	for _, rq := range claim.Spec.Devices.Requests {
		if rq.Name != parent {
			continue
		}
		var c *resourceapi.CapacityRequirements
		if rq.Exactly != nil && sub == "" {
			c = rq.Exactly.Capacity
		}
		for _, s := range rq.FirstAvailable {
			if s.Name == sub {
				c = s.Capacity
			}
		}
		if c != nil {
			if v, ok := c.Requests[name]; ok {
				return &v
			}
			if v, ok := c.Requests[other]; ok && other != "" {
				return &v
			}
		}
	}
	return nil
}
