/* Classic DRA scheduling; see classic.h.  Messages follow release-1.30
 * dynamicresources.go where it has them. */
#include "classic.h"

#include <stdlib.h>
#include <string.h>

#include "../alloc/alloc.h"
#include "../io/json.h"
#include "schedule.h"

#define MAX_POTENTIAL 128 /* resourcev1alpha2.PodSchedulingNodeListMaxSize */

typedef struct run {
    const dra_objset *set;
    const dra_model *m;
    json_t *const *nodes;
    size_t nnodes;
    const dra_classic_sched_opts *o;
    json_t *claims;   /* "ns/name" -> working copy of every classic claim */
    json_t *made;     /* keys of claims made here */
    json_t *changed;  /* keys of claims changed */
    json_t *pscs;     /* "ns/name" -> PodSchedulingContext (copy or new) */
    json_t *out_pods; /* bound or updated pods */
} run;

static char *key_of(const char *ns, const char *name)
{
    return dra_xasprintf("%s/%s", ns ? ns : "", name ? name : "");
}

static bool has_driver(const run *r, const char *driver)
{
    for (size_t i = 0; driver && i < r->o->ndrivers; i++)
        if (strcmp(r->o->drivers[i], driver) == 0)
            return true;
    return false;
}

static const json_t *class_of(const run *r, const json_t *claim)
{
    const char *cls = dra_jfield_str(json_object_get(claim, "spec"), "resourceClassName");
    const dra_obj *o = cls ? dra_model_find(r->m, DRA_KIND_RESOURCE_CLASS, NULL, cls) : NULL;
    return o ? o->json : NULL;
}

/* The object a parametersRef names, from the input (any kind); NULL when absent. */
static const json_t *parameters_of(const run *r, const json_t *ref, const char *ns)
{
    const char *kind = dra_jfield_str(ref, "kind"), *name = dra_jfield_str(ref, "name");
    if (!kind || !name)
        return NULL;
    const char *rns = dra_jfield_str(ref, "namespace") ? dra_jfield_str(ref, "namespace") : ns;
    for (size_t i = 0; i < r->set->n; i++) {
        const json_t *o = r->set->v[i].json;
        const json_t *md = json_object_get(o, "metadata");
        const char *ons = dra_jfield_str(md, "namespace");
        if (dra_jfield_str(o, "kind") && strcmp(dra_jfield_str(o, "kind"), kind) == 0 && dra_jfield_str(md, "name") &&
            strcmp(dra_jfield_str(md, "name"), name) == 0 && (!rns || !ons || strcmp(ons, rns) == 0))
            return o;
    }
    return NULL;
}

static void mark_changed(run *r, const char *key)
{
    json_object_set_new(r->changed, key, json_true());
}

/* Ask the claim's driver; the answer checked against the contract. */
static dra_err *ask(run *r, json_t *claim, const json_t *cls, json_t *potential, const char *selected, json_t **answer)
{
    const char *driver = dra_jfield_str(cls, "driverName");
    const char *ns = dra_jfield_str(json_object_get(claim, "metadata"), "namespace");
    const json_t *params = parameters_of(r, dra_jget(claim, "spec.parametersRef"), ns);
    json_t *q =
        json_pack("{s:O,s:O,s:O,s:o,s:o}", "claim", claim, "class", cls, "parameters", params ? params : json_null(),
                  "potentialNodes", potential ? json_incref(potential) : json_array(), "selectedNode",
                  selected ? json_string(selected) : json_null());
    dra_err *e = r->o->ask(r->o->ctx, driver, q, answer);
    json_decref(q);
    if (e)
        return e;
    const json_t *a = *answer;
    const json_t *un = json_object_get(a, "unsuitableNodes"), *al = json_object_get(a, "allocation");
    const char *bad = NULL;
    if (!json_is_object(a))
        bad = "not a JSON object";
    else if (!un && !al)
        bad = "neither \"unsuitableNodes\" nor \"allocation\"";
    else if (un && !json_is_array(un))
        bad = "\"unsuitableNodes\" is not a list";
    else if (al && !json_is_object(al))
        bad = "\"allocation\" is not an object";
    else if (al && json_object_get(al, "resourceHandles") && !json_is_array(json_object_get(al, "resourceHandles")))
        bad = "\"allocation.resourceHandles\" is not a list";
    else if (al && json_object_get(al, "availableOnNodes") && !json_is_object(json_object_get(al, "availableOnNodes")))
        bad = "\"allocation.availableOnNodes\" is not an object";
    for (size_t i = 0; !bad && json_is_array(un) && i < json_array_size(un); i++)
        if (!json_is_string(json_array_get(un, i)))
            bad = "\"unsuitableNodes\" holds a value that is not a node name";
    if (bad) {
        json_decref(*answer);
        *answer = NULL;
        return dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: invalid answer: %s", driver, bad);
    }
    return NULL;
}

static bool in_strings(const json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
            return true;
    return false;
}

static void apply_allocation(run *r, json_t *claim, const char *key, const json_t *cls, const json_t *alloc)
{
    json_t *st = json_object_get(claim, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(claim, "status", st);
    }
    json_object_set(st, "allocation", (json_t *)alloc);
    json_object_set_new(st, "driverName", json_string(dra_jfield_str(cls, "driverName")));
    mark_changed(r, key);
}

static bool node_ok(const json_t *sel, const json_t *node)
{
    if (!sel || json_is_null(sel))
        return true;
    bool m = false;
    dra_err *e = dra_node_selector_match(sel, node, &m);
    dra_err_free(e);
    return !e && m;
}

static const char *node_name(const json_t *node)
{
    return dra_jfield_str(json_object_get(node, "metadata"), "name");
}

/* PodSchedulingContext of the pod (made when absent). */
static json_t *psc_for(run *r, const json_t *pod, const char *pkey)
{
    json_t *psc = json_object_get(r->pscs, pkey);
    if (psc)
        return psc;
    const json_t *md = json_object_get(pod, "metadata");
    psc = json_pack("{s:s,s:s,s:{s:s,s:s,s:[{s:s,s:s,s:s,s:s,s:b}]},s:{},s:{}}", "apiVersion",
                    "resource.k8s.io/v1alpha2", "kind", "PodSchedulingContext", "metadata", "name",
                    dra_jfield_str(md, "name"), "namespace", dra_jfield_str(md, "namespace"), "ownerReferences",
                    "apiVersion", "v1", "kind", "Pod", "name", dra_jfield_str(md, "name"), "uid",
                    dra_jfield_str(md, "uid") ? dra_jfield_str(md, "uid") : "", "controller", 1, "spec", "status");
    json_object_set_new(r->pscs, pkey, psc);
    return psc;
}

static json_t *psc_unsuitable(json_t *psc, const char *entry, bool create)
{
    json_t *st = json_object_get(psc, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(psc, "status", st);
    }
    json_t *rc = json_object_get(st, "resourceClaims");
    if (!json_is_array(rc)) {
        rc = json_array();
        json_object_set_new(st, "resourceClaims", rc);
    }
    size_t i;
    json_t *c;
    json_array_foreach(rc, i, c)
        if (dra_jfield_str(c, "name") && strcmp(dra_jfield_str(c, "name"), entry) == 0) {
            json_t *u = json_object_get(c, "unsuitableNodes");
            if (!json_is_array(u) && create) {
                u = json_array();
                json_object_set_new(c, "unsuitableNodes", u);
            }
            return u;
        }
    if (!create)
        return NULL;
    json_t *u = json_array();
    json_array_append_new(rc, json_pack("{s:s,s:o}", "name", entry, "unsuitableNodes", u));
    return u;
}

typedef struct pclaim {
    const char *entry; /* the pod's name for it */
    char *key;
    json_t *claim; /* working copy */
    const json_t *cls;
} pclaim;

static bool allocated(const json_t *claim)
{
    return json_is_object(dra_jget(claim, "status.allocation"));
}

static bool reserved_for(const json_t *claim, const char *uid, const char *name)
{
    size_t i;
    json_t *u;
    json_array_foreach(dra_jget(claim, "status.reservedFor"), i, u) {
        const char *uu = dra_jfield_str(u, "uid"), *un = dra_jfield_str(u, "name");
        if ((uid && uu && *uid && strcmp(uu, uid) == 0) || (un && name && strcmp(un, name) == 0))
            return true;
    }
    return false;
}

/* One pod's try: its classic claims and the state the phases share. */
typedef struct podtry {
    run *r;
    const json_t *pod0;
    const char *ns, *pname, *uid;
    pclaim *pc;
    size_t npc;
    json_t *pod; /* copy, when the pod changes */
    char *pkey;  /* "ns/name" of the pod (and of its PodSchedulingContext) */
} podtry;

/* The claim the resourceclaim controller makes from classic template tname
 * for the pod's entry (when not there yet), recorded in the pod's status. */
static char *template_claim(podtry *p, const char *entry, const char *tname)
{
    run *r = p->r;
    /* the claim made from it: recorded in the pod's status, else <pod>-<entry> */
    size_t k;
    json_t *s;
    const char *cname = NULL;
    json_array_foreach(dra_jget(p->pod0, "status.resourceClaimStatuses"), k, s)
        if (dra_jfield_str(s, "name") && entry && strcmp(dra_jfield_str(s, "name"), entry) == 0)
            cname = dra_jfield_str(s, "resourceClaimName");
    char *made = cname ? NULL : dra_xasprintf("%s-%s", p->pname, entry ? entry : "");
    char *key = key_of(p->ns, cname ? cname : made);
    if (!json_object_get(r->claims, key)) {
        const dra_obj *t = dra_model_find(r->m, DRA_KIND_CLASSIC_CLAIM_TEMPLATE, p->ns, tname);
        const json_t *tspec = json_object_get(t->json, "spec");
        json_t *c = json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s},s:[{s:s,s:s,s:s,s:s,s:b,s:b}]},s:O}", "apiVersion",
                              "resource.k8s.io/v1alpha2", "kind", "ResourceClaim", "metadata", "name",
                              cname ? cname : made, "namespace", p->ns, "annotations",
                              "resource.kubernetes.io/pod-claim-name", entry ? entry : "", "ownerReferences",
                              "apiVersion", "v1", "kind", "Pod", "name", p->pname, "uid", p->uid ? p->uid : "",
                              "controller", 1, "blockOwnerDeletion", 1, "spec", json_object_get(tspec, "spec"));
        json_t *tl = dra_jget(tspec, "metadata.labels");
        if (json_is_object(tl))
            json_object_set(json_object_get(c, "metadata"), "labels", tl);
        json_object_set_new(r->claims, key, c);
        json_object_set_new(r->made, key, json_true());
        if (!p->pod)
            p->pod = json_deep_copy(p->pod0);
        json_t *st = json_object_get(p->pod, "status");
        if (!json_is_object(st)) {
            st = json_object();
            json_object_set_new(p->pod, "status", st);
        }
        json_t *rcs = json_object_get(st, "resourceClaimStatuses");
        if (!json_is_array(rcs)) {
            rcs = json_array();
            json_object_set_new(st, "resourceClaimStatuses", rcs);
        }
        json_array_append_new(
            rcs, json_pack("{s:s,s:s}", "name", entry ? entry : "", "resourceClaimName", cname ? cname : made));
    }
    free(made);
    return key;
}

/* The pod's classic claims, in the order of its entries (claims from
 * classic templates made first); structured ones are left to the other pass. */
static void pod_claims(podtry *p)
{
    run *r = p->r;
    json_t *entries = dra_jget(p->pod0, "spec.resourceClaims");
    p->pc = dra_xcalloc(json_array_size(entries) + 1, sizeof *p->pc);
    size_t i;
    json_t *en;
    json_array_foreach(entries, i, en) {
        const char *entry = dra_jfield_str(en, "name");
        const char *cname = dra_jfield_str(en, "resourceClaimName");
        const char *tname = dra_jfield_str(en, "resourceClaimTemplateName");
        if (tname) {
            if (!dra_model_find(r->m, DRA_KIND_CLASSIC_CLAIM_TEMPLATE, p->ns, tname))
                continue; /* a structured template: not ours */
            char *key = template_claim(p, entry, tname);
            p->pc[p->npc++] = (pclaim){entry, key, json_object_get(r->claims, key), NULL};
            continue;
        }
        if (!cname)
            continue;
        char *key = key_of(p->ns, cname);
        json_t *c = json_object_get(r->claims, key);
        if (!c) {
            free(key);
            continue; /* not a classic claim: the structured pass sees it */
        }
        p->pc[p->npc++] = (pclaim){entry, key, c, NULL};
    }
}

/* PreFilter: why the pod cannot be scheduled whatever the node, or NULL. */
static char *prefilter(podtry *p)
{
    char *why = NULL;
    for (size_t k = 0; k < p->npc && !why; k++) {
        json_t *c = p->pc[k].claim;
        const char *cname = dra_jfield_str(json_object_get(c, "metadata"), "name");
        p->pc[k].cls = class_of(p->r, c);
        if (json_is_true(dra_jget(c, "status.deallocationRequested")))
            why = dra_xstrdup("resourceclaim must be reallocated");
        else if (!allocated(c) && dra_jfield_str(json_object_get(c, "spec"), "allocationMode") &&
                 strcmp(dra_jfield_str(json_object_get(c, "spec"), "allocationMode"), "Immediate") == 0)
            why = dra_xstrdup("unallocated immediate resourceclaim");
        else if (!p->pc[k].cls)
            why = dra_xasprintf("resource class %s does not exist",
                                dra_jfield_str(json_object_get(c, "spec"), "resourceClassName"));
        else if (allocated(c) && json_array_size(dra_jget(c, "status.reservedFor")) &&
                 !json_is_true(json_object_get(dra_jget(c, "status.allocation"), "shareable")) &&
                 !reserved_for(c, p->uid, p->pname))
            why = dra_xstrdup("resourceclaim in use");
        else if (!allocated(c) && !has_driver(p->r, dra_jfield_str(p->pc[k].cls, "driverName")))
            why = dra_xasprintf("waiting for resource driver to allocate resource (resourceclaim %s: no "
                                "--classic-driver for %s)",
                                cname, dra_jfield_str(p->pc[k].cls, "driverName"));
    }
    return why;
}

/* Filter: the names of the nodes every claim can use (a new array); when
 * there is none, *fit is the fit error. */
static json_t *filter(podtry *p, char **fit)
{
    run *r = p->r;
    json_t *cand = json_array();
    const char **reasons = dra_xcalloc(r->nnodes + 1, sizeof *reasons);
    for (size_t n = 0; n < r->nnodes; n++) {
        const json_t *node = r->nodes[n];
        bool ok = true;
        for (size_t k = 0; k < p->npc && ok; k++) {
            json_t *c = p->pc[k].claim;
            if (allocated(c)) {
                ok = node_ok(json_object_get(dra_jget(c, "status.allocation"), "availableOnNodes"), node);
                if (!ok)
                    reasons[n] = "resourceclaim not available on the node";
            } else {
                ok = node_ok(json_object_get(p->pc[k].cls, "suitableNodes"), node);
                json_t *ex = json_object_get(r->pscs, p->pkey);
                json_t *un = ex && p->pc[k].entry ? psc_unsuitable(ex, p->pc[k].entry, false) : NULL;
                ok = ok && !(un && in_strings(un, node_name(node)));
                if (!ok)
                    reasons[n] = "resourceclaim cannot be allocated for the node (unsuitable)";
            }
        }
        if (ok && node_name(node))
            json_array_append_new(cand, json_string(node_name(node)));
    }
    *fit = json_array_size(cand) ? NULL : dra_sched_fit_error(reasons, r->nnodes);
    free(reasons);
    return cand;
}

/* PostFilter: no node fits; an allocated claim nobody uses may be what
 * blocks: its deallocation is requested.  The pod's message (fit taken). */
static char *postfilter(podtry *p, char *fit)
{
    char *why = NULL;
    for (size_t k = 0; k < p->npc; k++) {
        json_t *c = p->pc[k].claim;
        if (allocated(c) && !json_array_size(dra_jget(c, "status.reservedFor"))) {
            json_object_set_new(json_object_get(c, "status"), "deallocationRequested", json_true());
            mark_changed(p->r, p->pc[k].key);
            why = dra_xasprintf("%s (deallocation of resourceclaim %s requested)", fit,
                                dra_jfield_str(json_object_get(c, "metadata"), "name"));
            break;
        }
    }
    if (!why)
        why = dra_xstrdup(fit);
    free(fit);
    return why;
}

/* Unsuitable nodes of an answer into the context's list for the entry. */
static void add_unsuitable(json_t *psc, const char *entry, const json_t *un)
{
    json_t *dst = un && entry ? psc_unsuitable(psc, entry, true) : NULL;
    for (size_t j = 0; dst && j < json_array_size(un); j++)
        if (!in_strings(dst, json_string_value(json_array_get(un, j))))
            json_array_append(dst, json_array_get(un, j));
}

/* PreScore: the potential nodes (at most 128) into the pod's
 * PodSchedulingContext, and what the drivers find unsuitable among them. */
static dra_err *prescore(podtry *p, json_t *psc, const json_t *cand, json_t **potential)
{
    json_t *spec = json_object_get(psc, "spec");
    if (!json_is_object(spec)) {
        spec = json_object();
        json_object_set_new(psc, "spec", spec);
    }
    *potential = json_array();
    for (size_t k = 0; k < json_array_size(cand) && k < MAX_POTENTIAL; k++)
        json_array_append(*potential, json_array_get(cand, k));
    json_object_set_new(spec, "potentialNodes", *potential);
    dra_err *e = NULL;
    for (size_t k = 0; k < p->npc && !e; k++) {
        if (allocated(p->pc[k].claim))
            continue;
        json_t *a = NULL;
        e = ask(p->r, p->pc[k].claim, p->pc[k].cls, *potential, NULL, &a);
        if (!e)
            add_unsuitable(psc, p->pc[k].entry, json_object_get(a, "unsuitableNodes"));
        json_decref(a);
    }
    return e;
}

/* Whether potential node `node` is still suitable for every claim. */
static bool still_suitable(podtry *p, json_t *psc, const char *node, const json_t **nodeobj)
{
    *nodeobj = NULL;
    for (size_t q = 0; q < p->r->nnodes; q++)
        if (node_name(p->r->nodes[q]) && strcmp(node_name(p->r->nodes[q]), node) == 0)
            *nodeobj = p->r->nodes[q];
    bool suitable = *nodeobj != NULL;
    for (size_t k = 0; k < p->npc && suitable; k++) {
        json_t *un = p->pc[k].entry ? psc_unsuitable(psc, p->pc[k].entry, false) : NULL;
        suitable = !(un && in_strings(un, node));
        /* a claim allocated while trying an earlier node must be usable here too */
        if (suitable && allocated(p->pc[k].claim))
            suitable =
                node_ok(json_object_get(dra_jget(p->pc[k].claim, "status.allocation"), "availableOnNodes"), *nodeobj);
    }
    return suitable;
}

/* Reserve: the potential nodes are selected in order until every claim's
 * driver allocates on the selected one. */
static dra_err *reserve(podtry *p, json_t *psc, json_t *potential)
{
    json_t *spec = json_object_get(psc, "spec");
    dra_err *e = NULL;
    for (size_t n = 0; !e && n < json_array_size(potential); n++) {
        const char *node = json_string_value(json_array_get(potential, n));
        const json_t *nodeobj;
        bool suitable = still_suitable(p, psc, node, &nodeobj);
        if (!suitable)
            continue;
        json_object_set_new(spec, "selectedNode", json_string(node));
        for (size_t k = 0; k < p->npc && !e && suitable; k++) {
            pclaim *pc = &p->pc[k];
            if (allocated(pc->claim))
                continue;
            json_t *a = NULL;
            e = ask(p->r, pc->claim, pc->cls, potential, node, &a);
            if (e)
                break;
            json_t *al = json_object_get(a, "allocation");
            if (al) {
                const json_t *on = json_object_get(al, "availableOnNodes");
                if (!node_ok(on, nodeobj))
                    e = dra_err_new(DRA_EXIT_RUNTIME,
                                    "classic driver %s: invalid answer: allocated resourceclaim %s/%s where "
                                    "selected node %s cannot use it (allocation.availableOnNodes)",
                                    dra_jfield_str(pc->cls, "driverName"), p->ns,
                                    dra_jfield_str(json_object_get(pc->claim, "metadata"), "name"), node);
                else
                    apply_allocation(p->r, pc->claim, pc->key, pc->cls, al);
            } else {
                json_t *un = json_object_get(a, "unsuitableNodes");
                add_unsuitable(psc, pc->entry, un);
                json_t *dst = pc->entry ? psc_unsuitable(psc, pc->entry, true) : NULL;
                if (!in_strings(un, node) && dst && !in_strings(dst, node))
                    json_array_append_new(dst, json_string(node)); /* no allocation there: unsuitable */
                suitable = false;
            }
            json_decref(a);
        }
        if (suitable)
            break;
    }
    return e;
}

/* Unreserve: some claim is still not allocated; one allocated here on a
 * node another claim cannot use must go back.  The pod's message. */
static char *unreserve(podtry *p)
{
    run *r = p->r;
    for (size_t k = 0; k < p->npc; k++)
        if (allocated(p->pc[k].claim) && json_object_get(r->changed, p->pc[k].key) &&
            !json_array_size(dra_jget(p->pc[k].claim, "status.reservedFor"))) {
            json_object_set_new(json_object_get(p->pc[k].claim, "status"), "deallocationRequested", json_true());
        }
    /* the drivers found every potential node unsuitable */
    size_t np = r->nnodes;
    const char **rs = dra_xcalloc(np + 1, sizeof *rs);
    for (size_t q = 0; q < np; q++)
        rs[q] = "resourceclaim cannot be allocated for the node (unsuitable)";
    char *why = dra_sched_fit_error(rs, np);
    free(rs);
    return why;
}

/* PreBind: the claims are reserved for the pod, then the pod is bound. */
static void prebind(podtry *p, json_t *chosen)
{
    for (size_t k = 0; k < p->npc; k++) {
        json_t *c = p->pc[k].claim;
        if (reserved_for(c, p->uid, p->pname))
            continue;
        json_t *st = json_object_get(c, "status");
        json_t *rf = json_object_get(st, "reservedFor");
        if (!json_is_array(rf)) {
            rf = json_array();
            json_object_set_new(st, "reservedFor", rf);
        }
        json_array_append_new(
            rf, json_pack("{s:s,s:s,s:s}", "resource", "pods", "name", p->pname, "uid", p->uid ? p->uid : ""));
        mark_changed(p->r, p->pc[k].key);
    }
    if (!p->pod)
        p->pod = json_deep_copy(p->pod0);
    json_object_set(json_object_get(p->pod, "spec"), "nodeName", chosen);
}

/* The node the pod goes to (a new reference), or NULL with *why. */
static dra_err *choose_node(podtry *p, char **why, json_t **chosen)
{
    run *r = p->r;
    *chosen = NULL;
    const dra_obj *existing = dra_model_find(r->m, DRA_KIND_POD_SCHEDULING_CONTEXT, p->ns, p->pname);
    if (existing && !json_object_get(r->pscs, p->pkey))
        json_object_set_new(r->pscs, p->pkey, json_deep_copy(existing->json));
    bool need_alloc = false;
    for (size_t k = 0; k < p->npc; k++)
        need_alloc |= !allocated(p->pc[k].claim);
    char *fit;
    json_t *cand = filter(p, &fit);
    if (!json_array_size(cand)) {
        *why = postfilter(p, fit);
        json_decref(cand);
        return NULL;
    }
    json_t *psc = NULL;
    dra_err *e = NULL;
    if (need_alloc) {
        psc = psc_for(r, p->pod0, p->pkey);
        json_t *potential;
        e = prescore(p, psc, cand, &potential);
        if (!e)
            e = reserve(p, psc, potential);
        need_alloc = false;
        for (size_t k = 0; k < p->npc; k++)
            need_alloc |= !allocated(p->pc[k].claim);
        if (!e && need_alloc)
            *why = unreserve(p);
    }
    if (!e && !*why)
        *chosen =
            psc ? json_string(dra_jfield_str(json_object_get(psc, "spec"), "selectedNode"))
                : json_incref(json_array_get(cand, 0)); /* everything allocated: the first node that can use it all */
    json_decref(cand);
    return e;
}

static dra_err *schedule_pod(run *r, const json_t *pod0, dra_classic_pod *out, bool *handled)
{
    const json_t *md = json_object_get(pod0, "metadata");
    podtry p = {
        r,    pod0, dra_jfield_str(md, "namespace"), dra_jfield_str(md, "name"), dra_jfield_str(md, "uid"), NULL, 0,
        NULL, NULL};
    pod_claims(&p);
    *handled = p.npc > 0;
    dra_err *e = NULL;
    char *why = p.npc ? prefilter(&p) : NULL;
    if (p.npc && !why) {
        p.pkey = key_of(p.ns, p.pname);
        json_t *chosen = NULL;
        e = choose_node(&p, &why, &chosen);
        free(p.pkey);
        if (chosen) {
            prebind(&p, chosen);
            out->scheduled = true;
            out->node = dra_xstrdup(json_string_value(chosen));
            json_decref(chosen);
        }
    }
    if (why)
        out->message = why;
    if (p.pod && *handled) {
        char *ref = dra_obj_ref(pod0);
        json_object_set_new(r->out_pods, ref, p.pod);
        free(ref);
    } else
        json_decref(p.pod);
    for (size_t k = 0; k < p.npc; k++)
        free(p.pc[k].key);
    free(p.pc);
    return e;
}

static void push(dra_classic_sched_result *o, json_t *x)
{
    o->objs = dra_xgrow(o->objs, o->nobjs, sizeof *o->objs);
    o->objs[o->nobjs++] = x;
}

dra_err *dra_classic_schedule(const dra_cluster *in, json_t *const *nodes, size_t nnodes,
                              const dra_classic_sched_opts *o, dra_classic_sched_result *out)
{
    const dra_model *m = &in->model;
    run r = {in->set, m, nodes, nnodes, o, json_object(), json_object(), json_object(), json_object(), json_object()};
    const dra_model_list *cl = dra_model_kind(m, DRA_KIND_CLASSIC_CLAIM);
    json_t *order = json_array(); /* claim keys in input order, then made ones */
    for (size_t i = 0; i < cl->n; i++) {
        const json_t *md = json_object_get(cl->v[i]->json, "metadata");
        char *k = key_of(dra_jfield_str(md, "namespace"), dra_jfield_str(md, "name"));
        json_object_set_new(r.claims, k, json_deep_copy(cl->v[i]->json));
        json_array_append_new(order, json_string(k));
        free(k);
    }
    dra_err *e = NULL;
    /* 1. Immediate claims: allocated before any pod */
    for (size_t i = 0; i < cl->n && !e; i++) {
        const char *k = json_string_value(json_array_get(order, i));
        json_t *c = json_object_get(r.claims, k);
        const char *mode = dra_jfield_str(json_object_get(c, "spec"), "allocationMode");
        const json_t *cls = class_of(&r, c);
        if (allocated(c) || !mode || strcmp(mode, "Immediate") != 0 || !cls ||
            !has_driver(&r, dra_jfield_str(cls, "driverName")) || dra_jget(c, "metadata.deletionTimestamp"))
            continue;
        json_t *a = NULL;
        e = ask(&r, c, cls, NULL, NULL, &a);
        if (!e && json_object_get(a, "allocation"))
            apply_allocation(&r, c, k, cls, json_object_get(a, "allocation"));
        json_decref(a);
    }
    /* 2.-4. pods */
    const dra_model_list *pods = dra_model_kind(m, DRA_KIND_POD);
    out->handled = dra_xcalloc(pods->n + 1, sizeof *out->handled);
    out->pods = dra_xcalloc(pods->n + 1, sizeof *out->pods);
    for (size_t i = 0; i < pods->n && !e; i++) {
        const json_t *pod = pods->v[i]->json;
        const char *nn = dra_jfield_str(json_object_get(pod, "spec"), "nodeName");
        const char *phase = dra_jfield_str(json_object_get(pod, "status"), "phase");
        if ((nn && *nn) || dra_jget(pod, "metadata.deletionTimestamp") ||
            (phase && (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0)))
            continue;
        dra_classic_pod cp = {0};
        bool handled = false;
        e = schedule_pod(&r, pod, &cp, &handled);
        if (handled) {
            cp.ref = dra_xasprintf("%s/%s", dra_jfield_str(json_object_get(pod, "metadata"), "namespace"),
                                   dra_jfield_str(json_object_get(pod, "metadata"), "name"));
            out->pods[out->npods] = cp;
            out->handled[out->npods++] = pod;
        } else {
            free(cp.message);
            free(cp.node);
        }
    }
    if (!e) {
        const char *k;
        json_t *v;
        size_t i;
        json_array_foreach(order, i, v)
            if (json_object_get(r.changed, json_string_value(v)))
                push(out, json_incref(json_object_get(r.claims, json_string_value(v))));
        json_object_foreach(r.made, k, v)
            push(out, json_incref(json_object_get(r.claims, k)));
        json_object_foreach(r.pscs, k, v)
            push(out, json_incref(v));
        json_object_foreach(r.out_pods, k, v)
            push(out, json_incref(v));
    }
    json_decref(order);
    json_decref(r.claims);
    json_decref(r.made);
    json_decref(r.changed);
    json_decref(r.pscs);
    json_decref(r.out_pods);
    return e;
}

void dra_classic_sched_result_free(dra_classic_sched_result *r)
{
    for (size_t i = 0; i < r->nobjs; i++)
        json_decref(r->objs[i]);
    for (size_t i = 0; i < r->npods; i++) {
        free(r->pods[i].ref);
        free(r->pods[i].node);
        free(r->pods[i].message);
    }
    free(r->objs);
    free(r->pods);
    free(r->handled);
    memset(r, 0, sizeof *r);
}
