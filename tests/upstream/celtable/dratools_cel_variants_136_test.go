//go:build k8s136

// How TestCEL of 1.36 runs a case: with DRAListTypeAttributes off and on
// (or the case's own), the case's DRAConsumableCapacity, in the case's
// environment (StoredExpressions when none).
package cel

import (
	"fmt"

	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/utils/ptr"
)

func variants(name string) []variant {
	scenario := testcases[name]
	listTypes := []bool{false, true}
	if scenario.enableListTypeAttributes != nil {
		listTypes = []bool{*scenario.enableListTypeAttributes}
	}
	env := ptr.Deref(scenario.envType, environment.StoredExpressions)
	var out []variant
	for _, l := range listTypes {
		out = append(out, variant{fmt.Sprintf("list-type-attributes-%v", l), l, scenario.enableConsumableCapacity, env})
	}
	return out
}
