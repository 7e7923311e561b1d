/* dra-prepare subcommands that talk to drivers without a pod: plugins,
 * probe, health.  Each parses its own options (argv[0] is the program or the
 * subcommand name; the subcommand name may also appear as argv[1]) and
 * returns the exit code.  The option tables are exported for the tool's
 * help and completions. */
#ifndef DRA_PREPARE_CMD_RPC_H
#define DRA_PREPARE_CMD_RPC_H

#include "tool/cli.h"

int dra_prepare_cmd_plugins(int argc, char **argv);
int dra_prepare_cmd_probe(int argc, char **argv);
int dra_prepare_cmd_health(int argc, char **argv);

/* --OPT: a positive Go duration (dra_duration_parse, at most a year) in
 * milliseconds, rounded up; NULL s leaves *ms. */
DRA_MUST_USE dra_err *dra_prepare_duration_ms(const char *opt, const char *s, long *ms);

extern const dra_cmd dra_prepare_plugins_cmd, dra_prepare_probe_cmd, dra_prepare_health_cmd;

#endif
