/* dra-example-driver: a small DRA driver kubelet plugin on the project's
 * gRPC layer, for demos, driver authors and tests.  Registers with the
 * kubelet's plugin watcher, serves DRAPlugin v1 and v1beta1 and the health
 * stream, and "prepares" devices by writing CDI spec files.  The work is in
 * driver.c and src/common/kubelet/driver.c. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/path.h"
#include "tool/tool.h"
#include "model/time.h"
#include "example.h"

/* clang-format off */
enum {
    OPT_NAME = DRA_OPT_TOOL_BASE, OPT_PLUGIN_DIR, OPT_REGISTRY_DIR, OPT_CDI_DIR, OPT_DEVICES, OPT_SERVICES,
    OPT_HEALTH_FILE, OPT_CLAIMS, OPT_INVENTORY, OPT_DELAY, OPT_FAIL, OPT_OMIT, OPT_EXTRA, OPT_GARBAGE, OPT_PAD, OPT_MAX_MSG,
    OPT_VERBOSE, OPT_KUBELET,
};

static const dra_opt opts[] = {
    {OPT_NAME, "driver-name", 'd', DRA_ARG_REQUIRED, "NAME", "driver name and CDI vendor (default gpu.example.com)", NULL},
    DRA_OPT_NODE_ENTRY("node name, used as the pool name (default: pool)"),
    {OPT_PLUGIN_DIR, "plugin-dir", 0, DRA_ARG_REQUIRED, "DIR", "where dra.sock and checkpoint.json go (default /var/lib/kubelet/plugins/NAME)", "dir"},
    {OPT_REGISTRY_DIR, "registry-dir", 0, DRA_ARG_REQUIRED, "DIR", "where NAME-reg.sock goes (default /var/lib/kubelet/plugins_registry)", "dir"},
    {OPT_KUBELET, "kubelet", 0, DRA_ARG_NONE, NULL, "register with the node's kubelet: the default directories above (else both dirs are required)", NULL},
    {OPT_CDI_DIR, "cdi-dir", 0, DRA_ARG_REQUIRED, "DIR", "where CDI specs are written (default /var/run/cdi)", "dir"},
    {OPT_DEVICES, "devices", 0, DRA_ARG_REQUIRED, "N", "number of devices gpu-0 ... (default 8)", NULL},
    {OPT_SERVICES, "services", 0, DRA_ARG_REQUIRED, "LIST", "supported_versions to register (default v1.DRAPlugin,v1beta1.DRAPlugin,v1.DRAResourceHealth,v1alpha1.DRAResourceHealth; under 1.36 v1.DRAPlugin,v1beta1.DRAPlugin,v1alpha1.DRAResourceHealth)", NULL},
    {DRA_OPT_KUBERNETES_VERSION, "kubernetes-version", 0, DRA_ARG_REQUIRED, "1.N", "the release whose kubelet plugin API the driver offers: 1.36, 1.37 or 1.38 (default: $DRA_KUBERNETES_VERSION, else 1.37)", "1.36 1.37 1.38"},
    {OPT_HEALTH_FILE, "health-file", 0, DRA_ARG_REQUIRED, "FILE", "device health overrides, JSON; re-read and streamed on SIGHUP", "file"},
    {OPT_CLAIMS, "claims", 0, DRA_ARG_REQUIRED, "PATH", "ResourceClaims to prepare from, read at each call (kubectl get resourceclaims -A -o yaml); without it a device is derived from the claim UID", "file"},
    {OPT_INVENTORY, "inventory", 0, DRA_ARG_NONE, NULL, "print the device inventory for dra-slice build and exit", NULL},
    {OPT_DELAY, "delay", 0, DRA_ARG_REQUIRED, "DURATION", "fault: answer prepare/unprepare this late", NULL},
    {OPT_FAIL, "fail-claim", 0, DRA_ARG_REQUIRED, "UID=MSG", "fault: per-claim error for this claim (repeatable)", NULL},
    {OPT_OMIT, "omit-claim", 0, DRA_ARG_REQUIRED, "UID", "fault: leave this claim out of answers (repeatable)", NULL},
    {OPT_EXTRA, "extra-claim", 0, DRA_ARG_REQUIRED, "UID", "fault: add an answer for a claim not asked for (repeatable)", NULL},
    {OPT_GARBAGE, "garbage-frame", 0, DRA_ARG_NONE, NULL, "fault: answer a truncated gRPC frame", NULL},
    {OPT_PAD, "pad-answer", 0, DRA_ARG_REQUIRED, "BYTES", "fault: pad each prepared device with CDI IDs to about BYTES", NULL},
    {OPT_MAX_MSG, "max-msg-size", 0, DRA_ARG_REQUIRED, "BYTES", "largest message sent or received (default 4194304)", NULL},
    {OPT_VERBOSE, "verbose", 'v', DRA_ARG_NONE, NULL, "log calls on stderr", NULL},
    DRA_OPT_HELP_ENTRY,
    DRA_OPT_VERSION_ENTRY,
    DRA_OPT_END,
};
/* clang-format on */
static const dra_cmd cmds[] = {
    {NULL, "[OPTIONS]", "an example DRA driver kubelet plugin that prepares devices as CDI spec files",
     "Serves pluginregistration on REGISTRY-DIR/NAME-reg.sock and DRAPlugin v1, v1beta1 and\n"
     "DRAResourceHealth v1alpha1 and v1 on PLUGIN-DIR/dra.sock.  CDI specs are written as the\n"
     "published example driver writes them: CDI-DIR/k8s.NAME-gpu_common.yaml at start, and for a\n"
     "prepared claim CDI-DIR/k8s.NAME-gpu_UID.yaml with a device UID-gpu-K per device gpu-K,\n"
     "answered as k8s.NAME/gpu=common and k8s.NAME/gpu=UID-gpu-K, recorded in\n"
     "PLUGIN-DIR/checkpoint.json; unprepare removes the files recorded for the claim.  Publish\n"
     "the devices with: dra-example-driver --inventory | dra-slice build --driver NAME --node\n"
     "NODE.  SIGHUP re-reads --health-file; SIGTERM or SIGINT stops the driver and removes its\n"
     "sockets.  The kubelet's own directories are used only with --kubelet.",
     opts, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
static const dra_tool tool = {"dra-example-driver", "an example DRA driver kubelet plugin", cmds, NULL};

/* Every option's value, written by the table below. */
typedef struct values {
    const char *name, *node, *plugin_dir, *registry_dir, *cdi_dir, *services, *health_file, *claims, *delay, *release;
    dra_strv fail, omit, extra;
    long long devices, pad, max_msg;
    bool inventory, garbage, verbose, kubelet;
} values;

static const dra_optval vals[] = {
    DRA_VAL_STRING(OPT_NAME, values, name),
    DRA_VAL_STRING(DRA_OPT_NODE, values, node),
    DRA_VAL_STRING(OPT_PLUGIN_DIR, values, plugin_dir),
    DRA_VAL_STRING(OPT_REGISTRY_DIR, values, registry_dir),
    DRA_VAL_STRING(OPT_CDI_DIR, values, cdi_dir),
    DRA_VAL_STRING(OPT_SERVICES, values, services),
    DRA_VAL_STRING(DRA_OPT_KUBERNETES_VERSION, values, release),
    DRA_VAL_STRING(OPT_HEALTH_FILE, values, health_file),
    DRA_VAL_STRING(OPT_CLAIMS, values, claims),
    DRA_VAL_STRING(OPT_DELAY, values, delay),
    DRA_VAL_STRINGS(OPT_FAIL, values, fail),
    DRA_VAL_STRINGS(OPT_OMIT, values, omit),
    DRA_VAL_STRINGS(OPT_EXTRA, values, extra),
    DRA_VAL_INT(OPT_DEVICES, values, devices, 1, 100000),
    DRA_VAL_INT(OPT_PAD, values, pad, 0, 1LL << 30),
    DRA_VAL_INT(OPT_MAX_MSG, values, max_msg, 1024, 1LL << 30),
    DRA_VAL_BOOL(OPT_INVENTORY, values, inventory),
    DRA_VAL_BOOL(OPT_GARBAGE, values, garbage),
    DRA_VAL_BOOL(OPT_VERBOSE, values, verbose),
    DRA_VAL_BOOL(OPT_KUBELET, values, kubelet),
    DRA_VAL_END,
};

static volatile sig_atomic_t stop, reload;
static void on_stop(int sig)
{
    stop = 1;
}
static void on_hup(int sig)
{
    reload = 1;
}

/* The faults of --delay and --fail-claim into d. */
static dra_err *faults(const values *x, ex_driver *d)
{
    int64_t ns = 0;
    dra_err *e = NULL;
    if (x->delay && ((e = dra_duration_arg(x->delay, &ns)) || ns < 0 || ns / DRA_NSEC_PER_SEC > 86400)) {
        if (!e)
            e = dra_err_new(DRA_EXIT_INPUT, "invalid duration \"%s\" (want from 0 to a day)", x->delay);
        return dra_err_field(e, "--delay");
    }
    d->delay_ms = (long)(ns / 1000000);
    d->fail = dra_xcalloc(x->fail.n + 1, sizeof *d->fail);
    for (; d->nfail < x->fail.n; d->nfail++) {
        const char *f = x->fail.v[d->nfail], *eq = strchr(f, '=');
        if (!eq || eq == f)
            return dra_err_new(DRA_EXIT_INPUT, "--fail-claim: want UID=MESSAGE, got \"%s\"", f);
        d->fail[d->nfail].uid = dra_xstrndup(f, (size_t)(eq - f));
        d->fail[d->nfail].msg = eq + 1;
    }
    d->omit = (char **)x->omit.v, d->nomit = x->omit.n;
    d->extra = (char **)x->extra.v, d->nextra = x->extra.n;
    return NULL;
}

/* Serve on the two sockets until SIGTERM or SIGINT; SIGHUP streams health. */
static dra_err *serve(ex_driver *d, const values *x, const char *list, const char *dra_sock, const char *reg_sock)
{
    char *svc_copy = dra_xstrdup(list);
    const char **svcs = dra_xcalloc(strlen(svc_copy) + 1, sizeof *svcs);
    size_t nsvc = 0;
    for (char *save, *t = strtok_r(svc_copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        svcs[nsvc++] = t;
    dra_driver_ops ops = ex_ops;
    ops.ctx = d;
    dra_driver_info info = {d->name, dra_sock, svcs, nsvc};
    dra_grpc_server_opts so = {.max_msg = (size_t)x->max_msg};
    dra_grpc_server *srv = dra_grpc_server_new(&so);
    dra_driver_serve_registration(srv, &info, &ops);
    dra_driver_serve_plugin(srv, &ops);
    /* the handlers before the sockets: a signal once they exist stops the
     * loop, which removes them */
    struct sigaction sa = {.sa_handler = on_stop};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_hup;
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* the service socket first: when the registration socket appears, the
     * kubelet may call the endpoint at once */
    dra_err *e = dra_grpc_server_listen(srv, dra_sock);
    if (!e)
        e = dra_grpc_server_listen(srv, reg_sock);
    if (!e && d->verbose)
        fprintf(stderr, "dra-example-driver: %s serving %s and %s\n", d->name, dra_sock, reg_sock);
    while (!e && !stop) {
        if (dra_grpc_server_poll(srv, 1000) < 0 && errno != EINTR)
            e = dra_err_new(DRA_EXIT_RUNTIME, "poll: %s", strerror(errno));
        if (!e && reload) {
            reload = 0;
            dra_arena ar = DRA_ARENA_INIT;
            dra_health_device *hd;
            size_t n;
            ops.health(d, &ar, &hd, &n);
            dra_driver_health_broadcast(srv, hd, n);
            dra_arena_free(&ar);
        }
    }
    if (d->verbose && !e)
        fprintf(stderr, "dra-example-driver: stopping\n");
    dra_grpc_server_free(srv); /* removes the sockets */
    free(svcs);
    free(svc_copy);
    return e;
}

static dra_err *run(const dra_args *a, void *xv, int *rc)
{
    const values *x = xv;
    ex_driver d = {.name = x->name ? x->name : "gpu.example.com",
                   .cdi_dir = x->cdi_dir ? x->cdi_dir : "/var/run/cdi",
                   .devices = (int)x->devices,
                   .pad_bytes = (size_t)x->pad,
                   .node = x->node,
                   .health_file = x->health_file,
                   .claims_path = x->claims,
                   .verbose = x->verbose,
                   .garbage = x->garbage,
                   .log = stderr};
    char *dra_sock = NULL, *reg_sock = NULL;
    dra_err *e = NULL;
    if (a->npos)
        e = dra_err_new(DRA_EXIT_INPUT, "unexpected argument \"%s\"", a->pos[0]);
    const char *services = x->services;
    if (!e)
        e = faults(x, &d);
    if (!e && !services)
        e = ex_default_services(x->release, &services);
    if (!e && x->inventory) {
        e = ex_inventory(&d, stdout);
        goto out;
    }
    const char *pdir = x->plugin_dir, *rdir = x->registry_dir ? x->registry_dir : "/var/lib/kubelet/plugins_registry";
    if (!e && (!x->plugin_dir || !x->registry_dir) && !x->kubelet) /* a test or demo must not reach the real kubelet */
        e = dra_err_new(DRA_EXIT_INPUT, "without --plugin-dir and --registry-dir the driver registers with the node's "
                                        "kubelet (/var/lib/kubelet/...): say so with --kubelet");
    if (e)
        goto out;
    dra_sock =
        pdir ? dra_xasprintf("%s/dra.sock", pdir) : dra_xasprintf("/var/lib/kubelet/plugins/%s/dra.sock", d.name);
    reg_sock = dra_xasprintf("%s/%s-reg.sock", rdir, d.name);
    char *sd = dra_path_dir(dra_sock);
    e = ex_mkdirs(sd);
    if (!e)
        e = ex_mkdirs(rdir);
    if (!e)
        e = ex_mkdirs(d.cdi_dir);
    if (!e)
        e = ex_state_open(&d, sd); /* the checkpoint beside dra.sock */
    if (!e)
        e = ex_cdi_common(&d);
    free(sd);
    if (!e)
        e = serve(&d, x, services, dra_sock, reg_sock);
out:
    ex_state_free(&d);
    for (size_t i = 0; i < d.nfail; i++)
        free(d.fail[i].uid);
    free(d.fail);
    free(dra_sock);
    free(reg_sock);
    return e;
}

static const dra_runner runners[] = {{NULL, run}, {NULL, NULL}};

int main(int argc, char **argv)
{
    values v = {.devices = 8, .max_msg = 4 << 20};
    return dra_tool_main(&tool, runners, vals, argc, argv, &v);
}
