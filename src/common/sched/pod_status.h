/* The PodScheduled condition kube-scheduler writes on a pod it could not
 * place: k8s.io/kubernetes v1.37.2 pkg/scheduler/schedule_one.go
 * handleSchedulingFailure (status False; reason Unschedulable when the
 * pod was rejected, a FitError "0/N nodes are available: ...", else
 * SchedulerError; the message whole, only the event's is truncated;
 * observedGeneration from metadata.generation, PodObservedGenerationTracking
 * being GA) through updatePod and pkg/api/v1/pod/util.go UpdatePodCondition
 * (lastTransitionTime kept when the status is the same; nothing written
 * when status, reason, message and times are unchanged).
 *
 * Ownership: pod is borrowed (an original or a working copy of st); the
 * condition is written on its working copy in st.  Nothing here prints. */
#ifndef DRA_SCHED_POD_STATUS_H
#define DRA_SCHED_POD_STATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../cluster/ops.h"

#define DRA_POD_SCHEDULED_CONDITION "PodScheduled"

/* Set PodScheduled=False on pod: reason Unschedulable, or SchedulerError
 * when error is set, with message msg (NULL: ""), at time now (Unix
 * seconds). */
void dra_sched_pod_unscheduled(dra_changes *st, const json_t *pod, bool error, const char *msg, int64_t now);

#endif
