/* doctor and status.  See report.h. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../evict/evict.h"
#include "../io/json.h"
#include "../io/stream.h"
#include "fixes.h"

/* One run of the checks: the findings, and the fixes that are writes to
 * claims as operations composed one after another (fixes.h). */
typedef struct doc {
    const dra_cluster *c;
    const dra_doctor_opts *o;
    dra_findings *out;
    dra_changes *ch;
    struct fixed {
        size_t finding, from, to;
    } * fixed; /* findings fixed by operations ch->ops[from..to) */
    size_t nfixed, capfixed;
    dra_evict_view *ev; /* the devices as the eviction controller sees them, indexed once */
    json_t **kept;      /* claims made from records that the changes hold (freed at the end) */
    size_t nkept;
} doc;

/* takes problem and fix */
static void add(dra_findings *f, const json_t *obj, char *problem, char *fix)
{
    dra_problem *p = dra_problems_add(f);
    p->object = dra_obj_ref(obj);
    p->msg = problem;
    p->fix = fix;
}

/* The reason an operation fixing this problem of obj carries; caller frees. */
static char *why(const json_t *obj, const char *problem)
{
    char *ref = dra_obj_ref(obj), *s = dra_xasprintf("%s: %s", ref, problem);
    free(ref);
    return s;
}

/* A finding whose fix is the operations recorded since `from` (takes problem). */
static void add_fixed(doc *d, const json_t *obj, char *problem, size_t from)
{
    add(d->out, obj, problem, NULL);
    if (d->nfixed == d->capfixed)
        d->fixed = dra_xrealloc(d->fixed, (d->capfixed = d->capfixed ? 2 * d->capfixed : 8) * sizeof *d->fixed);
    d->fixed[d->nfixed++] = (struct fixed){d->out->n - 1, from, d->ch->nops};
}

/* a word for sh: plain when safe, else single-quoted */
static void q(dra_buf *b, const char *s)
{
    bool plain = *s != 0;
    for (const char *p = s; *p; p++)
        if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') || strchr("._-/", *p)))
            plain = false;
    if (plain) {
        dra_buf_puts(b, s);
        return;
    }
    dra_buf_putc(b, '\'');
    for (const char *p = s; *p; p++)
        dra_buf_puts(b, *p == '\'' ? "'\\''" : (char[]){*p, 0});
    dra_buf_putc(b, '\'');
}

/* The users must go first (a command to delete their pods); without users
 * the allocation can be cleared.  Takes problem. */
static void users_or_deallocate(doc *d, const json_t *claim, char *problem)
{
    json_t *rf = dra_jarr(dra_changes_current(d->ch, claim), "status.reservedFor");
    if (!json_array_size(rf)) {
        size_t from = d->ch->nops;
        char *r = why(claim, problem);
        dra_fix_deallocate(d->ch, claim, r);
        free(r);
        add_fixed(d, claim, problem, from);
        return;
    }
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, "kubectl delete pod -n ");
    q(&b, dra_jstr_or(claim, "metadata.namespace", ""));
    size_t i;
    json_t *e;
    json_array_foreach(rf, i, e) {
        if (strcmp(dra_jstr_or(e, "resource", ""), "pods") == 0) {
            dra_buf_putc(&b, ' ');
            q(&b, dra_jstr_or(e, "name", ""));
        }
    }
    add(d->out, claim, problem, dra_buf_detach(&b));
}

static char *fix_tool(const char *cmd, const dra_doctor_opts *o)
{
    return dra_xasprintf("%s %s", cmd, o && o->dump ? o->dump : "DUMP");
}

static char *fix_tool_sh(const char *cmd, const dra_doctor_opts *o)
{
    return dra_xasprintf("%s %s | sh", cmd, o && o->dump ? o->dump : "DUMP");
}

static void check_claim(doc *d, const dra_obj *co)
{
    const dra_cluster *c = d->c;
    const dra_doctor_opts *o = d->o;
    dra_findings *out = d->out;
    const json_t *claim = co->json;
    const char *ns = dra_jstr_or(claim, "metadata.namespace", "");
    size_t i;
    json_t *e;
    size_t users = 0;
    json_array_foreach(dra_jarr(claim, "status.reservedFor"), i, e) {
        users++;
        if (*dra_jstr_or(e, "apiGroup", "") || strcmp(dra_jstr_or(e, "resource", ""), "pods") != 0 ||
            !dra_cluster_count(c, DRA_KIND_POD))
            continue;
        const char *pn = dra_jstr_or(e, "name", ""), *uid = dra_jstr_or(e, "uid", "");
        dra_obj tmp;
        const dra_obj *pod = dra_cluster_get(c, DRA_KIND_POD, ns, pn, &tmp);
        char *problem = NULL;
        if (!pod)
            problem = dra_xasprintf("reservedFor names pod %s (uid %s) which does not exist", pn, uid);
        else if (strcmp(dra_jstr_or(pod->json, "metadata.uid", ""), uid) != 0)
            problem = dra_xasprintf("reservedFor names pod %s (uid %s) which was replaced (uid now %s)", pn, uid,
                                    dra_jstr_or(pod->json, "metadata.uid", ""));
        else if (dra_pod_is_done(pod->json))
            problem = dra_xasprintf("reservedFor names pod %s which is done (%s)", pn,
                                    dra_jstr_or(pod->json, "status.phase", "deleted before scheduling"));
        json_decref(tmp.json);
        if (problem) {
            size_t from = d->ch->nops;
            char *r = why(claim, problem);
            dra_fix_drop_entry(d->ch, claim, e, r);
            free(r);
            add_fixed(d, claim, problem, from);
        }
    }
    if (dra_obj_deleting(claim) && users == 0 && dra_has_finalizer(claim, DRA_DELETE_PROTECTION_FINALIZER, NULL)) {
        char *problem = dra_xasprintf("is being deleted since %s but the finalizer " DRA_DELETE_PROTECTION_FINALIZER
                                      " holds it without users",
                                      dra_jstr_or(claim, "metadata.deletionTimestamp", "?"));
        size_t from = d->ch->nops;
        char *r = why(claim, problem);
        dra_fix_deallocate(d->ch, claim, r); /* the allocation first, as the claim controller */
        dra_fix_finalizer(d->ch, claim, r);
        free(r);
        add_fixed(d, claim, problem, from);
    }

    if (dra_claim_allocated(claim)) {
        json_array_foreach(dra_jarr(claim, "status.allocation.devices.results"), i, e) {
            const char *dv = dra_jstr_or(e, "driver", ""), *p = dra_jstr_or(e, "pool", ""),
                       *v = dra_jstr_or(e, "device", "");
            if (c->n[DRA_KIND_RESOURCE_SLICE]) {
                bool pool_known;
                bool published = dra_evict_view_published(d->ev, dv, p, v, &pool_known);
                if (!pool_known)
                    users_or_deallocate(
                        d, claim,
                        dra_xasprintf("is allocated device %s/%s/%s from pool %s/%s which has no ResourceSlices", dv, p,
                                      v, dv, p));
                else if (!published)
                    users_or_deallocate(
                        d, claim,
                        dra_xasprintf("is allocated device %s/%s/%s which the newest generation of its pool "
                                      "no longer publishes",
                                      dv, p, v));
            }
            dra_taint_src srcs[8];
            size_t n = dra_evict_view_taints(d->ev, dv, p, v, srcs, 8);
            for (size_t k = 0; k < n && k < 8; k++) {
                if (dra_evict_tolerated_forever(e, srcs[k].taint, o ? o->features : NULL))
                    continue; /* tolerated for good: not a problem */
                char *t = dra_taint_string(srcs[k].taint), *s = dra_taint_src_string(&srcs[k]);
                add(out, claim, dra_xasprintf("device %s/%s/%s has NoExecute taint %s (%s)", dv, p, v, t, s),
                    fix_tool("dra-evict", o));
                free(t);
                free(s);
            }
        }
        const char *node = dra_allocation_node(claim);
        if (c->n[DRA_KIND_NODE] && node && strcmp(node, "*") != 0 && !dra_cluster_find(c, DRA_KIND_NODE, NULL, node))
            users_or_deallocate(d, claim, dra_xasprintf("is allocated on node %s which does not exist", node));
    }

    const json_t *owner = dra_owning_pod_ref(claim);
    json_t *ann = dra_jget(claim, "metadata.annotations");
    const char *pcn = json_string_value(json_object_get(ann, DRA_POD_CLAIM_NAME_ANNOTATION));
    /* a claim a PodGroup made for its own claim entry is not a pod's orphan */
    const json_t *ctl = dra_controller_ref(claim);
    bool group_owned =
        ctl && strcmp(dra_jstr_or(ctl, "kind", ""), "PodGroup") == 0 &&
        strncmp(dra_jstr_or(ctl, "apiVersion", ""), DRA_SCHEDULING_GROUP "/", sizeof DRA_SCHEDULING_GROUP) == 0;
    char *problem = NULL;
    if (pcn && !owner && !group_owned) {
        problem = dra_xasprintf("was generated for pod claim %s but has no owning pod", pcn);
    } else if (owner && dra_cluster_count(c, DRA_KIND_POD) && !dra_obj_deleting(claim)) {
        const char *pn = dra_jstr_or(owner, "name", "");
        dra_obj tmp;
        const dra_obj *pod = dra_cluster_get(c, DRA_KIND_POD, ns, pn, &tmp);
        if (!pod)
            problem = dra_xasprintf("is owned by pod %s which does not exist", pn);
        else if (strcmp(dra_jstr_or(pod->json, "metadata.uid", ""), dra_jstr_or(owner, "uid", "")) != 0)
            problem = dra_xasprintf("is owned by pod %s (uid %s) which was replaced (uid now %s)", pn,
                                    dra_jstr_or(owner, "uid", ""), dra_jstr_or(pod->json, "metadata.uid", ""));
        json_decref(tmp.json);
    }
    if (problem) {
        size_t from = d->ch->nops;
        char *r = why(claim, problem);
        dra_fix_delete(d->ch, claim, r); /* with the UID as precondition */
        free(r);
        add_fixed(d, claim, problem, from);
    }
}

static char *reserve_fix(const char *ns, const char *name, const dra_doctor_opts *o)
{
    char *cmd = dra_xasprintf("dra-claim reserve --pod %s/%s --patch=kubectl", ns, name);
    char *fix = fix_tool_sh(cmd, o);
    free(cmd);
    return fix;
}

static void check_pod(const dra_cluster *c, const dra_obj *po, const dra_doctor_opts *o, dra_findings *out)
{
    const json_t *pod = po->json;
    if (dra_pod_is_done(pod) || dra_obj_deleting(pod))
        return;
    const char *ns = dra_jstr_or(pod, "metadata.namespace", "");
    /* DRAWorkloadResourceClaims: claims shared with the pod's PodGroup are owned by and reserved for the group */
    const char *group = dra_feature_enabled(o ? o->features : NULL, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS)
                            ? dra_pod_group_name(pod)
                            : NULL;
    size_t i;
    json_t *pc;
    json_array_foreach(dra_jarr(pod, "spec.resourceClaims"), i, pc) {
        const char *name, *pcn = dra_jstr_or(pc, "name", "");
        bool check;
        dra_podclaim_state st = dra_pod_claim_name(pod, pc, &name, &check);
        if (st == DRA_PODCLAIM_NOT_NEEDED)
            continue;
        const char *tn = dra_jstr(pc, "resourceClaimTemplateName");
        if (st != DRA_PODCLAIM_NAMED && tn && c->n[DRA_KIND_RESOURCE_CLAIM_TEMPLATE] &&
            !dra_cluster_find(c, DRA_KIND_RESOURCE_CLAIM_TEMPLATE, ns, tn)) {
            /* generate would fail the same way: the template is what is missing */
            add(out, pod,
                dra_xasprintf("pod claim %s: ResourceClaimTemplate %s/%s does not exist, so no claim can be made", pcn,
                              ns, tn),
                dra_xasprintf("kubectl create -n %s -f <ResourceClaimTemplate %s>", ns, tn));
            continue;
        }
        if (st != DRA_PODCLAIM_NAMED) {
            char *m = dra_pod_claim_name_error(pod, pc, st);
            add(out, pod, dra_xasprintf("pod claim %s: %s", pcn, m),
                st == DRA_PODCLAIM_NOT_CREATED ? fix_tool_sh("dra-claim generate --patch=kubectl", o)
                                               : dra_xstrdup("kubectl edit pod"));
            free(m);
            continue;
        }
        dra_obj tmp;
        const dra_obj *co = dra_cluster_get(c, DRA_KIND_RESOURCE_CLAIM, ns, name, &tmp);
        if (!co) {
            add(out, pod, dra_xasprintf("pod claim %s references ResourceClaim %s which does not exist", pcn, name),
                check ? fix_tool_sh("dra-claim generate --patch=kubectl", o)
                      : dra_xasprintf("kubectl create -n %s -f <ResourceClaim %s>", ns, name));
            continue;
        }
        /* the classic stuck pod: bound to a node while its claim is not
         * allocated or not reserved for it -- the kubelet will not start it */
        const char *bound = dra_jstr(pod, "spec.nodeName");
        if (bound && *bound) {
            const char *puid = dra_jstr_or(pod, "metadata.uid", "");
            if (!dra_claim_allocated(co->json))
                add(out, pod,
                    dra_xasprintf("is bound to node %s but its ResourceClaim %s is not allocated: the kubelet "
                                  "will not start it",
                                  bound, name),
                    dra_xasprintf("kubectl delete pod -n %s %s  # let its controller recreate it for the scheduler", ns,
                                  dra_jstr_or(pod, "metadata.name", "")));
            else if (*puid && !dra_claim_reserved_for_uid(co->json, puid) &&
                     !(group && dra_claim_reserved_for_group(co->json, group)))
                add(out, pod,
                    dra_xasprintf("is bound to node %s but its ResourceClaim %s is not reserved for it: the "
                                  "kubelet will not start it",
                                  bound, name),
                    reserve_fix(ns, dra_jstr_or(pod, "metadata.name", ""), o));
        }
        if (check) {
            char *why = dra_claim_is_for_pod_or_group(pod, co->json, group);
            if (why) {
                const json_t *ref = dra_controller_ref(co->json);
                add(out, pod,
                    dra_xasprintf("pod claim %s: %s (owner: %s %s)", pcn, why,
                                  ref ? dra_jstr_or(ref, "kind", "?") : "none",
                                  ref ? dra_jstr_or(ref, "name", "?") : "-"),
                    fix_tool_sh("dra-claim generate --patch=kubectl", o));
                free(why);
            }
        }
        json_decref(tmp.json);
    }
}

/* Each finding fixed by operations gets them as its fix: the kubectl
 * commands, joined by "&&"; with opts->ops such findings leave the list. */
static void finish(doc *d)
{
    dra_cluster_address_ops(d->c, d->ch);
    bool *drop = dra_xcalloc(d->out->n ? d->out->n : 1, sizeof *drop);
    for (size_t i = 0; i < d->nfixed; i++) {
        const struct fixed *x = &d->fixed[i];
        drop[x->finding] = d->o && d->o->ops;
        dra_buf b = DRA_BUF_INIT;
        for (size_t k = x->from; k < x->to; k++) {
            char *cmd = dra_op_kubectl(&d->ch->ops[k]);
            dra_buf_printf(&b, "%s%s", k > x->from ? " && " : "", cmd);
            free(cmd);
        }
        if (!b.len)
            dra_buf_puts(&b, "# the fix above does it");
        d->out->v[x->finding].fix = dra_buf_detach(&b);
    }
    size_t n = 0;
    for (size_t i = 0; i < d->out->n; i++) {
        if (!drop[i]) {
            d->out->v[n++] = d->out->v[i];
            continue;
        }
        free(d->out->v[i].object);
        free(d->out->v[i].msg);
        free(d->out->v[i].fix);
    }
    d->out->n = n;
    free(drop);
}

void dra_doctor(const dra_cluster *c, const dra_doctor_opts *opts, dra_findings *out)
{
    dra_changes own = DRA_CHANGES_INIT;
    dra_evict_opts eo = {.now = opts ? opts->now : (dra_time){0, 0}, .features = opts ? opts->features : NULL};
    doc d = {c, opts, out, opts && opts->ops ? opts->ops : &own, NULL, 0, 0, dra_evict_view_new(c, &eo), NULL, 0};
    /* claims and Pods held as records are made into objects one at a
     * time; a claim stays while the changes hold it */
    for (size_t i = 0, n = dra_cluster_count(c, DRA_KIND_RESOURCE_CLAIM); i < n; i++) {
        dra_obj tmp;
        size_t touched = d.ch->nobjs;
        const dra_obj *co = dra_cluster_nth(c, DRA_KIND_RESOURCE_CLAIM, i, &tmp);
        if (co)
            check_claim(&d, co);
        if (tmp.json && d.ch->nobjs != touched) {
            d.kept = dra_xgrow(d.kept, d.nkept, sizeof *d.kept);
            d.kept[d.nkept++] = tmp.json;
        } else {
            json_decref(tmp.json);
        }
    }
    for (size_t i = 0, n = dra_cluster_count(c, DRA_KIND_POD); i < n; i++) {
        dra_obj tmp;
        const dra_obj *po = dra_cluster_nth(c, DRA_KIND_POD, i, &tmp);
        if (po)
            check_pod(c, po, opts, out);
        json_decref(tmp.json);
    }
    finish(&d);
    for (size_t i = 0; i < d.nkept; i++)
        json_decref(d.kept[i]);
    free(d.kept);
    free(d.fixed);
    dra_evict_view_free(d.ev);
    dra_changes_free(&own);
}

dra_err *dra_findings_write(FILE *f, const dra_findings *fs)
{
    for (size_t i = 0; i < fs->n; i++)
        if (fprintf(f, "%s: %s; fix: %s\n", fs->v[i].object, fs->v[i].msg, fs->v[i].fix) < 0)
            return dra_err_new(DRA_EXIT_RUNTIME, "write error");
    return NULL;
}

/* ---- status ---- */

const char *dra_allocation_node(const json_t *claim)
{
    return dra_selector_node(dra_jget(claim, "status.allocation.nodeSelector"));
}

/* One device's reported status for people: "Ready=True" per condition, then
 * the interface, its IPs and hardware address ("-" when nothing). */
static void device_status_text(const json_t *st, dra_buf *b)
{
    size_t i, start = b->len;
    json_t *c;
    json_array_foreach(dra_jarr(st, "conditions"), i, c)
        dra_buf_printf(b, "%s%s=%s", b->len > start ? " " : "", dra_jstr_or(c, "type", "?"),
                       dra_jstr_or(c, "status", "?"));
    const json_t *net = dra_jget(st, "networkData");
    if (dra_jstr(net, "interfaceName"))
        dra_buf_printf(b, "%s%s", b->len > start ? " " : "", dra_jstr(net, "interfaceName"));
    json_array_foreach(dra_jarr(net, "ips"), i, c)
        if (json_is_string(c))
            dra_buf_printf(b, "%s%s", b->len > start ? " " : "", json_string_value(c));
    if (dra_jstr(net, "hardwareAddress"))
        dra_buf_printf(b, "%s%s", b->len > start ? " " : "", dra_jstr(net, "hardwareAddress"));
    if (b->len == start)
        dra_buf_putc(b, '-');
}

static json_t *str_or_empty(const char *s)
{
    return json_string(s ? s : "");
}

/* The status row of one ResourceClaim (a new object; caller decrefs). */
static json_t *status_row(const dra_claim_rec *claim)
{
    const char *state = claim->deleting    ? "deleting"
                        : claim->nreserved ? "reserved"
                        : claim->allocated ? "allocated"
                                           : "pending";
    json_t *devs = json_array();
    for (uint32_t j = 0; j < claim->nresults; j++) {
        const dra_rec_result *r = &claim->results[j];
        json_t *d =
            json_pack("{s:o,s:o,s:o,s:o}", "request", str_or_empty(r->request), "driver", str_or_empty(r->driver),
                      "pool", str_or_empty(r->pool), "device", str_or_empty(r->device));
        if (r->status)
            json_object_set(d, "status", r->status);
        json_array_append_new(devs, d);
    }
    json_t *users = json_array();
    for (uint32_t j = 0; j < claim->nreserved; j++) {
        const dra_rec_consumer *r = &claim->reserved[j];
        json_t *u = json_pack("{s:o,s:o,s:o}", "resource", str_or_empty(r->resource), "name", str_or_empty(r->name),
                              "uid", str_or_empty(r->uid));
        if (r->api_group && *r->api_group)
            json_object_set_new(u, "apiGroup", json_string(r->api_group));
        json_array_append_new(users, u);
    }
    const char *node = claim->allocated ? claim->node : NULL;
    return json_pack("{s:s,s:s,s:{s:o,s:o},s:s,s:o,s:o,s:o}", "apiVersion", "dra-tools/v1alpha1", "kind", "ClaimStatus",
                     "metadata", "namespace", str_or_empty(claim->ns), "name", str_or_empty(claim->name), "state",
                     state, "devices", devs, "node",
                     node ? json_string(node) : (claim->allocated ? json_string("<selector>") : json_null()), "users",
                     users);
}

json_t *dra_claim_status_rows(const dra_cluster *c)
{
    json_t *rows = json_array();
    dra_compact own = DRA_COMPACT_INIT;
    const dra_compact *recs = dra_cluster_claim_records(c, &own);
    for (size_t i = 0; i < recs->nclaims; i++)
        json_array_append_new(rows, status_row(recs->claims[i]));
    dra_compact_free(&own);
    dra_classic_status_rows(c, rows);
    return rows;
}

/* Drop the classic rows of other namespaces than ns (NULL: keep all). */
static void classic_rows_in(json_t *rows, const char *ns)
{
    for (size_t i = json_array_size(rows); ns && i-- > 0;)
        if (strcmp(dra_jstr_or(json_array_get(rows, i), "metadata.namespace", ""), ns) != 0)
            json_array_remove(rows, i);
}

static bool claim_in(const dra_claim_rec *r, const char *ns)
{
    return !ns || strcmp(r->ns ? r->ns : "", ns) == 0;
}

dra_err *dra_claim_status_write(FILE *f, const dra_cluster *c, dra_format fmt, const char *ns)
{
    /* each row written and dropped, as the table does */
    dra_writer *w = dra_writer_new(f, fmt);
    dra_err *e = NULL;
    dra_compact own = DRA_COMPACT_INIT;
    const dra_compact *recs = dra_cluster_claim_records(c, &own);
    for (size_t i = 0; i < recs->nclaims && !e; i++) {
        if (!claim_in(recs->claims[i], ns))
            continue;
        json_t *row = status_row(recs->claims[i]);
        e = dra_writer_put(w, row);
        json_decref(row);
    }
    dra_compact_free(&own);
    json_t *classic_rows = json_array();
    dra_classic_status_rows(c, classic_rows);
    classic_rows_in(classic_rows, ns);
    size_t i;
    json_t *row;
    json_array_foreach(classic_rows, i, row) {
        if (!e)
            e = dra_writer_put(w, row);
    }
    json_decref(classic_rows);
    return dra_writer_finish(w, e);
}

/* The table cells of one status row: c[0..5], c[neg] and c[devst] when
 * those columns are there (not 0); each new or NULL. */
static void row_cells(const json_t *row, char **c, size_t neg, size_t devst, bool wide)
{
    c[0] = dra_xstrdup(dra_jstr_or(row, "metadata.namespace", ""));
    c[1] = dra_xstrdup(dra_jstr_or(row, "metadata.name", ""));
    c[2] = dra_xstrdup(dra_jstr_or(row, "state", ""));
    dra_buf b = DRA_BUF_INIT;
    size_t j;
    json_t *d;
    size_t ndev = json_array_size(dra_jarr(row, "devices"));
    json_array_foreach(dra_jarr(row, "devices"), j, d) {
        if (!wide && j == 1) {
            /* a claim of many devices keeps its row readable */
            dra_buf_printf(&b, " (+%zu more, -o wide lists them)", ndev - 1);
            break;
        }
        if (!dra_jstr(d, "device")) /* classic: a resource handle of the driver */
            dra_buf_printf(&b, "%s%s:handle", j ? "," : "", dra_jstr_or(d, "driver", ""));
        else
            dra_buf_printf(&b, "%s%s/%s/%s", j ? "," : "", dra_jstr_or(d, "driver", ""), dra_jstr_or(d, "pool", ""),
                           dra_jstr_or(d, "device", ""));
    }
    if (!ndev && json_object_get(row, "classic"))
        dra_buf_printf(&b, "class %s", dra_jstr_or(row, "classic.resourceClassName", ""));
    c[3] = b.len ? dra_buf_detach(&b) : NULL;
    c[4] = dra_jstr(row, "node") ? dra_xstrdup(dra_jstr(row, "node")) : NULL;
    json_array_foreach(dra_jarr(row, "users"), j, d) {
        const char *res = dra_jstr_or(d, "resource", "");
        dra_buf_printf(&b, "%s%s%s", j ? "," : "", strcmp(res, "pods") == 0 ? "" : res,
                       strcmp(res, "pods") == 0 ? "" : "/");
        dra_buf_puts(&b, dra_jstr_or(d, "name", ""));
    }
    c[5] = b.len ? dra_buf_detach(&b) : NULL;
    if (neg)
        c[neg] = dra_classic_negotiation_text(row);
    if (devst) {
        /* one entry per device, in the order of DEVICES */
        bool any = false;
        json_array_foreach(dra_jarr(row, "devices"), j, d) {
            any |= dra_jget(d, "status") != NULL;
            if (j)
                dra_buf_puts(&b, ", ");
            device_status_text(dra_jget(d, "status"), &b);
        }
        c[devst] = any ? dra_buf_detach(&b) : NULL;
    }
    dra_buf_free(&b);
}

dra_err *dra_claim_status_table(FILE *f, const dra_cluster *c, bool wide, const char *ns)
{
    /* Each claim's row is made, turned into its cells and dropped: the
     * rows of every claim at once would weigh as much again as the claims. */
    json_t *classic_rows = json_array();
    dra_classic_status_rows(c, classic_rows);
    classic_rows_in(classic_rows, ns);
    dra_compact own = DRA_COMPACT_INIT;
    const dra_compact *recs = dra_cluster_claim_records(c, &own);
    size_t nres = 0;
    for (size_t i = 0; i < recs->nclaims; i++)
        nres += claim_in(recs->claims[i], ns);
    size_t n = nres + json_array_size(classic_rows), ncols = 6;
    bool classic = json_array_size(classic_rows) > 0; /* classic claims: their scheduling negotiation */
    /* -o wide: what the drivers reported about the devices (status.devices) */
    size_t neg = classic ? ncols++ : 0, devst = wide ? ncols++ : 0;
    char **cells = dra_xcalloc((n + 1) * ncols, sizeof *cells);
    static const char *const hdr[] = {"NAMESPACE", "NAME", "STATE", "DEVICES", "NODE", "USERS"};
    for (size_t k = 0; k < 6; k++)
        cells[k] = dra_xstrdup(hdr[k]);
    if (neg)
        cells[neg] = dra_xstrdup("NEGOTIATION");
    if (devst)
        cells[devst] = dra_xstrdup("DEVICE-STATUS");
    for (size_t i = 0, r = 0; i < recs->nclaims; i++) {
        if (!claim_in(recs->claims[i], ns))
            continue;
        json_t *row = status_row(recs->claims[i]);
        row_cells(row, &cells[(++r) * ncols], neg, devst, wide);
        json_decref(row);
    }
    size_t i;
    json_t *row;
    json_array_foreach(classic_rows, i, row)
        row_cells(row, &cells[(nres + i + 1) * ncols], neg, devst, wide);
    json_decref(classic_rows);
    dra_compact_free(&own);
    dra_err *e = dra_table_write(f, (const char *const *)cells, n + 1, ncols);
    for (size_t k = 0; k < (n + 1) * ncols; k++)
        free(cells[k]);
    free(cells);
    return e;
}
