/* CEL public API: environments, compilation, activations and evaluation.
 *
 *   cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES);
 *   cel_env_declare(env, "x", &cel_t_int);
 *   cel_program *p; dra_err *e = cel_compile(env, "x + 1 > 2", 9, NULL, &p);
 *   cel_activation act = CEL_ACTIVATION_INIT;
 *   cel_activation_bind(&act, "x", cel_int(5));
 *   cel_value v = cel_eval(p, &act, NULL);   // v.kind == CEL_BOOL, or CEL_ERROR
 *
 * Ownership:
 *   - cel_env: created by cel_env_new / cel_dra_env_new (dra.h), freed by
 *     cel_env_free.  Declared types must outlive the env: use static types or
 *     build them in cel_env_arena(env).  Free programs before their env.
 *   - cel_program: created by cel_compile, freed by cel_program_free.  It
 *     owns the AST, the plan and the scratch memory its evaluations allocate
 *     in.  A program is NOT thread-safe: one evaluation at a time (it reuses
 *     its scratch memory and regex cache).
 *   - The value returned by cel_eval lives in the program's scratch memory and
 *     stays valid until the next cel_eval on that program or cel_program_free.
 *     Error values carry their message the same way.
 *   - cel_activation is a plain caller-owned struct (no heap): it borrows the
 *     names and the bound values, which must stay valid during cel_eval.
 */
#ifndef DRA_CEL_CEL_H
#define DRA_CEL_CEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/arena.h"
#include "../base/error.h"
#include "eval.h"
#include "functions.h"
#include "types.h"
#include "value.h"

typedef struct cel_env cel_env;
typedef struct cel_program cel_program;

/* ---- environments ---------------------------------------------------------- */

/* Option bits for cel_env_set_options. */
/* clang-format off */
enum {
    CEL_OPT_HOMOGENEOUS_LITERALS = 1u << 0, /* reject mixed-type list/map literals (Kubernetes) */
    CEL_OPT_VALIDATE_LITERALS = 1u << 1,    /* compile-time check of duration/timestamp/regex literals */
    CEL_OPT_NO_OPTIONAL_SYNTAX = 1u << 2,   /* parser rejects .? [?] {?k: v} */
    CEL_OPT_NO_TWO_VAR_MACROS = 1u << 3,
    CEL_OPT_NO_BINDINGS = 1u << 4,          /* no cel.bind */
    /* cel-go v0.33 (cel.dev/cel-go, Kubernetes 1.38) where it differs from
     * v0.29: a strict call stops at its first error argument and charges
     * nothing, but for ==, != and ! (interpreter/interpretable.go); an
     * undeclared reference names only a set container. */
    CEL_OPT_CEL_GO_033 = 1u << 5,
    /* cel-go v0.26 (Kubernetes 1.36) where it differs from v0.29:
     * startsWith and endsWith charge the receiver's length at runtime, and
     * the global matches(s, re) is estimated and charged as a plain call
     * (interpreter/runtimecost.go costCall, checker/cost.go functionCost). */
    CEL_OPT_CEL_GO_026 = 1u << 6,
};
/* clang-format on */

/* A generic environment with the libraries in `libs` (CEL_LIB_* bits from
 * functions.h; CEL_LIBS_KUBERNETES for the Kubernetes base set).  Never NULL. */
cel_env *cel_env_new(unsigned libs);
void cel_env_free(cel_env *env);
void cel_env_set_options(cel_env *env, unsigned opts); /* CEL_OPT_* */
/* Arena that lives as long as the env (for declaration types). */
dra_arena *cel_env_arena(cel_env *env);
/* Declare (or redeclare: the last one wins) a variable.  `name` is copied. */
void cel_env_declare(cel_env *env, const char *name, const cel_type *type);
/* Container for qualified name resolution (rarely needed; proto tests). */
void cel_env_set_container(cel_env *env, const char *container);
const cel_registry *cel_env_registry(const cel_env *env);

/* ---- compilation ------------------------------------------------------------ */

typedef struct cel_compile_options {
    bool skip_check;     /* parse only (conformance disable_check); result type is dyn */
    uint64_t cost_limit; /* 0 = none; >0: reject when the estimated max cost exceeds it */
} cel_compile_options;

/* Parse and type-check.  On success *out is a new program and NULL is
 * returned; on failure *out is NULL and the caller frees the error chain (one
 * dra_err per problem; msg is cel-go's "ERROR: <input>:L:C: ..." display). */
DRA_MUST_USE dra_err *cel_compile(cel_env *env, const char *src, size_t len, const cel_compile_options *opts,
                                  cel_program **out);
void cel_program_free(cel_program *p);

/* What making the program fails on in cel-go (env.Program) in the
 * Kubernetes environments (OptOptimize and the regex optimizations; see
 * cel_eval_prepare in eval.h): a constant conversion that fails ("type
 * conversion error from 'string' to 'int'"), a constant pattern of
 * matches(), find() or findAll() that does not compile (Go's "error
 * parsing regexp: ..."), a variable of type `type` ("reference to
 * undefined type: t"); the first in cel-go's planning order, as text
 * (caller frees), or NULL.  cel_compile does not fail on it: callers
 * report it where upstream does ("program instantiation failed: ...",
 * after the result type check in dra.c). */
char *cel_program_instantiation_error(const cel_program *p);

/* Static result type (dyn when unchecked), and as cel-go prints it. */
const cel_type *cel_program_result_type(const cel_program *p);
const char *cel_program_result_type_str(const cel_program *p);
/* Heap bytes held by the program's scratch memory (grows to a high-water
 * mark, then stays: evaluations after that allocate nothing). */
size_t cel_program_scratch_bytes(const cel_program *p);
/* Estimated cost range from the checker's estimator (0, UINT64_MAX when unknown). */
void cel_program_estimated_cost(const cel_program *p, uint64_t *min, uint64_t *max);

/* ---- activations ----------------------------------------------------------------
 * cel_activation, CEL_ACTIVATION_INIT and cel_activation_bind come from eval.h. */

/* ---- evaluation ----------------------------------------------------------------- */

typedef struct cel_eval_options {
    uint64_t cost_limit;   /* 0 = no limit */
    uint64_t *actual_cost; /* optional out: cost of this evaluation */
} cel_eval_options;

/* Evaluate.  Returns the result or a CEL_ERROR value (e.g. "no such key: x",
 * "division by zero", "operation cancelled: actual cost limit exceeded").
 * act may be NULL (no variables); opts may be NULL. */
cel_value cel_eval(cel_program *p, const cel_activation *act, const cel_eval_options *opts);

/* ---- values ------------------------------------------------------------------------ */

/* Value text in CEL literal syntax (see cel_value_format in value.h); caller frees. */
char *cel_value_to_string(const cel_value *v);

/* Building values for bindings and expectations: use the constructors of
 * value.h with a caller-owned dra_arena (cel_string_copy_a, cel_list_copy_a,
 * cel_map_build_a, cel_optional_of_a) or the inline ones (cel_int, ...).
 * From JSON: null, bool, integer (int), real (double), string, array (list),
 * object (map with string keys); the values live in `a`. */
struct json_t;
cel_value cel_value_from_json(dra_arena *a, const struct json_t *j);

#endif
