/* Load pipeline; see load.h. */
#include "load.h"

#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "defaults.h"
#include "features.h"
#include "strict.h"

static char *make_key(dra_kind kind, const char *ns, const char *name)
{
    return dra_xasprintf("%d\x1f%s\x1f%s", (int)kind, dra_kind_namespaced(kind) && ns ? ns : "", name);
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
    char *key = make_key(kind, ns, name);
    intptr_t o = 0;
    bool found = dra_strmap_get(&m->index, key, strlen(key), &o);
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

/* AuthorizedForAdmin (pkg/registry/resource/resourceclaim/adminaccess.go
 * and the template strategy): a claim or template that asks for admin access
 * must live in a namespace labelled ADMIN_LABEL=true.  The API server looks
 * the namespace up; offline, we can only when the Namespace is in the input,
 * and say so when it is not. */
static dra_err *check_admin_access(const json_t *obj, dra_kind kind, const json_t **namespaces, dra_err **warnings)
{
    const json_t *spec = json_object_get(obj, "spec");
    const char *prefix = "spec.devices.requests";
    if (kind == DRA_KIND_RESOURCE_CLAIM_TEMPLATE) {
        spec = json_object_get(spec, "spec");
        prefix = "spec.spec.devices.requests";
    } else if (kind != DRA_KIND_RESOURCE_CLAIM) {
        return NULL;
    }
    const json_t *reqs = json_object_get(json_object_get(spec, "devices"), "requests");
    size_t i;
    const json_t *r;
    long first = -1;
    json_array_foreach(reqs, i, r) {
        if (json_is_true(json_object_get(json_object_get(r, "exactly"), "adminAccess"))) {
            first = (long)i;
            break;
        }
    }
    if (first < 0)
        return NULL;
    const char *ns = json_string_value(json_object_get(json_object_get(obj, "metadata"), "namespace"));
    if (!ns)
        return NULL;
    char *path = dra_xasprintf("%s[%ld].exactly.adminAccess", prefix, first);
    dra_err *e = NULL;
    for (const json_t **n = namespaces; *n; n++) {
        const json_t *md = json_object_get(*n, "metadata");
        const char *name = json_string_value(json_object_get(md, "name"));
        if (!name || strcmp(name, ns) != 0)
            continue;
        const char *label = json_string_value(json_object_get(json_object_get(md, "labels"), ADMIN_LABEL));
        if (!label || strcmp(label, "true") != 0)
            e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Forbidden: admin access to devices requires the `"
                                          ADMIN_LABEL ": true` label on the containing namespace"), path);
        free(path);
        return e;
    }
    *warnings = dra_err_append(*warnings, dra_err_field(dra_err_new(DRA_EXIT_INPUT,
        "admin access could not be checked: Namespace %s is not in the input (the API server requires the `"
        ADMIN_LABEL ": true` label on it)", ns), path));
    free(path);
    return NULL;
}

dra_err *dra_load(dra_objset *set, const dra_load_opts *opts, dra_model *out)
{
    static const dra_load_opts defaults = {0};
    if (!opts)
        opts = &defaults;
    const char *default_ns = opts->default_namespace ? opts->default_namespace : "default";
    dra_err *all = NULL, **tail = &all;
    /* duplicate fields the reader relaxed come first, in input order */
    out->warnings = dra_err_append(out->warnings, set->warnings);
    set->warnings = NULL;
    out->files_repeated = set->files_repeated;
    const json_t **namespaces = input_namespaces(set);
    bool admin_gate = dra_feature_enabled(opts->validate.features, DRA_FEATURE_ADMIN_ACCESS);
#define APPEND(e)                                \
    do {                                         \
        dra_err *e_ = (e);                       \
        if (e_) {                                \
            *tail = e_;                          \
            while (*tail)                        \
                tail = &(*tail)->next;           \
        }                                        \
    } while (0)

    for (size_t i = 0; i < set->n; i++) {
        dra_obj *o = &set->v[i];
        json_t *obj = o->json;
        dra_kind kind;
        dra_apiver ver;
        dra_err *e = dra_kind_of(obj, &kind, &ver);
        if (e) {
            /* Skipping suits cluster dumps full of other kinds, but an object
             * of the DRA group we cannot read (a typo in kind, a version we do
             * not know) would silently drop out of every answer. */
            const char *av = json_string_value(json_object_get(obj, "apiVersion"));
            bool dra_group = av && strncmp(av, "resource.k8s.io/", 16) == 0;
            if (opts->skip_unknown && dra_kind_unknown_err(e) && !dra_group) {
                dra_err_free(e);
                out->skipped++;
            } else {
                APPEND(dra_obj_locate(e, o));
            }
            continue;
        }
        dra_err *w = NULL;
        e = dra_strict_check(obj, kind, ver, set->field_validation, &w, o);
        out->warnings = dra_err_append(out->warnings, dra_obj_locate(w, o));
        if (e) {
            APPEND(dra_obj_locate(e, o));
            continue;
        }
        e = dra_convert_to_v1(obj, kind, ver);
        if (e) {
            APPEND(dra_obj_locate(e, o));
            continue;
        }
        if (dra_kind_namespaced(kind)) {
            json_t *md = json_object_get(obj, "metadata");
            if (json_is_object(md)) {
                json_t *ns = json_object_get(md, "namespace");
                if (!ns || json_is_null(ns) || (json_is_string(ns) && json_string_length(ns) == 0))
                    json_object_set_new(md, "namespace", json_string(default_ns));
            }
        }
        dra_default_object(obj, kind, opts->now);
        if (!opts->no_validate) {
            e = dra_validate(obj, kind, &opts->validate);
            if (e) {
                APPEND(dra_obj_locate(e, o));
                continue;
            }
            if (admin_gate) {
                w = NULL;
                e = check_admin_access(obj, kind, namespaces, &w);
                out->warnings = dra_err_append(out->warnings, dra_obj_locate(w, o));
                if (e) {
                    APPEND(dra_obj_locate(e, o));
                    continue;
                }
            }
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
                APPEND(dra_obj_locate(e, o));
                continue;
            }
        }
        list_add(&out->by_kind[kind], o);
    }
#undef APPEND
    free(namespaces);
    return all;
}
