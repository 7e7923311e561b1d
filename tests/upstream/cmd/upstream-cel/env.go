package main

// Upstream's DRA CEL environments (k8s.io/dynamic-resource-allocation
// v0.37.2 cel/compile.go): GetCompiler(Features) and CompileCELExpression
// with the StoredExpressions environment (the scheduler, and
// `dra-select eval`) or the NewExpressions one (API validation of a new
// selector, k8s.io/kubernetes pkg/apis/resource/validation
// validateCELExpression, and `dra-select check`).

import (
	"fmt"
	"strconv"
	"strings"

	"dra-tools/tests/upstream/celgo/cel"
	"dra-tools/tests/upstream/celgo/ref"

	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// CELSelectorExpressionMaxCost (k8s.io/api resource/v1 types.go).
const maxCost = 1000000

// gates holds the feature gates that shape the DRA environment, with
// Kubernetes 1.37's defaults (pkg/features/kube_features.go):
// DRAConsumableCapacity beta, on; DRAListTypeAttributes alpha, off.
type gates struct {
	consumable, listType bool
}

func defaultGates() gates { return gates{consumable: true} }

// parseGates reads "Name=bool,Name=bool" as --feature-gates takes it.
// Gates that do not shape the CEL environment are accepted and ignored.
func (g *gates) parse(spec string) error {
	for _, kv := range strings.Split(spec, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("--feature-gates: want NAME=true|false, not %q", kv)
		}
		b, err := strconv.ParseBool(strings.TrimSpace(val))
		if err != nil {
			return fmt.Errorf("--feature-gates: %s: want true or false, not %q", name, val)
		}
		switch strings.TrimSpace(name) {
		case "DRAConsumableCapacity":
			g.consumable = b
		case "DRAListTypeAttributes":
			g.listType = b
		}
	}
	return nil
}

func (g gates) features() dracel.Features {
	return dracel.Features{EnableConsumableCapacity: g.consumable, EnableListTypeAttributes: g.listType}
}

// compileSelector is CompileCELExpression in one environment.
func compileSelector(g gates, expr string, envType environment.Type) dracel.CompilationResult {
	return dracel.GetCompiler(g.features()).CompileCELExpression(expr, dracel.Options{EnvType: &envType})
}

// celEnv is the cel.Env that CompileCELExpression uses for envType (read
// from the result of compiling a constant).
func celEnv(g gates, envType environment.Type) (*cel.Env, error) {
	r := compileSelector(g, "true", envType)
	if r.Error != nil {
		return nil, r.Error
	}
	return r.Environment, nil
}

// programOptions are the ones CompileCELExpression adds to the
// environment's own (cost tracking, OptOptimize).
func programOptions() []cel.ProgramOption {
	return []cel.ProgramOption{cel.CostLimit(maxCost), cel.InterruptCheckFrequency(celconfig.CheckFrequency)}
}

// evaluator compiles and evaluates expressions of any result type in the
// stored environment with `device` and the --var variables bound.
type evaluator struct {
	env  *cel.Env
	base *cel.Env // where variables are compiled: the environment without them
	vars map[string]any
}

func newEvaluator(g gates, device map[string]any) (*evaluator, error) {
	env, err := celEnv(g, environment.StoredExpressions)
	if err != nil {
		return nil, err
	}
	ev := &evaluator{env: env, base: env, vars: map[string]any{}}
	if device != nil {
		ev.vars["device"] = device
	}
	return ev, nil
}

// compile parses and checks expr; the error is cel-go's issue display.
func (ev *evaluator) compile(env *cel.Env, expr string) (*cel.Ast, cel.Program, error) {
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, nil, fmt.Errorf("%s", iss.String())
	}
	prg, err := env.Program(ast, programOptions()...)
	if err != nil {
		return ast, nil, fmt.Errorf("program instantiation failed: %v", err)
	}
	return ast, prg, nil
}

// run evaluates and returns the value or the runtime error, and the
// actual cost.
func (ev *evaluator) run(prg cel.Program) (ref.Val, uint64, error) {
	out, det, err := prg.Eval(ev.vars)
	var cost uint64
	if det != nil && det.ActualCost() != nil {
		cost = *det.ActualCost()
	}
	if err != nil {
		return nil, cost, err
	}
	return out, cost, nil
}

// addVar evaluates "NAME=CEL" and declares NAME with the expression's
// type; ready runs between compiling and evaluating (it binds `device`).
func (ev *evaluator) addVar(spec string, ready func() error) error {
	name, expr, ok := strings.Cut(spec, "=")
	if !ok || !isIdent(name) {
		return fmt.Errorf("--var: want NAME=CEL with NAME an identifier, not %q", spec)
	}
	if name == "device" {
		return fmt.Errorf("--var %s: the name device is taken", name)
	}
	ast, prg, err := ev.compile(ev.base, expr)
	if err != nil {
		return fmt.Errorf("--var %s: %v", name, err)
	}
	if err := ready(); err != nil {
		return err
	}
	v, _, err := ev.run(prg)
	if err != nil {
		return fmt.Errorf("--var %s: %v", name, err)
	}
	env, err := ev.env.Extend(cel.Variable(name, ast.OutputType()))
	if err != nil {
		return fmt.Errorf("--var %s: %v", name, err)
	}
	ev.env = env
	ev.vars[name] = v
	return nil
}

func isIdent(s string) bool {
	for i, c := range s {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}
