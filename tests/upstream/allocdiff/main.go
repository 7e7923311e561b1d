// Command upstream-allocdiff is the differential suite of `dra-alloc --node`
// against the scheduler's structured allocator (package peer, the code of
// upstream-alloc): every input under the named paths, for each node in it,
// and SEEDS generated cases (gen.go), each run through both; it prints the
// counts and "N passed, N failed", each disagreement with its seed or
// input and a minimized input kept under -keep.
//
// Compared: the exit status (allocated, cannot allocate, error), and when
// both allocate, every pending claim as written (devices chosen and their
// order, config, node selector, consumed capacity, share IDs, binding
// conditions, skipNodeOperations...).  Inputs dra-alloc refuses as invalid
// are counted, not compared.  Disagreements listed in KNOWN (upstream's own
// bugs) are counted separately.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"dra-tools/tests/upstream/allocdiff/peer"
)

var (
	draAlloc = flag.String("dra-alloc", "build/bin/dra-alloc", "the dra-alloc binary")
	keep     = flag.String("keep", "build/upstream/allocdiff", "folder for failing inputs")
	seeds    = flag.Int("seeds", 2000, "generated cases (0: until stopped)")
	seed0    = flag.Uint64("seed0", 1, "first seed")
	jobs     = flag.Int("j", 2, "cases run at once")
	known    = flag.String("known", "tests/upstream/allocdiff/KNOWN", "upstream's own bugs: one seed or input a line")
	verbose  = flag.Bool("v", false, "say what each case did")
	timeout  = flag.Duration("timeout", 3*time.Second, "each allocation's limit, in both (a case past it is counted timed out)")
)

const now = "2026-01-01T00:00:00Z"

// The verdict of one comparison.
type verdict struct {
	kind   string // pass, fail, refused, timeout
	detail string
	sig    string // what kind of failure, kept while minimizing
}

// run1 runs dra-alloc on file.
func runC(file, node, gates string, validate bool) (int, []byte, string) {
	args := []string{"--node", node, "-o", "json", "--now", now, "--timeout", fmt.Sprint(timeout.Seconds())}
	if gates != "" {
		args = append(args, "--feature-gates", gates)
	}
	if !validate {
		args = append(args, "--no-validate")
	}
	args = append(args, file)
	cmd := exec.Command(*draAlloc, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		if x, ok := err.(*exec.ExitError); ok {
			code = x.ExitCode()
		} else {
			code = 99
		}
	}
	return code, out.Bytes(), strings.TrimSpace(errb.String())
}

func runUp(data []byte, name, node, gates string, validate bool) peer.Outcome {
	raws, err := peer.ReadBytes(name, data)
	if err != nil {
		return peer.Outcome{Exit: peer.ExitInput, Msg: err.Error()}
	}
	// created objects lose the fields of disabled features, as dra-alloc's
	// validated input does; stored ones (--no-validate) keep them
	in, err := peer.Decode(raws)
	if validate {
		in, err = peer.DecodeCreated(raws, gates)
	}
	if err != nil {
		return peer.Outcome{Exit: peer.ExitInput, Msg: err.Error()}
	}
	t, _ := time.Parse(time.RFC3339, now)
	return peer.Run(context.Background(), peer.Options{Node: node, Gates: gates, Now: t, Timeout: *timeout}, in)
}

// claimsOf reads dra-alloc's -o json output as generic values.
func claimsOf(out []byte) ([]any, error) {
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, nil
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, err
	}
	if v["kind"] == "List" {
		items, _ := v["items"].([]any)
		return items, nil
	}
	return []any{v}, nil
}

func generic(x any) any {
	b, _ := json.Marshal(x)
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}

// devices says which devices each claim got, for the report.
func devices(claims []any) string {
	var parts []string
	for _, c := range claims {
		m, _ := c.(map[string]any)
		name := fmt.Sprint(dig(m, "metadata", "name"))
		var ds []string
		res, _ := dig(m, "status", "allocation", "devices", "results").([]any)
		for _, r := range res {
			rm, _ := r.(map[string]any)
			ds = append(ds, fmt.Sprintf("%v=%v/%v/%v", rm["request"], rm["driver"], rm["pool"], rm["device"]))
		}
		parts = append(parts, name+"["+strings.Join(ds, " ")+"]")
	}
	return strings.Join(parts, " ")
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// firstDiff names the first path where a and b differ.
func firstDiff(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		var ks []string
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if !reflect.DeepEqual(x[k], y[k]) {
				return firstDiff(path+"."+k, x[k], y[k])
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			break
		}
		for i := range x {
			if !reflect.DeepEqual(x[i], y[i]) {
				return firstDiff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i])
			}
		}
		return ""
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return fmt.Sprintf("%s: dra-alloc %s, upstream %s", path, ja, jb)
}

// compare runs both on one input and node.
func compare(file string, data []byte, node, gates string) verdict {
	return compareV(file, data, node, gates, true)
}

func compareV(file string, data []byte, node, gates string, validate bool) verdict {
	code, out, msg := runC(file, node, gates, validate)
	if code == 2 {
		// refused as input (the message names the file), not the allocator's error
		if strings.HasPrefix(firstLine(msg), "dra-alloc: "+file+":") {
			return verdict{kind: "refused", detail: firstLine(msg)}
		}
		if c2, _, m2 := runC(file, node, gates, false); c2 != 2 {
			return verdict{kind: "refused", detail: msg + " / " + m2}
		}
	}
	up := runUp(data, file, node, gates, validate)
	v := judge(code, out, msg, up)
	if v.kind == "fail" && v.sig != "panic" && stableVariant(gates) {
		// upstream's stable allocator walks its pools in Go map order
		// (stable/pools_stable.go GatherPools: no sort), so its choice
		// varies from run to run: dra-alloc's (sorted) order must be one
		// of them (KNOWN: stable-pool-order)
		for i := 0; i < 40; i++ {
			if w := judge(code, out, msg, runUp(data, file, node, gates, validate)); w.kind == "pass" {
				return verdict{kind: "known", detail: "stable-pool-order: matched run " + fmt.Sprint(i+2)}
			}
		}
		// no run matched: the stable variant's own quirks (KNOWN), which
		// dra-alloc does not copy (it answers as the incubating variant)
		return verdict{kind: "known", detail: "stable-variant: " + v.detail}
	}
	return v
}

// stableVariant: the gates make the scheduler run the stable allocator.
func stableVariant(gates string) bool {
	f, _, err := peer.Features(gates)
	return err == nil && !f.ConsumableCapacity && !f.DeviceBindingAndStatus &&
		!f.ListTypeAttributes && !newerFeatures(f)
}

// judge compares dra-alloc's answer with one of upstream's.
func judge(code int, out []byte, msg string, up peer.Outcome) verdict {
	if up.Exit == peer.ExitPanic {
		return verdict{kind: "fail", detail: fmt.Sprintf("dra-alloc exit %d (%s), %s", code, firstLine(msg), firstLine(up.Msg)), sig: "panic"}
	}
	if code == 3 || up.Exit == peer.ExitRuntime {
		return verdict{kind: "timeout", detail: fmt.Sprintf("dra-alloc %d, upstream %d", code, up.Exit)}
	}
	if code != up.Exit {
		d := fmt.Sprintf("exit: dra-alloc %d (%s), upstream %d (%s)", code, firstLine(msg), up.Exit, up.Msg)
		if code == 0 {
			c, _ := claimsOf(out)
			d += "; dra-alloc chose " + devices(c)
		}
		if up.Exit == 0 {
			d += "; upstream chose " + devices(generic(up.Claims).([]any))
		}
		return verdict{kind: "fail", detail: d, sig: fmt.Sprintf("exit %d/%d", code, up.Exit)}
	}
	if code != 0 {
		return verdict{kind: "pass"}
	}
	got, err := claimsOf(out)
	if err != nil {
		return verdict{kind: "fail", detail: "dra-alloc output: " + err.Error(), sig: "output"}
	}
	want, _ := generic(up.Claims).([]any)
	maskShareIDs(got)
	maskShareIDs(want)
	if reflect.DeepEqual(got, want) {
		return verdict{kind: "pass"}
	}
	dg, du := devices(got), devices(want)
	if dg != du {
		return verdict{kind: "fail", detail: "devices: dra-alloc " + dg + ", upstream " + du, sig: "devices"}
	}
	return verdict{kind: "fail", detail: firstDiff("", got, want), sig: "result"}
}

func firstLine(s string) string {
	lines := strings.Split(s, "\n")
	for _, l := range lines {
		if !strings.Contains(l, ": warning: ") {
			return l
		}
	}
	return lines[0]
}

type counts struct {
	sync.Mutex
	inputs, cases, passed, failed, known, refused, timeout, skipped int
	refusals, knowns                                                []string
}

func (c *counts) add(v verdict, what string, isKnown bool) {
	c.Lock()
	defer c.Unlock()
	c.cases++
	switch {
	case v.kind == "pass":
		c.passed++
	case v.kind == "refused":
		c.refused++
		if len(c.refusals) < 5 {
			c.refusals = append(c.refusals, what+": "+v.detail)
		}
	case v.kind == "timeout":
		c.timeout++
	case isKnown || v.kind == "known":
		c.known++
		if len(c.knowns) < 10 {
			c.knowns = append(c.knowns, "KNOWN "+what+": "+firstLine(v.detail))
		}
	default:
		c.failed++
		fmt.Println("FAIL " + what + ": " + v.detail) // as found: a run may be unbounded
	}
	if *verbose {
		fmt.Fprintf(os.Stderr, "%s %s %s\n", v.kind, what, v.detail)
	}
}

func readKnown() map[string]bool {
	k := map[string]bool{}
	f, err := os.Open(*known)
	if err != nil {
		return k
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		l := strings.TrimSpace(s.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k[strings.Fields(l)[0]] = true
	}
	return k
}

// Inputs of a path: each manifest file, and each folder of them as one.
func corpus(root string) []string {
	var out []string
	_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if info.IsDir() {
			if !strings.HasPrefix(filepath.Clean(p), "examples") {
				return nil // folders of examples/ are one input each; tests/data's are not
			}
			ents, _ := os.ReadDir(p)
			n := 0
			for _, e := range ents {
				if !e.IsDir() && isManifest(e.Name()) {
					n++
				}
			}
			if n > 1 {
				out = append(out, p)
			}
			return nil
		}
		if isManifest(p) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func isManifest(n string) bool {
	return strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml") || strings.HasSuffix(n, ".jsonl")
}

// All the allocator's gates on: a second try for inputs that need them.
const allGates = "DRAConsumableCapacity=true,DRADerivedAttributes=true,DRADeviceBindingConditions=true," +
	"DRADeviceCompatibilityGroups=true,DRADeviceTaintRules=true,DRADeviceTaints=true,DRAFractionalCapacityRange=true," +
	"DRAListTypeAttributes=true,DRAOptionalNodeOperations=true,DRAPartitionableDevices=true"

func runCorpus(paths []string, c *counts, kn map[string]bool) {
	for _, root := range paths {
		for _, p := range corpus(root) {
			raws, err := peer.ReadPaths([]string{p}, nil)
			if err != nil {
				c.skipped++
				continue
			}
			in, err := peer.Decode(raws)
			if err != nil || len(in.Claims) == 0 {
				c.skipped++
				continue
			}
			c.inputs++
			var data []byte
			file := p
			gates := ""
			if g, rest, ok := testCase(raws); ok {
				// upstream's table case: its objects, with its gates
				gates, raws = g, rest
				data = jsonLines(raws)
				file = writeTemp(data)
				defer os.Remove(file)
			} else if st, _ := os.Stat(p); st != nil && st.IsDir() {
				// one file with the folder's objects, in order
				var b bytes.Buffer
				for _, r := range raws {
					b.Write(r.JSON)
					b.WriteByte('\n')
				}
				data = b.Bytes()
				f, _ := os.CreateTemp("", "allocdiff-*.jsonl")
				f.Write(data)
				f.Close()
				file = f.Name()
				defer os.Remove(file)
			} else {
				data, _ = os.ReadFile(p)
			}
			for _, node := range peer.Nodes(in) {
				v := compare(file, data, node, gates)
				if v.kind == "refused" && gates != "" {
					// the table builds objects the API server refuses;
					// its runner passes --no-validate
					v = compareV(file, data, node, gates, false)
				}
				if v.kind == "refused" && gates == "" {
					v = compare(file, data, node, allGates)
				}
				what := fmt.Sprintf("input %s node %s", p, node)
				c.add(v, what, kn[p])
			}
		}
	}
}

func caseBytes(objs []any) []byte {
	var b bytes.Buffer
	for _, o := range objs {
		j, _ := json.Marshal(o)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func writeTemp(data []byte) string {
	f, _ := os.CreateTemp("", "allocdiff-*.jsonl")
	f.Write(data)
	f.Close()
	return f.Name()
}

// minimize drops objects while the failure keeps its kind.
func minimize(objs []any, node, gates, sig string, validate bool) []any {
	for changed := true; changed; {
		changed = false
		for i := len(objs) - 1; i >= 0; i-- {
			try := append(append([]any{}, objs[:i]...), objs[i+1:]...)
			data := caseBytes(try)
			f := writeTemp(data)
			v := compareV(f, data, node, gates, validate)
			os.Remove(f)
			if v.kind == "fail" && v.sig == sig {
				objs, changed = try, true
			}
		}
	}
	return objs
}

func runSeeds(c *counts, kn map[string]bool) {
	work := make(chan uint64)
	var wg sync.WaitGroup
	for w := 0; w < *jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range work {
				gc := generate(seed)
				data := caseBytes(gc.objs)
				f := writeTemp(data)
				gates := gc.gateString()
				for _, node := range gc.nodes {
					validate := true
					v := compare(f, data, node, gates)
					if v.kind == "refused" {
						// stored objects with fields of gates now off: what
						// the allocator makes of them (--no-validate)
						validate = false
						v = compareV(f, data, node, gates, false)
					}
					what := fmt.Sprintf("seed %d node %s", seed, node)
					name := fmt.Sprintf("seed-%d", seed)
					if v.kind == "fail" && !kn[name] {
						_ = os.MkdirAll(*keep, 0o755)
						min := minimize(gc.objs, node, gates, v.sig, validate)
						out := filepath.Join(*keep, fmt.Sprintf("%s-%s.jsonl", name, node))
						_ = os.WriteFile(out, caseBytes(min), 0o644)
						nv := ""
						if !validate {
							nv = " --no-validate"
						}
						v.detail += fmt.Sprintf("\n    dra-alloc%s --node %s --feature-gates %s --now %s %s", nv, node, gates, now, out)
					}
					c.add(v, what, kn[name])
				}
				os.Remove(f)
				c.Lock()
				c.inputs++
				if *seeds == 0 && c.inputs%1000 == 0 {
					fmt.Fprintf(os.Stderr, "%d seeds, %d cases: %d passed, %d failed, %d known\n", c.inputs, c.cases, c.passed, c.failed, c.known)
				}
				c.Unlock()
			}
		}()
	}
	for i := 0; *seeds == 0 || i < *seeds; i++ {
		work <- *seed0 + uint64(i)
	}
	close(work)
	wg.Wait()
}

func main() {
	flag.Parse()
	kn := readKnown()
	start := time.Now()
	var cc, cs counts
	if flag.NArg() > 0 {
		runCorpus(flag.Args(), &cc, kn)
		fmt.Printf("inputs: %d read (%d skipped: unreadable or no claims), %d cases: %d passed, %d failed, %d known, %d refused as invalid, %d timed out\n",
			cc.inputs, cc.skipped, cc.cases, cc.passed, cc.failed, cc.known, cc.refused, cc.timeout)
	}
	if *seeds != 0 || flag.NArg() == 0 {
		runSeeds(&cs, kn)
		for _, r := range cs.refusals {
			fmt.Println("refused " + r)
		}
		for _, k := range cs.knowns {
			fmt.Println(k)
		}
		fmt.Printf("seeds: %d from %d, %d cases: %d passed, %d failed, %d known, %d refused as invalid, %d timed out\n",
			cs.inputs, *seed0, cs.cases, cs.passed, cs.failed, cs.known, cs.refused, cs.timeout)
	}
	fmt.Printf("%d passed, %d failed (%s)\n", cc.passed+cs.passed, cc.failed+cs.failed, time.Since(start).Round(time.Second))
	if cc.failed+cs.failed > 0 {
		os.Exit(1)
	}
}

// maskShareIDs replaces each result's shareID by its form: upstream makes a
// random UUID (uuid.NewUUID in allocateDevice), so only its presence and
// form can agree.
func maskShareIDs(claims []any) {
	for _, c := range claims {
		res, _ := dig(c, "status", "allocation", "devices", "results").([]any)
		for _, r := range res {
			rm, _ := r.(map[string]any)
			if id, ok := rm["shareID"].(string); ok {
				if uuidForm.MatchString(id) {
					rm["shareID"] = "<uuid>"
				}
			}
		}
	}
}

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func jsonLines(raws []peer.Raw) []byte {
	var b bytes.Buffer
	for _, r := range raws {
		b.Write(r.JSON)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// testCase reads the header of an upstream table case of tests/data/alloc/
// upstream (kind AllocatorTestCase, the gates it turns on; every other gate
// of the allocator is off there) and returns the gates and the objects.
func testCase(raws []peer.Raw) (string, []peer.Raw, bool) {
	if len(raws) == 0 {
		return "", nil, false
	}
	var head struct {
		Kind  string   `json:"kind"`
		Gates []string `json:"gates"`
	}
	if json.Unmarshal(raws[0].JSON, &head) != nil || head.Kind != "AllocatorTestCase" {
		return "", nil, false
	}
	on := map[string]bool{}
	for _, g := range head.Gates {
		on[g] = true
	}
	var gs []string
	for _, g := range strings.Split(allGates, ",") {
		name := strings.TrimSuffix(g, "=true")
		gs = append(gs, fmt.Sprintf("%s=%t", name, on[name]))
	}
	// one name in two pools, one claim twice: the tools refuse an object
	// given twice, so a repeated name gets a suffix (as the table's runner)
	seen := map[string]int{}
	var out []peer.Raw
	for _, r := range raws[1:] {
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(r.JSON))
		dec.UseNumber() // a count past 2^53 stays exact
		if dec.Decode(&m) == nil {
			if md, ok := m["metadata"].(map[string]any); ok {
				key := fmt.Sprintf("%v/%v/%v", m["kind"], md["namespace"], md["name"])
				if n := seen[key]; n > 0 {
					md["name"] = fmt.Sprintf("%v-dra-tools-%d", md["name"], n)
					r.JSON, _ = json.Marshal(m)
				}
				seen[key]++
			}
		}
		out = append(out, r)
	}
	return strings.Join(gs, ","), out, true
}
