// upstream-poolstatus answers ResourcePoolStatusRequests with
// kube-controller-manager's own ResourcePoolStatusRequest controller
// (k8s.io/kubernetes/pkg/controller/resourcepoolstatusrequest,
// calculatePoolStatus), on the input `dra-slice pool-status` reads, and
// prints each request with its status as dra-slice does (-o json).
//
//	upstream-poolstatus [--feature-gates G] [--now RFC3339]
//	    [--driver NAME [--pool NAME] [--limit N]] FILE...
//
// With --driver the request is made up as dra-slice makes it (named after
// the driver) and only it is answered; otherwise every request of the
// input is.  A request that has a status is printed unchanged.
//
// The controller's computation is unexported: the build makes a package
// rpsr of the controller's own controller.go and views.go plus one function
// (export.go.in), by go build -overlay (poolstatus.mk); that function
// builds a Controller on listers that return the input in file order, so
// that "the first slice listed" is the first slice of the input (an
// informer's cache lists in no fixed order).  DeviceTaintRules are listed
// only with DRADeviceTaintRules, as the controller does (1.36's lists none:
// rules_136.go).  Its condition's
// lastTransitionTime is metav1.Now(): it is replaced by --now.
//
// Exit status: 0, or 2 for bad usage or input.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	resourcev1listers "k8s.io/client-go/listers/resource/v1"
	"k8s.io/kubernetes/pkg/features"
)

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "upstream-poolstatus: "+format+"\n", args...)
	os.Exit(code)
}

// Listers over the input, in its order; only List is used.
type sliceLister struct {
	resourcev1listers.ResourceSliceLister
	v []*resourcev1.ResourceSlice
}

func (l sliceLister) List(labels.Selector) ([]*resourcev1.ResourceSlice, error) { return l.v, nil }

type claimLister struct {
	resourcev1listers.ResourceClaimLister
	v []*resourcev1.ResourceClaim
}

func (l claimLister) List(labels.Selector) ([]*resourcev1.ResourceClaim, error) { return l.v, nil }

func main() {
	fs := flag.NewFlagSet("upstream-poolstatus", flag.ContinueOnError)
	gates := fs.String("feature-gates", "", "feature gates, as kube-controller-manager takes them")
	nowFlag := fs.String("now", "", "the condition's lastTransitionTime (RFC 3339; default: the epoch)")
	driver := fs.String("driver", "", "answer a made-up request for this driver")
	pool := fs.String("pool", "", "with --driver: only this pool")
	limit := fs.Int("limit", 0, "with --driver: at most N pools")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if *gates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(*gates); err != nil {
			fail(2, "--feature-gates: %v", err)
		}
	}
	now := metav1.Unix(0, 0)
	if *nowFlag != "" {
		if err := now.UnmarshalQueryParameter(*nowFlag); err != nil {
			fail(2, "--now: %v", err)
		}
	}
	in, err := read(fs.Args())
	if err != nil {
		fail(2, "%v", err)
	}
	requests := in.requests
	if *driver != "" {
		r := &resourcev1alpha3.ResourcePoolStatusRequest{
			TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1alpha3", Kind: "ResourcePoolStatusRequest"},
			ObjectMeta: metav1.ObjectMeta{Name: *driver},
			Spec:       resourcev1alpha3.ResourcePoolStatusRequestSpec{Driver: *driver},
		}
		if *pool != "" {
			r.Spec.PoolName = pool
		}
		if *limit != 0 {
			l := int32(*limit)
			r.Spec.Limit = &l
		}
		requests = []*resourcev1alpha3.ResourcePoolStatusRequest{r}
	}
	if len(requests) == 0 {
		fail(2, "no ResourcePoolStatusRequest in the input")
	}
	var rules ruleListerArg
	if readsRules && utilfeature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules) {
		rules = ruleLister{v: in.rules}
	}
	enc := json.NewEncoder(os.Stdout)
	for _, r := range requests {
		if r.Status == nil {
			st := peerPoolStatus(context.Background(), sliceLister{v: in.slices}, claimLister{v: in.claims}, rules, r)
			for i := range st.Conditions {
				st.Conditions[i].LastTransitionTime = now
			}
			r.Status = &st
		}
		if err := enc.Encode(r); err != nil {
			fail(3, "%v", err)
		}
	}
}
