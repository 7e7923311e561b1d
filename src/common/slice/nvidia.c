/* Readers for nvidia-smi's text tables (see nvidia.h). */
#include "nvidia.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXTOK 16
#define MAXLINE 512

/* One line split into whitespace-separated tokens, table bars removed.
 * Lines longer than MAXLINE are cut (nothing we read is that long). */
typedef struct line {
    char buf[MAXLINE];
    char *tok[MAXTOK];
    int n;
    int lineno;
} line;

typedef struct reader {
    const char *p, *end;
    int lineno;
} reader;

static bool next_line(reader *r, line *l)
{
    if (r->p >= r->end)
        return false;
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    const char *e = nl ? nl : r->end;
    size_t len = (size_t)(e - r->p);
    if (len >= MAXLINE)
        len = MAXLINE - 1;
    memcpy(l->buf, r->p, len);
    l->buf[len] = '\0';
    r->p = nl ? nl + 1 : r->end;
    l->lineno = ++r->lineno;
    l->n = 0;
    for (char *s = l->buf; *s; s++)
        if (*s == '|' || *s == '\r' || *s == '\t' || (unsigned char)*s < 32)
            *s = ' ';
    char *save = NULL;
    for (char *t = strtok_r(l->buf, " ", &save); t && l->n < MAXTOK; t = strtok_r(NULL, " ", &save))
        l->tok[l->n++] = t;
    return true;
}

static bool to_int(const char *s, long long max, long long *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

static bool to_small(const char *s, int *out)
{
    long long v;
    if (!to_int(s, 1 << 20, &v))
        return false;
    *out = (int)v;
    return true;
}

static dra_err *bad(const char *name, int lineno, const char *what)
{
    return dra_err_at(dra_err_new(DRA_EXIT_RUNTIME, "not nvidia-smi output: %s", what), name, 0, lineno, 0);
}

static void copy_name(char *dst, const char *src)
{
    snprintf(dst, DRA_MIG_NAME_MAX, "%s", src);
}

/* Output with no recognised rows is fine when it says so ("No MIG-enabled
 * devices found.", "No devices were found") or is empty. */
/* A parser's last step: on an error its partial table is dropped (the
 * caller clears its pointer when this returns e). */
static dra_err *drop_on_error(dra_err *e, void *table, size_t *n)
{
    if (e) {
        free(table);
        *n = 0;
    }
    return e;
}

static dra_err *nothing_found(const char *text, size_t len, const char *name, const char *what)
{
    reader r = {text, text + len, 0};
    line l;
    while (next_line(&r, &l)) {
        if (l.n == 0)
            continue;
        if (strcmp(l.tok[0], "No") == 0)
            return NULL;
        return bad(name, l.lineno, what);
    }
    return NULL;
}

#define GROW(arr, n, cap)                                                                                      \
    do {                                                                                                       \
        if ((n) == (cap)) {                                                                                    \
            (cap) = (cap) ? (cap) * 2 : 16;                                                                    \
            (arr) = dra_xrealloc((arr), (cap) * sizeof *(arr));                                                \
        }                                                                                                      \
    } while (0)

long long dra_nvidia_gib_to_mib(const char *gib)
{
    /* "NNN.DD" only */
    const char *dot = strchr(gib, '.');
    if (!dot || dot == gib || strlen(dot + 1) != 2 || !isdigit((unsigned char)dot[1]) ||
        !isdigit((unsigned char)dot[2]))
        return -1;
    for (const char *p = gib; p < dot; p++)
        if (!isdigit((unsigned char)*p))
            return -1;
    if (dot - gib > 9)
        return -1;
    long long hundredths = strtoll(gib, NULL, 10) * 100 + (dot[1] - '0') * 10 + (dot[2] - '0');
    long long guess = hundredths * 1024 / 100;
    long long best = -1;
    int best_tz = -1;
    for (long long m = guess - 12; m <= guess + 12; m++) {
        if (m <= 0)
            continue;
        char buf[32];
        snprintf(buf, sizeof buf, "%.2f", (double)m / 1024.0);
        if (strcmp(buf, gib) != 0)
            continue;
        int tz = __builtin_ctzll((unsigned long long)m);
        if (tz > best_tz) {
            best_tz = tz;
            best = m;
        }
    }
    return best;
}

/* |   0  MIG 1g.18gb    19     7/7     16.00     No     16     1     0   |
 * |                                                      1     1     0   | */
dra_err *dra_nvidia_parse_lgip(const char *text, size_t len, const char *name, dra_mig_profile **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    reader r = {text, text + len, 0};
    line l;
    bool second = false; /* the previous line was a profile's first row */
    dra_err *e = NULL;
    while (!e && next_line(&r, &l)) {
        if (l.n >= 2 && strcmp(l.tok[1], "MIG") == 0) {
            dra_mig_profile p = {0};
            if (l.n != 10 || !to_small(l.tok[0], &p.gpu) || !to_small(l.tok[3], &p.id) ||
                !strchr(l.tok[4], '/') || (p.memory_mib = dra_nvidia_gib_to_mib(l.tok[5])) < 0 ||
                !to_int(l.tok[7], INT_MAX, &p.sm) || !to_int(l.tok[8], INT_MAX, &p.dec) ||
                !to_int(l.tok[9], INT_MAX, &p.enc)) {
                e = bad(name, l.lineno, "expected 'GPU MIG NAME ID FREE/TOTAL GIB P2P SM DEC ENC'");
                break;
            }
            copy_name(p.name, l.tok[2]);
            GROW(*out, *n, cap);
            (*out)[(*n)++] = p;
            second = true;
            continue;
        }
        if (second) {
            dra_mig_profile *p = &(*out)[*n - 1];
            if (l.n != 3 || !to_int(l.tok[0], INT_MAX, &p->ce) || !to_int(l.tok[1], INT_MAX, &p->jpeg) ||
                !to_int(l.tok[2], INT_MAX, &p->ofa))
                e = bad(name, l.lineno, "expected 'CE JPEG OFA' below a profile");
            second = false;
        }
    }
    if (!e && second)
        e = bad(name, r.lineno, "a profile without its 'CE JPEG OFA' row");
    if (!e && *n == 0)
        e = nothing_found(text, len, name, "no GPU instance profiles");
    if (drop_on_error(e, *out, n))
        *out = NULL;
    return e;
}

/* GPU  0 Profile ID 19 Placements: {0,1,2,3,4,5,6}:1
 * GPU  0 Profile ID  5 Placement : {0}:4 */
dra_err *dra_nvidia_parse_lgipp(const char *text, size_t len, const char *name, dra_mig_placement **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    reader r = {text, text + len, 0};
    line l;
    dra_err *e = NULL;
    while (!e && next_line(&r, &l)) {
        if (l.n < 5 || strcmp(l.tok[0], "GPU") != 0 || strcmp(l.tok[2], "Profile") != 0)
            continue;
        int gpu, prof;
        /* Re-join the tail: "Placements:" or "Placement :" then "{a,b}:size". */
        const char *set = NULL;
        for (int i = 5; i < l.n; i++)
            if (l.tok[i][0] == '{')
                set = l.tok[i];
        if (strcmp(l.tok[3], "ID") != 0 || !to_small(l.tok[1], &gpu) || !to_small(l.tok[4], &prof) || !set) {
            e = bad(name, l.lineno, "expected 'GPU N Profile ID N Placements: {START,...}:SIZE'");
            break;
        }
        const char *close = strchr(set, '}');
        int size;
        if (!close || close[1] != ':' || !to_small(close + 2, &size) || size <= 0) {
            e = bad(name, l.lineno, "expected '{START,...}:SIZE'");
            break;
        }
        char starts[MAXLINE];
        snprintf(starts, sizeof starts, "%.*s", (int)(close - set - 1), set + 1);
        char *save = NULL;
        for (char *t = strtok_r(starts, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int start;
            if (!to_small(t, &start)) {
                e = bad(name, l.lineno, "a placement start is not a number");
                break;
            }
            GROW(*out, *n, cap);
            (*out)[(*n)++] = (dra_mig_placement){gpu, prof, start, size};
        }
    }
    if (!e && *n == 0)
        e = nothing_found(text, len, name, "no placements");
    if (drop_on_error(e, *out, n))
        *out = NULL;
    return e;
}

static bool start_size(const char *s, int *start, int *size)
{
    const char *colon = strchr(s, ':');
    if (!colon)
        return false;
    char a[32];
    snprintf(a, sizeof a, "%.*s", (int)(colon - s), s);
    return to_small(a, start) && to_small(colon + 1, size) && *size > 0;
}

/* |   0  MIG 3g.71gb          9        1          4:4     | */
dra_err *dra_nvidia_parse_lgi(const char *text, size_t len, const char *name, dra_mig_instance **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    reader r = {text, text + len, 0};
    line l;
    dra_err *e = NULL;
    while (!e && next_line(&r, &l)) {
        if (l.n < 2 || strcmp(l.tok[1], "MIG") != 0)
            continue;
        dra_mig_instance g = {0};
        if (l.n != 6 || !to_small(l.tok[0], &g.gpu) || !to_small(l.tok[3], &g.profile) ||
            !to_small(l.tok[4], &g.gi) || !start_size(l.tok[5], &g.start, &g.size)) {
            e = bad(name, l.lineno, "expected 'GPU MIG NAME PROFILE INSTANCE START:SIZE'");
            break;
        }
        copy_name(g.name, l.tok[2]);
        GROW(*out, *n, cap);
        (*out)[(*n)++] = g;
    }
    if (!e && *n == 0)
        e = nothing_found(text, len, name, "no GPU instances");
    if (drop_on_error(e, *out, n))
        *out = NULL;
    return e;
}

/* GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)
 *   MIG 3g.40gb     Device  0: (UUID: MIG-...) */
dra_err *dra_nvidia_parse_list(const char *text, size_t len, const char *name, dra_mig_listed **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    reader r = {text, text + len, 0};
    line l;
    dra_err *e = NULL;
    int gpu = -1;
    bool any = false;
    while (!e && next_line(&r, &l)) {
        if (l.n >= 2 && strcmp(l.tok[0], "GPU") == 0) {
            char num[32];
            snprintf(num, sizeof num, "%s", l.tok[1]);
            size_t k = strlen(num);
            if (k == 0 || num[k - 1] != ':' || (num[k - 1] = '\0', !to_small(num, &gpu))) {
                e = bad(name, l.lineno, "expected 'GPU N: NAME (UUID: ...)'");
                break;
            }
            any = true;
            continue;
        }
        if (l.n < 2 || strcmp(l.tok[0], "MIG") != 0)
            continue;
        dra_mig_listed m = {0};
        m.gpu = gpu;
        char idx[32] = "";
        const char *uuid = NULL;
        if (l.n >= 6 && strcmp(l.tok[2], "Device") == 0 && strcmp(l.tok[4], "(UUID:") == 0) {
            snprintf(idx, sizeof idx, "%s", l.tok[3]);
            uuid = l.tok[5];
        }
        size_t k = strlen(idx), u = uuid ? strlen(uuid) : 0;
        if (gpu < 0 || k == 0 || idx[k - 1] != ':' || (idx[k - 1] = '\0', !to_small(idx, &m.index)) || u < 2 ||
            uuid[u - 1] != ')' || u - 1 >= DRA_MIG_UUID_MAX) {
            e = bad(name, l.lineno, "expected 'MIG PROFILE Device N: (UUID: MIG-...)' below a GPU");
            break;
        }
        copy_name(m.profile, l.tok[1]);
        memcpy(m.uuid, uuid, u - 1);
        m.uuid[u - 1] = '\0';
        GROW(*out, *n, cap);
        (*out)[(*n)++] = m;
    }
    if (!e && !any)
        e = nothing_found(text, len, name, "no GPU lines");
    if (drop_on_error(e, *out, n))
        *out = NULL;
    return e;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t k = strlen(s);
    while (k > 0 && isspace((unsigned char)s[k - 1]))
        s[--k] = '\0';
    return s;
}

/* index, uuid, ..., compute_cap
 * 0, GPU-d55d..., ..., 9.0 */
dra_err *dra_nvidia_parse_query(const char *text, size_t len, const char *name, dra_gpu_query **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    int col_index = -1, col_uuid = -1, col_cc = -1;
    bool header = false;
    const char *p = text, *end = text + len;
    int lineno = 0;
    dra_err *e = NULL;
    while (!e && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t ll = (size_t)(le - p);
        lineno++;
        char *row = dra_xstrndup(p, ll > 4096 ? 4096 : ll);
        p = nl ? nl + 1 : end;
        if (!*trim(row)) {
            free(row);
            continue;
        }
        char *save = NULL;
        int col = 0;
        dra_gpu_query q = {-1, "", ""};
        for (char *f = strtok_r(row, ",", &save); f; f = strtok_r(NULL, ",", &save), col++) {
            char *v = trim(f);
            if (!header) {
                /* "memory.total [MiB]": the unit follows the name */
                char *sp = strchr(v, ' ');
                if (sp)
                    *sp = '\0';
                if (strcmp(v, "index") == 0)
                    col_index = col;
                else if (strcmp(v, "uuid") == 0)
                    col_uuid = col;
                else if (strcmp(v, "compute_cap") == 0)
                    col_cc = col;
                continue;
            }
            if (col == col_index && !to_small(v, &q.index))
                e = bad(name, lineno, "the index column is not a number");
            else if (col == col_uuid)
                snprintf(q.uuid, sizeof q.uuid, "%s", v);
            else if (col == col_cc && v[0] != '[' && strlen(v) < sizeof q.compute_cap)
                snprintf(q.compute_cap, sizeof q.compute_cap, "%s", v);
        }
        if (!header) {
            header = true;
            if (col_uuid < 0 && col_index < 0)
                e = bad(name, lineno, "a CSV header naming index or uuid");
        } else if (!e) {
            GROW(*out, *n, cap);
            (*out)[(*n)++] = q;
        }
        free(row);
    }
    if (!e && !header)
        e = bad(name, 1, "no CSV header");
    if (drop_on_error(e, *out, n))
        *out = NULL;
    return e;
}

const char *dra_nvidia_brand(const char *smi_brand)
{
    /* nvidia-smi's brand text and go-nvlib's GetBrandAsString spelling,
     * compared without spaces and case. */
    static const struct { const char *key, *nvlib; } brands[] = {
        {"nvidia", "Nvidia"},
        {"tesla", "Tesla"},
        {"quadro", "Quadro"},
        {"nvs", "NVS"},
        {"grid", "Grid"},
        {"geforce", "GeForce"},
        {"titan", "Titan"},
        {"nvidiavirtualapplications", "NvidiaVApps"},
        {"nvidiavapps", "NvidiaVApps"},
        {"nvidiavirtualpc", "NvidiaVPC"},
        {"nvidiavpc", "NvidiaVPC"},
        {"nvidiavirtualcomputeserver", "NvidiaVCS"},
        {"nvidiavcs", "NvidiaVCS"},
        {"nvidiartxvirtualworkstation", "NvidiaVWS"},
        {"nvidiavirtualworkstation", "NvidiaVWS"},
        {"nvidiavws", "NvidiaVWS"},
        {"nvidiacloudgaming", "NvidiaCloudGaming"},
        {"quadrortx", "QuadroRTX"},
        {"nvidiartx", "NvidiaRTX"},
        {"geforcertx", "GeForceRTX"},
        {"titanrtx", "TitanRTX"},
        {"unknown", "Unknown"},
    };
    if (!smi_brand)
        return NULL;
    char key[64];
    size_t k = 0;
    for (const char *s = smi_brand; *s && k < sizeof key - 1; s++)
        if (!isspace((unsigned char)*s))
            key[k++] = (char)tolower((unsigned char)*s);
    key[k] = '\0';
    for (size_t i = 0; i < sizeof brands / sizeof *brands; i++)
        if (strcmp(key, brands[i].key) == 0)
            return brands[i].nvlib;
    return NULL;
}
