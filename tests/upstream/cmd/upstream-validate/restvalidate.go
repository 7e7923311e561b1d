//go:build !k8s136

package main

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// The API server's validation of a create and of an update, strategy and
// common fields (k8s.io/apiserver pkg/registry/rest create.go, update.go;
// 1.36 has a twin, restvalidate_136.go).
func validateCreate(ctx context.Context, obj runtime.Object, s rest.RESTCreateStrategy) field.ErrorList {
	return rest.ValidateCreate(ctx, obj, s)
}

func validateUpdate(ctx context.Context, obj, old runtime.Object, s rest.RESTUpdateStrategy) field.ErrorList {
	return rest.ValidateUpdate(ctx, obj, old, s)
}
