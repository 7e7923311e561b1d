/* dra-claim: ResourceClaim lifecycle offline: generate from templates, reserve,
 * release, doctor, status, convert.  The work is in src/common/lifecycle/,
 * doctor/ and model/classic.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "tool/progress.h"
#include "tool/records.h"
#include "tool/tool.h"
#include "io/stream.h"
#include "insight/quota.h"
#include "lifecycle/claims.h"
#include "doctor/report.h"
#include "model/classic.h"
#include "cmds.h"
#include "write.h"

/* Every option's value, written by the table below. */
typedef struct opts {
    const char *output, *patch_fmt, *name_suffix, *pod, *now, *ns;
    bool patch, no_validate, delete_orphans, no_pods_ok, all_ns;
    /* the input, loaded before a subcommand runs */
    dra_features f;
    dra_time now_at;
    dra_objset set;
    dra_cluster c;
    dra_classic_result conv; /* convert: the Pods and workloads as read, flattened */
} opts;

/* clang-format off */
static const dra_optval vals[] = {
    DRA_VAL_STRING(DRA_OPT_OUTPUT, opts, output),       DRA_VAL_BOOL(OPT_PATCH, opts, patch),
    DRA_VAL_STRING(OPT_PATCH, opts, patch_fmt),         DRA_VAL_STRING(OPT_NAME_SUFFIX, opts, name_suffix),
    DRA_VAL_STRING(OPT_POD, opts, pod),                 DRA_VAL_STRING(DRA_OPT_NOW, opts, now),
    DRA_VAL_BOOL(OPT_NO_VALIDATE, opts, no_validate),     DRA_VAL_STRING(DRA_OPT_NAMESPACE, opts, ns),
    DRA_VAL_BOOL(DRA_OPT_ALL_NAMESPACES, opts, all_ns),
    DRA_VAL_BOOL(OPT_DELETE_ORPHANS, opts, delete_orphans), DRA_VAL_BOOL(OPT_NO_PODS_OK, opts, no_pods_ok),
    DRA_VAL_END,
};
/* clang-format on */

/* Gates, --now, then the input as a cluster (every subcommand's start). */
static dra_err *load(const dra_args *a, opts *x)
{
    dra_err *e = dra_tool_features(&dra_claim_tool, a, &x->f);
    if (!e)
        e = dra_err_field(dra_time_now_or(x->now, &x->now_at), "--now");
    x->c.no_validate = x->no_validate;
    if (strcmp(a->cmd->name, "status") == 0) { /* claims and Pods as records; slices and Nodes unread */
        x->c.as_records = (1u << DRA_KIND_RESOURCE_CLAIM) | (1u << DRA_KIND_POD);
        x->c.dropped = (1u << DRA_KIND_RESOURCE_SLICE) | (1u << DRA_KIND_NODE);
    } else if (strcmp(a->cmd->name, "doctor") == 0) { /* records, whole objects made again one at a time */
        x->c.as_records = (1u << DRA_KIND_RESOURCE_CLAIM) | (1u << DRA_KIND_POD);
        dra_compact_keep_whole(&x->c.recs);
        x->c.device_names = true; /* of devices, only which exist and their taints (dra-evict's view) */
    }
    /* generate makes claims for workloads' pods, named as the API server would; the others skip device descriptions */
    bool generate = strcmp(a->cmd->name, "generate") == 0, convert = strcmp(a->cmd->name, "convert") == 0;
    /* generate: objects of the kinds the claim lifecycle never looks up
     * (ResourceSlices, Nodes: most of a fleet) and of unknown kinds are
     * checked and dropped as they are read; the rest are loaded below */
    dra_tool_uses uses = {.kinds = DRA_TOOL_ALL_KINDS & ~((1u << DRA_KIND_RESOURCE_SLICE) | (1u << DRA_KIND_NODE)),
                          .other = dra_is_resource_quota,
                          .as_read = true};
    dra_load_opts lo = {
        .skip_unknown = true, .no_validate = x->no_validate, .now = x->now_at.sec, .validate = {.features = &x->f}};
    dra_model dropped = DRA_MODEL_INIT;
    dra_err *de = NULL;
    if (!e && generate)
        de = dra_tool_load(&dra_claim_tool, a, a->pos, a->npos,
                           DRA_READ_WORKLOADS | DRA_READ_IDENTITY | DRA_READ_IN_ORDER, &uses, &lo, &x->set, &dropped);
    else if (!e && convert) /* whole, and Pods copied before loading converts them in place */
        e = dra_tool_read(&dra_claim_tool, a, a->pos, a->npos, 0, &x->set);
    else if (!e)
        e = dra_tool_input_options(&x->set, a);
    if (!e && convert)
        dra_classic_pods(&x->set, &x->conv);
    if (!e) {
        e = generate || convert ? dra_cluster_load_input(&x->c, &x->set, &x->f, x->now_at.sec)
                                : dra_cluster_read_input(&x->c, &x->set, a->pos, a->npos, &x->f, x->now_at.sec);
        if (!generate && !convert)
            dra_progress_read(a->progress, x->c.nread); /* read by the cluster room, at once */
        e = dra_err_append(de, e);                      /* the dropped objects' errors, then the kept ones' */
        x->c.model.warnings = dra_err_append(x->c.model.warnings, dropped.warnings);
        dropped.warnings = NULL;
        dra_input_report ir = {x->c.model.warnings, x->c.unknown + dropped.skipped,
                               x->c.model.collapsed + dropped.collapsed, x->c.model.files_repeated};
        dra_tool_report_input(&dra_claim_tool, a, &ir);
    }
    dra_model_free(&dropped);
    return e;
}

static dra_err *unload(opts *x, dra_err *e)
{
    dra_cluster_free(&x->c);
    dra_objset_free(&x->set);
    dra_classic_result_free(&x->conv);
    return e;
}

static dra_err *run_status(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_progress_begin(a->progress);
    dra_err *e = load(a, x);
    if (e)
        return unload(x, e);
    dra_format fmt;
    bool table, wide = x->output && strcmp(x->output, "wide") == 0;
    e = wide ? NULL : dra_format_parse_table(x->output, &table, &fmt);
    if (wide || (!e && table))
        e = dra_claim_status_table(stdout, &x->c, wide, x->all_ns ? NULL : x->ns);
    else if (!e)
        e = dra_claim_status_write(stdout, &x->c, fmt, x->all_ns ? NULL : x->ns);
    return unload(x, e);
}

static dra_err *run_doctor(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_progress_begin(a->progress);
    if (x->patch && x->output && strcmp(x->output, "text") != 0)
        return dra_err_new(DRA_EXIT_INPUT, "--output and --patch cannot be used together (--patch prints operations)");
    dra_records rec;
    dra_err *e = dra_records_start(&rec, x->output, stdout);
    if (!e)
        e = load(a, x);
    if (e) /* with -o json|jsonl the input's errors are findings too */
        return unload(x, dra_records_on(&rec) ? dra_records_end(&rec, e, NULL, NULL, rc) : e);
    dra_buf dump = DRA_BUF_INIT; /* how fixes that rerun a tool name the input */
    for (size_t i = 0; i < a->npos && !(a->npos == 1 && strcmp(a->pos[0], "-") == 0); i++)
        dra_buf_printf(&dump, "%s%s", i ? " " : "", a->pos[i]);
    dra_changes ch = DRA_CHANGES_INIT;
    dra_doctor_opts o = {dump.len ? dra_buf_str(&dump) : "DUMP", &x->f, x->now_at, x->patch ? &ch : NULL};
    dra_findings fs = DRA_FINDINGS_INIT;
    dra_patch_format pf = DRA_PATCH_JSON;
    size_t shown = 0;
    if (x->patch)
        e = dra_patch_format_parse(x->patch_fmt, &pf);
    if (!e) {
        dra_doctor(&x->c, &o, &fs);
        e = dra_compact_failure(&x->c.recs); /* objects it could not read back */
        dra_problems_keep_namespace(&fs, x->all_ns ? NULL : x->ns);
    }
    if (!e && x->patch) {
        /* the writes to claims as a script; what they do not fix, on stderr */
        dra_changes view;
        dra_changes_view_namespace(&ch, x->all_ns ? NULL : x->ns, &view);
        e = dra_changes_write_ops(stdout, &view, pf);
        shown = view.nops; /* what is shown decides the exit status */
        free(view.ops);
        for (size_t i = 0; !e && i < fs.n; i++)
            fprintf(stderr, "%s: not fixed by --patch: %s: %s; fix: %s\n", dra_claim_tool.prog, fs.v[i].object,
                    fs.v[i].msg, fs.v[i].fix);
    } else if (!e) {
        e = dra_records_on(&rec) ? dra_records_end(&rec, NULL, NULL, &fs, rc) : dra_findings_write(stdout, &fs);
    }
    if (!e && (fs.n || shown))
        *rc = DRA_EXIT_NEGATIVE;
    dra_problems_free(&fs);
    dra_changes_free(&ch);
    dra_buf_free(&dump);
    return unload(x, e);
}

static char *admit(void *ledger, const json_t *claim)
{
    return dra_quota_admit(ledger, claim);
}

/* generate, reserve, release: changes, printed as objects or operations */
static dra_err *run_changes(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    const char *cmd = a->cmd->name;
    dra_err *e = load(a, x);
    if (e)
        return unload(x, e);
    dra_changes ch = DRA_CHANGES_INIT;
    if (strcmp(cmd, "generate") == 0) {
        dra_err *notes = NULL; /* classic templates used */
        dra_lc_opts o = {.features = &x->f, .name_suffix = DRA_NAME_SUFFIX_HASH, .notes = &notes, .admit = admit};
        e = dra_name_suffix_parse(x->name_suffix, &o.name_suffix);
        if (!e) /* quota admission of each claim made, on top of the claims there are */
            e = dra_quota_ledger_new(&x->set, &x->c.model, &x->f, true, (dra_quota_ledger **)&o.admit_ctx);
        if (!e)
            e = dra_claims_generate(&x->c, &o, &ch);
        dra_quota_ledger_free(o.admit_ctx);
        dra_tool_print_errs(stderr, dra_claim_tool.prog, "warning", notes);
        dra_err_free(notes);
    } else if (strcmp(cmd, "reserve") == 0) {
        const char *pod = x->pod, *slash = pod ? strchr(pod, '/') : NULL;
        if (!slash || slash == pod || !slash[1]) {
            e = dra_err_new(DRA_EXIT_INPUT, "reserve needs --pod NAMESPACE/NAME");
        } else {
            char *ns = dra_xstrndup(pod, (size_t)(slash - pod));
            e = dra_claims_reserve(&x->c, ns, slash + 1, &x->f, &ch);
            free(ns);
        }
    } else {
        dra_release_opts ro = {.delete_orphans = x->delete_orphans, .no_pods_ok = x->no_pods_ok, .features = &x->f};
        e = dra_claims_release(&x->c, &ro, &ch);
    }
    dra_cluster_address_ops(&x->c, &ch);
    /* partial results (other pods) are still worth printing */
    if (!e || e->code == DRA_EXIT_NEGATIVE || strcmp(cmd, "generate") == 0)
        e = dra_err_append(
            e, dra_claim_write_changes(&(dra_claim_out){x->patch, x->patch_fmt, x->output, x->now_at}, &ch));
    dra_changes_free(&ch);
    return unload(x, e);
}

static dra_err *run_convert(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_err *e = load(a, x);
    if (e)
        return unload(x, e);
    dra_classic_result *r = &x->conv;
    dra_classic_convert(&x->set, &x->c.model, r);
    dra_format fmt = DRA_FMT_YAML;
    e = x->output ? dra_format_parse(x->output, &fmt) : NULL;
    if (!e)
        e = dra_write(stdout, r->objs, r->n, fmt);
    if (!e && r->changed) /* what was rewritten: the objects as printed are right, nothing is lost */
        dra_tool_print_errs(stderr, dra_claim_tool.prog, "changed", r->changed);
    if (!e && r->lost) {
        dra_tool_print_errs(stderr, dra_claim_tool.prog, NULL, r->lost);
        *rc = DRA_EXIT_NEGATIVE;
    }
    return unload(x, e);
}

/* clang-format off */
static const dra_runner runners[] = {
    {"generate", run_changes}, {"reserve", run_changes}, {"release", run_changes},
    {"doctor", run_doctor},    {"status", run_status},   {"convert", run_convert},
    {NULL, NULL},
};
/* clang-format on */

int main(int argc, char **argv)
{
    opts o = {0}; /* DRA_OBJSET_INIT, DRA_CLUSTER_INIT */
    return dra_tool_main(&dra_claim_tool, runners, vals, argc, argv, &o);
}
