/* dra-claim's command table: subcommands, options, help (cmds.c); main.c
 * runs them.  The table is read-only data with static storage. */
#ifndef DRA_CLAIM_CMDS_H
#define DRA_CLAIM_CMDS_H

#include "tool/tool.h"

enum { OPT_PATCH = DRA_OPT_TOOL_BASE, OPT_NAME_SUFFIX, OPT_POD, OPT_NO_VALIDATE, OPT_DELETE_ORPHANS, OPT_NO_PODS_OK };

extern const dra_tool dra_claim_tool;

#endif
