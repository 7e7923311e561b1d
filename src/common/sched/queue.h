/* The scheduling queue's order: which pending pod the scheduler tries first.
 *
 * Upstream (k8s.io/kubernetes v1.37.2):
 *   pkg/scheduler/framework/plugins/queuesort/priority_sort.go  Less: the
 *     higher priority first; equal priorities: the earlier queue timestamp.
 *   pkg/scheduler/framework/types.go QueuedPodInfo.GetPriority ->
 *     component-helpers scheduling/corev1 PodPriority: spec.priority, or 0.
 *   pkg/scheduler/backend/queue/scheduling_queue.go newQueuedPodInfo: the
 *     timestamp is the clock when the pod was added to the queue, i.e. when
 *     the scheduler's informer saw the pod created.
 *   plugin/pkg/admission/priority/admission.go: at creation spec.priority
 *     is set from spec.priorityClassName's PriorityClass value, or (no name)
 *     from the globalDefault class with the lowest value, or 0; a name with
 *     no such class is refused ("no PriorityClass with name X was found").
 *     system-cluster-critical (2000000000) and system-node-critical
 *     (2000001000) exist in every cluster.
 *
 * Here: a pod's priority is spec.priority when set (the pod was admitted),
 * else what admission would set from the PriorityClasses of the input.  Its
 * queue time is metadata.creationTimestamp; a pod without one is created by
 * the apply that follows the dump, so it queues after every pod that has one,
 * and such pods among themselves in input order.  Equal times (dumps keep
 * whole seconds) go by namespace, then name: upstream's heap has no rule
 * for them, this one is stable.
 *
 * Pod groups (GenericWorkload; pkg/scheduler/backend/queue/scheduling_queue.go
 * addPodGroupMember, framework/types.go QueuedPodGroupInfo): the pending
 * pods naming one PodGroup (spec.schedulingGroup.podGroupName) are one entry
 * of the queue, tried one after the other.  The entry's priority is the
 * PodGroup's (spec.priority, or what admission would set from its
 * priorityClassName; GetPriority), its time the first member's
 * (newQueuedPodGroupInfoFromRootLookup: the first member queued makes the
 * entry; pods queue in creation order, so the earliest member's time when
 * the PodGroup came first; members made before their PodGroup wait in
 * incompletePodGroupPods, a map, and any of them may make the entry: the
 * earliest is taken here too); equal entries go by namespace, then name
 * (the group's).  Members
 * go by PodGroupMemberPodsOrderingFunc: priority, then queue time, then
 * name.  Held back, their pods last (in entry order) with the reason:
 * a group whose PodGroup is not in the input (incompletePodGroupPods), a
 * gang whose PodGroup has fewer pods than minCount (gangscheduling
 * PreEnqueue: AllPodsCount, bound members too, Succeeded and Failed pods
 * not), and, as errors, a group whose members differ in schedulerName or
 * whose priority differs from the group's (schedule_one_podgroup.go
 * validatePodGroup).  Without the gate every pod is its own entry.
 *
 * Ownership: pods and classes are borrowed; the result owns its texts
 * (dra_sched_queue_free).  Nothing here prints.
 */
#ifndef DRA_SCHED_QUEUE_H
#define DRA_SCHED_QUEUE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "../io/stream.h"
#include "../model/features.h"

#define DRA_SYSTEM_CLUSTER_CRITICAL 2000000000
#define DRA_SYSTEM_NODE_CRITICAL 2000001000

typedef enum { DRA_SCHED_ORDER_QUEUE = 0, DRA_SCHED_ORDER_INPUT } dra_sched_order;

typedef struct dra_sched_queued {
    size_t index; /* into the pods given */
    int64_t priority;
    char *why;         /* "priority 1000 (PriorityClass high), created 2026-03-01T09:00:00Z"; NULL unless explain */
    char *group;       /* "ns/name" of the pod's PodGroup when queued with it, else NULL */
    char *hold;        /* why the pod is not tried (its group is held back), else NULL */
    bool hold_error;   /* the hold is an error (validatePodGroup), not a wait */
    int64_t min_count; /* with a group: the gang's minCount, 1 for a basic policy (getMinCount); else 0 */
    int64_t bound;     /* with a group: its members already on a node (ScheduledPodsCount) */
} dra_sched_queued;

typedef struct dra_sched_queue {
    dra_sched_queued *v; /* in the order the pods are tried */
    size_t n;
    dra_err *warnings; /* pods admission would refuse, classes without a value */
} dra_sched_queue;

/* Is obj a scheduling.k8s.io/v1 PriorityClass? */
bool dra_is_priority_class(const json_t *obj);

/* Order pods (n, in input order) as the queue pops them, with the
 * PriorityClasses, PodGroups and Pods of set (its other objects are passed
 * over) and the gates f (NULL: the defaults).
 * DRA_SCHED_ORDER_INPUT keeps the given order (priorities are still worked
 * out, for --explain).  Each pod's why is written only with explain (it is
 * read by --explain alone). */
void dra_sched_queue_order(const dra_obj *const *pods, size_t n, const dra_objset *set, dra_sched_order order,
                           const dra_features *f, bool explain, dra_sched_queue *out);
void dra_sched_queue_free(dra_sched_queue *q);

#endif
