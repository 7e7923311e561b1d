/* `dra-slice gates`: the feature gate tables of the releases the tools
 * know (model/features.h), as the tools apply them. */
#include <stdio.h>

#include "cmds.h"

dra_err *dra_slice_run_gates(const dra_args *a, void *opts, int *rc)
{
    dra_release rel[DRA_RELEASE_NEWEST - DRA_RELEASE_OLDEST + 1];
    size_t n = 0;
    dra_err *e = NULL;
    if (a->npos == 0) { /* the release the other commands would use */
        dra_features f;
        e = dra_tool_features(&dra_slice_tool, a, &f);
        rel[n++] = dra_features_release_of(&f);
    } else if (((const dra_slice_values *)opts)->kubernetes_version) {
        e = dra_err_new(DRA_EXIT_INPUT, "give releases as arguments or --kubernetes-version, not both");
    } else if (a->npos > sizeof rel / sizeof *rel) {
        e = dra_err_new(DRA_EXIT_INPUT, "at most %zu releases", sizeof rel / sizeof *rel);
    }
    for (size_t i = 0; !e && i < a->npos; i++)
        e = dra_release_parse(a->pos[i], &rel[n++]);
    if (e)
        return e;
    dra_buf b = DRA_BUF_INIT;
    dra_buf_printf(&b, "RELEASE GATE DEFAULT STAGE LOCKED DEPENDS-ON\n");
    for (size_t i = 0; i < n; i++)
        dra_features_table(&b, rel[i]);
    fputs(dra_buf_str(&b), stdout);
    dra_buf_free(&b);
    return NULL;
}
