/* The CEL function and overload registry: one table used by the checker (to
 * resolve and type calls) and by the evaluator (to run them).
 *
 * Every library (lib_*.c) contributes a static, read-only array of
 * cel_overload.  A cel_registry is a per-environment index over the
 * overloads of the enabled libraries; it owns only its index (the overloads
 * themselves are static).  Create with cel_registry_new(), release with
 * cel_registry_free().  A registry is immutable after creation and may be
 * shared by any number of threads.
 *
 * Naming follows cel-go: operators use the names of ast.h (CEL_OP_*), overload
 * ids the ids of cel-go common/overloads ("add_int64", "size_string",
 * "contains_string", "timestamp_to_year_with_tz", ...) or of the defining
 * library ("quantity_add_quantity", "list_int_sum_int" ...).
 */
#ifndef DRA_CEL_FUNCTIONS_H
#define DRA_CEL_FUNCTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"
#include "value.h"

#define CEL_MAX_ARGS 4

/* Evaluation flags (cel_eval_params in eval.h, cel_call_ctx below). */
enum {
    CEL_EVAL_PRESENCE_COSTS = 1u << 0, /* has() costs 1 (cel-go default); Kubernetes: free */
    CEL_EVAL_CHECKED = 1u << 1,        /* the AST was type-checked: qualified names are already resolved */
    CEL_EVAL_K8S_COSTS = 1u << 2,      /* Kubernetes call costs (cel_k8s_call_cost) before cel-go's */
    CEL_EVAL_NO_COST = 1u << 3,        /* skip call cost computation (no limit can be reached, nobody asks) */
    CEL_EVAL_OPTIMIZE = 1u << 4,       /* cel-go's OptOptimize (Kubernetes' base environment): see cel_eval_prepare */
    CEL_EVAL_STOP_AT_ERROR = 1u << 5,  /* cel-go v0.33: a strict call stops at its first error (CEL_OPT_CEL_GO_033) */
    CEL_EVAL_CEL_GO_026 = 1u << 6,     /* cel-go v0.26's call costs (CEL_OPT_CEL_GO_026) */
    CEL_EVAL_NAN_UNORDERED = 1u << 7,  /* cel-go v0.33: < <= > >= with a NaN operand are false (CEL_OPT_CEL_GO_033) */
    CEL_EVAL_QUANTITY_138 = 1u << 8,   /* apimachinery v0.38's ParseQuantity in quantity() (CEL_OPT_CEL_GO_033) */
    CEL_EVAL_BRANCH_QUALIFY =
        1u << 9, /* cel-go v0.33: has() on a ternary's computed branch costs 1 (CEL_OPT_CEL_GO_033) */
};

/* What an implementation may use while running: the evaluation's scratch
 * memory for results, and per-program caches.  Owned by the evaluator. */
typedef struct cel_regex_cache cel_regex_cache;
typedef struct cel_call_ctx {
    cel_scratch *scratch;     /* allocate results here */
    cel_regex_cache *regexes; /* compiled patterns (lib_regex.c); may be NULL */
    unsigned flags;           /* the evaluation's CEL_EVAL_* bits */
} cel_call_ctx;

/* An implementation receives exactly the declared number of arguments
 * (receiver first for member functions), none of them an error unless the
 * overload is non-strict.  It returns a value or a CEL_ERROR value. */
typedef cel_value (*cel_impl)(cel_call_ctx *cx, const cel_value *args, size_t nargs);

/* How a call is charged (cel-go interpreter/runtimecost.go costCall and
 * checker/cost.go; Kubernetes library/cost.go for the k8s functions).
 * "size" below is the CEL size of a string/bytes/list/map argument, 1 otherwise. */
/* clang-format off */
typedef enum cel_cost_kind {
    CEL_COST_ONE = 0,        /* 1 */
    CEL_COST_TRAVERSE0,      /* ceil(size(arg0) * factor) */
    CEL_COST_TRAVERSE1,      /* ceil(size(arg1) * factor): startsWith, endsWith (the prefix) */
    CEL_COST_MIN_SIZE,       /* ceil(min(size(arg0), size(arg1)) * factor): ==, !=, string/bytes ordering */
    CEL_COST_SUM_SIZE,       /* ceil((size(arg0) + size(arg1)) * factor): string/bytes + */
    CEL_COST_PRODUCT,        /* ceil(size0 * 0.1) * ceil(size1 * 0.1): contains */
    CEL_COST_MATCHES,        /* ceil((1 + size0) * 0.1) * ceil(size1 * 0.25) */
    CEL_COST_SIZE1,          /* size(arg1): `in` on lists */
    CEL_COST_CUSTOM,         /* runtime_cost() decides; the checker uses `factor` as a rough per-element hint */
} cel_cost_kind;
/* clang-format on */

typedef uint64_t (*cel_runtime_cost_fn)(const cel_value *args, size_t nargs, const cel_value *result);

/* Library membership bits (which option set enables an overload). */
/* clang-format off */
enum {
    CEL_LIB_STD        = 1u << 0,  /* operators, conversions, size, string basics, time */
    CEL_LIB_STRINGS    = 1u << 1,  /* ext.Strings v2 */
    CEL_LIB_LISTS      = 1u << 2,  /* ext.Lists v3 */
    CEL_LIB_SETS       = 1u << 3,  /* ext.Sets */
    CEL_LIB_MATH       = 1u << 4,  /* ext.Math (not in the Kubernetes env) */
    CEL_LIB_OPTIONAL   = 1u << 5,  /* cel.OptionalTypes */
    CEL_LIB_K8S_REGEX  = 1u << 6,  /* find, findAll */
    CEL_LIB_K8S_LISTS  = 1u << 7,  /* isSorted, sum, min, max, indexOf, lastIndexOf */
    CEL_LIB_K8S_QUANTITY = 1u << 8,
    CEL_LIB_K8S_SEMVER = 1u << 9,
    CEL_LIB_K8S_URL    = 1u << 10,
    CEL_LIB_K8S_IP     = 1u << 11,
    CEL_LIB_K8S_CIDR   = 1u << 12,
    CEL_LIB_K8S_FORMAT = 1u << 13,
    CEL_LIB_STRINGS_V3 = 1u << 14, /* ext.Strings v3+: reverse (not in Kubernetes) */
    CEL_LIB_K8S_INCLUDES = 1u << 15, /* k8s Lists v1 `includes` (1.37+) */
    CEL_LIB_ENCODERS   = 1u << 16, /* ext.Encoders: base64.encode/decode (not in Kubernetes) */
    CEL_LIB_DRA_INCLUDES = 1u << 17, /* 1.36's DRA `includes` (dra_includes_dyn_dyn), costing 1 */
    CEL_LIB_INT_TO_DURATION = 1u << 18, /* cel-go v0.26's duration(int) (Kubernetes 1.36) */
};
/* Everything the Kubernetes base environment (StoredExpressions) enables. */
#define CEL_LIBS_KUBERNETES (CEL_LIB_STD | CEL_LIB_STRINGS | CEL_LIB_LISTS | CEL_LIB_SETS | \
    CEL_LIB_OPTIONAL | CEL_LIB_K8S_REGEX | CEL_LIB_K8S_LISTS | CEL_LIB_K8S_QUANTITY | \
    CEL_LIB_K8S_SEMVER | CEL_LIB_K8S_URL | CEL_LIB_K8S_IP | CEL_LIB_K8S_CIDR | CEL_LIB_K8S_FORMAT)
/* clang-format on */

typedef struct cel_overload {
    const char *id;                       /* unique overload id */
    const char *function;                 /* function or operator name */
    bool member;                          /* receiver style: args[0] is the receiver */
    unsigned nargs;                       /* including the receiver */
    const cel_type *params[CEL_MAX_ARGS]; /* may contain CEL_T_PARAM types */
    const cel_type *result;
    cel_impl impl; /* NULL only for functions the evaluator special-cases */
    cel_cost_kind cost;
    double factor;                    /* for TRAVERSE0 / MIN_SIZE / SUM_SIZE (0.1 = string traversal) */
    cel_runtime_cost_fn runtime_cost; /* CEL_COST_CUSTOM */
    unsigned lib;                     /* CEL_LIB_* bit */
    bool non_strict;                  /* receives error arguments (@not_strictly_false) */
} cel_overload;

typedef struct cel_registry cel_registry;

/* Index the overloads of every library whose bit is in `libs`. Never NULL. */
cel_registry *cel_registry_new(unsigned libs);
void cel_registry_free(cel_registry *r);
unsigned cel_registry_libs(const cel_registry *r);

/* All overloads (global and member) named `function`, in registration
 * order; *n = 0 and NULL when the function is unknown.  The array belongs
 * to the registry. */
const cel_overload *const *cel_registry_lookup(const cel_registry *r, const char *function, size_t *n);
const cel_overload *cel_registry_by_id(const cel_registry *r, const char *id);
bool cel_registry_has_function(const cel_registry *r, const char *function);
/* Call fn once per function name (operators and "@"-internal names
 * included), in name order; names belong to the registry. */
void cel_registry_foreach_function(const cel_registry *r, void (*fn)(const char *name, void *ud), void *ud);

/* Runtime dispatch test: do these argument values fit the overload's
 * parameter types (type parameters and dyn match anything; list(T)/map(K,V)
 * match any list/map; opaque types by kind)? */
bool cel_overload_accepts(const cel_overload *o, const cel_value *args, size_t nargs);
/* Does a runtime value belong to a (possibly parameterised) type, shallowly? */
bool cel_value_is_of_type(const cel_value *v, const cel_type *t);

/* Runtime cost of one call, as cel-go charges it. */
uint64_t cel_overload_cost(const cel_overload *o, const cel_value *args, size_t nargs, const cel_value *result);
/* The Kubernetes cost estimator's runtime cost of a call (apiserver
 * pkg/cel/library/cost.go CallCost), which takes precedence over cel-go's
 * for the functions it names.  `rule` comes from cel_k8s_cost_rule(name),
 * computed once per call site; false when there is no rule for the call. */
int cel_k8s_cost_rule(const char *function); /* 0: no Kubernetes rule for this function */
bool cel_k8s_call_cost(int rule, const cel_overload *o, const cel_value *args, size_t nargs, const cel_value *result,
                       uint64_t *out);
/* CEL size for cost purposes: code points of strings, bytes, elements; 1 otherwise. */
uint64_t cel_cost_size(const cel_value *v);

/* Compiled-regex cache used by matches/find/findAll (lib_regex.c).  Owned by
 * a program; not thread-safe.  Patterns are compiled as Go's regexp reads
 * them (regex.h) on first use and kept until cel_regex_cache_free. */
cel_regex_cache *cel_regex_cache_new(void);
void cel_regex_cache_free(cel_regex_cache *c);
/* Validate a pattern at compile time (ValidateRegexLiterals); NULL when valid,
 * else Go's error text, which the caller frees with free(). */
char *cel_regex_check(const char *pattern, size_t len);

/* "no such key: <k>" as cel-go prints the key (lib_std.c). */
cel_value cel_no_such_key(cel_scratch *s, const cel_value *key);

/* Library tables (lib_*.c). */
extern const cel_overload cel_lib_std[];
extern const size_t cel_lib_std_n;
extern const cel_overload cel_lib_time[];
extern const size_t cel_lib_time_n;
extern const cel_overload cel_lib_strings[];
extern const size_t cel_lib_strings_n;
extern const cel_overload cel_lib_lists[];
extern const size_t cel_lib_lists_n;
extern const cel_overload cel_lib_sets[];
extern const size_t cel_lib_sets_n;
extern const cel_overload cel_lib_math[];
extern const size_t cel_lib_math_n;
extern const cel_overload cel_lib_encoders[];
extern const size_t cel_lib_encoders_n;
extern const cel_overload cel_lib_format[];
extern const size_t cel_lib_format_n;
extern const cel_overload cel_lib_regex[];
extern const size_t cel_lib_regex_n;
extern const cel_overload cel_lib_optional[];
extern const size_t cel_lib_optional_n;
extern const cel_overload cel_lib_k8s[];
extern const size_t cel_lib_k8s_n;

/* Composite signature types shared by the library tables (static). */
extern const cel_type cel_t_list_a, cel_t_list_b, cel_t_list_list_a, cel_t_map_kv, cel_t_map_ab, cel_t_type_a,
    cel_t_optional_a, cel_t_optional_b, cel_t_optional_dyn, cel_t_list_int, cel_t_list_uint, cel_t_list_double,
    cel_t_list_quantity;

/* Shared helpers for library implementations (error texts as cel-go prints them). */
/* What cel-go answers when no overload of function f takes these
 * arguments: "no such overload", "no such overload: _+_" or "no such
 * overload: lowerAscii(int)" (functions.c says which and why); for a
 * relation whose left operand is ordered, what its Compare answers (NaN
 * checks first, by cx->flags). */
cel_value cel_no_overload_for(const cel_call_ctx *cx, const char *f, const cel_value *args, size_t nargs);
/* What a NaN operand makes of the relation a[0] OP a[1]: true with *out
 * set when it decides it.  Under CEL_EVAL_NAN_UNORDERED (cel-go v0.33
 * common/stdlib/standard.go: the relations' one binding) false for a NaN
 * on either side; before, Compare's error for a NaN receiver or, when
 * `right_errs` (a number's Compare), a NaN argument (cel-go v0.29.2
 * common/types/double.go, int.go, uint.go). */
bool cel_nan_relation(const cel_call_ctx *cx, const cel_value *a, bool right_errs, cel_value *out);
/* Whether function f is bound once for all its overloads (cel-go
 * SingletonUnaryBinding / SingletonBinaryBinding: the standard operators,
 * size, matches, sort), so a call to it with one or two arguments
 * evaluates them all. */
bool cel_singleton_function(const char *f);
/* Size of a string (code points), bytes, list or map; 0 for other kinds. */
int64_t cel_value_size(const cel_value *v);

/* Across library files (defined in lib_k8s.c): quantity-aware `+` and
 * ordering for lists' sum()/min()/max(), and the URL check of the Format
 * library. */
cel_value cel_k8s_add(cel_call_ctx *cx, const cel_value *x, const cel_value *y);
int cel_k8s_compare(const cel_value *x, const cel_value *y, bool *ok);
bool cel_format_url_valid(cel_call_ctx *cx, const char *p, size_t len);
/* A named format's MaxRegexSize (lib_format.c), or -1 when v is not one. */
int cel_format_max_regex_size(const cel_value *v);

/* Mark env as the DRA environment (cel.c; used by dra.c), whose
 * attribute values have type `unknown` (static; dyn or
 * google.protobuf.Any): a selector may yield it instead of bool. */
struct cel_env;
void cel_env_mark_dra(struct cel_env *env, const cel_type *unknown);
const cel_type *cel_env_dra_unknown(const struct cel_env *env); /* NULL unless marked */
/* 1.36 without DRAListTypeAttributes: a device with a list attribute fails
 * to convert (cel_dra_match, cel_dra_eval_attribute). */
void cel_env_dra_refuse_lists(struct cel_env *env);
bool cel_env_dra_lists_refused(const struct cel_env *env);

#endif
