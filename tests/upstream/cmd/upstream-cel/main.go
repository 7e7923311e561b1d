// upstream-cel: upstream Kubernetes' DRA CEL (k8s.io/dynamic-resource-allocation
// v0.37.2 over cel-go v0.29.2) behind the command line of `dra-select eval`
// and `dra-select check`, as the test peer of the project's C CEL.
//
//	upstream-cel eval [--var NAME=CEL]... [--device DRIVER/POOL/DEVICE] [--feature-gates G=B,...] EXPR [FILES]
//	upstream-cel check [--feature-gates G=B,...] EXPR...
//	upstream-cel batch [--feature-gates G=B,...] < requests.jsonl > results.jsonl
//	upstream-cel select [--feature-gates G=B,...] EXPR [FILES]   (select.go: the benchmark's peer)
//
// Output and exit codes are dra-select's: the value in CEL syntax or
// "type T, estimated cost LO..HI" lines on stdout; "upstream-cel: ..." on
// stderr and exit 2 for compile, runtime and input errors.  `batch` is the
// differential suite's protocol (batch.go).
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"k8s.io/apiserver/pkg/cel/environment"
)

const usage = `usage: upstream-cel eval [--var NAME=CEL]... [--device DRIVER/POOL/DEVICE] [--feature-gates G=B,...] EXPR [FILES]
       upstream-cel check [--feature-gates G=B,...] EXPR...
       upstream-cel batch [--feature-gates G=B,...] < requests.jsonl
       upstream-cel select [--feature-gates G=B,...] EXPR [FILES]
`

type options struct {
	vars   []string
	device string
	gates  gates
	pos    []string
}

func parseArgs(args []string) (*options, error) {
	o := &options{gates: defaultGates()}
	value := func(i *int, name string) (string, error) {
		a := args[*i]
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, nil
		}
		if *i+1 >= len(args) {
			return "", fmt.Errorf("%s: missing value", name)
		}
		*i++
		return args[*i], nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var v string
		var err error
		switch {
		case a == "--":
			o.pos = append(o.pos, args[i+1:]...)
			return o, nil
		case a == "--var" || strings.HasPrefix(a, "--var="):
			if v, err = value(&i, "--var"); err == nil {
				o.vars = append(o.vars, v)
			}
		case a == "--device" || a == "-d" || strings.HasPrefix(a, "--device="):
			if a == "-d" {
				a = "--device"
				args[i] = a
			}
			o.device, err = value(&i, "--device")
		case a == "--feature-gates" || strings.HasPrefix(a, "--feature-gates="):
			if v, err = value(&i, "--feature-gates"); err == nil {
				err = o.gates.parse(v)
			}
		case a == "-h" || a == "--help":
			fmt.Print(usage)
			os.Exit(0)
		case len(a) > 1 && a[0] == '-' && a != "-":
			err = fmt.Errorf("unknown option %s", a)
		default:
			o.pos = append(o.pos, a)
		}
		if err != nil {
			return nil, err
		}
	}
	return o, nil
}

func runEval(o *options) error {
	if len(o.pos) < 1 {
		return fmt.Errorf("eval: missing the expression (see 'upstream-cel --help')")
	}
	ev, err := newEvaluator(o.gates, nil)
	if err != nil {
		return err
	}
	// The device is converted when an evaluation first needs it, after
	// compiling (DeviceMatches fails on an attribute it cannot convert).
	var dev *sliceDevice
	if o.device != "" {
		devs, err := readDevices(o.pos[1:])
		if err != nil {
			return err
		}
		for i := range devs {
			if devs[i].id == o.device {
				dev = &devs[i]
				break
			}
		}
		if dev == nil {
			return fmt.Errorf("--device: no device %s in the input (want DRIVER/POOL/DEVICE)", o.device)
		}
	}
	ready := func() error {
		if dev == nil || ev.vars["device"] != nil {
			return nil
		}
		v, err := deviceValue(o.gates, ev.env.CELTypeAdapter(), dev.device)
		if err == nil {
			ev.vars["device"] = v
		}
		return err
	}
	for _, v := range o.vars {
		if err := ev.addVar(v, ready); err != nil {
			return err
		}
	}
	_, prg, err := ev.compile(ev.env, o.pos[0])
	if err == nil {
		err = ready()
	}
	if err != nil {
		return err
	}
	v, _, err := ev.run(prg)
	if err != nil {
		return enhanceRuntimeError(err)
	}
	_, err = fmt.Println(formatValue(v))
	return err
}

func runCheck(o *options) error {
	if len(o.pos) < 1 {
		return fmt.Errorf("check: missing the expression (see 'upstream-cel --help')")
	}
	var errs []string
	out := bufio.NewWriter(os.Stdout)
	env, err := celEnv(o.gates, environment.NewExpressions)
	if err != nil {
		return err
	}
	for i, expr := range o.pos {
		label := ""
		if len(o.pos) > 1 {
			label = fmt.Sprintf("#%d: ", i)
		}
		r := compileSelector(o.gates, expr, environment.NewExpressions)
		if r.Error != nil {
			errs = append(errs, label+r.Error.Detail)
			continue
		}
		ast, _ := env.Compile(expr)
		est, _ := estimate(env, ast)
		fmt.Fprintf(out, "%stype %s, estimated cost %d..%d\n", label, r.OutputType.String(), est.Min, r.MaxCost)
		if r.MaxCost > maxCost {
			errs = append(errs, fmt.Sprintf("%stoo complex, exceeds cost limit (%d > %d)", label, r.MaxCost, maxCost))
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\nupstream-cel: "))
	}
	return nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	o, err := parseArgs(os.Args[2:])
	if err == nil {
		switch os.Args[1] {
		case "eval":
			err = runEval(o)
		case "check":
			err = runCheck(o)
		case "batch":
			err = runBatch(o, os.Stdin, os.Stdout)
		case "select":
			var any bool
			if any, err = runSelect(o); err == nil && !any {
				os.Exit(1)
			}
		case "-h", "--help":
			fmt.Print(usage)
			return
		default:
			err = fmt.Errorf("unknown command %q\n%s", os.Args[1], strings.TrimRight(usage, "\n"))
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "upstream-cel: %v\n", err)
		os.Exit(2)
	}
}
