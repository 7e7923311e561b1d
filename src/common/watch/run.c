/* The reconcile loop: informers -> snapshot -> pipeline -> operations ->
 * writes with preconditions.
 *
 * A pass hands the snapshot (JSON Lines) to each stage of the pipeline on
 * stdin and reads what it prints:
 *   - API operations in dra-claim --patch's format (lifecycle/ops.h): applied
 *     in order, "$DRA_NAME_<n>" replaced by the names the server gave to
 *     generateName creates; their "test" operations and DeleteOptions
 *     preconditions make every write conditional on what the pipeline saw;
 *   - or objects (documents with a kind and no verb), in any format the
 *     tools print (YAML, JSON, Lists, JSON Lines): written back only where
 *     they differ from the cache, as a create, or as updates carrying the
 *     cached resourceVersion (status first, then the rest) and a delete for
 *     an object printed as being deleted (output.c).
 * A conflict (409, a failed "test" (422), or a 404 on a write to an object the
 * snapshot had) stops the pass: after a backoff with jitter (client-go's
 * retry.DefaultBackoff: 10 ms, 50 ms, 250 ms, 1.25 s, 6.25 s) everything is
 * listed again and the pass reruns, at most max_conflicts times.  Nothing is
 * written without a precondition.  Exit codes of the stages: 0 and 1 are
 * verdicts (their operations are applied); 2 and above fail the pass and
 * nothing is written. */
#include "internal.h"
#include "health.h"
#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/proc.h"
#include "cluster/ops.h"
#include "io/json.h"
#include "model/features.h"
#include "model/time.h"

dra_err *dra_watch_duration_parse(const char *s, const char *name, long *ms)
{
    if (!s)
        return NULL;
    int64_t ns = 0;
    dra_err *e = dra_duration_arg(s, &ns);
    if (!e && (ns < 0 || ns / 1000000 > INT64_C(1000000000000)))
        e = dra_err_new(DRA_EXIT_INPUT, "invalid duration \"%s\" (want from 0 to a million seconds)", s);
    if (e)
        return dra_err_param(e, name);
    *ms = (long)(ns / 1000000);
    return NULL;
}

typedef struct stage {
    char **argv; /* NULL-terminated; owned strings */
} stage;

typedef struct runner {
    dra_session *s;
    const dra_run_opts *o;
    dra_kube_informer_spec specs[16];
    size_t nspecs;
    dra_kube_informers *in;
    json_t *cache; /* replay: "Kind" -> {"ns/name": obj} */
    stage stages[4];
    size_t nstages;
    bool dry;
    bool dirty;
    int64_t changed_at, last_pass;
    long passes;
    size_t objects; /* in the last pass's snapshot */
    int verdict;
    dra_err *err; /* ends the loop */
} runner;

static bool stopped(const runner *r)
{
    return r->s->o.stop && *r->s->o.stop;
}

static void rlog(runner *r, dra_kube_log_level lv, const char *fmt, ...) DRA_PRINTF(3, 4);
static void rlog(runner *r, dra_kube_log_level lv, const char *fmt, ...)
{
    if (!r->s->o.log)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *m = dra_xvasprintf(fmt, ap);
    va_end(ap);
    r->s->o.log(r->s->o.log_ud, lv, m);
    free(m);
}

/* ---- stages ---- */

/* The runner's own copy of the stages' argv (job_release appends to it). */
static dra_err *setup_stages(runner *r)
{
    const dra_run_opts *o = r->o;
    r->dry = o->dry_run;
    if (o->nstages < 1 || o->nstages > sizeof r->stages / sizeof *r->stages)
        return dra_err_new(DRA_EXIT_INPUT, "a pipeline of %zu stages (want 1 to %zu)", o->nstages,
                           sizeof r->stages / sizeof *r->stages);
    for (size_t i = 0; i < o->nstages; i++) {
        size_t n = 0;
        while (o->stages[i].argv[n])
            n++;
        char **v = dra_xcalloc(n + 1, sizeof *v);
        for (size_t k = 0; k < n; k++)
            v[k] = dra_xstrdup(o->stages[i].argv[k]);
        r->stages[i].argv = v;
        r->nstages = i + 1;
    }
    return NULL;
}

static void stages_free(runner *r)
{
    for (size_t i = 0; i < r->nstages; i++) {
        for (char **p = r->stages[i].argv; p && *p; p++)
            free(*p);
        free(r->stages[i].argv);
    }
}

/* Run one stage: input to its stdin, its stdout into out. */
static dra_err *run_stage(runner *r, char **argv, const dra_buf *in, dra_buf *out, int *status)
{
    dra_proc p = {.argv = argv,
                  .in = in->data ? in->data : "",
                  .inlen = in->len,
                  .max_out = DRA_MAX_INPUT_BYTES,
                  .group = true,
                  .stop = r->s->o.stop};
    dra_proc_status st;
    dra_err *e = dra_proc_run(&p, out, &st);
    *status = st.code;
    if (!e && st.stopped)
        e = dra_err_new(DRA_EXIT_RUNTIME, "interrupted");
    else if (!e && st.too_much)
        e = dra_err_new(DRA_EXIT_RUNTIME, "%s: output larger than %zu bytes", argv[0], DRA_MAX_INPUT_BYTES);
    else if (!e && st.exec_errno)
        e = dra_err_new(DRA_EXIT_RUNTIME, "cannot run %s: %s", argv[0], strerror(st.exec_errno));
    return e;
}

/* ---- snapshot ---- */

/* Each object of a kind as compact JSON (a live informer's store, or the
 * replay cache's trees dumped the same way). */
static void kind_each(runner *r, const char *kind, dra_kube_store_fn fn, void *ud)
{
    if (r->cache) {
        const char *key;
        json_t *o;
        json_object_foreach(json_object_get(r->cache, kind), key, o) {
            char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
            fn(ud, key, s, strlen(s));
            free(s);
        }
        return;
    }
    for (size_t i = 0; i < r->nspecs; i++)
        if (strcmp(r->specs[i].res->kind, kind) == 0)
            dra_kube_informers_each(r->in, i, fn, ud);
}

/* One cached object, decoded anew (caller decrefs), or NULL. */
static json_t *cached_new(runner *r, const char *kind, const char *ns, const char *name)
{
    char *key = dra_xasprintf("%s/%s", ns ? ns : "", name ? name : "");
    json_t *found = NULL;
    if (r->cache) {
        found = json_incref(json_object_get(json_object_get(r->cache, kind), key));
    } else {
        for (size_t i = 0; i < r->nspecs && !found; i++)
            if (strcmp(r->specs[i].res->kind, kind) == 0)
                found = dra_kube_informers_get(r->in, i, key);
    }
    free(key);
    return found;
}

static void put_line(dra_buf *b, const char *json, size_t len)
{
    dra_buf_append(b, json, len);
    dra_buf_putc(b, '\n');
}

typedef struct node_scan {
    runner *r;
    json_t *claims; /* "ns/name" of claims the node's pods use */
    dra_buf *out;   /* NULL: only collect claims */
} node_scan;

static void node_pod(void *ud, const char *key, const char *json, size_t len)
{
    node_scan *ns = ud;
    json_t *pod = json_loadb(json, len, 0, NULL);
    const char *n = json_string_value(json_object_get(json_object_get(pod, "spec"), "nodeName"));
    if (n && strcmp(n, ns->r->o->node) == 0) {
        dra_watch_pod_claims(pod, ns->claims);
        if (ns->out)
            put_line(ns->out, json, len);
    }
    json_decref(pod);
}

static void node_claim(void *ud, const char *key, const char *json, size_t len)
{
    node_scan *ns = ud;
    if (json_object_get(ns->claims, key))
        put_line(ns->out, json, len);
}

/* "ns/name" of every claim a pod of the node uses. */
static json_t *node_claims(runner *r)
{
    node_scan ns = {r, json_object(), NULL};
    kind_each(r, "Pod", node_pod, &ns);
    return ns.claims;
}

static void put_each(void *ud, const char *key, const char *json, size_t len)
{
    put_line(ud, json, len);
}

/* The snapshot as JSON Lines.  --job node: the node's pods and the claims
 * they use, nothing else (what the kubelet reads: its pods by spec.nodeName,
 * their claims by name). */
static void snapshot_bytes(runner *r, dra_buf *b)
{
    if (r->o->node) {
        node_scan ns = {r, json_object(), b};
        kind_each(r, "Pod", node_pod, &ns);
        kind_each(r, "ResourceClaim", node_claim, &ns);
        json_decref(ns.claims);
        return;
    }
    if (r->cache) {
        const char *k;
        json_t *m;
        json_object_foreach(r->cache, k, m)
            kind_each(r, k, put_each, b);
        return;
    }
    for (size_t i = 0; i < r->nspecs; i++)
        dra_kube_informers_each(r->in, i, put_each, b);
}

/* ---- applying ---- */

static json_t *subst(json_t *v, const json_t *names)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strncmp(s, "$DRA_NAME_", 10) == 0) {
            json_t *n = json_object_get(names, s + 1);
            if (n)
                return json_incref(n);
        }
        return json_incref(v);
    }
    if (json_is_array(v)) {
        json_t *a = json_array();
        size_t i;
        json_t *it;
        json_array_foreach(v, i, it)
            json_array_append_new(a, subst(it, names));
        return a;
    }
    if (json_is_object(v)) {
        json_t *o = json_object();
        const char *k;
        json_t *it;
        json_object_foreach(v, k, it)
            json_object_set_new(o, k, subst(it, names));
        return o;
    }
    return json_incref(v);
}

/* A refused precondition: 409 Conflict; 404 on an object the snapshot had;
 * 422 on a JSON patch that carries "test" operations (upstream answers a
 * failed test with NewGenericServerResponse(422), whose message no longer
 * says which operation failed; a rerun on fresh data decides).  A 422 whose
 * Status names a kind or causes is the validation refusing the change
 * (NewInvalid), which no rerun fixes: k8s.io/apiserver's
 * pkg/endpoints/handlers/patch.go and apimachinery's pkg/api/errors. */
static bool is_failed_test(const dra_kube_resp *resp)
{
    json_t *d = json_object_get(resp->json, "details");
    const char *kind = json_string_value(json_object_get(d, "kind"));
    return (!kind || !*kind) && json_array_size(json_object_get(d, "causes")) == 0;
}

static bool is_conflict(const dra_kube_resp *resp, const char *verb, const json_t *body)
{
    if (resp->http == 409)
        return true;
    if (resp->http == 404 && strcmp(verb, "create") != 0)
        return true;
    if (resp->http == 422 && strcmp(verb, "patch") == 0 && json_is_array(body) && is_failed_test(resp)) {
        size_t i;
        json_t *op;
        json_array_foreach(body, i, op) {
            const char *o = json_string_value(json_object_get(op, "op"));
            if (o && strcmp(o, "test") == 0)
                return true;
        }
    }
    return false;
}

/* Where an update or a delete names the version it expects: the body's
 * metadata, or DeleteOptions' preconditions; NULL when it names none. */
static json_t *version_holder(const char *verb, json_t *b)
{
    json_t *h = strcmp(verb, "update") == 0   ? json_object_get(b, "metadata")
                : strcmp(verb, "delete") == 0 ? json_object_get(b, "preconditions")
                                              : NULL;
    return json_is_string(json_object_get(h, "resourceVersion")) ? h : NULL;
}

/* One operation line.  *conflict set when the server refused a precondition.
 * versions: "kind ns/name" -> {"seen", "now"}: an update or delete that
 * expects the version "seen" (what the pipeline read) of an object this pass
 * wrote already expects "now" (what our own last write returned) instead, so
 * that a stage's writes of one object (its status, then the object, then the
 * delete) follow one another; a write by anyone else still conflicts. */
static dra_err *apply_op(runner *r, const json_t *op, json_t *names, json_t *versions, bool *conflict, int line)
{
    dra_op_line l;
    dra_op_line_read(op, &l);
    const char *verb = l.verb_text, *kind = l.kind, *ns = l.ns, *sub = l.subresource;
    const dra_kube_resource *res = dra_kube_resource_by_kind(kind);
    if (l.verb == DRA_OPL_NONE || !res || !json_is_object(op))
        return dra_err_new(DRA_EXIT_RUNTIME, "pipeline output line %d: an operation needs a verb and a known kind",
                           line);
    json_t *nm = l.name ? subst((json_t *)l.name, names) : NULL;
    const char *name = json_string_value(nm);
    if (name && strncmp(name, "$DRA_NAME_", 10) == 0) {
        json_decref(nm);
        return dra_err_new(DRA_EXIT_RUNTIME, "pipeline output line %d: %s was never created", line, name);
    }
    json_t *b = l.body ? subst((json_t *)l.body, names) : NULL;
    char *vkey = dra_xasprintf("%s %s/%s", kind, ns ? ns : "", name ? name : "");
    json_t *holder = version_holder(verb, b);
    char *seen = holder ? dra_xstrdup(json_string_value(json_object_get(holder, "resourceVersion"))) : NULL;
    json_t *chained = json_object_get(versions, vkey);
    if (seen && chained && strcmp(seen, json_string_value(json_object_get(chained, "seen"))) == 0)
        json_object_set(holder, "resourceVersion", json_object_get(chained, "now"));
    dra_kube_resp resp = {0};
    json_t *out = NULL;
    dra_err *e = NULL;
    char *ref = dra_xasprintf("%s %s%s%s%s%s", kind, ns ? ns : "", ns ? "/" : "", name ? name : "(generated)",
                              sub ? " " : "", sub ? sub : "");
    if (l.verb == DRA_OPL_CREATE) {
        e = dra_kube_create(r->s->api, res, ns, b, &out, &resp);
        if (!e && l.name_var && dra_jstr(out, "metadata.name"))
            json_object_set_new(names, l.name_var, json_string(dra_jstr(out, "metadata.name")));
    } else if (l.verb == DRA_OPL_PATCH) {
        dra_kube_patch_type t = l.patch_type == DRA_OPL_PATCH_JSON    ? KUBE_PATCH_JSON
                                : l.patch_type == DRA_OPL_PATCH_MERGE ? KUBE_PATCH_MERGE
                                                                      : KUBE_PATCH_STRATEGIC;
        if (t == KUBE_PATCH_JSON && !json_is_array(b))
            e = dra_err_new(DRA_EXIT_RUNTIME, "pipeline output line %d: a JSON patch body must be a list", line);
        else
            e = dra_kube_patch(r->s->api, res, ns, name, sub, t, b, &out, &resp);
    } else if (l.verb == DRA_OPL_APPLY) {
        dra_buf q = DRA_BUF_INIT;
        dra_buf_puts(&q, "fieldManager=");
        dra_kube_query_escape(&q, l.field_manager ? l.field_manager : "dra-watch");
        if (l.force)
            dra_buf_puts(&q, "&force=true");
        e = dra_kube_write(r->s->api, res, "PATCH", ns, name, sub, dra_buf_str(&q), "application/apply-patch+yaml", b,
                           &out, &resp);
        dra_buf_free(&q);
    } else if (l.verb == DRA_OPL_DELETE) {
        e = dra_kube_write(r->s->api, res, "DELETE", ns, name, NULL, NULL, "application/json", b, NULL, &resp);
    } else if (l.verb == DRA_OPL_UPDATE) {
        e = dra_kube_update(r->s->api, res, b, sub, &out, &resp);
    } else {
        e = dra_err_new(DRA_EXIT_RUNTIME, "pipeline output line %d: unknown verb \"%s\"", line, verb);
    }
    if (e && is_conflict(&resp, verb, b)) {
        char *m = dra_err_format(e);
        rlog(r, KUBE_LOG_INFO, "conflict on %s %s: %s; re-reading", verb, ref, m);
        free(m);
        dra_err_free(e);
        e = NULL;
        *conflict = true;
        if (resp.http != 409) /* 409s are counted by the client */
            dra_kube_client_stats(r->s->client)->conflicts++;
    } else if (!e) {
        if (seen && dra_jstr(out, "metadata.resourceVersion"))
            json_object_set_new(
                versions, vkey,
                json_pack("{s:s, s:s}", "seen", seen, "now", dra_jstr(out, "metadata.resourceVersion")));
        rlog(r, KUBE_LOG_INFO, "%s %s%s%s", verb, ref, l.reason ? ": " : "", l.reason ? l.reason : "");
    } else {
        e = dra_err_object(e, ref);
    }
    free(ref);
    free(vkey);
    free(seen);
    json_decref(out);
    dra_kube_resp_free(&resp);
    json_decref(b);
    json_decref(nm);
    return e;
}

/* Parse a stage's output (any format the tools print) into operations:
 * operations as they are, objects as the writes that bring the server to
 * them (dra_watch_object_ops, against the cached object). */
static dra_err *stage_ops(runner *r, const dra_buf *out, const char *label, json_t *ops)
{
    json_t *docs;
    dra_err *e = dra_watch_read_output(label, out->data, out->len, &docs);
    if (e)
        return e;
    size_t i;
    json_t *j;
    json_array_foreach(docs, i, j) {
        if (json_object_get(j, "verb")) {
            json_array_append(ops, j);
            continue;
        }
        const char *kind = json_string_value(json_object_get(j, "kind")), *name = dra_jstr(j, "metadata.name");
        json_t *cur = name ? cached_new(r, kind, dra_jstr(j, "metadata.namespace"), name) : NULL;
        dra_watch_object_ops(j, cur, ops);
        json_decref(cur);
    }
    json_decref(docs);
    return NULL;
}

/* The API server's quota admission refused a claim the job creates
 * (k8s.io/apiserver pkg/admission/plugin/resourcequota/controller.go: a 403
 * like a missing permission, but about this claim alone).  Upstream's claim
 * controller logs it and tries the pod again later; the other pods go on. */
static bool quota_refused(const dra_err *e, const json_t *op)
{
    const char *verb = json_string_value(json_object_get(op, "verb"));
    const char *kind = json_string_value(json_object_get(op, "kind"));
    return dra_kube_err_forbidden(e) && verb && kind && strcmp(verb, "create") == 0 &&
           strcmp(kind, "ResourceClaim") == 0 &&
           (strstr(e->msg, "exceeded quota: ") || strstr(e->msg, "status unknown for quota: ") ||
            strstr(e->msg, "insufficient quota to consume: "));
}

/* Does v name a claim that quota refused: "$DRA_NAME_<n>" of its create, or
 * its name in namespace ns (refused: "DRA_NAME_<n>" and "ns/name" keys)? */
static bool names_refused(const json_t *v, const char *ns, const json_t *refused)
{
    const char *s = json_string_value(v);
    if (s) {
        if (strncmp(s, "$DRA_NAME_", 10) == 0)
            return json_object_get(refused, s + 1) != NULL;
        char *key = dra_xasprintf("%s/%s", ns, s);
        bool hit = json_object_get(refused, key) != NULL;
        free(key);
        return hit;
    }
    size_t i;
    const char *k;
    json_t *it;
    if (json_is_array(v))
        json_array_foreach(v, i, it)
            if (names_refused(it, ns, refused))
                return true;
    if (json_is_object(v))
        json_object_foreach((json_t *)v, k, it)
            if (names_refused(it, ns, refused))
                return true;
    return false;
}

/* One pass: every stage on the current snapshot.  *conflict when a write hit
 * a precondition. */
static dra_err *relist(runner *r);

static dra_err *pass_once(runner *r, bool *conflict)
{
    *conflict = false;
    json_t *names = json_object(), *versions = json_object(), *refused = json_object();
    dra_err *e = NULL;
    bool wrote = false;
    for (size_t si = 0; si < r->nstages && !e && !*conflict; si++) {
        /* a later stage sees what the earlier ones wrote */
        if (wrote && (e = relist(r)))
            break;
        wrote = false;
        dra_buf in = DRA_BUF_INIT, out = DRA_BUF_INIT;
        snapshot_bytes(r, &in);
        r->objects = 0;
        for (size_t k = 0; k < in.len; k++)
            r->objects += in.data[k] == '\n';
        int status = 0;
        const char *label = r->o->stages[si].source, *name = r->o->stages[si].name;
        e = run_stage(r, r->stages[si].argv, &in, &out, &status);
        dra_buf_free(&in);
        rlog(r, KUBE_LOG_DEBUG, "%s: exit code %d, %zu bytes of output", name, status, out.len);
        if (!e && r->o->node && out.len) {
            /* dra-prepare sync's records: what was prepared and unprepared,
             * printed even when some pods failed (the driver calls happened) */
            if (fwrite(out.data, 1, out.len, r->o->out) != out.len || fflush(r->o->out) != 0)
                e = dra_err_new(DRA_EXIT_RUNTIME, "write error on standard output");
            out.len = 0;
        }
        if (!e && status >= 2)
            e = dra_err_new(status == 2 ? DRA_EXIT_INPUT : DRA_EXIT_RUNTIME,
                            "%s failed with exit code %d; nothing written", name, status);
        if (!e && status > r->verdict)
            r->verdict = status;
        json_t *ops = json_array();
        if (!e)
            e = stage_ops(r, &out, label, ops);
        dra_buf_free(&out);
        size_t i;
        json_t *op;
        json_array_foreach(ops, i, op) {
            if (e || *conflict)
                break;
            if (r->dry) {
                char *s = json_dumps(op, JSON_COMPACT | JSON_REAL_PRECISION(17));
                if (fprintf(r->o->out, "%s\n", s) < 0)
                    e = dra_err_new(DRA_EXIT_RUNTIME, "write error on standard output");
                free(s);
            } else if (json_object_size(refused) &&
                       names_refused(op, json_string_value(json_object_get(op, "namespace")) ?: "", refused)) {
                rlog(r, KUBE_LOG_INFO, "skipped %s %s %s/%s: its claim was refused by quota",
                     json_string_value(json_object_get(op, "verb")), json_string_value(json_object_get(op, "kind")),
                     json_string_value(json_object_get(op, "namespace")) ?: "",
                     json_string_value(json_object_get(op, "name")) ?: "");
            } else {
                e = apply_op(r, op, names, versions, conflict, (int)i + 1);
                wrote = true;
                const char *var = json_string_value(json_object_get(op, "nameVar"));
                if (e && quota_refused(e, op)) {
                    char *m = dra_err_format(e);
                    rlog(r, KUBE_LOG_WARN, "%s (the pod waits; the next pass tries again)", m);
                    free(m);
                    dra_err_free(e);
                    e = NULL;
                    const char *ns = json_string_value(json_object_get(op, "namespace")) ?: "";
                    const char *nm = json_string_value(json_object_get(op, "name"))
                                         ?: json_string_value(json_object_get(
                                                json_object_get(json_object_get(op, "body"), "metadata"), "name"));
                    if (var)
                        json_object_set_new(refused, var, json_true());
                    if (nm) {
                        char *key = dra_xasprintf("%s/%s", ns, nm);
                        json_object_set_new(refused, key, json_true());
                        free(key);
                    }
                    if (r->verdict < 1)
                        r->verdict = 1; /* a pod left pending, as dra-claim generate's refusals */
                }
            }
        }
        json_decref(ops);
    }
    if (r->dry)
        fflush(r->o->out);
    json_decref(names);
    json_decref(versions);
    json_decref(refused);
    return e;
}

static dra_err *relist(runner *r)
{
    if (r->cache)
        return NULL;
    return dra_kube_informers_sync(r->in);
}

static dra_err *pass(runner *r)
{
    r->dirty = false;
    r->passes++;
    r->verdict = 0;
    for (int attempt = 0;; attempt++) {
        bool conflict;
        dra_err *e = pass_once(r, &conflict);
        if (e || !conflict)
            return e;
        if (attempt >= r->o->max_conflicts)
            return dra_err_new(DRA_EXIT_RUNTIME, "still conflicting after %d re-reads; giving up this pass",
                               attempt + 1);
        /* another writer is at work (another run of the same job, a
         * controller): give it time, as retry.RetryOnConflict does, rather
         * than re-read at once and meet it again */
        int64_t d = dra_kube_conflict_backoff_ms(r->s->client, attempt);
        rlog(r, KUBE_LOG_INFO, "conflict %d: re-reading in %lld ms", attempt + 1, (long long)d);
        if (!dra_kube_sleep_ms(r->s->client, d))
            return NULL; /* stopped */
        if ((e = relist(r)))
            return e;
        r->dirty = false;
    }
}

static void on_change(void *ud, size_t idx, dra_kube_event_type t, json_t *obj)
{
    runner *r = ud;
    if (r->o->node && strcmp(r->specs[idx].res->kind, "ResourceClaim") == 0) {
        /* another node's claim changes nothing here */
        char *key =
            dra_xasprintf("%s/%s", dra_jstr(obj, "metadata.namespace") ?: "", dra_jstr(obj, "metadata.name") ?: "");
        json_t *claims = node_claims(r);
        bool ours = json_object_get(claims, key) != NULL;
        json_decref(claims);
        free(key);
        if (!ours)
            return;
    }
    r->dirty = true;
    r->changed_at = dra_mono_ms();
}

/* After a pass of the loop: one log line (-v) with its counts and time, and
 * the health endpoints told. */
static void pass_done(runner *r, const dra_err *e, int64_t ms, const dra_kube_stats *before)
{
    const dra_kube_stats *st = r->s->client ? dra_kube_client_stats(r->s->client) : NULL;
    dra_watch_health_pass(r->o->health, !e, ms, st);
    if (st)
        rlog(r, KUBE_LOG_INFO, "pass %ld: %s, %zu objects, %llu writes, %llu conflicts, verdict %d, %lld ms", r->passes,
             e ? "failed" : "done", r->objects, (unsigned long long)(st->writes - before->writes),
             (unsigned long long)(st->conflicts - before->conflicts), r->verdict, (long long)ms);
}

static dra_err *loop_pass(runner *r)
{
    dra_kube_stats before = {0};
    if (r->s->client)
        before = *dra_kube_client_stats(r->s->client);
    int64_t t0 = dra_mono_ms();
    dra_err *e = pass(r);
    r->last_pass = dra_mono_ms();
    pass_done(r, e, r->last_pass - t0, &before);
    if (e && !stopped(r)) {
        /* --once reports every failure; the loop stops only on a missing
         * permission (the next pass would meet it again) */
        if (r->o->once || dra_kube_err_forbidden(e))
            return e;
        char *m = dra_err_format(e);
        rlog(r, KUBE_LOG_WARN, "pass %ld failed: %s", r->passes, m);
        free(m);
        dra_err_free(e);
        e = NULL;
    }
    return e;
}

static dra_err *tick(void *ud)
{
    runner *r = ud;
    if (r->s->client)
        dra_watch_health_stats(r->o->health, dra_kube_client_stats(r->s->client));
    if (r->s->o.reload && *r->s->o.reload) {
        *r->s->o.reload = 0;
        dra_err *e = dra_session_reload(r->s);
        if (e) {
            char *m = dra_err_format(e);
            rlog(r, KUBE_LOG_WARN, "SIGHUP: keeping the old configuration: %s", m);
            free(m);
            dra_err_free(e);
        } else {
            dra_kube_informers_relist(r->in);
        }
    }
    int64_t now = dra_mono_ms();
    bool due = (r->dirty && now - r->changed_at >= r->o->debounce_ms) ||
               (r->o->interval_ms > 0 && now - r->last_pass >= r->o->interval_ms);
    if (due) {
        dra_err *e = loop_pass(r);
        if (e)
            return e;
        if (r->o->max_passes > 0 && r->passes >= r->o->max_passes)
            return dra_err_new(0, "done");
    }
    return NULL;
}

/* ---- replay ---- */

static dra_err *replay_event(void *ud, dra_kube_event_type t, json_t *obj)
{
    runner *r = ud;
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    if (!kind)
        return NULL;
    json_t *m = json_object_get(r->cache, kind);
    if (!m)
        json_object_set_new(r->cache, kind, m = json_object());
    char *key = dra_xasprintf("%s/%s", dra_jstr(obj, "metadata.namespace") ?: "", dra_jstr(obj, "metadata.name") ?: "");
    if (t == KUBE_DELETED)
        json_object_del(m, key);
    else if (t == KUBE_ADDED || t == KUBE_MODIFIED)
        json_object_set(m, key, obj);
    free(key);
    r->dirty = true;
    r->changed_at = dra_mono_ms();
    if (!r->o->once && !r->s->o.replay_fast) {
        /* paced replay: passes as the live loop would run them */
        return NULL;
    }
    return NULL;
}

/* The release the stages apply (o->kubernetes_version, else the server's):
 * appended to every stage after o->release_flag.  A server whose version
 * cannot be had or is not a release the tools know leaves them their
 * default, said in the log. */
static void job_release(runner *r)
{
    const char *v = r->o->kubernetes_version;
    dra_release rel;
    if (!r->o->release_flag)
        return;
    if (!v && !r->s->o.replay) {
        json_t *ver = NULL;
        dra_err *e = dra_watch_server_version(r->s, &ver);
        const char *git = json_string_value(json_object_get(ver, "gitVersion"));
        dra_err *pe = e ? NULL : dra_release_parse(git, &rel);
        if (e || pe)
            rlog(r, KUBE_LOG_WARN, "the jobs use Kubernetes %s's feature gates: %s",
                 dra_release_name(DRA_RELEASE_DEFAULT), (e ? e : pe)->msg);
        else
            rlog(r, KUBE_LOG_INFO, "the jobs use Kubernetes %s's feature gates (the server is %s)",
                 dra_release_name(rel), git);
        v = e || pe ? NULL : dra_release_name(rel);
        dra_err_free(e);
        dra_err_free(pe);
        json_decref(ver);
    }
    for (size_t i = 0; v && i < r->nstages; i++) {
        size_t n = 0;
        while (r->stages[i].argv[n])
            n++;
        r->stages[i].argv = dra_xrealloc(r->stages[i].argv, (n + 3) * sizeof *r->stages[i].argv);
        r->stages[i].argv[n] = dra_xstrdup(r->o->release_flag);
        r->stages[i].argv[n + 1] = dra_xstrdup(v);
        r->stages[i].argv[n + 2] = NULL;
    }
}

dra_err *dra_watch_run(dra_session *s, const dra_run_opts *o, int *verdict)
{
    runner r = {0};
    r.s = s;
    r.o = o;
    *verdict = 0;
    dra_err *e = setup_stages(&r);
    if (e) {
        stages_free(&r);
        return e;
    }
    job_release(&r);
    if (s->o.replay) {
        r.dry = true; /* no server to write to */
        r.cache = json_object();
        e = dra_replay_each(s, replay_event, &r);
        if (!e && !stopped(&r))
            e = pass(&r);
        *verdict = r.verdict;
        json_decref(r.cache);
        stages_free(&r);
        return e;
    }
    if (o->kinds)
        e = dra_watch_specs(s, o->kinds, o->nkinds, r.specs, &r.nspecs);
    else
        e = dra_watch_dra_specs(s, r.specs, &r.nspecs);
    char *pod_fs = NULL;
    if (!e && o->node) {
        pod_fs = dra_xasprintf("spec.nodeName=%s", o->node);
        for (size_t i = 0; i < r.nspecs; i++)
            if (strcmp(r.specs[i].res->kind, "Pod") == 0)
                r.specs[i].field_selector = pod_fs;
    }
    if (e) {
        stages_free(&r);
        return e;
    }
    r.in =
        dra_kube_informers_new(s->api, r.specs, r.nspecs, dra_watch_timeout_s(s), dra_watch_idle_s(s), on_change, &r);
    e = dra_kube_informers_sync(r.in);
    if (!e)
        e = loop_pass(&r);
    if (!e && !o->once && !(o->max_passes > 0 && r.passes >= o->max_passes))
        e = dra_kube_informers_run(r.in, -1, tick, &r);
    *verdict = r.verdict;
    dra_kube_informers_free(r.in);
    stages_free(&r);
    free(pod_fs);
    return e;
}
