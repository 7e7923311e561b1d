/* A DeviceTaintRule's status: its EvictionInProgress condition and the
 * counts in its message (see internal.h). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"

/* ---- rule status ---- */

static char *plural(long long n, const char *one, const char *many_fmt)
{
    return n == 1 ? dra_xstrdup(one) : dra_xasprintf(many_fmt, n);
}

static void count_pending(const ctx *x, const eval *ev, const json_t *rule, bool with_apply, long long *pods,
                          long long *nss, long long *evicted)
{
    *pods = *nss = *evicted = 0;
    const char **seen = dra_xcalloc(ev->npev + 1, sizeof *seen);
    size_t nseen = 0;
    for (size_t i = 0; i < ev->npev; i++) {
        const pod_ev *pe = &ev->pev[i];
        if (!pe->has_time || !dra_ev_pod_has_rule(pe, rule))
            continue;
        if (with_apply && dra_ev_pod_evicted_at_apply(x, pe)) {
            (*evicted)++;
            continue;
        }
        if (dra_obj_deleting(pe->po->json))
            continue;
        (*pods)++;
        const char *ns = dra_jstr_or(pe->po->json, "metadata.namespace", "");
        bool dup = false;
        for (size_t k = 0; k < nseen; k++)
            dup |= strcmp(seen[k], ns) == 0;
        if (!dup)
            seen[nseen++] = ns;
    }
    *nss = (long long)nseen;
    free(seen);
}

static void count_devices(const ctx *x, const rule_info *ri, long long *published, long long *alloc)
{
    *published = *alloc = 0;
    const dra_cluster *c = x->c;
    for (size_t i = 0; i < c->n[DRA_KIND_RESOURCE_SLICE]; i++) {
        const char *driver, *pool;
        const json_t *s = dra_ev_newest_slice(x, i, &driver, &pool);
        if (!s)
            continue;
        size_t j;
        json_t *d;
        json_array_foreach(dra_jarr(s, "spec.devices"), j, d) {
            if (dra_ev_rule_matches(ri, driver, pool, dra_slice_device_name(d)))
                (*published)++;
        }
    }
    for (size_t i = 0; i < x->claims->nclaims; i++) {
        const dra_claim_rec *cl = x->claims->claims[i];
        if (!cl->allocated)
            continue;
        for (uint32_t j = 0; j < cl->nresults; j++) {
            const dra_rec_result *res = &cl->results[j];
            if (dra_ev_rule_matches(ri, res->driver ? res->driver : "", res->pool ? res->pool : "",
                                    res->device ? res->device : ""))
                (*alloc)++;
        }
    }
}

/* N of a message ending "N pods evicted since starting the controller."
 * ("1 pod ..."), else 0. */
static long long evicted_before(const char *msg)
{
    static const char tail[] = " evicted since starting the controller.";
    size_t n = strlen(msg), t = sizeof tail - 1;
    if (n < t || strcmp(msg + n - t, tail) != 0)
        return 0;
    const char *end = msg + n - t, *word = end;
    while (word > msg && word[-1] != ' ')
        word--; /* "pod" or "pods" */
    if (word == msg || (strncmp(word, "pod", 3) != 0))
        return 0;
    const char *num = word - 1;
    while (num > msg && num[-1] >= '0' && num[-1] <= '9')
        num--;
    if (num == word - 1 || (num > msg && num[-1] != ' '))
        return 0;
    long long v = 0;
    for (const char *p = num; p < word - 1 && v < (1LL << 40); p++)
        v = v * 10 + (*p - '0');
    return v;
}

dra_err *dra_ev_rule_status(const ctx *x, const eval *ev, size_t r, json_t **out, dra_changes *changes)
{
    const rule_info *ri = &x->rules[r];
    const json_t *rule = ri->o->json;
    long long pods = 0, nss = 0, evicted = 0;
    dra_buf msg = DRA_BUF_INIT;
    const char *status = "False", *reason;
    json_int_t gen = json_integer_value(dra_jget(rule, "metadata.generation"));
    /* keep lastTransitionTime when nothing of the condition changes */
    const json_t *old = NULL;
    size_t i, old_index = 0;
    json_t *cnd;
    json_array_foreach(dra_jarr(rule, "status.conditions"), i, cnd) {
        if (strcmp(dra_jstr_or(cnd, "type", ""), "EvictionInProgress") == 0) {
            old = cnd;
            old_index = i;
            break;
        }
    }
    bool old_current = old && json_integer_value(json_object_get(old, "observedGeneration")) == gen;
    if (strcmp(ri->effect, "NoExecute") == 0) {
        count_pending(x, ev, rule, true, &pods, &nss, &evicted);
        /* A controller keeps the pods it evicted because of a rule in memory;
         * each pass of the loop runs afresh, so the count lives in the rule's
         * own condition (same generation) and goes on from there. */
        if (old_current)
            evicted += evicted_before(dra_jstr_or(old, "message", ""));
        if (pods > 0) {
            status = "True";
            reason = "PodsPendingEviction";
            char *a = plural(pods, "1 pod needs to be evicted in ", "%lld pods need to be evicted in ");
            char *b = plural(nss, "1 namespace.", "%lld different namespaces.");
            dra_buf_printf(&msg, "%s%s", a, b);
            free(a);
            free(b);
        } else {
            reason = evicted > 0 ? "Completed" : "NotStarted";
        }
    } else if (strcmp(ri->effect, "None") == 0 && old_current &&
               strcmp(dra_jstr_or(old, "reason", ""), "NoEffect") == 0) {
        /* computed once per spec change ("will not be updated again") */
        reason = "NoEffect";
        dra_buf_puts(&msg, dra_jstr_or(old, "message", ""));
    } else if (strcmp(ri->effect, "None") == 0) {
        reason = "NoEffect";
        eval sim;
        dra_err *e = dra_ev_evaluate(x, (long)r, &sim);
        if (e) {
            dra_ev_eval_free(&sim);
            dra_buf_free(&msg);
            return e;
        }
        long long none_evicted;
        count_pending(x, &sim, rule, false, &pods, &nss, &none_evicted);
        dra_ev_eval_free(&sim);
        long long published, alloc;
        count_devices(x, ri, &published, &alloc);
        char *p1 = plural(published, "1 published device selected. ", "%lld published devices selected. ");
        char *p2 = plural(alloc, "1 allocated device selected. ", "%lld allocated devices selected. ");
        char *p3 = plural(pods, "1 pod would be evicted in ", "%lld pods would be evicted in ");
        char *p4 = plural(nss, "1 namespace ", "%lld different namespaces ");
        dra_buf_printf(&msg,
                       "%s%s%s%sif the effect was NoExecute. This information will not be updated again. "
                       "Recreate the DeviceTaintRule to trigger an update.",
                       p1, p2, p3, p4);
        free(p1);
        free(p2);
        free(p3);
        free(p4);
    } else {
        reason = "OtherEffect";
        dra_buf_puts(&msg, "Eviction only happens for the NoExecute effect.");
    }
    if (evicted > 0 && strcmp(ri->effect, "None") != 0) {
        if (msg.len)
            dra_buf_putc(&msg, ' ');
        char *p = plural(evicted, "1 pod ", "%lld pods ");
        dra_buf_printf(&msg, "%sevicted since starting the controller.", p);
        free(p);
    }

    bool same = old && strcmp(dra_jstr_or(old, "status", ""), status) == 0 &&
                strcmp(dra_jstr_or(old, "reason", ""), reason) == 0 &&
                strcmp(dra_jstr_or(old, "message", ""), dra_buf_str(&msg)) == 0 &&
                json_integer_value(json_object_get(old, "observedGeneration")) == gen;
    json_t *cond = json_object();
    json_object_set_new(cond, "type", json_string("EvictionInProgress"));
    json_object_set_new(cond, "status", json_string(status));
    if (gen)
        json_object_set_new(cond, "observedGeneration", json_integer(gen));
    if (same && dra_jstr(old, "lastTransitionTime")) {
        json_object_set_new(cond, "lastTransitionTime", json_string(dra_jstr(old, "lastTransitionTime")));
    } else {
        char *t = dra_time_format(x->opts->now);
        json_object_set_new(cond, "lastTransitionTime", json_string(t));
        free(t);
    }
    json_object_set_new(cond, "reason", json_string(reason));
    json_object_set_new(cond, "message", json_string(dra_buf_str(&msg)));
    dra_buf_free(&msg);

    json_t *obj = json_deep_copy(rule);
    json_t *conds = dra_jarr(obj, "status.conditions");
    if (!conds) {
        conds = json_array();
        dra_jset_new(obj, "status.conditions", conds);
    }
    if (old)
        json_array_set(conds, old_index, cond);
    else
        json_array_append(conds, cond);
    *out = obj;

    if (changes && !same) {
        json_t *body = json_pack("{s:s,s:s,s:{s:s},s:{s:[O]}}", "apiVersion", dra_jstr_or(rule, "apiVersion", ""),
                                 "kind", "DeviceTaintRule", "metadata", "name", dra_jstr_or(rule, "metadata.name", ""),
                                 "status", "conditions", cond);
        /* a rule from a manifest has no UID: no precondition then, never "uid": null */
        const char *ruid = dra_jstr(rule, "metadata.uid");
        if (ruid && *ruid)
            json_object_set_new(json_object_get(body, "metadata"), "uid", json_string(ruid));
        char *why = dra_xasprintf("DeviceTaintRule %s: EvictionInProgress %s (%s)",
                                  dra_jstr_or(rule, "metadata.name", ""), status, reason);
        dra_op *op = dra_changes_op(changes, DRA_OP_APPLY, rule, "status", body, why);
        op->field_manager = dra_xstrdup(DRA_EVICT_CONTROLLER_NAME);
        free(why);
        /* the working copy takes the new state in place: the changes know
         * the copy by its address, which must stay the copy's */
        dra_change *ch = dra_changes_touch(changes, rule);
        json_object_clear(ch->obj);
        json_object_update(ch->obj, obj);
    }
    json_decref(cond);
    return NULL;
}
