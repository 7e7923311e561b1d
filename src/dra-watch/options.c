/* dra-watch's option tables: they drive parsing, --help and completions. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "main.h"

/* The client's options; NSHELP says whose namespace -n replaces. */
/* clang-format off */
#define KUBE_OPTS_NS(NSHELP) \
    {OPT_KUBECONFIG, "kubeconfig", 0, DRA_ARG_REQUIRED, "FILE", "path to the kubeconfig file (default $KUBECONFIG, then ~/.kube/config, then in-cluster)", "file"}, \
    {OPT_CONTEXT, "context", 0, DRA_ARG_REQUIRED, "NAME", "the kubeconfig context to use", DRA_COMPLETE_CONTEXTS}, \
    {OPT_AS, "as", 0, DRA_ARG_REQUIRED, "USER", "act as this user (impersonation; default: the kubeconfig user's as)", NULL}, \
    {OPT_AS_GROUP, "as-group", 0, DRA_ARG_REQUIRED, "GROUP", "with --as: act in this group (repeatable)", NULL}, \
    {OPT_AS_UID, "as-uid", 0, DRA_ARG_REQUIRED, "UID", "with --as: act with this UID", NULL}, \
    {OPT_AS_USER_EXTRA, "as-user-extra", 0, DRA_ARG_REQUIRED, "KEY=VALUE", "with --as: an extra of the user (repeatable)", NULL}, \
    {OPT_NAMESPACE, "namespace", 'n', DRA_ARG_REQUIRED, "NS", NSHELP, DRA_COMPLETE_NAMESPACES}, \
    {OPT_ALL_NS, "all-namespaces", 'A', DRA_ARG_NONE, NULL, "every namespace", NULL}, \
    {OPT_REQUEST_TIMEOUT, "request-timeout", 0, DRA_ARG_REQUIRED, "DURATION", "the longest one request may take, as kubectl's: seconds or a Go duration (1s, 2m); 0 = no limit (default 300s)", NULL}, \
    {OPT_STATS, "stats", 0, DRA_ARG_NONE, NULL, "on exit, print requests, events, relists, writes, conflicts and retries to stderr", NULL}, \
    {OPT_VERBOSE, "verbose", 'v', DRA_ARG_NONE, NULL, "say on stderr what happens (retries, relists, resumes); twice for more", NULL}, \
    TEST_OPTS
#define KUBE_OPTS KUBE_OPTS_NS("namespace of namespaced kinds (default: the context's)")
/* Hidden (no help): the tests shorten the client's retry backoff and the
 * watch timeouts with these; users never need them. */
#define TEST_OPTS \
    {OPT_TEST_BACKOFF_BASE, "test-backoff-base-ms", 0, DRA_ARG_REQUIRED, "MS", NULL, NULL}, \
    {OPT_TEST_BACKOFF_CAP, "test-backoff-cap-ms", 0, DRA_ARG_REQUIRED, "MS", NULL, NULL}, \
    {OPT_TEST_WATCH_TIMEOUT, "test-watch-timeout", 0, DRA_ARG_REQUIRED, "SECONDS", NULL, NULL}, \
    {OPT_TEST_WATCH_IDLE, "test-watch-idle", 0, DRA_ARG_REQUIRED, "SECONDS", NULL, NULL}
#define REPLAY_OPTS \
    {OPT_REPLAY, "replay", 0, DRA_ARG_REQUIRED, "FILE", "read events from a recording instead of a server", "file"}, \
    {OPT_REPLAY_FAST, "replay-fast", 0, DRA_ARG_NONE, NULL, "replay at maximum speed instead of the recorded pace", NULL}

static const dra_opt get_opts[] = {
    {OPT_WATCH, "watch", 'w', DRA_ARG_NONE, NULL, "after the list, print changes: one {\"type\",\"object\"} per event", NULL},
    {OPT_SELECTOR, "selector", 'l', DRA_ARG_REQUIRED, "SELECTOR", "label selector (key=value,key!=value,key in (a,b),key,!key)", NULL},
    {OPT_FIELD_SELECTOR, "field-selector", 0, DRA_ARG_REQUIRED, "SELECTOR", "field selector (metadata.name=x,spec.nodeName=y)", NULL},
    {OPT_MAX_EVENTS, "max-events", 0, DRA_ARG_REQUIRED, "N", "with -w: stop after N events", NULL},
    DRA_OPT_OUTPUT_ENTRY("jsonl yaml json"), KUBE_OPTS, REPLAY_OPTS, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt snapshot_opts[] = {
    {OPT_FOR_POD, "for-pod", 0, DRA_ARG_REQUIRED, "[NS/]NAME", "only what this pod depends on: its claims, their classes, candidate slices and nodes", NULL},
    {OPT_KINDS, "kinds", 0, DRA_ARG_REQUIRED, "KIND,...", "list only these kinds (the others are not asked for)", "namespaces nodes deviceclasses devicetaintrules resourceslices resourceclaimtemplates resourceclaims pods"},
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"), KUBE_OPTS, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt record_opts[] = {
    {OPT_MAX_EVENTS, "max-events", 0, DRA_ARG_REQUIRED, "N", "stop after N events (the initial list included)", NULL},
    KUBE_OPTS, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt run_opts[] = {
    {OPT_JOB, "job", 0, DRA_ARG_REQUIRED, "NAME", "a built-in job instead of a pipeline: claims, evict, node (with --node)", "claims evict node"},
    DRA_OPT_NODE_ENTRY("--job node: the node whose pods' claims to prepare"),
    {OPT_SOCKET, "socket", 0, DRA_ARG_REQUIRED, "PATH", "--job node: reach every driver at this DRA socket (dra.sock)", "file"},
    {OPT_REGISTRY_DIR, "registry-dir", 0, DRA_ARG_REQUIRED, "DIR", "--job node: find drivers through their registration sockets here", "dir"},
    {OPT_PLUGINS_DIR, "plugins-dir", 0, DRA_ARG_REQUIRED, "DIR", "--job node: else find a driver at DIR/DRIVER/dra.sock", "dir"},
    {OPT_CHECKPOINT, "checkpoint", 0, DRA_ARG_REQUIRED, "FILE", "--job node: dra-prepare's record of prepared claims", "file"},
    {OPT_ONCE, "once", 0, DRA_ARG_NONE, NULL, "one pass, then exit with the pipeline's verdict (cron mode)", NULL},
    {OPT_DRY_RUN, "dry-run", 0, DRA_ARG_NONE, NULL, "print the intended writes as a patch list; write nothing", NULL},
    {OPT_APPLY, "apply", 0, DRA_ARG_NONE, NULL, "--job evict: act (the default is --dry-run)", NULL},
    {OPT_INTERVAL, "interval", 0, DRA_ARG_REQUIRED, "DURATION", "also run a pass this often without changes (e.g. 30s, 5m)", NULL},
    {OPT_DEBOUNCE, "debounce", 0, DRA_ARG_REQUIRED, "DURATION", "quiet time after a change before a pass (default 300ms)", NULL},
    {OPT_MAX_PASSES, "max-passes", 0, DRA_ARG_REQUIRED, "N", "stop after N passes", NULL},
    {OPT_HEALTH_ADDR, "health-addr", 0, DRA_ARG_REQUIRED, "HOST:PORT", "serve /healthz, /readyz (after the first good pass) and /metrics here", NULL},
    DRA_OPT_NOW_ENTRY, DRA_OPT_FEATURE_GATES_ENTRY,
    KUBE_OPTS_NS("only this namespace's claims, pods and templates (default: every namespace, as a controller)"), REPLAY_OPTS, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};

static const dra_cmd cmds[] = {
    {"get", "get KIND[,KIND...] [NAME...] [-w] [-n NS | -A] [-l SELECTOR] [OPTIONS]", "list (and with -w watch) objects; one JSON object per line by default",
     "With NAMEs (or KIND/NAME arguments) the named objects, as kubectl get; one that does not\n"
     "exist is kubectl's \"Error from server (NotFound): ...\" and exit status 1.\n"
     "KIND: resourceslices, resourceclaims, resourceclaimtemplates, deviceclasses, devicetaintrules,\n"
     "pods, nodes, namespaces, events (plural, singular, kind, short name, or comma-separated).\n"
     "Objects of resource.k8s.io v1beta1/v1beta2 servers are printed converted to v1.",
     get_opts, "resourceslices resourceclaims resourceclaimtemplates deviceclasses devicetaintrules pods nodes namespaces events"},
    {"snapshot", "snapshot [--for-pod [NS/]NAME] [--kinds KIND,...] [OPTIONS]", "one consistent dump of everything DRA-related, for the other tools offline",
     "Classes, slices, claims, templates, taint rules, the pods that use claims, their nodes\n"
     "and namespaces: namespaced kinds of -n NS, else of the context's namespace (-A: all).\n"
     "--for-pod keeps what one pod depends on, with the allocated claims of every namespace\n"
     "(they hold devices).  A kind the user may not list is a warning and left out.",
     snapshot_opts, NULL},
    {"record", "record FILE [OPTIONS]", "record the DRA kinds' watch events with timestamps (replay with --replay FILE)",
     "Each line: {\"time\",\"type\",\"object\"}; the initial list first, as ADDED events.", record_opts, "file"},
    {"run", "run [--once] [--dry-run] (--job claims|evict | --job node --node NAME (--socket PATH | --registry-dir DIR) | -- PIPELINE...)", "the reconcile loop: snapshot -> pipeline -> writes with preconditions",
     "On start and after each change (debounced) the snapshot goes to the pipeline's stdin; the\n"
     "API operations it prints (dra-claim --patch format: verb, kind, name, body with \"test\"\n"
     "preconditions) are applied in order.  A conflict re-reads and reruns; nothing is written\n"
     "blind.  Jobs: claims = dra-claim release + generate; evict = dra-evict (dry run unless\n"
     "--apply); node = dra-prepare sync --node NAME for the node's pods and their claims, its\n"
     "records printed, every 60s as well unless --interval says otherwise (the kubelet's period).\n"
     "Signals: SIGINT/SIGTERM stop cleanly, SIGHUP reloads the kubeconfig.",
     run_opts, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

#define V(T, id, f) DRA_VAL_##T(id, dra_watch_values, f)
const dra_optval dra_watch_vals[] = {
    V(STRING, OPT_KUBECONFIG, kubeconfig), V(STRING, OPT_CONTEXT, context), V(STRING, OPT_NAMESPACE, ns),
    V(STRING, OPT_AS, as), V(STRING, OPT_AS_UID, as_uid), V(STRING, OPT_REQUEST_TIMEOUT, request_timeout), V(STRINGS, OPT_AS_GROUP, as_groups),
    V(STRINGS, OPT_AS_USER_EXTRA, as_extra), V(BOOL, OPT_ALL_NS, all_ns), V(BOOL, OPT_STATS, stats),
    V(STRING, OPT_REPLAY, replay), V(BOOL, OPT_REPLAY_FAST, replay_fast), V(STRING, DRA_OPT_OUTPUT, output),
    V(BOOL, OPT_WATCH, watch), V(STRING, OPT_SELECTOR, selector), V(STRING, OPT_FIELD_SELECTOR, field_selector),
    DRA_VAL_INT(OPT_MAX_EVENTS, dra_watch_values, max_events, 0, LLONG_MAX), V(STRING, OPT_FOR_POD, for_pod), V(STRING, OPT_KINDS, kinds),
    V(STRING, OPT_JOB, job), V(STRING, DRA_OPT_NODE, node), V(STRING, OPT_SOCKET, socket),
    V(STRING, OPT_REGISTRY_DIR, registry_dir), V(STRING, OPT_PLUGINS_DIR, plugins_dir),
    V(STRING, OPT_CHECKPOINT, checkpoint), V(BOOL, OPT_ONCE, once), V(BOOL, OPT_DRY_RUN, dry_run),
    V(BOOL, OPT_APPLY, apply), V(STRING, OPT_INTERVAL, interval), V(STRING, OPT_DEBOUNCE, debounce),
    DRA_VAL_INT(OPT_MAX_PASSES, dra_watch_values, max_passes, 0, LLONG_MAX), V(STRING, DRA_OPT_NOW, now),
    V(STRING, DRA_OPT_KUBERNETES_VERSION, kubernetes_version), V(STRING, DRA_OPT_FEATURE_GATES, feature_gates),
    V(STRING, OPT_HEALTH_ADDR, health_addr),
    DRA_VAL_INT(OPT_TEST_BACKOFF_BASE, dra_watch_values, test_backoff_base_ms, 1, 60000),
    DRA_VAL_INT(OPT_TEST_BACKOFF_CAP, dra_watch_values, test_backoff_cap_ms, 1, 600000),
    DRA_VAL_INT(OPT_TEST_WATCH_TIMEOUT, dra_watch_values, test_watch_timeout_s, 1, 3600),
    DRA_VAL_INT(OPT_TEST_WATCH_IDLE, dra_watch_values, test_watch_idle_s, 1, 3600),
    DRA_VAL_COUNT(OPT_VERBOSE, dra_watch_values, verbose),
    DRA_VAL_END,
};
#undef V

const dra_tool dra_watch_tool = {"dra-watch", "list and watch a Kubernetes API server, snapshot it, and run the reconcile loop", cmds, NULL};
/* clang-format on */

char *dra_self_dir(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return dra_xstrdup("");
    buf[n] = 0;
    char *s = strrchr(buf, '/');
    if (s)
        *s = 0;
    return dra_xstrdup(buf);
}
