/* The pods each workload kind becomes, named as its controller names them
 * (model/workloads.h; the data files cite the published manifests they
 * follow). */
#include <stdlib.h>
#include <string.h>

#include "io/stream.h"
#include "model/workloads.h"
#include "testdata.h"
#include "unit.h"

/* The names of the pods file expands into, in order, joined by ' ';
 * '*' stands for each 5-character generated suffix. */
static char *names_of(const char *file, dra_expand_report *rep)
{
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/workloads/%s", file);
    char *path = unit_data_path(NULL, rel);
    dra_objset set = DRA_OBJSET_INIT;
    char *paths[] = {path};
    dra_err *e = path ? dra_read_paths(&set, paths, 1) : dra_err_new(2, "no %s", rel);
    if (e) {
        fprintf(stderr, "%s\n", e->msg);
        abort();
    }
    dra_err_free(dra_expand_workloads(&set, NULL, rep));
    char *out = calloc(1, 1 << 20); /* big.yaml: 10000 names */
    for (size_t i = 0; i < set.n; i++) {
        const json_t *o = set.v[i].json;
        if (strcmp(json_string_value(json_object_get(o, "kind")), "Pod") != 0)
            continue;
        const char *name = json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));
        const char *ann = json_string_value(
            json_object_get(json_object_get(json_object_get(o, "metadata"), "annotations"), DRA_ASSUMED_ANNOTATION));
        size_t len = strlen(name);
        if (*out)
            strcat(out, " ");
        /* generated names: the prefix, then '*' for the 5 characters drawn */
        if (ann && strstr(ann, "name") && len > 5)
            strncat(out, name, len - 5), strcat(out, "*");
        else
            strcat(out, name);
    }
    dra_objset_free(&set);
    free(path);
    return out;
}

/* clang-format off */
#define EXPECT(file, want, npods)                                                                                     \
    do {                                                                                                               \
        dra_expand_report rep = {0};                                                                                   \
        char *got = names_of(file, &rep);                                                                              \
        CHECK_STR(got, want);                                                                                          \
        CHECK_INT((long)rep.pods, npods);                                                                              \
        free(got);                                                                                                     \
        dra_expand_report_free(&rep);                                                                                  \
    } while (0)
/* clang-format on */

UNIT_TEST(mpijob_launcher_job_and_indexed_workers)
{
    EXPECT("mpijob.yaml", "pi-launcher-* pi-worker-0 pi-worker-1", 3);
}

UNIT_TEST(training_operator_type_and_index)
{
    EXPECT("pytorchjob.yaml", "pytorch-simple-master-0 pytorch-simple-worker-0", 2);
}

UNIT_TEST(kuberay_head_and_group_workers)
{
    EXPECT("raycluster.yaml", "raycluster-kuberay-head-* raycluster-kuberay-workergroup-worker-*", 2);
}

UNIT_TEST(rayjob_cluster_named_after_the_job)
{
    dra_expand_report rep = {0};
    char *got = names_of("rayjob.yaml", &rep);
    /* rayjob-sample-<5>-head-<5>, then two rayjob-sample-<5>-small-group-worker-<5> */
    CHECK(strncmp(got, "rayjob-sample-", 14) == 0);
    CHECK(strstr(got, "-head-*") != NULL);
    CHECK(strstr(got, "-small-group-worker-* rayjob-sample-") != NULL);
    /* K8sJobMode (the default): then the submitter Job rayjob-sample's pod */
    const char *last = strrchr(got, ' ');
    CHECK_STR(last, " rayjob-sample-*");
    CHECK_INT((long)rep.pods, 4);
    free(got);
    dra_expand_report_free(&rep);
}

/* The pod of file named by label k=v, from a fresh expansion; *set is to be freed. */
static const json_t *pod_labelled(const char *file, const char *k, const char *v, dra_objset *set, size_t *npods)
{
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/workloads/%s", file);
    char *path = unit_data_path(NULL, rel);
    char *paths[] = {path};
    dra_err *e = path ? dra_read_paths(set, paths, 1) : dra_err_new(2, "no %s", rel);
    if (e) {
        fprintf(stderr, "%s\n", e->msg);
        abort();
    }
    dra_expand_report rep = {0};
    dra_err_free(dra_expand_workloads(set, NULL, &rep));
    *npods = rep.pods;
    dra_expand_report_free(&rep);
    free(path);
    for (size_t i = 0; i < set->n; i++) {
        const json_t *labels = json_object_get(json_object_get(set->v[i].json, "metadata"), "labels");
        const char *l = json_string_value(json_object_get(labels, k));
        if (l && !strcmp(l, v))
            return set->v[i].json;
    }
    return NULL;
}

static const char *str_at(const json_t *o, const char *const *path)
{
    for (; *path; path++)
        o = json_is_array(o) ? json_array_get(o, (size_t)atoi(*path)) : json_object_get(o, *path);
    return json_string_value(o);
}
#define STR_AT(o, ...) str_at(o, (const char *const[]){__VA_ARGS__, NULL})

/* kuberay v1.7.0 ray-operator/controllers/ray/rayjob_controller.go
 * createNewK8sJob, getSubmitterTemplate; common/job.go GetSubmitterTemplate,
 * GetDefaultSubmitterContainer */
UNIT_TEST(rayjob_submitter_job_pod_by_default)
{
    dra_objset set = DRA_OBJSET_INIT;
    size_t n;
    const json_t *pod = pod_labelled("rayjob.yaml", "batch.kubernetes.io/job-name", "rayjob-sample", &set, &n);
    CHECK(pod != NULL);
    CHECK_INT((long)n, 4);
    CHECK_STR(STR_AT(pod, "metadata", "ownerReferences", "0", "kind"), "Job");
    CHECK_STR(STR_AT(pod, "metadata", "ownerReferences", "0", "name"), "rayjob-sample");
    CHECK_STR(STR_AT(pod, "metadata", "labels", "ray.io/originated-from-cr-name"), "rayjob-sample");
    CHECK_STR(STR_AT(pod, "metadata", "labels", "ray.io/originated-from-crd"), "RayJob");
    CHECK_STR(STR_AT(pod, "metadata", "labels", "app.kubernetes.io/created-by"), "kuberay-operator");
    CHECK_STR(STR_AT(pod, "spec", "restartPolicy"), "Never");
    CHECK_STR(STR_AT(pod, "spec", "containers", "0", "name"), "ray-job-submitter");
    CHECK_STR(STR_AT(pod, "spec", "containers", "0", "image"), "rayproject/ray:2.46.0");
    CHECK_STR(STR_AT(pod, "spec", "containers", "0", "resources", "requests", "cpu"), "500m");
    CHECK_STR(STR_AT(pod, "spec", "containers", "0", "resources", "requests", "memory"), "200Mi");
    CHECK_STR(STR_AT(pod, "spec", "containers", "0", "resources", "limits", "cpu"), "1");
    CHECK_STR(STR_AT(pod, "spec", "containers", "0", "resources", "limits", "memory"), "1Gi");
    dra_objset_free(&set);
}

UNIT_TEST(rayjob_submitter_pod_template_is_used)
{
    dra_objset set = DRA_OBJSET_INIT;
    size_t n;
    const json_t *pod = pod_labelled("rayjob-custom.yaml", "batch.kubernetes.io/job-name", "rayjob-custom", &set, &n);
    CHECK(pod != NULL);
    CHECK_INT((long)n, 4);
    CHECK_STR(STR_AT(pod, "metadata", "labels", "team"), "ml");
    CHECK_STR(STR_AT(pod, "metadata", "labels", "ray.io/originated-from-cr-name"), "rayjob-custom");
    CHECK_STR(STR_AT(pod, "spec", "containers", "0", "name"), "my-submitter");
    CHECK_STR(STR_AT(pod, "spec", "resourceClaims", "0", "resourceClaimTemplateName"), "single-gpu");
    dra_objset_free(&set);
}

/* A RayJob of file makes no submitter Job: its RayCluster's 3 pods. */
static const json_t *no_submitter(const char *file, const char *job, dra_objset *set, int *unit_failed)
{
    size_t n;
    CHECK(pod_labelled(file, "batch.kubernetes.io/job-name", job, set, &n) == NULL);
    CHECK_INT((long)n, 3);
    dra_objset_free(set);
    *set = (dra_objset)DRA_OBJSET_INIT;
    return pod_labelled(file, "ray.io/node-type", "head", set, &n);
}

UNIT_TEST(rayjob_http_mode_has_no_submitter)
{
    dra_objset set = DRA_OBJSET_INIT;
    const json_t *head = no_submitter("rayjob-http.yaml", "rayjob-http", &set, unit_failed);
    CHECK(json_array_size(json_object_get(json_object_get(head, "spec"), "containers")) == 1);
    dra_objset_free(&set);
}

/* rayjob_controller.go constructRayClusterForRayJob: SidecarMode */
UNIT_TEST(rayjob_sidecar_mode_submits_from_the_head)
{
    dra_objset set = DRA_OBJSET_INIT;
    const json_t *head = no_submitter("rayjob-sidecar.yaml", "rayjob-sidecar", &set, unit_failed);
    CHECK(head != NULL);
    CHECK_STR(STR_AT(head, "spec", "containers", "0", "name"), "ray-head");
    CHECK_STR(STR_AT(head, "spec", "containers", "1", "name"), "ray-job-submitter");
    CHECK_STR(STR_AT(head, "spec", "containers", "1", "image"), "rayproject/ray:2.46.0");
    CHECK_STR(STR_AT(head, "spec", "restartPolicy"), "Never");
    dra_objset_free(&set);
}

UNIT_TEST(jobset_jobs_times_indexed_pods)
{
    EXPECT("jobset.yaml",
           "paralleljobs-workers-0-0-* paralleljobs-workers-0-1-* paralleljobs-workers-1-0-* "
           "paralleljobs-workers-1-1-* paralleljobs-driver-0-0-*",
           5);
}

UNIT_TEST(lws_leaders_and_workers_per_group)
{
    EXPECT("lws.yaml",
           "leaderworkerset-sample-0 leaderworkerset-sample-0-1 leaderworkerset-sample-0-2 "
           "leaderworkerset-sample-1 leaderworkerset-sample-1-1 leaderworkerset-sample-1-2",
           6);
}

UNIT_TEST(trainjob_runtime_jobset_with_num_nodes)
{
    EXPECT("trainjob.yaml", "pytorch-mnist-node-0-0-* pytorch-mnist-node-0-1-*", 2);
}

UNIT_TEST(generate_name_workloads_named_first)
{
    dra_expand_report rep = {0};
    char *got = names_of("generatename.yaml", &rep);
    /* finetune-<5>-<index>-<5> twice, then inference-<5>-<hash>-<5> */
    CHECK(strncmp(got, "finetune-", 9) == 0 && strstr(got, "-0-* finetune-") != NULL);
    CHECK(strstr(got, "-1-* inference-") != NULL);
    CHECK_INT((long)rep.pods, 3);
    CHECK_INT((long)rep.workloads, 2);
    free(got);
    dra_expand_report_free(&rep);
}

UNIT_TEST(unknown_kind_with_claims_is_named_with_its_path)
{
    dra_expand_report rep = {0};
    char *got = names_of("unknown.yaml", &rep);
    CHECK_STR(got, "");
    CHECK(rep.warnings != NULL &&
          strstr(rep.warnings->msg, "TrainingRun of example.com/v1 holds a pod template with resourceClaims at "
                                    "spec.stages[0].podTemplate but is not expanded") != NULL);
    free(got);
    dra_expand_report_free(&rep);
}

UNIT_TEST(large_workloads_capped_with_a_warning)
{
    dra_expand_report rep = {0};
    char *got = names_of("big.yaml", &rep);
    CHECK_INT((long)rep.pods, 10000);
    CHECK(rep.warnings != NULL && strstr(rep.warnings->msg, "12000 pods: only the first 10000") != NULL);
    free(got);
    dra_expand_report_free(&rep);
}

UNIT_MAIN()
