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

static void on_stop(int sig)
{
    stop_flag = sig;
}
static void on_hup(int sig)
{
    reload_flag = 1;
}

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

static dra_err *open_session(const dra_args *a, const dra_watch_values *v, dra_session *s)
{
    /* -A wins over -n, as kubectl: "Namespace in current context is
     * ignored even if specified with --namespace" */
    dra_session_opts o = {0};
    o.kubeconfig = v->kubeconfig;
    o.context = v->context;
    o.ns = v->ns;
    o.as = v->as; /* kubectl's: the last one */
    o.as_uid = v->as_uid;
    o.as_groups = v->as_groups.v; /* the dra_args keep them for the session's reloads */
    o.nas_groups = v->as_groups.n;
    o.as_extra = v->as_extra.v;
    o.nas_extra = v->as_extra.n;
    o.all_namespaces = v->all_ns;
    o.log = log_cb;
    o.stop = &stop_flag;
    o.reload = &reload_flag;
    o.replay = v->replay;
    o.replay_fast = v->replay_fast;
    o.sa_dir = getenv("DRA_SERVICEACCOUNT_DIR"); /* in-cluster configuration elsewhere (tests) */
    o.backoff_base_ms = (int)v->test_backoff_base_ms;
    o.backoff_cap_ms = (int)v->test_backoff_cap_ms;
    o.watch_timeout_s = (int)v->test_watch_timeout_s;
    o.watch_idle_s = (int)v->test_watch_idle_s;
    /* one-shot commands fail fast, as kubectl; the loop keeps retrying */
    o.one_shot = strcmp(a->cmd->name, "run") != 0;
    long ms = 0;
    dra_err *e = dra_watch_duration_parse(v->request_timeout, "request-timeout", &ms);
    if (e)
        return e;
    o.request_timeout_ms = !v->request_timeout ? 0 : ms > 0 ? ms : -1;
    return dra_session_open(&o, s);
}

static dra_err *output_fmt(const dra_watch_values *v, dra_format def, dra_format *f)
{
    *f = def;
    return v->output ? dra_format_parse(v->output, f) : NULL;
}

static dra_err *cmd_get(const dra_args *a, const dra_watch_values *v, dra_session *s, int *ok)
{
    dra_get_opts o = {.watch = v->watch,
                      .label_selector = v->selector,
                      .field_selector = v->field_selector,
                      .max_events = (long)v->max_events};
    dra_err *e = output_fmt(v, DRA_FMT_JSONL, &o.fmt);
    return e ? e : dra_watch_get(s, a->pos, a->npos, &o, stdout);
}

static dra_err *cmd_record(const dra_args *a, const dra_watch_values *v, dra_session *s, int *ok)
{
    if (a->npos != 1)
        return dra_err_new(DRA_EXIT_INPUT, "record needs one FILE ('-' for standard output)");
    return dra_watch_record(s, a->pos[0], (long)v->max_events);
}

static dra_err *cmd_snapshot(const dra_args *a, const dra_watch_values *v, dra_session *s, int *ok)
{
    dra_format f;
    dra_err *e = output_fmt(v, DRA_FMT_YAML, &f);
    if (!e && a->npos)
        e = dra_err_new(DRA_EXIT_INPUT, "snapshot takes no arguments");
    json_t *objs = NULL;
    if (!e)
        e = dra_watch_snapshot(s, v->for_pod, v->kinds, &objs);
    if (!e)
        e = dra_write_array(stdout, objs, f);
    json_decref(objs);
    return e;
}

static dra_err *cmd_run(const dra_args *a, const dra_watch_values *v, dra_session *s, int *ok)
{
    dra_run_opts o = {.once = v->once,
                      .dry_run = v->dry_run,
                      .out = stdout,
                      .debounce_ms = 300,
                      .max_conflicts = 5,
                      .max_passes = (long)v->max_passes};
    dra_release rel;
    if ((o.kubernetes_version = v->kubernetes_version)) {
        dra_err *re = dra_err_field(dra_release_parse(o.kubernetes_version, &rel), "--kubernetes-version");
        if (re)
            return re;
        o.kubernetes_version = dra_release_name(rel);
    }
    dra_err *e = dra_watch_duration_parse(v->interval, "interval", &o.interval_ms);
    if (!e)
        e = dra_watch_duration_parse(v->debounce, "debounce", &o.debounce_ms);
    if (e)
        return e;
    bool node_job = v->job && strcmp(v->job, "node") == 0;
    if (!node_job && (v->node || v->socket || v->registry_dir || v->plugins_dir || v->checkpoint))
        return dra_err_new(DRA_EXIT_INPUT,
                           "--node, --socket, --registry-dir, --plugins-dir and --checkpoint belong to --job node");
    if (v->job && a->npos)
        return dra_err_new(DRA_EXIT_INPUT, "--job %s takes no pipeline", v->job);
    if (v->feature_gates && !v->job)
        return dra_err_new(DRA_EXIT_INPUT, "--feature-gates is for --job: give a pipeline's tools their own");
    if (!v->job && !a->npos)
        return dra_err_new(DRA_EXIT_INPUT, "run needs --job claims|evict, --job node --node NAME, or '-- PIPELINE'");
    if (node_job && !v->interval)
        o.interval_ms = 60000; /* the kubelet DRA manager's reconcile period */
    if (v->health_addr && (e = dra_watch_health_start(v->health_addr, &o.health)))
        return e;
    if (o.health) {
        char m[80];
        snprintf(m, sizeof m, "/healthz, /readyz and /metrics on port %d", dra_watch_health_port(o.health));
        log_cb(NULL, KUBE_LOG_INFO, m);
    }
    dra_watch_job job;
    e = dra_watch_job_stages(v, a->pos, a->npos, &o, &job);
    int verdict = 0;
    if (!e)
        e = dra_watch_run(s, &o, &verdict);
    dra_watch_job_free(&job);
    dra_watch_health_stop(o.health);
    if (!e)
        *ok = verdict;
    return e;
}

typedef dra_err *cmd_fn(const dra_args *a, const dra_watch_values *v, dra_session *s, int *ok);

/* Every subcommand: signals, the session, the command, --stats. */
static dra_err *in_session(const dra_args *a, const dra_watch_values *v, int *rc, cmd_fn *cmd)
{
    verbosity = v->verbose;
    install_signals();
    dra_session s;
    dra_err *e = open_session(a, v, &s);
    if (!e) {
        e = cmd(a, v, &s, rc);
        if (v->stats) {
            char *st = dra_watch_stats(&s);
            fprintf(stderr, "dra-watch: stats: %s\n", st);
            free(st);
        }
        dra_session_close(&s);
    }
    if (stop_flag && (!e || strcmp(e->msg, "interrupted") == 0)) {
        dra_err_free(e); /* a requested stop is a clean end */
        e = NULL;
    }
    return e;
}

static dra_err *run_get(const dra_args *a, void *v, int *rc)
{
    return in_session(a, v, rc, cmd_get);
}
static dra_err *run_snapshot(const dra_args *a, void *v, int *rc)
{
    return in_session(a, v, rc, cmd_snapshot);
}
static dra_err *run_record(const dra_args *a, void *v, int *rc)
{
    return in_session(a, v, rc, cmd_record);
}
static dra_err *run_run(const dra_args *a, void *v, int *rc)
{
    return in_session(a, v, rc, cmd_run);
}

static const dra_runner runners[] = {
    {"get", run_get}, {"snapshot", run_snapshot}, {"record", run_record}, {"run", run_run}, {NULL, NULL},
};

int main(int argc, char **argv)
{
    dra_watch_values v = {0};
    return dra_tool_main(&dra_watch_tool, runners, dra_watch_vals, argc, argv, &v);
}
