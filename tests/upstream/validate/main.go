// Command upstream-validate-diff is the differential suite of `dra-slice
// validate` against upstream-validate (the Kubernetes 1.37.2 API server's
// own decoding, defaulting and validation; tests/upstream/cmd):
//
//  1. every seed file (tests/data, examples, tests/fuzz/seeds) as it is;
//  2. every object of those files, and seeded mutations of each
//     (mutate.go), as JSON Lines batches, under the default feature gates
//     and, for the seeds and a share of the mutations, under other gate sets.
//
// For each file and each object, both must give the same verdict, and the
// same problems (object, field path, message); only the line numbers are
// not compared for whole files (dra-slice names a field's own line,
// upstream-validate its document's).  Prints the counts and `N passed, N
// failed`, then each disagreement; exit 1 when there is one.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/yaml"
)

var (
	root      = flag.String("root", ".", "the dra-tools tree")
	draSlice  = flag.String("dra-slice", "build/bin/dra-slice", "dra-slice to test")
	peer      = flag.String("peer", "build/upstream/bin/upstream-validate", "the upstream peer")
	work      = flag.String("work", "build/upstream/validate", "scratch directory (batches, failures)")
	seed      = flag.Int64("seed", 1, "mutator seed")
	perObject = flag.Int("mutations", 8, "random mutations per seed object")
	limits    = flag.Int("limits", 2, "probes of list limits per seed object")
	share     = flag.Int("gate-share", 32, "under the other gate sets, every Nth mutation (and every seed)")
	batchSize = flag.Int("batch", 400, "objects per run of each tool (a file each)")
	fileBatch = flag.Int("file-batch", 40, "seed files per run of each tool")
	jobs      = flag.Int("jobs", 2, "tools run at once")
	maxShown  = flag.Int("show", 400, "disagreements printed (all are in WORK/report.txt)")
	dry       = flag.Bool("n", false, "count the cases only")
)

// Gate sets beside the defaults: each gate the validation depends on, the
// other way round from its 1.37 default, and all alpha and beta gates on.
var gateSets = []string{
	"",
	"AllAlpha=true,AllBeta=true",
	"DRAPartitionableDevices=false",
	"DRAConsumableCapacity=false",
	"DRADeviceTaints=false,DRADeviceTaintRules=false",
	"DRADeviceTaintRules=false",
	"DRADeviceBindingConditions=false",
	"DRAListTypeAttributes=true",
	"DRANodeAllocatableResources=true",
	"DRAFractionalCapacityRange=true",
	"DRADeviceCompatibilityGroups=true",
	"DRAPartitionableDevicesType=true,DRAResourcePoolStatus=true",
	"DRAOptionalNodeOperations=true",
	"DRAResourcePoolStatus=true",
	"DRADerivedAttributes=true",
	"DRAWorkloadResourceClaims=true,GenericWorkload=true",
}

// Kinds both tools validate (classic v1alpha2 DRA has no 1.37 peer;
// workloads are expanded into pods by dra-slice only).
var validated = map[string]bool{
	"resource.k8s.io/DeviceClass": true, "resource.k8s.io/ResourceSlice": true,
	"resource.k8s.io/ResourceClaim": true, "resource.k8s.io/ResourceClaimTemplate": true,
	"resource.k8s.io/DeviceTaintRule": true, "resource.k8s.io/ResourcePoolStatusRequest": true,
	"/Pod": true, "/Node": true, "/Namespace": true, "scheduling.k8s.io/PodGroup": true,
}
var namespacedKinds = map[string]bool{"ResourceClaim": true, "ResourceClaimTemplate": true, "Pod": true, "PodGroup": true}

// A Pod of classic DRA (resourceClaims[].source), which dra-slice reads as
// the flat v1 fields and the API server does not know.
func classicPod(o *node) bool {
	for _, c := range o.get("spec").get("resourceClaims").valsOf() {
		if c.get("source") != nil {
			return true
		}
	}
	return false
}

type testCase struct {
	desc  string
	gates string
	obj   *node
	text  string
	ref   string // as the tools name it
	ref0  string // before the namespace is defaulted (reading errors)
	dup   bool
}

type result struct {
	c       *testCase
	verdict verdict
	onlyC   []string
	onlyU   []string
}

func groupKind(o *node) string {
	av, kind := o.str("apiVersion"), o.str("kind")
	g := ""
	if i := strings.IndexByte(av, '/'); i >= 0 {
		g = av[:i]
	}
	if av == "resource.k8s.io/v1alpha2" {
		return "classic"
	}
	return g + "/" + kind
}

// releaseDirRe: a folder of one release's cases (tests/data/validate-1.38),
// read only when that release is the one compared.
var releaseDirRe = regexp.MustCompile(`-(1\.[0-9]+)$`)

// seedFiles: the files of the tree that may hold objects.
func seedFiles() []string {
	release := os.Getenv("DRA_KUBERNETES_VERSION")
	if release == "" {
		release = "1.37" // the release the tools and this peer default to
	}
	var files []string
	for _, d := range []string{"tests/data", "examples", "tests/fuzz/seeds"} {
		fuzz := d == "tests/fuzz/seeds"
		_ = filepath.WalkDir(filepath.Join(*root, d), func(p string, e os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() {
				if m := releaseDirRe.FindStringSubmatch(e.Name()); m != nil && m[1] != release {
					return filepath.SkipDir
				}
				return nil
			}
			n := e.Name()
			// the fast JSON reader's seeds are texts at its limits (a
			// document nested deeper than the tools' 64 levels, where Go's
			// decoder goes to 10,000), not objects of the API
			if fuzz && strings.Contains(p, "/seeds/loadb/") {
				return nil
			}
			if fuzz && (strings.Contains(p, "/seeds/strict/") || strings.Contains(p, "/seeds/stream/") ||
				strings.Contains(p, "/seeds/workloads/")) || strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml") ||
				strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".jsonl") {
				files = append(files, p)
			}
			return nil
		})
	}
	sort.Strings(files)
	return files
}

// objectsOf splits a file into objects (documents, List items) as JSON
// trees; files that do not read are left to the whole-file comparison.
func objectsOf(data []byte) ([]*node, bool) {
	var docs [][]byte
	t := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(t) > 0 && t[0] == '{' {
		for _, l := range bytes.Split(t, []byte("\n")) {
			docs = append(docs, l)
		}
		if n, err := parseTree(t); err == nil { // one JSON value over several lines
			docs = [][]byte{[]byte(n.text())}
		}
	} else {
		for _, d := range regexpSplitDocs(data) {
			j, err := yaml.YAMLToJSON(d)
			if err != nil {
				return nil, false
			}
			docs = append(docs, j)
		}
	}
	var out []*node
	complete := true
	for _, d := range docs {
		d = bytes.TrimSpace(d)
		n, err := parseTree(d)
		if err != nil || n.kind != 'o' {
			complete = complete && (len(d) == 0 || string(d) == "null")
			continue
		}
		if items := n.get("items"); items != nil && items.kind == 'a' && strings.HasSuffix(n.str("kind"), "List") {
			for _, it := range items.vals {
				if it.kind != 'o' {
					complete = false
					continue
				}
				if it.get("kind") == nil && it.get("apiVersion") == nil && n.str("kind") != "List" {
					it.set("apiVersion", sNode(n.str("apiVersion")))
					it.set("kind", sNode(strings.TrimSuffix(n.str("kind"), "List")))
				}
				out = append(out, it)
			}
			continue
		}
		out = append(out, n)
	}
	return out, complete
}

func regexpSplitDocs(data []byte) [][]byte {
	var docs [][]byte
	var cur bytes.Buffer
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("---")) {
			docs = append(docs, append([]byte(nil), cur.Bytes()...))
			cur.Reset()
			continue
		}
		cur.Write(l)
	}
	return append(docs, cur.Bytes())
}

func runTool(bin string, gates string, files ...string) (string, int) {
	var args []string
	if strings.HasSuffix(bin, "dra-slice") {
		args = append(args, "validate", "-v") // -v: every error, none capped
	} else {
		args = append(args, "--each-file")
	}
	if gates != "" {
		args = append(args, "--feature-gates", gates)
	}
	args = append(args, files...)
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	err := cmd.Run()
	rc := 0
	if ee, ok := err.(*exec.ExitError); ok {
		rc = ee.ExitCode()
	} else if err != nil {
		rc = -1
		stderr.WriteString(err.Error())
	}
	return stderr.String(), rc
}

type runner struct {
	mu      sync.Mutex
	results []result
	nbatch  int
	nsplit  int // groups run again file by file
	sem     chan struct{}
	wg      sync.WaitGroup
}

func (r *runner) submit(cases []*testCase, gates string) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.runGroup(cases, gates)
	}()
}

func main() {
	flag.Parse()
	start := time.Now()
	for _, d := range []string{"batches", "failures"} {
		_ = os.RemoveAll(filepath.Join(*work, d))
		if err := os.MkdirAll(filepath.Join(*work, d), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	rng := rand.New(rand.NewSource(*seed))
	r := &runner{sem: make(chan struct{}, *jobs)}

	// 1. the seed files as they are
	files := seedFiles()
	var fileResults []result
	var fileSkipped []string
	var mu sync.Mutex
	var seeds []*testCase
	seen := map[string]bool{}
	var wg sync.WaitGroup
	var fileGroups []*fileGroup
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		objs, complete := objectsOf(data)
		comparable := true
		for _, o := range objs {
			gk := groupKind(o)
			if gk == "classic" || strings.HasPrefix(gk, "apps/") || strings.HasPrefix(gk, "batch/") ||
				gk == "kubeflow.org/MPIJob" || classicPod(o) {
				comparable = false
			}
			if validated[gk] && !classicPod(o) {
				t := o.text()
				if !seen[t] {
					seen[t] = true
					seeds = append(seeds, &testCase{desc: f, obj: o, text: t, dup: o.hasDup()})
				}
			}
		}
		if !comparable {
			fileSkipped = append(fileSkipped, f)
			continue
		}
		// a file whose objects are all known joins a group of files
		// without another object of their names (the tools report the
		// second as a duplicate) nor a Namespace (a claim's admin access
		// looks it up) nor a Snapshot (dra-slice takes the release of
		// every file of the run from it)
		var keys []string
		alone := !complete
		for _, o := range objs {
			ref := refOf(o, namespacedKinds[o.str("kind")])
			// a Snapshot names the release of every file of its run
			alone = alone || o.str("kind") == "Namespace" || o.str("kind") == "Snapshot"
			if !strings.HasPrefix(ref, "<") && !strings.HasSuffix(ref, "*") {
				keys = append(keys, groupKind(o)+" "+ref)
			}
		}
		fileGroups = addFile(fileGroups, f, keys, alone)
	}
	for _, g := range fileGroups {
		wg.Add(1)
		go func(g *fileGroup) {
			defer wg.Done()
			outs := r.runFiles(g.files, "")
			for _, f := range g.files {
				cp, more := parseOutput(outs[0][f], "dra-slice", f)
				up, _ := parseOutput(outs[1][f], "upstream-validate", f)
				var ct, ut []string
				for _, p := range cp {
					ct = append(ct, p.text)
				}
				for _, p := range up {
					ut = append(ut, p.text)
				}
				v, oc, ou := compareObject(ct, ut, more, "")
				// the same problems name the same documents: both count
				// the documents kubectl does not skip
				if v == same && !sameDocs(cp, up) {
					v, oc, ou = differ, withDocs(cp), withDocs(up)
				}
				mu.Lock()
				fileResults = append(fileResults, result{&testCase{desc: f + " (whole file)"}, v, oc, ou})
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()

	// 2. objects and mutants, in batches
	var mutants []*testCase
	for i, s := range seeds {
		for _, m := range mutate(rng, s.obj, *limits, *perObject) {
			mutants = append(mutants, &testCase{desc: fmt.Sprintf("%s, object %d: %s", s.desc, i, m.desc),
				obj: m.obj, text: m.obj.text(), dup: m.dup || m.obj.hasDup()})
		}
	}
	if *dry {
		fmt.Printf("%d seed files, %d seed objects, %d mutations\n", len(files), len(seeds), len(mutants))
		return
	}
	nGated := 0
	for gi, g := range gateSets {
		var cases []*testCase
		for _, s := range seeds {
			c := *s
			c.desc = fmt.Sprintf("%s: %s", s.desc, refOf(s.obj, namespacedKinds[s.obj.str("kind")]))
			cases = append(cases, &c)
		}
		for i, m := range mutants {
			if gi == 0 || i%*share == gi%*share {
				cases = append(cases, m)
			}
		}
		for _, c := range cases {
			c2 := *c
			c2.gates = g
			c2.ref = refOf(c.obj, namespacedKinds[c.obj.str("kind")])
			c2.ref0 = refOf(c.obj, false)
			if gi > 0 {
				nGated++
			}
			cp := &c2
			pending = addToBatches(r, pending, cp, g)
		}
		for _, b := range pending {
			r.submit(b.cases, g)
		}
		pending = nil
	}
	r.wg.Wait()

	// 3. the report
	all := append(fileResults, r.results...)
	known, err := loadKnown(filepath.Join(*root, "tests/upstream/validate/KNOWN"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "upstream-validate-diff:", err)
		os.Exit(2)
	}
	passed, failed, verdictOnly, deep := 0, 0, 0, 0
	knownCount := make([]int, len(known))
	var fails []result
	for _, x := range all {
		switch x.verdict {
		case same:
			passed++
		case sameVerdict:
			passed++
			verdictOnly++
		case beyondLimit:
			deep++
		default:
			fails = append(fails, x)
		}
	}
	sort.SliceStable(fails, func(i, j int) bool { return fails[i].c.desc < fails[j].c.desc })
	var rep, knownRep bytes.Buffer
	for i, f := range fails {
		head := "FAIL " + f.c.desc
		if f.c.gates != "" {
			head += fmt.Sprintf(" [--feature-gates %s]", f.c.gates)
		}
		desc := describe(f.onlyC, f.onlyU)
		if k := matchKnown(known, desc); k >= 0 {
			knownCount[k]++
			fmt.Fprintf(&knownRep, "KNOWN (%s) %s\n%s", known[k].name, strings.TrimPrefix(head, "FAIL "), desc)
			continue
		}
		failed++
		rep.WriteString(head + "\n")
		if f.c.text != "" {
			p := filepath.Join(*work, "failures", fmt.Sprintf("f%05d.json", i))
			_ = os.WriteFile(p, []byte(f.c.text+"\n"), 0o644)
			fmt.Fprintf(&rep, "    input: %s\n", p)
		}
		rep.WriteString(desc)
	}
	rep.Write(knownRep.Bytes())
	_ = os.WriteFile(filepath.Join(*work, "report.txt"), rep.Bytes(), 0o644)
	lines := strings.SplitAfter(rep.String(), "\n")
	shown := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "KNOWN ") {
			break
		}
		if strings.HasPrefix(l, "FAIL ") {
			shown++
			if shown > *maxShown {
				fmt.Printf("... %d more disagreements in %s\n", failed-*maxShown, filepath.Join(*work, "report.txt"))
				break
			}
		}
		fmt.Print(l)
	}
	fmt.Printf("seed files: %d compared whole, %d not comparable (classic DRA or workloads)\n", len(fileResults), len(fileSkipped))
	fmt.Printf("objects: %d seed objects, %d mutations; %d cases under %d gate sets (%d beyond the defaults); %d batches\n",
		len(seeds), len(mutants), len(r.results), len(gateSets), nGated, r.nbatch)
	fmt.Printf("runs of each tool: %d groups of files, %d files run again alone\n", r.nbatch+len(fileGroups), r.nsplit)
	fmt.Printf("verdict only (upstream stops at a decoding error): %d\n", verdictOnly)
	if deep > 0 {
		fmt.Printf("not compared, nested deeper than the tools' 64 levels: %d\n", deep)
	}
	nKnown := 0
	for i, k := range known {
		if knownCount[i] > 0 {
			fmt.Printf("known, upstream's own error %s (%s): %d\n", k.name, k.why, knownCount[i])
			nKnown += knownCount[i]
		}
	}
	fmt.Printf("time: %s\n", time.Since(start).Round(time.Second))
	fmt.Printf("%d passed, %d failed, %d known (upstream's own errors, tests/upstream/validate/KNOWN)\n", passed, failed, nKnown)
	if failed > 0 {
		os.Exit(1)
	}
}

type batch struct {
	cases []*testCase
	ns    bool // of Namespaces (a claim's admin access looks them up)
}

var pending []*batch

// addToBatches puts a case in the open batch of its sort (Namespaces or
// not), and submits batches that are full.
func addToBatches(r *runner, bs []*batch, c *testCase, gates string) []*batch {
	ns := c.obj.str("kind") == "Namespace"
	for i, b := range bs {
		if b.ns != ns {
			continue
		}
		b.cases = append(b.cases, c)
		if len(b.cases) >= *batchSize {
			r.submit(b.cases, gates)
			return append(bs[:i:i], bs[i+1:]...)
		}
		return bs
	}
	return append(bs, &batch{cases: []*testCase{c}, ns: ns})
}

type fileGroup struct {
	files []string
	keys  map[string]bool
	alone bool
}

// addFile puts a seed file in the first group without an object of its
// objects' names (keys), or in a group of its own (alone).
func addFile(gs []*fileGroup, f string, keys []string, alone bool) []*fileGroup {
next:
	for _, g := range gs {
		if alone || g.alone || len(g.files) >= *fileBatch {
			continue
		}
		for _, k := range keys {
			if g.keys[k] {
				continue next
			}
		}
		g.files = append(g.files, f)
		for _, k := range keys {
			g.keys[k] = true
		}
		return gs
	}
	g := &fileGroup{files: []string{f}, keys: map[string]bool{}, alone: alone}
	for _, k := range keys {
		g.keys[k] = true
	}
	return append(gs, g)
}
