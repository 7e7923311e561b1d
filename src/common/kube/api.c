/* REST verbs, discovery and informers; see api.h.  Behaviour after
 * k8s.io/client-go/tools/cache (reflector.go: list, watch from the list's
 * resourceVersion, relist on 410 "Expired"/"Gone", resume from the last
 * seen version; backoff with jitter) and tools/pager (limit/continue, full
 * list when a continue token expires). */
#include "api.h"
#include "../base/clock.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "../model/convert.h"
#include "../model/kinds.h"
#include "text.h"

const dra_kube_resource dra_kube_resources[] = {
    {"resource.k8s.io", "deviceclasses", "DeviceClass", "deviceclass", "", false, "v1 v1beta2 v1beta1"},
    {"resource.k8s.io", "resourceslices", "ResourceSlice", "resourceslice", "", false, "v1 v1beta2 v1beta1"},
    {"resource.k8s.io", "resourceclaims", "ResourceClaim", "resourceclaim", "", true, "v1 v1beta2 v1beta1"},
    {"resource.k8s.io", "resourceclaimtemplates", "ResourceClaimTemplate", "resourceclaimtemplate", "", true,
     "v1 v1beta2 v1beta1"},
    {"resource.k8s.io", "devicetaintrules", "DeviceTaintRule", "devicetaintrule", "", false, "v1 v1beta2 v1alpha3"},
    {"", "pods", "Pod", "pod", "po", true, "v1"},
    {"", "nodes", "Node", "node", "no", false, "v1"},
    {"", "namespaces", "Namespace", "namespace", "ns", false, "v1"},
    {"", "events", "Event", "event", "ev", true, "v1"},
    {"", "resourcequotas", "ResourceQuota", "resourcequota", "quota", true, "v1"},
};
const size_t dra_kube_nresources = sizeof dra_kube_resources / sizeof dra_kube_resources[0];

static bool word_in(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; *p;) {
        while (*p == ' ')
            p++;
        const char *e = strchr(p, ' ');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && l && strncasecmp(p, w, n) == 0)
            return true;
        p += l;
    }
    return false;
}

const dra_kube_resource *dra_kube_resource_find(const char *name)
{
    if (!name || !*name)
        return NULL;
    const char *dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    for (size_t i = 0; i < dra_kube_nresources; i++) {
        const dra_kube_resource *r = &dra_kube_resources[i];
        if (dot && strcmp(dot + 1, r->group) != 0)
            continue;
        if ((strlen(r->resource) == n && strncasecmp(r->resource, name, n) == 0) ||
            (strlen(r->singular) == n && strncasecmp(r->singular, name, n) == 0) ||
            (strlen(r->kind) == n && strncasecmp(r->kind, name, n) == 0))
            return r;
        if (!dot && word_in(r->shortnames, name))
            return r;
    }
    return NULL;
}

const dra_kube_resource *dra_kube_resource_by_kind(const char *kind)
{
    for (size_t i = 0; kind && i < dra_kube_nresources; i++)
        if (strcmp(dra_kube_resources[i].kind, kind) == 0)
            return &dra_kube_resources[i];
    return NULL;
}

struct dra_kube_api {
    dra_kube_client *c;
    json_t *disc; /* "group/version" -> {resource: true} or null (not served) */
};

dra_kube_api *dra_kube_api_new(dra_kube_client *c)
{
    dra_kube_api *a = dra_xcalloc(1, sizeof *a);
    a->c = c;
    a->disc = json_object();
    return a;
}

void dra_kube_api_free(dra_kube_api *a)
{
    if (!a)
        return;
    json_decref(a->disc);
    free(a);
}

dra_kube_client *dra_kube_api_client(dra_kube_api *a) { return a->c; }

static dra_err *discover(dra_kube_api *a, const char *group, const char *version, json_t **set)
{
    char *key = dra_xasprintf("%s/%s", group, version);
    json_t *v = json_object_get(a->disc, key);
    if (v) {
        free(key);
        *set = json_is_object(v) ? v : NULL;
        return NULL;
    }
    char *path = dra_xasprintf("/apis/%s/%s", group, version);
    dra_kube_resp resp;
    dra_kube_req req = {"GET", path, NULL, NULL, 0};
    dra_err *e = dra_kube_do(a->c, &req, &resp);
    free(path);
    if (e && (resp.http == 404 || resp.http == 503)) {
        dra_err_free(e);
        e = NULL;
        json_object_set_new(a->disc, key, json_null());
        *set = NULL;
    } else if (!e) {
        json_t *s = json_object();
        size_t i;
        json_t *it;
        json_array_foreach(json_object_get(resp.json, "resources"), i, it) {
            const char *n = json_string_value(json_object_get(it, "name"));
            if (n)
                json_object_set_new(s, n, json_true());
        }
        json_object_set_new(a->disc, key, s);
        *set = s;
    }
    dra_kube_resp_free(&resp);
    free(key);
    return e;
}

dra_err *dra_kube_api_version(dra_kube_api *a, const dra_kube_resource *r, const char **version)
{
    if (!*r->group) {
        *version = "v1";
        return NULL;
    }
    static const char *const all[] = {"v1", "v1beta2", "v1beta1", "v1alpha3"};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (!word_in(r->versions, all[i]))
            continue;
        json_t *set = NULL;
        dra_err *e = discover(a, r->group, all[i], &set);
        if (e)
            return e;
        if (set && json_object_get(set, r->resource)) {
            *version = all[i];
            return NULL;
        }
    }
    return dra_err_new(DRA_EXIT_RUNTIME, "the server doesn't have a resource type \"%s\" in %s (tried %s)", r->resource,
                       r->group, r->versions);
}

char *dra_kube_api_path(dra_kube_api *a, const dra_kube_resource *r, const char *version, const char *ns, const char *name,
                    const char *sub)
{
    dra_buf b = DRA_BUF_INIT;
    if (*r->group)
        dra_buf_printf(&b, "/apis/%s/%s", r->group, version);
    else
        dra_buf_printf(&b, "/api/%s", version);
    if (r->namespaced && ns && *ns) {
        dra_buf_puts(&b, "/namespaces/");
        dra_kube_query_escape(&b, ns);
    }
    dra_buf_printf(&b, "/%s", r->resource);
    if (name) {
        dra_buf_putc(&b, '/');
        dra_kube_query_escape(&b, name);
        if (sub)
            dra_buf_printf(&b, "/%s", sub);
    }
    return dra_buf_detach(&b);
}

dra_err *dra_kube_api_normalize(const dra_kube_resource *r, const char *version, json_t *obj)
{
    if (!json_is_object(obj))
        return dra_err_new(DRA_EXIT_RUNTIME, "the server sent a %s that is not an object", r->kind);
    char *av = *r->group ? dra_xasprintf("%s/%s", r->group, version) : dra_xstrdup(version);
    if (!json_object_get(obj, "apiVersion") || !json_object_get(obj, "kind")) {
        /* Put apiVersion and kind first, as a decoded unstructured object
         * would print them (keys sorted) and as they appear in the API. */
        json_t *rest = json_copy(obj);
        json_object_clear(obj);
        json_object_set_new(obj, "apiVersion", json_string(av));
        json_object_set_new(obj, "kind", json_string(r->kind));
        const char *k;
        json_t *v;
        json_object_foreach(rest, k, v) {
            if (strcmp(k, "apiVersion") != 0 && strcmp(k, "kind") != 0)
                json_object_set(obj, k, v);
        }
        json_decref(rest);
    }
    /* managedFields: bookkeeping of server-side apply that no tool reads;
     * kubectl get hides it too (--show-managed-fields=false) */
    json_object_del(json_object_get(obj, "metadata"), "managedFields");
    dra_err *e = NULL;
    if (*r->group && strcmp(version, "v1") != 0) {
        dra_kind k;
        dra_apiver v;
        if (dra_kind_lookup(av, r->kind, &k, &v))
            e = dra_convert_to_v1(obj, k, v);
    }
    free(av);
    return e;
}

/* Does apiVersion av name a version r may be served at? */
static bool serves(const dra_kube_resource *r, const char *av)
{
    const char *slash = strchr(av, '/');
    if (!*r->group)
        return !slash && word_in(r->versions, av);
    size_t g = slash ? (size_t)(slash - av) : 0;
    return slash && strlen(r->group) == g && strncmp(av, r->group, g) == 0 && word_in(r->versions, slash + 1);
}

dra_kube_obj_match dra_kube_api_match(const dra_kube_resource *r, const char *version, const json_t *obj, char **why)
{
    if (why)
        *why = NULL;
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    char *want = *r->group ? dra_xasprintf("%s/%s", r->group, version) : dra_xstrdup(version);
    bool same_av = !av || strcmp(av, want) == 0, same_kind = !kind || strcmp(kind, r->kind) == 0;
    free(want);
    if (same_av && same_kind)
        return KUBE_OBJ_EXPECTED;
    const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
    const dra_kube_resource *other = dra_kube_resource_by_kind(kind ? kind : r->kind);
    bool known = other && serves(other, av ? av : "");
    if (why) {
        dra_arena a = DRA_ARENA_INIT;
        if (known)
            *why = dra_xasprintf("%s %s %s", dra_kube_v(&a, av ? av : ""), dra_kube_v(&a, kind ? kind : r->kind),
                                 dra_kube_v(&a, name ? name : ""));
        else /* apimachinery's runtime.notRegisteredErr, in the watch decoder's words */
            *why = dra_xasprintf("unable to decode an event from the watch stream: unable to decode watch event: no kind "
                                 "%s is registered for version %s",
                                 dra_kube_q(&a, kind ? kind : r->kind), dra_kube_q(&a, av ? av : ""));
        dra_arena_free(&a);
    }
    return known ? KUBE_OBJ_OTHER : KUBE_OBJ_UNKNOWN;
}

static void add_query(dra_buf *b, bool *first, const char *k, const char *v)
{
    if (!v || !*v)
        return;
    dra_buf_putc(b, *first ? '?' : '&');
    *first = false;
    dra_buf_printf(b, "%s=", k);
    dra_kube_query_escape(b, v);
}

/* The pages of a list are decoded trees that are freed as soon as their items
 * are stored compactly; hand the freed pages back to the system, so the
 * resident size stays that of the store. */
static void trim_heap(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

dra_err *dra_kube_list_each(dra_kube_api *a, const dra_kube_resource *r, const dra_kube_list_opts *o, dra_kube_item_fn fn, void *ud,
                        char **rv)
{
    if (rv)
        *rv = NULL;
    const char *version;
    dra_err *e = dra_kube_api_version(a, r, &version);
    if (e)
        return e;
    char *base = dra_kube_api_path(a, r, version, o ? o->ns : NULL, NULL, NULL);
    char *cont = NULL, *listrv = NULL;
    int limit = o && o->limit > 0 ? o->limit : 500;
    for (;;) {
        dra_buf p = DRA_BUF_INIT;
        dra_buf_puts(&p, base);
        bool first = true;
        if (limit > 0) {
            char l[24];
            snprintf(l, sizeof l, "%d", limit);
            add_query(&p, &first, "limit", l);
        }
        add_query(&p, &first, "continue", cont);
        add_query(&p, &first, "labelSelector", o ? o->label_selector : NULL);
        add_query(&p, &first, "fieldSelector", o ? o->field_selector : NULL);
        dra_kube_resp resp;
        dra_kube_req req = {"GET", dra_buf_str(&p), NULL, NULL, 0};
        e = dra_kube_do(a->c, &req, &resp);
        dra_buf_free(&p);
        if (e && resp.http == 410 && cont) {
            /* the continue token expired: list everything in one go, as
             * client-go's pager does (FullListIfExpired) */
            dra_err_free(e);
            dra_kube_resp_free(&resp);
            free(cont);
            cont = NULL;
            free(listrv);
            listrv = NULL;
            limit = 0;
            if ((e = fn(ud, NULL)))
                break;
            continue;
        }
        if (e) {
            dra_kube_resp_free(&resp);
            break;
        }
        json_t *md = json_object_get(resp.json, "metadata");
        const char *lrv = json_string_value(json_object_get(md, "resourceVersion"));
        if (!listrv && lrv)
            listrv = dra_xstrdup(lrv);
        json_t *its = json_object_get(resp.json, "items");
        if (its && !json_is_array(its) && !json_is_null(its)) {
            dra_kube_resp_free(&resp);
            e = dra_err_new(DRA_EXIT_RUNTIME, "list of %s: items is not a list", r->resource);
            break;
        }
        /* one page at a time: the items go to fn and the page is freed */
        size_t i;
        json_t *it;
        json_array_foreach(its, i, it) {
            if ((e = dra_kube_api_normalize(r, version, it)) || (e = fn(ud, it)))
                break;
        }
        const char *nc = json_string_value(json_object_get(md, "continue"));
        free(cont);
        cont = nc && *nc ? dra_xstrdup(nc) : NULL;
        dra_kube_resp_free(&resp);
        trim_heap();
        if (e || !cont)
            break;
    }
    free(cont);
    free(base);
    if (e) {
        free(listrv);
        return e;
    }
    if (rv)
        *rv = listrv ? listrv : dra_xstrdup("");
    else
        free(listrv);
    return NULL;
}

static dra_err *append_item(void *ud, json_t *item)
{
    if (item)
        json_array_append(ud, item);
    else
        json_array_clear(ud);
    return NULL;
}

dra_err *dra_kube_list(dra_kube_api *a, const dra_kube_resource *r, const dra_kube_list_opts *o, json_t **items, char **rv)
{
    json_t *all = json_array();
    dra_err *e = dra_kube_list_each(a, r, o, append_item, all, rv);
    if (e) {
        json_decref(all);
        *items = NULL;
        return e;
    }
    *items = all;
    return NULL;
}

static dra_err *finish_obj(const dra_kube_resource *r, const char *version, dra_kube_resp *resp, json_t **out)
{
    dra_err *e = NULL;
    if (out) {
        *out = NULL;
        if (json_is_object(resp->json)) {
            e = dra_kube_api_normalize(r, version, resp->json);
            if (!e)
                *out = json_incref(resp->json);
        }
    }
    return e;
}

dra_err *dra_kube_get(dra_kube_api *a, const dra_kube_resource *r, const char *ns, const char *name, json_t **obj, dra_kube_resp *resp)
{
    const char *version;
    memset(resp, 0, sizeof *resp);
    dra_err *e = dra_kube_api_version(a, r, &version);
    if (e)
        return e;
    char *path = dra_kube_api_path(a, r, version, ns, name, NULL);
    dra_kube_req req = {"GET", path, NULL, NULL, 0};
    e = dra_kube_do(a->c, &req, resp);
    free(path);
    if (!e)
        e = finish_obj(r, version, resp, obj);
    return e;
}

static dra_err *write_req(dra_kube_api *a, const dra_kube_resource *r, const char *method, const char *ns, const char *name,
                          const char *sub, const char *ctype, const json_t *body, json_t **out, dra_kube_resp *resp)
{
    return dra_kube_write(a, r, method, ns, name, sub, NULL, ctype, body, out, resp);
}

dra_err *dra_kube_write(dra_kube_api *a, const dra_kube_resource *r, const char *method, const char *ns, const char *name,
                    const char *sub, const char *query, const char *ctype, const json_t *body, json_t **out,
                    dra_kube_resp *resp)
{
    memset(resp, 0, sizeof *resp);
    if (out)
        *out = NULL;
    const char *version;
    dra_err *e = dra_kube_api_version(a, r, &version);
    if (e)
        return e;
    char *path = dra_kube_api_path(a, r, version, ns, name, sub);
    if (query && *query) {
        char *q = dra_xasprintf("%s?%s", path, query);
        free(path);
        path = q;
    }
    char *data = body ? json_dumps(body, JSON_COMPACT) : NULL;
    dra_kube_req req = {method, path, ctype, data, data ? strlen(data) : 0};
    dra_kube_stats *st = dra_kube_client_stats(a->c);
    st->writes++;
    e = dra_kube_do(a->c, &req, resp);
    if (e && resp->http == 409)
        st->conflicts++;
    free(path);
    free(data);
    if (!e)
        e = finish_obj(r, version, resp, out);
    return e;
}

static const char *meta_str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(json_object_get(o, "metadata"), k));
}

dra_err *dra_kube_create(dra_kube_api *a, const dra_kube_resource *r, const char *ns, const json_t *obj, json_t **out,
                     dra_kube_resp *resp)
{
    const char *ons = meta_str(obj, "namespace");
    return write_req(a, r, "POST", ns ? ns : ons, NULL, NULL, "application/json", obj, out, resp);
}

dra_err *dra_kube_update(dra_kube_api *a, const dra_kube_resource *r, const json_t *obj, const char *sub, json_t **out,
                     dra_kube_resp *resp)
{
    const char *name = meta_str(obj, "name");
    if (!name) {
        memset(resp, 0, sizeof *resp);
        return dra_err_new(DRA_EXIT_INPUT, "update of a %s without metadata.name", r->kind);
    }
    return write_req(a, r, "PUT", meta_str(obj, "namespace"), name, sub, "application/json", obj, out, resp);
}

dra_err *dra_kube_patch(dra_kube_api *a, const dra_kube_resource *r, const char *ns, const char *name, const char *sub,
                    dra_kube_patch_type type, const json_t *patch, json_t **out, dra_kube_resp *resp)
{
    const char *ct = type == KUBE_PATCH_JSON    ? "application/json-patch+json"
                     : type == KUBE_PATCH_MERGE ? "application/merge-patch+json"
                                                : "application/strategic-merge-patch+json";
    return write_req(a, r, "PATCH", ns, name, sub, ct, patch, out, resp);
}

dra_err *dra_kube_delete(dra_kube_api *a, const dra_kube_resource *r, const char *ns, const char *name, const char *uid,
                     const char *rv, dra_kube_resp *resp)
{
    json_t *opts = json_pack("{s:s, s:s}", "kind", "DeleteOptions", "apiVersion", "v1");
    if (uid || rv) {
        json_t *pre = json_object();
        if (uid)
            json_object_set_new(pre, "uid", json_string(uid));
        if (rv)
            json_object_set_new(pre, "resourceVersion", json_string(rv));
        json_object_set_new(opts, "preconditions", pre);
    }
    dra_err *e = write_req(a, r, "DELETE", ns, name, NULL, "application/json", opts, NULL, resp);
    json_decref(opts);
    return e;
}

/* ---- informers ---- */

/* Why a watch stream was ended from inside (the event reader's callback). */
typedef enum { END_NONE, END_EXPIRED, END_TOO_LARGE, END_UNDECODABLE } end_why;

typedef struct inf {
    struct dra_kube_informers *set;
    size_t idx;
    dra_kube_informer_spec spec;
    const char *version;
    char *base;        /* collection path */
    json_t *store;     /* key -> entry (see entry_new) */
    char *rv;          /* last resourceVersion seen */
    bool open, need_relist, synced;
    int failures;
    int64_t next_at;   /* monotonic ms: earliest next watch */
    dra_kube_event_reader reader;
    end_why ended;     /* the stream was ended for a relist ... */
    char *ended_msg;   /* ... with this message (escaped) */
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
    const char *ns = meta_str(o, "namespace"), *name = meta_str(o, "name");
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
    const char *rv = meta_str(obj, "resourceVersion");
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, rv ? rv : "");
    dra_buf_putc(&b, '\0');
    dra_buf_puts(&b, s ? s : "{}");
    free(s);
    json_t *e = json_stringn_nocheck(b.data, b.len);
    dra_buf_free(&b);
    return e;
}

static const char *entry_rv(const json_t *e) { return json_string_value(e); }

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
    return json_loadb(t, len, 0, NULL);
}

/* An event for an object whose resourceVersion the store has already? */
static bool entry_same(const json_t *old, const json_t *obj)
{
    const char *orv = old ? entry_rv(old) : NULL, *nrv = meta_str(obj, "resourceVersion");
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
    dra_kube_client *c = in->a->c;
    dra_kube_stats *st = dra_kube_client_stats(c);
    if (t == KUBE_ERROR) {
        const char *reason = json_string_value(json_object_get(obj, "reason"));
        const char *msg = json_string_value(json_object_get(obj, "message"));
        dra_arena a = DRA_ARENA_INIT;
        dra_kube_rv_problem p = dra_kube_rv_problem_of(obj, 0);
        dra_err *e = p != KUBE_RV_OTHER
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
        dra_kube_client_log(c, KUBE_LOG_WARN, "watch of %s: dropped an event of another kind (%s)", f->spec.res->resource, why);
        free(why);
        return NULL;
    }
    st->events++;
    if (t == KUBE_BOOKMARK) {
        set_rv(f, meta_str(obj, "resourceVersion"));
        return NULL;
    }
    dra_err *e = dra_kube_api_normalize(f->spec.res, f->version, obj);
    if (e)
        return e;
    const char *rv = meta_str(obj, "resourceVersion");
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
        trim_heap();
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
    dra_kube_client *c = in->a->c;
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
            dra_kube_client_log(c, KUBE_LOG_WARN,
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
    dra_kube_client_log(c, KUBE_LOG_WARN, "watch of %s: %s; retrying in %lld ms", f->spec.res->resource, m, (long long)d);
    free(m);
    dra_err_free(err);
}

dra_kube_informers *dra_kube_informers_new(dra_kube_api *a, const dra_kube_informer_spec *specs, size_t n, int timeout_s, int idle_s,
                                   dra_kube_informer_fn fn, void *ud)
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

size_t dra_kube_informers_count(const dra_kube_informers *in, size_t i) { return json_object_size(in->v[i].store); }

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
        dra_kube_client_stats(in->a->c)->relists++;
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
    dra_kube_client *c = in->a->c;
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
                    dra_kube_client_log(c, KUBE_LOG_WARN, "list of %s: %s; retrying in %lld ms", f->spec.res->resource, m,
                                    (long long)d);
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
