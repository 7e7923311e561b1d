//go:build k8s138

// Package ref names what the CEL peer uses of cel-go's common/types/ref package, for
// 1.38, whose modules moved to cel.dev/cel-go (k8s.io/kubernetes v1.38.0-beta.0 go.mod).
package ref

import up "cel.dev/cel-go/common/types/ref"

type Val = up.Val
