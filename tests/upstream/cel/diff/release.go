package main

// What the suite does differently for the release it runs against, named
// by DRA_KUBERNETES_VERSION as cel-batch and the tools read it (1.37 when
// unset).

import (
	"os"
	"regexp"
	"strconv"
	"strings"
)

type release struct {
	// Gate settings the generated expressions cycle through, in blocks.
	gateSets []string
	// rangeArgs, when set, are the only arguments lists.range is given,
	// and selectors found in the tree that call it otherwise are left out.
	rangeArgs []string
}

var rangeCall = regexp.MustCompile(`lists\.range\(([^()]*)\)`)

// leftOut tells whether the release's peer cannot be given expr.
func (r release) leftOut(expr string) bool {
	if r.rangeArgs == nil {
		return false
	}
	if !strings.Contains(expr, "lists.range") {
		return false
	}
	calls := rangeCall.FindAllStringSubmatch(expr, -1)
	if len(calls) != strings.Count(expr, "lists.range") {
		return true
	}
	for _, c := range calls {
		n, err := strconv.ParseInt(strings.TrimSpace(c[1]), 10, 64)
		if err != nil || n > 1000000 {
			return true
		}
	}
	return false
}

func releaseOf(version string) release {
	v := strings.TrimPrefix(version, "v")
	consumableOff := "DRAConsumableCapacity=false"
	if strings.HasPrefix(v, "1.38") {
		// DRAFractionalCapacityRange, on by default from 1.38, depends on
		// DRAConsumableCapacity: the one cannot be off alone
		// (k8s.io/kubernetes v1.38.0-beta.0 pkg/features/kube_features.go).
		consumableOff += ",DRAFractionalCapacityRange=false"
	}
	r := release{gateSets: []string{
		"",
		"DRAListTypeAttributes=true",
		consumableOff,
		consumableOff + ",DRAListTypeAttributes=true",
	}}
	if strings.HasPrefix(v, "1.36") {
		// 1.36's cel-go (v0.26.0, ext/lists.go genRange) builds the whole
		// list before the cost tracker sees its size: lists.range(
		// 9223372036854775807) grows until the kernel kills the process,
		// an upstream resource bug the scheduler shares.  Its expressions
		// give lists.range literal bounds only, none above a million.
		r.rangeArgs = []string{"0", "1", "2", "3", "7", "42", "1000", "1000000"}
	}
	return r
}

func currentRelease() release { return releaseOf(os.Getenv("DRA_KUBERNETES_VERSION")) }
