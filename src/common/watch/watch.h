/* The loop: what dra-watch does with a live API server (or a recording).
 * The only room that joins the engines' tools and the kube/ client.
 *
 *   session   kubeconfig -> client -> api, from kubectl's flags
 *   get       list (and watch) objects as JSON lines / yaml / json
 *   snapshot  one consistent dump of everything DRA-related
 *   record    watch events with timestamps to a file; replay them
 *   run       the reconcile loop: snapshot -> pipeline -> preconditioned writes
 *
 * Output goes to the FILE the caller passes; diagnostics to the session's
 * log callback; nothing here exits.  Ownership: a session owns its client and
 * api (dra_session_close); options are borrowed.
 */
#ifndef DRA_WATCH_WATCH_H
#define DRA_WATCH_WATCH_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"
#include "io/stream.h"
#include "kube/api.h"

typedef struct dra_session_opts {
    const char *kubeconfig, *context, *ns; /* kubectl's --kubeconfig, --context, --namespace */
    const char *as, *as_uid;               /* kubectl's --as, --as-uid */
    const char *const *as_groups;          /* --as-group values */
    size_t nas_groups;
    const char *const *as_extra; /* --as-user-extra KEY=VALUE values */
    size_t nas_extra;
    bool all_namespaces; /* -A */
    dra_kube_log_fn log;
    void *log_ud;
    volatile sig_atomic_t *stop;   /* SIGINT/SIGTERM */
    volatile sig_atomic_t *reload; /* SIGHUP: reload the kubeconfig */
    const char *replay;            /* --replay FILE: events from a recording instead of a server */
    bool replay_fast;              /* replay at maximum speed instead of the recorded pace */
    const char *sa_dir;            /* in-cluster service-account folder; NULL = the kubelet's mount */
    /* Waits the tests shorten (dra-watch's hidden --test-* options); 0 keeps the default. */
    int watch_timeout_s;                 /* a watch request's timeoutSeconds; 0 = 300 */
    int watch_idle_s;                    /* a watch silent this long is reopened; 0 = 60 */
    int backoff_base_ms, backoff_cap_ms; /* the client's retry backoff; 0 = client-go's */
    long request_timeout_ms;             /* --request-timeout: 0 = 300 s, < 0 = none (kube/client.h) */
    bool one_shot;                       /* get, snapshot, record: fail fast as kubectl (kube/client.h fail_fast) */
} dra_session_opts;

typedef struct dra_session {
    dra_session_opts o;
    dra_kube_client *client;
    dra_kube_api *api;
    const char *ns; /* effective namespace for namespaced kinds; NULL with -A (borrowed from the config) */
} dra_session;

DRA_MUST_USE dra_err *dra_session_open(const dra_session_opts *o, dra_session *s);
/* SIGHUP: load the kubeconfig again and swap it in (the old one stays on error). */
DRA_MUST_USE dra_err *dra_session_reload(dra_session *s);
void dra_session_close(dra_session *s);

typedef struct dra_get_opts {
    bool watch;                 /* -w: events after the list, one {"type","object"} each */
    const char *label_selector; /* -l */
    const char *field_selector; /* --field-selector */
    dra_format fmt;             /* default jsonl */
    long max_events;            /* -w: stop after this many events (0 = until stopped) */
} dra_get_opts;

/* `dra-watch get KIND[,KIND...] [NAME...]` or `get KIND/NAME...`, as
 * kubectl get: without names every object of the kinds; with names each
 * object (-o json: one object alone, several as a List), and when one is
 * missing kubectl's "Error from server (NotFound): ..." with
 * DRA_EXIT_NEGATIVE after the others are printed. */
DRA_MUST_USE dra_err *dra_watch_get(dra_session *s, char *const *kinds, size_t nkinds, const dra_get_opts *o,
                                    FILE *out);

/* The DRA snapshot: first the server's version (model/features.h
 * DRA_SNAPSHOT_KIND), then classes, slices, claims, templates, taint rules, the
 * pods that use claims (with their nodes and namespaces).  Namespaced kinds
 * come from the session's namespace (-n, else the context's; every one with
 * -A).  for_pod "NAME" (in that namespace) or "NS/NAME" trims it to that
 * pod's claims, their classes, candidate slices and nodes; the claims of
 * every namespace are read for it, since they hold devices too.  only: NULL,
 * or the comma-separated kinds to list (the others are not asked for).  A
 * kind the user may not list is a warning on the log and an empty list.
 * *objs is a new array in a stable order. */
DRA_MUST_USE dra_err *dra_watch_snapshot(dra_session *s, const char *for_pod, const char *only, json_t **objs);

/* One stage of `dra-watch run`'s pipeline: a program run on each pass with
 * the snapshot on its stdin. */
typedef struct dra_run_stage {
    char *const *argv;  /* NULL-terminated, found on PATH as execvp does; borrowed */
    const char *name;   /* names the stage in the log and in errors */
    const char *source; /* names its output in errors about what it printed, as a file would be */
} dra_run_stage;

typedef struct dra_run_opts {
    const dra_run_stage *stages; /* run in order on every pass; borrowed */
    size_t nstages;              /* 1 to 4 */
    /* the resources watched (dra_watch_specs' names: "resourceclaims");
     * NULL: the DRA kinds the server serves */
    const char *const *kinds;
    size_t nkinds;
    /* a node agent: the snapshot is this node's pods (watched by
     * spec.nodeName) and the claims they use, and what the stages print is
     * records copied to out, not operations (NULL: neither) */
    const char *node;
    bool once, dry_run;
    long interval_ms;  /* periodic pass even without changes (0 = none) */
    long debounce_ms;  /* quiet time after a change before a pass */
    int max_conflicts; /* reruns after conflicts in one pass */
    /* release_flag (NULL: none) is appended to every stage followed by a
     * release: kubernetes_version, else the server's when it names a
     * release the tools know (said in the log) */
    const char *release_flag;
    const char *kubernetes_version;
    FILE *out;                       /* --dry-run patch list, pass reports */
    long max_passes;                 /* stop after this many passes (0 = no limit) */
    struct dra_watch_health *health; /* told each pass and the counters (health.h); NULL = none */
} dra_run_opts;

/* `dra-watch run`.  *verdict is the last pipeline's exit code (--once). */
DRA_MUST_USE dra_err *dra_watch_run(dra_session *s, const dra_run_opts *o, int *verdict);

/* `dra-watch record FILE`: events of the DRA kinds, one JSON line each
 * {"time": RFC 3339 with ns, "type", "object"}, after the initial list. */
DRA_MUST_USE dra_err *dra_watch_record(dra_session *s, const char *path, long max_events);

/* A Go duration ("500ms", "30s", "1m30s", "2h"; dra_duration_parse) -> whole
 * milliseconds; NULL s leaves *ms.  Errors are about the parameter name. */
DRA_MUST_USE dra_err *dra_watch_duration_parse(const char *s, const char *name, long *ms);

/* Statistics line for --stats ("events=... relists=... ..."); caller frees. */
char *dra_watch_stats(dra_session *s);

#endif
