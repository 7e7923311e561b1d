/* Device-taint eviction.  See evict.h. */
#include "evict.h"

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

typedef struct rule_info {
    const dra_obj *o;
    const json_t *taint;
    const json_t *sel;  /* deviceSelector object, or NULL */
    bool select_all;    /* no selector and --all */
    const char *effect;
} rule_info;

typedef struct ctx {
    const dra_cluster *c;
    const dra_evict_opts *opts;
    rule_info *rules;
    size_t nrules;
    dra_pool_index pools; /* slices of valid ResourceSlices by pool, newest generation */
    /* Devices of the pools' newest generations (see index_devices):
     * "driver\0pool\0device" (keys in `keys`) -> position in devs + 1,
     * or 0 for a device asked for that no such slice has. */
    dra_strmap devmap;
    struct dev_ref {
        const json_t *slice, *dev;
    } *devs;
    size_t ndevs;
    dra_arena keys;
    dra_evict_result *out;
    dra_strset *warned;   /* messages of the warnings given once (the wrap-around); ctx_init's */
} ctx;

static void warn(dra_evict_result *r, char *msg)
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
            warn(x->out, dra_xstrdup("DRADeviceTaintRules is disabled: DeviceTaintRules neither evict nor get status"));
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
                dra_ferr_forbidden(&l, "spec.deviceSelector.deviceClassName",
                                   "field was removed in Kubernetes 1.35; without it the rule would select every device");
            if (json_object_get(sel, "selectors"))
                dra_ferr_forbidden(&l, "spec.deviceSelector.selectors",
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
                warn(x->out, dra_xasprintf("DeviceTaintRule %s has no deviceSelector: treated as selecting every device", name));
            } else {
                warn(x->out, dra_xasprintf("DeviceTaintRule %s has no deviceSelector: it selects no device, as upstream's "
                                           "eviction controller reads it", name));
            }
            /* the caller names the parameter that decides it */
            x->out->warnings.v[x->out->warnings.n - 1].hint = "all";
        }
    }
    return errs;
}

static bool rule_matches(const rule_info *r, const char *driver, const char *pool, const char *device)
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

static json_t *device_taints(const json_t *dev)
{
    json_t *t = json_object_get(dev, "taints");
    if (!json_is_array(t))
        t = dra_jget(dev, "basic.taints"); /* v1beta1 */
    return json_is_array(t) ? t : NULL;
}

static dra_err *load_pools(ctx *x)
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
            json_array_foreach(device_taints(dev), k, t) {
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

static const dra_pool *find_pool(const ctx *x, const char *driver, const char *pool)
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
static const json_t *newest_slice(const ctx *x, size_t i, const char **driver, const char **pool)
{
    const json_t *s = x->c->of[DRA_KIND_RESOURCE_SLICE][i]->json;
    *driver = dra_jstr_or(s, "spec.driver", "");
    *pool = dra_jstr_or(s, "spec.pool.name", "");
    const dra_pool *pg = find_pool(x, *driver, *pool);
    return pg && slice_gen(s) == pg->generation ? s : NULL;
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

static void index_devices(ctx *x, bool claims, const char *extra_driver, const char *extra_pool,
                          const char *extra_device)
{
    for (size_t i = 0; claims && i < x->c->n[DRA_KIND_RESOURCE_CLAIM]; i++) {
        size_t j;
        json_t *res;
        json_array_foreach(dra_jarr(x->c->of[DRA_KIND_RESOURCE_CLAIM][i]->json, "status.allocation.devices.results"), j, res)
            want(x, dra_jstr_or(res, "driver", ""), dra_jstr_or(res, "pool", ""), dra_jstr_or(res, "device", ""));
    }
    if (extra_device)
        want(x, extra_driver, extra_pool, extra_device);
    for (size_t i = 0; x->devmap.n && i < x->c->n[DRA_KIND_RESOURCE_SLICE]; i++) {
        const char *driver, *pool;
        const json_t *s = newest_slice(x, i, &driver, &pool);
        if (!s)
            continue;
        size_t j;
        json_t *d;
        json_array_foreach(dra_jarr(s, "spec.devices"), j, d) {
            const char *name = dra_jstr_or(d, "name", "");
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
static const json_t *find_device(const ctx *x, const char *driver, const char *pool, const char *device,
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
    return dra_xasprintf("%s%s%s:%s", dra_jstr_or(taint, "key", ""), *v ? "=" : "", v, dra_jstr_or(taint, "effect", ""));
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

typedef struct item {
    const json_t *result;
    size_t result_index;
    dra_taint_src src;
    bool has_time;
    dra_time t;
} item;

typedef struct claim_ev {
    const dra_obj *co;
    item *items;
    size_t n;
    bool has_time;
    dra_time when;
} claim_ev;

static bool allocated(const json_t *claim)
{
    json_t *a = dra_jget(claim, "status.allocation");
    return a && !json_is_null(a);
}

/* One rule set: index of a rule forced to NoExecute (simulation) or -1 for the real ones. */
static bool evicting(const ctx *x, size_t r, long only)
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
            dra_err *e = dra_err_new(DRA_EXIT_INPUT, "%s: a NoExecute taint without timeAdded is tolerated for a while; "
                                                     "upstream cannot compute its eviction time (set timeAdded)", what);
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
                warn(x->out, msg);
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
        const json_t *dev = find_device(x, driver, pool, device, &slice);
        size_t k;
        json_t *t;
        json_array_foreach(device_taints(dev), k, t) {
            if (strcmp(dra_jstr_or(t, "effect", ""), "NoExecute") != 0)
                continue;
            dra_taint_src s = {NULL, slice, dra_jstr(dev, "name"), (int)k, t};
            dra_err *e = add_taint(x, ce, res, i, s, only_rule < 0);
            if (e)
                return dra_obj_locate(e, co);
        }
        for (size_t r = 0; r < x->nrules; r++) {
            if (!evicting(x, r, only_rule) || !rule_matches(&x->rules[r], driver, pool, device))
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

typedef struct pod_ev {
    const dra_obj *po;
    const claim_ev **claims; /* contributing claims (with an eviction time) */
    size_t nclaims;
    bool has_time;
    dra_time when;
} pod_ev;

/* The claim's entry: by_claim maps the bytes of each entry's dra_obj
 * pointer (borrowed from the entry) to its position. */
static const claim_ev *claim_for(const claim_ev *cev, const dra_strmap *by_claim, const dra_obj *co)
{
    intptr_t v;
    return dra_strmap_get(by_claim, (const char *)&co, sizeof co, &v) ? &cev[v] : NULL;
}

static void pod_eviction(const ctx *x, const dra_obj *po, const claim_ev *cev, const dra_strmap *by_claim,
                         pod_ev *pe)
{
    memset(pe, 0, sizeof *pe);
    pe->po = po;
    const json_t *pod = po->json;
    if (!*dra_jstr_or(pod, "spec.nodeName", ""))
        return;
    const char *ns = dra_jstr_or(pod, "metadata.namespace", ""), *uid = dra_jstr_or(pod, "metadata.uid", "");
    /* E7-3: with DRAWorkloadResourceClaims a claim controlled by and reserved
     * for the pod's PodGroup counts as the pod's */
    const char *group = dra_feature_enabled(x->opts->features, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS)
                            ? dra_pod_group_name(pod)
                            : NULL;
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
        const dra_obj *co = dra_cluster_find(x->c, DRA_KIND_RESOURCE_CLAIM, ns, name);
        if (!co || !allocated(co->json))
            continue;
        if (check) {
            char *why = dra_claim_is_for_pod_or_group(pod, co->json, group);
            free(why);
            if (why)
                continue;
        }
        if (!dra_claim_reserved_for_uid(co->json, uid) && !(group && dra_claim_reserved_for_group(co->json, group)))
            continue;
        const claim_ev *ce = claim_for(cev, by_claim, co);
        if (!ce || !ce->has_time)
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

static bool pod_has_rule(const pod_ev *pe, const json_t *rule)
{
    for (size_t i = 0; i < pe->nclaims; i++)
        for (size_t k = 0; k < pe->claims[i]->n; k++)
            if (pe->claims[i]->items[k].src.rule == rule)
                return true;
    return false;
}

/* ---- one evaluation over all claims and pods ---- */

typedef struct eval {
    claim_ev *cev;
    size_t ncev;
    dra_strmap by_claim; /* claim object -> position in cev (see claim_for) */
    pod_ev *pev;
    size_t npev;
} eval;

static void eval_free(eval *ev)
{
    for (size_t i = 0; i < ev->ncev; i++)
        free(ev->cev[i].items);
    for (size_t i = 0; i < ev->npev; i++)
        free(ev->pev[i].claims);
    free(ev->cev);
    free(ev->pev);
    dra_strmap_free(&ev->by_claim);
    memset(ev, 0, sizeof *ev);
}

static dra_err *evaluate(const ctx *x, long only_rule, eval *ev)
{
    const dra_cluster *c = x->c;
    memset(ev, 0, sizeof *ev);
    ev->cev = dra_xcalloc(c->n[DRA_KIND_RESOURCE_CLAIM] + 1, sizeof *ev->cev);
    dra_err *errs = NULL;
    for (size_t i = 0; i < c->n[DRA_KIND_RESOURCE_CLAIM]; i++) {
        const dra_obj *co = c->of[DRA_KIND_RESOURCE_CLAIM][i];
        if (!allocated(co->json))
            continue;
        claim_ev *ce = &ev->cev[ev->ncev];
        dra_err *e = claim_eviction(x, co, only_rule, ce);
        if (e) {
            free(ce->items);
            errs = dra_err_append(errs, e);
            continue;
        }
        ev->ncev++;
    }
    dra_strmap_reserve(&ev->by_claim, ev->ncev);
    for (size_t i = 0; i < ev->ncev; i++)
        dra_strmap_put(&ev->by_claim, (const char *)&ev->cev[i].co, sizeof ev->cev[i].co, (intptr_t)i);
    ev->pev = dra_xcalloc(c->n[DRA_KIND_POD] + 1, sizeof *ev->pev);
    for (size_t i = 0; i < c->n[DRA_KIND_POD]; i++) {
        pod_eviction(x, c->of[DRA_KIND_POD][i], ev->cev, &ev->by_claim, &ev->pev[ev->npev]);
        ev->npev++;
    }
    return errs;
}

static bool pod_evicted_at_apply(const ctx *x, const pod_ev *pe)
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

static void build_records(const eval *ev, dra_evict_result *r)
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

/* ---- rule status ---- */

static char *plural(long long n, const char *one, const char *many_fmt)
{
    return n == 1 ? dra_xstrdup(one) : dra_xasprintf(many_fmt, n);
}

static void count_pending(const ctx *x, const eval *ev, const json_t *rule, bool with_apply, long long *pods,
                          long long *nss, long long *evicted)
{
    *pods = *nss = *evicted = 0;
    const char **seen = dra_xcalloc(ev->npev + 1, sizeof *seen);
    size_t nseen = 0;
    for (size_t i = 0; i < ev->npev; i++) {
        const pod_ev *pe = &ev->pev[i];
        if (!pe->has_time || !pod_has_rule(pe, rule))
            continue;
        if (with_apply && pod_evicted_at_apply(x, pe)) {
            (*evicted)++;
            continue;
        }
        if (dra_obj_deleting(pe->po->json))
            continue;
        (*pods)++;
        const char *ns = dra_jstr_or(pe->po->json, "metadata.namespace", "");
        bool dup = false;
        for (size_t k = 0; k < nseen; k++)
            dup |= strcmp(seen[k], ns) == 0;
        if (!dup)
            seen[nseen++] = ns;
    }
    *nss = (long long)nseen;
    free(seen);
}

static void count_devices(const ctx *x, const rule_info *ri, long long *published, long long *alloc)
{
    *published = *alloc = 0;
    const dra_cluster *c = x->c;
    for (size_t i = 0; i < c->n[DRA_KIND_RESOURCE_SLICE]; i++) {
        const char *driver, *pool;
        const json_t *s = newest_slice(x, i, &driver, &pool);
        if (!s)
            continue;
        size_t j;
        json_t *d;
        json_array_foreach(dra_jarr(s, "spec.devices"), j, d) {
            if (rule_matches(ri, driver, pool, dra_jstr_or(d, "name", "")))
                (*published)++;
        }
    }
    for (size_t i = 0; i < c->n[DRA_KIND_RESOURCE_CLAIM]; i++) {
        const json_t *cl = c->of[DRA_KIND_RESOURCE_CLAIM][i]->json;
        if (!allocated(cl))
            continue;
        size_t j;
        json_t *res;
        json_array_foreach(dra_jarr(cl, "status.allocation.devices.results"), j, res) {
            if (rule_matches(ri, dra_jstr_or(res, "driver", ""), dra_jstr_or(res, "pool", ""), dra_jstr_or(res, "device", "")))
                (*alloc)++;
        }
    }
}

/* N of a message ending "N pods evicted since starting the controller."
 * ("1 pod ..."), else 0. */
static long long evicted_before(const char *msg)
{
    static const char tail[] = " evicted since starting the controller.";
    size_t n = strlen(msg), t = sizeof tail - 1;
    if (n < t || strcmp(msg + n - t, tail) != 0)
        return 0;
    const char *end = msg + n - t, *word = end;
    while (word > msg && word[-1] != ' ')
        word--; /* "pod" or "pods" */
    if (word == msg || (strncmp(word, "pod", 3) != 0))
        return 0;
    const char *num = word - 1;
    while (num > msg && num[-1] >= '0' && num[-1] <= '9')
        num--;
    if (num == word - 1 || (num > msg && num[-1] != ' '))
        return 0;
    long long v = 0;
    for (const char *p = num; p < word - 1 && v < (1LL << 40); p++)
        v = v * 10 + (*p - '0');
    return v;
}

static dra_err *rule_status(const ctx *x, const eval *ev, size_t r, json_t **out, dra_changes *changes)
{
    const rule_info *ri = &x->rules[r];
    const json_t *rule = ri->o->json;
    long long pods = 0, nss = 0, evicted = 0;
    dra_buf msg = DRA_BUF_INIT;
    const char *status = "False", *reason;
    json_int_t gen = json_integer_value(dra_jget(rule, "metadata.generation"));
    /* keep lastTransitionTime when nothing of the condition changes */
    const json_t *old = NULL;
    size_t i, old_index = 0;
    json_t *cnd;
    json_array_foreach(dra_jarr(rule, "status.conditions"), i, cnd) {
        if (strcmp(dra_jstr_or(cnd, "type", ""), "EvictionInProgress") == 0) {
            old = cnd;
            old_index = i;
            break;
        }
    }
    bool old_current = old && json_integer_value(json_object_get(old, "observedGeneration")) == gen;
    if (strcmp(ri->effect, "NoExecute") == 0) {
        count_pending(x, ev, rule, true, &pods, &nss, &evicted);
        /* A controller keeps the pods it evicted because of a rule in memory;
         * each pass of the loop runs afresh, so the count lives in the rule's
         * own condition (same generation) and goes on from there. */
        if (old_current)
            evicted += evicted_before(dra_jstr_or(old, "message", ""));
        if (pods > 0) {
            status = "True";
            reason = "PodsPendingEviction";
            char *a = plural(pods, "1 pod needs to be evicted in ", "%lld pods need to be evicted in ");
            char *b = plural(nss, "1 namespace.", "%lld different namespaces.");
            dra_buf_printf(&msg, "%s%s", a, b);
            free(a);
            free(b);
        } else {
            reason = evicted > 0 ? "Completed" : "NotStarted";
        }
    } else if (strcmp(ri->effect, "None") == 0 && old_current &&
               strcmp(dra_jstr_or(old, "reason", ""), "NoEffect") == 0) {
        /* computed once per spec change ("will not be updated again") */
        reason = "NoEffect";
        dra_buf_puts(&msg, dra_jstr_or(old, "message", ""));
    } else if (strcmp(ri->effect, "None") == 0) {
        reason = "NoEffect";
        eval sim;
        dra_err *e = evaluate(x, (long)r, &sim);
        if (e) {
            eval_free(&sim);
            dra_buf_free(&msg);
            return e;
        }
        long long none_evicted;
        count_pending(x, &sim, rule, false, &pods, &nss, &none_evicted);
        eval_free(&sim);
        long long published, alloc;
        count_devices(x, ri, &published, &alloc);
        char *p1 = plural(published, "1 published device selected. ", "%lld published devices selected. ");
        char *p2 = plural(alloc, "1 allocated device selected. ", "%lld allocated devices selected. ");
        char *p3 = plural(pods, "1 pod would be evicted in ", "%lld pods would be evicted in ");
        char *p4 = plural(nss, "1 namespace ", "%lld different namespaces ");
        dra_buf_printf(&msg, "%s%s%s%sif the effect was NoExecute. This information will not be updated again. "
                             "Recreate the DeviceTaintRule to trigger an update.", p1, p2, p3, p4);
        free(p1);
        free(p2);
        free(p3);
        free(p4);
    } else {
        reason = "OtherEffect";
        dra_buf_puts(&msg, "Eviction only happens for the NoExecute effect.");
    }
    if (evicted > 0 && strcmp(ri->effect, "None") != 0) {
        if (msg.len)
            dra_buf_putc(&msg, ' ');
        char *p = plural(evicted, "1 pod ", "%lld pods ");
        dra_buf_printf(&msg, "%sevicted since starting the controller.", p);
        free(p);
    }

    bool same = old && strcmp(dra_jstr_or(old, "status", ""), status) == 0 &&
                strcmp(dra_jstr_or(old, "reason", ""), reason) == 0 &&
                strcmp(dra_jstr_or(old, "message", ""), dra_buf_str(&msg)) == 0 &&
                json_integer_value(json_object_get(old, "observedGeneration")) == gen;
    json_t *cond = json_object();
    json_object_set_new(cond, "type", json_string("EvictionInProgress"));
    json_object_set_new(cond, "status", json_string(status));
    if (gen)
        json_object_set_new(cond, "observedGeneration", json_integer(gen));
    if (same && dra_jstr(old, "lastTransitionTime")) {
        json_object_set_new(cond, "lastTransitionTime", json_string(dra_jstr(old, "lastTransitionTime")));
    } else {
        char *t = dra_time_format(x->opts->now);
        json_object_set_new(cond, "lastTransitionTime", json_string(t));
        free(t);
    }
    json_object_set_new(cond, "reason", json_string(reason));
    json_object_set_new(cond, "message", json_string(dra_buf_str(&msg)));
    dra_buf_free(&msg);

    json_t *obj = json_deep_copy(rule);
    json_t *conds = dra_jarr(obj, "status.conditions");
    if (!conds) {
        conds = json_array();
        dra_jset_new(obj, "status.conditions", conds);
    }
    if (old)
        json_array_set(conds, old_index, cond);
    else
        json_array_append(conds, cond);
    *out = obj;

    if (changes && !same) {
        json_t *body = json_pack("{s:s,s:s,s:{s:s},s:{s:[O]}}", "apiVersion", dra_jstr_or(rule, "apiVersion", ""),
                                 "kind", "DeviceTaintRule", "metadata", "name", dra_jstr_or(rule, "metadata.name", ""),
                                 "status", "conditions", cond);
        /* a rule from a manifest has no UID: no precondition then, never "uid": null */
        const char *ruid = dra_jstr(rule, "metadata.uid");
        if (ruid && *ruid)
            json_object_set_new(json_object_get(body, "metadata"), "uid", json_string(ruid));
        char *why = dra_xasprintf("DeviceTaintRule %s: EvictionInProgress %s (%s)", dra_jstr_or(rule, "metadata.name", ""),
                                  status, reason);
        dra_op *op = dra_changes_op(changes, DRA_OP_APPLY, rule, "status", body, why);
        op->field_manager = dra_xstrdup(DRA_EVICT_CONTROLLER_NAME);
        free(why);
        /* the working copy takes the new state in place: the changes know
         * the copy by its address, which must stay the copy's */
        dra_change *ch = dra_changes_touch(changes, rule);
        json_object_clear(ch->obj);
        json_object_update(ch->obj, obj);
    }
    json_decref(cond);
    return NULL;
}

/* ---- applying evictions ---- */

static void apply_pod(const ctx *x, const pod_ev *pe, dra_changes *changes)
{
    const json_t *pod = pe->po->json;
    const char *ns = dra_jstr_or(pod, "metadata.namespace", ""), *name = dra_jstr_or(pod, "metadata.name", "");
    const char *uid = dra_jstr(pod, "metadata.uid");
    char *when = dra_time_format(x->opts->apply_at);
    dra_change *ch = dra_changes_touch(changes, pod);
    static const char *const reason = "DeletionByDeviceTaintManager";
    static const char *const message = "Device Taint manager: deleting due to NoExecute taint";

    /* apipod.UpdatePodCondition (GetPodCondition: the first of the type; the
     * condition is replaced as a whole, so lastProbeTime becomes null and any
     * other key goes), then utilpod.PatchPodStatus: a strategic-merge patch
     * from a two-way diff, holding metadata.uid as precondition and, for a
     * changed list element, its merge key plus the changed keys (null for
     * removed ones).  Go marshals the patch's maps with sorted keys. */
    json_t *conds = dra_jarr(ch->obj, "status.conditions");
    json_t *existing = NULL;
    size_t i;
    json_t *cnd;
    json_array_foreach(conds, i, cnd) {
        if (strcmp(dra_jstr_or(cnd, "type", ""), "DisruptionTarget") == 0) {
            existing = cnd;
            break;
        }
    }
    json_t *patch_cond = NULL;
    if (!existing) {
        json_t *nc = json_pack("{s:s,s:s,s:n,s:s,s:s,s:s}", "type", "DisruptionTarget", "status", "True", "lastProbeTime",
                               "lastTransitionTime", when, "reason", reason, "message", message);
        if (!conds) {
            conds = json_array();
            dra_jset_new(ch->obj, "status.conditions", conds);
        }
        json_array_append(conds, nc);
        patch_cond = json_pack("{s:n,s:s,s:s,s:s,s:s,s:s}", "lastProbeTime", "lastTransitionTime", when, "message", message,
                               "reason", reason, "status", "True", "type", "DisruptionTarget");
        json_decref(nc);
    } else {
        bool status_same = strcmp(dra_jstr_or(existing, "status", ""), "True") == 0;
        json_t *old_ltt = json_object_get(existing, "lastTransitionTime");
        json_t *nc = json_pack("{s:s,s:s,s:n}", "type", "DisruptionTarget", "status", "True", "lastProbeTime");
        if (status_same)
            json_object_set(nc, "lastTransitionTime", old_ltt ? old_ltt : json_null());
        else
            json_object_set_new(nc, "lastTransitionTime", json_string(when));
        json_object_set_new(nc, "reason", json_string(reason));
        json_object_set_new(nc, "message", json_string(message));
        /* the diff: keys of the new condition that differ, removed keys as null */
        json_t *diff = json_object();
        const char *k;
        json_t *v;
        json_object_foreach(nc, k, v) {
            json_t *ov = json_object_get(existing, k);
            bool same = json_is_null(v) ? (!ov || json_is_null(ov)) : (ov && json_equal(ov, v));
            if (!same)
                json_object_set(diff, k, v);
        }
        json_object_foreach(existing, k, v) {
            if (!json_object_get(nc, k) && !json_is_null(v))
                json_object_set_new(diff, k, json_null());
        }
        if (json_object_size(diff)) {
            /* sorted keys, as Go marshals maps */
            const char **keys = dra_xcalloc(json_object_size(diff) + 2, sizeof *keys);
            size_t nk = 0;
            json_object_foreach(diff, k, v) {
                keys[nk++] = k;
            }
            keys[nk++] = "type";
            for (size_t a = 1; a < nk; a++)
                for (size_t b = a; b > 0 && strcmp(keys[b - 1], keys[b]) > 0; b--) {
                    const char *t = keys[b - 1];
                    keys[b - 1] = keys[b];
                    keys[b] = t;
                }
            patch_cond = json_object();
            for (size_t a = 0; a < nk; a++)
                json_object_set(patch_cond, keys[a], strcmp(keys[a], "type") == 0 ? json_object_get(nc, "type")
                                                                                   : json_object_get(diff, keys[a]));
            free(keys);
            json_array_set(conds, i, nc);
        }
        json_decref(diff);
        json_decref(nc);
    }
    dra_buf why = DRA_BUF_INIT;
    for (size_t k = 0; k < pe->nclaims; k++)
        for (size_t j = 0; j < pe->claims[k]->n; j++) {
            char *s = dra_taint_src_string(&pe->claims[k]->items[j].src);
            dra_buf_printf(&why, "%s%s", why.len ? ", " : "", s);
            free(s);
        }
    if (patch_cond) {
        json_t *order = json_array();
        json_array_foreach(conds, i, cnd) {
            json_array_append_new(order, json_pack("{s:s}", "type", dra_jstr_or(cnd, "type", "")));
        }
        json_t *patch = json_pack("{s:{},s:{s:o,s:[o]}}", "metadata", "status", "$setElementOrder/conditions", order,
                                  "conditions", patch_cond);
        if (uid && *uid) /* never "uid": null */
            json_object_set_new(json_object_get(patch, "metadata"), "uid", json_string(uid));
        else
            json_object_del(patch, "metadata");
        char *r = dra_xasprintf("Pod %s/%s: DisruptionTarget (DeletionByDeviceTaintManager) because of %s", ns, name,
                                dra_buf_str(&why));
        dra_op *op = dra_changes_op(changes, DRA_OP_PATCH, pod, "status", patch, r);
        free(op->patch_type);
        op->patch_type = dra_xstrdup("strategic");
        free(r);
    }
    char *due = dra_time_format(pe->when);
    char *r = dra_xasprintf("Pod %s/%s: delete (device taint eviction due at %s)", ns, name, due);
    free(due);
    dra_changes_op(changes, DRA_OP_DELETE, pod, NULL, dra_delete_options(uid), r);
    free(r);
    /* graceful deletion: the server sets deletionTimestamp = now + grace period */
    json_int_t grace = 30;
    json_t *g = dra_jget(pod, "spec.terminationGracePeriodSeconds");
    if (json_is_integer(g))
        grace = json_integer_value(g);
    /* BeforeDelete: now.Add(time.Second * time.Duration(grace)), wrapping as Go */
    char *dt = dra_time_format(dra_time_add(x->opts->apply_at, dra_duration_of_seconds(grace)));
    json_t *md = json_object_get(ch->obj, "metadata");
    if (json_is_object(md)) {
        json_object_set_new(md, "deletionTimestamp", json_string(dt));
        json_object_set_new(md, "deletionGracePeriodSeconds", json_integer(grace));
    }
    free(dt);
    free(when);
    dra_buf_free(&why);
}

/* ---- entry points ---- */

void dra_evict_result_free(dra_evict_result *r)
{
    free(r->v);
    dra_problems_free(&r->warnings);
    for (size_t i = 0; i < r->nrules; i++)
        json_decref(r->rules[i]);
    free(r->rules);
    memset(r, 0, sizeof *r);
}

/* device: one more device find_device will be asked for (driver, pool,
 * device), or NULL. */
static dra_err *ctx_init(ctx *x, const dra_cluster *c, const dra_evict_opts *opts, dra_evict_result *out,
                         const char *const *device)
{
    memset(x, 0, sizeof *x);
    x->c = c;
    x->opts = opts;
    x->out = out;
    x->warned = dra_xcalloc(1, sizeof *x->warned);
    dra_err *e = load_rules(x);
    e = dra_err_append(e, load_pools(x));
    index_devices(x, true, device ? device[0] : NULL, device ? device[1] : NULL, device ? device[2] : NULL);
    return e;
}

static void ctx_free(ctx *x)
{
    free(x->rules);
    dra_pool_index_free(&x->pools);
    dra_strmap_free(&x->devmap);
    free(x->devs);
    dra_arena_free(&x->keys);
    if (x->warned)
        dra_strset_free(x->warned);
    free(x->warned);
}

/* Eviction time, then input order (the entries point into one array in
 * input order): the order a stable sort by time gives. */
static int due_cmp(const void *pa, const void *pb)
{
    const pod_ev *a = *(const pod_ev *const *)pa, *b = *(const pod_ev *const *)pb;
    if (dra_time_cmp(a->when, b->when) != 0)
        return dra_time_cmp(a->when, b->when);
    return a < b ? -1 : a > b;
}

dra_err *dra_evict_compute(const dra_cluster *c, const dra_evict_opts *opts, dra_evict_result *out,
                           dra_changes *changes)
{
    ctx x;
    dra_err *e = ctx_init(&x, c, opts, out, NULL);
    if (e) {
        ctx_free(&x);
        return e;
    }
    if (!dra_feature_enabled(opts->features, DRA_FEATURE_DEVICE_TAINTS)) {
        warn(out, dra_xstrdup("DRADeviceTaints is disabled: the eviction controller does not run"));
        ctx_free(&x);
        return NULL;
    }
    eval ev;
    e = evaluate(&x, -1, &ev);
    if (e) {
        eval_free(&ev);
        ctx_free(&x);
        return e;
    }
    build_records(&ev, out);
    if (opts->apply && changes) {
        /* in eviction-time order, as the work queue fires them */
        const pod_ev **due = dra_xcalloc(ev.npev + 1, sizeof *due);
        size_t ndue = 0;
        for (size_t i = 0; i < ev.npev; i++)
            if (pod_evicted_at_apply(&x, &ev.pev[i]))
                due[ndue++] = &ev.pev[i];
        dra_sort(due, ndue, sizeof *due, due_cmp);
        for (size_t i = 0; i < ndue; i++)
            apply_pod(&x, due[i], changes);
        free(due);
    }
    out->rules = dra_xcalloc(x.nrules + 1, sizeof *out->rules);
    for (size_t r = 0; r < x.nrules && !e; r++) {
        e = rule_status(&x, &ev, r, &out->rules[out->nrules], changes);
        if (!e)
            out->nrules++;
    }
    eval_free(&ev);
    ctx_free(&x);
    return e;
}

size_t dra_evict_device_taints(const dra_cluster *c, const dra_evict_opts *opts, const char *driver, const char *pool,
                               const char *device, dra_taint_src *srcs, size_t max)
{
    dra_evict_result scratch = DRA_EVICT_RESULT_INIT;
    ctx x;
    const char *id[3] = {driver, pool, device};
    dra_err *e = ctx_init(&x, c, opts, &scratch, id);
    dra_err_free(e); /* invalid objects simply contribute nothing here */
    size_t n = 0;
    const json_t *slice;
    const json_t *dev = find_device(&x, driver, pool, device, &slice);
    size_t k;
    json_t *t;
    json_array_foreach(device_taints(dev), k, t) {
        if (strcmp(dra_jstr_or(t, "effect", ""), "NoExecute") != 0)
            continue;
        if (n < max)
            srcs[n] = (dra_taint_src){NULL, slice, dra_jstr(dev, "name"), (int)k, t};
        n++;
    }
    for (size_t r = 0; r < x.nrules; r++) {
        if (!evicting(&x, r, -1) || !rule_matches(&x.rules[r], driver, pool, device))
            continue;
        if (n < max)
            srcs[n] = (dra_taint_src){x.rules[r].o->json, NULL, NULL, 0, x.rules[r].taint};
        n++;
    }
    ctx_free(&x);
    dra_evict_result_free(&scratch);
    return n;
}

bool dra_evict_device_published(const dra_cluster *c, const char *driver, const char *pool, const char *device,
                                bool *pool_known)
{
    dra_evict_result scratch = DRA_EVICT_RESULT_INIT;
    dra_evict_opts o = {0};
    ctx x;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.opts = &o;
    x.out = &scratch;
    dra_err_free(load_pools(&x));
    index_devices(&x, false, driver, pool, device); /* the one device asked about */
    *pool_known = find_pool(&x, driver, pool) != NULL;
    const json_t *slice;
    bool found = find_device(&x, driver, pool, device, &slice) != NULL;
    ctx_free(&x);
    dra_evict_result_free(&scratch);
    return found;
}
