/* dra-prepare plugins | probe | health: registration scan, a driver author's
 * conformance check, and the device health stream.  The gRPC work is in
 * src/common/kubelet/ (registration.h, rpc.h, health.h). */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/clock.h"
#include "tool/tool.h"
#include "model/time.h"
#include "io/stream.h"
#include "io/table.h"
#include "kubelet/cdi.h"
#include "kubelet/health.h"
#include "kubelet/registration.h"
#include "kubelet/rpc.h"
#include "cmd_rpc.h"

/* clang-format off */
#define TIMEOUT_ENTRY {OPT_TIMEOUT, "timeout", 0, DRA_ARG_REQUIRED, "DURATION", "deadline of each call (default 45s, as the kubelet)", NULL}
#define MAX_MSG_ENTRY {OPT_MAX_MSG, "max-msg-size", 0, DRA_ARG_REQUIRED, "BYTES", "largest message sent or received (default 4194304)", NULL}
#define VERBOSE_ENTRY {OPT_VERBOSE, "verbose", 'v', DRA_ARG_NONE, NULL, "say on stderr what happens on the connection", NULL}

const dra_opt dra_prepare_plugins_opts[] = {
    {OPT_REGISTRY_DIR, "registry-dir", 0, DRA_ARG_REQUIRED, "DIR", "the kubelet's plugin registry (default /var/lib/kubelet/plugins_registry)", "dir"},
    {OPT_NOTIFY, "notify", 0, DRA_ARG_NONE, NULL, "send NotifyRegistrationStatus to each plugin, as the kubelet does", NULL},
    TIMEOUT_ENTRY,
    DRA_OPT_OUTPUT_ENTRY("table yaml json jsonl"),
    DRA_OPT_HELP_ENTRY,
    DRA_OPT_VERSION_ENTRY,
    DRA_OPT_END,
};
const dra_opt dra_prepare_probe_opts[] = {
    {OPT_SOCKET, "socket", 0, DRA_ARG_REQUIRED, "PATH", "the driver's DRA service socket (dra.sock)", "file"},
    {OPT_REG_SOCKET, "reg-socket", 0, DRA_ARG_REQUIRED, "PATH", "also check the driver's registration socket", "file"},
    {OPT_SERVICE, "service", 0, DRA_ARG_REQUIRED, "SERVICE", "v1.DRAPlugin or v1beta1.DRAPlugin (default: what the driver answers)", "v1.DRAPlugin v1beta1.DRAPlugin"},
    {OPT_CLAIM, "claim", 0, DRA_ARG_REQUIRED, "FILE", "prepare this ResourceClaim (namespace, name, uid) instead of a made-up one", "file"},
    {OPT_COUNT, "count", 0, DRA_ARG_REQUIRED, "N", "prepare calls timed for the latency figures (default 10)", NULL},
    TIMEOUT_ENTRY,
    MAX_MSG_ENTRY,
    DRA_OPT_OUTPUT_ENTRY("table yaml json jsonl"),
    DRA_OPT_HELP_ENTRY,
    DRA_OPT_VERSION_ENTRY,
    DRA_OPT_END,
};
const dra_opt dra_prepare_health_opts[] = {
    {OPT_SOCKET, "socket", 0, DRA_ARG_REQUIRED, "PATH", "the driver's DRA service socket (dra.sock)", "file"},
    {OPT_SERVICE, "service", 0, DRA_ARG_REQUIRED, "SERVICE", "v1alpha1.DRAResourceHealth (default) or v1.DRAResourceHealth", "v1alpha1.DRAResourceHealth v1.DRAResourceHealth"},
    {OPT_BACKOFF, "backoff", 0, DRA_ARG_REQUIRED, "DURATION", "first wait before reopening the stream, doubled up to 5s (default 1s)", NULL},
    {OPT_RETRIES, "max-retries", 0, DRA_ARG_REQUIRED, "N", "give up after N failed opens in a row (default 0: never)", NULL},
    MAX_MSG_ENTRY,
    VERBOSE_ENTRY,
    DRA_OPT_HELP_ENTRY,
    DRA_OPT_VERSION_ENTRY,
    DRA_OPT_END,
};
/* clang-format on */

/* ---- shared helpers ---- */

dra_err *dra_prepare_duration_ms(const char *opt, const char *s, long *ms)
{
    int64_t ns = 0;
    if (!s)
        return NULL;
    dra_err *e = dra_duration_arg(s, &ns);
    if (!e && (ns <= 0 || ns / DRA_NSEC_PER_SEC > 86400 * 365))
        e = dra_err_new(DRA_EXIT_INPUT,
                        "invalid duration \"%s\" (want a positive Go duration such as 45s, 500ms, or seconds)", s);
    if (e) {
        char *flag = dra_xasprintf("--%s", opt);
        e = dra_err_field(e, flag);
        free(flag);
        return e;
    }
    *ms = (long)((ns + 999999) / 1000000);
    return NULL;
}

/* What plugins, probe and health read first: -o and --timeout (absent
 * options keep the defaults given); none of them takes arguments. */
typedef struct rpc_common {
    bool table;
    dra_format fmt;
    long timeout_ms;
} rpc_common;

static dra_err *common_opts(const dra_args *a, const dra_prepare_values *x, rpc_common *c)
{
    dra_err *e;
    if ((e = dra_format_parse_table(x->output, &c->table, &c->fmt)) ||
        (e = dra_prepare_duration_ms("timeout", x->timeout, &c->timeout_ms)))
        return e;
    if (a->npos)
        return dra_err_new(DRA_EXIT_INPUT, "%s takes no arguments (got \"%s\")", a->cmd->name, a->pos[0]);
    return NULL;
}

static dra_err *write_objs(json_t **objs, size_t n, dra_format fmt)
{
    return dra_write(stdout, objs, n, fmt);
}

static json_t *jstr_list(char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

/* ---- plugins ---- */

dra_err *dra_prepare_run_plugins(const dra_args *a, void *xv, int *rc)
{
    const dra_prepare_values *x = xv;
    rpc_common c = {.timeout_ms = 1000};
    int ok = 0;
    dra_arena ar = DRA_ARENA_INIT;
    json_t **objs = NULL;
    size_t n = 0;
    dra_reg_plugin *p = NULL;
    dra_err *e = common_opts(a, x, &c);
    if (e)
        goto out;
    bool table = c.table;
    dra_format fmt = c.fmt;
    long timeout = c.timeout_ms;
    const char *dir = x->registry_dir;
    dra_reg_opts ro = {.timeout_ms = timeout, .notify = x->notify};
    if ((e = dra_registry_scan(dir ? dir : "/var/lib/kubelet/plugins_registry", &ro, &ar, &p, &n)))
        goto out;
    for (size_t i = 0; i < n; i++)
        if (p[i].error || !p[i].registered)
            ok = DRA_EXIT_NEGATIVE;
    if (table) {
        const char **cells = dra_xcalloc((n + 1) * 6, sizeof *cells);
        const char *hdr[] = {"DRIVER", "ENDPOINT", "SERVICE", "VERSIONS", "STATUS", "REGISTRATION"};
        memcpy(cells, hdr, sizeof hdr);
        dra_buf *vers = dra_xcalloc(n + 1, sizeof *vers);
        for (size_t i = 0; i < n; i++) {
            const char **r = cells + (i + 1) * 6;
            for (size_t j = 0; j < p[i].n_versions; j++)
                dra_buf_printf(&vers[i], "%s%s", j ? "," : "", p[i].versions[j]);
            r[0] = *p[i].name ? p[i].name : NULL;
            r[1] = *p[i].endpoint ? p[i].endpoint : NULL;
            r[2] = p[i].service;
            r[3] = vers[i].len ? vers[i].data : NULL;
            r[4] = !p[i].info_ok      ? "no-answer"
                   : !p[i].registered ? "rejected"
                   : p[i].reachable   ? "reachable"
                                      : "unreachable";
            r[5] = p[i].reg_socket;
        }
        e = dra_table_write(stdout, cells, n + 1, 6);
        for (size_t i = 0; i <= n; i++)
            dra_buf_free(&vers[i]);
        free(vers);
        free(cells);
        for (size_t i = 0; i < n; i++)
            if (p[i].error)
                fprintf(stderr, "dra-prepare: %s\n", p[i].error);
    } else {
        objs = dra_xcalloc(n + 1, sizeof *objs);
        for (size_t i = 0; i < n; i++) {
            json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "apiVersion", "dra-tools/v1alpha1", "kind",
                                  "KubeletPlugin", "registrationSocket", p[i].reg_socket, "type", p[i].type, "name",
                                  p[i].name, "endpoint", p[i].endpoint);
            json_object_set_new(o, "supportedVersions", jstr_list(p[i].versions, p[i].n_versions));
            json_object_set_new(o, "service", p[i].service ? json_string(p[i].service) : json_null());
            json_object_set_new(o, "registered", json_boolean(p[i].registered));
            json_object_set_new(o, "reachable", json_boolean(p[i].reachable));
            if (p[i].error)
                json_object_set_new(o, "error", json_string(p[i].error));
            objs[i] = o;
        }
        e = write_objs(objs, n, fmt);
        for (size_t i = 0; i < n; i++)
            json_decref(objs[i]);
        free(objs);
    }
    if (n == 0 && !e)
        fprintf(stderr, "dra-prepare: no plugin sockets in %s\n", dir ? dir : "/var/lib/kubelet/plugins_registry");
out:
    dra_arena_free(&ar);
    *rc = ok;
    return e;
}

/* ---- probe ---- */

/* A CDI fully-qualified device name "vendor/class=name" (kubelet/cdi.c,
 * container-device-interface pkg/parser). */
static bool cdi_id_valid(const char *id)
{
    dra_err *e = dra_cdi_check_name(id);
    dra_err_free(e);
    return e == NULL;
}

typedef struct check {
    const char *name;
    const char *result; /* pass fail skip */
    char *detail;
} check;

typedef struct probe {
    check v[32];
    size_t n;
    bool failed;
    bool transport;      /* a call failed in transport (or the driver never answered): exit 3 */
    int first_transport; /* index+1 of the first such check */
} probe;

/* Whether a failed call's status is the driver's own answer (a gRPC error
 * it returned) rather than a failure to reach it: the transport codes
 * UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED and INTERNAL are not, nor
 * RESOURCE_EXHAUSTED, which our own message size limit raises. */
static bool driver_answered(const char *msg)
{
    static const char *const codes[] = {
        ": UNKNOWN: ",       ": NOT_FOUND: ",         ": INVALID_ARGUMENT: ", ": FAILED_PRECONDITION: ",
        ": ABORTED: ",       ": PERMISSION_DENIED: ", ": ALREADY_EXISTS: ",   ": OUT_OF_RANGE: ",
        ": UNIMPLEMENTED: ", ": UNAUTHENTICATED: ",   ": DATA_LOSS: ",
    };
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        if (strstr(msg, codes[i]))
            return true;
    return false;
}

/* A failed call: the check fails; the probe exits 3 when the call failed in
 * transport, 1 when the driver answered with an error. */
static void add_err(probe *p, const char *name, dra_err *e)
{
    if (p->n < 32)
        p->v[p->n++] = (check){name, "fail", dra_xstrdup(e->msg)};
    p->failed = true;
    if (!driver_answered(e->msg)) {
        if (!p->first_transport)
            p->first_transport = (int)p->n;
        p->transport = true;
    }
    dra_err_free(e);
}

static void add(probe *p, const char *name, const char *result, const char *fmt, ...) DRA_PRINTF(4, 5);
static void add(probe *p, const char *name, const char *result, const char *fmt, ...)
{
    if (p->n == 32)
        return;
    va_list ap;
    va_start(ap, fmt);
    p->v[p->n++] = (check){name, result, dra_xvasprintf(fmt, ap)};
    va_end(ap);
    if (strcmp(result, "fail") == 0)
        p->failed = true;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The answer as text, for comparing two answers. */
static void answer_text(const dra_prep_claim *c, size_t n, dra_buf *b)
{
    for (size_t i = 0; i < n; i++) {
        dra_buf_printf(b, "%s|%s|", c[i].uid, c[i].error ? c[i].error : "");
        for (size_t j = 0; j < c[i].n_devices; j++) {
            const dra_prep_device *d = &c[i].devices[j];
            dra_buf_printf(b, "%s/%s[", d->pool, d->device);
            for (size_t k = 0; k < d->n_requests; k++)
                dra_buf_printf(b, "%s,", d->requests[k]);
            dra_buf_puts(b, "][");
            for (size_t k = 0; k < d->n_cdi_ids; k++)
                dra_buf_printf(b, "%s,", d->cdi_ids[k]);
            dra_buf_puts(b, "]");
        }
        dra_buf_puts(b, ";");
    }
}

static const dra_prep_claim *find_uid(const dra_prep_claim *c, size_t n, const char *uid)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(c[i].uid, uid) == 0)
            return &c[i];
    return NULL;
}

/* Read namespace/name/uid of the first ResourceClaim in a file. */
static dra_err *read_claim(const char *path, dra_arena *ar, dra_claim_ref *out)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_read_path(&set, path);
    if (e)
        goto done;
    for (size_t i = 0; i < set.n; i++) {
        json_t *o = set.v[i].json;
        const char *kind = json_string_value(json_object_get(o, "kind"));
        if (!kind || strcmp(kind, "ResourceClaim") != 0)
            continue;
        json_t *md = json_object_get(o, "metadata");
        const char *ns = json_string_value(json_object_get(md, "namespace"));
        const char *name = json_string_value(json_object_get(md, "name"));
        const char *uid = json_string_value(json_object_get(md, "uid"));
        if (!name || !*name || !uid || !*uid) {
            e = dra_obj_locate(dra_err_new(DRA_EXIT_INPUT, "the claim needs metadata.name and metadata.uid"),
                               &set.v[i]);
            goto done;
        }
        out->namespace_ = dra_arena_strdup(ar, ns && *ns ? ns : "default");
        out->name = dra_arena_strdup(ar, name);
        out->uid = dra_arena_strdup(ar, uid);
        goto done;
    }
    e = dra_err_new(DRA_EXIT_INPUT, "%s: no ResourceClaim in the file", path);
done:
    dra_objset_free(&set);
    return e;
}

/* A driver that looks its claims up in the API server (as upstream's
 * kubelet plugin library does before calling the driver) refuses the
 * probe's made-up claim as not found, failing the claim or the whole call.
 * That says nothing against the driver: the claim checks are skipped. */
static bool refused_unknown(const char *msg, bool made_up)
{
    return made_up && msg && strstr(msg, "not found");
}

static void skip_unknown(probe *pr, const char *msg)
{
    add(pr, "prepare", "skip",
        "the driver looks claims up and does not know the probe's made-up claim (%s); give --claim FILE with a "
        "claim the driver can see to run the claim checks",
        msg);
}

static void probe_claims(probe *pr, dra_plugin *pl, const dra_claim_ref *claim, bool made_up, long count,
                         size_t max_msg, dra_arena *ar)
{
    dra_prep_claim *out, *out2;
    size_t n, n2;
    dra_err *e = dra_plugin_prepare(pl, claim, 1, ar, &out, &n);
    if (e && refused_unknown(e->msg, made_up) && !strstr(e->msg, "UNAVAILABLE")) {
        skip_unknown(pr, e->msg);
        dra_err_free(e);
        return;
    }
    if (e) {
        add_err(pr, "prepare", e);
        return;
    }
    size_t size1 = dra_plugin_last_answer_size(pl);
    const dra_prep_claim *c = find_uid(out, n, claim->uid);
    if (c && c->error && refused_unknown(c->error, made_up)) {
        skip_unknown(pr, c->error);
        return;
    }
    if (!c)
        add(pr, "prepare", "fail",
            "the answer has no entry for claim UID %s (NodePrepareResources skipped 1 ResourceClaims)", claim->uid);
    else if (c->error)
        add(pr, "prepare", "fail", "NodePrepareResources failed for ResourceClaim %s: %s", claim->name, c->error);
    else
        add(pr, "prepare", "pass", "%zu device(s) for %s/%s", c->n_devices, claim->namespace_, claim->name);
    for (size_t i = 0; i < n; i++)
        if (strcmp(out[i].uid, claim->uid) != 0) {
            add(pr, "answer-claims", "fail", "NodePrepareResources returned result for unknown claim UID %s",
                out[i].uid);
            break;
        }
    if (c && !c->error) {
        size_t ids = 0, bad = 0, sub = 0;
        const char *first_bad = NULL, *first_sub = NULL;
        for (size_t j = 0; j < c->n_devices; j++) {
            for (size_t k = 0; k < c->devices[j].n_cdi_ids; k++, ids++)
                if (!cdi_id_valid(c->devices[j].cdi_ids[k]) && !bad++)
                    first_bad = c->devices[j].cdi_ids[k];
            for (size_t k = 0; k < c->devices[j].n_requests; k++)
                if (strchr(c->devices[j].requests[k], '/') && !sub++)
                    first_sub = c->devices[j].requests[k];
            if (!*c->devices[j].pool || !*c->devices[j].device)
                add(pr, "device-names", "fail", "device %zu has an empty pool or device name", j);
        }
        if (bad)
            add(pr, "cdi-ids", "fail", "%zu of %zu CDI device IDs are not vendor/class=name, e.g. \"%s\"", bad, ids,
                first_bad);
        else
            add(pr, "cdi-ids", "pass", "%zu CDI device ID(s), all vendor/class=name", ids);
        if (sub)
            add(pr, "request-names", "fail",
                "request name \"%s\" names a subrequest: containers reference the base request, so it matches nothing",
                first_sub);
        else
            add(pr, "request-names", "pass", "no subrequest names");
    }
    e = dra_plugin_prepare(pl, claim, 1, ar, &out2, &n2);
    if (e) {
        add_err(pr, "prepare-again", e);
    } else if (!c || c->error) {
        /* the same failure twice is no idempotency */
        add(pr, "prepare-again", "skip", "the first prepare failed: no answer to compare");
    } else {
        dra_buf t1 = DRA_BUF_INIT, t2 = DRA_BUF_INIT;
        answer_text(out, n, &t1);
        answer_text(out2, n2, &t2);
        if (strcmp(dra_buf_str(&t1), dra_buf_str(&t2)) == 0)
            add(pr, "prepare-again", "pass", "the same answer twice (idempotent)");
        else
            add(pr, "prepare-again", "fail", "a second NodePrepareResources gave a different answer");
        dra_buf_free(&t1);
        dra_buf_free(&t2);
    }
    /* latency */
    double *lat = dra_xcalloc((size_t)count, sizeof *lat);
    long done = 0;
    for (; done < count; done++) {
        double t0 = (dra_mono_ns() / 1e6);
        e = dra_plugin_prepare(pl, claim, 1, ar, &out2, &n2);
        lat[done] = (dra_mono_ns() / 1e6) - t0;
        if (e) {
            add_err(pr, "latency", e);
            break;
        }
    }
    if (done == count && count > 0) {
        qsort(lat, (size_t)count, sizeof *lat, cmp_double);
        add(pr, "latency", "pass", "%ld prepare calls: p50 %.2f ms, p99 %.2f ms, max %.2f ms", count, lat[count / 2],
            lat[(count * 99) / 100 < count ? (count * 99) / 100 : count - 1], lat[count - 1]);
    }
    free(lat);
    add(pr, "answer-size", size1 * 2 > max_msg ? "fail" : "pass", "%zu bytes for one claim (limit %zu)%s", size1,
        max_msg, size1 * 2 > max_msg ? ": over half the message limit" : "");
    e = dra_plugin_unprepare(pl, claim, 1, ar, &out, &n);
    if (e) {
        add_err(pr, "unprepare", e);
        return;
    }
    c = find_uid(out, n, claim->uid);
    if (!c)
        add(pr, "unprepare", "fail", "the answer has no entry for claim UID %s (all claims must appear)", claim->uid);
    else if (c->error)
        add(pr, "unprepare", "fail", "NodeUnprepareResources failed for ResourceClaim %s: %s", claim->name, c->error);
    else
        add(pr, "unprepare", "pass", "claim %s unprepared", claim->uid);
    e = dra_plugin_unprepare(pl, claim, 1, ar, &out, &n);
    if (e) {
        add_err(pr, "unprepare-again", e);
    } else if (!(c = find_uid(out, n, claim->uid)) || c->error) {
        add(pr, "unprepare-again", "fail", "a second NodeUnprepareResources %s", c ? c->error : "left the claim out");
    } else {
        add(pr, "unprepare-again", "pass", "unprepare of an unprepared claim succeeds (idempotent)");
    }
}

dra_err *dra_prepare_run_probe(const dra_args *a, void *xv, int *rc)
{
    const dra_prepare_values *x = xv;
    rpc_common c = {.timeout_ms = 45000};
    long count = (long)x->count;
    dra_arena ar = DRA_ARENA_INIT;
    probe pr = {0};
    const char *sock = x->socket;
    const char *svc = x->service;
    int ok = 0;
    dra_err *e = common_opts(a, x, &c);
    if (e)
        goto out;
    bool table = c.table;
    dra_format fmt = c.fmt;
    long timeout = c.timeout_ms, max_msg = (long)x->max_msg;
    if (!sock) {
        e = dra_err_new(DRA_EXIT_INPUT, "probe needs --socket PATH");
        goto out;
    }
    if (svc && strcmp(svc, "v1.DRAPlugin") != 0 && strcmp(svc, "v1beta1.DRAPlugin") != 0) {
        e = dra_err_new(DRA_EXIT_INPUT, "--service: want v1.DRAPlugin or v1beta1.DRAPlugin, got \"%s\"", svc);
        goto out;
    }
    dra_claim_ref claim = {"default", "dra-probe-00000000-0000-4000-8000-000000000001", "dra-probe"};
    if (x->claim && (e = read_claim(x->claim, &ar, &claim)))
        goto out;
    dra_rpc_opts ro = {.timeout_ms = timeout, .max_msg = (size_t)max_msg};

    /* registration */
    const char *reg = x->reg_socket;
    if (reg) {
        dra_reg_plugin rp;
        dra_reg_opts rgo = {.timeout_ms = timeout < 1000 ? timeout : 1000};
        dra_registry_probe(reg, &rgo, &ar, &rp);
        if (!rp.info_ok)
            add(&pr, "registration", "fail", "%s", rp.error);
        else if (!rp.registered)
            add(&pr, "registration", "fail", "%s", rp.error);
        else
            add(&pr, "registration", "pass", "%s, services %s%s, endpoint %s (GetInfo %.2f ms)", rp.name,
                rp.versions[0], rp.n_versions > 1 ? ",..." : "", rp.endpoint, rp.getinfo_ms);
        if (rp.registered && strcmp(rp.endpoint, sock) != 0)
            add(&pr, "endpoint", "fail", "registration names endpoint %s, not %s", rp.endpoint, sock);
        if (!svc && rp.service)
            svc = rp.service;
    }

    /* services: which DRAPlugin versions answer */
    const char *versions[] = {"v1.DRAPlugin", "v1beta1.DRAPlugin"};
    bool serves[2] = {false, false};
    bool reached = false;
    dra_buf served = DRA_BUF_INIT;
    dra_buf why = DRA_BUF_INIT;
    for (int i = 0; i < 2; i++) {
        dra_plugin *pl;
        if ((e = dra_plugin_dial(sock, versions[i], &ro, &pl)))
            goto out;
        dra_prep_claim *o;
        size_t n;
        /* an empty request: harmless, and tells whether the service exists */
        dra_err *ce = dra_plugin_prepare(pl, NULL, 0, &ar, &o, &n);
        if (!ce) {
            serves[i] = reached = true;
            dra_buf_printf(&served, "%s%s", served.len ? ", " : "", versions[i]);
        } else {
            if (!strstr(ce->msg, "UNAVAILABLE"))
                reached = true;
            if (!why.len)
                dra_buf_puts(&why, ce->msg);
        }
        dra_err_free(ce);
        dra_plugin_close(pl);
        if (!reached)
            break;
    }
    if (!reached) {
        add(&pr, "connect", "fail", "%s", dra_buf_str(&why));
        pr.transport = true;
        pr.first_transport = (int)pr.n;
        dra_buf_free(&served);
        dra_buf_free(&why);
        ok = DRA_EXIT_RUNTIME;
    } else {
        add(&pr, "connect", "pass", "%s accepts gRPC calls", sock);
        if (!serves[0] && !serves[1]) {
            add(&pr, "services", "fail", "neither v1.DRAPlugin nor v1beta1.DRAPlugin answers: %s", dra_buf_str(&why));
            if (!strstr(dra_buf_str(&why), "UNIMPLEMENTED") && !pr.first_transport) {
                pr.transport = true;
                pr.first_transport = (int)pr.n;
            }
        } else
            add(&pr, "services", "pass", "answers %s", dra_buf_str(&served));
        dra_buf_free(&served);
        dra_buf_free(&why);
        if (!svc)
            svc = serves[0] ? versions[0] : serves[1] ? versions[1] : NULL;
        else if (!serves[strcmp(svc, versions[0]) == 0 ? 0 : 1])
            add(&pr, "service", "fail", "%s was chosen but does not answer", svc);
        if (svc) {
            dra_plugin *pl;
            if ((e = dra_plugin_dial(sock, svc, &ro, &pl)))
                goto out;
            probe_claims(&pr, pl, &claim, !x->claim, count, (size_t)max_msg, &ar);
            dra_plugin_close(pl);
        }
    }
    if (!ok && pr.transport)
        ok = DRA_EXIT_RUNTIME;
    if (pr.first_transport)
        fprintf(stderr, "dra-prepare: probe: %s\n", pr.v[pr.first_transport - 1].detail);
    if (!ok && pr.failed)
        ok = DRA_EXIT_NEGATIVE;
    if (table) {
        const char **cells = dra_xcalloc((pr.n + 1) * 3, sizeof *cells);
        cells[0] = "CHECK";
        cells[1] = "RESULT";
        cells[2] = "DETAIL";
        for (size_t i = 0; i < pr.n; i++) {
            cells[(i + 1) * 3] = pr.v[i].name;
            cells[(i + 1) * 3 + 1] = pr.v[i].result;
            cells[(i + 1) * 3 + 2] = pr.v[i].detail;
        }
        e = dra_table_write(stdout, cells, pr.n + 1, 3);
        free(cells);
    } else {
        json_t *o = json_pack("{s:s,s:s,s:s,s:s?,s:b}", "apiVersion", "dra-tools/v1alpha1", "kind", "ProbeReport",
                              "socket", sock, "service", svc, "passed", !pr.failed && !ok);
        json_t *cs = json_array();
        for (size_t i = 0; i < pr.n; i++)
            json_array_append_new(cs, json_pack("{s:s,s:s,s:s}", "name", pr.v[i].name, "result", pr.v[i].result,
                                                "detail", pr.v[i].detail));
        json_object_set_new(o, "checks", cs);
        e = write_objs(&o, 1, fmt);
        json_decref(o);
    }
out:
    for (size_t i = 0; i < pr.n; i++)
        free(pr.v[i].detail);
    dra_arena_free(&ar);
    *rc = ok;
    return e;
}

/* ---- health ---- */

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    stop_flag = 1;
}

typedef struct hstate {
    char **keys; /* "pool/device" */
    int *health;
    char **msgs;
    size_t n;
    bool verbose;
    dra_err *werr;
} hstate;

static int on_update(void *ctx, const dra_health_device *d, size_t n)
{
    hstate *h = ctx;
    for (size_t i = 0; i < n; i++) {
        char *key = dra_xasprintf("%s/%s", d[i].pool, d[i].device);
        size_t j = 0;
        while (j < h->n && strcmp(h->keys[j], key) != 0)
            j++;
        bool changed = j == h->n || h->health[j] != d[i].health || strcmp(h->msgs[j], d[i].message) != 0;
        if (j == h->n) {
            h->keys = dra_xgrow(h->keys, h->n, sizeof *h->keys);
            h->health = dra_xgrow(h->health, h->n, sizeof *h->health);
            h->msgs = dra_xgrow(h->msgs, h->n, sizeof *h->msgs);
            h->keys[h->n] = key;
            h->msgs[h->n] = dra_xstrdup("");
            h->n++;
            key = NULL;
        }
        free(key);
        if (!changed)
            continue;
        h->health[j] = d[i].health;
        free(h->msgs[j]);
        h->msgs[j] = dra_xstrdup(d[i].message);
        json_t *o = json_pack("{s:s,s:s,s:s,s:I}", "pool", d[i].pool, "device", d[i].device, "health",
                              dra_health_name(d[i].health), "lastUpdated", (json_int_t)d[i].last_updated);
        if (*d[i].message)
            json_object_set_new(o, "message", json_string(d[i].message));
        if (d[i].timeout_seconds > 0)
            json_object_set_new(o, "healthCheckTimeoutSeconds", json_integer(d[i].timeout_seconds));
        dra_err *e = dra_write_value(stdout, o, DRA_FMT_JSONL);
        json_decref(o);
        if (!e && fflush(stdout) != 0)
            e = dra_err_new(DRA_EXIT_RUNTIME, "write error on stdout");
        if (e) {
            h->werr = e;
            return 1;
        }
    }
    return 0;
}

static void on_event(void *ctx, const char *ev)
{
    hstate *h = ctx;
    if (h->verbose)
        fprintf(stderr, "dra-prepare: health: %s\n", ev);
}

dra_err *dra_prepare_run_health(const dra_args *a, void *xv, int *rc)
{
    const dra_prepare_values *x = xv;
    rpc_common c = {0};
    long backoff = 1000, retries = (long)x->retries;
    hstate h = {.verbose = x->verbose};
    const char *sock = x->socket;
    const char *svc = x->service;
    dra_err *e = common_opts(a, x, &c);
    if (e || (e = dra_prepare_duration_ms("backoff", x->backoff, &backoff)))
        goto out;
    long max_msg = (long)x->max_msg;
    if (!sock) {
        e = dra_err_new(DRA_EXIT_INPUT, "health needs --socket PATH");
        goto out;
    }
    if (svc && !dra_health_method(svc)) {
        e = dra_err_new(DRA_EXIT_INPUT, "--service: want %s or %s, got \"%s\"", DRA_HEALTH_V1ALPHA1, DRA_HEALTH_V1,
                        svc);
        goto out;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    dra_health_opts ho = {.service = svc,
                          .backoff_ms = backoff,
                          .backoff_max_ms = backoff > 5000 ? backoff : 5000,
                          .max_attempts = (unsigned)retries,
                          .max_msg = (size_t)max_msg,
                          .cancel = &stop_flag,
                          .event = on_event,
                          .ctx = &h};
    e = dra_health_watch(sock, &ho, on_update);
    if (h.werr) {
        dra_err_free(e);
        e = h.werr;
    }
out:
    for (size_t i = 0; i < h.n; i++) {
        free(h.keys[i]);
        free(h.msgs[i]);
    }
    free(h.keys);
    free(h.health);
    free(h.msgs);
    return e;
}
