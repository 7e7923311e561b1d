/* dra-prepare: call a DRA driver's kubelet plugin (NodePrepareResources/NodeUnprepareResources).
 * Not built yet: this main only answers --help and --version. */
#include <stdio.h>

#include "base/tool.h"

static const dra_opt opts[] = {DRA_OPT_END};
static const dra_cmd cmds[] = {
    {NULL, "[OPTIONS] [FILES]", "call a DRA driver's kubelet plugin (NodePrepareResources/NodeUnprepareResources) (not implemented yet)", NULL, opts, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
static const dra_tool tool = {"dra-prepare", "call a DRA driver's kubelet plugin (NodePrepareResources/NodeUnprepareResources)", cmds, NULL};

int main(int argc, char **argv)
{
    dra_args a;
    int rc;
    if (dra_tool_start(&tool, argc, argv, &a, &rc))
        return rc;
    return dra_tool_finish(&tool, &a, dra_err_new(DRA_EXIT_RUNTIME, "dra-prepare is not implemented yet"), 0);
}
