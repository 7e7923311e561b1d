/* dra-select's command table: subcommands, options, help (cmds.c); main.c
 * runs them.  The table is read-only data with static storage. */
#ifndef DRA_SELECT_CMDS_H
#define DRA_SELECT_CMDS_H

#include "tool/tool.h"

enum { OPT_CLASS = DRA_OPT_TOOL_BASE, OPT_EXPR, OPT_CLAIM, OPT_REQUEST, OPT_VAR, OPT_DEVICE, OPT_NAMESPACE };

extern const dra_tool dra_select_tool;

#endif
