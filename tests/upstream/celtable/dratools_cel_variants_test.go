//go:build !k8s136

// How TestCEL of 1.37 and 1.38 runs a case: every combination of the two
// gates (or the case's own) in both environments (or the case's own).
package cel

import (
	"fmt"

	"k8s.io/apiserver/pkg/cel/environment"
)

func variants(name string) []variant {
	scenario := testcases[name]
	listTypes, consumables := []bool{true, false}, []bool{true, false}
	if scenario.features != nil {
		listTypes = []bool{scenario.features.EnableListTypeAttributes}
		consumables = []bool{scenario.features.EnableConsumableCapacity}
	}
	envTypes := []environment.Type{environment.NewExpressions, environment.StoredExpressions}
	if scenario.envType != nil {
		envTypes = []environment.Type{*scenario.envType}
	}
	var out []variant
	for _, l := range listTypes {
		for _, c := range consumables {
			for _, e := range envTypes {
				out = append(out, variant{fmt.Sprintf("list-type-attributes=%v/consumable-capacity=%v/%s", l, c, e), l, c, e})
			}
		}
	}
	return out
}
