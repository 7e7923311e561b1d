package main

// `upstream-cluster informer --kubeconfig FILE [--events N]`: a client-go
// informer on ResourceSlices (k8s.io/client-go/informers, the reflector
// every controller and the scheduler use), the benchmark's peer of
// `dra-watch get resourceslices -w`.  Each event is printed as dra-watch
// prints it, {"type","object"} on one line; on stderr "synced N objects in
// T s" once the initial list is in, then, with --events N, it exits after N
// events past the list with "N events in T s" (timed from the first).

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

func runInformer(args []string) int {
	fs := flag.NewFlagSet("informer", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "the kubeconfig")
	events := fs.Int("events", 0, "exit after this many events past the initial list (0: run until killed)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "informer:", err)
		return 2
	}
	cfg.QPS, cfg.Burst = -1, -1 // no client-side rate limit: one list, one watch
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "informer:", err)
		return 2
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	var mu sync.Mutex
	synced := false
	n, after := 0, 0
	var first time.Time
	done := make(chan struct{})
	emit := func(typ string, obj any) {
		mu.Lock()
		defer mu.Unlock()
		if s, ok := obj.(*resourceapi.ResourceSlice); ok {
			s = s.DeepCopy()
			s.APIVersion, s.Kind = "resource.k8s.io/v1", "ResourceSlice"
			s.ManagedFields = nil
			obj = s
		}
		b, err := json.Marshal(map[string]any{"type": typ, "object": obj})
		if err == nil {
			out.Write(b)
			out.WriteByte('\n')
		}
		n++
		if synced {
			if after == 0 {
				first = time.Now()
			}
			after++
			if *events > 0 && after == *events {
				out.Flush()
				fmt.Fprintf(os.Stderr, "%d events in %.3f s\n", after, time.Since(first).Seconds())
				close(done)
			}
		}
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	inf := f.Resource().V1().ResourceSlices().Informer()
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { emit("ADDED", o) },
		UpdateFunc: func(_, o any) { emit("MODIFIED", o) },
		DeleteFunc: func(o any) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			emit("DELETED", o)
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "informer:", err)
		return 3
	}
	stop := make(chan struct{})
	t0 := time.Now()
	f.Start(stop)
	// the handler's own sync: the initial list delivered to it, not only stored
	if !cache.WaitForCacheSync(stop, reg.HasSynced) {
		fmt.Fprintln(os.Stderr, "informer: not synced")
		return 3
	}
	mu.Lock()
	synced = true
	out.Flush()
	fmt.Fprintf(os.Stderr, "synced %d objects in %.3f s\n", n, time.Since(t0).Seconds())
	mu.Unlock()
	flush := time.NewTicker(100 * time.Millisecond)
	defer flush.Stop()
	for {
		select {
		case <-done:
			close(stop)
			return 0
		case <-flush.C:
			mu.Lock()
			out.Flush()
			mu.Unlock()
		}
	}
}
