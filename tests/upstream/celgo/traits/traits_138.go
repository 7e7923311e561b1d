//go:build k8s138

// Package traits names what the CEL peer uses of cel-go's common/types/traits package, for
// 1.38, whose modules moved to cel.dev/cel-go (k8s.io/kubernetes v1.38.0-beta.0 go.mod).
package traits

import up "cel.dev/cel-go/common/types/traits"

type (
	Lister = up.Lister
	Mapper = up.Mapper
)
