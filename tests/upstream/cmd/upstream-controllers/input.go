package main

// The input as dra-claim and dra-evict read it (the module's one reader,
// allocdiff/peer), decoded the API server's way: to the internal version
// with the defaults of the version read, then to the version the
// controllers watch.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"

	"dra-tools/tests/upstream/allocdiff/peer"
)

var decoder = legacyscheme.Codecs.UniversalDecoder()

// objects reads the named inputs and returns the objects the two
// controllers watch, as v1 (PodGroups and DeviceTaintRules as the version
// the controllers watch, api.go); other kinds are skipped, as the tools
// skip them.
func objects(paths []string) ([]runtime.Object, error) {
	raws, err := peer.ReadPaths(paths, os.Stdin)
	if err != nil {
		return nil, err
	}
	var out []runtime.Object
	for _, r := range raws {
		var head metav1.TypeMeta
		if err := json.Unmarshal(r.JSON, &head); err != nil {
			return nil, fmt.Errorf("%s: %v", r.Where, err)
		}
		if av := servedVersion(head.Kind, head.APIVersion); av != head.APIVersion {
			if r.JSON, err = asVersion(r.JSON, av); err != nil {
				return nil, fmt.Errorf("%s: %v", r.Where, err)
			}
			head.APIVersion = av
		}
		gv := resourceapi.SchemeGroupVersion
		switch av := head.APIVersion; {
		case head.Kind == "Pod" && av == "v1":
			gv = corev1.SchemeGroupVersion
		case head.Kind == "PodGroup" && av == podGroupVersion.String():
			gv = podGroupVersion
		case strings.HasPrefix(av, "resource.k8s.io/") && !strings.HasSuffix(av, "/v1alpha2"):
			switch head.Kind {
			case "DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate":
			case "DeviceTaintRule":
				gv = ruleVersion
			default:
				continue
			}
		default:
			continue
		}
		internal, _, err := decoder.Decode(r.JSON, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", r.Where, err)
		}
		obj, err := legacyscheme.Scheme.ConvertToVersion(internal, gv)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", r.Where, err)
		}
		if m, ok := obj.(metav1.Object); ok {
			switch obj.(type) {
			case *corev1.Pod, *podGroup, *resourceapi.ResourceClaim, *resourceapi.ResourceClaimTemplate:
				if m.GetNamespace() == "" {
					m.SetNamespace("default")
				}
			}
		}
		out = append(out, obj)
	}
	return out, nil
}
