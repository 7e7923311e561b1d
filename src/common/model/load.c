/* Load pipeline; see load.h. */
#include "load.h"

#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "defaults.h"
#include "../io/jalloc.h"
#include "../io/jparse.h"
#include "features.h"
#include "strict.h"
#include "validate_quota.h"

/* The index key "KIND\x1fNS\x1fNAME" (KIND in decimal) into out, which has
 * room for key_len's bytes and a NUL. */
static size_t key_len(dra_kind kind, const char *ns, const char *name)
{
    size_t digits = 1;
    for (unsigned k = (unsigned)kind; k >= 10; k /= 10)
        digits++;
    return digits + 2 + (dra_kind_namespaced(kind) && ns ? strlen(ns) : 0) + strlen(name);
}

static void key_put(char *out, dra_kind kind, const char *ns, const char *name)
{
    char num[12];
    size_t nd = 0;
    unsigned k = (unsigned)kind;
    do
        num[nd++] = (char)('0' + k % 10);
    while (k /= 10);
    while (nd)
        *out++ = num[--nd];
    *out++ = '\x1f';
    if (dra_kind_namespaced(kind) && ns) {
        size_t n = strlen(ns);
        memcpy(out, ns, n);
        out += n;
    }
    *out++ = '\x1f';
    size_t n = strlen(name);
    memcpy(out, name, n + 1);
}

static char *make_key(dra_kind kind, const char *ns, const char *name)
{
    char *key = dra_xmalloc(key_len(kind, ns, name) + 1);
    key_put(key, kind, ns, name);
    return key;
}

/* Insert; returns the already indexed object on a duplicate (key freed). */
static const dra_obj *insert(dra_model *m, char *key, const dra_obj *o)
{
    intptr_t old;
    if (dra_strmap_add(&m->index, key, strlen(key), (intptr_t)o, &old)) {
        free(key);
        return (const dra_obj *)old;
    }
    return NULL;
}

const dra_obj *dra_model_find(const dra_model *m, dra_kind kind, const char *ns, const char *name)
{
    if (!m || !name)
        return NULL;
    char small[256];
    size_t len = key_len(kind, ns, name);
    char *key = len < sizeof small ? small : dra_xmalloc(len + 1);
    key_put(key, kind, ns, name);
    intptr_t o = 0;
    bool found = dra_strmap_get(&m->index, key, len, &o);
    if (key != small)
        free(key);
    return found ? (const dra_obj *)o : NULL;
}

const dra_obj *dra_model_class(const dra_model *m, const char *name)
{
    return dra_model_find(m, DRA_KIND_DEVICE_CLASS, NULL, name);
}

const dra_obj *dra_model_claim(const dra_model *m, const char *ns, const char *name)
{
    return dra_model_find(m, DRA_KIND_RESOURCE_CLAIM, ns, name);
}

const dra_obj *dra_model_claim_template(const dra_model *m, const char *ns, const char *name)
{
    return dra_model_find(m, DRA_KIND_RESOURCE_CLAIM_TEMPLATE, ns, name);
}

const dra_obj *dra_model_node(const dra_model *m, const char *name)
{
    return dra_model_find(m, DRA_KIND_NODE, NULL, name);
}

const dra_obj *dra_model_slice(const dra_model *m, const char *name)
{
    return dra_model_find(m, DRA_KIND_RESOURCE_SLICE, NULL, name);
}

const dra_obj *dra_model_pod(const dra_model *m, const char *ns, const char *name)
{
    return dra_model_find(m, DRA_KIND_POD, ns, name);
}

void dra_model_free(dra_model *m)
{
    for (int k = 0; k < DRA_KIND_COUNT; k++)
        free(m->by_kind[k].v);
    dra_err_free(m->warnings);
    for (size_t i = 0; i < m->index.cap; i++)
        free((char *)m->index.e[i].key);
    dra_strmap_free(&m->index);
    memset(m, 0, sizeof *m);
}

static void list_add(dra_model_list *l, const dra_obj *o)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = dra_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = o;
}

void dra_model_add(dra_model *m, const dra_obj *o, dra_kind kind)
{
    json_t *md = json_object_get(o->json, "metadata");
    const char *name = json_string_value(json_object_get(md, "name"));
    const char *ns = json_string_value(json_object_get(md, "namespace"));
    if (name && *name && insert(m, make_key(kind, ns, name), o))
        return;
    list_add(&m->by_kind[kind], o);
}

static char *location(const dra_obj *o)
{
    if (o->line > 0)
        return dra_xasprintf("%s:%d", strcmp(o->file, "-") == 0 ? "<stdin>" : o->file, o->line);
    if (o->doc > 0)
        return dra_xasprintf("%s (document %d)", strcmp(o->file, "-") == 0 ? "<stdin>" : o->file, o->doc);
    return dra_xstrdup(strcmp(o->file, "-") == 0 ? "<stdin>" : o->file);
}

/* The Namespace objects of the input, for checks that need the containing
 * namespace (admin access); NULL-terminated, caller frees the array. */
static const json_t **input_namespaces(const dra_objset *set)
{
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++) {
        const char *k = json_string_value(json_object_get(set->v[i].json, "kind"));
        const char *av = json_string_value(json_object_get(set->v[i].json, "apiVersion"));
        n += k && av && strcmp(k, "Namespace") == 0 && strcmp(av, "v1") == 0;
    }
    const json_t **v = dra_xcalloc(n + 1, sizeof *v);
    n = 0;
    for (size_t i = 0; i < set->n; i++) {
        const char *k = json_string_value(json_object_get(set->v[i].json, "kind"));
        const char *av = json_string_value(json_object_get(set->v[i].json, "apiVersion"));
        if (k && av && strcmp(k, "Namespace") == 0 && strcmp(av, "v1") == 0)
            v[n++] = set->v[i].json;
    }
    return v;
}

#define ADMIN_LABEL "resource.kubernetes.io/admin-access"

/* The first request asking for admin access ("spec.devices.requests[i].
 * adminAccess", without "exactly": the path upstream reports), or of a
 * claim's allocation results ("status.allocation.devices.results[i].
 * adminAccess"); NULL when none.  Caller frees. */
static char *admin_path(const json_t *list, bool results)
{
    size_t i;
    const json_t *r;
    json_array_foreach(list, i, r) {
        const json_t *x = results ? r : json_object_get(r, "exactly");
        if (json_is_true(json_object_get(x, "adminAccess")))
            return dra_xasprintf("%s[%zu].adminAccess",
                                 results ? "status.allocation.devices.results" : "spec.devices.requests", i);
    }
    return NULL;
}

/* AuthorizedForAdmin and AuthorizedForAdminStatus (k8s.io/kubernetes v1.37.2
 * pkg/registry/resource/utils.go, called by the resourceclaim and
 * resourceclaimtemplate strategies): a claim or template that asks for
 * admin access, or a claim whose allocation grants it, must live in a
 * namespace labelled ADMIN_LABEL=true.  The API server looks the namespace
 * up; offline, we can only when the Namespace is in the input, and say so
 * when it is not. */
static dra_err *check_admin_access(const json_t *obj, dra_kind kind, const json_t **namespaces, dra_err **warnings)
{
    const json_t *spec = json_object_get(obj, "spec");
    if (kind == DRA_KIND_RESOURCE_CLAIM_TEMPLATE)
        spec = json_object_get(spec, "spec");
    else if (kind != DRA_KIND_RESOURCE_CLAIM)
        return NULL;
    const char *ns = json_string_value(json_object_get(json_object_get(obj, "metadata"), "namespace"));
    if (!ns)
        return NULL;
    char *paths[2] = {admin_path(json_object_get(json_object_get(spec, "devices"), "requests"), false), NULL};
    if (kind == DRA_KIND_RESOURCE_CLAIM)
        paths[1] = admin_path(
            json_object_get(json_object_get(json_object_get(json_object_get(obj, "status"), "allocation"), "devices"),
                            "results"),
            true);
    dra_err *e = NULL;
    for (int p = 0; p < 2; p++) {
        if (!paths[p])
            continue;
        const json_t **n = namespaces;
        for (; *n; n++) {
            const char *name = json_string_value(json_object_get(json_object_get(*n, "metadata"), "name"));
            if (name && strcmp(name, ns) == 0)
                break;
        }
        if (!*n) {
            *warnings = dra_err_append(
                *warnings,
                dra_err_field(dra_err_new(DRA_EXIT_INPUT,
                                          "admin access could not be checked: Namespace %s is not in the input (the "
                                          "API server requires the `" ADMIN_LABEL ": true` label on it)",
                                          ns),
                              paths[p]));
        } else {
            const char *label = json_string_value(
                json_object_get(json_object_get(json_object_get(*n, "metadata"), "labels"), ADMIN_LABEL));
            if (!label || strcmp(label, "true") != 0)
                e = dra_err_append(
                    e, dra_err_field(dra_err_new(DRA_EXIT_INPUT,
                                                 "Forbidden: admin access to devices requires the `" ADMIN_LABEL
                                                 ": true` label on the containing namespace"),
                                     paths[p]));
        }
        free(paths[p]);
    }
    return e;
}

/* What one object's pipeline needs besides the object. */
typedef struct steps {
    const dra_load_opts *opts;
    const char *default_ns;
    dra_field_validation fv;
    bool admin_gate;
} steps;

static steps steps_of(const dra_load_opts *opts, dra_field_validation fv)
{
    static const dra_load_opts defaults = {0};
    if (!opts)
        opts = &defaults;
    return (steps){opts, opts->default_namespace ? opts->default_namespace : "default",
                   opts->checked ? DRA_FV_IGNORE : fv,
                   dra_feature_enabled(opts->validate.features, DRA_FEATURE_ADMIN_ACCESS)};
}

/* Steps 1-5 on one object (changed in place): its errors, located (NULL and
 * *kind set when it passed); *skipped when its kind is skipped.  Warnings
 * (relaxed fields, admin access unchecked) go to *warnings.  *as_read (may
 * be NULL): whether its content is still as read (a v1 resource object,
 * nothing dropped, set or defaulted). */
/* A v1 ResourceQuota: strict decoding, then ValidateResourceQuota. */
static dra_err *check_quota(const steps *st, dra_obj *o, dra_errs *warnings)
{
    /* namespaced: kubectl's namespace when it has none, as for every kind */
    json_t *md = json_object_get(o->json, "metadata");
    json_t *ns = json_object_get(md, "namespace");
    if (json_is_object(md) && (!ns || json_is_null(ns) || (json_is_string(ns) && !json_string_length(ns))))
        json_object_set_new(md, "namespace", json_string(st->default_ns));
    dra_err *w = NULL;
    dra_err *e = dra_strict_check_part(o->json, "resourceQuota", "", st->fv, &w, o);
    dra_errs_add(warnings, dra_obj_locate(w, o));
    if (!e && !st->opts->no_validate)
        e = dra_validate_resource_quota(o->json, &st->opts->validate);
    return e ? dra_obj_locate(e, o) : NULL;
}

static dra_err *load_steps(const steps *st, const json_t **namespaces, dra_obj *o, dra_kind *kind_out, bool *skipped,
                           dra_errs *warnings, bool *as_read)
{
    const dra_load_opts *opts = st->opts;
    json_t *obj = o->json;
    dra_kind kind;
    dra_apiver ver;
    *skipped = false;
    dra_err *e = dra_kind_of_read(o, &kind, &ver);
    if (e) {
        /* Skipping suits cluster dumps full of other kinds, but an object
         * of the DRA group we cannot read (a typo in kind, a version we do
         * not know) would silently drop out of every answer. */
        const char *av = json_string_value(json_object_get(obj, "apiVersion"));
        bool dra_group = av && strncmp(av, "resource.k8s.io/", 16) == 0;
        if (opts->skip_unknown && dra_kind_unknown_err(e) && !dra_group) {
            dra_err_free(e);
            /* not a kind of the model, but read by the tools that apply
             * quotas: decoded and validated as the API server would (an
             * invalid one is an error, not a skipped object) */
            e = dra_is_resource_quota(obj) && !opts->checked ? check_quota(st, o, warnings) : NULL;
            *skipped = e == NULL;
            return e;
        }
        return dra_obj_locate(e, o);
    }
    if (!opts->release_fields && !opts->checked) {
        /* an object of a version the release does not serve cannot be in
         * its cluster: it is no object of the input, as an unknown kind
         * (strict.c's table: a PodGroup, which 1.36 serves as v1alpha2
         * alone, 1.37 and 1.38 as v1beta1 and v1alpha3; a DeviceTaintRule,
         * which 1.36 serves as v1alpha3 and v1beta2 only, v1 from 1.37).
         * The tools' client keeps such a rule at the version it was served
         * at (kube/api.h), so a 1.36 cluster's rules read from it pass.
         * Checked objects were converted to v1 when they were read. */
        e = dra_strict_unserved(kind, ver, (int)dra_features_release_of(opts->validate.features));
        if (e && opts->skip_unknown) {
            dra_err_set_msg(e, dra_xasprintf("%s: Kubernetes %s does not serve it; left out", e->msg,
                                             dra_release_name(dra_features_release_of(opts->validate.features))));
            e->code = DRA_EXIT_OK;
            dra_errs_add(warnings, dra_obj_locate(e, o));
            *skipped = true;
            return NULL;
        }
        if (e)
            return dra_obj_locate(e, o);
    }
    dra_err *w = NULL;
    int release = opts->release_fields ? (int)dra_features_release_of(opts->validate.features) : 0;
    e = dra_strict_check_release(obj, kind, ver, st->fv, release, &w, o);
    dra_errs_add(warnings, dra_obj_locate(w, o));
    if (e)
        return dra_obj_locate(e, o);
    e = dra_convert_to_v1(obj, kind, ver);
    if (e)
        return dra_obj_locate(e, o);
    bool changed = false;
    if (dra_kind_namespaced(kind)) {
        json_t *md = json_object_get(obj, "metadata");
        if (json_is_object(md)) {
            json_t *ns = json_object_get(md, "namespace");
            if (!ns || json_is_null(ns) || (json_is_string(ns) && json_string_length(ns) == 0)) {
                json_object_set_new(md, "namespace", json_string(st->default_ns));
                changed = true;
            }
        }
    }
    changed |= dra_default_object(obj, kind, opts->now);
    if (as_read) /* only v1 resource kinds convert to themselves; strict decoding drops nothing */
        *as_read = !changed && ver == DRA_APIVER_RESOURCE_V1 && st->fv == DRA_FV_STRICT;
    if (!opts->no_validate && !opts->checked) {
        /* the strategies' admin access check first, then validation: the
         * API server reports both */
        dra_err *admin = NULL;
        if (st->admin_gate && namespaces) {
            w = NULL;
            admin = check_admin_access(obj, kind, namespaces, &w);
            dra_errs_add(warnings, dra_obj_locate(w, o));
        }
        dra_validate_opts vo = opts->validate;
        vo.src = o;
        bool nothing_to_drop = false;
        e = dra_err_append(admin, dra_validate_noting_drops(obj, kind, &vo, &nothing_to_drop));
        if (e && kind == DRA_KIND_RESOURCE_SLICE && ver == DRA_APIVER_RESOURCE_V1BETA1)
            dra_validate_slice_v1beta1_paths(e, opts->validate.features);
        if (e && (kind == DRA_KIND_RESOURCE_CLAIM || kind == DRA_KIND_RESOURCE_CLAIM_TEMPLATE) &&
            ver == DRA_APIVER_RESOURCE_V1BETA1)
            dra_validate_claim_v1beta1_paths(e, obj, kind, opts->validate.features);
        /* Then the object is what the API server would store: without the
         * fields of disabled features (dra_validate checked it so), each
         * drop said in a warning.  Stored objects (no_validate, checked)
         * are used as they are, as the scheduler uses them. */
        w = nothing_to_drop ? NULL : dra_drop_disabled_fields(obj, kind, opts->validate.features);
        if (w && as_read)
            *as_read = false;
        dra_errs_add(warnings, dra_obj_locate(w, o));
        if (e)
            return dra_obj_locate(e, o);
    }
    *kind_out = kind;
    return NULL;
}

dra_err *dra_load(dra_objset *set, const dra_load_opts *opts, dra_model *out)
{
    steps st = steps_of(opts, set->field_validation);
    dra_errs all = DRA_ERRS_INIT, warns = DRA_ERRS_INIT;
    all.fold = warns.fold = DRA_ERRS_FOLD; /* a flood is counted, not kept */
    /* duplicate fields the reader relaxed come first, in input order */
    dra_errs_add(&warns, out->warnings);
    dra_errs_add(&warns, set->warnings);
    set->warnings = NULL;
    out->files_repeated = set->files_repeated;
    const json_t **namespaces = input_namespaces(set);

    for (size_t i = 0; i < set->n; i++) {
        dra_obj *o = &set->v[i];
        json_t *obj = o->json;
        dra_kind kind = (dra_kind)0;
        bool skipped;
        dra_err *e = load_steps(&st, namespaces, o, &kind, &skipped, &warns, NULL);
        out->skipped += skipped;
        if (skipped)
            out->forbidden |= dra_snapshot_forbidden(obj);
        if (e || skipped) {
            dra_errs_add(&all, e);
            continue;
        }
        json_t *md = json_object_get(obj, "metadata");
        const char *name = json_string_value(json_object_get(md, "name"));
        const char *ns = json_string_value(json_object_get(md, "namespace"));
        if (name && *name) {
            const dra_obj *prev = insert(out, make_key(kind, ns, name), o);
            if (prev && json_equal(prev->json, obj)) {
                /* the same object twice (a demo's step files repeat the
                 * namespace and class): one object */
                out->collapsed++;
                continue;
            }
            if (prev) {
                char *where = location(prev);
                char *ref = dra_obj_ref(obj);
                e = dra_err_new(DRA_EXIT_INPUT, "duplicate object %s, first defined at %s", ref, where);
                free(ref);
                free(where);
                dra_errs_add(&all, dra_obj_locate(e, o));
                continue;
            }
        }
        list_add(&out->by_kind[kind], o);
    }
    out->warnings = dra_errs_take(&warns);
    free(namespaces);
    return dra_errs_take(&all);
}

/* ---- streaming ------------------------------------------------------------ */

/* One named object seen: its key's and content's hashes and its place.
 *
 * Kept as hashes alone, 40 bytes an object and two 4-byte index slots
 * (by key and by content, at most half full), so that a stream of a
 * million objects costs tens of MB.
 * The key is FNV-1a 128 of kind, namespace and name: two different keys
 * are taken for one (a false "duplicate object" error) with probability
 * at most n(n-1)/2 * 2^-128 over n named objects (< 2^-68 for 2^30
 * objects).  The content hash (64 bits) decides only between objects of
 * one key: a different object taken for an identical repeat has
 * probability 2^-64 a repeated key.  Neither holds against input crafted
 * to collide.  The first object is named by its place (file, document,
 * line), as the error names it, not by its strings. */
typedef struct seen_obj {
    dra_hash128 key;
    uint64_t content;
    uint32_t file; /* index in the loader's files */
    int32_t doc, line;
} seen_obj;

/* An object whose admin access waits for its Namespace (later in the input). */
typedef struct held_obj {
    json_t *json;
    dra_kind kind;
    uint32_t file; /* in the loader's files */
    int doc, line, item;
} held_obj;

struct dra_loader {
    steps st;
    dra_load_opts opts;
    seen_obj *seen; /* in input order */
    size_t nseen;
    uint32_t *slot;  /* open addressing: 0 free, else seen index + 1 */
    uint32_t *cslot; /* the same by content hash (several may share one) */
    size_t nslot;    /* 0 or a power of two, of slot and of cslot */
    char **files;    /* the file names of seen and held objects, copies */
    size_t nfiles;
    const json_t **namespaces; /* NULL-terminated, one reference each */
    size_t nns;
    held_obj *held;
    size_t nheld;
    size_t skipped, collapsed;
    uint32_t forbidden; /* dra_model's */
    dra_errs warnings;  /* of every object: many */
};

dra_loader *dra_loader_new(const dra_load_opts *opts, dra_field_validation fv)
{
    dra_loader *l = dra_xcalloc(1, sizeof *l);
    if (opts)
        l->opts = *opts;
    l->st = steps_of(&l->opts, fv);
    l->namespaces = dra_xcalloc(1, sizeof *l->namespaces);
    l->warnings.fold = DRA_ERRS_FOLD; /* a flood is counted, not kept */
    return l;
}

/* The slot of key: its own, or the free one where it goes. */
static uint32_t *seen_slot(dra_loader *l, dra_hash128 key)
{
    size_t mask = l->nslot - 1;
    for (size_t i = (size_t)key.lo & mask;; i = (i + 1) & mask)
        if (l->slot[i] == 0 || dra_hash128_eq(l->seen[l->slot[i] - 1].key, key))
            return &l->slot[i];
}

/* The key of kind/namespace/name (namespace "" for cluster-scoped kinds),
 * each part with its length: no two keys share their bytes. */
static dra_hash128 object_key(dra_kind kind, const char *ns, const char *name)
{
    if (!dra_kind_namespaced(kind) || !ns)
        ns = "";
    size_t parts[3] = {(size_t)kind, strlen(ns), strlen(name)};
    dra_hash128 h = dra_fnv1a128(DRA_FNV128_OFFSET, parts, sizeof parts);
    h = dra_fnv1a128(h, ns, parts[1]);
    return dra_fnv1a128(h, name, parts[2]);
}

/* A free slot in cslot for content. */
static uint32_t *content_slot(dra_loader *l, uint64_t content)
{
    size_t mask = l->nslot - 1;
    size_t i = (size_t)content & mask;
    while (l->cslot[i])
        i = (i + 1) & mask;
    return &l->cslot[i];
}

static void seen_grow(dra_loader *l)
{
    free(l->slot);
    free(l->cslot);
    l->nslot = l->nslot ? l->nslot * 2 : 1024;
    l->slot = dra_xcalloc(l->nslot, sizeof *l->slot);
    l->cslot = dra_xcalloc(l->nslot, sizeof *l->cslot);
    for (size_t i = 0; i < l->nseen; i++) {
        *seen_slot(l, l->seen[i].key) = (uint32_t)(i + 1);
        *content_slot(l, l->seen[i].content) = (uint32_t)(i + 1);
    }
}

/* Whether some object seen has this content hash. */
static bool content_seen(const dra_loader *l, uint64_t content)
{
    if (!l->nslot)
        return false;
    size_t mask = l->nslot - 1;
    for (size_t i = (size_t)content & mask; l->cslot[i]; i = (i + 1) & mask)
        if (l->seen[l->cslot[i] - 1].content == content)
            return true;
    return false;
}

/* An object read as the text of one seen before (by content hash, then by
 * kind, namespace and name): one object, loaded once.  Only for strict
 * field validation, where loading the copy could say nothing new. */
static bool repeat_of_seen(dra_loader *l, const dra_obj *o, dra_kind *kind)
{
    if (!o->content_known || l->st.fv != DRA_FV_STRICT || !content_seen(l, o->content))
        return false;
    dra_kind k;
    dra_apiver ver;
    dra_err *e = dra_kind_of(o->json, &k, &ver);
    if (e) {
        dra_err_free(e);
        return false;
    }
    json_t *md = json_object_get(o->json, "metadata");
    const char *name = json_string_value(json_object_get(md, "name"));
    const char *ns = json_string_value(json_object_get(md, "namespace"));
    if (!name || !*name || (dra_kind_namespaced(k) && (!ns || !*ns)))
        return false;
    uint32_t *slot = seen_slot(l, object_key(k, ns, name));
    if (!*slot || l->seen[*slot - 1].content != o->content)
        return false;
    *kind = k;
    return true;
}

/* The index of file in l->files (consecutive objects share theirs).  The
 * loader keeps its own copy: the set a name came from may be freed before
 * dra_loader_finish names a held object or a duplicate's first place. */
static uint32_t file_index(dra_loader *l, const char *file)
{
    if (!file)
        file = "";
    if (!l->nfiles || strcmp(l->files[l->nfiles - 1], file) != 0) {
        l->files = dra_xgrow(l->files, l->nfiles, sizeof *l->files);
        l->files[l->nfiles++] = dra_xstrdup(file);
    }
    return (uint32_t)(l->nfiles - 1);
}

static bool is_namespace(const json_t *obj)
{
    const char *k = json_string_value(json_object_get(obj, "kind"));
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    return k && av && strcmp(k, "Namespace") == 0 && strcmp(av, "v1") == 0;
}

dra_err *dra_loader_add(dra_loader *l, dra_obj *o, dra_kind *kind, bool *passed)
{
    *passed = false;
    json_t *obj = o->json;
    if (is_namespace(obj)) {
        l->namespaces = dra_xrealloc(l->namespaces, (l->nns + 2) * sizeof *l->namespaces);
        l->namespaces[l->nns++] = dra_jalloc_keep(obj); /* kept to the end: out of the arena */
        l->namespaces[l->nns] = NULL;
    }
    if (repeat_of_seen(l, o, kind)) {
        l->collapsed++; /* the same object twice: one object */
        return NULL;
    }
    bool skipped;
    dra_errs ow = DRA_ERRS_INIT;
    bool as_read = false;
    dra_err *e = load_steps(&l->st, l->namespaces, o, kind, &skipped, &ow, &as_read);
    dra_err *w = dra_errs_take(&ow);
    l->skipped += skipped;
    if (skipped)
        l->forbidden |= dra_snapshot_forbidden(o->json);
    if (e || skipped) {
        dra_errs_add(&l->warnings, w);
        return e;
    }
    /* Admin access not checkable yet: the Namespace may come later.  Hold
     * the object and check at the end (only such claims are held). */
    bool hold = false;
    while (w) {
        dra_err *x = dra_err_pop(&w);
        if (strncmp(x->msg, "admin access could not be checked", 33) == 0) {
            dra_err_free(x);
            if (!hold) { /* once, for the spec and the status alike */
                hold = true;
                l->held = dra_xgrow(l->held, l->nheld, sizeof *l->held);
                l->held[l->nheld++] =
                    (held_obj){dra_jalloc_keep(obj), *kind, file_index(l, o->file), o->doc, o->line, o->item};
            }
        } else {
            dra_errs_add(&l->warnings, x);
        }
    }
    json_t *md = json_object_get(obj, "metadata");
    const char *name = json_string_value(json_object_get(md, "name"));
    const char *ns = json_string_value(json_object_get(md, "namespace"));
    if (name && *name) {
        dra_hash128 key = object_key(*kind, ns, name);
        if (2 * (l->nseen + 1) > l->nslot)
            seen_grow(l);
        uint32_t *slot = seen_slot(l, key);
        /* the hash the reader took while parsing, when the text is the object */
        uint64_t content = o->content_known && as_read ? o->content : dra_json_content_hash(obj);
        seen_obj *prev = *slot ? &l->seen[*slot - 1] : NULL;
        if (prev && prev->content == content) {
            l->collapsed++; /* the same object twice: one object */
            return NULL;
        }
        if (prev) {
            dra_obj first = {.file = l->files[prev->file], .doc = prev->doc, .line = prev->line};
            char *where = location(&first);
            char *ref = dra_obj_ref(obj);
            e = dra_err_new(DRA_EXIT_INPUT, "duplicate object %s, first defined at %s", ref, where);
            free(ref);
            free(where);
            return dra_obj_locate(e, o);
        }
        if (l->nseen >= UINT32_MAX - 1)
            abort(); /* past the 32-bit slots: as out of memory */
        l->seen = dra_xgrow(l->seen, l->nseen, sizeof *l->seen);
        l->seen[l->nseen] = (seen_obj){key, content, file_index(l, o->file), o->doc, o->line};
        *slot = (uint32_t)(++l->nseen);
        *content_slot(l, content) = (uint32_t)l->nseen;
    }
    *passed = true;
    return NULL;
}

dra_err *dra_loader_end(dra_loader *l, dra_err *read_err, dra_err *obj_errs, dra_model *stats)
{
    dra_err *fin = dra_loader_finish(l, stats);
    if (!read_err)
        return dra_err_append(obj_errs, fin);
    dra_err_free(obj_errs);
    dra_err_free(fin);
    return read_err;
}

dra_err *dra_loader_finish(dra_loader *l, dra_model *stats)
{
    dra_errs all = DRA_ERRS_INIT;
    all.fold = DRA_ERRS_FOLD;
    for (size_t i = 0; i < l->nheld; i++) {
        held_obj *h = &l->held[i];
        dra_obj o = {.json = h->json,
                     .file = l->files[h->file],
                     .doc = h->doc,
                     .line = h->line,
                     .item = h->item,
                     .src_off = SIZE_MAX};
        dra_err *w = NULL;
        dra_err *e = check_admin_access(h->json, h->kind, l->namespaces, &w);
        dra_errs_add(&l->warnings, dra_obj_locate(w, &o));
        dra_errs_add(&all, dra_obj_locate(e, &o));
        json_decref(h->json);
    }
    stats->skipped += l->skipped;
    stats->forbidden |= l->forbidden;
    stats->collapsed += l->collapsed;
    stats->warnings = dra_err_append(stats->warnings, dra_errs_take(&l->warnings));
    for (size_t i = 0; i < l->nns; i++)
        json_decref((json_t *)l->namespaces[i]);
    free(l->namespaces);
    free(l->held);
    free(l->seen);
    free(l->slot);
    free(l->cslot);
    for (size_t i = 0; i < l->nfiles; i++)
        free(l->files[i]);
    free(l->files);
    free(l);
    return dra_errs_take(&all);
}
