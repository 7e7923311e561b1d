//go:build k8s136

package main

// enhanceRuntimeError: 1.36 reports a CEL runtime error as cel-go words it
// (k8s.io/dynamic-resource-allocation v0.36.3 has no cel/errors.go).
func enhanceRuntimeError(err error) error { return err }

// listsAlways: 1.36 takes a list attribute only with DRAListTypeAttributes
// on; otherwise the device fails to convert, "unsupported attribute value"
// (v0.36.3 cel/compile.go getAttributeValue).
const listsAlways = false
