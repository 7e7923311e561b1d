/* Compiled selector plans: the per-device lookup tables, compiling a checked
 * selector into a plan of pre-resolved steps, running it against a device,
 * describing it, and cel_dra_match, the entry that picks plan or evaluator. */
#include "dra_plan.h"
#include "../base/hash.h"
#include "../model/packed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functions.h"
#include "cel.h"
#include "eval.h"
#include "program.h"
#include "dra_device.h"

/* ---- per-device lookup tables ----------------------------------------------
 * Built by dra_device.c (dra_dev_table_build); keys encoded by
 * dra_dev_key_encode and hashed by dra_dev_key_hash. */

/* Branch-free over the words: the keys compared are nearly always equal
 * (the hashes matched). */
static inline bool key_equal(const char *a, const char *b, size_t klen)
{
    uint64_t diff = 0;
    for (size_t i = 0; i < klen; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        diff |= x ^ y;
    }
    return diff == 0;
}

static inline const cel_value *table_find(const dev_table *t, uint64_t hash, const char *key, size_t klen)
{
    if (!t->n)
        return NULL;
    for (size_t at = hash & t->mask;; at = (at + 1) & t->mask) {
        const dev_entry *e = &t->slots[at];
        if (!e->key)
            return NULL;
        if (e->hash == hash && e->klen == klen && key_equal(e->key, key, klen))
            return &e->val;
    }
}

/* ---- compiled selector plans ------------------------------------------------
 * A selector whose estimated cost is within the limit (so no evaluation can
 * be cancelled) and that uses only the common shapes -- device fields,
 * map selection and indexing by literal keys, calls resolved by the
 * checker, && / || / !, constants and folded constants -- is turned into a
 * small tree of pre-resolved steps: no name lookups, no activation, no cost
 * accounting.  Typed steps handle the usual selector operations directly
 * (attribute/capacity by pre-hashed key, string or int against a constant,
 * semver parts, quantity against a constant quantity) and fall back to the
 * checker's overloads for any other runtime type, so results and error
 * texts are those of the evaluator (eval.c); anything else keeps using the
 * evaluator. */

/* clang-format off */
typedef enum {
    /* value steps */
    S_CONST, S_FIELD, S_SELECT, S_INDEX_KEY, S_CALL,
    S_ATTR, S_CAP,       /* device.attributes|capacity[dom].name: table lookup */
    S_SEMVER_PART,       /* v.major() / minor() / patch() */
    S_OBJ_CMP,           /* quantity or semver v.compareTo(const) (int result) */
    /* test steps: bool results */
    S_AND, S_OR, S_NOT,
    S_STR_EQ, S_STR_NE,  /* v == "lit", v != "lit" */
    S_INT_CMP,           /* v <op> int constant */
    S_OBJ_TEST,          /* quantity or semver v.isGreaterThan(const) / isLessThan(const) */
    S_HAS_ATTR, S_HAS_CAP,
} step_op;
/* clang-format on */

typedef enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } cmp_op;

typedef struct step step;

/* OBJ_* steps against a constant quantity: the order of the last capacity
 * text they ordered (parsed by `rules`), so that devices of one capacity
 * are ordered without parsing it again (cap_order). */
typedef struct qty_memo {
    bool set;
    unsigned rules;
    uint32_t len;
    char text[DRA_QUANTITY_TEXTMAX];
    int order;
} qty_memo;

/* SEMVER_PART steps: the part of the last version text they read, so
 * that devices of one version are read without converting it
 * (version_part). */
typedef struct ver_memo {
    bool set;
    uint32_t len;
    char text[DRA_SEMVER_ATTRIBUTE_MAXLEN];
    int64_t part;
} ver_memo;

/* How to read a leaf operand (constant, device field, attribute or
 * capacity), copied into the step that reads it so that the hot path does
 * not load the operand step first.  For other operands only op and sub are
 * set. */
typedef struct leaf_ref {
    step_op op;
    int sub;                /* FIELD: DEV_*; SEMVER_PART: the part */
    const cel_value *konst; /* CONST: the value */
    const char *key;        /* ATTR / CAP / HAS_*: encoded key, its length and hash */
    size_t klen;
    uint64_t hash;
    const char *dom, *name; /* ATTR / CAP / HAS_*: the domain and name, and the name's tag (lazy devices) */
    size_t dlen, nlen;
    uint64_t tag, tag2;
    const cel_value *missing; /* ATTR / CAP: the "no such key" error */
    uint32_t *guess;          /* ATTR / CAP / HAS_*: the step's guess (step.guess) */
} leaf_ref;

struct step {
    step_op op;
    int sub;                  /* FIELD: DEV_*; INT_CMP / OBJ_TEST: cmp_op; SEMVER_PART: 0 major, 1 minor, 2 patch */
    cel_object_kind objkind;  /* OBJ_*: CEL_OBJ_QUANTITY or CEL_OBJ_SEMVER */
    qty_memo *memo;           /* OBJ_* of a quantity: its memo (mutable, in the program's arena) */
    ver_memo *vmemo;          /* SEMVER_PART: its memo (mutable, in the program's arena) */
    cel_value value;          /* CONST; SELECT / INDEX_KEY: the key; STR_*, INT_CMP, OBJ_*: the constant */
    const cel_node *call;     /* CALL and typed calls: the node (overloads for the fallback) */
    step *args[CEL_MAX_ARGS]; /* CALL: receiver first; other steps: their operands */
    size_t nargs;
    /* ATTR / CAP / HAS_*: the encoded key, its hash, the domain and name, and
     * the "no such key" error */
    const char *key;
    size_t klen;
    uint64_t hash;
    cel_value dom, name;
    cel_value missing;
    /* ATTR / CAP / HAS_*: the position in its section of the entry the
     * last lookup found (devices of one slice, and most of a fleet, list
     * the same names in the same order): tried first on a device whose
     * ids are unique (dev_guess_find) */
    uint32_t guess;
    leaf_ref self, a0, a00; /* this step, args[0] and args[0]->args[0] as leaves (link_plan) */
};

static step *step_new(dra_arena *a, step_op op)
{
    step *p = dra_arena_zalloc(a, sizeof *p);
    p->op = op;
    return p;
}

static bool const_value(const cel_node *n, cel_value *out)
{
    if (n->kind == CEL_NODE_CALL && n->folded) {
        *out = *(const cel_value *)n->folded;
        return true;
    }
    if (n->kind != CEL_NODE_CONST)
        return false;
    const cel_const *c = &n->u.constant;
    switch (c->kind) {
    case CEL_CONST_NULL: *out = cel_null(); return true;
    case CEL_CONST_BOOL: *out = cel_bool(c->v.b); return true;
    case CEL_CONST_INT: *out = cel_int(c->v.i); return true;
    case CEL_CONST_UINT: *out = cel_uint(c->v.u); return true;
    case CEL_CONST_DOUBLE: *out = cel_double(c->v.d); return true;
    case CEL_CONST_STRING: *out = cel_string(c->v.s.data, c->v.s.len); return true;
    case CEL_CONST_BYTES: *out = cel_bytes(c->v.s.data, c->v.s.len); return true;
    }
    return false;
}

static bool is_root(const cel_node *n)
{
    return n->kind == CEL_NODE_IDENT && !strcmp(n->u.ident.name, "device");
}

static const char *const field_names[DEV_NFIELDS] = {"driver", "attributes", "capacity", "allowMultipleAllocations"};

/* `device.<field>`: the DEV_* index, or -1. */
static int device_field(const cel_node *n)
{
    if (n->kind != CEL_NODE_SELECT || n->u.select.test_only || !is_root(n->u.select.operand))
        return -1;
    for (int i = 0; i < DEV_NFIELDS; i++)
        if (!strcmp(n->u.select.field, field_names[i]))
            return i;
    return -1;
}

/* Map access by a literal string key, as `m.key` or `m["key"]`: the map node
 * and the key, or false. */
static bool literal_access(const cel_node *n, const cel_node **map, cel_value *key)
{
    if (n->kind == CEL_NODE_SELECT && !n->u.select.test_only) {
        *map = n->u.select.operand;
        *key = cel_string(n->u.select.field, strlen(n->u.select.field));
        return true;
    }
    if (n->kind == CEL_NODE_CALL && !n->u.call.target && n->u.call.nargs == 2 &&
        !strcmp(n->u.call.function, CEL_OP_INDEX) && const_value(n->u.call.args[1], key) && key->kind == CEL_STRING) {
        *map = n->u.call.args[0];
        return true;
    }
    return false;
}

/* `device.attributes["dom"]` or `device.capacity["dom"]` (also `.dom`):
 * DEV_ATTRIBUTES / DEV_CAPACITY and the domain, or -1. */
static int device_domain(const cel_node *n, cel_value *dom)
{
    const cel_node *m;
    if (!literal_access(n, &m, dom))
        return -1;
    int f = device_field(m);
    return f == DEV_ATTRIBUTES || f == DEV_CAPACITY ? f : -1;
}

/* A table-lookup step for (dom, name) of attributes or capacity. */
static step *keyed_step(dra_arena *a, step_op op, cel_value dom, cel_value name)
{
    step *p = step_new(a, op);
    p->key = dra_dev_key_encode(a, dom.v.s.ptr, dom.v.s.len, name.v.s.ptr, name.v.s.len, &p->klen);
    p->hash = dra_dev_key_hash(p->key, p->klen);
    p->dom = dom;
    p->name = name;
    /* the evaluator's error for a missing name, made once */
    cel_scratch tmp = CEL_SCRATCH_INIT;
    cel_value err = cel_no_such_key(&tmp, &name);
    p->missing = cel_error(dra_arena_strdup(a, err.v.err));
    cel_scratch_free(&tmp);
    return p;
}

/* The overload the runtime dispatch picks first for these argument values
 * (NULL for none): typed steps are only used where it is the one whose
 * behaviour they reproduce. */
static const cel_overload *dispatched(const cel_node *n, const cel_value *args, size_t nargs)
{
    for (size_t i = 0; i < n->u.call.noverloads; i++)
        if (cel_overload_accepts(n->u.call.overloads[i], args, nargs))
            return n->u.call.overloads[i];
    return NULL;
}

static bool dispatches_to(const cel_node *n, const cel_value *args, size_t nargs, const char *id)
{
    const cel_overload *o = dispatched(n, args, nargs);
    return o && !strcmp(o->id, id);
}

static step *compile_plan(dra_arena *a, const cel_node *n, int depth);

/* Specialise a resolved call step `p` of node `n` when its operation and
 * operand types allow; returns p itself otherwise. */
static step *specialise_call(dra_arena *a, const cel_node *n, step *p)
{
    const char *fn = n->u.call.function;
    static const struct {
        const char *op, *id;
        cmp_op cmp;
    } int_cmps[] = {
        {CEL_OP_EQUALS, "equals", CMP_EQ},         {CEL_OP_NOT_EQUALS, "not_equals", CMP_NE},
        {CEL_OP_LESS, "less_int64", CMP_LT},       {CEL_OP_LESS_EQUALS, "less_equals_int64", CMP_LE},
        {CEL_OP_GREATER, "greater_int64", CMP_GT}, {CEL_OP_GREATER_EQUALS, "greater_equals_int64", CMP_GE},
    };
    if (p->nargs == 2 && p->args[1]->op == S_CONST) {
        cel_value k = p->args[1]->value;
        /* `s == "literal"`: the single equals overload, compared directly */
        bool eq = !strcmp(fn, CEL_OP_EQUALS), ne = !strcmp(fn, CEL_OP_NOT_EQUALS);
        if ((eq || ne) && k.kind == CEL_STRING) {
            cel_value probe[2] = {cel_string("", 0), k};
            if (dispatches_to(n, probe, 2, eq ? "equals" : "not_equals")) {
                step *q = step_new(a, eq ? S_STR_EQ : S_STR_NE);
                q->call = n; /* for operands of other types (fallback) */
                q->args[0] = p->args[0];
                q->nargs = 1;
                q->value = k;
                return q;
            }
        }
        if (k.kind == CEL_INT) {
            cel_value probe[2] = {cel_int(0), k};
            for (size_t i = 0; i < sizeof int_cmps / sizeof int_cmps[0]; i++)
                if (!strcmp(fn, int_cmps[i].op) && dispatches_to(n, probe, 2, int_cmps[i].id)) {
                    step *q = step_new(a, S_INT_CMP);
                    q->sub = (int)int_cmps[i].cmp;
                    q->call = n;
                    q->args[0] = p->args[0];
                    q->nargs = 1;
                    q->value = k;
                    return q;
                }
        }
        if (k.kind == CEL_OBJECT && (k.v.obj->kind == CEL_OBJ_QUANTITY || k.v.obj->kind == CEL_OBJ_SEMVER) &&
            n->u.call.target) {
            static const struct {
                const char *fn, *id;
                step_op op;
                cmp_op cmp;
            } obj_ops[] = {
                {"isGreaterThan", "_is_greater_than", S_OBJ_TEST, CMP_GT},
                {"isLessThan", "_is_less_than", S_OBJ_TEST, CMP_LT},
                {"compareTo", "_compare_to", S_OBJ_CMP, CMP_EQ},
            };
            bool is_q = k.v.obj->kind == CEL_OBJ_QUANTITY;
            cel_value probe[2] = {k, k}; /* a receiver of the constant's type */
            for (size_t i = 0; i < sizeof obj_ops / sizeof obj_ops[0]; i++) {
                char id[64];
                snprintf(id, sizeof id, "%s%s", is_q ? "quantity" : "semver", obj_ops[i].id);
                if (!strcmp(fn, obj_ops[i].fn) && dispatches_to(n, probe, 2, id)) {
                    step *q = step_new(a, obj_ops[i].op);
                    q->sub = (int)obj_ops[i].cmp;
                    q->objkind = k.v.obj->kind;
                    if (is_q)
                        q->memo = dra_arena_zalloc(a, sizeof *q->memo);
                    q->call = n;
                    q->args[0] = p->args[0];
                    q->nargs = 1;
                    q->value = k;
                    return q;
                }
            }
        }
    }
    if (p->nargs == 1 && n->u.call.target) {
        static const char *const parts[3][2] = {
            {"major", "semver_major"}, {"minor", "semver_minor"}, {"patch", "semver_patch"}};
        static const cel_object sample = {.kind = CEL_OBJ_SEMVER};
        cel_value probe = cel_objval(&sample);
        for (int i = 0; i < 3; i++)
            if (!strcmp(fn, parts[i][0]) && dispatches_to(n, &probe, 1, parts[i][1])) {
                p->op = S_SEMVER_PART;
                p->sub = i;
                p->vmemo = dra_arena_zalloc(a, sizeof *p->vmemo);
                return p;
            }
    }
    if (p->nargs == 1 && !strcmp(fn, CEL_OP_LOGICAL_NOT)) {
        cel_value probe = cel_bool(false);
        if (dispatches_to(n, &probe, 1, "logical_not"))
            p->op = S_NOT;
    }
    return p;
}

static step *compile_plan(dra_arena *a, const cel_node *n, int depth)
{
    if (depth > 32)
        return NULL;
    cel_value c;
    if (const_value(n, &c)) {
        step *p = step_new(a, S_CONST);
        p->value = c;
        return p;
    }
    int field = device_field(n);
    if (field >= 0) {
        step *p = step_new(a, S_FIELD);
        p->sub = field;
        return p;
    }
    if (n->kind == CEL_NODE_SELECT && n->u.select.test_only) {
        /* has(device.attributes["dom"].name): is the name in the table */
        cel_value dom;
        int f = device_domain(n->u.select.operand, &dom);
        if (f < 0)
            return NULL;
        const char *name = n->u.select.field;
        return keyed_step(a, f == DEV_ATTRIBUTES ? S_HAS_ATTR : S_HAS_CAP, dom, cel_string(name, strlen(name)));
    }
    const cel_node *map;
    cel_value key;
    if (literal_access(n, &map, &key)) {
        cel_value dom;
        int f = device_domain(map, &dom);
        if (f >= 0)
            return keyed_step(a, f == DEV_ATTRIBUTES ? S_ATTR : S_CAP, dom, key);
        bool is_select = n->kind == CEL_NODE_SELECT;
        if (!map->type || (is_select ? map->type->kind == CEL_T_OPTIONAL : map->type->kind != CEL_T_MAP))
            return NULL;
        step *operand = compile_plan(a, map, depth + 1);
        if (!operand)
            return NULL;
        step *p = step_new(a, is_select ? S_SELECT : S_INDEX_KEY);
        p->value = key;
        p->args[0] = operand;
        return p;
    }
    if (n->kind != CEL_NODE_CALL)
        return NULL;
    const char *fn = n->u.call.function;
    bool is_and = !strcmp(fn, CEL_OP_LOGICAL_AND), is_or = !strcmp(fn, CEL_OP_LOGICAL_OR);
    if ((is_and || is_or) && n->u.call.nargs == 2) {
        step *p = step_new(a, is_and ? S_AND : S_OR);
        p->args[0] = compile_plan(a, n->u.call.args[0], depth + 1);
        p->args[1] = compile_plan(a, n->u.call.args[1], depth + 1);
        p->nargs = 2;
        return p->args[0] && p->args[1] ? p : NULL;
    }
    /* other operators with special evaluation stay with the evaluator */
    if (fn[0] == '@' || !strcmp(fn, CEL_OP_CONDITIONAL) || !strcmp(fn, CEL_OP_OPT_SELECT) ||
        !strcmp(fn, CEL_OP_OPT_INDEX) || !strcmp(fn, CEL_OP_INDEX) || !strcmp(fn, "or") || !strcmp(fn, "orValue") ||
        n->u.call.noverloads == 0)
        return NULL;
    /* ext.Lists calls too: cel-go's cost trackers of distinct(), sort()
     * and flatten() panic on an argument that failed or is not a list,
     * and the whole evaluation fails with "internal error: ..." (eval.c
     * tracker_panic), where a plan's call would pass the error on */
    for (size_t i = 0; i < n->u.call.noverloads; i++)
        if (!n->u.call.overloads[i]->impl || n->u.call.overloads[i]->non_strict ||
            n->u.call.overloads[i]->lib == CEL_LIB_LISTS)
            return NULL;
    size_t total = n->u.call.nargs + (n->u.call.target ? 1 : 0);
    if (total > CEL_MAX_ARGS)
        return NULL;
    step *p = step_new(a, S_CALL);
    p->call = n;
    if (n->u.call.target && !(p->args[p->nargs++] = compile_plan(a, n->u.call.target, depth + 1)))
        return NULL;
    for (size_t i = 0; i < n->u.call.nargs; i++)
        if (!(p->args[p->nargs++] = compile_plan(a, n->u.call.args[i], depth + 1)))
            return NULL;
    return specialise_call(a, n, p);
}

static leaf_ref leaf_of(step *p)
{
    leaf_ref r = {.op = p->op, .sub = p->sub};
    if (p->op == S_CONST)
        r.konst = &p->value;
    if (p->op == S_ATTR || p->op == S_CAP || p->op == S_HAS_ATTR || p->op == S_HAS_CAP) {
        r.key = p->key;
        r.klen = p->klen;
        r.hash = p->hash;
        r.dom = p->dom.v.s.ptr;
        r.dlen = p->dom.v.s.len;
        r.name = p->name.v.s.ptr;
        r.nlen = p->name.v.s.len;
        r.tag = dev_tag(r.name, r.nlen);
        r.tag2 = dev_tag2(r.name, r.nlen);
        r.missing = &p->missing;
        r.guess = &p->guess;
    }
    return r;
}

/* Fill in the leaf_refs once the tree is complete. */
static void link_plan(step *p)
{
    static const leaf_ref none = {.op = S_CALL};
    p->self = leaf_of(p);
    p->a0 = p->args[0] ? leaf_of(p->args[0]) : none;
    p->a00 = p->args[0] && p->args[0]->args[0] ? leaf_of(p->args[0]->args[0]) : none;
    for (size_t i = 0; i < CEL_MAX_ARGS; i++)
        if (p->args[i])
            link_plan(p->args[i]);
}

void dra_plan_build(cel_program *p)
{
    uint64_t min = 0, max = UINT64_MAX;
    cel_program_estimated_cost(p, &min, &max);
    if (!p->checked || !p->ast || max > CEL_DRA_MAX_COST)
        return;
    step *plan = compile_plan(&p->arena, p->ast->root, 0);
    if (plan)
        link_plan(plan);
    p->ext = plan;
}

/* ---- running a plan ---- */

typedef struct plan_ctx {
    const cel_dra_device *dev;
    cel_program *prog;
    bool used_scratch; /* something may have allocated (cx is set): reset after the match */
    cel_call_ctx cx;   /* for calls and errors, set by call_ctx */
    cel_value other;   /* test(): the non-bool result (an error or another value), set with T_OTHER */
} plan_ctx;

/* The context for a call or an error value, set on first use (most
 * matches need none); whatever it allocates is reset after the match. */
static cel_call_ctx *call_ctx(plan_ctx *c)
{
    if (!c->used_scratch) {
        c->used_scratch = true;
        c->cx = (cel_call_ctx){.scratch = &c->prog->scratch, .regexes = c->prog->regexes, .flags = c->prog->flags};
    }
    return &c->cx;
}

enum { T_FALSE = 0, T_TRUE = 1, T_OTHER = 2 };

static cel_value run_value(plan_ctx *c, const step *p);
static int run_test(plan_ctx *c, const step *p);

/* Map selection as eval.c select_field / index_value do it. */
static cel_value plan_lookup(plan_ctx *c, cel_value obj, const cel_value *key, bool is_select)
{
    if (obj.kind == CEL_MAP) {
        const cel_value *v = cel_map_find(obj.v.map, key);
        if (v)
            return *v;
        if (obj.v.map->flags & CEL_MAP_DEFAULT_EMPTY)
            return cel_mapval(&cel_empty_map);
        return cel_no_such_key(call_ctx(c)->scratch, key);
    }
    if (obj.kind == CEL_ERROR)
        return obj;
    if (obj.kind == CEL_LIST && !is_select)
        return cel_errorf_s(call_ctx(c)->scratch, "unsupported index type '%s' in list", cel_value_type_name(key));
    return cel_no_such_key(call_ctx(c)->scratch, key); /* a value with no keys (attributes.go refQualify) */
}

/* The checker's overloads, dispatched on the argument values: the general
 * path, and the fallback of typed steps for other runtime types. */
static cel_value dispatch(plan_ctx *c, const cel_node *n, const cel_value *args, size_t nargs)
{
    cel_call_ctx *cx = call_ctx(c);
    const cel_overload *o = dispatched(n, args, nargs);
    return o ? o->impl(cx, args, nargs) : cel_eval_no_overload(cx, n, args, nargs);
}

static inline int as_test(plan_ctx *c, cel_value v)
{
    if (v.kind == CEL_BOOL)
        return v.v.b;
    c->other = v;
    return T_OTHER;
}

/* Typed steps meeting another runtime type: an error operand is the
 * result (the constant argument cannot fail), anything else goes through
 * the checker's overloads.  Kept out of line so that the hot steps stay small. */
static __attribute__((noinline, cold)) cel_value fallback(plan_ctx *c, const step *p, cel_value v)
{
    if (v.kind == CEL_ERROR)
        return v;
    cel_value args[2] = {v, p->value};
    return dispatch(c, p->call, args, p->op == S_SEMVER_PART || p->op == S_NOT ? 1 : 2);
}

static __attribute__((noinline, cold)) int fallback_test(plan_ctx *c, const step *p, cel_value v)
{
    return as_test(c, fallback(c, p, v));
}

static __attribute__((noinline)) cel_value run_call(plan_ctx *c, const step *p);

/* A device field: driver and allowMultipleAllocations from the device
 * itself, the attributes and capacity maps from its full conversion. */
static inline const cel_value *dev_field(const cel_dra_device *d, int sub)
{
    return sub == DEV_DRIVER || sub == DEV_ALLOW ? &d->fields[sub] : &dra_dev_full(d)->fields[sub];
}

/* Whether an entry is the leaf's: its id and then its domain ("dom/id",
 * or the driver's for "id"). */
enum { E_OTHER_ID, E_LEAF, E_OTHER_DOMAIN };

/* Whether the leaf's domain is the device's driver, asked once a lookup
 * (*of_driver -1: not asked yet). */
static inline __attribute__((always_inline)) bool leaf_of_driver(const cel_dra_device *d, const leaf_ref *r,
                                                                 int *of_driver)
{
    if (*of_driver < 0)
        *of_driver = r->dlen == d->fields[DEV_DRIVER].v.s.len && dev_same_bytes(r->dom, d->driver, r->dlen);
    return *of_driver;
}

/* e against the leaf: E_*. */
static inline int lazy_is(const cel_dra_device *d, const leaf_ref *r, const dev_lazy *e, int *of_driver)
{
    if (e->tag != r->tag || e->tag2 != r->tag2 || e->idlen != r->nlen ||
        (r->nlen > 16 && !dev_same_bytes(e->id + 8, r->name + 8, r->nlen - 16)))
        return E_OTHER_ID;
    if (!e->dom)
        return leaf_of_driver(d, r, of_driver) ? E_LEAF : E_OTHER_DOMAIN;
    return e->dlen == r->dlen && dev_same_bytes(e->dom, r->dom, r->dlen) ? E_LEAF : E_OTHER_DOMAIN;
}

/* Entry i of a packed device, not filled yet, against the leaf, from its
 * facts: E_*. */
static inline __attribute__((always_inline)) int pending_is(const cel_dra_device *d, const leaf_ref *r, size_t i,
                                                            int *of_driver)
{
    const dra_packed_entry p = dra_packed_entry_at(d->pending, i);
    const char *name = d->text + p.name, *id = name + p.dlen;
    size_t idlen = (size_t)(p.nlen - p.dlen);
    if (idlen != r->nlen || dev_tag_at(id, idlen, d->text + d->tlen) != r->tag || dev_tag2(id, idlen) != r->tag2 ||
        (idlen > 16 && !dev_same_bytes(id + 8, r->name + 8, idlen - 16)))
        return E_OTHER_ID;
    if (p.dlen)
        return p.dlen - 1u == r->dlen && dev_same_bytes(name, r->dom, r->dlen) ? E_LEAF : E_OTHER_DOMAIN;
    return leaf_of_driver(d, r, of_driver) ? E_LEAF : E_OTHER_DOMAIN;
}

/* Entry i of d (absolute), converted: its value (a string's inline). */
static inline __attribute__((always_inline)) const cel_value *entry_value(const cel_dra_device *d, size_t i)
{
    dev_lazy *e = d->pending ? dra_dev_value((cel_dra_device *)d, i) : (dev_lazy *)&d->ents[i];
    if (!e->done) {
        if (e->type == LZ_STRING) {
            e->val = cel_string(e->s, e->slen);
            e->done = true;
        } else {
            dra_dev_lazy_convert((cel_dra_device *)d, e);
        }
    }
    return &e->val;
}

/* The leaf's entry by its guess (the position the last lookup found) on a
 * device whose ids are unique in each section: the entry there of the
 * leaf's id is the only one that can be the leaf's, so its domain
 * answers (E_LEAF: at *at; E_OTHER_DOMAIN: the device has none).
 * E_OTHER_ID when the guess holds another id (then look). */
static inline __attribute__((always_inline)) int dev_guess(const cel_dra_device *d, const leaf_ref *r, bool caps,
                                                           size_t *at)
{
    size_t g = *r->guess;
    if (!d->unique_ids || g >= (caps ? d->ncaps : d->nattrs))
        return E_OTHER_ID;
    *at = g += caps ? d->nattrs : 0;
    int of_driver = -1;
    return d->pending && !(d->filled >> g & 1) ? pending_is(d, r, g, &of_driver)
                                               : lazy_is(d, r, &d->ents[g], &of_driver);
}

/* The same as a value: *out the entry's value, or NULL (E_OTHER_DOMAIN:
 * the device has none). */
static inline __attribute__((always_inline)) bool dev_guess_find(const cel_dra_device *d, const leaf_ref *r, bool caps,
                                                                 const cel_value **out)
{
    size_t g;
    int is = dev_guess(d, r, caps, &g);
    if (is == E_OTHER_ID)
        return false;
    *out = is == E_LEAF ? entry_value(d, g) : NULL;
    return true;
}

/* dev_lazy_find on a packed device whose entries are not all filled:
 * the leaf's entry found from their facts, the one filled. */
static inline const cel_value *dev_pending_find(const cel_dra_device *d, const leaf_ref *r, bool caps, bool *ambiguous)
{
    size_t from = caps ? d->nattrs : 0, to = from + (caps ? d->ncaps : d->nattrs), hit = SIZE_MAX;
    int of_driver = -1;
    for (size_t i = from; i < to; i++) {
        if (pending_is(d, r, i, &of_driver) != E_LEAF)
            continue;
        if (hit != SIZE_MAX) {
            *ambiguous = true;
            return NULL;
        }
        hit = i;
    }
    if (hit == SIZE_MAX)
        return NULL;
    *r->guess = (uint32_t)(hit - from);
    return entry_value(d, hit);
}

/* An attribute (caps false) or capacity by the leaf's domain and name
 * from the device's scan, converted on first read; NULL when it has none.
 * Sets *ambiguous (returning NULL) when the scan cannot answer alone
 * ("dom/id" and "id" both, dom being the driver's). */
static inline const cel_value *dev_lazy_find(const cel_dra_device *d, const leaf_ref *r, bool caps, bool *ambiguous)
{
    if (d->pending) { /* a packed device's entries, not all read yet */
        if ((caps ? d->ncaps : d->nattrs) < DRA_DEV_INDEX_MIN)
            return dev_pending_find(d, r, caps, ambiguous);
        dra_dev_fill((cel_dra_device *)d); /* for the index of their ids */
    }
    dev_lazy *ents = (dev_lazy *)d->ents + (caps ? d->nattrs : 0), *hit = NULL;
    int of_driver = -1;
    const uint32_t *slots = d->index[caps] ? dra_dev_index(d, caps) : NULL;
    if (slots) { /* many entries, read often: only the slots of the leaf's id */
        uint32_t mask = d->mask[caps];
        for (size_t k = dev_id_slot(r->tag, r->tag2, r->nlen, mask); slots[k] != DRA_DEV_NO_ENTRY; k = (k + 1) & mask) {
            if (lazy_is(d, r, ents + slots[k], &of_driver) != E_LEAF)
                continue;
            if (hit) {
                *ambiguous = true;
                return NULL;
            }
            hit = ents + slots[k];
        }
    } else {
        for (dev_lazy *e = ents, *end = e + (caps ? d->ncaps : d->nattrs); e < end; e++) {
            if (lazy_is(d, r, e, &of_driver) != E_LEAF)
                continue;
            if (hit) {
                *ambiguous = true;
                return NULL;
            }
            hit = e;
        }
    }
    if (!hit)
        return NULL;
    *r->guess = (uint32_t)(hit - ents);
    if (!hit->done)
        dra_dev_lazy_convert((cel_dra_device *)d, hit);
    return &hit->val;
}

/* An attribute (caps false) or capacity by the leaf's domain and name:
 * from the device's scan, else from the full conversion's table; NULL
 * when the device has none. */
static __attribute__((noinline)) const cel_value *dev_find_read(const cel_dra_device *d, const leaf_ref *r, bool caps)
{
    if (!d->full) {
        bool ambiguous = false;
        const cel_value *v = dev_lazy_find(d, r, caps, &ambiguous);
        if (!ambiguous)
            return v;
    }
    const dev_full *f = dra_dev_full(d);
    return table_find(caps ? &f->caps : &f->attrs, r->hash, r->key, r->klen);
}

/* The same, inline where the leaf's guess answers (dev_guess_find), else
 * by reading the device (dev_find_read). */
static inline __attribute__((always_inline)) const cel_value *dev_find(const cel_dra_device *d, const leaf_ref *r,
                                                                       bool caps)
{
    const cel_value *v;
    if (!d->full && dev_guess_find(d, r, caps, &v))
        return v;
    return dev_find_read(d, r, caps);
}

/* has() of an attribute or capacity: an entry holding an error (1.38's
 * attribute without a usable value, cel/dra_device.c) answers with it, as
 * v0.38.0-beta.0 cel/compile.go nameToAttributes.Find hands the presence
 * test the conversion's error. */
static inline int has_leaf(plan_ctx *c, const step *p)
{
    const cel_value *v = dev_find(c->dev, &p->self, p->op == S_HAS_CAP);
    if (v && v->kind == CEL_ERROR)
        return as_test(c, *v);
    return v != NULL;
}

/* Field, table and constant reads, done inline without copying: the
 * value's address (in the device or the plan), or NULL for other steps. */
static inline __attribute__((always_inline)) const cel_value *leaf_ptr(plan_ctx *c, const leaf_ref *r)
{
    const cel_value *v;
    switch (r->op) {
    case S_CONST: return r->konst;
    case S_FIELD: return dev_field(c->dev, r->sub);
    case S_ATTR: v = dev_find(c->dev, r, false); break;
    case S_CAP: v = dev_find(c->dev, r, true); break;
    default: return NULL;
    }
    return v ? v : r->missing;
}

static inline cel_value leaf(plan_ctx *c, const step *p)
{
    const cel_value *v = leaf_ptr(c, &p->self);
    return v ? *v : run_value(c, p);
}

static inline const dra_semver *as_semver(const cel_value *v)
{
    return v && v->kind == CEL_OBJECT && v->v.obj->kind == CEL_OBJ_SEMVER ? &v->v.obj->u.semver : NULL;
}

/* OBJ_* steps: order v against the step's constant when v is an object of
 * the constant's kind. */
static inline bool obj_order(const step *p, const cel_value *v, int *order)
{
    if (!v || v->kind != CEL_OBJECT || v->v.obj->kind != p->objkind)
        return false;
    const cel_object *k = p->value.v.obj;
    *order = p->objkind == CEL_OBJ_QUANTITY ? dra_quantity_cmp(&v->v.obj->u.quantity, &k->u.quantity)
                                            : dra_semver_cmp(&v->v.obj->u.semver, &k->u.semver);
    return true;
}

/* obj_order of p's operand, the leaf r.  A capacity of a device found
 * by its guess is ordered by p's memo when its text and the device's
 * parse rules are the memo's (a fleet's devices mostly share their
 * capacities: no conversion, no comparison), else converted if it is not
 * yet, ordered and kept in the memo. */
static inline __attribute__((always_inline)) bool leaf_order(plan_ctx *c, const step *p, const leaf_ref *r, int *order)
{
    const cel_dra_device *d = c->dev;
    size_t g;
    if (!p->memo || r->op != S_CAP || d->full || dev_guess(d, r, true, &g) != E_LEAF)
        return obj_order(p, leaf_ptr(c, r), order);
    dev_lazy *e = d->pending ? dra_dev_value((cel_dra_device *)d, g) : (dev_lazy *)&d->ents[g];
    const char *qs = e->s ? e->s : "0"; /* as dra_dev_lazy_convert reads it */
    size_t qn = e->s ? e->slen : 1;
    qty_memo *m = p->memo;
    if (m->set && m->rules == d->how.quantity_rules && m->len == qn && dev_same_bytes(m->text, qs, qn)) {
        *order = m->order;
        return true;
    }
    if (!e->done)
        dra_dev_lazy_convert((cel_dra_device *)d, e);
    if (!obj_order(p, &e->val, order))
        return false;
    if (qn <= sizeof m->text) {
        memcpy(m->text, qs, qn);
        m->len = (uint32_t)qn;
        m->rules = d->how.quantity_rules;
        m->order = *order;
        m->set = true;
    }
    return true;
}

static inline int64_t semver_field(const dra_semver *sv, int part)
{
    return (int64_t)(part == 0 ? sv->major : part == 1 ? sv->minor : sv->patch);
}

/* The part SEMVER_PART p reads of its operand, the leaf r, when r is a
 * version attribute of a device found by its guess: from p's memo when
 * the version's text is the memo's (a fleet's devices mostly share their
 * driver's version: no conversion), else converted if it is not yet,
 * read and kept in the memo.  False for anything else (then read the
 * value). */
static inline __attribute__((always_inline)) bool version_part(plan_ctx *c, const step *p, const leaf_ref *r,
                                                               int64_t *out)
{
    const cel_dra_device *d = c->dev;
    size_t g;
    if (!p->vmemo || r->op != S_ATTR || d->full || dev_guess(d, r, false, &g) != E_LEAF)
        return false;
    dev_lazy *e = d->pending ? dra_dev_value((cel_dra_device *)d, g) : (dev_lazy *)&d->ents[g];
    if (e->type != LZ_VERSION)
        return false;
    ver_memo *m = p->vmemo;
    if (m->set && m->len == e->slen && dev_same_bytes(m->text, e->s, e->slen)) {
        *out = m->part;
        return true;
    }
    if (!e->done)
        dra_dev_lazy_convert((cel_dra_device *)d, e);
    const dra_semver *sv = as_semver(&e->val);
    if (!sv)
        return false;
    *out = semver_field(sv, p->sub);
    if (e->slen <= sizeof m->text) {
        memcpy(m->text, e->s, e->slen);
        m->len = e->slen;
        m->part = *out;
        m->set = true;
    }
    return true;
}

static inline cel_value semver_part(plan_ctx *c, const step *p)
{
    cel_value v = leaf(c, p->args[0]);
    const dra_semver *sv = as_semver(&v);
    return sv ? cel_int(semver_field(sv, p->sub)) : fallback(c, p, v);
}

/* The operand of a typed step as a value (the general path). */
static inline cel_value operand(plan_ctx *c, const step *p)
{
    return p->op == S_SEMVER_PART ? semver_part(c, p) : leaf(c, p);
}

/* The int operand of S_INT_CMP p without building a value: an int leaf, a
 * semver part of a semver leaf, or compareTo of a leaf with a constant. */
static inline __attribute__((always_inline)) bool int_operand(plan_ctx *c, const step *p, int64_t *out)
{
    if (p->a0.op == S_SEMVER_PART) {
        if (version_part(c, p->args[0], &p->a00, out))
            return true;
        const dra_semver *sv = as_semver(leaf_ptr(c, &p->a00));
        if (!sv)
            return false;
        *out = semver_field(sv, p->a0.sub);
        return true;
    }
    if (p->a0.op == S_OBJ_CMP) {
        int order;
        if (!leaf_order(c, p->args[0], &p->a00, &order))
            return false;
        *out = order;
        return true;
    }
    const cel_value *v = leaf_ptr(c, &p->a0);
    if (!v || v->kind != CEL_INT)
        return false;
    *out = v->v.i;
    return true;
}

static int run_test(plan_ctx *c, const step *p);

static inline bool cmp_holds(int cmp, int order)
{
    switch ((cmp_op)cmp) {
    case CMP_EQ: return order == 0;
    case CMP_NE: return order != 0;
    case CMP_LT: return order < 0;
    case CMP_LE: return order <= 0;
    case CMP_GT: return order > 0;
    case CMP_GE: return order >= 0;
    }
    return false;
}

static inline bool same_string(const cel_value *v, const cel_value *lit)
{
    return v->v.s.len == lit->v.s.len && dev_same_bytes(v->v.s.ptr, lit->v.s.ptr, v->v.s.len);
}

/* The usual cases of the typed tests, inline where a test is evaluated
 * (&&, ||, the whole selector); everything else, including other runtime
 * types, goes to run_test. */
static inline __attribute__((always_inline)) int quick_test(plan_ctx *c, const step *p)
{
    switch (p->op) {
    case S_STR_EQ:
    case S_STR_NE: {
        const cel_value *v = leaf_ptr(c, &p->a0);
        if (v && v->kind == CEL_STRING)
            return same_string(v, &p->value) == (p->op == S_STR_EQ);
        break;
    }
    case S_INT_CMP: {
        int64_t x;
        if (int_operand(c, p, &x))
            return cmp_holds(p->sub, x < p->value.v.i ? -1 : x > p->value.v.i);
        break;
    }
    case S_OBJ_TEST: {
        int order;
        if (leaf_order(c, p, &p->a0, &order))
            return cmp_holds(p->sub, order);
        break;
    }
    case S_HAS_ATTR:
    case S_HAS_CAP: return has_leaf(c, p);
    default: break;
    }
    return run_test(c, p);
}

static int run_test(plan_ctx *c, const step *p)
{
    switch (p->op) {
    case S_AND:
    case S_OR: { /* cel-go absorption, as eval.c eval_logic */
        bool is_and = p->op == S_AND;
        int l = quick_test(c, p->args[0]);
        if (l != T_OTHER && l != is_and)
            return l;
        cel_value lo = l == T_OTHER ? c->other : cel_null();
        int r = quick_test(c, p->args[1]);
        if (r != T_OTHER && r != is_and)
            return r;
        if (l != T_OTHER && r != T_OTHER)
            return is_and;
        if (l == T_OTHER) { /* the first term that is no bool answers */
            c->other = lo.kind == CEL_ERROR ? lo : cel_no_such_overload();
            return T_OTHER;
        }
        if (r == T_OTHER && c->other.kind == CEL_ERROR)
            return T_OTHER;
        c->other = cel_no_such_overload();
        return T_OTHER;
    }
    case S_NOT: {
        int v = run_test(c, p->args[0]);
        if (v != T_OTHER)
            return !v;
        if (c->other.kind == CEL_ERROR)
            return T_OTHER;
        return fallback_test(c, p, c->other);
    }
    case S_STR_EQ:
    case S_STR_NE: {
        const cel_value *v = leaf_ptr(c, &p->a0);
        cel_value general;
        if (!v) {
            general = operand(c, p->args[0]);
            v = &general;
        }
        if (v->kind == CEL_ERROR) {
            c->other = *v;
            return T_OTHER;
        }
        if (v->kind != CEL_STRING) /* a version or quantity == "x" fails, as the operator does */
            return fallback_test(c, p, *v);
        bool same = same_string(v, &p->value);
        return p->op == S_STR_EQ ? same : !same;
    }
    case S_INT_CMP: {
        int64_t x;
        if (int_operand(c, p, &x))
            return cmp_holds(p->sub, x < p->value.v.i ? -1 : x > p->value.v.i);
        cel_value v = operand(c, p->args[0]);
        if (v.kind == CEL_INT)
            return cmp_holds(p->sub, v.v.i < p->value.v.i ? -1 : v.v.i > p->value.v.i);
        return fallback_test(c, p, v);
    }
    case S_OBJ_TEST: {
        int order;
        cel_value v = operand(c, p->args[0]);
        if (obj_order(p, &v, &order))
            return cmp_holds(p->sub, order);
        return fallback_test(c, p, v);
    }
    case S_HAS_ATTR:
    case S_HAS_CAP: return has_leaf(c, p);
    default: return as_test(c, operand(c, p));
    }
}

static cel_value run_value(plan_ctx *c, const step *p)
{
    switch (p->op) {
    case S_CONST:
    case S_FIELD:
    case S_ATTR:
    case S_CAP: return *leaf_ptr(c, &p->self);
    case S_SELECT: return plan_lookup(c, run_value(c, p->args[0]), &p->value, true);
    case S_INDEX_KEY: return plan_lookup(c, run_value(c, p->args[0]), &p->value, false);
    case S_SEMVER_PART: return semver_part(c, p);
    case S_OBJ_CMP: {
        int order;
        cel_value v = operand(c, p->args[0]);
        return obj_order(p, &v, &order) ? cel_int(order) : fallback(c, p, v);
    }
    case S_CALL: return run_call(c, p);
    default: {
        int t = run_test(c, p);
        return t == T_OTHER ? c->other : cel_bool(t);
    }
    }
}

static cel_value run_call(plan_ctx *c, const step *p)
{
    cel_value args[CEL_MAX_ARGS];
    for (size_t i = 0; i < p->nargs; i++) {
        args[i] = operand(c, p->args[i]);
        if (args[i].kind == CEL_ERROR) { /* strict: the first error, after evaluating all */
            for (size_t k = i + 1; k < p->nargs; k++)
                (void)operand(c, p->args[k]);
            return args[i];
        }
    }
    return dispatch(c, p->call, args, p->nargs);
}

/* ---- describing a plan (tests, diagnostics) ---- */

static void format_step(const step *p, dra_buf *b)
{
    static const char *const names[] = {
        [S_CONST] = "const",       [S_FIELD] = "field",     [S_SELECT] = "select",   [S_INDEX_KEY] = "index",
        [S_CALL] = "call",         [S_ATTR] = "attr",       [S_CAP] = "cap",         [S_SEMVER_PART] = "semver_part",
        [S_OBJ_CMP] = "qty_cmp",   [S_AND] = "and",         [S_OR] = "or",           [S_NOT] = "not",
        [S_STR_EQ] = "str_eq",     [S_STR_NE] = "str_ne",   [S_INT_CMP] = "int_cmp", [S_OBJ_TEST] = "qty_test",
        [S_HAS_ATTR] = "has_attr", [S_HAS_CAP] = "has_cap",
    };
    if ((p->op == S_OBJ_CMP || p->op == S_OBJ_TEST) && p->objkind == CEL_OBJ_SEMVER)
        dra_buf_puts(b, p->op == S_OBJ_CMP ? "semver_cmp" : "semver_test");
    else
        dra_buf_puts(b, names[p->op]);
    if (p->op == S_CALL)
        dra_buf_printf(b, " %s", p->call->u.call.function);
    size_t n = p->op == S_AND || p->op == S_OR ? 2
               : p->op == S_SELECT || p->op == S_INDEX_KEY || p->op == S_NOT || p->op == S_STR_EQ ||
                       p->op == S_STR_NE || p->op == S_INT_CMP || p->op == S_OBJ_TEST || p->op == S_OBJ_CMP ||
                       p->op == S_SEMVER_PART
                   ? 1
               : p->op == S_CALL ? p->nargs
                                 : 0;
    if (!n)
        return;
    dra_buf_puts(b, "(");
    for (size_t i = 0; i < n; i++) {
        if (i)
            dra_buf_puts(b, ", ");
        format_step(p->args[i], b);
    }
    dra_buf_puts(b, ")");
}

bool cel_dra_plan_format(const cel_program *p, dra_buf *out)
{
    if (!p->ext)
        return false;
    format_step(p->ext, out);
    return true;
}

__attribute__((noinline, cold)) dra_err *dra_plan_device_error(const cel_dra_device *d)
{
    return dra_err_new(DRA_EXIT_RUNTIME, "%s", d->error);
}

/* A selector result that is not a bool: the error, or the conversion error
 * for another type. */
static dra_err *result_error(cel_value r)
{
    if (r.kind == CEL_ERROR)
        return dra_err_new(DRA_EXIT_RUNTIME, "%s", r.v.err);
    const char *tn = cel_value_type_name(&r);
    return dra_err_new(
        DRA_EXIT_RUNTIME,
        "CEL result of type %s could not be converted to bool: type conversion error from '%s' to 'bool'", tn, tn);
}

/* Selectors without a plan: the general evaluator with the cost limit. */
static __attribute__((noinline)) dra_err *match_general(cel_program *p, const cel_dra_device *d, bool *matched)
{
    cel_activation act;
    act.n = 1;
    act.names[0] = "device";
    act.values[0] = dra_dev_full(d)->value;
    cel_eval_options eo = {.cost_limit = CEL_DRA_MAX_COST};
    cel_value r = cel_eval(p, &act, &eo);
    if (r.kind == CEL_BOOL) {
        *matched = r.v.b;
        return NULL;
    }
    return result_error(r);
}

static __attribute__((noinline, cold)) dra_err *plan_result_error(cel_program *p, const plan_ctx *c)
{
    dra_err *e = result_error(c->other);
    cel_scratch_reset(&p->scratch); /* after the message is copied */
    return e;
}

/* Plans: the steps inline here, everything else out of line. */
static __attribute__((noinline)) dra_err *match_plan(cel_program *p, const step *pl, const cel_dra_device *d,
                                                     bool *matched)
{
    if (d->error)
        return dra_plan_device_error(d);
    plan_ctx c;
    c.dev = d;
    c.prog = p;
    c.used_scratch = false;
    int t = quick_test(&c, pl);
    if (t == T_OTHER)
        return plan_result_error(p, &c);
    *matched = t;
    if (c.used_scratch)
        cel_scratch_reset(&p->scratch);
    return NULL;
}

/* The commonest selector, a device field against a string (`device.driver
 * == "x"`), is answered before anything else is set up; the rest of the
 * plans go to match_plan and selectors without one to the evaluator. */
dra_err *cel_dra_match(cel_program *p, const cel_dra_device *d, bool *matched)
{
    *matched = false;
    if (__builtin_expect(d->list_error != NULL, 0) && !d->error && cel_env_dra_lists_refused(p->env))
        return dra_err_new(DRA_EXIT_RUNTIME, "%s", d->list_error);
    const step *pl = p->ext;
    if (!pl)
        return d->error ? dra_plan_device_error(d) : match_general(p, d, matched);
    if ((pl->op == S_STR_EQ || pl->op == S_STR_NE) && pl->a0.op == S_FIELD && !d->error) {
        const cel_value *v = &d->fields[pl->a0.sub];
        if (v->kind == CEL_STRING) {
            *matched = same_string(v, &pl->value) == (pl->op == S_STR_EQ);
            return NULL;
        }
    }
    return match_plan(p, pl, d, matched);
}
