package main

// Pods with only generateName (as a Job's or a ReplicaSet's template makes
// them, or `kubectl create` of such a manifest): the API server names them
// and gives them a UID before any controller sees them.  The controllers'
// side gets names and UIDs as the API server makes them (random); the
// tools' side, replayed, gets the names and UIDs the tools assumed, read
// from their operations.  The printed state then normalises such a pod's
// name to its generateName (cut to 58) plus "*****" and its UID to "*****",
// wherever they appear (state.go).

import (
	"bufio"
	"encoding/json"
	"os"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apiserver/pkg/storage/names"
)

// unnamedPods is the pods of objs with generateName and no name, in order.
func unnamedPods(objs []runtime.Object) []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok && p.Name == "" && p.GenerateName != "" {
			out = append(out, p)
		}
	}
	return out
}

// nameAsServer names and identifies every unnamed pod as the API server does.
func nameAsServer(objs []runtime.Object) {
	for _, p := range unnamedPods(objs) {
		p.Name = names.SimpleNameGenerator.GenerateName(p.GenerateName)
		if p.UID == "" {
			p.UID = uuid.NewUUID()
		}
	}
}

func generatedFrom(gen, name string) bool {
	if len(gen) > maxGenerateName {
		gen = gen[:maxGenerateName]
	}
	return len(name) == len(gen)+5 && name[:len(gen)] == gen
}

// nameFromOps gives every unnamed pod the name (and UID) the tools assumed
// for it: the pods their operations name that the input does not, taken in
// the order the operations first name them, matched to the unnamed pods of
// that namespace in input order by generateName.  Pods the operations do
// not name are named as the API server would.
func nameFromOps(objs []runtime.Object, opsFile string) error {
	pending := unnamedPods(objs)
	if len(pending) == 0 {
		return nil
	}
	known := map[string]bool{}
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok && p.Name != "" {
			known[p.Namespace+"/"+p.Name] = true
		}
	}
	f, err := os.Open(opsFile)
	if err != nil {
		return err
	}
	defer f.Close()
	assign := func(ns, name string, uid types.UID) {
		if name == "" || known[ns+"/"+name] {
			return
		}
		for i, p := range pending {
			if p.Namespace == ns && generatedFrom(p.GenerateName, name) {
				p.Name, p.UID = name, uid
				known[ns+"/"+name] = true
				pending = append(pending[:i], pending[i+1:]...)
				return
			}
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var o struct {
			Kind      string `json:"kind"`
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
			Body      struct {
				Metadata struct {
					OwnerReferences []struct {
						Kind string    `json:"kind"`
						Name string    `json:"name"`
						UID  types.UID `json:"uid"`
					} `json:"ownerReferences"`
				} `json:"metadata"`
			} `json:"body"`
		}
		if json.Unmarshal(sc.Bytes(), &o) != nil {
			continue // replay reports it
		}
		for _, r := range o.Body.Metadata.OwnerReferences {
			if r.Kind == "Pod" {
				assign(o.Namespace, r.Name, r.UID)
			}
		}
		if o.Kind == "Pod" {
			assign(o.Namespace, o.Name, "")
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	nameAsServer(objs)
	return nil
}
