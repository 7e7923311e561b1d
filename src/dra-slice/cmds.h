/* dra-slice's command table: subcommands, options, help (cmds.c); main.c
 * runs them.  The table is read-only data with static storage. */
#ifndef DRA_SLICE_CMDS_H
#define DRA_SLICE_CMDS_H

#include "tool/tool.h"

/* clang-format off */
enum {
    OPT_DRIVER = DRA_OPT_TOOL_BASE, OPT_ALL_NODES, OPT_NODE_SELECTOR, OPT_POOL, OPT_GENERATION, OPT_PREVIOUS,
    OPT_SOURCE, OPT_SYSFS_ROOT, OPT_NVIDIA_SMI, OPT_INVENTORY, OPT_NODES, OPT_DEVICES, OPT_PARTITIONS,
    OPT_DYNAMIC_MIG, OPT_LIMIT, OPT_CPUS, OPT_NO_VALIDATE_QUALIFIED_NAMES,
};
/* clang-format on */

extern const dra_tool dra_slice_tool;

/* `dra-slice lint` and `dra-slice validate` (check.c). */
/* Every option's value, written by main.c's value table (options in
 * cmds.c); the run functions' void *opts. */
typedef struct dra_slice_values {
    const char *output, *driver, *node, *node_selector, *pool, *source, *sysfs_root, *nvidia_smi, *now;
    const char *kubernetes_version;
    bool all_nodes, inventory, dynamic_mig, no_validate_qualified_names;
    long long generation, nodes, devices, partitions, limit, cpus;
    dra_strv previous;
} dra_slice_values;

dra_err *dra_slice_run_lint(const dra_args *a, void *opts, int *rc);
dra_err *dra_slice_run_validate(const dra_args *a, void *opts, int *rc);

/* `dra-slice gates` (gates.c). */
dra_err *dra_slice_run_gates(const dra_args *a, void *opts, int *rc);

#endif
