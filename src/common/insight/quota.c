/* DRA ResourceQuota.  See quota.h. */
#include "quota.h"

#include <stdlib.h>
#include <string.h>

#include "../base/hash.h"
#include "../base/sort.h"
#include "../cluster/cluster.h" /* DRA_EXTENDED_CLAIM_ANNOTATION */
#include "../io/json.h"
#include "../io/table.h"
#include "../model/kinds.h"
#include "../model/quantity.h"
#include "../model/time.h"
#include "../model/validate.h"
#include "../sched/schedule.h" /* dra_extres_map */
#include "capacity.h"          /* dra_fleet_claims */

#define COUNT_NAME "count/resourceclaims.resource.k8s.io"
#define PER_CLASS ".deviceclass.resource.k8s.io/devices"
#define IMPLICIT_PREFIX "requests.deviceclass.resource.kubernetes.io/"

static void charge(json_t *u, const char *name, long long n)
{
    json_object_set_new(u, name, json_integer(json_integer_value(json_object_get(u, name)) + n));
}

static long long devices_of(const json_t *r)
{
    const char *mode = dra_jfield_str(r, "allocationMode");
    if (mode && strcmp(mode, "All") == 0)
        return DRA_ALLOCATION_RESULTS_MAX;
    if (mode && strcmp(mode, "ExactCount") != 0)
        return 0; /* unknown modes do not count */
    const json_t *c = dra_jfield(r, "count");
    return c ? (long long)json_integer_value(c) : 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const json_t *controller_pod_ref(const json_t *claim)
{
    size_t i;
    const json_t *ref;
    json_array_foreach(dra_jget(claim, "metadata.ownerReferences"), i, ref) {
        if (!dra_jfield_true(ref, "controller"))
            continue;
        const char *kind = dra_jfield_str(ref, "kind"), *av = dra_jfield_str(ref, "apiVersion");
        return kind && av && strcmp(kind, "Pod") == 0 && strcmp(av, "v1") == 0 ? ref : NULL;
    }
    return NULL;
}

static bool is_ext_claim(const json_t *claim)
{
    const char *ann = dra_jfield_str(dra_jget(claim, "metadata.annotations"), DRA_EXTENDED_CLAIM_ANNOTATION);
    return ann && strcmp(ann, "true") == 0;
}

static dra_time created_at(const json_t *o)
{
    dra_time t = {INT64_MIN, 0}; /* Go's zero time: before any other */
    dra_err *e = dra_time_parse(dra_jstr(o, "metadata.creationTimestamp"), &t);
    if (e)
        t = (dra_time){INT64_MIN, 0};
    dra_err_free(e);
    return t;
}

/* getVerifiedPodUsage's pod: the scheduler's claim for a pod's extended
 * resources, whose controller (Pod, v1) is a pod of the model with that UID
 * that names the claim in status.extendedResourceClaimStatus or, naming
 * none, owns no such claim made before it (equal times: a smaller name).
 * NULL when any of that fails, or for a pod past its end (Succeeded,
 * Failed: PodUsageFunc charges it nothing then).  Not modelled: a pod whose
 * deletion grace period has run out (QuotaV1Pod compares with the clock),
 * and requests read from container statuses (InPlacePodVerticalScaling). */
static const json_t *verified_pod(const json_t *claim, const dra_model *m)
{
    const json_t *ref = controller_pod_ref(claim);
    if (!is_ext_claim(claim) || !ref || !m)
        return NULL;
    const char *ns = dra_jstr_or(claim, "metadata.namespace", "default"),
               *name = dra_jstr_or(claim, "metadata.name", "");
    const dra_obj *po = dra_model_pod(m, ns, dra_jfield_str(ref, "name") ? dra_jfield_str(ref, "name") : "");
    const char *uid = dra_jstr_or(po ? po->json : NULL, "metadata.uid", "");
    if (!po || strcmp(dra_jfield_str(ref, "uid") ? dra_jfield_str(ref, "uid") : "", uid) != 0)
        return NULL;
    const json_t *ext = dra_jget(po->json, "status.extendedResourceClaimStatus");
    if (json_is_object(ext) && strcmp(dra_jstr_or(ext, "resourceClaimName", ""), name) != 0)
        return NULL;
    if (!json_is_object(ext)) {
        dra_time mine = created_at(claim);
        const dra_model_list *claims = dra_model_kind(m, DRA_KIND_RESOURCE_CLAIM);
        for (size_t i = 0; i < claims->n; i++) {
            const json_t *c = claims->v[i]->json, *r = controller_pod_ref(c);
            if (c == claim || !r || !is_ext_claim(c) ||
                strcmp(dra_jstr_or(c, "metadata.namespace", "default"), ns) != 0 ||
                strcmp(dra_jfield_str(r, "uid") ? dra_jfield_str(r, "uid") : "", uid) != 0)
                continue;
            int order = dra_time_cmp(created_at(c), mine);
            if (order < 0 || (order == 0 && strcmp(dra_jstr_or(c, "metadata.name", ""), name) < 0))
                return NULL;
        }
    }
    const char *phase = dra_jstr(po->json, "status.phase");
    if (phase && (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0))
        return NULL;
    return po->json;
}

/* addExtendedResourceQuota: each class's devices also as
 * requests.deviceclass.resource.kubernetes.io/<class> and
 * requests.<extendedResourceName>, less what the claim's verified pod
 * requests of that resource itself (charged to the pod), when more is left. */
static void charge_extended(json_t *u, const json_t *claim, const dra_model *m, const dra_features *f)
{
    const json_t *pod = verified_pod(claim, m);
    json_t *ext = json_object();
    size_t p = strlen(PER_CLASS);
    const char *k;
    json_t *v;
    json_object_foreach(u, k, v) {
        size_t n = strlen(k);
        if (n <= p || strcmp(k + n - p, PER_CLASS) != 0)
            continue;
        char *cls = dra_xstrndup(k, n - p);
        char *names[2] = {dra_xasprintf("%s%s", IMPLICIT_PREFIX, cls), NULL};
        const dra_obj *c = m ? dra_model_class(m, cls) : NULL;
        const char *ern = c ? dra_jstr(c->json, "spec.extendedResourceName") : NULL;
        if (ern && *ern)
            names[1] = dra_xasprintf("requests.%s", ern);
        for (int i = 0; i < 2 && names[i]; i++) {
            long long left =
                json_integer_value(v) - (pod ? dra_extres_pod_request(pod, names[i] + strlen("requests."), f) : 0);
            if (left > 0)
                json_object_set_new(ext, names[i], json_integer(left));
            free(names[i]);
        }
        free(cls);
    }
    json_object_update(u, ext);
    json_decref(ext);
}

json_t *dra_quota_claim_usage(const json_t *claim, const dra_model *m, const dra_features *features)
{
    json_t *u = json_object();
    charge(u, COUNT_NAME, 1);
    size_t i;
    const json_t *r;
    json_array_foreach(dra_jget(claim, "spec.devices.requests"), i, r) {
        const json_t *fa = dra_jfield(r, "firstAvailable");
        const json_t *ex = dra_jfield(r, "exactly");
        if (json_array_size(fa)) {
            json_t *max = json_object(); /* class -> largest subrequest */
            size_t k;
            const json_t *s;
            json_array_foreach(fa, k, s) {
                const char *cls = dra_jfield_str(s, "deviceClassName");
                long long n = devices_of(s);
                if (cls && n > json_integer_value(json_object_get(max, cls)))
                    json_object_set_new(max, cls, json_integer(n));
            }
            const char *cls;
            json_t *v;
            json_object_foreach(max, cls, v) {
                char *key = dra_xasprintf("%s%s", cls, PER_CLASS);
                charge(u, key, json_integer_value(v));
                free(key);
            }
            json_decref(max);
        } else if (ex) {
            const char *cls = dra_jfield_str(ex, "deviceClassName");
            char *key = cls ? dra_xasprintf("%s%s", cls, PER_CLASS) : NULL;
            if (key)
                charge(u, key, devices_of(ex));
            free(key);
        }
    }
    if (features && dra_feature_enabled(features, DRA_FEATURE_EXTENDED_RESOURCE))
        charge_extended(u, claim, m, features);
    return u;
}

/* claimEvaluator.MatchingResources: the quota names claims are counted in.
 * With DRAExtendedResource, requests.<R> where a class serves R (its
 * extendedResourceName, or deviceclass.resource.kubernetes.io/<class>). */
static bool tracked(const char *name, const dra_model *m, const dra_extres_map *xm, bool extended)
{
    size_t n = strlen(name), p = strlen(PER_CLASS), ip = strlen(IMPLICIT_PREFIX);
    if (strcmp(name, COUNT_NAME) == 0 || (n >= p && strcmp(name + n - p, PER_CLASS) == 0))
        return true;
    if (!extended || strncmp(name, "requests.", 9) != 0)
        return false;
    bool implicit = strncmp(name, IMPLICIT_PREFIX, ip) == 0;
    if (implicit) {
        const dra_obj *c = dra_model_class(m, name + ip);
        const char *ern = c ? dra_jstr(c->json, "spec.extendedResourceName") : NULL;
        if (ern && *ern)
            return true;
    }
    /* isExtendedResourceNameForQuota: not native (a '/', no kubernetes.io/) or implicit */
    bool native = !strchr(name, '/') || strstr(name, "kubernetes.io/");
    return (!native || implicit) && dra_extres_class(xm, name + 9) != NULL;
}

/* "a=1,b=2" over keys, sorted (upstream prettyPrint) */
static char *pretty(const json_t *vals, const char *const *keys, size_t n)
{
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        dra_buf_printf(&b, "%s%s=%lld", i ? "," : "", keys[i],
                       (long long)json_integer_value(json_object_get(vals, keys[i])));
    return dra_buf_detach(&b);
}

/* A quantity of the quota (spec.hard or status.used) as an integer: Value(),
 * rounded up.  Errors name the field. */
static dra_err *quota_value(const json_t *v, const dra_obj *o, const char *field, const char *k, const dra_features *f,
                            int64_t *out)
{
    dra_quantity qt;
    const char *s = json_string_value(v);
    char num[32];
    if (json_is_integer(v)) {
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        s = num;
    }
    dra_err *qe = s ? dra_quantity_parse_as(f, s, &qt) : dra_err_new(DRA_EXIT_INPUT, "not a quantity");
    if (!qe && !dra_quantity_value(&qt, out))
        qe = dra_err_new(DRA_EXIT_INPUT, "quantity too large");
    if (!qe)
        return NULL;
    char *path = dra_xasprintf("%s[%s]", field, k);
    qe = dra_obj_locate(dra_err_field(qe, path), o);
    free(path);
    return qe;
}

/* "a,b" of names, sorted in place (prettyPrintResourceNames); a new string */
static char *joined(const char **names, size_t n)
{
    dra_sort(names, n, sizeof *names, cmp_str);
    dra_buf b = DRA_BUF_INIT;
    for (size_t j = 0; j < n; j++)
        dra_buf_printf(&b, "%s%s", j ? "," : "", names[j]);
    return dra_buf_detach(&b);
}

typedef struct quota {
    const char *ns, *name;
    json_t *hard, *used; /* R -> integer (hard: Value(), rounded up) */
    json_t *from_status; /* R -> true: the start of used is status.used's */
    json_t *start;       /* R -> integer: used before the first claim admitted */
    bool synced;         /* hard is status.hard (else spec.hard, as the controller will sync it) */
    char *unknown;       /* synced, and status.used misses one of hard's names: all of them, sorted */
    char *missing;       /* those status.used misses, sorted */
} quota;

struct dra_quota_ledger {
    const dra_model *m;
    const dra_features *features;
    dra_extres_map *xm;
    quota *q;
    size_t nq;
    /* the quotas of each namespace, in input order: first[ns] and next[k]
     * (index + 1, 0 at the end), so a claim looks at its namespace's alone */
    dra_strmap first;
    size_t *next;
    json_t *skipped_quotas, *charged, *refused, *passed;
};

static json_t *scope_list(const json_t *spec)
{
    json_t *a = json_array();
    size_t i;
    const json_t *s;
    json_array_foreach(dra_jfield(spec, "scopes"), i, s) {
        if (json_is_string(s))
            json_array_append(a, (json_t *)s);
    }
    json_array_foreach(dra_jfield(dra_jfield(spec, "scopeSelector"), "matchExpressions"), i, s) {
        const char *n = dra_jfield_str(s, "scopeName");
        if (n)
            json_array_append_new(a, json_string(n));
    }
    return a;
}

/* An existing claim c charged, where status.used does not say, to the
 * quotas of its namespace (as the quota controller counts it). */
static void count_existing(dra_quota_ledger *l, const json_t *c)
{
    const char *ns = dra_jstr_or(c, "metadata.namespace", "default");
    intptr_t head = 0;
    if (!dra_strmap_get(&l->first, ns, strlen(ns), &head) || !head)
        return;
    json_t *use = dra_quota_claim_usage(c, l->m, l->features);
    for (size_t k1 = (size_t)head; k1; k1 = l->next[k1 - 1]) {
        quota *q = &l->q[k1 - 1];
        const char *r;
        json_t *v;
        json_object_foreach(use, r, v) {
            if (json_object_get(q->hard, r) && !json_object_get(q->from_status, r))
                charge(q->used, r, json_integer_value(v));
        }
    }
    json_decref(use);
}

/* dra_quota_ledger_new, or (next set) _new_each. */
static dra_err *ledger_new(const dra_objset *set, const dra_model *m, const dra_features *features, bool existing,
                           const json_t *(*next)(void *ctx), void *ctx, dra_quota_ledger **out)
{
    *out = NULL;
    dra_quota_ledger *l = dra_xcalloc(1, sizeof *l);
    l->m = m;
    l->features = features;
    l->skipped_quotas = json_array();
    l->charged = json_array();
    l->refused = json_array();
    l->passed = json_array();
    const dra_model_list *cl = dra_model_kind(m, DRA_KIND_DEVICE_CLASS);
    json_t **classes = dra_xcalloc(cl->n + 1, sizeof *classes);
    for (size_t i = 0; i < cl->n; i++)
        classes[i] = cl->v[i]->json;
    l->xm = dra_extres_map_new(classes, cl->n, features);
    free(classes);
    bool extended = features && dra_feature_enabled(features, DRA_FEATURE_EXTENDED_RESOURCE);
    dra_err *e = NULL;
    for (size_t i = 0; i < set->n; i++) {
        const json_t *o = set->v[i].json;
        if (!dra_is_resource_quota(o))
            continue;
        const json_t *spec = dra_jfield(o, "spec");
        const char *ns = dra_jstr_or(o, "metadata.namespace", "default"), *name = dra_jstr_or(o, "metadata.name", "");
        json_t *scopes = scope_list(spec);
        if (json_array_size(scopes) || dra_jfield(spec, "scopeSelector")) {
            /* generic.MatchesNoScopeFunc: the claim evaluator matches no scope */
            json_array_append_new(l->skipped_quotas,
                                  json_pack("{s:s,s:s,s:o,s:s}", "namespace", ns, "name", name, "scopes", scopes,
                                            "reason", "scoped: ResourceClaims match no quota scope"));
            continue;
        }
        json_decref(scopes);
        /* admission reads status.hard; a quota the controller has not
         * synced yet (no status.hard) is taken as it will be: spec.hard */
        const json_t *shard = dra_jget(o, "status.hard");
        bool synced = json_object_size(shard) > 0;
        const char *hfield = synced ? "status.hard" : "spec.hard";
        quota x = {ns, name, json_object(), json_object(), json_object(), NULL, synced, NULL, NULL};
        const json_t *used = dra_jget(o, "status.used");
        size_t nh = json_object_size(synced ? shard : dra_jfield(spec, "hard"));
        const char **names = dra_xcalloc(nh + 1, sizeof *names), **miss = dra_xcalloc(nh + 1, sizeof *miss);
        size_t nn = 0, nm = 0;
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)(synced ? shard : dra_jfield(spec, "hard")), k, v) {
            if (!tracked(k, m, l->xm, extended))
                continue;
            names[nn++] = k;
            int64_t val = 0, start = 0;
            dra_err *qe = quota_value(v, &set->v[i], hfield, k, features, &val);
            const json_t *u = json_object_get(used, k);
            if (!qe && u)
                qe = quota_value(u, &set->v[i], "status.used", k, features, &start);
            if (qe) {
                e = dra_err_append(e, qe);
                continue;
            }
            json_object_set_new(x.hard, k, json_integer(val));
            json_object_set_new(x.used, k, json_integer(start));
            if (u)
                json_object_set_new(x.from_status, k, json_true());
            if (synced && !u)
                miss[nm++] = k;
        }
        if (nm) {
            /* hasUsageStats: refused until status.used has every figure */
            x.unknown = joined(names, nn);
            x.missing = joined(miss, nm);
        }
        free(names);
        free(miss);
        if (!json_object_size(x.hard) && !e)
            json_array_append_new(
                l->skipped_quotas,
                json_pack("{s:s,s:s,s:[],s:s}", "namespace", ns, "name", name, "scopes", "reason",
                          synced ? "no DRA resource in status.hard" : "no DRA resource in spec.hard"));
        l->q = dra_xgrow(l->q, l->nq, sizeof *l->q);
        l->q[l->nq++] = x;
    }
    l->next = dra_xcalloc(l->nq + 1, sizeof *l->next);
    for (size_t k = l->nq; k-- > 0;) {
        intptr_t h = 0;
        dra_strmap_get(&l->first, l->q[k].ns, strlen(l->q[k].ns), &h);
        l->next[k] = (size_t)h;
        dra_strmap_put(&l->first, l->q[k].ns, strlen(l->q[k].ns), (intptr_t)(k + 1));
    }
    if (e) {
        dra_quota_ledger_free(l);
        return e;
    }
    /* where status.used does not say, the quota controller's total: the
     * namespace's claims as they are */
    if (next) {
        for (const json_t *c; (c = next(ctx));)
            count_existing(l, c);
    } else {
        const dra_model_list *claims = dra_model_kind(m, DRA_KIND_RESOURCE_CLAIM);
        for (size_t ci = 0; existing && ci < claims->n; ci++)
            count_existing(l, claims->v[ci]->json);
    }
    for (size_t k = 0; k < l->nq; k++)
        l->q[k].start = json_deep_copy(l->q[k].used);
    *out = l;
    return NULL;
}

dra_err *dra_quota_ledger_new(const dra_objset *set, const dra_model *m, const dra_features *features, bool existing,
                              dra_quota_ledger **out)
{
    return ledger_new(set, m, features, existing, NULL, NULL, out);
}

dra_err *dra_quota_ledger_new_each(const dra_objset *set, const dra_model *m, const dra_features *features,
                                   const json_t *(*next)(void *ctx), void *ctx, dra_quota_ledger **out)
{
    return ledger_new(set, m, features, true, next, ctx, out);
}

static const char *claim_name(const json_t *claim)
{
    const char *n = dra_jstr(claim, "metadata.name");
    /* a create left to the server: admission sees the generateName */
    return n && *n ? n : dra_jstr_or(claim, "metadata.generateName", "");
}

char *dra_quota_admit(dra_quota_ledger *l, const json_t *claim)
{
    const char *ns = dra_jstr_or(claim, "metadata.namespace", "default"), *name = claim_name(claim);
    char *ref = dra_xasprintf("%s/%s", ns, name);
    intptr_t head = 0;
    dra_strmap_get(&l->first, ns, strlen(ns), &head);
    json_t *use = dra_quota_claim_usage(claim, l->m, l->features);
    char *msg = NULL;
    /* every matching quota must have its usage known before any is checked */
    for (size_t k1 = (size_t)head; k1 && !msg; k1 = l->next[k1 - 1]) {
        quota *q = &l->q[k1 - 1];
        if (!q->unknown)
            continue;
        msg = dra_xasprintf(
            "resourceclaims.resource.k8s.io \"%s\" is forbidden: status unknown for quota: %s, resources: %s", name,
            q->name, q->unknown);
        json_array_append_new(l->refused, json_pack("{s:s,s:s,s:s}", "claim", ref, "quota", q->name, "message", msg));
    }
    for (size_t k1 = (size_t)head; k1 && !msg; k1 = l->next[k1 - 1]) {
        quota *q = &l->q[k1 - 1];
        const char **names = dra_xcalloc(json_object_size(use) + 1, sizeof *names);
        size_t nn = 0;
        const char *r;
        json_t *v;
        json_object_foreach(use, r, v) {
            if (json_object_get(q->hard, r) && json_integer_value(json_object_get(q->used, r)) + json_integer_value(v) >
                                                   json_integer_value(json_object_get(q->hard, r)))
                names[nn++] = r;
        }
        if (nn) {
            dra_sort(names, nn, sizeof *names, cmp_str);
            char *rq = pretty(use, names, nn), *us = pretty(q->used, names, nn), *hd = pretty(q->hard, names, nn);
            msg = dra_xasprintf("resourceclaims.resource.k8s.io \"%s\" is forbidden: exceeded quota: %s, "
                                "requested: %s, used: %s, limited: %s",
                                name, q->name, rq, us, hd);
            json_array_append_new(l->refused,
                                  json_pack("{s:s,s:s,s:s}", "claim", ref, "quota", q->name, "message", msg));
            free(rq);
            free(us);
            free(hd);
        }
        free(names);
    }
    json_t *in = json_array(), *counted = json_object(); /* the quotas charged, and what they count */
    for (size_t k1 = (size_t)head; k1 && !msg; k1 = l->next[k1 - 1]) {
        quota *q = &l->q[k1 - 1];
        const char *r;
        json_t *v;
        bool any = false;
        json_object_foreach(use, r, v) {
            if (json_object_get(q->hard, r)) {
                charge(q->used, r, json_integer_value(v));
                json_object_set(counted, r, v);
                any = true;
            }
        }
        if (any)
            json_array_append_new(in, json_string(q->name));
    }
    if (!msg && json_array_size(in))
        json_array_append_new(l->charged, json_pack("{s:s,s:O,s:O}", "claim", ref, "quotas", in, "usage", counted));
    else if (!msg)
        json_array_append_new(l->passed, json_pack("{s:s,s:s}", "claim", ref, "reason",
                                                   head ? "no quota of its namespace counts its resources"
                                                        : "no quota in its namespace"));
    json_decref(in);
    json_decref(counted);
    json_decref(use);
    free(ref);
    return msg;
}

json_t *dra_quota_ledger_report(const dra_quota_ledger *l)
{
    json_t *qs = json_array();
    for (size_t k = 0; k < l->nq; k++) {
        json_t *res = json_object();
        const char *r;
        json_t *v;
        json_object_foreach(l->q[k].hard, r, v) {
            json_object_set_new(res, r,
                                json_pack("{s:O,s:O,s:O,s:b}", "used", json_object_get(l->q[k].used, r), "hard", v,
                                          "start", json_object_get(l->q[k].start, r), "fromStatus",
                                          json_object_get(l->q[k].from_status, r) != NULL));
        }
        json_t *qj = json_pack("{s:s,s:s,s:s,s:o}", "namespace", l->q[k].ns, "name", l->q[k].name, "hardFrom",
                               l->q[k].synced ? "status.hard" : "spec.hard", "resources", res);
        if (l->q[k].unknown)
            json_object_set_new(qj, "statusUnknown",
                                json_pack("{s:s,s:s}", "resources", l->q[k].unknown, "missing", l->q[k].missing));
        json_array_append_new(qs, qj);
    }
    return json_pack("{s:o,s:O,s:O,s:O,s:O}", "quotas", qs, "refused", l->refused, "charged", l->charged, "uncharged",
                     l->passed, "skippedQuotas", l->skipped_quotas);
}

void dra_quota_ledger_free(dra_quota_ledger *l)
{
    if (!l)
        return;
    for (size_t k = 0; k < l->nq; k++) {
        json_decref(l->q[k].hard);
        json_decref(l->q[k].used);
        json_decref(l->q[k].from_status);
        json_decref(l->q[k].start);
        free(l->q[k].unknown);
        free(l->q[k].missing);
    }
    dra_extres_map_free(l->xm);
    free(l->q);
    free(l->next);
    dra_strmap_free(&l->first);
    json_decref(l->skipped_quotas);
    json_decref(l->charged);
    json_decref(l->refused);
    json_decref(l->passed);
    free(l);
}

const char *dra_quota_pod_claim(const json_t *claim)
{
    const json_t *ref = is_ext_claim(claim) ? controller_pod_ref(claim) : NULL;
    return ref ? dra_jstr_or(ref, "name", "") : NULL;
}

dra_err *dra_quota_evaluate_each(const dra_objset *set, const dra_model *m, const dra_features *features,
                                 const json_t *(*next)(void *ctx), void *ctx, json_t **report)
{
    *report = NULL;
    dra_quota_ledger *l;
    dra_err *e = dra_quota_ledger_new(set, m, features, false, &l);
    if (e)
        return e;
    for (const json_t *c; (c = next(ctx));)
        free(dra_quota_admit(l, c));
    *report = dra_quota_ledger_report(l);
    dra_quota_ledger_free(l);
    return NULL;
}

const json_t *dra_quota_feed_next(void *ctx)
{
    dra_quota_feed *f = ctx;
    json_decref(f->cur);
    f->cur = NULL;
    while (!f->cur && f->i < f->claims->n) {
        dra_obj o;
        if (dra_compact_whole(&f->claims->texts, f->claims->v[f->i++], &o))
            f->cur = o.json;
    }
    return f->cur;
}

void dra_quota_feed_end(dra_quota_feed *f)
{
    json_decref(f->cur);
    f->cur = NULL;
}

/* The claims of a model, in its order, for dra_quota_evaluate_each. */
typedef struct model_feed {
    const dra_model_list *claims;
    size_t i;
} model_feed;

static const json_t *model_next(void *ctx)
{
    model_feed *f = ctx;
    return f->i < f->claims->n ? f->claims->v[f->i++]->json : NULL;
}

dra_err *dra_quota_evaluate(const dra_cluster *c, const dra_features *features, json_t **report)
{
    model_feed f = {dra_model_kind(&c->model, DRA_KIND_RESOURCE_CLAIM), 0};
    return dra_quota_evaluate_each(c->set, &c->model, features, model_next, &f, report);
}

static char *admit(void *ctx, const json_t *claim)
{
    return dra_quota_admit(ctx, claim);
}

dra_err *dra_quota_admission(const dra_cluster *c, const dra_features *features, dra_sched_opts *so,
                             dra_quota_ledger **out)
{
    *out = NULL;
    size_t i;
    for (i = 0; i < c->set->n && !dra_is_resource_quota(c->set->v[i].json); i++)
        ;
    if (i == c->set->n)
        return NULL;
    dra_err *e = dra_quota_ledger_new(c->set, &c->model, features, true, out);
    if (!e) {
        so->admit = admit;
        so->admit_ctx = *out;
    }
    return e;
}

dra_err *dra_quota_table(FILE *f, const json_t *report)
{
    const char **cells = NULL;
    char **owned = NULL;
    size_t n = 0, no = 0;
    static const char *const head[] = {"NAMESPACE", "QUOTA", "RESOURCE", "USED", "HARD"};
    for (int i = 0; i < 5; i++) {
        cells = dra_xgrow(cells, n, sizeof *cells);
        cells[n++] = head[i];
    }
    size_t i;
    const json_t *q;
    json_array_foreach(dra_jfield(report, "quotas"), i, q) {
        const char **keys = dra_xcalloc(json_object_size(dra_jfield(q, "resources")) + 1, sizeof *keys);
        size_t nk = 0;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)dra_jfield(q, "resources"), k, v) {
            keys[nk++] = k;
        }
        dra_sort(keys, nk, sizeof *keys, cmp_str);
        for (size_t j = 0; j < nk; j++) {
            const json_t *r = json_object_get(dra_jfield(q, "resources"), keys[j]);
            const char *row[5] = {dra_jfield_str(q, "namespace"), dra_jfield_str(q, "name"), keys[j], NULL, NULL};
            for (int c = 3; c < 5; c++) {
                owned = dra_xgrow(owned, no, sizeof *owned);
                owned[no] =
                    dra_xasprintf("%lld", (long long)json_integer_value(dra_jfield(r, c == 3 ? "used" : "hard")));
                row[c] = owned[no++];
            }
            for (int c = 0; c < 5; c++) {
                cells = dra_xgrow(cells, n, sizeof *cells);
                cells[n++] = row[c];
            }
        }
        free(keys);
    }
    dra_err *e = dra_table_write(f, cells, n / 5, 5);
    for (size_t j = 0; j < no; j++)
        free(owned[j]);
    free(owned);
    free(cells);
    return e;
}
