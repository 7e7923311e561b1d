/* dra-slice's command table (see cmds.h). */
#include "cmds.h"

#define FORMATS "yaml json jsonl"
/* kubeletplugin.ValidateQualifiedNames(false) of 1.38's publishing helper. */
/* clang-format off */
#define NO_VALIDATE_QUALIFIED_NAMES_ENTRY                                                                              \
    {OPT_NO_VALIDATE_QUALIFIED_NAMES, "no-validate-qualified-names", 0, DRA_ARG_NONE, NULL,                          \
     "1.38: allow attribute and capacity names qualified with the driver's own domain", NULL}
/* clang-format on */

static const dra_opt build_opts[] = {
    {OPT_DRIVER, "driver", 'd', DRA_ARG_REQUIRED, "NAME", "driver name (spec.driver), required", NULL},
    DRA_OPT_NODE_ENTRY("node-local pool on this node (spec.nodeName)"),
    {OPT_ALL_NODES, "all-nodes", 0, DRA_ARG_NONE, NULL, "devices usable on every node (spec.allNodes)", NULL},
    {OPT_NODE_SELECTOR, "node-selector", 0, DRA_ARG_REQUIRED, "KEY=VAL,...",
     "devices usable on nodes with these labels (spec.nodeSelector)", NULL},
    {OPT_POOL, "pool", 'p', DRA_ARG_REQUIRED, "NAME", "pool name (default: the node name)", NULL},
    {OPT_GENERATION, "generation", 0, DRA_ARG_REQUIRED, "N", "pool generation, used when above the previous one", NULL},
    {OPT_PREVIOUS, "previous", 0, DRA_ARG_REQUIRED, "FILE", "previously published slices (repeatable)", "file"},
    NO_VALIDATE_QUALIFIED_NAMES_ENTRY,
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_OUTPUT_ENTRY(FORMATS),
    DRA_OPT_INPUT_ENTRIES,
    DRA_OPT_END,
};

static const dra_opt discover_opts[] = {
    {OPT_SOURCE, "source", 's', DRA_ARG_REQUIRED, "LIST", "sources to read: pci,net,nvidia (default: all)",
     "pci net nvidia pci,net pci,net,nvidia"},
    {OPT_SYSFS_ROOT, "sysfs-root", 0, DRA_ARG_REQUIRED, "DIR", "read sysfs from DIR instead of /sys", "dir"},
    {OPT_NVIDIA_SMI, "nvidia-smi", 0, DRA_ARG_REQUIRED, "PATH", "nvidia-smi program (default: from PATH)", "file"},
    {OPT_DYNAMIC_MIG, "dynamic-mig", 0, DRA_ARG_NONE, NULL,
     "MIG-capable GPUs as partitionable devices (NVIDIA's DynamicMIG)", NULL},
    {OPT_DRIVER, "driver", 'd', DRA_ARG_REQUIRED, "NAME", "one driver name for every source", NULL},
    DRA_OPT_NODE_ENTRY("node name (default: this host's name)"),
    {OPT_INVENTORY, "inventory", 0, DRA_ARG_NONE, NULL, "print the devices as an inventory, not slices", NULL},
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_OUTPUT_ENTRY(FORMATS),
    DRA_OPT_END,
};

/* clang-format off */
static const dra_opt profile_opts[] = {
    {OPT_NODES, "nodes", 'n', DRA_ARG_REQUIRED, "N", "number of nodes (default 1)", NULL},
    {OPT_DEVICES, "devices", 'm', DRA_ARG_REQUIRED, "M", "GPUs, NICs or NUMA nodes per node (default 8)", NULL},
    {OPT_DRIVER, "driver", 'd', DRA_ARG_REQUIRED, "NAME", "driver name (default: per profile)", NULL},
    {OPT_PARTITIONS, "partitions", 'k', DRA_ARG_REQUIRED, "K", "gpu: K partitions per GPU on shared counters",
     NULL},
    {OPT_CPUS, "cpus-per-numa-node", 0, DRA_ARG_REQUIRED, "N", "cpu: CPUs of each NUMA node device (default 4)",
     NULL},
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_OUTPUT_ENTRY(FORMATS),
    DRA_OPT_END,
};
/* clang-format on */

#define FINDINGS_ENTRY DRA_OPT_OUTPUT_ENTRY("text json jsonl")
static const dra_opt lint_opts[] = {
    DRA_OPT_INPUT_ENTRIES, NO_VALIDATE_QUALIFIED_NAMES_ENTRY, DRA_OPT_FEATURE_GATES_ENTRY, FINDINGS_ENTRY, DRA_OPT_END,
};
static const dra_opt gates_opts[] = {DRA_OPT_KUBERNETES_VERSION_ENTRY, DRA_OPT_END};
/* clang-format off */
static const dra_opt validate_opts[] = {DRA_OPT_INPUT_ENTRIES, DRA_OPT_FEATURE_GATES_ENTRY, FINDINGS_ENTRY, DRA_OPT_END};
/* clang-format on */

static const dra_opt pool_status_opts[] = {
    {OPT_DRIVER, "driver", 'd', DRA_ARG_REQUIRED, "NAME", "ask about this driver's pools (a made-up request)", NULL},
    {OPT_POOL, "pool", 'p', DRA_ARG_REQUIRED, "NAME", "with --driver: only this pool", NULL},
    {OPT_LIMIT, "limit", 0, DRA_ARG_REQUIRED, "N", "with --driver: at most N pools (1..1000, default 100)", NULL},
    DRA_OPT_NOW_ENTRY,
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_INPUT_ENTRIES,
    DRA_OPT_OUTPUT_ENTRY(FORMATS),
    DRA_OPT_END,
};

/* clang-format off */
static const dra_cmd cmds[] = {
    {"build", "build --driver NAME (--node NAME | --all-nodes | --node-selector KEY=VAL,...) [OPTIONS] [INVENTORY...]",
     "split an inventory of devices into the ResourceSlices of one pool",
     "An inventory is a list of v1 Devices, a mapping with `devices` and optional `sharedCounters`, or\n"
     "ResourceSlices (re-slicing). Slices hold at most 128 devices (64 with taints or consumesCounters);\n"
     "counter sets get slices of their own. Names are <index>-<driver>-<node>-<suffix> with a suffix\n"
     "derived from driver, pool and index, so the output is reproducible. With --previous the pool\n"
     "generation follows the resourceslice controller: kept when at most one slice changes in place,\n"
     "bumped otherwise; previous slices that must be deleted are noted on stderr. Slices are validated\n"
     "as the release of --kubernetes-version validates them; from 1.38 on, an attribute or capacity\n"
     "name qualified with the driver's own domain is refused, as the publishing helper refuses it\n"
     "(\"use unqualified X\"), unless --no-validate-qualified-names.",
     build_opts, "file"},
    {"discover", "discover [--source pci,net,nvidia] [--sysfs-root DIR] [--nvidia-smi PATH] [--dynamic-mig] [OPTIONS]",
     "read this machine's devices and print them as ResourceSlices",
     "Drivers: pci.dra-tools.io, net.dra-tools.io, gpu.nvidia.com (or --driver for all). GPUs and MIG\n"
     "devices are published as NVIDIA's DRA driver publishes them; --dynamic-mig adds every MIG\n"
     "placement on shared counters, so dra-alloc can tell which MIG layouts fit.\n"
     "An absent source is skipped with a note on stderr; nothing found at all exits 1. Slices are\n"
     "validated as the release of --kubernetes-version validates them, as build does.",
     discover_opts, ""},
    {"profile", "profile NAME [--nodes N] [--devices M] [--driver NAME] [--partitions K] [--cpus-per-numa-node N]"
     " [-o FORMAT]",
     "print a synthetic fleet: gpu, net, cpu or mig",
     "gpu: dra-example-driver GPUs (index, uuid, model, driverVersion; memory 80Gi, compute 100), with --partitions\n"
     "on shared counters; net: dra-example-driver NICs with consumable vfs and bandwidth (100G, decimal);\n"
     "cpu: dra-example-driver NUMA nodes numa-<i> with consumable capacity <driver>/cpu mapped to the\n"
     "node's cpu (from 1.38 on, unqualified: cpu, as 1.38's publishing helper wants it); mig: A100-like\n"
     "GPUs with 14 MIG placements each on shared counters. Slices are validated as the release of\n"
     "--kubernetes-version validates them. Output is the same on every run.",
     profile_opts, "gpu net cpu mig"},
    {"lint", "lint [FILES...]", "check pools across ResourceSlices",
     "One line per problem: pool DRIVER/POOL: ResourceSlice/NAME: problem. Exit 1 when problems\n"
     "(not warnings) are found. Objects of other kinds are skipped (counted with -v). Slices are\n"
     "validated as the release of --kubernetes-version validates them; from 1.38 on, an attribute or\n"
     "capacity name qualified with the slice's driver's own domain is a warning (1.38's publishing\n"
     "helper refuses it: \"use unqualified X\"), unless --no-validate-qualified-names.",
     lint_opts, "file"},
    {"validate", "validate [FILES...]", "validate the DRA objects and the DRA parts of pods",
     "Validates DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates and\n"
     "DeviceTaintRules as the API server does, the DRA parts of Pods, Nodes and Namespaces, and\n"
     "v1 ResourceQuotas (strict decoding and ValidateResourceQuota);\n"
     "other kinds are skipped (counted with -v), except unknown kinds or versions of\n"
     "resource.k8s.io, which are errors. Classic v1alpha2 objects are checked with that version's\n"
     "rules and warned about: no supported release serves them. Prints nothing on stdout and\n"
     "exits 0 when every object is valid; otherwise every error, exit 2. Selectors are compiled as the API server compiles new ones\n"
     "(includes() needs DRAListTypeAttributes). Input streams: JSON and JSON Lines are read a\n"
     "document at a time, in memory bounded by the largest document.", validate_opts,
     "file"},
    {"pool-status", "pool-status [--driver NAME [--pool NAME] [--limit N]] [OPTIONS] [FILES...]",
     "answer ResourcePoolStatusRequests from slices and claims",
     "Prints each ResourcePoolStatusRequest of the input (resource.k8s.io/v1alpha3) with the status\n"
     "kube-controller-manager's controller would write: per pool of the driver, total, allocated,\n"
     "available and unavailable (tainted) devices, from the ResourceSlices, ResourceClaims and\n"
     "DeviceTaintRules of the input.  Requests that already have a status are printed unchanged.\n"
     "With --driver, a request named after the driver is made up and answered instead.",
     pool_status_opts, "file"},
    {"gates", "gates [--kubernetes-version 1.N | RELEASE...]",
     "print the feature gates of a Kubernetes release as the tools apply them",
     "One row per DRA feature gate the release has (and the gates they depend on): its default,\n"
     "stage (alpha, beta, GA), whether it is locked to its default, and the gates it depends on;\n"
     "columns separated by one space, sorted by name. The release is --kubernetes-version, else\n"
     "$DRA_KUBERNETES_VERSION, else 1.37; or every release given (1.36, 1.37, 1.38). Each is that\n"
     "release's kube_features.go at its own version (1.38: v1.38.0-beta.0). --feature-gates of\n"
     "the other commands adjusts this table; a gate not in it is \"unrecognized\" there.",
     gates_opts, "1.36 1.37 1.38"},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

const dra_tool dra_slice_tool = {"dra-slice", "discover devices, publish them as ResourceSlices, lint and validate slices",
                              cmds, NULL};
/* clang-format on */
