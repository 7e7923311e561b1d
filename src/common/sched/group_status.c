/* The PodGroupInitiallyScheduled (1.36: PodGroupScheduled) condition.  See
 * group_status.h. */
#include "group_status.h"

#include <stdlib.h>
#include <string.h>

#include "../io/json.h"
#include "../model/time.h"

static json_t *find_condition(const json_t *group, const char *type)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(group, "status"), "conditions"), i, c) {
        if (strcmp(dra_jstr_or(c, "type", ""), type) == 0)
            return c;
    }
    return NULL;
}

void dra_sched_group_condition(dra_changes *st, const json_t *group, const char *type, dra_group_outcome o,
                               const char *msg, int64_t now)
{
    const char *status = o == DRA_GROUP_SCHEDULED ? "True" : "False";
    const char *reason = o == DRA_GROUP_SCHEDULED         ? "Scheduled"
                         : o == DRA_GROUP_UNSCHEDULABLE   ? "Unschedulable"
                         : o == DRA_GROUP_POD_GROUP_ERROR ? "PodGroupError"
                                                          : "SchedulerError";
    if (!msg)
        msg = "";
    const json_t *cur = dra_changes_current(st, group);
    const json_t *ex = find_condition(cur, type);
    /* a group scheduled once stays so */
    if (ex && strcmp(dra_jstr_or(ex, "status", ""), "True") == 0 && o != DRA_GROUP_SCHEDULED)
        return;
    json_int_t gen = json_integer_value(json_object_get(json_object_get(cur, "metadata"), "generation"));
    if (ex && strcmp(dra_jstr_or(ex, "status", ""), status) == 0 &&
        strcmp(dra_jstr_or(ex, "reason", ""), reason) == 0 && strcmp(dra_jstr_or(ex, "message", ""), msg) == 0 &&
        json_integer_value(json_object_get(ex, "observedGeneration")) == gen)
        return; /* SetStatusCondition changed nothing: no patch */
    dra_change *ch = dra_changes_touch(st, group);
    json_t *s = json_object_get(ch->obj, "status");
    if (!json_is_object(s)) {
        s = json_object();
        json_object_set_new(ch->obj, "status", s);
    }
    json_t *conds = json_object_get(s, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(s, "conditions", conds);
    }
    json_t *c = find_condition(ch->obj, type);
    char *when = dra_time_format((dra_time){now, 0});
    if (!c) { /* in metav1.Condition's field order */
        c = json_pack("{s:s,s:s}", "type", type, "status", status);
        if (gen)
            json_object_set_new(c, "observedGeneration", json_integer(gen));
        json_object_set_new(c, "lastTransitionTime", json_string(when));
        json_array_append_new(conds, c);
    } else {
        if (strcmp(dra_jstr_or(c, "status", ""), status) != 0) {
            json_object_set_new(c, "status", json_string(status));
            json_object_set_new(c, "lastTransitionTime", json_string(when));
        }
        if (gen)
            json_object_set_new(c, "observedGeneration", json_integer(gen));
        else
            json_object_del(c, "observedGeneration");
    }
    json_object_set_new(c, "reason", json_string(reason));
    json_object_set_new(c, "message", json_string(msg));
    free(when);
}
