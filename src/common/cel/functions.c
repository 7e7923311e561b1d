/* The overload registry: an index by function name over the static library
 * tables, runtime argument matching and cel-go's call cost model. */
#include "functions.h"
#include "ast.h"
#include "../base/utf8.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../base/sort.h"

const cel_type cel_t_list_a = {.kind = CEL_T_LIST, .params = {&cel_t_param_a}, .nparams = 1};
const cel_type cel_t_list_b = {.kind = CEL_T_LIST, .params = {&cel_t_param_b}, .nparams = 1};
const cel_type cel_t_list_list_a = {.kind = CEL_T_LIST, .params = {&cel_t_list_a}, .nparams = 1};
const cel_type cel_t_map_kv = {.kind = CEL_T_MAP, .params = {&cel_t_param_k, &cel_t_param_v}, .nparams = 2};
const cel_type cel_t_map_ab = {.kind = CEL_T_MAP, .params = {&cel_t_param_a, &cel_t_param_b}, .nparams = 2};
const cel_type cel_t_type_a = {.kind = CEL_T_TYPE, .params = {&cel_t_param_a}, .nparams = 1};
const cel_type cel_t_optional_a = {.kind = CEL_T_OPTIONAL, .params = {&cel_t_param_a}, .nparams = 1};
const cel_type cel_t_optional_b = {.kind = CEL_T_OPTIONAL, .params = {&cel_t_param_b}, .nparams = 1};
const cel_type cel_t_optional_dyn = {.kind = CEL_T_OPTIONAL, .params = {&cel_t_dyn}, .nparams = 1};
const cel_type cel_t_list_int = {.kind = CEL_T_LIST, .params = {&cel_t_int}, .nparams = 1};
const cel_type cel_t_list_uint = {.kind = CEL_T_LIST, .params = {&cel_t_uint}, .nparams = 1};
const cel_type cel_t_list_double = {.kind = CEL_T_LIST, .params = {&cel_t_double}, .nparams = 1};
const cel_type cel_t_list_quantity = {.kind = CEL_T_LIST, .params = {&cel_t_quantity}, .nparams = 1};

int64_t cel_value_size(const cel_value *v)
{
    switch (v->kind) {
    case CEL_STRING: return (int64_t)dra_utf8_len(v->v.s.ptr, v->v.s.len);
    case CEL_BYTES: return (int64_t)v->v.s.len;
    case CEL_LIST: return (int64_t)v->v.list->n;
    case CEL_MAP: return (int64_t)v->v.map->n;
    default: return 0;
    }
}

typedef struct fn_entry {
    const char *name;
    const cel_overload **ovs;
    size_t n;
} fn_entry;

struct cel_registry {
    unsigned libs;
    const cel_overload **all; /* sorted by function name, stable */
    size_t nall;
    fn_entry *fns;
    size_t nfns;
    const cel_overload **by_id; /* sorted by id */
};

typedef struct {
    const cel_overload *t;
    const size_t *n;
} table_ref;

/* The tables in declaration order: the overloads of one function are tried
 * in it (cel-go checker.go resolveOverload).  The standard library comes
 * first, as cel.StdLib does (so string(x) of a free x binds string_to_string
 * before ip_to_string); the others in the order the project has matched
 * upstream in (lists before ext.Strings: indexOf binds a list through 1.37,
 * checker.c declared_order turns that round for 1.38).  The order used to
 * be the tables' addresses, which the linker chose. */
static const table_ref decl_order[] = {
    {cel_lib_std, &cel_lib_std_n},           {cel_lib_time, &cel_lib_time_n},
    {cel_lib_encoders, &cel_lib_encoders_n}, {cel_lib_format, &cel_lib_format_n},
    {cel_lib_k8s, &cel_lib_k8s_n},           {cel_lib_lists, &cel_lib_lists_n},
    {cel_lib_math, &cel_lib_math_n},         {cel_lib_optional, &cel_lib_optional_n},
    {cel_lib_regex, &cel_lib_regex_n},       {cel_lib_sets, &cel_lib_sets_n},
    {cel_lib_strings, &cel_lib_strings_n},
};

/* o's place in decl_order: its table's rank, then its index there (found
 * by equality: no ordering of pointers into different arrays). */
static size_t decl_rank(const cel_overload *o)
{
    size_t base = 0;
    for (size_t t = 0; t < sizeof decl_order / sizeof *decl_order; t++) {
        const cel_overload *tab = decl_order[t].t;
        size_t n = *decl_order[t].n;
        for (size_t i = 0; i < n; i++)
            if (&tab[i] == o)
                return base + i;
        base += n;
    }
    return base;
}

static int cmp_by_name(const void *a, const void *b)
{
    const cel_overload *x = *(const cel_overload *const *)a, *y = *(const cel_overload *const *)b;
    int c = strcmp(x->function, y->function);
    if (c)
        return c;
    size_t rx = decl_rank(x), ry = decl_rank(y);
    return rx < ry ? -1 : rx > ry;
}

static int cmp_by_id(const void *a, const void *b)
{
    const cel_overload *x = *(const cel_overload *const *)a, *y = *(const cel_overload *const *)b;
    return strcmp(x->id, y->id);
}

cel_registry *cel_registry_new(unsigned libs)
{
    const table_ref tables[] = {
        {cel_lib_std, &cel_lib_std_n},         {cel_lib_time, &cel_lib_time_n},
        {cel_lib_strings, &cel_lib_strings_n}, {cel_lib_lists, &cel_lib_lists_n},
        {cel_lib_sets, &cel_lib_sets_n},       {cel_lib_math, &cel_lib_math_n},
        {cel_lib_regex, &cel_lib_regex_n},     {cel_lib_optional, &cel_lib_optional_n},
        {cel_lib_k8s, &cel_lib_k8s_n},         {cel_lib_encoders, &cel_lib_encoders_n},
        {cel_lib_format, &cel_lib_format_n},
    };
    cel_registry *r = dra_xcalloc(1, sizeof *r);
    r->libs = libs;
    size_t total = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        total += *tables[t].n;
    r->all = dra_xmalloc((total ? total : 1) * sizeof *r->all);
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (size_t i = 0; i < *tables[t].n; i++)
            if (tables[t].t[i].lib & libs)
                r->all[r->nall++] = &tables[t].t[i];
    dra_sort(r->all, r->nall, sizeof *r->all, cmp_by_name);
    r->by_id = dra_xmalloc((r->nall ? r->nall : 1) * sizeof *r->by_id);
    memcpy(r->by_id, r->all, r->nall * sizeof *r->by_id);
    dra_sort(r->by_id, r->nall, sizeof *r->by_id, cmp_by_id);
    r->fns = dra_xmalloc((r->nall ? r->nall : 1) * sizeof *r->fns);
    for (size_t i = 0; i < r->nall;) {
        size_t j = i;
        while (j < r->nall && strcmp(r->all[j]->function, r->all[i]->function) == 0)
            j++;
        r->fns[r->nfns++] = (fn_entry){r->all[i]->function, r->all + i, j - i};
        i = j;
    }
    return r;
}

void cel_registry_free(cel_registry *r)
{
    if (!r)
        return;
    free(r->all);
    free(r->by_id);
    free(r->fns);
    free(r);
}

unsigned cel_registry_libs(const cel_registry *r)
{
    return r->libs;
}

void cel_registry_foreach_function(const cel_registry *r, void (*fn)(const char *name, void *ud), void *ud)
{
    for (size_t i = 0; i < r->nfns; i++)
        fn(r->fns[i].name, ud);
}

const cel_overload *const *cel_registry_lookup(const cel_registry *r, const char *function, size_t *n)
{
    size_t lo = 0, hi = r->nfns;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(r->fns[mid].name, function);
        if (c == 0) {
            *n = r->fns[mid].n;
            return r->fns[mid].ovs;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *n = 0;
    return NULL;
}

bool cel_registry_has_function(const cel_registry *r, const char *function)
{
    size_t n;
    return cel_registry_lookup(r, function, &n) != NULL;
}

const cel_overload *cel_registry_by_id(const cel_registry *r, const char *id)
{
    size_t lo = 0, hi = r->nall;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(r->by_id[mid]->id, id);
        if (c == 0)
            return r->by_id[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

bool cel_value_is_of_type(const cel_value *v, const cel_type *t)
{
    switch (t->kind) {
    case CEL_T_DYN:
    case CEL_T_ANY:
    case CEL_T_PARAM: return true;
    case CEL_T_ERROR: return false;
    case CEL_T_NULL: return v->kind == CEL_NULL;
    case CEL_T_BOOL: return v->kind == CEL_BOOL;
    case CEL_T_INT: return v->kind == CEL_INT;
    case CEL_T_UINT: return v->kind == CEL_UINT;
    case CEL_T_DOUBLE: return v->kind == CEL_DOUBLE;
    case CEL_T_STRING: return v->kind == CEL_STRING;
    case CEL_T_BYTES: return v->kind == CEL_BYTES;
    case CEL_T_LIST: /* cel-go common/types/types.go defaultIsAssignableRuntimeType:
                      * the first element stands for the others */
        return v->kind == CEL_LIST &&
               (v->v.list->n == 0 || !t->nparams || cel_value_is_of_type(&cel_list_items(v->v.list)[0], t->params[0]));
    case CEL_T_MAP: return v->kind == CEL_MAP;
    case CEL_T_TYPE: return v->kind == CEL_TYPE;
    case CEL_T_OPTIONAL: return v->kind == CEL_OPTIONAL;
    case CEL_T_TIMESTAMP: return v->kind == CEL_TIMESTAMP;
    case CEL_T_DURATION: return v->kind == CEL_DURATION;
    case CEL_T_OPAQUE: {
        if (v->kind != CEL_OBJECT)
            return false;
        const cel_type *vt = cel_value_type(v); /* static types: pointer equality is the usual answer */
        return vt == t || strcmp(cel_type_runtime_name(vt), t->name) == 0;
    }
    case CEL_T_STRUCT: return v->kind == CEL_MAP; /* objects are maps at runtime */
    }
    return false;
}

bool cel_overload_accepts(const cel_overload *o, const cel_value *args, size_t nargs)
{
    if (o->nargs != nargs)
        return false;
    for (size_t i = 0; i < nargs; i++)
        if (!cel_value_is_of_type(&args[i], o->params[i]))
            return false;
    return true;
}

uint64_t cel_cost_size(const cel_value *v)
{
    switch (v->kind) {
    case CEL_STRING:
    case CEL_BYTES:
    case CEL_LIST:
    case CEL_MAP: return (uint64_t)cel_value_size(v);
    case CEL_OBJECT: /* apiserver v0.37.2 pkg/cel ip.go, cidr.go Size(): bytes of the address or prefix */
        if (v->v.obj->kind == CEL_OBJ_IP)
            return v->v.obj->u.ip.family == 4 ? 4 : 16;
        if (v->v.obj->kind == CEL_OBJ_CIDR)
            return ((uint64_t)v->v.obj->u.cidr.prefix + 7) / 8;
        return 1;
    default: return 1;
    }
}

static uint64_t ceil_scaled(uint64_t n, double f)
{
    return (uint64_t)ceil((double)n * f);
}

uint64_t cel_overload_cost(const cel_overload *o, const cel_value *args, size_t nargs, const cel_value *result)
{
    double f = o->factor > 0 ? o->factor : 0.1;
    switch (o->cost) {
    case CEL_COST_ONE: return 1;
    case CEL_COST_TRAVERSE0: return nargs > 0 ? ceil_scaled(cel_cost_size(&args[0]), f) : 1;
    case CEL_COST_TRAVERSE1: return nargs > 1 ? ceil_scaled(cel_cost_size(&args[1]), f) : 1;
    case CEL_COST_MIN_SIZE: {
        if (nargs < 2)
            return 1;
        uint64_t a = cel_cost_size(&args[0]), b = cel_cost_size(&args[1]);
        return ceil_scaled(a < b ? a : b, f);
    }
    case CEL_COST_SUM_SIZE: return nargs < 2 ? 1 : ceil_scaled(cel_cost_size(&args[0]) + cel_cost_size(&args[1]), f);
    case CEL_COST_PRODUCT:
        return nargs < 2 ? 1 : ceil_scaled(cel_cost_size(&args[0]), 0.1) * ceil_scaled(cel_cost_size(&args[1]), 0.1);
    case CEL_COST_MATCHES:
        return nargs < 2 ? 1
                         : ceil_scaled(1 + cel_cost_size(&args[0]), 0.1) * ceil_scaled(cel_cost_size(&args[1]), 0.25);
    case CEL_COST_SIZE1: return nargs < 2 ? 1 : cel_cost_size(&args[1]);
    case CEL_COST_CUSTOM: return o->runtime_cost ? o->runtime_cost(args, nargs, result) : 1;
    }
    return 1;
}

/* ---- Kubernetes call costs ------------------------------------------------ */

static bool name_in(const char *f, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f, names[i]))
            return true;
    return false;
}
/* clang-format off */
#define NAME_IN(f, ...) name_in(f, (const char *const[]){__VA_ARGS__}, \
                                sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))
/* clang-format on */

/* library/cost.go traversalCost: a data-tree walk, truncating (not rounding
 * up) string lengths in bytes times 0.1. */
static uint64_t traversal_cost(const cel_value *v)
{
    switch (v->kind) {
    case CEL_STRING:
    case CEL_BYTES: return (uint64_t)((double)v->v.s.len * 0.1);
    case CEL_LIST: {
        uint64_t c = 0;
        for (size_t i = 0; i < v->v.list->n; i++)
            c += traversal_cost(&cel_list_items(v->v.list)[i]);
        return c;
    }
    case CEL_MAP: {
        uint64_t c = 0;
        for (size_t i = 0; i < v->v.map->n; i++)
            c += traversal_cost(&v->v.map->keys[i]) + traversal_cost(&v->v.map->vals[i]);
        return c;
    }
    default: return 1;
    }
}

/* Rule numbers: one per group of functions library/cost.go treats alike. */
/* clang-format off */
enum {
    K8S_NONE = 0, K8S_TRAVERSAL, K8S_STRING1, K8S_STRING2, K8S_JOIN, K8S_FIND, K8S_IP, K8S_NOMINAL,
    K8S_CONTAINS_IP, K8S_CONTAINS_CIDR, K8S_VALIDATE, K8S_EQUALS,
};
/* clang-format on */

int cel_k8s_cost_rule(const char *f)
{
    if (NAME_IN(f, "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"))
        return K8S_TRAVERSAL;
    if (NAME_IN(f, "url", "lowerAscii", "upperAscii", "substring", "trim", "cidr", "isIP", "isCIDR", "quantity",
                "isQuantity", "semver", "isSemver"))
        return K8S_STRING1;
    if (!strcmp(f, "validate"))
        return K8S_VALIDATE;
    if (NAME_IN(f, "replace", "split", "ip.isCanonical"))
        return K8S_STRING2;
    if (!strcmp(f, "join"))
        return K8S_JOIN;
    if (NAME_IN(f, "find", "findAll"))
        return K8S_FIND;
    if (!strcmp(f, "ip"))
        return K8S_IP;
    if (NAME_IN(f, "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                "isLinkLocalUnicast", "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan",
                "isLessThan", "compareTo", "add", "sub"))
        return K8S_NOMINAL;
    if (!strcmp(f, "containsIP"))
        return K8S_CONTAINS_IP;
    if (!strcmp(f, "containsCIDR"))
        return K8S_CONTAINS_CIDR;
    if (!strcmp(f, CEL_OP_EQUALS))
        return K8S_EQUALS;
    return K8S_NONE;
}

bool cel_k8s_call_cost(int rule, const cel_overload *o, const cel_value *args, size_t nargs, const cel_value *result,
                       uint64_t *out)
{
    const double T = 0.1; /* common.StringTraversalCostFactor */
    switch (rule) {
    case K8S_TRAVERSAL:
        /* 1.36's library/cost.go has no rule for includes: its DRA
         * overload costs cel-go's default 1 */
        if (o->lib == CEL_LIB_DRA_INCLUDES)
            return false;
        *out = nargs > 0 ? traversal_cost(&args[0]) : 0;
        return true;
    case K8S_STRING1:
        if (nargs < 1)
            return false;
        *out = ceil_scaled(cel_cost_size(&args[0]), T);
        return true;
    case K8S_STRING2:
        if (nargs < 1)
            return false;
        *out = ceil_scaled(cel_cost_size(&args[0]), 2 * T);
        return true;
    case K8S_JOIN:
        if (nargs < 1)
            return false;
        *out = ceil_scaled(cel_cost_size(result), 2 * T);
        return true;
    case K8S_FIND:
        if (nargs < 2)
            return false;
        *out = ceil_scaled(1 + cel_cost_size(&args[0]), T) * ceil_scaled(cel_cost_size(&args[1]), 0.25);
        return true;
    case K8S_IP:
        if (nargs < 1)
            return false;
        *out = !strcmp(o->id, "cidr_ip") ? 1 : ceil_scaled(cel_cost_size(&args[0]), T);
        return true;
    case K8S_NOMINAL: *out = 1; return true;
    case K8S_VALIDATE: {
        /* the string against a regex of the format's MaxRegexSize */
        int rx = nargs >= 2 ? cel_format_max_regex_size(&args[0]) : -1;
        if (rx < 0)
            return false;
        *out = ceil_scaled(1 + cel_cost_size(&args[1]), T) * ceil_scaled((uint64_t)rx, 0.25);
        return true;
    }
    case K8S_CONTAINS_IP:
    case K8S_CONTAINS_CIDR: {
        if (nargs < 2)
            return false;
        uint64_t cidr = cel_cost_size(&args[0]), other = cel_cost_size(&args[1]);
        uint64_t c = ceil_scaled(cidr + cidr, T);
        if (rule == K8S_CONTAINS_CIDR) /* mask and compare the bits too */
            c += ceil_scaled(cidr, T) + 1;
        if (!strcmp(o->id, "cidr_contains_ip_string") || !strcmp(o->id, "cidr_contains_cidr_string"))
            c += ceil_scaled(other, T);
        *out = c;
        return true;
    }
    case K8S_EQUALS: /* == with a Kubernetes value on the left: 1, whatever its size */
        if (nargs != 2 || args[0].kind != CEL_OBJECT)
            return false;
        *out = 1;
        return true;
    default: return false;
    }
}

/* cel-go v0.29.2 common/stdlib/standard.go and ext/lists.go: the functions
 * declared with a singleton binding. */
bool cel_singleton_function(const char *f)
{
    static const char *const names[] = {CEL_OP_ADD,
                                        CEL_OP_SUBTRACT,
                                        CEL_OP_MULTIPLY,
                                        CEL_OP_DIVIDE,
                                        CEL_OP_MODULO,
                                        CEL_OP_NEGATE,
                                        CEL_OP_LESS,
                                        CEL_OP_LESS_EQUALS,
                                        CEL_OP_GREATER,
                                        CEL_OP_GREATER_EQUALS,
                                        CEL_OP_EQUALS,
                                        CEL_OP_NOT_EQUALS,
                                        CEL_OP_IN,
                                        CEL_OP_LOGICAL_NOT,
                                        CEL_OP_LOGICAL_AND,
                                        CEL_OP_LOGICAL_OR,
                                        CEL_OP_CONDITIONAL,
                                        CEL_OP_INDEX,
                                        "matches",
                                        "size",
                                        "dyn",
                                        "type",
                                        "sort",
                                        "@sortByAssociatedKeys"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(f, names[i]))
            return true;
    return false;
}

bool cel_nan_relation(const cel_call_ctx *cx, const cel_value *a, bool right_errs, cel_value *out)
{
    bool nan_left = a[0].kind == CEL_DOUBLE && isnan(a[0].v.d), nan_right = a[1].kind == CEL_DOUBLE && isnan(a[1].v.d);
    if ((cx->flags & CEL_EVAL_NAN_UNORDERED) && (nan_left || nan_right))
        *out = cel_bool(false);
    else if (nan_left || (right_errs && nan_right))
        *out = cel_error("NaN values cannot be ordered");
    else
        return false;
    return true;
}

/* What cel-go answers when no overload takes these arguments.  The
 * standard library binds most operators once, guarded by an operand trait
 * (common/stdlib/standard.go SingletonBinaryBinding; interpreter.go
 * evalBinary): an operand without the trait is "no such overload: _+_",
 * one with it, or a receiver, the type's own "no such overload"; ext.Lists
 * binds sort the same way (matches too, unless its pattern is a constant:
 * eval.c), and the orderings with the Comparer trait; contains,
 * startsWith, endsWith and equality run unguarded ("no such overload").  Every
 * other function, conversions and libraries included, is guarded by its
 * signature (common/decls/decls.go MaybeNoSuchOverload): "no such
 * overload: lowerAscii(int)", with the arguments' runtime type names. */
cel_value cel_no_overload_for(const cel_call_ctx *cx, const char *f, const cel_value *args, size_t nargs)
{
    enum {
        CMP = 1u << CEL_INT | 1u << CEL_UINT | 1u << CEL_DOUBLE | 1u << CEL_STRING | 1u << CEL_BYTES | 1u << CEL_BOOL |
              1u << CEL_DURATION | 1u << CEL_TIMESTAMP
    };
    static const char *const plain[] = {CEL_OP_EQUALS,      CEL_OP_NOT_EQUALS, CEL_OP_IN,    CEL_OP_INDEX,
                                        CEL_OP_LOGICAL_NOT, "contains",        "startsWith", "endsWith"};
    static const struct {
        const char *f;
        unsigned kinds;
    } traits[] = {
        {CEL_OP_ADD, 1u << CEL_INT | 1u << CEL_UINT | 1u << CEL_DOUBLE | 1u << CEL_STRING | 1u << CEL_BYTES |
                         1u << CEL_LIST | 1u << CEL_DURATION | 1u << CEL_TIMESTAMP},
        {CEL_OP_SUBTRACT, 1u << CEL_INT | 1u << CEL_UINT | 1u << CEL_DOUBLE | 1u << CEL_DURATION | 1u << CEL_TIMESTAMP},
        {CEL_OP_MULTIPLY, 1u << CEL_INT | 1u << CEL_UINT | 1u << CEL_DOUBLE},
        {CEL_OP_DIVIDE, 1u << CEL_INT | 1u << CEL_UINT | 1u << CEL_DOUBLE},
        {CEL_OP_MODULO, 1u << CEL_INT | 1u << CEL_UINT},
        {"size", 1u << CEL_STRING | 1u << CEL_BYTES | 1u << CEL_LIST | 1u << CEL_MAP},
        {"matches", 1u << CEL_STRING},
        /* the Negaters, a bool among them (stdlib/standard.go: a bool is
         * refused plainly, a duration negated: cel_eval_no_overload) */
        {CEL_OP_NEGATE, 1u << CEL_INT | 1u << CEL_DOUBLE | 1u << CEL_BOOL | 1u << CEL_DURATION},
        /* the Comparers (common/types: Compare) */
        {CEL_OP_LESS, CMP},
        {CEL_OP_LESS_EQUALS, CMP},
        {CEL_OP_GREATER, CMP},
        {CEL_OP_GREATER_EQUALS, CMP},
        {"sort", 1u << CEL_LIST},
        {"@sortByAssociatedKeys", 1u << CEL_LIST},
    };
    /* an operand without the trait that is a receiver (string, duration,
     * timestamp: common/types/types.go ReceiverType) answers for itself */
    const unsigned receivers = 1u << CEL_STRING | 1u << CEL_DURATION | 1u << CEL_TIMESTAMP;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (!strcmp(f, plain[i]))
            return cel_no_such_overload();
    for (size_t i = 0; i < sizeof traits / sizeof traits[0]; i++)
        if (!strcmp(f, traits[i].f)) {
            if (nargs && ((traits[i].kinds | receivers) >> args[0].kind & 1u)) {
                cel_value r;
                return traits[i].kinds == CMP && nargs == 2 && cel_nan_relation(cx, args, false, &r)
                           ? r
                           : cel_no_such_overload();
            }
            return cel_errorf_s(cx->scratch, "no such overload: %s", f);
        }
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = 0; i < nargs; i++)
        dra_buf_printf(&b, "%s%s", i ? ", " : "", cel_value_type_name(&args[i]));
    cel_value r = cel_errorf_s(cx->scratch, "no such overload: %s(%s)", f, dra_buf_str(&b));
    dra_buf_free(&b);
    return r;
}
