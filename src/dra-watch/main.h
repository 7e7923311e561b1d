/* dra-watch's option tables (options.c) and main. */
#ifndef DRA_WATCH_MAIN_H
#define DRA_WATCH_MAIN_H

#include "tool/cli.h"
#include "watch/health.h"
#include "watch/watch.h"

/* clang-format off */
enum {
    OPT_KUBECONFIG = DRA_OPT_TOOL_BASE, OPT_CONTEXT, OPT_NAMESPACE, OPT_ALL_NS, OPT_VERBOSE, OPT_STATS,
    OPT_WATCH, OPT_SELECTOR, OPT_FIELD_SELECTOR, OPT_MAX_EVENTS, OPT_REPLAY, OPT_REPLAY_FAST,
    OPT_FOR_POD, OPT_ONCE, OPT_INTERVAL, OPT_DEBOUNCE, OPT_DRY_RUN, OPT_APPLY, OPT_JOB, OPT_MAX_PASSES,
    OPT_SOCKET, OPT_REGISTRY_DIR, OPT_PLUGINS_DIR, OPT_CHECKPOINT, OPT_AS, OPT_AS_GROUP, OPT_AS_UID,
    OPT_AS_USER_EXTRA, OPT_TEST_BACKOFF_BASE, OPT_TEST_BACKOFF_CAP, OPT_TEST_WATCH_TIMEOUT, OPT_TEST_WATCH_IDLE,
    OPT_HEALTH_ADDR, OPT_REQUEST_TIMEOUT, OPT_KINDS,
};
/* clang-format on */

/* Every option's value, written by dra_watch_vals (options.c). */
typedef struct dra_watch_values {
    const char *kubeconfig, *context, *ns, *as, *as_uid, *replay, *output, *request_timeout;
    dra_strv as_groups, as_extra;
    bool all_ns, stats, replay_fast;
    int verbose;                                             /* -v given how many times */
    const char *selector, *field_selector, *for_pod, *kinds; /* get, snapshot */
    bool watch;
    long long max_events, max_passes;
    const char *job, *node, *socket, *registry_dir, *plugins_dir, *checkpoint; /* run */
    const char *now, *kubernetes_version, *interval, *debounce, *health_addr;
    /* --feature-gates: given to the --job's tools as it is (they check it
     * against the release they are given) */
    const char *feature_gates;
    bool once, dry_run, apply;
    /* hidden, for the tests: shorter waits */
    long long test_backoff_base_ms, test_backoff_cap_ms, test_watch_timeout_s, test_watch_idle_s;
} dra_watch_values;

extern const dra_optval dra_watch_vals[];

extern const dra_tool dra_watch_tool;

/* The stages of `dra-watch run` (jobs.c): v's --job preset, or the PIPELINE
 * arguments (one: a shell command).  Sets o's stages, and for a job the
 * resources it watches, its node, --dry-run when evict is not --apply, and
 * the release flag.  o then borrows from j until dra_watch_job_free. */
typedef struct dra_watch_job {
    char **argv[2];
    char *name[2];
    dra_run_stage stages[2];
    size_t nstages;
} dra_watch_job;
DRA_MUST_USE dra_err *dra_watch_job_stages(const dra_watch_values *v, char *const *pipeline, size_t npipeline,
                                           dra_run_opts *o, dra_watch_job *j);
void dra_watch_job_free(dra_watch_job *j);

/* The folder of this executable (to find dra-claim & co); caller frees; "" when unknown. */
char *dra_self_dir(void);

#endif
