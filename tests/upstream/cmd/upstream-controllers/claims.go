package main

import (
	"context"
	"os"
	goruntime "runtime"
	"sync"
	"testing/synctest"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	runtime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
)

// maxWrites bounds the API writes of one run (a few per object).
const maxWrites = 500

func name(a k8stesting.Action) string {
	switch x := a.(type) {
	case k8stesting.DeleteAction:
		return x.GetName()
	case k8stesting.PatchAction:
		return x.GetName()
	case k8stesting.UpdateAction:
		if m, ok := x.GetObject().(interface{ GetName() string }); ok {
			return m.GetName()
		}
	case k8stesting.CreateAction:
		if m, ok := x.GetObject().(interface{ GetGenerateName() string }); ok {
			return m.GetGenerateName() + "..."
		}
	}
	return ""
}

// newClient is the fake clientset holding objs, serving generateName of
// claims as the API server does.
func newClient(objs []runtime.Object) *fake.Clientset {
	c := fake.NewClientset(objs...)
	var mu sync.Mutex
	writes := 0
	c.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		switch a.GetVerb() {
		case "create", "update", "patch", "delete":
			mu.Lock()
			writes++
			n := writes
			mu.Unlock()
			if n > maxWrites {
				// a controller that keeps writing never lets the bubble settle
				fail(3, "the controller did not settle: more than %d writes (last: %s %s %s/%s)", maxWrites,
					a.GetVerb(), a.GetResource().Resource, a.GetNamespace(), name(a))
			}
		}
		return false, nil, nil
	})
	c.PrependReactor("create", "resourceclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		if cl, ok := a.(k8stesting.CreateAction).GetObject().(*resourceapi.ResourceClaim); ok && cl.Name == "" && cl.GenerateName != "" {
			cl.Name = names.SimpleNameGenerator.GenerateName(cl.GenerateName)
		}
		return false, nil, nil
	})
	return c
}

// settle lets the bubble's goroutines finish, then advances the fake clock
// past every retry of the work queue's rate limiter (at most 1000 s apart).
func settle() {
	synctest.Wait()
	for range 20 {
		time.Sleep(1000 * time.Second)
		synctest.Wait()
	}
}

// runClaims runs the resourceclaim controller until nothing is left to do.
func runClaims(objs []runtime.Object) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.Background()
	c := newClient(objs)
	// Claims and templates first: the controller then meets every pod
	// knowing the claims, as a running controller does.  (Started together,
	// a pod seen before the claim its status names looks like one whose
	// claim must be created, and the result depends on the informers' race.)
	// They come from a factory of their own, started only once the
	// controller is built, as kube-controller-manager starts informers: an
	// informer running while NewController registers its handlers hands
	// them objects before the controller is complete (a template's handler
	// then used the PodGroup indexer while it was still nil, a crash in
	// about one run in 25 with DRAWorkloadResourceClaims).
	first := informers.NewSharedInformerFactory(c, 0)
	rest := informers.NewSharedInformerFactory(c, 0)
	ec, err := newClaimController(logger, c, rest, first)
	if err != nil {
		return err
	}
	first.Start(ctx.Done())
	first.WaitForCacheSync(ctx.Done())
	rest.Start(ctx.Done())
	go ec.Run(ctx, 1)
	settle()
	if os.Getenv("UPSTREAM_CONTROLLERS_STACKS") != "" {
		buf := make([]byte, 1<<20)
		os.Stderr.Write(buf[:goruntime.Stack(buf, true)])
	}
	return dumpState(ctx, c, os.Stdout, nil)
}
