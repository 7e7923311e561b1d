/* The allocator's world: classes, slices (parsed once), device IDs and the
 * allocated state.  See alloc.h for ownership. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/assert.h"
#include "../io/jparse.h"
#include "../io/stream.h"
#include "capacity.h"
#include "counters.h"
#include "state.h"
#include "taints.h"

static void dra_al_features_from(al_features *f, const dra_features *src)
{
    f->admin_access = dra_feature_enabled(src, DRA_FEATURE_ADMIN_ACCESS);
    f->prioritized_list = dra_feature_enabled(src, DRA_FEATURE_PRIORITIZED_LIST);
    f->partitionable = dra_feature_enabled(src, DRA_FEATURE_PARTITIONABLE_DEVICES);
    f->device_taints = dra_feature_enabled(src, DRA_FEATURE_DEVICE_TAINTS);
    f->taint_rules = f->device_taints && dra_feature_enabled(src, DRA_FEATURE_DEVICE_TAINT_RULES);
    /* One allocator feature, DeviceBindingAndStatus, needs both gates. */
    f->binding_and_status = dra_feature_enabled(src, DRA_FEATURE_DEVICE_BINDING_CONDITIONS) &&
                            dra_feature_enabled(src, DRA_FEATURE_RESOURCE_CLAIM_DEVICE_STATUS);
    f->consumable_capacity = dra_feature_enabled(src, DRA_FEATURE_CONSUMABLE_CAPACITY);
    f->list_attributes = dra_feature_enabled(src, DRA_FEATURE_LIST_TYPE_ATTRIBUTES);
    f->optional_node_operations = dra_feature_enabled(src, DRA_FEATURE_OPTIONAL_NODE_OPERATIONS);
    f->derived_attributes = dra_feature_enabled(src, DRA_FEATURE_DERIVED_ATTRIBUTES);
    f->fractional_capacity_range = dra_feature_enabled(src, DRA_FEATURE_FRACTIONAL_CAPACITY_RANGE);
    f->compatibility_groups = f->partitionable && dra_feature_enabled(src, DRA_FEATURE_DEVICE_COMPATIBILITY_GROUPS);
    f->capacity_1_38 = dra_features_release_of(src) >= DRA_RELEASE_1_38;
    f->versions_without_build = dra_features_release_of(src) >= DRA_RELEASE_1_38;
    f->list_value_fatal = dra_features_release_of(src) >= DRA_RELEASE_1_38;
    f->all_pool_node_failure = dra_features_release_of(src) >= DRA_RELEASE_1_38;
    f->config_all_unnamed = dra_features_release_of(src) >= DRA_RELEASE_1_37;
    f->groups_field = dra_features_release_of(src) >= DRA_RELEASE_1_37;
    f->qrules = dra_features_quantity_rules(src);
}

/* ---- parsing slices ----------------------------------------------------------------- */

/* Keep a part of a packed device's tree alive past the tree (NULL-safe). */
static const json_t *keep(dra_alloc_world *w, const json_t *j)
{
    if (j) {
        if (!w->keep)
            w->keep = json_array();
        json_array_append(w->keep, (json_t *)j);
    }
    return j;
}

/* A packed device's or whole slice's counter sets outlive its tree. */
static void own_counters(dra_alloc_world *w, al_counter_set *sets, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        al_counter_set *c = &sets[i];
        c->name = dra_al_intern_str(w, c->name);
        keep(w, c->groups);
        for (size_t k = 0; k < c->n; k++)
            c->c[k].name = dra_al_intern_str(w, c->c[k].name);
    }
}

typedef struct capset {
    al_capacity *cap;
    size_t n;
} capset;

/* Capacity parse errors make the capacity unusable; validation reports them,
 * here a bad quantity just counts as zero.  Devices share one parse of the
 * same capacity map: by identity for trees (maps shared when read), by text
 * for packed devices. */
static void parse_capacity(dra_alloc_world *w, al_device *d, const json_t *cap, bool packed)
{
    dra_arena *a = &w->arena;
    if (!packed) {
        if (cap && cap == w->last_cap_json) {
            d->cap = w->last_cap;
            d->ncap = (uint32_t)w->last_ncap;
            return;
        }
        size_t n = 0;
        dra_err_free(dra_al_parse_capacity(a, cap, w->f.fractional_capacity_range, w->f.qrules, &d->cap, &n));
        d->ncap = (uint32_t)n;
        w->last_cap_json = cap;
        w->last_cap = d->cap;
        w->last_ncap = d->ncap;
        return;
    }
    if (!cap)
        return;
    dra_buf *b = &w->scratch;
    dra_buf_reset(b);
    dra_json_write_compact(b, cap);
    intptr_t v;
    if (dra_strmap_get(&w->caps, b->data, b->len, &v)) {
        d->cap = ((capset *)v)->cap;
        d->ncap = (uint32_t)((capset *)v)->n;
        w->cap_hits++;
        return;
    }
    size_t n = 0;
    dra_err_free(dra_al_parse_capacity(a, cap, w->f.fractional_capacity_range, w->f.qrules, &d->cap, &n));
    d->ncap = (uint32_t)n;
    for (size_t i = 0; i < d->ncap; i++)
        d->cap[i].name = dra_al_intern_str(w, d->cap[i].name);
    /* a fleet whose capacities are all different shares nothing: past a few
     * thousand maps, remember new ones only while sharing pays */
    if (w->caps.n >= 4096 && w->cap_hits < w->caps.n)
        return;
    capset *c = dra_arena_zalloc(a, sizeof *c);
    *c = (capset){d->cap, d->ncap};
    char *key = dra_arena_alloc(a, b->len);
    memcpy(key, b->data, b->len);
    dra_strmap_put(&w->caps, key, b->len, (intptr_t)c);
}

/* j is the device's tree: borrowed from the slice, or (packed) parsed from
 * text and freed after this, so what the device keeps of it is interned or
 * kept (keep). */
static void parse_device(dra_alloc_world *w, al_slice *s, al_device *d, const json_t *j, const char *text,
                         uint32_t text_len)
{
    dra_arena *a = &w->arena;
    bool packed = text != NULL;
    d->tree = packed ? NULL : j;
    d->text = text;
    d->text_len = text_len;
    d->slice = s;
    d->name = dra_jfield_str(j, "name");
    if (!d->name)
        d->name = "";
    parse_capacity(w, d, dra_jfield(j, "capacity"), packed);
    dra_err *e;
    size_t ncons = 0;
    e = dra_al_parse_counters(a, dra_jfield(j, "consumesCounters"), "counterSet", w->f.qrules, &d->cons, &ncons);
    dra_err_free(e);
    d->ncons = (uint32_t)ncons;
    const json_t *taints = dra_jfield(j, "taints");
    size_t nt = json_is_array(taints) ? json_array_size(taints) : 0;
    const json_t *bc = dra_jfield(j, "bindingConditions"), *bfc = dra_jfield(j, "bindingFailureConditions");
    const char *node_name = dra_jfield_str(j, "nodeName");
    const json_t *node_selector = dra_jfield(j, "nodeSelector");
    if (nt || bc || bfc || node_name || node_selector) {
        al_devx *x = dra_al_devx(w, d);
        x->taints = nt ? dra_arena_zalloc(a, nt * sizeof *x->taints) : NULL;
        for (size_t i = 0; i < nt; i++) {
            const json_t *t = json_array_get(taints, i);
            al_taint *y = &x->taints[x->ntaints++];
            y->key = dra_jfield_str(t, "key");
            y->value = dra_jfield_str(t, "value");
            y->effect = dra_jfield_str(t, "effect");
            y->json = t;
        }
        x->binding_conditions = bc;
        x->binding_failure_conditions = bfc;
        x->node_name = packed ? dra_al_intern_str(w, node_name) : node_name;
        x->node_selector = node_selector;
        if (packed) {
            keep(w, taints); /* its strings stay where they are */
            keep(w, bc);
            keep(w, bfc);
            keep(w, node_selector);
        }
    }
    d->has_binding = json_is_array(bc) && json_array_size(bc) > 0;
    d->binds_to_node = dra_jfield_true(j, "bindsToNode");
    d->allow_multi = dra_jfield_true(j, "allowMultipleAllocations");
    d->all_nodes = dra_jfield_true(j, "allNodes");
    for (size_t k = 0; k < d->ncons && w->f.groups_field; k++)
        s->uses_groups |= d->cons[k].groups != NULL;
    if (packed) {
        d->name = dra_al_intern_str(w, d->name);
        own_counters(w, d->cons, d->ncons);
    }
    d->gid = dra_al_intern_id(w, s->driver, s->pool, d->name);
    d->widx = (uint32_t)w->ndevices;
    if (w->ndevices == w->capdevices) {
        w->capdevices = w->capdevices ? w->capdevices * 2 : 256;
        w->devices = dra_xrealloc(w->devices, w->capdevices * sizeof *w->devices);
    }
    w->devices[w->ndevices++] = d;
}

const char *dra_al_id(const al_device *d, al_idbuf *b)
{
    snprintf(b->s, sizeof b->s, "%s/%s/%s", d->slice->driver, d->slice->pool, d->name);
    return b->s;
}

/* List packed device d in world->mat (once), for dra_al_trim to release
 * its tree and CEL form. */
static void materialize(al_device *d)
{
    if (d->materialized)
        return;
    dra_alloc_world *w = d->slice->w;
    d->materialized = true;
    w->mat = dra_xgrow(w->mat, w->nmat, sizeof *w->mat);
    w->mat[w->nmat++] = d;
}

static json_t *parse_text(const char *text)
{
    return dra_json_read_compact(text, strlen(text));
}

/* al_device.text_len: a device's text is a part of one input (io/stream.h) */
_Static_assert(DRA_MAX_INPUT_BYTES <= UINT32_MAX, "a device's text length fits in 32 bits");

const json_t *dra_al_device_json(al_device *d)
{
    if (d->tree || !d->text)
        return d->tree;
    d->tree = dra_json_read_compact(d->text, d->text_len);
    materialize(d);
    return d->tree;
}

dra_err *dra_al_match(dra_alloc_world *w, void *prog, al_device *d, bool *matched)
{
    if (!w->eval.match_text || !d->text || d->tree)
        return w->eval.match(w->eval.ctx, prog, d->slice->driver, dra_al_device_json(d), &w->features, &d->eval_cache,
                             matched);
    /* a packed device without its tree: its CEL form from its text */
    dra_err *e = w->eval.match_text(w->eval.ctx, prog, d->slice->driver, d->text, d->text_len, &w->features,
                                    &d->eval_cache, matched);
    if (d->eval_cache)
        materialize(d);
    return e;
}

const json_t *dra_al_device_attrs(al_device *d)
{
    const json_t *a = dra_jfield(dra_al_device_json(d), "attributes");
    return json_is_object(a) ? a : NULL;
}

static void release(dra_alloc_world *w, al_device *d)
{
    if (d->eval_cache && w->eval.free_device_cache)
        w->eval.free_device_cache(w->eval.ctx, d->eval_cache);
    d->eval_cache = NULL;
    json_decref((json_t *)d->tree);
    d->tree = NULL;
    d->materialized = false;
}

/* A parsed device and its CEL form cost ~5 KiB: 256 of them bound it (the
 * selector memo keeps the answers; a device is parsed again only for a new
 * selector or a constraint). */
#define AL_MATERIALIZED_MAX 256

void dra_al_trim(dra_alloc_world *w)
{
    if (w->nmat <= w->max_mat)
        return;
    for (size_t i = 0; i < w->nmat; i++)
        release(w, w->mat[i]);
    w->nmat = 0;
}

static void list_add(dra_arena *a, al_pool_slices *ps, al_slice *s)
{
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? ps->cap * 2 : 4;
        al_slice **ns = dra_arena_alloc(a, ps->cap * sizeof *ns);
        if (ps->n)
            memcpy(ns, ps->s, ps->n * sizeof *ns);
        ps->s = ns;
    }
    ps->s[ps->n++] = s;
}

/* j is the slice: borrowed, or (packed) parsed from packed->rest and freed
 * after this, so what the slice keeps of it is interned or kept. */
static void parse_slice(dra_alloc_world *w, al_slice *s, const json_t *j, const dra_packed_slice *packed)
{
    dra_arena *a = &w->arena;
    s->w = w;
    const json_t *spec = dra_jfield(j, "spec");
    const json_t *pool = dra_jfield(spec, "pool");
    s->name = dra_jfield_str(dra_jfield(j, "metadata"), "name");
    if (!s->name)
        s->name = "";
    s->driver = dra_jfield_str(spec, "driver");
    if (!s->driver)
        s->driver = "";
    s->pool = dra_jfield_str(pool, "name");
    if (!s->pool)
        s->pool = "";
    s->generation = json_integer_value(dra_jfield(pool, "generation"));
    s->count = json_integer_value(dra_jfield(pool, "resourceSliceCount"));
    s->node_name = dra_jfield_str(spec, "nodeName");
    if (s->node_name && !*s->node_name)
        s->node_name = NULL;
    s->all_nodes = dra_jfield_true(spec, "allNodes");
    s->per_device_set = dra_jfield(spec, "perDeviceNodeSelection") != NULL;
    s->per_device = dra_jfield_true(spec, "perDeviceNodeSelection");
    s->node_selector = dra_jfield(spec, "nodeSelector");
    const json_t *skip = dra_jfield(spec, "skipNodeOperations");
    s->skip_ops = json_is_array(skip) && json_array_size(skip) ? skip : NULL;
    s->skip_node_ops = s->skip_ops != NULL;
    dra_err *e = dra_al_parse_counters(a, dra_jfield(spec, "sharedCounters"), "name", w->f.qrules, &s->sets, &s->nsets);
    dra_err_free(e);
    if (packed) {
        s->name = dra_al_intern_str(w, s->name);
        s->driver = dra_al_intern_str(w, s->driver);
        s->pool = dra_al_intern_str(w, s->pool);
        s->node_name = dra_al_intern_str(w, s->node_name);
        keep(w, s->node_selector);
        keep(w, s->skip_ops);
        own_counters(w, s->sets, s->nsets);
    }
    if (packed) {
        s->dev = packed->n ? dra_arena_zalloc(a, packed->n * sizeof *s->dev) : NULL;
        size_t i = 0;
        for (const char *t = dra_packed_next(packed, NULL); t && i < packed->n; t = dra_packed_next(packed, t)) {
            size_t tl = strlen(t);
            json_t *dj = dra_json_read_compact(t, tl);
            if (!json_is_object(dj)) { /* packed by dra_slice_pack: cannot happen */
                json_decref(dj);
                continue;
            }
            parse_device(w, s, &s->dev[i++], dj, t, (uint32_t)tl);
            json_decref(dj);
        }
        s->ndev = i;
    } else {
        const json_t *devs = dra_jfield(spec, "devices");
        size_t n = json_is_array(devs) ? json_array_size(devs) : 0;
        s->dev = n ? dra_arena_zalloc(a, n * sizeof *s->dev) : NULL;
        s->ndev = n;
        for (size_t i = 0; i < n; i++)
            parse_device(w, s, &s->dev[i], json_array_get(devs, i), NULL, 0);
    }

    size_t klen;
    char *key = dra_arena_printf(a, "%s\x1f%s", s->driver, s->pool);
    klen = strlen(key);
    intptr_t v;
    al_pool_slices *ps;
    if (dra_strmap_get(&w->pools, key, klen, &v)) {
        ps = (al_pool_slices *)v;
    } else {
        ps = dra_arena_zalloc(a, sizeof *ps);
        ps->driver = s->driver;
        ps->pool = s->pool;
        dra_strmap_put(&w->pools, key, klen, (intptr_t)ps);
        w->poollist = dra_xgrow(w->poollist, w->npools, sizeof *w->poollist);
        w->poollist[w->npools++] = ps;
    }
    list_add(a, ps, s);
    s->pool_key = key;
    s->pool_klen = klen;
    s->pool_slices = ps;

    /* Index by node name for gathering: nodeName slices per node, the rest shared. */
    if (!s->node_name) {
        list_add(a, &w->shared, s);
    } else {
        al_pool_slices *ns;
        if (dra_strmap_get(&w->bynode, s->node_name, strlen(s->node_name), &v)) {
            ns = (al_pool_slices *)v;
        } else {
            ns = dra_arena_zalloc(a, sizeof *ns);
            ns->driver = s->node_name;
            ns->node_idx = (int)w->nnodes++;
            dra_strmap_put(&w->bynode, s->node_name, strlen(s->node_name), (intptr_t)ns);
        }
        list_add(a, ns, s);
    }
}

static void count_free(dra_alloc_world *w);

dra_err *dra_alloc_world_new(const dra_alloc_world_input *in, dra_alloc_world **out)
{
    *out = NULL;
    dra_alloc_world *w = dra_xcalloc(1, sizeof *w);
    if (in->features)
        w->features = *in->features;
    else
        dra_features_default(&w->features);
    dra_al_features_from(&w->f, &w->features);
    w->eval = *in->eval;
    w->max_mat = in->max_parsed ? in->max_parsed : AL_MATERIALIZED_MAX;

    for (size_t i = 0; i < in->nclasses; i++) {
        const json_t *j = in->classes[i];
        const char *name = dra_jfield_str(dra_jfield(j, "metadata"), "name");
        if (!name)
            name = "";
        intptr_t v;
        if (dra_strmap_get(&w->classes, name, strlen(name), &v)) {
            dra_err *e = dra_err_new(DRA_EXIT_INPUT, "duplicate DeviceClass %s", name);
            dra_alloc_world_free(w);
            return e;
        }
        al_class *c = dra_arena_zalloc(&w->arena, sizeof *c);
        c->name = name;
        c->json = j;
        c->selectors = dra_jfield(dra_jfield(j, "spec"), "selectors");
        c->config = dra_jfield(dra_jfield(j, "spec"), "config");
        dra_strmap_put(&w->classes, name, strlen(name), (intptr_t)c);
    }

    w->nslices = in->nslices + (in->packs ? in->packs->n : 0);
    w->slices = w->nslices ? dra_arena_zalloc(&w->arena, w->nslices * sizeof *w->slices) : NULL;
    for (size_t i = 0; i < in->nslices; i++)
        parse_slice(w, &w->slices[i], in->slices[i], NULL);
    for (size_t i = 0; in->packs && i < in->packs->n; i++) {
        const dra_packed_slice *x = in->packs->v[i];
        json_t *j = parse_text(x->rest);
        parse_slice(w, &w->slices[in->nslices + i], j, x);
        json_decref(j);
    }
    dra_buf_free(&w->scratch);

    if (w->f.taint_rules)
        dra_al_apply_taint_rules(w, in->taint_rules, in->ntaint_rules);

    for (size_t i = 0; i < in->nin_use; i++) {
        dra_err *e = dra_al_state_negative_capacity(w, in->in_use[i]);
        if (e) {
            dra_alloc_world_free(w);
            return e;
        }
        dra_al_state_add_claim(w, in->in_use[i]);
    }
    count_free(w);
    *out = w;
    return NULL;
}

dra_err *dra_alloc_world_add_in_use(dra_alloc_world *w, const json_t *claim)
{
    dra_err *e = dra_al_state_negative_capacity(w, claim);
    if (!e)
        dra_al_state_add_claim(w, claim);
    return e;
}

void dra_alloc_world_unnamed(dra_alloc_world *w)
{
    w->unnamed = true;
}

/* Where each device ID lives, and how many are free per node (see
 * dra_alloc_free_bound, query.c).  Later allocations (dra_alloc_commit) decrement. */
static void count_free(dra_alloc_world *w)
{
    w->node_free = dra_xcalloc(w->nnodes + 1, sizeof *w->node_free);
    for (size_t i = 0; i < w->nslices; i++) {
        al_slice *s = &w->slices[i];
        int home = -1;
        if (s->node_name) {
            intptr_t v;
            if (dra_strmap_get(&w->bynode, s->node_name, strlen(s->node_name), &v))
                home = ((al_pool_slices *)v)->node_idx + 1;
        }
        for (size_t k = 0; k < s->ndev; k++) {
            al_idstate *st = &w->st[s->dev[k].gid];
            if (st->home == 0)
                st->home = home;
            else if (st->home != home)
                st->home = -1;
        }
    }
    for (size_t g = 0; g < w->nids; g++) {
        const al_idstate *st = &w->st[g];
        if (st->allocated || st->home == 0)
            continue;
        if (st->home > 0)
            w->node_free[st->home - 1]++;
        else
            w->shared_free++;
    }
    w->counts_ready = true;
}

/* The programs of a map, and the map (its keys are in the arena). */
static void progs_free(dra_alloc_world *w, dra_strmap *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->e[i].key)
            continue;
        al_prog *p = (al_prog *)m->e[i].val;
        if (p->prog && w->eval.free_prog)
            w->eval.free_prog(w->eval.ctx, p->prog);
        free(p->error);
        free(p->memo);
        free(p);
    }
    dra_strmap_free(m);
}

void dra_alloc_world_free(dra_alloc_world *w)
{
    if (!w)
        return;
    /* Maps own their keys (the arena's: pools, strs, caps, progs,
     * value_progs) or borrow them from input that outlives the world
     * (classes, bynode): every key is intact to the end. */
    DRA_ASSERT(dra_strmap_keys_intact(&w->classes) && dra_strmap_keys_intact(&w->pools) &&
               dra_strmap_keys_intact(&w->bynode) && dra_strmap_keys_intact(&w->strs) &&
               dra_strmap_keys_intact(&w->caps) && dra_strmap_keys_intact(&w->progs) &&
               dra_strmap_keys_intact(&w->value_progs));
    for (size_t i = 0; i < w->ndevices; i++)
        if (w->devices[i]->eval_cache && w->eval.free_device_cache)
            w->eval.free_device_cache(w->eval.ctx, w->devices[i]->eval_cache);
    for (size_t i = 0; i < w->nmat; i++)
        json_decref((json_t *)w->mat[i]->tree);
    free(w->mat);
    json_decref(w->keep);
    dra_strmap_free(&w->strs);
    dra_strmap_free(&w->caps);
    progs_free(w, &w->progs);
    progs_free(w, &w->value_progs);
    for (size_t i = 0; i < w->nids; i++) {
        if (w->st[i].x) {
            dra_al_capuse_free(&w->st[i].x->agg);
            free(w->st[i].x);
        }
    }
    free(w->st);
    free(w->node_free);
    free(w->devices);
    free(w->poollist);
    dra_strmap_free(&w->classes);
    dra_strmap_free(&w->pools);
    free(w->idslot);
    dra_strmap_free(&w->bynode);
    dra_arena_free(&w->arena);
    free(w);
}
