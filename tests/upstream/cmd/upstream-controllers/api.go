//go:build !k8s136

package main

// The API versions the controllers watch, 1.37 on: PodGroups in
// scheduling.k8s.io/v1beta1, DeviceTaintRules in resource.k8s.io/v1 (1.36's
// twin: api_136.go).

import (
	"context"

	resourceapi "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/devicetainteviction"
	"k8s.io/kubernetes/pkg/controller/resourceclaim"
)

type podGroup = schedulingv1beta1.PodGroup

type podGroupClaimStatus = schedulingv1beta1.PodGroupResourceClaimStatus

type taintRule = resourceapi.DeviceTaintRule

var podGroupVersion = schedulingv1beta1.SchemeGroupVersion

var ruleVersion = resourceapi.SchemeGroupVersion

// claimStatusesUnordered: whether the controller leaves the order of the
// resourceClaimStatuses it writes to chance (1.37 sorts them by name).
const claimStatusesUnordered = false

// servedVersion is the apiVersion the input's kind is read as: the
// release serves every version the input uses.
func servedVersion(kind, apiVersion string) string {
	return apiVersion
}

func listPodGroups(ctx context.Context, c kubernetes.Interface) ([]podGroup, error) {
	l, err := c.SchedulingV1beta1().PodGroups("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

func listRules(ctx context.Context, c kubernetes.Interface) ([]taintRule, error) {
	l, err := c.ResourceV1().DeviceTaintRules().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// newClaimController is the resourceclaim controller on the pods and
// PodGroups of rest and the claims and templates of first; it reads its
// feature gates itself.
func newClaimController(logger klog.Logger, c kubernetes.Interface, rest, first informers.SharedInformerFactory) (*resourceclaim.Controller, error) {
	return resourceclaim.NewController(logger, c, rest.Core().V1().Pods(),
		rest.Scheduling().V1beta1().PodGroups(), first.Resource().V1().ResourceClaims(),
		first.Resource().V1().ResourceClaimTemplates())
}

// newEvictController is the device-taint-eviction controller, as
// cmd/kube-controller-manager/app/resource.go builds it.
func newEvictController(c kubernetes.Interface, f informers.SharedInformerFactory) *devicetainteviction.Controller {
	return devicetainteviction.New(c, f.Core().V1().Pods(), f.Resource().V1().ResourceClaims(),
		f.Resource().V1().ResourceSlices(), f.Resource().V1().DeviceTaintRules(),
		f.Resource().V1().DeviceClasses(), "device-taint-eviction-controller")
}
