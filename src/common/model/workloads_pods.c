/* The pods a workload controller makes, shared by the built-in kinds
 * (workloads.c) and the custom resources (workloads_crd.c): names as the
 * controllers and the API server's name generator give them, owners,
 * labels, counts and a Job's pods.  See workloads_impl.h. */
#include "workloads.h"
#include "workloads_impl.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/hash.h"
#include "../io/json.h"

static const char alphabet[] = DRA_WL_ALPHABET;

/* FNV-1a of s, then a 0x1f field separator */
uint64_t dra_wl_hash(uint64_t h, const char *s)
{
    return dra_fnv1a(dra_fnv1a_str(h, s ? s : ""), "\x1f", 1);
}

/* generateName + 5 characters, the base cut to 58 (names.SimpleNameGenerator) */
char *dra_wl_generated_name(const char *base, uint64_t h)
{
    char suffix[6];
    for (int i = 0; i < 5; i++) {
        suffix[i] = alphabet[h % (sizeof alphabet - 1)];
        h /= sizeof alphabet - 1;
    }
    suffix[5] = 0;
    size_t len = strlen(base);
    return dra_xasprintf("%.*s%s", (int)(len > 58 ? 58 : len), base, suffix);
}

/* A UUID-shaped identifier derived from the words (version nibble 8:
 * "custom", so it never collides with a real v4 UID). */
char *dra_wl_derived_uid(const char *kind, const char *ns, const char *name)
{
    uint64_t a = dra_wl_hash(dra_wl_hash(dra_wl_hash(DRA_FNV64_OFFSET, kind), ns), name);
    uint64_t b = dra_wl_hash(a, "uid");
    return dra_xasprintf("%08" PRIx64 "-%04" PRIx64 "-8%03" PRIx64 "-%04" PRIx64 "-%012" PRIx64, a >> 32,
                         (a >> 16) & 0xffff, a & 0xfff, (b >> 48) | 0x8000, b & UINT64_C(0xffffffffffff));
}

void dra_wl_add_assumed(json_t *md, const char *what)
{
    json_t *ann = json_object_get(md, "annotations");
    if (!json_is_object(ann)) {
        ann = json_object();
        json_object_set_new(md, "annotations", ann);
    }
    const char *old = dra_jfield_str(ann, DRA_ASSUMED_ANNOTATION);
    if (old && *old) {
        char *v = dra_xasprintf("%s,%s", old, what);
        json_object_set_new(ann, DRA_ASSUMED_ANNOTATION, json_string(v));
        free(v);
    } else {
        json_object_set_new(ann, DRA_ASSUMED_ANNOTATION, json_string(what));
    }
}

void dra_wl_push(dra_wl_objs *l, dra_obj o)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 32;
        l->v = dra_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = o;
}

/* One pod from a template. */
json_t *dra_wl_make_pod(const json_t *tmpl, const char *ns, const char *name, const dra_wl_owner *own,
                        bool name_assumed)
{
    const json_t *tmd = json_object_get(tmpl, "metadata");
    json_t *pod = json_object();
    json_object_set_new(pod, "apiVersion", json_string("v1"));
    json_object_set_new(pod, "kind", json_string("Pod"));
    json_t *md = json_object();
    json_object_set_new(md, "name", json_string(name));
    json_object_set_new(md, "namespace", json_string(ns));
    char *uid = dra_wl_derived_uid("Pod", ns, name);
    json_object_set_new(md, "uid", json_string(uid));
    free(uid);
    if (json_is_object(json_object_get(tmd, "labels")))
        json_object_set_new(md, "labels", json_deep_copy(json_object_get(tmd, "labels")));
    if (json_is_object(json_object_get(tmd, "annotations")))
        json_object_set_new(md, "annotations", json_deep_copy(json_object_get(tmd, "annotations")));
    dra_wl_add_assumed(md, name_assumed ? "name,uid" : "uid");
    json_object_set_new(md, "ownerReferences",
                        json_pack("[{s:s,s:s,s:s,s:s,s:b,s:b}]", "apiVersion", own->api_version, "kind", own->kind,
                                  "name", own->name, "uid", own->uid, "controller", 1, "blockOwnerDeletion", 1));
    json_object_set_new(pod, "metadata", md);
    const json_t *spec = json_object_get(tmpl, "spec");
    json_object_set_new(pod, "spec", json_is_object(spec) ? json_deep_copy(spec) : json_object());
    return pod;
}

void dra_wl_set_label(json_t *pod, const char *k, const char *v)
{
    json_t *md = json_object_get(pod, "metadata");
    json_t *labels = json_object_get(md, "labels");
    if (!json_is_object(labels)) {
        labels = json_object();
        json_object_set_new(md, "labels", labels);
    }
    json_object_set_new(labels, k, json_string(v));
}

int64_t dra_wl_int_or(const json_t *o, const char *k, int64_t def)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? json_integer_value(v) : def;
}

json_t *dra_wl_emit(dra_wl_ctx *c, const json_t *tmpl, const char *name, bool generated, const dra_wl_owner *own)
{
    if (c->n >= DRA_EXPAND_MAX_PODS) {
        c->capped = true;
        return NULL;
    }
    json_t *pod = dra_wl_make_pod(tmpl, c->ns, name, own, generated);
    const dra_obj *o = c->o;
    dra_wl_push(
        c->out,
        (dra_obj){.json = pod, .file = o->file, .doc = o->doc, .line = o->line, .item = o->item, .src_off = SIZE_MAX});
    c->n++;
    return pod;
}

char *dra_wl_gen(const dra_wl_ctx *c, const char *prefix, uint64_t k)
{
    return dra_wl_generated_name(prefix, dra_wl_hash(c->seed, prefix) + k * UINT64_C(0x9e3779b97f4a7c15));
}

int64_t dra_wl_count(dra_wl_ctx *c, int64_t want, const char *field)
{
    if (want < 0)
        return 0;
    if (want <= DRA_EXPAND_MAX_PODS - c->n)
        return want;
    c->warnings = dra_err_append(
        c->warnings,
        dra_obj_locate(
            dra_err_field(dra_err_new(DRA_EXIT_OK, "%" PRId64 " pods: only the first %d of a workload are made here",
                                      want, DRA_EXPAND_MAX_PODS),
                          field),
            c->o));
    c->capped = true;
    return DRA_EXPAND_MAX_PODS - c->n;
}

/* podGenerateNameWithIndex (pkg/controller/job/indexed_job_utils.go): the
 * Job's name cut so that "<name>-<index>-" fits 58 characters. */
static char *indexed_prefix(const char *job, int64_t index)
{
    char tail[32];
    snprintf(tail, sizeof tail, "-%" PRId64 "-", index);
    size_t len = strlen(job), tl = strlen(tail);
    if (len + tl > 58)
        len = 58 - tl;
    return dra_xasprintf("%.*s%s", (int)len, job, tail);
}

void dra_wl_job_pods(dra_wl_ctx *c, const json_t *jspec, const char *job, const dra_wl_owner *own, const char *field)
{
    int64_t par = dra_wl_int_or(jspec, "parallelism", 1);
    const json_t *comp = json_object_get(jspec, "completions");
    if (json_is_integer(comp) && json_integer_value(comp) < par)
        par = json_integer_value(comp);
    const char *mode = dra_jfield_str(jspec, "completionMode");
    bool indexed = mode && strcmp(mode, "Indexed") == 0;
    const json_t *tmpl = json_object_get(jspec, "template");
    par = dra_wl_count(c, par, field);
    char *base = dra_xasprintf("%s-", job);
    for (int64_t i = 0; i < par; i++) {
        char *prefix = indexed ? indexed_prefix(job, i) : NULL;
        char *pn = dra_wl_gen(c, prefix ? prefix : base, (uint64_t)i);
        json_t *pod = dra_wl_emit(c, tmpl, pn, true, own);
        if (pod) {
            dra_wl_set_label(pod, "batch.kubernetes.io/job-name", job);
            dra_wl_set_label(pod, "job-name", job);
            if (indexed) {
                char idx[24];
                snprintf(idx, sizeof idx, "%" PRId64, i);
                dra_wl_set_label(pod, "batch.kubernetes.io/job-completion-index", idx);
                json_object_set_new(json_object_get(json_object_get(pod, "metadata"), "annotations"),
                                    "batch.kubernetes.io/job-completion-index", json_string(idx));
            }
        }
        free(prefix);
        free(pn);
    }
    free(base);
}
