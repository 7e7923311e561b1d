/* Pieces of the scheduler plugin that need no allocator: scoring
 * (dynamicresources.go computeScore, NormalizeScore) and the FitError
 * summary (framework/types.go FitError.Error). */
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../io/json.h"
#include "../base/sort.h"
#include "score.h"

/* ---- scoring ---------------------------------------------------------------------- */

static bool results_have(const json_t *allocation, const char *ref)
{
    const json_t *results = dra_jfield(dra_jfield(allocation, "devices"), "results");
    size_t i;
    const json_t *r;
    json_array_foreach(results, i, r) {
        const char *q = dra_jfield_str(r, "request");
        if (q && strcmp(q, ref) == 0)
            return true;
    }
    return false;
}

int64_t dra_sched_claim_score(const json_t *claim, const json_t *allocation)
{
    if (!allocation)
        return 0;
    int64_t score = 0;
    const json_t *reqs = dra_jfield(dra_jfield(dra_jfield(claim, "spec"), "devices"), "requests");
    size_t i;
    const json_t *req;
    json_array_foreach(reqs, i, req) {
        if (dra_jfield(req, "exactly"))
            continue;
        const char *rn = dra_jfield_str(req, "name");
        size_t k;
        const json_t *sub;
        json_array_foreach(dra_jfield(req, "firstAvailable"), k, sub) {
            char ref[512];
            snprintf(ref, sizeof ref, "%s/%s", rn ? rn : "",
                     dra_jfield_str(sub, "name") ? dra_jfield_str(sub, "name") : "");
            /* The set of allocated subrequests counts each once. */
            if (results_have(allocation, ref))
                score += DRA_FIRST_AVAILABLE_MAX - (int64_t)k;
        }
    }
    return score;
}

int64_t dra_sched_claim_max_score(const json_t *claim)
{
    int64_t score = 0;
    const json_t *reqs = dra_jfield(dra_jfield(dra_jfield(claim, "spec"), "devices"), "requests");
    size_t i;
    const json_t *req;
    json_array_foreach(reqs, i, req) {
        if (!dra_jfield(req, "exactly") && json_array_size(dra_jfield(req, "firstAvailable")) > 0)
            score += DRA_FIRST_AVAILABLE_MAX;
    }
    return score;
}

void dra_sched_normalize(int64_t *scores, size_t n)
{
    int64_t max = 0;
    for (size_t i = 0; i < n; i++)
        if (scores[i] > max)
            max = scores[i];
    if (max == 0)
        return;
    for (size_t i = 0; i < n; i++)
        scores[i] = 100 * scores[i] / max;
}

/* ---- FitError --------------------------------------------------------------------- */

typedef struct hist {
    const char *reason;
    size_t count;
    char *text;
} hist;

static int cmp_text(const void *a, const void *b)
{
    return strcmp(((const hist *)a)->text, ((const hist *)b)->text);
}

char *dra_sched_fit_error(const char *const *reasons, size_t n)
{
    if (n == 0)
        return dra_xstrdup("no nodes available to schedule pods");
    hist *h = dra_xcalloc(n, sizeof *h);
    size_t nh = 0;
    for (size_t i = 0; i < n; i++) {
        const char *r = reasons[i] ? reasons[i] : "";
        size_t k = 0;
        while (k < nh && strcmp(h[k].reason, r) != 0)
            k++;
        if (k == nh)
            h[nh++].reason = r;
        h[k].count++;
    }
    for (size_t k = 0; k < nh; k++)
        h[k].text = dra_xasprintf("%zu %s", h[k].count, h[k].reason);
    dra_sort(h, nh, sizeof *h, cmp_text);
    dra_buf b = DRA_BUF_INIT;
    dra_buf_printf(&b, "0/%zu nodes are available:", n);
    for (size_t k = 0; k < nh; k++) {
        dra_buf_printf(&b, "%s%s", k ? ", " : " ", h[k].text);
        free(h[k].text);
    }
    dra_buf_putc(&b, '.');
    free(h);
    char *s = dra_xstrdup(dra_buf_str(&b));
    dra_buf_free(&b);
    return s;
}
