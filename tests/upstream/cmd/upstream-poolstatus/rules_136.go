//go:build k8s136

package main

// 1.36's controller lists no DeviceTaintRules (k8s.io/kubernetes@v1.36.3
// pkg/controller/resourcepoolstatusrequest: no taintRuleLister, and
// resource.k8s.io/v1 has no DeviceTaintRule yet): the input's are not
// read and export_136.go.in takes no lister for them.

import resourcev1beta2 "k8s.io/api/resource/v1beta2"

const readsRules = false

// taintRule: never read (readsRules).
type taintRule = resourcev1beta2.DeviceTaintRule

type ruleListerArg = any

type ruleLister struct{ v []*taintRule }
