package main

// One object through what kube-apiserver does with a create request:
// decoding (k8s.io/apiserver/pkg/endpoints/handlers/create.go: strict
// decoding errors as fieldValidation says), defaulting and conversion to the
// internal version (the versioning codec), system metadata and a generated
// name (k8s.io/apiserver/pkg/registry/generic/registry/store.go), the
// strategy's PrepareForCreate and rest.ValidateCreate
// (k8s.io/apiserver/pkg/registry/rest/create.go: BeforeCreate).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/versioning"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	nsregistry "k8s.io/kubernetes/pkg/registry/core/namespace"
	noderegistry "k8s.io/kubernetes/pkg/registry/core/node"
	podregistry "k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"
	"k8s.io/kubernetes/pkg/registry/resource/deviceclass"
	"k8s.io/kubernetes/pkg/registry/resource/devicetaintrule"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"
	"k8s.io/kubernetes/pkg/registry/resource/resourcepoolstatusrequest"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"
	"k8s.io/kubernetes/pkg/registry/scheduling/podgroup"
	kjsonstrict "sigs.k8s.io/json"
	sigyaml "sigs.k8s.io/yaml"
)

const adminLabel = "resource.kubernetes.io/admin-access"

// A kind the peer validates: its strategy, its REST resource, and which of
// the strategy's errors count (nil: all; the core kinds: their DRA parts).
type kindInfo struct {
	strategy rest.RESTCreateStrategy
	resource string
	keep     func(path string) bool
	status   rest.RESTUpdateStrategy // the status subresource's, for a status given on create
}

type run struct {
	o        *options
	kinds    map[schema.GroupKind]*kindInfo
	ns       map[string]*corev1.Namespace // the Namespaces of the input
	nsc      *namespaces                  // the strategies' namespace lookups
	problems []string
	warnings []string
	seen     map[string]seenObj // valid named objects by kind/namespace/name
	checked  int
	skipped  int
}

// namespaces answers the registry's namespace lookups (admin access) from
// the Namespaces of the input; a namespace that is not in the input cannot
// be checked offline, which is a warning, as dra-slice says it.
type namespaces struct {
	typedcorev1.NamespaceInterface
	r   *run
	obj *object
}

func (n *namespaces) Get(ctx context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	if ns, ok := n.r.ns[name]; ok {
		return ns, nil
	}
	n.r.warnings = append(n.r.warnings, fmt.Sprintf("%s: %s: admin access could not be checked: Namespace %s is not in the input",
		n.obj.where(), ref(n.obj.m), name))
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{adminLabel: "true"}}}, nil
}

// The DRA parts of a Pod (what dra-slice validate checks of one).
func podDRAPart(path string) bool {
	if strings.HasPrefix(path, "metadata") || strings.HasPrefix(path, "spec.resourceClaims") ||
		strings.HasPrefix(path, "spec.schedulingGroup") {
		return true
	}
	for _, c := range []string{"spec.containers[", "spec.initContainers["} {
		if strings.HasPrefix(path, c) {
			if i := strings.Index(path, "]"); i > 0 && strings.HasPrefix(path[i+1:], ".resources.claims") {
				return true
			}
		}
	}
	return false
}

func metadataOnly(path string) bool { return strings.HasPrefix(path, "metadata") }

// dra-slice reads only the DRA parts of a Pod (and the metadata of Nodes
// and Namespaces): the rest is left out before decoding, so that neither
// its unknown fields nor its wrong types count, and list indices stay.
func draPartOf(kind string, m map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range m {
		if k != "spec" && k != "status" {
			out[k] = v
		}
	}
	if kind != "Pod" {
		return out
	}
	spec, ok := m["spec"].(map[string]interface{})
	if !ok {
		if m["spec"] != nil {
			out["spec"] = m["spec"]
		}
		return out
	}
	ns := map[string]interface{}{}
	for _, k := range []string{"resourceClaims", "schedulingGroup"} {
		if v, ok := spec[k]; ok {
			ns[k] = v
		}
	}
	for _, k := range []string{"containers", "initContainers"} {
		list, ok := spec[k].([]interface{})
		if !ok {
			if spec[k] != nil { // a list of another type is still refused
				ns[k] = spec[k]
			}
			continue
		}
		var cs []interface{}
		for _, c := range list {
			cm, _ := c.(map[string]interface{})
			nc := map[string]interface{}{}
			if r, ok := cm["resources"]; ok {
				nc["resources"] = r
			}
			cs = append(cs, nc)
		}
		ns[k] = cs
	}
	out["spec"] = ns
	return out
}

func newRun(o *options) *run {
	r := &run{o: o, ns: map[string]*corev1.Namespace{}, seen: map[string]seenObj{}}
	nsc := &namespaces{r: r}
	r.nsc = nsc
	claims := resourceclaim.NewStrategy(nsc, allowAll{})
	podGroups := podgroup.NewStrategy()
	r.kinds = map[schema.GroupKind]*kindInfo{
		{Group: "resource.k8s.io", Kind: "DeviceClass"}:               {deviceclass.Strategy, "deviceclasses", nil, nil},
		{Group: "resource.k8s.io", Kind: "ResourceSlice"}:             {resourceslice.Strategy, "resourceslices", nil, nil},
		{Group: "resource.k8s.io", Kind: "ResourceClaim"}:             {claims, "resourceclaims", nil, resourceclaim.NewStatusStrategy(claims)},
		{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}:     {resourceclaimtemplate.NewStrategy(nsc), "resourceclaimtemplates", nil, nil},
		{Group: "resource.k8s.io", Kind: "DeviceTaintRule"}:           {devicetaintrule.Strategy, "devicetaintrules", nil, nil},
		{Group: "resource.k8s.io", Kind: "ResourcePoolStatusRequest"}: {resourcepoolstatusrequest.Strategy, "resourcepoolstatusrequests", nil, nil},
		{Group: "scheduling.k8s.io", Kind: "PodGroup"}:                {podGroups, "podgroups", nil, podgroup.NewStatusStrategy(podGroups)},
		{Group: "", Kind: "Pod"}:                                      {podregistry.Strategy, "pods", podDRAPart, nil},
		{Group: "", Kind: "Node"}:                                     {noderegistry.Strategy, "nodes", metadataOnly, nil},
		{Group: "", Kind: "Namespace"}:                                {nsregistry.Strategy, "namespaces", metadataOnly, nil},
		{Group: "", Kind: "ResourceQuota"}:                            {resourcequota.Strategy, "resourcequotas", nil, resourcequota.StatusStrategy},
	}
	return r
}

func (r *run) problem(s string) { r.problems = append(r.problems, s) }

type seenObj struct {
	where   string
	content string
}

// once: a second valid object of one kind, namespace and name is a
// problem (the API server would refuse to create it); an identical repeat
// is the same object (a manifest's steps repeating a Namespace).
func (r *run) once(o *object, gk schema.GroupKind, ns, name string) {
	if name == "" {
		return
	}
	key := gk.String() + "/" + ns + "/" + name
	content := jsonText(o.m)
	if prev, ok := r.seen[key]; ok {
		if prev.content != content {
			r.report(o, "", fmt.Sprintf("duplicate object %s, first defined at %s", ref(o.m), prev.where))
		}
		return
	}
	r.seen[key] = seenObj{o.where(), content}
}

// ref names an object as dra-slice does: Kind/namespace/name, a NUL byte
// written \x00.
func ref(m map[string]interface{}) string {
	kind, _ := m["kind"].(string)
	md, _ := m["metadata"].(map[string]interface{})
	name, _ := md["name"].(string)
	ns, _ := md["namespace"].(string)
	kind, name, ns = nulEscaped(kind), nulEscaped(name), nulEscaped(ns)
	if kind == "" {
		kind = "object"
	}
	if name == "" {
		if gen, _ := md["generateName"].(string); gen != "" {
			gen = nulEscaped(gen)
			if ns != "" {
				return fmt.Sprintf("%s/%s/%s*", kind, ns, gen)
			}
			return fmt.Sprintf("%s/%s*", kind, gen)
		}
		return fmt.Sprintf("<unnamed %s>", kind)
	}
	if ns != "" {
		return fmt.Sprintf("%s/%s/%s", kind, ns, name)
	}
	return fmt.Sprintf("%s/%s", kind, name)
}

// nulEscaped writes a NUL byte as Go's %q does (\x00): a message line
// cannot carry the byte.
func nulEscaped(s string) string { return strings.ReplaceAll(s, "\x00", `\x00`) }

func jsonText(v interface{}) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// typeMeta: the group/version/kind of an object, or why there is none, in
// dra-slice's words (the API server would not see such a document: kubectl
// refuses it first): a value of another type than string (null included)
// for apiVersion, then kind; then a missing or empty apiVersion, then kind.
func typeMeta(m map[string]interface{}) (schema.GroupVersionKind, string) {
	for _, k := range []string{"apiVersion", "kind"} {
		if v, present := m[k]; present {
			if _, ok := v.(string); !ok {
				return schema.GroupVersionKind{}, fmt.Sprintf("%s: Invalid value: %s: must be of type string", k, jsonText(v))
			}
		}
	}
	for _, k := range []string{"apiVersion", "kind"} {
		if s, _ := m[k].(string); s == "" {
			return schema.GroupVersionKind{}, fmt.Sprintf("%s: Required value: object has no %s", k, k)
		}
	}
	gv, err := schema.ParseGroupVersion(m["apiVersion"].(string))
	if err != nil {
		gv = schema.GroupVersion{Version: m["apiVersion"].(string)}
	}
	return gv.WithKind(m["kind"].(string)), ""
}

func (r *run) validateAll(objs []*object) {
	// Namespaces first: a claim's admin access looks its namespace up.
	for _, o := range objs {
		if gvk, why := typeMeta(o.m); why == "" && gvk.Group == "" && gvk.Version == "v1" && gvk.Kind == "Namespace" {
			ns := &corev1.Namespace{}
			if b, err := json.Marshal(o.m); err == nil && json.Unmarshal(b, ns) == nil && ns.Name != "" {
				if _, dup := r.ns[ns.Name]; !dup {
					r.ns[ns.Name] = ns
				}
			}
		}
	}
	for _, o := range objs {
		r.validateRecovering(o)
	}
}

// validateRecovering validates o; a panic of upstream's code is reported
// for o alone, as the API server's panic recovery (k8s.io/apiserver
// pkg/server/filters WithPanicRecovery) answers that one request, and the
// objects after it are still validated.
func (r *run) validateRecovering(o *object) {
	defer func() {
		if p := recover(); p != nil {
			r.report(o, "", fmt.Sprintf("This request caused apiserver to panic. Look in the logs for details. (panic: %v)", p))
		}
	}()
	r.validate(o)
}

func (r *run) report(o *object, path, msg string) {
	name := ref(o.m)
	if strings.HasPrefix(name, "<") && o.item >= 0 {
		name = fmt.Sprintf("%s %s", o.path, name)
	}
	if path != "" {
		msg = path + ": " + msg
	}
	r.problem(fmt.Sprintf("%s: %s: %s", o.where(), name, msg))
}

// duplicates reports the fields of o given twice, as strict decoding of
// the whole object does; whether it did (strict mode).
func (r *run) duplicates(o *object, info *kindInfo) bool {
	data := o.raw
	var strictErrs []error
	if o.yaml {
		if _, err := sigyaml.YAMLToJSONStrict(o.raw); err != nil {
			strictErrs = append(strictErrs, err)
		}
		if j, err := sigyaml.YAMLToJSON(o.raw); err == nil {
			data = j
		}
	}
	var m map[string]interface{}
	errs, err := kjsonstrict.UnmarshalStrict(data, &m)
	if err == nil {
		strictErrs = append(strictErrs, errs...)
	}
	// anywhere in the object: the API server decodes all of it (a Pod, Node
	// or Namespace has no RawExtension whose text it would not look into)
	found := false
	for _, e := range strictErrs {
		msg := e.Error()
		if r.o.fieldVal == "Warn" {
			r.warnings = append(r.warnings, fmt.Sprintf("%s: %s: %s", o.where(), ref(o.m), msg))
			continue
		}
		r.report(o, "", msg)
		found = true
	}
	return found
}

func (r *run) decoder(yaml bool) runtime.Decoder {
	s := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, legacyscheme.Scheme, legacyscheme.Scheme,
		kjson.SerializerOptions{Yaml: yaml, Strict: r.o.fieldVal != "Ignore"})
	return versioning.NewDefaultingCodecForScheme(legacyscheme.Scheme, nil, s, nil, runtime.InternalGroupVersioner)
}

func (r *run) validate(o *object) {
	gvk, why := typeMeta(o.m)
	if why != "" {
		r.report(o, "", why)
		return
	}
	info := r.kinds[gvk.GroupKind()]
	if info == nil || !legacyscheme.Scheme.Recognizes(gvk) {
		if gvk.Group == "resource.k8s.io" || info != nil && gvk.Group != "" {
			r.report(o, "kind", fmt.Sprintf("no matches for kind %q in version %q", gvk.Kind, gvk.GroupVersion().String()))
			return
		}
		r.skipped++
		if r.o.verbose {
			fmt.Fprintf(os.Stderr, "%s: %s: %s: skipped: not a kind this peer validates\n", prog, o.where(), ref(o.m))
		}
		return
	}
	r.checked++
	// Namespaced objects without a namespace get kubectl's context
	// namespace, "default", before anything else (as dra-slice does).
	if info.strategy.NamespaceScoped() {
		md, _ := o.m["metadata"].(map[string]interface{})
		if md != nil {
			// absent, null or "": a value of another type stays (and
			// fails to decode)
			if ns, isStr := md["namespace"].(string); md["namespace"] == nil || isStr && ns == "" {
				md["namespace"] = "default"
			}
		}
	}
	raw, isYAML := o.raw, o.yaml
	if gvk.Group == "" && gvk.Kind != "ResourceQuota" { // a quota is checked whole
		// a field given twice in the DRA part is still one the API server
		// refuses
		if r.o.fieldVal != "Ignore" && r.duplicates(o, info) {
			return
		}
		raw, isYAML = []byte(jsonText(draPartOf(gvk.Kind, o.m))), false
	}
	obj, _, err := r.decoder(isYAML).Decode(raw, nil, nil)
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		switch {
		case isStrict && obj != nil && r.o.fieldVal == "Warn":
			for _, e := range strictErr.Errors() {
				r.warnings = append(r.warnings, fmt.Sprintf("%s: %s: %v", o.where(), ref(o.m), e))
			}
		case isStrict:
			for _, e := range strictErr.Errors() {
				r.report(o, "", e.Error())
			}
			return
		default:
			r.report(o, "", "decode: "+err.Error())
			return
		}
	}
	if obj == nil {
		r.report(o, "", "decode: no object")
		return
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		r.report(o, "", "metadata: "+err.Error())
		return
	}
	ns := ""
	if info.strategy.NamespaceScoped() {
		if accessor.GetNamespace() == "" {
			accessor.SetNamespace("default")
		}
		ns = accessor.GetNamespace()
	}
	rest.FillObjectMetaSystemFields(accessor)
	if accessor.GetGenerateName() != "" && accessor.GetName() == "" {
		accessor.SetName(info.strategy.GenerateName(accessor.GetGenerateName()))
	}
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIPrefix: "apis", APIGroup: gvk.Group, APIVersion: gvk.Version,
		Namespace: ns, Resource: info.resource, Name: accessor.GetName(),
	})
	r.nsc.obj = o
	given := obj.DeepCopyObject()
	info.strategy.PrepareForCreate(ctx, obj)
	errs := validateCreate(ctx, obj, info.strategy)
	// A status given with the object (a dump of a cluster) is checked as
	// the API server checks it when it is written: an update of the status
	// subresource of the object as created.
	if st, _ := o.m["status"].(map[string]interface{}); info.status != nil && len(st) > 0 {
		sctx := genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
			IsResourceRequest: true, Verb: "update", APIPrefix: "apis", APIGroup: gvk.Group, APIVersion: gvk.Version,
			Namespace: ns, Resource: info.resource, Subresource: "status", Name: accessor.GetName(),
		})
		sctx = genericapirequest.WithUser(sctx, &user.DefaultInfo{Name: "dra-tools", Groups: []string{user.SystemPrivilegedGroup}})
		info.status.PrepareForUpdate(sctx, given, obj)
		for _, e := range validateUpdate(sctx, given, obj, info.status) {
			if strings.HasPrefix(e.Field, "status") {
				errs = append(errs, e)
			}
		}
	}
	if !r.reportErrs(o, info, errs) {
		r.once(o, gvk.GroupKind(), ns, accessor.GetName())
	}
}

// allowAll authorizes every status write (the writer of a dump was allowed).
type allowAll struct{}

func (allowAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}

// reportErrs reports the errors that count; whether there was one.
func (r *run) reportErrs(o *object, info *kindInfo, errs field.ErrorList) bool {
	any := false
	for _, e := range errs {
		if info.keep == nil || info.keep(e.Field) {
			r.report(o, e.Field, e.ErrorBody())
			any = true
		}
	}
	return any
}
