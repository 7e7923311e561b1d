//go:build !k8s136

package main

import dracel "k8s.io/dynamic-resource-allocation/cel"

// enhanceRuntimeError is the scheduler's wording of a CEL runtime error
// (k8s.io/dynamic-resource-allocation/cel errors.go, 1.37 on).
func enhanceRuntimeError(err error) error { return dracel.EnhanceRuntimeError(err) }

// listsAlways: a list attribute is a value whatever DRAListTypeAttributes
// says (cel/compile.go getAttributeValue, 1.37 on).
const listsAlways = true
