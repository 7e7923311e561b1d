package main

// upstream-alloc schedule: the pending pods of the input placed with
// upstream's allocator driven as the scheduler drives it (peer.Schedule),
// as a peer of `dra-alloc schedule`.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"dra-tools/tests/upstream/allocdiff/peer"
)

func scheduleUsage() {
	fmt.Printf(`usage: %s schedule [--feature-gates GATE=BOOL,...] [-o jsonl] [--timeout SECONDS]
       [--now RFC3339] [--no-validate] [FILE...]
Places the pending pods of the input as dra-alloc schedule does (queue
order, claims made from templates, nodes in name order, the best
DynamicResources score, each allocation seen by the next pod), with the
Kubernetes %[2]s scheduler's structured allocator.  Prints "N placed,
M not placed"; -o jsonl: one line a pod tried, {"pod","node","devices"}.
Figures on standard error.  Exit 0 all placed, 1 some pod fits nowhere,
2 bad input, 3 the allocator's error.
`, prog, release())
}

func schedule(args []string) {
	o := peer.Options{Timeout: 10 * time.Second}
	format, stored := "", false
	var paths []string
	for i := 0; i < len(args); i++ {
		a, v := args[i], ""
		name := a
		if j := strings.IndexByte(a, '='); j >= 0 && strings.HasPrefix(a, "--") {
			name, v = a[:j], a[j+1:]
		}
		val := func() string {
			if v != "" || name != a {
				return v
			}
			if i+1 >= len(args) {
				fail(2, "%s: missing value", a)
			}
			i++
			return args[i]
		}
		switch name {
		case "-h", "--help":
			scheduleUsage()
			return
		case "--feature-gates":
			o.Gates = val()
		case "-o", "--output":
			format = val()
		case "--now":
			t, err := time.Parse(time.RFC3339, val())
			if err != nil {
				fail(2, "--now: %v", err)
			}
			o.Now = t
		case "--timeout":
			s, err := strconv.ParseFloat(val(), 64)
			if err != nil || s < 0 {
				fail(2, "--timeout: invalid number of seconds")
			}
			o.Timeout = time.Duration(s * float64(time.Second))
		case "--no-validate":
			stored = true
		default:
			if strings.HasPrefix(a, "-") && a != "-" {
				fail(2, "unknown option %s", a)
			}
			paths = append(paths, a)
		}
	}
	if format != "" && format != "jsonl" {
		fail(2, "-o: unknown format %q (jsonl)", format)
	}
	t0 := time.Now()
	raws, err := peer.ReadPaths(paths, os.Stdin)
	if err != nil {
		fail(2, "%v", err)
	}
	in, err := peer.DecodeSchedule(raws, o.Gates, stored)
	if err != nil {
		fail(2, "%v", err)
	}
	out, st, err := peer.Schedule(context.Background(), o, in)
	if err != nil {
		fail(2, "%v", err)
	}
	w := json.NewEncoder(os.Stdout)
	for _, p := range out {
		if format == "jsonl" {
			if err := w.Encode(p); err != nil {
				fail(3, "writing the output: %v", err)
			}
		}
		if p.Node == "" {
			fmt.Fprintf(os.Stderr, "%s: pod %s: %s\n", prog, p.Pod, p.Message)
		}
	}
	if format == "" {
		fmt.Printf("%d placed, %d not placed\n", st.Scheduled, st.Pods-st.Scheduled)
	}
	fmt.Fprintf(os.Stderr, "%s: %d pods, %d scheduled, %d unschedulable, %d errors, %d node checks, "+
		"%d allocator runs, %.3f s, %.3f s in all\n", prog, st.Pods, st.Scheduled, st.Unschedulable, st.Errors,
		st.NodeChecks, st.AllocatorRuns, st.Seconds, time.Since(t0).Seconds())
	switch {
	case st.Errors > 0:
		os.Exit(3)
	case st.Unschedulable > 0:
		os.Exit(1)
	}
}
