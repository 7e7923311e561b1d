/* Workload expansion and assumed pod identity; see workloads.h.
 *
 * Upstream: pkg/controller/{deployment,replicaset,statefulset,daemon,job,
 * cronjob}; names from apiserver's names.SimpleNameGenerator (5 characters
 * of k8s.io/apimachinery/pkg/util/rand's alphabet), StatefulSet pod names
 * from statefulset/stateful_set_utils.go (getPodName), DaemonSet node
 * pinning from daemon/util (ReplaceDaemonSetPodNodeNameNodeAffinity). */
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

/* Node names a DaemonSet's pods go to: Nodes matching the template's
 * nodeSelector, or (no Nodes in the input) the slices' node names. */
static size_t daemon_nodes(const dra_objset *set, const json_t *tspec, const char ***out)
{
    const char **v = dra_xcalloc(set->n + 1, sizeof *v);
    size_t n = 0, nodes = 0;
    const json_t *sel = json_object_get(tspec, "nodeSelector");
    for (size_t i = 0; i < set->n; i++) {
        const json_t *o = set->v[i].json;
        const char *k = dra_jfield_str(o, "kind"), *av = dra_jfield_str(o, "apiVersion");
        if (!k || !av || strcmp(k, "Node") != 0 || strcmp(av, "v1") != 0)
            continue;
        nodes++;
        const json_t *md = json_object_get(o, "metadata");
        const char *name = dra_jfield_str(md, "name");
        const json_t *labels = json_object_get(md, "labels");
        bool ok = name != NULL;
        const char *key;
        const json_t *want;
        json_object_foreach((json_t *)sel, key, want) {
            const char *have = dra_jfield_str(labels, key);
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
            const char *k = dra_jfield_str(o, "kind");
            const char *nn = dra_jfield_str(json_object_get(o, "spec"), "nodeName");
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
    const char *k = dra_jfield_str(o, "kind"), *av = dra_jfield_str(o, "apiVersion");
    return k && av && strcmp(k, kind) == 0 && strcmp(av, api_version) == 0;
}

/* Expand one built-in workload; returns the number of pods (-1: not one). */
static long expand_builtin(dra_wl_ctx *c, dra_err **err)
{
    const dra_obj *o = c->o;
    const json_t *w = o->json;
    const char *name = c->name, *ns = c->ns;
    const char *kind = dra_jfield_str(w, "kind");
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
    if (!json_is_object(json_object_get(tmpl, "spec"))) {
        *err = dra_obj_locate(dra_err_field(dra_err_new(DRA_EXIT_OK, "Required value: not expanded: no pod template"),
                                            cron ? "spec.jobTemplate.spec.template.spec" : "spec.template.spec"),
                              o);
        return -2;
    }
    const char *wuid = dra_jfield_str(json_object_get(w, "metadata"), "uid");
    char *own_uid = wuid && *wuid ? dra_xstrdup(wuid) : dra_wl_derived_uid(kind, ns, name);
    dra_wl_owner own = {dra_jfield_str(w, "apiVersion"), kind, name, own_uid};
    char *owner_name = NULL, *owner_uid2 = NULL, *hash = NULL;
    if (deploy || rs) {
        if (deploy) {
            hash = template_hash(tmpl);
            owner_name = dra_xasprintf("%s-%s", name, hash);
            owner_uid2 = dra_wl_derived_uid("ReplicaSet", ns, owner_name);
            own = (dra_wl_owner){"apps/v1", "ReplicaSet", owner_name, owner_uid2};
        }
        int64_t replicas = dra_wl_count(c, dra_wl_int_or(spec, "replicas", 1), "spec.replicas");
        char *base = dra_xasprintf("%s-", own.name);
        for (int64_t i = 0; i < replicas; i++) {
            char *pn = dra_wl_gen(c, base, (uint64_t)i);
            json_t *pod = dra_wl_emit(c, tmpl, pn, true, &own);
            if (pod && hash)
                dra_wl_set_label(pod, "pod-template-hash", hash);
            free(pn);
        }
        free(base);
    } else if (sts) {
        int64_t replicas = dra_wl_count(c, dra_wl_int_or(spec, "replicas", 1), "spec.replicas");
        int64_t start = dra_wl_int_or(json_object_get(spec, "ordinals"), "start", 0);
        for (int64_t i = 0; i < replicas; i++) {
            char *pn = dra_xasprintf("%s-%" PRId64, name, start + i);
            char idx[24];
            snprintf(idx, sizeof idx, "%" PRId64, start + i);
            json_t *pod = dra_wl_emit(c, tmpl, pn, false, &own);
            if (pod) {
                dra_wl_set_label(pod, "statefulset.kubernetes.io/pod-name", pn);
                dra_wl_set_label(pod, "apps.kubernetes.io/pod-index", idx);
                json_t *pspec = json_object_get(pod, "spec");
                json_object_set_new(pspec, "hostname", json_string(pn));
                const char *svc = dra_jfield_str(spec, "serviceName");
                if (svc && *svc)
                    json_object_set_new(pspec, "subdomain", json_string(svc));
            }
            free(pn);
        }
    } else if (ds) {
        const char **nodes;
        size_t nn = daemon_nodes(c->set, json_object_get(tmpl, "spec"), &nodes);
        char *base = dra_xasprintf("%s-", name);
        for (size_t i = 0; i < nn; i++) {
            char *pn = dra_wl_generated_name(base, dra_wl_hash(c->seed, nodes[i]));
            json_t *pod = dra_wl_emit(c, tmpl, pn, true, &own);
            if (pod)
                pin_to_node(pod, nodes[i]);
            free(pn);
        }
        free(base);
        free(nodes);
    } else { /* Job, or one run of a CronJob */
        if (cron) {
            /* the Job a run creates: <cronjob>-<scheduled minute>; the minute is assumed */
            owner_name = dra_xasprintf("%s-%" PRIu64, name, (dra_wl_hash(c->seed, "run") % 90000000u) + 10000000u);
            owner_uid2 = dra_wl_derived_uid("Job", ns, owner_name);
            own = (dra_wl_owner){"batch/v1", "Job", owner_name, owner_uid2};
        }
        dra_wl_job_pods(c, spec, own.name, &own, cron ? "spec.jobTemplate.spec.parallelism" : "spec.parallelism");
    }
    free(hash);
    free(owner_name);
    free(owner_uid2);
    free(own_uid);
    return c->n;
}

bool dra_wl_known_kind(const json_t *obj)
{
    static const char *const builtin[][2] = {{"apps/v1", "Deployment"},  {"apps/v1", "ReplicaSet"},
                                             {"apps/v1", "StatefulSet"}, {"apps/v1", "DaemonSet"},
                                             {"batch/v1", "Job"},        {"batch/v1", "CronJob"}};
    for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
        if (is_kind(obj, builtin[i][0], builtin[i][1]))
            return true;
    return dra_wl_crd_kind(obj);
}

static void buf_cut(dra_buf *b, size_t len)
{
    b->len = len;
    if (b->data)
        b->data[len] = 0;
}

/* Where an object of a kind not expanded holds pod templates (an object
 * with spec.containers): the first such path with spec.resourceClaims
 * (any template when none has them) into *path; false when none. */
static bool find_template(const json_t *v, dra_buf *at, bool *claims, char **path)
{
    if (json_is_object(v)) {
        const json_t *sp = json_object_get(v, "spec");
        if (json_is_array(json_object_get(sp, "containers")) && at->len) {
            bool with = json_array_size(json_object_get(sp, "resourceClaims")) > 0;
            if (!*path || (with && !*claims)) {
                free(*path);
                *path = dra_xstrdup(dra_buf_str(at));
                *claims = with;
            }
            return true;
        }
        const char *k;
        const json_t *x;
        bool any = false;
        json_object_foreach((json_t *)v, k, x) {
            size_t mark = at->len;
            dra_buf_printf(at, "%s%s", at->len ? "." : "", k);
            any |= find_template(x, at, claims, path);
            buf_cut(at, mark);
        }
        return any;
    }
    if (json_is_array(v)) {
        size_t i;
        const json_t *x;
        bool any = false;
        json_array_foreach(v, i, x) {
            size_t mark = at->len;
            dra_buf_printf(at, "[%zu]", i);
            any |= find_template(x, at, claims, path);
            buf_cut(at, mark);
        }
        return any;
    }
    return false;
}

/* The name a workload with only generateName gets (as the API server
 * names it), or NULL with *err set when it has neither. */
static char *workload_name(const dra_obj *o, const char *ns, size_t place, bool *assumed, dra_err **err)
{
    const json_t *md = json_object_get(o->json, "metadata");
    const char *name = dra_jfield_str(md, "name"), *gen = dra_jfield_str(md, "generateName");
    *assumed = false;
    if (name && *name)
        return dra_xstrdup(name);
    if (gen && *gen) {
        char where[32];
        snprintf(where, sizeof where, "%zu", place);
        *assumed = true;
        return dra_wl_generated_name(gen, dra_wl_hash(dra_wl_hash(dra_wl_hash(DRA_FNV64_OFFSET, ns), gen), where));
    }
    *err = dra_obj_locate(
        dra_err_field(
            dra_err_new(
                DRA_EXIT_OK,
                "Required value: name or generateName is required: not expanded: its pods would be named after it"),
            "metadata.name"),
        o);
    return NULL;
}

/* Objects that hold pod templates for others to use and make no pods:
 * Pods themselves, PodTemplates, the runtimes TrainJobs name. */
static bool template_holder(const json_t *obj)
{
    return is_kind(obj, "v1", "Pod") || is_kind(obj, "v1", "PodTemplate") ||
           is_kind(obj, "trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime") ||
           is_kind(obj, "trainer.kubeflow.org/v1alpha1", "TrainingRuntime");
}

bool dra_is_workload(const json_t *obj)
{
    /* first the kinds read most (no known workload kind is one of them) */
    const char *av = dra_jfield_str(obj, "apiVersion");
    if (is_kind(obj, "v1", "Pod") || (av && strncmp(av, "resource.k8s.io/", 16) == 0))
        return false; /* runtimes are held with the workloads: TrainJobs read them */
    if (dra_wl_known_kind(obj))
        return true;
    dra_buf at = DRA_BUF_INIT;
    bool claims = false;
    char *path = NULL;
    bool any = find_template(obj, &at, &claims, &path);
    free(path);
    dra_buf_free(&at);
    return any;
}

dra_err *dra_expand_workloads(dra_objset *set, const char *default_namespace, dra_expand_report *rep)
{
    const char *dns = default_namespace ? default_namespace : "default";
    dra_wl_objs out = {0}, dead = {0};
    dra_err *errs = NULL;
    bool changed = false;
    for (size_t i = 0; i < set->n; i++) {
        dra_obj *o = &set->v[i];
        dra_err *e = NULL;
        size_t before = out.n;
        const json_t *md = json_object_get(o->json, "metadata");
        const char *ns = dra_jfield_str(md, "namespace");
        if (!ns || !*ns)
            ns = dns;
        const char *kind = dra_jfield_str(o->json, "kind");
        long n = -1;
        bool assumed = false;
        char *name = NULL;
        dra_wl_ctx c = {set, o, ns, NULL, 0, &out, 0, false, NULL};
        if (dra_wl_known_kind(o->json) && (name = workload_name(o, ns, i, &assumed, &e)) != NULL) {
            c.name = name;
            c.seed = dra_wl_hash(dra_wl_hash(dra_wl_hash(DRA_FNV64_OFFSET, kind), ns), name);
            n = expand_builtin(&c, &e);
            if (n == -1)
                n = dra_wl_expand_crd(&c, &e);
        } else if (e) {
            n = -2;
        }
        rep->warnings = dra_err_append(rep->warnings, c.warnings);
        if (n < 0 || e) {
            rep->warnings = dra_err_append(rep->warnings, e);
            dra_buf at = DRA_BUF_INIT;
            bool claims = false;
            char *path = NULL;
            if (n == -1 && !template_holder(o->json) && find_template(o->json, &at, &claims, &path)) {
                const char *av = dra_jfield_str(o->json, "apiVersion");
                rep->warnings = dra_err_append(
                    rep->warnings, dra_obj_locate(dra_err_new(DRA_EXIT_OK,
                                                              "%s of %s holds a pod template%s at %s but is not "
                                                              "expanded: its pods are not in this answer",
                                                              kind ? kind : "object", av ? av : "no apiVersion",
                                                              claims ? " with resourceClaims" : "", path),
                                                  o));
            }
            free(path);
            dra_buf_free(&at);
            for (size_t j = before; j < out.n; j++)
                json_decref(out.v[j].json);
            out.n = before;
            dra_wl_push(&out, *o);
            free(name);
            continue;
        }
        rep->notes = dra_err_append(
            rep->notes, dra_obj_locate(dra_err_new(DRA_EXIT_OK, "expanded into %ld pod%s%s%s", n, n == 1 ? "" : "s",
                                                   assumed ? ", itself named " : "", assumed ? name : ""),
                                       o));
        rep->workloads++;
        rep->pods += (size_t)n;
        dra_wl_push(&dead, *o); /* freed after the loop: later DaemonSets still read the set */
        changed = true;
        free(name);
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
    const char *ns = dra_jfield_str(md, "namespace");
    if (!ns || !*ns)
        ns = dns;
    const char *name = dra_jfield_str(md, "name");
    const char *gen = dra_jfield_str(md, "generateName");
    bool named = false, uided = false;
    char *made = NULL;
    if ((!name || !*name) && gen && *gen) {
        /* deterministic: the namespace, the prefix and the pod's place */
        char where[32];
        snprintf(where, sizeof where, "%zu", place);
        made = dra_wl_generated_name(gen, dra_wl_hash(dra_wl_hash(dra_wl_hash(DRA_FNV64_OFFSET, ns), gen), where));
        json_object_set_new(md, "name", json_string(made));
        name = made;
        named = true;
    }
    const char *uid = dra_jfield_str(md, "uid");
    if (name && *name && (!uid || !*uid)) {
        char *u = dra_wl_derived_uid("Pod", ns, name);
        json_object_set_new(md, "uid", json_string(u));
        free(u);
        uided = true;
    }
    if (named || uided) {
        dra_wl_add_assumed(md, named && uided ? "name,uid" : named ? "name" : "uid");
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
