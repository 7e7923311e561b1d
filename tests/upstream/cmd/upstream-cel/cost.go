package main

// Estimated costs.  Upstream reports only the upper bound
// (CompilationResult.MaxCost); `dra-select check` prints the range, so the
// peer estimates again with the same estimator: library.CostEstimator over
// the device's sizes as dynamic-resource-allocation cel/compile.go
// declares them (its sizeEstimator is unexported; the sizes and the walk
// along the path are the same, built from the same constants).  Every
// estimate's maximum is checked against upstream's MaxCost (batch.go).

import (
	"dra-tools/tests/upstream/celgo/cel"
	"dra-tools/tests/upstream/celgo/checker"

	resourceapi "k8s.io/api/resource/v1"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/library"
)

// sized is one declared type: its maximum size, and what is inside it.
type sized struct {
	max    int64
	fields map[string]*sized
	key    *sized
	elem   *sized
}

var (
	attributeSize = &sized{max: int64(max(resourceapi.DeviceAttributeMaxValueLength, resourceapi.ResourceSliceMaxAttributeValuesPerDevice))}
	deviceSize    = func() *sized {
		domain := &sized{max: resourceapi.DeviceMaxDomainLength}
		id := &sized{max: resourceapi.DeviceMaxIDLength}
		per := int64(resourceapi.ResourceSliceMaxAttributesAndCapacitiesPerDevice)
		inner := func(elem *sized) *sized { return &sized{max: per, key: id, elem: elem} }
		outer := func(elem *sized) *sized { return &sized{max: per, key: domain, elem: inner(elem)} }
		return &sized{max: 0, fields: map[string]*sized{
			"driver":                   {max: resourceapi.DriverNameMaxLength},
			"allowMultipleAllocations": {max: 1},
			"attributes":               outer(attributeSize),
			"capacity":                 outer(&sized{max: apiservercel.QuantityDeclType.MaxElements}),
		}}
	}()
)

// DeviceAttributeMaxValueLength (64) and ResourceSliceMaxAttributeValuesPerDevice
// (48) bound both attribute declarations (V131 Any, V136 dyn), so one size
// serves both environments.

type deviceSizes struct{}

func (deviceSizes) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 || path[0] != "device" {
		return nil
	}
	cur := deviceSize
	for _, name := range path[1:] {
		switch name {
		case "@items", "@values":
			cur = cur.elem
		case "@keys":
			cur = cur.key
		default:
			if f, ok := cur.fields[name]; ok {
				cur = f
			} else if cur.elem == attributeSize {
				cur = attributeSize
			} else {
				return nil
			}
		}
		if cur == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(cur.max)}
}

func (deviceSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// draEstimator is dynamic-resource-allocation's own estimator (cel/
// compile.go draCostEstimator, unexported) around Kubernetes' one: 1.36's
// includes (overload dra_includes_dyn_dyn, v0.36.3) searches at most
// ResourceSliceMaxAttributeValuesPerDevice values, whatever its target.
// Later releases have no such overload.
type draEstimator struct{ base *library.CostEstimator }

func (e draEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	return e.base.EstimateSize(element)
}

func (e draEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	if function == "includes" && overloadID == "dra_includes_dyn_dyn" && target != nil {
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 0, Max: resourceapi.ResourceSliceMaxAttributeValuesPerDevice}}
	}
	return e.base.EstimateCallCost(function, overloadID, target, args)
}

// estimate is the cost range of a checked expression in env.
func estimate(env *cel.Env, ast *cel.Ast) (checker.CostEstimate, error) {
	return env.EstimateCost(ast, draEstimator{&library.CostEstimator{SizeEstimator: deviceSizes{}}})
}
