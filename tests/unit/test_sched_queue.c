/* The scheduling queue's order (sched/queue.h): PrioritySort.Less of
 * k8s.io/kubernetes v1.37.2 pkg/scheduler/framework/plugins/queuesort,
 * priorities as the priority admission plugin sets them. */
#include <jansson.h>

#include "../../src/common/sched/queue.h"
#include "unit.h"

static void add(dra_objset *set, const char *text)
{
    json_error_t je;
    json_t *o = json_loads(text, 0, &je);
    if (!o) {
        fprintf(stderr, "bad test JSON: %s\n", je.text);
        abort();
    }
    dra_objset_add(set, o, "t.json", (int)set->n + 1, 1, -1);
}

/* the pods of set, in set order, ordered; names in queue order joined by ' ' */
static char *order_in(const dra_objset *set, dra_sched_order order, const dra_features *f, dra_err **warnings)
{
    const dra_obj **pods = calloc(set->n + 1, sizeof *pods);
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++)
        if (!strcmp(json_string_value(json_object_get(set->v[i].json, "kind")), "Pod") &&
            !json_object_get(json_object_get(set->v[i].json, "spec"), "nodeName"))
            pods[n++] = &set->v[i]; /* the pending ones, as the scheduler gives them */
    dra_sched_queue q;
    dra_sched_queue_order(pods, n, set, order, f, true, &q);
    char *s = calloc(1, 4096);
    for (size_t i = 0; i < q.n; i++) {
        const char *name =
            json_string_value(json_object_get(json_object_get(pods[q.v[i].index]->json, "metadata"), "name"));
        strcat(s, i ? " " : "");
        if (q.v[i].group && (i == 0 || !q.v[i - 1].group || strcmp(q.v[i - 1].group, q.v[i].group)))
            strcat(s, "[");
        strcat(s, name);
        if (q.v[i].hold) {
            strcat(s, q.v[i].hold_error ? "!{" : "?{");
            strcat(s, q.v[i].hold);
            strcat(s, "}");
        }
        if (q.v[i].group && (i + 1 == q.n || !q.v[i + 1].group || strcmp(q.v[i + 1].group, q.v[i].group)))
            strcat(s, "]");
    }
    if (warnings) {
        *warnings = q.warnings;
        q.warnings = NULL;
    }
    dra_sched_queue_free(&q);
    free(pods);
    return s;
}

static char *order_of(const dra_objset *set, dra_sched_order order, dra_err **warnings)
{
    return order_in(set, order, NULL, warnings);
}

/* clang-format off */
#define POD(name, extra_md, spec)                                                                                     \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\"" extra_md \
    "},\"spec\":{" spec "}}"
/* clang-format on */

UNIT_TEST(higher_priority_first_then_earlier_creation)
{
    dra_objset set = DRA_OBJSET_INIT;
    add(&set, POD("a-low-new", ",\"creationTimestamp\":\"2026-03-01T09:30:00Z\"", "\"priority\":0"));
    add(&set, POD("b-high-old", ",\"creationTimestamp\":\"2026-03-01T09:00:00Z\"", "\"priority\":1000"));
    add(&set, POD("c-low-old", ",\"creationTimestamp\":\"2026-03-01T08:00:00Z\"", "\"priority\":0"));
    add(&set, POD("d-no-time", "", "\"priority\":0"));
    add(&set, POD("b-low-same", ",\"creationTimestamp\":\"2026-03-01T09:30:00Z\"", "\"priority\":0"));
    char *s = order_of(&set, DRA_SCHED_ORDER_QUEUE, NULL);
    CHECK_STR(s, "b-high-old c-low-old a-low-new b-low-same d-no-time");
    free(s);
    s = order_of(&set, DRA_SCHED_ORDER_INPUT, NULL);
    CHECK_STR(s, "a-low-new b-high-old c-low-old d-no-time b-low-same");
    free(s);
    dra_objset_free(&set);
}

UNIT_TEST(priority_from_classes_as_admission_sets_it)
{
    dra_objset set = DRA_OBJSET_INIT;
    add(&set, "{\"apiVersion\":\"scheduling.k8s.io/"
              "v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"high\"},\"value\":1000}");
    add(&set, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"d1\"},"
              "\"value\":50,\"globalDefault\":true}");
    add(&set, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"d2\"},"
              "\"value\":40,\"globalDefault\":true}");
    add(&set, POD("p-spec", "", "\"priority\":45"));      /* admitted already: its own value */
    add(&set, POD("p-default", "", "\"containers\":[]")); /* globalDefault with the lowest value: 40 */
    add(&set, POD("p-high", "", "\"priorityClassName\":\"high\""));
    add(&set, POD("p-node", "", "\"priorityClassName\":\"system-node-critical\""));
    add(&set, POD("p-cluster", "", "\"priorityClassName\":\"system-cluster-critical\""));
    add(&set, POD("p-missing", "", "\"priorityClassName\":\"nope\""));
    dra_err *w = NULL;
    char *s = order_of(&set, DRA_SCHED_ORDER_QUEUE, &w);
    CHECK_STR(s, "p-node p-cluster p-high p-spec p-default p-missing");
    CHECK(w != NULL && strstr(w->msg, "no PriorityClass with name nope was found") != NULL);
    CHECK(w != NULL && w->next == NULL);
    dra_err_free(w);
    free(s);
    dra_objset_free(&set);
}

/* ---- pod groups (GenericWorkload): k8s.io/kubernetes v1.37.2
 * pkg/scheduler/backend/queue/scheduling_queue.go addPodGroupMember and
 * newQueuedPodGroupInfoFromRootLookup (a group is one queue entry, its time
 * the first member's), framework/types.go QueuedPodGroupInfo.GetPriority
 * (the PodGroup's spec.priority) and PodGroupMemberPodsOrderingFunc,
 * plugins/gangscheduling PreEnqueue, schedule_one_podgroup.go
 * validatePodGroup. */

/* clang-format off */
#define GROUP(name, spec)                                                                                             \
    "{\"apiVersion\":\"scheduling.k8s.io/v1beta1\",\"kind\":\"PodGroup\",\"metadata\":{\"name\":\"" name      \
    "\",\"namespace\":\"default\"},\"spec\":{" spec "}}"
/* clang-format on */
#define AT(t) ",\"creationTimestamp\":\"2026-03-01T" t "Z\""
#define IN(g) "\"schedulingGroup\":{\"podGroupName\":\"" g "\"}"

/* The queue order of set with GenericWorkload on or off. */
static char *grouped(const dra_objset *set, bool on)
{
    dra_features f;
    dra_features_default(&f);
    dra_err *e = dra_features_set(&f, DRA_FEATURE_GENERIC_WORKLOAD, on);
    if (e)
        abort();
    return order_in(set, DRA_SCHED_ORDER_QUEUE, &f, NULL);
}

UNIT_TEST(group_is_one_entry_at_its_first_members_time)
{
    dra_objset set = DRA_OBJSET_INIT;
    add(&set, GROUP("train", "\"schedulingPolicy\":{\"basic\":{}}"));
    add(&set, POD("solo-0900", AT("09:00:00"), "\"containers\":[]"));
    add(&set, POD("w-1000", AT("10:00:00"), IN("train")));
    add(&set, POD("solo-0930", AT("09:30:00"), "\"containers\":[]"));
    add(&set, POD("w-0800", AT("08:00:00"), IN("train")));
    add(&set, POD("w-0830", AT("08:30:00"), IN("train")));
    char *s = grouped(&set, true);
    /* the group queues at 08:00, its members together, the earliest first */
    CHECK_STR(s, "[w-0800 w-0830 w-1000] solo-0900 solo-0930");
    free(s);
    /* gate off: every pod on its own */
    s = grouped(&set, false);
    CHECK_STR(s, "w-0800 w-0830 solo-0900 solo-0930 w-1000");
    free(s);
    dra_objset_free(&set);
}

UNIT_TEST(group_priority_is_the_pod_groups)
{
    dra_objset set = DRA_OBJSET_INIT;
    add(&set, "{\"apiVersion\":\"scheduling.k8s.io/"
              "v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"high\"},\"value\":1000}");
    add(&set, GROUP("hi", "\"schedulingPolicy\":{\"basic\":{}},\"priorityClassName\":\"high\""));
    add(&set, GROUP("set", "\"schedulingPolicy\":{\"basic\":{}},\"priority\":500"));
    add(&set, POD("solo-700", AT("07:00:00"), "\"priority\":700"));
    add(&set, POD("late-hi", AT("11:00:00"), "\"priorityClassName\":\"high\"," IN("hi")));
    add(&set, POD("mid", AT("06:00:00"), "\"priority\":500," IN("set")));
    char *s = grouped(&set, true);
    CHECK_STR(s, "[late-hi] solo-700 [mid]");
    free(s);
    dra_objset_free(&set);
}

UNIT_TEST(group_members_by_priority_then_time_then_name)
{
    /* PodGroupMemberPodsOrderingFunc; a member whose priority differs from
     * the group's fails the whole group (validatePodGroup) */
    dra_objset set = DRA_OBJSET_INIT;
    add(&set, GROUP("g", "\"schedulingPolicy\":{\"basic\":{}}"));
    add(&set, POD("b", AT("09:00:00"), IN("g")));
    add(&set, POD("a", AT("09:00:00"), IN("g")));
    add(&set, POD("c", AT("08:00:00"), IN("g")));
    char *s = grouped(&set, true);
    CHECK_STR(s, "[c a b]");
    free(s);
    add(&set, POD("d-prio", AT("10:00:00"), "\"priority\":5," IN("g")));
    s = grouped(&set, true);
    CHECK_STR(
        s,
        "[d-prio!{all pods in a single pod group should have the same priority as the pod group's priority, got 5 and "
        "0} "
        "c!{all pods in a single pod group should have the same priority as the pod group's priority, got 5 and 0} "
        "a!{all pods in a single pod group should have the same priority as the pod group's priority, got 5 and 0} "
        "b!{all pods in a single pod group should have the same priority as the pod group's priority, got 5 and 0}]");
    free(s);
    dra_objset_free(&set);
}

UNIT_TEST(gang_waits_for_its_group_and_min_count)
{
    dra_objset set = DRA_OBJSET_INIT;
    add(&set, GROUP("gang", "\"schedulingPolicy\":{\"gang\":{\"minCount\":3}}"));
    add(&set, POD("g-0", AT("08:00:00"), IN("gang")));
    add(&set, POD("g-1", AT("08:00:00"), IN("gang")));
    add(&set, POD("orphan", AT("07:00:00"), IN("nowhere")));
    add(&set, POD("solo", AT("09:00:00"), "\"containers\":[]"));
    char *s = grouped(&set, true);
    /* pods the queue holds back come last, in the order they would queue */
    CHECK_STR(s, "solo [orphan?{waiting for pods's pod group \"nowhere\" to appear in scheduling queue}] "
                 "[g-0?{waiting for minCount pods from a gang to appear in scheduling queue} "
                 "g-1?{waiting for minCount pods from a gang to appear in scheduling queue}]");
    free(s);
    /* a bound member counts towards minCount (AllPodsCount) */
    add(&set, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"g-bound\",\"namespace\":\"default\"},"
              "\"spec\":{\"nodeName\":\"n\"," IN("gang") "}}");
    s = grouped(&set, true);
    CHECK_STR(s, "[g-0 g-1] solo [orphan?{waiting for pods's pod group \"nowhere\" to appear in scheduling queue}]");
    free(s);
    dra_objset_free(&set);
}

UNIT_MAIN()
