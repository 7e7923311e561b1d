/* Recording watch events and replaying them in place of a server.
 *
 * A recording is JSON Lines: {"time":"2026-03-01T10:00:00.123456789Z",
 * "type":"ADDED|MODIFIED|DELETED","object":{...}}, the initial list first
 * (as ADDED), then the watch's events as they arrived. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/wfile.h"
#include "io/jparse.h"
#include "model/time.h"

/* clang-format off */
static const char *const dra_kinds[] = {"deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates",
                                        "devicetaintrules", "pods", "nodes", "namespaces"};
/* clang-format on */

typedef struct rec_state {
    FILE *f;          /* standard output, or NULL */
    const char *path; /* the recording file, or NULL */
    dra_wfile w;      /* open on it once the first event came (w.fd >= 0) */
    long n, max;
    dra_err *err;
} rec_state;

static void on_rec(void *ud, size_t idx, dra_kube_event_type t, json_t *obj)
{
    rec_state *r = ud;
    if (r->err || (r->max > 0 && r->n >= r->max))
        return;
    char *ts = dra_time_format_ns(dra_time_now());
    json_t *ev = json_pack("{s:s, s:s, s:O}", "time", ts, "type", dra_kube_event_type_name(t), "object", obj);
    free(ts);
    char *line = json_dumps(ev, JSON_COMPACT);
    json_decref(ev);
    if (r->path) {
        size_t len = strlen(line);
        line[len] = '\n'; /* the NUL becomes the line's end: written by length */
        if (r->w.fd < 0)
            r->err = dra_wfile_begin(&r->w, r->path, 0666, DRA_WFILE_STREAM);
        if (!r->err)
            r->err = dra_wfile_write(&r->w, line, len + 1);
    } else if (fputs(line, r->f) == EOF || fputc('\n', r->f) == EOF || fflush(r->f) != 0) {
        r->err = dra_err_new(DRA_EXIT_RUNTIME, "write error: %s", strerror(errno));
    }
    free(line);
    r->n++;
}

static dra_err *rec_tick(void *ud)
{
    rec_state *r = ud;
    if (r->err) {
        dra_err *e = r->err;
        r->err = NULL;
        return e;
    }
    return r->max > 0 && r->n >= r->max ? dra_err_new(0, "done") : NULL;
}

/* The DRA kinds; DeviceTaintRule is left out when the server does not serve it. */
dra_err *dra_watch_dra_specs(dra_session *s, dra_kube_informer_spec *specs, size_t *n)
{
    return dra_watch_specs(s, dra_kinds, sizeof dra_kinds / sizeof dra_kinds[0], specs, n);
}

dra_err *dra_watch_specs(dra_session *s, const char *const *kinds, size_t nkinds, dra_kube_informer_spec *specs,
                         size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < nkinds && *n < 16; i++) {
        const dra_kube_resource *r = dra_kube_resource_find(kinds[i]);
        const char *v;
        dra_err *e = dra_kube_api_version(s->api, r, &v);
        if (e && strcmp(r->resource, "devicetaintrules") == 0 && strstr(e->msg, "doesn't have a resource type")) {
            dra_err_free(e);
            continue;
        }
        if (e)
            return e;
        /* a recording, as kubectl get -w: -n, else the context's namespace,
         * -A every one; the loop (run) is a controller: every namespace
         * unless -n says otherwise (in a cluster the context's namespace is
         * the service account's own, not where the claims are) */
        const char *ns = s->o.one_shot ? s->ns : s->o.ns && *s->o.ns && !s->o.all_namespaces ? s->o.ns : NULL;
        specs[(*n)++] = (dra_kube_informer_spec){r, r->namespaced ? ns : NULL, NULL, NULL, false};
    }
    return NULL;
}

dra_err *dra_watch_record(dra_session *s, const char *path, long max_events)
{
    if (s->o.replay)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "record needs a server, not a recording"), "replay");
    /* the file is made when the first event comes (a server that cannot
     * be listed leaves it as it was) and written as events come: it can be
     * followed with tail -f and keeps what was recorded when the run fails;
     * a symbolic link at its name is replaced, never written through */
    if (strcmp(path, "-") != 0) {
        struct stat st;
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return dra_err_new(DRA_EXIT_RUNTIME, "cannot replace %s: it is %s, not a regular file", path,
                               S_ISDIR(st.st_mode) ? "a directory" : "a special file");
    }
    dra_kube_informer_spec specs[16];
    size_t n;
    dra_err *se = dra_watch_dra_specs(s, specs, &n);
    if (se)
        return se;
    rec_state r = {.f = stdout, .w = {.fd = -1}, .max = max_events};
    if (strcmp(path, "-") != 0)
        r = (rec_state){.path = path, .w = {.fd = -1}, .max = max_events};
    dra_kube_informers *in =
        dra_kube_informers_new(s->api, specs, n, dra_watch_timeout_s(s), dra_watch_idle_s(s), on_rec, &r);
    dra_err *e = dra_kube_informers_sync(in);
    if (s->client) /* the initial list was one-shot; the watch is patient */
        dra_kube_client_set_fail_fast(s->client, false);
    if (!e && !r.err && !(max_events > 0 && r.n >= max_events))
        e = dra_kube_informers_run(in, -1, rec_tick, &r);
    if (!e && r.err) {
        e = r.err;
        r.err = NULL;
    }
    dra_err_free(r.err);
    dra_kube_informers_free(in);
    if (!e && r.path && r.w.fd < 0) /* no event at all: an empty recording */
        e = dra_wfile_begin(&r.w, r.path, 0666, DRA_WFILE_STREAM);
    if (r.w.fd >= 0) {
        dra_err *ce = dra_wfile_commit(&r.w);
        if (e)
            dra_err_free(ce);
        else
            e = ce;
    }
    return e;
}

/* ---- replay ---- */

/* Sleep until ns_from_start (the event's offset from the first one, as
 * dra_time_sub saturates it: a recording may span years 0000 to 10000)
 * after start, in slices so a stop is seen. */
static bool sleep_until(dra_session *s, int64_t ns_from_start, struct timespec start)
{
    for (;;) {
        if (s->o.stop && *s->o.stop)
            return false;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        dra_time now = {(int64_t)ts.tv_sec, (int32_t)ts.tv_nsec},
                 from = {(int64_t)start.tv_sec, (int32_t)start.tv_nsec};
        /* compared first, so the difference cannot overflow (elapsed >= 0) */
        int64_t elapsed = dra_time_sub(now, from);
        if (ns_from_start <= elapsed)
            return true;
        int64_t left = ns_from_start - elapsed;
        if (left > 50000000)
            left = 50000000;
        struct timespec d = {0, (long)left};
        nanosleep(&d, NULL);
    }
}

dra_err *dra_replay_each(dra_session *s, dra_replay_fn fn, void *ud)
{
    FILE *f = strcmp(s->o.replay, "-") == 0 ? stdin : fopen(s->o.replay, "r");
    if (!f)
        return dra_err_new(DRA_EXIT_INPUT, "cannot open %s: %s", s->o.replay, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    dra_time first = {0, 0};
    struct timespec start = {0, 0};
    bool have_first = false;
    dra_err *e = NULL;
    while (!e && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len <= 1)
            continue;
        json_error_t jerr;
        json_t *ev = dra_json_loadb(line, (size_t)len, 0, &jerr);
        dra_kube_event_type t;
        const char *ts = json_string_value(json_object_get(ev, "time"));
        json_t *obj = json_object_get(ev, "object");
        dra_time at = {0, 0};
        if (!ev || !dra_kube_event_type_parse(json_string_value(json_object_get(ev, "type")), &t) ||
            !json_is_object(obj) || !ts) {
            e = dra_err_at(dra_err_new(DRA_EXIT_INPUT, "not a recorded watch event {\"time\",\"type\",\"object\"}"),
                           s->o.replay, 0, (int)lineno, 0);
            json_decref(ev);
            break;
        }
        /* a time Go cannot read (year 10000, a bad offset): its reason */
        e = dra_time_parse(ts, &at);
        if (e) {
            e = dra_err_at(dra_err_field(e, "time"), s->o.replay, 0, (int)lineno, 0);
            json_decref(ev);
            break;
        }
        if (!have_first) {
            have_first = true;
            first = at;
            clock_gettime(CLOCK_MONOTONIC, &start);
        }
        if (!s->o.replay_fast && !sleep_until(s, dra_time_sub(at, first), start)) {
            json_decref(ev);
            break;
        }
        e = fn(ud, t, obj);
        json_decref(ev);
        if (e && e->code == 0) {
            dra_err_free(e);
            e = NULL;
            break;
        }
    }
    free(line);
    if (f != stdin)
        fclose(f);
    return e;
}
