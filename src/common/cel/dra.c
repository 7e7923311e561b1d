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
     * until 1.38, always from 1.38 on. */
    cel_env *env = cel_env_new(CEL_LIBS_KUBERNETES | (list_types || stored || v138 ? CEL_LIB_K8S_INCLUDES : 0u));
    cel_env_set_options(env,
                        CEL_OPT_HOMOGENEOUS_LITERALS | CEL_OPT_VALIDATE_LITERALS | (v138 ? CEL_OPT_CEL_GO_033 : 0u));
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

/* ---- device conversion ---- */

typedef struct entry {
    const char *domain;
    size_t dlen;
    cel_value key, val;
} entry;

/* A version attribute; the first conversion error is kept in *err. */
static cel_value semver_value(dra_arena *a, const char *name, const char *s, size_t len, const char **err)
{
    cel_object *o = dra_arena_zalloc(a, sizeof *o);
    o->kind = CEL_OBJ_SEMVER;
    dra_err *e = dra_semver_parse(s, len, &o->u.semver);
    if (e) {
        if (!*err)
            *err = dra_arena_printf(a, "attribute %s: parse semantic version: %s", name, e->msg);
        dra_err_free(e);
    }
    return cel_objval(o);
}

/* lists: whether list values convert; without, a list is an unsupported
 * value, as 1.36 converts with DRAListTypeAttributes off.  *list_err (may
 * be NULL) names the first list attribute for an environment that refuses
 * lists (cel_env_dra_lists_refused). */
static cel_value convert_attr(dra_arena *a, const char *name, json_t *attr, bool lists, const char **err,
                              const char **list_err)
{
    static const char *const list_fields[] = {"ints", "bools", "strings", "versions"};
    if (json_is_object(attr)) {
        for (size_t f = 0; lists && f < 4; f++) {
            json_t *arr = json_object_get(attr, list_fields[f]);
            if (!json_is_array(arr))
                continue;
            if (list_err && !*list_err)
                *list_err = dra_arena_printf(a, "attribute %s: unsupported attribute value", name);
            size_t n = json_array_size(arr);
            cel_value *items = dra_arena_alloc(a, (n ? n : 1) * sizeof *items);
            for (size_t i = 0; i < n; i++) {
                json_t *x = json_array_get(arr, i);
                if (f == 3) {
                    const char *s = json_string_value(x);
                    items[i] = semver_value(a, name, s ? s : "", s ? strlen(s) : 0, err);
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
        if ((v = json_object_get(attr, "version")) && json_is_string(v))
            return semver_value(a, name, json_string_value(v), json_string_length(v), err);
    }
    if (!*err)
        *err = dra_arena_printf(a, "attribute %s: unsupported attribute value", name);
    return cel_null();
}

/* 1.38 converts each attribute apart (api/conversion.go attrValue): one
 * without a usable value (none, an empty list, an unparseable version)
 * becomes an error that only a selector reading it meets
 * (cel/compile.go nameToAttributes.Find, v0.38.0-beta.0); id is the name
 * without its domain, as the selector looks it up. */
static cel_value convert_attr_apart(dra_arena *a, const char *name, const char *id, json_t *attr)
{
    const char *err = NULL;
    cel_value v = convert_attr(a, name, attr, true, &err, NULL);
    if (!err && !(v.kind == CEL_LIST && v.v.list->n == 0))
        return v;
    return cel_error(
        dra_arena_printf(a, "attribute %s: value is invalid or its type is not supported by this version", id));
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

static entry *collect(dra_arena *a, json_t *obj, const char *driver, size_t *n, bool is_attr,
                      const cel_dra_convert *how, const char **err, const char **list_err)
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
                e->val = how->apart ? convert_attr_apart(a, name, slash ? slash + 1 : name, v)
                                    : convert_attr(a, name, v, !how->no_lists, err, list_err);
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

/* ---- one allocation per device ----------------------------------------------
 * Conversion allocates from a scratch arena: the device struct first, then
 * its strings, lists, maps, objects and lookup tables.  When all of that
 * sits in the arena's first block (every device of normal size: a few KiB),
 * those bytes are copied into one allocation of exactly that size and every
 * pointer into the old block is moved by the distance between the two;
 * pointers elsewhere (static strings, the shared empty map) stay.  Moving
 * is idempotent (a moved pointer no longer points into the old block), so
 * values reached twice (the lookup tables share the maps' values) are
 * safe. */

typedef struct reloc {
    uintptr_t lo, hi; /* the scratch block's bytes in use */
    uintptr_t to;     /* the copy's start */
} reloc;

static const void *moved(const reloc *r, const void *p)
{
    uintptr_t u = (uintptr_t)p;
    return u >= r->lo && u < r->hi ? (const void *)(r->to + (u - r->lo)) : p;
}

static void reloc_value(const reloc *r, cel_value *v);

static void reloc_values(const reloc *r, const cel_value *vals, size_t n)
{
    for (size_t i = 0; i < n; i++)
        reloc_value(r, (cel_value *)&vals[i]);
}

static void reloc_value(const reloc *r, cel_value *v)
{
    switch (v->kind) {
    case CEL_STRING:
    case CEL_BYTES: v->v.s.ptr = moved(r, v->v.s.ptr); break;
    case CEL_ERROR: v->v.err = moved(r, v->v.err); break;
    case CEL_OBJECT: v->v.obj = moved(r, v->v.obj); break; /* quantities and semvers hold no pointers */
    case CEL_OPTIONAL:
        if (v->v.opt) {
            v->v.opt = moved(r, v->v.opt);
            reloc_value(r, (cel_value *)v->v.opt);
        }
        break;
    case CEL_LIST: {
        cel_list *l = (cel_list *)(v->v.list = moved(r, v->v.list));
        if (l == &cel_empty_list)
            break;
        l->items_ = moved(r, l->items_);
        reloc_values(r, l->items_, l->n);
        break;
    }
    case CEL_MAP: {
        cel_map *m = (cel_map *)(v->v.map = moved(r, v->v.map));
        if (m == &cel_empty_map)
            break;
        m->keys = moved(r, m->keys);
        m->vals = moved(r, m->vals);
        m->index = moved(r, m->index);
        reloc_values(r, m->keys, m->n);
        reloc_values(r, m->vals, m->n);
        break;
    }
    default: break;
    }
}

static void reloc_table(const reloc *r, dev_table *t)
{
    if (!t->n)
        return;
    t->slots = (dev_entry *)moved(r, t->slots);
    for (size_t i = 0; i <= t->mask; i++) {
        if (!t->slots[i].key)
            continue;
        t->slots[i].key = moved(r, t->slots[i].key);
        reloc_value(r, &t->slots[i].val);
    }
}

/* d is the first allocation of a, a fresh or reset arena.  The arena is
 * left reset for the next device, or empty when the device keeps it. */
static dev_full *device_compact(dev_full *d, dra_arena *a)
{
    size_t used = a->total;
    /* The next allocation follows the last one in the same block exactly
     * when everything so far is one run from d: one block, no one-off
     * allocation elsewhere. */
    if ((char *)dra_arena_alloc(a, 1) != (char *)d + used) {
        d->arena = *a; /* a large device: it keeps its arena */
        *a = (dra_arena)DRA_ARENA_INIT;
        return d;
    }
    dev_full *c = dra_xmalloc(used);
    memcpy(c, d, used);
    reloc r = {(uintptr_t)d, (uintptr_t)d + used, (uintptr_t)c};
    reloc_value(&r, &c->value);
    for (size_t i = 0; i < DEV_NFIELDS; i++)
        reloc_value(&r, &c->fields[i]);
    reloc_table(&r, &c->attrs);
    reloc_table(&r, &c->caps);
    c->error = moved(&r, c->error);
    c->list_error = moved(&r, c->list_error);
    c->size = used;
    dra_arena_reset(a);
    return c;
}

/* The full conversion: the `device` map and the lookup tables. */
static dev_full *full_build(const json_t *device, const char *driver, dra_arena *a, const cel_dra_convert *how)
{
    dra_arena_reset(a);
    dev_full *d = dra_arena_zalloc(a, sizeof *d);
    json_t *dev = (json_t *)device;
    size_t na, nc;
    entry *attrs = collect(a, json_object_get(dev, "attributes"), driver, &na, true, how, &d->error, &d->list_error);
    entry *caps = collect(a, json_object_get(dev, "capacity"), driver, &nc, false, how, &d->error, NULL);
    cel_value keys[4] = {
        cel_string("driver", 6),
        cel_string("attributes", 10),
        cel_string("capacity", 8),
        cel_string("allowMultipleAllocations", 24),
    };
    cel_value vals[4] = {
        cel_string_copy_a(a, driver, strlen(driver)),
        group(a, attrs, na),
        group(a, caps, nc),
        cel_bool(json_is_true(json_object_get(dev, "allowMultipleAllocations"))),
    };
    d->value = cel_map_build_a(a, keys, vals, 4, 0);
    memcpy(d->fields, vals, sizeof d->fields);
    dra_plan_table_build(a, &d->attrs, vals[DEV_ATTRIBUTES]);
    dra_plan_table_build(a, &d->caps, vals[DEV_CAPACITY]);
    return device_compact(d, a);
}

static void full_free(dev_full *d)
{
    if (!d)
        return;
    if (d->arena.head) {
        dra_arena a = d->arena; /* d lives in it */
        dra_arena_free(&a);
    } else {
        free(d);
    }
}

/* ---- lazy devices (dra_device.h) ---- */

/* Digits of a version core number that blang/semver accepts without
 * parsing: "0" or 1-19 digits without a leading zero (fits uint64). */
static size_t quick_number(const char *s, size_t len)
{
    size_t n = 0;
    while (n < len && n < 20 && s[n] >= '0' && s[n] <= '9')
        n++;
    return n == 0 || n > 19 || (n > 1 && s[0] == '0') ? 0 : n;
}

/* "N.N.N" that dra_semver_parse accepts for certain; anything else
 * (pre-release, build, errors) is for the parser to decide. */
static bool quick_version(const char *s, size_t len)
{
    for (int part = 0; part < 3; part++) {
        size_t n = quick_number(s, len);
        if (!n)
            return false;
        s += n;
        len -= n;
        if (part < 2) {
            if (!len || *s != '.')
                return false;
            s++;
            len--;
        }
    }
    return len == 0;
}

/* 1-12 digits and a common suffix (none, k M G T P m, Ki Mi Gi Ti Pi): a
 * quantity dra_quantity_parse accepts for certain (the rest is for the
 * parser to decide). */
static bool quick_quantity(const char *s, size_t len)
{
    size_t n = 0;
    while (n < len && n < 13 && s[n] >= '0' && s[n] <= '9')
        n++;
    if (n == 0 || n > 12)
        return false;
    switch (len - n) {
    case 0: return true;
    case 1: return s[n] && strchr("kMGTPm", s[n]) != NULL;
    case 2: return s[n] && s[n + 1] == 'i' && strchr("KMGTP", s[n]) != NULL;
    default: return false;
    }
}

/* An attribute the full conversion converts without error into a scalar:
 * an object of one typed value (convert_attr) of a valid version. */
static bool scan_attr(dev_lazy *e, json_t *attr, uint32_t *nobjs)
{
    if (!json_is_object(attr) || json_object_size(attr) != 1)
        return false;
    void *it = json_object_iter(attr);
    const char *k = json_object_iter_key(it);
    json_t *v = json_object_iter_value(it);
    e->json = v;
    /* by the first letter: one comparison of the name */
    if (k[0] == 'i' && !strcmp(k, "int") && json_is_integer(v)) {
        e->type = LZ_INT;
    } else if (k[0] == 'b' && !strcmp(k, "bool") && json_is_boolean(v)) {
        e->type = LZ_BOOL;
    } else if (k[0] == 's' && !strcmp(k, "string") && json_is_string(v)) {
        e->type = LZ_STRING;
    } else if (k[0] == 'v' && !strcmp(k, "version") && json_is_string(v)) {
        if (!quick_version(json_string_value(v), json_string_length(v))) {
            dra_semver sv;
            dra_err *err = dra_semver_parse(json_string_value(v), json_string_length(v), &sv);
            dra_err_free(err);
            if (err)
                return false;
        }
        e->type = LZ_VERSION;
        e->obj = (*nobjs)++;
    } else {
        return false;
    }
    return true;
}

/* A capacity whose value the full conversion parses without error. */
static bool scan_cap(dev_lazy *e, json_t *cap, uint32_t *nobjs)
{
    json_t *qv = json_object_get(cap, "value");
    e->json = json_is_string(qv) ? qv : NULL; /* none: "0", as collect() */
    if (e->json && !quick_quantity(json_string_value(qv), strlen(json_string_value(qv)))) {
        dra_quantity q;
        dra_err *err = dra_quantity_parse(json_string_value(qv), &q);
        dra_err_free(err);
        if (err)
            return false;
    }
    e->type = LZ_QUANTITY;
    e->obj = (*nobjs)++;
    return true;
}

/* Remember obj's members in e[]; false for one the scan does not vouch for. */
static bool scan(dev_lazy *e, json_t *obj, bool caps, uint32_t *nobjs)
{
    for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
        const char *name = json_object_iter_key(it);
        json_t *v = json_object_iter_value(it);
        size_t n = strlen(name); /* as collect() reads the key */
        const char *slash = memchr(name, '/', n);
        if (n >= UINT32_MAX)
            return false;
        e->dom = slash ? name : NULL;
        e->dlen = slash ? (uint32_t)(slash - name) : 0;
        e->id = slash ? slash + 1 : name;
        e->idlen = (uint32_t)(n - (size_t)(e->id - name));
        e->tag = dev_tag(e->id, e->idlen);
        e->tag2 = dev_tag2(e->id, e->idlen);
        e->done = false;
        if (!(caps ? scan_cap(e, v, nobjs) : scan_attr(e, v, nobjs)))
            return false;
        e++;
    }
    return true;
}

cel_dra_device *cel_dra_device_new(const json_t *device, const char *driver)
{
    dra_arena scratch = DRA_ARENA_INIT;
    cel_dra_device *d = cel_dra_device_build(device, driver, &scratch);
    dra_arena_free(&scratch);
    return d;
}

cel_dra_device *cel_dra_device_build(const json_t *device, const char *driver, dra_arena *a)
{
    static const cel_dra_convert as_1_37 = {0};
    return cel_dra_device_build_as(device, driver, a, &as_1_37);
}

cel_dra_device *cel_dra_device_build_as(const json_t *device, const char *driver, dra_arena *a,
                                        const cel_dra_convert *how)
{
    if (!driver)
        driver = "";
    json_t *dev = (json_t *)device, *attrs = NULL, *caps = NULL;
    bool allow = false;
    /* one pass for the three members (json_object_get hashes each name) */
    for (void *it = json_object_iter(dev); it; it = json_object_iter_next(dev, it)) {
        const char *k = json_object_iter_key(it);
        json_t *v = json_object_iter_value(it);
        if (k[0] == 'a' && !strcmp(k, "attributes"))
            attrs = json_is_object(v) ? v : NULL;
        else if (k[0] == 'c' && !strcmp(k, "capacity"))
            caps = json_is_object(v) ? v : NULL;
        else if (k[0] == 'a' && !strcmp(k, "allowMultipleAllocations"))
            allow = json_is_true(v);
    }
    size_t na = attrs ? json_object_size(attrs) : 0, nc = caps ? json_object_size(caps) : 0;
    size_t dl = strlen(driver);
    /* room for an object per entry (the scan counts those it needs) */
    cel_dra_device *d = dra_xmalloc(sizeof *d + (na + nc) * (sizeof d->ents[0] + sizeof(cel_object)) + dl + 1);
    d->objs = (cel_object *)(d->ents + na + nc);
    char *drv = (char *)(d->objs + na + nc);
    memcpy(drv, driver, dl + 1);
    d->driver = drv;
    d->fields[DEV_DRIVER] = cel_string(drv, dl);
    d->fields[DEV_ATTRIBUTES] = d->fields[DEV_CAPACITY] = cel_null(); /* dra_dev_full */
    d->fields[DEV_ALLOW] = cel_bool(allow);
    d->full = NULL;
    d->json = json_incref(dev);
    d->error = d->list_error = NULL;
    d->how = *how;
    d->nattrs = (uint32_t)na;
    d->ncaps = (uint32_t)nc;
    d->nobjs = 0;
    if (!scan(d->ents, attrs, false, &d->nobjs) || !scan(d->ents + na, caps, true, &d->nobjs)) {
        d->full = full_build(device, driver, a, how);
        d->error = d->full->error;
        d->list_error = d->full->list_error;
    }
    return d;
}

const dev_full *dra_dev_full(const cel_dra_device *d)
{
    if (!d->full) {
        cel_dra_device *w = (cel_dra_device *)d; /* its cache */
        dra_arena scratch = DRA_ARENA_INIT;
        w->full = full_build(d->json, d->driver, &scratch, &d->how);
        dra_arena_free(&scratch);
    }
    return d->full;
}

/* Convert e on its first read, as collect() converts it. */
void dra_dev_lazy_convert(cel_dra_device *d, dev_lazy *e)
{
    switch (e->type) {
    case LZ_INT: e->val = cel_int((int64_t)json_integer_value(e->json)); break;
    case LZ_BOOL: e->val = cel_bool(json_is_true(e->json)); break;
    case LZ_STRING: e->val = cel_string(json_string_value(e->json), json_string_length(e->json)); break;
    default: {
        cel_object *o = &d->objs[e->obj];
        memset(o, 0, sizeof *o);
        dra_err *err;
        if (e->type == LZ_VERSION) {
            o->kind = CEL_OBJ_SEMVER;
            err = dra_semver_parse(json_string_value(e->json), json_string_length(e->json), &o->u.semver);
        } else {
            o->kind = CEL_OBJ_QUANTITY;
            err = dra_quantity_parse(e->json ? json_string_value(e->json) : "0", &o->u.quantity);
        }
        dra_err_free(err); /* none: the scan parsed it */
        e->val = cel_objval(o);
    }
    }
    e->done = true;
}

void cel_dra_device_free(cel_dra_device *d)
{
    if (!d)
        return;
    full_free(d->full);
    json_decref(d->json);
    free(d);
}

size_t cel_dra_device_bytes(const cel_dra_device *d, bool *single)
{
    const dev_full *f = d->full;
    *single = !(f && f->arena.head);
    size_t n =
        sizeof *d + (d->nattrs + d->ncaps) * (sizeof d->ents[0] + sizeof *d->objs) + d->fields[DEV_DRIVER].v.s.len + 1;
    if (f)
        n += f->arena.head ? dra_arena_capacity(&f->arena) : f->size;
    return n;
}

cel_value cel_dra_device_value(const cel_dra_device *d)
{
    return dra_dev_full(d)->value;
}
const char *cel_dra_device_error(const cel_dra_device *d)
{
    return d->error;
}

const char *cel_dra_device_error_in(const cel_program *p, const cel_dra_device *d)
{
    if (!d->error && d->list_error && cel_env_dra_lists_refused(p->env))
        return d->list_error;
    return d->error;
}

static const char dra_hint[] = ". consider using CEL optional chaining (.? followed by orValue()) or guarding the "
                               "check with has() for optional fields";

const char *cel_dra_runtime_hint(const char *msg)
{
    return strstr(msg, "no such key:") ? dra_hint : "";
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
