/* The scheduling queue's order; see queue.h. */
#include "queue.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../base/sort.h"
#include "../io/json.h"
#include "../model/time.h"

bool dra_is_priority_class(const json_t *obj)
{
    const char *kind = dra_jfield_str(obj, "kind"), *av = dra_jfield_str(obj, "apiVersion");
    return kind && av && strcmp(kind, "PriorityClass") == 0 && strcmp(av, "scheduling.k8s.io/v1") == 0;
}

static const char *name_of(const json_t *o)
{
    const char *n = dra_jfield_str(dra_jfield(o, "metadata"), "name");
    return n ? n : "";
}

/* The PriorityClasses of the input (with a value), found once. */
typedef struct classes {
    const json_t **v;
    size_t n;
} classes;

static void classes_of(const dra_objset *set, classes *c)
{
    c->v = dra_xcalloc((set ? set->n : 0) + 1, sizeof *c->v);
    c->n = 0;
    for (size_t i = 0; set && i < set->n; i++)
        if (dra_is_priority_class(set->v[i].json) && json_is_integer(dra_jfield(set->v[i].json, "value")))
            c->v[c->n++] = set->v[i].json;
}

/* The PriorityClass named `name`: its value, false when there is none. */
static bool class_value(const classes *c, const char *name, int64_t *value)
{
    if (strcmp(name, "system-cluster-critical") == 0 || strcmp(name, "system-node-critical") == 0) {
        *value = name[7] == 'c' ? DRA_SYSTEM_CLUSTER_CRITICAL : DRA_SYSTEM_NODE_CRITICAL;
        return true;
    }
    for (size_t i = 0; i < c->n; i++) {
        if (strcmp(name_of(c->v[i]), name) == 0) {
            *value = json_integer_value(dra_jfield(c->v[i], "value"));
            return true;
        }
    }
    return false;
}

/* getDefaultPriorityClass: the globalDefault class with the lowest value. */
static const json_t *default_class(const classes *c)
{
    const json_t *best = NULL;
    for (size_t i = 0; i < c->n; i++) {
        const json_t *o = c->v[i];
        if (!dra_jfield_true(o, "globalDefault"))
            continue;
        if (!best || json_integer_value(dra_jfield(o, "value")) < json_integer_value(dra_jfield(best, "value")))
            best = o;
    }
    return best;
}

typedef struct qkey {
    size_t index;
    int64_t priority;
    bool has_time;
    dra_time t;
    const char *ns, *name;
} qkey;

/* PrioritySort.Less, then the stable tie-breaks of queue.h */
static int cmp_key(const void *a, const void *b)
{
    const qkey *x = a, *y = b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->has_time != y->has_time)
        return x->has_time ? -1 : 1;
    if (x->has_time) {
        if (x->t.sec != y->t.sec)
            return x->t.sec < y->t.sec ? -1 : 1;
        if (x->t.nsec != y->t.nsec)
            return x->t.nsec < y->t.nsec ? -1 : 1;
        int c = strcmp(x->ns, y->ns);
        if (!c)
            c = strcmp(x->name, y->name);
        if (c)
            return c;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

void dra_sched_queue_order(const dra_obj *const *pods, size_t n, const dra_objset *set, dra_sched_order order,
                           dra_sched_queue *out)
{
    memset(out, 0, sizeof *out);
    qkey *keys = dra_xcalloc(n + 1, sizeof *keys);
    char **why = dra_xcalloc(n + 1, sizeof *why);
    classes cls;
    classes_of(set, &cls);
    const json_t *def = default_class(&cls);
    for (size_t i = 0; i < n; i++) {
        const json_t *pod = pods[i]->json;
        const json_t *md = dra_jfield(pod, "metadata"), *spec = dra_jfield(pod, "spec");
        qkey *k = &keys[i];
        k->index = i;
        k->ns = dra_jfield_str(md, "namespace") ? dra_jfield_str(md, "namespace") : "";
        k->name = name_of(pod);
        const char *pcn = dra_jfield_str(spec, "priorityClassName");
        char *from;
        if (json_is_integer(dra_jfield(spec, "priority"))) {
            k->priority = json_integer_value(dra_jfield(spec, "priority"));
            from = dra_xstrdup("spec.priority");
        } else if (pcn && *pcn) {
            if (class_value(&cls, pcn, &k->priority)) {
                from = dra_xasprintf("PriorityClass %s", pcn);
            } else {
                from = dra_xasprintf("no PriorityClass %s in the input", pcn);
                out->warnings = dra_err_append(out->warnings, dra_obj_locate(dra_err_field(dra_err_new(DRA_EXIT_OK,
                    "no PriorityClass with name %s was found: the API server would refuse this pod; queued with priority 0",
                    pcn), "spec.priorityClassName"), pods[i]));
            }
        } else if (def) {
            k->priority = json_integer_value(dra_jfield(def, "value"));
            from = dra_xasprintf("globalDefault PriorityClass %s", name_of(def));
        } else {
            from = dra_xstrdup("no priorityClassName, no globalDefault PriorityClass");
        }
        const char *ts = dra_jfield_str(md, "creationTimestamp");
        dra_err *te = ts ? dra_time_parse(ts, &k->t) : NULL;
        k->has_time = ts && !te;
        dra_err_free(te); /* an unparsable time is validation's to report */
        const char *by = order == DRA_SCHED_ORDER_INPUT ? "input order; " : "";
        why[i] = k->has_time ? dra_xasprintf("%spriority %" PRId64 " (%s), created %s", by, k->priority, from, ts)
                             : dra_xasprintf("%spriority %" PRId64 " (%s), no creationTimestamp: queued after the "
                                             "pods that have one, in input order", by, k->priority, from);
        free(from);
    }
    if (order == DRA_SCHED_ORDER_QUEUE)
        dra_sort(keys, n, sizeof *keys, cmp_key);
    out->v = dra_xcalloc(n + 1, sizeof *out->v);
    for (size_t i = 0; i < n; i++)
        out->v[out->n++] = (dra_sched_queued){keys[i].index, keys[i].priority, why[keys[i].index]};
    free(why);
    free(keys);
    free(cls.v);
}

void dra_sched_queue_free(dra_sched_queue *q)
{
    for (size_t i = 0; i < q->n; i++)
        free(q->v[i].why);
    free(q->v);
    dra_err_free(q->warnings);
    memset(q, 0, sizeof *q);
}
