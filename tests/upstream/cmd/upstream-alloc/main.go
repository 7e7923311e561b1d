// Command upstream-alloc allocates devices with the Kubernetes scheduler's
// own structured allocator (k8s.io/dynamic-resource-allocation/structured
// of the module file it is built with: v0.37.2, or another release's
// through releases.mk), as a test peer of `dra-alloc --node`: the same arguments and
// input formats, the pending claims printed with status.allocation in
// dra-alloc's shape, or upstream's error on standard error.
//
// `upstream-alloc schedule` is the peer of `dra-alloc schedule` (schedule.go).
//
// Exit status: 0 allocated, 1 cannot allocate on this node, 2 bad input or
// the allocator's error, 3 timed out.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"dra-tools/tests/upstream/allocdiff/peer"
	"k8s.io/component-base/version"
)

const prog = "upstream-alloc"

// release: the Kubernetes release the peer is built from, as the version
// stamp of upstream.mk's builds says (e.g. "1.36.3"), or "(unstamped)"
// in a build without it.
func release() string {
	v := strings.TrimPrefix(version.Get().GitVersion, "v")
	if v == "" || strings.HasPrefix(v, "0.0.0") {
		return "(unstamped)"
	}
	return v
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `usage: %s schedule [OPTIONS] [FILE...]   (see %[1]s schedule --help)
       %[1]s [allocate] --node NAME [--feature-gates GATE=BOOL,...] [-o yaml|json|jsonl]
       [--timeout SECONDS] [--now RFC3339] [--no-validate] [--no-prune] [FILE...]
Allocates the pending ResourceClaims of the input on node NAME with the
Kubernetes %[2]s scheduler's structured allocator.  --node '*' tries
every node of the input in turn and answers for the first that fits.
`, prog, release())
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", prog, fmt.Sprintf(format, args...))
	os.Exit(code)
}

func main() {
	o := peer.Options{Timeout: 10 * time.Second}
	format := "yaml"
	stored := false
	var paths []string
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "schedule" {
		schedule(args[1:])
		return
	}
	if len(args) > 0 && args[0] == "allocate" {
		args = args[1:]
	}
	value := func(i *int) string {
		a := args[*i]
		if j := strings.IndexByte(a, '='); j >= 0 && strings.HasPrefix(a, "--") {
			return a[j+1:]
		}
		if *i+1 >= len(args) {
			fail(2, "%s: missing value", a)
		}
		*i++
		return args[*i]
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := a
		if j := strings.IndexByte(a, '='); j >= 0 && strings.HasPrefix(a, "--") {
			name = a[:j]
		}
		switch name {
		case "-h", "--help":
			usage(os.Stdout)
			return
		case "--node":
			o.Node = value(&i)
		case "--feature-gates":
			o.Gates = value(&i)
		case "-o", "--output":
			format = value(&i)
		case "--now":
			t, err := time.Parse(time.RFC3339, value(&i))
			if err != nil {
				fail(2, "--now: %v", err)
			}
			o.Now = t
		case "--timeout":
			v := value(&i)
			s, err := strconv.ParseFloat(v, 64)
			if err != nil || s < 0 {
				fail(2, "--timeout: invalid number of seconds %s", v)
			}
			o.Timeout = time.Duration(s * float64(time.Second))
		case "--no-validate":
			stored = true
		case "--no-prune":
		default:
			if strings.HasPrefix(a, "-") && a != "-" {
				usage(os.Stderr)
				fail(2, "unknown option %s", a)
			}
			paths = append(paths, a)
		}
	}
	if o.Node == "" {
		usage(os.Stderr)
		fail(2, "--node NAME is required")
	}
	if format != "yaml" && format != "json" && format != "jsonl" {
		fail(2, "-o: unknown format %q (yaml, json, jsonl)", format)
	}
	raws, err := peer.ReadPaths(paths, os.Stdin)
	if err != nil {
		fail(2, "%v", err)
	}
	// objects are created (the fields of disabled features dropped),
	// unless they are taken as stored (--no-validate)
	decode := func(raws []peer.Raw) (*peer.Input, error) { return peer.DecodeCreated(raws, o.Gates) }
	if stored {
		decode = peer.Decode
	}
	in, err := decode(raws)
	if err != nil {
		fail(2, "%v", err)
	}
	var out peer.Outcome
	if o.Node == "*" {
		// every node in turn, the first that fits (the scheduler's Filter
		// over the nodes, without scores): for comparing with schedule
		for _, n := range peer.Nodes(in) {
			o.Node = n
			if out = peer.Run(context.Background(), o, in); out.Exit != peer.ExitNo {
				break
			}
		}
	} else {
		out = peer.Run(context.Background(), o, in)
	}
	if out.Exit == peer.ExitPanic {
		fail(3, "%s", out.Msg)
	}
	if out.Exit != 0 {
		fail(out.Exit, "%s", out.Msg)
	}
	if err := peer.Write(os.Stdout, format, out.Claims); err != nil {
		fail(3, "writing the output: %v", err)
	}
}
