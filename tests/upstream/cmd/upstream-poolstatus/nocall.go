//go:build !poolstatus_overlay

package main

import (
	"context"

	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	resourcev1listers "k8s.io/client-go/listers/resource/v1"
)

// Built without poolstatus.mk's overlay there is no controller to call.
func peerPoolStatus(context.Context, resourcev1listers.ResourceSliceLister, resourcev1listers.ResourceClaimLister,
	ruleListerArg, *resourcev1alpha3.ResourcePoolStatusRequest) resourcev1alpha3.ResourcePoolStatusRequestStatus {
	fail(3, "built without the controller (make upstream-poolstatus builds it)")
	return resourcev1alpha3.ResourcePoolStatusRequestStatus{}
}
