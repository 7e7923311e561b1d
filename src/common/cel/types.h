/* CEL types, shared by the checker (checker.h) and the runtime (value.h).
 *
 * A cel_type is an immutable tree.  The primitive and well-known types are
 * static constants (cel_t_int ... below); composite types (list(T), map(K, V),
 * type(T), optional_type(T), opaque types with parameters, type parameters)
 * are built with the constructors, which allocate in a caller's dra_arena, so
 * a type lives as long as that arena.  Types never point at anything shorter-
 * lived than themselves; a type built in an arena may point at static types.
 *
 * Names follow cel-go common/types (FormatCELType):
 *   int, uint, double, bool, string, bytes, null_type, dyn, type, "*error*",
 *   list(int), map(string, dyn), type(int), optional_type(int),
 *   google.protobuf.Timestamp, google.protobuf.Duration, google.protobuf.Any,
 *   and opaque types such as kubernetes.Quantity or kubernetes.Semver.
 */
#ifndef DRA_CEL_TYPES_H
#define DRA_CEL_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/arena.h"
#include "../base/buf.h"

/* clang-format off */
typedef enum cel_type_kind {
    CEL_T_DYN = 1,   /* dynamic: any value; assignable both ways */
    CEL_T_ERROR,     /* the checker's error type ("*error*") */
    CEL_T_NULL,      /* null_type */
    CEL_T_BOOL,
    CEL_T_INT,
    CEL_T_UINT,
    CEL_T_DOUBLE,
    CEL_T_STRING,
    CEL_T_BYTES,
    CEL_T_LIST,      /* params[0] = element */
    CEL_T_MAP,       /* params[0] = key, params[1] = value */
    CEL_T_TYPE,      /* type(T): nparams 0 for the plain `type` type, else params[0] = T */
    CEL_T_OPTIONAL,  /* optional_type(T): params[0] */
    CEL_T_TIMESTAMP, /* google.protobuf.Timestamp */
    CEL_T_DURATION,  /* google.protobuf.Duration */
    CEL_T_ANY,       /* google.protobuf.Any: the apiserver "unknown" attribute type (behaves as dyn) */
    CEL_T_OPAQUE,    /* named abstract type, e.g. kubernetes.Quantity; params optional */
    CEL_T_STRUCT,    /* named object type with declared fields (kubernetes.DRADevice) */
    CEL_T_PARAM,     /* type parameter in an overload signature ("A", "B", "K", "V") */
} cel_type_kind;
/* clang-format on */

typedef struct cel_type cel_type;

/* A declared field of a CEL_T_STRUCT type. */
typedef struct cel_field {
    const char *name;
    const cel_type *type;
} cel_field;

#define CEL_TYPE_MAX_PARAMS 2

struct cel_type {
    cel_type_kind kind;
    const char *name; /* OPAQUE, STRUCT, PARAM: the name; else NULL */
    const cel_type *params[CEL_TYPE_MAX_PARAMS];
    unsigned nparams;
    const cel_field *fields; /* STRUCT only */
    size_t nfields;
};

/* Static instances of the simple types (never freed, shared by everyone). */
extern const cel_type cel_t_dyn, cel_t_error, cel_t_null, cel_t_bool, cel_t_int, cel_t_uint, cel_t_double, cel_t_string,
    cel_t_bytes, cel_t_type, cel_t_timestamp, cel_t_duration, cel_t_any;
/* Frequent composites: list(dyn), map(dyn, dyn), list(string), map(string, dyn). */
extern const cel_type cel_t_list_dyn, cel_t_map_dyn, cel_t_list_string, cel_t_map_string_dyn;
/* Type parameters used by the standard signatures. */
extern const cel_type cel_t_param_a, cel_t_param_b, cel_t_param_k, cel_t_param_v;
/* Kubernetes opaque types (apiserver pkg/cel/library). */
extern const cel_type cel_t_quantity, cel_t_semver, cel_t_ip, cel_t_cidr, cel_t_url, cel_t_format;

/* Constructors: the result lives in `a` (never NULL). */
const cel_type *cel_type_list(dra_arena *a, const cel_type *elem);
const cel_type *cel_type_map(dra_arena *a, const cel_type *key, const cel_type *value);
const cel_type *cel_type_type(dra_arena *a, const cel_type *of);     /* type(T) */
const cel_type *cel_type_optional(dra_arena *a, const cel_type *of); /* optional_type(T) */
const cel_type *cel_type_param(dra_arena *a, const char *name);
const cel_type *cel_type_opaque(dra_arena *a, const char *name, const cel_type *const *params, unsigned nparams);
/* A struct type; `name` and the fields array are copied into `a`. */
const cel_type *cel_type_struct(dra_arena *a, const char *name, const cel_field *fields, size_t nfields);

/* Field of a struct type by name; NULL when t is not a struct or has no such field. */
const cel_type *cel_type_field(const cel_type *t, const char *name);

/* Structural equality (names and parameters; struct types compare by name). */
bool cel_type_equal(const cel_type *a, const cel_type *b);
/* True for dyn and google.protobuf.Any (both accept any value). */
bool cel_type_is_dyn(const cel_type *t);

/* The type name as cel-go prints it ("list(int)", "map(string, dyn)") appended to b. */
void cel_type_format(const cel_type *t, dra_buf *b);
/* Same into the arena. */
const char *cel_type_str(const cel_type *t, dra_arena *a);
/* The checker's wording in compile errors (cel-go checker FormatCELType):
 * like cel_type_format but google.protobuf.Any, Timestamp and Duration
 * print as any, timestamp, duration, the null type as null and the error
 * type as !error!, e.g. "map(string, map(string, any))". */
void cel_type_format_checked(const cel_type *t, dra_buf *b);
const char *cel_type_str_checked(const cel_type *t, dra_arena *a);

/* Runtime type name of a *type value* (what `type(x)` returns and what `string(type(x))`
 * prints): "int", "list", "map", "type", "optional_type", "google.protobuf.Timestamp", ...
 * Parameters are not part of runtime type identity in cel-go. */
const char *cel_type_runtime_name(const cel_type *t);

/* Lookup of a type identifier as written in an expression ("int", "list",
 * "google.protobuf.Duration", "null_type", "dyn", ...);
 * NULL when the name is not a built-in type. */
const cel_type *cel_type_by_name(const char *name);

/* A type identifier usable as a value in an expression (`int`, `list`,
 * `google.protobuf.Duration`, and `optional_type` when the optional library
 * is enabled).  Unlike cel_type_by_name, `dyn` is not one (cel-go: unknown
 * variable).  NULL when `name` is not such an identifier. */
const cel_type *cel_type_ident(const char *name, bool optional_lib);

#endif
