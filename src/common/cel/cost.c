/* Static cost estimation after cel-go checker/cost.go: per-node costs
 * (identifiers and field selections 1, literals 0, list literal 10, map
 * literal 30, message 40, calls by their overload's cost kind plus the
 * arguments), && / || / ?: with short-circuit minimums, and comprehensions
 * charged range-size × (condition + step).  Sizes come from literals, from
 * list/string concatenation and from the caller's size hint keyed by the
 * field path (AstNode.Path()). */
#include "checker.h"
#include "../base/utf8.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct est {
    uint64_t min, max;
} est;

static const est UNKNOWN_SIZE = {0, UINT64_MAX};

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
static est add(est a, est b) { return (est){sat_add(a.min, b.min), sat_add(a.max, b.max)}; }
static est unite(est a, est b) { return (est){a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max}; }
static est mul(est a, est b) { return (est){sat_mul(a.min, b.min), sat_mul(a.max, b.max)}; }

/* checker/cost.go multiplyByCostFactor, float for float: an unknown size
 * (UINT64_MAX) times 0.1 is 1844674407370955264, not "unknown". */
static uint64_t factor_ceil(uint64_t v, double f)
{
    double x = (double)v;
    if (x > 0 && f > 0 && x > (double)UINT64_MAX / f)
        return UINT64_MAX;
    double r = ceil(x * f);
    return r >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)r;
}
static est by_factor(est a, double f) { return (est){factor_ceil(a.min, f), factor_ceil(a.max, f)}; }

/* Per-node side data, indexed by position in a small table keyed by node. */
typedef struct node_info {
    const cel_node *node;
    const char **path; /* NULL when no path */
    size_t npath;
    bool has_size;
    est size;
} node_info;

typedef struct iter_range {
    const char *var;
    const cel_node *range; /* the range of an iteration variable, or ... */
    bool accu;             /* ... the initial value of an accumulator (cel.bind's variable) */
} iter_range;

typedef struct coster {
    const cel_cost_options *opts;
    node_info *info;
    size_t ninfo, capinfo;
    iter_range *iters;
    size_t niters, capiters;
} coster;

static node_info *info_of(coster *c, const cel_node *n, bool create)
{
    for (size_t i = c->ninfo; i-- > 0;)
        if (c->info[i].node == n)
            return &c->info[i];
    if (!create)
        return NULL;
    if (c->ninfo == c->capinfo) {
        c->capinfo = c->capinfo ? c->capinfo * 2 : 32;
        c->info = dra_xrealloc(c->info, c->capinfo * sizeof *c->info);
    }
    c->info[c->ninfo] = (node_info){.node = n};
    return &c->info[c->ninfo++];
}

static void set_path(coster *c, const cel_node *n, const char **base, size_t nbase, const char *last)
{
    node_info *ni = info_of(c, n, true);
    ni->path = dra_xmalloc((nbase + 1) * sizeof *ni->path);
    if (nbase)
        memcpy(ni->path, base, nbase * sizeof *base);
    ni->path[nbase] = last;
    ni->npath = nbase + 1;
}

static void set_size(coster *c, const cel_node *n, est size)
{
    node_info *ni = info_of(c, n, true);
    ni->has_size = true;
    ni->size = size;
}

static bool sized_kind(const cel_type *t)
{
    if (!t)
        return true;
    switch (t->kind) {
    case CEL_T_STRING: case CEL_T_BYTES: case CEL_T_LIST: case CEL_T_MAP:
    case CEL_T_DYN: case CEL_T_ANY: case CEL_T_PARAM: case CEL_T_ERROR:
        return true;
    default:
        return false;
    }
}

static uint64_t code_points(const char *s, size_t len) { return dra_utf8_len(s, len); }

/* cel-go coster.sizeEstimate. */
static est size_of(coster *c, const cel_node *n)
{
    if (!n)
        return UNKNOWN_SIZE;
    if (!sized_kind(n->type))
        return (est){1, 1};
    node_info *ni = info_of(c, n, false);
    if (ni && ni->has_size)
        return ni->size;
    switch (n->kind) {
    case CEL_NODE_CONST:
        if (n->u.constant.kind == CEL_CONST_STRING)
            return (est){code_points(n->u.constant.v.s.data, n->u.constant.v.s.len),
                         code_points(n->u.constant.v.s.data, n->u.constant.v.s.len)};
        if (n->u.constant.kind == CEL_CONST_BYTES)
            return (est){n->u.constant.v.s.len, n->u.constant.v.s.len};
        return (est){1, 1};
    case CEL_NODE_LIST:
        return (est){n->u.list.nelems, n->u.list.nelems};
    case CEL_NODE_MAP:
        return (est){n->u.map.nentries, n->u.map.nentries};
    default:
        break;
    }
    if (ni && ni->path && c->opts && c->opts->size_hint) {
        cel_size_range r;
        if (c->opts->size_hint(c->opts->size_hint_ctx, ni->path, ni->npath, &r))
            return (est){r.min, r.max};
    }
    return UNKNOWN_SIZE;
}

static est cost(coster *c, const cel_node *n);

static const iter_range *peek_iter(coster *c, const char *name)
{
    for (size_t i = c->niters; i-- > 0;)
        if (!strcmp(c->iters[i].var, name))
            return &c->iters[i];
    return NULL;
}

static void push_iter(coster *c, const char *var, const cel_node *range, bool accu)
{
    if (c->niters == c->capiters) {
        c->capiters = c->capiters ? c->capiters * 2 : 8;
        c->iters = dra_xrealloc(c->iters, c->capiters * sizeof *c->iters);
    }
    c->iters[c->niters++] = (iter_range){var, range, accu};
}

static est cost_ident(coster *c, const cel_node *n)
{
    const iter_range *local = peek_iter(c, n->u.ident.name);
    const cel_node *range = local && !local->accu ? local->range : NULL;
    if (local && local->accu) {
        /* an accumulator (cel.bind's variable): the path and size of its
         * initial value (cel-go coster.pushLocalVar, computeSize) */
        const cel_node *init = local->range;
        node_info *ii = info_of(c, init, false);
        if (ii && ii->path)
            set_path(c, n, ii->path, ii->npath - 1, ii->path[ii->npath - 1]);
        est sz = size_of(c, init);
        if (sz.max != UINT64_MAX || sz.min != 0)
            set_size(c, n, sz);
    } else if (range) {
        node_info *ri = info_of(c, range, false);
        if (ri && ri->path && range->type) {
            if (range->type->kind == CEL_T_LIST)
                set_path(c, n, ri->path, ri->npath, "@items");
            else if (range->type->kind == CEL_T_MAP)
                set_path(c, n, ri->path, ri->npath, "@keys");
        }
    } else {
        set_path(c, n, NULL, 0, n->u.ident.name);
    }
    return (est){1, 1};
}

static est cost_select(coster *c, const cel_node *n)
{
    const cel_node *op = n->u.select.operand;
    if (n->u.select.test_only) {
        est sum = c->opts && c->opts->presence_test_has_cost ? (est){1, 1} : (est){0, 0};
        return add(sum, cost(c, op));
    }
    est sum = cost(c, op);
    const cel_type *t = op->type;
    if (!t || t->kind == CEL_T_MAP || t->kind == CEL_T_STRUCT || t->kind == CEL_T_PARAM)
        sum = add(sum, (est){1, 1});
    node_info *oi = info_of(c, op, false);
    if (oi && oi->path)
        set_path(c, n, oi->path, oi->npath, n->u.select.field);
    return sum;
}

/* Cost of one overload given argument size estimates (functions.h kinds). */
static est overload_cost(const cel_overload *o, const est *sizes, size_t n)
{
    est s0 = n > 0 ? sizes[0] : (est){1, 1}, s1 = n > 1 ? sizes[1] : (est){1, 1};
    switch (o->cost) {
    case CEL_COST_TRAVERSE0:
        return by_factor(s0, o->factor);
    case CEL_COST_MIN_SIZE: { /* cel-go: {smallestMax > 0 ? 1 : 0, smallestMax} x factor */
        uint64_t smallest = s0.max < s1.max ? s0.max : s1.max;
        return by_factor((est){smallest > 0 ? 1 : 0, smallest}, o->factor);
    }
    case CEL_COST_SUM_SIZE:
        return by_factor(add(s0, s1), o->factor);
    case CEL_COST_PRODUCT:
        return mul(by_factor(s0, 0.1), by_factor(s1, 0.1));
    case CEL_COST_MATCHES:
        return mul(by_factor(add(s0, (est){1, 1}), 0.1), by_factor(s1, 0.25));
    case CEL_COST_SIZE1:
        return s1;
    case CEL_COST_CUSTOM: {
        est r = o->factor > 0 ? by_factor(s0, o->factor) : (est){1, 1};
        if (r.min < 1)
            r.min = 1;
        if (r.max < 1)
            r.max = 1;
        return r;
    }
    default:
        return (est){1, 1};
    }
}

/* Size estimate of a path below `base` (cel-go AstNode paths: "@items"). */
static est size_of_path(coster *c, const cel_node *base, const char *last)
{
    node_info *bi = info_of(c, base, false);
    if (!bi || !bi->path || !c->opts || !c->opts->size_hint)
        return UNKNOWN_SIZE;
    const char *path[32];
    if (bi->npath + 1 > sizeof path / sizeof path[0])
        return UNKNOWN_SIZE;
    memcpy(path, bi->path, bi->npath * sizeof *path);
    path[bi->npath] = last;
    cel_size_range r;
    if (c->opts->size_hint(c->opts->size_hint_ctx, path, bi->npath + 1, &r))
        return (est){r.min, r.max};
    return UNKNOWN_SIZE;
}

static bool is_one_of(const char *f, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f, names[i]))
            return true;
    return false;
}
#define IS_ONE_OF(f, ...) is_one_of(f, (const char *const[]){__VA_ARGS__}, \
                                    sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/* apiserver pkg/cel/library/cost.go EstimateCallCost for overload o of call
 * n (argv[0] is the target of a member call; sizes are the argument size
 * estimates).  False when the Kubernetes estimator has no rule (cel-go's
 * then applies).  Rules that upstream guards with `target != nil` apply to
 * member calls only, as upstream's do (so global quantity(), cidr(), isIP()
 * fall back to cel-go's default). */
static bool k8s_estimate(coster *c, const cel_node *n, const cel_overload *o, const cel_node *const *argv,
                         const est *sizes, size_t k, est *out)
{
    const char *f = o->function;
    bool member = n->u.call.target != NULL;
    size_t nargs = k - (member ? 1 : 0); /* arguments besides the target */
    const est *args = sizes + (member ? 1 : 0);
    const est one = {1, 1};
    const double T = 0.1;
    if (IS_ONE_OF(f, "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes")) {
        if (!member)
            return false;
        const cel_type *tt = argv[0]->type;
        if (tt && (tt->kind == CEL_T_LIST || tt->kind == CEL_T_MAP) && tt->nparams > 0) {
            est el = one;
            const cel_type *et = tt->params[0];
            if (et && (et->kind == CEL_T_STRING || et->kind == CEL_T_BYTES))
                el = add(el, by_factor(size_of_path(c, argv[0], "@items"), T));
            *out = mul(sizes[0], el);
        } else if (!strcmp(f, "includes")) {
            *out = sizes[0]; /* a dyn target may be a list: n comparisons of cost 1 */
        } else {
            *out = by_factor(sizes[0], T);
        }
        return true;
    }
    if (!strcmp(f, "url")) {
        if (nargs != 1)
            return false;
        *out = by_factor(args[0], T);
        set_size(c, n, args[0]);
        return true;
    }
    if (IS_ONE_OF(f, "cidr", "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver")) {
        if (nargs < 1)
            return false;
        *out = by_factor(args[0], T);
        return true;
    }
    if (!strcmp(f, "ip.isCanonical")) {
        if (nargs < 1)
            return false;
        *out = by_factor(args[0], 2 * T);
        return true;
    }
    if (!strcmp(f, "validate")) {
        /* MaxNameFormatRegexSize (128) times RegexStringLengthCostFactor */
        if (nargs < 1)
            return false;
        *out = by_factor(by_factor(args[0], T), 128 * 0.25);
        return true;
    }
    if (!strcmp(f, CEL_OP_EQUALS) && k == 2 && argv[0]->type && argv[1]->type &&
        cel_type_equal(argv[0]->type, argv[1]->type)) {
        /* equality of Kubernetes types: O(1), a format at most
         * MaxFormatSize (64) long, a URL as long as the longer literal */
        const cel_type *t = argv[0]->type;
        const char *name = t->name ? t->name : "";
        if (t->kind == CEL_T_OPAQUE && IS_ONE_OF(name, "net.IP", "net.CIDR", "kubernetes.Quantity",
                                                 "kubernetes.Semver")) {
            *out = one;
            return true;
        }
        if (t->kind == CEL_T_OPAQUE && !strcmp(name, "kubernetes.NamedFormat")) {
            *out = by_factor((est){1, 64}, T);
            return true;
        }
        if (t->kind == CEL_T_OPAQUE && !strcmp(name, "kubernetes.URL")) {
            /* library/cost.go reads the right operand's computed size twice */
            node_info *ri = info_of(c, argv[1], false);
            est size = ri && ri->has_size ? ri->size : one;
            *out = by_factor((est){1, size.max}, T);
            return true;
        }
        return false;
    }
    if (IS_ONE_OF(f, "lowerAscii", "upperAscii", "substring", "trim")) {
        if (!member)
            return false;
        *out = by_factor(sizes[0], T);
        set_size(c, n, sizes[0]);
        return true;
    }
    if (!strcmp(f, "replace")) {
        if (!member || nargs < 2)
            return false;
        est sz = sizes[0], from = args[0], to = args[1], count = {0, 0}, kept = {0, 0};
        if (from.min == 0) {
            count.max = sz.max < UINT64_MAX ? sz.max + 1 : sz.max;
            kept.max = sz.max;
        } else if (to.max <= from.min) {
            kept.max = sz.max;
        } else {
            count.max = (uint64_t)ceil((double)sz.max / (double)from.min);
        }
        if (from.max == 0) {
            count.min = sz.min < UINT64_MAX ? sz.min + 1 : sz.min;
            kept.min = sz.min;
        } else if (from.max <= to.min) {
            kept.min = sz.min;
        } else {
            count.min = (uint64_t)ceil((double)sz.min / (double)from.max);
        }
        set_size(c, n, add(mul(count, to), kept));
        *out = by_factor(sz, 2 * T);
        return true;
    }
    if (!strcmp(f, "split")) {
        if (!member)
            return false;
        uint64_t max = sizes[0].max;
        const cel_node *lim = nargs > 1 ? argv[2] : NULL;
        if (lim && lim->kind == CEL_NODE_CONST && lim->u.constant.kind == CEL_CONST_INT)
            max = (uint64_t)lim->u.constant.v.i; /* uint64(i), a negative limit too */
        set_size(c, n, (est){0, max});
        *out = by_factor(sizes[0], 2 * T);
        return true;
    }
    if (!strcmp(f, "join")) {
        if (!member)
            return false;
        est list = sizes[0], sz = {0, 0};
        const cel_type *tt = argv[0]->type;
        if (tt && tt->kind == CEL_T_LIST && tt->nparams > 0)
            sz = mul(list, size_of_path(c, argv[0], "@items"));
        if (nargs > 0) {
            est seps = {list.min > 0 ? list.min - 1 : 0, list.max > 0 ? list.max - 1 : 0};
            sz = add(sz, mul(args[0], seps));
        }
        set_size(c, n, sz);
        *out = by_factor(sz, T);
        return true;
    }
    if (!strcmp(f, "find") || !strcmp(f, "findAll")) {
        if (!member || nargs < 1)
            return false;
        set_size(c, n, (est){0, sizes[0].max});
        *out = mul(by_factor(add(sizes[0], one), T), by_factor(args[0], 0.25));
        return true;
    }
    if (!strcmp(f, "ip")) {
        if (!strcmp(o->id, "cidr_ip")) {
            *out = one; /* cidr.ip(): a field access */
            return true;
        }
        if (nargs < 1)
            return false;
        *out = by_factor(args[0], T);
        return true;
    }
    if (IS_ONE_OF(f, "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                  "isLinkLocalUnicast", "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan",
                  "isLessThan", "compareTo", "add", "sub")) {
        *out = one;
        return true;
    }
    if (!strcmp(f, "containsIP") || !strcmp(f, "containsCIDR")) {
        if (!member || nargs < 1)
            return false;
        est ipsz = {4, 16};
        est r = by_factor(add(ipsz, ipsz), T);
        if (f[8] == 'C')
            r = add(add(r, by_factor(ipsz, T)), one);
        if (!strcmp(o->id, "cidr_contains_ip_string") || !strcmp(o->id, "cidr_contains_cidr_string"))
            r = add(r, by_factor(args[0], T));
        *out = r;
        return true;
    }
    return false;
}

/* cel-go ext/lists.go nodeAsUintValue: an int literal (negative: 0), else dflt. */
static uint64_t literal_uint(const cel_node *n, uint64_t dflt)
{
    if (n->kind != CEL_NODE_CONST || n->u.constant.kind != CEL_CONST_INT)
        return dflt;
    return n->u.constant.v.i < 0 ? 0 : (uint64_t)n->u.constant.v.i;
}

/* cel-go's ext.Lists version 3 estimators (ext/lists.go: estimateListSlice,
 * estimateListsRange, estimateListReverse, estimateListFlatten,
 * estimateListDistinct, estimateListSortCost), which cel-go consults
 * before any other: a factor times a size, 1 for the call and 10 for the
 * list made; the result's size is that size.  False for other overloads. */
static bool lists_estimate(coster *c, const cel_node *n, const cel_overload *o, const cel_node *const *argv,
                           const est *sizes, size_t k, est *out)
{
    const char *id = o->id;
    bool member = n->u.call.target != NULL;
    double factor = 1;
    est size;
    if (!strcmp(id, "lists_range") && !member && k == 1) {
        uint64_t v = literal_uint(argv[0], UINT64_MAX);
        size = (est){v, v};
    } else if (!strcmp(id, "list_slice") && member && k == 3) {
        uint64_t span = literal_uint(argv[2], sizes[0].max) - literal_uint(argv[1], 0); /* wraps, as upstream's */
        size = (est){span, span};
    } else if (!strcmp(id, "list_reverse") && member && k == 1) {
        size = sizes[0];
    } else if ((!strcmp(id, "list_flatten") || !strcmp(id, "list_flatten_int")) && member && k <= 2) {
        factor = k == 2 ? (double)literal_uint(argv[1], UINT64_MAX) : 1;
        size = sizes[0];
    } else if (!strcmp(id, "list_distinct") || !strcmp(id, "list_sort") || !strcmp(id, "list_@sortByAssociatedKeys")) {
        if (!member || k != (strcmp(id, "list_@sortByAssociatedKeys") ? 1u : 2u))
            return false;
        const cel_node *l = argv[k - 1];
        const cel_type *t = l->type && l->type->kind == CEL_T_LIST && l->type->nparams ? l->type->params[0] : NULL;
        factor = strcmp(id, "list_distinct") && t && (t->kind == CEL_T_STRING || t->kind == CEL_T_BYTES) ? 2.1 : 2;
        size = mul(sizes[k - 1], sizes[k - 1]);
    } else {
        return false;
    }
    set_size(c, n, size);
    *out = add(by_factor(size, factor), (est){11, 11});
    return true;
}

static est cost_call(coster *c, const cel_node *n)
{
    const char *fn = n->u.call.function;
    size_t nargs = n->u.call.nargs + (n->u.call.target ? 1 : 0);
    const cel_node *argv[CEL_MAX_ARGS + 4];
    est costs[CEL_MAX_ARGS + 4];
    size_t k = 0;
    est sum = {0, 0};
    if (n->u.call.target && k < sizeof argv / sizeof *argv)
        argv[k++] = n->u.call.target;
    for (size_t i = 0; i < n->u.call.nargs && k < sizeof argv / sizeof *argv; i++)
        argv[k++] = n->u.call.args[i];
    if (nargs > k) { /* more arguments than any overload takes: cost them plainly */
        for (size_t i = 0; i < n->u.call.nargs; i++)
            sum = add(sum, cost(c, n->u.call.args[i]));
        return add(sum, (est){1, 1});
    }
    for (size_t i = 0; i < k; i++) {
        costs[i] = cost(c, argv[i]);
        sum = add(sum, costs[i]);
    }
    if (!strcmp(fn, CEL_OP_LOGICAL_AND) || !strcmp(fn, CEL_OP_LOGICAL_OR)) {
        if (k == 2)
            return (est){costs[0].min, add(costs[0], costs[1]).max};
        return sum;
    }
    if (!strcmp(fn, CEL_OP_CONDITIONAL) && k == 3) {
        est branches = unite(costs[1], costs[2]);
        return add(costs[0], branches);
    }
    /* Paths through index operations (cel-go adds @items / @values). */
    if ((!strcmp(fn, CEL_OP_INDEX) || !strcmp(fn, CEL_OP_OPT_INDEX)) && k == 2) {
        node_info *ti = info_of(c, argv[0], false);
        const cel_type *t = argv[0]->type;
        if (ti && ti->path && t) {
            if (t->kind == CEL_T_LIST)
                set_path(c, n, ti->path, ti->npath, "@items");
            else if (t->kind == CEL_T_MAP)
                set_path(c, n, ti->path, ti->npath, "@values");
        }
    }
    if (!strcmp(fn, CEL_OP_OPT_SELECT) && k == 2) {
        node_info *ti = info_of(c, argv[0], false);
        const cel_node *f = argv[1];
        if (ti && ti->path && f->kind == CEL_NODE_CONST && f->u.constant.kind == CEL_CONST_STRING)
            set_path(c, n, ti->path, ti->npath, f->u.constant.v.s.data);
    }
    est sizes[CEL_MAX_ARGS + 4];
    for (size_t i = 0; i < k; i++)
        sizes[i] = size_of(c, argv[i]);
    if (n->u.call.noverloads == 0)
        return add(sum, (est){1, 1});
    est fc = {0, 0};
    bool first = true;
    for (size_t i = 0; i < n->u.call.noverloads; i++) {
        const cel_overload *o = n->u.call.overloads[i];
        est oc;
        if (!lists_estimate(c, n, o, argv, sizes, k, &oc) &&
            !(c->opts && c->opts->kubernetes_costs && k8s_estimate(c, n, o, argv, sizes, k, &oc)))
            oc = overload_cost(o, sizes, k);
        fc = first ? oc : unite(fc, oc);
        first = false;
        /* Result sizes of concatenations. */
        if (k == 2 && (!strcmp(o->id, "add_list") || !strcmp(o->id, "add_string") || !strcmp(o->id, "add_bytes")))
            set_size(c, n, add(sizes[0], sizes[1]));
    }
    return add(sum, fc);
}

static est cost_comprehension(coster *c, const cel_node *n)
{
    est sum = cost(c, n->u.comp.iter_range);
    sum = add(sum, cost(c, n->u.comp.accu_init));
    push_iter(c, n->u.comp.accu_var, n->u.comp.accu_init, true);
    push_iter(c, n->u.comp.iter_var, n->u.comp.iter_range, false);
    est loop = cost(c, n->u.comp.loop_condition);
    est step = cost(c, n->u.comp.loop_step);
    c->niters--;
    sum = add(sum, cost(c, n->u.comp.result));
    c->niters--;
    est range = size_of(c, n->u.comp.iter_range);
    set_size(c, n, range);
    return add(sum, mul(range, add(step, loop)));
}

static est cost(coster *c, const cel_node *n)
{
    if (!n)
        return (est){0, 0};
    switch (n->kind) {
    case CEL_NODE_CONST:
        return (est){0, 0};
    case CEL_NODE_IDENT:
        return cost_ident(c, n);
    case CEL_NODE_SELECT:
        return cost_select(c, n);
    case CEL_NODE_CALL:
        return cost_call(c, n);
    case CEL_NODE_LIST: {
        est s = {10, 10};
        for (size_t i = 0; i < n->u.list.nelems; i++)
            s = add(s, cost(c, n->u.list.elems[i]));
        return s;
    }
    case CEL_NODE_MAP:
    case CEL_NODE_STRUCT: {
        est s = n->kind == CEL_NODE_MAP ? (est){30, 30} : (est){40, 40};
        for (size_t i = 0; i < n->u.map.nentries; i++) {
            s = add(s, cost(c, n->u.map.entries[i].key));
            s = add(s, cost(c, n->u.map.entries[i].value));
        }
        return s;
    }
    case CEL_NODE_COMPREHENSION:
        return cost_comprehension(c, n);
    }
    return (est){0, 0};
}

void cel_estimate_cost(const cel_ast *ast, const cel_cost_options *opts, uint64_t *min, uint64_t *max)
{
    coster c = {.opts = opts};
    est e = cost(&c, ast->root);
    for (size_t i = 0; i < c.ninfo; i++)
        free(c.info[i].path);
    free(c.info);
    free(c.iters);
    *min = e.min;
    *max = e.max;
}

/* DRA device sizes (dra.md §2.3, resource.k8s.io limits): driver name ≤ 63,
 * ≤ 32 domains of ≤ 32 entries, domain ≤ 63, identifier ≤ 32, string values ≤ 64. */
bool cel_dra_size_hint(void *ctx, const char *const *path, size_t n, cel_size_range *out)
{
    if (n < 2 || strcmp(path[0], "device"))
        return false;
    bool attrs = !strcmp(path[1], "attributes"), caps = !strcmp(path[1], "capacity");
    if (n == 2) {
        if (!strcmp(path[1], "driver")) {
            *out = (cel_size_range){0, 63};
            return true;
        }
        if (attrs || caps) {
            *out = (cel_size_range){0, 32};
            return true;
        }
        return false;
    }
    if (!attrs && !caps)
        return false;
    if (n == 3) {
        *out = !strcmp(path[2], "@keys") ? (cel_size_range){0, 63} : (cel_size_range){0, 32};
        return true;
    }
    if (n == 4) {
        if (!strcmp(path[3], "@keys")) {
            *out = (cel_size_range){0, 32};
            return true;
        }
        if (attrs) {
            *out = (cel_size_range){0, 64};
            return true;
        }
    }
    return false;
}
