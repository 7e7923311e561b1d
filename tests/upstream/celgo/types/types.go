//go:build !k8s138

// Package types names what the CEL peer uses of cel-go's common/types package, for
// releases before 1.38 (github.com/google/cel-go).
package types

import up "github.com/google/cel-go/common/types"

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
