package main

// `upstream-cel select EXPR [FILES]`: the benchmark peer of `dra-select
// select -e EXPR`.  The selector is compiled once as the scheduler does
// (CompileCELExpression) and DeviceMatches is called on every device of the
// input's slices, as the allocator does for each candidate device (it
// builds the device's CEL maps on every call).  Prints the matching
// devices, DRIVER/POOL/DEVICE one a line, and on stderr one line:
//
//	upstream-cel select: N devices, M match, T ns per evaluation
//
// T is the time in DeviceMatches alone (no reading, no compiling).  Exit 1
// when nothing matches, 2 on a compile or runtime error.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"time"

	"k8s.io/apiserver/pkg/cel/environment"
)

func runSelect(o *options) (bool, error) {
	if len(o.pos) < 1 {
		return false, fmt.Errorf("select: missing the expression (see 'upstream-cel --help')")
	}
	devs, err := readDevices(o.pos[1:])
	if err != nil {
		return false, err
	}
	r := compileSelector(o.gates, o.pos[0], environment.StoredExpressions)
	if r.Error != nil {
		return false, r.Error
	}
	out := bufio.NewWriter(os.Stdout)
	ctx := context.Background()
	matched := 0
	var spent time.Duration
	for i := range devs {
		t0 := time.Now()
		ok, _, err := r.DeviceMatches(ctx, devs[i].device)
		spent += time.Since(t0)
		if err != nil {
			return false, fmt.Errorf("%s: %v", devs[i].id, enhanceRuntimeError(err))
		}
		if ok {
			matched++
			fmt.Fprintln(out, devs[i].id)
		}
	}
	if err := out.Flush(); err != nil {
		return false, err
	}
	per := 0.0
	if len(devs) > 0 {
		per = float64(spent.Nanoseconds()) / float64(len(devs))
	}
	fmt.Fprintf(os.Stderr, "upstream-cel select: %d devices, %d match, %.0f ns per evaluation\n", len(devs), matched, per)
	return matched > 0, nil
}
