/* Synthetic fleets (see profile.h). */
#include "model/quantity.h"
#include "../base/hash.h"
#include "profile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dra_err *dra_profile_parse(const char *name, dra_profile_kind *out)
{
    static const struct {
        const char *name;
        dra_profile_kind kind;
    } known[] = {
        {"gpu", DRA_PROFILE_GPU}, {"net", DRA_PROFILE_NET}, {"mig", DRA_PROFILE_MIG}, {"cpu", DRA_PROFILE_CPU}};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (name && strcmp(name, known[i].name) == 0) {
            *out = known[i].kind;
            return NULL;
        }
    return dra_err_new(DRA_EXIT_INPUT, "unknown profile '%s': known profiles are gpu, net, mig, cpu", name ? name : "");
}

const char *dra_profile_default_driver(dra_profile_kind kind)
{
    switch (kind) {
    case DRA_PROFILE_NET: return "net.example.com";
    case DRA_PROFILE_MIG: return "gpu.nvidia.com";
    case DRA_PROFILE_CPU: return "cpu.example.com";
    default: return "gpu.example.com";
    }
}

dra_err *dra_profile_check(const dra_profile_opts *o)
{
    if (o->nodes == 0)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "must be greater than zero"), "nodes");
    if (o->partitions && o->kind != DRA_PROFILE_GPU)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "only the gpu profile has partitions"), "partitions");
    if (o->cpus_per_numa && o->kind != DRA_PROFILE_CPU)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "only the cpu profile has CPUs per NUMA node"),
                             "cpus-per-numa-node");
    if (o->partitions > 1024)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "must be at most 1024"), "partitions");
    if (o->devices > 10000000)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "must be at most 10000000"), "devices");
    return NULL;
}

char *dra_profile_node_name(size_t node)
{
    return dra_xasprintf("node-%zu", node);
}

/* A UUID-shaped string derived from (node, what, index): the fleet looks
 * real but is reproducible. */
static uint64_t mix64(uint64_t z)
{
    /* splitmix64's finaliser: nearby seeds give unrelated bits */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static json_t *fake_uuid(const char *prefix, size_t node, const char *what, size_t index)
{
    uint64_t h = dra_fnv1a_str(DRA_FNV64_OFFSET, what);
    uint64_t hi = mix64(h ^ mix64(node * 2 + 1) ^ mix64(index + 0x9e3779b97f4a7c15ULL));
    uint64_t lo = mix64(hi ^ 0x632be59bd9b4e019ULL);
    hi = (hi & ~0xf000ULL) | 0x4000ULL;       /* version 4 */
    lo = (lo & ~(3ULL << 62)) | (2ULL << 62); /* RFC 4122 variant */
    char buf[64];
    snprintf(buf, sizeof buf, "%s%08x-%04x-%04x-%04x-%012llx", prefix, (unsigned)(hi >> 32),
             (unsigned)((hi >> 16) & 0xffff), (unsigned)(hi & 0xffff), (unsigned)(lo >> 48),
             (unsigned long long)(lo & 0xffffffffffffULL));
    return json_string(buf);
}

static json_t *attr_int(long long v)
{
    return json_pack("{s:I}", "int", (json_int_t)v);
}
static json_t *attr_str(const char *s)
{
    return json_pack("{s:s}", "string", s);
}
static json_t *attr_version(const char *s)
{
    return json_pack("{s:s}", "version", s);
}
static json_t *cap(const char *v)
{
    return json_pack("{s:s}", "value", v);
}
static json_t *cap_int(long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return cap(buf);
}

/* Bytes as the canonical BinarySI quantity when it is a whole number of Mi. */
static json_t *bytes_quantity(unsigned long long bytes)
{
    /* canonical BinarySI text, as the API server would print it */
    char buf[DRA_QUANTITY_STRMAX];
    dra_quantity q = dra_quantity_from_int64(bytes > INT64_MAX ? INT64_MAX : (int64_t)bytes, DRA_QFMT_BINARY_SI);
    dra_quantity_format(&q, buf);
    return cap(buf);
}

/* dra-example-driver's gpu profile (internal/profiles/gpu/gpu.go): memory
 * 80Gi and compute 100 per GPU; with partitions, a counter set
 * gpu-<i>-counters of both, devices gpu-<i>-partition-<j> (attributes
 * partition and partitionable) and gpu-<i>-full (partitionable, full) that
 * consume from it. */
static json_t *gpu_attrs(size_t node, size_t i)
{
    json_t *attrs = json_object();
    json_object_set_new(attrs, "index", attr_int((long long)i));
    json_object_set_new(attrs, "uuid", json_pack("{s:o}", "string", fake_uuid("gpu-", node, "gpu", i)));
    json_object_set_new(attrs, "model", attr_str("LATEST-GPU-MODEL"));
    json_object_set_new(attrs, "driverVersion", attr_version("1.0.0"));
    return attrs;
}

/* {memory: {value}, compute: {value}}: a capacity map and a counter map alike */
static json_t *gpu_amounts(unsigned long long mem, unsigned long long compute)
{
    char c[32];
    snprintf(c, sizeof c, "%llu", compute);
    return json_pack("{s:o,s:o}", "memory", bytes_quantity(mem), "compute", cap(c));
}

static void gpu_node(const dra_profile_opts *o, size_t node, json_t *devices, json_t *sets)
{
    const unsigned long long mem = 80ULL << 30, compute = 100;
    for (size_t i = 0; i < o->devices; i++) {
        char name[64];
        if (o->partitions == 0) {
            snprintf(name, sizeof name, "gpu-%zu", i);
            json_array_append_new(devices, json_pack("{s:s, s:o, s:o}", "name", name, "attributes", gpu_attrs(node, i),
                                                     "capacity", gpu_amounts(mem, compute)));
            continue;
        }
        char set[64];
        snprintf(set, sizeof set, "gpu-%zu-counters", i);
        json_array_append_new(sets, json_pack("{s:s, s:o}", "name", set, "counters", gpu_amounts(mem, compute)));
        unsigned long long pmem = mem / o->partitions, pcompute = compute / o->partitions;
        for (size_t j = 0; j < o->partitions; j++) {
            snprintf(name, sizeof name, "gpu-%zu-partition-%zu", i, j);
            json_t *attrs = gpu_attrs(node, i);
            json_object_set_new(attrs, "partition", attr_int((long long)j));
            json_object_set_new(attrs, "partitionable", json_pack("{s:b}", "bool", 1));
            json_array_append_new(devices, json_pack("{s:s, s:o, s:o, s:[{s:s, s:o}]}", "name", name, "attributes",
                                                     attrs, "capacity", gpu_amounts(pmem, pcompute), "consumesCounters",
                                                     "counterSet", set, "counters", gpu_amounts(pmem, pcompute)));
        }
        snprintf(name, sizeof name, "gpu-%zu-full", i);
        json_t *attrs = gpu_attrs(node, i);
        json_object_set_new(attrs, "partitionable", json_pack("{s:b}", "bool", 1));
        json_object_set_new(attrs, "full", json_pack("{s:b}", "bool", 1));
        json_array_append_new(devices, json_pack("{s:s, s:o, s:o, s:[{s:s, s:o}]}", "name", name, "attributes", attrs,
                                                 "capacity", gpu_amounts(mem, compute), "consumesCounters",
                                                 "counterSet", set, "counters", gpu_amounts(mem, compute)));
    }
}

/* dra-example-driver's net profile (internal/profiles/net/net.go): NICs
 * nic-<i> that allow multiple allocations, with consumable capacity vfs (one
 * at a time) and ingress/egress bandwidth in decimal units: 100G, shared in
 * ranges of 100M..100G in steps of 1M, 1G by default. */
static void net_node(const dra_profile_opts *o, size_t node, json_t *devices)
{
    for (size_t i = 0; i < o->devices; i++) {
        char name[64];
        snprintf(name, sizeof name, "nic-%zu", i);
        json_t *attrs = json_object();
        json_object_set_new(attrs, "index", attr_int((long long)i));
        json_object_set_new(attrs, "uuid", json_pack("{s:o}", "string", fake_uuid("net-", node, "net", i)));
        json_object_set_new(attrs, "model", attr_str("LATEST-NET-MODEL"));
        json_object_set_new(attrs, "driverVersion", attr_version("1.0.0"));
        json_t *caps = json_object();
        json_object_set_new(
            caps, "vfs",
            json_pack("{s:s, s:{s:s, s:[s]}}", "value", "100", "requestPolicy", "default", "1", "validValues", "1"));
        const char *bw = "{s:s, s:{s:s, s:{s:s, s:s, s:s}}}";
        json_object_set_new(caps, "ingressBandwidth",
                            json_pack(bw, "value", "100G", "requestPolicy", "default", "1G", "validRange", "min",
                                      "100M", "max", "100G", "step", "1M"));
        json_object_set_new(caps, "egressBandwidth",
                            json_pack(bw, "value", "100G", "requestPolicy", "default", "1G", "validRange", "min",
                                      "100M", "max", "100G", "step", "1M"));
        json_array_append_new(devices, json_pack("{s:s, s:o, s:o, s:b}", "name", name, "attributes", attrs, "capacity",
                                                 caps, "allowMultipleAllocations", 1));
    }
}

/* dra-example-driver's cpu profile (sigs.k8s.io/dra-example-driver@v0.4.0
 * internal/profiles/cpu/cpu.go): one device numa-<i> per NUMA node that
 * allows multiple allocations, attribute numaNodeID, consumable capacity
 * <driver>/cpu (the CPUs of that NUMA node), mapped to the node-allocatable
 * resource cpu.  As each release takes it: from 1.38 on the capacity is
 * "cpu", unqualified (1.38's publishing helper refuses a name qualified
 * with the driver's own domain and adds the driver's name itself); 1.36
 * has no nodeAllocatableResources (an unknown field there). */
static void cpu_node(const dra_profile_opts *o, json_t *devices)
{
    const char *driver = o->driver ? o->driver : dra_profile_default_driver(DRA_PROFILE_CPU);
    dra_release rel = o->release ? o->release : DRA_RELEASE_DEFAULT;
    char *key = rel >= DRA_RELEASE_1_38 ? dra_xstrdup("cpu") : dra_xasprintf("%s/cpu", driver);
    size_t cpus = o->cpus_per_numa ? o->cpus_per_numa : 4;
    for (size_t i = 0; i < o->devices; i++) {
        char name[64];
        snprintf(name, sizeof name, "numa-%zu", i);
        json_t *caps = json_object();
        json_object_set_new(caps, key, cap_int((long long)cpus));
        json_t *maps = json_pack("{s:{s:{s:s,s:s}}}", "cpu", "mapping", "capacityKey", key, "capacityMultiplier", "1");
        json_t *dev = json_pack("{s:s, s:b, s:{s:o}, s:o}", "name", name, "allowMultipleAllocations", 1, "attributes",
                                "numaNodeID", attr_int((long long)i), "capacity", caps);
        if (rel >= DRA_RELEASE_1_37)
            json_object_set_new(dev, "nodeAllocatableResources", maps);
        else
            json_decref(maps);
        json_array_append_new(devices, dev);
    }
    free(key);
}

/* A100-40GB-like MIG geometry: 7 compute slices, 8 memory slices. */
static const struct mig_profile {
    const char *name; /* as nvidia-smi prints it */
    int id;           /* GPU instance profile id */
    int sms, copy_engines, decoders, encoders, jpeg, ofa;
    unsigned mem_mib;
    int size; /* memory slices */
    int starts[7];
    int nstarts;
} mig_profiles[] = {
    {"1g.5gb", 19, 14, 1, 0, 0, 0, 0, 4864, 1, {0, 1, 2, 3, 4, 5, 6}, 7},
    {"2g.10gb", 14, 28, 2, 1, 0, 0, 0, 9856, 2, {0, 2, 4}, 3},
    {"3g.20gb", 9, 42, 3, 2, 0, 0, 0, 19968, 4, {0, 4}, 2},
    {"4g.20gb", 5, 56, 4, 2, 0, 0, 0, 19968, 4, {0}, 1},
    {"7g.40gb", 0, 98, 7, 5, 0, 1, 1, 40192, 8, {0}, 1},
};
#define MIG_MEMORY_SLICES 8
#define MIG_GPU_MEMORY (40ULL << 30)

/* Engines and memory as counters (names as the NVIDIA driver derives them). */
static json_t *mig_counters(const struct mig_profile *p, unsigned long long mem, int start, int size)
{
    json_t *c = json_object();
    json_object_set_new(c, "multiprocessors", cap_int(p->sms));
    json_object_set_new(c, "copy-engines", cap_int(p->copy_engines));
    json_object_set_new(c, "decoders", cap_int(p->decoders));
    json_object_set_new(c, "encoders", cap_int(p->encoders));
    json_object_set_new(c, "jpeg-engines", cap_int(p->jpeg));
    json_object_set_new(c, "ofa-engines", cap_int(p->ofa));
    json_object_set_new(c, "memory", bytes_quantity(mem));
    for (int s = start; s < start + size; s++) {
        char name[32];
        snprintf(name, sizeof name, "memory-slice-%d", s);
        json_object_set_new(c, name, cap_int(1));
    }
    return c;
}

static json_t *mig_capacity(const struct mig_profile *p, unsigned long long mem)
{
    json_t *c = json_object();
    json_object_set_new(c, "multiprocessors", cap_int(p->sms));
    json_object_set_new(c, "copyEngines", cap_int(p->copy_engines));
    json_object_set_new(c, "decoders", cap_int(p->decoders));
    json_object_set_new(c, "encoders", cap_int(p->encoders));
    json_object_set_new(c, "jpegEngines", cap_int(p->jpeg));
    json_object_set_new(c, "ofaEngines", cap_int(p->ofa));
    json_object_set_new(c, "memory", bytes_quantity(mem));
    return c;
}

static json_t *nvidia_attrs(const char *type)
{
    json_t *a = json_object();
    json_object_set_new(a, "type", attr_str(type));
    json_object_set_new(a, "productName", attr_str("NVIDIA A100-SXM4-40GB"));
    json_object_set_new(a, "brand", attr_str("Nvidia"));
    json_object_set_new(a, "architecture", attr_str("Ampere"));
    json_object_set_new(a, "cudaComputeCapability", attr_version("8.0.0"));
    json_object_set_new(a, "driverVersion", attr_version("550.54.15"));
    json_object_set_new(a, "cudaDriverVersion", attr_version("12.4.0"));
    return a;
}

static void mig_node(const dra_profile_opts *o, size_t node, json_t *devices, json_t *sets)
{
    const struct mig_profile *full = &mig_profiles[sizeof mig_profiles / sizeof *mig_profiles - 1];
    for (size_t i = 0; i < o->devices; i++) {
        char set[64], name[96];
        snprintf(set, sizeof set, "gpu-%zu-counter-set", i);
        json_array_append_new(sets, json_pack("{s:s, s:o}", "name", set, "counters",
                                              mig_counters(full, MIG_GPU_MEMORY, 0, MIG_MEMORY_SLICES)));
        json_t *uuid = fake_uuid("GPU-", node, "mig", i);
        json_t *attrs = nvidia_attrs("gpu");
        json_object_set_new(attrs, "uuid", json_pack("{s:O}", "string", uuid));
        snprintf(name, sizeof name, "gpu-%zu", i);
        json_array_append_new(devices, json_pack("{s:s, s:o, s:o, s:[{s:s, s:o}]}", "name", name, "attributes", attrs,
                                                 "capacity", mig_capacity(full, MIG_GPU_MEMORY), "consumesCounters",
                                                 "counterSet", set, "counters",
                                                 mig_counters(full, MIG_GPU_MEMORY, 0, MIG_MEMORY_SLICES)));
        for (size_t p = 0; p < sizeof mig_profiles / sizeof *mig_profiles; p++) {
            const struct mig_profile *mp = &mig_profiles[p];
            char compact[16]; /* "1g.5gb" -> "1g5gb" as in the driver's canonical names */
            size_t k = 0;
            for (const char *c = mp->name; *c && k + 1 < sizeof compact; c++)
                if (*c != '.')
                    compact[k++] = *c;
            compact[k] = '\0';
            /* Placements of one profile share attributes and capacity (read-only). */
            json_t *mattrs = nvidia_attrs("mig");
            json_object_set_new(mattrs, "parentUUID", json_pack("{s:O}", "string", uuid));
            json_object_set_new(mattrs, "profile", attr_str(mp->name));
            unsigned long long mem = (unsigned long long)mp->mem_mib << 20;
            json_t *mcap = mig_capacity(mp, mem);
            for (int s = 0; s < mp->nstarts; s++) {
                snprintf(name, sizeof name, "gpu-%zu-mig-%s-%d-%d", i, compact, mp->id, mp->starts[s]);
                json_array_append_new(devices,
                                      json_pack("{s:s, s:O, s:O, s:[{s:s, s:o}]}", "name", name, "attributes", mattrs,
                                                "capacity", mcap, "consumesCounters", "counterSet", set, "counters",
                                                mig_counters(mp, mem, mp->starts[s], mp->size)));
            }
            json_decref(mattrs);
            json_decref(mcap);
        }
        json_decref(uuid);
    }
}

void dra_profile_node(const dra_profile_opts *o, size_t node, json_t **devices, json_t **counter_sets)
{
    *devices = json_array();
    *counter_sets = json_array();
    switch (o->kind) {
    case DRA_PROFILE_GPU: gpu_node(o, node, *devices, *counter_sets); break;
    case DRA_PROFILE_NET: net_node(o, node, *devices); break;
    case DRA_PROFILE_MIG: mig_node(o, node, *devices, *counter_sets); break;
    case DRA_PROFILE_CPU: cpu_node(o, *devices); break;
    }
}
