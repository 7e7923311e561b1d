package main

// The two sides of the comparison, each a long-running process speaking
// the batch protocol (one JSON request, one JSON response per line).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os/exec"
	"sync"

	"dra-tools/tests/upstream/cel/batch"
)

// The protocol's messages (../batch).
type (
	request   = batch.Request
	compiled  = batch.Compiled
	evaluated = batch.Evaluated
	response  = batch.Response
)

type proc struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	mu   sync.Mutex
}

func start(name string, argv ...string) (*proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = prefixWriter{name}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &proc{name: name, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

type prefixWriter struct{ name string }

func (p prefixWriter) Write(b []byte) (int, error) {
	fmt.Fprintf(stderr, "cel-diff: %s: %s", p.name, b)
	return len(b), nil
}

func (p *proc) read() (response, error) {
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return response{}, fmt.Errorf("%s: %v", p.name, err)
	}
	var r response
	if err := json.Unmarshal(line, &r); err != nil {
		return response{}, fmt.Errorf("%s: bad response %q: %v", p.name, line, err)
	}
	normalize(&r)
	return r, nil
}

// ask sends one request and waits for its answer.
func (p *proc) ask(req request) (response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, _ := json.Marshal(req)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		return response{}, fmt.Errorf("%s: %v", p.name, err)
	}
	return p.read()
}

// all sends every request while reading the answers (the process works
// while we write), and returns them in order.
func (p *proc) all(reqs []request) ([]response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(p.in, 1<<16)
		for _, r := range reqs {
			b, _ := json.Marshal(r)
			if _, err := w.Write(append(b, '\n')); err != nil {
				werr <- fmt.Errorf("%s: %v", p.name, err)
				return
			}
		}
		werr <- w.Flush()
	}()
	out := make([]response, 0, len(reqs))
	for range reqs {
		r, err := p.read()
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, <-werr
}

// askBoth sends reqs to both sides at once (written to -dump first) and
// returns the C answers, then upstream's.
func askBoth(c, u *proc, reqs []request) ([]response, []response, error) {
	if dumpFile != nil {
		for _, r := range reqs {
			b, _ := json.Marshal(r)
			fmt.Fprintf(dumpFile, "%s\n", b)
		}
	}
	type answer struct {
		rs  []response
		err error
	}
	uc := make(chan answer, 1)
	go func() { rs, err := u.all(reqs); uc <- answer{rs, err} }()
	cr, err := c.all(reqs)
	ua := <-uc
	if err == nil {
		err = ua.err
	}
	return cr, ua.rs, err
}

// askAgain asks upstream once more, with the C answer as the one wanted,
// for each evaluation the two answered differently: Go iterates a map
// from a random key, and upstream's few runs of its own may all have
// started at the same one.  urs[i] is replaced by the new answer.
func askAgain(u *proc, reqs []request, cr, urs []response) error {
	var again []request
	var at []int
	for i := range reqs {
		c, up := cr[i].Eval, urs[i].Eval
		if c.Compile != "" || up.Compile != "" || urs[i].Unstable != "" || urs[i].Panic != "" {
			continue
		}
		if str(c.Error) == str(up.Error) && str(c.Value) == str(up.Value) && (c.Cost == "" || c.Cost == up.Cost) {
			continue
		}
		r := reqs[i]
		want := c
		r.Want = &want
		again = append(again, r)
		at = append(at, i)
	}
	if len(again) == 0 {
		return nil
	}
	rs, err := u.all(again)
	if err != nil {
		return err
	}
	for k, i := range at {
		urs[i] = rs[k]
	}
	return nil
}

func (p *proc) close() {
	p.in.Close()
	_ = p.cmd.Wait()
}

// Costs past INT64_MAX (an unknown size) compare as -1 on both sides.
func normCost(n json.Number) json.Number {
	if n == "" {
		return n
	}
	var u uint64
	if _, err := fmt.Sscan(string(n), &u); err == nil && u > math.MaxInt64 {
		return "-1"
	}
	return n
}

func normalize(r *response) {
	r.Stored.Min, r.Stored.Max = normCost(r.Stored.Min), normCost(r.Stored.Max)
	r.New.Min, r.New.Max = normCost(r.New.Min), normCost(r.New.Max)
}
