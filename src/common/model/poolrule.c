/* The pool rule.  See poolrule.h. */
#include "poolrule.h"

#include <stdio.h>

void dra_pool_tally_init(dra_pool_tally *t, int64_t gen, int64_t want)
{
    *t = (dra_pool_tally){.gen = gen, .want = want};
}

void dra_pool_tally_add(dra_pool_tally *t, int64_t generation, int64_t count, bool counted)
{
    if (generation > t->gen)
        t->newer = true;
    if (generation != t->gen)
        return;
    if (!t->seen && t->want == DRA_POOL_FIRST_ADDED)
        t->want = count;
    t->seen = true;
    t->n += counted;
}

/* GatherPools: a node that found as many slices as resourceSliceCount uses
 * them as they are; otherwise a newer generation makes the pool obsolete,
 * and the pool-wide count decides completeness.  Slices that disagree on
 * resourceSliceCount are not refused (upstream leaves that as a "Future
 * TODO" in pools_*.go of v0.36.3, v0.37.2 and v0.38.0-beta.0): the count
 * is the one slice's that the caller chose (t->want). */
/* the count judged by: with DRA_POOL_FIRST_ADDED and no slice at gen, 0 */
static int64_t want(const dra_pool_tally *t)
{
    return t->want == DRA_POOL_FIRST_ADDED ? 0 : t->want;
}

dra_pool_verdict dra_pool_tally_verdict(const dra_pool_tally *t, size_t relevant)
{
    if (relevant != DRA_POOL_ALL && (int64_t)relevant == want(t))
        return DRA_POOL_COMPLETE_NODE;
    if (t->newer)
        return DRA_POOL_OBSOLETE;
    if ((int64_t)t->n != want(t))
        return DRA_POOL_INCOMPLETE;
    return DRA_POOL_COMPLETE;
}

const char *dra_pool_verdict_reason(const dra_pool_tally *t, dra_pool_verdict v, char *buf, size_t len)
{
    switch (v) {
    case DRA_POOL_COMPLETE_NODE:
    case DRA_POOL_COMPLETE: return NULL;
    case DRA_POOL_OBSOLETE:
        snprintf(buf, len, "obsolete: a newer generation than %lld exists", (long long)t->gen);
        break;
    case DRA_POOL_INCOMPLETE:
        if ((int64_t)t->n < want(t))
            snprintf(buf, len, "incomplete: %zu of %lld ResourceSlices at generation %lld", t->n, (long long)want(t),
                     (long long)t->gen);
        else
            snprintf(buf, len, "incomplete: %zu ResourceSlices at generation %lld, but resourceSliceCount is %lld",
                     t->n, (long long)t->gen, (long long)want(t));
        break;
    }
    return buf;
}

bool dra_pool_tally_short(const dra_pool_tally *t)
{
    return t->seen && (int64_t)t->n < want(t);
}
