/* Pool-level lint (see lint.h). */
#include "lint.h"
#include "build.h"
#include "../base/hash.h"

#include "../model/convert.h"
#include "../model/kinds.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../model/pools.h"
#include "../model/strict.h"
#include "../model/quantity.h"
#include "../model/validate.h"
#include "../base/sort.h"

typedef struct member {
    const dra_obj *obj;
    long long generation;
    /* pool is an object, its generation and resourceSliceCount integers
     * (or absent, 0): a slice the API server could decode; one it could
     * not is no part of its pool (its checks say why) */
    bool decodes;
} member;

typedef struct pool {
    const char *driver, *name;
    member *m;
    size_t n;
} pool;

static void add_problem(dra_lint_report *r, bool warning, const pool *p, const dra_obj *o, const char *fmt, ...)
    DRA_PRINTF(5, 6);

static void add_problem(dra_lint_report *r, bool warning, const pool *p, const dra_obj *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = dra_xvasprintf(fmt, ap);
    va_end(ap);
    *dra_problems_add(r) = (dra_problem){
        .warning = warning,
        .scope = dra_xasprintf("%s/%s", p->driver, p->name),
        .object = o ? dra_obj_ref(o->json) : NULL,
        .file = o ? o->file : NULL,
        .line = o ? o->line : 0,
        .msg = msg,
    };
}

static const json_t *spec_of(const dra_obj *o)
{
    return json_object_get(o->json, "spec");
}

static const char *str_or(const json_t *v, const char *dflt)
{
    return json_is_string(v) ? json_string_value(v) : dflt;
}

static int cmp_pool(const void *a, const void *b)
{
    const pool *x = a, *y = b;
    int c = strcmp(x->driver, y->driver);
    return c ? c : strcmp(x->name, y->name);
}

/* Names seen so far: dra_strmap (base/hash.h); returns the object that
 * already had key, or NULL after adding it. */
static const dra_obj *seen_put(dra_strmap *m, const char *key, const dra_obj *o)
{
    intptr_t old;
    return dra_strmap_add(m, key, strlen(key), (intptr_t)o, &old) ? (const dra_obj *)old : NULL;
}

static const json_t *find_counter_set(const member *newest, size_t nnewest, const char *name)
{
    for (size_t i = 0; i < nnewest; i++) {
        size_t k;
        const json_t *set;
        json_array_foreach(json_object_get(spec_of(newest[i].obj), "sharedCounters"), k, set) {
            const char *n = json_string_value(json_object_get(set, "name"));
            if (n && strcmp(n, name) == 0)
                return set;
        }
    }
    return NULL;
}

static bool parse_q(const json_t *v, const dra_features *f, dra_quantity *q)
{
    const char *s = json_string_value(json_object_get(v, "value"));
    if (!s)
        return false;
    dra_err *e = dra_quantity_parse_as(f, s, q);
    dra_err_free(e);
    return e == NULL;
}

/* Sorted, comma-separated attribute names of a device; caller frees. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}
static char *attr_signature(const json_t *device)
{
    const json_t *attrs = json_object_get(device, "attributes");
    if (json_is_string(attrs)) /* kept by dra_lint_keep: the signature itself */
        return dra_xstrdup(json_string_value(attrs));
    size_t n = json_object_size(attrs), i = 0;
    const char **keys = dra_xmalloc((n + 1) * sizeof *keys);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)attrs, k, v)
        keys[i++] = k;
    dra_sort(keys, n, sizeof *keys, cmp_str);
    size_t len = 1;
    for (i = 0; i < n; i++)
        len += strlen(keys[i]) + 1;
    char *sig = dra_xmalloc(len);
    sig[0] = '\0';
    for (i = 0; i < n; i++) {
        if (i)
            strcat(sig, ",");
        strcat(sig, keys[i]);
    }
    free(keys);
    return sig;
}

/* "missing a, b; extra c" between two signatures; caller frees. */
static char *signature_diff(const char *want, const char *have)
{
    char *missing = dra_xstrdup(""), *extra = dra_xstrdup("");
    for (int pass = 0; pass < 2; pass++) {
        const char *from = pass ? have : want, *other = pass ? want : have;
        char **acc = pass ? &extra : &missing;
        char *copy = dra_xstrdup(from), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            bool found = false;
            char *o2 = dra_xstrdup(other), *save2 = NULL;
            for (char *t2 = strtok_r(o2, ",", &save2); t2 && !found; t2 = strtok_r(NULL, ",", &save2))
                found = strcmp(tok, t2) == 0;
            free(o2);
            if (!found) {
                char *next = dra_xasprintf("%s%s%s", *acc, **acc ? ", " : "", tok);
                free(*acc);
                *acc = next;
            }
        }
        free(copy);
    }
    char *out = dra_xasprintf("%s%s%s%s%s", *missing ? "missing " : "", missing, *missing && *extra ? "; " : "",
                              *extra ? "extra " : "", extra);
    free(missing);
    free(extra);
    return out;
}

/* The pool's slices that decode, compared by generation as the allocator
 * does (negative ones, which validation refuses, too); nothing when none
 * decodes. */
static void lint_pool(dra_lint_report *r, pool *p, const dra_features *f)
{
    size_t lead = 0;
    while (lead < p->n && !p->m[lead].decodes)
        lead++;
    if (lead == p->n)
        return;
    long long maxgen = p->m[lead].generation;
    for (size_t i = lead; i < p->n; i++)
        if (p->m[i].decodes && p->m[i].generation > maxgen)
            maxgen = p->m[i].generation;
    member *newest = dra_xmalloc(p->n * sizeof *newest);
    size_t nnewest = 0;
    for (size_t i = lead; i < p->n; i++) {
        if (!p->m[i].decodes)
            continue;
        if (p->m[i].generation < maxgen)
            add_problem(r, false, p, p->m[i].obj, "obsolete: generation %lld, the pool is at generation %lld",
                        p->m[i].generation, maxgen);
        else
            newest[nnewest++] = p->m[i];
    }

    /* Completeness, as the allocator counts it: slices at the newest
     * generation against the first slice's resourceSliceCount. */
    json_int_t count =
        json_integer_value(json_object_get(json_object_get(spec_of(newest[0].obj), "pool"), "resourceSliceCount"));
    for (size_t i = 1; i < nnewest; i++) {
        json_int_t c =
            json_integer_value(json_object_get(json_object_get(spec_of(newest[i].obj), "pool"), "resourceSliceCount"));
        if (c != count) {
            char *first = dra_obj_ref(newest[0].obj->json);
            add_problem(r, false, p, newest[i].obj, "resourceSliceCount %lld differs from %lld in %s", (long long)c,
                        (long long)count, first);
            free(first);
        }
    }
    if ((json_int_t)nnewest < count)
        add_problem(r, false, p, NULL, "incomplete: %zu of %lld slices at generation %lld", nnewest, (long long)count,
                    maxgen);
    else if ((json_int_t)nnewest > count && count > 0)
        add_problem(r, false, p, NULL, "%zu slices at generation %lld, but resourceSliceCount is %lld", nnewest, maxgen,
                    (long long)count);

    /* Names must be unique across the pool. */
    size_t ndev = 0, nsets = 0;
    for (size_t i = 0; i < nnewest; i++) {
        ndev += json_array_size(json_object_get(spec_of(newest[i].obj), "devices"));
        nsets += json_array_size(json_object_get(spec_of(newest[i].obj), "sharedCounters"));
    }
    dra_strmap sets = {0}, devs = {0};
    dra_strmap_reserve(&sets, nsets);
    dra_strmap_reserve(&devs, ndev);
    for (size_t i = 0; i < nnewest; i++) {
        size_t k;
        const json_t *v;
        json_array_foreach(json_object_get(spec_of(newest[i].obj), "sharedCounters"), k, v) {
            const char *n = json_string_value(json_object_get(v, "name"));
            if (n && seen_put(&sets, n, newest[i].obj))
                add_problem(r, false, p, newest[i].obj, "duplicate counter set name %s", n);
        }
    }
    char *ref_sig = NULL;
    const char *ref_dev = NULL;
    typedef struct sig_group {
        char *sig;
        const char *first;
        size_t n;
    } sig_group;
    sig_group *groups = NULL;
    size_t ngroups = 0;
    for (size_t i = 0; i < nnewest; i++) {
        const dra_obj *o = newest[i].obj;
        size_t k;
        const json_t *dev;
        json_array_foreach(json_object_get(spec_of(o), "devices"), k, dev) {
            const char *dn = json_string_value(json_object_get(dev, "name"));
            if (!dn)
                continue;
            if (seen_put(&devs, dn, o))
                add_problem(r, false, p, o, "duplicate device name %s", dn);
            size_t u;
            const json_t *use;
            json_array_foreach(json_object_get(dev, "consumesCounters"), u, use) {
                const char *sn = json_string_value(json_object_get(use, "counterSet"));
                if (!sn)
                    continue;
                const json_t *set = find_counter_set(newest, nnewest, sn);
                if (!set) {
                    add_problem(r, false, p, o, "device %s: counter set %s not found", dn, sn);
                    continue;
                }
                const char *cn;
                const json_t *c;
                json_object_foreach((json_t *)json_object_get(use, "counters"), cn, c) {
                    const json_t *have = json_object_get(json_object_get(set, "counters"), cn);
                    if (!have) {
                        add_problem(r, false, p, o, "device %s: counter %s not found in counter set %s", dn, cn, sn);
                        continue;
                    }
                    dra_quantity want_q, have_q;
                    if (parse_q(c, f, &want_q) && parse_q(have, f, &have_q) && dra_quantity_cmp(&want_q, &have_q) > 0)
                        add_problem(r, false, p, o,
                                    "device %s: consumes %s of counter %s in counter set %s, which has only %s: the "
                                    "device can never be allocated",
                                    dn, json_string_value(json_object_get(c, "value")), cn, sn,
                                    json_string_value(json_object_get(have, "value")));
                }
            }
            /* Group devices by their attribute names for the warning below. */
            char *sig = attr_signature(dev);
            size_t g = 0;
            while (g < ngroups && strcmp(groups[g].sig, sig) != 0)
                g++;
            if (g == ngroups) {
                groups = dra_xgrow(groups, ngroups, sizeof *groups);
                groups[ngroups++] = (sig_group){sig, dn, 0};
            } else {
                free(sig);
            }
            groups[g].n++;
        }
    }
    if (ngroups > 1) {
        ref_sig = groups[0].sig;
        ref_dev = groups[0].first;
        for (size_t g = 1; g < ngroups; g++) {
            char *diff = signature_diff(ref_sig, groups[g].sig);
            if (groups[g].n > 1)
                add_problem(r, true, p, NULL, "attribute names differ: device %s and %zu more: %s (compared with %s)",
                            groups[g].first, groups[g].n - 1, diff, ref_dev);
            else
                add_problem(r, true, p, NULL, "attribute names differ: device %s: %s (compared with %s)",
                            groups[g].first, diff, ref_dev);
            free(diff);
        }
    }
    for (size_t g = 0; g < ngroups; g++)
        free(groups[g].sig);
    free(groups);
    dra_strmap_free(&sets);
    dra_strmap_free(&devs);
    free(newest);
}

/* A ResourceSlice of any version of resource.k8s.io (kind alone is not
 * enough: a "ResourceSlice" of another group is someone else's object). */
static bool is_slice(const json_t *obj, dra_apiver *ver)
{
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    dra_kind k;
    return av && kind && dra_kind_lookup(av, kind, &k, ver) && k == DRA_KIND_RESOURCE_SLICE;
}

/* A slice's own checks, as the cluster sees it: its unknown fields as the
 * set's field validation says (strict: problems; warn: warnings added to
 * the set), then an older version converted to v1 in place (v1beta1 keeps
 * a device's fields under `basic`), then its shape and limits. */
static dra_err *slice_checks(dra_objset *set, const dra_obj *o, dra_apiver ver, const dra_features *features)
{
    dra_validate_opts vo = {.features = features};
    dra_err *w = NULL;
    dra_err *e = dra_strict_check(o->json, DRA_KIND_RESOURCE_SLICE, ver, set->field_validation, &w, o);
    set->warnings = dra_err_append(set->warnings, dra_obj_locate(w, o));
    e = dra_err_append(e, dra_convert_to_v1(o->json, DRA_KIND_RESOURCE_SLICE, ver));
    return dra_err_append(e, dra_validate_resource_slice(o->json, &vo));
}

/* Lint's answer for an object that is not a ResourceSlice: its error, or
 * NULL when it is skipped.  A dump of everything: lint what is a slice; but
 * an object without kind, or a kind of the DRA group we do not know (maybe a
 * slice with a typo), is an input error, as is one without apiVersion. */
static dra_err *not_a_slice(const json_t *obj)
{
    if (!json_string_value(json_object_get(obj, "kind")))
        return dra_err_field(dra_err_new(DRA_EXIT_INPUT, "expected a ResourceSlice, got an object without kind"),
                             "kind");
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    dra_kind k;
    dra_apiver v;
    if (av && strncmp(av, "resource.k8s.io/", 16) != 0)
        return NULL;
    return dra_kind_of(obj, &k, &v); /* no apiVersion: "Required value", as the loader says */
}

static dra_err *lint_set(const dra_objset *set, dra_err *const *checks, dra_err *const *notes, const dra_features *f,
                         dra_lint_report *out, size_t *skipped)
{
    size_t nskipped = 0;
    *out = (dra_lint_report)DRA_LINT_REPORT_INIT;
    dra_err *errs = NULL;
    dra_pool_index idx = {0};
    for (size_t i = 0; i < set->n; i++) {
        const dra_obj *o = &set->v[i];
        dra_apiver ver;
        if (!is_slice(o->json, &ver)) {
            dra_err *e = not_a_slice(o->json);
            if (e)
                errs = dra_err_append(errs, dra_obj_locate(e, o));
            else
                nskipped++;
            continue;
        }
        const json_t *spec = spec_of(o);
        const char *driver = str_or(json_object_get(spec, "driver"), "");
        const char *name = str_or(json_object_get(json_object_get(spec, "pool"), "name"), "");
        dra_pool_index_add(&idx, driver, name,
                           json_integer_value(json_object_get(json_object_get(spec, "pool"), "generation")), i);
    }
    /* the pools, their slices in input order */
    pool *pools = dra_xcalloc(idx.n ? idx.n : 1, sizeof *pools);
    size_t npools = idx.n;
    for (size_t k = 0; k < npools; k++) {
        const dra_pool *ip = &idx.v[k];
        pools[k] = (pool){ip->driver, ip->name, dra_xcalloc(ip->n, sizeof *pools[k].m), ip->n};
        for (size_t j = 0; j < ip->n; j++) {
            const dra_obj *o = &set->v[ip->slices[j]];
            const json_t *pl = json_object_get(spec_of(o), "pool");
            const json_t *gen = json_object_get(pl, "generation"), *count = json_object_get(pl, "resourceSliceCount");
            pools[k].m[j] = (member){o, json_integer_value(gen),
                                     (!pl || json_is_object(pl)) && (!gen || json_is_integer(gen)) &&
                                         (!count || json_is_integer(count))};
        }
    }
    dra_pool_index_free(&idx);
    if (skipped)
        *skipped = nskipped;
    if (errs) {
        for (size_t k = 0; k < npools; k++)
            free(pools[k].m);
        free(pools);
        return errs;
    }
    if (npools) /* qsort's base must not be NULL, even for no elements */
        dra_sort(pools, npools, sizeof *pools, cmp_pool);
    for (size_t k = 0; k < npools; k++) {
        /* Shape and limits of each slice first. */
        for (size_t i = 0; i < pools[k].n; i++) {
            const dra_obj *o = pools[k].m[i].obj;
            for (const dra_err *x = checks[o - set->v]; x; x = x->next)
                add_problem(out, false, &pools[k], o, "%s%s%s", x->field ? x->field : "", x->field ? ": " : "", x->msg);
            for (const dra_err *x = notes ? notes[o - set->v] : NULL; x; x = x->next)
                add_problem(out, true, &pools[k], o, "%s%s%s", x->field ? x->field : "", x->field ? ": " : "", x->msg);
        }
        lint_pool(out, &pools[k], f);
        free(pools[k].m);
    }
    free(pools);
    return NULL;
}

dra_err *dra_slice_lint(dra_objset *set, dra_lint_report *out, size_t *skipped)
{
    dra_err **checks = dra_xcalloc(set->n ? set->n : 1, sizeof *checks);
    dra_apiver ver;
    for (size_t i = 0; i < set->n; i++)
        if (is_slice(set->v[i].json, &ver))
            checks[i] = slice_checks(set, &set->v[i], ver, NULL);
    dra_err *e = lint_set(set, checks, NULL, NULL, out, skipped);
    for (size_t i = 0; i < set->n; i++)
        dra_err_free(checks[i]);
    free(checks);
    return e;
}

/* ---- reading for lint ---- */

static void keep_names_only(dra_lint_kept *k, json_t *dev)
{
    json_object_del(dev, "capacity");
    if (!json_object_get(dev, "attributes"))
        return;
    char *sig = attr_signature(dev);
    size_t len = strlen(sig);
    intptr_t v;
    json_t *shared;
    if (dra_strmap_get(&k->sigs, sig, len, &v)) {
        shared = (json_t *)v;
        free(sig);
    } else {
        shared = json_stringn(sig, len); /* the map's reference; its text is the key */
        free(sig);
        dra_strmap_put(&k->sigs, json_string_value(shared), len, (intptr_t)shared);
    }
    json_object_set(dev, "attributes", shared);
}

/* A slice's names qualified with its driver's domain (1.38 on, unless
 * allowed), each error's field under spec.devices[i]. */
static dra_err *qualified_names(const dra_lint_kept *k, const json_t *slice)
{
    if (k->qualified_names || dra_features_release_of(k->features) < DRA_RELEASE_1_38)
        return NULL;
    const json_t *spec = json_object_get(slice, "spec");
    const char *driver = json_string_value(json_object_get(spec, "driver"));
    const char *pool_name = str_or(json_object_get(json_object_get(spec, "pool"), "name"), "");
    dra_err *e = NULL;
    size_t i;
    const json_t *dev;
    json_array_foreach(json_object_get(spec, "devices"), i, dev) {
        if (!driver || !json_is_object(dev))
            continue;
        char prefix[48];
        snprintf(prefix, sizeof prefix, "spec.devices[%zu]", i);
        e = dra_err_append(e, dra_slice_err_prefix(dra_slice_unqualified_names(dev, driver, pool_name), prefix));
    }
    return e;
}

dra_err *dra_lint_keep(void *ctx, dra_obj *o)
{
    dra_lint_kept *k = ctx;
    dra_err *checks = NULL, *notes = NULL;
    dra_apiver ver;
    if (is_slice(o->json, &ver)) {
        checks = slice_checks(k->set, o, ver, k->features);
        notes = qualified_names(k, o->json);
        size_t i;
        json_t *dev;
        json_array_foreach(json_object_get(json_object_get(o->json, "spec"), "devices"), i, dev)
            if (json_is_object(dev))
                keep_names_only(k, dev);
    } else {
        dra_err *e = not_a_slice(o->json); /* reported by lint, else dropped */
        if (e)
            dra_errs_add(k->errs ? k->errs : &k->own, dra_obj_locate(e, o));
        else
            k->skipped++;
        return NULL;
    }
    dra_objset_keep(k->set, o);
    k->checks = dra_xgrow(k->checks, k->nchecks, sizeof *k->checks);
    k->notes = dra_xgrow(k->notes, k->nchecks, sizeof *k->notes);
    k->notes[k->nchecks] = notes;
    k->checks[k->nchecks++] = checks;
    return NULL;
}

dra_err *dra_slice_lint_kept(dra_lint_kept *k, dra_lint_report *out, size_t *skipped)
{
    const dra_errs *l = k->errs ? k->errs : &k->own;
    if (l->head || l->dropped) { /* input errors: no report */
        *out = (dra_lint_report)DRA_LINT_REPORT_INIT;
        if (skipped)
            *skipped = k->skipped;
        return dra_errs_take(&k->own);
    }
    dra_err *e = lint_set(k->set, k->checks, k->notes, k->features, out, skipped);
    if (skipped)
        *skipped += k->skipped;
    return e;
}

void dra_lint_kept_free(dra_lint_kept *k)
{
    dra_errs_free(&k->own);
    for (size_t i = 0; i < k->nchecks; i++) {
        dra_err_free(k->checks[i]);
        dra_err_free(k->notes[i]);
    }
    free(k->checks);
    free(k->notes);
    for (size_t i = 0; i < k->sigs.cap; i++)
        if (k->sigs.e[i].key)
            json_decref((json_t *)k->sigs.e[i].val);
    dra_strmap_free(&k->sigs);
    memset(k, 0, sizeof *k);
}

char *dra_lint_format(const dra_lint_problem *p)
{
    return dra_xasprintf("pool %s: %s%s%s%s", p->scope, p->object ? p->object : "", p->object ? ": " : "",
                         p->warning ? "warning: " : "", p->msg);
}
