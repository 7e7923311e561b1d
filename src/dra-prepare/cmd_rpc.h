/* dra-prepare: the options every subcommand shares (one value table,
 * main.c) and the subcommands that talk to drivers without a pod: plugins,
 * probe, health (cmd_rpc.c).  Their option tables are exported for the
 * tool's command table. */
#ifndef DRA_PREPARE_CMD_RPC_H
#define DRA_PREPARE_CMD_RPC_H

#include "tool/cli.h"

enum {
    OPT_POD = DRA_OPT_TOOL_BASE,
    OPT_SOCKET,
    OPT_PLUGINS_DIR,
    OPT_REGISTRY_DIR,
    OPT_CHECKPOINT,
    OPT_TIMEOUT,
    OPT_CDI_DIR,
    OPT_VERBOSE,
    OPT_TEST_CRASH,
    OPT_REG_SOCKET,
    OPT_NOTIFY,
    OPT_SERVICE,
    OPT_CLAIM,
    OPT_COUNT,
    OPT_MAX_MSG,
    OPT_BACKOFF,
    OPT_RETRIES,
};

/* Every option's value (main.c's value table writes them; strings are
 * borrowed from argv).  Durations stay text: each command has its own
 * default and reads them with dra_prepare_duration_ms. */
typedef struct dra_prepare_values {
    const char *pod, *node, *socket, *plugins_dir, *registry_dir, *reg_socket, *checkpoint, *timeout, *service, *claim,
        *backoff, *output, *test_crash;
    dra_strv cdi_dirs;
    long long count, max_msg, retries;
    bool notify, verbose;
} dra_prepare_values;

dra_err *dra_prepare_run_plugins(const dra_args *a, void *values, int *rc);
dra_err *dra_prepare_run_probe(const dra_args *a, void *values, int *rc);
dra_err *dra_prepare_run_health(const dra_args *a, void *values, int *rc);

/* --OPT: a positive Go duration (dra_duration_parse, at most a year) in
 * milliseconds, rounded up; NULL s leaves *ms. */
DRA_MUST_USE dra_err *dra_prepare_duration_ms(const char *opt, const char *s, long *ms);

#define DRA_PREPARE_DEFAULT_CHECKPOINT "/var/lib/dra-prepare/dra_manager_state"

extern const dra_optval dra_prepare_vals[];
extern const dra_tool dra_prepare_tool;
extern const dra_opt dra_prepare_plugins_opts[], dra_prepare_probe_opts[], dra_prepare_health_opts[];

#endif
