/* CEL type checker and static cost estimator.
 *
 * cel_check() follows cel-go checker/checker.go: it infers a type for every
 * node (cel_node.type), resolves overloads against the registry
 * (functions.h) and records the candidates on call nodes
 * (call.overloads/overload_ids/noverloads: one when the types decide, several
 * when dyn arguments leave the choice to run time).  Error texts are
 * cel-go's: "undeclared reference to 'x' (in container '')",
 * "found no matching overload for '_+_' applied to '(int, string)'",
 * "undefined field 'x'", "expected type 'bool' but found 'int'", ...
 *
 * Rewrites done in place, as cel-go does: a qualified function name written as
 * a member call on an identifier that is not a variable (`optional.of(x)`,
 * `sets.contains(a, b)`) becomes a global call named "optional.of".
 *
 * Ownership: types and arrays the checker creates live in `arena` (normally
 * the AST's arena).  Errors are returned as a dra_err chain (DRA_EXIT_INPUT,
 * line/col set) that the caller frees; cel_errors_display (parser.h) renders
 * them as cel-go does.
 */
#ifndef DRA_CEL_CHECKER_H
#define DRA_CEL_CHECKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/arena.h"
#include "../base/error.h"
#include "ast.h"
#include "functions.h"
#include "types.h"

typedef struct cel_decl {
    const char *name;
    const cel_type *type;
} cel_decl;

typedef struct cel_check_env {
    const cel_decl *vars; /* declared variables; a later entry wins over an earlier one */
    size_t nvars;
    const cel_registry *registry; /* functions; required */
    bool cross_type_numeric;      /* int/uint/double ordering across types (Kubernetes enables it) */
    bool homogeneous_literals;    /* reject mixed-type list/map literals (Kubernetes enables it) */
    const char *container;        /* names resolve relative to it ("x": `y` means "x.y", then "y"); may be NULL */
    bool omit_empty_container;    /* cel-go v0.33: "undeclared reference to 'x'" without " (in container '')" */
    bool suggest;                 /* cel-go v0.33: "... (did you mean 'y'?)" from the symbols (catalog.h) */
    bool lists_after_strings;     /* 1.38: indexOf, lastIndexOf try ext.Strings' overloads before the lists' */
    bool dotted_locals;           /* cel-go v0.26: `.x` is `x` looked up in every scope, locals first */
    unsigned macros;              /* the parser's CEL_MACROS_* (syntax.h; 0: all), symbols too */
} cel_check_env;

/* Type-check ast in place.  *result (may be NULL) receives the root type.
 * With env->homogeneous_literals, mixed literals of a well-typed ast are
 * errors too. */
DRA_MUST_USE dra_err *cel_check(cel_ast *ast, const cel_check_env *env, dra_arena *arena, const cel_type **result);
/* cel-go's ValidateHomogeneousAggregateLiterals alone, on an ast cel_check
 * typed without it: the caller's errors (NULL when none), which it frees. */
DRA_MUST_USE dra_err *cel_check_homogeneous(cel_ast *ast, const cel_check_env *env, dra_arena *arena);

/* ---- static cost (cel-go checker/cost.go) ---- */

typedef struct cel_size_range {
    uint64_t min, max;
} cel_size_range;

/* Size hint for a value reached through a path of field names from a
 * variable: {"device", "attributes"}; "@items", "@keys" and "@values" stand
 * for list elements, map keys and map values (cel-go's AstNode.Path()).
 * Return true and fill *out to give a size, false for "unknown". */
typedef bool (*cel_size_hint_fn)(void *ctx, const char *const *path, size_t npath, cel_size_range *out);

typedef struct cel_cost_options {
    cel_size_hint_fn size_hint; /* may be NULL */
    void *size_hint_ctx;
    bool presence_test_has_cost; /* cel-go default true; Kubernetes sets false (has() costs 0) */
    bool kubernetes_costs;       /* apiserver library.CostEstimator rules before cel-go's */
    bool cel_go_026;             /* cel-go v0.26: the global matches() costs 1 (CEL_OPT_CEL_GO_026) */
    bool cel_go_033;             /* cel-go v0.33: common/cost's models price the standard calls (CEL_OPT_CEL_GO_033) */
} cel_cost_options;

/* Estimate the cost range of a checked AST.  min and max saturate at UINT64_MAX.
 * Never fails on a checked AST. */
void cel_estimate_cost(const cel_ast *ast, const cel_cost_options *opts, uint64_t *min, uint64_t *max);

/* The size hint of the Kubernetes DRA `device` variable (dra.md §2.3:
 * ≤32 domains × ≤32 keys, domain ≤63 chars, id ≤32, strings ≤64). */
bool cel_dra_size_hint(void *ctx, const char *const *path, size_t npath, cel_size_range *out);

#endif
