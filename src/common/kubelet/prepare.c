/* The kubelet's DRA manager over a snapshot (see prepare.h).
 * Upstream: kubernetes pkg/kubelet/cm/dra/manager.go (prepareResources,
 * unprepareResources, reconcileLoop, GetResources), claiminfo.go
 * (newClaimInfoFromClaim, cdiDevicesAsList) and
 * staging/src/k8s.io/dynamic-resource-allocation/resourceclaim (Name,
 * IsForPod, IsReservedForPod). */
#include "kubelet/prepare.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/buf.h"
#include "base/sort.h"
#include "io/json.h"
#include "io/table.h"
#include "model/quantity.h"

/* ---- small JSON access ---- */

/* ---- the run ---- */

typedef struct conn {
    char *socket, *service;
    dra_plugin *p;
} conn;

struct dra_kubelet {
    dra_kubelet_opts o;
    dra_ckpt_file *f;
    conn *conns;
    size_t nconns;
};

dra_kubelet *dra_kubelet_new(const dra_kubelet_opts *opts, dra_ckpt_file *ckpt)
{
    dra_kubelet *k = dra_xcalloc(1, sizeof *k);
    k->o = *opts;
    k->f = ckpt;
    return k;
}

void dra_kubelet_free(dra_kubelet *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->nconns; i++) {
        if (k->conns[i].p)
            k->o.ops->close(k->conns[i].p);
        free(k->conns[i].socket);
        free(k->conns[i].service);
    }
    free(k->conns);
    free(k);
}

static void logf_(dra_kubelet *k, const char *fmt, ...) DRA_PRINTF(2, 3);
static void logf_(dra_kubelet *k, const char *fmt, ...)
{
    if (!k->o.log)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *s = dra_xvasprintf(fmt, ap);
    va_end(ap);
    k->o.log(k->o.log_ctx, s);
    free(s);
}

dra_err *dra_kubelet_not_registered(const char *driver)
{
    return dra_err_new(DRA_EXIT_RUNTIME, "DRA driver %s is not registered", driver);
}

static dra_err *plugin_for(dra_kubelet *k, const char *driver, dra_plugin **out)
{
    dra_driver_loc loc = {0};
    dra_err *e = k->o.resolve ? k->o.resolve(k->o.resolve_ctx, driver, &loc) : dra_kubelet_not_registered(driver);
    if (e)
        return e;
    for (size_t i = 0; i < k->nconns; i++) {
        if (strcmp(k->conns[i].socket, loc.socket) == 0 && strcmp(k->conns[i].service, loc.service) == 0) {
            *out = k->conns[i].p;
            return NULL;
        }
    }
    dra_plugin *p = NULL;
    e = k->o.ops->dial(loc.socket, loc.service, &k->o.rpc, &p);
    if (e)
        return e;
    k->conns = dra_xgrow(k->conns, k->nconns, sizeof *k->conns);
    k->conns[k->nconns++] = (conn){dra_xstrdup(loc.socket), dra_xstrdup(loc.service), p};
    *out = p;
    return NULL;
}

/* ---- pod claims (resourceclaim.Name) ---- */

typedef struct pclaim {
    const char *claim_name; /* NULL: nothing to do (no claim needed) */
    bool check_owner;
    const json_t *claim; /* set by check_pod */
} pclaim;

static dra_err *claim_name_of(const json_t *pod, const json_t *pc, const char **name, bool *check_owner)
{
    *name = NULL;
    *check_owner = false;
    const char *rcn = dra_jfield_str(pc, "resourceClaimName");
    const char *tmpl = dra_jfield_str(pc, "resourceClaimTemplateName");
    const char *pcname = dra_jfield_str(pc, "name");
    if (rcn) {
        *name = rcn;
        return NULL;
    }
    if (tmpl) {
        size_t i;
        json_t *st;
        json_array_foreach(dra_jget(pod, "status.resourceClaimStatuses"), i, st) {
            const char *n = dra_jfield_str(st, "name");
            if (n && pcname && strcmp(n, pcname) == 0) {
                *name = dra_jfield_str(st, "resourceClaimName"); /* null: no claim needed */
                *check_owner = true;
                return NULL;
            }
        }
        return dra_err_new(DRA_EXIT_NEGATIVE, "pod \"%s/%s\": ResourceClaim not created yet",
                           dra_jstr(pod, "metadata.namespace"), dra_jstr(pod, "metadata.name"));
    }
    return dra_err_new(DRA_EXIT_INPUT, "pod \"%s/%s\", spec.resourceClaim \"%s\": none of the supported fields are set",
                       dra_jstr(pod, "metadata.namespace"), dra_jstr(pod, "metadata.name"), pcname ? pcname : "");
}

/* The pod's claims: spec.resourceClaims, then the extended-resource claim. */
static dra_err *pod_claims(const json_t *pod, pclaim **out, size_t *n)
{
    json_t *rcs = dra_jget(pod, "spec.resourceClaims");
    const char *ext = dra_jfield_str(dra_jget(pod, "status.extendedResourceClaimStatus"), "resourceClaimName");
    size_t cap = json_array_size(rcs) + 1;
    pclaim *v = dra_xcalloc(cap, sizeof *v);
    size_t k = 0, i;
    json_t *pc;
    json_array_foreach(rcs, i, pc) {
        dra_err *e = claim_name_of(pod, pc, &v[k].claim_name, &v[k].check_owner);
        if (e) {
            free(v);
            return e;
        }
        k++;
    }
    if (ext)
        v[k++] = (pclaim){ext, false, NULL};
    *out = v;
    *n = k;
    return NULL;
}

static bool controlled_by(const json_t *claim, const char *pod_uid)
{
    size_t i;
    json_t *r;
    json_array_foreach(dra_jget(claim, "metadata.ownerReferences"), i, r) {
        if (json_is_true(json_object_get(r, "controller"))) {
            const char *u = dra_jfield_str(r, "uid");
            return u && strcmp(u, pod_uid) == 0;
        }
    }
    return false;
}

static bool reserved_for(const json_t *claim, const char *pod_uid)
{
    size_t i;
    json_t *r;
    json_array_foreach(dra_jget(claim, "status.reservedFor"), i, r) {
        const char *u = dra_jfield_str(r, "uid");
        if (u && strcmp(u, pod_uid) == 0)
            return true;
    }
    return false;
}

/* Drivers of the allocation, in order of first appearance. */
static size_t claim_drivers(const json_t *claim, const char **drv, size_t max)
{
    size_t n = 0, i;
    json_t *r;
    json_array_foreach(json_object_get(dra_jget(claim, "status.allocation.devices"), "results"), i, r) {
        const char *d = dra_jfield_str(r, "driver");
        if (!d)
            continue;
        size_t j;
        for (j = 0; j < n; j++)
            if (strcmp(drv[j], d) == 0)
                break;
        if (j == n && n < max)
            drv[n++] = d;
    }
    return n;
}

#define MAX_DRIVERS 64

static const json_t *alloc_results(const json_t *claim)
{
    return json_object_get(dra_jget(claim, "status.allocation.devices"), "results");
}

/* The operations every allocated device of `driver` skips (the kubelet's
 * aggregation per claim and driver, KEP-5945). */
static unsigned claim_skip(const json_t *claim, const char *driver)
{
    unsigned m = DRA_SKIP_ALL;
    bool any = false;
    size_t i;
    json_t *r;
    json_array_foreach(alloc_results(claim), i, r) {
        const char *d = dra_jfield_str(r, "driver");
        if (!d || strcmp(d, driver) != 0)
            continue;
        any = true;
        m &= dra_skip_ops_mask(json_object_get(r, "skipNodeOperations"));
    }
    return any ? m : 0;
}

static bool claim_asks_skip(const json_t *claim)
{
    size_t i;
    json_t *r;
    json_array_foreach(alloc_results(claim), i, r)
        if (json_array_size(json_object_get(r, "skipNodeOperations")))
            return true;
    return false;
}

static dra_err *pod_ident(const json_t *pod, const char **ns, const char **name, const char **uid)
{
    *ns = dra_jstr(pod, "metadata.namespace");
    *name = dra_jstr(pod, "metadata.name");
    *uid = dra_jstr(pod, "metadata.uid");
    if (!*ns)
        *ns = "default";
    if (!*uid || !**uid)
        return dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value: the kubelet identifies pods by UID"),
                             "metadata.uid");
    return NULL;
}

/* The validation pass: nothing changes when it fails. */
static dra_err *check_pod(dra_kubelet *k, const dra_model *m, const json_t *pod, pclaim *pcs, size_t n)
{
    const char *ns, *name, *uid;
    dra_err *e = pod_ident(pod, &ns, &name, &uid);
    if (e)
        return e;
    for (size_t i = 0; i < n; i++) {
        if (!pcs[i].claim_name)
            continue;
        const dra_obj *co = dra_model_claim(m, ns, pcs[i].claim_name);
        if (!co)
            return dra_err_new(DRA_EXIT_INPUT,
                               "fetch ResourceClaim %s: resourceclaims.resource.k8s.io \"%s\" not found",
                               pcs[i].claim_name, pcs[i].claim_name);
        const json_t *c = co->json;
        const char *cuid = dra_jstr(c, "metadata.uid");
        if (pcs[i].check_owner && !controlled_by(c, uid))
            return dra_err_new(DRA_EXIT_NEGATIVE,
                               "ResourceClaim %s/%s was not created for pod %s/%s (pod is not owner)", ns,
                               pcs[i].claim_name, ns, name);
        if (!reserved_for(c, uid))
            return dra_err_new(DRA_EXIT_NEGATIVE, "pod %s (%s) is not allowed to use ResourceClaim %s (%s)", name, uid,
                               pcs[i].claim_name, cuid ? cuid : "");
        if (!json_is_object(dra_jget(c, "status.allocation")))
            return dra_err_new(DRA_EXIT_NEGATIVE, "ResourceClaim %s: not allocated", pcs[i].claim_name);
        if (!k->o.optional_node_operations && claim_asks_skip(c))
            return dra_err_new(DRA_EXIT_NEGATIVE,
                               "ResourceClaim %s: DRAOptionalNodeOperations feature gate is disabled on kubelet",
                               pcs[i].claim_name);
        if (!cuid || !*cuid)
            return dra_obj_locate(
                dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value: the kubelet identifies claims by UID"),
                              "metadata.uid"),
                co);
        const char *drv[MAX_DRIVERS];
        size_t nd = claim_drivers(c, drv, MAX_DRIVERS);
        for (size_t j = 0; j < nd; j++) {
            if (claim_skip(c, drv[j]) & DRA_SKIP_PREPARE)
                continue; /* no lookup: the driver may have no node-local part */
            /* registered?  (connecting is the call's business, as upstream's GetPlugin) */
            dra_driver_loc loc = {0};
            if ((e = k->o.resolve ? k->o.resolve(k->o.resolve_ctx, drv[j], &loc) : dra_kubelet_not_registered(drv[j])))
                return e;
        }
        dra_ckpt_claim *old = dra_ckpt_find(&k->f->cp, ns, pcs[i].claim_name);
        if (old && strcmp(old->uid, cuid) != 0)
            return dra_err_new(
                DRA_EXIT_RUNTIME,
                "old ResourceClaim with same name %s and different UID %s still exists (previous pod force-deleted?!)",
                pcs[i].claim_name, old->uid);
        pcs[i].claim = c;
    }
    return NULL;
}

/* ---- answers ---- */

static const dra_claim_ref *lookup_claim(const dra_claim_ref *refs, size_t n, const char *uid)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(refs[i].uid, uid) == 0)
            return &refs[i];
    return NULL;
}

/* One driver call for `refs`; checks the answer as the kubelet does. */
static dra_err *call_driver(dra_kubelet *k, bool prepare, const char *driver, const dra_claim_ref *refs, size_t n)
{
    const char *what = prepare ? "NodePrepareResources" : "NodeUnprepareResources";
    dra_plugin *p;
    dra_err *e = plugin_for(k, driver, &p);
    if (e)
        return e;
    logf_(k, "%s: %s for %zu ResourceClaim%s", driver, what, n, n == 1 ? "" : "s");
    dra_arena a = DRA_ARENA_INIT;
    dra_prep_claim *ans = NULL;
    size_t nans = 0;
    e = prepare ? k->o.ops->prepare(p, refs, n, &a, &ans, &nans) : k->o.ops->unprepare(p, refs, n, &a, &ans, &nans);
    if (e) {
        dra_err *w = dra_err_new(DRA_EXIT_RUNTIME, "%s: %s", what, e->msg);
        dra_err_free(e);
        dra_arena_free(&a);
        return w;
    }
    for (size_t i = 0; i < nans && !e; i++) {
        const char *uid = ans[i].uid ? ans[i].uid : "";
        const dra_claim_ref *r = lookup_claim(refs, n, uid);
        if (!r) {
            e = dra_err_new(DRA_EXIT_RUNTIME, "%s returned result for unknown claim UID %s", what, uid);
        } else if (ans[i].error && *ans[i].error) {
            e = dra_err_new(DRA_EXIT_RUNTIME, "%s failed for ResourceClaim %s: %s", what, r->name, ans[i].error);
        } else if (prepare) {
            dra_ckpt_claim *c = dra_ckpt_find(&k->f->cp, r->namespace_, r->name);
            if (c)
                dra_ckpt_set_devices(&k->f->cp, c, driver, ans[i].devices, ans[i].n_devices);
        }
    }
    if (!e && nans != n)
        e = dra_err_new(DRA_EXIT_RUNTIME, "%s skipped %zd ResourceClaims", what, (ssize_t)n - (ssize_t)nans);
    dra_arena_free(&a);
    return e;
}

/* ---- CDI IDs per container (GetResources) ---- */

static bool quantity_nonzero(const json_t *v, const dra_features *f)
{
    if (json_is_integer(v))
        return json_integer_value(v) != 0;
    if (json_is_real(v))
        return json_real_value(v) != 0;
    if (!json_is_string(v))
        return false;
    dra_quantity q;
    dra_err *e = dra_quantity_parse_as(f, json_string_value(v), &q);
    if (e) {
        dra_err_free(e);
        return false;
    }
    return !dra_quantity_is_zero(&q);
}

typedef struct creq {
    const char *claim;
    const char *request; /* "" = all devices */
} creq;

static int cmp_drv(const void *a, const void *b)
{
    return strcmp((*(dra_ckpt_driver *const *)a)->name, (*(dra_ckpt_driver *const *)b)->name);
}

dra_err *dra_kubelet_container_cdi(const dra_model *m, const json_t *pod, const json_t *container, dra_checkpoint *cp,
                                   const dra_features *f, json_t *ids)
{
    const char *ns = dra_jstr(pod, "metadata.namespace");
    if (!ns)
        ns = "default";
    json_t *cclaims = dra_jget(container, "resources.claims");
    json_t *rcs = dra_jget(pod, "spec.resourceClaims");
    json_t *ext = dra_jget(pod, "status.extendedResourceClaimStatus");
    size_t cap = json_array_size(cclaims) * (json_array_size(rcs) + 1) +
                 json_array_size(json_object_get(ext, "requestMappings")) + 1;
    creq *rq = dra_xcalloc(cap, sizeof *rq);
    size_t nrq = 0, i, j;
    json_t *pc, *cc;
    /* Regular claims, in pod claim order; requests in container order. */
    json_array_foreach(rcs, i, pc) {
        const char *pcname = dra_jfield_str(pc, "name");
        bool used = false;
        json_array_foreach(cclaims, j, cc) {
            const char *n = dra_jfield_str(cc, "name");
            if (n && pcname && strcmp(n, pcname) == 0)
                used = true;
        }
        if (!used)
            continue;
        const char *cname;
        bool owner;
        dra_err *e = claim_name_of(pod, pc, &cname, &owner);
        if (e) {
            free(rq);
            return e;
        }
        if (!cname)
            continue;
        json_array_foreach(cclaims, j, cc) {
            const char *n = dra_jfield_str(cc, "name");
            if (n && strcmp(n, pcname) == 0) {
                const char *r = dra_jfield_str(cc, "request");
                rq[nrq++] = (creq){cname, r ? r : ""};
            }
        }
    }
    /* Extended resources backed by DRA. */
    const char *ecn = dra_jfield_str(ext, "resourceClaimName");
    if (ecn) {
        json_t *reqs = dra_jget(container, "resources.requests");
        json_t *lims = dra_jget(container, "resources.limits");
        const char *cn = dra_jfield_str(container, "name");
        json_t *mp;
        json_array_foreach(json_object_get(ext, "requestMappings"), i, mp) {
            const char *mc = dra_jfield_str(mp, "containerName"), *res = dra_jfield_str(mp, "resourceName"),
                       *rn = dra_jfield_str(mp, "requestName");
            if (!mc || !cn || strcmp(mc, cn) != 0 || !res || !rn)
                continue;
            json_t *qv = json_object_get(reqs, res);
            if (!qv)
                qv = json_object_get(lims, res); /* the API server defaults requests from limits */
            if (quantity_nonzero(qv, f))
                rq[nrq++] = (creq){ecn, rn};
        }
    }
    /* Claims in order of first mention, each with its request names. */
    for (i = 0; i < nrq; i++) {
        bool first = true;
        for (j = 0; j < i; j++)
            if (strcmp(rq[j].claim, rq[i].claim) == 0)
                first = false;
        if (!first)
            continue;
        dra_ckpt_claim *c = dra_ckpt_find(cp, ns, rq[i].claim);
        if (!c) {
            dra_err *e = dra_err_new(DRA_EXIT_RUNTIME,
                                     "internal error: unable to get claim info for ResourceClaim %s in namespace %s",
                                     rq[i].claim, ns);
            free(rq);
            return e;
        }
        dra_ckpt_driver **drv = dra_xmalloc((c->n_drivers + 1) * sizeof *drv);
        for (size_t d = 0; d < c->n_drivers; d++)
            drv[d] = &c->drivers[d];
        dra_sort(drv, c->n_drivers, sizeof *drv, cmp_drv);
        for (j = i; j < nrq; j++) {
            if (strcmp(rq[j].claim, rq[i].claim) != 0)
                continue;
            const char *req = rq[j].request;
            for (size_t d = 0; d < c->n_drivers; d++) {
                for (size_t x = 0; x < drv[d]->n_devices; x++) {
                    const dra_ckpt_device *dev = &drv[d]->devices[x];
                    bool match = !*req || dev->n_requests == 0;
                    for (size_t r = 0; !match && r < dev->n_requests; r++)
                        match = strcmp(dev->requests[r], req) == 0;
                    if (!match)
                        continue;
                    for (size_t r = 0; r < dev->n_cdi_ids; r++)
                        json_array_append_new(ids, json_string(dev->cdi_ids[r]));
                }
            }
        }
        free(drv);
    }
    free(rq);
    return NULL;
}

static dra_err *containers_json(const dra_model *m, const json_t *pod, dra_checkpoint *cp, const dra_features *f,
                                json_t *out, bool flat)
{
    static const char *const lists[] = {"initContainers", "containers"};
    const char *ns = dra_jstr(pod, "metadata.namespace"), *name = dra_jstr(pod, "metadata.name");
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(json_object_get(pod, "spec"), lists[l]), i, c) {
            json_t *ids = json_array();
            dra_err *e = dra_kubelet_container_cdi(m, pod, c, cp, f, ids);
            if (e) {
                json_decref(ids);
                return e;
            }
            json_t *r = json_object();
            if (flat) {
                json_object_set_new(r, "namespace", json_string(ns ? ns : "default"));
                json_object_set_new(r, "pod", json_string(name ? name : ""));
            }
            json_object_set_new(r, "container",
                                json_string(dra_jfield_str(c, "name") ? dra_jfield_str(c, "name") : ""));
            json_object_set_new(r, "cdiDevices", ids);
            json_array_append_new(out, r);
        }
    }
    return NULL;
}

/* ---- prepare ---- */

/* A pod's prepare in two halves, so that sync can record every pod before
 * calling any driver and write the checkpoint twice in all. */
typedef struct plan {
    const json_t *pod;
    pclaim *pcs;
    size_t n;
    dra_claim_ref *todo; /* claims to prepare (strings in the checkpoint) */
    const json_t **todo_claim;
    size_t nprep;
} plan;

static void plan_free(plan *p)
{
    free(p->pcs);
    free(p->todo);
    free(p->todo_claim);
    memset(p, 0, sizeof *p);
}

/* Checks, then the pod reference of every claim, in memory (*dirty when the
 * checkpoint changed).  Nothing changes when a check fails. */
static dra_err *plan_record(dra_kubelet *k, const dra_model *m, const json_t *pod, plan *p, bool *dirty)
{
    memset(p, 0, sizeof *p);
    p->pod = pod;
    dra_err *e = pod_claims(pod, &p->pcs, &p->n);
    if (!e)
        e = check_pod(k, m, pod, p->pcs, p->n);
    if (e) {
        plan_free(p);
        return e;
    }
    const char *ns, *name, *uid;
    pod_ident(pod, &ns, &name, &uid);
    char *podname = dra_xasprintf("%s/%s", ns, name ? name : "");
    dra_checkpoint *cp = &k->f->cp;
    p->todo = dra_xcalloc(p->n + 1, sizeof *p->todo);
    p->todo_claim = dra_xcalloc(p->n + 1, sizeof *p->todo_claim);
    for (size_t i = 0; i < p->n; i++) {
        if (!p->pcs[i].claim)
            continue;
        const json_t *c = p->pcs[i].claim;
        dra_ckpt_claim *ent = dra_ckpt_find(cp, ns, p->pcs[i].claim_name);
        if (!ent) {
            ent = dra_ckpt_add(cp, ns, p->pcs[i].claim_name, dra_jstr(c, "metadata.uid"));
            const char *drv[MAX_DRIVERS];
            size_t nd = claim_drivers(c, drv, MAX_DRIVERS);
            for (size_t j = 0; j < nd; j++)
                dra_ckpt_driver_get(cp, ent, drv[j])->skip = claim_skip(c, drv[j]);
            *dirty = true;
        }
        bool had_name = false;
        for (size_t j = 0; j < ent->n_pods; j++)
            if (strcmp(ent->pods[j].uid, uid) == 0 && ent->pods[j].name && strcmp(ent->pods[j].name, podname) == 0)
                had_name = true;
        if (dra_ckpt_add_pod(cp, ent, uid, podname) || !had_name)
            *dirty = true;
        if (ent->prepared) {
            logf_(k, "ResourceClaim %s/%s is prepared already", ns, p->pcs[i].claim_name);
            continue;
        }
        bool dup = false;
        for (size_t j = 0; j < p->nprep; j++)
            if (strcmp(p->todo[j].uid, ent->uid) == 0)
                dup = true;
        if (!dup) {
            p->todo[p->nprep] = (dra_claim_ref){ent->namespace_, ent->uid, ent->name};
            p->todo_claim[p->nprep++] = c;
        }
    }
    free(podname);
    return NULL;
}

/* Whether the checkpoint says `driver` is not called for `ref`'s claim. */
static bool driver_skips(dra_checkpoint *cp, const dra_claim_ref *ref, const char *driver, unsigned op)
{
    dra_ckpt_claim *c = dra_ckpt_find(cp, ref->namespace_, ref->name);
    for (size_t i = 0; c && i < c->n_drivers; i++)
        if (strcmp(c->drivers[i].name, driver) == 0)
            return (c->drivers[i].skip & op) != 0;
    return false;
}

/* One call per driver with all the pod's claims not prepared yet; marks
 * them prepared in memory.  *called: a driver was called; *marked: a claim
 * was marked prepared (with every driver call skipped, none was made). */
static dra_err *plan_call(dra_kubelet *k, plan *p, bool *called, bool *marked)
{
    dra_checkpoint *cp = &k->f->cp;
    /* a claim shared with a pod prepared earlier in this run is done */
    size_t n = 0;
    for (size_t i = 0; i < p->nprep; i++) {
        dra_ckpt_claim *ent = dra_ckpt_find(cp, p->todo[i].namespace_, p->todo[i].name);
        if (ent && ent->prepared)
            continue;
        p->todo[n] = p->todo[i];
        p->todo_claim[n++] = p->todo_claim[i];
    }
    p->nprep = n;
    const char *drivers[MAX_DRIVERS];
    size_t ndrivers = 0;
    for (size_t i = 0; i < n; i++) {
        const char *drv[MAX_DRIVERS];
        size_t nd = claim_drivers(p->todo_claim[i], drv, MAX_DRIVERS);
        for (size_t j = 0; j < nd; j++) {
            size_t x;
            for (x = 0; x < ndrivers; x++)
                if (strcmp(drivers[x], drv[j]) == 0)
                    break;
            if (x == ndrivers && ndrivers < MAX_DRIVERS)
                drivers[ndrivers++] = drv[j];
        }
    }
    dra_err *e = NULL;
    dra_claim_ref *batch = dra_xcalloc(n + 1, sizeof *batch);
    for (size_t d = 0; d < ndrivers && !e; d++) {
        size_t nb = 0, nskip = 0;
        for (size_t i = 0; i < n; i++) {
            const char *drv[MAX_DRIVERS];
            size_t nd = claim_drivers(p->todo_claim[i], drv, MAX_DRIVERS);
            for (size_t j = 0; j < nd; j++) {
                if (strcmp(drv[j], drivers[d]) != 0)
                    continue;
                if (driver_skips(cp, &p->todo[i], drivers[d], DRA_SKIP_PREPARE))
                    nskip++;
                else
                    batch[nb++] = p->todo[i];
            }
        }
        if (nskip)
            logf_(k, "%s: NodePrepareResources skipped for %zu ResourceClaim%s (skipNodeOperations)", drivers[d], nskip,
                  nskip == 1 ? "" : "s");
        if (!nb)
            continue;
        *called = true;
        e = call_driver(k, true, drivers[d], batch, nb);
    }
    free(batch);
    for (size_t i = 0; i < n && !e; i++) {
        dra_ckpt_claim *ent = dra_ckpt_find(cp, p->todo[i].namespace_, p->todo[i].name);
        if (ent && !ent->prepared)
            ent->prepared = *marked = true;
    }
    return e;
}

static dra_err *save(dra_kubelet *k, const char *what)
{
    dra_err *se = dra_ckpt_save(k->f);
    if (!se)
        return NULL;
    dra_err *e = dra_err_new(DRA_EXIT_RUNTIME, "%s: %s", what, se->msg);
    dra_err_free(se);
    return e;
}

static dra_err *prepare_pod(dra_kubelet *k, const dra_model *m, const json_t *pod)
{
    plan p;
    bool dirty = false, called = false, marked = false;
    dra_err *e = plan_record(k, m, pod, &p, &dirty);
    if (e)
        return e;
    /* the pod references are on disk before any driver is called */
    if (dirty)
        e = save(k, "checkpoint ResourceClaim cache");
    if (!e)
        e = plan_call(k, &p, &called, &marked);
    if (!e && called && k->o.after_rpc)
        k->o.after_rpc(k->o.after_rpc_ctx);
    if (!e && (called || marked))
        e = save(k, "checkpoint ResourceClaim state");
    plan_free(&p);
    return e;
}

static const json_t *find_pod(const dra_model *m, const char *ns, const char *name)
{
    const dra_obj *o = dra_model_pod(m, ns, name);
    return o ? o->json : NULL;
}

dra_err *dra_kubelet_prepare(dra_kubelet *k, const dra_model *m, const char *ns, const char *name, json_t *out)
{
    const json_t *pod = find_pod(m, ns, name);
    if (!pod)
        return dra_err_new(DRA_EXIT_INPUT, "pod %s/%s is not in the input", ns, name);
    dra_err *e = prepare_pod(k, m, pod);
    if (!e)
        e = containers_json(m, pod, &k->f->cp, &k->o.features, out, true);
    return e;
}

/* ---- unprepare ---- */

static json_t *claim_record(const char *action, const dra_ckpt_claim *c, const char *pod_uid)
{
    json_t *r = json_object();
    json_object_set_new(r, "action", json_string(action));
    json_object_set_new(r, "namespace", json_string(c->namespace_));
    json_object_set_new(r, "claim", json_string(c->name));
    json_object_set_new(r, "uid", json_string(c->uid));
    json_t *pods = json_array();
    json_array_append_new(pods, json_string(pod_uid));
    json_object_set_new(r, "pods", pods);
    return r;
}

/* unprepareResources for one pod UID; the checkpoint is written unless
 * *deferred is given (then it is set when a write is due). */
static dra_err *unprepare_uid(dra_kubelet *k, const char *pod_uid, json_t *out, bool *deferred)
{
    dra_checkpoint *cp = &k->f->cp;
    size_t n = 0;
    dra_claim_ref *refs = dra_xcalloc(cp->n + 1, sizeof *refs);
    bool dirty = false;
    for (size_t i = 0; i < cp->n; i++) {
        dra_ckpt_claim *c = &cp->claims[i];
        if (!dra_ckpt_has_pod(c, pod_uid))
            continue;
        if (c->n_pods > 1) {
            dra_ckpt_remove_pod(c, pod_uid);
            json_array_append_new(out, claim_record("release", c, pod_uid));
            dirty = true;
            continue;
        }
        refs[n++] = (dra_claim_ref){c->namespace_, c->uid, c->name};
    }
    dra_err *e = NULL;
    /* Drivers in order of first appearance. */
    for (size_t i = 0; i < n && !e; i++) {
        dra_ckpt_claim *ci = dra_ckpt_find(cp, refs[i].namespace_, refs[i].name);
        for (size_t d = 0; d < ci->n_drivers && !e; d++) {
            const char *drv = ci->drivers[d].name;
            bool seen = false;
            for (size_t j = 0; j < i && !seen; j++) {
                dra_ckpt_claim *cj = dra_ckpt_find(cp, refs[j].namespace_, refs[j].name);
                for (size_t x = 0; x < cj->n_drivers; x++)
                    if (strcmp(cj->drivers[x].name, drv) == 0)
                        seen = true;
            }
            for (size_t x = 0; x < d; x++)
                if (strcmp(ci->drivers[x].name, drv) == 0)
                    seen = true;
            if (seen)
                continue;
            dra_claim_ref *batch = dra_xcalloc(n + 1, sizeof *batch);
            size_t nb = 0, nskip = 0;
            for (size_t j = i; j < n; j++) {
                dra_ckpt_claim *cj = dra_ckpt_find(cp, refs[j].namespace_, refs[j].name);
                for (size_t x = 0; x < cj->n_drivers; x++)
                    if (strcmp(cj->drivers[x].name, drv) == 0) {
                        if (cj->drivers[x].skip & DRA_SKIP_UNPREPARE)
                            nskip++;
                        else
                            batch[nb++] = refs[j];
                        break;
                    }
            }
            if (nskip)
                logf_(k, "%s: NodeUnprepareResources skipped for %zu ResourceClaim%s (skipNodeOperations)", drv, nskip,
                      nskip == 1 ? "" : "s");
            if (nb)
                e = call_driver(k, false, drv, batch, nb);
            free(batch);
        }
    }
    if (!e) {
        /* refs point into the entries: copy the keys before removing. */
        for (size_t i = 0; i < n; i++) {
            char *ns = dra_xstrdup(refs[i].namespace_), *nm = dra_xstrdup(refs[i].name);
            dra_ckpt_claim *c = dra_ckpt_find(cp, ns, nm);
            if (c) {
                json_array_append_new(out, claim_record("unprepare", c, pod_uid));
                dra_ckpt_remove(cp, c);
                dirty = true;
            }
            free(ns);
            free(nm);
        }
        if (dirty && deferred)
            *deferred = true;
        else if (dirty)
            e = save(k, "checkpoint ResourceClaim state");
    } else if (dirty && deferred) {
        *deferred = true; /* released references */
    }
    free(refs);
    return e;
}

dra_err *dra_kubelet_unprepare(dra_kubelet *k, const dra_model *m, const char *ns, const char *name, json_t *out)
{
    const json_t *pod = find_pod(m, ns, name);
    const char *uid = pod ? dra_jstr(pod, "metadata.uid") : NULL;
    if (uid && *uid)
        return unprepare_uid(k, uid, out, NULL);
    /* The pod is gone from the input: find it by name in the checkpoint. */
    char *want = dra_xasprintf("%s/%s", ns, name);
    char **uids = NULL;
    size_t nu = 0;
    dra_checkpoint *cp = &k->f->cp;
    for (size_t i = 0; i < cp->n; i++) {
        for (size_t j = 0; j < cp->claims[i].n_pods; j++) {
            const dra_ckpt_pod *p = &cp->claims[i].pods[j];
            if (!p->name || strcmp(p->name, want) != 0)
                continue;
            bool seen = false;
            for (size_t x = 0; x < nu; x++)
                if (strcmp(uids[x], p->uid) == 0)
                    seen = true;
            if (!seen) {
                uids = dra_xgrow(uids, nu, sizeof *uids);
                uids[nu++] = dra_xstrdup(p->uid);
            }
        }
    }
    dra_err *e = NULL;
    if (!pod && nu == 0)
        e = dra_err_new(DRA_EXIT_INPUT, "pod %s is neither in the input nor in the checkpoint", want);
    for (size_t i = 0; i < nu && !e; i++)
        e = unprepare_uid(k, uids[i], out, NULL);
    for (size_t i = 0; i < nu; i++)
        free(uids[i]);
    free(uids);
    free(want);
    return e;
}

/* ---- sync ---- */

static bool active_on(const json_t *pod, const char *node)
{
    const char *nn = dra_jfield_str(json_object_get(pod, "spec"), "nodeName");
    if (!nn || strcmp(nn, node) != 0)
        return false;
    const char *phase = dra_jfield_str(json_object_get(pod, "status"), "phase");
    return !phase || (strcmp(phase, "Succeeded") != 0 && strcmp(phase, "Failed") != 0);
}

static bool uses_claims(const json_t *pod)
{
    return json_array_size(dra_jget(pod, "spec.resourceClaims")) > 0 ||
           dra_jfield_str(dra_jget(pod, "status.extendedResourceClaimStatus"), "resourceClaimName");
}

static dra_err *about_pod(dra_err *e, const char *ns, const char *name, const char *uid)
{
    if (!e)
        return e;
    char *o = name ? dra_xasprintf("Pod/%s/%s", ns, name) : dra_xasprintf("Pod/%s", uid);
    for (dra_err *x = e; x; x = x->next)
        if (!x->object)
            x = dra_err_object(x, o);
    free(o);
    return e;
}

dra_err *dra_kubelet_sync(dra_kubelet *k, const dra_model *m, const char *node, json_t *out)
{
    const dra_model_list *pods = dra_model_kind(m, DRA_KIND_POD);
    dra_err *errs = NULL;
    /* Active pods of the node. */
    const char **active = dra_xcalloc(pods->n + 1, sizeof *active);
    size_t nact = 0;
    for (size_t i = 0; i < pods->n; i++) {
        const char *uid = dra_jstr(pods->v[i]->json, "metadata.uid");
        if (uid && active_on(pods->v[i]->json, node))
            active[nact++] = uid;
    }
    /* Pods the checkpoint knows that are not active: unprepare. */
    dra_checkpoint *cp = &k->f->cp;
    char **gone = NULL;
    char **gone_name = NULL;
    size_t ngone = 0;
    for (size_t i = 0; i < cp->n; i++) {
        for (size_t j = 0; j < cp->claims[i].n_pods; j++) {
            const dra_ckpt_pod *p = &cp->claims[i].pods[j];
            bool keep = false;
            for (size_t x = 0; x < nact && !keep; x++)
                keep = strcmp(active[x], p->uid) == 0;
            for (size_t x = 0; x < ngone && !keep; x++)
                keep = strcmp(gone[x], p->uid) == 0;
            if (keep)
                continue;
            gone = dra_xgrow(gone, ngone, sizeof *gone);
            gone_name = dra_xgrow(gone_name, ngone, sizeof *gone_name);
            gone[ngone] = dra_xstrdup(p->uid);
            gone_name[ngone++] = p->name ? dra_xstrdup(p->name) : NULL;
        }
    }
    bool dirty = false;
    for (size_t i = 0; i < ngone; i++) {
        logf_(k, "pod %s (%s) is gone or finished: unpreparing its claims", gone_name[i] ? gone_name[i] : "?", gone[i]);
        dra_err *e = unprepare_uid(k, gone[i], out, &dirty);
        if (e) {
            char *slash = gone_name[i] ? strchr(gone_name[i], '/') : NULL;
            if (slash)
                *slash = 0;
            errs = dra_err_append(errs, about_pod(e, gone_name[i], slash ? slash + 1 : NULL, gone[i]));
        }
        free(gone[i]);
        free(gone_name[i]);
    }
    free(gone);
    free(gone_name);
    /* Every active pod: record all, one write, the driver calls, one write. */
    plan *plans = dra_xcalloc(pods->n + 1, sizeof *plans);
    dra_err **perr = dra_xcalloc(pods->n + 1, sizeof *perr);
    bool *want = dra_xcalloc(pods->n + 1, sizeof *want);
    bool *touched = dra_xcalloc(pods->n + 1, sizeof *touched); /* the run changed the pod's claims */
    for (size_t i = 0; i < pods->n; i++) {
        const json_t *pod = pods->v[i]->json;
        if (!dra_jstr(pod, "metadata.uid") || !active_on(pod, node) || !uses_claims(pod))
            continue;
        want[i] = true;
        perr[i] = plan_record(k, m, pod, &plans[i], &touched[i]);
        dirty |= touched[i];
    }
    dra_err *se = dirty ? save(k, "checkpoint ResourceClaim cache") : NULL;
    bool called = false, marked = false;
    for (size_t i = 0; i < pods->n && !se; i++) {
        if (!want[i] || perr[i])
            continue;
        bool c = false, mk = false;
        perr[i] = plan_call(k, &plans[i], &c, &mk);
        touched[i] |= c || mk;
        called |= c;
        marked |= mk;
    }
    if (!se && called && k->o.after_rpc)
        k->o.after_rpc(k->o.after_rpc_ctx);
    if (!se && (called || marked))
        se = save(k, "checkpoint ResourceClaim state");
    for (size_t i = 0; i < pods->n; i++) {
        const json_t *pod = pods->v[i]->json;
        if (!want[i])
            continue;
        const char *ns = dra_jstr(pod, "metadata.namespace") ? dra_jstr(pod, "metadata.namespace") : "default",
                   *name = dra_jstr(pod, "metadata.name");
        dra_err *e = perr[i];
        json_t *containers = json_array();
        if (!e && !se)
            e = containers_json(m, pod, cp, &k->o.features, containers, false);
        plan_free(&plans[i]);
        if (e || se || !touched[i]) { /* a pod left as it was is not reported */
            json_decref(containers);
            if (e)
                errs = dra_err_append(errs, about_pod(e, ns, name, NULL));
            continue;
        }
        json_t *r = json_object();
        json_object_set_new(r, "action", json_string("prepare"));
        json_object_set_new(r, "namespace", json_string(ns));
        json_object_set_new(r, "pod", json_string(name ? name : ""));
        json_object_set_new(r, "containers", containers);
        json_array_append_new(out, r);
    }
    errs = dra_err_append(errs, se);
    free(plans);
    free(perr);
    free(want);
    free(touched);
    free(active);
    /* The exit class of the whole run is the worst of its errors. */
    int worst = 0;
    for (dra_err *x = errs; x; x = x->next)
        if (x->code > worst)
            worst = x->code;
    if (errs)
        errs->code = worst;
    return errs;
}

/* ---- tables ---- */

static char *join_ids(const json_t *ids)
{
    if (json_array_size(ids) == 0)
        return NULL;
    dra_buf b = DRA_BUF_INIT;
    size_t i;
    json_t *s;
    json_array_foreach(ids, i, s)
        dra_buf_printf(&b, "%s%s", i ? "," : "", json_string_value(s) ? json_string_value(s) : "");
    return dra_buf_detach(&b);
}

dra_err *dra_kubelet_table(FILE *f, const json_t *records, bool actions)
{
    size_t n = 0, i, j;
    json_t *r, *c;
    json_array_foreach(records, i, r) {
        json_t *cs = json_object_get(r, "containers");
        n += cs ? (json_array_size(cs) ? json_array_size(cs) : 1) : 1;
    }
    const size_t nc = 4;
    char **cells = dra_xcalloc((n + 1) * nc, sizeof *cells);
    const char *head[] = {"NAMESPACE", "POD", "CONTAINER", "CDI DEVICES"};
    const char *ahead[] = {"ACTION", "NAMESPACE", "OBJECT", "DETAILS"};
    for (size_t k = 0; k < nc; k++)
        cells[k] = dra_xstrdup(actions ? ahead[k] : head[k]);
    size_t row = 1;
    json_array_foreach(records, i, r) {
        char **x = &cells[row * nc];
        const char *ns = dra_jfield_str(r, "namespace");
        const char *action = dra_jfield_str(r, "action");
        if (!action) {
            x[0] = dra_xstrdup(ns ? ns : "");
            x[1] = dra_xstrdup(dra_jfield_str(r, "pod") ? dra_jfield_str(r, "pod") : "");
            x[2] = dra_xstrdup(dra_jfield_str(r, "container") ? dra_jfield_str(r, "container") : "");
            x[3] = join_ids(json_object_get(r, "cdiDevices"));
            row++;
        } else if (strcmp(action, "prepare") == 0) {
            json_t *cs = json_object_get(r, "containers");
            if (json_array_size(cs) == 0) {
                x[0] = dra_xstrdup(action);
                x[1] = dra_xstrdup(ns ? ns : "");
                x[2] = dra_xasprintf("pod/%s", dra_jfield_str(r, "pod") ? dra_jfield_str(r, "pod") : "");
                row++;
            }
            json_array_foreach(cs, j, c) {
                x = &cells[row * nc];
                x[0] = dra_xstrdup(action);
                x[1] = dra_xstrdup(ns ? ns : "");
                x[2] = dra_xasprintf("pod/%s/%s", dra_jfield_str(r, "pod") ? dra_jfield_str(r, "pod") : "",
                                     dra_jfield_str(c, "container") ? dra_jfield_str(c, "container") : "");
                x[3] = join_ids(json_object_get(c, "cdiDevices"));
                row++;
            }
        } else {
            x[0] = dra_xstrdup(action);
            x[1] = dra_xstrdup(ns ? ns : "");
            x[2] = dra_xasprintf("resourceclaim/%s", dra_jfield_str(r, "claim") ? dra_jfield_str(r, "claim") : "");
            const char *p = json_string_value(json_array_get(json_object_get(r, "pods"), 0));
            x[3] =
                dra_xasprintf("uid %s, pod %s", dra_jfield_str(r, "uid") ? dra_jfield_str(r, "uid") : "", p ? p : "");
            row++;
        }
    }
    dra_err *e = dra_table_write(f, (const char *const *)cells, row, nc);
    for (i = 0; i < (n + 1) * nc; i++)
        free(cells[i]);
    free(cells);
    return e;
}
