package main

// `upstream-cel batch`: the differential suite's protocol (../../cel/batch),
// answered with upstream's CEL.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"dra-tools/tests/upstream/celgo/cel"
	"dra-tools/tests/upstream/celgo/ref"
	"dra-tools/tests/upstream/celgo/types"

	"k8s.io/apiserver/pkg/cel/environment"

	proto "dra-tools/tests/upstream/cel/batch"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

type (
	request   = proto.Request
	compiled  = proto.Compiled
	evaluated = proto.Evaluated
	response  = proto.Response
)

// The environments of one gate setting, made once.
type envs struct {
	stored, new *cel.Env
}

type batch struct {
	def   gates
	cache map[gates]envs
}

func (b *batch) envs(g gates) (envs, error) {
	if e, ok := b.cache[g]; ok {
		return e, nil
	}
	s, err := celEnv(g, environment.StoredExpressions)
	if err != nil {
		return envs{}, err
	}
	n, err := celEnv(g, environment.NewExpressions)
	if err != nil {
		return envs{}, err
	}
	b.cache[g] = envs{s, n}
	return b.cache[g], nil
}

// compileIn compiles as CompileCELExpression; self is set when the
// peer's own estimate does not reach upstream's MaxCost.
func compileIn(g gates, env *cel.Env, expr string, t environment.Type) (c compiled, self string) {
	r := compileSelector(g, expr, t)
	if r.Error != nil {
		return compiled{Error: r.Error.Detail}, ""
	}
	ast, _ := env.Compile(expr)
	est, err := estimate(env, ast)
	if err != nil || est.Max != r.MaxCost {
		self = fmt.Sprintf("estimate %v (%v), MaxCost %d", est, err, r.MaxCost)
	}
	return compiled{Type: r.OutputType.String(), Min: proto.Num(est.Min), Max: proto.Num(r.MaxCost)}, self
}

func (b *batch) one(req request) (resp response, err error) {
	// Upstream may panic (a map literal with a bytes key hashes an
	// unhashable value when the program is made): say so, and go on.
	defer func() {
		if r := recover(); r != nil {
			resp, err = response{Panic: fmt.Sprint(r)}, nil
		}
	}()
	g := b.def
	if req.Gates != "" {
		if err := g.parse(req.Gates); err != nil {
			return resp, err
		}
	}
	e, err := b.envs(g)
	if err != nil {
		return resp, err
	}
	var self1, self2 string
	resp.Stored, self1 = compileIn(g, e.stored, req.Expr, environment.StoredExpressions)
	resp.New, self2 = compileIn(g, e.new, req.Expr, environment.NewExpressions)
	resp.Self = strings.TrimSpace(self1 + " " + self2)

	// Compiled first, then the device converted (DeviceMatches fails on an
	// attribute it cannot convert before evaluating).
	ev := &evaluator{env: e.stored, base: e.stored, vars: map[string]any{}}
	_, prg, err := ev.compile(e.stored, req.Expr)
	if err != nil {
		resp.Eval.Compile = err.Error()
		return resp, nil
	}
	var dev *dracel.Device
	if len(req.Device) > 0 {
		d, _, err := decodeDevice(req.Device, req.Driver)
		if err != nil {
			return resp, fmt.Errorf("device: %v", err)
		}
		dev = &d
		v, err := deviceValue(g, e.stored.CELTypeAdapter(), d)
		if err != nil {
			s := err.Error()
			resp.Eval.Error = &s
			// The attribute that fails first is the first in Go's map
			// order: convert again before calling it the answer.
			for i := 0; i < convertReruns && resp.Unstable == ""; i++ {
				if _, err2 := deviceValue(g, e.stored.CELTypeAdapter(), d); err2 == nil || err2.Error() != s {
					resp.Unstable = "error"
				}
			}
			return resp, nil
		}
		ev.vars["device"] = v
	}
	v, cost, err := ev.run(prg)
	resp.Eval = outcome(v, cost, err)
	if cost > heavy {
		return resp, nil
	}
	// Go iterates each map in an order of its own: evaluate again on
	// newly built device maps, as every DeviceMatches call builds them.
	fresh := func() {
		if dev != nil {
			if nv, err := deviceValue(g, e.stored.CELTypeAdapter(), *dev); err == nil {
				ev.vars["device"] = nv
			}
		}
	}
	for i := 0; i < reruns && resp.Unstable == ""; i++ {
		fresh()
		v2, cost2, err2 := ev.run(prg)
		resp.Unstable = unstable(resp.Eval, outcome(v2, cost2, err2))
	}
	// The other side answered otherwise: look for its answer among
	// upstream's own on new maps before calling it wrong (8 runs can
	// all start a small Go map at the same key).
	for i := 0; req.Want != nil && resp.Unstable == "" && unstable(resp.Eval, *req.Want) != "" && i < wantReruns; i++ {
		fresh()
		v2, cost2, err2 := ev.run(prg)
		if o := outcome(v2, cost2, err2); unstable(o, *req.Want) == "" {
			resp.Unstable = unstable(resp.Eval, o)
		}
	}
	if dev != nil && resp.Unstable == "" && resp.Stored.Error == "" && resp.Stored.Type == "bool" && resp.Self == "" {
		resp.Self = selfCheck(g, req.Expr, *dev, v, err, cost)
		// DeviceMatches evaluates once more, on maps of its own: when it
		// disagrees, look harder for another answer of the peer's own on
		// new maps (Go iterates each map in an order of its own) before
		// calling the peer wrong.
		for i := 0; resp.Self != "" && i < selfReruns && resp.Unstable == ""; i++ {
			fresh()
			v2, cost2, err2 := ev.run(prg)
			resp.Unstable = unstable(resp.Eval, outcome(v2, cost2, err2))
		}
		if resp.Unstable != "" {
			resp.Self = ""
		}
	}
	return resp, nil
}

// Evaluations costing more than heavy are run once and not self-checked
// (cel-go's cost tracking makes them slow: about 0.4 s per million).
const (
	heavy      = 100000
	reruns     = 8
	selfReruns = 100
	wantReruns = 400
	// A conversion costs little, and with a few failing attributes Go's
	// order gives the same first one in 8 runs often enough to be seen.
	convertReruns = 100
)

func outcome(v ref.Val, cost uint64, err error) evaluated {
	e := evaluated{Cost: proto.Num(cost)}
	if err != nil {
		s := enhanceRuntimeError(err).Error()
		e.Error = &s
	} else {
		s := formatValue(v)
		e.Value = &s
	}
	return e
}

// unstable names what differs between two evaluations of one program.
func unstable(a, b evaluated) string {
	var what []string
	if (a.Error == nil) != (b.Error == nil) || (a.Error != nil && *a.Error != *b.Error) {
		what = append(what, "error")
	}
	if (a.Value == nil) != (b.Value == nil) || (a.Value != nil && *a.Value != *b.Value) {
		what = append(what, "value")
	}
	if a.Cost != b.Cost {
		what = append(what, "cost")
	}
	return strings.Join(what, ",")
}

// selfCheck compares the peer's evaluation of a bool selector with
// upstream's own DeviceMatches on the same device.
func selfCheck(g gates, expr string, d dracel.Device, v any, err error, cost uint64) string {
	r := compileSelector(g, expr, environment.StoredExpressions)
	matched, det, merr := r.DeviceMatches(context.Background(), d)
	var mcost uint64
	if det != nil && det.ActualCost() != nil {
		mcost = *det.ActualCost()
	}
	switch {
	case (merr == nil) != (err == nil):
		return fmt.Sprintf("DeviceMatches: %v, %v; peer: %v", matched, merr, err)
	case merr != nil && merr.Error() != err.Error():
		return fmt.Sprintf("DeviceMatches error %q; peer %q", merr, err)
	case merr == nil && v != types.Bool(matched):
		return fmt.Sprintf("DeviceMatches %v; peer %v", matched, v)
	case mcost != cost:
		return fmt.Sprintf("DeviceMatches cost %d; peer %d", mcost, cost)
	}
	return ""
}

func runBatch(o *options, in io.Reader, out io.Writer) error {
	b := &batch{def: o.gates, cache: map[gates]envs{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for line := 1; sc.Scan(); line++ {
		var req request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return fmt.Errorf("line %d: %v", line, err)
		}
		resp, err := b.one(req)
		if err != nil {
			return fmt.Errorf("line %d: %v", line, err)
		}
		if err := enc.Encode(resp); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}
