/* dra-prepare: the kubelet side of DRA from the command line: prepare and
 * unprepare a pod's claims with the drivers' kubelet plugins, reconcile a
 * node, and show what CDI devices mean for a container.  The work is in
 * src/common/kubelet/ (prepare.h, checkpoint.h, cdi.h, rpc.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/tool.h"
#include "cmd_rpc.h"
#include "io/stream.h"
#include "io/table.h"
#include "kubelet/cdi.h"
#include "kubelet/locate.h"
#include "kubelet/prepare.h"

static const dra_kubelet_calls rpc_ops = {dra_plugin_dial, dra_plugin_prepare, dra_plugin_unprepare, dra_plugin_close};

static void log_line(void *ctx, const char *msg)
{
    fprintf(stderr, "%s: %s\n", dra_prepare_tool.prog, msg);
}

/* For the crash tests: --test-crash=after-rpc dies like kill -9 between the
 * driver's answer and the checkpoint write. */
static void crash_hook(void *ctx)
{
    raise(SIGKILL);
}

static dra_err *output_format(const char *o, bool tables, bool *table, dra_format *fmt)
{
    *fmt = DRA_FMT_YAML;
    *table = false;
    return tables ? dra_format_parse_table(o, table, fmt) : (o ? dra_format_parse(o, fmt) : NULL);
}

static dra_err *write_records(json_t *recs, bool table, dra_format fmt, bool actions)
{
    return table ? dra_kubelet_table(stdout, recs, actions) : dra_write_array(stdout, recs, fmt);
}

static dra_err *run_cdi(const dra_args *a, const dra_prepare_values *x, json_t *out)
{
    const char *defaults[] = DRA_CDI_DEFAULT_DIRS;
    const char *const *dirs = x->cdi_dirs.n ? x->cdi_dirs.v : defaults;
    dra_err *spec_errs = NULL;
    dra_cdi *c = dra_cdi_load(dirs, x->cdi_dirs.n ? x->cdi_dirs.n : 2, &spec_errs);
    if (spec_errs) {
        dra_tool_print_errs(stderr, dra_prepare_tool.prog, "warning", spec_errs);
        dra_err_free(spec_errs);
    }
    if (x->verbose)
        fprintf(stderr, "%s: %zu CDI devices known\n", dra_prepare_tool.prog, dra_cdi_device_count(c));
    dra_err *e = NULL;
    if (a->npos) {
        json_t *ed = NULL;
        e = dra_cdi_resolve(c, a->pos, a->npos, &ed);
        if (ed)
            json_array_append_new(out, ed);
    } else {
        dra_objset set = DRA_OBJSET_INIT;
        e = dra_read_path(&set, "-");
        const json_t **recs = dra_xcalloc(set.n + 1, sizeof *recs);
        for (size_t i = 0; i < set.n; i++)
            recs[i] = set.v[i].json;
        if (!e)
            e = dra_cdi_resolve_records(c, recs, set.n, out);
        free(recs);
        dra_objset_free(&set);
    }
    dra_cdi_free(c);
    return e;
}

/* The kubelet's feature gates (its release, every --feature-gates in order). */
static dra_err *kubelet_features(const dra_args *a, dra_kubelet_opts *ko)
{
    dra_err *e = dra_tool_features(&dra_prepare_tool, a, &ko->features);
    ko->optional_node_operations = dra_feature_enabled(&ko->features, DRA_FEATURE_OPTIONAL_NODE_OPERATIONS);
    return e;
}

static dra_err *run_node(const dra_args *a, const dra_prepare_values *x, json_t *out)
{
    const char *cmd = a->cmd->name, *pod = x->pod, *node = x->node;
    dra_locator loc = {.socket = x->socket, .registry_dir = x->registry_dir, .plugins_dir = x->plugins_dir};
    char *ns = NULL, *name = NULL;
    if (strcmp(cmd, "sync") == 0 ? !node || !*node : !pod)
        return dra_err_new(DRA_EXIT_INPUT, "%s is required",
                           strcmp(cmd, "sync") == 0 ? "--node NAME" : "--pod NS/NAME");
    if (pod) {
        const char *slash = strchr(pod, '/');
        if (!slash || slash == pod || !slash[1] || strchr(slash + 1, '/'))
            return dra_err_new(DRA_EXIT_INPUT, "--pod must be NAMESPACE/NAME, not '%s'", pod);
        ns = dra_xstrndup(pod, (size_t)(slash - pod));
        name = dra_xstrdup(slash + 1);
    }
    dra_kubelet_opts ko = {.ops = &rpc_ops, .resolve = dra_locator_resolve, .resolve_ctx = &loc};
    dra_err *e = NULL;
    if (!loc.socket == !(loc.registry_dir || loc.plugins_dir))
        e = dra_err_new(DRA_EXIT_INPUT, "either --socket PATH or --registry-dir/--plugins-dir DIR is required");
    if (!e)
        e = dra_prepare_duration_ms("timeout", x->timeout, &ko.rpc.timeout_ms);
    if (!e)
        e = kubelet_features(a, &ko);
    if (x->verbose)
        ko.log = log_line;
    const char *crash = x->test_crash;
    if (!e && crash && strcmp(crash, "after-rpc") != 0)
        e = dra_err_new(DRA_EXIT_INPUT, "--test-crash: unknown point \"%s\" (want after-rpc)", crash);
    if (crash)
        ko.after_rpc = crash_hook;
    dra_objset set = DRA_OBJSET_INIT;
    dra_model m = DRA_MODEL_INIT;
    if (!e && (a->npos || strcmp(cmd, "unprepare") != 0))
        e = dra_read_paths(&set, a->pos, a->npos);
    dra_load_opts lo = {.skip_unknown = true};
    if (!e)
        e = dra_load(&set, &lo, &m);
    dra_ckpt_file *f = NULL;
    if (!e)
        e = dra_ckpt_open(x->checkpoint ? x->checkpoint : DRA_PREPARE_DEFAULT_CHECKPOINT, &f);
    if (!e) {
        dra_kubelet *k = dra_kubelet_new(&ko, f);
        if (strcmp(cmd, "prepare") == 0)
            e = dra_kubelet_prepare(k, &m, ns, name, out);
        else if (strcmp(cmd, "unprepare") == 0)
            e = dra_kubelet_unprepare(k, &m, ns, name, out);
        else
            e = dra_kubelet_sync(k, &m, node, out);
        dra_kubelet_free(k);
    }
    dra_ckpt_close(f);
    dra_locator_free(&loc);
    dra_model_free(&m);
    dra_objset_free(&set);
    free(ns);
    free(name);
    return e;
}

/* prepare, unprepare, sync and cdi: records of what was done, written
 * after the work (sync reports what it did even when some pods failed). */
static dra_err *run(const dra_args *a, void *xv, int *rc)
{
    const dra_prepare_values *x = xv;
    json_t *out = json_array();
    bool is_cdi = strcmp(a->cmd->name, "cdi") == 0, table;
    dra_format fmt;
    dra_err *e = output_format(x->output, !is_cdi, &table, &fmt);
    if (!e)
        e = is_cdi ? run_cdi(a, x, out) : run_node(a, x, out);
    if (!e || (strcmp(a->cmd->name, "sync") == 0 && json_array_size(out)))
        e = dra_err_append(e, write_records(out, table, fmt, strcmp(a->cmd->name, "prepare") != 0));
    json_decref(out);
    return e;
}

static const dra_runner runners[] = {
    {"prepare", run},
    {"unprepare", run},
    {"sync", run},
    {"cdi", run},
    {"plugins", dra_prepare_run_plugins},
    {"probe", dra_prepare_run_probe},
    {"health", dra_prepare_run_health},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    dra_prepare_values v = {.count = 10, .max_msg = 4 << 20};
    return dra_tool_main(&dra_prepare_tool, runners, dra_prepare_vals, argc, argv, &v);
}
