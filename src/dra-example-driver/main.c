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
#include <sys/stat.h>

#include "base/path.h"
#include "tool/tool.h"
#include "model/time.h"
#include "example.h"

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
    {OPT_SERVICES, "services", 0, DRA_ARG_REQUIRED, "LIST", "supported_versions to register (default v1.DRAPlugin,v1beta1.DRAPlugin,v1.DRAResourceHealth,v1alpha1.DRAResourceHealth)", NULL},
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

static volatile sig_atomic_t stop, reload;
static void on_stop(int sig) { stop = 1; }
static void on_hup(int sig) { reload = 1; }

static dra_err *num(const char *opt, const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : *out;
    if (s && (errno || end == s || *end || v < min || v > max))
        return dra_err_new(DRA_EXIT_INPUT, "--%s: want a whole number from %ld to %ld, got \"%s\"", opt, min, max, s);
    *out = v;
    return NULL;
}

static void collect(const dra_args *a, int id, char ***v, size_t *n)
{
    *v = dra_xcalloc(a->nopts + 1, sizeof **v);
    *n = 0;
    for (size_t i = 0; i < a->nopts; i++)
        if (a->opts[i].id == id)
            (*v)[(*n)++] = (char *)a->opts[i].value;
}

static dra_err *mkdirs(const char *dir)
{
    char *p = dra_xstrdup(dir);
    for (char *s = p + 1;; s++) {
        if (*s == '/' || !*s) {
            char c = *s;
            *s = 0;
            if (mkdir(p, 0755) < 0 && errno != EEXIST) {
                dra_err *e = dra_err_new(DRA_EXIT_RUNTIME, "mkdir %s: %s", p, strerror(errno));
                free(p);
                return e;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    free(p);
    return NULL;
}

int main(int argc, char **argv)
{
    dra_args a;
    int rc;
    if (dra_tool_start(&tool, argc, argv, &a, &rc))
        return rc;
    ex_driver d = {.name = "gpu.example.com", .cdi_dir = "/var/run/cdi", .devices = 8, .log = stderr};
    dra_err *e = NULL;
    dra_grpc_server *srv = NULL;
    char *dra_sock = NULL, *reg_sock = NULL, *svc_copy = NULL, **fails = NULL;
    const char **svcs = NULL;
    long devices = 8, pad = 0, max_msg = 4 << 20;
    if (dra_args_get(&a, OPT_NAME))
        d.name = dra_args_get(&a, OPT_NAME);
    if (dra_args_get(&a, OPT_CDI_DIR))
        d.cdi_dir = dra_args_get(&a, OPT_CDI_DIR);
    d.node = dra_args_get(&a, DRA_OPT_NODE);
    d.health_file = dra_args_get(&a, OPT_HEALTH_FILE);
    d.claims_path = dra_args_get(&a, OPT_CLAIMS);
    d.verbose = dra_args_has(&a, OPT_VERBOSE);
    d.garbage = dra_args_has(&a, OPT_GARBAGE);
    if ((e = num("devices", dra_args_get(&a, OPT_DEVICES), 1, 100000, &devices)) ||
        (e = num("pad-answer", dra_args_get(&a, OPT_PAD), 0, 1L << 30, &pad)) ||
        (e = num("max-msg-size", dra_args_get(&a, OPT_MAX_MSG), 1024, 1L << 30, &max_msg)))
        goto out;
    d.devices = (int)devices;
    d.pad_bytes = (size_t)pad;
    if (a.npos) {
        e = dra_err_new(DRA_EXIT_INPUT, "unexpected argument \"%s\"", a.pos[0]);
        goto out;
    }
    const char *delay = dra_args_get(&a, OPT_DELAY);
    int64_t ns = 0;
    if (delay && ((e = dra_duration_arg(delay, &ns)) || ns < 0 || ns / DRA_NSEC_PER_SEC > 86400)) {
        if (!e)
            e = dra_err_new(DRA_EXIT_INPUT, "invalid duration \"%s\" (want from 0 to a day)", delay);
        e = dra_err_field(e, "--delay");
        goto out;
    }
    if (delay)
        d.delay_ms = (long)(ns / 1000000);
    collect(&a, OPT_FAIL, &fails, &d.nfail);
    d.fail = dra_xcalloc(d.nfail + 1, sizeof *d.fail);
    for (size_t i = 0; i < d.nfail; i++) {
        char *eq = strchr(fails[i], '=');
        if (!eq || eq == fails[i]) {
            e = dra_err_new(DRA_EXIT_INPUT, "--fail-claim: want UID=MESSAGE, got \"%s\"", fails[i]);
            goto out;
        }
        d.fail[i].uid = dra_xstrndup(fails[i], (size_t)(eq - fails[i]));
        d.fail[i].msg = eq + 1;
    }
    collect(&a, OPT_OMIT, &d.omit, &d.nomit);
    collect(&a, OPT_EXTRA, &d.extra, &d.nextra);
    if (dra_args_has(&a, OPT_INVENTORY)) {
        e = ex_inventory(&d, stdout);
        goto out;
    }

    const char *pdir = dra_args_get(&a, OPT_PLUGIN_DIR);
    const char *rdir = dra_args_get(&a, OPT_REGISTRY_DIR);
    if ((!pdir || !rdir) && !dra_args_has(&a, OPT_KUBELET)) { /* a test or demo must not reach the real kubelet */
        e = dra_err_new(DRA_EXIT_INPUT, "without --plugin-dir and --registry-dir the driver registers with the node's "
                                        "kubelet (/var/lib/kubelet/...): say so with --kubelet");
        goto out;
    }
    dra_sock = pdir ? dra_xasprintf("%s/dra.sock", pdir) : dra_xasprintf("/var/lib/kubelet/plugins/%s/dra.sock", d.name);
    reg_sock = dra_xasprintf("%s/%s-reg.sock", rdir ? rdir : "/var/lib/kubelet/plugins_registry", d.name);
    svc_copy = dra_xstrdup(dra_args_get(&a, OPT_SERVICES) ? dra_args_get(&a, OPT_SERVICES)
                                                          : "v1.DRAPlugin,v1beta1.DRAPlugin,v1.DRAResourceHealth,v1alpha1.DRAResourceHealth");
    svcs = dra_xcalloc(strlen(svc_copy) + 1, sizeof *svcs);
    size_t nsvc = 0;
    for (char *save, *t = strtok_r(svc_copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        svcs[nsvc++] = t;
    char *sd = dra_path_dir(dra_sock);
    e = mkdirs(sd);
    if (!e)
        e = mkdirs(rdir ? rdir : "/var/lib/kubelet/plugins_registry");
    if (!e)
        e = mkdirs(d.cdi_dir);
    if (!e)
        e = ex_state_open(&d, sd); /* the checkpoint beside dra.sock */
    if (!e)
        e = ex_cdi_common(&d);
    free(sd);
    if (e)
        goto out;

    dra_driver_ops ops = ex_ops;
    ops.ctx = &d;
    dra_driver_info info = {d.name, dra_sock, svcs, nsvc};
    dra_grpc_server_opts so = {.max_msg = (size_t)max_msg};
    srv = dra_grpc_server_new(&so);
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
    if ((e = dra_grpc_server_listen(srv, dra_sock)) || (e = dra_grpc_server_listen(srv, reg_sock)))
        goto out;
    if (d.verbose)
        fprintf(stderr, "dra-example-driver: %s serving %s and %s\n", d.name, dra_sock, reg_sock);
    while (!stop) {
        if (dra_grpc_server_poll(srv, 1000) < 0 && errno != EINTR) {
            e = dra_err_new(DRA_EXIT_RUNTIME, "poll: %s", strerror(errno));
            break;
        }
        if (reload) {
            reload = 0;
            dra_arena ar = DRA_ARENA_INIT;
            dra_health_device *hd;
            size_t n;
            ops.health(&d, &ar, &hd, &n);
            dra_driver_health_broadcast(srv, hd, n);
            dra_arena_free(&ar);
        }
    }
    if (d.verbose && !e)
        fprintf(stderr, "dra-example-driver: stopping\n");
out:
    dra_grpc_server_free(srv); /* removes the sockets */
    ex_state_free(&d);
    for (size_t i = 0; i < d.nfail; i++)
        free(d.fail[i].uid);
    free(d.fail);
    free(fails);
    free(d.omit);
    free(d.extra);
    free(svcs);
    free(svc_copy);
    free(dra_sock);
    free(reg_sock);
    return dra_tool_finish(&tool, &a, e, 0);
}
