// Package batch is the CEL differential suite's protocol: one JSON request,
// one JSON response per line each way.  upstream-cel batch
// (../../cmd/upstream-cel/batch.go) answers it with upstream's CEL,
// cel-batch.c with the project's, and cel-diff (../diff) compares the two.
//
// Request:  {"expr": "...", "gates": "G=B,...", "driver": "...", "device": {v1 Device}, "want": E}
//
//	(gates, driver, device and want optional; gates default to the peer's
//	command line --feature-gates; want, sent to upstream-cel alone, is
//	the other side's evaluation: upstream evaluates again on new maps
//	until it gives that answer too or gives up, and calls the answer
//	unstable when it does)
//
// Response: {"stored": R, "new": R, "eval": E, "unstable": "...", "self": "...", "panic": "..."}
//
//	R: {"type": T, "min": N, "max": N} or {"error": "..."}: the selector
//	   compiled as CompileCELExpression does in that environment (with
//	   the bool check, program instantiation and cost estimate);
//	E: {"value": "...", "cost": N} or {"error": "...", "cost": N}: the
//	   expression evaluated as `eval` does (any result type, the stored
//	   environment, `device` bound when given), or {"compile": "..."}
//	   when it does not compile there;
//	unstable: set when evaluating again gives another value, error or
//	   cost (iterating a Go map: upstream's order is random), e.g. "cost";
//	self: set when upstream-cel's own evaluation of a bool selector
//	   disagrees with upstream's DeviceMatches (it must not);
//	panic: upstream panicked on the expression (nothing else is set).
//
// Costs are json.Number: the C side prints unsigned 64-bit values, some
// past what a float64 holds exactly.
package batch

import (
	"encoding/json"
	"strconv"
)

type Request struct {
	Expr   string          `json:"expr"`
	Gates  string          `json:"gates,omitempty"`
	Driver string          `json:"driver,omitempty"`
	Device json.RawMessage `json:"device,omitempty"`
	Want   *Evaluated      `json:"want,omitempty"`
}

type Compiled struct {
	Type  string      `json:"type,omitempty"`
	Min   json.Number `json:"min,omitempty"`
	Max   json.Number `json:"max,omitempty"`
	Error string      `json:"error,omitempty"`
}

type Evaluated struct {
	Value   *string     `json:"value,omitempty"`
	Error   *string     `json:"error,omitempty"`
	Compile string      `json:"compile,omitempty"`
	Cost    json.Number `json:"cost,omitempty"`
}

type Response struct {
	Stored   Compiled  `json:"stored"`
	New      Compiled  `json:"new"`
	Eval     Evaluated `json:"eval"`
	Unstable string    `json:"unstable,omitempty"`
	Self     string    `json:"self,omitempty"`
	Panic    string    `json:"panic,omitempty"`
	// Timeout is set by cel-diff alone, for a side that gave no answer
	// in time (nothing else is set).
	Timeout string `json:"timeout,omitempty"`
}

// Num is n as a protocol number.
func Num(n uint64) json.Number { return json.Number(strconv.FormatUint(n, 10)) }
