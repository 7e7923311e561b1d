/* CEL abstract syntax tree, as produced by cel_parse() (parser.h).
 *
 * The shape follows cel-go's ast.Expr (google/cel-go common/ast/expr.go) so
 * that macro expansions, checker results and cost estimates line up with
 * upstream:
 *   - operators are CALL nodes named as in cel-go common/operators:
 *     "_?_:_", "_||_", "_&&_", "_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_",
 *     "@in", "_+_", "_-_", "_*_", "_/_", "_%_", "!_", "-_", "_[_]";
 *   - optional syntax is also a CALL, as in cel-go:
 *     `a.?f`  -> CALL "_?._"(a, CONST string "f")
 *     `a[?k]` -> CALL "_[?_]"(a, k)
 *   - has(a.f) is a SELECT with test_only = true;
 *   - macros (all, exists, exists_one, map, filter, two-variable forms,
 *     cel.bind, optMap, optFlatMap) are expanded into COMPREHENSION nodes
 *     at parse time exactly as cel-go's parser/macro.go does.
 *
 * Ownership: every node, string and array of an AST lives in the dra_arena
 * passed to cel_parse(); nothing is freed individually.  The checker
 * (checker.h) annotates nodes in place (type, overload ids), allocating in
 * the same arena.
 */
#ifndef DRA_CEL_AST_H
#define DRA_CEL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/arena.h"

/* Defined by the runtime (types.h / functions.h); the AST only points at them. */
struct cel_type;
struct cel_overload;

typedef enum cel_node_kind {
    CEL_NODE_CONST = 1,     /* literal */
    CEL_NODE_IDENT,         /* name (possibly qualified after checking, leading '.' kept) */
    CEL_NODE_SELECT,        /* operand.field, or has(operand.field) when test_only */
    CEL_NODE_CALL,          /* function call, operator, or receiver-style call */
    CEL_NODE_LIST,          /* [a, ?b, c] */
    CEL_NODE_MAP,           /* {k: v, ?k2: v2} */
    CEL_NODE_STRUCT,        /* Name{field: v, ?f2: v2} (message construction) */
    CEL_NODE_COMPREHENSION, /* macro expansion */
} cel_node_kind;

/* clang-format off */
typedef enum cel_const_kind {
    CEL_CONST_NULL = 1,
    CEL_CONST_BOOL,
    CEL_CONST_INT,    /* int64 */
    CEL_CONST_UINT,   /* uint64 */
    CEL_CONST_DOUBLE,
    CEL_CONST_STRING, /* UTF-8, validated; len excludes the terminating NUL */
    CEL_CONST_BYTES,  /* arbitrary bytes; NUL-terminated for convenience */
} cel_const_kind;
/* clang-format on */

typedef struct cel_const {
    cel_const_kind kind;
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        struct {
            const char *data; /* arena; NUL-terminated */
            size_t len;
        } s; /* STRING and BYTES */
    } v;
} cel_const;

typedef struct cel_node cel_node;

/* One entry of a map literal or a message construction. */
typedef struct cel_entry {
    int64_t id;        /* entry id, distinct from the ids of key and value */
    size_t offset;     /* byte offset of the ':' (cel-go records the colon) */
    const char *field; /* STRUCT: field name; MAP: NULL */
    cel_node *key;     /* MAP: key expression; STRUCT: NULL */
    cel_node *value;
    bool optional; /* `?key: value` */
} cel_entry;

struct cel_node {
    int64_t id;    /* unique within the AST, > 0; macros allocate fresh ids */
    size_t offset; /* byte offset into the source where the node starts (cel-go's position) */
    cel_node_kind kind;

    /* Filled in by the checker (NULL before checking). */
    const struct cel_type *type;

    /* Filled in by the evaluator's preparation (eval.c; 0/NULL before):
     * an internal dispatch code for special calls, and for a call folded
     * at compile time its value (const struct cel_value *) and the cost
     * the call still charges at runtime (cel-go does not fold). */
    int eval_op;
    int cost_rule; /* Kubernetes cost rule (cel_k8s_cost_rule), 0 = cel-go's */
    const void *folded;
    uint64_t folded_cost;
    /* cel-go's OptOptimize (eval.c): the node is a constant when the
     * program runs (its value in `folded`, no cost), and for `x in LIST`
     * with a constant list, that list (const struct cel_value *). */
    bool opt_const;
    const void *in_set;
    /* cel-go plans the call as evalVarArgs (3+ or 0 arguments, dynamic
     * dispatch, a var-args binding, a compiled pattern): its arguments are
     * evaluated until the first error, and the call is charged only when
     * they all were. */
    bool var_args;

    union {
        cel_const constant; /* CONST */

        struct {
            const char *name; /* IDENT: "x", ".x" for root-scoped */
        } ident;

        struct {
            cel_node *operand;
            const char *field;
            bool test_only; /* has(operand.field) */
        } select;

        struct {
            const char *function; /* "size", "_+_", "contains", "cel.bind" never (expanded) */
            cel_node *target;     /* receiver for `x.f(...)`, NULL for global calls */
            cel_node **args;
            size_t nargs;
            /* Set by the checker: the overloads still possible after type
             * checking (one when resolved statically, several when dyn). */
            const struct cel_overload **overloads;
            const char **overload_ids;
            size_t noverloads;
        } call;

        struct {
            cel_node **elems;
            size_t nelems;
            size_t *optional_indices; /* indices of `?elem` entries, ascending */
            size_t noptional;
        } list;

        struct {
            const char *message_name; /* STRUCT only: "a.b.Msg", leading '.' kept */
            cel_entry *entries;
            size_t nentries;
        } map; /* MAP and STRUCT */

        struct {
            const char *iter_var;
            const char *iter_var2; /* NULL unless a two-variable comprehension */
            cel_node *iter_range;
            const char *accu_var;
            cel_node *accu_init;
            cel_node *loop_condition;
            cel_node *loop_step;
            cel_node *result;
        } comp;
    } u;
};

/* A parsed expression.  `source` is a private NUL-terminated copy in the arena. */
typedef struct cel_ast {
    cel_node *root;
    const char *source;
    size_t source_len;
    int64_t max_id;       /* the highest node/entry id in use */
    size_t *line_offsets; /* byte offset where each line starts; line_offsets[0] = 0 */
    size_t nlines;
} cel_ast;

/* Convert a byte offset into 1-based line and column (column counts Unicode
 * code points from the line start, plus one, as cel-go does). */
void cel_ast_location(const cel_ast *ast, size_t offset, int *line, int *col);

/* Call fn on each child of n that is set, in source order (a call's target
 * then its arguments; a map's keys before their values; a comprehension's
 * range, accumulator, condition, step and result). */
void cel_node_each_child(const cel_node *n, void (*fn)(const cel_node *child, void *ud), void *ud);

/* cel-go v0.33 common/cost estimator.go isAttributeChain: an identifier,
 * a selection (a presence test too), an index, an optional selection or
 * index, or a ternary. */
bool cel_ast_is_attribute_chain(const cel_node *n);
/* attributeChainRoot: the expression an attribute chain starts from, past
 * the selections and indexes extending it (a presence test is a root). */
const cel_node *cel_ast_chain_root(const cel_node *n);
/* n is a global call of function fn ("_?_:_" ...). */
bool cel_ast_is_call(const cel_node *n, const char *fn);

/* Find a node by id (linear walk); NULL when absent. */
cel_node *cel_ast_find(cel_node *root, int64_t id);

/* Debug rendering close to cel-go's debug.ToDebugString without ids:
 * used by tests to assert macro expansion shapes.  Caller frees. */
char *cel_ast_debug(const cel_node *n);

/* The operator/function names used in CALL nodes. */
#define CEL_OP_CONDITIONAL "_?_:_"
#define CEL_OP_LOGICAL_OR "_||_"
#define CEL_OP_LOGICAL_AND "_&&_"
#define CEL_OP_EQUALS "_==_"
#define CEL_OP_NOT_EQUALS "_!=_"
#define CEL_OP_LESS "_<_"
#define CEL_OP_LESS_EQUALS "_<=_"
#define CEL_OP_GREATER "_>_"
#define CEL_OP_GREATER_EQUALS "_>=_"
#define CEL_OP_IN "@in"
#define CEL_OP_ADD "_+_"
#define CEL_OP_SUBTRACT "_-_"
#define CEL_OP_MULTIPLY "_*_"
#define CEL_OP_DIVIDE "_/_"
#define CEL_OP_MODULO "_%_"
#define CEL_OP_NEGATE "-_"
#define CEL_OP_LOGICAL_NOT "!_"
#define CEL_OP_INDEX "_[_]"
#define CEL_OP_OPT_INDEX "_[?_]"
#define CEL_OP_OPT_SELECT "_?._"
/* Internal to macro expansions (cel-go operators.NotStrictlyFalse). */
#define CEL_OP_NOT_STRICTLY_FALSE "@not_strictly_false"

#endif
