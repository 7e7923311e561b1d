/* CEL types: static singletons, constructors, equality and printing. */
#include "types.h"

#include <string.h>

#define SIMPLE(var, k) const cel_type var = {.kind = k}
SIMPLE(cel_t_dyn, CEL_T_DYN);
SIMPLE(cel_t_error, CEL_T_ERROR);
SIMPLE(cel_t_null, CEL_T_NULL);
SIMPLE(cel_t_bool, CEL_T_BOOL);
SIMPLE(cel_t_int, CEL_T_INT);
SIMPLE(cel_t_uint, CEL_T_UINT);
SIMPLE(cel_t_double, CEL_T_DOUBLE);
SIMPLE(cel_t_string, CEL_T_STRING);
SIMPLE(cel_t_bytes, CEL_T_BYTES);
SIMPLE(cel_t_type, CEL_T_TYPE);
SIMPLE(cel_t_timestamp, CEL_T_TIMESTAMP);
SIMPLE(cel_t_duration, CEL_T_DURATION);
SIMPLE(cel_t_any, CEL_T_ANY);
#undef SIMPLE

const cel_type cel_t_list_dyn = {.kind = CEL_T_LIST, .params = {&cel_t_dyn}, .nparams = 1};
const cel_type cel_t_map_dyn = {.kind = CEL_T_MAP, .params = {&cel_t_dyn, &cel_t_dyn}, .nparams = 2};
const cel_type cel_t_list_string = {.kind = CEL_T_LIST, .params = {&cel_t_string}, .nparams = 1};
const cel_type cel_t_map_string_dyn = {.kind = CEL_T_MAP, .params = {&cel_t_string, &cel_t_dyn}, .nparams = 2};

const cel_type cel_t_param_a = {.kind = CEL_T_PARAM, .name = "A"};
const cel_type cel_t_param_b = {.kind = CEL_T_PARAM, .name = "B"};
const cel_type cel_t_param_k = {.kind = CEL_T_PARAM, .name = "K"};
const cel_type cel_t_param_v = {.kind = CEL_T_PARAM, .name = "V"};

/* Opaque type names as the apiserver library declares them (pkg/cel/types.go and the library package). */
const cel_type cel_t_quantity = {.kind = CEL_T_OPAQUE, .name = "kubernetes.Quantity"};
const cel_type cel_t_semver = {.kind = CEL_T_OPAQUE, .name = "kubernetes.Semver"};
const cel_type cel_t_ip = {.kind = CEL_T_OPAQUE, .name = "net.IP"};
const cel_type cel_t_cidr = {.kind = CEL_T_OPAQUE, .name = "net.CIDR"};
const cel_type cel_t_url = {.kind = CEL_T_OPAQUE, .name = "kubernetes.URL"};
const cel_type cel_t_format = {.kind = CEL_T_OPAQUE, .name = "kubernetes.NamedFormat"};

static cel_type *type_new(dra_arena *a, cel_type_kind k)
{
    cel_type *t = dra_arena_zalloc(a, sizeof *t);
    t->kind = k;
    return t;
}

const cel_type *cel_type_list(dra_arena *a, const cel_type *elem)
{
    cel_type *t = type_new(a, CEL_T_LIST);
    t->params[0] = elem;
    t->nparams = 1;
    return t;
}

const cel_type *cel_type_map(dra_arena *a, const cel_type *key, const cel_type *value)
{
    cel_type *t = type_new(a, CEL_T_MAP);
    t->params[0] = key;
    t->params[1] = value;
    t->nparams = 2;
    return t;
}

const cel_type *cel_type_type(dra_arena *a, const cel_type *of)
{
    if (!of)
        return &cel_t_type;
    cel_type *t = type_new(a, CEL_T_TYPE);
    t->params[0] = of;
    t->nparams = 1;
    return t;
}

const cel_type *cel_type_optional(dra_arena *a, const cel_type *of)
{
    cel_type *t = type_new(a, CEL_T_OPTIONAL);
    t->params[0] = of;
    t->nparams = 1;
    return t;
}

const cel_type *cel_type_param(dra_arena *a, const char *name)
{
    cel_type *t = type_new(a, CEL_T_PARAM);
    t->name = dra_arena_strdup(a, name);
    return t;
}

const cel_type *cel_type_opaque(dra_arena *a, const char *name, const cel_type *const *params, unsigned nparams)
{
    cel_type *t = type_new(a, CEL_T_OPAQUE);
    t->name = dra_arena_strdup(a, name);
    if (nparams > CEL_TYPE_MAX_PARAMS)
        nparams = CEL_TYPE_MAX_PARAMS;
    for (unsigned i = 0; i < nparams; i++)
        t->params[i] = params[i];
    t->nparams = nparams;
    return t;
}

const cel_type *cel_type_struct(dra_arena *a, const char *name, const cel_field *fields, size_t nfields)
{
    cel_type *t = type_new(a, CEL_T_STRUCT);
    t->name = dra_arena_strdup(a, name);
    cel_field *f = dra_arena_alloc(a, (nfields ? nfields : 1) * sizeof *f);
    for (size_t i = 0; i < nfields; i++) {
        f[i].name = dra_arena_strdup(a, fields[i].name);
        f[i].type = fields[i].type;
    }
    t->fields = f;
    t->nfields = nfields;
    return t;
}

const cel_type *cel_type_field(const cel_type *t, const char *name)
{
    if (!t || t->kind != CEL_T_STRUCT)
        return NULL;
    for (size_t i = 0; i < t->nfields; i++)
        if (strcmp(t->fields[i].name, name) == 0)
            return t->fields[i].type;
    return NULL;
}

bool cel_type_is_dyn(const cel_type *t)
{
    return t && (t->kind == CEL_T_DYN || t->kind == CEL_T_ANY);
}

bool cel_type_equal(const cel_type *a, const cel_type *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind || a->nparams != b->nparams)
        return false;
    if ((a->name || b->name) && (!a->name || !b->name || strcmp(a->name, b->name) != 0))
        return false;
    if (a->kind == CEL_T_STRUCT)
        return true;
    for (unsigned i = 0; i < a->nparams; i++)
        if (!cel_type_equal(a->params[i], b->params[i]))
            return false;
    return true;
}

static const char *simple_name(cel_type_kind k)
{
    switch (k) {
    case CEL_T_DYN: return "dyn";
    case CEL_T_ERROR: return "*error*";
    case CEL_T_NULL: return "null_type";
    case CEL_T_BOOL: return "bool";
    case CEL_T_INT: return "int";
    case CEL_T_UINT: return "uint";
    case CEL_T_DOUBLE: return "double";
    case CEL_T_STRING: return "string";
    case CEL_T_BYTES: return "bytes";
    case CEL_T_LIST: return "list";
    case CEL_T_MAP: return "map";
    case CEL_T_TYPE: return "type";
    case CEL_T_OPTIONAL: return "optional_type";
    case CEL_T_TIMESTAMP: return "google.protobuf.Timestamp";
    case CEL_T_DURATION: return "google.protobuf.Duration";
    case CEL_T_ANY: return "google.protobuf.Any";
    default: return "";
    }
}

const char *cel_type_runtime_name(const cel_type *t)
{
    if (!t)
        return "dyn";
    if (t->name)
        return t->name;
    return simple_name(t->kind);
}

void cel_type_format(const cel_type *t, dra_buf *b)
{
    if (!t) {
        dra_buf_puts(b, "dyn");
        return;
    }
    dra_buf_puts(b, cel_type_runtime_name(t));
    if (t->kind == CEL_T_STRUCT || t->nparams == 0)
        return;
    dra_buf_putc(b, '(');
    for (unsigned i = 0; i < t->nparams; i++) {
        if (i)
            dra_buf_puts(b, ", ");
        cel_type_format(t->params[i], b);
    }
    dra_buf_putc(b, ')');
}

const char *cel_type_str(const cel_type *t, dra_arena *a)
{
    dra_buf b = DRA_BUF_INIT;
    cel_type_format(t, &b);
    char *s = dra_arena_strdup(a, dra_buf_str(&b));
    dra_buf_free(&b);
    return s;
}

void cel_type_format_checked(const cel_type *t, dra_buf *b)
{
    if (t) {
        const char *special = NULL;
        switch (t->kind) {
        case CEL_T_ANY: special = "any"; break;
        case CEL_T_DURATION: special = "duration"; break;
        case CEL_T_TIMESTAMP: special = "timestamp"; break;
        case CEL_T_NULL: special = "null"; break;
        case CEL_T_ERROR: special = "!error!"; break;
        default: break;
        }
        if (special) {
            dra_buf_puts(b, special);
            return;
        }
    }
    if (!t || t->kind == CEL_T_STRUCT || t->nparams == 0) {
        cel_type_format(t, b);
        return;
    }
    dra_buf_puts(b, cel_type_runtime_name(t));
    dra_buf_putc(b, '(');
    for (unsigned i = 0; i < t->nparams; i++) {
        if (i)
            dra_buf_puts(b, ", ");
        cel_type_format_checked(t->params[i], b);
    }
    dra_buf_putc(b, ')');
}

const char *cel_type_str_checked(const cel_type *t, dra_arena *a)
{
    dra_buf b = DRA_BUF_INIT;
    cel_type_format_checked(t, &b);
    char *s = dra_arena_strdup(a, dra_buf_str(&b));
    dra_buf_free(&b);
    return s;
}

const cel_type *cel_type_by_name(const char *name)
{
    static const struct {
        const char *name;
        const cel_type *t;
    } names[] = {
        {"int", &cel_t_int},
        {"uint", &cel_t_uint},
        {"double", &cel_t_double},
        {"bool", &cel_t_bool},
        {"string", &cel_t_string},
        {"bytes", &cel_t_bytes},
        {"null_type", &cel_t_null},
        {"type", &cel_t_type},
        {"dyn", &cel_t_dyn},
        {"list", &cel_t_list_dyn},
        {"map", &cel_t_map_dyn},
        {"google.protobuf.Timestamp", &cel_t_timestamp},
        {"google.protobuf.Duration", &cel_t_duration},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i].name, name) == 0)
            return names[i].t;
    return NULL;
}

static const cel_type t_optional_ident = {.kind = CEL_T_OPTIONAL, .params = {&cel_t_dyn}, .nparams = 1};

const cel_type *cel_type_ident(const char *name, bool optional_lib)
{
    /* cel-go's standard environment declares the type identifiers of
     * common/stdlib (no `dyn`: it denotes nothing at runtime), and the
     * optional library adds optional_type. */
    if (strcmp(name, "dyn") == 0)
        return NULL;
    if (strcmp(name, "optional_type") == 0)
        return optional_lib ? &t_optional_ident : NULL;
    return cel_type_by_name(name);
}
