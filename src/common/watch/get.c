/* `dra-watch get`: list and watch as kubectl get -o json / -w -o json. */
#include "internal.h"
#include "../io/json.h"
#include "../kube/text.h"

#include <stdlib.h>
#include <string.h>

dra_err *dra_watch_kinds(char *const *args, size_t n, const dra_kube_resource ***out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    for (size_t i = 0; i < n; i++) {
        char *list = dra_xstrdup(args[i]);
        char *save = NULL;
        for (char *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
            const dra_kube_resource *r = dra_kube_resource_find(k);
            if (!r) {
                dra_err *e = dra_err_new(DRA_EXIT_INPUT, "the server doesn't have a resource type \"%s\"", k);
                free(list);
                free(*out);
                *out = NULL;
                *nout = 0;
                return e;
            }
            *out = dra_xgrow(*out, *nout, sizeof **out);
            (*out)[(*nout)++] = r;
        }
        free(list);
    }
    if (*nout == 0)
        return dra_err_new(DRA_EXIT_INPUT, "you must specify the type of resource to get");
    return NULL;
}

typedef struct get_state {
    FILE *out;
    const dra_get_opts *o;
    long n;
    dra_err *err;
    volatile sig_atomic_t *stop;
} get_state;

dra_err *dra_watch_put_event(FILE *out, dra_format fmt, dra_kube_event_type t, const json_t *obj)
{
    json_t *ev = json_pack("{s:s, s:O}", "type", dra_kube_event_type_name(t), "object", obj);
    dra_err *e = dra_write_value(out, ev, fmt);
    json_decref(ev);
    if (!e && fflush(out) != 0)
        e = dra_err_new(DRA_EXIT_RUNTIME, "write error on standard output");
    return e;
}

static void on_change(void *ud, size_t idx, dra_kube_event_type t, json_t *obj)
{
    get_state *g = ud;
    if (g->err || (g->o->max_events > 0 && g->n >= g->o->max_events))
        return;
    g->err = dra_watch_put_event(g->out, g->o->fmt, t, obj);
    g->n++;
}

static dra_err *tick(void *ud)
{
    get_state *g = ud;
    if (g->err) {
        dra_err *e = g->err;
        g->err = NULL;
        return e;
    }
    if (g->o->max_events > 0 && g->n >= g->o->max_events)
        return dra_err_new(0, "done");
    return NULL;
}

typedef struct list_out {
    dra_writer *w;
    char *last;     /* "ns/name" of the last object printed */
    bool restarted; /* an expired continue token made the list start over */
} list_out;

/* Whether the object ns/name was printed before the list started over
 * (the server lists in key order, so what was printed is skipped up to the
 * last key printed); else it is the last printed from now on. */
static bool seen(list_out *l, const char *ns, const char *name)
{
    char *key = dra_xasprintf("%s/%s", ns, name);
    if (l->restarted && l->last && strcmp(key, l->last) <= 0) {
        free(key);
        return true;
    }
    free(l->last);
    l->last = key;
    return false;
}

static dra_err *put_item(void *ud, json_t *it)
{
    list_out *l = ud;
    if (!it) {
        l->restarted = true;
        return NULL;
    }
    const char *ns = dra_jstr(it, "metadata.namespace"), *name = dra_jstr(it, "metadata.name");
    return seen(l, ns ? ns : "", name ? name : "") ? NULL : dra_writer_put(l->w, it);
}

/* put_item for -o jsonl, given lines where the list could write them */
static dra_err *put_line(void *ud, const dra_kube_list_item *it)
{
    list_out *l = ud;
    if (!it) {
        l->restarted = true;
        return NULL;
    }
    if (seen(l, it->ns, it->name))
        return NULL;
    return it->line ? dra_writer_put_line(l->w, it->line, it->len) : dra_writer_put(l->w, it->obj);
}

typedef struct rget {
    const dra_kube_resource **rs;
    size_t n;
    const dra_get_opts *o;
    FILE *out;
    const char *ns;
    long count;
} rget;

static dra_err *rget_one(void *ud, dra_kube_event_type t, json_t *obj)
{
    rget *g = ud;
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    bool want = false;
    for (size_t i = 0; i < g->n; i++)
        if (kind && strcmp(kind, g->rs[i]->kind) == 0) {
            const char *ns = json_string_value(json_object_get(json_object_get(obj, "metadata"), "namespace"));
            want = !g->rs[i]->namespaced || !g->ns || (ns && strcmp(ns, g->ns) == 0);
        }
    if (!want)
        return NULL;
    dra_err *e = dra_watch_put_event(g->out, g->o->fmt, t, obj);
    if (!e && g->o->max_events > 0 && ++g->count >= g->o->max_events)
        return dra_err_new(0, "done");
    return e;
}

/* get -w from a recording. */
static dra_err *replay_get(dra_session *s, const dra_kube_resource **rs, size_t n, const dra_get_opts *o, FILE *out)
{
    rget g = {rs, n, o, out, s->o.ns && *s->o.ns && !s->o.all_namespaces ? s->o.ns : NULL, 0};
    return dra_replay_each(s, rget_one, &g);
}

/* One object by name, as kubectl get KIND NAME: a missing one is the
 * server's NotFound in kubectl's words (exit 1), the others are printed. */
static dra_err *get_named(dra_session *s, const dra_kube_resource *r, const char *name, dra_writer *w,
                          dra_err **missing)
{
    if (r->namespaced && s->o.all_namespaces)
        return dra_err_new(DRA_EXIT_INPUT, "a resource cannot be retrieved by name across all namespaces");
    json_t *obj = NULL;
    dra_kube_resp resp;
    dra_err *e = dra_kube_get(s->api, r, r->namespaced ? s->ns : NULL, name, &obj, &resp);
    if (e && resp.http == 404) {
        const char *msg = json_string_value(json_object_get(resp.json, "message"));
        dra_arena a = DRA_ARENA_INIT;
        dra_err *nf = msg && *msg
                          ? dra_err_new(DRA_EXIT_NEGATIVE, "Error from server (NotFound): %s", dra_kube_v(&a, msg))
                          : dra_err_new(DRA_EXIT_NEGATIVE, "Error from server (NotFound): %s \"%s\" not found",
                                        r->resource, dra_kube_v(&a, name));
        dra_arena_free(&a);
        dra_err_free(e);
        e = NULL;
        if (*missing) /* kubectl prints every one; the first is the answer */
            dra_err_free(nf);
        else
            *missing = nf;
    }
    if (!e && obj)
        e = dra_writer_put(w, obj);
    json_decref(obj);
    dra_kube_resp_free(&resp);
    return e;
}

/* `get KIND NAME...` and `get KIND/NAME...`. */
static dra_err *get_names(dra_session *s, char *const *args, size_t nargs, const dra_get_opts *o, FILE *out)
{
    if (s->o.replay)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "a recording works with get -w KIND, record and run"),
                             "replay");
    bool slashed = strchr(args[0], '/') != NULL;
    for (size_t i = 0; i < nargs; i++)
        if ((strchr(args[i], '/') != NULL) != slashed)
            return dra_err_new(DRA_EXIT_INPUT,
                               "there is no need to specify a resource type as a separate argument when "
                               "passing arguments in resource/name form (e.g. 'kubectl get "
                               "resource/<resource_name>' instead of 'kubectl get resource "
                               "resource/<resource_name>'");
    if (o->watch)
        return dra_err_new(DRA_EXIT_INPUT,
                           "get -w takes KIND arguments only (select by --field-selector metadata.name=NAME)");
    dra_writer *w = dra_writer_new(out, o->fmt);
    dra_err *e = NULL, *missing = NULL;
    const char *const *names = (const char *const *)args + (slashed ? 0 : 1);
    size_t nnames = slashed ? nargs : nargs - 1;
    const dra_kube_resource **rs = NULL;
    size_t n = 0;
    if (!slashed)
        e = dra_watch_kinds(args, 1, &rs, &n);
    for (size_t i = 0; i < nnames && !e; i++) {
        if (slashed) {
            const char *sl = strchr(names[i], '/');
            char *kind = dra_xstrndup(names[i], (size_t)(sl - names[i]));
            const dra_kube_resource *r = dra_kube_resource_find(kind);
            if (!r || !sl[1] || strchr(kind, ','))
                e = !r ? dra_err_new(DRA_EXIT_INPUT, "the server doesn't have a resource type \"%s\"", kind)
                       : dra_err_new(DRA_EXIT_INPUT,
                                     "arguments in resource/name form must have a single resource and name");
            else
                e = get_named(s, r, sl + 1, w, &missing);
            free(kind);
            continue;
        }
        for (size_t k = 0; k < n && !e; k++)
            e = get_named(s, rs[k], names[i], w, &missing);
    }
    free(rs);
    e = dra_writer_finish(w, e);
    if (e) {
        dra_err_free(missing);
        return e;
    }
    return missing;
}

dra_err *dra_watch_get(dra_session *s, char *const *kinds, size_t nkinds, const dra_get_opts *o, FILE *out)
{
    if (nkinds > 1 || (nkinds == 1 && strchr(kinds[0], '/')))
        return get_names(s, kinds, nkinds, o, out);
    const dra_kube_resource **rs;
    size_t n;
    dra_err *e = dra_watch_kinds(kinds, nkinds, &rs, &n);
    if (e)
        return e;
    if (s->o.replay) {
        e = o->watch
                ? replay_get(s, rs, n, o, out)
                : dra_err_param(dra_err_new(DRA_EXIT_INPUT, "a recording works with get -w, record and run"), "replay");
        free(rs);
        return e;
    }
    if (!o->watch) {
        /* page by page: what was listed is printed and let go */
        list_out lo_state = {dra_writer_new(out, o->fmt), NULL, false};
        dra_writer *w = lo_state.w;
        for (size_t i = 0; i < n && !e; i++) {
            dra_kube_list_opts lo = {rs[i]->namespaced ? s->ns : NULL, o->label_selector, o->field_selector, 0};
            e = o->fmt == DRA_FMT_JSONL ? dra_kube_list_lines(s->api, rs[i], &lo, put_line, &lo_state, NULL)
                                        : dra_kube_list_each(s->api, rs[i], &lo, put_item, &lo_state, NULL);
            free(lo_state.last);
            lo_state.last = NULL;
            lo_state.restarted = false;
        }
        e = dra_writer_finish(w, e); /* failed part way: nothing, or a complete document */
        free(rs);
        return e;
    }
    dra_kube_informer_spec *specs = dra_xcalloc(n, sizeof *specs);
    /* events are printed as they come; the store only tells changes apart
     * and names what a relist finds gone */
    for (size_t i = 0; i < n; i++)
        specs[i] = (dra_kube_informer_spec){rs[i], rs[i]->namespaced ? s->ns : NULL, o->label_selector,
                                            o->field_selector, true};
    get_state g = {out, o, 0, NULL, s->o.stop};
    dra_kube_informers *in =
        dra_kube_informers_new(s->api, specs, n, dra_watch_timeout_s(s), dra_watch_idle_s(s), on_change, &g);
    e = dra_kube_informers_sync(in);
    if (!e && g.err) {
        e = g.err;
        g.err = NULL;
    }
    if (!e && !(o->max_events > 0 && g.n >= o->max_events))
        e = dra_kube_informers_run(in, -1, tick, &g);
    dra_err_free(g.err);
    dra_kube_informers_free(in);
    free(specs);
    free(rs);
    return e;
}
