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

/* The priority admission would give an object (a Pod, or a PodGroup with
 * GenericWorkload): spec.priority when set, else from spec.priorityClassName,
 * the globalDefault class, or 0.  *from says which (caller frees); *missing
 * is the class name admission would refuse, else NULL. */
static int64_t admitted_priority(const json_t *spec, const classes *cls, const json_t *def, char **from,
                                 const char **missing)
{
    int64_t v = 0;
    const char *pcn = dra_jfield_str(spec, "priorityClassName");
    *missing = NULL;
    if (json_is_integer(dra_jfield(spec, "priority"))) {
        v = json_integer_value(dra_jfield(spec, "priority"));
        *from = dra_xstrdup("spec.priority");
    } else if (pcn && *pcn) {
        if (class_value(cls, pcn, &v)) {
            *from = dra_xasprintf("PriorityClass %s", pcn);
        } else {
            *from = dra_xasprintf("no PriorityClass %s in the input", pcn);
            *missing = pcn;
        }
    } else if (def) {
        v = json_integer_value(dra_jfield(def, "value"));
        *from = dra_xasprintf("globalDefault PriorityClass %s", name_of(def));
    } else {
        *from = dra_xstrdup("no priorityClassName, no globalDefault PriorityClass");
    }
    return v;
}

static dra_err *refused_class(dra_err *warnings, const char *pcn, const char *what, const dra_obj *obj)
{
    return dra_err_append(
        warnings, dra_obj_locate(dra_err_field(dra_err_new(DRA_EXIT_OK,
                                                           "no PriorityClass with name %s was found: the API server "
                                                           "would refuse this %s; queued with priority 0",
                                                           pcn, what),
                                               "spec.priorityClassName"),
                                 obj));
}

/* One entry of the queue: a pod on its own, or (GenericWorkload) the pending
 * members of one PodGroup: at the group's priority and its first member's
 * queue time, or (1.36) at its first member's place among the pods. */
typedef struct entry {
    const char *ns, *name; /* the pod's, or the group's */
    int64_t priority;
    bool has_time;
    dra_time t;     /* the first member's queue time */
    const char *ts; /* its creationTimestamp, or NULL */
    size_t first;   /* the smallest input index among the members */
    bool grouped;
    const dra_obj *group; /* the PodGroup, NULL when the input has none */
    char *hold;           /* why its pods are not tried (owned), or NULL */
    bool hold_error;
    char *why; /* the group's part of a member's why (owned), or NULL */
    int64_t min_count, bound;
    size_t mfirst, mcount; /* its members: members[mfirst..+mcount), in member order */
} entry;

typedef struct qkey {
    size_t index;
    int64_t priority;
    bool has_time;
    dra_time t;
    const char *ns, *name;
    const char *sched_name; /* spec.schedulerName, defaulted */
    const char *group;      /* spec.schedulingGroup.podGroupName with GenericWorkload, else NULL */
    const char *ts;         /* metadata.creationTimestamp, or NULL */
    size_t entry;
    const struct entry *e; /* into the entries, set before sorting */
} qkey;

/* Earlier queue time first; a time before none. */
static int cmp_time(bool ha, const dra_time *a, bool hb, const dra_time *b)
{
    if (ha != hb)
        return ha ? -1 : 1;
    if (!ha)
        return 0;
    if (a->sec != b->sec)
        return a->sec < b->sec ? -1 : 1;
    if (a->nsec != b->nsec)
        return a->nsec < b->nsec ? -1 : 1;
    return 0;
}

/* The entries' order (PrioritySort.Less over entities, then the stable
 * tie-breaks of queue.h), held entries last; within an entry the members'
 * (PodGroupMemberPodsOrderingFunc: priority, time, name). */
static int cmp_key(const void *a, const void *b)
{
    const qkey *x = a, *y = b;
    const entry *ex = x->e, *ey = y->e;
    if (x->entry != y->entry) {
        if (!ex->hold != !ey->hold)
            return ex->hold ? 1 : -1;
        if (ex->priority != ey->priority)
            return ex->priority > ey->priority ? -1 : 1;
        int c = cmp_time(ex->has_time, &ex->t, ey->has_time, &ey->t);
        if (!c && ex->has_time) {
            c = strcmp(ex->ns, ey->ns);
            if (!c)
                c = strcmp(ex->name, ey->name);
        }
        if (!c)
            c = ex->first < ey->first ? -1 : ex->first > ey->first;
        if (!c)
            c = x->entry < y->entry ? -1 : 1;
        return c;
    }
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    int c = cmp_time(x->has_time, &x->t, y->has_time, &y->t);
    if (!c && x->has_time)
        c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

static bool is_pod_group(const json_t *o)
{
    const char *kind = dra_jfield_str(o, "kind"), *av = dra_jfield_str(o, "apiVersion");
    return kind && av && strcmp(kind, "PodGroup") == 0 && strncmp(av, "scheduling.k8s.io/", 18) == 0;
}

static const char *ns_of(const json_t *o)
{
    const char *ns = dra_jfield_str(dra_jfield(o, "metadata"), "namespace");
    return ns ? ns : "";
}

static const char *group_of(const json_t *pod)
{
    const char *g = dra_jfield_str(dra_jfield(dra_jfield(pod, "spec"), "schedulingGroup"), "podGroupName");
    return g && *g ? g : NULL;
}

/* kube-scheduler with GenericWorkload off queues a pod naming a PodGroup on
 * its own, as if it named none (isPodGroupPod in
 * pkg/scheduler/backend/queue/scheduling_queue.go), without a word; the
 * tools say it, once a pod, at the pod. */
static dra_err *ungrouped(dra_err *warnings, const char *group, const dra_obj *obj)
{
    return dra_err_append(
        warnings, dra_obj_locate(dra_err_field(dra_err_new(DRA_EXIT_OK,
                                                           "a member of PodGroup %s but the "
                                                           "GenericWorkload feature is disabled: queued as a pod of "
                                                           "its own",
                                                           group),
                                               "spec.schedulingGroup.podGroupName"),
                                 obj));
}

/* Members by group (namespace, name), then in member order
 * (PodGroupMemberPodsOrderingFunc: priority, queue time, name). */
static int cmp_member(const void *a, const void *b)
{
    const qkey *x = *(const qkey *const *)a, *y = *(const qkey *const *)b;
    int c = strcmp(x->ns, y->ns);
    if (!c)
        c = strcmp(x->group, y->group);
    if (c)
        return c;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    c = cmp_time(x->has_time, &x->t, y->has_time, &y->t);
    if (!c && x->has_time)
        c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The group entry (among ents[g0..g1), sorted by namespace and name) of
 * group `name` in `ns`, or NULL. */
static entry *find_group(entry *ents, size_t g0, size_t g1, const char *ns, const char *name)
{
    while (g0 < g1) {
        size_t mid = g0 + (g1 - g0) / 2;
        int c = strcmp(ents[mid].ns, ns);
        if (!c)
            c = strcmp(ents[mid].name, name);
        if (!c)
            return &ents[mid];
        if (c < 0)
            g0 = mid + 1;
        else
            g1 = mid;
    }
    return NULL;
}

/* One pass over the input: each group's PodGroup (the first), and its pods
 * the scheduler knows (AllPodsCount: bound or not; its informer leaves out
 * Succeeded and Failed pods) and those on a node (ScheduledPodsCount). */
static void find_groups(const dra_objset *set, entry *ents, size_t g0, size_t g1, int64_t *all)
{
    for (size_t i = 0; set && i < set->n && g0 < g1; i++) {
        const json_t *o = set->v[i].json;
        if (is_pod_group(o)) {
            entry *e = find_group(ents, g0, g1, ns_of(o), name_of(o));
            if (e && !e->group)
                e->group = &set->v[i];
            continue;
        }
        const char *kind = dra_jfield_str(o, "kind"), *av = dra_jfield_str(o, "apiVersion");
        const char *g = kind && av && !strcmp(kind, "Pod") && !strcmp(av, "v1") ? group_of(o) : NULL;
        entry *e = g ? find_group(ents, g0, g1, ns_of(o), g) : NULL;
        const char *phase = dra_jfield_str(dra_jfield(o, "status"), "phase");
        if (!e || (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"))))
            continue;
        all[e - ents]++;
        const char *node = dra_jfield_str(dra_jfield(o, "spec"), "nodeName");
        e->bound += node && *node;
    }
}

/* The group's checks before its pods are tried: gangscheduling PreEnqueue
 * (its PodGroup is there; a gang has minCount pods) and validatePodGroup
 * (one scheduler name; every member at the group's priority).  1.38 words
 * PreEnqueue's refusals by the root group (k8s.io/kubernetes@v1.38.0-beta.0
 * pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go
 * PreEnqueue; the key is "podgroup/NS/NAME", EntityKey.String) and names
 * the pods and the root group in validatePodGroupHierarchy's
 * (schedule_one_podgroup.go).  1.36 has PreEnqueue only with its
 * GangScheduling gate (no gang: minCount 1) and checks the scheduler name
 * alone (k8s.io/kubernetes@v1.36.3 pkg/scheduler/schedule_one_podgroup.go
 * frameworkForPodGroup). */
static void check_group(entry *g, qkey *const *members, int64_t all, dra_release rel, bool gang)
{
    bool r38 = rel >= DRA_RELEASE_1_38, r36 = rel < DRA_RELEASE_1_37;
    if (!g->group && gang) {
        g->hold = r38 ? dra_xasprintf("pod group \"%s\" or one of its composite pod group ancestors has not been "
                                      "created yet",
                                      g->name)
                      : dra_xasprintf("waiting for pods's pod group \"%s\" to appear in scheduling queue", g->name);
        return;
    }
    const json_t *policy = g->group ? dra_jfield(dra_jfield(g->group->json, "spec"), "schedulingPolicy") : NULL;
    g->min_count =
        gang && dra_jfield(policy, "gang") ? json_integer_value(dra_jfield(dra_jfield(policy, "gang"), "minCount")) : 1;
    if (all < g->min_count) {
        g->hold = r38 ? dra_xasprintf("waiting for podgroup/%s/%s to meet its quorum", g->ns, g->name)
                      : dra_xstrdup("waiting for minCount pods from a gang to appear in scheduling queue");
        return;
    }
    const char *first_sched = g->mcount ? members[g->mfirst]->sched_name : "";
    const char *first_name = g->mcount ? members[g->mfirst]->name : "";
    for (size_t i = g->mfirst; i < g->mfirst + g->mcount && !g->hold; i++) {
        const qkey *k = members[i];
        if (strcmp(k->sched_name, first_sched))
            g->hold = r38 ? dra_xasprintf("all pods in a pod group hierarchy should have the same .spec.schedulerName "
                                          "set, got: \"%s\" (\"%s\") and \"%s\" (\"%s\")",
                                          k->sched_name, k->name, first_sched, first_name)
                          : dra_xasprintf("all pods in a single pod group should have the same .spec.schedulerName "
                                          "set, got: \"%s\" and \"%s\"",
                                          k->sched_name, first_sched);
        else if (k->priority != g->priority && !r36)
            g->hold = r38 ? dra_xasprintf("all pods in a pod group hierarchy should have the same priority as the root "
                                          "pod group's priority, got %" PRId64 " (\"%s\") and %" PRId64
                                          " (\"podgroup/%s/%s\")",
                                          k->priority, k->name, g->priority, g->ns, g->name)
                          : dra_xasprintf("all pods in a single pod group should have the same priority as the pod "
                                          "group's priority, got %" PRId64 " and %" PRId64,
                                          k->priority, g->priority);
        g->hold_error = g->hold != NULL;
    }
}

/* A group's entry: its PodGroup's priority, its checks, its place and the
 * group's part of its members' why. */
static void group_entry(entry *e, qkey *const *members, int64_t all, const dra_features *f, const classes *cls,
                        const json_t *def, dra_err **warnings)
{
    char *from = NULL;
    dra_release rel = dra_features_release_of(f);
    bool r36 = rel < DRA_RELEASE_1_37;
    /* 1.36's priority admission reads a PodGroup only with
     * WorkloadAwarePreemption (plugin/pkg/admission/priority
     * admitPodGroup), which its queue does not use anyway */
    if (e->group && (!r36 || dra_feature_enabled(f, DRA_FEATURE_WORKLOAD_AWARE_PREEMPTION))) {
        const char *missing;
        e->priority = admitted_priority(dra_jfield(e->group->json, "spec"), cls, def, &from, &missing);
        if (missing)
            *warnings = refused_class(*warnings, missing, "pod group", e->group);
    }
    check_group(e, members, all, rel, !r36 || dra_feature_enabled(f, DRA_FEATURE_GANG_SCHEDULING));
    if (r36) {
        /* 1.36 queues the members as pods (PrioritySort.Less: pod
         * priority, then queue time) and tries the group when the
         * first of them comes off the queue (ScheduleOne,
         * podGroupInfoForPod): the entry is that member's place */
        const qkey *m = members[e->mfirst];
        e->priority = m->priority;
        e->has_time = m->has_time;
        e->t = m->t;
        e->ts = m->has_time ? m->ts : NULL;
        e->why = dra_xasprintf("PodGroup %s/%s%s, tried when its first member %s comes off the queue; this pod:", e->ns,
                               e->name, e->group ? "" : " (not in the input)", m->name);
    } else if (!e->group)
        e->why = dra_xasprintf("PodGroup %s/%s, not in the input; this pod:", e->ns, e->name);
    else if (e->ts)
        e->why = dra_xasprintf("PodGroup %s/%s, one entry: priority %" PRId64 " (%s), queued %s (its first "
                               "member's creation); this pod:",
                               e->ns, e->name, e->priority, from, e->ts);
    else
        e->why = dra_xasprintf("PodGroup %s/%s, one entry: priority %" PRId64 " (%s), no member with a "
                               "creationTimestamp; this pod:",
                               e->ns, e->name, e->priority, from);
    free(from);
}

void dra_sched_queue_order(const dra_obj *const *pods, size_t n, const dra_objset *set, dra_sched_order order,
                           const dra_features *f, bool explain, dra_sched_queue *out)
{
    memset(out, 0, sizeof *out);
    dra_features defaults;
    if (!f) {
        dra_features_default(&defaults);
        f = &defaults;
    }
    bool workloads = dra_feature_enabled(f, DRA_FEATURE_GENERIC_WORKLOAD);
    qkey *keys = dra_xcalloc(n + 1, sizeof *keys);
    entry *ents = dra_xcalloc(n + 1, sizeof *ents);
    size_t nents = 0;
    char **why = dra_xcalloc(n + 1, sizeof *why);
    classes cls;
    classes_of(set, &cls);
    const json_t *def = default_class(&cls);
    for (size_t i = 0; i < n; i++) {
        const json_t *pod = pods[i]->json;
        const json_t *md = dra_jfield(pod, "metadata"), *spec = dra_jfield(pod, "spec");
        qkey *k = &keys[i];
        k->index = i;
        k->ns = ns_of(pod);
        k->name = name_of(pod);
        k->sched_name =
            dra_jfield_str(spec, "schedulerName") ? dra_jfield_str(spec, "schedulerName") : "default-scheduler";
        const char *missing;
        char *from;
        k->priority = admitted_priority(spec, &cls, def, &from, &missing);
        if (missing)
            out->warnings = refused_class(out->warnings, missing, "pod", pods[i]);
        const char *ts = dra_jfield_str(md, "creationTimestamp");
        dra_err *te = ts ? dra_time_parse(ts, &k->t) : NULL;
        k->has_time = ts && !te;
        dra_err_free(te); /* an unparsable time is validation's to report */
        const char *by = order == DRA_SCHED_ORDER_INPUT ? "input order; " : "";
        if (explain)
            why[i] = k->has_time ? dra_xasprintf("%spriority %" PRId64 " (%s), created %s", by, k->priority, from, ts)
                                 : dra_xasprintf("%spriority %" PRId64 " (%s), no creationTimestamp: queued after "
                                                 "the pods that have one, in input order",
                                                 by, k->priority, from);
        free(from);
        k->group = workloads ? group_of(pod) : NULL;
        if (!workloads && group_of(pod))
            out->warnings = ungrouped(out->warnings, group_of(pod), pods[i]);
        if (explain && !workloads && group_of(pod)) {
            char *w = why[i];
            why[i] = dra_xasprintf("%s; PodGroup %s not an entry: GenericWorkload is disabled", w, group_of(pod));
            free(w);
        }
        k->ts = ts;
        if (!k->group) {
            k->entry = nents++;
            ents[k->entry] = (entry){
                .ns = k->ns, .name = k->name, .priority = k->priority, .has_time = k->has_time, .t = k->t, .first = i};
        }
    }
    /* the groups: one entry for each run of members; its time the first
     * member's (pods queue in creation order) */
    size_t nmembers = 0, g0 = nents;
    qkey **members = dra_xcalloc(n + 1, sizeof *members);
    for (size_t i = 0; i < n; i++)
        if (keys[i].group)
            members[nmembers++] = &keys[i];
    dra_sort(members, nmembers, sizeof *members, cmp_member);
    for (size_t i = 0; i < nmembers; i++) {
        qkey *k = members[i];
        if (i == 0 || strcmp(k->ns, members[i - 1]->ns) || strcmp(k->group, members[i - 1]->group))
            ents[nents++] = (entry){.ns = k->ns, .name = k->group, .grouped = true, .first = SIZE_MAX, .mfirst = i};
        entry *e = &ents[nents - 1];
        k->entry = nents - 1;
        e->mcount++;
        if (e->first == SIZE_MAX || cmp_time(k->has_time, &k->t, e->has_time, &e->t) < 0) {
            e->has_time = k->has_time;
            e->t = k->t;
            e->ts = k->has_time ? k->ts : NULL;
        }
        if (k->index < e->first)
            e->first = k->index;
    }
    int64_t *all = dra_xcalloc(nents + 1, sizeof *all);
    find_groups(set, ents, g0, nents, all);
    /* the groups: their PodGroups, priorities and checks */
    for (size_t gi = 0; gi < nents; gi++) {
        entry *e = &ents[gi];
        if (!e->grouped)
            continue;
        group_entry(e, members, all[gi], f, &cls, def, &out->warnings);
    }
    if (order == DRA_SCHED_ORDER_QUEUE) {
        for (size_t i = 0; i < n; i++)
            keys[i].e = &ents[keys[i].entry];
        dra_sort(keys, n, sizeof *keys, cmp_key);
    }
    out->v = dra_xcalloc(n + 1, sizeof *out->v);
    for (size_t i = 0; i < n; i++) {
        const entry *e = &ents[keys[i].entry];
        dra_sched_queued *q = &out->v[out->n++];
        *q = (dra_sched_queued){.index = keys[i].index,
                                .priority = keys[i].priority,
                                .why = why[keys[i].index],
                                .hold_error = e->hold_error};
        if (e->grouped) {
            q->group = dra_xasprintf("%s/%s", e->ns, e->name);
            if (explain) {
                q->why = dra_xasprintf("%s %s", e->why, why[keys[i].index]);
                free(why[keys[i].index]);
            }
            q->hold = e->hold ? dra_xstrdup(e->hold) : NULL;
            q->min_count = e->min_count;
            q->bound = e->bound;
        }
    }
    free(members);
    free(all);
    for (size_t i = 0; i < nents; i++) {
        free(ents[i].hold);
        free(ents[i].why);
    }
    free(ents);
    free(why);
    free(keys);
    free(cls.v);
}

void dra_sched_queue_free(dra_sched_queue *q)
{
    for (size_t i = 0; i < q->n; i++) {
        free(q->v[i].why);
        free(q->v[i].group);
        free(q->v[i].hold);
    }
    free(q->v);
    dra_err_free(q->warnings);
    memset(q, 0, sizeof *q);
}
