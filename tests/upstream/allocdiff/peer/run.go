package peer

// One `dra-alloc --node` run done by upstream's code: objects decoded as the
// API server decodes them (any served version, defaulted, converted to v1:
// k8s.io/kubernetes/pkg/api/legacyscheme), ResourceSlices patched with
// DeviceTaintRules as the scheduler's slice tracker patches them
// (k8s.io/dynamic-resource-allocation/resourceslice/tracker: applyPatches),
// the allocated state gathered from allocated claims as the scheduler does
// (pkg/scheduler/framework/plugins/dynamicresources: foreachAllocatedDevice,
// GatherAllocatedState), the allocator's features from the gates
// (AllocatorFeatures), and structured.NewAllocator(...).Allocate for the
// node with every pending claim, in input order.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	kfeatures "k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// Exit codes, as dra-alloc's.
const (
	ExitOK      = 0
	ExitNo      = 1 // cannot allocate on this node
	ExitInput   = 2 // bad input, or the allocator's error
	ExitRuntime = 3
)

// Options of one run.
type Options struct {
	Node    string
	Gates   string        // --feature-gates
	Now     time.Time     // --now (zero: the time of the run)
	Timeout time.Duration // 0: none
}

// Outcome of one run: the pending claims with their allocation (exit 0),
// or the exit code and upstream's message.
type Outcome struct {
	Claims []*resourceapi.ResourceClaim
	Exit   int
	Msg    string
}

type classes map[string]*resourceapi.DeviceClass

func (c classes) List() ([]*resourceapi.DeviceClass, error) {
	var out []*resourceapi.DeviceClass
	for _, v := range c {
		out = append(out, v)
	}
	return out, nil
}

func (c classes) Get(name string) (*resourceapi.DeviceClass, error) {
	if v, ok := c[name]; ok {
		return v, nil
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("deviceclass"), name) // as the generated lister says it
}

// Features are the allocator's features for a --feature-gates value, as
// the scheduler derives them from kube-scheduler's gates.
func Features(gates string) (structured.Features, feature.Features, error) {
	fg, err := gatesCopy(gates)
	if err != nil {
		return structured.Features{}, feature.Features{}, err
	}
	fts := feature.NewSchedulerFeaturesFromGates(fg)
	_ = fg.Enabled(kfeatures.DRADeviceTaintRules)
	return dynamicresources.AllocatorFeatures(fts), fts, nil
}

func taintRulesOn(gates string) bool {
	fg, err := gatesCopy("")
	if err != nil {
		return false
	}
	_ = fg.Set(gates)
	return fg.Enabled(kfeatures.DRADeviceTaintRules)
}

func init() {
	// the feature gates' and the allocator's logs are not the peer's output
	klog.SetLogger(logr.Discard())
}

// Decoding to the internal version (defaults of the version read), then
// conversion to v1: the API server's path (external versions convert only
// through the internal one).
var decoder = legacyscheme.Codecs.UniversalDecoder()

// Input is the objects a run uses, decoded.
type Input struct {
	Nodes  []*corev1.Node
	Class  classes
	Slices []*resourceapi.ResourceSlice
	Rules  []*taintRule
	Claims []*resourceapi.ResourceClaim
	// a schedule's (DecodeSchedule), else empty
	Pods       []*corev1.Pod
	Templates  map[string]*resourceapi.ResourceClaimTemplate // by "namespace/name"
	Priorities []PriorityClass
}

// Decode decodes the objects of kinds the allocator uses; others are
// skipped, as dra-alloc skips them.
func Decode(raws []Raw) (*Input, error) {
	return decode(raws, nil, false)
}

// decode is Decode, with prepare (when set) run on each internal object,
// and with sched the Pods, ResourceClaimTemplates and PriorityClasses too.
func decode(raws []Raw, prepare func(runtime.Object), sched bool) (*Input, error) {
	in := &Input{Class: classes{}, Templates: map[string]*resourceapi.ResourceClaimTemplate{}}
	for _, r := range raws {
		var head metav1.TypeMeta
		if err := jsonUnmarshal(r.JSON, &head); err != nil {
			return nil, fmt.Errorf("%s: %v", r.Where, err)
		}
		switch av := head.APIVersion; {
		case head.Kind == "Node" && av == "v1":
		case strings.HasPrefix(av, "resource.k8s.io/") &&
			(head.Kind == "DeviceClass" || head.Kind == "ResourceSlice" || head.Kind == "ResourceClaim" || head.Kind == "DeviceTaintRule"):
		case sched && head.Kind == "Pod" && av == "v1":
		case sched && head.Kind == "ResourceClaimTemplate" && strings.HasPrefix(av, "resource.k8s.io/"):
		case sched && head.Kind == "PriorityClass" && strings.HasPrefix(av, "scheduling.k8s.io/"):
			var pc PriorityClass
			if err := jsonUnmarshal(r.JSON, &pc); err != nil {
				return nil, fmt.Errorf("%s: %v", r.Where, err)
			}
			in.Priorities = append(in.Priorities, pc)
			continue
		default:
			continue
		}
		internal, _, err := decoder.Decode(r.JSON, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", r.Where, err)
		}
		if prepare != nil {
			prepare(internal)
		}
		gv := resourceapi.SchemeGroupVersion
		switch head.Kind {
		case "Node", "Pod":
			gv = corev1.SchemeGroupVersion
		case "DeviceTaintRule":
			gv = taintRuleVersion
		}
		obj, err := legacyscheme.Scheme.ConvertToVersion(internal, gv)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", r.Where, err)
		}
		switch o := obj.(type) {
		case *corev1.Node:
			in.Nodes = append(in.Nodes, o)
		case *resourceapi.DeviceClass:
			in.Class[o.Name] = o
		case *resourceapi.ResourceSlice:
			in.Slices = append(in.Slices, o)
		case *taintRule:
			in.Rules = append(in.Rules, o)
		case *resourceapi.ResourceClaim:
			if o.Namespace == "" {
				o.Namespace = "default"
			}
			in.Claims = append(in.Claims, o)
		case *corev1.Pod:
			if o.Namespace == "" {
				o.Namespace = "default"
			}
			in.Pods = append(in.Pods, o)
		case *resourceapi.ResourceClaimTemplate:
			if o.Namespace == "" {
				o.Namespace = "default"
			}
			in.Templates[o.Namespace+"/"+o.Name] = o
		default:
			return nil, fmt.Errorf("%s: unexpected %T", r.Where, obj)
		}
	}
	return in, nil
}

// patched applies the DeviceTaintRules to a slice as the tracker does.
func patched(slice *resourceapi.ResourceSlice, rules []*taintRule, now metav1.Time) *resourceapi.ResourceSlice {
	out := slice
	for _, rule := range rules {
		driver, pool, device, taint, ok := ruleTarget(rule)
		if !ok ||
			(driver != nil && *driver != slice.Spec.Driver) ||
			(pool != nil && *pool != slice.Spec.Pool.Name) {
			continue
		}
		for i, d := range slice.Spec.Devices {
			if device != nil && *device != d.Name {
				continue
			}
			if out == slice {
				out = slice.DeepCopy()
			}
			if taint.TimeAdded == nil {
				taint.TimeAdded = &now
			}
			out.Spec.Devices[i].Taints = append(out.Spec.Devices[i].Taints, taint)
		}
	}
	return out
}

// State is the scheduler's allocated state of the allocated claims.
func State(claims []*resourceapi.ResourceClaim, consumable bool) structured.AllocatedState {
	s := newState()
	for _, c := range claims {
		addAllocated(&s, c, consumable)
	}
	return s
}

// addAllocated adds the devices of one claim's allocation (if any) to s, as
// the scheduler's foreachAllocatedDevice does.
func addAllocated(s *structured.AllocatedState, c *resourceapi.ResourceClaim, consumable bool) {
	if c.Status.Allocation == nil {
		return
	}
	for _, r := range c.Status.Allocation.Devices.Results {
		if r.AdminAccess != nil && *r.AdminAccess {
			continue
		}
		id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
		if consumable && r.ShareID != nil {
			addShared(s, id, r.ShareID)
			if r.ConsumedCapacity != nil {
				s.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, r.ConsumedCapacity))
			}
			continue
		}
		s.AllocatedDevices.Insert(id)
	}
}

// ExitPanic is upstream's allocator panicking (upstream-alloc exits 3).
const ExitPanic = 99

// Run allocates the pending claims of in on o.Node.
func Run(ctx context.Context, o Options, in *Input) (out Outcome) {
	defer func() {
		if p := recover(); p != nil {
			out = Outcome{Exit: ExitPanic, Msg: fmt.Sprintf("upstream's allocator panicked: %v", p)}
		}
	}()
	features, fts, err := Features(o.Gates)
	if err != nil {
		return Outcome{Exit: ExitInput, Msg: "--feature-gates: " + err.Error()}
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	mnow := metav1.NewTime(now.Truncate(time.Second))
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: o.Node}}
	for _, n := range in.Nodes {
		if n.Name == o.Node {
			node = n
		}
	}
	slices := in.Slices
	if taintRulesOn(o.Gates) && len(in.Rules) > 0 {
		slices = make([]*resourceapi.ResourceSlice, len(in.Slices))
		for i, s := range in.Slices {
			slices[i] = patched(s, in.Rules, mnow)
		}
	}
	var pending []*resourceapi.ResourceClaim
	for _, c := range in.Claims {
		if c.Status.Allocation == nil {
			pending = append(pending, c)
		}
	}
	state := State(in.Claims, fts.EnableDRAConsumableCapacity)
	celCache := cel.NewCache(10, cel.Features{
		EnableConsumableCapacity: fts.EnableDRAConsumableCapacity,
		EnableListTypeAttributes: fts.EnableDRAListTypeAttributes,
	})
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	if len(pending) == 0 {
		return Outcome{}
	}
	alloc, err := newAllocator(ctx, features, state, in.Class, slices, celCache)
	if err != nil {
		return Outcome{Exit: ExitInput, Msg: err.Error()}
	}
	results, err := alloc.Allocate(ctx, node, pending)
	switch {
	case errors.Is(err, structured.ErrFailedAllocationOnNode):
		return Outcome{Exit: ExitNo, Msg: err.Error()}
	case err != nil && ctx.Err() != nil:
		return Outcome{Exit: ExitRuntime, Msg: err.Error()}
	case err != nil:
		return Outcome{Exit: ExitInput, Msg: err.Error()}
	case results == nil:
		return Outcome{Exit: ExitNo, Msg: fmt.Sprintf("cannot allocate all claims on node %s", o.Node)}
	}
	claims := make([]*resourceapi.ResourceClaim, len(pending))
	for i, c := range pending {
		c = c.DeepCopy()
		c.APIVersion, c.Kind = "resource.k8s.io/v1", "ResourceClaim"
		c.Status.Allocation = &results[i]
		claims[i] = c
	}
	return Outcome{Claims: claims}
}

var _ runtime.Object = &resourceapi.ResourceClaim{}

// Nodes are the Nodes of an input and the nodes its slices name, in order
// ("node-1" when there are none).
func Nodes(in *Input) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range in.Nodes {
		add(n.Name)
	}
	for _, s := range in.Slices {
		if s.Spec.NodeName != nil {
			add(*s.Spec.NodeName)
		}
		for _, d := range s.Spec.Devices {
			if d.NodeName != nil {
				add(*d.NodeName)
			}
		}
	}
	if len(out) == 0 {
		add("node-1")
	}
	return out
}
