// cel-diff: the differential suite of the project's CEL against upstream's.
//
//	cel-diff -peer build/upstream/bin/upstream-cel -c build/upstream/bin/cel-batch -root .
//	         [-seed N] [-count N] [-corpus] [-report N] [-v]
//	cel-diff ... -syntax [-seed N] [-count N] [-v]   (malformed selectors, syntax.go)
//
// Expressions: every selector written in tests/, examples/ and man/
// (extract.go), each on every device of the fixtures and of the
// project's ResourceSlices; with -corpus, the expressions of the CEL
// conformance and differential tables (tests/cel-conformance,
// tests/cel-diff); then -count expressions of the seeded generator
// (gen.go; -count 0 runs until interrupted).  For each: the selector
// verdict in the StoredExpressions and NewExpressions environments
// (compile error text, result type, estimated cost range), and the value
// or runtime error and actual cost of evaluating it.  Disagreements are
// shrunk (generated ones), grouped by the fields that differ, and listed
// with a command line that reproduces each.  Disagreements that are
// upstream's own bugs (tests/upstream/cel/KNOWN) are counted apart, in
// neither number.  Last line: "N passed, N failed".  Exit 0 when all
// agree, 1 otherwise, 2 on usage errors, 3 when a side fails.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

var (
	stderr   = os.Stderr
	dumpFile *os.File
)

type item struct {
	source string
	req    request
	tree   *node
	dev    *device
}

type failure struct {
	it    item
	diffs []diff
	c, u  response
}

func main() {
	peer := flag.String("peer", "build/upstream/bin/upstream-cel", "upstream-cel binary")
	cbin := flag.String("c", "build/upstream/bin/cel-batch", "cel-batch binary (the C side)")
	root := flag.String("root", ".", "the project's top directory")
	seed := flag.Int64("seed", 20260801, "generator seed")
	count := flag.Int("count", 10000, "generated expressions (0: until interrupted)")
	corpus := flag.Bool("corpus", false, "also the CEL conformance and differential tables")
	report := flag.Int("report", 40, "disagreements listed (shrunk, one per kind and text)")
	maxDevs := flag.Int("devices", 12, "devices taken from the project's ResourceSlices")
	verbose := flag.Bool("v", false, "list every disagreement, unshrunk")
	dump := flag.String("dump", "", "also write every request to this file (JSON lines)")
	only := flag.String("expr", "", "compare just this expression, on every device and none, and show where the answers differ")
	flag.DurationVar(&answerTimeout, "timeout", answerTimeout, "longest wait for one answer of either side (then it is killed and started again)")
	syntax := flag.Bool("syntax", false, "compare the compile errors of malformed expressions instead (written ones and -count generated)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(stderr, "cel-diff: unexpected arguments:", flag.Args())
		os.Exit(2)
	}
	t0 := time.Now()
	c, err := start("cel-batch", *cbin)
	if err == nil {
		var u *proc
		if u, err = start("upstream-cel", *peer, "batch"); err == nil {
			if *dump != "" {
				if dumpFile, err = os.Create(*dump); err != nil {
					fmt.Fprintln(stderr, "cel-diff:", err)
					os.Exit(2)
				}
			}
			if *only != "" {
				code := explain(c, u, *root, *only, *maxDevs)
				c.close()
				u.close()
				os.Exit(code)
			}
			if *syntax {
				code := runSyntax(c, u, *seed, *count, *report, *verbose, t0)
				c.close()
				u.close()
				os.Exit(code)
			}
			code := run(c, u, *root, *seed, *count, *corpus, *report, *maxDevs, *verbose, t0)
			c.close()
			u.close()
			os.Exit(code)
		}
	}
	fmt.Fprintln(stderr, "cel-diff:", err)
	os.Exit(3)
}

func run(c, u *proc, root string, seed int64, count int, corpus bool, report, maxDevs int, verbose bool, t0 time.Time) int {
	devs := append(fixtures(), sliceDevices(root, []string{"examples", "tests/data"}, maxDevs)...)
	devFile := filepath.Join(root, "build/upstream/cel-diff/devices.yaml")
	writeDevices(devFile, devs)

	rel := currentRelease()
	var sels []extracted
	left := 0
	for _, s := range extractSelectors(root, []string{"tests", "examples", "man"}) {
		if rel.leftOut(s.expr) {
			left++
			continue
		}
		sels = append(sels, s)
	}
	if left > 0 {
		fmt.Fprintf(stderr, "cel-diff: %d selectors left out: lists.range beyond what this release's peer survives (release.go)\n", left)
	}
	var items []item
	// Grouped by gate setting: upstream keeps one compiler at a time.
	for _, s := range sels {
		if !strings.Contains(s.expr, "device") {
			items = append(items, item{source: "selector " + s.where, req: request{Expr: s.expr}})
			continue
		}
		for i := range devs {
			d := &devs[i]
			items = append(items, item{source: "selector " + s.where, dev: d,
				req: request{Expr: s.expr, Driver: d.driver, Device: d.json}})
		}
	}
	for _, g := range rel.gateSets {
		for _, s := range sels {
			items = append(items, item{source: "selector " + s.where, req: request{Expr: s.expr, Gates: g}})
		}
	}
	nCorpus := 0
	if corpus {
		for _, e := range corpusExprs(root) {
			items = append(items, item{source: "corpus " + e.where, req: request{Expr: e.expr}})
			nCorpus++
		}
	}
	fmt.Printf("cel-diff: %d selectors extracted (each on %d devices and 4 gate settings), %d corpus expressions, generator seed %d\n",
		len(sels), len(devs), nCorpus, seed)

	known, err := readKnown(filepath.Join(root, "tests/upstream/cel/KNOWN"))
	if err != nil {
		fmt.Fprintln(stderr, "cel-diff:", err)
		return 2
	}
	stats := newStats()
	var fails []failure
	check := func(batch []item) error {
		reqs := make([]request, len(batch))
		for i := range batch {
			reqs[i] = batch[i].req
		}
		cr, urs, err := askBoth(c, u, reqs)
		if err != nil {
			return err
		}
		if err := askAgain(u, reqs, cr, urs); err != nil {
			return err
		}
		for i := range batch {
			ds := compare(cr[i], urs[i])
			if len(ds) > 0 {
				if k := matchKnown(known, batch[i].req.Expr, category(ds)); k != nil {
					stats.known[k.why]++
					ds = nil
				}
			}
			stats.add(batch[i], cr[i], urs[i], ds)
			if len(ds) > 0 {
				fails = append(fails, failure{batch[i], ds, cr[i], urs[i]})
				if verbose {
					fmt.Printf("DIFF %s [%s] %s\n", batch[i].source, category(ds), batch[i].req.Expr)
				}
			}
		}
		return nil
	}
	if err := check(items); err != nil {
		fmt.Fprintln(stderr, "cel-diff:", err)
		return 3
	}

	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt)
	g := newGen(seed)
	g.rangeArgs = rel.rangeArgs
	const block = 250
	generated := 0
	for n := 0; count == 0 || n < count; n += block {
		select {
		case <-interrupted:
			count = -1
		default:
		}
		if count < 0 {
			break
		}
		size := block
		if count > 0 && count-n < size {
			size = count - n
		}
		var batch []item
		gates := rel.gateSets[(n/block)%len(rel.gateSets)]
		for i := 0; i < size; i++ {
			t := g.selector()
			it := item{source: fmt.Sprintf("generated #%d", n+i), tree: t, req: request{Expr: t.String(), Gates: gates}}
			if k := g.r.Intn(10); k < 9 {
				d := &devs[g.r.Intn(len(devs))]
				if k < 6 { // mostly the fixtures written for the generator
					d = &devs[g.r.Intn(len(fixtures()))]
				}
				it.dev, it.req.Driver, it.req.Device = d, d.driver, d.json
			}
			batch = append(batch, it)
		}
		if err := check(batch); err != nil {
			fmt.Fprintln(stderr, "cel-diff:", err)
			return 3
		}
		generated += size
	}
	signal.Stop(interrupted)
	stats.print(generated, time.Since(t0))
	reportFailures(c, u, fails, report, devFile)
	nKnown := 0
	for _, n := range stats.known {
		nKnown += n
	}
	fmt.Printf("%d passed, %d failed\n", stats.total-len(fails)-nKnown-stats.nTimeouts, len(fails))
	if len(fails) > 0 {
		return 1
	}
	return 0
}

// ---- statistics ----

type stats struct {
	total, withDevice              int
	storedOK, newOK, evalOK        int
	evalErr, compileErr            int
	byCategory                     map[string]int
	bySource                       map[string]int
	selfFails, unstable, nTimeouts int
	panics                         map[string]string
	timeouts                       map[string]int // upstream gave no answer in time
	known                          map[string]int // KNOWN's reasons: disagreements counted apart
	overLimitStored, overLimitNew  int
}

func newStats() *stats {
	return &stats{byCategory: map[string]int{}, bySource: map[string]int{}, panics: map[string]string{},
		known: map[string]int{}, timeouts: map[string]int{}}
}

func (s *stats) add(it item, c, u response, ds []diff) {
	s.total++
	s.bySource[strings.Fields(it.source)[0]]++
	if it.dev != nil {
		s.withDevice++
	}
	if u.Stored.Error == "" {
		s.storedOK++
		if u.Stored.Max == "-1" || len(u.Stored.Max) > 7 || (len(u.Stored.Max) == 7 && u.Stored.Max > "1000000") {
			s.overLimitStored++
		}
	}
	if u.New.Error == "" {
		s.newOK++
	}
	switch {
	case u.Eval.Compile != "":
		s.compileErr++
	case u.Eval.Error != nil:
		s.evalErr++
	default:
		s.evalOK++
	}
	if u.Unstable != "" {
		s.unstable++
	}
	if u.Panic != "" {
		s.panics[it.req.Expr] = u.Panic
	}
	if u.Timeout != "" {
		s.timeouts[it.req.Expr]++
		s.nTimeouts++
	}
	if u.Self != "" {
		s.selfFails++
		fmt.Fprintf(stderr, "cel-diff: upstream-cel self-check: %s: %s\n", it.req.Expr, u.Self)
	}
	if len(ds) > 0 {
		s.byCategory[category(ds)]++
	}
}

func (s *stats) print(generated int, d time.Duration) {
	fmt.Printf("cel-diff: %d expressions compared (%d selector runs, %d corpus, %d generated; %d with a device) in %.1fs\n",
		s.total, s.bySource["selector"], s.bySource["corpus"], generated, s.withDevice, d.Seconds())
	fmt.Printf("cel-diff: upstream verdicts: %d valid stored selectors (%d over the cost limit), %d valid new selectors; evaluation: %d values, %d runtime errors, %d compile errors\n",
		s.storedOK, s.overLimitStored, s.newOK, s.evalOK, s.evalErr, s.compileErr)
	fmt.Printf("cel-diff: %d evaluations not compared: upstream gives another %s when run again (Go map order)\n", s.unstable, "value, error or cost")
	for e, p := range s.panics {
		fmt.Printf("cel-diff: upstream panics (not compared): %s: %s\n", e, p)
	}
	for e, n := range s.timeouts {
		fmt.Printf("cel-diff: upstream gave no answer within %v (%d times, not compared, the peer's failure): %s\n", answerTimeout, n, e)
	}
	if s.selfFails > 0 {
		fmt.Printf("cel-diff: %d upstream-cel self-check failures (the peer's evaluation differs from DeviceMatches)\n", s.selfFails)
	}
	var whys []string
	for k := range s.known {
		whys = append(whys, k)
	}
	sort.Strings(whys)
	for _, k := range whys {
		fmt.Printf("cel-diff: %6d known, upstream's own (tests/upstream/cel/KNOWN): %s\n", s.known[k], k)
	}
	var cats []string
	for k := range s.byCategory {
		cats = append(cats, k)
	}
	sort.Slice(cats, func(i, j int) bool { return s.byCategory[cats[i]] > s.byCategory[cats[j]] })
	for _, k := range cats {
		fmt.Printf("cel-diff: %6d differ in %s\n", s.byCategory[k], k)
	}
}

// ---- reporting ----

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func reportFailures(c, u *proc, fails []failure, limit int, devFile string) {
	seen := map[string]bool{}
	listed := 0
	for _, f := range fails {
		if listed >= limit {
			break
		}
		f = shrink(c, u, f)
		key := category(f.diffs) + "\x00" + f.it.req.Expr
		if seen[key] {
			continue
		}
		seen[key] = true
		listed++
		fmt.Printf("\nDISAGREEMENT %d [%s] (%s)\n", listed, category(f.diffs), f.it.source)
		fmt.Printf("  expr:  %s\n", f.it.req.Expr)
		gates := ""
		if f.it.req.Gates != "" {
			gates = " --feature-gates " + f.it.req.Gates
			fmt.Printf("  gates: %s\n", f.it.req.Gates)
		}
		for _, d := range f.diffs {
			fmt.Printf("  %-13s C:        %s\n  %-13s upstream: %s\n", d.field, d.c, "", d.up)
		}
		cmd := "eval" + gates
		if f.it.dev != nil {
			cmd += " --device " + f.it.dev.id
		}
		if strings.HasPrefix(category(f.diffs), "new.") {
			cmd = "check" + gates
		}
		file := ""
		if strings.HasPrefix(cmd, "eval") && f.it.dev != nil {
			file = " " + devFile
		}
		fmt.Printf("  repro: dra-select %s -- %s%s\n", cmd, shellQuote(f.it.req.Expr), file)
	}
	if rest := len(fails) - listed; rest > 0 && listed >= limit {
		fmt.Printf("\n(%d more disagreements not listed; -report N lists more)\n", rest)
	}
}

// writeDevices writes the devices as ResourceSlices, one pool each, for
// the reproduction commands.
func writeDevices(path string, devs []device) {
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.Create(path)
	if err != nil {
		return
	}
	w := bufio.NewWriter(f)
	for i := range devs {
		d := &devs[i]
		var name struct{ Name string }
		_ = json.Unmarshal(d.json, &name)
		pool := fmt.Sprintf("pool%d", i)
		d.id = d.driver + "/" + pool + "/" + name.Name
		fmt.Fprintf(w, "---\n{\"apiVersion\": \"resource.k8s.io/v1\", \"kind\": \"ResourceSlice\", \"metadata\": {\"name\": \"cel-diff-%d\"}, \"spec\": {\"driver\": %q, \"pool\": {\"name\": %q, \"generation\": 1, \"resourceSliceCount\": 1}, \"allNodes\": true, \"devices\": [%s]}}\n",
			i, d.driver, pool, d.json)
	}
	_ = w.Flush()
	_ = f.Close()
}

// corpusExprs: the expressions of tests/cel-conformance (those that need
// no declarations, container or bindings, nor hold a NUL, which the
// project's readers refuse before CEL) and tests/cel-diff.
func corpusExprs(root string) []extracted {
	var out []extracted
	for _, p := range []string{"tests/cel-conformance/simple-tests.jsonl", "tests/cel-diff/cases.jsonl", "tests/cel-diff/pinned.jsonl"} {
		f, err := os.Open(filepath.Join(root, p))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for n := 1; sc.Scan(); n++ {
			var c struct {
				Expr         string            `json:"expr"`
				Container    string            `json:"container"`
				DisableCheck bool              `json:"disable_check"`
				Decls        []json.RawMessage `json:"decls"`
				Bindings     map[string]any    `json:"bindings"`
			}
			if json.Unmarshal(sc.Bytes(), &c) != nil || c.Container != "" || c.DisableCheck || len(c.Decls) > 0 || len(c.Bindings) > 0 ||
				strings.ContainsRune(c.Expr, 0) {
				continue
			}
			out = append(out, extracted{c.Expr, fmt.Sprintf("%s:%d", p, n)})
		}
		f.Close()
	}
	return out
}

// explain compares one expression on no device and on every device, and
// prints both answers where they differ.
func explain(c, u *proc, root, expr string, maxDevs int) int {
	devs := append(fixtures(), sliceDevices(root, []string{"examples", "tests/data"}, maxDevs)...)
	reqs := []request{{Expr: expr}}
	names := []string{"(no device)"}
	for _, d := range devs {
		reqs = append(reqs, request{Expr: expr, Driver: d.driver, Device: d.json})
		names = append(names, d.id)
	}
	code := 0
	for i, r := range reqs {
		cr, err1 := c.ask(r)
		ur, err2 := u.ask(r)
		if err1 != nil || err2 != nil {
			fmt.Fprintln(stderr, "cel-diff:", err1, err2)
			return 3
		}
		if ur.Timeout != "" { // the devices left would take as long
			fmt.Printf("%s:\n  upstream gave no answer within %v (not compared, the peer's failure; the other devices not asked)\n",
				names[i], answerTimeout)
			return code
		}
		ds := compare(cr, ur)
		if len(ds) == 0 {
			continue
		}
		code = 1
		fmt.Printf("%s:\n", names[i])
		for _, d := range ds {
			fmt.Printf("  %-13s C:        %s\n  %-13s upstream: %s\n", d.field, d.c, "", d.up)
		}
	}
	if code == 0 {
		fmt.Printf("agree on all %d requests\n", len(reqs))
	}
	return code
}
