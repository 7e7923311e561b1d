//go:build !k8s138

// Package ref names what the CEL peer uses of cel-go's common/types/ref package, for
// releases before 1.38 (github.com/google/cel-go).
package ref

import up "github.com/google/cel-go/common/types/ref"

type Val = up.Val
