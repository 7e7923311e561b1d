package main

// The input as dra-slice reads it (the module's one reader, allocdiff/peer),
// decoded the API server's way: to the internal version with the defaults
// of the version read, then to the version the controller lists.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"

	"dra-tools/tests/upstream/allocdiff/peer"
)

type input struct {
	slices   []*resourcev1.ResourceSlice
	claims   []*resourcev1.ResourceClaim
	rules    []*taintRule
	requests []*resourcev1alpha3.ResourcePoolStatusRequest
}

func read(paths []string) (*input, error) {
	raws, err := peer.ReadPaths(paths, os.Stdin)
	if err != nil {
		return nil, err
	}
	decoder := legacyscheme.Codecs.UniversalDecoder()
	in := &input{}
	for _, r := range raws {
		var head metav1.TypeMeta
		if err := json.Unmarshal(r.JSON, &head); err != nil {
			return nil, fmt.Errorf("%s: %v", r.Where, err)
		}
		if !strings.HasPrefix(head.APIVersion, "resource.k8s.io/") || strings.HasSuffix(head.APIVersion, "/v1alpha2") {
			continue
		}
		var gv schema.GroupVersion
		switch head.Kind {
		case "ResourceSlice", "ResourceClaim":
			gv = resourcev1.SchemeGroupVersion
		case "DeviceTaintRule":
			if !readsRules {
				continue
			}
			gv = resourcev1.SchemeGroupVersion
		case "ResourcePoolStatusRequest":
			gv = resourcev1alpha3.SchemeGroupVersion
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
		switch o := obj.(type) {
		case *resourcev1.ResourceSlice:
			in.slices = append(in.slices, o)
		case *resourcev1.ResourceClaim:
			in.claims = append(in.claims, o)
		case *taintRule:
			in.rules = append(in.rules, o)
		case *resourcev1alpha3.ResourcePoolStatusRequest:
			o.APIVersion, o.Kind = gv.String(), "ResourcePoolStatusRequest"
			in.requests = append(in.requests, o)
		}
	}
	return in, nil
}
