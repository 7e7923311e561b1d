/* dra-claim: ResourceClaim lifecycle offline: generate from templates, reserve,
 * release, doctor, status.  The work is in src/common/lifecycle/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "tool/tool.h"
#include "io/stream.h"
#include "lifecycle/claims.h"
#include "doctor/report.h"
#include "model/workloads.h"

enum { OPT_PATCH = DRA_OPT_TOOL_BASE, OPT_NAME_SUFFIX, OPT_POD, OPT_NO_VALIDATE, OPT_DELETE_ORPHANS, OPT_NO_PODS_OK };

#define PATCH_ENTRY {OPT_PATCH, "patch", 0, DRA_ARG_OPTIONAL, "json|kubectl", "print the API operations instead of the objects", "json kubectl"}
#define VERBOSE_ENTRY DRA_OPT_INPUT_ENTRIES
#define NO_VALIDATE_ENTRY {OPT_NO_VALIDATE, "no-validate", 0, DRA_ARG_NONE, NULL, "skip API validation of the input (inspect a slightly-off dump)", NULL}

static const dra_opt generate_opts[] = {
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"), PATCH_ENTRY,
    {OPT_NAME_SUFFIX, "name-suffix", 0, DRA_ARG_REQUIRED, "MODE", "names of new claims: hash (default), random (server picks), none", "hash random none"},
    DRA_OPT_FEATURE_GATES_ENTRY, VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt reserve_opts[] = {
    {OPT_POD, "pod", 0, DRA_ARG_REQUIRED, "NS/NAME", "the pod to reserve its claims for (required)", NULL},
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"), PATCH_ENTRY, DRA_OPT_FEATURE_GATES_ENTRY, VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt release_opts[] = {
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"), PATCH_ENTRY,
    {OPT_DELETE_ORPHANS, "delete-orphans", 0, DRA_ARG_NONE, NULL, "also delete generated claims whose pod is missing from the input (the garbage collector's job)", NULL},
    {OPT_NO_PODS_OK, "no-pods-ok", 0, DRA_ARG_NONE, NULL, "release in namespaces that have reservations but no Pods in the input", NULL},
    DRA_OPT_FEATURE_GATES_ENTRY, VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt doctor_opts[] = {
    DRA_OPT_NOW_ENTRY, DRA_OPT_FEATURE_GATES_ENTRY, NO_VALIDATE_ENTRY, VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt status_opts[] = {
    DRA_OPT_OUTPUT_ENTRY("table wide yaml json jsonl"), DRA_OPT_FEATURE_GATES_ENTRY, NO_VALIDATE_ENTRY, VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};

static const dra_cmd cmds[] = {
    {"generate", "generate [OPTIONS] [FILES]", "create claims for pods from their ResourceClaimTemplates, as the claim controller does",
     "Reads Pods, ResourceClaimTemplates and ResourceClaims; prints the new claims and the pods'\n"
     "status.resourceClaimStatuses, or with --patch the create and apply operations.",
     generate_opts, NULL},
    {"reserve", "reserve --pod NS/NAME [OPTIONS] [FILES]", "add a pod to status.reservedFor of its allocated claims",
     "Refuses, with the API server's texts, claims that are not allocated, being deleted or\n"
     "reserved 256 times; nothing is changed then (exit 1).",
     reserve_opts, NULL},
    {"release", "release [OPTIONS] [FILES]", "drop reservations of gone or finished pods, deallocate, remove finalizers, delete unused generated claims",
     "Needs the Pods of the namespaces involved: a pod missing from the input counts as gone.\n"
     "Namespaces with pod reservations but no Pods in the input are refused (exit 2).", release_opts, NULL},
    {"doctor", "doctor [OPTIONS] [FILES]", "report stuck or suspicious claims and pods, one line each with the fix; exit 1 when anything is found",
     NULL, doctor_opts, NULL},
    {"status", "status [OPTIONS] [FILES]", "claims with state, devices, node and users", NULL, status_opts, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
static const dra_tool tool = {"dra-claim", "ResourceClaim lifecycle: generate from templates, reserve, release, doctor, status", cmds, NULL};

static dra_err *write_changes(const dra_args *a, const dra_changes *ch)
{
    if (dra_args_has(a, OPT_PATCH)) {
        dra_patch_format pf;
        dra_err *e = dra_patch_format_parse(dra_args_get(a, OPT_PATCH), &pf);
        return e ? e : dra_changes_write_ops(stdout, ch, pf);
    }
    dra_format fmt = DRA_FMT_YAML;
    const char *o = dra_args_get(a, DRA_OPT_OUTPUT);
    if (o) {
        dra_err *e = dra_format_parse(o, &fmt);
        if (e)
            return e;
    }
    dra_writer *w = dra_writer_new(stdout, fmt);
    dra_err *e = NULL;
    for (size_t i = 0; i < ch->nobjs && !e; i++) {
        if (ch->objs[i].deleted) {
            char *ref = dra_obj_ref(ch->objs[i].obj);
            fprintf(stderr, "%s: deleted %s\n", tool.prog, ref);
            free(ref);
            continue;
        }
        e = dra_writer_put(w, ch->objs[i].obj);
    }
    return dra_err_append(e, dra_writer_close(w));
}

static dra_err *now_arg(const dra_args *a, int64_t *now)
{
    return dra_time_now_or(dra_args_get(a, DRA_OPT_NOW), now);
}

static char *dump_name(const dra_args *a)
{
    if (a->npos == 0 || (a->npos == 1 && strcmp(a->pos[0], "-") == 0))
        return dra_xstrdup("DUMP");
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = 0; i < a->npos; i++)
        dra_buf_printf(&b, "%s%s", i ? " " : "", a->pos[i]);
    return dra_buf_detach(&b);
}

static dra_err *run(const dra_args *a, const dra_cluster *c, const dra_features *fp, int64_t now, int *ok_code)
{
    const char *cmd = a->cmd->name;
    dra_features f = *fp;
    if (strcmp(cmd, "status") == 0) {
        json_t *rows = dra_claim_status_rows(c);
        const char *o = dra_args_get(a, DRA_OPT_OUTPUT);
        dra_format fmt;
        bool table;
        bool wide = o && strcmp(o, "wide") == 0;
        dra_err *e = wide ? NULL : dra_format_parse_table(o, &table, &fmt);
        if (wide || (!e && table)) {
            e = dra_claim_status_table(stdout, rows, wide);
        } else if (!e) {
            dra_writer *w = dra_writer_new(stdout, fmt);
            size_t i;
            json_t *r;
            json_array_foreach(rows, i, r) {
                if (!e)
                    e = dra_writer_put(w, r);
            }
            e = dra_err_append(e, dra_writer_close(w));
        }
        json_decref(rows);
        return e;
    }
    if (strcmp(cmd, "doctor") == 0) {
        dra_doctor_opts o = {NULL, &f, now};
        dra_err *e = NULL;
        char *dump = dump_name(a);
        o.dump = dump;
        dra_findings fs = DRA_FINDINGS_INIT;
        dra_doctor(c, &o, &fs);
        e = dra_findings_write(stdout, &fs);
        if (fs.n)
            *ok_code = DRA_EXIT_NEGATIVE;
        dra_findings_free(&fs);
        free(dump);
        return e;
    }

    dra_changes ch = DRA_CHANGES_INIT;
    dra_err *e = NULL;
    if (strcmp(cmd, "generate") == 0) {
        dra_lc_opts o = {.features = &f, .name_suffix = DRA_NAME_SUFFIX_HASH};
        e = dra_name_suffix_parse(dra_args_get(a, OPT_NAME_SUFFIX), &o.name_suffix);
        if (!e)
            e = dra_claims_generate(c, &o, &ch);
    } else if (strcmp(cmd, "reserve") == 0) {
        const char *pod = dra_args_get(a, OPT_POD);
        const char *slash = pod ? strchr(pod, '/') : NULL;
        if (!slash || slash == pod || !slash[1]) {
            e = dra_err_new(DRA_EXIT_INPUT, "reserve needs --pod NAMESPACE/NAME");
        } else {
            char *ns = dra_xstrndup(pod, (size_t)(slash - pod));
            e = dra_claims_reserve(c, ns, slash + 1, &ch);
            free(ns);
        }
    } else {
        dra_release_opts ro = {.delete_orphans = dra_args_has(a, OPT_DELETE_ORPHANS), .no_pods_ok = dra_args_has(a, OPT_NO_PODS_OK)};
        e = dra_claims_release(c, &ro, &ch);
    }
    dra_cluster_address_ops(c, &ch);
    /* partial results (other pods) are still worth printing */
    if (!e || e->code == DRA_EXIT_NEGATIVE || strcmp(cmd, "generate") == 0)
        e = dra_err_append(e, write_changes(a, &ch));
    dra_changes_free(&ch);
    return e;
}

int main(int argc, char **argv)
{
    dra_args a;
    int rc;
    if (dra_tool_start(&tool, argc, argv, &a, &rc))
        return rc;
    dra_objset set = DRA_OBJSET_INIT;
    dra_cluster c = DRA_CLUSTER_INIT;
    int ok = DRA_EXIT_OK;
    dra_features f;
    dra_features_default(&f);
    int64_t now = 0;
    dra_err *e = NULL;
    if (dra_args_get(&a, DRA_OPT_FEATURE_GATES))
        e = dra_features_parse(&f, dra_args_get(&a, DRA_OPT_FEATURE_GATES));
    if (!e)
        e = dra_err_field(now_arg(&a, &now), "--now");
    if (!e)
        e = dra_tool_input_options(&set, &a);
    if (!e)
        e = dra_read_paths(&set, a.pos, a.npos);
    if (!e && strcmp(a.cmd->name, "generate") == 0) {
        /* manifests: the pods of workloads, named as the API server would */
        dra_expand_report xr = {0};
        e = dra_expand_workloads(&set, NULL, &xr);
        dra_assume_pod_identity(&set, NULL, &xr);
        dra_tool_notes(&tool, &a, xr.warnings, xr.notes);
        dra_expand_report_free(&xr);
    }
    c.no_validate = dra_args_has(&a, OPT_NO_VALIDATE);
    if (!e) {
        e = dra_cluster_load_input(&c, &set, &f, now);
        dra_input_report ir = {c.model.warnings, c.unknown, c.model.collapsed, c.model.files_repeated};
        dra_tool_report_input(&tool, &a, &ir);
    }
    if (!e)
        e = run(&a, &c, &f, now, &ok);
    dra_cluster_free(&c);
    dra_objset_free(&set);
    return dra_tool_finish(&tool, &a, e, ok);
}
