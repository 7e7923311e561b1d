/* The CEL evaluator: a tree-walking interpreter over a (checked or
 * unchecked) AST from parser.h, with cel-go semantics and cel-go's runtime
 * cost model.
 *
 * cel_eval_prepare() runs once per program: it resolves each call's
 * candidate overloads (keeping the checker's narrowed list when present) and
 * rewrites qualified function calls (`optional.of(x)` parsed as a member call
 * on `optional`) into global calls.  It writes into the AST nodes, which the
 * caller owns (they live in the caller's arena).
 *
 * cel_eval_run() evaluates; everything it allocates comes from `scratch`, so
 * the result and any error message live until the caller resets the scratch.
 * With a warm scratch, evaluation performs no heap allocation except for
 * regex compilation on first use and a few rare paths (double formatting).
 */
#ifndef DRA_CEL_EVAL_H
#define DRA_CEL_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ast.h"
#include "functions.h"
#include "value.h"

#define CEL_ACTIVATION_MAX 32
/* Variable bindings: a plain caller-owned struct; names and values are borrowed. */
typedef struct cel_activation {
    size_t n;
    const char *names[CEL_ACTIVATION_MAX];
    cel_value values[CEL_ACTIVATION_MAX];
} cel_activation;
#define CEL_ACTIVATION_INIT                                                                                            \
    {                                                                                                                  \
        0                                                                                                              \
    }

/* Bind name to v; rebinding replaces.  Returns false when full. */
bool cel_activation_bind(cel_activation *act, const char *name, cel_value v);
const cel_value *cel_activation_find(const cel_activation *act, const char *name);

/* Resolve overload candidates and qualified function names in place, set
 * dispatch codes, and fold constructor calls on literals (quantity("1Mi"),
 * timestamp("..."), ...) into values kept in `constants` (may be NULL: no
 * folding), which must live as long as the AST is evaluated.  `flags`
 * (CEL_EVAL_*) are those the evaluations will use (costs of folded calls).
 * `is_variable(name, ud)` tells whether a name is a declared variable (so
 * `x.f()` on a variable x stays a member call); may be NULL.
 *
 * With CEL_EVAL_OPTIMIZE and CEL_EVAL_CHECKED (and `constants`), also what
 * cel-go does when it makes a program with OptOptimize (interpreter/
 * decorators.go decOptimize, decRegexOptimizer; planner.go), node by node,
 * operands first: type names, list and map literals of constants and
 * conversions (bool bytes double duration dyn int string timestamp type
 * uint) of a constant become constants that cost nothing; `x in LIST` with
 * a constant list of bool, double, int, string or uint values becomes a
 * set lookup that costs nothing (false without evaluating x when the list
 * is empty); constant patterns of matches(), find() and findAll() are
 * compiled.  The first conversion, type name or pattern that fails is
 * returned as text (caller frees): the program cannot be made ("program
 * instantiation failed: <text>" upstream).  NULL otherwise. */
char *cel_eval_prepare(cel_ast *ast, const cel_registry *reg, dra_arena *arena, cel_scratch *constants, unsigned flags,
                       bool (*is_variable)(const char *name, void *ud), void *ud);

typedef struct cel_eval_params {
    const cel_registry *registry;
    const cel_activation *activation; /* may be NULL */
    cel_scratch *scratch;
    cel_regex_cache *regexes; /* may be NULL: patterns compiled per call */
    uint64_t cost_limit;      /* 0 = none */
    unsigned flags;           /* CEL_EVAL_* */
    const char *container;    /* unchecked programs: names resolve relative to it; may be NULL */
} cel_eval_params;

/* Evaluate; *cost (optional) receives the actual cost. */
cel_value cel_eval_run(const cel_node *root, const cel_eval_params *params, uint64_t *cost);

/* What a prepared call n answers when no overload takes its arguments:
 * "no such overload" for matches, find and findAll with a constant
 * pattern (their optimized functions), else cel_no_overload_for. */
cel_value cel_eval_no_overload(const cel_call_ctx *cx, const cel_node *n, const cel_value *args, size_t nargs);

#define CEL_COST_LIMIT_ERROR "operation cancelled: actual cost limit exceeded"

#endif
