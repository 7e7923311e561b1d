/* The DRA selector environment (dynamic-resource-allocation cel/compile.go):
 * one variable `device` of type kubernetes.DRADevice with fields
 *   driver (string), attributes (map(string, map(string, V))),
 *   capacity (map(string, map(string, kubernetes.Quantity))) and
 *   allowMultipleAllocations (bool);
 * the Kubernetes base libraries; cost limit 1,000,000 per evaluation.
 * Upstream declares `device` once per feature combination; the
 * StoredExpressions environment (the scheduler) takes all of them, the
 * last one winning, so it always has allowMultipleAllocations and V = dyn
 * whatever the gates; the NewExpressions one (API validation of a new
 * selector) takes the one its gates select: allowMultipleAllocations with
 * DRAConsumableCapacity, V = dyn with DRAListTypeAttributes and
 * google.protobuf.Any ("any", not iterable) without.
 *
 * Attributes and capacities are grouped by domain: "dom/id" goes to
 * attributes["dom"]["id"], an unqualified "id" to attributes[<driver>]["id"].
 * A missing domain yields an empty map (`in` still says false); a missing
 * identifier is "no such key: id".
 *
 * Usage: build each device once (cel_dra_device_new), compile each selector
 * once (cel_dra_compile), then cel_dra_match any number of times; matching
 * allocates no heap memory once the program's scratch memory is warm.
 * Selectors whose estimated cost is within the limit and that use common
 * shapes (device fields, literal keys, resolved calls, && || !) are compiled
 * into a plan of pre-resolved steps that cel_dra_match runs without the
 * general evaluator; results and error texts are the evaluator's.  Typed
 * steps read attributes and capacities by a key hashed at compile time from
 * a per-device table built by cel_dra_device_new, and compare strings, ints,
 * semver parts and quantities with constants directly.
 *
 * Devices are converted lazily: building one only checks its attributes
 * and capacities as the full conversion would (so a conversion error still
 * fails every match) and notes them by name; a plan converts just the ones
 * it reads, once per device, and the full `device` map (the general
 * evaluator, whole-map reads, cel_dra_device_value) is built on first use
 * and kept.  So build each device once per run and match every selector on
 * it: it is converted at most once.  Devices are not safe to match from
 * two threads at once (their caches fill in), nor are programs (a plan's
 * steps keep where they found their attribute or capacity last, and the
 * order or part of the last capacity or version text they read: devices
 * of one slice, and most of a fleet, share their names and values).
 *
 * Ownership: the env (cel_env_free), programs (cel_program_free) and devices
 * (cel_dra_device_free) are owned by the caller; a device holds a reference
 * to the JSON it was built from (json_incref) until it is freed.  A device
 * is one heap allocation of a few hundred bytes, plus its full conversion
 * when made (a few KiB: built in a scratch arena, then moved into one
 * allocation).
 */
#ifndef DRA_CEL_DRA_H
#define DRA_CEL_DRA_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/error.h"
#include "../model/features.h"
#include "cel.h"
#include "dra_device.h"
#include "dra_plan.h"

typedef struct cel_dra_options {
    /* NewExpressions (the API server validating a new or changed selector)
     * instead of StoredExpressions (the scheduler).  The gates below shape
     * only the NewExpressions environment (environment/environment.go:
     * "The StoredExpressions environment ignores [FeatureEnabled]"). */
    bool new_expressions;
    bool consumable_capacity; /* DRAConsumableCapacity: device.allowMultipleAllocations (E2-7) */
    /* DRAListTypeAttributes: attribute values are dyn (iterable) rather
     * than google.protobuf.Any, and `includes()` is declared (E2-6: DRA's
     * IncludesOption behind the gate, while k8s Lists v1 enters the base
     * environment at 1.37, after the 1.36 compatibility version of a 1.37
     * binary; StoredExpressions always have it). */
    bool list_type_attributes;
    /* The release whose CEL this is (0: DRA_RELEASE_DEFAULT).  1.38 builds
     * on cel-go v0.33 (CEL_OPT_CEL_GO_033) and has `includes()` in every
     * environment: its compile.go drops IncludesOption, k8s Lists v1 being
     * in the base environment since 1.37. */
    dra_release release;
} cel_dra_options;

/* opts may be NULL (defaults: all false, i.e. StoredExpressions). Never NULL. */
cel_env *cel_dra_env_new(const cel_dra_options *opts);

/* Compile a selector.  Errors: "compilation failed: <cel-go issues>" or
 * "must evaluate to bool or the unknown type, not <T>". */
DRA_MUST_USE dra_err *cel_dra_compile(cel_env *env, const char *expr, size_t len, cel_program **out);

/* How the release and gates of o convert a device (o->release 0 is
 * DRA_RELEASE_DEFAULT); see cel_dra_convert in dra_device.h. */
cel_dra_convert cel_dra_convert_of(const cel_dra_options *o);

/* Validation hook for model/validate.h (dra_validate_cel_fn): compile `expr`
 * as the API server does for a new or changed selector and report the
 * estimated maximum cost in *cost.  ctx is a cel_env * from cel_dra_env_new
 * (the NewExpressions set at the default compatibility version has the
 * same libraries as the stored set for the project's versions).  Errors
 * (DRA_EXIT_INPUT, caller frees) carry upstream's detail text:
 * "compilation failed: ERROR: <input>:1:1: ..." or "must evaluate to bool
 * or the unknown type, not int"; the program instantiation error
 * ("program instantiation failed: ...", upstream's ErrorTypeInternal) has
 * code DRA_EXIT_RUNTIME instead.  The caller compares *cost with
 * CEL_DRA_MAX_COST ("too complex, exceeds cost limit"). */
DRA_MUST_USE dra_err *cel_dra_validate_hook(void *ctx, const char *expr, size_t len, uint64_t *cost);
/* The same for a derived attribute expression (cel_dra_compile_value), as
 * validateDeviceDerivedAttribute compiles it. */
DRA_MUST_USE dra_err *cel_dra_validate_derived_hook(void *ctx, const char *expr, size_t len, uint64_t *cost);

/* The hint upstream's EnhanceRuntimeError appends to runtime errors
 * containing "no such key:" (dra-corrections E2-8), from 1.37 on (1.36's
 * cel package has no errors.go): returns the suffix to append to msg, or
 * "" when none applies.  rel 0 is DRA_RELEASE_DEFAULT.  Static storage. */
const char *cel_dra_runtime_hint(dra_release rel, const char *msg);

/* Derived attributes (KEP-6080, gate DRADerivedAttributes): an expression
 * in the selector environment that yields a value rather than a bool.
 * cel_dra_compile_value compiles without the bool check (same errors as
 * cel_dra_compile otherwise) but with upstream's check of the result type:
 * bool, int, string, kubernetes.Semver, dyn or any, or a list of one of
 * them where the environment has list-typed attributes, else
 * "must evaluate to a primitive scalar (string, integer, boolean, semver)
 * or a list of these scalars, not map(string, int)" (DRA_EXIT_INPUT).  cel_dra_eval_attribute evaluates it on a
 * device and converts the result into a DeviceAttribute object: {"int": n},
 * {"bool": b}, {"string": s}, {"version": v}, or the list forms ("ints",
 * "bools", "strings", "versions") for a non-empty list of one scalar type.
 * Any other result is a runtime error (DRA_EXIT_RUNTIME).  *attr is owned
 * by the caller. */
DRA_MUST_USE dra_err *cel_dra_compile_value(cel_env *env, const char *expr, size_t len, cel_program **out);
DRA_MUST_USE dra_err *cel_dra_eval_attribute(cel_program *p, const cel_dra_device *d, json_t **attr);

#endif
