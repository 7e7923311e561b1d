/* The pods operators' controllers make from their custom resources; see
 * workloads.h for the table of kinds and the naming each follows.
 *
 * Upstream (naming and counts, read from each controller):
 *   kubeflow/mpi-operator v2: pkg/controller/mpi_job_controller.go (the
 *     launcher Job "<job>-launcher", worker pods "<job>-worker-<i>"),
 *     pkg/apis/kubeflow/v2beta1/default.go (Launcher 1, Worker 0 replicas).
 *   kubeflow/training-operator v1: pkg/common/util GenGeneralName
 *     ("<job>-<replica type, lower case>-<i>"), replicas default 1.
 *   kubernetes-sigs/lws: leader StatefulSet "<lws>" (pods "<lws>-<g>"),
 *     one worker StatefulSet per group "<lws>-<g>" with ordinals from 1
 *     (pods "<lws>-<g>-<w>"); leaderTemplate defaults to workerTemplate.
 *   kubernetes-sigs/jobset: child Jobs "<jobset>-<replicatedJob>-<i>"
 *     (GenJobName), completionMode defaulted to Indexed by its webhook; the
 *     Job controller names their pods.
 *   ray-project/kuberay ray-operator: utils.PodName: head pods
 *     "<cluster>-head-<5>", worker pods "<cluster>-<group>-worker-<5>";
 *     GetWorkerGroupDesiredReplicas (replicas within min..max, times
 *     numOfHosts, 0 when suspended); a RayJob's cluster is
 *     "<rayjob>-<5>" (GenerateRayClusterName).  RayJob submission (read
 *     at KubeRay v1.7.0): in K8sJobMode, the default (rayjob_types.go),
 *     the submitter Job is named after the RayJob
 *     (common/association.go RayJobK8sJobNamespacedName), backoffLimit 2
 *     or submitterConfig.backoffLimit (rayjob_controller.go
 *     createNewK8sJob); its template is spec.submitterPodTemplate or one
 *     container "ray-job-submitter" of the head's image, cpu 500m/1 and
 *     memory 200Mi/1Gi, restartPolicy Never (common/job.go
 *     GetSubmitterTemplate, GetDefaultSubmitterContainer), labelled
 *     ray.io/originated-from-cr-name, ray.io/originated-from-crd and
 *     app.kubernetes.io/created-by (getSubmitterTemplate).  SidecarMode
 *     adds that container to the head pod with restartPolicy Never
 *     (constructRayClusterForRayJob); HTTPMode and InteractiveMode make no
 *     submitter.  The submitter's command and environment (they name the
 *     job ID and dashboard address KubeRay learns later) are not made.
 *   kubeflow/trainer v2: a TrainJob becomes the JobSet of its runtime's
 *     template, named after the TrainJob, numNodes on the "node" job. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "workloads_impl.h"
#include "../io/json.h"

static bool has(const json_t *o, const char *av, const char *kind)
{
    const char *k = dra_jfield_str(o, "kind"), *a = dra_jfield_str(o, "apiVersion");
    return k && a && strcmp(k, kind) == 0 && strcmp(a, av) == 0;
}

/* kubeflow.org/v1 kinds of the training operator and their replica specs */
static const char *const training[][2] = {{"PyTorchJob", "pytorchReplicaSpecs"}, {"TFJob", "tfReplicaSpecs"},
                                          {"XGBoostJob", "xgbReplicaSpecs"},     {"PaddleJob", "paddleReplicaSpecs"},
                                          {"JAXJob", "jaxReplicaSpecs"},         {"MPIJob", "mpiReplicaSpecs"}};

static const char *training_specs(const json_t *o)
{
    for (size_t i = 0; i < sizeof training / sizeof *training; i++)
        if (has(o, "kubeflow.org/v1", training[i][0]))
            return training[i][1];
    return NULL;
}

bool dra_wl_crd_kind(const json_t *o)
{
    return has(o, "kubeflow.org/v2beta1", "MPIJob") || training_specs(o) ||
           has(o, "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet") || has(o, "jobset.x-k8s.io/v1alpha2", "JobSet") ||
           has(o, "ray.io/v1", "RayCluster") || has(o, "ray.io/v1", "RayJob") ||
           has(o, "trainer.kubeflow.org/v1alpha1", "TrainJob");
}

static dra_err *refused(const dra_obj *o, const char *field, const char *msg)
{
    return dra_obj_locate(dra_err_field(dra_err_new(DRA_EXIT_OK, "%s: not expanded", msg), field), o);
}

static bool has_template(const json_t *tmpl)
{
    return json_is_object(json_object_get(tmpl, "spec"));
}

/* The workload itself as the owner of what it makes. */
typedef struct self {
    char *uid;
    dra_wl_owner own;
} self;

static void self_init(self *s, const dra_wl_ctx *c)
{
    const json_t *w = c->o->json;
    const char *uid = dra_jfield_str(json_object_get(w, "metadata"), "uid");
    s->uid = uid && *uid ? dra_xstrdup(uid) : dra_wl_derived_uid(dra_jfield_str(w, "kind"), c->ns, c->name);
    s->own = (dra_wl_owner){dra_jfield_str(w, "apiVersion"), dra_jfield_str(w, "kind"), c->name, s->uid};
}

static void label_pod(json_t *pod, const char *k, const char *v)
{
    if (pod)
        dra_wl_set_label(pod, k, v);
}

static long mpijob(dra_wl_ctx *c, const json_t *spec, dra_err **err)
{
    const json_t *specs = json_object_get(spec, "mpiReplicaSpecs");
    const json_t *launcher = json_object_get(specs, "Launcher"), *worker = json_object_get(specs, "Worker");
    if (!has_template(json_object_get(launcher, "template"))) {
        *err = refused(c->o, "spec.mpiReplicaSpecs[Launcher].template.spec", "Required value");
        return -2;
    }
    self s;
    self_init(&s, c);
    /* the launcher is a Job of one pod */
    char *job = dra_xasprintf("%s-launcher", c->name);
    char *job_uid = dra_wl_derived_uid("Job", c->ns, job);
    dra_wl_owner jown = {"batch/v1", "Job", job, job_uid};
    json_t *jspec = json_pack("{s:O}", "template", json_object_get(launcher, "template"));
    dra_wl_job_pods(c, jspec, job, &jown, "spec.mpiReplicaSpecs[Launcher].replicas");
    json_decref(jspec);
    int64_t n = dra_wl_count(c, dra_wl_int_or(worker, "replicas", 0), "spec.mpiReplicaSpecs[Worker].replicas");
    const json_t *wt = json_object_get(worker, "template");
    for (int64_t i = 0; i < n && has_template(wt); i++) {
        char *pn = dra_xasprintf("%s-worker-%" PRId64, c->name, i);
        json_t *pod = dra_wl_emit(c, wt, pn, false, &s.own);
        label_pod(pod, "training.kubeflow.org/job-role", "worker");
        free(pn);
    }
    free(job);
    free(job_uid);
    free(s.uid);
    return c->n;
}

/* kubeflow.org/v1 training jobs: "<job>-<type>-<i>" for every replica type */
static long training_job(dra_wl_ctx *c, const json_t *spec, const char *key, dra_err **err)
{
    const json_t *specs = json_object_get(spec, key);
    if (!json_object_size((json_t *)specs)) {
        char *f = dra_xasprintf("spec.%s", key);
        *err = refused(c->o, f, "Required value");
        free(f);
        return -2;
    }
    self s;
    self_init(&s, c);
    const char *type;
    const json_t *rs;
    json_object_foreach((json_t *)specs, type, rs) {
        char *field = dra_xasprintf("spec.%s[%s].replicas", key, type);
        int64_t n = dra_wl_count(c, dra_wl_int_or(rs, "replicas", 1), field);
        free(field);
        char *lower = dra_xstrdup(type);
        for (char *p = lower; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
        const json_t *t = json_object_get(rs, "template");
        for (int64_t i = 0; i < n && has_template(t); i++) {
            char *pn = dra_xasprintf("%s-%s-%" PRId64, c->name, lower, i);
            json_t *pod = dra_wl_emit(c, t, pn, false, &s.own);
            label_pod(pod, "training.kubeflow.org/replica-type", lower);
            free(pn);
        }
        free(lower);
    }
    free(s.uid);
    return c->n;
}

static long lws(dra_wl_ctx *c, const json_t *spec, dra_err **err)
{
    const json_t *lwt = json_object_get(spec, "leaderWorkerTemplate");
    const json_t *wt = json_object_get(lwt, "workerTemplate"), *lt = json_object_get(lwt, "leaderTemplate");
    if (!has_template(wt)) {
        *err = refused(c->o, "spec.leaderWorkerTemplate.workerTemplate.spec", "Required value");
        return -2;
    }
    if (!has_template(lt))
        lt = wt;
    int64_t groups = dra_wl_int_or(spec, "replicas", 1), size = dra_wl_int_or(lwt, "size", 1);
    if (size < 1)
        size = 1;
    groups = dra_wl_count(c, groups * size, "spec.replicas") / size;
    char *sts_uid = dra_wl_derived_uid("StatefulSet", c->ns, c->name);
    dra_wl_owner lown = {"apps/v1", "StatefulSet", c->name, sts_uid};
    for (int64_t g = 0; g < groups; g++) {
        char *leader = dra_xasprintf("%s-%" PRId64, c->name, g);
        char gi[24];
        snprintf(gi, sizeof gi, "%" PRId64, g);
        json_t *pod = dra_wl_emit(c, lt, leader, false, &lown);
        label_pod(pod, "leaderworkerset.sigs.k8s.io/name", c->name);
        label_pod(pod, "leaderworkerset.sigs.k8s.io/group-index", gi);
        label_pod(pod, "leaderworkerset.sigs.k8s.io/worker-index", "0");
        char *wuid = dra_wl_derived_uid("StatefulSet", c->ns, leader);
        dra_wl_owner wown = {"apps/v1", "StatefulSet", leader, wuid};
        for (int64_t w = 1; w < size; w++) {
            char *pn = dra_xasprintf("%s-%" PRId64, leader, w);
            char wi[24];
            snprintf(wi, sizeof wi, "%" PRId64, w);
            pod = dra_wl_emit(c, wt, pn, false, &wown);
            label_pod(pod, "leaderworkerset.sigs.k8s.io/name", c->name);
            label_pod(pod, "leaderworkerset.sigs.k8s.io/group-index", gi);
            label_pod(pod, "leaderworkerset.sigs.k8s.io/worker-index", wi);
            free(pn);
        }
        free(wuid);
        free(leader);
    }
    free(sts_uid);
    return c->n;
}

/* A JobSet's pods: spec is a JobSetSpec, the JobSet named name; node_jobs
 * (or NULL) gives the TrainJob's numNodes to the job named "node". */
static long jobset_pods(dra_wl_ctx *c, const json_t *spec, const char *name, const char *field, int64_t num_nodes,
                        dra_err **err)
{
    const json_t *rjobs = json_object_get(spec, "replicatedJobs");
    if (!json_array_size(rjobs)) {
        *err = refused(c->o, field, "Required value");
        return -2;
    }
    size_t i;
    const json_t *rj;
    json_array_foreach(rjobs, i, rj) {
        const char *rname = dra_jfield_str(rj, "name");
        const json_t *jspec = json_object_get(json_object_get(rj, "template"), "spec");
        if (!rname || !has_template(json_object_get(jspec, "template"))) {
            char *f = dra_xasprintf("%s[%zu].template.spec.template.spec", field, i);
            *err = refused(c->o, f, "Required value");
            free(f);
            return -2;
        }
        json_t *js = json_deep_copy(jspec);
        if (!json_is_string(json_object_get(js, "completionMode")))
            json_object_set_new(js, "completionMode", json_string("Indexed")); /* JobSet's webhook default */
        if (num_nodes > 0 && strcmp(rname, "node") == 0) {
            json_object_set_new(js, "parallelism", json_integer(num_nodes));
            json_object_set_new(js, "completions", json_integer(num_nodes));
        }
        int64_t replicas = dra_wl_int_or(rj, "replicas", 1);
        for (int64_t r = 0; r < replicas && !c->capped; r++) {
            char *job = dra_xasprintf("%s-%s-%" PRId64, name, rname, r);
            char *juid = dra_wl_derived_uid("Job", c->ns, job);
            dra_wl_owner jown = {"batch/v1", "Job", job, juid};
            char *f = dra_xasprintf("%s[%zu].template.spec.parallelism", field, i);
            size_t first = c->out->n;
            dra_wl_job_pods(c, js, job, &jown, f);
            for (size_t p = first; p < c->out->n; p++) {
                dra_wl_set_label(c->out->v[p].json, "jobset.sigs.k8s.io/jobset-name", name);
                dra_wl_set_label(c->out->v[p].json, "jobset.sigs.k8s.io/replicatedjob-name", rname);
            }
            free(f);
            free(juid);
            free(job);
        }
        json_decref(js);
    }
    return c->n;
}

/* GetWorkerGroupDesiredReplicas */
static int64_t ray_workers(const json_t *g)
{
    if (json_is_true(json_object_get(g, "suspend")))
        return 0;
    int64_t min = dra_wl_int_or(g, "minReplicas", 0), max = dra_wl_int_or(g, "maxReplicas", INT32_MAX);
    int64_t want = dra_wl_int_or(g, "replicas", min), n;
    if (min > max)
        n = max;
    else if (want < min)
        n = min;
    else if (want > max)
        n = max;
    else
        n = want;
    return n * dra_wl_int_or(g, "numOfHosts", 1);
}

/* utils.PodName: the prefix cut to 50, then "-<type>-" */
static char *ray_prefix(const char *prefix, const char *type)
{
    return dra_xasprintf("%.*s-%s-", 50, prefix, type);
}

static long raycluster_pods(dra_wl_ctx *c, const json_t *spec, const char *cluster, const char *field, dra_err **err)
{
    const json_t *head = json_object_get(json_object_get(spec, "headGroupSpec"), "template");
    if (!has_template(head)) {
        char *f = dra_xasprintf("%s.headGroupSpec.template.spec", field);
        *err = refused(c->o, f, "Required value");
        free(f);
        return -2;
    }
    char *uid = dra_wl_derived_uid("RayCluster", c->ns, cluster);
    dra_wl_owner own = {"ray.io/v1", "RayCluster", cluster, uid};
    char *hp = ray_prefix(cluster, "head");
    char *hn = dra_wl_gen(c, hp, 0);
    json_t *pod = dra_wl_emit(c, head, hn, true, &own);
    label_pod(pod, "ray.io/cluster", cluster);
    label_pod(pod, "ray.io/node-type", "head");
    free(hn);
    free(hp);
    size_t i;
    const json_t *g;
    const json_t *groups = json_object_get(spec, "workerGroupSpecs");
    json_array_foreach(groups, i, g) {
        const char *group = dra_jfield_str(g, "groupName");
        const json_t *t = json_object_get(g, "template");
        if (!group || !has_template(t))
            continue;
        char *f = dra_xasprintf("%s.workerGroupSpecs[%zu].replicas", field, i);
        int64_t n = dra_wl_count(c, ray_workers(g), f);
        free(f);
        char *gp = dra_xasprintf("%s-%s", cluster, group);
        char *wp = ray_prefix(gp, "worker");
        for (int64_t k = 0; k < n; k++) {
            char *pn = dra_wl_gen(c, wp, (uint64_t)k + 1);
            pod = dra_wl_emit(c, t, pn, true, &own);
            label_pod(pod, "ray.io/cluster", cluster);
            label_pod(pod, "ray.io/node-type", "worker");
            label_pod(pod, "ray.io/group", group);
            free(pn);
        }
        free(wp);
        free(gp);
    }
    free(uid);
    return c->n;
}

/* common.GetDefaultSubmitterContainer: of the head's image */
static json_t *ray_submitter_container(const json_t *cluster_spec)
{
    const json_t *c0 = json_array_get(
        json_object_get(
            json_object_get(json_object_get(json_object_get(cluster_spec, "headGroupSpec"), "template"), "spec"),
            "containers"),
        0);
    const char *image = dra_jfield_str(c0, "image");
    return json_pack("{s:s, s:s, s:{s:{s:s, s:s}, s:{s:s, s:s}}}", "name", "ray-job-submitter", "image",
                     image ? image : "", "resources", "limits", "cpu", "1", "memory", "1Gi", "requests", "cpu", "500m",
                     "memory", "200Mi");
}

/* The RayCluster a RayJob with clusterSelector runs on, when in the input. */
static const json_t *selected_cluster(const dra_wl_ctx *c, const json_t *selector)
{
    const char *name = dra_jfield_str(selector, "ray.io/cluster");
    for (size_t i = 0; name && i < c->set->n; i++) {
        const json_t *o = c->set->v[i].json, *md = json_object_get(o, "metadata");
        const char *ns = dra_jfield_str(md, "namespace");
        if (has(o, "ray.io/v1", "RayCluster") && dra_jfield_str(md, "name") &&
            !strcmp(dra_jfield_str(md, "name"), name) && !strcmp(ns ? ns : "default", c->ns))
            return o;
    }
    return NULL;
}

/* K8sJobMode: the submitter Job, named after the RayJob, and its pod. */
static long ray_submitter(dra_wl_ctx *c, const json_t *spec, const json_t *cluster_spec, dra_err **err)
{
    const json_t *given = json_object_get(spec, "submitterPodTemplate");
    json_t *tmpl;
    if (json_is_object(given)) {
        tmpl = json_deep_copy(given);
    } else if (cluster_spec) {
        tmpl = json_pack("{s:{s:[o], s:s}}", "spec", "containers", ray_submitter_container(cluster_spec),
                         "restartPolicy", "Never");
    } else {
        *err = refused(c->o, "spec.clusterSelector",
                       "the submitter's image is the head's of the selected RayCluster, which is not in the input");
        return -2;
    }
    if (!json_array_size(json_object_get(json_object_get(tmpl, "spec"), "containers"))) {
        json_decref(tmpl);
        *err = refused(c->o, "spec.submitterPodTemplate.spec.containers", "Required value");
        return -2;
    }
    if (!json_is_object(json_object_get(tmpl, "metadata")))
        json_object_set_new(tmpl, "metadata", json_object());
    json_t *md = json_object_get(tmpl, "metadata");
    if (!json_is_object(json_object_get(md, "labels")))
        json_object_set_new(md, "labels", json_object());
    json_t *labels = json_object_get(md, "labels");
    json_object_set_new(labels, "ray.io/originated-from-cr-name", json_string(c->name));
    json_object_set_new(labels, "ray.io/originated-from-crd", json_string("RayJob"));
    json_object_set_new(labels, "app.kubernetes.io/created-by", json_string("kuberay-operator"));
    const json_t *bl = json_object_get(json_object_get(spec, "submitterConfig"), "backoffLimit");
    json_t *jspec = json_pack("{s:o, s:I}", "template", tmpl, "backoffLimit",
                              (json_int_t)(json_is_integer(bl) ? json_integer_value(bl) : 2));
    char *job_uid = dra_wl_derived_uid("Job", c->ns, c->name);
    dra_wl_owner jown = {"batch/v1", "Job", c->name, job_uid};
    /* the Job's pod draws its own suffix, not the cluster's */
    uint64_t seed = c->seed;
    c->seed = dra_wl_hash(seed, "submitter");
    dra_wl_job_pods(c, jspec, c->name, &jown, "spec.submitterPodTemplate");
    c->seed = seed;
    json_decref(jspec);
    free(job_uid);
    return c->n;
}

static long rayjob(dra_wl_ctx *c, const json_t *spec, dra_err **err)
{
    const char *mode = dra_jfield_str(spec, "submissionMode");
    if (!mode || !*mode)
        mode = "K8sJobMode";
    bool k8s_job = !strcmp(mode, "K8sJobMode"), sidecar = !strcmp(mode, "SidecarMode");
    const json_t *cspec = json_object_get(spec, "rayClusterSpec");
    if (!json_is_object(cspec)) {
        if (!k8s_job) {
            *err = refused(c->o, "spec.rayClusterSpec",
                           "the job runs on an existing cluster (clusterSelector): no pods of its own");
            return -2;
        }
        /* an existing cluster: only the submitter */
        const json_t *rc = selected_cluster(c, json_object_get(spec, "clusterSelector"));
        return ray_submitter(c, spec, rc ? json_object_get(rc, "spec") : NULL, err);
    }
    json_t *own_spec = NULL;
    if (sidecar && has_template(json_object_get(json_object_get(cspec, "headGroupSpec"), "template"))) {
        own_spec = json_deep_copy(cspec);
        json_t *hs = json_object_get(json_object_get(json_object_get(own_spec, "headGroupSpec"), "template"), "spec");
        json_t *cs = json_object_get(hs, "containers");
        if (json_is_array(cs))
            json_array_append_new(cs, ray_submitter_container(cspec));
        json_object_set_new(hs, "restartPolicy", json_string("Never"));
    }
    char *prefix = dra_xasprintf("%s-", c->name);
    char *cluster = dra_wl_gen(c, prefix, 0);
    long n = raycluster_pods(c, own_spec ? own_spec : cspec, cluster, "spec.rayClusterSpec", err);
    free(cluster);
    free(prefix);
    json_decref(own_spec);
    if (n >= 0 && k8s_job)
        n = ray_submitter(c, spec, cspec, err);
    return n;
}

/* The runtime a TrainJob names, when the input has it. */
static const json_t *train_runtime(const dra_wl_ctx *c, const json_t *ref)
{
    const char *name = dra_jfield_str(ref, "name"), *kind = dra_jfield_str(ref, "kind");
    if (!kind)
        kind = "ClusterTrainingRuntime";
    for (size_t i = 0; name && i < c->set->n; i++) {
        const json_t *o = c->set->v[i].json;
        const json_t *md = json_object_get(o, "metadata");
        const char *ns = dra_jfield_str(md, "namespace");
        if (has(o, "trainer.kubeflow.org/v1alpha1", kind) && dra_jfield_str(md, "name") &&
            !strcmp(dra_jfield_str(md, "name"), name) &&
            (strcmp(kind, "TrainingRuntime") != 0 || (ns && !strcmp(ns, c->ns))))
            return o;
    }
    return NULL;
}

long dra_wl_expand_crd(dra_wl_ctx *c, dra_err **err)
{
    const json_t *w = c->o->json;
    const json_t *spec = json_object_get(w, "spec");
    const char *key = training_specs(w);
    if (has(w, "kubeflow.org/v2beta1", "MPIJob"))
        return mpijob(c, spec, err);
    if (key)
        return training_job(c, spec, key, err);
    if (has(w, "leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"))
        return lws(c, spec, err);
    if (has(w, "jobset.x-k8s.io/v1alpha2", "JobSet"))
        return jobset_pods(c, spec, c->name, "spec.replicatedJobs", 0, err);
    if (has(w, "ray.io/v1", "RayCluster"))
        return raycluster_pods(c, spec, c->name, "spec", err);
    if (has(w, "ray.io/v1", "RayJob"))
        return rayjob(c, spec, err);
    if (has(w, "trainer.kubeflow.org/v1alpha1", "TrainJob")) {
        const json_t *rt = train_runtime(c, json_object_get(spec, "runtimeRef"));
        if (!rt) {
            const char *rn = dra_jfield_str(json_object_get(spec, "runtimeRef"), "name");
            char *m = dra_xasprintf("the pod templates are in the runtime %s, which is not in the input",
                                    rn ? rn : "(none named)");
            *err = refused(c->o, "spec.runtimeRef", m);
            free(m);
            return -2;
        }
        int64_t nodes = dra_wl_int_or(json_object_get(spec, "trainer"), "numNodes", 0);
        const json_t *js = json_object_get(json_object_get(json_object_get(rt, "spec"), "template"), "spec");
        return jobset_pods(c, js, c->name, "runtime spec.template.spec.replicatedJobs", nodes, err);
    }
    return -1;
}
