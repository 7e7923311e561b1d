/* The PodScheduled=False condition.  See pod_status.h. */
#include "pod_status.h"

#include <stdlib.h>
#include <string.h>

#include "../model/time.h"

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static json_t *find_condition(const json_t *pod, size_t *at)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(pod, "status"), "conditions"), i, c) {
        if (strcmp(str(c, "type"), DRA_POD_SCHEDULED_CONDITION) == 0) {
            *at = i;
            return c;
        }
    }
    return NULL;
}

void dra_sched_pod_unscheduled(dra_changes *st, const json_t *pod, bool error, const char *msg, int64_t now)
{
    const char *reason = error ? "SchedulerError" : "Unschedulable";
    if (!msg)
        msg = "";
    const json_t *cur = dra_changes_current(st, pod);
    size_t at = 0;
    const json_t *ex = find_condition(cur, &at);
    char *when = dra_time_format((dra_time){now, 0});
    /* UpdatePodCondition: the old lastTransitionTime when the status stays */
    bool same_status = ex && strcmp(str(ex, "status"), "False") == 0;
    const char *ltt = same_status ? str(ex, "lastTransitionTime") : when;
    if (same_status && strcmp(str(ex, "reason"), reason) == 0 && strcmp(str(ex, "message"), msg) == 0 &&
        !json_is_string(json_object_get(ex, "lastProbeTime"))) {
        free(when);
        return; /* nothing changed: no patch */
    }
    json_int_t gen = json_integer_value(json_object_get(json_object_get(cur, "metadata"), "generation"));
    /* in v1.PodCondition's field order; a zero lastProbeTime is null */
    json_t *c = json_pack("{s:s}", "type", DRA_POD_SCHEDULED_CONDITION);
    if (gen)
        json_object_set_new(c, "observedGeneration", json_integer(gen));
    json_object_set_new(c, "status", json_string("False"));
    json_object_set_new(c, "lastProbeTime", json_null());
    json_object_set_new(c, "lastTransitionTime", json_string(ltt));
    json_object_set_new(c, "reason", json_string(reason));
    json_object_set_new(c, "message", json_string(msg));
    free(when);
    json_t *obj = dra_changes_touch(st, pod)->obj;
    json_t *s = json_object_get(obj, "status");
    if (!json_is_object(s)) {
        s = json_object();
        json_object_set_new(obj, "status", s);
    }
    json_t *conds = json_object_get(s, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(s, "conditions", conds);
    }
    if (find_condition(obj, &at))
        json_array_set_new(conds, at, c);
    else
        json_array_append_new(conds, c);
}
