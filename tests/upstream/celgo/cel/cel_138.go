//go:build k8s138

// Package cel names what the CEL peer uses of cel-go's cel package, for
// 1.38, whose modules moved to cel.dev/cel-go (k8s.io/kubernetes v1.38.0-beta.0 go.mod).
package cel

import up "cel.dev/cel-go/cel"

type (
	Env           = up.Env
	Ast           = up.Ast
	Program       = up.Program
	EvalDetails   = up.EvalDetails
	ProgramOption = up.ProgramOption
)

var (
	Variable                = up.Variable
	InterruptCheckFrequency = up.InterruptCheckFrequency
	CostLimit               = up.CostLimit
)
