/* Cluster index and shared helpers.  See cluster.h. */
#include "cluster.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/buf.h"
#include "../cel/dra.h"
#include "../model/names.h"
#include "../model/validate_quota.h"

/* ---- index ---- */

/* Index tags (kinds are tags 0..DRA_KIND_COUNT-1 for namespace/name keys). */
enum { TAG_OBJ = 'P', TAG_OWNER = 'U', TAG_POD_NS = 'N', TAG_SERVED = 'S', TAG_POD_REC = 'R', TAG_CLAIM_REC = 'C' };

/* Index values pack kind and position. */
static size_t pack(dra_kind k, size_t i)
{
    return i * DRA_KIND_COUNT + (size_t)k;
}

static const dra_obj *unpack(const dra_cluster *c, size_t v)
{
    return c->of[v % DRA_KIND_COUNT][v / DRA_KIND_COUNT];
}

static void push(dra_cluster *c, dra_kind k, const dra_obj *o)
{
    if (c->n[k] == c->cap[k]) {
        c->cap[k] = c->cap[k] ? c->cap[k] * 2 : 16;
        c->of[k] = dra_xrealloc(c->of[k], c->cap[k] * sizeof *c->of[k]);
    }
    size_t v = pack(k, c->n[k]);
    c->of[k][c->n[k]++] = o;
    const json_t *md = json_object_get(o->json, "metadata");
    const char *ns = json_string_value(json_object_get(md, "namespace"));
    const char *name = json_string_value(json_object_get(md, "name"));
    dra_lc_index_add_ptr(&c->ix, TAG_OBJ, o->json, v);
    /* with a model, its name index answers (and knows cluster-scoped kinds) */
    if (!c->has_model && name)
        dra_lc_index_add(&c->ix, (int)k, ns, name, v);
    if (k == DRA_KIND_POD && !dra_lc_index_find(&c->ix, TAG_POD_NS, ns, NULL))
        dra_lc_index_add(&c->ix, TAG_POD_NS, ns, NULL, v);
    if (k == DRA_KIND_RESOURCE_CLAIM) {
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(md, "ownerReferences"), i, r) {
            const char *uid = json_string_value(json_object_get(r, "uid"));
            /* a reference without uid counts as "" (as lookups read it) */
            if (json_is_true(json_object_get(r, "controller")))
                dra_lc_index_add(&c->ix, TAG_OWNER, uid ? uid : "", NULL, v);
        }
    }
}

static dra_err *build(dra_cluster *c, const dra_objset *set, bool fleet)
{
    dra_err *errs = NULL;
    c->set = set;
    for (size_t i = 0; i < set->n; i++) {
        const dra_obj *o = &set->v[i];
        dra_kind k;
        dra_apiver v;
        dra_err *e = dra_kind_of(o->json, &k, &v);
        if (e) {
            if (dra_kind_unknown_err(e)) {
                dra_err_free(e);
                c->unknown++;
                continue;
            }
            errs = dra_err_append(errs, dra_obj_locate(e, o));
            continue;
        }
        dra_err *shape = NULL;
        if (k == DRA_KIND_RESOURCE_CLAIM)
            shape = dra_check_claim_shape(o);
        else if (k == DRA_KIND_POD)
            shape = dra_check_pod_shape(o);
        if (shape) {
            errs = dra_err_append(errs, shape);
            continue;
        }
        if (fleet || (k != DRA_KIND_RESOURCE_SLICE && k != DRA_KIND_NODE))
            push(c, k, o);
    }
    return errs;
}

dra_err *dra_cluster_build(dra_cluster *c, const dra_objset *set)
{
    return build(c, set, true);
}

dra_err *dra_cluster_build_lifecycle(dra_cluster *c, const dra_objset *set)
{
    return build(c, set, false);
}

/* Index c->model, loaded from set: its claims and pods of the wrong shape
 * are left out and returned as errors. */
static dra_err *index_model(dra_cluster *c, const dra_objset *set)
{
    dra_err *errs = NULL;
    c->set = set;
    c->has_model = true;
    c->unknown = c->model.skipped;
    for (int k = 0; k < DRA_KIND_COUNT; k++) {
        const dra_model_list *l = dra_model_kind(&c->model, (dra_kind)k);
        for (size_t i = 0; i < l->n; i++) {
            dra_err *shape = NULL;
            if (k == DRA_KIND_RESOURCE_CLAIM)
                shape = dra_check_claim_shape(l->v[i]);
            else if (k == DRA_KIND_POD)
                shape = dra_check_pod_shape(l->v[i]);
            if (shape)
                errs = dra_err_append(errs, shape);
            else
                push(c, (dra_kind)k, l->v[i]);
        }
    }
    return errs;
}

dra_err *dra_cluster_adopt(dra_cluster *c, const dra_objset *set, dra_model *m)
{
    c->model = *m;
    *m = (dra_model)DRA_MODEL_INIT;
    dra_err *errs = index_model(c, set);
    if (errs)
        dra_cluster_free(c);
    return errs;
}

/* After errors: a partial index would make every later answer wrong, so c
 * keeps nothing but its counts and warnings (still worth saying). */
static void keep_nothing(dra_cluster *c)
{
    dra_model saved = {0};
    saved.skipped = c->model.skipped;
    saved.collapsed = c->model.collapsed;
    saved.files_repeated = c->model.files_repeated;
    saved.warnings = c->model.warnings;
    c->model.warnings = NULL;
    size_t unknown = c->unknown;
    uint32_t as_records = c->as_records, dropped = c->dropped;
    bool device_names = c->device_names;
    size_t nread = c->nread;
    dra_cluster_free(c);
    c->nread = nread;
    c->unknown = unknown;
    c->model = saved;
    c->as_records = as_records;
    c->dropped = dropped;
    c->device_names = device_names;
}

dra_err *dra_cluster_load(dra_cluster *c, dra_objset *set, const dra_load_opts *opts)
{
    /* remember the versions first: dra_load converts in place */
    char **before = dra_xcalloc(set->n + 1, sizeof *before);
    for (size_t i = 0; i < set->n; i++) {
        const char *v = json_string_value(json_object_get(set->v[i].json, "apiVersion"));
        before[i] = v ? dra_xstrdup(v) : NULL;
    }
    dra_err *errs = NULL;
    errs = dra_err_append(errs, dra_load(set, opts, &c->model));
    errs = dra_err_append(errs, index_model(c, set));
    for (size_t i = 0; i < set->n; i++) {
        const char *now = json_string_value(json_object_get(set->v[i].json, "apiVersion"));
        if (!errs && before[i] && now && strcmp(before[i], now) != 0) {
            c->served = dra_xgrow(c->served, c->nserved, sizeof *c->served);
            dra_lc_index_add_ptr(&c->ix, TAG_SERVED, set->v[i].json, c->nserved);
            c->served[c->nserved++] = (dra_served_version){set->v[i].json, before[i]};
        } else {
            free(before[i]);
        }
    }
    free(before);
    if (errs)
        keep_nothing(c);
    return errs;
}

/* Input objects are validated as the API server validates new ones: the
 * NewExpressions environment of the gates (cel/validate.c does the same). */
static cel_env *validation_env(const dra_features *features)
{
    cel_dra_options co = {.new_expressions = true,
                          .consumable_capacity = dra_feature_enabled(features, DRA_FEATURE_CONSUMABLE_CAPACITY),
                          .list_type_attributes = dra_feature_enabled(features, DRA_FEATURE_LIST_TYPE_ATTRIBUTES),
                          .release = dra_features_release_of(features)};
    return cel_dra_env_new(&co);
}

static dra_load_opts input_opts(const dra_cluster *c, const dra_features *features, int64_t now, cel_env *env)
{
    return (dra_load_opts){.skip_unknown = true,
                           .no_validate = c->no_validate,
                           .now = now,
                           .validate = {.features = features,
                                        .cel = cel_dra_validate_hook,
                                        .cel_derived = cel_dra_validate_derived_hook,
                                        .cel_ctx = env}};
}

dra_err *dra_cluster_load_input(dra_cluster *c, dra_objset *set, const dra_features *features, int64_t now)
{
    cel_env *env = validation_env(features);
    dra_load_opts lo = input_opts(c, features, now, env);
    dra_err *e = dra_cluster_load(c, set, &lo);
    cel_env_free(env);
    for (dra_err *x = e; x; x = x->next)
        x->code = DRA_EXIT_INPUT;
    return e;
}

/* ---- reading without device descriptions ---- */

typedef struct slim_ctx {
    dra_cluster *c;
    dra_objset *set;
    dra_loader *loader;
    dra_errs errs;  /* of the objects: many, so not appended one by one */
    dra_errs shape; /* of claims then Pods held as records, as dra_cluster_load orders them */
    dra_errs pod_shape;
} slim_ctx;

/* A checked object (converted) of a kind held as a record: its shape
 * checked, then its record made; read is the object as read (before
 * conversion), for the apiVersion the input used. */
static void record(slim_ctx *s, const dra_obj *o, dra_kind kind, const dra_obj *read)
{
    bool claim = kind == DRA_KIND_RESOURCE_CLAIM;
    dra_err *shape = claim ? dra_check_claim_shape(o) : dra_check_pod_shape(o);
    if (shape) {
        dra_errs_add(claim ? &s->shape : &s->pod_shape, shape);
        return;
    }
    dra_cluster *c = s->c;
    const char *was = dra_jstr(read->json, "apiVersion"), *now = dra_jstr(o->json, "apiVersion");
    const char *served = was && now && strcmp(was, now) != 0 ? was : NULL;
    if (claim) {
        dra_claim_rec *r = dra_compact_claim(&c->recs, o->json);
        dra_compact_place(&c->recs, r->whole, read, served);
        if (c->recs.keep_whole) /* looked up only to be made again (dra_cluster_get) */
            dra_lc_index_add(&c->ix, TAG_CLAIM_REC, r->ns, r->name, c->recs.nclaims - 1);
        return;
    }
    dra_pod_rec *p = dra_compact_pod(&c->recs, o->json);
    dra_compact_place(&c->recs, p->whole, read, served);
    dra_lc_index_add(&c->ix, TAG_POD_REC, p->ns, p->name, c->recs.npods - 1);
    if (!dra_lc_index_find(&c->ix, TAG_POD_NS, p->ns, NULL))
        dra_lc_index_add(&c->ix, TAG_POD_NS, p->ns, NULL, 0);
}

static void drop_descriptions(json_t *dev)
{
    json_object_del(dev, "attributes");
    json_object_del(dev, "capacity");
    json_t *basic = json_object_get(dev, "basic"); /* v1beta1 */
    if (json_is_object(basic)) {
        json_object_del(basic, "attributes");
        json_object_del(basic, "capacity");
    }
}

static dra_err *slim_one(void *ctx, dra_obj *o)
{
    slim_ctx *s = ctx;
    dra_obj copy = *o;
    copy.json = json_deep_copy(o->json); /* the pipeline converts in place: the tool sees what was read */
    dra_kind kind;
    bool passed = false;
    dra_err *e = dra_loader_add(s->loader, &copy, &kind, &passed);
    uint32_t bit = passed ? 1u << kind : 0;
    s->c->nread += passed;
    if (bit & s->c->as_records & ((1u << DRA_KIND_RESOURCE_CLAIM) | (1u << DRA_KIND_POD)))
        record(s, &copy, kind, o);
    json_decref(copy.json);
    if (e) {
        dra_errs_add(&s->errs, e);
        return NULL;
    }
    /* a kind the tools skip, the same object again, or one not kept */
    if (!passed || (bit & (s->c->dropped | s->c->as_records)))
        return NULL;
    if (kind == DRA_KIND_RESOURCE_SLICE) {
        bool v1 = strcmp(dra_jstr_or(o->json, "apiVersion", ""), "resource.k8s.io/v1") == 0;
        size_t i;
        json_t *dev;
        json_t *devs = json_object_get(json_object_get(o->json, "spec"), "devices");
        json_array_foreach(devs, i, dev) {
            json_t *taints = json_object_get(dev, "taints");
            const char *name = dra_jstr(dev, "name");
            if (s->c->device_names && v1 && name && (!json_array_size(taints) && (!taints || json_is_array(taints))))
                json_array_set_new(devs, i, json_string(name));
            else
                drop_descriptions(dev);
        }
    }
    dra_objset_keep(s->set, o);
    return NULL;
}

dra_err *dra_cluster_read_input(dra_cluster *c, dra_objset *set, char *const *paths, size_t npaths,
                                const dra_features *features, int64_t now)
{
    cel_env *env = validation_env(features);
    dra_load_opts lo = input_opts(c, features, now, env);
    slim_ctx s = {c, set, dra_loader_new(&lo, set->field_validation), DRA_ERRS_INIT, DRA_ERRS_INIT, DRA_ERRS_INIT};
    s.errs.fold = DRA_ERRS_FOLD; /* a flood is counted, not kept: memory follows the kinds of errors */
    s.shape.fold = s.pod_shape.fold = DRA_ERRS_FOLD;
    dra_err *e = dra_read_paths_each(set, paths, npaths, slim_one, &s);
    dra_model stats = {0};
    e = dra_loader_end(s.loader, e, dra_errs_take(&s.errs), &stats);
    dra_err *shape = dra_err_append(dra_errs_take(&s.shape), dra_errs_take(&s.pod_shape));
    if (!e) {
        lo.checked = true; /* the second pass converts, defaults and indexes */
        e = dra_cluster_load(c, set, &lo);
        if (shape) {
            e = dra_err_append(e, shape);
            keep_nothing(c);
            shape = NULL;
        }
    }
    dra_err_free(shape);
    if (e)
        keep_nothing(c);
    cel_env_free(env);
    c->unknown += stats.skipped;
    c->model.skipped += stats.skipped;
    c->model.forbidden |= stats.forbidden;
    c->model.collapsed += stats.collapsed;
    c->model.warnings = dra_err_append(c->model.warnings, stats.warnings);
    for (dra_err *x = e; x; x = x->next)
        x->code = DRA_EXIT_INPUT;
    return e;
}

static void taken_free(struct dra_taken *t);

void dra_cluster_free(dra_cluster *c)
{
    for (int k = 0; k < DRA_KIND_COUNT; k++)
        free(c->of[k]);
    dra_model_free(&c->model);
    for (size_t i = 0; i < c->nserved; i++)
        free(c->served[i].api_version);
    free(c->served);
    dra_lc_index_free(&c->ix);
    if (!c->recs_of)
        dra_compact_free(&c->recs);
    taken_free(c->taken);
    memset(c, 0, sizeof *c);
}

const char *dra_cluster_served_version(const dra_cluster *c, const json_t *obj)
{
    size_t i;
    return dra_lc_index_first_ptr(&c->ix, TAG_SERVED, obj, &i) ? c->served[i].api_version : NULL;
}

/* Pods and claims taken as records, made again as objects when looked up. */
typedef struct made {
    dra_obj **v; /* by record position (cap entries), NULL until asked */
    size_t cap;
} made;

struct dra_taken {
    made pods, claims;
    size_t *claim_at; /* claims given back (dra_cluster_give_back): their place in the set, else SIZE_MAX */
    size_t *pod_at;   /* each taken Pod's place among the set's objects (dra_cluster_take_pod's at) */
    size_t cap_pod_at;
};

static void taken_init(dra_cluster *c)
{
    if (!c->taken) {
        c->taken = dra_xcalloc(1, sizeof *c->taken);
        dra_compact_keep_whole(&c->recs);
    }
}

/* Pod record p (the n-th) found by name in c, its namespace noted. */
static void index_pod_rec(dra_cluster *c, const dra_pod_rec *p, size_t n)
{
    dra_lc_index_add(&c->ix, TAG_POD_REC, p->ns, p->name, n);
    if (!dra_lc_index_find(&c->ix, TAG_POD_NS, p->ns, NULL))
        dra_lc_index_add(&c->ix, TAG_POD_NS, p->ns, NULL, 0);
}

void dra_cluster_take_pod(dra_cluster *c, const dra_obj *o, size_t at)
{
    taken_init(c);
    struct dra_taken *t = c->taken;
    if (t->cap_pod_at == c->recs.npods) {
        t->cap_pod_at = t->cap_pod_at ? 2 * t->cap_pod_at : 64;
        t->pod_at = dra_xrealloc(t->pod_at, t->cap_pod_at * sizeof *t->pod_at);
    }
    t->pod_at[c->recs.npods] = at;
    dra_pod_rec *p = dra_compact_pod(&c->recs, o->json);
    dra_compact_place(&c->recs, p->whole, o, NULL);
    index_pod_rec(c, p, c->recs.npods - 1);
}

void dra_cluster_take_claim(dra_cluster *c, const dra_obj *o)
{
    taken_init(c);
    dra_claim_rec *r = dra_compact_claim(&c->recs, o->json);
    dra_compact_place(&c->recs, r->whole, o, NULL);
    dra_lc_index_add(&c->ix, TAG_CLAIM_REC, r->ns, r->name, c->recs.nclaims - 1);
}

/* Record i's object (w its text) made again in m, or NULL. */
static const dra_obj *make_again(const dra_cluster *c, made *m, size_t n, size_t i, const dra_rec_whole *w)
{
    if (m->cap < n) {
        m->v = dra_xrealloc(m->v, n * sizeof *m->v);
        memset(m->v + m->cap, 0, (n - m->cap) * sizeof *m->v);
        m->cap = n;
    }
    if (!m->v[i]) {
        dra_obj o;
        if (!dra_compact_whole(&c->recs, w, &o))
            return NULL;
        m->v[i] = dra_xmalloc(sizeof o);
        *m->v[i] = o;
    }
    return m->v[i];
}

/* The taken object ns/name of kind k as an object, or NULL. */
static const dra_obj *taken_find(const dra_cluster *c, dra_kind k, const char *ns, const char *name)
{
    struct dra_taken *t = c->taken;
    const dra_lc_index *ix = c->recs_of ? &c->recs_of->ix : &c->ix;
    size_t i;
    if (!t || (k != DRA_KIND_POD && k != DRA_KIND_RESOURCE_CLAIM) ||
        !dra_lc_index_first(ix, k == DRA_KIND_POD ? TAG_POD_REC : TAG_CLAIM_REC, ns, name, &i))
        return NULL;
    if (k == DRA_KIND_POD)
        return make_again(c, &t->pods, c->recs.npods, i, c->recs.pods[i]->whole);
    if (t->claim_at && t->claim_at[i] != SIZE_MAX)
        return &c->set->v[t->claim_at[i]];
    return make_again(c, &t->claims, c->recs.nclaims, i, c->recs.claims[i]->whole);
}

static void made_free(made *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        if (m->v[i])
            json_decref(m->v[i]->json);
        free(m->v[i]);
    }
    free(m->v);
}

static void taken_free(struct dra_taken *t)
{
    if (!t)
        return;
    made_free(&t->pods);
    made_free(&t->claims);
    free(t->claim_at);
    free(t->pod_at);
    free(t);
}

/* What the Pods of a set refer to: claim names, their own names ("ns/name"
 * keys) and UIDs ("/uid"), the keys in arena. */
typedef struct refs {
    dra_arena arena;
    dra_strmap names, pods, uids;
} refs;

static bool among(const dra_strmap *m, const char *ns, const char *s)
{
    if (!s)
        return false;
    char *key = dra_xasprintf("%s/%s", ns ? ns : "", s);
    bool found = dra_strmap_get(m, key, strlen(key), NULL);
    free(key);
    return found;
}

static void note(refs *r, dra_strmap *m, const char *ns, const char *s)
{
    if (!s)
        return;
    char *key = dra_xasprintf("%s/%s", ns ? ns : "", s);
    dra_strmap_intern(m, &r->arena, key);
    free(key);
}

/* The references of set's Pods into r: false when set holds what reads
 * every claim (PodGroups, ResourceQuotas). */
static bool pods_refer(const dra_objset *set, refs *r)
{
    for (size_t i = 0; i < set->n; i++) {
        const json_t *o = set->v[i].json;
        const char *kind = dra_jstr_or(o, "kind", "");
        if (dra_is_resource_quota(o) || !strcmp(kind, "PodGroup"))
            return false;
        if (strcmp(kind, "Pod") != 0)
            continue;
        const char *ns = dra_jstr(o, "metadata.namespace");
        note(r, &r->pods, ns, dra_jstr(o, "metadata.name"));
        note(r, &r->uids, NULL, dra_jstr_or(o, "metadata.uid", ""));
        size_t k;
        json_t *e;
        json_array_foreach(dra_jarr(o, "spec.resourceClaims"), k, e) {
            note(r, &r->names, ns, dra_jstr(e, "resourceClaimName"));
        }
        json_array_foreach(dra_jarr(o, "status.resourceClaimStatuses"), k, e) {
            note(r, &r->names, ns, dra_jstr(e, "resourceClaimName"));
        }
        note(r, &r->names, ns, dra_jstr(o, "status.extendedResourceClaimStatus.resourceClaimName"));
    }
    return true;
}

/* Does a Pod of the set need claim c as an object? */
static bool needed(const dra_claim_rec *c, const refs *r)
{
    if (!c->allocated || among(&r->names, c->ns, c->name))
        return true;
    for (uint32_t k = 0; k < c->nowners; k++)
        if (among(&r->uids, NULL, c->owners[k]))
            return true;
    for (uint32_t k = 0; k < c->nreserved; k++)
        if (among(&r->pods, c->ns, c->reserved[k].name))
            return true;
    return false;
}

void dra_cluster_give_back(dra_cluster *c, dra_objset *set)
{
    struct dra_taken *t = c->taken;
    if (!t || !c->recs.nclaims)
        return;
    refs r = {0};
    bool some = pods_refer(set, &r);
    t->claim_at = dra_xcalloc(c->recs.nclaims, sizeof *t->claim_at);
    for (size_t i = 0; i < c->recs.nclaims; i++) {
        const dra_claim_rec *rec = c->recs.claims[i];
        dra_obj o;
        t->claim_at[i] = SIZE_MAX;
        if ((!some || needed(rec, &r)) && dra_compact_whole(&c->recs, rec->whole, &o)) {
            t->claim_at[i] = set->n;
            dra_objset_add(set, o.json, o.file, o.doc, o.line, o.item);
        }
    }
    dra_strmap_free(&r.names);
    dra_strmap_free(&r.pods);
    dra_strmap_free(&r.uids);
    dra_arena_free(&r.arena);
}

const json_t *dra_cluster_taken_claim(const dra_cluster *c, size_t i, json_t **tmp)
{
    struct dra_taken *t = c->taken;
    *tmp = NULL;
    if (t->claim_at && t->claim_at[i] != SIZE_MAX)
        return c->set->v[t->claim_at[i]].json;
    if (i < t->claims.cap && t->claims.v[i])
        return t->claims.v[i]->json;
    dra_obj o;
    if (!dra_compact_whole(&c->recs, c->recs.claims[i]->whole, &o))
        return NULL;
    *tmp = o.json;
    return o.json;
}

const json_t *dra_cluster_made_claim(const dra_cluster *c, size_t i)
{
    const struct dra_taken *t = c->taken;
    return t && i < t->claims.cap && t->claims.v[i] ? t->claims.v[i]->json : NULL;
}

const json_t *dra_cluster_held_claim(const dra_cluster *c, size_t i)
{
    const struct dra_taken *t = c->taken;
    if (t && t->claim_at && t->claim_at[i] != SIZE_MAX)
        return c->set->v[t->claim_at[i]].json;
    return dra_cluster_made_claim(c, i);
}

const dra_claim_rec *dra_cluster_taken_claim_record(const dra_cluster *c, const char *ns, const char *name)
{
    const dra_lc_index *ix = c->recs_of ? &c->recs_of->ix : &c->ix;
    size_t i;
    return c->taken && name && dra_lc_index_first(ix, TAG_CLAIM_REC, ns, name, &i) ? c->recs.claims[i] : NULL;
}

/* Where the objects of src->set end and the claims given back begin. */
static size_t given_from(const dra_cluster *src)
{
    const struct dra_taken *t = src->taken;
    size_t at = src->set->n;
    for (size_t i = 0; t->claim_at && i < src->recs.nclaims; i++)
        if (t->claim_at[i] < at)
            at = t->claim_at[i];
    return at;
}

/* A taken object (w its text) made again and appended to set; false when
 * it cannot be read back. */
static bool add_again(const dra_cluster *src, const dra_rec_whole *w, dra_objset *set)
{
    dra_obj o;
    if (!dra_compact_whole(&src->recs, w, &o))
        return false;
    dra_objset_add(set, o.json, o.file, o.doc, o.line, o.item);
    return true;
}

static void add_shared(dra_objset *set, const dra_obj *o)
{
    dra_objset_add(set, json_incref(o->json), o->file, o->doc, o->line, o->item);
}

void dra_cluster_share_taken(dra_cluster *c, const dra_cluster *src, dra_objset *set,
                             bool (*wanted)(void *ctx, const dra_pod_rec *pod), void *ctx)
{
    const struct dra_taken *st = src->taken;
    const dra_objset *from = src->set;
    if (!st) {
        for (size_t j = 0; j < from->n; j++)
            add_shared(set, &from->v[j]);
        return;
    }
    c->recs = src->recs;
    c->recs_of = src;
    struct dra_taken *t = c->taken = dra_xcalloc(1, sizeof *c->taken);
    refs r = {0}; /* the claims of the Pods made again */
    size_t end = given_from(src), p = 0;
    for (size_t j = 0; j <= end; j++) {
        for (; p < c->recs.npods && st->pod_at[p] <= j; p++) {
            const dra_pod_rec *pod = c->recs.pods[p];
            if (!wanted(ctx, pod) || !add_again(src, pod->whole, set))
                continue;
            for (uint32_t k = 0; k < pod->nclaims; k++)
                note(&r, &r.names, pod->ns, pod->claims[k].claim);
            for (uint32_t k = 0; k < pod->nstatuses; k++)
                note(&r, &r.names, pod->ns, pod->statuses[k].claim);
        }
        if (j < end)
            add_shared(set, &from->v[j]);
    }
    t->claim_at = dra_xcalloc(c->recs.nclaims + 1, sizeof *t->claim_at);
    for (size_t i = 0; i < c->recs.nclaims; i++) {
        const dra_claim_rec *rec = c->recs.claims[i];
        t->claim_at[i] = set->n;
        if (st->claim_at && st->claim_at[i] != SIZE_MAX)
            add_shared(set, &from->v[st->claim_at[i]]);
        else if (!among(&r.names, rec->ns, rec->name) || !add_again(src, rec->whole, set))
            t->claim_at[i] = SIZE_MAX;
    }
    /* from->v[end..] are the claims given back, placed above */
    dra_strmap_free(&r.names);
    dra_arena_free(&r.arena);
}

const dra_obj *dra_cluster_find(const dra_cluster *c, dra_kind k, const char *ns, const char *name)
{
    if (!name)
        return NULL;
    if (c->has_model) {
        const dra_obj *o = dra_model_find(&c->model, k, ns, name);
        return o ? o : taken_find(c, k, ns, name);
    }
    size_t v;
    return dra_lc_index_first(&c->ix, (int)k, ns, name, &v) ? unpack(c, v) : NULL;
}

const dra_obj *dra_cluster_source(const dra_cluster *c, const json_t *obj)
{
    size_t v;
    return dra_lc_index_first_ptr(&c->ix, TAG_OBJ, obj, &v) ? unpack(c, v) : NULL;
}

size_t dra_cluster_owned(const dra_cluster *c, const char *uid)
{
    return uid ? dra_lc_index_find(&c->ix, TAG_OWNER, uid, NULL) : 0;
}

const dra_obj *dra_cluster_owned_next(const dra_cluster *c, size_t *it)
{
    size_t v;
    return dra_lc_index_next(&c->ix, it, &v) ? unpack(c, v) : NULL;
}

bool dra_cluster_has_pods_in(const dra_cluster *c, const char *ns)
{
    return dra_lc_index_find(&c->ix, TAG_POD_NS, ns, NULL) != 0 ||
           (c->recs_of && dra_lc_index_find(&c->recs_of->ix, TAG_POD_NS, ns, NULL) != 0);
}

const dra_compact *dra_cluster_claim_records(const dra_cluster *c, dra_compact *own)
{
    if (c->as_records & (1u << DRA_KIND_RESOURCE_CLAIM))
        return &c->recs;
    for (size_t i = 0; i < c->n[DRA_KIND_RESOURCE_CLAIM]; i++)
        dra_compact_claim(own, c->of[DRA_KIND_RESOURCE_CLAIM][i]->json);
    return own;
}

const dra_pod_rec *dra_cluster_pod_record(const dra_cluster *c, const char *ns, const char *name, dra_compact *scratch)
{
    if (c->as_records & (1u << DRA_KIND_POD)) {
        size_t i;
        return name && dra_lc_index_first(&c->ix, TAG_POD_REC, ns, name, &i) ? c->recs.pods[i] : NULL;
    }
    const dra_obj *pod = dra_cluster_find(c, DRA_KIND_POD, ns, name);
    return pod ? dra_compact_pod(scratch, pod->json) : NULL;
}

static bool held_as_records(const dra_cluster *c, dra_kind k)
{
    return (k == DRA_KIND_RESOURCE_CLAIM || k == DRA_KIND_POD) && (c->as_records & (1u << k));
}

size_t dra_cluster_count(const dra_cluster *c, dra_kind k)
{
    if (!held_as_records(c, k))
        return c->n[k];
    return k == DRA_KIND_POD ? c->recs.npods : c->recs.nclaims;
}

static const dra_rec_whole *whole_of(const dra_cluster *c, dra_kind k, size_t i)
{
    return k == DRA_KIND_POD ? c->recs.pods[i]->whole : c->recs.claims[i]->whole;
}

const dra_obj *dra_cluster_nth(const dra_cluster *c, dra_kind k, size_t i, dra_obj *tmp)
{
    if (!held_as_records(c, k)) {
        memset(tmp, 0, sizeof *tmp);
        return c->of[k][i];
    }
    return dra_compact_whole(&c->recs, whole_of(c, k, i), tmp) ? tmp : NULL;
}

bool dra_cluster_position(const dra_cluster *c, dra_kind k, const char *ns, const char *name, size_t *i)
{
    if (held_as_records(c, k))
        return name && dra_lc_index_first(&c->ix, k == DRA_KIND_POD ? TAG_POD_REC : TAG_CLAIM_REC, ns, name, i);
    const dra_obj *o = dra_cluster_find(c, k, ns, name);
    size_t v;
    if (!o || !dra_lc_index_first_ptr(&c->ix, TAG_OBJ, o->json, &v) || v % DRA_KIND_COUNT != (size_t)k)
        return false;
    *i = v / DRA_KIND_COUNT;
    return true;
}

const char *dra_cluster_served_version_of(const dra_cluster *c, dra_kind k, const char *ns, const char *name)
{
    size_t i;
    if (held_as_records(c, k))
        return dra_cluster_position(c, k, ns, name, &i) && whole_of(c, k, i) ? dra_rec_served(whole_of(c, k, i)) : NULL;
    const dra_obj *o = dra_cluster_find(c, k, ns, name);
    return o ? dra_cluster_served_version(c, o->json) : NULL;
}

const dra_obj *dra_cluster_get(const dra_cluster *c, dra_kind k, const char *ns, const char *name, dra_obj *tmp)
{
    size_t i;
    memset(tmp, 0, sizeof *tmp);
    return dra_cluster_position(c, k, ns, name, &i) ? dra_cluster_nth(c, k, i, tmp) : NULL;
}

const char *dra_slice_device_name(const json_t *dev)
{
    return json_is_string(dev) ? json_string_value(dev) : dra_jstr_or(dev, "name", "");
}
