/* DRA selector environment and compiled device representation. */
#include "dra.h"

#include <stdlib.h>
#include <string.h>

#include "parser.h"

void cel_env_mark_dra(cel_env *env); /* cel.c */

struct cel_dra_device {
    dra_arena arena;
    cel_value value;       /* the `device` map */
    const char *error;     /* conversion error shared by every match, or NULL */
};

cel_env *cel_dra_env_new(const cel_dra_options *opts)
{
    cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES);
    cel_env_set_options(env, CEL_OPT_HOMOGENEOUS_LITERALS | CEL_OPT_VALIDATE_LITERALS);
    cel_env_mark_dra(env);
    dra_arena *a = cel_env_arena(env);
    const cel_type *attrs = cel_type_map(a, &cel_t_string, cel_type_map(a, &cel_t_string, &cel_t_any));
    const cel_type *caps = cel_type_map(a, &cel_t_string, cel_type_map(a, &cel_t_string, &cel_t_quantity));
    cel_field fields[] = {
        {"driver", &cel_t_string},
        {"attributes", attrs},
        {"capacity", caps},
        {"allowMultipleAllocations", &cel_t_bool},
    };
    size_t nf = (opts && opts->consumable_capacity) ? 4 : 3;
    cel_env_declare(env, "device", cel_type_struct(a, "kubernetes.DRADevice", fields, nf));
    return env;
}

dra_err *cel_dra_compile(cel_env *env, const char *expr, size_t len, cel_program **out)
{
    dra_err *e = cel_compile(env, expr, len, NULL, out);
    if (e) {
        char *shown = cel_errors_display(e, expr, len);
        dra_err *r = dra_err_new(DRA_EXIT_INPUT, "compilation failed: %s", shown ? shown : e->msg);
        free(shown);
        dra_err_free(e);
        return r;
    }
    const cel_type *t = cel_program_result_type(*out);
    if (t->kind != CEL_T_BOOL && t->kind != CEL_T_ANY) {
        dra_err *r = dra_err_new(DRA_EXIT_INPUT, "must evaluate to bool or the unknown type, not %s",
                                 cel_program_result_type_str(*out));
        cel_program_free(*out);
        *out = NULL;
        return r;
    }
    return NULL;
}

/* ---- device conversion ---- */

typedef struct entry {
    const char *domain;
    size_t dlen;
    cel_value key, val;
} entry;

static cel_value convert_attr(dra_arena *a, const char *name, json_t *attr, const char **err)
{
    static const char *const list_fields[] = {"ints", "bools", "strings", "versions"};
    if (json_is_object(attr)) {
        for (size_t f = 0; f < 4; f++) {
            json_t *arr = json_object_get(attr, list_fields[f]);
            if (!json_is_array(arr))
                continue;
            size_t n = json_array_size(arr);
            cel_value *items = dra_arena_alloc(a, (n ? n : 1) * sizeof *items);
            for (size_t i = 0; i < n; i++) {
                json_t *x = json_array_get(arr, i);
                if (f == 3) {
                    cel_object *o = dra_arena_zalloc(a, sizeof *o);
                    o->kind = CEL_OBJ_SEMVER;
                    const char *s = json_string_value(x);
                    dra_err *e = dra_semver_parse(s ? s : "", s ? strlen(s) : 0, &o->u.semver);
                    if (e) {
                        if (!*err)
                            *err = dra_arena_printf(a, "attribute %s: parse semantic version: %s", name, e->msg);
                        dra_err_free(e);
                    }
                    items[i] = cel_objval(o);
                } else {
                    items[i] = cel_value_from_json(a, x);
                }
            }
            return cel_list_copy_a(a, items, n);
        }
        json_t *v;
        if ((v = json_object_get(attr, "int")) && json_is_integer(v))
            return cel_int((int64_t)json_integer_value(v));
        if ((v = json_object_get(attr, "bool")) && json_is_boolean(v))
            return cel_bool(json_is_true(v));
        if ((v = json_object_get(attr, "string")) && json_is_string(v))
            return cel_string_copy_a(a, json_string_value(v), json_string_length(v));
        if ((v = json_object_get(attr, "version")) && json_is_string(v)) {
            cel_object *o = dra_arena_zalloc(a, sizeof *o);
            o->kind = CEL_OBJ_SEMVER;
            dra_err *e = dra_semver_parse(json_string_value(v), json_string_length(v), &o->u.semver);
            if (e) {
                if (!*err)
                    *err = dra_arena_printf(a, "attribute %s: parse semantic version: %s", name, e->msg);
                dra_err_free(e);
            }
            return cel_objval(o);
        }
    }
    if (!*err)
        *err = dra_arena_printf(a, "attribute %s: unsupported attribute value", name);
    return cel_null();
}

/* Group entries by domain into map(string, map(string, V)) with the
 * default-empty behaviour on the outer map. */
static cel_value group(dra_arena *a, entry *ents, size_t n)
{
    cel_value *okeys = dra_arena_alloc(a, (n ? n : 1) * sizeof *okeys);
    cel_value *ovals = dra_arena_alloc(a, (n ? n : 1) * sizeof *ovals);
    cel_value *ik = dra_arena_alloc(a, (n ? n : 1) * sizeof *ik);
    cel_value *iv = dra_arena_alloc(a, (n ? n : 1) * sizeof *iv);
    bool *done = dra_arena_zalloc(a, n ? n : 1);
    size_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        size_t k = 0;
        for (size_t j = i; j < n; j++) {
            if (done[j] || ents[j].dlen != ents[i].dlen || memcmp(ents[j].domain, ents[i].domain, ents[i].dlen) != 0)
                continue;
            done[j] = true;
            ik[k] = ents[j].key;
            iv[k] = ents[j].val;
            k++;
        }
        okeys[nd] = cel_string_copy_a(a, ents[i].domain, ents[i].dlen);
        ovals[nd] = cel_map_build_a(a, ik, iv, k, 0);
        nd++;
    }
    return cel_map_build_a(a, okeys, ovals, nd, CEL_MAP_DEFAULT_EMPTY);
}

static entry *collect(dra_arena *a, json_t *obj, const char *driver, size_t *n, bool is_attr, const char **err)
{
    size_t cnt = json_is_object(obj) ? json_object_size(obj) : 0;
    entry *ents = dra_arena_alloc(a, (cnt ? cnt : 1) * sizeof *ents);
    size_t k = 0;
    const char *name;
    json_t *v;
    if (cnt) {
        json_object_foreach(obj, name, v) {
            const char *slash = strchr(name, '/');
            entry *e = &ents[k++];
            if (slash) {
                e->domain = name;
                e->dlen = (size_t)(slash - name);
                e->key = cel_string_copy_a(a, slash + 1, strlen(slash + 1));
            } else {
                e->domain = driver;
                e->dlen = strlen(driver);
                e->key = cel_string_copy_a(a, name, strlen(name));
            }
            if (is_attr) {
                e->val = convert_attr(a, name, v, err);
            } else {
                cel_object *o = dra_arena_zalloc(a, sizeof *o);
                o->kind = CEL_OBJ_QUANTITY;
                json_t *qv = json_object_get(v, "value");
                const char *s = json_is_string(qv) ? json_string_value(qv) : "0";
                dra_err *qe = dra_quantity_parse(s, &o->u.quantity);
                if (qe) {
                    if (!*err)
                        *err = dra_arena_printf(a, "capacity %s: %s", name, qe->msg);
                    dra_err_free(qe);
                }
                e->val = cel_objval(o);
            }
        }
    }
    *n = k;
    return ents;
}

cel_dra_device *cel_dra_device_new(const json_t *device, const char *driver)
{
    cel_dra_device *d = dra_xcalloc(1, sizeof *d);
    dra_arena *a = &d->arena;
    json_t *dev = (json_t *)device;
    if (!driver)
        driver = "";
    size_t na, nc;
    entry *attrs = collect(a, json_object_get(dev, "attributes"), driver, &na, true, &d->error);
    entry *caps = collect(a, json_object_get(dev, "capacity"), driver, &nc, false, &d->error);
    cel_value keys[4] = {
        cel_string("driver", 6), cel_string("attributes", 10), cel_string("capacity", 8),
        cel_string("allowMultipleAllocations", 24),
    };
    cel_value vals[4] = {
        cel_string_copy_a(a, driver, strlen(driver)),
        group(a, attrs, na),
        group(a, caps, nc),
        cel_bool(json_is_true(json_object_get(dev, "allowMultipleAllocations"))),
    };
    d->value = cel_map_build_a(a, keys, vals, 4, 0);
    return d;
}

void cel_dra_device_free(cel_dra_device *d)
{
    if (!d)
        return;
    dra_arena_free(&d->arena);
    free(d);
}

cel_value cel_dra_device_value(const cel_dra_device *d) { return d->value; }

static const char dra_hint[] =
    ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields";

const char *cel_dra_runtime_hint(const char *msg)
{
    return strstr(msg, "no such key:") ? dra_hint : "";
}

dra_err *cel_dra_match(cel_program *p, const cel_dra_device *d, bool *matched)
{
    *matched = false;
    if (d->error)
        return dra_err_new(DRA_EXIT_RUNTIME, "%s", d->error);
    cel_activation act;
    act.n = 1;
    act.names[0] = "device";
    act.values[0] = d->value;
    cel_eval_options eo = {.cost_limit = CEL_DRA_MAX_COST};
    cel_value r = cel_eval(p, &act, &eo);
    if (r.kind == CEL_BOOL) {
        *matched = r.v.b;
        return NULL;
    }
    if (r.kind == CEL_ERROR)
        return dra_err_new(DRA_EXIT_RUNTIME, "%s", r.v.err);
    const char *tn = cel_value_type_name(&r);
    return dra_err_new(DRA_EXIT_RUNTIME,
                       "CEL result of type %s could not be converted to bool: type conversion error from '%s' to 'bool'",
                       tn, tn);
}

dra_err *cel_dra_validate_hook(void *ctx, const char *expr, size_t len, uint64_t *cost)
{
    cel_program *p = NULL;
    *cost = 0;
    dra_err *e = cel_dra_compile(ctx, expr, len, &p);
    if (e)
        return e;
    uint64_t min = 0, max = 0;
    cel_program_estimated_cost(p, &min, &max);
    *cost = max;
    cel_program_free(p);
    return NULL;
}
