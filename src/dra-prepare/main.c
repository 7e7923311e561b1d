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

enum { OPT_POD = DRA_OPT_TOOL_BASE, OPT_SOCKET, OPT_PLUGINS_DIR, OPT_REGISTRY_DIR, OPT_CHECKPOINT, OPT_TIMEOUT, OPT_CDI_DIR, OPT_VERBOSE, OPT_TEST_CRASH };

#define DEFAULT_CHECKPOINT "/var/lib/dra-prepare/dra_manager_state"
#define POD_ENTRY(what) {OPT_POD, "pod", 0, DRA_ARG_REQUIRED, "NS/NAME", what, NULL}
#define DRIVER_ENTRIES                                                                                                   \
    {OPT_SOCKET, "socket", 0, DRA_ARG_REQUIRED, "PATH", "reach every driver at this DRA socket (dra.sock)", "file"},     \
    {OPT_PLUGINS_DIR, "plugins-dir", 0, DRA_ARG_REQUIRED, "DIR", "else find a driver at DIR/DRIVER/dra.sock (/var/lib/kubelet/plugins)", "dir"}, \
    {OPT_REGISTRY_DIR, "registry-dir", 0, DRA_ARG_REQUIRED, "DIR", "find drivers through their registration sockets here (/var/lib/kubelet/plugins_registry)", "dir"}, \
    {OPT_CHECKPOINT, "checkpoint", 0, DRA_ARG_REQUIRED, "FILE", "the record of prepared claims (default " DEFAULT_CHECKPOINT ")", "file"}, \
    {OPT_TIMEOUT, "timeout", 0, DRA_ARG_REQUIRED, "DURATION", "deadline of each driver call (default 45s, as the kubelet)", NULL}, \
    DRA_OPT_FILENAME_ENTRY, DRA_OPT_FEATURE_GATES_ENTRY,                                                                                         \
    /* hidden, for the tests: be killed (SIGKILL) after the driver answered, before the checkpoint is written */      \
    {OPT_TEST_CRASH, "test-crash", 0, DRA_ARG_REQUIRED, "after-rpc", NULL, "after-rpc"}
#define VERBOSE_ENTRY {OPT_VERBOSE, "verbose", 'v', DRA_ARG_NONE, NULL, "say on stderr what is done", NULL}

static const dra_opt prepare_opts[] = {
    POD_ENTRY("the pod whose claims to prepare (required)"), DRIVER_ENTRIES,
    DRA_OPT_OUTPUT_ENTRY("table yaml json jsonl"), VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt unprepare_opts[] = {
    POD_ENTRY("the pod whose claims to unprepare (required)"), DRIVER_ENTRIES,
    DRA_OPT_OUTPUT_ENTRY("table yaml json jsonl"), VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt sync_opts[] = {
    DRA_OPT_NODE_ENTRY("the node to reconcile (required)"), DRIVER_ENTRIES,
    DRA_OPT_OUTPUT_ENTRY("table yaml json jsonl"), VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt cdi_opts[] = {
    {OPT_CDI_DIR, "cdi-dir", 0, DRA_ARG_REQUIRED, "DIR", "a CDI spec directory, later ones winning (repeatable; default /etc/cdi /var/run/cdi)", "dir"},
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"), VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};

static dra_cmd cmds[] = { /* plugins, probe, health (cmd_rpc.c) are filled in by main */
    {"prepare", "prepare --pod NS/NAME (--socket PATH | --registry-dir DIR) [OPTIONS] [FILES]",
     "prepare a pod's ResourceClaims with their drivers and print each container's CDI devices",
     "Reads the pod and its ResourceClaims (kubectl get -o yaml dumps).  Checks what the kubelet\n"
     "checks, calls NodePrepareResources once per driver with all of its claims, records the\n"
     "answers in the checkpoint and prints per container the CDI device IDs it gets.  Claims\n"
     "prepared before are not prepared again.",
     prepare_opts, NULL},
    {"unprepare", "unprepare --pod NS/NAME (--socket PATH | --registry-dir DIR) [OPTIONS] [FILES]",
     "unprepare a pod's ResourceClaims that no other pod of the checkpoint still uses",
     "FILES are optional: without them the pod is found by name in the checkpoint.", unprepare_opts, NULL},
    {"sync", "sync --node NAME (--socket PATH | --registry-dir DIR) [OPTIONS] [FILES]",
     "reconcile a node: prepare the claims of its running pods, unprepare those of pods gone or finished",
     "FILES are a snapshot of the pods and ResourceClaims (kubectl get pods,resourceclaims -A -o yaml).",
     sync_opts, NULL},
    {"cdi", "cdi [--cdi-dir DIR]... [ID...]", "show the container edits (env, device nodes, mounts, hooks) of CDI devices",
     "Without IDs, reads the output of `prepare` or `sync` on standard input and answers per container.",
     cdi_opts, ""},
    {0}, {0}, {0},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
static const dra_tool tool = {"dra-prepare", "the kubelet side of DRA: prepare and unprepare claims with DRA drivers, reconcile a node, resolve CDI devices", cmds, NULL};

static const dra_kubelet_calls rpc_ops = {dra_plugin_dial, dra_plugin_prepare, dra_plugin_unprepare, dra_plugin_close};

static void log_line(void *ctx, const char *msg)
{
    fprintf(stderr, "%s: %s\n", tool.prog, msg);
}

/* For the crash tests: DRA_PREPARE_TEST_CRASH=after-rpc dies like kill -9
 * between the driver's answer and the checkpoint write. */
static void crash_hook(void *ctx)
{
    raise(SIGKILL);
}

static dra_err *output_format(const dra_args *a, bool tables, bool *table, dra_format *fmt)
{
    const char *o = dra_args_get(a, DRA_OPT_OUTPUT);
    *fmt = DRA_FMT_YAML;
    *table = false;
    return tables ? dra_format_parse_table(o, table, fmt) : (o ? dra_format_parse(o, fmt) : NULL);
}

static dra_err *write_records(json_t *recs, bool table, dra_format fmt, bool actions)
{
    return table ? dra_kubelet_table(stdout, recs, actions) : dra_write_array(stdout, recs, fmt);
}

static dra_err *run_cdi(const dra_args *a, json_t *out)
{
    const char *defaults[] = DRA_CDI_DEFAULT_DIRS;
    size_t nd = dra_args_count(a, OPT_CDI_DIR);
    const char **dirs = dra_xcalloc(nd + 2, sizeof *dirs);
    for (size_t i = 0, k = 0; i < a->nopts; i++)
        if (a->opts[i].id == OPT_CDI_DIR)
            dirs[k++] = a->opts[i].value;
    if (nd == 0)
        dirs[0] = defaults[0], dirs[1] = defaults[1], nd = 2;
    dra_err *spec_errs = NULL;
    dra_cdi *c = dra_cdi_load(dirs, nd, &spec_errs);
    free(dirs);
    if (spec_errs) {
        dra_tool_print_errs(stderr, tool.prog, "warning", spec_errs);
        dra_err_free(spec_errs);
    }
    if (dra_args_has(a, OPT_VERBOSE))
        fprintf(stderr, "%s: %zu CDI devices known\n", tool.prog, dra_cdi_device_count(c));
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
    dra_features f;
    dra_err *e = dra_tool_features(&tool, a, &f);
    ko->optional_node_operations = dra_feature_enabled(&f, DRA_FEATURE_OPTIONAL_NODE_OPERATIONS);
    return e;
}

static dra_err *run_node(const dra_args *a, json_t *out)
{
    const char *cmd = a->cmd->name, *pod = dra_args_get(a, OPT_POD), *node = dra_args_get(a, DRA_OPT_NODE);
    dra_locator loc = {.socket = dra_args_get(a, OPT_SOCKET), .registry_dir = dra_args_get(a, OPT_REGISTRY_DIR),
                       .plugins_dir = dra_args_get(a, OPT_PLUGINS_DIR)};
    char *ns = NULL, *name = NULL;
    if (strcmp(cmd, "sync") == 0 ? !node || !*node : !pod)
        return dra_err_new(DRA_EXIT_INPUT, "%s is required", strcmp(cmd, "sync") == 0 ? "--node NAME" : "--pod NS/NAME");
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
    if (!e && dra_args_has(a, OPT_TIMEOUT))
        e = dra_prepare_duration_ms("timeout", dra_args_get(a, OPT_TIMEOUT), &ko.rpc.timeout_ms);
    if (!e)
        e = kubelet_features(a, &ko);
    if (dra_args_has(a, OPT_VERBOSE))
        ko.log = log_line;
    const char *crash = dra_args_get(a, OPT_TEST_CRASH);
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
        e = dra_ckpt_open(dra_args_get(a, OPT_CHECKPOINT) ? dra_args_get(a, OPT_CHECKPOINT) : DEFAULT_CHECKPOINT, &f);
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

int main(int argc, char **argv)
{
    dra_args a;
    int rc;
    cmds[4] = dra_prepare_plugins_cmd, cmds[5] = dra_prepare_probe_cmd, cmds[6] = dra_prepare_health_cmd;
    int (*const run_rpc[])(int, char **) = {dra_prepare_cmd_plugins, dra_prepare_cmd_probe, dra_prepare_cmd_health};
    for (int i = 0; i < 3 && argc > 1; i++)
        if (strcmp(argv[1], cmds[4 + i].name) == 0)
            return run_rpc[i](argc, argv);
    if (dra_tool_start(&tool, argc, argv, &a, &rc))
        return rc;
    json_t *out = json_array();
    bool is_cdi = strcmp(a.cmd->name, "cdi") == 0, table;
    dra_format fmt;
    dra_err *e = output_format(&a, !is_cdi, &table, &fmt);
    if (!e)
        e = is_cdi ? run_cdi(&a, out) : run_node(&a, out);
    /* sync reports what it did even when some pods failed */
    if (!e || (strcmp(a.cmd->name, "sync") == 0 && json_array_size(out)))
        e = dra_err_append(e, write_records(out, table, fmt, strcmp(a.cmd->name, "prepare") != 0));
    json_decref(out);
    return dra_tool_finish(&tool, &a, e, 0);
}
