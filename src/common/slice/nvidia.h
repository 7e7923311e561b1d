/* Readers for nvidia-smi's text output (the parts `dra-slice discover` needs
 * besides `nvidia-smi -q -x`).
 *
 *   mig -lgip    GPU instance profiles per GPU: name, profile ID, memory
 *                (GiB with two decimals), SM, DEC, ENC, CE, JPEG, OFA
 *   mig -lgipp   where each profile can be placed: start slices and size
 *   mig -lgi     the GPU instances that exist: profile ID, instance ID and
 *                placement
 *   -L           GPUs and MIG devices with their UUIDs ("MIG 3g.40gb
 *                Device 0: (UUID: MIG-...)")
 *   --query-gpu=...,uuid,compute_cap --format=csv
 *                one row per GPU, columns named by the header
 *
 * Every reader is pure (no I/O), accepts lines it does not recognise (table
 * frames, headers, "No MIG-enabled devices found.") and fails only when a
 * line it does recognise is malformed or the output has no recognisable
 * content at all; errors name `name` (the command line) and the line, with
 * DRA_EXIT_RUNTIME: the output of a program we ran is not what we expected.
 *
 * Ownership: each reader returns a malloc'd array in *out (NULL when empty);
 * the caller frees it with free().
 */
#ifndef DRA_SLICE_NVIDIA_H
#define DRA_SLICE_NVIDIA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/error.h"
#include "xml.h"

#define DRA_MIG_NAME_MAX 64
#define DRA_MIG_UUID_MAX 96

typedef struct dra_mig_profile {
    int gpu, id;                 /* GPU index, GPU instance profile ID */
    char name[DRA_MIG_NAME_MAX]; /* "1g.18gb+me" (without "MIG ") */
    long long memory_mib;        /* recovered from the GiB column, see nvidia.c */
    long long sm, dec, enc, ce, jpeg, ofa;
} dra_mig_profile;

typedef struct dra_mig_placement {
    int gpu, profile, start, size;
} dra_mig_placement;

typedef struct dra_mig_instance { /* one row of `mig -lgi` */
    int gpu, profile, gi, start, size;
    char name[DRA_MIG_NAME_MAX];
} dra_mig_instance;

typedef struct dra_mig_listed { /* one MIG line of `-L` */
    int gpu, index;
    char profile[DRA_MIG_NAME_MAX];
    char uuid[DRA_MIG_UUID_MAX];
} dra_mig_listed;

typedef struct dra_gpu_query {   /* one row of --query-gpu */
    int index;                   /* -1 when the column is absent */
    char uuid[DRA_MIG_UUID_MAX]; /* "" when absent */
    char compute_cap[16];        /* "9.0"; "" when absent or [N/A] */
} dra_gpu_query;

dra_err *dra_nvidia_parse_lgip(const char *text, size_t len, const char *name, dra_mig_profile **out, size_t *n);
dra_err *dra_nvidia_parse_lgipp(const char *text, size_t len, const char *name, dra_mig_placement **out, size_t *n);
dra_err *dra_nvidia_parse_lgi(const char *text, size_t len, const char *name, dra_mig_instance **out, size_t *n);
dra_err *dra_nvidia_parse_list(const char *text, size_t len, const char *name, dra_mig_listed **out, size_t *n);
dra_err *dra_nvidia_parse_query(const char *text, size_t len, const char *name, dra_gpu_query **out, size_t *n);

/* nvidia-smi prints a profile's memory as MiB/1024 with two decimals
 * ("19.62" for 20096 MiB).  The MiB value that prints as `gib`, preferring
 * the one divisible by the largest power of two (MIG memory comes in
 * 256 MiB-aligned blocks); -1 when `gib` is not such a number. */
long long dra_nvidia_gib_to_mib(const char *gib);

/* go-nvlib's spelling of a brand nvidia-smi prints ("NVIDIA" -> "Nvidia",
 * "Quadro RTX" -> "QuadroRTX"); NULL when unknown.  Static storage. */
const char *dra_nvidia_brand(const char *smi_brand);

/* ---- building blocks of what NVIDIA's DRA driver (gpu.nvidia.com) publishes,
 * for dra_discover_nvidia (discover.c).  Names, types and spellings follow
 * NVIDIA/k8s-dra-driver-gpu (see nvidia.c).  Every json_t * argument is
 * borrowed; the attribute builders return new references. */

/* A device attribute {"string": s} / {"int": v}. */
json_t *dra_nv_attr_str(const char *s);
json_t *dra_nv_attr_int(long long v);
/* NVIDIA normalises versions with Masterminds semver: "535.129.03" ->
 * "535.129.3", "12.4" -> "12.4.0".  NULL when not a plain dotted number;
 * caller frees. */
char *dra_nv_normalize_version(const char *s);
/* attrs[key] = the version raw normalises to / the string v (when set). */
void dra_nv_set_version_attr(json_t *attrs, const char *key, const char *raw);
void dra_nv_set_string_attr(json_t *attrs, const char *key, const char *v);
/* Whether the architecture can toggle MIG mode without a GPU reset
 * (Hopper and later). */
bool dra_nv_arch_toggles_mig(const char *arch);

typedef struct dra_nv_gpu {
    dra_xnode *node;
    int index; /* NVML index: position in the XML */
    long long minor;
    char *uuid;     /* owned, may be NULL */
    json_t *common; /* owned: attributes full GPUs and MIG devices share */
    unsigned long long mem;
    bool have_mem, have_cc, mig_capable, mig_enabled, toggle;
} dra_nv_gpu;

typedef struct dra_nv_tables {
    dra_gpu_query *query;
    size_t nquery;
    dra_mig_profile *prof;
    size_t nprof;
    dra_mig_placement *place;
    size_t nplace;
    dra_mig_instance *gi;
    size_t ngi;
    dra_mig_listed *listed;
    size_t nlisted;
} dra_nv_tables;

/* A full GPU as device gpu-<minor>. */
void dra_nv_emit_gpu(const dra_nv_gpu *g, json_t *devices);
/* DynamicMIG: the full GPU and every placement of every profile on one
 * counter set (GetPerGpuAllocatableDevices, PartGetDevice). */
void dra_nv_emit_dynamic(const dra_nv_gpu *g, const dra_nv_tables *t, json_t *devices, json_t *counter_sets);
/* Static MIG: the MIG devices that exist, named by profile and placement,
 * with capacity memorySlice<i> for the slices they sit on
 * (MigDeviceInfo.GetDevice).  name is the command line for errors. */
DRA_MUST_USE dra_err *dra_nv_emit_static(const dra_nv_gpu *g, const dra_nv_tables *t, const char *name,
                                         json_t *devices);

#endif
