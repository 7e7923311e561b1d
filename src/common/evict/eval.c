/* Evaluating DeviceTaintRules and device taints against claims and pods:
 * the rules, the slices' devices, taints and tolerations, which claims and
 * pods are evicted and when, the records (see internal.h). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/hash.h"
#include "../model/names.h"
#include "../model/pools.h"
#include "../base/sort.h"
#include "../model/taints.h"

/* ---- rules ---- */

void dra_ev_warn(dra_evict_result *r, char *msg)
{
    dra_problem *p = dra_problems_add(&r->warnings);
    p->warning = true;
    p->msg = msg;
}

static void check_time(dra_errs *l, const json_t *taint, const char *field)
{
    json_t *t = json_object_get(taint, "timeAdded");
    if (!t || json_is_null(t))
        return;
    dra_time at;
    dra_err *e = json_is_string(t) ? dra_time_parse(json_string_value(t), &at)
                                   : dra_err_new(DRA_EXIT_INPUT, "must be of type string");
    if (e) {
        char *f = dra_xasprintf("%s.timeAdded", field);
        dra_ferr_invalid_raw(l, f, json_is_string(t) ? json_string_value(t) : "?", e->msg);
        free(f);
        dra_err_free(e);
    }
}

static void check_taint(dra_errs *l, const json_t *taint, const char *field)
{
    if (!json_is_object(taint)) {
        dra_ferr_required(l, field, NULL);
        return;
    }
    const char *key = dra_jstr(taint, "key"), *effect = dra_jstr(taint, "effect");
    char *f = dra_xasprintf("%s.key", field);
    if (!key || !*key)
        dra_ferr_required(l, f, NULL);
    free(f);
    f = dra_xasprintf("%s.effect", field);
    if (!effect || !*effect)
        dra_ferr_required(l, f, NULL);
    free(f);
    check_time(l, taint, field);
}

static dra_err *load_rules(ctx *x)
{
    const dra_cluster *c = x->c;
    dra_err *errs = NULL;
    if (!dra_feature_enabled(x->opts->features, DRA_FEATURE_DEVICE_TAINT_RULES)) {
        if (c->n[DRA_KIND_DEVICE_TAINT_RULE])
            dra_ev_warn(x->out,
                        dra_xstrdup("DRADeviceTaintRules is disabled: DeviceTaintRules neither evict nor get status"));
        return NULL;
    }
    x->rules = dra_xcalloc(c->n[DRA_KIND_DEVICE_TAINT_RULE] + 1, sizeof *x->rules);
    for (size_t i = 0; i < c->n[DRA_KIND_DEVICE_TAINT_RULE]; i++) {
        const dra_obj *o = c->of[DRA_KIND_DEVICE_TAINT_RULE][i];
        dra_errs l = DRA_ERRS_INIT;
        const json_t *taint = dra_jget(o->json, "spec.taint");
        check_taint(&l, taint, "spec.taint");
        json_t *sel = dra_jget(o->json, "spec.deviceSelector");
        if (sel && !json_is_null(sel) && !json_is_object(sel)) {
            dra_ferr_wrong_type(&l, "spec.deviceSelector", sel, "object");
            sel = NULL;
        }
        if (json_is_null(sel))
            sel = NULL;
        if (sel) {
            static const char *const keys[] = {"driver", "pool", "device"};
            for (int k = 0; k < 3; k++) {
                json_t *v = json_object_get(sel, keys[k]);
                char *f = dra_xasprintf("spec.deviceSelector.%s", keys[k]);
                if (v && !json_is_null(v)) {
                    if (!json_is_string(v)) {
                        dra_ferr_wrong_type(&l, f, v, "string");
                    } else {
                        const char *s = json_string_value(v);
                        size_t n = json_string_length(v);
                        if (k == 0)
                            dra_check_driver_name(&l, f, s, n);
                        else if (k == 1)
                            dra_check_pool_name(&l, f, s, n);
                        else
                            dra_check_dns1123_label(&l, f, s, n);
                    }
                }
                free(f);
            }
            /* Removed in 1.35: dropping them would silently widen the rule to every device. */
            if (json_object_get(sel, "deviceClassName"))
                dra_ferr_forbidden(
                    &l, "spec.deviceSelector.deviceClassName",
                    "field was removed in Kubernetes 1.35; without it the rule would select every device");
            if (json_object_get(sel, "selectors"))
                dra_ferr_forbidden(
                    &l, "spec.deviceSelector.selectors",
                    "CEL selectors were removed in Kubernetes 1.35; without them the rule would select every device");
        }
        dra_err *e = dra_errs_take(&l);
        if (e) {
            errs = dra_err_append(errs, dra_obj_locate(e, o));
            continue;
        }
        rule_info *r = &x->rules[x->nrules++];
        r->o = o;
        r->taint = taint;
        r->sel = sel;
        r->effect = dra_jstr_or(taint, "effect", "");
        if (!sel) {
            const char *name = dra_jstr_or(o->json, "metadata.name", "");
            if (x->opts->all_devices) {
                r->select_all = true;
                dra_ev_warn(
                    x->out,
                    dra_xasprintf("DeviceTaintRule %s has no deviceSelector: treated as selecting every device", name));
            } else {
                dra_ev_warn(x->out, dra_xasprintf(
                                        "DeviceTaintRule %s has no deviceSelector: it selects no device, as upstream's "
                                        "eviction controller reads it",
                                        name));
            }
            /* the caller names the parameter that decides it */
            x->out->warnings.v[x->out->warnings.n - 1].hint = "all";
        }
    }
    return errs;
}

bool dra_ev_rule_matches(const rule_info *r, const char *driver, const char *pool, const char *device)
{
    if (!r->sel)
        return r->select_all;
    return dra_taint_selector_matches(dra_jstr(r->sel, "driver"), dra_jstr(r->sel, "pool"), dra_jstr(r->sel, "device"),
                                      driver, pool, device);
}

/* ---- slices ---- */

static json_int_t slice_gen(const json_t *s)
{
    return json_integer_value(dra_jget(s, "spec.pool.generation"));
}

json_t *dra_ev_device_taints(const json_t *dev)
{
    json_t *t = json_object_get(dev, "taints");
    if (!json_is_array(t))
        t = dra_jget(dev, "basic.taints"); /* v1beta1 */
    return json_is_array(t) ? t : NULL;
}

dra_err *dra_ev_load_pools(ctx *x)
{
    const dra_cluster *c = x->c;
    dra_err *errs = NULL;
    for (size_t i = 0; i < c->n[DRA_KIND_RESOURCE_SLICE]; i++) {
        const dra_obj *o = c->of[DRA_KIND_RESOURCE_SLICE][i];
        const char *driver = dra_jstr(o->json, "spec.driver"), *pool = dra_jstr(o->json, "spec.pool.name");
        dra_errs l = DRA_ERRS_INIT;
        if (!driver)
            dra_ferr_required(&l, "spec.driver", NULL);
        if (!pool)
            dra_ferr_required(&l, "spec.pool.name", NULL);
        size_t j;
        json_t *dev;
        json_array_foreach(dra_jarr(o->json, "spec.devices"), j, dev) {
            size_t k;
            json_t *t;
            json_array_foreach(dra_ev_device_taints(dev), k, t) {
                char *f = dra_xasprintf("spec.devices[%zu].taints[%zu]", j, k);
                check_taint(&l, t, f);
                free(f);
            }
        }
        dra_err *e = dra_errs_take(&l);
        if (e) {
            errs = dra_err_append(errs, dra_obj_locate(e, o));
            continue;
        }
        dra_pool_index_add(&x->pools, driver, pool, slice_gen(o->json), i);
    }
    return errs;
}

const dra_pool *dra_ev_find_pool(const ctx *x, const char *driver, const char *pool)
{
    return dra_pool_index_find(&x->pools, driver, pool);
}

/* "driver\0pool\0device" (no other triple of C strings has it) into k,
 * which holds device_key_len bytes. */
static size_t device_key_len(const char *driver, const char *pool, const char *device)
{
    return strlen(driver) + strlen(pool) + strlen(device) + 2;
}

static void device_key(char *k, const char *driver, const char *pool, const char *device)
{
    size_t dl = strlen(driver), pl = strlen(pool);
    memcpy(k, driver, dl);
    k[dl] = '\0';
    memcpy(k + dl + 1, pool, pl);
    k[dl + 1 + pl] = '\0';
    memcpy(k + dl + pl + 2, device, strlen(device));
}

/* Slice i of the input when it is at its pool's newest generation (with
 * its driver and pool names), else NULL. */
const json_t *dra_ev_newest_slice(const ctx *x, size_t i, const char **driver, const char **pool)
{
    const json_t *s = x->c->of[DRA_KIND_RESOURCE_SLICE][i]->json;
    *driver = dra_jstr_or(s, "spec.driver", "");
    *pool = dra_jstr_or(s, "spec.pool.name", "");
    const dra_pool *pg = dra_ev_find_pool(x, *driver, *pool);
    return pg && slice_gen(s) == pg->generation ? s : NULL;
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* After load_pools: every device of a slice at its pool's newest
 * generation, the first of a name winning (slices in input order, devices
 * in slice order), as pool.getDevice finds it.  Slices that failed the
 * checks but name a known pool are searched too, as before the index.
 * Only the devices find_device can be asked for are indexed: those of the
 * claims' allocations (when claims), and (extra_device not NULL) one more;
 * a fleet of a million devices with a few claims indexes a few.  The wanted keys are the
 * index: 0 while not found, else the position in devs + 1. */
static void want(ctx *x, const char *driver, const char *pool, const char *device)
{
    size_t len = device_key_len(driver, pool, device);
    char *k = dra_arena_alloc(&x->keys, len);
    device_key(k, driver, pool, device);
    dra_strmap_add(&x->devmap, k, len, 0, NULL);
}

void dra_ev_index_devices(ctx *x, bool claims, const char *extra_driver, const char *extra_pool,
                          const char *extra_device)
{
    for (size_t i = 0; claims && i < x->claims->nclaims; i++) {
        const dra_claim_rec *r = x->claims->claims[i];
        for (uint32_t j = 0; j < r->nresults; j++)
            want(x, or_empty(r->results[j].driver), or_empty(r->results[j].pool), or_empty(r->results[j].device));
    }
    if (extra_device)
        want(x, extra_driver, extra_pool, extra_device);
    for (size_t i = 0; x->devmap.n && i < x->c->n[DRA_KIND_RESOURCE_SLICE]; i++) {
        const char *driver, *pool;
        const json_t *s = dra_ev_newest_slice(x, i, &driver, &pool);
        if (!s)
            continue;
        size_t j;
        json_t *d;
        json_array_foreach(dra_jarr(s, "spec.devices"), j, d) {
            const char *name = dra_slice_device_name(d);
            size_t len = device_key_len(driver, pool, name);
            char buf[512];
            char *k = len <= sizeof buf ? buf : dra_xmalloc(len);
            device_key(k, driver, pool, name);
            intptr_t at;
            if (dra_strmap_get(&x->devmap, k, len, &at) && at == 0) {
                dra_strmap_put(&x->devmap, k, len, (intptr_t)x->ndevs + 1); /* the key stays the wanted one */
                x->devs = dra_xgrow(x->devs, x->ndevs, sizeof *x->devs);
                x->devs[x->ndevs++] = (struct dev_ref){s, d};
            }
            if (k != buf)
                free(k);
        }
    }
}

/* pool.getDevice: the device in a slice of the newest generation. */
const json_t *dra_ev_find_device(const ctx *x, const char *driver, const char *pool, const char *device,
                                 const json_t **slice)
{
    *slice = NULL;
    char buf[512];
    size_t len = device_key_len(driver, pool, device);
    char *k = len <= sizeof buf ? buf : dra_xmalloc(len);
    device_key(k, driver, pool, device);
    intptr_t v;
    bool found = dra_strmap_get(&x->devmap, k, len, &v);
    if (k != buf)
        free(k);
    if (!found || v == 0) /* wanted, not published */
        return NULL;
    *slice = x->devs[v - 1].slice;
    return x->devs[v - 1].dev;
}

/* ---- taints and tolerations ---- */

char *dra_taint_string(const json_t *taint)
{
    const char *v = dra_jstr_or(taint, "value", "");
    return dra_xasprintf("%s%s%s:%s", dra_jstr_or(taint, "key", ""), *v ? "=" : "", v,
                         dra_jstr_or(taint, "effect", ""));
}

char *dra_taint_src_string(const dra_taint_src *s)
{
    if (s->rule)
        return dra_xasprintf("DeviceTaintRule %s", dra_jstr_or(s->rule, "metadata.name", ""));
    return dra_xasprintf("ResourceSlice %s %s/%s/%s taint #%d", dra_jstr_or(s->slice, "metadata.name", ""),
                         dra_jstr_or(s->slice, "spec.driver", ""), dra_jstr_or(s->slice, "spec.pool.name", ""),
                         s->device ? s->device : "", s->taint_index);
}

/* trackedTaint.Compare: rules first by name, then slice taints by driver,
 * pool, device, index. */
static int src_cmp(const dra_taint_src *a, const dra_taint_src *b)
{
    if (a->rule && !b->rule)
        return -1;
    if (!a->rule && b->rule)
        return 1;
    if (a->rule)
        return strcmp(dra_jstr_or(a->rule, "metadata.name", ""), dra_jstr_or(b->rule, "metadata.name", ""));
    int r = strcmp(dra_jstr_or(a->slice, "spec.driver", ""), dra_jstr_or(b->slice, "spec.driver", ""));
    if (!r)
        r = strcmp(dra_jstr_or(a->slice, "spec.pool.name", ""), dra_jstr_or(b->slice, "spec.pool.name", ""));
    if (!r)
        r = strcmp(a->device ? a->device : "", b->device ? b->device : "");
    if (!r)
        r = a->taint_index - b->taint_index;
    return r;
}

/* resourceclaim.ToleratesTaint */
static bool tolerates(const json_t *tol, const json_t *taint)
{
    return dra_tolerates(&(dra_toleration_ref){dra_jstr(tol, "key"), dra_jstr(tol, "operator"), dra_jstr(tol, "value"),
                                               dra_jstr(tol, "effect")},
                         &(dra_taint_ref){dra_jstr(taint, "key"), dra_jstr(taint, "value"), dra_jstr(taint, "effect")});
}

bool dra_evict_tolerated_forever(const json_t *result, const json_t *taint, const dra_features *features)
{
    bool any_effect = dra_features_release_of(features) >= DRA_RELEASE_1_38; /* as add_taint */
    size_t i;
    json_t *tol;
    json_array_foreach(dra_jarr(result, "tolerations"), i, tol) {
        const char *eff = dra_jstr_or(tol, "effect", "");
        if ((strcmp(eff, "NoExecute") == 0 || (any_effect && !*eff)) && tolerates(tol, taint) &&
            !json_is_integer(json_object_get(tol, "tolerationSeconds")))
            return true;
    }
    return false;
}

/* ---- claims ---- */

/* One rule set: index of a rule forced to NoExecute (simulation) or -1 for the real ones. */
bool dra_ev_evicting(const ctx *x, size_t r, long only)
{
    if (only >= 0)
        return (long)r == only;
    return strcmp(x->rules[r].effect, "NoExecute") == 0;
}

/* warn: report a tolerationSeconds Go's time.Duration cannot hold (once). */
static dra_err *add_taint(const ctx *x, claim_ev *ce, const json_t *res, size_t ri, dra_taint_src src, bool warn_wrap)
{
    const json_t *taint = src.taint;
    const char *ta = dra_jstr(taint, "timeAdded");
    bool has_time = ta != NULL;
    dra_time t = {0, 0};
    if (ta) {
        dra_err *e = dra_time_parse(ta, &t);
        if (e)
            return e;
        t.nsec = 0; /* metav1.Time as stored: whole seconds (Unix(), the floor) */
    }
    bool have_tol = false;
    int64_t secs = INT64_MAX;
    /* From 1.38 on a toleration without effect counts too, as it matches
     * every effect (pkg/controller/devicetainteviction
     * device_taint_eviction.go, v1.38.0-beta.0); 1.37.2 counted only
     * NoExecute ones. */
    bool any_effect = dra_features_release_of(x->opts->features) >= DRA_RELEASE_1_38;
    size_t i;
    json_t *tol;
    json_array_foreach(dra_jarr(res, "tolerations"), i, tol) {
        const char *eff = dra_jstr_or(tol, "effect", "");
        if ((strcmp(eff, "NoExecute") != 0 && !(any_effect && !*eff)) || !tolerates(tol, taint))
            continue;
        json_t *ts = json_object_get(tol, "tolerationSeconds");
        if (!json_is_integer(ts))
            return NULL; /* tolerated forever: the taint is ignored */
        int64_t s = json_integer_value(ts);
        if (s < 0)
            s = 0;
        if (s < secs)
            secs = s;
        have_tol = true;
    }
    if (have_tol) {
        if (!has_time) {
            char *what = dra_taint_src_string(&src);
            dra_err *e = dra_err_new(DRA_EXIT_INPUT,
                                     "%s: a NoExecute taint without timeAdded is tolerated for a while; "
                                     "upstream cannot compute its eviction time (set timeAdded)",
                                     what);
            free(what);
            return e;
        }
        /* newEvictionTime.Add(time.Duration(tolerationSeconds) * time.Second):
         * past ±292 years the duration wraps around as Go's int64 does */
        int64_t d = dra_duration_of_seconds(secs);
        if (warn_wrap && d / DRA_NSEC_PER_SEC != secs) {
            char *what = dra_taint_src_string(&src), *due = dra_time_format(dra_time_add(t, d));
            char *msg = dra_xasprintf("%s: tolerationSeconds %lld is past what Go's time.Duration holds (about 292 "
                                      "years): upstream's sum wraps around and evicts at %s",
                                      what, (long long)secs, due);
            bool added = false;
            dra_strset_add(x->warned, msg, strlen(msg), &added);
            if (added)
                dra_ev_warn(x->out, msg);
            else
                free(msg);
            free(what);
            free(due);
        }
        t = dra_time_add(t, d);
    }
    ce->items = dra_xgrow(ce->items, ce->n, sizeof *ce->items);
    ce->items[ce->n++] = (item){res, ri, src, has_time, t};
    if (has_time && (!ce->has_time || dra_time_cmp(t, ce->when) < 0)) {
        ce->when = t;
        ce->has_time = true;
    }
    return NULL;
}

/* claimEvictionTime */
static dra_err *claim_eviction(const ctx *x, const dra_obj *co, long only_rule, claim_ev *ce)
{
    memset(ce, 0, sizeof *ce);
    ce->co = co;
    size_t i;
    json_t *res;
    json_array_foreach(dra_jarr(co->json, "status.allocation.devices.results"), i, res) {
        const char *driver = dra_jstr_or(res, "driver", ""), *pool = dra_jstr_or(res, "pool", ""),
                   *device = dra_jstr_or(res, "device", "");
        const json_t *slice;
        const json_t *dev = dra_ev_find_device(x, driver, pool, device, &slice);
        size_t k;
        json_t *t;
        json_array_foreach(dra_ev_device_taints(dev), k, t) {
            if (strcmp(dra_jstr_or(t, "effect", ""), "NoExecute") != 0)
                continue;
            dra_taint_src s = {NULL, slice, dra_jstr(dev, "name"), (int)k, t};
            dra_err *e = add_taint(x, ce, res, i, s, only_rule < 0);
            if (e)
                return dra_obj_locate(e, co);
        }
        for (size_t r = 0; r < x->nrules; r++) {
            if (!dra_ev_evicting(x, r, only_rule) || !dra_ev_rule_matches(&x->rules[r], driver, pool, device))
                continue;
            dra_taint_src s = {x->rules[r].o->json, NULL, NULL, 0, x->rules[r].taint};
            dra_err *e = add_taint(x, ce, res, i, s, only_rule < 0);
            if (e)
                return dra_obj_locate(e, co);
        }
    }
    return NULL;
}

/* ---- pods ---- */

static void pod_eviction(const ctx *x, const dra_obj *po, const eval *ev, pod_ev *pe)
{
    memset(pe, 0, sizeof *pe);
    pe->po = po;
    const json_t *pod = po->json;
    if (!*dra_jstr_or(pod, "spec.nodeName", ""))
        return;
    const char *ns = dra_jstr_or(pod, "metadata.namespace", ""), *uid = dra_jstr_or(pod, "metadata.uid", "");
    /* E7-3: with DRAWorkloadResourceClaims a claim controlled by and reserved
     * for the pod's PodGroup counts as the pod's */
    const char *group =
        dra_feature_enabled(x->opts->features, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS) ? dra_pod_group_name(pod) : NULL;
    /* podEvictionTime goes over resourceclaim.PodClaims: spec.resourceClaims,
     * then the claim named in status.extendedResourceClaimStatus, which must
     * be controlled by the pod like a template's claim (v1.37.2 and
     * v1.38.0-beta.0, kubernetes#141290).  1.36.3's went over
     * spec.resourceClaims only: a pod using a DRA-backed extended resource
     * was not evicted. */
    size_t nspec = json_array_size(dra_jarr(pod, "spec.resourceClaims"));
    bool extended = dra_features_release_of(x->opts->features) >= DRA_RELEASE_1_37;
    for (size_t i = 0; i <= nspec; i++) {
        const char *name;
        bool check;
        if (i == nspec) {
            if (!extended)
                continue;
            name = dra_jstr(pod, "status.extendedResourceClaimStatus.resourceClaimName");
            check = true;
            if (!name || !*name)
                continue;
        } else {
            const json_t *pc = json_array_get(dra_jarr(pod, "spec.resourceClaims"), i);
            if (dra_pod_claim_name(pod, pc, &name, &check) != DRA_PODCLAIM_NAMED)
                continue;
        }
        /* only an allocated claim has an entry; one with an eviction time
         * was made into an object (ce->co) */
        size_t pos;
        if (!dra_cluster_position(x->c, DRA_KIND_RESOURCE_CLAIM, ns, name, &pos) || !ev->at[pos])
            continue;
        const claim_ev *ce = &ev->cev[ev->at[pos] - 1];
        if (!ce->has_time)
            continue;
        const dra_obj *co = ce->co;
        if (check) {
            char *why = dra_claim_is_for_pod_or_group(pod, co->json, group);
            free(why);
            if (why)
                continue;
        }
        if (!dra_claim_reserved_for_uid(co->json, uid) && !(group && dra_claim_reserved_for_group(co->json, group)))
            continue;
        bool dup = false;
        for (size_t k = 0; k < pe->nclaims; k++)
            dup |= pe->claims[k] == ce;
        if (dup)
            continue;
        pe->claims = dra_xgrow(pe->claims, pe->nclaims, sizeof *pe->claims);
        pe->claims[pe->nclaims++] = ce;
        if (!pe->has_time || dra_time_cmp(ce->when, pe->when) < 0) {
            pe->when = ce->when;
            pe->has_time = true;
        }
    }
}

bool dra_ev_pod_has_rule(const pod_ev *pe, const json_t *rule)
{
    for (size_t i = 0; i < pe->nclaims; i++)
        for (size_t k = 0; k < pe->claims[i]->n; k++)
            if (pe->claims[i]->items[k].src.rule == rule)
                return true;
    return false;
}

/* ---- one evaluation over all claims and pods ---- */

void dra_ev_eval_free(eval *ev)
{
    for (size_t i = 0; i < ev->ncev; i++)
        free(ev->cev[i].items);
    for (size_t i = 0; i < ev->npev; i++)
        free(ev->pev[i].claims);
    free(ev->cev);
    free(ev->pev);
    free(ev->at);
    for (size_t i = 0; i < ev->nmade; i++) {
        json_decref(ev->made[i]->json);
        free(ev->made[i]);
    }
    free(ev->made);
    memset(ev, 0, sizeof *ev);
}

/* Whether a NoExecute taint (of the device in its pool's newest slices, or
 * of an evicting rule) can apply to a device of the claim: without one its
 * entry has no items, and its object is not needed. */
static bool may_be_tainted(const ctx *x, const dra_claim_rec *r, long only_rule)
{
    for (uint32_t j = 0; j < r->nresults; j++) {
        const char *driver = or_empty(r->results[j].driver), *pool = or_empty(r->results[j].pool),
                   *device = or_empty(r->results[j].device);
        const json_t *slice;
        size_t k;
        json_t *t;
        json_array_foreach(dra_ev_device_taints(dra_ev_find_device(x, driver, pool, device, &slice)), k, t) {
            if (strcmp(dra_jstr_or(t, "effect", ""), "NoExecute") == 0)
                return true;
        }
        for (size_t n = 0; n < x->nrules; n++)
            if (dra_ev_evicting(x, n, only_rule) && dra_ev_rule_matches(&x->rules[n], driver, pool, device))
                return true;
    }
    return false;
}

/* o, returned by dra_cluster_nth into tmp, kept for ev's lifetime. */
static const dra_obj *keep(eval *ev, const dra_obj *o, const dra_obj *tmp)
{
    if (!tmp->json)
        return o; /* the cluster's own */
    dra_obj *m = dra_xmalloc(sizeof *m);
    *m = *tmp;
    ev->made = dra_xgrow(ev->made, ev->nmade, sizeof *ev->made);
    ev->made[ev->nmade++] = m;
    return m;
}

dra_err *dra_ev_evaluate(const ctx *x, long only_rule, eval *ev)
{
    const dra_cluster *c = x->c;
    memset(ev, 0, sizeof *ev);
    size_t nclaims = x->claims->nclaims, npods = dra_cluster_count(c, DRA_KIND_POD);
    ev->cev = dra_xcalloc(nclaims + 1, sizeof *ev->cev);
    ev->at = dra_xcalloc(nclaims + 1, sizeof *ev->at);
    dra_err *errs = NULL;
    bool timed = false; /* some claim has an eviction time */
    for (size_t i = 0; i < nclaims; i++) {
        const dra_claim_rec *r = x->claims->claims[i];
        if (!r->allocated)
            continue;
        claim_ev *ce = &ev->cev[ev->ncev];
        memset(ce, 0, sizeof *ce);
        if (may_be_tainted(x, r, only_rule)) {
            dra_obj tmp;
            const dra_obj *co = dra_cluster_nth(c, DRA_KIND_RESOURCE_CLAIM, i, &tmp);
            dra_err *e = co ? claim_eviction(x, co, only_rule, ce) : NULL;
            if (e) {
                free(ce->items);
                json_decref(tmp.json);
                errs = dra_err_append(errs, e);
                continue;
            }
            if (co && ce->n) {
                ce->co = keep(ev, co, &tmp);
            } else {
                ce->co = NULL;
                json_decref(tmp.json);
            }
        }
        ce->pos = i;
        timed |= ce->has_time;
        ev->at[i] = ++ev->ncev;
    }
    /* the pods with an eviction time alone, in input order (the readers
     * skip the others): none when no claim has one */
    for (size_t i = 0; timed && i < npods; i++) {
        dra_obj tmp;
        const dra_obj *po = dra_cluster_nth(c, DRA_KIND_POD, i, &tmp);
        pod_ev pe = {0};
        if (po)
            pod_eviction(x, po, ev, &pe);
        if (po && pe.has_time) {
            pe.po = keep(ev, po, &tmp);
            ev->pev = dra_xgrow(ev->pev, ev->npev, sizeof *ev->pev);
            ev->pev[ev->npev++] = pe;
        } else {
            free(pe.claims);
            json_decref(tmp.json);
        }
    }
    return errs;
}

bool dra_ev_pod_evicted_at_apply(const ctx *x, const pod_ev *pe)
{
    return x->opts->apply && pe->has_time && dra_time_cmp(pe->when, x->opts->apply_at) <= 0 &&
           !dra_obj_deleting(pe->po->json);
}

/* ---- records ---- */

static void add_record(dra_evict_result *r, dra_evict_record rec)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 32;
        r->v = dra_xrealloc(r->v, r->cap * sizeof *r->v);
    }
    r->v[r->n++] = rec;
}

static int rec_cmp(const void *pa, const void *pb)
{
    const dra_evict_record *a = pa, *b = pb;
    if (a->has_time != b->has_time)
        return a->has_time ? -1 : 1;
    if (a->has_time && dra_time_cmp(a->evict_at, b->evict_at) != 0)
        return dra_time_cmp(a->evict_at, b->evict_at);
    int r = strcmp(dra_jstr_or(a->claim, "metadata.namespace", ""), dra_jstr_or(b->claim, "metadata.namespace", ""));
    if (!r && (a->pod == NULL) != (b->pod == NULL))
        r = a->pod ? -1 : 1;
    if (!r && a->pod)
        r = strcmp(dra_jstr_or(a->pod, "metadata.name", ""), dra_jstr_or(b->pod, "metadata.name", ""));
    if (!r)
        r = strcmp(dra_jstr_or(a->claim, "metadata.name", ""), dra_jstr_or(b->claim, "metadata.name", ""));
    if (!r)
        r = strcmp(dra_jstr_or(a->result, "device", ""), dra_jstr_or(b->result, "device", ""));
    if (!r)
        r = src_cmp(&a->src, &b->src);
    return r;
}

void dra_ev_build_records(const eval *ev, dra_evict_result *r)
{
    bool *used = dra_xcalloc(ev->ncev + 1, sizeof *used);
    for (size_t i = 0; i < ev->npev; i++) {
        const pod_ev *pe = &ev->pev[i];
        if (!pe->has_time)
            continue;
        for (size_t k = 0; k < pe->nclaims; k++) {
            const claim_ev *ce = pe->claims[k];
            used[ce - ev->cev] = true;
            for (size_t j = 0; j < ce->n; j++) {
                const item *it = &ce->items[j];
                add_record(r, (dra_evict_record){pe->po->json, ce->co->json, it->result, it->src, it->has_time, it->t,
                                                 true, pe->when, dra_obj_deleting(pe->po->json)});
            }
        }
    }
    for (size_t i = 0; i < ev->ncev; i++) {
        const claim_ev *ce = &ev->cev[i];
        if (used[i] || !ce->has_time)
            continue;
        for (size_t j = 0; j < ce->n; j++) {
            const item *it = &ce->items[j];
            add_record(r, (dra_evict_record){NULL, ce->co->json, it->result, it->src, it->has_time, it->t, true,
                                             ce->when, false});
        }
    }
    free(used);
    if (r->n > 1)
        dra_sort(r->v, r->n, sizeof *r->v, rec_cmp);
}

/* ---- the context of one run ---- */

/* device: one more device find_device will be asked for (driver, pool,
 * device), or NULL. */
dra_err *dra_ev_ctx_init(ctx *x, const dra_cluster *c, const dra_evict_opts *opts, dra_evict_result *out,
                         const char *const *device)
{
    memset(x, 0, sizeof *x);
    x->c = c;
    x->opts = opts;
    x->out = out;
    x->warned = dra_xcalloc(1, sizeof *x->warned);
    x->claims = dra_cluster_claim_records(c, &x->own);
    dra_err *e = load_rules(x);
    e = dra_err_append(e, dra_ev_load_pools(x));
    dra_ev_index_devices(x, true, device ? device[0] : NULL, device ? device[1] : NULL, device ? device[2] : NULL);
    return e;
}

void dra_ev_ctx_free(ctx *x)
{
    free(x->rules);
    dra_pool_index_free(&x->pools);
    dra_strmap_free(&x->devmap);
    free(x->devs);
    dra_arena_free(&x->keys);
    dra_compact_free(&x->own);
    if (x->warned)
        dra_strset_free(x->warned);
    free(x->warned);
}
