/* REST verbs and discovery; see api.h.  Lists behave as k8s.io/client-go
 * tools/pager (limit/continue, full list when a continue token expires);
 * the informers are in informer.c. */
#include "api.h"
#include "../base/clock.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "../io/jparse.h"
#include "internal.h"
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

dra_kube_client *dra_kube_api_client(dra_kube_api *a)
{
    return a->c;
}

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
    dra_kube_req req = {"GET", path, NULL, NULL, 0, false};
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

char *dra_kube_api_path(dra_kube_api *a, const dra_kube_resource *r, const char *version, const char *ns,
                        const char *name, const char *sub)
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
            *why =
                dra_xasprintf("unable to decode an event from the watch stream: unable to decode watch event: no kind "
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
void dra_kube_trim_heap(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* Each page's items to fn, or (lfn set) as lines to lfn. */
static dra_err *list_pages(dra_kube_api *a, const dra_kube_resource *r, const dra_kube_list_opts *o,
                           dra_kube_item_fn fn, dra_kube_line_fn lfn, void *ud, char **rv)
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
        dra_kube_req req = {"GET", dra_buf_str(&p), NULL, NULL, 0, lfn != NULL};
        e = dra_kube_do(a->c, &req, &resp);
        if (e && resp.http == 410 && cont) {
            /* the continue token expired: list everything in one go, as
             * client-go's pager does (FullListIfExpired) */
            dra_buf_free(&p);
            dra_err_free(e);
            dra_kube_resp_free(&resp);
            free(cont);
            cont = NULL;
            free(listrv);
            listrv = NULL;
            limit = 0;
            if ((e = lfn ? lfn(ud, NULL) : fn(ud, NULL)))
                break;
            continue;
        }
        if (!e && resp.text && lfn &&
            dra_kube_list_page_lines(r, version, resp.text, resp.text_len, lfn, ud, &listrv, &cont, &e)) {
            dra_buf_free(&p);
            dra_kube_resp_free(&resp);
            dra_kube_trim_heap();
            if (e || !cont)
                break;
            continue;
        }
        if (!e && resp.text && !(resp.json = dra_json_loadb(resp.text, resp.text_len, 0, NULL)))
            e = dra_err_new(DRA_EXIT_RUNTIME, "GET %s: the server answered with invalid JSON", dra_buf_str(&p));
        dra_buf_free(&p);
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
            if ((e = dra_kube_api_normalize(r, version, it)))
                break;
            if (lfn) {
                const char *ns = dra_kube_meta_str(it, "namespace"), *name = dra_kube_meta_str(it, "name");
                e = lfn(ud, &(dra_kube_list_item){it, NULL, 0, ns ? ns : "", name ? name : ""});
            } else {
                e = fn(ud, it);
            }
            if (e)
                break;
        }
        const char *nc = json_string_value(json_object_get(md, "continue"));
        free(cont);
        cont = nc && *nc ? dra_xstrdup(nc) : NULL;
        dra_kube_resp_free(&resp);
        dra_kube_trim_heap();
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

dra_err *dra_kube_list_each(dra_kube_api *a, const dra_kube_resource *r, const dra_kube_list_opts *o,
                            dra_kube_item_fn fn, void *ud, char **rv)
{
    return list_pages(a, r, o, fn, NULL, ud, rv);
}

dra_err *dra_kube_list_lines(dra_kube_api *a, const dra_kube_resource *r, const dra_kube_list_opts *o,
                             dra_kube_line_fn fn, void *ud, char **rv)
{
    return list_pages(a, r, o, NULL, fn, ud, rv);
}

static dra_err *append_item(void *ud, json_t *item)
{
    if (item)
        json_array_append(ud, item);
    else
        json_array_clear(ud);
    return NULL;
}

dra_err *dra_kube_list(dra_kube_api *a, const dra_kube_resource *r, const dra_kube_list_opts *o, json_t **items,
                       char **rv)
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

dra_err *dra_kube_get(dra_kube_api *a, const dra_kube_resource *r, const char *ns, const char *name, json_t **obj,
                      dra_kube_resp *resp)
{
    const char *version;
    memset(resp, 0, sizeof *resp);
    dra_err *e = dra_kube_api_version(a, r, &version);
    if (e)
        return e;
    char *path = dra_kube_api_path(a, r, version, ns, name, NULL);
    dra_kube_req req = {"GET", path, NULL, NULL, 0, false};
    e = dra_kube_do(a->c, &req, resp);
    free(path);
    if (!e)
        e = finish_obj(r, version, resp, obj);
    return e;
}

static dra_err *write_req(dra_kube_api *a, const dra_kube_resource *r, const char *method, const char *ns,
                          const char *name, const char *sub, const char *ctype, const json_t *body, json_t **out,
                          dra_kube_resp *resp)
{
    return dra_kube_write(a, r, method, ns, name, sub, NULL, ctype, body, out, resp);
}

/* body as the server takes it at version (a new reference): a v1 object of
 * r's group renamed v1beta2 where that is what the server serves (an apply,
 * create or update body must name the version of its URL: HTTP 400 "invalid
 * object type" otherwise).  v1beta2's DRA kinds have v1's fields
 * (k8s.io/api@v0.36.3 resource/v1beta2/types.go), v1beta1's and
 * v1alpha3's do not: those bodies go as they are. */
static json_t *served_body(const dra_kube_resource *r, const char *version, const json_t *body)
{
    const char *av = json_string_value(json_object_get(body, "apiVersion"));
    size_t g = strlen(r->group);
    if (!av || !g || strcmp(version, "v1beta2") != 0 || strncmp(av, r->group, g) != 0 || strcmp(av + g, "/v1") != 0)
        return json_incref((json_t *)body);
    json_t *c = json_copy((json_t *)body);
    char *nav = dra_xasprintf("%s/%s", r->group, version);
    json_object_set_new(c, "apiVersion", json_string(nav));
    free(nav);
    return c;
}

dra_err *dra_kube_write(dra_kube_api *a, const dra_kube_resource *r, const char *method, const char *ns,
                        const char *name, const char *sub, const char *query, const char *ctype, const json_t *body,
                        json_t **out, dra_kube_resp *resp)
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
    json_t *sent = served_body(r, version, body);
    char *data = sent ? json_dumps(sent, JSON_COMPACT) : NULL;
    json_decref(sent);
    dra_kube_req req = {method, path, ctype, data, data ? strlen(data) : 0, false};
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

dra_err *dra_kube_create(dra_kube_api *a, const dra_kube_resource *r, const char *ns, const json_t *obj, json_t **out,
                         dra_kube_resp *resp)
{
    const char *ons = dra_kube_meta_str(obj, "namespace");
    return write_req(a, r, "POST", ns ? ns : ons, NULL, NULL, "application/json", obj, out, resp);
}

dra_err *dra_kube_update(dra_kube_api *a, const dra_kube_resource *r, const json_t *obj, const char *sub, json_t **out,
                         dra_kube_resp *resp)
{
    const char *name = dra_kube_meta_str(obj, "name");
    if (!name) {
        memset(resp, 0, sizeof *resp);
        return dra_err_new(DRA_EXIT_INPUT, "update of a %s without metadata.name", r->kind);
    }
    return write_req(a, r, "PUT", dra_kube_meta_str(obj, "namespace"), name, sub, "application/json", obj, out, resp);
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
