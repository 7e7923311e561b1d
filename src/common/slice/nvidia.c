/* Readers for nvidia-smi's text tables (see nvidia.h). */
#include "nvidia.h"
#include "../model/quantity.h"

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

/* clang-format off */
#define GROW(arr, n, cap)                                                                                      \
    do {                                                                                                       \
        if ((n) == (cap)) {                                                                                    \
            (cap) = (cap) ? (cap) * 2 : 16;                                                                    \
            (arr) = dra_xrealloc((arr), (cap) * sizeof *(arr));                                                \
        }                                                                                                      \
    } while (0)
/* clang-format on */

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
            if (l.n != 10 || !to_small(l.tok[0], &p.gpu) || !to_small(l.tok[3], &p.id) || !strchr(l.tok[4], '/') ||
                (p.memory_mib = dra_nvidia_gib_to_mib(l.tok[5])) < 0 || !to_int(l.tok[7], INT_MAX, &p.sm) ||
                !to_int(l.tok[8], INT_MAX, &p.dec) || !to_int(l.tok[9], INT_MAX, &p.enc)) {
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
        if (l.n != 6 || !to_small(l.tok[0], &g.gpu) || !to_small(l.tok[3], &g.profile) || !to_small(l.tok[4], &g.gi) ||
            !start_size(l.tok[5], &g.start, &g.size)) {
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
    static const struct {
        const char *key, *nvlib;
    } brands[] = {
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

json_t *dra_nv_attr_str(const char *s)
{
    return json_pack("{s:s}", "string", s);
}
json_t *dra_nv_attr_int(long long v)
{
    return json_pack("{s:I}", "int", (json_int_t)v);
}

/* NVIDIA normalises versions with Masterminds semver: "535.129.03" ->
 * "535.129.3", "12.4" -> "12.4.0".  NULL when not a plain dotted number. */
char *dra_nv_normalize_version(const char *s)
{
    if (!s)
        return NULL;
    unsigned long long part[3] = {0, 0, 0};
    int nparts = 0;
    const char *p = s;
    while (nparts < 3) {
        if (!isdigit((unsigned char)*p))
            return NULL;
        char *end;
        part[nparts++] = strtoull(p, &end, 10);
        p = end;
        if (*p != '.')
            break;
        p++;
    }
    if (*p)
        return NULL;
    return dra_xasprintf("%llu.%llu.%llu", part[0], part[1], part[2]);
}

static json_t *cap_bytes(unsigned long long bytes)
{
    /* canonical BinarySI text, as the API server would print it */
    char buf[DRA_QUANTITY_STRMAX];
    dra_quantity q = dra_quantity_from_int64(bytes > INT64_MAX ? INT64_MAX : (int64_t)bytes, DRA_QFMT_BINARY_SI);
    dra_quantity_format(&q, buf);
    return json_pack("{s:s}", "value", buf);
}

static json_t *cap_int(long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return json_pack("{s:s}", "value", buf);
}

/* ---- nvidia: what NVIDIA's DRA driver (gpu.nvidia.com) publishes ----
 *
 * Names, types and spellings follow NVIDIA/k8s-dra-driver-gpu:
 * cmd/gpu-kubelet-plugin/deviceinfo.go (GpuInfo.Attributes, full GPUs),
 * mig.go (CommonAttributesMig, CommonCapacitiesMig, ToCanonicalName),
 * partitions.go (the DynamicMIG counter sets and consumption) and nvlib.go
 * (getGpuInfo, inspectMigProfilesAndPlacements, isDynamicMIGCapable). */

/* A MIG profile's capacities (CommonCapacitiesMig) and, as counters, their
 * camelToDNSName spelling (capacitiesToCounters). */
static const struct {
    const char *capacity, *counter;
    size_t off;
} mig_caps[] = {
    {"multiprocessors", "multiprocessors", offsetof(dra_mig_profile, sm)},
    {"copyEngines", "copy-engines", offsetof(dra_mig_profile, ce)},
    {"decoders", "decoders", offsetof(dra_mig_profile, dec)},
    {"encoders", "encoders", offsetof(dra_mig_profile, enc)},
    {"jpegEngines", "jpeg-engines", offsetof(dra_mig_profile, jpeg)},
    {"ofaEngines", "ofa-engines", offsetof(dra_mig_profile, ofa)},
};
#define NMIGCAPS (sizeof mig_caps / sizeof *mig_caps)

static long long prof_val(const dra_mig_profile *p, size_t k)
{
    return *(const long long *)(const void *)((const char *)p + mig_caps[k].off);
}

void dra_nv_set_version_attr(json_t *attrs, const char *key, const char *raw)
{
    char *v = dra_nv_normalize_version(raw);
    if (v && strlen(v) <= 64)
        json_object_set_new(attrs, key, json_pack("{s:s}", "version", v));
    free(v);
}

void dra_nv_set_string_attr(json_t *attrs, const char *key, const char *v)
{
    if (v && strlen(v) <= 64)
        json_object_set_new(attrs, key, dra_nv_attr_str(v));
}

static const dra_mig_profile *find_profile(const dra_nv_tables *t, int gpu, int id)
{
    for (size_t i = 0; i < t->nprof; i++)
        if (t->prof[i].gpu == gpu && t->prof[i].id == id)
            return &t->prof[i];
    return NULL;
}

/* Architectures before Hopper cannot toggle MIG mode without a GPU reset
 * (supportsMIGModeToggle: arch >= DEVICE_ARCH_HOPPER; "Unknown" is the
 * largest enum value). */
bool dra_nv_arch_toggles_mig(const char *arch)
{
    static const char *const older[] = {"Kepler", "Maxwell", "Pascal", "Volta", "Turing", "Ampere", "Ada Lovelace"};
    if (!arch)
        return false;
    for (size_t i = 0; i < sizeof older / sizeof *older; i++)
        if (strcmp(arch, older[i]) == 0)
            return false;
    return true;
}

/* Device name of a MIG placement: gpu-<minor>-mig-<profile without dots,
 * RFC 1123>-<profile id>-<start> (MigSpecTuple.ToCanonicalName). */
static char *mig_name(long long minor, const char *profile, int id, int start)
{
    char p[DRA_MIG_NAME_MAX];
    size_t k = 0;
    for (const char *s = profile; *s && k < sizeof p - 1; s++) {
        if (*s == '.')
            continue;
        char c = (char)tolower((unsigned char)*s);
        p[k++] = ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') ? c : '-';
    }
    p[k] = '\0';
    char *b = p;
    while (*b == '-')
        b++;
    while (k > 0 && p[k - 1] == '-')
        p[--k] = '\0';
    return dra_xasprintf("gpu-%lld-mig-%s-%d-%d", minor, b, id, start);
}

static json_t *mig_capacity(const dra_mig_profile *p)
{
    json_t *c = json_object();
    for (size_t k = 0; k < NMIGCAPS; k++)
        json_object_set_new(c, mig_caps[k].capacity, cap_int(prof_val(p, k)));
    json_object_set_new(c, "memory", cap_bytes((unsigned long long)p->memory_mib << 20));
    return c;
}

/* Counters consumed: every capacity plus memory-slice-<i> for the placement. */
static json_t *mig_counters(const json_t *capacity, int start, int size)
{
    json_t *c = json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)capacity, k, v) {
        const char *counter = strcmp(k, "memory") == 0 ? "memory" : NULL;
        for (size_t i = 0; i < NMIGCAPS && !counter; i++)
            if (strcmp(k, mig_caps[i].capacity) == 0)
                counter = mig_caps[i].counter;
        if (counter)
            json_object_set(c, counter, v);
    }
    for (int i = start; i < start + size; i++) {
        char name[32];
        snprintf(name, sizeof name, "memory-slice-%d", i);
        json_object_set_new(c, name, cap_int(1));
    }
    return c;
}

static json_t *mig_attrs(const dra_nv_gpu *g, const char *profile)
{
    json_t *a = json_deep_copy(g->common);
    json_object_set_new(a, "type", dra_nv_attr_str("mig"));
    dra_nv_set_string_attr(a, "parentUUID", g->uuid);
    dra_nv_set_string_attr(a, "profile", profile);
    return a;
}

static json_t *gpu_attrs(const dra_nv_gpu *g)
{
    json_t *a = json_deep_copy(g->common);
    json_object_set_new(a, "type", dra_nv_attr_str("gpu"));
    dra_nv_set_string_attr(a, "uuid", g->uuid);
    return a;
}

static int by_name(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    return strcmp(json_string_value(json_object_get(x, "name")), json_string_value(json_object_get(y, "name")));
}

static void append_sorted(json_t *devices, json_t *batch)
{
    size_t n = json_array_size(batch);
    json_t **v = dra_xcalloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = json_array_get(batch, i);
    qsort(v, n, sizeof *v, by_name);
    for (size_t i = 0; i < n; i++)
        json_array_append(devices, v[i]);
    free(v);
    json_decref(batch);
}

void dra_nv_emit_gpu(const dra_nv_gpu *g, json_t *devices)
{
    char nm[32];
    snprintf(nm, sizeof nm, "gpu-%lld", g->minor);
    json_t *cap = json_object();
    if (g->have_mem)
        json_object_set_new(cap, "memory", cap_bytes(g->mem));
    json_array_append_new(devices,
                          json_pack("{s:s, s:o, s:o}", "name", nm, "attributes", gpu_attrs(g), "capacity", cap));
}

/* DynamicMIG: the full GPU and every placement of every profile on one
 * counter set (GetPerGpuAllocatableDevices, PartGetDevice). */
void dra_nv_emit_dynamic(const dra_nv_gpu *g, const dra_nv_tables *t, json_t *devices, json_t *counter_sets)
{
    dra_mig_profile max = {0};
    int slices = 0;
    json_t *batch = json_array();
    char set[64];
    snprintf(set, sizeof set, "gpu-%lld-counter-set", g->minor);
    for (size_t i = 0; i < t->nplace; i++) {
        const dra_mig_placement *pl = &t->place[i];
        const dra_mig_profile *p = pl->gpu == g->index ? find_profile(t, g->index, pl->profile) : NULL;
        if (!p)
            continue;
        /* inspectMigProfilesAndPlacements: the largest placement is the
         * number of memory slices, and the full GPU's capacity is the
         * largest value of each dimension over all profiles. */
        if (pl->size > slices)
            slices = pl->size;
        for (size_t k = 0; k < NMIGCAPS; k++) {
            long long *m = (long long *)(void *)((char *)&max + mig_caps[k].off);
            if (prof_val(p, k) > *m)
                *m = prof_val(p, k);
        }
        if (p->memory_mib > max.memory_mib)
            max.memory_mib = p->memory_mib;
        char *name = mig_name(g->minor, p->name, p->id, pl->start);
        json_t *cap = mig_capacity(p);
        json_t *use = mig_counters(cap, pl->start, pl->size);
        json_array_append_new(batch, json_pack("{s:s, s:o, s:o, s:[{s:s, s:o}]}", "name", name, "attributes",
                                               mig_attrs(g, p->name), "capacity", cap, "consumesCounters", "counterSet",
                                               set, "counters", use));
        free(name);
    }
    if (slices == 0) {
        /* No profile data for this GPU: a plain GPU (PartCapacities falls
         * back to the memory capacity and there is no counter set). */
        json_decref(batch);
        dra_nv_emit_gpu(g, devices);
        return;
    }
    json_t *maxcap = mig_capacity(&max);
    json_t *counters = mig_counters(maxcap, 0, slices);
    if (!g->mig_enabled || g->toggle) {
        char nm[32];
        snprintf(nm, sizeof nm, "gpu-%lld", g->minor);
        json_array_append_new(batch, json_pack("{s:s, s:o, s:O, s:[{s:s, s:O}]}", "name", nm, "attributes",
                                               gpu_attrs(g), "capacity", maxcap, "consumesCounters", "counterSet", set,
                                               "counters", counters));
    }
    json_array_append_new(counter_sets, json_pack("{s:s, s:o}", "name", set, "counters", counters));
    json_decref(maxcap);
    append_sorted(devices, batch);
}

/* Static MIG: the MIG devices that exist, named by profile and placement,
 * with capacity memorySlice<i> for the slices they sit on
 * (MigDeviceInfo.GetDevice). */
dra_err *dra_nv_emit_static(const dra_nv_gpu *g, const dra_nv_tables *t, const char *name, json_t *devices)
{
    dra_xnode *migs = dra_xml_child(g->node, "mig_devices");
    json_t *batch = json_array();
    dra_err *errs = NULL;
    long long ordinal = 0;
    for (dra_xnode *m = migs ? migs->child : NULL; m; m = m->next) {
        if (strcmp(m->name, "mig_device") != 0)
            continue;
        long long idx = ordinal++, gi = -1;
        dra_xml_long(m, "index", &idx);
        dra_xml_long(m, "gpu_instance_id", &gi);
        const dra_mig_listed *l = NULL;
        for (size_t i = 0; i < t->nlisted && !l; i++)
            if (t->listed[i].gpu == g->index && t->listed[i].index == idx)
                l = &t->listed[i];
        const dra_mig_instance *inst = NULL;
        for (size_t i = 0; i < t->ngi && !inst; i++)
            if (t->gi[i].gpu == g->index && t->gi[i].gi == gi)
                inst = &t->gi[i];
        const dra_mig_profile *p = inst ? find_profile(t, g->index, inst->profile) : NULL;
        if (!l || !inst || !p) {
            errs = dra_err_append(
                errs, dra_err_at(dra_err_new(DRA_EXIT_RUNTIME,
                                             "GPU %d: MIG device %lld (GPU instance %lld) is not listed by %s",
                                             g->index, idx, gi,
                                             !l      ? "nvidia-smi -L"
                                             : !inst ? "nvidia-smi mig -lgi"
                                                     : "nvidia-smi mig -lgip"),
                                 name, 0, 0, 0));
            continue;
        }
        json_t *attrs = mig_attrs(g, l->profile);
        dra_nv_set_string_attr(attrs, "uuid", l->uuid);
        json_t *cap = mig_capacity(p);
        for (int i = inst->start; i < inst->start + inst->size; i++) {
            char k[32];
            snprintf(k, sizeof k, "memorySlice%d", i);
            json_object_set_new(cap, k, cap_int(1));
        }
        char *dn = mig_name(g->minor, l->profile, p->id, inst->start);
        json_array_append_new(batch, json_pack("{s:s, s:o, s:o}", "name", dn, "attributes", attrs, "capacity", cap));
        free(dn);
    }
    append_sorted(devices, batch);
    return errs;
}
