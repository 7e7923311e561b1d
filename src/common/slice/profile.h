/* Synthetic device fleets for tests, demos and benchmarks.
 *
 * Profiles (all output is a pure function of the options: no seed, no clock):
 *   gpu  the dra-example-driver `gpu` shape (kubernetes-sigs/dra-example-driver
 *        internal/profiles/gpu): devices gpu-<i> with attributes index (int),
 *        uuid, model, driverVersion (version) and capacity memory 80Gi.  With
 *        partitions K > 0 every GPU also gets a counter set gpu-<i>-counter-set
 *        {memory: 80Gi}; the full GPU consumes all of it and K devices
 *        gpu-<i>-part-<j> consume 1/K each.
 *   net  the dra-example-driver `net` shape (internal/profiles/net/net.go):
 *        NICs nic-<i> that allow multiple allocations, with consumable
 *        capacity vfs (validValues) and ingressBandwidth/egressBandwidth
 *        (validRange) in decimal units: 100G, 1G default, 100M..100G by 1M.
 *   cpu  the dra-example-driver `cpu` shape (internal/profiles/cpu/cpu.go):
 *        one device numa-<i> per NUMA node (allowMultipleAllocations,
 *        attribute numaNodeID) with consumable capacity <driver>/cpu of
 *        cpus_per_numa CPUs (default 4), mapped to the node-allocatable
 *        resource cpu (nodeAllocatableResources: a mapping with multiplier 1).
 *        From 1.38 on the capacity is cpu, unqualified, as 1.38's publishing
 *        helper wants it; 1.36 has no nodeAllocatableResources.
 *   mig  partitionable GPUs as the NVIDIA driver publishes them with dynamic MIG
 *        (an A100-40GB-like layout): one counter set gpu-<i>-counter-set per GPU
 *        (engines, memory, memory-slice-0..7), the full device gpu-<i> consuming
 *        everything, and 14 MIG placements gpu-<i>-mig-<profile>-<id>-<start>.
 *
 * `devices` counts GPUs, NICs or NUMA nodes per node; mig therefore yields 15 devices per
 * GPU and gpu with partitions 1+K.  Node names are node-<n>.
 *
 * Ownership: dra_profile_node returns new arrays the caller owns (decref).
 */
#ifndef DRA_SLICE_PROFILE_H
#define DRA_SLICE_PROFILE_H

#include <jansson.h>
#include <stddef.h>

#include "../base/error.h"
#include "../model/features.h"

typedef enum { DRA_PROFILE_GPU, DRA_PROFILE_NET, DRA_PROFILE_MIG, DRA_PROFILE_CPU } dra_profile_kind;

typedef struct dra_profile_opts {
    dra_profile_kind kind;
    size_t nodes;         /* >= 1 */
    size_t devices;       /* per node, >= 0 */
    size_t partitions;    /* gpu only */
    size_t cpus_per_numa; /* cpu only; 0 = 4, as the example driver */
    const char *driver;   /* cpu: names the capacity key; NULL = the default driver */
    dra_release release;  /* the release it is published under; 0: the default */
} dra_profile_opts;

/* "gpu", "net", "mig", "cpu"; an input error naming the known profiles otherwise. */
DRA_MUST_USE dra_err *dra_profile_parse(const char *name, dra_profile_kind *out);
/* Default driver name: gpu.example.com, net.example.com, gpu.nvidia.com,
 * cpu.example.com. */
const char *dra_profile_default_driver(dra_profile_kind kind);
/* Option consistency (partitions only for gpu, at most 1024 per GPU, ...). */
DRA_MUST_USE dra_err *dra_profile_check(const dra_profile_opts *o);
/* "node-<n>"; caller frees. */
char *dra_profile_node_name(size_t node);
/* The devices and counter sets of one node. */
void dra_profile_node(const dra_profile_opts *o, size_t node, json_t **devices, json_t **counter_sets);

#endif
