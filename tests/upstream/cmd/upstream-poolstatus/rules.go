//go:build !k8s136

package main

// DeviceTaintRules as the controller of 1.37 and 1.38 lists them
// (resource.k8s.io/v1); rules_136.go is 1.36's.

import (
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/labels"
	resourcev1listers "k8s.io/client-go/listers/resource/v1"
)

// readsRules: the controller lists DeviceTaintRules (with
// DRADeviceTaintRules), so the input's are read.
const readsRules = true

type taintRule = resourcev1.DeviceTaintRule

// ruleListerArg is what export.go.in's PeerPoolStatus takes for them.
type ruleListerArg = resourcev1listers.DeviceTaintRuleLister

type ruleLister struct {
	resourcev1listers.DeviceTaintRuleLister
	v []*taintRule
}

func (l ruleLister) List(labels.Selector) ([]*taintRule, error) { return l.v, nil }
