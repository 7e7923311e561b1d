// Command upstream-validate validates DRA objects with the Kubernetes API
// server's own code (k8s.io/kubernetes v1.37.2), as a test peer of
// `dra-slice validate`: the same arguments, the same input formats, and
// problems printed in the same form, one a line on standard error:
//
//	upstream-validate: FILE:LINE (document N): Kind/ns/name: field.path: message
//
// Exit status: 0 when every object is valid, 2 when one is not (or the
// input cannot be read, or the arguments are wrong).
//
// Each object goes through what a create request goes through in the API
// server: strict decoding of its version (unknown and duplicate fields as
// --validate says), defaulting and conversion to the internal version, the
// registry strategy's PrepareForCreate (dropping fields of disabled
// features), and rest.ValidateCreate (the strategy's Validate, object meta
// and declarative validation), with the feature gates of --feature-gates
// set in utilfeature.DefaultMutableFeatureGate.  See pipeline.go.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-logr/logr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
)

const prog = "upstream-validate"

type options struct {
	recursive bool
	verbose   bool
	eachFile  bool   // each file validated as if alone
	fieldVal  string // Strict, Warn or Ignore
	gates     string
	inputs    []string
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `usage: %s [OPTIONS] [FILES...]
Validates DRA objects (and the DRA parts of Pods, Nodes, Namespaces, PodGroups
and workloads' pod templates) with the Kubernetes 1.37.2 API server's code.
  -R, --recursive            read directories recursively
      --validate MODE        strict|warn|ignore (also true/false): unknown and duplicate fields
      --feature-gates LIST   KEY=BOOL,... as kube-apiserver takes them
      --each-file            validate each file as if it were named alone
  -v, --verbose              say what was skipped
  -h, --help                 this help
`, prog)
}

func parseArgs(args []string) (*options, error) {
	o := &options{fieldVal: "Strict"}
	value := func(i *int, name string) (string, error) {
		a := args[*i]
		if j := strings.IndexByte(a, '='); j >= 0 {
			return a[j+1:], nil
		}
		if *i+1 >= len(args) {
			return "", fmt.Errorf("option %s needs a value", name)
		}
		*i++
		return args[*i], nil
	}
	onlyFiles := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case onlyFiles || a == "-" || !strings.HasPrefix(a, "-"):
			o.inputs = append(o.inputs, a)
		case a == "--":
			onlyFiles = true
		case a == "-R" || a == "--recursive":
			o.recursive = true
		case a == "-v" || a == "--verbose":
			o.verbose = true
		case a == "--each-file":
			o.eachFile = true
		case a == "-h" || a == "--help":
			usage(os.Stdout)
			os.Exit(0)
		case a == "--validate" || strings.HasPrefix(a, "--validate="):
			v, err := value(&i, "--validate")
			if err != nil {
				return nil, err
			}
			switch strings.ToLower(v) {
			case "strict", "true":
				o.fieldVal = "Strict"
			case "warn":
				o.fieldVal = "Warn"
			case "ignore", "false":
				o.fieldVal = "Ignore"
			default:
				return nil, fmt.Errorf("--validate: %q is not strict, warn or ignore", v)
			}
		case a == "--feature-gates" || strings.HasPrefix(a, "--feature-gates="):
			v, err := value(&i, "--feature-gates")
			if err != nil {
				return nil, err
			}
			if o.gates != "" && v != "" {
				o.gates += ","
			}
			o.gates += v
		default:
			return nil, fmt.Errorf("unknown option %s", a)
		}
	}
	if len(o.inputs) == 0 {
		o.inputs = []string{"-"}
	}
	return o, nil
}

func main() {
	// upstream's own logging (feature gate warnings, declarative
	// validation mismatches) is not the peer's output
	klog.SetLogger(logr.Discard())
	o, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", prog, err)
		usage(os.Stderr)
		os.Exit(2)
	}
	if o.gates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(o.gates); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", prog, err)
			os.Exit(2)
		}
	}
	bad := false
	if o.eachFile {
		files, errs := inputFiles(o)
		for _, e := range errs {
			fmt.Fprintf(os.Stderr, "%s: %s\n", prog, e)
			bad = true
		}
		for _, f := range files {
			one := *o
			one.inputs = []string{f}
			bad = validateRun(&one) || bad
		}
	} else {
		bad = validateRun(o)
	}
	if bad {
		os.Exit(2)
	}
}

// validateRun validates the objects of o's inputs and prints what it finds;
// it returns whether there was a problem.
func validateRun(o *options) bool {
	r := newRun(o)
	docs, readErrs := collect(o)
	r.validateAll(docs)
	for _, e := range readErrs {
		r.problem(e)
	}
	for _, w := range r.warnings {
		fmt.Fprintf(os.Stderr, "%s: warning: %s\n", prog, w)
	}
	for _, p := range r.problems {
		fmt.Fprintf(os.Stderr, "%s: %s\n", prog, p)
	}
	if o.verbose {
		fmt.Fprintf(os.Stderr, "%s: %d objects checked, %d skipped, %d problems\n", prog, r.checked, r.skipped, len(r.problems))
	}
	return len(r.problems) > 0
}
