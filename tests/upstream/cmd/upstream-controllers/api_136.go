//go:build k8s136

package main

// The API versions 1.36's controllers watch (k8s.io/kubernetes@v1.36.3
// cmd/kube-controller-manager/app/resource.go): PodGroups in
// scheduling.k8s.io/v1alpha2, DeviceTaintRules in resource.k8s.io/v1beta2
// (1.36 has none in v1).  Both constructors take the features that 1.37
// reads from the gates itself.

import (
	"context"

	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/devicetainteviction"
	"k8s.io/kubernetes/pkg/controller/resourceclaim"
	"k8s.io/kubernetes/pkg/features"
)

type podGroup = schedulingv1alpha2.PodGroup

type podGroupClaimStatus = schedulingv1alpha2.PodGroupResourceClaimStatus

type taintRule = resourcev1beta2.DeviceTaintRule

var podGroupVersion = schedulingv1alpha2.SchemeGroupVersion

var ruleVersion = resourcev1beta2.SchemeGroupVersion

// claimStatusesUnordered: 1.36's syncPod and syncPodGroup apply the
// resourceClaimStatuses of the claims they created in the iteration order
// of a Go map (pkg/controller/resourceclaim/controller.go; 1.37 sorts them
// by name), so state.go prints them sorted.
const claimStatusesUnordered = true

// servedVersion is the apiVersion the input's kind is read as: a
// resource.k8s.io/v1 DeviceTaintRule, which 1.36 does not serve, as the
// v1beta2 one a 1.36 cluster holds (the same fields).
func servedVersion(kind, apiVersion string) string {
	if kind == "DeviceTaintRule" && apiVersion == "resource.k8s.io/v1" {
		return ruleVersion.String()
	}
	return apiVersion
}

func listPodGroups(ctx context.Context, c kubernetes.Interface) ([]podGroup, error) {
	l, err := c.SchedulingV1alpha2().PodGroups("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

func listRules(ctx context.Context, c kubernetes.Interface) ([]taintRule, error) {
	l, err := c.ResourceV1beta2().DeviceTaintRules().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// newClaimController is the resourceclaim controller on the pods and
// PodGroups of rest and the claims and templates of first, given the
// features kube-controller-manager gives it.
func newClaimController(logger klog.Logger, c kubernetes.Interface, rest, first informers.SharedInformerFactory) (*resourceclaim.Controller, error) {
	return resourceclaim.NewController(logger, resourceclaim.Features{
		AdminAccess:            utilfeature.DefaultFeatureGate.Enabled(features.DRAAdminAccess),
		PrioritizedList:        utilfeature.DefaultFeatureGate.Enabled(features.DRAPrioritizedList),
		WorkloadResourceClaims: utilfeature.DefaultFeatureGate.Enabled(features.DRAWorkloadResourceClaims),
	}, c, rest.Core().V1().Pods(), rest.Scheduling().V1alpha2().PodGroups(),
		first.Resource().V1().ResourceClaims(), first.Resource().V1().ResourceClaimTemplates())
}

// newEvictController is the device-taint-eviction controller, as
// cmd/kube-controller-manager/app/resource.go builds it.
func newEvictController(c kubernetes.Interface, f informers.SharedInformerFactory) *devicetainteviction.Controller {
	return devicetainteviction.New(c, f.Core().V1().Pods(), f.Resource().V1().ResourceClaims(),
		f.Resource().V1().ResourceSlices(), f.Resource().V1beta2().DeviceTaintRules(),
		f.Resource().V1().DeviceClasses(), "device-taint-eviction-controller",
		utilfeature.DefaultFeatureGate.Enabled(features.DRAWorkloadResourceClaims))
}
