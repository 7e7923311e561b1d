/* dra-prepare's option and command tables, and the value table that
 * writes every option into dra_prepare_values (cmd_rpc.h). */
#include <stddef.h>

#include "tool/cli.h"
#include "cmd_rpc.h"

/* clang-format off */
#define POD_ENTRY(what) {OPT_POD, "pod", 0, DRA_ARG_REQUIRED, "NS/NAME", what, NULL}
#define DRIVER_ENTRIES                                                                                                   \
    {OPT_SOCKET, "socket", 0, DRA_ARG_REQUIRED, "PATH", "reach every driver at this DRA socket (dra.sock)", "file"},     \
    {OPT_PLUGINS_DIR, "plugins-dir", 0, DRA_ARG_REQUIRED, "DIR", "else find a driver at DIR/DRIVER/dra.sock (/var/lib/kubelet/plugins)", "dir"}, \
    {OPT_REGISTRY_DIR, "registry-dir", 0, DRA_ARG_REQUIRED, "DIR", "find drivers through their registration sockets here (/var/lib/kubelet/plugins_registry)", "dir"}, \
    {OPT_CHECKPOINT, "checkpoint", 0, DRA_ARG_REQUIRED, "FILE", "the record of prepared claims (default " DRA_PREPARE_DEFAULT_CHECKPOINT ")", "file"}, \
    {OPT_TIMEOUT, "timeout", 0, DRA_ARG_REQUIRED, "DURATION", "deadline of each driver call (default 45s, as the kubelet)", NULL}, \
    DRA_OPT_FILENAME_ENTRY, DRA_OPT_FEATURE_GATES_ENTRY,                                                                                         \
    /* hidden, for the tests: be killed (SIGKILL) after the driver answered, before the checkpoint is written */      \
    {OPT_TEST_CRASH, "test-crash", 0, DRA_ARG_REQUIRED, "after-rpc", NULL, "after-rpc"}
#define VERBOSE_ENTRY {OPT_VERBOSE, "verbose", 'v', DRA_ARG_NONE, NULL, "say on stderr what is done", NULL}

static const dra_opt prepare_opts[] = {
    POD_ENTRY("the pod whose claims to prepare (required)"), DRIVER_ENTRIES,
    DRA_OPT_OUTPUT_ENTRY("table yaml json jsonl"), VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt unprepare_opts[] = {
    POD_ENTRY("the pod whose claims to unprepare (required)"), DRIVER_ENTRIES,
    DRA_OPT_OUTPUT_ENTRY("table yaml json jsonl"), VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt sync_opts[] = {
    DRA_OPT_NODE_ENTRY("the node to reconcile (required)"), DRIVER_ENTRIES,
    DRA_OPT_OUTPUT_ENTRY("table yaml json jsonl"), VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};
static const dra_opt cdi_opts[] = {
    {OPT_CDI_DIR, "cdi-dir", 0, DRA_ARG_REQUIRED, "DIR", "a CDI spec directory, later ones winning (repeatable; default /etc/cdi /var/run/cdi)", "dir"},
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"), VERBOSE_ENTRY, DRA_OPT_HELP_ENTRY, DRA_OPT_END,
};

static const dra_cmd cmds[] = {
    {"prepare", "prepare --pod NS/NAME (--socket PATH | --registry-dir DIR) [OPTIONS] [FILES]",
     "prepare a pod's ResourceClaims with their drivers and print each container's CDI devices",
     "Reads the pod and its ResourceClaims (kubectl get -o yaml dumps).  Checks what the kubelet\n"
     "checks, calls NodePrepareResources once per driver with all of its claims, records the\n"
     "answers in the checkpoint and prints per container the CDI device IDs it gets.  Claims\n"
     "prepared before are not prepared again.",
     prepare_opts, NULL},
    {"unprepare", "unprepare --pod NS/NAME (--socket PATH | --registry-dir DIR) [OPTIONS] [FILES]",
     "unprepare a pod's ResourceClaims that no other pod of the checkpoint still uses",
     "FILES are optional: without them the pod is found by name in the checkpoint.", unprepare_opts, NULL},
    {"sync", "sync --node NAME (--socket PATH | --registry-dir DIR) [OPTIONS] [FILES]",
     "reconcile a node: prepare the claims of its running pods, unprepare those of pods gone or finished",
     "FILES are a snapshot of the pods and ResourceClaims (kubectl get pods,resourceclaims -A -o yaml).",
     sync_opts, NULL},
    {"cdi", "cdi [--cdi-dir DIR]... [ID...]", "show the container edits (env, device nodes, mounts, hooks) of CDI devices",
     "Without IDs, reads the output of `prepare` or `sync` on standard input and answers per container.",
     cdi_opts, ""},
    {"plugins", "plugins [--registry-dir DIR] [OPTIONS]", "list the DRA drivers registered in the plugin registry",
     "Scans the registry directory as the kubelet's plugin watcher does: GetInfo on each socket,\n"
     "type DRAPlugin, the first supported service in the plugin's own list (v1.DRAPlugin,\n"
     "v1beta1.DRAPlugin), and whether its endpoint accepts connections.  Exit 1 when a plugin\n"
     "found is not usable.",
     dra_prepare_plugins_opts, NULL},
    {"probe", "probe --socket PATH [--claim FILE] [OPTIONS]", "check a DRA driver's kubelet plugin (a driver author's conformance test)",
     "Checks: the socket answers, registration (with --reg-socket), the services the driver\n"
     "serves, a prepare/unprepare round trip, the same answer twice (idempotency), CDI device\n"
     "ID syntax (vendor/class=name), request names without subrequests, latency and answer\n"
     "size.  Prints a pass/fail table; exit 1 when a check fails (a gRPC error the driver\n"
     "returns included), 3 when the driver cannot be reached or does not answer in time.  The driver really prepares the claim: use a test claim.  A driver that\n"
     "looks claims up and does not know the made-up one gets the claim checks skipped.",
     dra_prepare_probe_opts, NULL},
    {"health", "health --socket PATH [OPTIONS]", "stream device health changes (NodeWatchResources) as JSON Lines",
     "Prints one JSON line per device whose health changed, until interrupted; reopens the\n"
     "stream with backoff when it ends.",
     dra_prepare_health_opts, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
const dra_tool dra_prepare_tool = {"dra-prepare", "the kubelet side of DRA: prepare and unprepare claims with DRA drivers, reconcile a node, resolve CDI devices", cmds, NULL};

#define V(T, id, f) DRA_VAL_##T(id, dra_prepare_values, f)
const dra_optval dra_prepare_vals[] = {
    V(STRING, OPT_POD, pod), V(STRING, DRA_OPT_NODE, node), V(STRING, OPT_SOCKET, socket),
    V(STRING, OPT_PLUGINS_DIR, plugins_dir), V(STRING, OPT_REGISTRY_DIR, registry_dir),
    V(STRING, OPT_REG_SOCKET, reg_socket), V(STRING, OPT_CHECKPOINT, checkpoint), V(STRING, OPT_TIMEOUT, timeout),
    V(STRING, OPT_SERVICE, service), V(STRING, OPT_CLAIM, claim), V(STRING, OPT_BACKOFF, backoff),
    V(STRING, DRA_OPT_OUTPUT, output), V(STRING, OPT_TEST_CRASH, test_crash), V(STRINGS, OPT_CDI_DIR, cdi_dirs),
    DRA_VAL_INT(OPT_COUNT, dra_prepare_values, count, 0, 100000),
    DRA_VAL_INT(OPT_MAX_MSG, dra_prepare_values, max_msg, 1024, 1LL << 30),
    DRA_VAL_INT(OPT_RETRIES, dra_prepare_values, retries, 0, 1000000),
    V(BOOL, OPT_NOTIFY, notify), V(BOOL, OPT_VERBOSE, verbose),
    DRA_VAL_END,
};
/* clang-format on */
