/* The PodGroupInitiallyScheduled condition the scheduler writes on a pod
 * group (scheduling.k8s.io, GenericWorkload) after trying it -- 1.36's
 * PodGroupScheduled, with the same reasons, and written the same way save
 * that 1.36's frameworkForPodGroup refusal writes none: k8s.io/
 * kubernetes v1.37.2 pkg/scheduler/schedule_one_podgroup.go
 * submitPodGroupAlgorithmResult (a pod group cycle: True/Scheduled, or
 * False/Unschedulable with the group's status, or False/SchedulerError),
 * handlePodGroupFailureBeforeScheduling (validatePodGroup refused it:
 * False/SchedulerError with the error) and updatePodGroupCondition
 * (observedGeneration from metadata.generation; a True condition never
 * goes back to False; apimeta.SetStatusCondition: lastTransitionTime only
 * when the status changes, nothing written when nothing changes).
 *
 * Ownership: group is borrowed (an original or a working copy of st); the
 * condition is written on its working copy in st.  Nothing here prints. */
#ifndef DRA_SCHED_GROUP_STATUS_H
#define DRA_SCHED_GROUP_STATUS_H

#include <jansson.h>
#include <stdint.h>

#include "../cluster/ops.h"

typedef enum {
    DRA_GROUP_SCHEDULED,       /* True, reason Scheduled */
    DRA_GROUP_UNSCHEDULABLE,   /* False, reason Unschedulable */
    DRA_GROUP_SCHEDULER_ERROR, /* False, reason SchedulerError */
    DRA_GROUP_POD_GROUP_ERROR, /* False, reason PodGroupError: from 1.38, the group itself is invalid */
} dra_group_outcome;

#define DRA_POD_GROUP_INITIALLY_SCHEDULED "PodGroupInitiallyScheduled"
#define DRA_POD_GROUP_SCHEDULED "PodGroupScheduled" /* 1.36 (k8s.io/api@v0.36.3 scheduling/v1alpha2) */

/* Set the condition of type `type` (one of the two above) for outcome o
 * with message msg (NULL: ""), at time now (Unix seconds). */
void dra_sched_group_condition(dra_changes *st, const json_t *group, const char *type, dra_group_outcome o,
                               const char *msg, int64_t now);

#endif
