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
	"k8s.io/kubernetes/pkg/controller/resourceclaim"
)

// newClient is the fake clientset holding objs, serving generateName of
// claims as the API server does.
func newClient(objs []runtime.Object) *fake.Clientset {
	c := fake.NewClientset(objs...)
	var mu sync.Mutex
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
	f := informers.NewSharedInformerFactory(c, 0)
	ec, err := resourceclaim.NewController(logger, c, f.Core().V1().Pods(),
		f.Scheduling().V1beta1().PodGroups(), f.Resource().V1().ResourceClaims(),
		f.Resource().V1().ResourceClaimTemplates())
	if err != nil {
		return err
	}
	f.Start(ctx.Done())
	go ec.Run(ctx, 1)
	settle()
	if os.Getenv("UPSTREAM_CONTROLLERS_STACKS") != "" {
		buf := make([]byte, 1<<20)
		os.Stderr.Write(buf[:goruntime.Stack(buf, true)])
	}
	return dumpState(ctx, c, os.Stdout, nil)
}
