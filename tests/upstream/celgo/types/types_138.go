//go:build k8s138

// Package types names what the CEL peer uses of cel-go's common/types package, for
// 1.38, whose modules moved to cel.dev/cel-go (k8s.io/kubernetes v1.38.0-beta.0 go.mod).
package types

import up "cel.dev/cel-go/common/types"

type (
	Adapter   = up.Adapter
	Bool      = up.Bool
	Bytes     = up.Bytes
	Double    = up.Double
	Duration  = up.Duration
	Err       = up.Err
	Int       = up.Int
	Null      = up.Null
	Optional  = up.Optional
	String    = up.String
	Timestamp = up.Timestamp
	Type      = up.Type
	Uint      = up.Uint
)

const True = up.True

var (
	ListType              = up.ListType
	MapType               = up.MapType
	NewStringInterfaceMap = up.NewStringInterfaceMap
)
