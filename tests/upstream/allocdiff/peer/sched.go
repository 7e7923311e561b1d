package peer

// One `dra-alloc schedule` run done with upstream's allocator, driven as the
// scheduler drives it (k8s.io/kubernetes@v1.37.2
// pkg/scheduler/framework/plugins/dynamicresources):
//
//   - the pending pods (no spec.nodeName, not finished, not being deleted)
//     in dra-alloc's queue order (src/common/sched/queue.h: priority, then
//     creationTimestamp, pods without one last in input order; equal times
//     by namespace and name);
//   - claims from templates made first, pod by pod in that order, as the
//     resourceclaim controller makes them (pkg/controller/resourceclaim
//     controller.go handleClaim: the template's spec, generateName
//     POD-CLAIM-, the pod as controlling owner);
//   - per pod, PreFilter: the allocated state gathered once
//     (dra_manager.go GatherAllocatedState / ListAllAllocatedDevices: a copy
//     of the tracked set of allocated devices), one structured.NewAllocator
//     over it; Filter, node by node: allocated claims' nodeSelector must
//     match, then allocator.Allocate(node, pending claims);
//   - nodes tried in name order, as dra-alloc tries them; the node with the
//     highest DynamicResources score (computeScore: firstAvailable
//     preference) is taken, ties to the first in name order; nodes after one
//     that reached the highest score possible are not tried (they could only
//     tie), so without firstAvailable requests the first node that fits
//     wins, as in dra-alloc;
//   - Reserve and PreBind: the allocation is written to the claims' status
//     and added to the tracked allocated state before the next pod.
//
// Only DRA's checks are made, as in dra-alloc.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// PriorityClass is what the queue reads of a scheduling.k8s.io PriorityClass.
type PriorityClass struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Value         int32 `json:"value"`
	GlobalDefault bool  `json:"globalDefault"`
}

// Placement is one pending pod's outcome, in the order pods were tried.
type Placement struct {
	Pod     string   `json:"pod"`            // namespace/name
	Node    string   `json:"node,omitempty"` // empty: not placed
	Devices []string `json:"devices"`        // driver/pool/device of its claims' allocations, sorted
	Message string   `json:"message,omitempty"`
	Error   bool     `json:"error,omitempty"` // the allocator's error, not a fit error
}

// SchedStats are the figures of one run.
type SchedStats struct {
	Pods, Scheduled, Unschedulable, Errors int
	NodeChecks, AllocatorRuns              int
	Seconds                                float64 // placement alone (input read and decoded before)
}

// priority is the pod's priority as admission sets it.
func priority(p *corev1.Pod, pcs []PriorityClass) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	switch p.Spec.PriorityClassName {
	case "system-cluster-critical":
		return 2000000000
	case "system-node-critical":
		return 2000001000
	case "":
		var v *int32
		for i := range pcs {
			if pcs[i].GlobalDefault && (v == nil || pcs[i].Value < *v) {
				v = &pcs[i].Value
			}
		}
		if v != nil {
			return *v
		}
		return 0
	}
	for _, pc := range pcs {
		if pc.Metadata.Name == p.Spec.PriorityClassName {
			return pc.Value
		}
	}
	return 0
}

func pending(p *corev1.Pod) bool {
	return p.Spec.NodeName == "" && p.DeletionTimestamp == nil &&
		p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// queueOrder is the pending pods in the order the queue pops them.
func queueOrder(in *Input) []*corev1.Pod {
	type entry struct {
		pod  *corev1.Pod
		prio int32
		idx  int
	}
	var q []entry
	for i, p := range in.Pods {
		if pending(p) {
			q = append(q, entry{p, priority(p, in.Priorities), i})
		}
	}
	sort.SliceStable(q, func(i, j int) bool {
		a, b := q[i], q[j]
		if a.prio != b.prio {
			return a.prio > b.prio
		}
		at, bt := a.pod.CreationTimestamp, b.pod.CreationTimestamp
		if at.IsZero() != bt.IsZero() {
			return bt.IsZero()
		}
		if at.IsZero() {
			return a.idx < b.idx
		}
		if !at.Equal(&bt) {
			return at.Before(&bt)
		}
		if a.pod.Namespace != b.pod.Namespace {
			return a.pod.Namespace < b.pod.Namespace
		}
		return a.pod.Name < b.pod.Name
	})
	out := make([]*corev1.Pod, len(q))
	for i, e := range q {
		out[i] = e.pod
	}
	return out
}

// schedRun is the state of one run.
type schedRun struct {
	in       *Input
	claims   map[string]*resourceapi.ResourceClaim // by namespace/name
	state    structured.AllocatedState             // tracked, as the scheduler's allocatedDevices
	features structured.Features
	cons     bool
	slices   []*resourceapi.ResourceSlice
	celCache *cel.Cache
	nodes    []*corev1.Node
	timeout  time.Duration
	stats    SchedStats
}

// fromTemplate is the claim the resourceclaim controller makes for a pod's
// claim from a template.
func fromTemplate(p *corev1.Pod, pc corev1.PodResourceClaim, t *resourceapi.ResourceClaimTemplate) *resourceapi.ResourceClaim {
	name := p.Name + "-" + pc.Name + "-peer"
	ann := map[string]string{"resource.kubernetes.io/pod-claim-name": pc.Name}
	for k, v := range t.Spec.ObjectMeta.Annotations {
		ann[k] = v
	}
	yes := true
	return &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, GenerateName: p.Name + "-" + pc.Name + "-", Namespace: p.Namespace,
			UID:         types.UID("uid-" + p.Namespace + "-" + name),
			Labels:      t.Spec.ObjectMeta.Labels,
			Annotations: ann,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID,
				Controller: &yes, BlockOwnerDeletion: &yes}},
		},
		Spec: *t.Spec.Spec.DeepCopy(),
	}
}

// podClaims are the pod's claims (each once), or why it cannot be tried.
func (s *schedRun) podClaims(p *corev1.Pod, made map[string]string) ([]*resourceapi.ResourceClaim, string) {
	var out []*resourceapi.ResourceClaim
	seen := map[*resourceapi.ResourceClaim]bool{}
	for _, pc := range p.Spec.ResourceClaims {
		name := ""
		switch {
		case pc.ResourceClaimName != nil:
			name = *pc.ResourceClaimName
		case pc.ResourceClaimTemplateName != nil:
			for _, st := range p.Status.ResourceClaimStatuses {
				if st.Name == pc.Name && st.ResourceClaimName != nil {
					name = *st.ResourceClaimName
				}
			}
			if name == "" {
				name = made[p.Namespace+"/"+p.Name+"/"+pc.Name]
			}
			if name == "" {
				return nil, fmt.Sprintf("pod %s/%s: no claim made for %s", p.Namespace, p.Name, pc.Name)
			}
		default:
			continue
		}
		c := s.claims[p.Namespace+"/"+name]
		if c == nil {
			return nil, fmt.Sprintf("resourceclaim %q not found", name)
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, ""
}

// makeClaims makes the claims of the pods' templates, pods in queue order.
func (s *schedRun) makeClaims(pods []*corev1.Pod) map[string]string {
	made := map[string]string{}
	for _, p := range pods {
		for _, pc := range p.Spec.ResourceClaims {
			if pc.ResourceClaimTemplateName == nil {
				continue
			}
			has := false
			for _, st := range p.Status.ResourceClaimStatuses {
				has = has || st.Name == pc.Name
			}
			t := s.in.Templates[p.Namespace+"/"+*pc.ResourceClaimTemplateName]
			if has || t == nil {
				continue
			}
			c := fromTemplate(p, pc, t)
			s.claims[c.Namespace+"/"+c.Name] = c
			made[p.Namespace+"/"+p.Name+"/"+pc.Name] = c.Name
		}
	}
	return made
}

// maxScore is the highest DynamicResources score the claims can get.
func maxScore(claims []*resourceapi.ResourceClaim) int64 {
	var n int64
	for _, c := range claims {
		for _, r := range c.Spec.Devices.Requests {
			if r.Exactly == nil && len(r.FirstAvailable) > 0 {
				n += resourceapi.FirstAvailableDeviceRequestMaxSize
			}
		}
	}
	return n
}

// score is computeScore: 8 - i for every firstAvailable request served by
// its subrequest i.
func score(claims []*resourceapi.ResourceClaim, results []resourceapi.AllocationResult) int64 {
	var n int64
	k := 0
	for _, c := range claims {
		a := c.Status.Allocation
		if a == nil {
			a = &results[k]
			k++
		}
		got := map[string]bool{}
		for _, r := range a.Devices.Results {
			got[r.Request] = true
		}
		for _, r := range c.Spec.Devices.Requests {
			for i, sub := range r.FirstAvailable {
				if r.Exactly == nil && got[r.Name+"/"+sub.Name] {
					n += int64(resourceapi.FirstAvailableDeviceRequestMaxSize - i)
				}
			}
		}
	}
	return n
}

// allocatedFits: the allocated claims' node selectors match the node.
func allocatedFits(claims []*resourceapi.ResourceClaim, node *corev1.Node) bool {
	for _, c := range claims {
		if a := c.Status.Allocation; a != nil && a.NodeSelector != nil {
			sel, err := nodeaffinity.NewNodeSelector(a.NodeSelector)
			if err != nil || !sel.Match(node) {
				return false
			}
		}
	}
	return true
}

// place tries one pod on the nodes.
func (s *schedRun) place(ctx context.Context, p *corev1.Pod, claims []*resourceapi.ResourceClaim) Placement {
	out := Placement{Pod: p.Namespace + "/" + p.Name, Devices: []string{}}
	var todo []*resourceapi.ResourceClaim
	for _, c := range claims {
		if c.Status.Allocation == nil {
			todo = append(todo, c)
		}
	}
	var alloc structured.Allocator
	if len(todo) > 0 {
		st := structured.AllocatedState{AllocatedDevices: s.state.AllocatedDevices.Clone(),
			AllocatedSharedDeviceIDs: s.state.AllocatedSharedDeviceIDs.Clone(), AggregatedCapacity: s.state.AggregatedCapacity.Clone()}
		var err error
		if alloc, err = newAllocator(ctx, s.features, st, s.in.Class, s.slices, s.celCache); err != nil {
			out.Message, out.Error = err.Error(), true
			return out
		}
	}
	ceiling := maxScore(claims)
	best, bestScore := -1, int64(-1)
	var bestResults []resourceapi.AllocationResult
	for i, n := range s.nodes {
		s.stats.NodeChecks++
		if !allocatedFits(claims, n) {
			continue
		}
		var results []resourceapi.AllocationResult
		if alloc != nil {
			s.stats.AllocatorRuns++
			actx, cancel := ctx, context.CancelFunc(func() {})
			if s.timeout > 0 {
				actx, cancel = context.WithTimeout(ctx, s.timeout)
			}
			r, err := alloc.Allocate(actx, n, todo)
			cancel()
			switch {
			case errors.Is(err, structured.ErrFailedAllocationOnNode) || (err == nil && r == nil):
				continue
			case err != nil:
				out.Message, out.Error = fmt.Sprintf("node %s: %v", n.Name, err), true
				return out
			}
			results = r
		}
		if sc := score(claims, results); sc > bestScore {
			best, bestScore, bestResults = i, sc, results
			if sc >= ceiling {
				break
			}
		}
	}
	if best < 0 {
		out.Message = fmt.Sprintf("0/%d nodes are available", len(s.nodes))
		return out
	}
	out.Node = s.nodes[best].Name
	k := 0
	for _, c := range claims {
		if c.Status.Allocation == nil {
			c.Status.Allocation = &bestResults[k]
			k++
			addAllocated(&s.state, c, s.cons)
		}
		c.Status.ReservedFor = append(c.Status.ReservedFor,
			resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: p.Name, UID: p.UID})
		for _, r := range c.Status.Allocation.Devices.Results {
			out.Devices = append(out.Devices, r.Driver+"/"+r.Pool+"/"+r.Device)
		}
	}
	sort.Strings(out.Devices)
	p.Spec.NodeName = out.Node
	return out
}

// Schedule places the pending pods of in (DecodeSchedule) as dra-alloc
// schedule does; every pod tried is in the result, in the order tried
// (pods with no claims are passed over, as dra-alloc skips them).
func Schedule(ctx context.Context, o Options, in *Input) ([]Placement, SchedStats, error) {
	t0 := time.Now()
	features, fts, err := Features(o.Gates)
	if err != nil {
		return nil, SchedStats{}, fmt.Errorf("--feature-gates: %v", err)
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	s := &schedRun{in: in, claims: map[string]*resourceapi.ResourceClaim{}, features: features,
		cons: fts.EnableDRAConsumableCapacity, slices: in.Slices, timeout: o.Timeout,
		celCache: cel.NewCache(10, cel.Features{EnableConsumableCapacity: fts.EnableDRAConsumableCapacity,
			EnableListTypeAttributes: fts.EnableDRAListTypeAttributes})}
	if taintRulesOn(o.Gates) && len(in.Rules) > 0 {
		mnow := metav1.NewTime(now.Truncate(time.Second))
		s.slices = make([]*resourceapi.ResourceSlice, len(in.Slices))
		for i, sl := range in.Slices {
			s.slices[i] = patched(sl, in.Rules, mnow)
		}
	}
	for _, c := range in.Claims {
		s.claims[c.Namespace+"/"+c.Name] = c
	}
	s.state = State(in.Claims, s.cons)
	s.nodes = append(s.nodes, in.Nodes...)
	sort.SliceStable(s.nodes, func(i, j int) bool { return s.nodes[i].Name < s.nodes[j].Name })
	pods := queueOrder(in)
	made := s.makeClaims(pods)
	var out []Placement
	for _, p := range pods {
		if len(p.Spec.ResourceClaims) == 0 {
			continue
		}
		s.stats.Pods++
		claims, why := s.podClaims(p, made)
		var pl Placement
		if why != "" {
			pl = Placement{Pod: p.Namespace + "/" + p.Name, Devices: []string{}, Message: why}
		} else {
			pl = s.place(ctx, p, claims)
		}
		switch {
		case pl.Node != "":
			s.stats.Scheduled++
		case pl.Error:
			s.stats.Errors++
		default:
			s.stats.Unschedulable++
		}
		out = append(out, pl)
	}
	s.stats.Seconds = time.Since(t0).Seconds()
	return out, s.stats, nil
}
