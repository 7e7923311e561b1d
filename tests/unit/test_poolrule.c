/* The pool rule (model/poolrule.h): the allocator's GatherPools verdicts. */
#include "../../src/common/model/poolrule.h"
#include "unit.h"

typedef struct sl {
    int64_t gen, count;
    bool counted;
} sl;

static dra_pool_verdict judge(int64_t gen, const sl *v, size_t n, size_t relevant, dra_pool_tally *t)
{
    dra_pool_tally_init(t, gen, DRA_POOL_FIRST_ADDED);
    for (size_t i = 0; i < n; i++)
        dra_pool_tally_add(t, v[i].gen, v[i].count, v[i].counted);
    return dra_pool_tally_verdict(t, relevant);
}

UNIT_TEST(poolrule_complete_and_incomplete)
{
    dra_pool_tally t;
    char buf[160];
    sl two[] = {{1, 2, true}, {1, 2, true}};
    CHECK_INT(judge(1, two, 2, DRA_POOL_ALL, &t), DRA_POOL_COMPLETE);
    CHECK(dra_pool_verdict_reason(&t, DRA_POOL_COMPLETE, buf, sizeof buf) == NULL);
    CHECK_INT(judge(1, two, 1, DRA_POOL_ALL, &t), DRA_POOL_INCOMPLETE);
    CHECK_STR(dra_pool_verdict_reason(&t, DRA_POOL_INCOMPLETE, buf, sizeof buf),
              "incomplete: 1 of 2 ResourceSlices at generation 1");
    sl three[] = {{1, 2, true}, {1, 2, true}, {1, 2, true}};
    CHECK_INT(judge(1, three, 3, DRA_POOL_ALL, &t), DRA_POOL_INCOMPLETE);
    CHECK_STR(dra_pool_verdict_reason(&t, DRA_POOL_INCOMPLETE, buf, sizeof buf),
              "incomplete: 3 ResourceSlices at generation 1, but resourceSliceCount is 2");
    /* a slice the gate hides takes no part in the count */
    sl hidden[] = {{1, 2, true}, {1, 2, false}};
    CHECK_INT(judge(1, hidden, 2, DRA_POOL_ALL, &t), DRA_POOL_INCOMPLETE);
}

/* Slices that disagree on resourceSliceCount are not refused: upstream
 * leaves that check as a "Future TODO" (structured/internal/stable/pools_stable.go and its twins in
 * v0.36.3, v0.37.2, v0.38.0-beta.0); the first slice's count decides. */
UNIT_TEST(poolrule_slices_that_disagree_are_judged_by_the_first_count)
{
    dra_pool_tally t;
    sl v[] = {{1, 2, true}, {1, 1, true}}; /* the first says 2, and there are 2 */
    CHECK_INT(judge(1, v, 2, DRA_POOL_ALL, &t), DRA_POOL_COMPLETE);
    sl w[] = {{1, 1, true}, {1, 2, true}}; /* the first says 1, and there are 2 */
    CHECK_INT(judge(1, w, 2, DRA_POOL_ALL, &t), DRA_POOL_INCOMPLETE);
    /* a node that sees only the one whose count it meets */
    CHECK_INT(judge(1, w, 2, 1, &t), DRA_POOL_COMPLETE_NODE);
    /* a newer generation makes a short one obsolete */
    sl n[] = {{1, 1, true}, {1, 2, true}, {2, 1, true}};
    CHECK_INT(judge(1, n, 3, DRA_POOL_ALL, &t), DRA_POOL_OBSOLETE);
}

UNIT_TEST(poolrule_a_node_with_the_whole_pool_uses_it_even_when_newer_exists)
{
    dra_pool_tally t;
    /* GatherPools checks the newer generation only when the node's own
     * slices fall short */
    sl v[] = {{1, 1, true}, {2, 2, true}};
    CHECK_INT(judge(1, v, 2, 1, &t), DRA_POOL_COMPLETE_NODE);
    sl u[] = {{1, 2, true}, {1, 2, true}, {2, 2, true}};
    CHECK_INT(judge(1, u, 3, 1, &t), DRA_POOL_OBSOLETE);
    sl c[] = {{1, 2, true}, {1, 2, true}};
    CHECK_INT(judge(1, c, 2, 1, &t), DRA_POOL_COMPLETE);
}

/* The ResourcePoolStatusRequest controller's rule: fewer slices than the
 * first one's count (calculatePoolStatus), where the allocator's verdict
 * also refuses surplus slices. */
UNIT_TEST(poolrule_the_pool_status_controller_only_counts_a_shortfall)
{
    dra_pool_tally t;
    sl a[] = {{1, 2, true}};
    CHECK_INT(judge(1, a, 1, DRA_POOL_ALL, &t), DRA_POOL_INCOMPLETE);
    CHECK(dra_pool_tally_short(&t));
    sl b[] = {{1, 1, true}, {1, 2, true}}; /* first listed says 1: not short */
    CHECK_INT(judge(1, b, 2, DRA_POOL_ALL, &t), DRA_POOL_INCOMPLETE);
    CHECK(!dra_pool_tally_short(&t));
    sl c[] = {{1, 3, true}, {1, 2, true}}; /* first listed says 3: short */
    judge(1, c, 2, DRA_POOL_ALL, &t);
    CHECK(dra_pool_tally_short(&t));
    sl d[] = {{1, 1, true}, {1, 1, true}}; /* surplus: not short */
    CHECK_INT(judge(1, d, 2, DRA_POOL_ALL, &t), DRA_POOL_INCOMPLETE);
    CHECK(!dra_pool_tally_short(&t));
    dra_pool_tally_init(&t, 4, DRA_POOL_FIRST_ADDED); /* nothing at the generation */
    CHECK(!dra_pool_tally_short(&t));
}

/* The caller says which resourceSliceCount the slices are judged by:
 * GatherPools the first slice relevant for the node, which need not be the
 * first listed. */
UNIT_TEST(poolrule_want_given_by_caller)
{
    dra_pool_tally t;
    sl v[] = {{1, 3, true}, {1, 2, true}};
    dra_pool_tally_init(&t, 1, 2);
    for (size_t i = 0; i < 2; i++)
        dra_pool_tally_add(&t, v[i].gen, v[i].count, v[i].counted);
    CHECK_INT(t.want, 2);
    CHECK_INT(dra_pool_tally_verdict(&t, 1), DRA_POOL_COMPLETE); /* pool-wide: 2 of 2 */
    CHECK_INT(dra_pool_tally_verdict(&t, 2), DRA_POOL_COMPLETE_NODE);
    CHECK_INT(dra_pool_tally_verdict(&t, DRA_POOL_ALL), DRA_POOL_COMPLETE);
    CHECK(!dra_pool_tally_short(&t));
    CHECK_INT(judge(1, v, 2, DRA_POOL_ALL, &t), DRA_POOL_INCOMPLETE); /* the first added: 3 */
    CHECK_INT(t.want, 3);
    dra_pool_tally_init(&t, 4, DRA_POOL_FIRST_ADDED); /* nothing at gen: complete, as before */
    CHECK_INT(dra_pool_tally_verdict(&t, DRA_POOL_ALL), DRA_POOL_COMPLETE);
}

UNIT_MAIN()
