/* dra-select: compile and evaluate CEL device selectors; show which devices match and why not.
 * Not built yet: this main only answers --help and --version. */
#include <stdio.h>

#include "base/tool.h"

static const dra_opt opts[] = {DRA_OPT_END};
static const dra_cmd cmds[] = {
    {NULL, "[OPTIONS] [FILES]", "compile and evaluate CEL device selectors; show which devices match and why not (not implemented yet)", NULL, opts, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
static const dra_tool tool = {"dra-select", "compile and evaluate CEL device selectors; show which devices match and why not", cmds, NULL};

int main(int argc, char **argv)
{
    dra_args a;
    int rc;
    if (dra_tool_start(&tool, argc, argv, &a, &rc))
        return rc;
    return dra_tool_finish(&tool, &a, dra_err_new(DRA_EXIT_RUNTIME, "dra-select is not implemented yet"), 0);
}
