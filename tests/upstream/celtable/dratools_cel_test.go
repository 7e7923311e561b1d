// Upstream's own CEL test table (k8s.io/dynamic-resource-allocation
// cel/compile_test.go, the package variable testcases) run against the
// project's CEL through cel-batch (tests/upstream/cel/cel-batch.c, the
// library calls `dra-select check` and `dra-select eval` make) and
// cel-match (cel-match.c here, the match `dra-select select` and the
// allocator run).
//
// run.sh --table cel places this file beside compile_test.go in a copy of
// the module and runs TestDraToolsCEL with CEL_BATCH and CEL_MATCH naming
// the programs and DRA_KUBERNETES_VERSION the release.  Each case runs as TestCEL runs
// it: every combination of DRAListTypeAttributes and DRAConsumableCapacity
// (or the case's own) in each environment (or the case's own), and checks
// what TestCEL checks: the compile error, else the estimated cost, the
// actual cost within it, and the evaluation error or the match.
package cel

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"k8s.io/apiserver/pkg/cel/environment"
)

// lineProc is one process answering one request line at a time.
type lineProc struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

type batchCheck struct {
	Type  string `json:"type"`
	Min   int64  `json:"min"`
	Max   int64  `json:"max"`
	Error string `json:"error"`
}

type batchEval struct {
	Value   *string `json:"value"`
	Error   string  `json:"error"`
	Compile string  `json:"compile"`
	Cost    int64   `json:"cost"`
}

type batchAnswer struct {
	Stored batchCheck `json:"stored"`
	New    batchCheck `json:"new"`
	Eval   batchEval  `json:"eval"`
}

type matchAnswer struct {
	Match   *bool  `json:"match"`
	Error   string `json:"error"`
	Compile string `json:"compile"`
}

func startProc(t *testing.T, env string) *lineProc {
	bin := os.Getenv(env)
	if bin == "" {
		t.Fatalf("dra-tools harness: %s is not set (make upstream-celtable sets it)", env)
	}
	cmd := exec.Command(bin)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("dra-tools harness: %v", err)
	}
	return &lineProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

// ask sends req as one line and decodes the answer line into a.
func (b *lineProc) ask(req map[string]any, a any) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	line, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("dra-tools harness: %s: %w", b.cmd.Path, err)
	}
	reply, err := b.out.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("dra-tools harness: %s stopped: %w", b.cmd.Path, err)
	}
	return json.Unmarshal(reply, a)
}

func (b *lineProc) stop(t *testing.T) {
	b.in.Close()
	if err := b.cmd.Wait(); err != nil {
		t.Errorf("dra-tools harness: %s: %v", b.cmd.Path, err)
	}
}

func TestDraToolsCEL(t *testing.T) {
	batch, matcher := startProc(t, "CEL_BATCH"), startProc(t, "CEL_MATCH")
	defer batch.stop(t)
	defer matcher.stop(t)
	for name := range testcases {
		t.Run(name, func(t *testing.T) {
			for _, v := range variants(name) {
				t.Run(v.label, func(t *testing.T) {
					runCase(t, batch, matcher, name, v)
				})
			}
		})
	}
}

// variant is one way TestCEL runs a case: its gates and environment.
type variant struct {
	label                string // the subtest path below the case, as TestCEL names it
	listType, consumable bool
	envType              environment.Type
}

// runCase asks both programs about case name under v and checks what
// TestCEL checks.
func runCase(t *testing.T, batch, matcher *lineProc, name string, v variant) {
	scenario := testcases[name]
	listType, consumable, envType := v.listType, v.consumable, v.envType
	device := map[string]any{"name": "device"}
	if scenario.attributes != nil {
		device["attributes"] = scenario.attributes
	}
	if scenario.capacity != nil {
		device["capacity"] = scenario.capacity
	}
	if scenario.allowMultipleAllocations != nil {
		device["allowMultipleAllocations"] = *scenario.allowMultipleAllocations
	}
	gates := fmt.Sprintf("DRAListTypeAttributes=%v,DRAConsumableCapacity=%v", listType, consumable)
	if !consumable && os.Getenv("DRA_KUBERNETES_VERSION") != "1.36" {
		// From 1.37 on DRAFractionalCapacityRange depends on
		// it (on by default in 1.38); 1.36 has no such gate.
		gates += ",DRAFractionalCapacityRange=false"
	}
	req := map[string]any{
		"expr":   scenario.expression,
		"gates":  gates,
		"driver": scenario.driver,
		"device": device,
	}
	var a batchAnswer
	if err := batch.ask(req, &a); err != nil {
		t.Fatal(err)
	}
	check := a.Stored
	if envType == environment.NewExpressions {
		check = a.New
	}
	if scenario.expectCompileError != "" {
		if !strings.Contains(check.Error, scenario.expectCompileError) {
			t.Fatalf("expected compile error containing %q, got %q", scenario.expectCompileError, check.Error)
		}
		return
	}
	if check.Error != "" {
		t.Fatalf("unexpected compile error: %s", check.Error)
	}
	if uint64(check.Max) != scenario.expectCost {
		t.Errorf("expected CEL cost %d, got %d", scenario.expectCost, check.Max)
	}
	ev := a.Eval
	if ev.Compile != "" {
		t.Fatalf("unexpected compile error of the evaluation: %s", ev.Compile)
	}
	t.Logf("actual cost %d, estimate %d", ev.Cost, check.Max)
	if check.Max >= 0 && ev.Cost > check.Max {
		t.Errorf("cost estimate %d underestimated the evaluation cost of %d", check.Max, ev.Cost)
	}
	var m matchAnswer
	if err := matcher.ask(req, &m); err != nil {
		t.Fatal(err)
	}
	if m.Compile != "" {
		t.Fatalf("unexpected compile error of the match: %s", m.Compile)
	}
	if scenario.expectMatchError != "" {
		if !strings.Contains(m.Error, scenario.expectMatchError) {
			t.Fatalf("expected evaluation error containing %q, got error %q, match %v", scenario.expectMatchError, m.Error, m.Match)
		}
		return
	}
	if m.Error != "" {
		t.Fatalf("unexpected evaluation error: %s", m.Error)
	}
	if m.Match == nil || *m.Match != scenario.expectMatch {
		t.Fatalf("expected result %v, got %v", scenario.expectMatch, m.Match)
	}
	// dra-select eval agrees with the match
	if want := fmt.Sprint(scenario.expectMatch); ev.Error != "" || deref(ev.Value) != want {
		t.Errorf("dra-select eval: expected %s, got value %s, error %q", want, deref(ev.Value), ev.Error)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}
