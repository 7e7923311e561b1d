//go:build k8s138

// Package checker names what the CEL peer uses of cel-go's checker package, for
// 1.38, whose modules moved to cel.dev/cel-go (k8s.io/kubernetes v1.38.0-beta.0 go.mod).
package checker

import up "cel.dev/cel-go/checker"

type (
	AstNode      = up.AstNode
	SizeEstimate = up.SizeEstimate
	CostEstimate = up.CostEstimate
	CallEstimate = up.CallEstimate
)
