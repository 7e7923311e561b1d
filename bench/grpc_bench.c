/* The C side of bench-grpc.sh: NodePrepareResources through rpc.h.
 *   grpc_bench SOCKET once  CLAIMS          one process, one call (timed from outside)
 *   grpc_bench SOCKET loop  CLAIMS CALLS    in-process latency, prints µs per call
 * Claims are default/claim-i with UID uid-i, as tests/peers/client.py sends them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kubelet/rpc.h"

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    int n = atoi(argv[3]);
    int calls = argc > 4 ? atoi(argv[4]) : 1;
    dra_claim_ref *c = calloc((size_t)n + 1, sizeof *c);
    char(*names)[32] = calloc((size_t)n + 1, sizeof *names);
    char(*uids)[32] = calloc((size_t)n + 1, sizeof *uids);
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "claim-%d", i);
        snprintf(uids[i], sizeof uids[i], "uid-%d", i);
        c[i] = (dra_claim_ref){"default", uids[i], names[i]};
    }
    dra_plugin *p;
    dra_err *e = dra_plugin_dial(argv[1], "v1.DRAPlugin", NULL, &p);
    dra_arena a = DRA_ARENA_INIT;
    dra_prep_claim *out;
    size_t n_out;
    int rc = 0;
    if (!e)
        e = dra_plugin_prepare(p, c, (size_t)n, &a, &out, &n_out); /* connect + warm up */
    if (!e && n_out != (size_t)n)
        e = dra_err_new(DRA_EXIT_RUNTIME, "%zu answers for %d claims", n_out, n);
    if (!e && strcmp(argv[2], "loop") == 0) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int i = 0; i < calls && !e; i++) {
            dra_arena_reset(&a);
            e = dra_plugin_prepare(p, c, (size_t)n, &a, &out, &n_out);
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / calls;
        if (!e)
            printf("{\"calls\": %d, \"claims\": %d, \"us_per_call\": %.1f}\n", calls, n, us);
    }
    if (e) {
        fprintf(stderr, "grpc_bench: %s\n", e->msg);
        dra_err_free(e);
        rc = 3;
    }
    dra_arena_free(&a);
    dra_plugin_close(p);
    free(c);
    free(names);
    free(uids);
    return rc;
}
