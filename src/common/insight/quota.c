/* DRA ResourceQuota.  See quota.h. */
#include "quota.h"

#include <stdlib.h>
#include <string.h>

#include "../base/hash.h"
#include "../base/sort.h"
#include "../io/json.h"
#include "../io/table.h"
#include "../model/kinds.h"
#include "../model/quantity.h"
#include "../model/validate.h"

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

/* The class's quota names for n devices: devices, and with the gate the extended resources. */
static void charge_class(json_t *u, const char *cls, long long n, const dra_model *m, bool extended)
{
    char *k = dra_xasprintf("%s%s", cls, PER_CLASS);
    charge(u, k, n);
    free(k);
    if (!extended)
        return;
    k = dra_xasprintf("%s%s", IMPLICIT_PREFIX, cls);
    charge(u, k, n);
    free(k);
    const dra_obj *c = dra_model_class(m, cls);
    const char *ern = c ? dra_jstr(c->json, "spec.extendedResourceName") : NULL;
    if (ern) {
        k = dra_xasprintf("requests.%s", ern);
        charge(u, k, n);
        free(k);
    }
}

json_t *dra_quota_claim_usage(const json_t *claim, const dra_model *m, const dra_features *features)
{
    json_t *u = json_object();
    charge(u, COUNT_NAME, 1);
    const char *ann = dra_jstr(dra_jget(claim, "metadata.annotations"), "resource.kubernetes.io/extended-resource-claim");
    bool extended = features && dra_feature_enabled(features, DRA_FEATURE_EXTENDED_RESOURCE) &&
                    !(ann && strcmp(ann, "true") == 0);
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
                charge_class(u, cls, json_integer_value(v), m, extended);
            }
            json_decref(max);
        } else if (ex) {
            const char *cls = dra_jfield_str(ex, "deviceClassName");
            if (cls)
                charge_class(u, cls, devices_of(ex), m, extended);
        }
    }
    return u;
}

static bool tracked(const char *name, bool extended)
{
    size_t n = strlen(name), p = strlen(PER_CLASS);
    if (strcmp(name, COUNT_NAME) == 0 || (n > p && strcmp(name + n - p, PER_CLASS) == 0))
        return true;
    return extended && strncmp(name, "requests.", 9) == 0 && strchr(name + 9, '/') != NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "a=1,b=2" over keys, sorted (upstream prettyPrint) */
static char *pretty(const json_t *vals, const char *const *keys, size_t n)
{
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        dra_buf_printf(&b, "%s%s=%lld", i ? "," : "", keys[i], (long long)json_integer_value(json_object_get(vals, keys[i])));
    return dra_buf_detach(&b);
}

typedef struct quota {
    const char *ns, *name;
    json_t *hard, *used; /* R -> integer (hard: Value(), rounded up) */
} quota;

dra_err *dra_quota_evaluate(const dra_objset *set, const dra_model *m, const dra_features *features, json_t **report)
{
    *report = NULL;
    bool extended = features && dra_feature_enabled(features, DRA_FEATURE_EXTENDED_RESOURCE);
    quota *q = NULL;
    size_t nq = 0;
    dra_err *e = NULL;
    for (size_t i = 0; i < set->n; i++) {
        const json_t *o = set->v[i].json;
        const char *kind = dra_jfield_str(o, "kind"), *api = dra_jfield_str(o, "apiVersion");
        if (!kind || !api || strcmp(kind, "ResourceQuota") != 0 || strcmp(api, "v1") != 0)
            continue;
        const json_t *spec = dra_jfield(o, "spec");
        if (json_array_size(dra_jfield(spec, "scopes")) || dra_jfield(spec, "scopeSelector"))
            continue; /* the claim evaluator matches no scope */
        quota x = {dra_jstr_or(o, "metadata.namespace", "default"), dra_jstr_or(o, "metadata.name", ""), json_object(),
                   json_object()};
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)dra_jfield(spec, "hard"), k, v) {
            if (!tracked(k, extended))
                continue;
            dra_quantity qt;
            const char *s = json_string_value(v);
            char num[32];
            if (json_is_integer(v)) {
                snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
                s = num;
            }
            dra_err *qe = s ? dra_quantity_parse(s, &qt) : dra_err_new(DRA_EXIT_INPUT, "not a quantity");
            int64_t val = 0;
            if (!qe && !dra_quantity_value(&qt, &val))
                qe = dra_err_new(DRA_EXIT_INPUT, "quantity too large");
            if (qe) {
                char *f = dra_xasprintf("spec.hard[%s]", k);
                e = dra_err_append(e, dra_obj_locate(dra_err_field(qe, f), &set->v[i]));
                free(f);
                continue;
            }
            json_object_set_new(x.hard, k, json_integer(val));
            json_object_set_new(x.used, k, json_integer(0));
        }
        q = dra_xgrow(q, nq, sizeof *q);
        q[nq++] = x;
    }
    /* the quotas of each namespace, in input order: first[ns] and next[k]
     * (index + 1, 0 at the end), so a claim looks at its namespace's alone */
    dra_strmap first = {0};
    size_t *next = dra_xcalloc(nq + 1, sizeof *next);
    for (size_t k = nq; k-- > 0;) {
        intptr_t h = 0;
        dra_strmap_get(&first, q[k].ns, strlen(q[k].ns), &h);
        next[k] = (size_t)h;
        dra_strmap_put(&first, q[k].ns, strlen(q[k].ns), (intptr_t)(k + 1));
    }
    json_t *refused = json_array();
    const dra_model_list *claims = dra_model_kind(m, DRA_KIND_RESOURCE_CLAIM);
    for (size_t ci = 0; ci < claims->n && !e; ci++) {
        const json_t *c = claims->v[ci]->json;
        const char *ns = dra_jstr_or(c, "metadata.namespace", "default"), *name = dra_jstr_or(c, "metadata.name", "");
        json_t *use = dra_quota_claim_usage(c, m, features);
        bool ok = true;
        intptr_t head = 0;
        dra_strmap_get(&first, ns, strlen(ns), &head);
        for (size_t k1 = (size_t)head; k1 && ok; k1 = next[k1 - 1]) {
            size_t k = k1 - 1;
            const char **names = dra_xcalloc(json_object_size(use) + 1, sizeof *names);
            size_t nn = 0;
            const char *r;
            json_t *v;
            json_object_foreach(use, r, v) {
                if (json_object_get(q[k].hard, r) &&
                    json_integer_value(json_object_get(q[k].used, r)) + json_integer_value(v) >
                        json_integer_value(json_object_get(q[k].hard, r)))
                    names[nn++] = r;
            }
            if (nn) {
                dra_sort(names, nn, sizeof *names, cmp_str);
                char *rq = pretty(use, names, nn), *us = pretty(q[k].used, names, nn), *hd = pretty(q[k].hard, names, nn);
                char *msg = dra_xasprintf("resourceclaims.resource.k8s.io \"%s\" is forbidden: exceeded quota: %s, "
                                          "requested: %s, used: %s, limited: %s",
                                          name, q[k].name, rq, us, hd);
                char *ref = dra_xasprintf("%s/%s", ns, name);
                json_array_append_new(refused, json_pack("{s:s,s:s,s:s}", "claim", ref, "quota", q[k].name, "message", msg));
                free(ref);
                free(msg);
                free(rq);
                free(us);
                free(hd);
                ok = false;
            }
            free(names);
        }
        for (size_t k1 = (size_t)head; k1 && ok; k1 = next[k1 - 1]) {
            size_t k = k1 - 1;
            const char *r;
            json_t *v;
            json_object_foreach(use, r, v) {
                if (json_object_get(q[k].hard, r))
                    charge(q[k].used, r, json_integer_value(v));
            }
        }
        json_decref(use);
    }
    dra_strmap_free(&first);
    free(next);
    json_t *qs = json_array();
    for (size_t k = 0; k < nq; k++) {
        json_t *res = json_object();
        const char *r;
        json_t *v;
        json_object_foreach(q[k].hard, r, v) {
            json_object_set_new(res, r, json_pack("{s:O,s:O}", "used", json_object_get(q[k].used, r), "hard", v));
        }
        json_array_append_new(qs, json_pack("{s:s,s:s,s:o}", "namespace", q[k].ns, "name", q[k].name, "resources", res));
        json_decref(q[k].hard);
        json_decref(q[k].used);
    }
    free(q);
    if (e) {
        json_decref(qs);
        json_decref(refused);
        return e;
    }
    *report = json_pack("{s:o,s:o}", "quotas", qs, "refused", refused);
    return NULL;
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
                owned[no] = dra_xasprintf("%lld", (long long)json_integer_value(dra_jfield(r, c == 3 ? "used" : "hard")));
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
