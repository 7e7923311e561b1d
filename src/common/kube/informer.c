/* Informers: list, then watch from the list's resourceVersion, relist on
 * 410 "Expired"/"Gone", resume from the last seen version, backoff with
 * jitter; see api.h.  Behaviour after k8s.io/client-go/tools/cache
 * (reflector.go). */
#include "api.h"
#include "../base/clock.h"
#include "../io/jparse.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "text.h"

/* Why a watch stream was ended from inside (the event reader's callback). */
typedef enum { END_NONE, END_EXPIRED, END_TOO_LARGE, END_UNDECODABLE } end_why;

typedef struct inf {
    struct dra_kube_informers *set;
    size_t idx;
    dra_kube_informer_spec spec;
    const char *version;
    char *base;    /* collection path */
    json_t *store; /* key -> entry (see entry_new) */
    char *rv;      /* last resourceVersion seen */
    bool open, need_relist, synced;
    int failures;
    int64_t next_at; /* monotonic ms: earliest next watch */
    dra_kube_event_reader reader;
    end_why ended;   /* the stream was ended for a relist ... */
    char *ended_msg; /* ... with this message (escaped) */
} inf;

struct dra_kube_informers {
    dra_kube_api *a;
    inf *v;
    size_t n;
    int timeout_s, idle_s;
    dra_kube_informer_fn fn;
    void *ud;
    dra_kube_streams *streams;
    dra_err *fatal;
    unsigned since_trim; /* store changes since the heap was last trimmed */
};

/* Every this many store changes the freed event trees go back to the system:
 * a burst of events otherwise leaves the heap as large as its peak, with the
 * store's entries scattered across it. */
#define TRIM_EVERY 2048

/* The error that ends a stream for a relist (inf.ended says why). */
#define END_MSG "relist"

static char *obj_key(const json_t *o)
{
    const char *ns = dra_kube_meta_str(o, "namespace"), *name = dra_kube_meta_str(o, "name");
    return dra_xasprintf("%s/%s", ns ? ns : "", name ? name : "");
}

/* A stored object, kept compact: one string "resourceVersion\0compact JSON"
 * (a tenth of the memory of the decoded tree, and two allocations where a
 * pair of strings took six; decoded again when asked for). */
static json_t *entry_new(const inf *f, const json_t *obj)
{
    char *s;
    if (f->spec.meta_only) {
        json_t *m = json_object();
        static const char *const keep[] = {"apiVersion", "kind", "metadata"};
        for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
            if (json_object_get(obj, keep[i]))
                json_object_set(m, keep[i], json_object_get(obj, keep[i]));
        s = json_dumps(m, JSON_COMPACT | JSON_REAL_PRECISION(17));
        json_decref(m);
    } else {
        s = json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(17));
    }
    const char *rv = dra_kube_meta_str(obj, "resourceVersion");
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, rv ? rv : "");
    dra_buf_putc(&b, '\0');
    dra_buf_puts(&b, s ? s : "{}");
    free(s);
    json_t *e = json_stringn_nocheck(b.data, b.len);
    dra_buf_free(&b);
    return e;
}

static const char *entry_rv(const json_t *e)
{
    return json_string_value(e);
}

/* The compact JSON of an entry and its length. */
static const char *entry_text(const json_t *e, size_t *len)
{
    size_t skip = strlen(json_string_value(e)) + 1;
    *len = json_string_length(e) - skip;
    return json_string_value(e) + skip;
}

static json_t *entry_obj(const json_t *e)
{
    size_t len;
    const char *t = entry_text(e, &len);
    return dra_json_loadb(t, len, 0, NULL);
}

/* An event for an object whose resourceVersion the store has already? */
static bool entry_same(const json_t *old, const json_t *obj)
{
    const char *orv = old ? entry_rv(old) : NULL, *nrv = dra_kube_meta_str(obj, "resourceVersion");
    return orv && *orv && nrv && strcmp(orv, nrv) == 0;
}

static void set_rv(inf *f, const char *rv)
{
    if (rv && *rv) {
        free(f->rv);
        f->rv = dra_xstrdup(rv);
    }
}

/* End the stream: the informer relists (done()). */
static dra_err *end_stream(inf *f, end_why why, char *msg /* taken */)
{
    f->ended = why;
    free(f->ended_msg);
    f->ended_msg = msg;
    return dra_err_new(0, END_MSG);
}

static dra_err *on_event(void *ud, dra_kube_event_type t, json_t *obj)
{
    inf *f = ud;
    dra_kube_informers *in = f->set;
    dra_kube_client *c = dra_kube_api_client(in->a);
    dra_kube_stats *st = dra_kube_client_stats(c);
    if (t == KUBE_ERROR) {
        const char *reason = json_string_value(json_object_get(obj, "reason"));
        const char *msg = json_string_value(json_object_get(obj, "message"));
        dra_arena a = DRA_ARENA_INIT;
        dra_kube_rv_problem p = dra_kube_rv_problem_of(obj, 0);
        dra_err *e =
            p != KUBE_RV_OTHER
                ? end_stream(f, p == KUBE_RV_EXPIRED ? END_EXPIRED : END_TOO_LARGE, dra_xstrdup(dra_kube_v(&a, msg)))
                : dra_err_new(DRA_EXIT_RUNTIME, "watch of %s: Error from server (%s): %s", f->spec.res->resource,
                              reason ? dra_kube_v(&a, reason) : "Unknown", dra_kube_v(&a, msg));
        dra_arena_free(&a);
        return e;
    }
    char *why;
    dra_kube_obj_match m = dra_kube_api_match(f->spec.res, f->version, obj, &why);
    if (m == KUBE_OBJ_UNKNOWN)
        return end_stream(f, END_UNDECODABLE, why);
    if (m == KUBE_OBJ_OTHER) {
        dra_kube_client_log(c, KUBE_LOG_WARN, "watch of %s: dropped an event of another kind (%s)",
                            f->spec.res->resource, why);
        free(why);
        return NULL;
    }
    st->events++;
    if (t == KUBE_BOOKMARK) {
        set_rv(f, dra_kube_meta_str(obj, "resourceVersion"));
        return NULL;
    }
    dra_err *e = dra_kube_api_normalize(f->spec.res, f->version, obj);
    if (e)
        return e;
    const char *rv = dra_kube_meta_str(obj, "resourceVersion");
    char *key = obj_key(obj);
    json_t *old = json_object_get(f->store, key);
    if (t == KUBE_DELETED) {
        if (old) {
            json_incref(obj);
            json_object_del(f->store, key);
            in->fn(in->ud, f->idx, KUBE_DELETED, obj);
            json_decref(obj);
        }
    } else if (!entry_same(old, obj)) {
        bool had = old != NULL;
        json_object_set_new(f->store, key, entry_new(f, obj));
        in->fn(in->ud, f->idx, had ? KUBE_MODIFIED : KUBE_ADDED, obj);
    }
    free(key);
    set_rv(f, rv);
    if (++in->since_trim >= TRIM_EVERY) {
        in->since_trim = 0;
        dra_kube_trim_heap();
    }
    return NULL;
}

/* The resourceVersion a watch resumes at, as messages show it (a server's
 * string). */
static const char *rv_shown(dra_arena *a, const inf *f)
{
    return dra_kube_v(a, f->rv ? f->rv : "");
}

static dra_err *sink(void *ud, const char *data, size_t len)
{
    inf *f = ud;
    return dra_kube_events_feed(&f->reader, data, len);
}

static void done(void *ud, dra_err *err, const dra_kube_resp *resp, bool dropped)
{
    inf *f = ud;
    dra_kube_informers *in = f->set;
    dra_kube_client *c = dra_kube_api_client(in->a);
    dra_kube_stats *st = dra_kube_client_stats(c);
    f->open = false;
    bool trunc = dra_kube_events_truncated(&f->reader);
    dra_kube_events_reset(&f->reader);
    end_why ended = f->ended;
    f->ended = END_NONE;
    if (dra_kube_client_stopped(c)) {
        dra_err_free(err);
        return;
    }
    if (!err) {
        /* timeoutSeconds ended it, or the server closed it: resume */
        st->resumes++;
        f->failures = 0;
        f->next_at = 0;
        if (trunc) {
            dra_arena a = DRA_ARENA_INIT;
            dra_kube_client_log(c, KUBE_LOG_INFO, "watch of %s ended mid-event; resuming at %s", f->spec.res->resource,
                                rv_shown(&a, f));
            dra_arena_free(&a);
        }
        return;
    }
    dra_kube_rv_problem p = ended == END_EXPIRED     ? KUBE_RV_EXPIRED
                            : ended == END_TOO_LARGE ? KUBE_RV_TOO_LARGE
                            : ended == END_NONE && resp->http && (resp->http < 200 || resp->http >= 300)
                                ? dra_kube_rv_problem_of(resp->json, resp->http)
                                : KUBE_RV_OTHER;
    if (p == KUBE_RV_EXPIRED || p == KUBE_RV_TOO_LARGE || ended == END_UNDECODABLE) {
        /* as the reflector: list again, from the current state (a
         * consistent read, resourceVersion ""), and watch from its version */
        dra_arena a = DRA_ARENA_INIT;
        const char *rv = rv_shown(&a, f);
        if (p == KUBE_RV_EXPIRED) {
            dra_kube_client_log(c, KUBE_LOG_INFO, "watch of %s: resourceVersion %s is too old; relisting",
                                f->spec.res->resource, rv);
            f->next_at = 0;
        } else if (p == KUBE_RV_TOO_LARGE) {
            const char *m = ended ? f->ended_msg : json_string_value(json_object_get(resp->json, "message"));
            dra_kube_client_log(
                c, KUBE_LOG_WARN,
                "watch of %s: %s: the server no longer has resourceVersion %s (restored from a backup?); "
                "relisting",
                f->spec.res->resource, m ? dra_kube_v(&a, m) : "Too large resource version", rv);
            f->next_at = 0;
        } else {
            int64_t d = dra_kube_backoff_ms(c, f->failures++);
            dra_kube_client_log(c, KUBE_LOG_WARN, "watch of %s: %s; relisting in %lld ms", f->spec.res->resource,
                                f->ended_msg, (long long)d);
            f->next_at = dra_mono_ms() + d;
        }
        dra_arena_free(&a);
        f->need_relist = true;
        dra_err_free(err);
        return;
    }
    if (resp->http == 403 || resp->http == 404) {
        if (!in->fatal)
            in->fatal = err;
        else
            dra_err_free(err);
        return;
    }
    if (dropped) {
        st->resumes++;
        f->failures = 0;
        f->next_at = dra_mono_ms() + dra_kube_backoff_ms(c, 0);
        dra_arena a = DRA_ARENA_INIT;
        dra_kube_client_log(c, KUBE_LOG_INFO, "watch of %s dropped; resuming at %s", f->spec.res->resource,
                            rv_shown(&a, f));
        dra_arena_free(&a);
        dra_err_free(err);
        return;
    }
    char *m = dra_err_format(err);
    int64_t d = dra_kube_backoff_ms(c, f->failures);
    f->failures++;
    st->retries++;
    f->next_at = dra_mono_ms() + d;
    dra_kube_client_log(c, KUBE_LOG_WARN, "watch of %s: %s; retrying in %lld ms", f->spec.res->resource, m,
                        (long long)d);
    free(m);
    dra_err_free(err);
}

dra_kube_informers *dra_kube_informers_new(dra_kube_api *a, const dra_kube_informer_spec *specs, size_t n,
                                           int timeout_s, int idle_s, dra_kube_informer_fn fn, void *ud)
{
    dra_kube_informers *in = dra_xcalloc(1, sizeof *in);
    in->a = a;
    in->n = n;
    in->v = dra_xcalloc(n ? n : 1, sizeof *in->v);
    in->timeout_s = timeout_s > 0 ? timeout_s : 300;
    in->idle_s = idle_s > 0 ? idle_s : 60;
    in->fn = fn;
    in->ud = ud;
    in->streams = dra_kube_streams_new(dra_kube_api_client(a));
    for (size_t i = 0; i < n; i++) {
        inf *f = &in->v[i];
        f->set = in;
        f->idx = i;
        f->spec = specs[i];
        f->store = json_object();
        f->need_relist = true;
        dra_kube_events_init(&f->reader, on_event, f);
    }
    return in;
}

void dra_kube_informers_free(dra_kube_informers *in)
{
    if (!in)
        return;
    dra_kube_streams_free(in->streams);
    for (size_t i = 0; i < in->n; i++) {
        json_decref(in->v[i].store);
        free(in->v[i].rv);
        free(in->v[i].base);
        free(in->v[i].ended_msg);
        dra_kube_events_free(&in->v[i].reader);
    }
    free(in->v);
    dra_err_free(in->fatal);
    free(in);
}

size_t dra_kube_informers_count(const dra_kube_informers *in, size_t i)
{
    return json_object_size(in->v[i].store);
}

void dra_kube_informers_each(const dra_kube_informers *in, size_t i, dra_kube_store_fn fn, void *ud)
{
    const char *k;
    json_t *e;
    json_object_foreach(in->v[i].store, k, e) {
        size_t len;
        const char *t = entry_text(e, &len);
        fn(ud, k, t, len);
    }
}

json_t *dra_kube_informers_get(const dra_kube_informers *in, size_t i, const char *key)
{
    const json_t *e = json_object_get(in->v[i].store, key);
    return e ? entry_obj(e) : NULL;
}

void dra_kube_informers_relist(dra_kube_informers *in)
{
    for (size_t i = 0; i < in->n; i++)
        in->v[i].need_relist = true;
}

typedef struct relist_state {
    inf *f;
    json_t *seen; /* keys of this list */
} relist_state;

static dra_err *relist_item(void *ud, json_t *it)
{
    relist_state *st = ud;
    inf *f = st->f;
    dra_kube_informers *in = f->set;
    if (!it) { /* the list starts over */
        json_object_clear(st->seen);
        return NULL;
    }
    char *key = obj_key(it);
    json_t *old = json_object_get(f->store, key);
    json_object_set_new(st->seen, key, json_true());
    if (!entry_same(old, it)) {
        bool had = old != NULL;
        json_object_set_new(f->store, key, entry_new(f, it));
        in->fn(in->ud, f->idx, had ? KUBE_MODIFIED : KUBE_ADDED, it);
    }
    free(key);
    return NULL;
}

static dra_err *relist(inf *f)
{
    dra_kube_informers *in = f->set;
    if (!f->version) {
        dra_err *e = dra_kube_api_version(in->a, f->spec.res, &f->version);
        if (e)
            return e;
        f->base = dra_kube_api_path(in->a, f->spec.res, f->version, f->spec.ns, NULL, NULL);
    }
    dra_kube_list_opts lo = {f->spec.ns, f->spec.label_selector, f->spec.field_selector, 0};
    /* Page by page into the store: each item replaces its key at once (an
     * event when it is new or changed); after the whole list, keys it did not
     * have are deleted.  A list that fails half-way leaves the store as
     * current as the events said, and the retry reports only what changed. */
    json_t *seen = json_object();
    relist_state st = {f, seen};
    char *rv;
    dra_err *e = dra_kube_list_each(in->a, f->spec.res, &lo, relist_item, &st, &rv);
    if (e) {
        json_decref(seen);
        return e;
    }
    if (f->synced)
        dra_kube_client_stats(dra_kube_api_client(in->a))->relists++;
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(f->store, tmp, k, v) {
        if (!json_object_get(seen, k)) {
            json_t *o = entry_obj(v);
            json_object_del(f->store, k);
            if (o)
                in->fn(in->ud, f->idx, KUBE_DELETED, o);
            json_decref(o);
        }
    }
    json_decref(seen);
    free(f->rv);
    f->rv = rv;
    f->need_relist = false;
    f->synced = true;
    return NULL;
}

dra_err *dra_kube_informers_sync(dra_kube_informers *in)
{
    for (size_t i = 0; i < in->n; i++) {
        dra_err *e = relist(&in->v[i]);
        if (e)
            return e;
    }
    return NULL;
}

static void open_watch(inf *f)
{
    dra_kube_informers *in = f->set;
    dra_buf p = DRA_BUF_INIT;
    dra_buf_puts(&p, f->base);
    dra_buf_puts(&p, "?watch=1&allowWatchBookmarks=true&resourceVersion=");
    dra_kube_query_escape(&p, f->rv ? f->rv : "");
    dra_buf_printf(&p, "&timeoutSeconds=%d", in->timeout_s);
    if (f->spec.label_selector && *f->spec.label_selector) {
        dra_buf_puts(&p, "&labelSelector=");
        dra_kube_query_escape(&p, f->spec.label_selector);
    }
    if (f->spec.field_selector && *f->spec.field_selector) {
        dra_buf_puts(&p, "&fieldSelector=");
        dra_kube_query_escape(&p, f->spec.field_selector);
    }
    f->open = true;
    dra_kube_streams_open(in->streams, dra_buf_str(&p), in->idle_s, sink, done, f);
    dra_buf_free(&p);
}

dra_err *dra_kube_informers_run(dra_kube_informers *in, int64_t max_ms, dra_kube_tick_fn tick, void *ud)
{
    dra_kube_client *c = dra_kube_api_client(in->a);
    int64_t end = max_ms >= 0 ? dra_mono_ms() + max_ms : -1;
    for (;;) {
        if (dra_kube_client_stopped(c))
            return NULL;
        if (in->fatal) {
            dra_err *e = in->fatal;
            in->fatal = NULL;
            return e;
        }
        int64_t now = dra_mono_ms();
        int64_t wait = 100;
        for (size_t i = 0; i < in->n; i++) {
            inf *f = &in->v[i];
            if (f->open)
                continue;
            if (f->next_at > now) {
                if (f->next_at - now < wait)
                    wait = f->next_at - now;
                continue;
            }
            if (f->need_relist) {
                dra_err *e = relist(f);
                if (e) {
                    if (dra_kube_client_stopped(c)) {
                        dra_err_free(e);
                        return NULL;
                    }
                    if (dra_kube_err_forbidden(e)) /* a missing permission: retrying cannot help */
                        return e;
                    char *m = dra_err_format(e);
                    int64_t d = dra_kube_backoff_ms(c, f->failures++);
                    dra_kube_client_log(c, KUBE_LOG_WARN, "list of %s: %s; retrying in %lld ms", f->spec.res->resource,
                                        m, (long long)d);
                    free(m);
                    dra_err_free(e);
                    f->next_at = now + d;
                    continue;
                }
            }
            open_watch(f);
        }
        dra_kube_streams_poll(in->streams, (int)(wait < 1 ? 1 : wait));
        if (tick) {
            dra_err *e = tick(ud);
            if (e) {
                if (e->code == 0) {
                    dra_err_free(e);
                    return NULL;
                }
                return e;
            }
        }
        if (end >= 0 && dra_mono_ms() >= end)
            return NULL;
    }
}
