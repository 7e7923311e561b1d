//go:build !k8s138

// Package cel names what the CEL peer uses of cel-go's cel package, for
// releases before 1.38 (github.com/google/cel-go).
package cel

import up "github.com/google/cel-go/cel"

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
