/* Placeholder for the gRPC transport (src/common/kubelet/rpc.h) until it is
 * built: every driver call fails with a runtime error.  Removed when the
 * transport's implementation is part of the library. */
#include "kubelet/rpc.h"

dra_err *dra_plugin_dial(const char *socket_path, const char *service, const dra_rpc_opts *opts, dra_plugin **out)
{
    (void)service;
    (void)opts;
    *out = NULL;
    return dra_err_new(DRA_EXIT_RUNTIME, "%s: the gRPC transport is not built into this dra-prepare", socket_path);
}

dra_err *dra_plugin_prepare(dra_plugin *p, const dra_claim_ref *claims, size_t n, dra_arena *a, dra_prep_claim **out, size_t *n_out)
{
    (void)p, (void)claims, (void)n, (void)a, (void)out, (void)n_out;
    return dra_err_new(DRA_EXIT_RUNTIME, "the gRPC transport is not built into this dra-prepare");
}

dra_err *dra_plugin_unprepare(dra_plugin *p, const dra_claim_ref *claims, size_t n, dra_arena *a, dra_prep_claim **out, size_t *n_out)
{
    (void)p, (void)claims, (void)n, (void)a, (void)out, (void)n_out;
    return dra_err_new(DRA_EXIT_RUNTIME, "the gRPC transport is not built into this dra-prepare");
}

void dra_plugin_close(dra_plugin *p)
{
    (void)p;
}
