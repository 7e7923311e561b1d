//go:build k8s136

package main

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/validate/content"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// 1.36's k8s.io/apiserver (v0.36.3) has no rest.ValidateCreate and
// rest.ValidateUpdate: its BeforeCreate validates the strategy, then,
// only when that passed, the object's metadata (create.go); BeforeUpdate
// the common fields, then the strategy (update.go).  The declarative
// validation runs inside the strategies.
func validateCreate(ctx context.Context, obj runtime.Object, s rest.RESTCreateStrategy) field.ErrorList {
	errs := s.Validate(ctx, obj)
	if len(errs) > 0 {
		return distinct(errs)
	}
	objectMeta, err := meta.Accessor(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("metadata"), err)}
	}
	return genericvalidation.ValidateObjectMetaAccessor(objectMeta, s.NamespaceScoped(), pathSegment, field.NewPath("metadata"))
}

// validateUpdate: the caller keeps the status errors alone, so the common
// (metadata) fields are left out.
func validateUpdate(ctx context.Context, obj, old runtime.Object, s rest.RESTUpdateStrategy) field.ErrorList {
	return distinct(s.ValidateUpdate(ctx, obj, old))
}

// distinct keeps each error once: the API server's answer is one
// aggregate of the list, and kubectl prints each distinct error of it
// once (k8s.io/apimachinery v0.36.3 pkg/util/errors aggregate.Error), as
// 1.37's rest.ValidateCreate and ValidateUpdate return them.
func distinct(errs field.ErrorList) field.ErrorList {
	seen := map[string]bool{}
	var out field.ErrorList
	for _, e := range errs {
		if m := e.Error(); !seen[m] {
			seen[m] = true
			out = append(out, e)
		}
	}
	return out
}

func pathSegment(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}
