#include "suggest.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"

enum { SWAP = 0, SUBST = 2, INSERT = 1, DELETE = 3, FARTHEST = 5 };

static size_t min2(size_t a, size_t b)
{
    return a < b ? a : b;
}

size_t dra_suggest_distance(const char *typed, const char *word)
{
    size_t n = strlen(typed), m = strlen(word);
    /* three rows of the (n+1) x (m+1) table: i-2, i-1, i */
    size_t *r0 = dra_xcalloc(m + 1, sizeof *r0), *r1 = dra_xcalloc(m + 1, sizeof *r1),
           *r2 = dra_xcalloc(m + 1, sizeof *r2);
    for (size_t j = 0; j <= m; j++)
        r1[j] = j * INSERT;
    for (size_t i = 0; i < n; i++) {
        r2[0] = (i + 1) * DELETE;
        for (size_t j = 0; j < m; j++) {
            size_t d = r1[j] + (typed[i] == word[j] ? 0 : SUBST);
            if (i > 0 && j > 0 && typed[i - 1] == word[j] && typed[i] == word[j - 1])
                d = min2(d, r0[j - 1] + SWAP);
            d = min2(d, r1[j + 1] + DELETE);
            d = min2(d, r2[j] + INSERT);
            r2[j + 1] = d;
        }
        size_t *t = r0;
        r0 = r1;
        r1 = r2;
        r2 = t;
    }
    size_t d = r1[m];
    free(r0);
    free(r1);
    free(r2);
    return d;
}

/* cands[i] is not an earlier candidate again */
static bool first(const char *const *cands, size_t i)
{
    if (!cands[i])
        return false;
    for (size_t k = 0; k < i; k++)
        if (cands[k] && strcmp(cands[k], cands[i]) == 0)
            return false;
    return true;
}

static size_t score(const char *typed, const char *word)
{
    size_t len = strlen(typed);
    return len && strncmp(typed, word, len) == 0 ? 0 : dra_suggest_distance(typed, word);
}

char *dra_suggest(const char *typed, const char *const *cands, size_t n)
{
    size_t best = FARTHEST + 1, count = 0;
    for (size_t i = 0; i < n; i++) {
        if (!first(cands, i))
            continue;
        if (strcmp(cands[i], typed) == 0)
            return NULL;
        size_t s = score(typed, cands[i]);
        if (s < best) {
            best = s;
            count = 0;
        }
        if (s == best)
            count++;
    }
    if (best > FARTHEST)
        return NULL;
    dra_buf b = DRA_BUF_INIT;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!first(cands, i) || score(typed, cands[i]) != best)
            continue;
        k++;
        dra_buf_printf(&b, "%s\"%s\"", k == 1 ? "" : k == count ? " or " : ", ", cands[i]);
    }
    char *s = dra_xstrdup(dra_buf_str(&b));
    dra_buf_free(&b);
    return s;
}
