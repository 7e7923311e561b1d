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
 *   batch/v1 Job          min(parallelism, completions) pods <job>-<5>
 *   batch/v1 CronJob      one run of spec.jobTemplate, as a Job
 * Pods get the template's labels and annotations, a controller
 * ownerReference, and DRA_ASSUMED_ANNOTATION naming what was assumed.  Other
 * objects that embed a pod template (MPIJob, JobSet, LeaderWorkerSet, or any
 * object with spec.template.spec.containers) are left alone and named in the
 * report's warnings.
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
    dra_err *warnings;  /* workloads not expanded, and why */
    dra_err *notes;     /* one per expanded workload ("expanded into N pods"), for -v */
    size_t workloads;   /* workloads expanded */
    size_t pods;        /* pods created */
    size_t assumed;     /* pods given a name or UID */
} dra_expand_report;

/* Expand workloads in place (see above).  Workloads the API server would
 * refuse (no name, no pod template) stay as they are, with a warning.
 * Returns no error today; the result is kept for callers to chain. */
DRA_MUST_USE dra_err *dra_expand_workloads(dra_objset *set, const char *default_namespace, dra_expand_report *rep);
/* Names and UIDs for pods that have none (see above). */
void dra_assume_pod_identity(dra_objset *set, const char *default_namespace, dra_expand_report *rep);
/* The same for one object (left alone unless a Pod) at place `place` of its
 * input, for readers that see one object at a time: pods of one input get
 * distinct places, so two alike pods with generateName get two names. */
void dra_assume_pod_identity_at(json_t *obj, size_t place, const char *default_namespace, dra_expand_report *rep);
void dra_expand_report_free(dra_expand_report *rep);

#endif
