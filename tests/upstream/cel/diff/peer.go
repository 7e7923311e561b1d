package main

// The two sides of the comparison, each a long-running process speaking
// the batch protocol (one JSON request, one JSON response per line).

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"sync"
	"syscall"
	"time"

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
	name  string
	argv  []string
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan line // what the process writes, line by line (readLines)
	mu    sync.Mutex
}

type line struct {
	b   []byte
	err error
}

// answerTimeout is how long a side may take over one answer (-timeout).
// Past it the process is killed and started again, and the request gets
// a response with only Timeout set: not compared when upstream's, a
// disagreement (the tools' failure) when the C side's.  The 1.37 peer
// spends minutes on quantity("1e-2147483648") (apimachinery v0.37.2
// ParseQuantity wraps the exponent and scales by 10^2^31).
var answerTimeout = time.Minute

var errTimeout = errors.New("no answer in time")

func start(name string, argv ...string) (*proc, error) {
	p := &proc{name: name, argv: argv}
	return p, p.launch()
}

func (p *proc) launch() error {
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = prefixWriter{p.name}
	// a side busy on one request (quantity("1e-2147483648") under 1.37)
	// goes with cel-diff however cel-diff ends, a signal included
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %v", p.name, err)
	}
	p.cmd, p.in, p.lines = cmd, in, make(chan line, 256)
	go readLines(bufio.NewReaderSize(out, 1<<20), p.lines)
	return nil
}

func readLines(r *bufio.Reader, ch chan<- line) {
	for {
		b, err := r.ReadBytes('\n')
		ch <- line{b, err}
		if err != nil {
			close(ch)
			return
		}
	}
}

// restart kills the process, which gave no answer to req, and starts it
// again; the response stands for the answer it did not give.
func (p *proc) restart(req request) (response, error) {
	fmt.Fprintf(stderr, "cel-diff: %s: no answer within %v to %q: killed and started again\n", p.name, answerTimeout, req.Expr)
	_ = p.cmd.Process.Kill()
	p.in.Close()
	_ = p.cmd.Wait()
	return response{Timeout: fmt.Sprintf("no answer within %v", answerTimeout)}, p.launch()
}

type prefixWriter struct{ name string }

func (p prefixWriter) Write(b []byte) (int, error) {
	fmt.Fprintf(stderr, "cel-diff: %s: %s", p.name, b)
	return len(b), nil
}

func (p *proc) read() (response, error) {
	t := time.NewTimer(answerTimeout)
	defer t.Stop()
	var l line
	select {
	case l = <-p.lines:
	case <-t.C:
		return response{}, errTimeout
	}
	if l.err != nil {
		return response{}, fmt.Errorf("%s: %v", p.name, l.err)
	}
	var r response
	if err := json.Unmarshal(l.b, &r); err != nil {
		return response{}, fmt.Errorf("%s: bad response %q: %v", p.name, l.b, err)
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
	r, err := p.read()
	if err == errTimeout {
		return p.restart(req)
	}
	return r, err
}

// all sends every request while reading the answers (the process works
// while we write), and returns them in order.
func (p *proc) all(reqs []request) ([]response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.allLocked(reqs)
}

func (p *proc) allLocked(reqs []request) ([]response, error) {
	werr := make(chan error, 1)
	go func(in io.Writer) {
		w := bufio.NewWriterSize(in, 1<<16)
		for _, r := range reqs {
			b, _ := json.Marshal(r)
			if _, err := w.Write(append(b, '\n')); err != nil {
				werr <- fmt.Errorf("%s: %v", p.name, err)
				return
			}
		}
		werr <- w.Flush()
	}(p.in)
	out := make([]response, 0, len(reqs))
	for i := range reqs {
		r, err := p.read()
		if err == errTimeout {
			// the answers so far came in order: reqs[i] is the one
			// the process is stuck on
			r, err = p.restart(reqs[i])
			<-werr // the killed process's pipe fails the writer
			if err != nil {
				return nil, err
			}
			rest, err := p.allLocked(reqs[i+1:])
			return append(append(out, r), rest...), err
		}
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
		if c.Compile != "" || up.Compile != "" || urs[i].Unstable != "" || urs[i].Panic != "" ||
			urs[i].Timeout != "" || cr[i].Timeout != "" {
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
