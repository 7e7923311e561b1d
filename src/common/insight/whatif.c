/* What-if over the scheduler.  See whatif.h. */
#include "whatif.h"

#include <stdlib.h>
#include <string.h>

#include "../base/hash.h"
#include "../cluster/cluster.h"
#include "../io/json.h"
#include "../model/kinds.h"
#include "../model/taints.h"
#include "diff.h"
#include "../sched/report.h"

/* ---- parsing --taint ---------------------------------------------------------------- */

dra_err *dra_whatif_taint_rule(const char *spec, size_t index, json_t **rule)
{
    *rule = NULL;
    const char *c1 = strchr(spec, ':'), *c2 = strrchr(spec, ':');
    if (!c1 || c1 == c2)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "want SELECTOR:KEY=VALUE:EFFECT, not '%s'", spec), "taint");
    char *sel = dra_xstrndup(spec, (size_t)(c1 - spec)), *kv = dra_xstrndup(c1 + 1, (size_t)(c2 - c1 - 1));
    const char *effect = c2 + 1;
    char *parts[3] = {NULL, NULL, NULL};
    char *save = NULL;
    int np = 0;
    dra_err *e = NULL;
    for (char *t = strtok_r(sel, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (np == 3) {
            e = dra_err_new(DRA_EXIT_INPUT, "selector '%s': want DRIVER[/POOL[/DEVICE]]", sel);
            break;
        }
        parts[np++] = t;
    }
    if (!e && !np)
        e = dra_err_new(DRA_EXIT_INPUT,
                        "want SELECTOR:KEY=VALUE:EFFECT with SELECTOR = DRIVER[/POOL[/DEVICE]], not '%s'", spec);
    char *eq = strchr(kv, '=');
    if (eq)
        *eq = 0;
    if (!e && !*kv)
        e = dra_err_new(DRA_EXIT_INPUT, "want SELECTOR:KEY=VALUE:EFFECT, the key is empty in '%s'", spec);
    if (!e && strcmp(effect, "NoSchedule") != 0 && strcmp(effect, "NoExecute") != 0 && strcmp(effect, "None") != 0)
        e = dra_err_new(DRA_EXIT_INPUT, "unknown effect '%s' in '%s' (want NoSchedule, NoExecute or None)", effect,
                        spec);
    if (!e) {
        json_t *ds = json_pack("{s:s}", "driver", parts[0]);
        if (parts[1])
            json_object_set_new(ds, "pool", json_string(parts[1]));
        if (parts[2])
            json_object_set_new(ds, "device", json_string(parts[2]));
        json_t *taint = json_pack("{s:s,s:s}", "key", kv, "effect", effect);
        if (eq)
            json_object_set_new(taint, "value", json_string(eq + 1));
        char name[64];
        snprintf(name, sizeof name, "whatif-taint-%zu", index);
        *rule = json_pack("{s:s,s:s,s:{s:s},s:{s:o,s:o}}", "apiVersion", "resource.k8s.io/v1", "kind",
                          "DeviceTaintRule", "metadata", "name", name, "spec", "deviceSelector", ds, "taint", taint);
    }
    free(sel);
    free(kv);
    return e ? dra_err_param(e, "taint") : NULL;
}

/* ---- applying changes ------------------------------------------------------------------- */

bool dra_whatif_drained(const dra_whatif_spec *s, const char *name)
{
    for (size_t i = 0; name && i < s->ndrain; i++)
        if (strcmp(s->drain[i], name) == 0)
            return true;
    return false;
}

typedef struct parsed_taint {
    char *driver, *pool, *device; /* NULL: any */
    const char *key, *value, *effect;
    json_t *rule;
} parsed_taint;

static bool result_tolerates(const json_t *res, const parsed_taint *t)
{
    size_t i;
    const json_t *tol;
    json_array_foreach(dra_jfield(res, "tolerations"), i, tol) {
        dra_toleration_ref r = {dra_jfield_str(tol, "key"), dra_jfield_str(tol, "operator"),
                                dra_jfield_str(tol, "value"), dra_jfield_str(tol, "effect")};
        if (dra_tolerates(&r, &(dra_taint_ref){t->key, t->value, t->effect}))
            return true;
    }
    return false;
}

/* Why result res of a running pod's claim is lost, or NULL. Caller frees. */
static char *result_lost(const json_t *res, const dra_whatif_spec *s, const parsed_taint *pt)
{
    const char *d = dra_jfield_str(res, "driver"), *p = dra_jfield_str(res, "pool"), *x = dra_jfield_str(res, "device");
    if (!d || !p || !x)
        return NULL;
    char *id = dra_xasprintf("%s/%s/%s", d, p, x);
    char *why = NULL;
    for (size_t i = 0; i < s->nremove && !why; i++)
        if (strcmp(s->remove[i], id) == 0)
            why = dra_xasprintf("device %s removed", id);
    for (size_t i = 0; i < s->ntaint && !why; i++) {
        const parsed_taint *t = &pt[i];
        if (strcmp(t->effect, "NoExecute") != 0 ||
            !dra_taint_selector_matches(t->driver, t->pool, t->device, d, p, x) || result_tolerates(res, t))
            continue;
        why = dra_xasprintf("device %s tainted %s%s%s:NoExecute", id, t->key, t->value ? "=" : "",
                            t->value ? t->value : "");
    }
    free(id);
    return why;
}

/* Who is told before an object of the changed input changes (see
 * dra_whatif_opts.changing); NULL: nobody. */
typedef struct change_hook {
    void (*fn)(void *ctx, json_t *obj);
    void *ctx;
} change_hook;

static void changing(const change_hook *h, json_t *obj)
{
    if (h && h->fn && obj)
        h->fn(h->ctx, obj);
}

/* Whether device id (DRIVER/POOL/DEVICE) is in a slice of m; with apply,
 * it leaves every slice that has it. */
static void remove_device(dra_model *m, const char *id, bool apply, const change_hook *h, bool *found)
{
    const dra_model_list *l = dra_model_kind(m, DRA_KIND_RESOURCE_SLICE);
    for (size_t i = 0; i < l->n; i++) {
        json_t *spec = json_object_get(l->v[i]->json, "spec");
        const char *d = dra_jfield_str(spec, "driver"), *p = dra_jstr(spec, "pool.name");
        json_t *devs = json_object_get(spec, "devices");
        size_t dl = d ? strlen(d) : 0, pl = p ? strlen(p) : 0;
        if (!d || !p || strncmp(id, d, dl) != 0 || id[dl] != '/' || strncmp(id + dl + 1, p, pl) != 0 ||
            id[dl + 1 + pl] != '/')
            continue;
        const char *dev = id + dl + pl + 2;
        for (size_t k = 0; k < json_array_size(devs); k++) {
            const char *n = dra_jfield_str(json_array_get(devs, k), "name");
            if (n && strcmp(n, dev) == 0) {
                *found = true;
                if (apply) {
                    changing(h, l->v[i]->json);
                    json_array_remove(devs, k);
                }
                break;
            }
        }
    }
}

/* The claims of a pod (names resolved as the claim controller does), as "ns/name". */
static void pod_claims(const json_t *pod, json_t *out)
{
    const char *ns = dra_jstr(pod, "metadata.namespace");
    size_t i;
    const json_t *pc;
    json_array_foreach(dra_jget(pod, "spec.resourceClaims"), i, pc) {
        const char *name = NULL;
        bool owner;
        if (dra_pod_claim_name(pod, pc, &name, &owner) != DRA_PODCLAIM_NAMED || !name)
            continue;
        char *k = dra_xasprintf("%s/%s", ns ? ns : "", name);
        json_array_append_new(out, json_string(k));
        free(k);
    }
}

/* The object of a "namespace/name" ref (the refs this file makes). */
static const dra_obj *by_ref(const dra_model *m, dra_kind kind, const char *ref)
{
    const char *slash = strchr(ref, '/');
    char *ns = dra_xstrndup(ref, (size_t)(slash - ref));
    const dra_obj *o = dra_model_find(m, kind, ns, slash + 1);
    free(ns);
    return o;
}

/* The pod loses its node; its claims lose the reservation, and the allocation
 * when no other pod holds them. */
static void release(dra_model *m, json_t *pod, const json_t *claims, const change_hook *h)
{
    const char *uid = dra_jstr(pod, "metadata.uid"), *pname = dra_jstr(pod, "metadata.name");
    size_t i;
    const json_t *c;
    json_array_foreach(claims, i, c) {
        const dra_obj *o = by_ref(m, DRA_KIND_RESOURCE_CLAIM, json_string_value(c));
        if (o)
            changing(h, o->json);
        json_t *st = o ? json_object_get(o->json, "status") : NULL;
        json_t *rf = json_object_get(st, "reservedFor");
        for (size_t k = json_array_size(rf); k-- > 0;) {
            const json_t *r = json_array_get(rf, k);
            const char *ru = dra_jfield_str(r, "uid"), *rn = dra_jfield_str(r, "name");
            if ((uid && ru && strcmp(uid, ru) == 0) || (!uid && pname && rn && strcmp(pname, rn) == 0))
                json_array_remove(rf, k);
        }
        if (st && !json_array_size(rf)) {
            json_object_del(st, "reservedFor");
            json_object_del(st, "allocation");
            json_object_del(st, "devices");
        }
    }
    changing(h, pod);
    json_t *spec = json_object_get(pod, "spec");
    json_object_del(spec, "nodeName");
}

static void taints_free(parsed_taint *pt, size_t n)
{
    for (size_t i = 0; pt && i < n; i++) {
        free(pt[i].driver);
        free(pt[i].pool);
        free(pt[i].device);
        json_decref(pt[i].rule);
    }
    free(pt);
}

/* The --taint values of s into pt (s->ntaint entries, zeroed): the first
 * error when stop, else (NULL returned) the ones that parse. */
static dra_err *parse_taints(const dra_whatif_spec *s, parsed_taint *pt, bool stop)
{
    for (size_t i = 0; i < s->ntaint; i++) {
        dra_err *e = dra_whatif_taint_rule(s->taint[i], i, &pt[i].rule);
        if (e && stop)
            return e;
        dra_err_free(e);
        if (!pt[i].rule)
            continue;
        const json_t *ds = dra_jget(pt[i].rule, "spec.deviceSelector"), *t = dra_jget(pt[i].rule, "spec.taint");
        const char *d = dra_jfield_str(ds, "driver"), *p = dra_jfield_str(ds, "pool"),
                   *x = dra_jfield_str(ds, "device");
        pt[i].driver = d ? dra_xstrdup(d) : NULL;
        pt[i].pool = p ? dra_xstrdup(p) : NULL;
        pt[i].device = x ? dra_xstrdup(x) : NULL;
        pt[i].key = dra_jfield_str(t, "key");
        pt[i].value = dra_jfield_str(t, "value");
        pt[i].effect = dra_jfield_str(t, "effect");
    }
    return NULL;
}

struct dra_whatif_reach {
    const dra_whatif_spec *s;
    const dra_cluster *c;
    parsed_taint *pt; /* s->ntaint entries; rule NULL: did not parse */
};

dra_whatif_reach *dra_whatif_reach_new(const dra_whatif_spec *s, const dra_cluster *c)
{
    dra_whatif_reach *r = dra_xcalloc(1, sizeof *r);
    r->s = s;
    r->c = c;
    r->pt = dra_xcalloc(s->ntaint + 1, sizeof *r->pt);
    dra_err_free(parse_taints(s, r->pt, false));
    return r;
}

void dra_whatif_reach_free(dra_whatif_reach *r)
{
    if (!r)
        return;
    taints_free(r->pt, r->s->ntaint);
    free(r);
}

/* Whether result x of a claim holds a device r's removes or taints NoExecute. */
static bool result_reached(const dra_whatif_reach *r, const dra_rec_result *x)
{
    if (!x->driver || !x->pool || !x->device)
        return false;
    size_t dl = strlen(x->driver), pl = strlen(x->pool);
    for (size_t i = 0; i < r->s->nremove; i++) {
        const char *id = r->s->remove[i];
        if (!strncmp(id, x->driver, dl) && id[dl] == '/' && !strncmp(id + dl + 1, x->pool, pl) &&
            id[dl + 1 + pl] == '/' && !strcmp(id + dl + pl + 2, x->device))
            return true;
    }
    for (size_t i = 0; i < r->s->ntaint; i++) {
        const parsed_taint *t = &r->pt[i];
        if (t->rule && !strcmp(t->effect, "NoExecute") &&
            dra_taint_selector_matches(t->driver, t->pool, t->device, x->driver, x->pool, x->device))
            return true;
    }
    return false;
}

static bool claim_reached(const dra_whatif_reach *r, const char *ns, const char *name)
{
    const dra_claim_rec *c = name ? dra_cluster_taken_claim_record(r->c, ns, name) : NULL;
    for (uint32_t k = 0; c && k < c->nresults; k++)
        if (result_reached(r, &c->results[k]))
            return true;
    return false;
}

bool dra_whatif_reaches(void *reach, const dra_pod_rec *pod)
{
    const dra_whatif_reach *r = reach;
    if (dra_whatif_drained(r->s, pod->node_name))
        return true;
    if (!r->s->nremove && !r->s->ntaint)
        return false;
    for (uint32_t k = 0; k < pod->nclaims; k++)
        if (claim_reached(r, pod->ns, pod->claims[k].claim))
            return true;
    for (uint32_t k = 0; k < pod->nstatuses; k++)
        if (claim_reached(r, pod->ns, pod->statuses[k].claim))
            return true;
    return false;
}

/* The errors of s on m and the slices held as text (packs, or NULL), as
 * applying it would find them: drained nodes the input does not have, then
 * the first removed device it does not have (in m's slices alone). */
static dra_err *whatif_check(dra_model *m, const dra_slice_packs *packs, const dra_whatif_spec *s)
{
    dra_err *e = NULL;
    for (size_t i = 0; i < s->ndrain; i++) {
        bool known = dra_model_node(m, s->drain[i]) != NULL;
        const dra_model_list *l = dra_model_kind(m, DRA_KIND_RESOURCE_SLICE);
        for (size_t k = 0; k < l->n && !known; k++) {
            const char *nn = dra_jstr(l->v[k]->json, "spec.nodeName");
            known = nn && strcmp(nn, s->drain[i]) == 0;
        }
        for (size_t k = 0; packs && k < packs->n && !known; k++) {
            const char *nn = packs->v[k]->node_name;
            known = nn && strcmp(nn, s->drain[i]) == 0;
        }
        if (!known)
            e = dra_err_append(e, dra_err_param(dra_err_new(DRA_EXIT_INPUT,
                                                            "node %s is not in the input (no Node object, "
                                                            "no ResourceSlice names it)",
                                                            s->drain[i]),
                                                "drain"));
    }
    for (size_t i = 0; i < s->nremove && !e; i++) {
        bool found = false;
        remove_device(m, s->remove[i], false, NULL, &found);
        if (!found)
            e = dra_err_param(dra_err_new(DRA_EXIT_INPUT,
                                          "device %s is not in the input's ResourceSlices (want DRIVER/POOL/DEVICE)",
                                          s->remove[i]),
                              "remove-device");
    }
    return e;
}

static dra_err *whatif_apply(dra_model *m, const dra_slice_packs *packs, const dra_whatif_spec *s, const change_hook *h,
                             json_t **lost)
{
    *lost = json_array();
    dra_err *e = whatif_check(m, packs, s);
    parsed_taint *pt = dra_xcalloc(s->ntaint + 1, sizeof *pt);
    if (!e)
        e = parse_taints(s, pt, true);
    /* which running pods lose their devices (before anything changes) */
    const dra_model_list *pods = dra_model_kind(m, DRA_KIND_POD);
    json_t *losing = json_array(); /* pod objects, parallel to *lost */
    for (size_t i = 0; i < pods->n && !e; i++) {
        json_t *pod = pods->v[i]->json;
        const char *node = dra_jstr(pod, "spec.nodeName");
        const char *phase = dra_jstr(pod, "status.phase");
        if (!node || (phase && (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0)))
            continue;
        json_t *claims = json_array();
        pod_claims(pod, claims);
        char *why = NULL;
        if (dra_whatif_drained(s, node) && json_array_size(claims))
            why = dra_xasprintf("node %s drained", node);
        size_t k;
        const json_t *c;
        json_array_foreach(claims, k, c) {
            const dra_obj *o = by_ref(m, DRA_KIND_RESOURCE_CLAIM, json_string_value(c));
            size_t r;
            const json_t *res;
            json_array_foreach(dra_jget(o ? o->json : NULL, "status.allocation.devices.results"), r, res) {
                if (!why)
                    why = result_lost(res, s, pt);
            }
        }
        if (why) {
            char *ref = dra_xasprintf("%s/%s", dra_jstr_or(pod, "metadata.namespace", ""),
                                      dra_jstr_or(pod, "metadata.name", ""));
            json_array_append_new(
                *lost, json_pack("{s:s,s:s,s:O,s:s}", "pod", ref, "node", node, "claims", claims, "reason", why));
            json_array_append(losing, pod);
            free(ref);
        }
        free(why);
        json_decref(claims);
    }
    for (size_t i = 0; i < s->nremove && !e; i++) {
        bool found = false;
        remove_device(m, s->remove[i], true, h, &found);
    }
    for (size_t i = 0; i < json_array_size(losing) && !e; i++)
        release(m, json_array_get(losing, i), json_object_get(json_array_get(*lost, i), "claims"), h);
    json_decref(losing);
    taints_free(pt, s->ntaint);
    if (e) {
        json_decref(*lost);
        *lost = NULL;
    }
    return e;
}

dra_err *dra_whatif_apply(dra_model *m, const dra_whatif_spec *s, json_t **lost)
{
    return whatif_apply(m, NULL, s, NULL, lost);
}

/* ---- the report ------------------------------------------------------------------------- */

/* Every claim after a run on c: the input's (changed ones as the run left
 * them), then the created ones.  When c shares its records with other (the
 * same input, before or after the changes), the input's claims held as a
 * record by both are the same on both sides and left out; one held as an
 * object by other alone is made again from its record into tmps. */
static json_t **final_claims(const dra_cluster *c, const dra_cluster *other, const dra_sched_result *r, size_t *n,
                             json_t **tmps, size_t *ntmps)
{
    const dra_model_list *l = dra_model_kind(&c->model, DRA_KIND_RESOURCE_CLAIM);
    size_t nin = c->taken ? c->recs.nclaims : l->n;
    json_t **v = dra_xcalloc(nin + r->nobjs + 1, sizeof *v);
    dra_strmap idx = {0};
    char **keys = dra_xcalloc(nin + 1, sizeof *keys);
    *n = 0;
    for (size_t i = 0; i < nin; i++) {
        json_t *claim = c->taken ? (json_t *)dra_cluster_held_claim(c, i) : l->v[i]->json;
        if (!claim && other->taken && dra_cluster_held_claim(other, i)) {
            json_t *tmp = NULL;
            claim = (json_t *)dra_cluster_taken_claim(c, i, &tmp);
            if (tmp)
                tmps[(*ntmps)++] = tmp;
        }
        if (!claim)
            continue;
        v[*n] = claim;
        keys[*n] = dra_xasprintf("%s/%s", dra_jstr_or(claim, "metadata.namespace", ""),
                                 dra_jstr_or(claim, "metadata.name", ""));
        dra_strmap_put(&idx, keys[*n], strlen(keys[*n]), (intptr_t)*n);
        (*n)++;
    }
    size_t nkeys = *n;
    for (size_t i = 0; i < r->nobjs; i++) {
        const char *kind = dra_jstr(r->objs[i], "kind");
        if (!kind || strcmp(kind, "ResourceClaim") != 0)
            continue;
        char *k = dra_xasprintf("%s/%s", dra_jstr_or(r->objs[i], "metadata.namespace", ""),
                                dra_jstr_or(r->objs[i], "metadata.name", ""));
        intptr_t at;
        if (dra_strmap_get(&idx, k, strlen(k), &at))
            v[at] = r->objs[i];
        else
            v[(*n)++] = r->objs[i];
        free(k);
    }
    for (size_t i = 0; i < nkeys; i++)
        free(keys[i]);
    free(keys);
    dra_strmap_free(&idx);
    return v;
}

/* A pod's state: {"node"} scheduled, {"running"} bound before, {"fits": false, "reason"} */
static json_t *pod_state(const dra_cluster *c, const dra_sched_result *r, const dra_strmap *at, const char *ref)
{
    intptr_t i;
    if (dra_strmap_get(at, ref, strlen(ref), &i)) {
        const dra_sched_pod *sp = &r->pods[i];
        if (sp->outcome == DRA_POD_SCHEDULED)
            return json_pack("{s:s}", "node", sp->node ? sp->node : "");
        return json_pack("{s:b,s:s}", "fits", 0, "reason", sp->message ? sp->message : "");
    }
    const char *slash = strchr(ref, '/');
    char *ns = dra_xstrndup(ref, (size_t)(slash - ref));
    const dra_obj *o = dra_cluster_find(c, DRA_KIND_POD, ns, slash + 1); /* made again when a record */
    free(ns);
    const char *node = o ? dra_jstr(o->json, "spec.nodeName") : NULL;
    return node ? json_pack("{s:s}", "running", node) : NULL;
}

static const char *where(const json_t *st)
{
    const char *n = dra_jfield_str(st, "node");
    return n ? n : dra_jfield_str(st, "running");
}

/* Each pod of a run by its ref, the first result of a ref winning (the map
 * borrows the refs). */
static void index_pods(const dra_sched_result *r, dra_strmap *at)
{
    for (size_t i = 0; i < r->npods; i++)
        dra_strmap_add(at, r->pods[i].ref, strlen(r->pods[i].ref), (intptr_t)i, NULL);
}

/* The pods a run placed or tried, each once (the map borrows the results' refs). */
static void pods_of(const dra_sched_result *r, json_t *refs, dra_strmap *seen)
{
    for (size_t i = 0; i < r->npods; i++) {
        const char *ref = r->pods[i].ref;
        if (!dra_strmap_add(seen, ref, strlen(ref), 0, NULL))
            json_array_append_new(refs, json_string(ref));
    }
}

json_t *dra_whatif_report(const dra_whatif_spec *s, const dra_cluster *before, const dra_sched_result *rb,
                          const dra_cluster *after, const dra_sched_result *ra, json_t *lost)
{
    json_t *changes = json_array();
    for (size_t i = 0; i < s->ndrain; i++)
        json_array_append_new(changes, json_pack("{s:s}", "drain", s->drain[i]));
    for (size_t i = 0; i < s->nremove; i++)
        json_array_append_new(changes, json_pack("{s:s}", "removeDevice", s->remove[i]));
    for (size_t i = 0; i < s->ntaint; i++)
        json_array_append_new(changes, json_pack("{s:s}", "taint", s->taint[i]));
    for (size_t i = 0; i < s->nadd; i++)
        json_array_append_new(changes, json_pack("{s:s}", "add", s->add[i]));
    /* pods: pending before or after, in that order (refs borrowed from the results) */
    json_t *refs = json_array();
    dra_strmap seen = {0};
    pods_of(rb, refs, &seen);
    pods_of(ra, refs, &seen);
    dra_strmap_free(&seen);
    dra_strmap at_b = {0}, at_a = {0};
    index_pods(rb, &at_b);
    index_pods(ra, &at_a);
    json_t *pods = json_array();
    long long now_fit = 0, stop = 0, moved = 0;
    size_t i;
    const json_t *rj;
    json_array_foreach(refs, i, rj) {
        const char *ref = json_string_value(rj);
        json_t *b = pod_state(before, rb, &at_b, ref), *a = pod_state(after, ra, &at_a, ref);
        const char *wb = where(b), *wa = where(a), *change = NULL;
        if (wb && !wa)
            change = "stops fitting", stop++;
        else if (!wb && wa)
            change = "now fits", now_fit++;
        else if (wb && wa && strcmp(wb, wa) != 0)
            change = "moves", moved++;
        if (change)
            json_array_append_new(
                pods, json_pack("{s:s,s:O?,s:O?,s:s}", "pod", ref, "before", b, "after", a, "change", change));
        json_decref(a);
        json_decref(b);
    }
    json_decref(refs);
    dra_strmap_free(&at_b);
    dra_strmap_free(&at_a);
    size_t nb, na, ntmps = 0;
    size_t most = (before->taken ? before->recs.nclaims : 0) + (after->taken ? after->recs.nclaims : 0);
    json_t **tmps = dra_xcalloc(most + 1, sizeof *tmps);
    json_t **cb = final_claims(before, after, rb, &nb, tmps, &ntmps),
           **ca = final_claims(after, before, ra, &na, tmps, &ntmps);
    json_t *d = dra_diff_claim_lists(cb, nb, ca, na);
    free(cb);
    free(ca);
    for (size_t k = 0; k < ntmps; k++)
        json_decref(tmps[k]);
    free(tmps);
    json_t *claims = json_incref(json_object_get(d, "changes"));
    json_decref(d);
    json_t *sum = json_pack("{s:I,s:I,s:I,s:I,s:I}", "lost", (json_int_t)json_array_size(lost), "nowFit",
                            (json_int_t)now_fit, "stopFitting", (json_int_t)stop, "moved", (json_int_t)moved,
                            "claimsChanged", (json_int_t)json_array_size(claims));
    return json_pack("{s:o,s:O,s:o,s:o,s:o}", "changes", changes, "lost", lost, "pods", pods, "claims", claims,
                     "summary", sum);
}

bool dra_whatif_hurts(const json_t *report)
{
    return json_integer_value(dra_jget(report, "summary.lost")) > 0 ||
           json_integer_value(dra_jget(report, "summary.stopFitting")) > 0;
}

static void put_state(dra_buf *out, const json_t *st)
{
    const char *n;
    if ((n = dra_jfield_str(st, "running")))
        dra_buf_printf(out, "running on %s", n);
    else if ((n = dra_jfield_str(st, "node")))
        dra_buf_printf(out, "fits on %s", n);
    else
        dra_buf_puts(out, "fits nowhere");
}

void dra_whatif_text(const json_t *report, dra_buf *out)
{
    dra_buf_puts(out, "what-if:");
    size_t i;
    const json_t *c;
    json_array_foreach(dra_jfield(report, "changes"), i, c) {
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)c, k, v) {
            dra_buf_printf(out, "%s %s %s", i ? ";" : "", strcmp(k, "removeDevice") == 0 ? "remove-device" : k,
                           json_string_value(v));
        }
    }
    if (!json_array_size(dra_jfield(report, "changes")))
        dra_buf_puts(out, " (no change)");
    dra_buf_puts(out, "\n");
    json_array_foreach(dra_jfield(report, "lost"), i, c) {
        dra_buf_printf(out, "lost: pod %s on %s: %s\n", dra_jfield_str(c, "pod"), dra_jfield_str(c, "node"),
                       dra_jfield_str(c, "reason"));
    }
    json_array_foreach(dra_jfield(report, "pods"), i, c) {
        dra_buf_printf(out, "%s: pod %s: ", dra_jfield_str(c, "change"), dra_jfield_str(c, "pod"));
        put_state(out, dra_jfield(c, "before"));
        dra_buf_puts(out, " -> ");
        put_state(out, dra_jfield(c, "after"));
        const char *why = dra_jstr(c, "after.reason");
        if (why)
            dra_buf_printf(out, " (%s)", why);
        dra_buf_puts(out, "\n");
    }
    json_t *d = json_pack("{s:O,s:{}}", "changes", dra_jfield(report, "claims"), "summary");
    dra_buf lines = DRA_BUF_INIT;
    dra_diff_text(d, &lines);
    json_decref(d);
    /* the claim lines without the diff's own summary line */
    const char *t = dra_buf_str(&lines), *last = strstr(t, "summary: ");
    if (last)
        dra_buf_append(out, t, (size_t)(last - t));
    dra_buf_free(&lines);
    const json_t *s = dra_jfield(report, "summary");
#define N(k) (long long)json_integer_value(dra_jfield(s, k))
    dra_buf_printf(out,
                   "summary: running pods losing their devices %lld; pending pods that now fit %lld, that stop "
                   "fitting %lld; pods that move %lld; claims that change %lld\n",
                   N("lost"), N("nowFit"), N("stopFitting"), N("moved"), N("claimsChanged"));
#undef N
}

/* One run of a what-if: c scheduled on its nodes less those s drains (s
 * NULL: all), with quota admission when c has ResourceQuotas. */
static dra_err *whatif_schedule(const dra_cluster *c, const dra_whatif_spec *s, const dra_whatif_opts *o,
                                dra_sched_result *res)
{
    dra_sched_opts so = o->sched;
    dra_quota_ledger *ledger = NULL;
    dra_err *e = dra_quota_admission(c, so.features, &so, &ledger);
    if (e)
        return e;
    dra_sched_nodes nodes = {0};
    dra_sched_nodes_from_model(&c->model, so.packs, &nodes);
    json_t **v = dra_xcalloc(nodes.n + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < nodes.n; i++) {
        const char *name = json_string_value(json_object_get(json_object_get(nodes.v[i], "metadata"), "name"));
        if (!s || !dra_whatif_drained(s, name))
            v[n++] = nodes.v[i];
    }
    e = dra_schedule(c, v, n, &so, res);
    if (o->ledger_done)
        o->ledger_done(o->ctx, ledger, s != NULL);
    else
        dra_quota_ledger_free(ledger);
    free(v);
    dra_sched_nodes_free(&nodes);
    return e;
}

dra_err *dra_whatif_run(const dra_cluster *before, dra_cluster *after, const dra_whatif_spec *s,
                        const dra_whatif_opts *o, dra_whatif_result *out)
{
    memset(out, 0, sizeof *out);
    json_t *lost = NULL;
    /* the input as given is scheduled before the changes are made: the
     * changed input may share its objects (o->changing) */
    dra_err *e = whatif_check(&after->model, o->sched.packs, s);
    if (!e)
        e = whatif_schedule(before, NULL, o, &out->before);
    change_hook h = {o->changing, o->ctx};
    if (!e)
        e = whatif_apply(&after->model, o->sched.packs, s, &h, &lost);
    if (!e)
        e = whatif_schedule(after, s, o, &out->after);
    if (!e)
        out->report = dra_whatif_report(s, before, &out->before, after, &out->after, lost);
    json_decref(lost);
    return e;
}

void dra_whatif_result_free(dra_whatif_result *r)
{
    dra_sched_result_free(&r->before);
    dra_sched_result_free(&r->after);
    json_decref(r->report);
    memset(r, 0, sizeof *r);
}
