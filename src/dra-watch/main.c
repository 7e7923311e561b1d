/* dra-watch: list and watch a Kubernetes API server, dump DRA snapshots,
 * record and replay watch streams, and run the reconcile loop that feeds the
 * other tools.  The work is in src/common/watch/ and src/common/kube/. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool/tool.h"
#include "main.h"

static volatile sig_atomic_t stop_flag, reload_flag;

static void on_stop(int sig) { stop_flag = sig; }
static void on_hup(int sig) { reload_flag = 1; }

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART: a blocked poll returns at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = on_hup;
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

static int verbosity;

static void log_cb(void *ud, dra_kube_log_level level, const char *msg)
{
    if ((level == KUBE_LOG_INFO && verbosity < 1) || (level == KUBE_LOG_DEBUG && verbosity < 2))
        return;
    fprintf(stderr, "dra-watch: %s\n", msg);
}

static dra_err *long_arg(const dra_args *a, int id, const char *name, long *out)
{
    const char *s = dra_args_get(a, id);
    if (!s)
        return NULL;
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 0)
        return dra_err_new(DRA_EXIT_INPUT, "%s: invalid value \"%s\": want a non-negative integer", name, s);
    *out = v;
    return NULL;
}

/* Every value of a repeatable option, in order (the array is the caller's;
 * the values are argv's). */
static const char **all_values(const dra_args *a, int id, size_t *n)
{
    const char **v = dra_xcalloc(a->nopts + 1, sizeof *v);
    *n = 0;
    for (size_t i = 0; i < a->nopts; i++)
        if (a->opts[i].id == id)
            v[(*n)++] = a->opts[i].value;
    return v;
}

static dra_err *open_session(const dra_args *a, dra_session *s, const char **groups, size_t ngroups,
                             const char **extra, size_t nextra)
{
    if (dra_args_get(a, OPT_NAMESPACE) && dra_args_has(a, OPT_ALL_NS) && strcmp(a->cmd->name, "get") != 0)
        return dra_err_new(DRA_EXIT_INPUT, "--namespace and --all-namespaces exclude each other");
    dra_session_opts o = {0};
    o.kubeconfig = dra_args_get(a, OPT_KUBECONFIG);
    o.context = dra_args_get(a, OPT_CONTEXT);
    o.ns = dra_args_get(a, OPT_NAMESPACE);
    o.as = dra_args_get(a, OPT_AS); /* kubectl's: the last one */
    o.as_uid = dra_args_get(a, OPT_AS_UID);
    o.as_groups = groups;
    o.nas_groups = ngroups;
    o.as_extra = extra;
    o.nas_extra = nextra;
    o.all_namespaces = dra_args_has(a, OPT_ALL_NS);
    o.log = log_cb;
    o.stop = &stop_flag;
    o.reload = &reload_flag;
    o.replay = dra_args_get(a, OPT_REPLAY);
    o.replay_fast = dra_args_has(a, OPT_REPLAY_FAST);
    return dra_session_open(&o, s);
}

static dra_err *output_fmt(const dra_args *a, dra_format def, dra_format *f)
{
    *f = def;
    const char *o = dra_args_get(a, DRA_OPT_OUTPUT);
    return o ? dra_format_parse(o, f) : NULL;
}

static dra_err *cmd_get(const dra_args *a, dra_session *s, int *ok)
{
    dra_get_opts o = {0};
    o.watch = dra_args_has(a, OPT_WATCH);
    o.label_selector = dra_args_get(a, OPT_SELECTOR);
    o.field_selector = dra_args_get(a, OPT_FIELD_SELECTOR);
    dra_err *e = output_fmt(a, DRA_FMT_JSONL, &o.fmt);
    if (!e)
        e = long_arg(a, OPT_MAX_EVENTS, "--max-events", &o.max_events);
    return e ? e : dra_watch_get(s, a->pos, a->npos, &o, stdout);
}

static dra_err *cmd_record(const dra_args *a, dra_session *s, int *ok)
{
    long max = 0;
    dra_err *e = long_arg(a, OPT_MAX_EVENTS, "--max-events", &max);
    if (!e && a->npos != 1)
        e = dra_err_new(DRA_EXIT_INPUT, "record needs one FILE ('-' for standard output)");
    return e ? e : dra_watch_record(s, a->pos[0], max);
}

static dra_err *cmd_snapshot(const dra_args *a, dra_session *s, int *ok)
{
    dra_format f;
    dra_err *e = output_fmt(a, DRA_FMT_YAML, &f);
    if (!e && a->npos)
        e = dra_err_new(DRA_EXIT_INPUT, "snapshot takes no arguments");
    json_t *objs = NULL;
    if (!e)
        e = dra_watch_snapshot(s, dra_args_get(a, OPT_FOR_POD), &objs);
    if (!e)
        e = dra_write_array(stdout, objs, f);
    json_decref(objs);
    return e;
}

static dra_err *cmd_run(const dra_args *a, dra_session *s, int *ok)
{
    dra_run_opts o = {0};
    o.pipeline = a->pos;
    o.npipeline = a->npos;
    o.job = dra_args_get(a, OPT_JOB);
    o.once = dra_args_has(a, OPT_ONCE);
    o.dry_run = dra_args_has(a, OPT_DRY_RUN);
    o.apply = dra_args_has(a, OPT_APPLY);
    o.now = dra_args_get(a, DRA_OPT_NOW);
    dra_release rel;
    if ((o.kubernetes_version = dra_args_get(a, DRA_OPT_KUBERNETES_VERSION))) {
        dra_err *re = dra_err_field(dra_release_parse(o.kubernetes_version, &rel), "--kubernetes-version");
        if (re)
            return re;
        o.kubernetes_version = dra_release_name(rel);
    }
    o.out = stdout;
    o.debounce_ms = 300;
    o.max_conflicts = 5;
    dra_err *e = dra_watch_duration_parse(dra_args_get(a, OPT_INTERVAL), "interval", &o.interval_ms);
    if (!e)
        e = dra_watch_duration_parse(dra_args_get(a, OPT_DEBOUNCE), "debounce", &o.debounce_ms);
    if (!e)
        e = long_arg(a, OPT_MAX_PASSES, "--max-passes", &o.max_passes);
    if (e)
        return e;
    o.node = dra_args_get(a, DRA_OPT_NODE);
    o.socket = dra_args_get(a, OPT_SOCKET);
    o.registry_dir = dra_args_get(a, OPT_REGISTRY_DIR);
    o.plugins_dir = dra_args_get(a, OPT_PLUGINS_DIR);
    o.checkpoint = dra_args_get(a, OPT_CHECKPOINT);
    bool node_job = o.job && strcmp(o.job, "node") == 0;
    if (!node_job && (o.node || o.socket || o.registry_dir || o.plugins_dir || o.checkpoint))
        return dra_err_new(DRA_EXIT_INPUT, "--node, --socket, --registry-dir, --plugins-dir and --checkpoint belong to --job node");
    if (o.job && a->npos)
        return dra_err_new(DRA_EXIT_INPUT, "--job %s takes no pipeline", o.job);
    if (!o.job && !a->npos)
        return dra_err_new(DRA_EXIT_INPUT, "run needs --job claims|evict, --job node --node NAME, or '-- PIPELINE'");
    if (node_job && !dra_args_get(a, OPT_INTERVAL))
        o.interval_ms = 60000; /* the kubelet DRA manager's reconcile period */
    o.tools_dir = dra_self_dir();
    int verdict = 0;
    e = dra_watch_run(s, &o, &verdict);
    free((char *)o.tools_dir);
    if (!e)
        *ok = verdict;
    return e;
}

int main(int argc, char **argv)
{
    dra_args a;
    int rc;
    if (dra_tool_start(&dra_watch_tool, argc, argv, &a, &rc))
        return rc;
    verbosity = (int)dra_args_count(&a, OPT_VERBOSE);
    install_signals();
    dra_session s;
    int ok = 0;
    size_t ngroups, nextra; /* kept for the session's reloads */
    const char **groups = all_values(&a, OPT_AS_GROUP, &ngroups), **extra = all_values(&a, OPT_AS_USER_EXTRA, &nextra);
    dra_err *e = open_session(&a, &s, groups, ngroups, extra, nextra);
    if (!e) {
        const char *c = a.cmd->name;
        e = strcmp(c, "get") == 0        ? cmd_get(&a, &s, &ok)
            : strcmp(c, "record") == 0   ? cmd_record(&a, &s, &ok)
            : strcmp(c, "snapshot") == 0 ? cmd_snapshot(&a, &s, &ok)
                                         : cmd_run(&a, &s, &ok);
        if (dra_args_has(&a, OPT_STATS)) {
            char *st = dra_watch_stats(&s);
            fprintf(stderr, "dra-watch: stats: %s\n", st);
            free(st);
        }
        dra_session_close(&s);
    }
    free(groups);
    free(extra);
    if (stop_flag && (!e || strcmp(e->msg, "interrupted") == 0)) {
        dra_err_free(e); /* a requested stop is a clean end */
        e = NULL;
    }
    return dra_tool_finish(&dra_watch_tool, &a, e, ok);
}
