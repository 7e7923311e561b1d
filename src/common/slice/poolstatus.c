/* ResourcePoolStatusRequest status; see poolstatus.h. */
#include "poolstatus.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/hash.h"
#include "../io/json.h"
#include "../base/sort.h"
#include "../model/poolrule.h"
#include "../model/quantity.h"
#include "../model/time.h"

/* Status lists hold at most 32 items (+k8s:maxItems=32): a view over that is
 * a validationError, not a truncated list. */
#define MAX_STATUS_ITEMS 32

/* One device of a pool's current generation, with the grouping attribute its
 * slice declared (NULL: none). */
typedef struct pdev {
    const json_t *dev;
    const char *attr;
} pdev;

/* One named quantity (a consumed capacity, a counter of a set). */
typedef struct nq {
    const char *set, *name;
    dra_quantity q;
} nq;

typedef struct pinfo {
    const char *driver, *pool;
    const char *node;
    bool node_mixed;
    int64_t total, unavailable, generation;
    dra_pool_tally tally; /* the slices at generation (model/poolrule.h) */
    pdev *devs;
    size_t ndev;
    const json_t **sets; /* sharedCounters arrays of the pool's current slices */
    size_t nsets;
    dra_strmap in_use; /* device name -> 1: in a non-admin allocation result */
    int64_t results;   /* allocation results naming the pool, admin access too (1.36's count) */
    nq *consumed;      /* consumed capacity over those results, per name */
    size_t nconsumed;
    const dra_features *features; /* the release whose rules read the quantities */
} pinfo;

static bool blocking_effect(const char *e)
{
    return e && (strcmp(e, "NoSchedule") == 0 || strcmp(e, "NoExecute") == 0);
}

static bool opt_match(const json_t *sel, const char *key, const char *value)
{
    const char *s = dra_jfield_str(sel, key);
    return !s || strcmp(s, value) == 0;
}

/* A device's name, whether the device is an object or (kept by
 * dra_pool_slice_keep) its name alone. */
static const char *dev_name(const json_t *dev)
{
    return json_is_string(dev) ? json_string_value(dev) : dra_jfield_str(dev, "name");
}

static bool device_unavailable(const char *driver, const char *pool, const json_t *dev, const dra_model_list *rules)
{
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(dev, "taints"), i, t)
        if (blocking_effect(dra_jfield_str(t, "effect")))
            return true;
    const char *name = dev_name(dev) ? dev_name(dev) : "";
    for (size_t k = 0; rules && k < rules->n; k++) {
        const json_t *spec = json_object_get(rules->v[k]->json, "spec");
        if (!blocking_effect(dra_jfield_str(json_object_get(spec, "taint"), "effect")))
            continue;
        const json_t *sel = json_object_get(spec, "deviceSelector");
        if (!json_is_object(sel)) /* no selector matches nothing */
            continue;
        if (opt_match(sel, "driver", driver) && opt_match(sel, "pool", pool) && opt_match(sel, "device", name))
            return true;
    }
    return false;
}

static int cmp_pool(const void *a, const void *b)
{
    const pinfo *x = a, *y = b;
    int c = strcmp(x->driver, y->driver);
    return c ? c : strcmp(x->pool, y->pool);
}

/* A quantity field ({"value": Q} or Q itself); zero when absent or bad. */
static dra_quantity qty(const json_t *v, const dra_features *f)
{
    dra_quantity q = dra_quantity_from_int64(0, DRA_QFMT_DECIMAL_SI);
    if (json_is_object(v))
        v = json_object_get(v, "value");
    const char *s = json_string_value(v);
    if (s) {
        dra_err *e = dra_quantity_parse_as(f, s, &q);
        if (e) {
            dra_err_free(e);
            q = dra_quantity_from_int64(0, DRA_QFMT_DECIMAL_SI);
        }
    }
    return q;
}

static nq *nq_find(nq *v, size_t n, const char *set, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if ((set == v[i].set || (set && v[i].set && strcmp(set, v[i].set) == 0)) && strcmp(name, v[i].name) == 0)
            return &v[i];
    return NULL;
}

/* Add q to the named quantity by f's release's rules (Quantity.Add). */
static void nq_add(nq **v, size_t *n, const char *set, const char *name, const dra_quantity *q, const dra_features *f)
{
    nq *x = nq_find(*v, *n, set, name);
    if (x) {
        dra_quantity sum;
        if (dra_quantity_add_rules(&sum, &x->q, q, dra_features_quantity_rules(f)))
            x->q = sum;
        return;
    }
    *v = dra_xgrow(*v, *n, sizeof **v);
    (*v)[(*n)++] = (nq){set, name, *q};
}

/* Every counter of the pool's shared counter sets, as published. */
static void counters_published(const pinfo *x, nq **v, size_t *n)
{
    for (size_t s = 0; s < x->nsets; s++) {
        size_t i;
        const json_t *cs;
        json_array_foreach(x->sets[s], i, cs) {
            const char *set = dra_jfield_str(cs, "name"), *name;
            const json_t *c;
            if (!set)
                continue;
            json_object_foreach((json_t *)json_object_get(cs, "counters"), name, c) {
                dra_quantity q = qty(c, x->features);
                if (!nq_find(*v, *n, set, name)) {
                    *v = dra_xgrow(*v, *n, sizeof **v);
                    (*v)[(*n)++] = (nq){set, name, q};
                }
            }
        }
    }
}

/* A device's counter cost (consumesCounters), parsed once. */
typedef struct pcost {
    nq *v;
    size_t n;
} pcost;

static pcost cost_parse(const json_t *dev, const dra_features *f)
{
    pcost c = {NULL, 0};
    size_t i;
    const json_t *cc;
    json_array_foreach(json_object_get(dev, "consumesCounters"), i, cc) {
        const char *name;
        const json_t *q;
        json_object_foreach((json_t *)json_object_get(cc, "counters"), name, q) {
            c.v = dra_xgrow(c.v, c.n, sizeof *c.v);
            c.v[c.n++] = (nq){dra_jfield_str(cc, "counterSet"), name, qty(q, f)};
        }
    }
    return c;
}

/* Whether a cost fits in avail (a counter it names that the pool does not
 * publish never fits). */
static bool cost_fits(const pcost *c, nq *avail, size_t n)
{
    for (size_t i = 0; i < c->n; i++) {
        const nq *have = c->v[i].set ? nq_find(avail, n, c->v[i].set, c->v[i].name) : NULL;
        if (!have || dra_quantity_cmp(&have->q, &c->v[i].q) < 0)
            return false;
    }
    return true;
}

/* Take a cost from avail (what is there of it), by f's release's rules
 * (Quantity.Sub). */
static void cost_take(const pcost *c, nq *avail, size_t n, const dra_features *f)
{
    for (size_t i = 0; i < c->n; i++) {
        nq *have = c->v[i].set ? nq_find(avail, n, c->v[i].set, c->v[i].name) : NULL;
        dra_quantity d;
        if (have && dra_quantity_sub_rules(&d, &have->q, &c->v[i].q, dra_features_quantity_rules(f)))
            have->q = d;
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A stable text of a cost ("set/counter=Q,..." sorted), to find partitions of
 * one type with different costs. */
static char *cost_key(const pcost *c)
{
    char **parts = dra_xcalloc(c->n + 1, sizeof *parts);
    for (size_t i = 0; i < c->n; i++) {
        char buf[DRA_QUANTITY_STRMAX];
        parts[i] = dra_xasprintf("%s/%s=%s", c->v[i].set ? c->v[i].set : "", c->v[i].name,
                                 dra_quantity_format(&c->v[i].q, buf));
    }
    if (c->n > 1)
        dra_sort(parts, c->n, sizeof *parts, cmp_str);
    dra_buf b = DRA_BUF_INIT;
    for (size_t k = 0; k < c->n; k++) {
        if (k)
            dra_buf_putc(&b, ',');
        dra_buf_puts(&b, parts[k]);
        free(parts[k]);
    }
    free(parts);
    return dra_buf_detach(&b);
}

/* The string value of attribute fqn on a device; an attribute in the driver's
 * domain may also be written bare (the qualified spelling wins). */
static const char *partition_type(const char *driver, const json_t *dev, const char *fqn)
{
    const json_t *attrs = json_object_get(dev, "attributes");
    const json_t *a = json_object_get(attrs, fqn);
    size_t dl = strlen(driver);
    if (!a && strncmp(fqn, driver, dl) == 0 && fqn[dl] == '/')
        a = json_object_get(attrs, fqn + dl + 1);
    return dra_jfield_str(a, "string");
}

/* One partition type: its devices, those not in use, and the one cost all
 * of them have (parsed from its first device). */
typedef struct pgroup {
    const char *attr, *type;
    int64_t total, nfresh;
    pcost cost;
    char *key;
} pgroup;

static int cmp_group(const void *a, const void *b)
{
    const pgroup *x = a, *y = b;
    int c = strcmp(x->attr, y->attr);
    return c ? c : strcmp(x->type, y->type);
}

static bool used(const pinfo *x, const json_t *dev)
{
    const char *n = dev_name(dev);
    intptr_t v;
    return n && dra_strmap_get(&x->in_use, n, strlen(n), &v);
}

/* partitionSummary (upstream computePartitionSummary): partitionable devices
 * grouped by (grouping attribute, partition type): how many there are and
 * how many more fit in the counters left after the devices in use, each type
 * measured alone.  NULL with *err set when the pool cannot be summarized. */
static json_t *partition_summary(const pinfo *x, const char *default_attr, char **err)
{
    bool declares = false;
    for (size_t i = 0; i < x->ndev && !declares; i++)
        declares = x->devs[i].attr != NULL;
    pgroup *g = NULL;
    size_t ng = 0;
    json_t *out = NULL;
    for (size_t i = 0; i < x->ndev && !*err; i++) {
        const json_t *dev = x->devs[i].dev;
        /* the slice's own attribute; the request's default only for a pool
         * where no slice declares one */
        const char *attr = x->devs[i].attr ? x->devs[i].attr : declares ? NULL : default_attr;
        if (!attr || !json_array_size(json_object_get(dev, "consumesCounters")))
            continue;
        const char *type = partition_type(x->driver, dev, attr);
        if (!type) {
            *err =
                dra_xasprintf("PartitionTypeMissing: device \"%s\" in pool %s/%s does not carry partition type "
                              "attribute \"%s\"",
                              dra_jfield_str(dev, "name") ? dra_jfield_str(dev, "name") : "", x->driver, x->pool, attr);
            break;
        }
        pgroup *p = NULL;
        for (size_t k = 0; k < ng && !p; k++)
            if (strcmp(g[k].attr, attr) == 0 && strcmp(g[k].type, type) == 0)
                p = &g[k];
        pcost cost = cost_parse(dev, x->features);
        char *key = cost_key(&cost);
        if (!p) {
            g = dra_xgrow(g, ng, sizeof *g);
            p = &g[ng++];
            *p = (pgroup){attr, type, 0, 0, cost, key};
            cost = (pcost){NULL, 0};
            key = NULL;
        } else if (strcmp(key, p->key) != 0) {
            *err = dra_xasprintf("PartitionCostMismatch: devices of partition type \"%s\" in pool %s/%s consume "
                                 "different counters",
                                 type, x->driver, x->pool);
        }
        free(key);
        free(cost.v);
        p->total++;
        if (!used(x, dev))
            p->nfresh++;
    }
    if (!*err && ng > MAX_STATUS_ITEMS)
        *err = dra_xasprintf("PartitionSummaryOverCap: pool %s/%s has %zu partition types, exceeding the maximum of %d",
                             x->driver, x->pool, ng, MAX_STATUS_ITEMS);
    if (!*err && ng) {
        /* the counters left after the devices in use (once per device, not per claim) */
        nq *base = NULL;
        size_t nb = 0;
        counters_published(x, &base, &nb);
        for (size_t i = 0; i < x->ndev; i++) {
            if (used(x, x->devs[i].dev)) {
                pcost c = cost_parse(x->devs[i].dev, x->features);
                cost_take(&c, base, nb, x->features);
                free(c.v);
            }
        }
        nq *avail = dra_xcalloc(nb + 1, sizeof *avail);
        dra_sort(g, ng, sizeof *g, cmp_group);
        out = json_array();
        for (size_t k = 0; k < ng; k++) {
            /* every fresh device of the type has the group's cost */
            memcpy(avail, base, nb * sizeof *avail);
            int64_t fit = 0;
            for (int64_t i = 0; i < g[k].nfresh && cost_fits(&g[k].cost, avail, nb); i++) {
                fit++;
                cost_take(&g[k].cost, avail, nb, x->features);
            }
            json_array_append_new(out, json_pack("{s:s,s:s,s:I,s:I}", "attribute", g[k].attr, "type", g[k].type,
                                                 "total", (json_int_t)g[k].total, "allocatable", (json_int_t)fit));
        }
        free(avail);
        free(base);
    }
    for (size_t k = 0; k < ng; k++) {
        free(g[k].cost.v);
        free(g[k].key);
    }
    free(g);
    return out;
}

static int cmp_nq(const void *a, const void *b)
{
    return strcmp(((const nq *)a)->name, ((const nq *)b)->name);
}

/* shareableSummary (upstream computeShareableSummary): for a pool with
 * devices that allow multiple allocations, how many are untouched and how
 * many partly used, and per capacity the total over them, what claims
 * consume and what is left (never below zero).  NULL when the pool has no
 * such device, or with *err set over the list cap. */
static json_t *shareable_summary(const pinfo *x, char **err)
{
    int64_t full = 0, partial = 0;
    bool any = false;
    nq *total = NULL;
    size_t nt = 0;
    for (size_t i = 0; i < x->ndev; i++) {
        const json_t *dev = x->devs[i].dev;
        if (!json_is_true(json_object_get(dev, "allowMultipleAllocations")))
            continue;
        any = true;
        if (used(x, dev))
            partial++;
        else
            full++;
        const char *name;
        const json_t *c;
        json_object_foreach((json_t *)json_object_get(dev, "capacity"), name, c) {
            dra_quantity q = qty(c, x->features);
            nq_add(&total, &nt, NULL, name, &q, x->features);
        }
    }
    json_t *out = NULL;
    if (any && nt > MAX_STATUS_ITEMS) {
        *err = dra_xasprintf("ShareableSummaryOverCap: pool %s/%s has %zu shareable capacity keys, exceeding the "
                             "maximum of %d",
                             x->driver, x->pool, nt, MAX_STATUS_ITEMS);
    } else if (any) {
        if (nt > 1)
            dra_sort(total, nt, sizeof *total, cmp_nq);
        json_t *caps = json_array();
        for (size_t k = 0; k < nt; k++) {
            const nq *cons = nq_find(x->consumed, x->nconsumed, NULL, total[k].name);
            dra_quantity zero = dra_quantity_from_int64(0, total[k].q.format), left;
            dra_quantity c = cons ? cons->q : zero;
            if (!dra_quantity_sub_rules(&left, &total[k].q, &c, dra_features_quantity_rules(x->features)) ||
                dra_quantity_sign(&left) < 0)
                left = zero;
            char b1[DRA_QUANTITY_STRMAX], b2[DRA_QUANTITY_STRMAX], b3[DRA_QUANTITY_STRMAX];
            json_array_append_new(caps,
                                  json_pack("{s:s,s:s,s:s,s:s}", "name", total[k].name, "total",
                                            dra_quantity_format(&total[k].q, b1), "consumed",
                                            dra_quantity_format(&c, b2), "available", dra_quantity_format(&left, b3)));
        }
        out = json_pack("{s:I,s:I}", "fullyAvailableDevices", (json_int_t)full, "partiallyAvailableDevices",
                        (json_int_t)partial);
        if (nt)
            json_object_set_new(out, "capacity", caps);
        else
            json_decref(caps);
    }
    free(total);
    return out;
}

/* The devices in use of every pool of the request's driver (admin access
 * excluded: observers, not consumers) and their consumed capacity, in one
 * pass over the claims; and every result naming the pool. */
static void mark_in_use(const dra_compact *claims, const char *driver, pinfo *pools, const dra_strmap *index)
{
    for (size_t c = 0; c < claims->nclaims; c++) {
        const dra_claim_rec *cl = claims->claims[c];
        for (uint32_t i = 0; i < cl->nresults; i++) {
            const dra_rec_result *r = &cl->results[i];
            const char *d = r->driver, *p = r->pool, *dev = r->device;
            intptr_t k;
            if (!d || !p || strcmp(d, driver) != 0 || !dra_strmap_get(index, p, strlen(p), &k))
                continue;
            pinfo *x = &pools[k];
            x->results++;
            if (r->admin_access || !dev)
                continue;
            dra_strmap_put(&x->in_use, dev, strlen(dev), 1);
            const char *name;
            const json_t *q;
            json_object_foreach(r->consumed, name, q) {
                dra_quantity v = qty(q, x->features);
                nq_add(&x->consumed, &x->nconsumed, NULL, name, &v, x->features);
            }
        }
    }
}

json_t *dra_pool_status(const dra_model *m, const json_t *request, const dra_features *features, int64_t now)
{
    dra_compact own = DRA_COMPACT_INIT;
    const dra_model_list *cl = dra_model_kind(m, DRA_KIND_RESOURCE_CLAIM);
    for (size_t i = 0; i < cl->n; i++)
        dra_compact_claim(&own, cl->v[i]->json);
    json_t *st = dra_pool_status_of(m, &own, NULL, request, features, now);
    dra_compact_free(&own);
    return st;
}

/* The ResourceSlices: the model's, or those kept by dra_pool_slice_keep. */
typedef struct slices {
    const dra_model_list *model; /* NULL: kept */
    const json_t *kept;
    size_t n;
} slices;

static const json_t *slice_at(const slices *sl, size_t i)
{
    return sl->model ? sl->model->v[i]->json : json_array_get(sl->kept, i);
}

/* A slice of the request's driver (and pool, when it names one): its pool
 * object and name; NULL for any other. */
static const json_t *slice_pool(const json_t *ss, const char *driver, const char *filter, const char **pool)
{
    const json_t *pj = json_object_get(ss, "pool");
    const char *d = dra_jfield_str(ss, "driver"), *p = dra_jfield_str(pj, "name");
    if (!d || !p || strcmp(d, driver) != 0 || (filter && strcmp(p, filter) != 0))
        return NULL;
    *pool = p;
    return pj;
}

/* Pass 1: the pools of the driver's slices (filter: only that pool) and
 * the newest generation of each; index maps a pool name to its place. */
static size_t newest_generations(const slices *sl, const char *driver, const char *filter, pinfo *pools,
                                 dra_strmap *index)
{
    size_t np = 0;
    for (size_t i = 0; i < sl->n; i++) {
        const json_t *ss = json_object_get(slice_at(sl, i), "spec");
        const char *p;
        const json_t *pj = slice_pool(ss, driver, filter, &p);
        if (!pj)
            continue;
        int64_t gen = json_integer_value(json_object_get(pj, "generation"));
        intptr_t k;
        if (!dra_strmap_get(index, p, strlen(p), &k)) {
            dra_strmap_put(index, p, strlen(p), (intptr_t)np);
            pools[np++] = (pinfo){.driver = dra_jfield_str(ss, "driver"), .pool = p, .generation = gen};
        } else if (gen > pools[k].generation) {
            pools[k].generation = gen;
        }
    }
    return np;
}

/* Pass 2: the slices of each pool's newest generation, their devices and
 * counter sets. */
static void gather_slices(const slices *sl, const char *driver, const dra_model_list *rules, pinfo *pools,
                          const dra_strmap *index)
{
    for (size_t i = 0; i < sl->n; i++) {
        const json_t *ss = json_object_get(slice_at(sl, i), "spec");
        const char *p;
        const json_t *pj = slice_pool(ss, driver, NULL, &p);
        intptr_t k;
        if (!pj || !dra_strmap_get(index, p, strlen(p), &k))
            continue;
        pinfo *x = &pools[k];
        if (json_integer_value(json_object_get(pj, "generation")) < x->generation)
            continue;
        const char *node = dra_jfield_str(ss, "nodeName") ? dra_jfield_str(ss, "nodeName") : "";
        if (x->tally.n == 0) {
            x->node = node;
            /* the controller compares with the first slice listed */
            dra_pool_tally_init(&x->tally, x->generation, DRA_POOL_FIRST_ADDED);
        } else if (strcmp(node, x->node) != 0) {
            x->node_mixed = true;
        }
        dra_pool_tally_add(&x->tally, x->generation, json_integer_value(json_object_get(pj, "resourceSliceCount")),
                           true);
        const char *attr = dra_jfield_str(ss, "partitionTypeAttribute");
        const json_t *sets = json_object_get(ss, "sharedCounters");
        if (json_array_size(sets)) {
            x->sets = dra_xgrow(x->sets, x->nsets, sizeof *x->sets);
            x->sets[x->nsets++] = sets;
        }
        size_t j;
        const json_t *dev;
        json_array_foreach(json_object_get(ss, "devices"), j, dev) {
            x->total++;
            if (device_unavailable(x->driver, p, dev, rules))
                x->unavailable++;
            x->devs = dra_xgrow(x->devs, x->ndev, sizeof *x->devs);
            x->devs[x->ndev++] = (pdev){dev, attr && *attr ? attr : NULL};
        }
    }
}

/* The views of 1.37 on a complete pool, set on o; the counts stay valid
 * when a view fails.  Grouped: some device has a grouping attribute, its
 * slice's or, where no slice declares one, the request's for every device
 * (upstream resolveDevicePartitions, computePoolViews).  The first view's
 * error in *verr (the caller frees it). */
static void pool_views(const pinfo *x, const char *default_attr, json_t *o, char **verr)
{
    bool grouped = false;
    for (size_t k = 0; k < x->ndev && !grouped; k++)
        grouped = x->devs[k].attr != NULL;
    if (!grouped && default_attr)
        grouped = x->ndev > 0;
    json_t *parts = NULL;
    if (grouped && !x->nsets)
        *verr = dra_xasprintf("PartitionTypeMissing: pool %s/%s declares partitionTypeAttribute but publishes "
                              "no sharedCounters",
                              x->driver, x->pool);
    else if (grouped)
        parts = partition_summary(x, default_attr, verr);
    char *serr = NULL;
    json_t *share = shareable_summary(x, &serr);
    if (!*verr)
        *verr = serr, serr = NULL;
    free(serr);
    if (parts && !*verr && json_array_size(parts))
        json_object_set(o, "partitionSummary", parts);
    json_decref(parts);
    if (share)
        json_object_set_new(o, "shareableSummary", share);
}

/* One pool of status.pools; *invalid when it carries a validationError.
 * v136: as 1.36's controller, every result counted, no unavailable device,
 * no prefix and no views. */
static json_t *pool_entry(const pinfo *x, const char *default_attr, bool v136, bool *invalid)
{
    json_t *o = json_object();
    json_object_set_new(o, "driver", json_string(x->driver));
    json_object_set_new(o, "poolName", json_string(x->pool));
    if (x->node && *x->node && !x->node_mixed)
        json_object_set_new(o, "nodeName", json_string(x->node));
    json_object_set_new(o, "generation", json_integer(x->generation));
    char *verr = NULL;
    if (dra_pool_tally_short(&x->tally)) {
        verr = dra_xasprintf("%spool %s/%s is incomplete: observed %zu/%lld slices at generation %lld",
                             v136 ? "" : "PoolIncomplete: ", x->driver, x->pool, x->tally.n, (long long)x->tally.want,
                             (long long)x->generation);
    } else {
        int64_t alloc = v136 ? x->results : (int64_t)x->in_use.n, unavailable = v136 ? 0 : x->unavailable;
        int64_t avail = x->total - alloc - unavailable;
        json_object_set_new(o, "resourceSliceCount", json_integer((json_int_t)x->tally.n));
        json_object_set_new(o, "totalDevices", json_integer(x->total));
        json_object_set_new(o, "allocatedDevices", json_integer(alloc));
        json_object_set_new(o, "availableDevices", json_integer(avail > 0 ? avail : 0));
        json_object_set_new(o, "unavailableDevices", json_integer(unavailable));
        if (!v136)
            pool_views(x, default_attr, o, &verr);
    }
    *invalid = verr != NULL;
    if (verr) {
        if (strlen(verr) > 256)
            verr[256] = 0;
        json_object_set_new(o, "validationError", json_string(verr));
        free(verr);
    }
    return o;
}

/* The status: np pools found, the first shown of them in arr (taken),
 * incomplete of those with a validationError (upstream counts each). */
static json_t *status_of(size_t np, size_t shown, size_t incomplete, json_t *arr, int64_t now)
{
    char *msg = incomplete ? dra_xasprintf("Calculated status for %zu pools (%zu incomplete)", shown, incomplete)
                           : dra_xasprintf("Calculated status for %zu pools", shown);
    char *when = dra_time_format((dra_time){now, 0});
    json_t *status = json_object();
    json_object_set_new(status, "poolCount", json_integer((json_int_t)np));
    if (shown)
        json_object_set_new(status, "pools", arr);
    else
        json_decref(arr);
    json_object_set_new(status, "conditions",
                        json_pack("[{s:s,s:s,s:s,s:s,s:s}]", "type", "Complete", "status", "True", "lastTransitionTime",
                                  when, "reason", "CalculationComplete", "message", msg));
    free(when);
    free(msg);
    return status;
}

json_t *dra_pool_status_of(const dra_model *m, const dra_compact *claims, const json_t *kept, const json_t *request,
                           const dra_features *features, int64_t now)
{
    const json_t *spec = json_object_get(request, "spec");
    const char *driver = dra_jfield_str(spec, "driver") ? dra_jfield_str(spec, "driver") : "";
    const char *filter = dra_jfield_str(spec, "poolName");
    const char *default_attr = dra_jfield_str(spec, "defaultPartitionTypeAttribute");
    if (filter && !*filter)
        filter = NULL;
    if (default_attr && !*default_attr)
        default_attr = NULL;
    int64_t limit = DRA_POOL_STATUS_LIMIT_DEFAULT;
    if (json_is_integer(json_object_get(spec, "limit")))
        limit = json_integer_value(json_object_get(spec, "limit"));
    slices sl = {kept ? NULL : dra_model_kind(m, DRA_KIND_RESOURCE_SLICE), kept, 0};
    sl.n = kept ? json_array_size(kept) : sl.model->n;
    bool v136 = dra_features_release_of(features) <= DRA_RELEASE_1_36;
    const dra_model_list *rules = !v136 && dra_feature_enabled(features, DRA_FEATURE_DEVICE_TAINT_RULES)
                                      ? dra_model_kind(m, DRA_KIND_DEVICE_TAINT_RULE)
                                      : NULL;
    pinfo *pools = dra_xcalloc(sl.n + 1, sizeof *pools);
    dra_strmap index = {0}; /* pool name -> index in pools */
    size_t np = newest_generations(&sl, driver, filter, pools, &index);
    for (size_t i = 0; i < np; i++)
        pools[i].features = features;
    gather_slices(&sl, driver, rules, pools, &index);
    mark_in_use(claims, driver, pools, &index);
    dra_strmap_free(&index);
    dra_sort(pools, np, sizeof *pools, cmp_pool);
    size_t shown = (int64_t)np > limit ? (size_t)(limit > 0 ? limit : 0) : np;
    json_t *arr = json_array();
    size_t incomplete = 0;
    for (size_t i = 0; i < shown; i++) {
        bool invalid;
        json_array_append_new(arr, pool_entry(&pools[i], default_attr, v136, &invalid));
        incomplete += invalid;
    }
    json_t *status = status_of(np, shown, incomplete, arr, now);
    for (size_t i = 0; i < np; i++) {
        free(pools[i].devs);
        free(pools[i].sets);
        free(pools[i].consumed);
        dra_strmap_free(&pools[i].in_use);
    }
    free(pools);
    return status;
}

/* The fields of v that are set, copied into o. */
static void copy_fields(json_t *o, const json_t *v, const char *const *names)
{
    for (size_t i = 0; names[i]; i++) {
        json_t *f = json_object_get(v, names[i]);
        if (f)
            json_object_set_new(o, names[i], json_deep_copy(f));
    }
}

/* What the status reads of a device: its name alone when that is all it
 * reads (no taints, counters or multiple allocations), else the fields it
 * reads (attributes only for a partition, capacity only for a shareable
 * device). */
static json_t *device_kept(const json_t *dev)
{
    const json_t *name = json_object_get(dev, "name");
    bool parts = json_array_size(json_object_get(dev, "consumesCounters")) > 0;
    bool multi = json_is_true(json_object_get(dev, "allowMultipleAllocations"));
    if (json_is_string(name) && !parts && !multi && !json_object_get(dev, "taints"))
        return json_string(json_string_value(name));
    static const char *const always[] = {"name", "taints", "consumesCounters", "allowMultipleAllocations", NULL};
    static const char *const part[] = {"attributes", NULL}, *const share[] = {"capacity", NULL};
    json_t *o = json_object();
    copy_fields(o, dev, always);
    if (parts)
        copy_fields(o, dev, part);
    if (multi)
        copy_fields(o, dev, share);
    return o;
}

void dra_pool_slice_keep(json_t *kept, const json_t *slice)
{
    static const char *const fields[] = {"driver",         "pool", "nodeName", "partitionTypeAttribute",
                                         "sharedCounters", NULL};
    const json_t *ss = json_object_get(slice, "spec");
    json_t *spec = json_object(), *devs = json_array();
    copy_fields(spec, ss, fields);
    size_t i;
    const json_t *dev;
    json_array_foreach(json_object_get(ss, "devices"), i, dev)
        json_array_append_new(devs, device_kept(dev));
    json_object_set_new(spec, "devices", devs);
    json_array_append_new(kept, json_pack("{s:o}", "spec", spec));
}

json_t *dra_pool_status_request_new(const char *driver, const char *pool, long long limit)
{
    json_t *req = json_pack("{s:s,s:s,s:{s:s},s:{s:s}}", "apiVersion", "resource.k8s.io/v1alpha3", "kind",
                            "ResourcePoolStatusRequest", "metadata", "name", driver, "spec", "driver", driver);
    json_t *spec = json_object_get(req, "spec");
    if (pool)
        json_object_set_new(spec, "poolName", json_string(pool));
    if (limit)
        json_object_set_new(spec, "limit", json_integer(limit));
    return req;
}

dra_err *dra_pool_status_write(dra_writer *w, const dra_model *m, const dra_compact *claims, const json_t *kept,
                               const char *only_file, const dra_features *features, int64_t now)
{
    const dra_model_list *reqs = dra_model_kind(m, DRA_KIND_RESOURCE_POOL_STATUS_REQUEST);
    if (reqs->n == 0)
        return dra_err_hint(dra_err_new(DRA_EXIT_INPUT, "no ResourcePoolStatusRequest in the input"), "driver");
    dra_err *e = NULL;
    for (size_t i = 0; i < reqs->n && !e; i++) {
        if (only_file && (!reqs->v[i]->file || strcmp(reqs->v[i]->file, only_file) != 0))
            continue;
        json_t *out = json_deep_copy(reqs->v[i]->json);
        if (dra_features_release_of(features) <= DRA_RELEASE_1_36) /* k8s.io/api v0.36.3 has no such field */
            json_object_del(json_object_get(out, "spec"), "defaultPartitionTypeAttribute");
        const json_t *st = json_object_get(out, "status");
        if (!st || json_is_null(st))
            json_object_set_new(out, "status",
                                claims ? dra_pool_status_of(m, claims, kept, out, features, now)
                                       : dra_pool_status(m, out, features, now));
        e = dra_writer_put(w, out);
        json_decref(out);
    }
    return e;
}
