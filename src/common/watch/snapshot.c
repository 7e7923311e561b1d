/* `dra-watch snapshot`: everything DRA-related in one dump. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "model/features.h"
#include "model/nodesel.h"

static int cmp_obj(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    const char *nx = dra_jstr(x, "metadata.namespace"), *ny = dra_jstr(y, "metadata.namespace");
    int c = strcmp(nx ? nx : "", ny ? ny : "");
    if (c)
        return c;
    const char *mx = dra_jstr(x, "metadata.name"), *my = dra_jstr(y, "metadata.name");
    return strcmp(mx ? mx : "", my ? my : "");
}

static void sorted_append(json_t *out, json_t *items)
{
    size_t n = json_array_size(items);
    if (!n)
        return;
    json_t **v = dra_xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = json_array_get(items, i);
    qsort(v, n, sizeof *v, cmp_obj);
    for (size_t i = 0; i < n; i++)
        json_array_append(out, v[i]);
    free(v);
}

static bool set_has(json_t *set, const char *k)
{
    return k && json_object_get(set, k);
}
static void set_add(json_t *set, const char *k)
{
    if (k)
        json_object_set_new(set, k, json_true());
}

void dra_watch_pod_claims(const json_t *pod, json_t *set)
{
    const char *ns = dra_jstr(pod, "metadata.namespace");
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(json_object_get(pod, "spec"), "resourceClaims"), i, it) {
        const char *n = json_string_value(json_object_get(it, "resourceClaimName"));
        if (n) {
            char *k = dra_xasprintf("%s/%s", ns ? ns : "", n);
            set_add(set, k);
            free(k);
        }
    }
    json_array_foreach(json_object_get(json_object_get(pod, "status"), "resourceClaimStatuses"), i, it) {
        const char *n = json_string_value(json_object_get(it, "resourceClaimName"));
        if (n) {
            char *k = dra_xasprintf("%s/%s", ns ? ns : "", n);
            set_add(set, k);
            free(k);
        }
    }
    const char *x = json_string_value(json_object_get(
        json_object_get(json_object_get(pod, "status"), "extendedResourceClaimStatus"), "resourceClaimName"));
    if (x) {
        char *k = dra_xasprintf("%s/%s", ns ? ns : "", x);
        set_add(set, k);
        free(k);
    }
}

static void request_classes(const json_t *spec, json_t *classes)
{
    size_t i, j;
    json_t *rq, *sub;
    json_array_foreach(json_object_get(json_object_get(spec, "devices"), "requests"), i, rq) {
        set_add(classes, json_string_value(json_object_get(json_object_get(rq, "exactly"), "deviceClassName")));
        json_array_foreach(json_object_get(rq, "firstAvailable"), j, sub)
            set_add(classes, json_string_value(json_object_get(sub, "deviceClassName")));
    }
}

/* Could the scheduler use this slice's devices on node (its object, or
 * {"metadata":{"name"}} when the server has none)?  As the allocator's pool
 * gathering does: spec.nodeName, allNodes, nodeSelector, or with
 * perDeviceNodeSelection any device's nodeName/allNodes/nodeSelector.  A
 * selector that does not parse keeps the slice, so the offline tools report
 * it as the scheduler would. */
static bool target_matches(const json_t *t, const json_t *node, const char *node_name, bool *known)
{
    const char *nn = dra_jfield_str(t, "nodeName");
    const json_t *sel = dra_jfield(t, "nodeSelector");
    bool all = dra_jfield_true(t, "allNodes"), m = false;
    *known = (nn && *nn) || all || json_is_object(sel);
    dra_err *e = dra_node_target_match(node, node_name, nn, all, json_is_object(sel) ? sel : NULL, &m);
    if (e) {
        dra_err_free(e);
        return true;
    }
    return m;
}

static bool slice_usable_on(const json_t *slice, const json_t *node, const char *node_name)
{
    const json_t *spec = json_object_get(slice, "spec");
    bool known;
    bool m = target_matches(spec, node, node_name, &known);
    if (known)
        return m;
    if (!json_is_true(json_object_get(spec, "perDeviceNodeSelection")))
        return false; /* no node selection the scheduler knows: it ignores the slice */
    size_t i;
    const json_t *d;
    json_array_foreach(json_object_get(spec, "devices"), i, d) {
        if (target_matches(d, node, node_name, &known))
            return true;
    }
    return false;
}

/* The snapshot's first object: the server's /version (its gitVersion tells
 * the tools which release's feature gates apply, model/features.h). */
dra_err *dra_watch_server_version(dra_session *s, json_t **version)
{
    dra_kube_resp resp;
    dra_kube_req req = {"GET", "/version", NULL, NULL, 0, false};
    dra_err *e = dra_kube_do(s->client, &req, &resp);
    *version = e ? NULL : json_incref(resp.json);
    dra_kube_resp_free(&resp);
    return e;
}

/* The snapshot object: the server's version, and the kinds the user may
 * not list (forbidden: their lists are empty, not the cluster's). */
static dra_err *server_version(dra_session *s, json_t *forbidden, json_t *out)
{
    json_t *version;
    dra_err *e = dra_watch_server_version(s, &version);
    if (e)
        return e;
    json_t *snap = json_pack("{s:s, s:s, s:{s:s}, s:o}", "apiVersion", DRA_SNAPSHOT_API_VERSION, "kind",
                             DRA_SNAPSHOT_KIND, "metadata", "name", "snapshot", "serverVersion", version);
    if (json_array_size(forbidden))
        json_object_set(snap, DRA_SNAPSHOT_FORBIDDEN, forbidden);
    json_array_append_new(out, snap);
    return NULL;
}

/* One list of the snapshot.  A namespace-scoped user who may not list a
 * kind (at the cluster scope, or in the namespace) gets a warning naming
 * the kind and the permission, as the server said it, and an empty list:
 * the snapshot goes on with what it may read.  *forbidden says so; with
 * warn, the kind's resource name is added to denied. */
static dra_err *snap_list(dra_session *s, const dra_kube_resource *r, const char *ns, json_t **items, json_t *denied,
                          bool *forbidden)
{
    dra_kube_list_opts lo = {r->namespaced ? ns : NULL, NULL, NULL, 0};
    dra_err *e = dra_kube_list(s->api, r, &lo, items, NULL);
    *forbidden = dra_kube_err_forbidden(e);
    if (!*forbidden)
        return e;
    if (denied) {
        dra_kube_client_log(s->client, KUBE_LOG_WARN, "warning: %s; the snapshot has no %s", e->msg, r->resource);
        json_array_append_new(denied, json_string(r->resource));
    }
    dra_err_free(e);
    *items = json_array();
    return NULL;
}

/* The kinds of the snapshot, in the order it lists them. */
static const char *const snap_kinds[] = {
    "namespaces",     "nodes", "deviceclasses", "devicetaintrules", "resourceslices", "resourceclaimtemplates",
    "resourceclaims", "pods"};
enum { K_NS, K_NODE, K_CLASS, K_RULE, K_SLICE, K_TMPL, K_CLAIM, K_POD, K_N };

/* Is kind k among the comma-separated kinds of only (any name
 * dra_kube_resource_find knows)?  NULL: every kind. */
static bool wanted(const char *only, const dra_kube_resource *r)
{
    if (!only)
        return true;
    char *list = dra_xstrdup(only), *save = NULL;
    bool hit = false;
    for (char *k = strtok_r(list, ",", &save); k && !hit; k = strtok_r(NULL, ",", &save))
        hit = dra_kube_resource_find(k) == r;
    free(list);
    return hit;
}

static dra_err *check_kinds(const char *only)
{
    if (!only)
        return NULL;
    char *list = dra_xstrdup(only), *save = NULL;
    dra_err *e = NULL;
    for (char *k = strtok_r(list, ",", &save); k && !e; k = strtok_r(NULL, ",", &save)) {
        const dra_kube_resource *r = dra_kube_resource_find(k);
        bool ok = false;
        for (size_t i = 0; r && i < K_N; i++)
            ok = ok || dra_kube_resource_find(snap_kinds[i]) == r;
        if (!ok)
            e = dra_err_param(dra_err_new(DRA_EXIT_INPUT,
                                          "\"%s\" is not a kind of the snapshot (want namespaces, nodes, "
                                          "deviceclasses, devicetaintrules, resourceslices, "
                                          "resourceclaimtemplates, resourceclaims, pods)",
                                          k),
                              "kinds");
    }
    free(list);
    return e;
}

/* NAME in the namespace of -n or the context, or NAMESPACE/NAME: the
 * pod's namespace (*pns, the caller frees it) and name (in for_pod). */
static dra_err *split_for_pod(const dra_session *s, const char *for_pod, char **pns, const char **pname)
{
    const char *sl = strchr(for_pod, '/');
    if (sl && (sl == for_pod || !sl[1] || strchr(sl + 1, '/')))
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "want NAME or NAMESPACE/NAME, got \"%s\"", for_pod),
                             "for-pod");
    if (!*for_pod)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "want NAME or NAMESPACE/NAME, got \"\""), "for-pod");
    if (!sl && !s->ns)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "a pod cannot be found by name across all namespaces: "
                                                         "give NAMESPACE/NAME or -n NAMESPACE"),
                             "for-pod");
    *pns = sl ? dra_xstrndup(for_pod, (size_t)(sl - for_pod)) : dra_xstrdup(s->ns);
    *pname = sl ? sl + 1 : for_pod;
    return NULL;
}

/* A pod's claims come from every namespace, as the scheduler sees them:
 * devices other namespaces' claims hold are not free.  A user who may not
 * list them at the cluster scope gets a warning and the namespace's. */
static dra_err *list_claims_for_pod(dra_session *s, const dra_kube_resource *r, const char *ns, json_t **items,
                                    json_t *denied)
{
    bool forbidden = false;
    dra_err *e = snap_list(s, r, NULL, items, NULL, &forbidden);
    if (!e && forbidden) {
        dra_kube_client_log(s->client, KUBE_LOG_WARN,
                            "warning: cannot list resourceclaims at the cluster scope: devices that claims of "
                            "other namespaces hold look free");
        json_decref(*items);
        *items = NULL;
        e = snap_list(s, r, ns, items, denied, &forbidden);
    }
    return e;
}

/* List each kind of the snapshot into lists[] (an empty list for a kind
 * not wanted, or DeviceTaintRule on a server without it), the kinds the
 * user may not list into denied.  ns: kubectl's namespace (-n, else the
 * context's; NULL with -A), or the pod's. */
static dra_err *list_kinds(dra_session *s, const char *only, bool for_pod, const char *ns, json_t *lists[K_N],
                           json_t *denied)
{
    dra_err *e = NULL;
    for (int k = 0; k < K_N && !e; k++) {
        const dra_kube_resource *r = dra_kube_resource_find(snap_kinds[k]);
        const char *v;
        if (!wanted(only, r) && !(k == K_POD && for_pod)) {
            lists[k] = json_array();
            continue;
        }
        if (k == K_RULE) {
            dra_err *ve = dra_kube_api_version(s->api, r, &v);
            if (ve) { /* optional: servers without DeviceTaintRule */
                dra_err_free(ve);
                lists[k] = json_array();
                continue;
            }
        }
        if (k == K_CLAIM && for_pod) {
            e = list_claims_for_pod(s, r, ns, &lists[k], denied);
            continue;
        }
        bool forbidden = false;
        e = snap_list(s, r, ns, &lists[k], denied, &forbidden);
    }
    return e;
}

/* What the snapshot keeps, as sets of keys ("NAMESPACE/NAME" for claims
 * and templates, names for classes, nodes and namespaces), and the pods. */
typedef struct {
    json_t *claims, *tmpls, *classes, *nodes, *nss;
    json_t *pods;
} snap_keep;

/* The pods that use ResourceClaims (with a pod asked for, only it), and
 * what they name.  False when the pod asked for is not among them. */
static bool pick_pods(const json_t *podlist, const char *pns, const char *pname, snap_keep *kp)
{
    size_t i;
    json_t *it;
    bool found = !pname;
    json_array_foreach(podlist, i, it) {
        json_t *spec = json_object_get(it, "spec");
        if (!json_array_size(json_object_get(spec, "resourceClaims")))
            continue;
        if (pname && !(strcmp(dra_jstr(it, "metadata.namespace") ?: "", pns) == 0 &&
                       strcmp(dra_jstr(it, "metadata.name") ?: "", pname) == 0))
            continue;
        found = true;
        json_array_append(kp->pods, it);
        dra_watch_pod_claims(it, kp->claims);
        size_t j;
        json_t *rc;
        json_array_foreach(json_object_get(spec, "resourceClaims"), j, rc) {
            const char *t = json_string_value(json_object_get(rc, "resourceClaimTemplateName"));
            if (t) {
                char *k = dra_xasprintf("%s/%s", dra_jstr(it, "metadata.namespace") ?: "", t);
                set_add(kp->tmpls, k);
                free(k);
            }
        }
        set_add(kp->nodes, json_string_value(json_object_get(spec, "nodeName")));
        set_add(kp->nss, dra_jstr(it, "metadata.namespace"));
    }
    return found;
}

/* The pod's claims, and every claim that holds devices the pod cannot
 * have; the templates the pods name; the classes those request. */
static void claims_and_templates(json_t *lists[K_N], bool for_pod, snap_keep *kp, json_t *keep_claims,
                                 json_t *keep_tmpls)
{
    size_t i;
    json_t *it;
    json_array_foreach(lists[K_CLAIM], i, it) {
        char *k = dra_xasprintf("%s/%s", dra_jstr(it, "metadata.namespace") ?: "", dra_jstr(it, "metadata.name") ?: "");
        bool mine = !for_pod || set_has(kp->claims, k);
        if (mine) {
            json_array_append(keep_claims, it);
            request_classes(json_object_get(it, "spec"), kp->classes);
            set_add(kp->nss, dra_jstr(it, "metadata.namespace"));
        } else if (json_object_get(json_object_get(it, "status"), "allocation")) {
            json_array_append(keep_claims, it); /* it holds devices the pod cannot have */
            set_add(kp->nss, dra_jstr(it, "metadata.namespace"));
        }
        free(k);
    }
    json_array_foreach(lists[K_TMPL], i, it) {
        char *k = dra_xasprintf("%s/%s", dra_jstr(it, "metadata.namespace") ?: "", dra_jstr(it, "metadata.name") ?: "");
        if (!for_pod || set_has(kp->tmpls, k)) {
            json_array_append(keep_tmpls, it);
            request_classes(json_object_get(json_object_get(it, "spec"), "spec"), kp->classes);
        }
        free(k);
    }
}

/* The slices: a scheduled pod's candidates are those whose devices its
 * node can use; the nodes those slices name join the nodes kept. */
static void usable_slices(json_t *lists[K_N], bool for_pod, const char *pod_node, snap_keep *kp, json_t *keep)
{
    size_t i;
    json_t *it;
    json_t *pod_node_obj = NULL;
    if (pod_node) {
        json_array_foreach(lists[K_NODE], i, it) {
            if (strcmp(dra_jstr(it, "metadata.name") ?: "", pod_node) == 0)
                pod_node_obj = json_incref(it);
        }
        if (!pod_node_obj)
            pod_node_obj = json_pack("{s:{s:s}}", "metadata", "name", pod_node);
    }
    json_array_foreach(lists[K_SLICE], i, it) {
        const char *sn = json_string_value(json_object_get(json_object_get(it, "spec"), "nodeName"));
        if (pod_node && !slice_usable_on(it, pod_node_obj, pod_node))
            continue;
        json_array_append(keep, it);
        if (!for_pod)
            set_add(kp->nodes, sn);
        else if (!pod_node)
            set_add(kp->nodes, sn);
    }
    json_decref(pod_node_obj);
}

/* Keep what the pods need from lists[] and append it to out, each kind
 * sorted by namespace and name. */
static void keep_objects(json_t *lists[K_N], bool for_pod, snap_keep *kp, json_t *out)
{
    json_t *keep_claims = json_array(), *keep_tmpls = json_array();
    claims_and_templates(lists, for_pod, kp, keep_claims, keep_tmpls);
    json_t *keep_slices = json_array(), *keep_nodes = json_array(), *keep_classes = json_array(),
           *keep_ns = json_array();
    const char *pod_node =
        for_pod && json_array_size(kp->pods)
            ? json_string_value(json_object_get(json_object_get(json_array_get(kp->pods, 0), "spec"), "nodeName"))
            : NULL;
    usable_slices(lists, for_pod, pod_node, kp, keep_slices);
    size_t i;
    json_t *it;
    json_array_foreach(lists[K_NODE], i, it) {
        if (set_has(kp->nodes, dra_jstr(it, "metadata.name")) || (for_pod && !pod_node))
            json_array_append(keep_nodes, it);
    }
    json_array_foreach(lists[K_CLASS], i, it) {
        if (!for_pod || set_has(kp->classes, dra_jstr(it, "metadata.name")))
            json_array_append(keep_classes, it);
    }
    json_array_foreach(lists[K_NS], i, it) {
        if (set_has(kp->nss, dra_jstr(it, "metadata.name")))
            json_array_append(keep_ns, it);
    }
    sorted_append(out, keep_ns);
    sorted_append(out, keep_nodes);
    sorted_append(out, keep_classes);
    sorted_append(out, lists[K_RULE]);
    sorted_append(out, keep_slices);
    sorted_append(out, keep_tmpls);
    sorted_append(out, keep_claims);
    sorted_append(out, kp->pods);
    json_decref(keep_claims), json_decref(keep_tmpls), json_decref(keep_slices);
    json_decref(keep_nodes), json_decref(keep_classes), json_decref(keep_ns);
}

dra_err *dra_watch_snapshot(dra_session *s, const char *for_pod, const char *only, json_t **objs)
{
    *objs = NULL;
    if (s->o.replay)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "snapshot needs a server, not a recording"), "replay");
    dra_err *e = check_kinds(only);
    if (e)
        return e;
    char *pns = NULL;
    const char *pname = NULL;
    if (for_pod && (e = split_for_pod(s, for_pod, &pns, &pname)))
        return e;
    /* kubectl's namespace: -n, else the context's; -A every one */
    json_t *lists[K_N] = {0}, *denied = json_array();
    e = list_kinds(s, only, for_pod, pns ? pns : s->ns, lists, denied);
    json_t *out = json_array();
    if (!e)
        e = server_version(s, denied, out);
    json_decref(denied);
    if (!e) {
        snap_keep kp = {json_object(), json_object(), json_object(), json_object(), json_object(), json_array()};
        if (!pick_pods(lists[K_POD], pns, pname, &kp))
            e = dra_err_new(DRA_EXIT_NEGATIVE, "pod %s/%s not found or uses no ResourceClaims", pns, pname);
        else
            keep_objects(lists, for_pod, &kp, out);
        json_decref(kp.claims), json_decref(kp.tmpls), json_decref(kp.classes), json_decref(kp.nodes);
        json_decref(kp.nss), json_decref(kp.pods);
    }
    for (int k = 0; k < K_N; k++)
        json_decref(lists[k]);
    free(pns);
    if (e) {
        json_decref(out);
        return e;
    }
    *objs = out;
    return NULL;
}
