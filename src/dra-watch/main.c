/* dra-watch: list and watch a Kubernetes API server and drive the dra-tools filters.
 * Not built yet: this main only answers --help and --version. */
#include <stdio.h>

#include "tool/tool.h"

static const dra_opt opts[] = {DRA_OPT_END};
static const dra_cmd cmds[] = {
    {NULL, "[OPTIONS] [FILES]", "list and watch a Kubernetes API server and drive the dra-tools filters (not implemented yet)", NULL, opts, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
static const dra_tool tool = {"dra-watch", "list and watch a Kubernetes API server and drive the dra-tools filters", cmds, NULL};

int main(int argc, char **argv)
{
    dra_args a;
    int rc;
    if (dra_tool_start(&tool, argc, argv, &a, &rc))
        return rc;
    return dra_tool_finish(&tool, &a, dra_err_new(DRA_EXIT_RUNTIME, "dra-watch is not implemented yet"), 0);
}
