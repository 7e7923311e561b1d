//go:build !k8s138

// Package checker names what the CEL peer uses of cel-go's checker package, for
// releases before 1.38 (github.com/google/cel-go).
package checker

import up "github.com/google/cel-go/checker"

type (
	AstNode      = up.AstNode
	SizeEstimate = up.SizeEstimate
	CostEstimate = up.CostEstimate
	CallEstimate = up.CallEstimate
)
