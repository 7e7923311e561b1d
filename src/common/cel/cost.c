/* Static cost estimation as cel-go v0.29.2 checker/cost.go does it: per
 * node costs (identifiers and field selections 1, literals 0, list literal
 * 10, map literal 30, message 40, calls as functionCost prices their
 * overloads plus the arguments), && / || / ?: with short-circuit minimums,
 * dyn() transparent to sizes, cel.bind's variable sized by its value, and
 * comprehensions charged range size × (condition + step).  Sizes come, in
 * cel-go's order (coster.computeSize), from what a call or literal made,
 * from the caller's size hint keyed by the field path (AstNode.Path()),
 * from scalar types, and from local variables; list and map literals also
 * carry the sizes of their entries (computeEntrySize), which iteration
 * variables and indexes take on. */
#include "checker.h"
#include "../base/utf8.h"
#include "../model/validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct est {
    uint64_t min, max;
} est;

static const est UNKNOWN_SIZE = {0, UINT64_MAX};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
static est add(est a, est b)
{
    return (est){sat_add(a.min, b.min), sat_add(a.max, b.max)};
}
static est unite(est a, est b)
{
    return (est){a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max};
}
static est mul(est a, est b)
{
    return (est){sat_mul(a.min, b.min), sat_mul(a.max, b.max)};
}

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
static est by_factor(est a, double f)
{
    return (est){factor_ceil(a.min, f), factor_ceil(a.max, f)};
}

/* cel-go v0.33 common/cost helper.go scale, which its overload models
 * (Scale) use at every model version: ceil(x·p/q) computed exactly, p/q
 * being the factor as the simplest fraction (0.1 is 1/10), and an
 * unbounded x stays unbounded. */
static uint64_t exact_scale(uint64_t x, uint64_t p, uint64_t q)
{
    if (x == 0 || p == 0)
        return 0;
    if (x == UINT64_MAX)
        return UINT64_MAX;
    unsigned __int128 prod = (unsigned __int128)x * p;
    if ((uint64_t)(prod >> 64) >= q)
        return UINT64_MAX;
    unsigned __int128 quo = prod / q;
    if (prod % q && (uint64_t)quo == UINT64_MAX)
        return UINT64_MAX;
    return (uint64_t)quo + (prod % q ? 1 : 0);
}

/* A standard call's factor: cel-go v0.33's model Scale (exact) under
 * 1.38, else checker/cost.go's float multiplyByCostFactor; f is p/q. */
static est model_scale(const cel_cost_options *o, est a, uint64_t p, uint64_t q)
{
    if (o && o->cel_go_033)
        return (est){exact_scale(a.min, p, q), exact_scale(a.max, p, q)};
    return by_factor(a, (double)p / (double)q);
}

/* cel-go v0.33 common/cost standard.go roundScale, the version 0 models
 * of matches() and contains(): Ranged(Scale(a), Scale(a)), whose lower
 * bound model.go rangedBounds caps at the upper one, so an inverted
 * size (replace() can yield one) prices as its upper bound. */
static est model_round_scale(const cel_cost_options *o, est a, uint64_t p, uint64_t q)
{
    est r = model_scale(o, a, p, q);
    if (o && o->cel_go_033 && r.min > r.max)
        r.min = r.max;
    return r;
}

/* Go's uint64(x) on amd64, out of range included: 2^64 becomes 2^63. */
static uint64_t go_uint64(double x)
{
    const double two63 = 9223372036854775808.0;
    if (!(x >= 0))
        return x > -two63 ? (uint64_t)(int64_t)x : UINT64_C(1) << 63;
    if (x < two63)
        return (uint64_t)(int64_t)x;
    double y = x - two63;
    return (y < two63 ? (uint64_t)(int64_t)y : 0) | UINT64_C(1) << 63;
}

/* The sizes of a list's or map's entries (cel-go entrySizeEstimate);
 * container is CEL_T_LIST or CEL_T_MAP.  Under 1.38 sub holds the entry
 * sizes of the values themselves, lists or maps (cel-go v0.33 keeps
 * SizeEstimate.Elem at every level); NULL when unknown.  It points into
 * the coster's kept entries. */
typedef struct entry_size {
    cel_type_kind container;
    est key, val;
    const struct entry_size *sub;
} entry_size;

/* A field path (cel-go AstNode.Path()); n == 0 is no path.  cap is the
 * capacity the Go slice would have: cel-go appends to paths, so two
 * appends to one path with room share their last element. */
typedef struct fpath {
    const char **v;
    size_t n, cap;
} fpath;

/* Per-node side data (cel-go exprPaths, computedSizes, computedEntrySizes). */
typedef struct node_info {
    const cel_node *node;
    fpath path;
    bool has_size, has_entry;
    est size;
    entry_size entry;
} node_info;

/* A variable a comprehension or cel.bind declares (cel-go localVar). */
typedef struct local_var {
    const char *name;
    fpath path;
    bool has_size, has_entry;
    est size;
    entry_size entry;
} local_var;

typedef struct coster {
    const cel_cost_options *opts;
    node_info *info;
    size_t ninfo, capinfo;
    local_var *locals;
    size_t nlocals, caplocals;
    const char ***paths; /* every path array made, freed at the end */
    size_t npaths, cappaths;
    entry_size **kept; /* every nested entry_size made, freed at the end */
    size_t nkept, capkept;
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

/* base + last (cel-go append(path, last)). */
static fpath extend(coster *c, fpath base, const char *last)
{
    const char **v = dra_xmalloc((base.n + 1) * sizeof *v);
    if (base.n)
        memcpy(v, base.v, base.n * sizeof *v);
    v[base.n] = last;
    if (c->npaths == c->cappaths) {
        c->cappaths = c->cappaths ? c->cappaths * 2 : 16;
        c->paths = dra_xrealloc(c->paths, c->cappaths * sizeof *c->paths);
    }
    c->paths[c->npaths++] = v;
    /* Go's append: the same array while there is room, else twice the room */
    size_t cap = base.n < base.cap ? base.cap : base.cap ? 2 * base.cap : 1;
    return (fpath){v, base.n + 1, cap};
}

/* A copy of *e that lives as long as the coster (NULL stays NULL). */
static const entry_size *keep_entry(coster *c, const entry_size *e)
{
    if (!e)
        return NULL;
    entry_size *k = dra_xmalloc(sizeof *k);
    *k = *e;
    if (c->nkept == c->capkept) {
        c->capkept = c->capkept ? c->capkept * 2 : 16;
        c->kept = dra_xrealloc(c->kept, c->capkept * sizeof *c->kept);
    }
    c->kept[c->nkept++] = k;
    return k;
}

/* cel-go v0.33 common/cost cost.go mergeSizeEstimatePtr on the entries
 * of values: either one when the other is unknown, else their union at
 * every level. */
static const entry_size *sub_union(coster *c, const entry_size *a, const entry_size *b)
{
    if (!a || !b || a == b)
        return a ? a : b;
    entry_size u = {a->container, unite(a->key, b->key), unite(a->val, b->val), sub_union(c, a->sub, b->sub)};
    return keep_entry(c, &u);
}

static const local_var *peek_local(const coster *c, const char *name)
{
    for (size_t i = c->nlocals; i-- > 0;)
        if (!strcmp(c->locals[i].name, name))
            return &c->locals[i];
    return NULL;
}

static void push_local(coster *c, local_var v)
{
    if (c->nlocals == c->caplocals) {
        c->caplocals = c->caplocals ? c->caplocals * 2 : 8;
        c->locals = dra_xrealloc(c->locals, c->caplocals * sizeof *c->locals);
    }
    c->locals[c->nlocals++] = v;
}

/* cel-go coster.getPath: a local variable's, else what the node was given. */
static fpath get_path(coster *c, const cel_node *n)
{
    if (n->kind == CEL_NODE_IDENT) {
        const local_var *v = peek_local(c, n->u.ident.name);
        if (v)
            return v->path;
    }
    node_info *ni = info_of(c, n, false);
    return ni ? ni->path : (fpath){NULL, 0, 0};
}

static void set_path(coster *c, const cel_node *n, fpath p)
{
    info_of(c, n, true)->path = p;
}

static void set_size(coster *c, const cel_node *n, est size)
{
    node_info *ni = info_of(c, n, true);
    ni->has_size = true;
    ni->size = size;
}

static void set_entry(coster *c, const cel_node *n, const entry_size *e)
{
    if (!e)
        return;
    node_info *ni = info_of(c, n, true);
    ni->has_entry = true;
    ni->entry = *e;
}

/* checker/cost.go isScalar: a size known before evaluation.  cel-go
 * v0.33 (v033) counts type values too (common/cost estimator.go
 * isScalar), and at model version 0 an optional of a scalar, one level
 * only (computeTypeSize). */
static bool scalar(const cel_type *t, bool v033)
{
    if (!t)
        return false;
    switch (t->kind) {
    case CEL_T_BOOL:
    case CEL_T_DOUBLE:
    case CEL_T_DURATION:
    case CEL_T_INT:
    case CEL_T_TIMESTAMP:
    case CEL_T_UINT: return true;
    case CEL_T_TYPE: return v033;
    case CEL_T_OPTIONAL:
        return t->nparams > 0 && (!v033 || t->params[0]->kind != CEL_T_OPTIONAL) && scalar(t->params[0], v033);
    default: return false;
    }
}

static bool hint(coster *c, fpath p, est *out)
{
    cel_size_range r;
    if (!p.n || !c->opts || !c->opts->size_hint || !c->opts->size_hint(c->opts->size_hint_ctx, p.v, p.n, &r))
        return false;
    *out = (est){r.min, r.max};
    return true;
}

/* cel-go coster.computeSize: false when nothing tells. */
static bool compute_size(coster *c, const cel_node *n, est *out)
{
    node_info *ni = info_of(c, n, false);
    if (ni && ni->has_size) {
        *out = ni->size;
        return true;
    }
    switch (n->kind) { /* computeExprSize */
    case CEL_NODE_CONST: {
        const cel_const *k = &n->u.constant;
        uint64_t v = k->kind == CEL_CONST_STRING  ? dra_utf8_len(k->v.s.data, k->v.s.len)
                     : k->kind == CEL_CONST_BYTES ? k->v.s.len
                                                  : 1;
        *out = (est){v, v};
        return true;
    }
    case CEL_NODE_LIST: *out = (est){n->u.list.nelems, n->u.list.nelems}; return true;
    case CEL_NODE_MAP: *out = (est){n->u.map.nentries, n->u.map.nentries}; return true;
    default: break;
    }
    if (hint(c, get_path(c, n), out)) {
        set_size(c, n, *out);
        return true;
    }
    if (scalar(n->type, c->opts && c->opts->cel_go_033)) {
        *out = (est){1, 1};
        return true;
    }
    if (n->kind == CEL_NODE_IDENT) {
        const local_var *v = peek_local(c, n->u.ident.name);
        if (v && v->has_size) {
            *out = v->size;
            return true;
        }
    }
    return false;
}

/* cel-go coster.sizeOrUnknown. */
static est size_of(coster *c, const cel_node *n)
{
    est s;
    return n && compute_size(c, n, &s) ? s : UNKNOWN_SIZE;
}

/* cel-go coster.computeEntrySize: NULL when unknown (the result is copied
 * into *buf). */
static const entry_size *compute_entry(coster *c, const cel_node *n, entry_size *buf)
{
    node_info *ni = info_of(c, n, false);
    if (ni && ni->has_entry) {
        *buf = ni->entry;
        return buf;
    }
    if (n->kind == CEL_NODE_IDENT) {
        const local_var *v = peek_local(c, n->u.ident.name);
        if (v && v->has_entry) {
            *buf = v->entry;
            return buf;
        }
    }
    return NULL;
}

/* entrySizeEstimate.union: unknown unless both are known. */
static const entry_size *entry_union(const entry_size *a, const entry_size *b, entry_size *buf)
{
    if (!a || !b)
        return NULL;
    *buf = (entry_size){a->container, unite(a->key, b->key), unite(a->val, b->val), NULL};
    return buf;
}

/* cel-go v0.33 common/cost helper.go mergeMeta, for two operands sized sa
 * and sb: an operand that states no entry sizes adds nothing when it is
 * empty and unknown entries when it may hold some. */
static const entry_size *entry_merge(coster *c, const entry_size *a, est sa, const entry_size *b, est sb,
                                     entry_size *buf)
{
    if (!a && !b)
        return NULL;
    const entry_size *x = a ? a : b, *y = a ? b : NULL;
    est sy = a ? sb : sa;
    *buf = *x;
    if (y)
        *buf = (entry_size){x->container, unite(x->key, y->key), unite(x->val, y->val), sub_union(c, x->sub, y->sub)};
    else if (sy.max > 0)
        *buf = (entry_size){x->container, UNKNOWN_SIZE, UNKNOWN_SIZE, NULL};
    return buf;
}

/* The entry sizes of a result made of two operands: cel-go v0.33's
 * mergeMeta under 1.38, else known only when both are (v0.29
 * entrySizeEstimate.union). */
static const entry_size *entry_of_two(coster *c, const cel_node *a, const cel_node *b, entry_size *buf)
{
    entry_size ba, bb;
    const entry_size *ea = compute_entry(c, a, &ba), *eb = compute_entry(c, b, &bb);
    if (c->opts && c->opts->cel_go_033)
        return entry_merge(c, ea, size_of(c, a), eb, size_of(c, b), buf);
    return entry_union(ea, eb, buf);
}

/* Copy n's computed size and entry sizes from src (copySizeEstimates). */
static void copy_sizes(coster *c, const cel_node *n, const cel_node *src)
{
    est s;
    entry_size buf;
    if (compute_size(c, src, &s))
        set_size(c, n, s);
    set_entry(c, n, compute_entry(c, src, &buf));
}

static est cost(coster *c, const cel_node *n);

/* A literal's value entries so far (acc) with value v's (cel-go v0.33
 * default_strategy.go estimateListExpr, unionAccumulator); none before
 * 1.38. */
static const entry_size *entry_sub(coster *c, const entry_size *acc, const cel_node *v)
{
    entry_size buf;
    if (!(c->opts && c->opts->cel_go_033))
        return NULL;
    return sub_union(c, acc, keep_entry(c, compute_entry(c, v, &buf)));
}

static est cost_ident(coster *c, const cel_node *n)
{
    const local_var *v = peek_local(c, n->u.ident.name);
    set_path(c, n, v ? v->path : extend(c, (fpath){NULL, 0, 0}, n->u.ident.name));
    return (est){1, 1};
}

/* cel-go v0.33 common/cost estimator.go branchQualifierCost: a presence
 * test on an attribute chain rooted at a ternary qualifies the branch the
 * ternary picks, and the interpreter charges 1 for that when the branch
 * is computed (no attribute chain, or a presence test itself); a branch
 * that is a chain rooted at another ternary costs what that one picks. */
static est branch_qualifier_cost(const cel_node *operand)
{
    const cel_node *root = cel_ast_chain_root(operand);
    if (!cel_ast_is_call(root, CEL_OP_CONDITIONAL) || root->u.call.nargs != 3)
        return (est){0, 0};
    est b[2];
    for (int i = 0; i < 2; i++) {
        const cel_node *br = root->u.call.args[i + 1];
        bool computed = !cel_ast_is_attribute_chain(br) || (br->kind == CEL_NODE_SELECT && br->u.select.test_only);
        b[i] = computed ? (est){1, 1} : branch_qualifier_cost(br);
    }
    return unite(b[0], b[1]);
}

static est cost_select(coster *c, const cel_node *n)
{
    const cel_node *op = n->u.select.operand;
    bool v033 = c->opts && c->opts->cel_go_033;
    if (n->u.select.test_only) {
        est sum = c->opts && c->opts->presence_test_has_cost ? (est){1, 1} : (est){0, 0};
        if (v033)
            sum = add(sum, branch_qualifier_cost(op));
        sum = add(sum, cost(c, op));
        /* v0.33 tracks a presence test's path too, so has(a.b) is sized
         * as a.b (== charges it by that size); v0.29 tracks none */
        if (v033 && get_path(c, op).n)
            set_path(c, n, extend(c, get_path(c, op), n->u.select.field));
        return sum;
    }
    est sum = cost(c, op);
    const cel_type *t = op->type;
    /* v0.33 charges every selection, a dyn operand's too (v0.29: maps,
     * structs and type parameters only) */
    if (v033 || !t || t->kind == CEL_T_MAP || t->kind == CEL_T_STRUCT || t->kind == CEL_T_PARAM)
        sum = add(sum, (est){1, 1});
    set_path(c, n, extend(c, get_path(c, op), n->u.select.field));
    return sum;
}

/* Size estimate of a path below `base` (cel-go AstNode paths: "@items"). */
static est size_of_path(coster *c, const cel_node *base, const char *last)
{
    fpath p = get_path(c, base);
    est r;
    if (!p.n || !hint(c, extend(c, p, last), &r))
        return UNKNOWN_SIZE;
    return r;
}

static bool is_one_of(const char *f, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f, names[i]))
            return true;
    return false;
}
/* clang-format off */
#define IS_ONE_OF(f, ...) is_one_of(f, (const char *const[]){__VA_ARGS__}, \
                                    sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))
/* clang-format on */

/* A call the Kubernetes estimator prices: overload o of call n (argv[0] is
 * the target of a member call; sizes are the argument size estimates,
 * args those of the arguments besides the target). */
typedef struct {
    coster *c;
    const cel_node *n;
    const cel_overload *o;
    const cel_node *const *argv;
    const est *sizes, *args;
    size_t k, nargs;
    bool member;
} k8s_call;

/* common.StringTraversalCostFactor */
static const double K8S_TRAVERSAL = 0.1;

/* library/cost.go: isSorted, sum, max, min, indexOf, lastIndexOf, includes
 * (member calls): one comparison an element, a string's its traversal. */
static bool k8s_list_cost(const k8s_call *x, est *out)
{
    if (!x->member)
        return false;
    const cel_type *tt = x->argv[0]->type;
    if (tt && (tt->kind == CEL_T_LIST || tt->kind == CEL_T_MAP) && tt->nparams > 0) {
        est el = {1, 1};
        const cel_type *et = tt->params[0];
        if (et && (et->kind == CEL_T_STRING || et->kind == CEL_T_BYTES))
            el = add(el, by_factor(size_of_path(x->c, x->argv[0], "@items"), K8S_TRAVERSAL));
        *out = mul(x->sizes[0], el);
    } else if (!strcmp(x->o->function, "includes")) {
        *out = x->sizes[0]; /* a dyn target may be a list: n comparisons of cost 1 */
    } else {
        *out = by_factor(x->sizes[0], K8S_TRAVERSAL);
    }
    return true;
}

/* library/cost.go: the parsers and format checks (url, cidr, isIP,
 * isCIDR, quantity, isQuantity, semver, isSemver, ip.isCanonical, validate):
 * one traversal of the argument. */
static bool k8s_parse_cost(const k8s_call *x, est *out)
{
    const char *f = x->o->function;
    if (x->nargs < 1 || (!strcmp(f, "url") && x->nargs != 1))
        return false;
    const est a = x->args[0];
    if (!strcmp(f, "url")) {
        *out = by_factor(a, K8S_TRAVERSAL);
        set_size(x->c, x->n, a);
    } else if (!strcmp(f, "ip.isCanonical")) {
        *out = by_factor(a, 2 * K8S_TRAVERSAL);
    } else if (!strcmp(f, "validate")) {
        /* MaxNameFormatRegexSize (128) times RegexStringLengthCostFactor */
        *out = by_factor(by_factor(a, K8S_TRAVERSAL), 128 * 0.25);
    } else {
        *out = by_factor(a, K8S_TRAVERSAL);
    }
    return true;
}

/* library/cost.go: equality of two operands of one Kubernetes type: O(1),
 * a format at most MaxFormatSize (64) long, a URL as long as the longer
 * literal. */
static bool k8s_equals_cost(const k8s_call *x, est *out)
{
    if (x->k != 2 || !x->argv[0]->type || !x->argv[1]->type || !cel_type_equal(x->argv[0]->type, x->argv[1]->type))
        return false;
    const cel_type *t = x->argv[0]->type;
    const char *name = t->name ? t->name : "";
    if (t->kind != CEL_T_OPAQUE)
        return false;
    if (IS_ONE_OF(name, "net.IP", "net.CIDR", "kubernetes.Quantity", "kubernetes.Semver")) {
        *out = (est){1, 1};
        return true;
    }
    if (!strcmp(name, "kubernetes.NamedFormat")) {
        *out = by_factor((est){1, 64}, K8S_TRAVERSAL);
        return true;
    }
    if (!strcmp(name, "kubernetes.URL")) {
        /* library/cost.go reads the right operand's computed size twice */
        est size;
        if (!compute_size(x->c, x->argv[1], &size))
            size = (est){1, 1};
        *out = by_factor((est){1, size.max}, K8S_TRAVERSAL);
        return true;
    }
    return false;
}

/* One bound of replace's result size, from that bound of the target's size
 * (sz), the other bound of the string replaced (from) and whether the
 * replacement is no longer than it (shrinks): the replacements there can
 * be (*count) and the target's bytes kept (*kept). */
static void k8s_replace_bound(uint64_t sz, uint64_t from, bool shrinks, uint64_t *count, uint64_t *kept)
{
    if (from == 0) {
        *count = sz < UINT64_MAX ? sz + 1 : sz;
        *kept = sz;
    } else if (shrinks) {
        *kept = sz;
    } else {
        *count = go_uint64(ceil((double)sz / (double)from));
    }
}

/* library/cost.go: replace's result size, from the target's (sz) and the
 * sizes of the string replaced (from) and its replacement (to). */
static est k8s_replace_size(est sz, est from, est to)
{
    est count = {0, 0}, kept = {0, 0};
    k8s_replace_bound(sz.max, from.min, to.max <= from.min, &count.max, &kept.max);
    k8s_replace_bound(sz.min, from.max, from.max <= to.min, &count.min, &kept.min);
    return add(mul(count, to), kept);
}

/* library/cost.go: the string functions of member calls (lowerAscii,
 * upperAscii, substring, trim, replace, split, join, find, findAll), which
 * size their results too. */
static bool k8s_string_cost(const k8s_call *x, est *out)
{
    const char *f = x->o->function;
    coster *c = x->c;
    const est *sizes = x->sizes, *args = x->args;
    if (!x->member)
        return false;
    if (IS_ONE_OF(f, "lowerAscii", "upperAscii", "substring", "trim")) {
        *out = by_factor(sizes[0], K8S_TRAVERSAL);
        set_size(c, x->n, sizes[0]);
    } else if (!strcmp(f, "replace")) {
        if (x->nargs < 2)
            return false;
        set_size(c, x->n, k8s_replace_size(sizes[0], args[0], args[1]));
        *out = by_factor(sizes[0], 2 * K8S_TRAVERSAL);
    } else if (!strcmp(f, "split")) {
        uint64_t max = sizes[0].max;
        const cel_node *lim = x->nargs > 1 ? x->argv[2] : NULL;
        if (lim && lim->kind == CEL_NODE_CONST && lim->u.constant.kind == CEL_CONST_INT)
            max = (uint64_t)lim->u.constant.v.i; /* uint64(i), a negative limit too */
        set_size(c, x->n, (est){0, max});
        *out = by_factor(sizes[0], 2 * K8S_TRAVERSAL);
    } else if (!strcmp(f, "join")) {
        est list = sizes[0], sz = {0, 0};
        const cel_type *tt = x->argv[0]->type;
        if (tt && tt->kind == CEL_T_LIST && tt->nparams > 0)
            sz = mul(list, size_of_path(c, x->argv[0], "@items"));
        if (x->nargs > 0) {
            est seps = {list.min > 0 ? list.min - 1 : 0, list.max > 0 ? list.max - 1 : 0};
            sz = add(sz, mul(args[0], seps));
        }
        set_size(c, x->n, sz);
        *out = by_factor(sz, K8S_TRAVERSAL);
    } else { /* find, findAll */
        if (x->nargs < 1)
            return false;
        set_size(c, x->n, (est){0, sizes[0].max});
        *out = mul(by_factor(add(sizes[0], (est){1, 1}), K8S_TRAVERSAL), by_factor(args[0], 0.25));
    }
    return true;
}

/* library/cost.go: ip(), cidr.ip(), containsIP and containsCIDR; the
 * accessors of IPs, CIDRs and quantities cost 1. */
static bool k8s_net_cost(const k8s_call *x, est *out)
{
    const char *f = x->o->function, *id = x->o->id;
    const est one = {1, 1};
    if (!strcmp(f, "ip")) {
        if (!strcmp(id, "cidr_ip")) {
            *out = one; /* cidr.ip(): a field access */
            return true;
        }
        if (x->nargs < 1)
            return false;
        *out = by_factor(x->args[0], K8S_TRAVERSAL);
        return true;
    }
    if (!strcmp(f, "containsIP") || !strcmp(f, "containsCIDR")) {
        if (!x->member || x->nargs < 1)
            return false;
        est ipsz = {4, 16};
        est r = by_factor(add(ipsz, ipsz), K8S_TRAVERSAL);
        if (f[8] == 'C')
            r = add(add(r, by_factor(ipsz, K8S_TRAVERSAL)), one);
        if (!strcmp(id, "cidr_contains_ip_string") || !strcmp(id, "cidr_contains_cidr_string"))
            r = add(r, by_factor(x->args[0], K8S_TRAVERSAL));
        *out = r;
        return true;
    }
    *out = one;
    return true;
}

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
    size_t first = member ? 1 : 0;
    const k8s_call x = {c, n, o, argv, sizes, sizes + first, k, k - first, member};
    if (IS_ONE_OF(f, "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"))
        return k8s_list_cost(&x, out);
    if (IS_ONE_OF(f, "url", "cidr", "isIP", "isCIDR", "quantity", "isQuantity", "semver", "isSemver", "ip.isCanonical",
                  "validate"))
        return k8s_parse_cost(&x, out);
    if (!strcmp(f, CEL_OP_EQUALS))
        return k8s_equals_cost(&x, out);
    if (IS_ONE_OF(f, "lowerAscii", "upperAscii", "substring", "trim", "replace", "split", "join", "find", "findAll"))
        return k8s_string_cost(&x, out);
    if (c->opts->cel_go_033 && member &&
        IS_ONE_OF(f, "getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery")) {
        /* 1.38: a URL accessor's result is as long as the URL, its escaped
         * path up to three times that (%XX) */
        set_size(c, n, !strcmp(f, "getEscapedPath") ? mul(sizes[0], (est){1, 3}) : sizes[0]);
        *out = (est){1, 1};
        return true;
    }
    if (IS_ONE_OF(f, "ip", "containsIP", "containsCIDR", "masked", "prefixLength", "family", "isUnspecified",
                  "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "sign", "asInteger", "isInteger",
                  "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub"))
        return k8s_net_cost(&x, out);
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
    bool member = n->u.call.target != NULL, v033 = c->opts && c->opts->cel_go_033;
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
    } else if (!strcmp(id, "list_distinct") ||
               (o->lib == CEL_LIB_LISTS &&
                (!strcmp(o->function, "sort") || !strcmp(o->function, "@sortByAssociatedKeys")))) {
        bool sort_by = !strcmp(o->function, "@sortByAssociatedKeys");
        if (!member || k != (sort_by ? 2u : 1u))
            return false;
        /* the overload's element type (estimateListSort(t), estimateListSortBy(u)) */
        const cel_type *lt = o->params[sort_by ? 1 : 0];
        const cel_type *t = lt && lt->kind == CEL_T_LIST && lt->nparams ? lt->params[0] : NULL;
        bool distinct = !strcmp(id, "list_distinct");
        if (distinct && v033) { /* v0.33 estimateListDistinct: the receiver's element type */
            lt = argv[0]->type;
            t = lt && lt->kind == CEL_T_LIST && lt->nparams ? lt->params[0] : NULL;
        }
        factor = (!distinct || v033) && t && (t->kind == CEL_T_STRING || t->kind == CEL_T_BYTES) ? 2.1 : 2;
        size = mul(sizes[k - 1], sizes[k - 1]);
    } else {
        return false;
    }
    if (v033) { /* v0.33: the result keeps the receiver's elements (lists.go) */
        entry_size buf = {CEL_T_LIST, {1, 1}, {1, 1}, NULL};
        set_entry(c, n, !strcmp(id, "lists_range") ? &buf : compute_entry(c, argv[0], &buf));
    }
    set_size(c, n, size);
    *out = add(by_factor(size, factor), (est){11, 11});
    return true;
}

/* cel-go ext/sets.go estimateSetsCost: the product of the list sizes, twice
 * it for equivalent, and 1 for the call.  False for other overloads. */
/* 1.36's includes (v0.36.3 cel/compile.go draCostEstimator, consulted
 * before Kubernetes' estimator): a search through at most
 * ResourceSliceMaxAttributeValuesPerDevice values, whatever the target. */
static bool dra_estimate(const cel_overload *o, est *out)
{
    if (o->lib != CEL_LIB_DRA_INCLUDES)
        return false;
    *out = (est){0, DRA_RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES};
    return true;
}

static bool sets_estimate(const cel_overload *o, const est *sizes, size_t k, est *out)
{
    double factor = !strcmp(o->id, "list_sets_equivalent_list")                                                ? 2
                    : !strcmp(o->id, "list_sets_contains_list") || !strcmp(o->id, "list_sets_intersects_list") ? 1
                                                                                                               : 0;
    if (factor == 0 || k != 2)
        return false;
    *out = add(by_factor(mul(sizes[0], sizes[1]), factor), (est){1, 1});
    return true;
}

/* cel-go checker/cost.go functionCost for overload o of call n, the
 * argument costs included (argv[0] is the target of a member call; the
 * target's own cost is the caller's).  *result is the call's result size
 * when the rule gives one. */
static est function_cost(coster *c, const cel_node *n, const cel_overload *o, const cel_node *const *argv,
                         const est *costs, const est *sizes, size_t k, bool *has_result, est *result)
{
    bool member = n->u.call.target != NULL;
    size_t first = member ? 1 : 0, nargs = k - first;
    const cel_node *const *args = argv + first;
    const est *arg_sizes = sizes + first;
    est args_cost = {0, 0};
    for (size_t i = first; i < k; i++)
        args_cost = add(args_cost, costs[i]);
    const char *id = o->id;
    const double T = 0.1;
    est r;
    *has_result = false;
    if (dra_estimate(o, &r) || lists_estimate(c, n, o, argv, sizes, k, &r) || sets_estimate(o, sizes, k, &r) ||
        (c->opts && c->opts->kubernetes_costs && k8s_estimate(c, n, o, argv, sizes, k, &r)))
        return add(r, args_cost);
    const cel_cost_options *mo = c->opts;
    bool v033 = mo && mo->cel_go_033;
    if (!strcmp(id, "string_format") && member)
        return add(model_scale(mo, sizes[0], 1, 10), args_cost);
    if (nargs == 1 && !member &&
        (!strcmp(id, "string_to_bytes") || !strcmp(id, "bytes_to_string") || !strcmp(id, "strings_quote"))) {
        est sz = arg_sizes[0];
        *has_result = true;
        if (v033) /* common/cost/standard.go: Ranged of saturating Scale and Sum */
            *result = !strcmp(id, "string_to_bytes") ? (est){sz.min, exact_scale(sz.max, 4, 1)}
                      : !strcmp(id, "bytes_to_string")
                          ? (est){exact_scale(sz.min, 1, 4), sz.max}
                          : (est){sat_add(sz.min, 2), sat_add(exact_scale(sz.max, 2, 1), 2)};
        else /* unsigned arithmetic wraps, as Go's does */
            *result = !strcmp(id, "string_to_bytes")   ? (est){sz.min, sz.max * 4}
                      : !strcmp(id, "bytes_to_string") ? (est){sz.min / 4, sz.max}
                                                       : (est){sz.min + 2, sz.max * 2 + 2};
        return add(model_scale(mo, sz, 1, 10), args_cost);
    }
    if ((!strcmp(id, "starts_with_string") || !strcmp(id, "ends_with_string")) && nargs == 1)
        return add(model_scale(mo, arg_sizes[0], 1, 10), args_cost);
    if (!strcmp(id, "in_list") && nargs == 2)
        return add(arg_sizes[1], args_cost);
    bool global_matches = !strcmp(id, "matches") && !member && nargs == 2 && !(c->opts && c->opts->cel_go_026);
    if ((!strcmp(id, "matches_string") && member && nargs == 1) || global_matches) {
        est str = model_round_scale(mo, add(sizes[0], (est){1, 1}), 1, 10);
        est re = model_round_scale(mo, sizes[1], 1, 4);
        return add(mul(str, re), args_cost);
    }
    if (!strcmp(id, "contains_string") && member && nargs == 1)
        return add(mul(model_round_scale(mo, sizes[0], 1, 10), model_round_scale(mo, sizes[1], 1, 10)), args_cost);
    if ((!strcmp(id, "logical_or") || !strcmp(id, "logical_and")) && k == 2)
        return (est){costs[0].min, add(costs[0], costs[1]).max};
    if (!strcmp(id, "conditional") && k == 3) {
        entry_size b3;
        set_entry(c, n, entry_of_two(c, args[1], args[2], &b3));
        *has_result = true;
        *result = unite(arg_sizes[1], arg_sizes[2]);
        return add(costs[0], unite(costs[1], costs[2]));
    }
    if ((!strcmp(id, "add_string") || !strcmp(id, "add_bytes") || !strcmp(id, "add_list")) && nargs == 2) {
        entry_size b3;
        set_entry(c, n, entry_of_two(c, args[0], args[1], &b3));
        *has_result = true;
        *result = add(arg_sizes[0], arg_sizes[1]);
        if (!strcmp(id, "add_list"))
            return add((est){1, 1}, args_cost);
        return add(model_scale(mo, *result, 1, 10), args_cost);
    }
    if (nargs == 2 && (!strcmp(id, "equals") || !strcmp(id, "not_equals") ||
                       IS_ONE_OF(id, "less_string", "greater_string", "less_equals_string", "greater_equals_string",
                                 "less_bytes", "greater_bytes", "less_equals_bytes", "greater_equals_bytes"))) {
        uint64_t smallest = arg_sizes[0].max < arg_sizes[1].max ? arg_sizes[0].max : arg_sizes[1].max;
        return add(by_factor((est){smallest > 0 ? 1 : 0, smallest}, T), args_cost);
    }
    return add((est){1, 1}, args_cost);
}

static est cost_call(coster *c, const cel_node *n)
{
    const char *fn = n->u.call.function;
    /* coster.maybeUnwrapDynCall: 1 and the argument's cost, its sizes */
    if (!strcmp(fn, "dyn") && !n->u.call.target && n->u.call.nargs == 1) {
        est r = add((est){1, 1}, cost(c, n->u.call.args[0]));
        copy_sizes(c, n, n->u.call.args[0]);
        return r;
    }
    size_t nargs = n->u.call.nargs + (n->u.call.target ? 1 : 0);
    const cel_node *argv[CEL_MAX_ARGS + 4];
    est costs[CEL_MAX_ARGS + 4], sizes[CEL_MAX_ARGS + 4];
    size_t k = 0;
    if (n->u.call.target)
        argv[k++] = n->u.call.target;
    for (size_t i = 0; i < n->u.call.nargs && k < sizeof argv / sizeof *argv; i++)
        argv[k++] = n->u.call.args[i];
    if (nargs > k || n->u.call.noverloads == 0) { /* not from the checker: cost it plainly */
        est sum = {1, 1};
        for (size_t i = 0; i < k; i++)
            sum = add(sum, cost(c, argv[i]));
        return sum;
    }
    for (size_t i = 0; i < k; i++)
        costs[i] = cost(c, argv[i]);
    for (size_t i = 0; i < k; i++)
        sizes[i] = size_of(c, argv[i]);
    est fc = {UINT64_MAX, 0}, result = {0, 0};
    bool has_result = false;
    for (size_t i = 0; i < n->u.call.noverloads; i++) {
        const cel_overload *o = n->u.call.overloads[i];
        bool has;
        est r;
        fc = unite(fc, function_cost(c, n, o, argv, costs, sizes, k, &has, &r));
        if (has) {
            result = has_result ? unite(result, r) : r;
            has_result = true;
        }
        /* index operations: the entry's size and path (@items, @values) */
        bool list = !strcmp(o->id, "index_list"), map = !strcmp(o->id, "index_map");
        if ((list || map) && k == 2) {
            entry_size buf;
            const entry_size *e = compute_entry(c, argv[0], &buf);
            has_result = e != NULL;
            if (e)
                result = e->val;
            if (e && c->opts && c->opts->cel_go_033) /* v0.33: the element keeps its own Elem */
                set_entry(c, n, e->sub);
            set_path(c, n, extend(c, get_path(c, argv[0]), list ? "@items" : "@values"));
        }
        if (!has_result)
            has_result = compute_size(c, n, &result);
    }
    if (c->opts && c->opts->cel_go_033 && !strcmp(fn, "cel.@mapInsert") && !n->u.call.target && (k == 2 || k == 3)) {
        /* cel-go v0.33 default_strategy.go estimateMapExpr: the map grows
         * by one entry of the key's and value's sizes, or by the other map */
        entry_size b0, b1;
        const entry_size *e0 = compute_entry(c, argv[0], &b0);
        if (k == 3) {
            const entry_size *sub = entry_sub(c, NULL, argv[2]);
            b1 = (entry_size){CEL_T_MAP, sizes[1], sizes[2], sub};
            if (e0)
                b1 = (entry_size){CEL_T_MAP, unite(e0->key, sizes[1]), unite(e0->val, sizes[2]),
                                  sub_union(c, e0->sub, sub)};
            set_entry(c, n, &b1);
            result = add(sizes[0], (est){1, 1});
        } else {
            set_entry(c, n, entry_of_two(c, argv[0], argv[1], &b1));
            result = add(sizes[0], sizes[1]);
        }
        has_result = true;
    }
    if (has_result)
        set_size(c, n, result);
    return n->u.call.target ? add(costs[0], fc) : fc;
}

/* A comprehension's iteration variable (coster.pushIterSingle,
 * pushIterKey, pushIterValue): sized by the range's entries, with the
 * range's path and "@items", "@keys", "@indices" or "@values". */
static void push_iter(coster *c, const char *name, const cel_node *range, int which /* 0 single, 1 key, 2 value */)
{
    entry_size buf;
    const entry_size *e = compute_entry(c, range, &buf);
    cel_type_kind container = e ? e->container : range->type ? range->type->kind : CEL_T_DYN;
    bool list = container == CEL_T_LIST;
    local_var v = {.name = name};
    const char *sub;
    if (c->opts && c->opts->cel_go_033) {
        /* v0.33 pushIterKey, pushIterValue, pushIterSingle: by the range's
         * type; a list's entries state no key size, its index is 1 */
        cel_type_kind k = range->type ? range->type->kind : CEL_T_DYN;
        bool tlist = k == CEL_T_LIST, keyed = e && e->container == CEL_T_MAP;
        if (which == 0)
            which = tlist || (k == CEL_T_DYN && !keyed && e) ? 2 : 1;
        v.has_size = which == 2 ? e != NULL : tlist || keyed;
        v.size = which == 2 && e ? e->val : tlist ? (est){1, 1} : keyed ? e->key : v.size;
        v.has_entry = which == 2 && e && e->sub;
        if (v.has_entry)
            v.entry = *e->sub;
        sub = which == 2 ? (tlist ? "@items" : "@values") : tlist ? "@indices" : "@keys";
        v.path = extend(c, get_path(c, range), sub);
        push_local(c, v);
        return;
    }
    if (which == 2 || (which == 0 && list)) {
        v.has_size = e != NULL;
        if (e)
            v.size = e->val;
        sub = list ? "@items" : "@values";
    } else {
        v.has_size = e != NULL;
        if (e)
            v.size = e->key;
        sub = which == 1 && list ? "@indices" : "@keys";
    }
    v.path = extend(c, get_path(c, range), sub);
    push_local(c, v);
}

/* An accumulator or cel.bind's variable (coster.pushLocalVar). */
static void push_value(coster *c, const char *name, const cel_node *init)
{
    entry_size buf;
    const entry_size *e = compute_entry(c, init, &buf);
    local_var v = {.name = name, .path = get_path(c, init), .has_entry = e != NULL};
    if (e)
        v.entry = *e;
    v.has_size = compute_size(c, init, &v.size);
    push_local(c, v);
}

static bool is_bind(const cel_node *n)
{
    const cel_node *r = n->u.comp.iter_range, *cond = n->u.comp.loop_condition;
    return r->kind == CEL_NODE_LIST && r->u.list.nelems == 0 && cond->kind == CEL_NODE_CONST &&
           cond->u.constant.kind == CEL_CONST_BOOL && !cond->u.constant.v.b && strcmp(n->u.comp.accu_var, "__result__");
}

static est cost_comprehension(coster *c, const cel_node *n)
{
    est sum = add(cost(c, n->u.comp.iter_range), cost(c, n->u.comp.accu_init));
    push_value(c, n->u.comp.accu_var, n->u.comp.accu_init);
    if (is_bind(n)) { /* coster.costBind: lazily bound, sized by the result */
        sum = add(sum, cost(c, n->u.comp.result));
        if (c->opts && c->opts->cel_go_033) {
            /* v0.33 gives the bind its result's path and sizes while the
             * variable is still bound (a result naming it is sized by
             * it); v0.29 copies them after popping the variable */
            if (get_path(c, n->u.comp.result).n)
                set_path(c, n, get_path(c, n->u.comp.result));
            copy_sizes(c, n, n->u.comp.result);
            c->nlocals--;
            return sum;
        }
        c->nlocals--;
        copy_sizes(c, n, n->u.comp.result);
        return sum;
    }
    const cel_node *range = n->u.comp.iter_range;
    size_t iters = 1;
    if (n->u.comp.iter_var2) {
        push_iter(c, n->u.comp.iter_var, range, 1);
        push_iter(c, n->u.comp.iter_var2, range, 2);
        /* cel-go pushIterKey and pushIterValue both append to the range's
         * path: with room in the Go slice the value's "@values" (or
         * "@items") overwrites the key's "@keys", and the key is sized as
         * a value */
        fpath rp = get_path(c, range);
        if (rp.n && rp.n < rp.cap)
            c->locals[c->nlocals - 2].path = c->locals[c->nlocals - 1].path;
        iters = 2;
    } else {
        push_iter(c, n->u.comp.iter_var, range, 0);
    }
    est loop = cost(c, n->u.comp.loop_condition);
    est step = cost(c, n->u.comp.loop_step);
    c->nlocals -= iters;
    sum = add(sum, cost(c, n->u.comp.result));
    c->nlocals--;
    est count = size_of(c, range);
    sum = add(sum, mul(count, add(step, loop)));
    const cel_node *init = n->u.comp.accu_init;
    if (init->kind == CEL_NODE_CONST) {
        est s;
        if (compute_size(c, init, &s))
            set_size(c, n, s);
    } else if (init->kind == CEL_NODE_LIST || init->kind == CEL_NODE_MAP) {
        entry_size buf;
        const cel_node *ls = n->u.comp.loop_step;
        /* cel-go v0.33: a conditional step (filter) may skip every element */
        if (c->opts && c->opts->cel_go_033 && ls->kind == CEL_NODE_CALL &&
            !strcmp(ls->u.call.function, CEL_OP_CONDITIONAL))
            count.min = 0;
        set_size(c, n, count);
        set_entry(c, n, compute_entry(c, n->u.comp.loop_step, &buf));
    }
    return sum;
}

static est cost(coster *c, const cel_node *n)
{
    if (!n)
        return (est){0, 0};
    switch (n->kind) {
    case CEL_NODE_CONST: return (est){0, 0};
    case CEL_NODE_IDENT: return cost_ident(c, n);
    case CEL_NODE_SELECT: return cost_select(c, n);
    case CEL_NODE_CALL: return cost_call(c, n);
    case CEL_NODE_LIST: { /* coster.costCreateList */
        est s = {10, 10}, items = n->u.list.nelems ? (est){UINT64_MAX, 0} : (est){0, 0};
        const entry_size *sub = NULL;
        for (size_t i = 0; i < n->u.list.nelems; i++) {
            s = add(s, cost(c, n->u.list.elems[i]));
            items = unite(items, size_of(c, n->u.list.elems[i]));
            sub = entry_sub(c, sub, n->u.list.elems[i]);
        }
        if (n->u.list.nelems || !(c->opts && c->opts->cel_go_033)) /* v0.33: [] states no element size */
            set_entry(c, n, &(entry_size){CEL_T_LIST, {1, 1}, items, sub});
        return s;
    }
    case CEL_NODE_MAP: { /* coster.costCreateMap */
        est s = {30, 30}, keys = n->u.map.nentries ? (est){UINT64_MAX, 0} : (est){0, 0}, vals = keys;
        const entry_size *sub = NULL;
        for (size_t i = 0; i < n->u.map.nentries; i++) {
            s = add(s, cost(c, n->u.map.entries[i].key));
            s = add(s, cost(c, n->u.map.entries[i].value));
            keys = unite(keys, size_of(c, n->u.map.entries[i].key));
            vals = unite(vals, size_of(c, n->u.map.entries[i].value));
            sub = entry_sub(c, sub, n->u.map.entries[i].value);
        }
        if (n->u.map.nentries || !(c->opts && c->opts->cel_go_033))
            set_entry(c, n, &(entry_size){CEL_T_MAP, keys, vals, sub});
        return s;
    }
    case CEL_NODE_STRUCT: {
        est s = {40, 40};
        for (size_t i = 0; i < n->u.map.nentries; i++)
            s = add(s, cost(c, n->u.map.entries[i].value));
        return s;
    }
    case CEL_NODE_COMPREHENSION: return cost_comprehension(c, n);
    }
    return (est){0, 0};
}

void cel_estimate_cost(const cel_ast *ast, const cel_cost_options *opts, uint64_t *min, uint64_t *max)
{
    coster c = {.opts = opts};
    est e = cost(&c, ast->root);
    for (size_t i = 0; i < c.npaths; i++)
        free(c.paths[i]);
    free(c.paths);
    for (size_t i = 0; i < c.nkept; i++)
        free(c.kept[i]);
    free(c.kept);
    free(c.info);
    free(c.locals);
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
        /* cel/compile.go multiAllocType: withMaxElements(BoolType, 1) */
        if (!strcmp(path[1], "allowMultipleAllocations")) {
            *out = (cel_size_range){0, 1};
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
        /* dynamic-resource-allocation v0.37.2 cel/compile.go sizeEstimator:
         * a capacity value by index is a QuantityDeclType, whose
         * MaxElements is 0; by field name it is unknown */
        if (!strcmp(path[3], "@values")) {
            *out = (cel_size_range){0, 0};
            return true;
        }
    }
    return false;
}
