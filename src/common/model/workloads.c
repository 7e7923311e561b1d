/* Workload expansion and assumed pod identity; see workloads.h.
 *
 * Upstream: pkg/controller/{deployment,replicaset,statefulset,daemon,job,
 * cronjob}; names from apiserver's names.SimpleNameGenerator (5 characters
 * of k8s.io/apimachinery/pkg/util/rand's alphabet), StatefulSet pod names
 * from statefulset/stateful_set_utils.go (getPodName), DaemonSet node
 * pinning from daemon/util (ReplaceDaemonSetPodNodeNameNodeAffinity). */
#include "workloads.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/hash.h"

/* FNV-1a of s, then a 0x1f field separator */
static uint64_t hash_str(uint64_t h, const char *s)
{
    return dra_fnv1a(dra_fnv1a_str(h, s ? s : ""), "\x1f", 1);
}

static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";

/* generateName + 5 characters, the base cut to 58 (names.SimpleNameGenerator) */
static char *generated_name(const char *base, uint64_t h)
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
static char *derived_uid(const char *kind, const char *ns, const char *name)
{
    uint64_t a = hash_str(hash_str(hash_str(DRA_FNV64_OFFSET, kind), ns), name);
    uint64_t b = hash_str(a, "uid");
    return dra_xasprintf("%08" PRIx64 "-%04" PRIx64 "-8%03" PRIx64 "-%04" PRIx64 "-%012" PRIx64, a >> 32,
                         (a >> 16) & 0xffff, a & 0xfff, (b >> 48) | 0x8000, b & UINT64_C(0xffffffffffff));
}

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static void add_assumed(json_t *md, const char *what)
{
    json_t *ann = json_object_get(md, "annotations");
    if (!json_is_object(ann)) {
        ann = json_object();
        json_object_set_new(md, "annotations", ann);
    }
    const char *old = jstr(ann, DRA_ASSUMED_ANNOTATION);
    if (old && *old) {
        char *v = dra_xasprintf("%s,%s", old, what);
        json_object_set_new(ann, DRA_ASSUMED_ANNOTATION, json_string(v));
        free(v);
    } else {
        json_object_set_new(ann, DRA_ASSUMED_ANNOTATION, json_string(what));
    }
}

typedef struct objs {
    dra_obj *v;
    size_t n, cap;
} objs;

static void push(objs *l, dra_obj o)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 32;
        l->v = dra_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = o;
}

typedef struct owner {
    const char *api_version, *kind, *name, *uid;
} owner;

/* One pod from a template. */
static json_t *make_pod(const json_t *tmpl, const char *ns, const char *name, const owner *own, bool name_assumed)
{
    const json_t *tmd = json_object_get(tmpl, "metadata");
    json_t *pod = json_object();
    json_object_set_new(pod, "apiVersion", json_string("v1"));
    json_object_set_new(pod, "kind", json_string("Pod"));
    json_t *md = json_object();
    json_object_set_new(md, "name", json_string(name));
    json_object_set_new(md, "namespace", json_string(ns));
    char *uid = derived_uid("Pod", ns, name);
    json_object_set_new(md, "uid", json_string(uid));
    free(uid);
    if (json_is_object(json_object_get(tmd, "labels")))
        json_object_set_new(md, "labels", json_deep_copy(json_object_get(tmd, "labels")));
    if (json_is_object(json_object_get(tmd, "annotations")))
        json_object_set_new(md, "annotations", json_deep_copy(json_object_get(tmd, "annotations")));
    add_assumed(md, name_assumed ? "name,uid" : "uid");
    json_object_set_new(md, "ownerReferences",
                        json_pack("[{s:s,s:s,s:s,s:s,s:b,s:b}]", "apiVersion", own->api_version, "kind", own->kind,
                                  "name", own->name, "uid", own->uid, "controller", 1, "blockOwnerDeletion", 1));
    json_object_set_new(pod, "metadata", md);
    const json_t *spec = json_object_get(tmpl, "spec");
    json_object_set_new(pod, "spec", json_is_object(spec) ? json_deep_copy(spec) : json_object());
    return pod;
}

static void set_label(json_t *pod, const char *k, const char *v)
{
    json_t *md = json_object_get(pod, "metadata");
    json_t *labels = json_object_get(md, "labels");
    if (!json_is_object(labels)) {
        labels = json_object();
        json_object_set_new(md, "labels", labels);
    }
    json_object_set_new(labels, k, json_string(v));
}

/* Required node affinity on metadata.name, as the DaemonSet controller pins. */
static void pin_to_node(json_t *pod, const char *node)
{
    json_t *spec = json_object_get(pod, "spec");
    json_t *aff = json_object_get(spec, "affinity");
    if (!json_is_object(aff)) {
        aff = json_object();
        json_object_set_new(spec, "affinity", aff);
    }
    json_object_set_new(aff, "nodeAffinity",
                        json_pack("{s:{s:[{s:[{s:s,s:s,s:[s]}]}]}}", "requiredDuringSchedulingIgnoredDuringExecution",
                                  "nodeSelectorTerms", "matchFields", "key", "metadata.name", "operator", "In",
                                  "values", node));
}

static int64_t int_or(const json_t *o, const char *k, int64_t def)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? json_integer_value(v) : def;
}

/* Node names a DaemonSet's pods go to: Nodes matching the template's
 * nodeSelector, or (no Nodes in the input) the slices' node names. */
static size_t daemon_nodes(const dra_objset *set, const json_t *tspec, const char ***out)
{
    const char **v = dra_xcalloc(set->n + 1, sizeof *v);
    size_t n = 0, nodes = 0;
    const json_t *sel = json_object_get(tspec, "nodeSelector");
    for (size_t i = 0; i < set->n; i++) {
        const json_t *o = set->v[i].json;
        const char *k = jstr(o, "kind"), *av = jstr(o, "apiVersion");
        if (!k || !av || strcmp(k, "Node") != 0 || strcmp(av, "v1") != 0)
            continue;
        nodes++;
        const json_t *md = json_object_get(o, "metadata");
        const char *name = jstr(md, "name");
        const json_t *labels = json_object_get(md, "labels");
        bool ok = name != NULL;
        const char *key;
        const json_t *want;
        json_object_foreach((json_t *)sel, key, want) {
            const char *have = jstr(labels, key);
            if (!have || !json_is_string(want) || strcmp(have, json_string_value(want)) != 0)
                ok = false;
        }
        if (ok)
            v[n++] = name;
    }
    if (!nodes) {
        dra_strmap seen = {0}; /* node names already taken: linear in the slices */
        for (size_t i = 0; i < set->n; i++) {
            const json_t *o = set->v[i].json;
            const char *k = jstr(o, "kind");
            const char *nn = jstr(json_object_get(o, "spec"), "nodeName");
            if (!k || strcmp(k, "ResourceSlice") != 0 || !nn || !*nn || json_object_size((json_t *)sel))
                continue;
            if (!dra_strmap_add(&seen, nn, strlen(nn), 1, NULL))
                v[n++] = nn;
        }
        dra_strmap_free(&seen);
    }
    *out = v;
    return n;
}

/* pod-template-hash: the template's hash in the SafeEncodeString alphabet. */
static char *template_hash(const json_t *tmpl)
{
    char *text = json_dumps(tmpl, JSON_COMPACT | JSON_SORT_KEYS);
    uint32_t h = dra_fnv1a32_str(DRA_FNV32_OFFSET, text ? text : "");
    free(text);
    char digits[16];
    snprintf(digits, sizeof digits, "%" PRIu32, h);
    for (char *p = digits; *p; p++)
        *p = alphabet[(*p - '0') % (sizeof alphabet - 1)];
    return dra_xstrdup(digits);
}

static bool is_kind(const json_t *o, const char *api_version, const char *kind)
{
    const char *k = jstr(o, "kind"), *av = jstr(o, "apiVersion");
    return k && av && strcmp(k, kind) == 0 && strcmp(av, api_version) == 0;
}

/* Known custom workloads that carry pod templates we do not expand. */
static bool embeds_pod_template(const json_t *o)
{
    const char *k = jstr(o, "kind");
    static const char *const known[] = {"MPIJob", "JobSet", "LeaderWorkerSet", "PyTorchJob", "TFJob", "RayCluster",
                                        "RayJob", "Workflow", "PodTemplate", "ReplicationController", NULL};
    for (int i = 0; k && known[i]; i++)
        if (strcmp(k, known[i]) == 0)
            return true;
    const json_t *t = json_object_get(json_object_get(o, "spec"), "template");
    return json_is_array(json_object_get(json_object_get(t, "spec"), "containers"));
}

/* Expand one workload into out; returns the number of pods (-1: not a workload). */
static long expand_one(const dra_objset *set, const dra_obj *o, const char *default_ns, objs *out, dra_err **err)
{
    const json_t *w = o->json;
    const json_t *md = json_object_get(w, "metadata");
    const char *name = jstr(md, "name");
    const char *ns = jstr(md, "namespace");
    if (!ns || !*ns)
        ns = default_ns;
    const char *kind = jstr(w, "kind");
    const json_t *spec = json_object_get(w, "spec");
    const json_t *tmpl = json_object_get(spec, "template");
    bool deploy = is_kind(w, "apps/v1", "Deployment"), rs = is_kind(w, "apps/v1", "ReplicaSet"),
         sts = is_kind(w, "apps/v1", "StatefulSet"), ds = is_kind(w, "apps/v1", "DaemonSet"),
         job = is_kind(w, "batch/v1", "Job"), cron = is_kind(w, "batch/v1", "CronJob");
    if (!(deploy || rs || sts || ds || job || cron))
        return -1;
    if (cron) {
        spec = json_object_get(json_object_get(spec, "jobTemplate"), "spec");
        tmpl = json_object_get(spec, "template");
    }
    /* what the API server would refuse is not expanded, and said so */
    if (!name || !*name) {
        *err = dra_obj_locate(dra_err_field(dra_err_new(DRA_EXIT_OK, "Required value: not expanded: its pods would be named after it"),
                                            "metadata.name"), o);
        return -2;
    }
    if (!json_is_object(json_object_get(tmpl, "spec"))) {
        *err = dra_obj_locate(dra_err_field(dra_err_new(DRA_EXIT_OK, "Required value: not expanded: no pod template"),
                                            cron ? "spec.jobTemplate.spec.template.spec" : "spec.template.spec"), o);
        return -2;
    }
    const char *wuid = jstr(md, "uid");
    char *own_uid = wuid && *wuid ? dra_xstrdup(wuid) : derived_uid(kind, ns, name);
    owner own = {jstr(w, "apiVersion"), kind, name, own_uid};
    char *owner_name = NULL, *owner_uid2 = NULL, *hash = NULL;
    uint64_t seed = hash_str(hash_str(hash_str(DRA_FNV64_OFFSET, kind), ns), name);
    long n = 0;
    if (deploy || rs) {
        if (deploy) {
            hash = template_hash(tmpl);
            owner_name = dra_xasprintf("%s-%s", name, hash);
            owner_uid2 = derived_uid("ReplicaSet", ns, owner_name);
            own = (owner){"apps/v1", "ReplicaSet", owner_name, owner_uid2};
        }
        int64_t replicas = int_or(spec, "replicas", 1);
        char *base = dra_xasprintf("%s-", own.name);
        for (int64_t i = 0; i < replicas && i < 10000; i++) {
            char *pn = generated_name(base, hash_str(seed, base) + (uint64_t)i * UINT64_C(0x9e3779b97f4a7c15));
            json_t *pod = make_pod(tmpl, ns, pn, &own, true);
            if (hash)
                set_label(pod, "pod-template-hash", hash);
            push(out, (dra_obj){.json = pod, .file = o->file, .doc = o->doc, .line = o->line, .item = o->item, .src_off = SIZE_MAX});
            free(pn);
            n++;
        }
        free(base);
    } else if (sts) {
        int64_t replicas = int_or(spec, "replicas", 1);
        int64_t start = int_or(json_object_get(spec, "ordinals"), "start", 0);
        for (int64_t i = 0; i < replicas && i < 10000; i++) {
            char *pn = dra_xasprintf("%s-%" PRId64, name, start + i);
            char idx[24];
            snprintf(idx, sizeof idx, "%" PRId64, start + i);
            json_t *pod = make_pod(tmpl, ns, pn, &own, false);
            set_label(pod, "statefulset.kubernetes.io/pod-name", pn);
            set_label(pod, "apps.kubernetes.io/pod-index", idx);
            json_t *pspec = json_object_get(pod, "spec");
            json_object_set_new(pspec, "hostname", json_string(pn));
            const char *svc = jstr(spec, "serviceName");
            if (svc && *svc)
                json_object_set_new(pspec, "subdomain", json_string(svc));
            push(out, (dra_obj){.json = pod, .file = o->file, .doc = o->doc, .line = o->line, .item = o->item, .src_off = SIZE_MAX});
            free(pn);
            n++;
        }
    } else if (ds) {
        const char **nodes;
        size_t nn = daemon_nodes(set, json_object_get(tmpl, "spec"), &nodes);
        char *base = dra_xasprintf("%s-", name);
        for (size_t i = 0; i < nn; i++) {
            char *pn = generated_name(base, hash_str(seed, nodes[i]));
            json_t *pod = make_pod(tmpl, ns, pn, &own, true);
            pin_to_node(pod, nodes[i]);
            push(out, (dra_obj){.json = pod, .file = o->file, .doc = o->doc, .line = o->line, .item = o->item, .src_off = SIZE_MAX});
            free(pn);
            n++;
        }
        free(base);
        free(nodes);
    } else { /* Job, or one run of a CronJob */
        if (cron) {
            /* the Job a run creates: <cronjob>-<scheduled minute>; the minute is assumed */
            owner_name = dra_xasprintf("%s-%" PRIu64, name, (hash_str(seed, "run") % 90000000u) + 10000000u);
            owner_uid2 = derived_uid("Job", ns, owner_name);
            own = (owner){"batch/v1", "Job", owner_name, owner_uid2};
        }
        int64_t par = int_or(spec, "parallelism", 1);
        const json_t *comp = json_object_get(spec, "completions");
        if (json_is_integer(comp) && json_integer_value(comp) < par)
            par = json_integer_value(comp);
        char *base = dra_xasprintf("%s-", own.name);
        for (int64_t i = 0; i < par && i < 10000; i++) {
            char *pn = generated_name(base, hash_str(seed, base) + (uint64_t)i * UINT64_C(0x9e3779b97f4a7c15));
            json_t *pod = make_pod(tmpl, ns, pn, &own, true);
            set_label(pod, "batch.kubernetes.io/job-name", own.name);
            set_label(pod, "job-name", own.name);
            push(out, (dra_obj){.json = pod, .file = o->file, .doc = o->doc, .line = o->line, .item = o->item, .src_off = SIZE_MAX});
            free(pn);
            n++;
        }
        free(base);
    }
    free(hash);
    free(owner_name);
    free(owner_uid2);
    free(own_uid);
    return n;
}

dra_err *dra_expand_workloads(dra_objset *set, const char *default_namespace, dra_expand_report *rep)
{
    const char *dns = default_namespace ? default_namespace : "default";
    objs out = {0}, dead = {0};
    dra_err *errs = NULL;
    bool changed = false;
    for (size_t i = 0; i < set->n; i++) {
        dra_obj *o = &set->v[i];
        dra_err *e = NULL;
        size_t before = out.n;
        long n = expand_one(set, o, dns, &out, &e);
        if (n < 0 || e) {
            rep->warnings = dra_err_append(rep->warnings, e);
            if (n < 0 && embeds_pod_template(o->json)) {
                const char *av = jstr(o->json, "apiVersion");
                rep->warnings = dra_err_append(rep->warnings, dra_obj_locate(dra_err_new(DRA_EXIT_OK,
                    "%s of %s embeds a pod template but is not expanded: its pods are not in this answer",
                    jstr(o->json, "kind") ? jstr(o->json, "kind") : "object", av ? av : "no apiVersion"), o));
            }
            for (size_t j = before; j < out.n; j++)
                json_decref(out.v[j].json);
            out.n = before;
            push(&out, *o);
            continue;
        }
        rep->notes = dra_err_append(rep->notes, dra_obj_locate(dra_err_new(DRA_EXIT_OK, "expanded into %ld pod%s",
                                                                           n, n == 1 ? "" : "s"), o));
        rep->workloads++;
        rep->pods += (size_t)n;
        push(&dead, *o); /* freed after the loop: later DaemonSets still read the set */
        changed = true;
    }
    for (size_t i = 0; i < dead.n; i++)
        json_decref(dead.v[i].json);
    free(dead.v);
    if (changed || out.n != set->n) {
        free(set->v);
        set->v = out.v;
        set->n = out.n;
        set->cap = out.cap;
    } else {
        free(out.v);
    }
    return errs;
}

void dra_assume_pod_identity_at(json_t *o, size_t place, const char *default_namespace, dra_expand_report *rep)
{
    const char *dns = default_namespace ? default_namespace : "default";
    if (!is_kind(o, "v1", "Pod"))
        return;
    json_t *md = json_object_get(o, "metadata");
    if (!json_is_object(md))
        return;
    const char *ns = jstr(md, "namespace");
    if (!ns || !*ns)
        ns = dns;
    const char *name = jstr(md, "name");
    const char *gen = jstr(md, "generateName");
    bool named = false, uided = false;
    char *made = NULL;
    if ((!name || !*name) && gen && *gen) {
        /* deterministic: the namespace, the prefix and the pod's place */
        char where[32];
        snprintf(where, sizeof where, "%zu", place);
        made = generated_name(gen, hash_str(hash_str(hash_str(DRA_FNV64_OFFSET, ns), gen), where));
        json_object_set_new(md, "name", json_string(made));
        name = made;
        named = true;
    }
    const char *uid = jstr(md, "uid");
    if (name && *name && (!uid || !*uid)) {
        char *u = derived_uid("Pod", ns, name);
        json_object_set_new(md, "uid", json_string(u));
        free(u);
        uided = true;
    }
    if (named || uided) {
        add_assumed(md, named && uided ? "name,uid" : named ? "name" : "uid");
        rep->assumed++;
    }
    free(made);
}

void dra_assume_pod_identity(dra_objset *set, const char *default_namespace, dra_expand_report *rep)
{
    for (size_t i = 0; i < set->n; i++)
        dra_assume_pod_identity_at(set->v[i].json, i, default_namespace, rep);
}

void dra_expand_report_free(dra_expand_report *rep)
{
    dra_err_free(rep->warnings);
    dra_err_free(rep->notes);
    memset(rep, 0, sizeof *rep);
}
