package main

// The device-taint-eviction controller reads time.Now(); in the synctest
// bubble that is a fake clock starting at 2000-01-01T00:00:00Z.  Every time
// of the input is shifted so that the controller starts at --now minus
// statusWait, and shifted back on output.  The state printed is the one at
// --now: pods evicted by then are gone and the rules' status has been
// updated (ruleStatusPeriod, 10 s, after the evictions at start).  Then the
// clock runs on to the end of every pending eviction: each deletion is an
// Eviction line with its time ("due" for those at start), up to a day
// after --now.  Evictions that
// fall within statusWait before --now are evicted in the printed state but
// not yet counted in the rules' status, which is why scenarios avoid them.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"sync"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/kubernetes/pkg/features"
)

const statusWait = 11 * time.Second

// workers: enough that the rules are handled while every pod deletion of
// the start waits (holdingClient).
const workers = 64

// horizon is how far past --now evictions are listed.
const horizon = 24 * time.Hour

func shiftTime(t *metav1.Time, d time.Duration) {
	if t != nil {
		t.Time = t.Time.Add(d)
	}
}

// shiftAll moves every time the controller compares with its clock by d.
func shiftAll(objs []runtime.Object, d time.Duration, now metav1.Time) {
	// a taint's timeAdded: shifted, or now when the input has none
	added := func(t **metav1.Time) {
		if *t == nil {
			n := now
			*t = &n
			return
		}
		shiftTime(*t, d)
	}
	taints := func(ts []resourceapi.DeviceTaint) {
		for i := range ts {
			added(&ts[i].TimeAdded)
		}
	}
	for _, o := range objs {
		switch x := o.(type) {
		case *resourceapi.ResourceSlice:
			for i := range x.Spec.Devices {
				taints(x.Spec.Devices[i].Taints)
			}
		case *taintRule:
			added(&x.Spec.Taint.TimeAdded)
			for i := range x.Status.Conditions {
				shiftTime(&x.Status.Conditions[i].LastTransitionTime, d)
			}
		case *corev1.Pod:
			shiftTime(x.DeletionTimestamp, d)
		case *resourceapi.ResourceClaim:
			shiftTime(x.DeletionTimestamp, d)
		}
	}
}

type evictionLine struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	At        string `json:"at"`
}

func runEvict(objs []runtime.Object, now time.Time) error {
	start := time.Now()
	shift := start.Add(statusWait).Sub(now)
	shiftAll(objs, shift, metav1.NewTime(start.Add(statusWait)))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newClient(objs)
	// kube-controller-manager runs the controller only with DRADeviceTaints
	// (cmd/kube-controller-manager/app/resource.go, requiredFeatureGates):
	// without it nothing changes.
	if !utilfeature.DefaultFeatureGate.Enabled(features.DRADeviceTaints) {
		return dumpState(ctx, c, os.Stdout, nil)
	}
	var mu sync.Mutex
	var lines []string
	c.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		d := a.(k8stesting.DeleteAction)
		at := "due"
		if t := time.Now(); t.After(start) {
			at = t.Add(-shift).UTC().Format(time.RFC3339)
		}
		b, _ := json.Marshal(evictionLine{Kind: "Eviction", Namespace: d.GetNamespace(), Pod: d.GetName(), At: at})
		mu.Lock()
		lines = append(lines, string(b))
		mu.Unlock()
		return false, nil, nil
	})
	// Pod deletions wait until the controller has done its first pass
	// over the rules, so that the NoEffect simulation, computed once, sees
	// the pods as the input has them (otherwise it counts whatever the
	// evictions at start have left in the informer by then).
	release := make(chan struct{})
	held := &holdingClient{Interface: c, wait: release}
	f := informers.NewSharedInformerFactory(c, 0)
	tc := newEvictController(held, f)
	f.Start(ctx.Done())
	errc := make(chan error, 1)
	go func() { errc <- tc.Run(ctx, workers) }()
	synctest.Wait()
	close(release)
	synctest.Wait()
	time.Sleep(statusWait)
	synctest.Wait()
	var state []byte
	{
		var b bufWriter
		if err := dumpState(ctx, c, &b, nil); err != nil {
			return err
		}
		state = b
	}
	// the evictions of the next day, in time order (the clock jumps from
	// timer to timer; the rules' status, pending evictions, every 10 s)
	time.Sleep(horizon)
	synctest.Wait()
	select {
	case err := <-errc:
		if err != nil {
			return fmt.Errorf("eviction controller: %v", err)
		}
	default:
	}
	if _, err := os.Stdout.Write(state); err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	sort.Strings(lines)
	for _, l := range lines {
		if _, err := fmt.Println(l); err != nil {
			return err
		}
	}
	return nil
}

type bufWriter []byte

func (b *bufWriter) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// holdingClient is the clientset with pod deletions held until wait is
// closed.  (Not a reactor: those run under the fake's lock, and a bubble
// cannot wait on that.)
type holdingClient struct {
	kubernetes.Interface
	wait chan struct{}
}

func (h *holdingClient) CoreV1() corev1client.CoreV1Interface {
	return &holdingCoreV1{h.Interface.CoreV1(), h.wait}
}

type holdingCoreV1 struct {
	corev1client.CoreV1Interface
	wait chan struct{}
}

func (h *holdingCoreV1) Pods(ns string) corev1client.PodInterface {
	return &holdingPods{h.CoreV1Interface.Pods(ns), h.wait}
}

type holdingPods struct {
	corev1client.PodInterface
	wait chan struct{}
}

func (h *holdingPods) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	<-h.wait
	return h.PodInterface.Delete(ctx, name, opts)
}
