#include "catalog.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../base/utf8.h"

enum { MAX_CELLS = 64 * 64 };

/* The runes of s (caller frees), their count in *n. */
static uint32_t *runes(const char *s, size_t *n)
{
    size_t len = strlen(s), k = 0;
    uint32_t *r = dra_xcalloc(len + 1, sizeof *r);
    for (size_t i = 0; i < len;) {
        size_t w = dra_utf8_decode(s + i, len - i, &r[k++]);
        i += w ? w : 1;
    }
    *n = k;
    return r;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

static int distance_runes(const uint32_t *ra, int la, const uint32_t *rb, int lb)
{
    if (la == 0 || lb == 0)
        return la + lb;
    if (la >= 16 && la * 2 >= lb * 3)
        return la - lb;
    if (lb >= 16 && lb * 2 >= la * 3)
        return lb - la;
    if (la * lb > MAX_CELLS)
        return INT32_MAX;
    int threshold = (la > lb ? la : lb) / 3;
    int *d = dra_xcalloc((size_t)(la + 1) * (size_t)(lb + 1), sizeof *d);
#define D(i, j) d[(size_t)(i) * (size_t)(lb + 1) + (size_t)(j)]
    for (int i = 0; i <= la; i++)
        D(i, 0) = i;
    for (int j = 0; j <= lb; j++)
        D(0, j) = j;
    int result = INT32_MAX;
    for (int i = 1; i <= la; i++) {
        int row_min = D(i, 0);
        for (int j = 1; j <= lb; j++) {
            int cost = ra[i - 1] == rb[j - 1] ? 0 : 1;
            int v = min_int(min_int(D(i - 1, j) + 1, D(i, j - 1) + 1), D(i - 1, j - 1) + cost);
            if (i > 1 && j > 1 && ra[i - 1] == rb[j - 2] && ra[i - 2] == rb[j - 1])
                v = min_int(v, D(i - 2, j - 2) + 1);
            D(i, j) = v;
            row_min = min_int(row_min, v);
        }
        if (row_min > threshold)
            goto out;
    }
    result = D(la, lb);
out:
#undef D
    free(d);
    return result;
}

int cel_catalog_distance(const char *a, const char *b)
{
    size_t la, lb;
    uint32_t *ra = runes(a, &la), *rb = runes(b, &lb);
    int r = la > INT32_MAX / 4 || lb > INT32_MAX / 4 ? INT32_MAX : distance_runes(ra, (int)la, rb, (int)lb);
    free(ra);
    free(rb);
    return r;
}

/* shortest first, then in byte order (catalog.go's sort.Slice) */
static bool before(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    return la != lb ? la < lb : strcmp(a, b) < 0;
}

/* syms[i] is not an earlier symbol again */
static bool first(const char *const *syms, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (!strcmp(syms[k], syms[i]))
            return false;
    return true;
}

/* Keep s among the two best so far (best[0] before best[1]). */
static void keep(const char *best[2], const char *s)
{
    if (!best[0] || before(s, best[0])) {
        best[1] = best[0];
        best[0] = s;
    } else if (!best[1] || before(s, best[1])) {
        best[1] = s;
    }
}

char *cel_catalog_suggest(const char *name, const char *const *syms, size_t n)
{
    if (!*name)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(syms[i], name))
            return dra_xstrdup(""); /* the symbol itself, with no option to enable */
    bool dotted = strchr(name, '.') != NULL;
    size_t len = strlen(name);
    int max_dist = len <= 3 ? 1 : len > 8 ? (int)(len / 3) : 2;
    int least = INT32_MAX;
    const char *best[2] = {NULL, NULL};
    for (size_t i = 0; i < n; i++) {
        if ((strchr(syms[i], '.') != NULL) != dotted || !first(syms, i))
            continue;
        int d = cel_catalog_distance(name, syms[i]);
        if (d > max_dist || d > least)
            continue;
        if (d < least) {
            least = d;
            best[0] = best[1] = NULL;
        }
        keep(best, syms[i]);
    }
    if (!best[0] && len >= 2)
        for (size_t i = 0; i < n; i++)
            if ((strchr(syms[i], '.') != NULL) == dotted && !strncmp(syms[i], name, len) && first(syms, i))
                keep(best, syms[i]);
    if (!best[0])
        return NULL;
    dra_buf b = DRA_BUF_INIT;
    if (best[1])
        dra_buf_printf(&b, " (did you mean '%s' or '%s'?)", best[0], best[1]);
    else
        dra_buf_printf(&b, " (did you mean '%s'?)", best[0]);
    char *s = dra_xstrdup(dra_buf_str(&b));
    dra_buf_free(&b);
    return s;
}
