/* The PodGroupInitiallyScheduled condition (sched/group_status.h). */
#include "../../src/common/sched/group_status.h"

#include <jansson.h>

#include "unit.h"

static json_t *group(const char *status)
{
    json_t *g = json_pack("{s:s,s:s,s:{s:s,s:s,s:i}}", "apiVersion", "scheduling.k8s.io/v1beta1", "kind", "PodGroup",
                          "metadata", "name", "g", "namespace", "default", "generation", 2);
    if (status)
        json_object_set_new(g, "status", json_loads(status, 0, NULL));
    return g;
}

static char *cond(dra_changes *st, const json_t *g)
{
    return json_dumps(json_object_get(json_object_get(dra_changes_current(st, g), "status"), "conditions"),
                      JSON_COMPACT | JSON_ENCODE_ANY);
}

UNIT_TEST(new_condition_in_field_order)
{
    json_t *g = group(NULL);
    dra_changes st = DRA_CHANGES_INIT;
    st.objects_only = true;
    dra_sched_group_condition(&st, g, DRA_POD_GROUP_INITIALLY_SCHEDULED, DRA_GROUP_UNSCHEDULABLE,
                              "minCount (2) cannot be satisfied", 1772362800);
    char *s = cond(&st, g);
    CHECK_STR(s, "[{\"type\":\"PodGroupInitiallyScheduled\",\"status\":\"False\",\"observedGeneration\":2,"
                 "\"lastTransitionTime\":\"2026-03-01T11:00:00Z\",\"reason\":\"Unschedulable\","
                 "\"message\":\"minCount (2) cannot be satisfied\"}]");
    CHECK(json_object_get(g, "status") == NULL); /* the original is left as it is */
    free(s);
    dra_changes_free(&st);
    json_decref(g);
}

UNIT_TEST(status_change_moves_the_time_and_true_stays)
{
    json_t *g =
        group("{\"conditions\":[{\"type\":\"PodGroupInitiallyScheduled\",\"status\":\"False\","
              "\"lastTransitionTime\":\"2026-03-01T09:00:00Z\",\"reason\":\"Unschedulable\",\"message\":\"x\"}]}");
    dra_changes st = DRA_CHANGES_INIT;
    st.objects_only = true;
    /* same status: time kept, reason/message/generation updated */
    dra_sched_group_condition(&st, g, DRA_POD_GROUP_INITIALLY_SCHEDULED, DRA_GROUP_SCHEDULER_ERROR, "boom", 1772362800);
    char *s = cond(&st, g);
    CHECK_STR(s,
              "[{\"type\":\"PodGroupInitiallyScheduled\",\"status\":\"False\",\"lastTransitionTime\":"
              "\"2026-03-01T09:00:00Z\",\"reason\":\"SchedulerError\",\"message\":\"boom\",\"observedGeneration\":2}]");
    free(s);
    /* to True: a new time */
    dra_sched_group_condition(&st, g, DRA_POD_GROUP_INITIALLY_SCHEDULED, DRA_GROUP_SCHEDULED, NULL, 1772362800);
    s = cond(&st, g);
    CHECK(strstr(s, "\"status\":\"True\",\"lastTransitionTime\":\"2026-03-01T11:00:00Z\"") != NULL);
    CHECK(strstr(s, "\"reason\":\"Scheduled\",\"message\":\"\"") != NULL);
    free(s);
    /* never back to False */
    dra_sched_group_condition(&st, g, DRA_POD_GROUP_INITIALLY_SCHEDULED, DRA_GROUP_UNSCHEDULABLE, "later", 1772366400);
    s = cond(&st, g);
    CHECK(strstr(s, "\"status\":\"True\"") != NULL && strstr(s, "later") == NULL);
    free(s);
    dra_changes_free(&st);
    json_decref(g);
}

UNIT_TEST(no_change_touches_nothing)
{
    json_t *g = group("{\"conditions\":[{\"type\":\"PodGroupInitiallyScheduled\",\"status\":\"False\","
                      "\"observedGeneration\":2,\"lastTransitionTime\":\"2026-03-01T09:00:00Z\","
                      "\"reason\":\"Unschedulable\",\"message\":\"m\"}]}");
    dra_changes st = DRA_CHANGES_INIT;
    st.objects_only = true;
    dra_sched_group_condition(&st, g, DRA_POD_GROUP_INITIALLY_SCHEDULED, DRA_GROUP_UNSCHEDULABLE, "m", 1772362800);
    CHECK(dra_changes_find(&st, g) == NULL);
    dra_changes_free(&st);
    json_decref(g);
}

UNIT_MAIN()
