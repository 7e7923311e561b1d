/* Manifests are not dumps: the pods that controllers and the API server
 * would make from what people write.
 *
 * dra_expand_workloads() replaces every workload of the input by the pods its
 * controller would create, as objects of the set (at the workload's place,
 * file and line):
 *   apps/v1 Deployment    spec.replicas (default 1) pods of one ReplicaSet
 *                         <deployment>-<pod-template-hash>, named <rs>-<5>
 *   apps/v1 ReplicaSet    spec.replicas pods <rs>-<5>
 *   apps/v1 StatefulSet   spec.replicas pods <sts>-<ordinal>, ordinals from
 *                         spec.ordinals.start (default 0)
 *   apps/v1 DaemonSet     one pod <ds>-<5> per Node of the input that matches
 *                         the template's nodeSelector (the node names of the
 *                         ResourceSlices when there are no Nodes), pinned by
 *                         required node affinity on metadata.name as the
 *                         DaemonSet controller does
 *   batch/v1 Job          min(parallelism, completions) pods <job>-<5>, or
 *                         <job>-<index>-<5> when Indexed
 *   batch/v1 CronJob      one run of spec.jobTemplate, as a Job
 *   kubeflow.org/v2beta1 MPIJob   the launcher Job <job>-launcher (one pod),
 *                         Worker.replicas (default 0) pods <job>-worker-<i>
 *   kubeflow.org/v1 PyTorchJob, TFJob, XGBoostJob, PaddleJob, JAXJob, MPIJob
 *                         per replica type, replicas (default 1) pods
 *                         <job>-<type in lower case>-<i>
 *   ray.io/v1 RayCluster  <cluster>-head-<5>, and per worker group
 *                         clamp(replicas, min, max) * numOfHosts pods
 *                         <cluster>-<group>-worker-<5>
 *   ray.io/v1 RayJob      the pods of its RayCluster <rayjob>-<5>; in
 *                         K8sJobMode (the default) also its submitter Job
 *                         <rayjob>'s pod <rayjob>-<5>; SidecarMode adds the
 *                         submitter container to the head pod
 *   jobset.x-k8s.io/v1alpha2 JobSet  per replicated job, replicas Jobs
 *                         <jobset>-<job>-<i>, Indexed by default
 *   leaderworkerset.x-k8s.io/v1 LeaderWorkerSet  per group g: leader
 *                         <lws>-<g>, workers <lws>-<g>-<w> for w in 1..size-1
 *   trainer.kubeflow.org/v1alpha1 TrainJob  the JobSet of its runtime (when
 *                         in the input) named <trainjob>, numNodes on "node"
 * (workloads_crd.c cites each controller's source.)  A workload with only
 * generateName is named first (generateName + 5).  At most
 * DRA_EXPAND_MAX_PODS (10000) pods are made of one workload, with a warning.
 * Pods get the template's labels and annotations, a controller
 * ownerReference, and DRA_ASSUMED_ANNOTATION naming what was assumed.  Other
 * objects that hold a pod template anywhere (an object whose spec has
 * containers) are left alone and named in the report's warnings with the
 * template's path (and whether it has resourceClaims).
 *
 * dra_assume_pod_identity() gives every Pod without metadata.name (only
 * generateName) a name as the API server would (generateName + 5
 * characters, deterministic here) and every Pod without metadata.uid a UID
 * derived from namespace/name, and marks both in DRA_ASSUMED_ANNOTATION.
 *
 * Everything is deterministic: the same input gives the same names and UIDs.
 * Ownership: the report's errors belong to the caller (dra_expand_report_free).
 */
#ifndef DRA_MODEL_WORKLOADS_H
#define DRA_MODEL_WORKLOADS_H

#include <stddef.h>

#include "../base/error.h"
#include "../io/stream.h"

#define DRA_ASSUMED_ANNOTATION "dra-tools/assumed"

typedef struct dra_expand_report {
    dra_err *warnings; /* workloads not expanded, and why */
    dra_err *notes;    /* one per expanded workload ("expanded into N pods"), for -v */
    size_t workloads;  /* workloads expanded */
    size_t pods;       /* pods created */
    size_t assumed;    /* pods given a name or UID */
} dra_expand_report;

/* Expand workloads in place (see above).  Workloads the API server would
 * refuse (no name, no pod template) stay as they are, with a warning.
 * Returns no error today; the result is kept for callers to chain. */
DRA_MUST_USE dra_err *dra_expand_workloads(dra_objset *set, const char *default_namespace, dra_expand_report *rep);
/* Is obj a workload: of a kind expanded here, or (not a Pod, not of
 * resource.k8s.io) holding a pod template anywhere, which
 * dra_expand_workloads names in a warning? */
bool dra_is_workload(const json_t *obj);
/* Names and UIDs for pods that have none (see above). */
void dra_assume_pod_identity(dra_objset *set, const char *default_namespace, dra_expand_report *rep);
/* The same for one object (left alone unless a Pod) at place `place` of its
 * input, for readers that see one object at a time: pods of one input get
 * distinct places, so two alike pods with generateName get two names. */
void dra_assume_pod_identity_at(json_t *obj, size_t place, const char *default_namespace, dra_expand_report *rep);
void dra_expand_report_free(dra_expand_report *rep);

#endif
