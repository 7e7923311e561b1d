/* dra-alloc diff A B: two inputs -> insight/diff.h -> lines or objects; exit 1 when they differ. */
#include <stdio.h>
#include <string.h>

#include "insight/diff.h"
#include "alloc_tool.h"

const dra_opt dra_alloc_diff_opts[] = {
    DRA_OPT_OUTPUT_ENTRY("text yaml json jsonl"),
    DRA_ALLOC_REPORT_OPT_ENTRIES,
};

/* A checked ResourceClaim or Pod, kept as a record in ctx (a dra_compact
 * keeping objects whole). */
static void keep_claim(void *ctx, const json_t *claim)
{
    dra_compact_claim(ctx, claim);
}

static void keep_pod(void *ctx, const json_t *pod)
{
    dra_compact_pod(ctx, pod);
}

dra_err *dra_alloc_run_diff(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    opts plain = *x;
    bool text = !x->output || strcmp(x->output, "text") == 0;
    if (text)
        plain.output = NULL;
    input in[2];
    dra_err *e = dra_alloc_load_input(a, &plain, false, &in[0]);
    dra_err *e1 = dra_alloc_load_input(a, &plain, false, &in[1]);
    dra_err_free(e1); /* the same options: the same answer */
    if (!e && a->npos != 2)
        e = dra_err_new(DRA_EXIT_INPUT, "diff needs two inputs, A and B (got %zu)", a->npos);
    if (!e && strcmp(a->pos[0], "-") == 0 && strcmp(a->pos[1], "-") == 0)
        e = dra_err_new(DRA_EXIT_INPUT, "diff: standard input can be only one of A and B");
    /* claims and Pods as records, their objects kept whole out of memory */
    dra_compact recs[2];
    memset(recs, 0, sizeof recs); /* DRA_COMPACT_INIT */
    for (int i = 0; i < 2 && !e; i++) {
        dra_compact_keep_whole(&recs[i]);
        dra_tool_uses uses = {.kinds = (1u << DRA_KIND_RESOURCE_CLAIM) | (1u << DRA_KIND_POD),
                              .claim = keep_claim,
                              .pod = keep_pod,
                              .ctx = &recs[i]};
        e = dra_alloc_read_paths(a, x, &a->pos[i], 1, 0, &uses, &in[i]);
    }
    json_t *rep = e ? NULL : dra_diff_records(&recs[0], &recs[1]);
    if (rep && text) {
        dra_buf b = DRA_BUF_INIT;
        dra_diff_text(rep, &b);
        if (fputs(dra_buf_str(&b), stdout) < 0)
            e = dra_err_new(DRA_EXIT_RUNTIME, "write error");
        dra_buf_free(&b);
    } else if (rep) {
        e = dra_alloc_write_report(rep, "changes", in[0].fmt);
    }
    if (!e && dra_diff_differs(rep))
        *rc = DRA_EXIT_NEGATIVE;
    json_decref(rep);
    dra_compact_free(&recs[0]);
    dra_compact_free(&recs[1]);
    dra_alloc_input_free(&in[0]);
    dra_alloc_input_free(&in[1]);
    return e;
}
