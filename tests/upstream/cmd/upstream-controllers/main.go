// upstream-controllers runs kube-controller-manager's own DRA controllers,
// in-process, on the input dra-claim and dra-evict read, and prints the end
// state (state.go) for the differential suite (tests/upstream/controllers/).
//
//	upstream-controllers claims [--feature-gates G] FILE...
//	    the resourceclaim controller (k8s.io/kubernetes/pkg/controller/
//	    resourceclaim): claims from templates, reservedFor cleanup,
//	    deallocation of deleted claims, deletion of generated claims.
//	upstream-controllers evict --now RFC3339 [--feature-gates G] FILE...
//	    the device-taint-eviction controller (pkg/controller/
//	    devicetainteviction): pods deleted up to --now, then every later
//	    eviction with its time, and DeviceTaintRule status ten seconds
//	    after --now (the controller's status period).
//	upstream-controllers replay [--objects OUT] OPS FILE...
//	    the same state after applying a tool's --patch=json operations
//	    (file OPS) to FILE... instead of running a controller; --objects
//	    writes the objects then held, for the tool's next step.
//
// No API server: client-go's fake clientset (NewClientset, which serves
// server-side apply) and shared informers, in a synctest bubble so that the
// controllers' time is a fake clock driven to quiescence, never slept.
//
// Differences of the fake clientset from an API server, and what is done:
//   - generateName is not served: a create reactor names the claim as the
//     API server does (names.SimpleNameGenerator), and names are normalised.
//   - deletion is immediate: finalizers do not hold objects; a claim being
//     deleted is given to the fake with its deletionTimestamp already set,
//     and one whose finalizers are gone is printed as gone (state.go).
//   - preconditions of DeleteOptions and resourceVersion tests of JSON
//     patches are not checked.
//
// UPSTREAM_CONTROLLERS_LOG=N logs the controllers at verbosity N on
// standard error.
//
// Exit status: 0, or 2 for bad usage or input, 3 when a controller failed.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
)

func usage() {
	fmt.Fprintln(os.Stderr, "usage: upstream-controllers claims|evict|replay [--now RFC3339] [--feature-gates G] [OPS] FILE...")
	os.Exit(2)
}

type options struct {
	mode  string
	now   time.Time
	ops   string
	dump  string
	files []string
}

func parse() options {
	if len(os.Args) < 2 {
		usage()
	}
	o := options{mode: os.Args[1]}
	fs := flag.NewFlagSet(o.mode, flag.ContinueOnError)
	now := fs.String("now", "", "evaluation time (evict)")
	gates := fs.String("feature-gates", "", "feature gates, as kube-controller-manager takes them")
	fs.StringVar(&o.dump, "objects", "", "(replay) also write every object after the operations to this file, as a JSON List")
	if err := fs.Parse(os.Args[2:]); err != nil {
		usage()
	}
	o.files = fs.Args()
	switch o.mode {
	case "claims":
	case "evict":
		t, err := time.Parse(time.RFC3339, *now)
		if err != nil {
			fmt.Fprintf(os.Stderr, "upstream-controllers: --now: %v\n", err)
			os.Exit(2)
		}
		o.now = t
	case "replay":
		if len(o.files) < 1 {
			usage()
		}
		o.ops, o.files = o.files[0], o.files[1:]
	default:
		usage()
	}
	if *gates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(*gates); err != nil {
			fmt.Fprintf(os.Stderr, "upstream-controllers: --feature-gates: %v\n", err)
			os.Exit(2)
		}
	}
	return o
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "upstream-controllers: "+format+"\n", args...)
	os.Exit(code)
}

func main() {
	klog.SetLogger(logr.Discard())
	if v, err := strconv.Atoi(os.Getenv("UPSTREAM_CONTROLLERS_LOG")); err == nil {
		// the controllers' own log on standard error, at that verbosity
		klog.SetLogger(textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(v), textlogger.Output(os.Stderr))))
		kfs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(kfs)
		_ = kfs.Set("v", strconv.Itoa(v))
	}
	// utilruntime's error backoff keeps the real time of the last error
	// (from before the bubble): inside the bubble it would sleep for the 26
	// years between the fake clock and that time.  Errors are only logged.
	utilruntime.ErrorHandlers = utilruntime.ErrorHandlers[:1]
	o := parse()
	objs, err := objects(o.files)
	if err != nil {
		fail(2, "%v", err)
	}
	if o.mode == "replay" {
		err = nameFromOps(objs, o.ops)
	} else {
		nameAsServer(objs)
	}
	if err != nil {
		fail(2, "%v", err)
	}
	// synctest needs a *testing.T: run one test whose body exits.
	os.Args = os.Args[:1]
	testing.Main(func(string, string) (bool, error) { return true, nil },
		[]testing.InternalTest{{Name: "Controllers", F: func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var err error
				switch o.mode {
				case "claims":
					err = runClaims(objs)
				case "evict":
					err = runEvict(objs, o.now)
				case "replay":
					err = replay(objs, o.ops, o.dump)
				}
				if err != nil {
					fail(3, "%v", err)
				}
				os.Exit(0)
			})
		}}}, nil, nil)
}
