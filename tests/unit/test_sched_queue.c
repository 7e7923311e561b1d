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
static char *order_of(const dra_objset *set, dra_sched_order order, dra_err **warnings)
{
    const dra_obj **pods = calloc(set->n + 1, sizeof *pods);
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++)
        if (!strcmp(json_string_value(json_object_get(set->v[i].json, "kind")), "Pod"))
            pods[n++] = &set->v[i];
    dra_sched_queue q;
    dra_sched_queue_order(pods, n, set, order, &q);
    char *s = calloc(1, 1024);
    for (size_t i = 0; i < q.n; i++) {
        const char *name = json_string_value(json_object_get(json_object_get(pods[q.v[i].index]->json, "metadata"), "name"));
        strcat(s, i ? " " : "");
        strcat(s, name);
    }
    if (warnings) {
        *warnings = q.warnings;
        q.warnings = NULL;
    }
    dra_sched_queue_free(&q);
    free(pods);
    return s;
}

#define POD(name, extra_md, spec)                                                                                     \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\"" extra_md \
    "},\"spec\":{" spec "}}"

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
    add(&set, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"high\"},\"value\":1000}");
    add(&set, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"d1\"},"
              "\"value\":50,\"globalDefault\":true}");
    add(&set, "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"d2\"},"
              "\"value\":40,\"globalDefault\":true}");
    add(&set, POD("p-spec", "", "\"priority\":45"));             /* admitted already: its own value */
    add(&set, POD("p-default", "", "\"containers\":[]"));         /* globalDefault with the lowest value: 40 */
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

UNIT_MAIN()
