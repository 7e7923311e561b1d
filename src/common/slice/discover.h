/* Discovering this machine's devices (`dra-slice discover`).
 *
 * Sources, each read without privileges:
 *   pci     /sys/bus/pci/devices/<bdf>: device pci-<domain>-<bus>-<dev>-<fn>,
 *           attributes vendorID, deviceID, class, subsystemVendorID,
 *           subsystemDeviceID (hex without 0x), numaNode, kernelDriver,
 *           iommuGroup, and the standard resource.kubernetes.io/pciBusID and
 *           resource.kubernetes.io/pcieRoot (as k8s.io/dynamic-resource-
 *           allocation/deviceattribute computes them: the first component of
 *           the device's path below /sys/devices).
 *   net     /sys/class/net/<if> except loopback: device net-<ifname>,
 *           attributes ifName, mac, mtu, speed (Mb/s, when known), state,
 *           virtual (no `device` link), and for PCI NICs pciAddress, numaNode,
 *           pciBusID and pcieRoot.
 *   nvidia  what NVIDIA's DRA driver (gpu.nvidia.com) publishes, read from
 *           nvidia-smi: `-q -x` for every GPU; `--query-gpu=index,uuid,
 *           compute_cap --format=csv` when the XML has no compute capability
 *           (driver 580); `mig -lgip` and `mig -lgipp` for MIG profiles and
 *           placements; `mig -lgi` and `-L` for existing MIG devices.
 *           A GPU without MIG mode enabled is device gpu-<minor> (type gpu,
 *           uuid, productName, brand, architecture, cudaComputeCapability,
 *           driverVersion, cudaDriverVersion, addressingMode, pciBusID,
 *           pcieRoot; capacity memory).  A GPU in MIG mode publishes its MIG
 *           devices gpu-<minor>-mig-<profile>-<profileID>-<start> (type mig,
 *           parentUUID, profile, uuid, the parent's other attributes;
 *           capacity multiprocessors, copyEngines, decoders, encoders,
 *           jpegEngines, ofaEngines, memory and memorySlice<i>).  With
 *           dynamic_mig (the driver's DynamicMIG gate) every MIG-capable GPU
 *           becomes partitionable: a counter set gpu-<minor>-counter-set,
 *           the full GPU consuming all of it (not on pre-Hopper GPUs with MIG
 *           enabled) and one device per placement of every profile consuming
 *           its engines, memory and memory-slice-<i> counters.
 *
 * A source that is absent (no such directory, no nvidia-smi) is skipped and
 * `note` says why; that is not an error.
 *
 * Ownership: a dra_discovery owns its arrays and notes (dra_discovery_free).
 */
#ifndef DRA_SLICE_DISCOVER_H
#define DRA_SLICE_DISCOVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"

#include "../base/error.h"

enum { DRA_SRC_PCI = 1, DRA_SRC_NET = 2, DRA_SRC_NVIDIA = 4, DRA_SRC_ALL = 7 };

/* "pci,net,nvidia" (any subset, any order) -> bit set; unknown names are an
 * input error naming the known ones. */
DRA_MUST_USE dra_err *dra_discover_parse_sources(const char *list, unsigned *out);

typedef struct dra_discover_opts {
    const char *sysfs_root;    /* NULL = "/sys" */
    const char *nvidia_smi;    /* NULL = "nvidia-smi" from PATH (absent: skipped); a given path must exist */
    unsigned sources;          /* DRA_SRC_* bits; 0 = all */
    int nvidia_smi_timeout_ms; /* each nvidia-smi call is killed after this long; 0 = 60 s */
    bool dynamic_mig;          /* publish MIG as partitionable devices (NVIDIA's DynamicMIG) */
} dra_discover_opts;

typedef struct dra_discovered {
    const char *source;         /* "pci", "net", "nvidia" */
    const char *default_driver; /* pci.dra-tools.io, net.dra-tools.io, gpu.nvidia.com */
    json_t *devices;            /* owned array of v1 Devices */
    json_t *counter_sets;       /* owned array of CounterSets */
    char *note;                 /* owned; why the source was skipped, or NULL */
} dra_discovered;

typedef struct dra_discovery {
    dra_discovered v[3];
    size_t n;
} dra_discovery;

/* Read every requested source, in the order pci, net, nvidia. */
DRA_MUST_USE dra_err *dra_discover(const dra_discover_opts *opts, dra_discovery *out);
void dra_discovery_free(dra_discovery *d);

/* Runs nvidia-smi with args (NULL-terminated, without the program) and
 * appends its standard output to out; a failure is an error naming the
 * command line. */
typedef dra_err *(*dra_nvidia_run_fn)(void *ctx, const char *const *args, dra_buf *out);

typedef struct dra_nvidia_opts {
    const char *name;       /* the program, for messages */
    const char *sysfs_root; /* for pcieRoot; may be NULL */
    bool dynamic_mig;
    dra_nvidia_run_fn run;
    void *ctx;
} dra_nvidia_opts;

/* The nvidia source (used by dra_discover and tests): calls o->run for
 * `-q -x` and for the other commands only when the XML shows they are
 * needed.  Appends to devices and counter_sets.  Errors are DRA_EXIT_RUNTIME
 * (the output of a program we ran is not what we expected). */
DRA_MUST_USE dra_err *dra_discover_nvidia(const dra_nvidia_opts *o, json_t *devices, json_t *counter_sets);

/* "pci<domain>:<bus>" for a PCI address, by the same rule as upstream's
 * resolvePCIeRoot; NULL when it cannot be determined.  Caller frees. */
char *dra_discover_pcie_root(const char *sysfs_root, const char *bdf);

#endif
