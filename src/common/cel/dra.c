/* DRA selector environment and compiled device representation. */
#include "dra.h"
#include "../base/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions.h"
#include "parser.h"
#include "program.h"
#include "dra_device.h"

cel_env *cel_dra_env_new(const cel_dra_options *opts)
{
    /* StoredExpressions take every versioned declaration of `device`, the
     * last (deviceTypeV136ConsumableCapacityListTypeAttributes) winning;
     * NewExpressions the one the gates select (cel/compile.go newCompiler). */
    bool stored = !(opts && opts->new_expressions);
    bool v136 = opts && opts->release == DRA_RELEASE_1_36;
    bool v138 = opts && opts->release >= DRA_RELEASE_1_38;
    /* 1.36 types attribute values by the gate in both environments
     * (v0.36.3 cel/compile.go newCompiler: attributeType) */
    bool list_types = (stored && !v136) || (opts && opts->list_type_attributes);
    bool multi = stored || opts->consumable_capacity;
    /* includes(): k8s Lists v1 (list_includes_dyn_dyn), always in
     * StoredExpressions, in NewExpressions behind DRAListTypeAttributes
     * until 1.38, always from 1.38 on; 1.36 declares its own
     * (dra_includes_dyn_dyn) instead. */
    unsigned includes = v136 ? CEL_LIB_DRA_INCLUDES : CEL_LIB_K8S_INCLUDES;
    cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES | (list_types || stored || v138 ? includes : 0u) |
                               (v136 ? CEL_LIB_INT_TO_DURATION : 0u));
    cel_env_set_options(env, CEL_OPT_HOMOGENEOUS_LITERALS | CEL_OPT_VALIDATE_LITERALS |
                                 (v138 ? CEL_OPT_CEL_GO_033 : 0u) | (v136 ? CEL_OPT_CEL_GO_026 : 0u));
    const cel_type *value = list_types ? &cel_t_dyn : &cel_t_any;
    cel_env_mark_dra(env, value);
    if (v136 && !list_types)
        cel_env_dra_refuse_lists(env); /* getAttributeValue: lists only with the gate */
    dra_arena *a = cel_env_arena(env);
    const cel_type *attrs = cel_type_map(a, &cel_t_string, cel_type_map(a, &cel_t_string, value));
    const cel_type *caps = cel_type_map(a, &cel_t_string, cel_type_map(a, &cel_t_string, &cel_t_quantity));
    cel_field fields[] = {
        {"driver", &cel_t_string},
        {"attributes", attrs},
        {"capacity", caps},
        {"allowMultipleAllocations", &cel_t_bool},
    };
    cel_env_declare(env, "device", cel_type_struct(a, "kubernetes.DRADevice", fields, multi ? 4 : 3));
    return env;
}

static dra_err *compile(cel_env *env, const char *expr, size_t len, cel_program **out)
{
    dra_err *e = cel_compile(env, expr, len, NULL, out);
    if (e) {
        size_t n = 0;
        char *shown = cel_errors_display_n(e, expr, len, &n);
        dra_buf b = DRA_BUF_INIT;
        dra_buf_puts(&b, "compilation failed: ");
        dra_buf_append(&b, shown, n); /* NUL bytes of the expression echoed as they are */
        dra_err *r = dra_err_newn(DRA_EXIT_INPUT, dra_buf_str(&b), b.len);
        dra_buf_free(&b);
        free(shown);
        dra_err_free(e);
        return r;
    }
    return NULL;
}

/* After the result type, as CompileCELExpression (dynamic-resource-allocation
 * cel/compile.go) makes the program: "program instantiation failed: ..."
 * (code: DRA_EXIT_RUNTIME for upstream's ErrorTypeInternal, see
 * cel_dra_validate_hook). */
static dra_err *instantiate(cel_program **out, int code)
{
    char *rx = cel_program_instantiation_error(*out);
    if (!rx)
        return NULL;
    dra_err *r = dra_err_new(code, "program instantiation failed: %s", rx);
    free(rx);
    cel_program_free(*out);
    *out = NULL;
    return r;
}

/* A derived attribute's element type (isAllowedDerivedAttributeElementType):
 * exactly bool, int, string, any, dyn or kubernetes.Semver. */
static bool derived_scalar(const cel_type *t)
{
    switch (t->kind) {
    case CEL_T_BOOL:
    case CEL_T_INT:
    case CEL_T_STRING:
    case CEL_T_ANY:
    case CEL_T_DYN: return true;
    case CEL_T_OPAQUE: return cel_type_equal(t, &cel_t_semver);
    default: return false;
    }
}

/* validateOutputType (dynamic-resource-allocation cel/compile.go): a
 * selector is bool or exactly the attribute value type; a derived attribute
 * a scalar, or a list of one in the stored set or with
 * DRAListTypeAttributes, exactly when the environment declares the
 * attribute value as dyn (cel_dra_env_new). */
static dra_err *output_type_error(cel_env *env, const cel_program *p, bool derived)
{
    const cel_type *t = cel_program_result_type(p);
    if (!derived) {
        if (t->kind == CEL_T_BOOL || t->kind == cel_env_dra_unknown(env)->kind)
            return NULL;
        return dra_err_new(DRA_EXIT_INPUT, "must evaluate to bool or the unknown type, not %s",
                           cel_program_result_type_str(p));
    }
    bool lists = cel_env_dra_unknown(env)->kind == CEL_T_DYN;
    if (derived_scalar(t) || (lists && t->kind == CEL_T_LIST && t->nparams == 1 && derived_scalar(t->params[0])))
        return NULL;
    return dra_err_new(DRA_EXIT_INPUT,
                       "must evaluate to a primitive scalar (string, integer, boolean, semver)%s, not %s",
                       lists ? " or a list of these scalars" : "", cel_program_result_type_str(p));
}

/* CompileCELExpression's steps: compile, check the result type, make the
 * program (its error with code rx_code). */
static dra_err *compile_checked(cel_env *env, const char *expr, size_t len, bool derived, int rx_code,
                                cel_program **out)
{
    dra_err *e = compile(env, expr, len, out);
    if (!e)
        e = output_type_error(env, *out, derived);
    if (e) {
        cel_program_free(*out);
        *out = NULL;
        return e;
    }
    return instantiate(out, rx_code);
}

dra_err *cel_dra_compile_value(cel_env *env, const char *expr, size_t len, cel_program **out)
{
    return compile_checked(env, expr, len, true, DRA_EXIT_INPUT, out);
}

dra_err *cel_dra_compile(cel_env *env, const char *expr, size_t len, cel_program **out)
{
    dra_err *e = compile_checked(env, expr, len, false, DRA_EXIT_INPUT, out);
    if (e)
        return e;
    dra_plan_build(*out);
    return NULL;
}

static const char dra_hint[] = ". consider using CEL optional chaining (.? followed by orValue()) or guarding the "
                               "check with has() for optional fields";

const char *cel_dra_runtime_hint(dra_release rel, const char *msg)
{
    if (rel && rel < DRA_RELEASE_1_37)
        return "";
    return strstr(msg, "no such key:") ? dra_hint : "";
}

cel_dra_convert cel_dra_convert_of(const cel_dra_options *o)
{
    dra_release rel = o->release ? o->release : DRA_RELEASE_DEFAULT;
    return (cel_dra_convert){.no_lists = rel < DRA_RELEASE_1_37 && !o->list_type_attributes,
                             .apart = rel >= DRA_RELEASE_1_38,
                             .quantity_rules = dra_quantity_rules_of(rel)};
}

/* Both validation hooks: the program instantiation error is upstream's
 * ErrorTypeInternal, which validation reports as "Internal error". */
static dra_err *validate_compile(void *ctx, const char *expr, size_t len, bool derived, uint64_t *cost)
{
    cel_program *p = NULL;
    *cost = 0;
    dra_err *e = compile_checked(ctx, expr, len, derived, DRA_EXIT_RUNTIME, &p);
    if (e)
        return e;
    uint64_t min = 0, max = 0;
    cel_program_estimated_cost(p, &min, &max);
    *cost = max;
    cel_program_free(p);
    return NULL;
}

dra_err *cel_dra_validate_hook(void *ctx, const char *expr, size_t len, uint64_t *cost)
{
    return validate_compile(ctx, expr, len, false, cost);
}

/* ---- derived attributes (KEP-6080, DRADerivedAttributes) ---- */

dra_err *cel_dra_validate_derived_hook(void *ctx, const char *expr, size_t len, uint64_t *cost)
{
    return validate_compile(ctx, expr, len, true, cost);
}

static const char *value_kind_key(const cel_value *v, bool list)
{
    switch (v->kind) {
    case CEL_BOOL: return list ? "bools" : "bool";
    case CEL_INT: return list ? "ints" : "int";
    case CEL_STRING: return list ? "strings" : "string";
    case CEL_OBJECT:
        if (v->v.obj->kind == CEL_OBJ_SEMVER)
            return list ? "versions" : "version";
        return NULL;
    default: return NULL;
    }
}

static json_t *value_json(const cel_value *v)
{
    switch (v->kind) {
    case CEL_BOOL: return json_boolean(v->v.b);
    case CEL_INT: return json_integer(v->v.i);
    case CEL_STRING: return json_stringn(v->v.s.ptr ? v->v.s.ptr : "", v->v.s.len);
    case CEL_OBJECT: {
        char buf[512];
        return json_string(dra_semver_format(&v->v.obj->u.semver, buf, sizeof buf));
    }
    default: return NULL;
    }
}

/* What Go's %T says of the ref.Val's Value() cel-go gives for v, as
 * valToDeviceAttribute prints it (literal lists and maps). */
static const char *go_value_type_name(const cel_value *v)
{
    switch (v->kind) {
    case CEL_NULL: return "structpb.NullValue";
    case CEL_BOOL: return "bool";
    case CEL_INT: return "int64";
    case CEL_UINT: return "uint64";
    case CEL_DOUBLE: return "float64";
    case CEL_STRING: return "string";
    case CEL_BYTES: return "[]uint8";
    case CEL_LIST: return "[]ref.Val";
    case CEL_MAP: return "map[ref.Val]ref.Val";
    case CEL_TYPE: return "*types.Type";
    case CEL_OPTIONAL: return "*types.Optional";
    case CEL_TIMESTAMP: return "time.Time";
    case CEL_DURATION: return "time.Duration";
    case CEL_OBJECT:
        switch (v->v.obj->kind) {
        case CEL_OBJ_QUANTITY: return "*resource.Quantity";
        case CEL_OBJ_SEMVER: return "semver.Version";
        case CEL_OBJ_IP: return "netip.Addr";
        case CEL_OBJ_CIDR: return "netip.Prefix";
        case CEL_OBJ_URL: return "*url.URL";
        default: return "*cel.Format";
        }
    default: return "<nil>";
    }
}

/* k8s.io/dynamic-resource-allocation v0.37.2 cel/compile.go
 * valToDeviceAttribute: a scalar, or a list whose elements all have the
 * first one's type; an empty list is an empty list of strings. */
dra_err *cel_dra_eval_attribute(cel_program *p, const cel_dra_device *d, json_t **attr)
{
    *attr = NULL;
    if (cel_dra_device_error_in(p, d))
        return dra_err_new(DRA_EXIT_RUNTIME, "%s", cel_dra_device_error_in(p, d));
    cel_activation act;
    act.n = 1;
    act.names[0] = "device";
    act.values[0] = dra_dev_full(d)->value;
    cel_eval_options eo = {.cost_limit = CEL_DRA_MAX_COST};
    cel_value r = cel_eval(p, &act, &eo);
    if (r.kind == CEL_ERROR)
        return dra_err_new(DRA_EXIT_RUNTIME, "%s", r.v.err);
    const char *key = NULL;
    json_t *val = NULL;
    if (r.kind == CEL_LIST) {
        const cel_list *l = r.v.list;
        const cel_value *items = cel_list_items(l);
        if (l->n == 0) {
            key = "strings";
            val = json_array();
        } else if (!(key = value_kind_key(&items[0], true))) {
            return dra_err_new(DRA_EXIT_RUNTIME, "unsupported list element type: %s", go_value_type_name(&items[0]));
        } else {
            static const char *const elem[][2] = {
                {"bools", "bool"}, {"ints", "int"}, {"strings", "string"}, {"versions", "semver"}};
            const char *want = "";
            for (size_t k = 0; k < sizeof elem / sizeof *elem; k++)
                if (strcmp(elem[k][0], key) == 0)
                    want = elem[k][1];
            val = json_array();
            for (size_t i = 0; i < l->n; i++) {
                const char *ki = value_kind_key(&items[i], true);
                if (!ki || strcmp(ki, key) != 0) {
                    json_decref(val);
                    return dra_err_new(DRA_EXIT_RUNTIME, "expected list element at index %zu to be %s, got %s", i, want,
                                       go_value_type_name(&items[i]));
                }
                json_array_append_new(val, value_json(&items[i]));
            }
        }
    } else if ((key = value_kind_key(&r, false))) {
        val = value_json(&r);
    } else {
        return dra_err_new(DRA_EXIT_RUNTIME, "unsupported CEL return type: %s", go_value_type_name(&r));
    }
    *attr = json_object();
    json_object_set_new(*attr, key, val);
    return NULL;
}
