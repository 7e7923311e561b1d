/* dra-watch run's pipeline: the --job presets (which tools, with which
 * flags, watching which resources) or the PIPELINE arguments, as the stages
 * the loop (src/common/watch/run.c) runs. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "model/features.h"
#include "model/time.h"
#include "main.h"

/* One stage from its arguments (copied; NULL-terminated list). */
static void add_stage(dra_watch_job *j, const char *first, ...)
{
    size_t n = 0, cap = 8;
    char **v = dra_xcalloc(cap, sizeof *v);
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a; a = va_arg(ap, const char *)) {
        if (n + 2 > cap)
            v = dra_xrealloc(v, (cap *= 2) * sizeof *v);
        v[n++] = dra_xstrdup(a);
    }
    va_end(ap);
    v[n] = NULL;
    j->argv[j->nstages++] = v;
}

/* A stage's argv grown by two arguments (NULL value: left alone). */
static void add_pair(dra_watch_job *j, size_t i, const char *flag, const char *value)
{
    if (!value)
        return;
    size_t n = 0;
    while (j->argv[i][n])
        n++;
    j->argv[i] = dra_xrealloc(j->argv[i], (n + 3) * sizeof *j->argv[i]);
    j->argv[i][n] = dra_xstrdup(flag);
    j->argv[i][n + 1] = dra_xstrdup(value);
    j->argv[i][n + 2] = NULL;
}

/* dra-claim & co beside this executable, else on PATH. */
static char *tool_path(const char *tools_dir, const char *tool)
{
    if (tools_dir && *tools_dir) {
        char *p = dra_xasprintf("%s/%s", tools_dir, tool);
        if (access(p, X_OK) == 0)
            return p;
        free(p);
    }
    return dra_xstrdup(tool);
}

static dra_err *job_stages(const dra_watch_values *v, dra_run_opts *o, dra_watch_job *j, const char *tools_dir)
{
    /* Watch only what the job reads: its ClusterRole grants exactly that. */
    /* a dry run of the claims job also reads the ResourceQuotas: dra-claim
     * generate then applies the quota admission the API server would apply
     * to the claims it creates (insight/quota.h), instead of printing
     * creates the server would refuse with a 403 */
    static const char *const claims_kinds[] = {"resourceclaims", "resourceclaimtemplates", "pods", "resourcequotas"};
    static const char *const evict_kinds[] = {"resourceslices", "devicetaintrules", "resourceclaims", "pods"};
    /* the node agent, as the kubelet: its own pods (spec.nodeName) and claims */
    static const char *const node_kinds[] = {"pods", "resourceclaims"};
    if (strcmp(v->job, "claims") == 0) {
        char *t = tool_path(tools_dir, "dra-claim");
        add_stage(j, t, "release", "--patch", NULL);
        add_stage(j, t, "generate", "--patch", NULL);
        free(t);
        o->kinds = claims_kinds;
        o->nkinds = o->dry_run ? 4 : 3;
        return NULL;
    }
    if (strcmp(v->job, "evict") == 0) {
        dra_time now;
        dra_err *e = dra_time_now_or(v->now, &now);
        if (e)
            return e; /* about the parameter "now" */
        char *ts = dra_time_format(now);
        char *t = tool_path(tools_dir, "dra-evict");
        /* evictions and the rules' EvictionInProgress condition */
        add_stage(j, t, "--apply-at", ts, "--rule-status", "--patch", NULL);
        free(t);
        free(ts);
        if (!v->apply)
            o->dry_run = true;
        o->kinds = evict_kinds;
        o->nkinds = 4;
        return NULL;
    }
    if (strcmp(v->job, "node") == 0) {
        /* the kubelet's DRA manager: prepare the claims of the node's active
         * pods, unprepare those of pods gone or finished (dra-prepare sync) */
        if (!v->node || !*v->node)
            return dra_err_new(DRA_EXIT_INPUT, "--job node needs --node NAME");
        if (!v->socket && !v->registry_dir && !v->plugins_dir)
            return dra_err_new(
                DRA_EXIT_INPUT,
                "--job node needs --socket PATH or --registry-dir/--plugins-dir DIR (where the drivers are)");
        if (v->dry_run)
            return dra_err_new(DRA_EXIT_INPUT, "--job node writes nothing to the API server; it has no --dry-run");
        char *t = tool_path(tools_dir, "dra-prepare");
        add_stage(j, t, "sync", "--node", v->node, "-o", "jsonl", NULL);
        free(t);
        add_pair(j, 0, "--socket", v->socket);
        add_pair(j, 0, "--registry-dir", v->registry_dir);
        add_pair(j, 0, "--plugins-dir", v->plugins_dir);
        add_pair(j, 0, "--checkpoint", v->checkpoint);
        o->kinds = node_kinds;
        o->nkinds = 2;
        o->node = v->node;
        return NULL;
    }
    return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "unknown job \"%s\" (claims, evict, node)", v->job), "job");
}

dra_err *dra_watch_job_stages(const dra_watch_values *v, char *const *pipeline, size_t npipeline, dra_run_opts *o,
                              dra_watch_job *j)
{
    *j = (dra_watch_job){0};
    if (!v->job) {
        if (npipeline == 1) {
            add_stage(j, "/bin/sh", "-c", pipeline[0], NULL);
        } else {
            char **a = dra_xcalloc(npipeline + 1, sizeof *a);
            for (size_t i = 0; i < npipeline; i++)
                a[i] = dra_xstrdup(pipeline[i]);
            j->argv[j->nstages++] = a;
        }
        j->stages[0] = (dra_run_stage){j->argv[0], "pipeline", "pipeline"};
    } else {
        char *tools_dir = dra_self_dir();
        dra_err *e = job_stages(v, o, j, tools_dir);
        free(tools_dir);
        if (e)
            return e;
        for (size_t i = 0; i < j->nstages; i++) {
            /* the gates the cluster runs with, where they differ from the
             * release's defaults (1.36's DRADeviceTaintRules, say) */
            add_pair(j, i, "--feature-gates", v->feature_gates);
            j->name[i] = dra_xasprintf("%s %s", j->argv[i][0], j->argv[i][1]);
            j->stages[i] = (dra_run_stage){j->argv[i], j->name[i], j->argv[i][0]};
        }
        /* the release the tools apply: --kubernetes-version, else the
         * server's, unless $DRA_KUBERNETES_VERSION reaches them */
        bool env;
        dra_release_setting(o->kubernetes_version, &env);
        if (!env)
            o->release_flag = "--kubernetes-version";
    }
    o->stages = j->stages;
    o->nstages = j->nstages;
    return NULL;
}

void dra_watch_job_free(dra_watch_job *j)
{
    for (size_t i = 0; i < j->nstages; i++) {
        for (char **p = j->argv[i]; *p; p++)
            free(*p);
        free(j->argv[i]);
        free(j->name[i]);
    }
    *j = (dra_watch_job){0};
}
