/* dra_schedule: pods across nodes (see schedule.h).
 *
 * Speed: the world (slices, classes, allocated state, compiled selectors and
 * their per-device results) is built once for the whole run.  Per pod, nodes
 * are visited in name order; a node whose free-device bound (dra_alloc_free_bound)
 * is below the fewest devices the pod's claims can take is rejected without
 * running the allocator (only for nodes whose pools cannot be invalid, so the
 * reason text stays upstream's).  When no node can score higher than the
 * current one (no firstAvailable request, or the best possible score was
 * reached) the remaining nodes are not tried: they could only tie, and ties
 * go to the smaller name. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/assert.h"
#include "../base/buf.h"
#include "../base/hash.h"
#include "../alloc/node.h"
#include "../cluster/cluster.h"
#include "../model/quantity.h"
#include "../model/validate.h"
#include "../io/json.h"
#include "../io/jalloc.h"
#include "../io/jparse.h"
#include "group_status.h"
#include "pod_status.h"
#include "schedule.h"
#include "../base/sort.h"

#define BINDING_TIMEOUT_S 600

/* The run's state is the input (a dra_cluster) plus one dra_changes
 * (cluster/ops.h): claims made from templates, claims created for
 * extended resources, allocations, reservations and bindings all go there,
 * so every step sees what the earlier ones did. */

/* ---- small JSON helpers ------------------------------------------------------------------ */

static const json_t *allocation_of(const json_t *claim)
{
    return dra_jfield(dra_jfield(claim, "status"), "allocation");
}

static json_t *ensure_obj(json_t *parent, const char *key)
{
    json_t *o = json_object_get(parent, key);
    if (!json_is_object(o)) {
        o = json_object();
        json_object_set_new(parent, key, o);
    }
    return o;
}

/* ---- per-pod claims ------------------------------------------------------------------------ */

typedef struct pclaim {
    const json_t *claim; /* current state (identity in the run's dra_changes) */
    const char *name;
    const json_t *group; /* the pod's PodGroup when the claim is the group's (DRAWorkloadResourceClaims) */
    bool allocated;
    bool unavailable_anyway; /* binding failed or timed out */
    bool skips_node_ops;     /* DRAOptionalNodeOperations: only for nodes that declare it */
    const json_t *node_selector;
} pclaim;

typedef struct podctx {
    const json_t *pod;
    const char *ns, *name, *uid;
    const char *group; /* spec.schedulingGroup.podGroupName with DRAWorkloadResourceClaims, else NULL */
    pclaim *pc;
    size_t npc;
    /* extended resources */
    bool ext;                   /* the pod asks for mapped extended resources */
    const json_t *ext_existing; /* claim found from an earlier cycle, or NULL */
    bool ext_stale;             /* that claim already has requests: unschedulable */
    const char **ext_res;       /* mapped resources with non-zero requests, sorted */
    size_t next_res;
    const char **ext_unmapped;
    size_t next_unmapped;
    int64_t min_devices; /* of the pending user claims */
    int64_t max_score;   /* best possible score of the pending user claims */
    int64_t fixed_score; /* score of the allocated claims */
} podctx;

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* a + b for counts of at least 0, held at INT64_MAX (the special claim's
 * counts come from pods' requests, up to 2^63-1 each) */
static int64_t count_add(int64_t a, int64_t b)
{
    return b > INT64_MAX - a ? INT64_MAX : a + b;
}

/* Fewest devices a claim can take (ExactCount counts, the smallest
 * subrequest; All and admin access count 0), at most INT64_MAX. */
static int64_t claim_min_devices(const json_t *claim)
{
    int64_t total = 0;
    size_t i;
    const json_t *req;
    json_array_foreach(dra_jfield(dra_jfield(dra_jfield(claim, "spec"), "devices"), "requests"), i, req) {
        const json_t *ex = dra_jfield(req, "exactly");
        if (ex) {
            const char *mode = dra_jfield_str(ex, "allocationMode");
            if (!dra_jfield_true(ex, "adminAccess") && (!mode || strcmp(mode, "ExactCount") == 0))
                total = count_add(total, json_integer_value(dra_jfield(ex, "count")));
            continue;
        }
        int64_t min = -1;
        size_t k;
        const json_t *sub;
        json_array_foreach(dra_jfield(req, "firstAvailable"), k, sub) {
            const char *mode = dra_jfield_str(sub, "allocationMode");
            int64_t c = 0;
            if (!dra_jfield_true(sub, "adminAccess") && (!mode || strcmp(mode, "ExactCount") == 0))
                c = json_integer_value(dra_jfield(sub, "count"));
            if (min < 0 || c < min)
                min = c;
        }
        if (min > 0)
            total = count_add(total, min);
    }
    return total;
}

/* isClaimReadyForBinding / isClaimTimeout: true when an allocated claim
 * must be treated as unavailable. */
static bool binding_unavailable(const json_t *claim, int64_t now)
{
    const json_t *alloc = allocation_of(claim);
    const json_t *results = dra_jfield(dra_jfield(alloc, "devices"), "results");
    const json_t *devs = dra_jfield(dra_jfield(claim, "status"), "devices");
    bool ready = true;
    size_t i;
    const json_t *r;
    json_array_foreach(results, i, r) {
        const json_t *bc = dra_jfield(r, "bindingConditions"), *bf = dra_jfield(r, "bindingFailureConditions");
        if (!json_array_size(bc))
            continue;
        const json_t *st = NULL;
        size_t k;
        const json_t *d;
        json_array_foreach(devs, k, d) {
            const char *a = dra_jfield_str(d, "driver"), *b = dra_jfield_str(d, "pool"),
                       *c = dra_jfield_str(d, "device");
            if (a && b && c && !strcmp(a, dra_jfield_str(r, "driver") ? dra_jfield_str(r, "driver") : "") &&
                !strcmp(b, dra_jfield_str(r, "pool") ? dra_jfield_str(r, "pool") : "") &&
                !strcmp(c, dra_jfield_str(r, "device") ? dra_jfield_str(r, "device") : ""))
                st = d;
        }
        const json_t *conds = dra_jfield(st, "conditions");
        size_t m;
        const json_t *want;
        json_array_foreach(bf, m, want) {
            size_t q;
            const json_t *cond;
            json_array_foreach(conds, q, cond) {
                if (!strcmp(dra_jfield_str(cond, "type") ? dra_jfield_str(cond, "type") : "",
                            json_string_value(want) ? json_string_value(want) : "") &&
                    !strcmp(dra_jfield_str(cond, "status") ? dra_jfield_str(cond, "status") : "", "True"))
                    return true; /* binding failed */
            }
        }
        json_array_foreach(bc, m, want) {
            bool ok = false;
            size_t q;
            const json_t *cond;
            json_array_foreach(conds, q, cond) {
                if (!strcmp(dra_jfield_str(cond, "type") ? dra_jfield_str(cond, "type") : "",
                            json_string_value(want) ? json_string_value(want) : "") &&
                    !strcmp(dra_jfield_str(cond, "status") ? dra_jfield_str(cond, "status") : "", "True"))
                    ok = true;
            }
            ready = ready && ok;
        }
    }
    if (ready)
        return false;
    const char *ts = dra_jfield_str(alloc, "allocationTimestamp");
    dra_time t;
    if (!ts || dra_time_parse(ts, &t) != NULL)
        return false; /* an unparsable time is left to validation */
    return now - t.sec > BINDING_TIMEOUT_S;
}

/* The special claim of an earlier cycle: annotated, in the pod's namespace,
 * controlled by the pod (name and UID). */
static bool is_ext_claim_of(const json_t *c, const podctx *p)
{
    const char *a = json_string_value(
        json_object_get(dra_jfield(dra_jfield(c, "metadata"), "annotations"), DRA_EXTENDED_CLAIM_ANNOTATION));
    if (!a || strcmp(a, "true") != 0 ||
        strcmp(dra_jstr(c, "metadata.namespace") ? dra_jstr(c, "metadata.namespace") : "", p->ns) != 0)
        return false;
    size_t m;
    const json_t *ref;
    json_array_foreach(dra_jfield(dra_jfield(c, "metadata"), "ownerReferences"), m, ref) {
        if (dra_jfield_true(ref, "controller") &&
            !strcmp(dra_jfield_str(ref, "name") ? dra_jfield_str(ref, "name") : "", p->name) &&
            !strcmp(dra_jfield_str(ref, "uid") ? dra_jfield_str(ref, "uid") : "", p->uid))
            return true;
    }
    return false;
}

/* IsReservedForPod (with the pod's group when DRAWorkloadResourceClaims is on). */
static bool reserved_for_pod(const podctx *p, const json_t *claim)
{
    return dra_claim_reserved_for_uid(claim, p->uid) || (p->group && dra_claim_reserved_for_group(claim, p->group));
}

/* PreEnqueue + PreFilter, the pod's claims (podResourceClaims): each named
 * claim once, into p->pc.  NULL, or why the pod waits (caller frees). */
static char *prefilter_claims(const dra_cluster *cl, const dra_changes *state, const dra_features *f, podctx *p)
{
    size_t i;
    const json_t *pcj;
    json_array_foreach(dra_jfield(dra_jfield(p->pod, "spec"), "resourceClaims"), i, pcj) {
        const char *name;
        bool check_owner;
        dra_podclaim_state st = dra_pod_claim_name(p->pod, pcj, &name, &check_owner);
        if (st == DRA_PODCLAIM_NOT_NEEDED)
            continue;
        if (st != DRA_PODCLAIM_NAMED)
            return dra_pod_claim_name_error(p->pod, pcj, st);
        const json_t *c = dra_state_find(cl, state, DRA_KIND_RESOURCE_CLAIM, p->ns, name);
        if (!c)
            return dra_xasprintf("resourceclaim.resource.k8s.io \"%s\" not found", name);
        if (dra_obj_deleting(c))
            return dra_xasprintf("resourceclaim \"%s\" is being deleted", name);
        if (check_owner) {
            char *why = dra_claim_is_for_pod_or_group(p->pod, c, p->group);
            if (why)
                return why;
        }
        bool dup = false;
        for (size_t k = 0; k < p->npc; k++)
            dup = dup || p->pc[k].claim == c;
        if (dup)
            continue; /* the same claim twice: allocate it once */
        p->pc = dra_xrealloc(p->pc, (p->npc + 2) * sizeof *p->pc);
        p->pc[p->npc++] = (pclaim){.claim = c, .name = name, .group = dra_pod_claim_group(cl, state, p->pod, pcj, f)};
    }
    return NULL;
}

/* PreFilter, preFilterExtendedResources: the pod's extended resources
 * backed by DRA (p->ext_res, p->ext_unmapped) and the special claim of an
 * earlier cycle (p->ext_existing; allocated, it joins p->pc). */
static void prefilter_extended_resources(const dra_cluster *cl, const dra_changes *state, const dra_extres_map *xm,
                                         const dra_features *f, podctx *p)
{
    const json_t *spec = dra_jfield(p->pod, "spec");
    const char *lists[2] = {"initContainers", "containers"};
    for (int l = 0; l < 2; l++) {
        size_t k;
        const json_t *ctr;
        json_array_foreach(dra_jfield(spec, lists[l]), k, ctr) {
            const char *rn;
            const json_t *q;
            json_object_foreach((json_t *)dra_jfield(dra_jfield(ctr, "resources"), "requests"), rn, q) {
                if (!dra_is_dra_extended_resource_name(rn))
                    continue;
                dra_quantity qq;
                const char *qs = json_string_value(q);
                bool nonzero = json_is_integer(q) ? json_integer_value(q) != 0 : false;
                if (qs) {
                    dra_err *e = dra_quantity_parse_as(f, qs, &qq);
                    nonzero = !e && !dra_quantity_is_zero(&qq);
                    dra_err_free(e);
                }
                if (!nonzero)
                    continue;
                bool mapped = dra_extres_class(xm, rn) != NULL;
                const char ***arr = mapped ? &p->ext_res : &p->ext_unmapped;
                size_t *cnt = mapped ? &p->next_res : &p->next_unmapped;
                bool seen = false;
                for (size_t x = 0; x < *cnt; x++)
                    seen = seen || strcmp((*arr)[x], rn) == 0;
                if (!seen) {
                    *arr = dra_xgrow(*arr, *cnt, sizeof **arr);
                    (*arr)[(*cnt)++] = rn;
                }
            }
        }
    }
    if (p->next_res) {
        p->ext = true;
        dra_sort(p->ext_res, p->next_res, sizeof *p->ext_res, cmp_cstr);
        /* findExtendedResourceClaim: input claims first, then those made in this run */
        const dra_obj *io;
        for (size_t it = dra_cluster_owned(cl, p->uid); !p->ext_existing && (io = dra_cluster_owned_next(cl, &it));)
            if (is_ext_claim_of(dra_changes_current(state, io->json), p))
                p->ext_existing = dra_changes_current(state, io->json);
        dra_change *x;
        for (size_t it = dra_changes_owned(state, p->uid);
             !p->ext_existing && (x = dra_changes_owned_next(state, &it));)
            if (!x->deleted && is_ext_claim_of(x->obj, p))
                p->ext_existing = x->obj;
        if (p->ext_existing) {
            const json_t *c = p->ext_existing;
            if (dra_jfield(dra_jfield(dra_jfield(c, "spec"), "devices"), "requests"))
                p->ext_stale = true;
            else if (allocation_of(c)) {
                p->pc = dra_xrealloc(p->pc, (p->npc + 2) * sizeof *p->pc);
                p->pc[p->npc++] =
                    (pclaim){.claim = c, .name = dra_jstr(c, "metadata.name") ? dra_jstr(c, "metadata.name") : ""};
                p->ext = false; /* served by its allocation */
            }
        }
    }
}

/* A request's device class missing from the input: "does not exist", or,
 * when the input is a snapshot whose user may not list device classes
 * (model/features.h, dra_snapshot_forbidden), "is not readable": the
 * scheduler may well see it.  sn: the subrequest, or NULL. */
static char *class_missing(const dra_cluster *cl, const char *rn, const char *sn, const char *cls)
{
    const char *why = cl->model.forbidden & (1u << DRA_KIND_DEVICE_CLASS)
                          ? "is not readable (forbidden to list deviceclasses)"
                          : "does not exist";
    return sn ? dra_xasprintf("request %s/%s: device class %s %s", rn, sn, cls, why)
              : dra_xasprintf("request %s: device class %s %s", rn, cls, why);
}

/* PreFilter over the pod's claims: an allocated claim in use by too many
 * (its node selector, score and binding state kept), validateDeviceClass
 * for the others' requests.  NULL, or the message and *is_error. */
static char *prefilter_validate(const dra_cluster *cl, const dra_sched_opts *o, const dra_features *f, podctx *p,
                                dra_alloc_world *w, bool *is_error)
{
    for (size_t k = 0; k < p->npc; k++) {
        pclaim *x = &p->pc[k];
        const json_t *c = x->claim;
        const json_t *alloc = allocation_of(c);
        if (alloc) {
            size_t nres = json_array_size(dra_jfield(dra_jfield(c, "status"), "reservedFor"));
            if (nres >= DRA_RESERVED_FOR_MAX && !reserved_for_pod(p, c))
                return dra_xstrdup("resourceclaim in use");
            x->allocated = true;
            x->node_selector = dra_jfield(alloc, "nodeSelector");
            /* KEP-5945: devices that skip NodePrepare/Unprepare are only for
             * nodes whose kubelet declares it (as the allocator checks) */
            x->skips_node_ops = dra_feature_enabled(f, DRA_FEATURE_OPTIONAL_NODE_OPERATIONS) &&
                                dra_allocation_skips_node_operations(alloc);
            if (dra_feature_enabled(f, DRA_FEATURE_DEVICE_BINDING_CONDITIONS) &&
                dra_feature_enabled(f, DRA_FEATURE_RESOURCE_CLAIM_DEVICE_STATUS))
                x->unavailable_anyway = binding_unavailable(c, o->now);
            if (dra_feature_enabled(f, DRA_FEATURE_PRIORITIZED_LIST))
                p->fixed_score += dra_sched_claim_score(c, alloc);
            continue;
        }
        /* validateDeviceClass for every request */
        size_t ri;
        const json_t *req;
        json_array_foreach(dra_jfield(dra_jfield(dra_jfield(c, "spec"), "devices"), "requests"), ri, req) {
            const char *rn = dra_jstr_or(req, "name", "");
            const json_t *ex = dra_jfield(req, "exactly");
            const json_t *fa = dra_jfield(req, "firstAvailable");
            if (ex) {
                const char *cls = dra_jfield_str(ex, "deviceClassName");
                if (!cls || !*cls) {
                    *is_error = true;
                    return dra_xasprintf("request %s: unsupported request type", rn);
                }
                if (!dra_alloc_world_has_class(w, cls))
                    return class_missing(cl, rn, NULL, cls);
            } else if (json_array_size(fa) > 0) {
                if (!dra_feature_enabled(f, DRA_FEATURE_PRIORITIZED_LIST))
                    return dra_xasprintf("resource claim %s/%s, request %s: has subrequests, but the "
                                         "DRAPrioritizedList feature is disabled",
                                         p->ns, dra_jstr(c, "metadata.name"), rn);
                size_t si;
                const json_t *sub;
                json_array_foreach(fa, si, sub) {
                    const char *cls = dra_jfield_str(sub, "deviceClassName");
                    const char *sn = dra_jstr_or(sub, "name", "");
                    if (!cls || !*cls) {
                        *is_error = true;
                        return dra_xasprintf("request %s/%s: unsupported request type", rn, sn);
                    }
                    if (!dra_alloc_world_has_class(w, cls))
                        return class_missing(cl, rn, sn, cls);
                }
            } else {
                return dra_xasprintf("resource claim %s/%s, request %s: unknown request type", p->ns,
                                     dra_jstr(c, "metadata.name"), rn);
            }
        }
        p->min_devices = count_add(p->min_devices, claim_min_devices(c));
        if (dra_feature_enabled(f, DRA_FEATURE_PRIORITIZED_LIST))
            p->max_score += dra_sched_claim_max_score(c);
    }
    return NULL;
}

/* PreEnqueue + PreFilter for one pod.  Returns NULL when the pod can go on to
 * Filter, else the message (caller frees) and *is_error for error statuses. */
static char *prefilter(const dra_cluster *cl, const dra_changes *state, const dra_extres_map *xm,
                       const dra_sched_opts *o, const dra_features *f, podctx *p, dra_alloc_world *w, bool *is_error)
{
    *is_error = false;
    char *why = prefilter_claims(cl, state, f, p);
    if (why)
        return why;
    if (dra_feature_enabled(f, DRA_FEATURE_EXTENDED_RESOURCE))
        prefilter_extended_resources(cl, state, xm, f, p);
    return prefilter_validate(cl, o, f, p, w, is_error);
}

/* ---- nodes ------------------------------------------------------------------------------------ */

typedef struct snode {
    const json_t *json;
    const char *name;
    bool risky; /* a pool the node sees may be invalid: no prefilter cut */
    /* NULL, or {resource: sum} for each extended resource the node's
     * allocatable lists: what the node's pods request of it (owned) */
    json_t *requested;
} snode;

static int cmp_node(const void *a, const void *b)
{
    return strcmp(((const snode *)a)->name, ((const snode *)b)->name);
}

/* A node seeing a pool that may be invalid is never cut by the free-device
 * bound (see dra_alloc_node_pools_risky). */
static void mark_risky(const dra_alloc_world *w, snode *nodes, size_t n)
{
    bool shared_risky = dra_alloc_shared_pools_risky(w);
    for (size_t i = 0; i < n; i++)
        nodes[i].risky = shared_risky || dra_alloc_node_pools_risky(w, nodes[i].name);
}

/* Allocatable value of a resource on the node (Value(), rounded up); 0
 * when absent or not a quantity. */
static int64_t node_allocatable(const json_t *node, const char *resource, const dra_features *f, bool *present)
{
    const json_t *v = dra_jfield(dra_jfield(dra_jfield(node, "status"), "allocatable"), resource);
    *present = v != NULL;
    return v ? (int64_t)dra_extres_quantity_value(v, f) : 0;
}

/* ---- the special claim -------------------------------------------------------------------------- */

static json_t *ext_claim_for(const podctx *p, const dra_extres_map *xm, const char *const *served, size_t n,
                             json_t **mappings)
{
    json_t *reqs;
    dra_extres_requests(p->pod, xm, served, n, &reqs, mappings);
    json_t *c;
    if (p->ext_existing) {
        c = json_deep_copy(p->ext_existing);
    } else {
        char *gen = dra_xasprintf("%s-extended-resources-", p->name);
        c = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:[{s:s,s:s,s:s,s:s,s:b}],s:{s:s}},s:{}}", "apiVersion",
                      "resource.k8s.io/v1", "kind", "ResourceClaim", "metadata", "name", "<extended-resources>",
                      "generateName", gen, "namespace", p->ns, "ownerReferences", "apiVersion", "v1", "kind", "Pod",
                      "name", p->name, "uid", p->uid, "controller", 1, "annotations", DRA_EXTENDED_CLAIM_ANNOTATION,
                      "true", "spec");
        free(gen);
    }
    json_t *spec = ensure_obj(c, "spec");
    json_t *devices = ensure_obj(spec, "devices");
    json_object_set_new(devices, "requests", reqs);
    return c;
}

/* ---- the run ------------------------------------------------------------------------------------ */

typedef struct node_eval {
    bool fits;
    char *reason; /* when not */
    int64_t score;
    dra_alloc_result *res; /* allocator result when it ran and fitted */
    json_t *ext_claim;     /* node-specific special claim */
    json_t *ext_mappings;
    bool prefiltered;
    json_t *trace;  /* allocator explain (explain mode) */
    bool pod_error; /* the error returned is the pod's alone: it waits, the others go on */
} node_eval;

static void node_eval_clear(node_eval *e)
{
    free(e->reason);
    dra_alloc_result_free(e->res);
    json_decref(e->ext_claim);
    json_decref(e->ext_mappings);
    json_decref(e->trace);
    memset(e, 0, sizeof *e);
}

typedef struct sched {
    const dra_cluster *c; /* the input */
    dra_changes st;       /* everything the run changed and created */
    dra_alloc_world *w;
    dra_extres_map *xm;
    const dra_sched_opts *o;
    dra_features f;
    snode *nodes;
    size_t nnodes;
    dra_sched_result *out;
    size_t ncreated_ext;
    /* Per-node scratch of schedule_pod, reused from pod to pod: only the
     * entries of the nodes a pod visited are reset after it. */
    const char **reasons;
    char **owned_reasons;
    int64_t *scores;
    bool *fit;
    /* Free-device bounds of the nodes (INT64_MAX for a risky node) as a
     * max-tree, for finding the next node the bound does not cut.  A stored
     * bound is never below the node's current one: bounds only fall as
     * devices are allocated, and a node's entry is refreshed whenever it is
     * found cut, and after a pod is bound to it. */
    int64_t *bound_tree;
    size_t bound_leaves; /* a power of two >= nnodes */
    /* quota admission: the caller's, and its refusals by pod UID (index + 1
     * into refusals) */
    dra_strmap refused_pods; /* keys: the refusals' uid copies */
    struct refusal {
        char *uid, *msg;
    } * refusals;
    size_t nrefusals;
    bool freeze_pods; /* may_freeze_pods */
} sched;

/* The caller's admission, remembering a refusal for the pod the claim is
 * for (upstream pkg/controller/resourceclaim/controller.go syncPod). */
static char *admit_claim(void *ctx, const json_t *claim)
{
    sched *S = ctx;
    char *msg = S->o->admit(S->o->admit_ctx, claim);
    if (!msg)
        return NULL;
    size_t i;
    const json_t *ref;
    json_array_foreach(dra_jget(claim, "metadata.ownerReferences"), i, ref) {
        const char *uid = dra_jfield_str(ref, "uid"), *kind = dra_jfield_str(ref, "kind");
        if (!uid || !kind || strcmp(kind, "Pod") != 0 || !dra_jfield_true(ref, "controller"))
            continue;
        intptr_t have = 0;
        if (dra_strmap_get(&S->refused_pods, uid, strlen(uid), &have))
            break; /* the first refusal stops the pod */
        S->refusals = dra_xgrow(S->refusals, S->nrefusals, sizeof *S->refusals);
        struct refusal *r = &S->refusals[S->nrefusals++];
        r->uid = dra_xstrdup(uid);
        /* the text of the controller's FailedResourceClaimCreation event on the pod */
        const char *pc =
            json_string_value(json_object_get(dra_jget(claim, "metadata.annotations"), DRA_POD_CLAIM_NAME_ANNOTATION));
        r->msg = dra_xasprintf("PodResourceClaim %s: %s", pc ? pc : "", msg);
        dra_strmap_put(&S->refused_pods, r->uid, strlen(r->uid), (intptr_t)S->nrefusals);
        break;
    }
    return msg;
}

static void bound_set(sched *S, size_t i, int64_t v)
{
    size_t k = S->bound_leaves + i;
    S->bound_tree[k] = v;
    for (k /= 2; k >= 1; k /= 2) {
        int64_t a = S->bound_tree[2 * k], b = S->bound_tree[2 * k + 1];
        S->bound_tree[k] = a > b ? a : b;
    }
}

/* The first node at or after start whose stored bound is at least need, or
 * S->nnodes when there is none. */
static size_t bound_next(const sched *S, size_t start, int64_t need)
{
    if (start >= S->nnodes)
        return S->nnodes;
    size_t k = S->bound_leaves + start;
    if (S->bound_tree[k] >= need)
        return start;
    /* climb until a right sibling holds a large enough bound */
    for (;;) {
        if (k == 1)
            return S->nnodes;
        if (k % 2 == 0 && S->bound_tree[k + 1] >= need) {
            k++;
            break;
        }
        k /= 2;
    }
    /* descend to its leftmost such leaf */
    while (k < S->bound_leaves)
        k = S->bound_tree[2 * k] >= need ? 2 * k : 2 * k + 1;
    size_t i = k - S->bound_leaves;
    return i < S->nnodes ? i : S->nnodes;
}

static void bound_init(sched *S)
{
    S->bound_leaves = 1;
    while (S->bound_leaves < S->nnodes)
        S->bound_leaves *= 2;
    S->bound_tree = dra_xcalloc(2 * S->bound_leaves, sizeof *S->bound_tree);
    for (size_t k = 0; k < 2 * S->bound_leaves; k++)
        S->bound_tree[k] = INT64_MIN;
    for (size_t i = 0; i < S->nnodes; i++)
        S->bound_tree[S->bound_leaves + i] =
            S->nodes[i].risky ? INT64_MAX : dra_alloc_free_bound(S->w, S->nodes[i].name);
    for (size_t k = S->bound_leaves - 1; k >= 1; k--) {
        int64_t a = S->bound_tree[2 * k], b = S->bound_tree[2 * k + 1];
        S->bound_tree[k] = a > b ? a : b;
    }
}

static void push_index(size_t **v, size_t *n, size_t *cap, size_t i)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *v = dra_xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = i;
}

/* True when the allocator's error is the special claim's count past the
 * claim limit: the scheduler made that claim from the pod's requests (a
 * count of 19 digits is an int64 from 1.38 on, apimachinery's
 * maxInt64Factors), so the input is sound and only that pod is in error.
 * Upstream's Filter returns the error status (k8s.io/kubernetes
 * v1.38.0-beta.0 pkg/scheduler/framework/plugins/dynamicresources/
 * dynamicresources.go, Filter: statusError), the pod gets PodScheduled=False
 * SchedulerError and the scheduler goes on with the next pod. */
static bool ext_claim_error(const podctx *p, const node_eval *e, const char *msg)
{
    if (!e->ext_claim)
        return false;
    char *prefix = dra_xasprintf("claim %s/%s, request ", p->ns, dra_jstr(e->ext_claim, "metadata.name"));
    bool ours = strncmp(msg, prefix, strlen(prefix)) == 0 && strstr(msg, " exceeds the claim limit of ");
    free(prefix);
    return ours;
}

/* The first node named so or after. */
static size_t node_lower_bound(const sched *S, const char *name)
{
    size_t lo = 0, hi = S->nnodes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(S->nodes[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Add the pod's requests to those of the nodes named `node` (a name is
 * the key: each node so named gains them). */
static void add_requested(sched *S, const char *node, const json_t *pod)
{
    for (size_t i = node_lower_bound(S, node); i < S->nnodes && strcmp(S->nodes[i].name, node) == 0; i++) {
        const char *rn;
        json_t *v;
        json_object_foreach(S->nodes[i].requested, rn, v)
            json_integer_set(v, json_integer_value(v) + dra_extres_pod_request(pod, rn, &S->f));
    }
}

/* Whether a node named `node` sums requests (its allocatable lists an
 * extended resource a class names). */
static bool node_counts(const sched *S, const char *node)
{
    for (size_t i = node_lower_bound(S, node); i < S->nnodes && strcmp(S->nodes[i].name, node) == 0; i++)
        if (S->nodes[i].requested)
            return true;
    return false;
}

/* The pod's requests, added to its node's when it is on one and counts
 * there: not deleted in this run, not terminated (the scheduler's cache
 * drops those).  record_node: for a pod held as a record, the record's
 * node, which the object's must be. */
static void count_pod(sched *S, const json_t *pod, const char *record_node)
{
    /* held, not rebuilt: a pod held as text (freeze_pods) is a pending one */
    const dra_change *x = pod ? dra_changes_held(&S->st, pod) : NULL;
    if (x && (x->deleted || x->text))
        return;
    const json_t *q = x ? x->obj : pod;
    const char *on = q ? dra_jfield_str(dra_jfield(q, "spec"), "nodeName") : NULL;
    if (!on || (record_node && strcmp(on, record_node) != 0) || dra_pod_is_done(q))
        return;
    add_requested(S, on, q);
}

/* Each node's requests of the extended resources its allocatable lists,
 * summed once for the run in one pass over the pods: the input's pods held
 * as objects and those held as records (bound ones, made again as objects
 * when on the node).  A pod bound in the run is added when it is bound
 * (reserve_and_bind); a filter then looks the sum up. */
static void requested_init(sched *S)
{
    if (!dra_feature_enabled(&S->f, DRA_FEATURE_EXTENDED_RESOURCE))
        return;
    bool any = false;
    for (size_t i = 0; i < S->nnodes; i++) {
        const char *rn;
        const json_t *v;
        json_object_foreach((json_t *)dra_jfield(dra_jfield(S->nodes[i].json, "status"), "allocatable"), rn, v) {
            bool present;
            if (!dra_is_dra_extended_resource_name(rn) || node_allocatable(S->nodes[i].json, rn, &S->f, &present) <= 0)
                continue;
            if (!S->nodes[i].requested)
                S->nodes[i].requested = json_object();
            json_object_set_new(S->nodes[i].requested, rn, json_integer(0));
            any = true;
        }
    }
    if (!any) /* no node sums requests: no pod need be read (nor a record made again) */
        return;
    const dra_model_list *pl = dra_model_kind(&S->c->model, DRA_KIND_POD);
    for (size_t i = 0; i < pl->n; i++)
        count_pod(S, pl->v[i]->json, NULL);
    for (size_t i = 0; S->c->taken && i < S->c->recs.npods; i++) {
        const dra_pod_rec *r = S->c->recs.pods[i];
        const dra_obj *o =
            r->node_name && node_counts(S, r->node_name) ? dra_cluster_find(S->c, DRA_KIND_POD, r->ns, r->name) : NULL;
        if (o)
            count_pod(S, o->json, r->node_name);
    }
}

/* NodeResourcesFit for the pod's DRA-named extended resources: one the
 * node's allocatable lists (and one no class maps) is not delegated to DRA,
 * so the pod's request must fit in what the node's pods leave of it
 * (k8s.io/kubernetes v1.37.2 pkg/scheduler/framework/plugins/noderesources/
 * fit.go fitsRequest, shouldDelegateResourceToDRA; v1.38.0-beta.0 the same
 * in plugins/helper/resource_fit.go FitsRequest).  NodeResourcesFit filters
 * before DynamicResources.  "Insufficient <resource>" for the first one
 * short in name order (upstream lists each: a node counts once here), else
 * NULL.  Only extended resources are modelled, not cpu, memory or pods. */
static char *node_fit(const sched *S, const podctx *p, const snode *nd)
{
    const char *worst = NULL;
    for (size_t i = 0; i < p->next_res + p->next_unmapped; i++) {
        bool mapped = i < p->next_res, present;
        const char *rn = mapped ? p->ext_res[i] : p->ext_unmapped[i - p->next_res];
        int64_t alloc = node_allocatable(nd->json, rn, &S->f, &present);
        if ((mapped && alloc <= 0) || (worst && strcmp(rn, worst) >= 0))
            continue;
        long long want = dra_extres_pod_request(p->pod, rn, &S->f);
        if (want > 0 && (want > alloc || want > alloc - json_integer_value(json_object_get(nd->requested, rn))))
            worst = rn;
    }
    return worst ? dra_xasprintf("Insufficient %s", worst) : NULL;
}

/* Filter one node; fills e.  Returns an error text for an error status
 * (allocator fatal error; e->pod_error when it is the pod's alone), else
 * NULL. */
static char *filter_node(sched *S, podctx *p, snode *nd, node_eval *e)
{
    /* filterExtendedResources */
    const char **served = NULL;
    size_t nserved = 0;
    e->reason = node_fit(S, p, nd);
    if (e->reason)
        return NULL;
    if (p->ext || p->ext_stale) {
        if (p->ext_stale) {
            e->reason = dra_xstrdup("cannot schedule extended resource claim");
            return NULL;
        }
        served = dra_xcalloc(p->next_res + 1, sizeof *served);
        for (size_t i = 0; i < p->next_res; i++) {
            bool present;
            if (node_allocatable(nd->json, p->ext_res[i], &S->f, &present) <= 0)
                served[nserved++] = p->ext_res[i];
        }
        for (size_t i = 0; i < p->next_unmapped; i++) {
            bool present;
            node_allocatable(nd->json, p->ext_unmapped[i], &S->f, &present);
            if (!present) {
                free(served);
                e->reason = dra_xstrdup("cannot fit resource");
                return NULL;
            }
        }
        if (nserved)
            e->ext_claim = ext_claim_for(p, S->xm, served, nserved, &e->ext_mappings);
        free(served);
    }

    bool unavailable = false;
    json_t **pending = dra_xcalloc(p->npc + 2, sizeof *pending);
    size_t npending = 0;
    for (size_t i = 0; i < p->npc; i++) {
        pclaim *x = &p->pc[i];
        if (x->allocated) {
            if (x->unavailable_anyway) {
                unavailable = true;
            } else if (x->node_selector) {
                bool m = false;
                dra_err *err = dra_node_selector_match(x->node_selector, nd->json, &m);
                if (err) {
                    char *msg = dra_xstrdup(err->msg);
                    dra_err_free(err);
                    free(pending);
                    return msg;
                }
                unavailable = unavailable || !m;
            }
            if (x->skips_node_ops && !dra_node_declares_feature(nd->json, "DRAOptionalNodeOperations"))
                unavailable = true;
            continue;
        }
        pending[npending++] = (json_t *)x->claim;
    }
    if (e->ext_claim)
        pending[npending++] = e->ext_claim;

    if (npending) {
        int64_t ext_min = e->ext_claim ? claim_min_devices(e->ext_claim) : 0;
        int64_t need = count_add(p->min_devices, ext_min);
        /* a special claim past the claim limit is the allocator's error on
         * every node (upstream runs it): no cut says otherwise */
        if (!nd->risky && !S->o->no_prune && ext_min <= DRA_ALLOCATION_RESULTS_MAX &&
            need > dra_alloc_free_bound(S->w, nd->name)) {
            S->out->stats.nodes_prefiltered++;
            e->prefiltered = true;
            e->reason = dra_xstrdup("cannot allocate all claims");
            free(pending);
            return NULL;
        }
        dra_alloc_opts ao = {.timeout = S->o->timeout, .explain = S->o->explain, .no_prune = S->o->no_prune};
        dra_alloc_result *res = NULL;
        S->out->stats.allocator_runs++;
        dra_err *err = dra_alloc_run(S->w, nd->json, pending, npending, &ao, &res);
        if (res && S->o->explain)
            e->trace = dra_alloc_explain_json(res);
        free(pending);
        if (err) {
            dra_alloc_result_free(res);
            bool timeout = strcmp(err->msg, "timed out trying to allocate devices") == 0;
            char *msg = dra_xstrdup(err->msg);
            dra_err_free(err);
            if (timeout) {
                e->reason = msg;
                return NULL;
            }
            e->pod_error = ext_claim_error(p, e, msg);
            return msg;
        }
        if (!dra_alloc_result_ok(res)) {
            const char *why = dra_alloc_result_reason(res);
            e->reason = dra_xstrdup(why ? why : "cannot allocate all claims");
            dra_alloc_result_free(res);
            return NULL;
        }
        e->res = res;
    } else {
        free(pending);
    }
    if (unavailable) {
        e->reason = dra_xstrdup("resourceclaim not available on the node");
        return NULL;
    }
    e->fits = true;
    e->score = p->fixed_score;
    if (e->res && dra_feature_enabled(&S->f, DRA_FEATURE_PRIORITIZED_LIST)) {
        size_t ai = 0;
        for (size_t i = 0; i < p->npc; i++) {
            if (p->pc[i].allocated)
                continue;
            json_t *a = dra_alloc_result_allocation(e->res, ai++);
            e->score += dra_sched_claim_score(p->pc[i].claim, a);
            json_decref(a);
        }
    }
    return NULL;
}

/* Reserve + PreBind + bind: the allocations made for this node, the special
 * claim for extended resources (created or updated), then the claims'
 * status updates (lifecycle's bindClaim, the one implementation), then
 * spec.nodeName.  Returns an error text when the API server would refuse a
 * reservation, or quota the special claim (*pending: the pod waits, as for
 * its other claims), and nothing of the claims is changed then; else NULL. */
static char *reserve_and_bind(sched *S, podctx *p, snode *nd, node_eval *e, bool *pending)
{
    *pending = false;
    dra_changes *st = &S->st;
    dra_reserve_claim *rc = dra_xcalloc(p->npc + 2, sizeof *rc);
    size_t n = 0, ai = 0;
    for (size_t i = 0; i < p->npc; i++) {
        pclaim *x = &p->pc[i];
        json_t *alloc = x->allocated ? NULL : dra_alloc_result_allocation(e->res, ai++);
        /* already reserved for the pod and allocated: nothing to update */
        if (!alloc && reserved_for_pod(p, x->claim))
            continue;
        /* the owner was checked at PreFilter (prefilter_claims), for this pod and
         * group; nothing since changes a claim's ownerReferences */
        rc[n++] = (dra_reserve_claim){x->name, x->claim, false, alloc, x->group};
    }
    size_t created = SIZE_MAX; /* change number of a new special claim */
    const char *ext_name = NULL;
    if (e->ext_claim) {
        json_t *alloc = dra_alloc_result_allocation(e->res, ai++);
        const json_t *ext;
        if (!p->ext_existing) {
            json_t *c = json_deep_copy(e->ext_claim);
            json_t *meta = ensure_obj(c, "metadata");
            char *nm = dra_claim_name_for(dra_jfield_str(meta, "generateName"), S->o->name_suffix, p->ns, p->uid,
                                          "extended-resources");
            if (nm)
                json_object_set_new(meta, "name", json_string(nm));
            else
                json_object_del(meta, "name");
            free(nm);
            /* the API server's quota admission of the create
             * (createExtendedResourceClaimInAPI's error, as PreBind returns it) */
            char *refused = S->o->admit ? S->o->admit(S->o->admit_ctx, c) : NULL;
            if (refused) {
                char *msg = dra_xasprintf("create claim for extended resources %s/: %s", p->ns, refused);
                free(refused);
                json_decref(c);
                json_decref(alloc);
                for (size_t i = 0; i < n; i++)
                    json_decref(rc[i].allocation);
                free(rc);
                *pending = true;
                return msg;
            }
            created = st->nobjs;
            dra_changes_add_created(st, c);
            char *why = dra_xasprintf("Pod %s/%s: ResourceClaim for extended resources backed by DRA", p->ns, p->name);
            dra_changes_op(st, DRA_OP_CREATE, c, NULL, st->objects_only ? NULL : json_deep_copy(c), why);
            free(why);
            ext = c;
        } else {
            /* the requests of this node replace those of the earlier cycle */
            json_t *c = dra_changes_touch(st, p->ext_existing)->obj;
            json_t *spec = json_object_get(c, "spec");
            if (spec && spec->refcount > 1) /* a template's, shared (dra_lc_opts.freeze): its own copy */
                json_object_set_new(c, "spec", json_deep_copy(spec));
            json_t *devices = ensure_obj(ensure_obj(c, "spec"), "devices");
            json_object_set_new(
                devices, "requests",
                json_deep_copy(dra_jfield(dra_jfield(dra_jfield(e->ext_claim, "spec"), "devices"), "requests")));
            ext = c;
        }
        ext_name = dra_jstr(ext, "metadata.name");
        rc[n++] = (dra_reserve_claim){ext_name ? ext_name : "", ext, false, alloc, NULL};
    }
    dra_reserve_opts ro = {.bind = true, .features = &S->f, .now = S->o->now};
    dra_err *err = dra_claims_reserve_in(S->c, st, p->pod, rc, n, &ro);
    for (size_t i = 0; i < n; i++)
        json_decref(rc[i].allocation);
    free(rc);
    if (err) {
        char *msg = dra_xstrdup(err->msg);
        dra_err_free(err);
        if (created != SIZE_MAX)
            st->objs[created].deleted = true; /* never sent */
        return msg;
    }
    if (e->res) /* the pod, when it alone holds its claims: --explain names it */
        dra_alloc_commit_for(S->w, e->res, p->group || !*p->name ? NULL : p->name);
    json_t *pod = dra_changes_touch(st, p->pod)->obj;
    if (e->ext_claim)
        json_object_set_new(
            ensure_obj(pod, "status"), "extendedResourceClaimStatus",
            json_pack("{s:O,s:s}", "requestMappings", e->ext_mappings, "resourceClaimName", ext_name ? ext_name : ""));
    json_object_set_new(ensure_obj(pod, "spec"), "nodeName", json_string(nd->name));
    add_requested(S, nd->name, pod);
    return NULL;
}

static json_t *node_trace(const snode *nd, const node_eval *e, bool tried)
{
    json_t *t = json_pack("{s:s}", "node", nd->name);
    if (!tried) {
        json_object_set_new(t, "skipped", json_string("cannot score higher than the chosen node"));
        return t;
    }
    json_object_set_new(t, "fits", json_boolean(e->fits));
    if (e->fits)
        json_object_set_new(t, "score", json_integer(e->score));
    else
        json_object_set_new(t, "reason", json_string(e->reason ? e->reason : ""));
    if (e->prefiltered)
        json_object_set_new(t, "prefiltered", json_string("fewer free devices than the claims need"));
    if (e->trace && !e->fits)
        json_object_set(t, "allocator", e->trace);
    return t;
}

/* The pod's required node affinity (NULL when it has none). */
static const json_t *required_affinity(const json_t *pod)
{
    return dra_jfield(dra_jfield(dra_jfield(dra_jfield(pod, "spec"), "affinity"), "nodeAffinity"),
                      "requiredDuringSchedulingIgnoredDuringExecution");
}

/* The NodeAffinity filter (k8s.io/kubernetes pkg/scheduler/framework/plugins/
 * nodeaffinity, component-helpers/scheduling/corev1 GetRequiredNodeAffinity):
 * every label of spec.nodeSelector equal on the node, and one term of the
 * required node affinity matching it (labels and metadata.name, as
 * dra_node_selector_match reads a node selector).  A requirement that cannot
 * be read (the API server refuses such pods) lets every node pass. */
static bool pinned_node_ok(const json_t *pod, const json_t *node)
{
    const json_t *sel = dra_jfield(dra_jfield(pod, "spec"), "nodeSelector");
    const json_t *labels = dra_jfield(dra_jfield(node, "metadata"), "labels");
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)sel, k, v) {
        const char *have = dra_jfield_str(labels, k);
        if (!json_is_string(v) || !have || strcmp(have, json_string_value(v)) != 0)
            return false;
    }
    const json_t *req = required_affinity(pod);
    if (!json_is_array(dra_jfield(req, "nodeSelectorTerms")))
        return true;
    bool m = false;
    dra_err *e = dra_node_selector_match(req, node, &m);
    if (e) {
        dra_err_free(e);
        return true;
    }
    return m;
}

/* Whether pinned_node_ok can refuse a node for this pod. */
static bool pinned_can_fail(const json_t *pod)
{
    return json_object_size(dra_jfield(dra_jfield(pod, "spec"), "nodeSelector")) > 0 ||
           json_is_array(dra_jfield(required_affinity(pod), "nodeSelectorTerms"));
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* A valid node field requirement (as pools.c field_match takes it):
 * metadata.name, In or NotIn, exactly one value.  *in is true for In. */
static bool name_requirement(const json_t *r, bool *in)
{
    const char *key = dra_jfield_str(r, "key"), *op = dra_jfield_str(r, "operator");
    const json_t *values = dra_jfield(r, "values");
    if (!key || strcmp(key, "metadata.name") || !op || (strcmp(op, "In") && strcmp(op, "NotIn")) ||
        !json_is_array(values) || json_array_size(values) != 1)
        return false;
    *in = !strcmp(op, "In");
    return true;
}

/* The nodes a pod pinned by name can go to, as indexes into S->nodes in
 * order.  Its required affinity has fields only (see pinned_candidates); when
 * every requirement is valid (else the selector is an error and
 * pinned_node_ok accepts every node) and every non-empty term has a
 * `metadata.name In [name]` requirement (terms are ORed, a term's
 * requirements ANDed, an empty term matches nothing), the nodes so named are
 * the only ones pinned_node_ok can accept and the others need not be
 * walked.  False (and nothing allocated) otherwise. */
static bool named_candidates(const sched *S, const json_t *req, size_t **out, size_t *n)
{
    const json_t *terms = dra_jfield(req, "nodeSelectorTerms");
    size_t i, k;
    const json_t *t, *r;
    json_array_foreach(terms, i, t) {
        const json_t *fields = dra_jfield(t, "matchFields");
        bool named = !json_array_size(fields), in;
        json_array_foreach(fields, k, r) {
            if (!name_requirement(r, &in))
                return false;
            named |= in;
        }
        if (!named)
            return false;
    }
    size_t *v = NULL, nv = 0, cap = 0;
    json_array_foreach(terms, i, t) {
        json_array_foreach(dra_jfield(t, "matchFields"), k, r) {
            bool in;
            const char *name = json_string_value(json_array_get(dra_jfield(r, "values"), 0));
            if (!name_requirement(r, &in) || !in || !name)
                continue;
            for (size_t x = node_lower_bound(S, name); x < S->nnodes && !strcmp(S->nodes[x].name, name); x++)
                push_index(&v, &nv, &cap, x);
        }
    }
    dra_sort(v, nv, sizeof *v, cmp_size);
    size_t u = 0;
    for (size_t j = 0; j < nv; j++)
        if (!u || v[u - 1] != v[j])
            v[u++] = v[j];
    *out = v;
    *n = u;
    return true;
}

static bool pinned_candidates(const sched *S, const json_t *pod, size_t **out, size_t *n)
{
    const json_t *req = required_affinity(pod);
    size_t i;
    const json_t *t;
    json_array_foreach(dra_jfield(req, "nodeSelectorTerms"), i, t) {
        if (json_array_size(dra_jfield(t, "matchExpressions")))
            return false; /* a term on labels: any node may match it */
    }
    return json_array_size(dra_jfield(req, "nodeSelectorTerms")) && named_candidates(S, req, out, n);
}

/* The nodes an allocated claim can be used on when its node selector names
 * them (what the allocator writes for node-local devices: matchFields
 * metadata.name In [node]); false when it selects by labels or not at all.
 * Another member of a PodGroup, or any pod sharing the claim, can only go
 * there: no other node can fit. */
static bool claim_candidates(const sched *S, const podctx *p, size_t **out, size_t *n)
{
    for (size_t k = 0; k < p->npc; k++) {
        const pclaim *x = &p->pc[k];
        if (!x->allocated || x->unavailable_anyway || !x->node_selector)
            continue;
        const json_t *terms = dra_jfield(x->node_selector, "nodeSelectorTerms");
        bool labels = !json_array_size(terms);
        size_t i;
        const json_t *t;
        json_array_foreach(terms, i, t)
            labels |= json_array_size(dra_jfield(t, "matchExpressions")) > 0 ||
                      !json_array_size(dra_jfield(t, "matchFields"));
        if (!labels && named_candidates(S, x->node_selector, out, n))
            return true;
    }
    return false;
}

/* The per-node scratch of the nodes a walk visited, back to empty. */
static void clear_visited(sched *S, const size_t *visited, size_t nvisited)
{
    for (size_t k = 0; k < nvisited; k++) {
        size_t i = visited[k];
        free(S->owned_reasons[i]);
        S->owned_reasons[i] = NULL;
        S->reasons[i] = NULL;
        S->scores[i] = 0;
        S->fit[i] = false;
    }
}

/* One pod's walk over the nodes: Filter, with the running best of Score. */
typedef struct walk {
    json_t *traces;                        /* explain: one entry per node, else NULL */
    node_eval best;                        /* the best node's evaluation so far */
    long best_i;                           /* its index, -1 when none fits */
    int64_t best_raw, ceiling;             /* its raw score; no node can score more than the ceiling */
    size_t *visited, nvisited, capvisited; /* nodes whose scratch entries were set */
    size_t *fits, nfits, capfits;          /* the fitting nodes, in order */
    size_t ntried;
    bool stop;
    /* Fast path of the free-device cut for pods without extended resources
     * (their device needs do not depend on the node). */
    bool simple;
    /* Runs of nodes the cut rejects are passed over through the bound tree
     * when nothing else could have stopped at them: no trace is kept and the
     * pod is not pinned to nodes by name. */
    bool leap, leapt;
    /* A pod pinned to nodes by name visits only those (cand; without a
     * trace, which lists every node): the others would all be refused for
     * node affinity.  A pod sharing an allocated claim that names its node
     * visits that node first (claim_pinned); only when it does not fit there
     * are all nodes walked, for the reasons each gives. */
    size_t *cand, ncand, kc, last;
    bool pinned, claim_pinned;
    bool can_fail; /* pinned_node_ok can refuse a node (else it is not asked) */
} walk;

/* Until 1.37 DynamicResources' PostFilter gives a reason the fit error
 * ends with: "no new claims to deallocate" when PreFilter failed before it
 * had the pod's claims, else "still not schedulable" (no claim to
 * deallocate: k8s.io/kubernetes@v1.36.3 pkg/scheduler/framework/plugins/
 * dynamicresources/dynamicresources.go PostFilter; framework.go
 * RunPostFilterPlugins keeps it, as 1.36's DefaultPreemption answers
 * Unschedulable, and FitError.Error puts it after the nodes' reasons).
 * From 1.37 it gives none.  Takes msg. */
static char *postfilter_reason(const sched *S, char *msg, bool had_claims)
{
    if (dra_features_release_of(S->o->features) >= DRA_RELEASE_1_37)
        return msg;
    char *m = dra_xasprintf("%s %s", msg, had_claims ? "still not schedulable" : "no new claims to deallocate");
    free(msg);
    return m;
}

/* The scheduler's words for a pod no node fits: "0/N nodes are available:
 * msg." (msg: PreFilter's reason, or NULL when it passed).  When the input
 * is a snapshot whose user may not list nodes (model/features.h,
 * dra_snapshot_forbidden) and has none, the count is not known: the nodes
 * are "not readable", as class_missing says of a class, the scheduler may
 * well see some.  With no node listed the scheduler says so before any
 * PreFilter runs (ErrNoNodesAvailable: k8s.io/kubernetes@v1.37.2
 * pkg/scheduler/schedule_one.go schedulePod, 1.36 and 1.38 the same).
 * NULL when none applies. */
static char *fit_text(const sched *S, const char *msg)
{
    if (S->nnodes == 0 && S->c->model.forbidden & (1u << DRA_KIND_NODE))
        return msg ? dra_xasprintf("nodes are not readable (forbidden to list nodes): %s.", msg)
                   : dra_xstrdup("no nodes available to schedule pods: nodes are not readable (forbidden to list "
                                 "nodes)");
    if (S->nnodes == 0)
        return msg ? dra_sched_fit_error(NULL, 0) : NULL;
    return msg ? postfilter_reason(S, dra_xasprintf("0/%zu nodes are available: %s.", S->nnodes, msg), false) : NULL;
}

/* PreEnqueue + PreFilter: true when the pod's outcome is decided before
 * any node is looked at (sp set). */
static bool prefilter_pod(sched *S, podctx *p, dra_sched_pod *sp)
{
    bool is_error = false;
    char *msg = prefilter(S->c, &S->st, S->xm, S->o, &S->f, p, S->w, &is_error);
    intptr_t refusal = 0;
    if (msg && dra_strmap_get(&S->refused_pods, p->uid, strlen(p->uid), &refusal) && refusal) {
        /* its claim was never made: the quota's refusal is why it waits;
         * the scheduler's condition says what its PreFilter found */
        char *fit = fit_text(S, msg);
        dra_sched_pod_unscheduled(&S->st, p->pod, false, fit, S->o->now);
        free(fit);
        free(msg);
        sp->outcome = DRA_POD_UNSCHEDULABLE;
        sp->message = dra_xstrdup(S->refusals[refusal - 1].msg);
        return true;
    }
    if (msg && S->nnodes == 0 && !(S->c->model.forbidden & (1u << DRA_KIND_NODE)))
        is_error = false; /* no PreFilter ran to fail */
    if (msg) {
        sp->outcome = is_error ? DRA_POD_ERROR : DRA_POD_UNSCHEDULABLE;
        sp->message = is_error ? msg : fit_text(S, msg);
        if (!is_error)
            free(msg);
        return true;
    }
    if (p->npc == 0 && !p->ext && !p->ext_stale) {
        sp->outcome = DRA_POD_SKIPPED;
        sp->message = dra_xstrdup("no resource claims and no extended resources backed by DRA");
        return true;
    }
    char *unreadable = fit_text(S, NULL);
    if (unreadable) {
        sp->outcome = DRA_POD_UNSCHEDULABLE;
        sp->message = unreadable;
        return true;
    }
    return false;
}

static void walk_init(sched *S, const podctx *p, walk *w)
{
    w->best_i = -1;
    w->best_raw = -1;
    w->ceiling = p->fixed_score + p->max_score;
    w->simple = !p->ext && !p->ext_stale && p->min_devices > 0 && !S->o->no_prune;
    w->can_fail = pinned_can_fail(p->pod);
    bool can_fail = w->can_fail;
    w->leap = w->simple && !w->traces && !can_fail;
    w->last = S->nnodes;
    w->pinned = can_fail && !w->traces && pinned_candidates(S, p->pod, &w->cand, &w->ncand);
    w->claim_pinned = !w->pinned && !w->traces && claim_candidates(S, p, &w->cand, &w->ncand);
    if (w->claim_pinned) {
        w->pinned = true;
        w->leap = false;
    }
}

/* A node refused before the allocator runs, for reason. */
static void filter_refused(sched *S, walk *w, size_t i, const char *reason, bool prefiltered)
{
    S->reasons[i] = reason;
    w->ntried++;
    if (w->traces) {
        node_eval e = {.reason = (char *)reason, .prefiltered = prefiltered};
        json_array_append_new(w->traces, node_trace(&S->nodes[i], &e, true));
    }
}

/* Filter node i; false when the pod is an error (sp set). */
static bool filter_at(sched *S, podctx *p, walk *w, size_t i, dra_sched_pod *sp)
{
    S->out->stats.nodes_checked++;
    push_index(&w->visited, &w->nvisited, &w->capvisited, i);
    if (w->can_fail && !pinned_node_ok(p->pod, S->nodes[i].json)) {
        filter_refused(S, w, i, "node(s) didn't match Pod's node affinity/selector", false);
        return true;
    }
    if (w->simple && !S->nodes[i].risky) {
        int64_t bound = dra_alloc_free_bound(S->w, S->nodes[i].name);
        /* the leap passed over nodes by their stored bound: it is never
         * below the current one (bounds only fall) */
        DRA_ASSERT(S->bound_tree[S->bound_leaves + i] >= bound);
        bound_set(S, i, bound);
        if (p->min_devices > bound) {
            S->out->stats.nodes_prefiltered++;
            filter_refused(S, w, i, "cannot allocate all claims", true);
            return true;
        }
    }
    node_eval e = {0};
    char *err = filter_node(S, p, &S->nodes[i], &e);
    w->ntried++;
    if (w->traces)
        json_array_append_new(w->traces, node_trace(&S->nodes[i], &e, true));
    if (err) {
        /* the framework's words for a Filter plugin's error status
         * (pkg/scheduler/framework/runtime/framework.go, RunFilterPlugins) */
        sp->outcome = e.pod_error ? DRA_POD_UNSCHEDULABLE : DRA_POD_ERROR;
        sp->scheduler_error = e.pod_error;
        sp->message = e.pod_error ? dra_xasprintf("running \"DynamicResources\" filter plugin: %s", err) : err;
        if (e.pod_error)
            free(err);
        node_eval_clear(&e);
        return false;
    }
    if (!e.fits) {
        S->owned_reasons[i] = e.reason;
        e.reason = NULL;
        S->reasons[i] = S->owned_reasons[i];
        node_eval_clear(&e);
        return true;
    }
    S->fit[i] = true;
    S->scores[i] = e.score;
    push_index(&w->fits, &w->nfits, &w->capfits, i);
    /* Normalisation keeps the order of raw scores (ties may appear,
     * they go to the earlier name), so the best raw score wins. */
    if (e.score > w->best_raw) {
        node_eval_clear(&w->best);
        w->best = e;
        w->best_i = (long)i;
        w->best_raw = e.score;
    } else {
        node_eval_clear(&e);
    }
    if (w->best_raw >= w->ceiling)
        w->stop = true;
    return true;
}

/* Filter: the nodes in name order (or the pinned ones), until one scores
 * the ceiling.  False when the pod is an error (sp set). */
static bool filter_walk(sched *S, podctx *p, walk *w, dra_sched_pod *sp)
{
    for (size_t i = w->pinned ? (w->ncand ? w->cand[0] : S->nnodes) : 0; i < S->nnodes && !w->stop;
         i = w->pinned ? (++w->kc < w->ncand ? w->cand[w->kc] : S->nnodes) : i + 1) {
        w->last = i;
        if (w->leap) {
            size_t j = bound_next(S, i, p->min_devices);
            if (j > i) {
                /* each would have been checked and cut, with this reason */
                S->out->stats.nodes_checked += (int64_t)(j - i);
                S->out->stats.nodes_prefiltered += (int64_t)(j - i);
                w->ntried += j - i;
                w->leapt = true;
                i = j;
                if (i >= S->nnodes)
                    break;
            }
        }
        if (!filter_at(S, p, w, i, sp))
            return false;
    }
    return true;
}

/* PostFilter: no node fits; the fit error over every node. */
static void postfilter(sched *S, const walk *w, dra_sched_pod *sp)
{
    const char **reasons = S->reasons;
    sp->outcome = DRA_POD_UNSCHEDULABLE;
    if (w->leapt || w->pinned) /* every node was tried: the ones passed over were cut or not named */
        for (size_t i = 0; i < S->nnodes; i++)
            if (!reasons[i])
                reasons[i] =
                    w->leapt ? "cannot allocate all claims" : "node(s) didn't match Pod's node affinity/selector";
    sp->message = postfilter_reason(S, dra_sched_fit_error(reasons, S->nnodes), true);
    if (w->leapt || w->pinned)
        memset(reasons, 0, S->nnodes * sizeof *reasons);
}

/* Score: the best node's normalised score among the nodes tried. */
static int64_t score(const sched *S, const walk *w)
{
    size_t nf = 0;
    int64_t *fs = dra_xcalloc(w->nfits + 1, sizeof *fs);
    size_t best_pos = 0;
    for (size_t k = 0; k < w->nfits; k++) {
        if ((long)w->fits[k] == w->best_i)
            best_pos = nf;
        fs[nf++] = S->scores[w->fits[k]];
    }
    dra_sched_normalize(fs, nf);
    int64_t s = fs[best_pos];
    free(fs);
    return s;
}

/* Reserve + PreBind on the best node (among equal normalised scores the
 * smaller name). */
static void reserve(sched *S, podctx *p, walk *w, dra_sched_pod *sp)
{
    snode *nd = &S->nodes[w->best_i];
    bool pending;
    char *refused = reserve_and_bind(S, p, nd, &w->best, &pending);
    sp->outcome = !refused ? DRA_POD_SCHEDULED : pending ? DRA_POD_UNSCHEDULABLE : DRA_POD_ERROR;
    sp->scheduler_error = refused != NULL;
    sp->node = refused ? NULL : dra_xstrdup(nd->name);
    sp->message = refused;
    if (!nd->risky)
        bound_set(S, (size_t)w->best_i, dra_alloc_free_bound(S->w, nd->name));
}

static void schedule_pod(sched *S, const json_t *pod, dra_sched_pod *sp)
{
    podctx p = {0};
    p.pod = dra_changes_current(&S->st, pod);
    const json_t *md = dra_jfield(p.pod, "metadata");
    p.ns = dra_jstr_or(md, "namespace", "");
    p.name = dra_jstr_or(md, "name", "");
    p.uid = dra_jstr_or(md, "uid", "");
    p.group = dra_feature_enabled(&S->f, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS) ? dra_pod_group_name(p.pod) : NULL;
    walk w = {.traces = S->o->explain ? json_array() : NULL};
    if (!prefilter_pod(S, &p, sp)) {
        walk_init(S, &p, &w);
        bool ok = filter_walk(S, &p, &w, sp);
        if (ok && w.claim_pinned && w.best_i < 0) { /* no fit on the claim's nodes: every node, for its reason */
            clear_visited(S, w.visited, w.nvisited);
            w.nvisited = w.nfits = w.ntried = w.kc = 0;
            w.last = S->nnodes;
            w.stop = false;
            w.claim_pinned = w.pinned = false;
            ok = filter_walk(S, &p, &w, sp);
        }
        if (ok && w.pinned) { /* the nodes passed over count as checked, up to where the walk ended */
            size_t upto = w.stop ? w.last + 1 : S->nnodes, walked = w.kc;
            S->out->stats.nodes_checked += (int64_t)(upto - walked);
        }
        if (ok && w.traces)
            for (size_t i = w.ntried; i < S->nnodes; i++)
                json_array_append_new(w.traces, node_trace(&S->nodes[i], NULL, false));
        if (ok && w.best_i < 0) {
            postfilter(S, &w, sp);
        } else if (ok) {
            sp->score = score(S, &w);
            reserve(S, &p, &w, sp);
        }
        node_eval_clear(&w.best);
        clear_visited(S, w.visited, w.nvisited);
        free(w.visited);
        free(w.fits);
        free(w.cand);
    }
    sp->trace = w.traces;
    free(p.pc);
    free(p.ext_res);
    free(p.ext_unmapped);
}

static bool is_claim(const json_t *obj)
{
    const char *kind = dra_jfield_str(obj, "kind");
    return kind && strcmp(kind, "ResourceClaim") == 0;
}

/* text_results: the claims a placed pod names in its status, created here,
 * held as text again (the next pod that needs one rebuilds it). */
static void freeze_pod_claims(dra_changes *st, const json_t *pod)
{
    const char *ns = dra_jstr(pod, "metadata.namespace");
    const json_t *status = dra_jfield(pod, "status");
    size_t i;
    const json_t *cs;
    json_array_foreach(dra_jfield(status, "resourceClaimStatuses"), i, cs) {
        dra_change *ch = dra_changes_created(st, "ResourceClaim", ns, dra_jfield_str(cs, "resourceClaimName"));
        if (ch)
            dra_changes_freeze(st, ch);
    }
    const char *ext = dra_jfield_str(dra_jfield(status, "extendedResourceClaimStatus"), "resourceClaimName");
    dra_change *ch = ext ? dra_changes_created(st, "ResourceClaim", ns, ext) : NULL;
    if (ch)
        dra_changes_freeze(st, ch);
}

/* A pod out of the queue held as text again (freeze_pods). */
static void freeze_pod(sched *S, const json_t *pod)
{
    dra_change *ch = S->freeze_pods ? dra_changes_find(&S->st, pod) : NULL;
    if (ch)
        dra_changes_freeze_in_place(ch);
}

/* text_results with the input given up: changed pods are held as text while
 * they wait in the queue and once out of it (the run reads them through
 * S->st alone, which rebuilds them; the result takes their text).  Not with
 * pod groups (whose verdicts come back to their pods), a quota (whose
 * ledger reads the pods after the run), nor a pod naming a claim (one that
 * others may share: the staleness of its reservations reads their pods as
 * the input has them, lifecycle/claims.c stale_reason). */
static bool may_freeze_pods(const sched *S, const dra_sched_queue *q, const dra_obj *const *pend)
{
    if (!S->o->text_results || !S->st.in_place || S->o->admit)
        return false;
    for (size_t qi = 0; qi < q->n; qi++) {
        if (q->v[qi].group)
            return false;
        size_t i;
        const json_t *pc;
        json_array_foreach(dra_jget(pend[q->v[qi].index]->json, "spec.resourceClaims"), i, pc) {
            if (dra_jfield(pc, "resourceClaimName"))
                return false;
        }
    }
    return true;
}

static bool pod_pending(const json_t *pod)
{
    const char *node = dra_jfield_str(dra_jfield(pod, "spec"), "nodeName");
    return !(node && *node) && !dra_pod_is_done(pod) && !dra_obj_deleting(pod);
}

/* The pods a scheduler would place, in input order (caller frees the array). */
static const dra_obj **pending_pods(const dra_model *m, size_t *n)
{
    const dra_model_list *pl = dra_model_kind(m, DRA_KIND_POD);
    const dra_obj **pend = dra_xcalloc(pl->n + 1, sizeof *pend);
    *n = 0;
    for (size_t i = 0; i < pl->n; i++)
        if (pod_pending(pl->v[i]->json))
            pend[(*n)++] = pl->v[i];
    return pend;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A pod group the scheduler tried and gave up (gangscheduling
 * PlacementFeasible: fewer than minCount of its pods fit, or one was an
 * error): its members' outcomes, kept for the run that leaves the group's
 * placements out, as the scheduler reverts them (schedule_one_podgroup.go
 * podGroupSchedulingDefaultAlgorithm, submitPodGroupAlgorithmResult). */
typedef struct verdict {
    bool set;
    dra_pod_outcome outcome;
    char *message;
    int gcond;  /* on the group's first pod: its condition's dra_group_outcome + 1, or 0 */
    char *gmsg; /* and its message */
} verdict;

/* The PodGroupInitiallyScheduled condition (1.36: PodGroupScheduled) of
 * the group "ns/name" of the run's state (group_status.h). */
static void group_outcome(sched *S, const char *group, dra_group_outcome o, const char *msg)
{
    bool r36 = dra_features_release_of(S->o->features) < DRA_RELEASE_1_37;
    const char *slash = strchr(group, '/');
    if (!slash)
        return;
    char *ns = dra_xstrndup(group, (size_t)(slash - group));
    const json_t *g = dra_state_find(S->c, &S->st, DRA_KIND_POD_GROUP, ns, slash + 1);
    free(ns);
    if (g)
        dra_sched_group_condition(&S->st, g, r36 ? DRA_POD_GROUP_SCHEDULED : DRA_POD_GROUP_INITIALLY_SCHEDULED, o, msg,
                                  S->o->now);
}

/* The group's status when fewer than minCount of its pods can be placed
 * (gangscheduling.go PlacementFeasible): 1.38 words it by the scheduling
 * policy's minimum threshold and counts the pods that did not fit; before,
 * by minCount, with errPodGroupUnschedulable in front when no pod was tried
 * (k8s.io/kubernetes@v1.37.2 schedule_one_podgroup.go). */
static char *min_unmet(bool r38, bool before, int64_t min, int64_t scheduled, int64_t unsched, int64_t remaining)
{
    if (r38)
        return dra_xasprintf("scheduling policy's minimum threshold (%" PRId64 ") cannot be satisfied: %" PRId64
                             " scheduled, %" PRId64 " unschedulable, %" PRId64 " not-evaluated",
                             min, scheduled, unsched, remaining);
    return dra_xasprintf("%sminCount (%" PRId64 ") cannot be satisfied: %" PRId64 " scheduled, %" PRId64 " remaining",
                         before ? "pod group is unschedulable, " : "", min, scheduled, remaining);
}

/* From 1.38, the message of a pod that fit, or was not tried, in a group
 * "ns/name" that failed: a podGroupFitError is replaced by the parent's name
 * (k8s.io/kubernetes@v1.38.0-beta.0 pkg/scheduler/schedule_one.go
 * handleSchedulingFailure), an error by buildParentPodGroupErrorStatus's
 * (schedule_one_podgroup.go). */
static char *parent_failed(const char *group, bool error)
{
    const char *slash = strchr(group, '/');
    return dra_xasprintf("parent pod group \"%s\" %s", slash ? slash + 1 : group,
                         error ? "encountered an error" : "is unschedulable");
}

/* The message of a pod of a group that failed, other than one that failed
 * on its own: from 1.38 the parent's name; on an error, or when the pod was
 * not tried, the group's status; a pod that fit, errPodGroupUnschedulable
 * before the group's status, or in 1.36 before its Permit status (the
 * GangScheduling plugin had it wait, and RunPermitPlugins says so:
 * k8s.io/kubernetes@v1.36.3 pkg/scheduler/schedule_one_podgroup.go
 * submitPodGroupAlgorithmResult, framework/runtime/framework.go). */
static char *member_failed(dra_release rel, const char *group, const char *gmsg, bool gerr, bool tried)
{
    if (rel >= DRA_RELEASE_1_38)
        return parent_failed(group, gerr);
    if (gerr || !tried)
        return dra_xstrdup(gmsg);
    if (rel < DRA_RELEASE_1_37)
        return dra_xstrdup("pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, one or "
                           "more plugins asked to wait and no plugin rejected pod");
    return dra_xasprintf("pod group is unschedulable, %s", gmsg);
}

/* pod: the original; cur: its current state (rebuilt when held as text) */
static void sched_pod_init(dra_sched_pod *sp, const json_t *pod, const json_t *cur, size_t pos, dra_sched_queued *q)
{
    sp->pod = pod;
    sp->queue_pos = pos;
    sp->priority = q->priority;
    sp->queue = q->why;
    q->why = NULL;
    sp->group = q->group ? dra_xstrdup(q->group) : NULL;
    const json_t *md = dra_jfield(cur, "metadata");
    sp->ref = dra_xasprintf("%s/%s", dra_jstr_or(md, "namespace", ""), dra_jstr_or(md, "name", ""));
}

/* The pods of one queue entry (q->v[from..to)): one pod, or the members of
 * a pod group tried in one cycle.  Returns true when the group failed after
 * some of its pods were placed: their placements are to be undone, so the
 * run is to be made again with the verdicts now in `verdicts`. */
static bool schedule_entry(sched *S, const dra_obj *const *pend, dra_sched_queue *q, size_t from, size_t to,
                           verdict *verdicts)
{
    const dra_sched_queued *lead = &q->v[from];
    /* in input order a group's pods need not be together: each is tried on its own */
    bool cycle = lead->group && !lead->hold && !verdicts[lead->index].set && S->o->order == DRA_SCHED_ORDER_QUEUE;
    int64_t min = lead->min_count, scheduled = lead->bound, remaining = (int64_t)(to - from);
    char *gmsg = NULL;                              /* the group's status once it failed */
    bool gerr = false, placed = false, any = false; /* any: a pod of the cycle fit */
    /* validatePodGroup refused the group before any pod was tried */
    char *hold_err = lead->group && lead->hold && lead->hold_error ? dra_xstrdup(lead->hold) : NULL;
    dra_release rel = dra_features_release_of(S->o->features);
    bool r38 = rel >= DRA_RELEASE_1_38, r36 = rel < DRA_RELEASE_1_37;
    int64_t unsched = 0; /* pods of the cycle that did not fit */
    /* refused before any pod is tried: until 1.38 the status carries
     * errPodGroupUnschedulable.  1.36 tries every pod (a pod that does not
     * fit does not end the cycle, schedule_one_podgroup.go
     * podGroupSchedulingDefaultAlgorithm), and the group is schedulable
     * once a pod passes Permit: GangScheduling's wants minCount pods
     * scheduled or assumed, Basic's any (gangscheduling.go Permit). */
    if (cycle && !r36 && remaining + scheduled < min)
        gmsg = min_unmet(r38, true, min, scheduled, unsched, remaining);
    size_t tried = from;
    for (size_t qi = from; qi < to; qi++) {
        const json_t *pod = pend[q->v[qi].index]->json;
        dra_sched_pod *sp = &S->out->pods[S->out->npods++];
        sched_pod_init(sp, pod, dra_changes_current(&S->st, pod), qi + 1, &q->v[qi]);
        verdict *v = &verdicts[q->v[qi].index];
        if (v->set) {
            sp->outcome = v->outcome;
            sp->message = v->message ? dra_xstrdup(v->message) : NULL;
        } else if (q->v[qi].hold) { /* its pod group is held back: the pod is not tried */
            sp->outcome = q->v[qi].hold_error ? DRA_POD_ERROR : DRA_POD_UNSCHEDULABLE;
            sp->message = q->v[qi].hold;
            q->v[qi].hold = NULL;
        } else if (!gmsg) {
            schedule_pod(S, pod, sp);
            tried = qi + 1;
            if (cycle) {
                remaining--;
                if (sp->outcome == DRA_POD_SCHEDULED || sp->outcome == DRA_POD_SKIPPED) {
                    scheduled++;
                    any = true;
                    placed = placed || sp->outcome == DRA_POD_SCHEDULED;
                }
                if (sp->outcome == DRA_POD_UNSCHEDULABLE)
                    unsched++;
                if (sp->outcome == DRA_POD_ERROR) {
                    gmsg = dra_xasprintf("failed to schedule other pod from a pod group: %s", sp->message);
                    gerr = true;
                } else if (!r36 && remaining + scheduled < min) {
                    gmsg = min_unmet(r38, false, min, scheduled, unsched, remaining);
                }
            }
        }
        if (S->o->text_results)
            freeze_pod_claims(&S->st, dra_changes_current(&S->st, pod));
    }
    /* a group that met its count with pods placed before, none now, is
     * not a success: the framework wants one pod placed in the cycle */
    if (cycle && !gmsg && (!any || (r36 && scheduled < min)))
        gmsg = dra_xstrdup(r38 ? "no pods were schedulable" : "pod group is unschedulable");
    /* an unschedulable group runs the PodGroupPostFilter plugins, whose
     * reasons the group's status gains: from 1.38 DynamicResources' stays,
     * as DefaultPreemption finding no victims answers Unschedulable (1.37:
     * UnschedulableAndUnresolvable, which drops it) */
    if (cycle && gmsg && !gerr && r38) {
        char *m = dra_xasprintf("%s, deallocation and deletion of ResourceClaims completed", gmsg);
        free(gmsg);
        gmsg = m;
    }
    /* the group's condition: from this cycle, from the cycle whose
     * placements this run leaves out, or from validatePodGroup */
    const verdict *lv = &verdicts[lead->index];
    if (cycle)
        group_outcome(S, lead->group,
                      !gmsg  ? DRA_GROUP_SCHEDULED
                      : gerr ? DRA_GROUP_SCHEDULER_ERROR
                             : DRA_GROUP_UNSCHEDULABLE,
                      gmsg);
    else if (lead->group && lv->gcond)
        group_outcome(S, lead->group, (dra_group_outcome)(lv->gcond - 1), lv->gmsg);
    else if (hold_err && !r36)
        group_outcome(S, lead->group, r38 ? DRA_GROUP_POD_GROUP_ERROR : DRA_GROUP_SCHEDULER_ERROR, hold_err);
    free(hold_err);
    if (!gmsg)
        return false;
    /* The group failed: a pod that did not fit keeps its own status; one
     * that fit fails with the group's after errPodGroupUnschedulable, one
     * not tried with the group's alone (an error fails them all but the
     * erring pod with the group's).  From 1.38 those pods name the parent
     * group instead (parent_failed).  DefaultPreemption's PodGroupPostFilter
     * reason the scheduler appends to the group's status ("pod group
     * preemption: ...") is left out, as there is no preemption here. */
    for (size_t qi = from; qi < to; qi++) {
        dra_sched_pod *sp = &S->out->pods[S->out->npods - (to - qi)];
        bool own = qi < tried && sp->outcome == (gerr ? DRA_POD_ERROR : DRA_POD_UNSCHEDULABLE);
        if (!own) {
            free(sp->node);
            sp->node = NULL;
            free(sp->message);
            sp->message = member_failed(rel, lead->group, gmsg, gerr, qi < tried);
            sp->outcome = gerr ? DRA_POD_ERROR : DRA_POD_UNSCHEDULABLE;
        }
        verdicts[q->v[qi].index] = (verdict){true, sp->outcome, dra_xstrdup(sp->message), 0, NULL};
    }
    verdicts[lead->index].gcond = (gerr ? DRA_GROUP_SCHEDULER_ERROR : DRA_GROUP_UNSCHEDULABLE) + 1;
    verdicts[lead->index].gmsg = gmsg;
    return placed;
}

/* The candidate nodes, in name order, and the per-node scratch. */
static void nodes_init(sched *S, json_t *const *nodes, size_t nnodes)
{
    S->nodes = dra_xcalloc(nnodes + 1, sizeof *S->nodes);
    for (size_t i = 0; i < nnodes; i++) {
        S->nodes[S->nnodes].json = nodes[i];
        S->nodes[S->nnodes].name = dra_jstr(nodes[i], "metadata.name");
        if (S->nodes[S->nnodes].name)
            S->nnodes++;
    }
    dra_sort(S->nodes, S->nnodes, sizeof *S->nodes, cmp_node);
    mark_risky(S->w, S->nodes, S->nnodes);
    bound_init(S);
    S->reasons = dra_xcalloc(S->nnodes + 1, sizeof *S->reasons);
    S->owned_reasons = dra_xcalloc(S->nnodes + 1, sizeof *S->owned_reasons);
    S->scores = dra_xcalloc(S->nnodes + 1, sizeof *S->scores);
    S->fit = dra_xcalloc(S->nnodes + 1, sizeof *S->fit);
}

/* What a run holds, released (not its result). */
static void sched_free(sched *S)
{
    for (size_t i = 0; i < S->nrefusals; i++) {
        free(S->refusals[i].uid);
        free(S->refusals[i].msg);
    }
    free(S->refusals);
    dra_strmap_free(&S->refused_pods);
    dra_alloc_world_free(S->w);
    dra_extres_map_free(S->xm);
    for (size_t i = 0; i < S->nnodes; i++)
        json_decref(S->nodes[i].requested);
    free(S->nodes);
    free(S->bound_tree);
    free(S->reasons);
    free(S->owned_reasons);
    free(S->scores);
    free(S->fit);
    dra_changes_free(&S->st);
}

/* The changed objects into S->out: input claims in input order, created
 * claims, pods in input order, then PodGroups. */
static void result_objects(sched *S, const dra_model *m)
{
    dra_sched_result *out = S->out;
    const dra_model_list *cl = dra_model_kind(m, DRA_KIND_RESOURCE_CLAIM);
    const dra_model_list *pl = dra_model_kind(m, DRA_KIND_POD);
    out->objs = dra_xcalloc(S->st.nobjs + 1, sizeof *out->objs);
    if (S->o->text_results)
        out->texts = dra_xcalloc(S->st.nobjs + 1, sizeof *out->texts);
    /* the input's claims in input order: with claims held as records
     * (every one read, the model's among them), those held as objects,
     * given back or made again by a lookup */
    size_t nclaims = S->c->taken ? S->c->recs.nclaims : cl->n;
    for (size_t i = 0; i < nclaims; i++) {
        const json_t *claim = S->c->taken ? dra_cluster_held_claim(S->c, i) : cl->v[i]->json;
        const dra_change *x = claim ? dra_changes_find(&S->st, claim) : NULL;
        if (x && !x->deleted)
            out->objs[out->nobjs++] = json_incref(x->obj);
    }
    for (size_t i = 0; i < S->st.nobjs; i++) {
        dra_change *x = &S->st.objs[i];
        if (x->orig || x->deleted)
            continue;
        size_t len;
        char *text = dra_changes_take_text(x, &len); /* only claims are frozen */
        if (text)
            out->texts[out->nobjs++] = text;
        else if (is_claim(x->obj))
            out->objs[out->nobjs++] = json_incref(x->obj);
    }
    for (size_t i = 0; i < pl->n; i++) {
        dra_change *x = dra_changes_held(&S->st, pl->v[i]->json);
        size_t len;
        char *text = x && !x->deleted ? dra_changes_take_text(x, &len) : NULL; /* frozen by freeze_pod */
        if (text)
            out->texts[out->nobjs++] = text;
        else if (x && !x->deleted)
            out->objs[out->nobjs++] = json_incref(x->obj);
    }
    /* PodGroups whose status.resourceClaimStatuses got new claims */
    const dra_model_list *gl = dra_model_kind(m, DRA_KIND_POD_GROUP);
    for (size_t i = 0; i < gl->n; i++) {
        const dra_change *x = dra_changes_find(&S->st, gl->v[i]->json);
        if (x && !x->deleted)
            out->objs[out->nobjs++] = json_incref(x->obj);
    }
}

/* kube-scheduler's PodScheduled=False on a pod it did not place
 * (sched/pod_status.h), but for one whose claim the quota refused: its
 * message is the claim controller's, and its condition was written when it
 * was tried. */
static void pod_unscheduled(sched *S, const dra_sched_pod *sp)
{
    const char *uid = dra_jstr(sp->pod, "metadata.uid") ? dra_jstr(sp->pod, "metadata.uid") : "";
    intptr_t refusal = 0;
    if (dra_strmap_get(&S->refused_pods, uid, strlen(uid), &refusal) && refusal)
        return;
    dra_sched_pod_unscheduled(&S->st, sp->pod, sp->outcome == DRA_POD_ERROR || sp->scheduler_error, sp->message,
                              S->o->now);
}

/* The allocator world: with claims held as records (dra_cluster_take_claim)
 * every one in use is added in input order, made again one at a time. */
static dra_err *world(const dra_cluster *c, const dra_slice_packs *packs, const dra_features *f, dra_selector_eval *ev,
                      bool explain, dra_alloc_world **w)
{
    if (!c->taken || !c->recs.nclaims) {
        dra_err *err = dra_alloc_world_of_model(&c->model, packs, f, ev, w, NULL, NULL);
        if (!err && !explain) /* nor the pods placed here their devices' */
            dra_alloc_world_unnamed(*w);
        return err;
    }
    dra_err *err = dra_alloc_world_of_fleet(&c->model, packs, f, ev, w);
    if (!err && !explain) /* no run names who holds a device */
        dra_alloc_world_unnamed(*w);
    for (size_t i = 0; !err && i < c->recs.nclaims; i++) {
        if (!c->recs.claims[i]->allocated)
            continue;
        json_t *tmp;
        const json_t *claim = dra_cluster_taken_claim(c, i, &tmp);
        const json_t *al = claim ? dra_jget(claim, "status.allocation") : NULL;
        if (al && !json_is_null(al)) /* a changed copy's may have lost it (what-if) */
            err = dra_alloc_world_add_in_use(*w, claim);
        json_decref(tmp);
    }
    return err;
}

/* One run over the queue; *again when a pod group's placements are to be
 * undone (the verdicts then say how its pods end). */
static dra_err *schedule_run(const dra_cluster *c, json_t *const *nodes, size_t nnodes, const dra_sched_opts *opts,
                             bool in_place, verdict *verdicts, dra_sched_result *out, bool *again)
{
    const dra_objset *set = c->set;
    const dra_model *m = &c->model;
    memset(out, 0, sizeof *out);
    sched S = {0};
    S.o = opts;
    S.out = out;
    if (opts->features)
        S.f = *opts->features;
    else
        dra_features_default(&S.f);

    /* The claim controller step, for pending pods only. */
    S.c = c;
    S.st.objects_only = true; /* the result is objects; no operations are printed */
    S.st.in_place = in_place;
    const dra_model_list *pl = dra_model_kind(m, DRA_KIND_POD);
    /* the queue first: claims are made, and charged to quotas, in its order */
    size_t npend;
    const dra_obj **pend = pending_pods(m, &npend);
    dra_sched_queue q;
    dra_sched_queue_order(pend, npend, set, opts->order, &S.f, opts->explain, &q);
    const json_t **order = dra_xcalloc(q.n + 1, sizeof *order);
    for (size_t qi = 0; qi < q.n; qi++)
        order[qi] = pend[q.v[qi].index]->json;
    dra_lc_opts lo = {.features = &S.f, .name_suffix = opts->name_suffix, .pending_only = true};
    lo.freeze = opts->text_results;
    if (opts->admit) {
        lo.admit = admit_claim;
        lo.admit_ctx = &S;
        lo.pod_order = order;
        lo.npod_order = q.n;
    }
    lo.freeze_pods = S.freeze_pods = may_freeze_pods(&S, &q, pend);
    out->warnings = dra_claims_generate(c, &lo, &S.st);
    free(order);
    if (S.freeze_pods) /* the pods' trees, dropped: their blocks to the allocator world */
        dra_jalloc_release();

    /* The allocator world. */
    const dra_model_list *kl = dra_model_kind(m, DRA_KIND_DEVICE_CLASS);
    json_t **classes = dra_xcalloc(kl->n + 1, sizeof *classes);
    for (size_t i = 0; i < kl->n; i++)
        classes[i] = kl->v[i]->json;
    dra_selector_eval ev = dra_cel_selector_eval_new(&S.f);
    dra_err *err = world(c, opts->packs, &S.f, &ev, opts->explain, &S.w);
    if (!err) {
        S.xm = dra_extres_map_new(classes, kl->n, &S.f);
        nodes_init(&S, nodes, nnodes);
        requested_init(&S);
        out->pods = dra_xcalloc(pl->n + 1, sizeof *out->pods);
        out->warnings = dra_err_append(out->warnings, q.warnings);
        q.warnings = NULL;
        for (size_t qi = 0, end; qi < q.n && !*again; qi = end) {
            end = qi + 1;
            if (q.v[qi].group)
                while (end < q.n && q.v[end].group && !strcmp(q.v[end].group, q.v[qi].group))
                    end++;
            size_t first = out->npods;
            *again = schedule_entry(&S, pend, &q, qi, end, verdicts);
            for (size_t k = first; k < out->npods; k++) {
                const dra_sched_pod *sp = &out->pods[k];
                if (sp->outcome == DRA_POD_UNSCHEDULABLE || sp->outcome == DRA_POD_ERROR)
                    pod_unscheduled(&S, sp);
                out->stats.pods++;
                out->stats.scheduled += sp->outcome == DRA_POD_SCHEDULED;
                out->stats.unschedulable += sp->outcome == DRA_POD_UNSCHEDULABLE;
                out->stats.errors += sp->outcome == DRA_POD_ERROR;
                freeze_pod(&S, sp->pod);
            }
            if (opts->progress)
                opts->progress(opts->progress_ud, "pods placed", end, q.n);
        }

        result_objects(&S, m);
    }
    dra_sched_queue_free(&q);
    free(pend);
    sched_free(&S);
    dra_cel_selector_eval_free(&ev);
    free(classes);
    return err;
}

/* Does the queue have a gang of minCount 2 or more, whose placements may be
 * undone? */
static bool has_gang(const dra_cluster *c, const dra_sched_opts *opts)
{
    const dra_model *m = &c->model;
    dra_features f;
    if (opts->features)
        f = *opts->features;
    else
        dra_features_default(&f);
    if (!dra_feature_enabled(&f, DRA_FEATURE_GENERIC_WORKLOAD))
        return false;
    size_t npend;
    const dra_obj **pend = pending_pods(m, &npend);
    dra_sched_queue q;
    dra_sched_queue_order(pend, npend, c->set, opts->order, &f, false, &q);
    bool gang = false;
    for (size_t i = 0; i < q.n && !gang; i++)
        gang = q.v[i].min_count > 1 && !q.v[i].hold;
    dra_sched_queue_free(&q);
    free(pend);
    return gang;
}

dra_err *dra_schedule(const dra_cluster *c, json_t *const *nodes, size_t nnodes, const dra_sched_opts *opts,
                      dra_sched_result *out)
{
    double t0 = now_s();
    /* A run that may be made again keeps the input as it is. */
    bool gang = has_gang(c, opts);
    size_t npods = dra_model_kind(&c->model, DRA_KIND_POD)->n;
    verdict *verdicts = dra_xcalloc(npods + 1, sizeof *verdicts);
    dra_err *err;
    for (;;) {
        bool again = false;
        err = schedule_run(c, nodes, nnodes, opts, opts->in_place && !gang, verdicts, out, &again);
        if (err || !again)
            break;
        dra_sched_result_free(out);
    }
    for (size_t i = 0; i < npods; i++) {
        free(verdicts[i].message);
        free(verdicts[i].gmsg);
    }
    free(verdicts);
    if (!err) /* an object held as a record that could not be read back: the answer misses it */
        err = dra_compact_failure(&c->recs);
    out->stats.seconds = now_s() - t0;
    return err;
}

json_t *dra_sched_result_obj(const dra_sched_result *r, size_t i)
{
    if (r->objs[i])
        return json_incref(r->objs[i]);
    json_t *v = r->texts && r->texts[i] ? dra_json_read_compact(r->texts[i], strlen(r->texts[i])) : NULL;
    return v ? v : json_object(); /* our own text: it parses */
}

void dra_sched_result_free(dra_sched_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nobjs; i++) {
        json_decref(r->objs[i]);
        if (r->texts)
            free(r->texts[i]);
    }
    free(r->objs);
    free(r->texts);
    for (size_t i = 0; i < r->npods; i++) {
        free(r->pods[i].ref);
        free(r->pods[i].node);
        free(r->pods[i].message);
        free(r->pods[i].queue);
        free(r->pods[i].group);
        json_decref(r->pods[i].trace);
    }
    free(r->pods);
    dra_err_free(r->warnings);
    memset(r, 0, sizeof *r);
}
