//go:build !k8s138

// Package traits names what the CEL peer uses of cel-go's common/types/traits package, for
// releases before 1.38 (github.com/google/cel-go).
package traits

import up "github.com/google/cel-go/common/types/traits"

type (
	Lister = up.Lister
	Mapper = up.Mapper
)
