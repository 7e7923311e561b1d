/* Gathering devices from ResourceSlices: newest generation per pool. */
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "../base/buf.h"
#include "../io/jparse.h"
#include "../io/json.h"
#include "../base/sort.h"
#include "../model/poolrule.h"

typedef struct slice_ref {
    const json_t *slice;
    const char *driver, *pool, *name;
    json_int_t generation, count;
} slice_ref;

static const char *str_at(const json_t *obj, const char *key)
{
    const char *s = dra_jfield_str(obj, key);
    return s ? s : "";
}

static int cmp_slice(const void *a, const void *b)
{
    const slice_ref *x = a, *y = b;
    int c = strcmp(x->driver, y->driver);
    if (!c)
        c = strcmp(x->pool, y->pool);
    if (!c)
        c = strcmp(x->name, y->name);
    return c;
}

static void add_note(dra_sel_devices *d, char *note)
{
    d->notes = dra_xgrow(d->notes, d->nnotes, sizeof *d->notes);
    d->notes[d->nnotes++] = note;
}

static void add_devices(dra_sel_devices *out, size_t *cap, const slice_ref *s)
{
    const json_t *spec = json_object_get(s->slice, "spec");
    const char *node = json_string_value(json_object_get(spec, "nodeName"));
    const json_t *devs = json_object_get(spec, "devices");
    size_t i;
    const json_t *dev;
    json_array_foreach(devs, i, dev) {
        if (out->n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            out->v = dra_xrealloc(out->v, *cap * sizeof *out->v);
        }
        dra_sel_device *d = &out->v[out->n++];
        memset(d, 0, sizeof *d);
        d->driver = s->driver;
        d->pool = s->pool;
        if (json_is_string(dev)) { /* kept as text: see kept_text() */
            d->name = json_string_value(dev);
            const char *own = d->name + strlen(d->name) + 1;
            d->text = own + strlen(own) + 1;
            d->text_len = json_string_length(dev) - (size_t)(d->text - d->name);
            d->node = node ? node : *own ? own : NULL;
        } else {
            d->name = str_at(dev, "name");
            d->node = node ? node : json_string_value(json_object_get(dev, "nodeName"));
            d->device = dev;
        }
        d->slice = s->slice;
        d->id = dra_xasprintf("%s/%s/%s", d->driver, d->pool, d->name);
        d->cel_cache = NULL;
    }
}

dra_err *dra_sel_gather(const dra_model *m, const dra_features *f, dra_sel_devices *out)
{
    const dra_model_list *l = dra_model_kind(m, DRA_KIND_RESOURCE_SLICE);
    bool partitionable = dra_feature_enabled(f, DRA_FEATURE_PARTITIONABLE_DEVICES);
    slice_ref *refs = dra_xcalloc(l->n ? l->n : 1, sizeof *refs);
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        const json_t *sl = l->v[i]->json;
        const json_t *spec = json_object_get(sl, "spec");
        /* pools_incubating.go: these slices do not exist for an allocator
         * without partitionable devices. */
        if (!partitionable && (json_is_true(json_object_get(spec, "perDeviceNodeSelection")) ||
                               json_array_size(json_object_get(spec, "sharedCounters")) > 0))
            continue;
        const json_t *pool = json_object_get(spec, "pool");
        slice_ref *r = &refs[n++];
        r->slice = sl;
        r->driver = str_at(spec, "driver");
        r->pool = str_at(pool, "name");
        r->name = str_at(json_object_get(sl, "metadata"), "name");
        r->generation = json_integer_value(json_object_get(pool, "generation"));
        r->count = json_integer_value(json_object_get(pool, "resourceSliceCount"));
    }
    dra_sort(refs, n, sizeof *refs, cmp_slice);
    size_t cap = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        json_int_t gen = refs[i].generation;
        while (j < n && !strcmp(refs[j].driver, refs[i].driver) && !strcmp(refs[j].pool, refs[i].pool)) {
            if (refs[j].generation > gen)
                gen = refs[j].generation;
            j++;
        }
        /* the allocator's pool rule, pool-wide (model/poolrule.h) */
        dra_pool_tally t;
        dra_pool_tally_init(&t, gen, DRA_POOL_FIRST_ADDED);
        for (size_t k = i; k < j; k++) {
            dra_pool_tally_add(&t, refs[k].generation, refs[k].count, true);
            if (refs[k].generation == gen)
                add_devices(out, &cap, &refs[k]);
        }
        dra_pool_verdict v = dra_pool_tally_verdict(&t, DRA_POOL_ALL);
        char why[160];
        if (v == DRA_POOL_INCOMPLETE && (json_int_t)t.n < t.want)
            add_note(out, dra_xasprintf("pool %s/%s is incomplete (%zu of %lld slices at generation %lld): "
                                        "the allocator does not use it",
                                        refs[i].driver, refs[i].pool, t.n, (long long)t.want, (long long)gen));
        else if (v != DRA_POOL_COMPLETE)
            add_note(out, dra_xasprintf("pool %s/%s: %s: the allocator does not use it", refs[i].driver, refs[i].pool,
                                        dra_pool_verdict_reason(&t, v, why, sizeof why)));
        i = j;
    }
    free(refs);
    return NULL;
}

/* The cache is the one field a reader fills in: a const device is const
 * to its users, not to its lazily built conversion. */
json_t *dra_sel_device_ref(const dra_sel_device *d)
{
    if (d->device)
        return json_incref((json_t *)d->device);
    json_t *v = dra_json_read_compact(d->text, d->text_len);
    return v ? v : json_object(); /* the text is our own dump: it parses */
}

const cel_dra_device *dra_sel_device_cel(const dra_sel_device *d, const cel_dra_convert *how)
{
    if (!d->cel_cache) {
        dra_arena scratch = DRA_ARENA_INIT;
        if (d->device) {
            ((dra_sel_device *)d)->cel_cache = cel_dra_device_build_as(d->device, d->driver, &scratch, how);
        } else { /* held as text: built from it, no tree */
            ((dra_sel_device *)d)->cel_cache =
                cel_dra_device_build_text(d->text ? d->text : "", d->text ? d->text_len : 0, d->driver, &scratch, how);
        }
        dra_arena_free(&scratch);
    }
    return d->cel_cache;
}

void dra_sel_device_release(const dra_sel_device *d)
{
    dra_sel_device *w = (dra_sel_device *)d;
    cel_dra_device_free(w->cel_cache);
    w->cel_cache = NULL;
}

void dra_sel_devices_free(dra_sel_devices *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].id);
        dra_sel_device_release(&d->v[i]);
    }
    for (size_t i = 0; i < d->nnotes; i++)
        free(d->notes[i]);
    free(d->v);
    free(d->notes);
    memset(d, 0, sizeof *d);
}

const dra_sel_device *dra_sel_find(const dra_sel_devices *d, const char *id)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->v[i].id, id))
            return &d->v[i];
    return NULL;
}

json_t *dra_sel_device_json(const dra_sel_device *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "driver", json_string(d->driver));
    json_object_set_new(o, "pool", json_string(d->pool));
    if (d->node)
        json_object_set_new(o, "node", json_string(d->node));
    json_object_set_new(o, "device", dra_sel_device_ref(d));
    return o;
}

/* ---- reading ---- */

/* A device kept as one JSON string: "name\0node\0json" (node empty when the
 * device names none), the compact JSON of the whole device object. */
static json_t *kept_text(dra_buf *b, const json_t *dev)
{
    const char *name = json_string_value(json_object_get(dev, "name"));
    const char *node = json_string_value(json_object_get(dev, "nodeName"));
    if (!name || strlen(name) != json_string_length(json_object_get(dev, "name")) ||
        (node && strlen(node) != json_string_length(json_object_get(dev, "nodeName"))))
        return NULL; /* an odd device (no name, a NUL inside): kept as it is */
    dra_buf_reset(b);
    dra_buf_append(b, name, strlen(name) + 1);
    dra_buf_append(b, node ? node : "", (node ? strlen(node) : 0) + 1);
    dra_json_write_compact(b, dev);
    return json_stringn(b->data, b->len);
}

typedef struct sel_reader {
    dra_objset *set;
    dra_loader *loader;
    dra_errs errs;   /* of the objects: many, so not appended one by one */
    dra_kind *kinds; /* of the kept objects */
    size_t nkinds;
    dra_buf text; /* scratch for a device's text */
} sel_reader;

static dra_err *keep_one(void *ctx, dra_obj *o)
{
    sel_reader *r = ctx;
    dra_kind kind;
    bool passed = false;
    dra_err *e = dra_loader_add(r->loader, o, &kind, &passed); /* converts in place */
    if (e) {
        dra_errs_add(&r->errs, e);
        return NULL;
    }
    if (!passed)
        return NULL;
    if (kind == DRA_KIND_RESOURCE_SLICE) {
        json_t *devs = json_object_get(json_object_get(o->json, "spec"), "devices");
        for (size_t i = 0; i < json_array_size(devs); i++) {
            json_t *t = json_is_object(json_array_get(devs, i)) ? kept_text(&r->text, json_array_get(devs, i)) : NULL;
            if (t)
                json_array_set_new(devs, i, t);
        }
    }
    dra_objset_keep(r->set, o);
    r->kinds = dra_xgrow(r->kinds, r->nkinds, sizeof *r->kinds);
    r->kinds[r->nkinds++] = kind;
    return NULL;
}

dra_err *dra_sel_input_load(dra_sel_input *in, char *const *paths, size_t npaths, const dra_features *f)
{
    dra_load_opts lo = {.skip_unknown = true};
    lo.validate.features = f;
    sel_reader r = {&in->set, dra_loader_new(&lo, in->set.field_validation), DRA_ERRS_INIT, NULL, 0, DRA_BUF_INIT};
    r.errs.fold = DRA_ERRS_FOLD; /* a flood is counted, not kept */
    dra_err *e = dra_read_paths_each(&in->set, paths, npaths, keep_one, &r);
    /* the reader's relaxed fields first, as a whole load gives them */
    in->model.warnings = dra_err_append(in->model.warnings, in->set.warnings);
    in->set.warnings = NULL;
    in->model.files_repeated = in->set.files_repeated;
    e = dra_loader_end(r.loader, e, dra_errs_take(&r.errs), &in->model);
    for (dra_err *x = e; x; x = x->next)
        x->code = DRA_EXIT_INPUT;
    for (size_t i = 0; !e && i < in->set.n; i++)
        dra_model_add(&in->model, &in->set.v[i], r.kinds[i]);
    free(r.kinds);
    dra_buf_free(&r.text);
    if (!e)
        e = dra_sel_gather(&in->model, f, &in->devs);
    return e;
}

void dra_sel_input_free(dra_sel_input *in)
{
    dra_sel_devices_free(&in->devs);
    dra_model_free(&in->model);
    dra_objset_free(&in->set);
}
