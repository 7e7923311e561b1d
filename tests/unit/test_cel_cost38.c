/* Cost estimates and runtime costs of Kubernetes 1.38 (cel-go v0.33's
 * common/cost, k8s.io/apiserver v0.38.0-beta.0 pkg/cel/library/cost.go)
 * against 1.37's (cel-go v0.29 checker/cost.go), with upstream's figures. */
#include "unit.h"

#include <string.h>

#include "cel/cel.h"
#include "cel/dra.h"

/* Compile expr in release rel's DRA environment: its estimated cost range,
 * and its runtime cost when *cost is given.  False when it does not compile. */
static bool costs(int rel, const char *expr, uint64_t *min, uint64_t *max, uint64_t *cost)
{
    cel_dra_options o = {.release = (dra_release)rel};
    cel_env *env = cel_dra_env_new(&o);
    cel_program *p = NULL;
    dra_err *e = cel_dra_compile(env, expr, strlen(expr), &p);
    if (!e) {
        cel_program_estimated_cost(p, min, max);
        if (cost) {
            cel_eval_options eo = {.actual_cost = cost};
            cel_eval(p, NULL, &eo);
        }
    }
    bool ok = e == NULL;
    dra_err_free(e);
    cel_program_free(p);
    cel_env_free(env);
    return ok;
}

UNIT_TEST(estimates_38)
{
    /* each: 1.38's range as upstream-cel 1.38 reports it, 1.37's as
     * upstream-cel 1.37 does */
    static const struct {
        const char *expr;
        uint64_t min38, max38, min37, max37;
    } cases[] = {
        /* common/cost/standard.go: Scale keeps an unknown size unknown */
        {"string('a').matches('x')", 2, UINT64_MAX, 2, 1844674407370955265u},
        {"b'a' < bytes('a'.charAt(1))", 2, UINT64_MAX, 2, 1844674407370955266u},
        /* library/cost.go: a URL accessor is as long as the URL */
        {"url('a').getScheme().matches('a')", 3, 3, 3, 1844674407370955266u},
        /* estimator.go costComprehension: filter() may keep nothing */
        {"[quantity('1')].filter(i1, true).exists(v3, true)", 24, 40, 28, 40},
        {"sets.contains(['a'], [1.0].filter(v3, true).map(e2, 'a'))", 44, 69, 57, 69},
        /* default_strategy.go: [] states no element size */
        {"'a' > [][0]", 12, 12, 11, 11},
        /* estimateMapExpr: cel.@mapInsert sizes transformMap's entries */
        {"{'a': 1}.transformMap(i2, v3v, 1).all(k0, i1, 'a'.endsWith(k0))", 68, 70, 68, 1844674407370955333u},
        /* ext/lists.go: slice() keeps the receiver's element sizes */
        {"isIP(['a'].slice(0, 1)[0])", 24, 24, 23, 1844674407370955287u},
        /* estimator.go pushIterKey: a dyn range states no index size */
        {"[dyn(1)].sort().transformMap(k1, k2v, string(k1)).size() == 1", 61, UINT64_MAX, 61, 1844674407370955326u},
        /* estimator.go costSelect: every selection costs 1, a dyn
         * operand's too; a presence test keeps its path, so has() is
         * sized as the attribute it tests (== by the smaller size) */
        {"dyn({'a': 1}).a == 1", 33, 33, 32, 32},
        {"device.attributes['a.com'].x.y == 1", 6, 6, 5, 5},
        {"has(device.attributes['a.com'].x) == has(device.attributes['b.com'].y)", 7, 13, 7, 7},
        {"has(device.attributes['a.com'].x) == device.attributes['b.com'].y", 8, 14, 8, 8},
        {"cel.bind(v, device.attributes['a.com'], has(v.x) == has(v.y))", 16, 22, 16, 16},
        /* library/cost.go: indexOf on a receiver bound to string (the
         * strings overload declared first) costs a tenth of its size */
        {"[][1].lastIndexOf('a') > 1", 12, 1844674407370955276u, 12, 12},
        /* library/cost.go replace() sizes this 7..1; standard.go's
         * version 0 matches() model (roundScale, model.go rangedBounds)
         * caps the lower bound at the upper one */
        {"'x'.matches('a'.replace('https://example.com', '  pad  '))", 2, 2, 3, 2},
        /* common/cost default_strategy.go estimateListExpr: a literal's
         * element keeps its own element sizes (SizeEstimate.Elem at every
         * level), through an index, a variable and a union (1.37 keeps
         * one level) */
        {"cel.bind(l, [['a']], l[0][0] + 'x') == ''", 34, 34, 34, 1844674407370955297u},
        {"(true ? [['a']] : [['abcd'], []])[1][0] + 'x' == ''", 23, 33, 23, 1844674407370955296u},
        {"[[['abc']]].exists(x, x[0][0] + 'b' == '')", 35, 39, 35, 1844674407370955302u},
        /* common/cost estimator.go isScalar: a type value has size 1 */
        {"type([1, 2, 3]) == type(['one', 'two', 'three'])", 23, 23, 23, 1844674407370955286u},
        /* dynamic-resource-allocation cel/compile.go multiAllocType:
         * withMaxElements(BoolType, 1), so includes() on it costs 0..1 */
        {"device.allowMultipleAllocations.includes('a')", 2, 3, 2, 3},
        /* estimator.go costBind: the bind is sized while its variable
         * is still bound (v0.29: after popping it, unknown) */
        {"(-device.attributes['m.com'].index) <= cel.bind(i0, (true ? device.attributes['g.com'].index : 1), i0)", 17,
         27, 17, 1844674407370955284u},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t mn = 0, mx = 0;
        CHECK(costs(38, cases[i].expr, &mn, &mx, NULL));
        if (mn != cases[i].min38 || mx != cases[i].max38) {
            fprintf(stderr, "  1.38 %s: %llu..%llu, want %llu..%llu\n", cases[i].expr, (unsigned long long)mn,
                    (unsigned long long)mx, (unsigned long long)cases[i].min38, (unsigned long long)cases[i].max38);
            *unit_failed = 1;
        }
        CHECK(costs(37, cases[i].expr, &mn, &mx, NULL));
        if (mn != cases[i].min37 || mx != cases[i].max37) {
            fprintf(stderr, "  1.37 %s: %llu..%llu, want %llu..%llu\n", cases[i].expr, (unsigned long long)mn,
                    (unsigned long long)mx, (unsigned long long)cases[i].min37, (unsigned long long)cases[i].max37);
            *unit_failed = 1;
        }
    }
    /* ext/lists.go estimateListDistinct: 2.1 a pair of strings (1.37 has
     * no includes() in the DRA environment) */
    uint64_t mn = 0, mx = 0;
    CHECK(costs(38, "['a'].distinct().includes('a')", &mn, &mx, NULL));
    CHECK_INT(mn, 25);
    CHECK(mx == 1844674407370955289u);
}

UNIT_TEST(failed_optional_qualifier_38)
{
    /* cel-go v0.33 charges an optional index whose computed key no
     * qualifier takes (interpreter/attributes.go) */
    uint64_t mn, mx, cost = 0;
    CHECK(costs(38, "{}[?(true ? null : null)].hasValue()", &mn, &mx, &cost));
    CHECK_INT(cost, 2);
    CHECK(costs(38, "{}[?dyn(optional.none().orValue(null))].hasValue()", &mn, &mx, &cost));
    CHECK_INT(cost, 4);
    /* and one whose key the list does not take, as 1.37 does */
    for (int rel = 37; rel <= 38; rel++) {
        CHECK(costs(rel, "['a'][?dyn(false)].hasValue()", &mn, &mx, &cost));
        CHECK_INT(cost, 2);
    }
}

UNIT_TEST(tracker_panic_in_key_37)
{
    /* cel-go v0.29.2 ext/lists.go trackListSortBy panics on a failed
     * list; interpreter/attributes.go had observed the constant
     * qualifiers before the key, but not the attribute itself, which
     * runtimecost.go charges once it is resolved (upstream-cel 1.37) */
    static const struct {
        const char *expr;
        uint64_t cost;
    } cases[] = {
        {"cel.bind(m, {'o': {'a': 1}}, m['o'][[string(1/0)].sortBy(i1, true)[0]]) == 1", 15},
        {"{'o': {'a': 1}}['o'][[string(1/0)].sortBy(i1, true)[0]] == 1", 15},
        {"{'o': {'a': {'b': 1}}}['o']['a'][[string(1/0)].sortBy(i1, true)[0]] == 1", 16},
        /* a ternary's branch is never charged for the attribute */
        {"(true ? {'o': {'a': 1}} : {})['o'][[string(1/0)].sortBy(i1, true)[0]] == 1", 15},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t mn, mx, cost = 0;
        CHECK(costs(37, cases[i].expr, &mn, &mx, &cost));
        if (cost != cases[i].cost) {
            fprintf(stderr, "  %s: cost %llu, want %llu\n", cases[i].expr, (unsigned long long)cost,
                    (unsigned long long)cases[i].cost);
            *unit_failed = 1;
        }
    }
}

UNIT_MAIN()

UNIT_TEST(presence_on_ternary_38)
{
    /* cel-go v0.33 common/cost estimator.go branchQualifierCost: has()
     * on a chain rooted at a ternary qualifies the picked branch, 1 when
     * that branch is computed; the interpreter charges 1 for it whatever
     * the branch, unless an attribute branch's variable is unbound (here:
     * no device).  cel-go v0.29 charges none.  Figures as upstream-cel
     * 1.38 and 1.37 report them (estimate and actual cost). */
    static const struct {
        const char *expr;
        uint64_t min38, max38, cost38, min37, max37, cost37;
    } cases[] = {
        {"has((true ? {'a': 1} : {'b': 2}).z)", 31, 31, 1, 30, 30, 0},
        {"has((true ? (false ? {'a': 1} : {'b': 2}) : {'c': 3}).z)", 31, 31, 1, 30, 30, 0},
        {"has((true ? {'a': {'b': 1}} : {})['a'].b)", 32, 62, 2, 31, 61, 1},
        {"has((false ? {'a': 1} : {'b': [1][2]}).z)", 31, 42, 2, 30, 41, 31},
        {"has(([1][2] == 1 ? {'a': 1} : {'b': 2}).z)", 43, 43, 3, 42, 42, 2},
        {"has((true ? device.attributes : {'x': {'y': 1}}).x)", 2, 61, 0, 2, 60, 0},
        /* dyn() is no attribute chain: no branch is qualified */
        {"has(dyn(true ? {'a': 1} : {'b': 2}).a)", 31, 31, 2, 31, 31, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t mn = 0, mx = 0, c = 0;
        CHECK(costs(38, cases[i].expr, &mn, &mx, &c));
        if (mn != cases[i].min38 || mx != cases[i].max38 || c != cases[i].cost38) {
            fprintf(stderr, "  1.38 %s: %llu..%llu %llu, want %llu..%llu %llu\n", cases[i].expr, (unsigned long long)mn,
                    (unsigned long long)mx, (unsigned long long)c, (unsigned long long)cases[i].min38,
                    (unsigned long long)cases[i].max38, (unsigned long long)cases[i].cost38);
            *unit_failed = 1;
        }
        CHECK(costs(37, cases[i].expr, &mn, &mx, &c));
        if (mn != cases[i].min37 || mx != cases[i].max37 || c != cases[i].cost37) {
            fprintf(stderr, "  1.37 %s: %llu..%llu %llu, want %llu..%llu %llu\n", cases[i].expr, (unsigned long long)mn,
                    (unsigned long long)mx, (unsigned long long)c, (unsigned long long)cases[i].min37,
                    (unsigned long long)cases[i].max37, (unsigned long long)cases[i].cost37);
            *unit_failed = 1;
        }
    }
}

UNIT_TEST(presence_on_optional_ternary_38)
{
    /* cel-go v0.33 interpreter/attributes.go applyQualifiers: the branch a
     * ternary picks is qualified as any attribute, IfPresent on an
     * optional, so on none (or a field absent, cost model version 0) the
     * presence test's qualifier is not charged, and the branch's own value
     * costs what it cost (0 when constant).  Figures as upstream-cel 1.38
     * reports them; 1.37's cel-go v0.29.2 underflows its cost on the first
     * two (interpreter/runtimecost.go takes back a presence test's 1 it
     * never charged on a conditional attribute). */
    static const struct {
        const char *expr;
        uint64_t min, max, cost;
    } cases[] = {
        {"has((false ? optional.none() : {}.?x).y)", 1, 32, 0},
        {"has((false ? {}.?x : {}.?x).y)", 31, 31, 0},
        {"has((true ? optional.none() : {}.?x).y)", 1, 32, 1},
        {"has((false ? optional.none() : optional.of({'y': 1})).y)", 2, 32, 2},
        {"has((false ? optional.none() : optional.of({'z': 1})).y)", 2, 32, 1},
        {"has((false ? {}.?x : {'a': {'b': {}}}.?a).b.y)", 32, 92, 2},
        {"has((false ? {}.?x : {'a': {'b': {}}}.?a).c.y)", 32, 92, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t mn = 0, mx = 0, c = 0;
        CHECK(costs(38, cases[i].expr, &mn, &mx, &c));
        if (mn != cases[i].min || mx != cases[i].max || c != cases[i].cost) {
            fprintf(stderr, "  1.38 %s: %llu..%llu %llu, want %llu..%llu %llu\n", cases[i].expr, (unsigned long long)mn,
                    (unsigned long long)mx, (unsigned long long)c, (unsigned long long)cases[i].min,
                    (unsigned long long)cases[i].max, (unsigned long long)cases[i].cost);
            *unit_failed = 1;
        }
    }
}

UNIT_TEST(absent_optional_qualifiers)
{
    /* interpreter/attributes.go applyQualifiers (cel-go v0.29.2 and
     * v0.33.2, cost model version 0): on an optional none the qualifiers
     * left are not applied, and past an optional qualifier the others
     * qualify IfPresent and are observed only when they find their key;
     * a presence test there observes nothing more.  Actual costs as
     * upstream-cel 1.37 and 1.38 report them (the same in both). */
    static const struct {
        const char *expr;
        uint64_t cost;
    } cases[] = {
        {"{}.?x.y.hasValue()", 2},
        {"{'x': {}}.?x.y.hasValue()", 3},
        {"{'x': {'y': 1}}.?x.y.hasValue()", 4},
        {"{}[?'x']['y'].hasValue()", 2},
        {"optional.none().x.hasValue()", 3},
        {"has({}.?x.y)", 0},
        {"has({'x': {}}.?x.y)", 1},
        {"has({'x': {'y': 1}}.?x.y)", 2},
        {"has(optional.none().x)", 1},
        {"has(optional.of({'a': 1}).b)", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int rel = 37; rel <= 38; rel++) {
            uint64_t mn = 0, mx = 0, c = 0;
            CHECK(costs(rel, cases[i].expr, &mn, &mx, &c));
            if (c != cases[i].cost) {
                fprintf(stderr, "  1.%d %s: cost %llu, want %llu\n", rel, cases[i].expr, (unsigned long long)c,
                        (unsigned long long)cases[i].cost);
                *unit_failed = 1;
            }
        }
}
