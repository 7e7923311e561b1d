/* Applying the evictions of one pod: the status condition, the API
 * operations and the events (see internal.h). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"

/* ---- applying evictions ---- */

void dra_ev_apply_pod(const ctx *x, const pod_ev *pe, dra_changes *changes)
{
    const json_t *pod = pe->po->json;
    const char *ns = dra_jstr_or(pod, "metadata.namespace", ""), *name = dra_jstr_or(pod, "metadata.name", "");
    const char *uid = dra_jstr(pod, "metadata.uid");
    char *when = dra_time_format(x->opts->apply_at);
    dra_change *ch = dra_changes_touch(changes, pod);
    static const char *const reason = "DeletionByDeviceTaintManager";
    static const char *const message = "Device Taint manager: deleting due to NoExecute taint";

    /* apipod.UpdatePodCondition (GetPodCondition: the first of the type; the
     * condition is replaced as a whole, so lastProbeTime becomes null and any
     * other key goes), then utilpod.PatchPodStatus: a strategic-merge patch
     * from a two-way diff, holding metadata.uid as precondition and, for a
     * changed list element, its merge key plus the changed keys (null for
     * removed ones).  Go marshals the patch's maps with sorted keys. */
    json_t *conds = dra_jarr(ch->obj, "status.conditions");
    json_t *existing = NULL;
    size_t i;
    json_t *cnd;
    json_array_foreach(conds, i, cnd) {
        if (strcmp(dra_jstr_or(cnd, "type", ""), "DisruptionTarget") == 0) {
            existing = cnd;
            break;
        }
    }
    json_t *patch_cond = NULL;
    if (!existing) {
        json_t *nc = json_pack("{s:s,s:s,s:n,s:s,s:s,s:s}", "type", "DisruptionTarget", "status", "True",
                               "lastProbeTime", "lastTransitionTime", when, "reason", reason, "message", message);
        if (!conds) {
            conds = json_array();
            dra_jset_new(ch->obj, "status.conditions", conds);
        }
        json_array_append(conds, nc);
        patch_cond = json_pack("{s:n,s:s,s:s,s:s,s:s,s:s}", "lastProbeTime", "lastTransitionTime", when, "message",
                               message, "reason", reason, "status", "True", "type", "DisruptionTarget");
        json_decref(nc);
    } else {
        bool status_same = strcmp(dra_jstr_or(existing, "status", ""), "True") == 0;
        json_t *old_ltt = json_object_get(existing, "lastTransitionTime");
        json_t *nc = json_pack("{s:s,s:s,s:n}", "type", "DisruptionTarget", "status", "True", "lastProbeTime");
        if (status_same)
            json_object_set(nc, "lastTransitionTime", old_ltt ? old_ltt : json_null());
        else
            json_object_set_new(nc, "lastTransitionTime", json_string(when));
        json_object_set_new(nc, "reason", json_string(reason));
        json_object_set_new(nc, "message", json_string(message));
        /* the diff: keys of the new condition that differ, removed keys as null */
        json_t *diff = json_object();
        const char *k;
        json_t *v;
        json_object_foreach(nc, k, v) {
            json_t *ov = json_object_get(existing, k);
            bool same = json_is_null(v) ? (!ov || json_is_null(ov)) : (ov && json_equal(ov, v));
            if (!same)
                json_object_set(diff, k, v);
        }
        json_object_foreach(existing, k, v) {
            if (!json_object_get(nc, k) && !json_is_null(v))
                json_object_set_new(diff, k, json_null());
        }
        if (json_object_size(diff)) {
            /* sorted keys, as Go marshals maps */
            const char **keys = dra_xcalloc(json_object_size(diff) + 2, sizeof *keys);
            size_t nk = 0;
            json_object_foreach(diff, k, v) {
                keys[nk++] = k;
            }
            keys[nk++] = "type";
            for (size_t a = 1; a < nk; a++)
                for (size_t b = a; b > 0 && strcmp(keys[b - 1], keys[b]) > 0; b--) {
                    const char *t = keys[b - 1];
                    keys[b - 1] = keys[b];
                    keys[b] = t;
                }
            patch_cond = json_object();
            for (size_t a = 0; a < nk; a++)
                json_object_set(patch_cond, keys[a],
                                strcmp(keys[a], "type") == 0 ? json_object_get(nc, "type")
                                                             : json_object_get(diff, keys[a]));
            free(keys);
            json_array_set(conds, i, nc);
        }
        json_decref(diff);
        json_decref(nc);
    }
    dra_buf why = DRA_BUF_INIT;
    for (size_t k = 0; k < pe->nclaims; k++)
        for (size_t j = 0; j < pe->claims[k]->n; j++) {
            char *s = dra_taint_src_string(&pe->claims[k]->items[j].src);
            dra_buf_printf(&why, "%s%s", why.len ? ", " : "", s);
            free(s);
        }
    if (patch_cond) {
        json_t *order = json_array();
        json_array_foreach(conds, i, cnd) {
            json_array_append_new(order, json_pack("{s:s}", "type", dra_jstr_or(cnd, "type", "")));
        }
        json_t *patch = json_pack("{s:{},s:{s:o,s:[o]}}", "metadata", "status", "$setElementOrder/conditions", order,
                                  "conditions", patch_cond);
        if (uid && *uid) /* never "uid": null */
            json_object_set_new(json_object_get(patch, "metadata"), "uid", json_string(uid));
        else
            json_object_del(patch, "metadata");
        char *r = dra_xasprintf("Pod %s/%s: DisruptionTarget (DeletionByDeviceTaintManager) because of %s", ns, name,
                                dra_buf_str(&why));
        dra_op *op = dra_changes_op(changes, DRA_OP_PATCH, pod, "status", patch, r);
        free(op->patch_type);
        op->patch_type = dra_xstrdup("strategic");
        free(r);
    }
    char *due = dra_time_format(pe->when);
    char *r = dra_xasprintf("Pod %s/%s: delete (device taint eviction due at %s)", ns, name, due);
    free(due);
    dra_changes_op(changes, DRA_OP_DELETE, pod, NULL, dra_delete_options(uid), r);
    free(r);
    /* graceful deletion: the server sets deletionTimestamp = now + grace period */
    json_int_t grace = 30;
    json_t *g = dra_jget(pod, "spec.terminationGracePeriodSeconds");
    if (json_is_integer(g))
        grace = json_integer_value(g);
    /* BeforeDelete: now.Add(time.Second * time.Duration(grace)), wrapping as Go */
    char *dt = dra_time_format(dra_time_add(x->opts->apply_at, dra_duration_of_seconds(grace)));
    json_t *md = json_object_get(ch->obj, "metadata");
    if (json_is_object(md)) {
        json_object_set_new(md, "deletionTimestamp", json_string(dt));
        json_object_set_new(md, "deletionGracePeriodSeconds", json_integer(grace));
    }
    free(dt);
    free(when);
    dra_buf_free(&why);
}
