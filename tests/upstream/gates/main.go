// Command gates prints the DRA feature gates of each Kubernetes release the
// tools know, as that release's own kube-apiserver, scheduler and kubelet
// start with them: read from pkg/features/kube_features.go of
// k8s.io/kubernetes at that release (parsed as Go source, not imported, so
// one program reads every release), each gate's spec chosen as
// component-base's featureSpecAtEmulationAndMinCompatVersion chooses it at
// the default emulation version (the release) and min compatibility
// version (one minor before).
//
//	gates RELEASE=VERSION...
//
// Each argument names a release ("1.37") and the version of
// k8s.io/kubernetes that is it ("v1.37.2"), or a path to that module's zip.
// The zip comes from `go mod download -json` (its Zip): the go command
// downloads and verifies it even when it then refuses the module's go line
// (v1.38.0-beta.0 says go 1.27.0), so no newer toolchain is needed.
// Output, as `dra-slice gates` prints it: a header, then one row per
// release and gate, sorted, columns separated by one space:
//
//	RELEASE GATE DEFAULT STAGE LOCKED DEPENDS-ON
//	1.37 DRADeviceTaintRules true GA false DRADeviceTaints
//
// The DRA gates are DynamicResourceAllocation, every gate whose name begins
// with DRA, the scheduling gates the tools read (1.36's GangScheduling and
// WorkloadAwarePreemption), and
// every gate one of them depends on in any release given.
package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

type spec struct {
	version, minCompat [2]int
	hasMinCompat       bool
	def, locked        bool
	stage              string
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gates RELEASE=VERSION...")
		os.Exit(2)
	}
	var rels []*features
	extra := map[string]bool{}
	for _, arg := range os.Args[1:] {
		rel, ver, ok := strings.Cut(arg, "=")
		if !ok {
			fail("want RELEASE=VERSION, got %q", arg)
		}
		zipPath := ver
		if !strings.HasSuffix(ver, ".zip") {
			var err error
			if zipPath, err = download(ver); err != nil {
				fail("%s: %v", rel, err)
			}
		}
		f, err := read(rel, zipPath)
		if err != nil {
			fail("%s: %v", rel, err)
		}
		for _, d := range f.deps {
			for _, x := range d {
				extra[x] = true
			}
		}
		rels = append(rels, f)
	}
	fmt.Println("RELEASE GATE DEFAULT STAGE LOCKED DEPENDS-ON")
	for _, f := range rels {
		for _, l := range f.rows(extra) {
			fmt.Println(l)
		}
	}
}

// The module zip of k8s.io/kubernetes at ver, downloaded when missing.
func download(ver string) (string, error) {
	gocmd := os.Getenv("GO")
	if gocmd == "" {
		gocmd = "go"
	}
	out, _ := exec.Command(gocmd, "mod", "download", "-json", "k8s.io/kubernetes@"+ver).Output()
	var m struct{ Zip, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("go mod download k8s.io/kubernetes@%s: %v", ver, err)
	}
	if _, err := os.Stat(m.Zip); m.Zip == "" || err != nil {
		return "", fmt.Errorf("go mod download k8s.io/kubernetes@%s: no zip: %s", ver, m.Error)
	}
	return m.Zip, nil
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "gates: "+format+"\n", a...)
	os.Exit(3)
}

func parseMinor(s string) ([2]int, error) {
	s = strings.TrimPrefix(s, "v")
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return [2]int{}, fmt.Errorf("bad version %q", s)
	}
	a, err1 := strconv.Atoi(parts[0])
	b, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return [2]int{}, fmt.Errorf("bad version %q", s)
	}
	return [2]int{a, b}, nil
}

func less(a, b [2]int) bool { return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]) }

func readFeatures(zipPath string) ([]byte, error) {
	z, err := zip.OpenReader(zipPath)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	for _, f := range z.File {
		if strings.HasSuffix(f.Name, "/pkg/features/kube_features.go") && strings.HasPrefix(f.Name, "k8s.io/kubernetes@") {
			r, err := f.Open()
			if err != nil {
				return nil, err
			}
			defer r.Close()
			return io.ReadAll(r)
		}
	}
	return nil, fmt.Errorf("%s: no pkg/features/kube_features.go", zipPath)
}

// The string value of each featuergate.Feature constant: Go name -> gate name.
func constants(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i < len(vs.Values) {
					if bl, ok := vs.Values[i].(*ast.BasicLit); ok && bl.Kind == token.STRING {
						v, _ := strconv.Unquote(bl.Value)
						m[n.Name] = v
					}
				}
			}
		}
	}
	return m
}

func mapVar(f *ast.File, name string) *ast.CompositeLit {
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if len(vs.Names) == 1 && vs.Names[0].Name == name && len(vs.Values) == 1 {
				if cl, ok := vs.Values[0].(*ast.CompositeLit); ok {
					return cl
				}
			}
		}
	}
	return nil
}

// A gate key: a constant of this file, or pkg.Name of another package (its
// gate name is then Name, as every gate's constant is named after it).
func keyName(e ast.Expr, consts map[string]string) string {
	switch k := e.(type) {
	case *ast.Ident:
		if v, ok := consts[k.Name]; ok {
			return v
		}
		return k.Name
	case *ast.SelectorExpr:
		return k.Sel.Name
	}
	return ""
}

func versionArg(e ast.Expr) ([2]int, error) {
	c, ok := e.(*ast.CallExpr)
	if !ok || len(c.Args) != 1 {
		return [2]int{}, fmt.Errorf("version: not version.MustParse(...)")
	}
	bl, ok := c.Args[0].(*ast.BasicLit)
	if !ok {
		return [2]int{}, fmt.Errorf("version: not a literal")
	}
	s, _ := strconv.Unquote(bl.Value)
	return parseMinor(s)
}

func specs(cl *ast.CompositeLit) ([]spec, error) {
	var out []spec
	for _, el := range cl.Elts {
		sl, ok := el.(*ast.CompositeLit)
		if !ok {
			return nil, fmt.Errorf("spec is not a literal")
		}
		var s spec
		for _, f := range sl.Elts {
			kv := f.(*ast.KeyValueExpr)
			field := kv.Key.(*ast.Ident).Name
			var err error
			switch field {
			case "Version":
				s.version, err = versionArg(kv.Value)
			case "MinCompatibilityVersion":
				s.minCompat, err = versionArg(kv.Value)
				s.hasMinCompat = true
			case "Default":
				s.def = kv.Value.(*ast.Ident).Name == "true"
			case "LockToDefault":
				s.locked = kv.Value.(*ast.Ident).Name == "true"
			case "PreRelease":
				s.stage = kv.Value.(*ast.SelectorExpr).Sel.Name
			}
			if err != nil {
				return nil, err
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// component-base featureSpecAtEmulationAndMinCompatVersion.
func at(v []spec, emu, minCompat [2]int) spec {
	for i := len(v) - 1; i >= 0; i-- {
		if less(emu, v[i].version) {
			continue
		}
		if v[i].hasMinCompat && less(minCompat, v[i].minCompat) {
			continue
		}
		return v[i]
	}
	return spec{stage: "PreAlpha"}
}

type features struct {
	rel      string
	emu, min [2]int
	gates    map[string][]spec
	deps     map[string][]string
}

func read(rel, zipPath string) (*features, error) {
	emu, err := parseMinor(rel)
	if err != nil {
		return nil, err
	}
	src, err := readFeatures(zipPath)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), "kube_features.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	consts := constants(f)
	versioned := mapVar(f, "defaultVersionedKubernetesFeatureGates")
	depsLit := mapVar(f, "defaultKubernetesFeatureGateDependencies")
	if versioned == nil || depsLit == nil {
		return nil, fmt.Errorf("no defaultVersionedKubernetesFeatureGates or defaultKubernetesFeatureGateDependencies")
	}
	out := &features{rel: rel, emu: emu, min: [2]int{emu[0], emu[1] - 1}, gates: map[string][]spec{}, deps: map[string][]string{}}
	for _, el := range versioned.Elts {
		kv := el.(*ast.KeyValueExpr)
		cl, ok := kv.Value.(*ast.CompositeLit)
		if !ok {
			return nil, fmt.Errorf("%s: specs are not a literal", keyName(kv.Key, consts))
		}
		s, err := specs(cl)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", keyName(kv.Key, consts), err)
		}
		out.gates[keyName(kv.Key, consts)] = s
	}
	for _, el := range depsLit.Elts {
		kv := el.(*ast.KeyValueExpr)
		name := keyName(kv.Key, consts)
		if !isDRA(name) && !schedulingGates[name] {
			continue
		}
		var d []string
		for _, x := range kv.Value.(*ast.CompositeLit).Elts {
			d = append(d, keyName(x, consts))
		}
		out.deps[name] = d
	}
	return out, nil
}

// schedulingGates are the gates beyond DRA's own that the tools read: 1.36
// enables the GangScheduling plugin by its own gate (1.37 removed it,
// pkg/scheduler/apis/config/v1/default_plugins.go applyFeatureGates), and
// drops a new PodGroup's disruptionMode, priorityClassName and priority
// without WorkloadAwarePreemption (pkg/registry/scheduling/podgroup/
// strategy.go; 1.37 has no such gate).
var schedulingGates = map[string]bool{"GangScheduling": true, "WorkloadAwarePreemption": true}

func isDRA(name string) bool {
	return name == "DynamicResourceAllocation" || strings.HasPrefix(name, "DRA")
}

// One row per DRA gate of the release and per gate of extra it has.
func (f *features) rows(extra map[string]bool) []string {
	var lines []string
	for name, v := range f.gates {
		if !isDRA(name) && !schedulingGates[name] && !extra[name] {
			continue
		}
		s := at(v, f.emu, f.min)
		stage := map[string]string{"Alpha": "alpha", "Beta": "beta", "GA": "GA", "Deprecated": "deprecated"}[s.stage]
		if stage == "" {
			stage = s.stage
		}
		d := append([]string(nil), f.deps[name]...)
		sort.Strings(d)
		ds := strings.Join(d, ",")
		if ds == "" {
			ds = "-"
		}
		lines = append(lines, fmt.Sprintf("%s %s %t %s %t %s", f.rel, name, s.def, stage, s.locked, ds))
	}
	sort.Strings(lines)
	return lines
}
