package main

// Replaying a tool's --patch=json operations on the fake clientset: the
// same state printer then shows what the tool's operations leave behind.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

type op struct {
	Verb         string          `json:"verb"`
	APIVersion   string          `json:"apiVersion"`
	Kind         string          `json:"kind"`
	Namespace    string          `json:"namespace"`
	Name         string          `json:"name"`
	Subresource  string          `json:"subresource"`
	PatchType    string          `json:"patchType"`
	FieldManager string          `json:"fieldManager"`
	Body         json.RawMessage `json:"body"`
}

var resources = map[string]schema.GroupVersionResource{
	"Pod":             corev1.SchemeGroupVersion.WithResource("pods"),
	"PodGroup":        podGroupVersion.WithResource("podgroups"),
	"ResourceClaim":   resourceapi.SchemeGroupVersion.WithResource("resourceclaims"),
	"DeviceTaintRule": ruleVersion.WithResource("devicetaintrules"),
}

var patchTypes = map[string]types.PatchType{
	"json":                                types.JSONPatchType,
	string(types.JSONPatchType):           types.JSONPatchType,
	"merge":                               types.MergePatchType,
	string(types.MergePatchType):          types.MergePatchType,
	"strategic":                           types.StrategicMergePatchType,
	string(types.StrategicMergePatchType): types.StrategicMergePatchType,
	"apply":                               types.ApplyPatchType,
	string(types.ApplyPatchType):          types.ApplyPatchType,
	"application/apply-patch":             types.ApplyPatchType,
}

// withoutVersionTests drops the JSON patch tests of metadata.resourceVersion:
// the fake clientset keeps versions of its own.
func withoutVersionTests(body []byte) ([]byte, error) {
	var ops []map[string]any
	if err := json.Unmarshal(body, &ops); err != nil {
		return nil, err
	}
	out := ops[:0]
	for _, o := range ops {
		if o["op"] == "test" && o["path"] == "/metadata/resourceVersion" {
			continue
		}
		out = append(out, o)
	}
	return json.Marshal(out)
}

func asVersion(body []byte, apiVersion string) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	m["apiVersion"] = apiVersion
	return json.Marshal(m)
}

func replay(objs []runtime.Object, opsFile, dump string) error {
	ctx := context.Background()
	c := newClient(objs)
	f, err := os.Open(opsFile)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var o op
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			return fmt.Errorf("%s:%d: %v", opsFile, n, err)
		}
		gvr, ok := resources[o.Kind]
		if !ok {
			return fmt.Errorf("%s:%d: kind %q", opsFile, n, o.Kind)
		}
		var action k8stesting.Action
		switch o.Verb {
		case "create":
			internal, _, err := legacyscheme.Codecs.UniversalDecoder().Decode(o.Body, nil, nil)
			if err != nil {
				return fmt.Errorf("%s:%d: %v", opsFile, n, err)
			}
			obj, err := legacyscheme.Scheme.ConvertToVersion(internal, gvr.GroupVersion())
			if err != nil {
				return fmt.Errorf("%s:%d: %v", opsFile, n, err)
			}
			action = k8stesting.NewCreateAction(gvr, o.Namespace, obj)
		case "patch", "apply":
			pt, ok := patchTypes[o.PatchType]
			if o.Verb == "apply" {
				pt, ok = types.ApplyPatchType, true
			}
			if !ok {
				return fmt.Errorf("%s:%d: patchType %q", opsFile, n, o.PatchType)
			}
			body := []byte(o.Body)
			if pt == types.ApplyPatchType {
				// the tools apply to the version the input used; status
				// fields are the same in every version, the fake serves v1
				if body, err = asVersion(body, gvr.GroupVersion().String()); err != nil {
					return fmt.Errorf("%s:%d: %v", opsFile, n, err)
				}
			}
			if pt == types.JSONPatchType {
				if body, err = withoutVersionTests(body); err != nil {
					return fmt.Errorf("%s:%d: %v", opsFile, n, err)
				}
			}
			var subs []string
			if o.Subresource != "" {
				subs = []string{o.Subresource}
			}
			opts := metav1.PatchOptions{FieldManager: o.FieldManager}
			if pt == types.ApplyPatchType {
				force := true
				opts.Force = &force
			}
			if gvr.Resource == "devicetaintrules" {
				action = k8stesting.NewRootPatchSubresourceActionWithOptions(gvr, o.Name, pt, body, opts, subs...)
			} else {
				action = k8stesting.NewPatchSubresourceActionWithOptions(gvr, o.Namespace, o.Name, pt, body, opts, subs...)
			}
		case "delete":
			action = k8stesting.NewDeleteActionWithOptions(gvr, o.Namespace, o.Name, metav1.DeleteOptions{})
		default:
			return fmt.Errorf("%s:%d: verb %q", opsFile, n, o.Verb)
		}
		if _, err := c.Invokes(action, nil); err != nil {
			return fmt.Errorf("%s:%d: %s %s %s/%s: %v", opsFile, n, o.Verb, o.Kind, o.Namespace, o.Name, err)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if dump != "" {
		if err := dumpObjects(ctx, c, dump); err != nil {
			return err
		}
	}
	return dumpState(ctx, c, os.Stdout, nil)
}

// dumpObjects writes every object of the kinds the tools read as one JSON
// List, kind and apiVersion set.
func dumpObjects(ctx context.Context, c kubernetes.Interface, file string) error {
	var items []any
	item := func(gv schema.GroupVersion, kind string, o any) {
		b, _ := json.Marshal(o)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		m["apiVersion"], m["kind"] = gv.String(), kind
		items = append(items, m)
	}
	pods, err := c.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range pods.Items {
		item(corev1.SchemeGroupVersion, "Pod", &pods.Items[i])
	}
	groups, err := listPodGroups(ctx, c)
	if err != nil {
		return err
	}
	for i := range groups {
		item(podGroupVersion, "PodGroup", &groups[i])
	}
	r := c.ResourceV1()
	rv := resourceapi.SchemeGroupVersion
	claims, err := r.ResourceClaims("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range claims.Items {
		if cl := &claims.Items[i]; cl.DeletionTimestamp == nil || len(cl.Finalizers) > 0 {
			item(rv, "ResourceClaim", cl)
		}
	}
	templates, err := r.ResourceClaimTemplates("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range templates.Items {
		item(rv, "ResourceClaimTemplate", &templates.Items[i])
	}
	classes, err := r.DeviceClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range classes.Items {
		item(rv, "DeviceClass", &classes.Items[i])
	}
	slices, err := r.ResourceSlices().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range slices.Items {
		item(rv, "ResourceSlice", &slices.Items[i])
	}
	rules, err := listRules(ctx, c)
	if err != nil {
		return err
	}
	for i := range rules {
		item(ruleVersion, "DeviceTaintRule", &rules[i])
	}
	b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(b, '\n'), 0o644)
}
