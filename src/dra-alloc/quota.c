/* dra-alloc quota: input -> insight/quota.h -> table or objects; refused claims on stderr, exit 1. */
#include <stdio.h>
#include <string.h>

#include "insight/quota.h"
#include "alloc_tool.h"

const dra_opt dra_alloc_quota_opts[] = {
    DRA_OPT_OUTPUT_ENTRY("table yaml json jsonl"),
    DRA_ALLOC_REPORT_OPT_ENTRIES,
};

/* v1 ResourceQuotas: read from the set (the model has no such kind). */
static bool resource_quota(const json_t *obj)
{
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    return kind && av && strcmp(kind, "ResourceQuota") == 0 && strcmp(av, "v1") == 0;
}

dra_err *dra_alloc_run_quota(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    input in;
    dra_err *e = dra_alloc_load_input(a, x, true, &in);
    dra_tool_uses uses = {.kinds = (1u << DRA_KIND_RESOURCE_CLAIM) | (1u << DRA_KIND_DEVICE_CLASS),
                          .other = resource_quota};
    if (!e)
        e = dra_alloc_read_input(a, x, 0, &uses, &in);
    json_t *rep = NULL;
    if (!e)
        e = dra_quota_evaluate(&in.set, &in.model, &in.features, &rep);
    if (!e && in.table)
        e = dra_quota_table(stdout, rep);
    else if (!e)
        e = dra_alloc_write_report(rep, "quotas", in.fmt);
    /* the API server's refusals, capped as every tool caps a flood (the
     * report lists them all) */
    dra_errs refused = DRA_ERRS_INIT;
    size_t i;
    const json_t *r;
    json_array_foreach(e ? NULL : json_object_get(rep, "refused"), i, r) {
        dra_errs_add(&refused, dra_err_new(DRA_EXIT_NEGATIVE, "%s", json_string_value(json_object_get(r, "message"))));
        *rc = DRA_EXIT_NEGATIVE;
    }
    dra_err *rl = dra_errs_take(&refused);
    dra_tool_print_errs(stderr, dra_alloc_tool.prog, NULL, rl);
    dra_err_free(rl);
    json_decref(rep);
    dra_alloc_input_free(&in);
    return e;
}
