/* dra-slice: discover devices, publish them as ResourceSlices, lint and
 * validate slices.  Options -> library (src/common/slice) -> output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/tool.h"
#include "cel/validate.h"
#include "slice/lint.h"
#include "slice/poolstatus.h"
#include "model/time.h"
#include "slice/publish.h"

enum {
    OPT_DRIVER = DRA_OPT_TOOL_BASE, OPT_ALL_NODES, OPT_NODE_SELECTOR, OPT_POOL, OPT_GENERATION, OPT_PREVIOUS,
    OPT_SOURCE, OPT_SYSFS_ROOT, OPT_NVIDIA_SMI, OPT_INVENTORY, OPT_NODES, OPT_DEVICES, OPT_PARTITIONS,
    OPT_DYNAMIC_MIG, OPT_LIMIT,
};

#define FORMATS "yaml json jsonl"

static const dra_opt build_opts[] = {
    {OPT_DRIVER, "driver", 'd', DRA_ARG_REQUIRED, "NAME", "driver name (spec.driver), required", NULL},
    DRA_OPT_NODE_ENTRY("node-local pool on this node (spec.nodeName)"),
    {OPT_ALL_NODES, "all-nodes", 0, DRA_ARG_NONE, NULL, "devices usable on every node (spec.allNodes)", NULL},
    {OPT_NODE_SELECTOR, "node-selector", 0, DRA_ARG_REQUIRED, "KEY=VAL,...",
     "devices usable on nodes with these labels (spec.nodeSelector)", NULL},
    {OPT_POOL, "pool", 'p', DRA_ARG_REQUIRED, "NAME", "pool name (default: the node name)", NULL},
    {OPT_GENERATION, "generation", 0, DRA_ARG_REQUIRED, "N", "pool generation, used when above the previous one", NULL},
    {OPT_PREVIOUS, "previous", 0, DRA_ARG_REQUIRED, "FILE", "previously published slices (repeatable)", "file"},
    DRA_OPT_OUTPUT_ENTRY(FORMATS),
    DRA_OPT_END,
};

static const dra_opt discover_opts[] = {
    {OPT_SOURCE, "source", 's', DRA_ARG_REQUIRED, "LIST", "sources to read: pci,net,nvidia (default: all)",
     "pci net nvidia pci,net pci,net,nvidia"},
    {OPT_SYSFS_ROOT, "sysfs-root", 0, DRA_ARG_REQUIRED, "DIR", "read sysfs from DIR instead of /sys", "dir"},
    {OPT_NVIDIA_SMI, "nvidia-smi", 0, DRA_ARG_REQUIRED, "PATH", "nvidia-smi program (default: from PATH)", "file"},
    {OPT_DYNAMIC_MIG, "dynamic-mig", 0, DRA_ARG_NONE, NULL,
     "MIG-capable GPUs as partitionable devices (NVIDIA's DynamicMIG)", NULL},
    {OPT_DRIVER, "driver", 'd', DRA_ARG_REQUIRED, "NAME", "one driver name for every source", NULL},
    DRA_OPT_NODE_ENTRY("node name (default: this host's name)"),
    {OPT_INVENTORY, "inventory", 0, DRA_ARG_NONE, NULL, "print the devices as an inventory, not slices", NULL},
    DRA_OPT_OUTPUT_ENTRY(FORMATS),
    DRA_OPT_END,
};

static const dra_opt profile_opts[] = {
    {OPT_NODES, "nodes", 'n', DRA_ARG_REQUIRED, "N", "number of nodes (default 1)", NULL},
    {OPT_DEVICES, "devices", 'm', DRA_ARG_REQUIRED, "M", "GPUs or NICs per node (default 8)", NULL},
    {OPT_DRIVER, "driver", 'd', DRA_ARG_REQUIRED, "NAME", "driver name (default: per profile)", NULL},
    {OPT_PARTITIONS, "partitions", 'k', DRA_ARG_REQUIRED, "K", "gpu: K partitions per GPU on shared counters",
     NULL},
    DRA_OPT_OUTPUT_ENTRY(FORMATS),
    DRA_OPT_END,
};

static const dra_opt plain_opts[] = {DRA_OPT_INPUT_ENTRIES, DRA_OPT_END};
static const dra_opt validate_opts[] = {DRA_OPT_INPUT_ENTRIES, DRA_OPT_FEATURE_GATES_ENTRY, DRA_OPT_END};

static const dra_opt pool_status_opts[] = {
    {OPT_DRIVER, "driver", 'd', DRA_ARG_REQUIRED, "NAME", "ask about this driver's pools (a made-up request)", NULL},
    {OPT_POOL, "pool", 'p', DRA_ARG_REQUIRED, "NAME", "with --driver: only this pool", NULL},
    {OPT_LIMIT, "limit", 0, DRA_ARG_REQUIRED, "N", "with --driver: at most N pools (1..1000, default 100)", NULL},
    DRA_OPT_NOW_ENTRY,
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_INPUT_ENTRIES,
    DRA_OPT_OUTPUT_ENTRY(FORMATS),
    DRA_OPT_END,
};

static const dra_cmd cmds[] = {
    {"build", "build --driver NAME (--node NAME | --all-nodes | --node-selector KEY=VAL,...) [OPTIONS] [INVENTORY...]",
     "split an inventory of devices into the ResourceSlices of one pool",
     "An inventory is a list of v1 Devices, a mapping with `devices` and optional `sharedCounters`, or\n"
     "ResourceSlices (re-slicing). Slices hold at most 128 devices (64 with taints or consumesCounters);\n"
     "counter sets get slices of their own. Names are <index>-<driver>-<node>-<suffix> with a suffix\n"
     "derived from driver, pool and index, so the output is reproducible. With --previous the pool\n"
     "generation follows the resourceslice controller: kept when at most one slice changes in place,\n"
     "bumped otherwise; previous slices that must be deleted are noted on stderr.",
     build_opts, "file"},
    {"discover", "discover [--source pci,net,nvidia] [--sysfs-root DIR] [--nvidia-smi PATH] [--dynamic-mig] [OPTIONS]",
     "read this machine's devices and print them as ResourceSlices",
     "Drivers: pci.dra-tools.io, net.dra-tools.io, gpu.nvidia.com (or --driver for all). GPUs and MIG\n"
     "devices are published as NVIDIA's DRA driver publishes them; --dynamic-mig adds every MIG\n"
     "placement on shared counters, so dra-alloc can tell which MIG layouts fit.\n"
     "An absent source is skipped with a note on stderr; nothing found at all exits 1.",
     discover_opts, ""},
    {"profile", "profile NAME [--nodes N] [--devices M] [--driver NAME] [--partitions K] [-o FORMAT]",
     "print a synthetic fleet: gpu, net or mig",
     "gpu: dra-example-driver GPUs (index, uuid, model, driverVersion; memory 80Gi, compute 100), with --partitions\n"
     "on shared counters; net: NICs with consumable bandwidth; mig: A100-like GPUs with 14 MIG\n"
     "placements each on shared counters. Output is the same on every run.",
     profile_opts, "gpu net mig"},
    {"lint", "lint [FILES...]", "check pools across ResourceSlices",
     "One line per problem: pool DRIVER/POOL: ResourceSlice/NAME: problem. Exit 1 when problems\n"
     "(not warnings) are found. Objects of other kinds are skipped (counted with -v).",
     plain_opts, "file"},
    {"validate", "validate [FILES...]", "validate the DRA objects and the DRA parts of pods",
     "Validates DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates and\n"
     "DeviceTaintRules as the API server does, and the DRA parts of Pods, Nodes and Namespaces;\n"
     "other kinds are skipped (counted with -v), except unknown kinds or versions of\n"
     "resource.k8s.io, which are errors. Prints nothing and exits 0 when every object is valid;\n"
     "otherwise every error, exit 2. Selectors are compiled as the API server compiles new ones\n"
     "(includes() needs DRAListTypeAttributes).", validate_opts,
     "file"},
    {"pool-status", "pool-status [--driver NAME [--pool NAME] [--limit N]] [OPTIONS] [FILES...]",
     "answer ResourcePoolStatusRequests from slices and claims",
     "Prints each ResourcePoolStatusRequest of the input (resource.k8s.io/v1alpha3) with the status\n"
     "kube-controller-manager's controller would write: per pool of the driver, total, allocated,\n"
     "available and unavailable (tainted) devices, from the ResourceSlices, ResourceClaims and\n"
     "DeviceTaintRules of the input.  Requests that already have a status are printed unchanged.\n"
     "With --driver, a request named after the driver is made up and answered instead.",
     pool_status_opts, "file"},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

static const dra_tool tool = {"dra-slice", "discover devices, publish them as ResourceSlices, lint and validate slices",
                              cmds, NULL};

/* Every option's value, written by the table below. */
typedef struct opts {
    const char *output, *driver, *node, *node_selector, *pool, *source, *sysfs_root, *nvidia_smi, *now;
    bool all_nodes, inventory, dynamic_mig;
    dra_strv gates;
    long long generation, nodes, devices, partitions, limit;
    dra_strv previous;
} opts;

static const dra_optval vals[] = {
    DRA_VAL_STRING(DRA_OPT_OUTPUT, opts, output),         DRA_VAL_STRING(OPT_DRIVER, opts, driver),
    DRA_VAL_STRING(DRA_OPT_NODE, opts, node),             DRA_VAL_BOOL(OPT_ALL_NODES, opts, all_nodes),
    DRA_VAL_STRING(OPT_NODE_SELECTOR, opts, node_selector), DRA_VAL_STRING(OPT_POOL, opts, pool),
    DRA_VAL_INT(OPT_GENERATION, opts, generation, 0, INT64_MAX), DRA_VAL_STRINGS(OPT_PREVIOUS, opts, previous),
    DRA_VAL_STRING(OPT_SOURCE, opts, source),             DRA_VAL_STRING(OPT_SYSFS_ROOT, opts, sysfs_root),
    DRA_VAL_STRING(OPT_NVIDIA_SMI, opts, nvidia_smi),     DRA_VAL_BOOL(OPT_INVENTORY, opts, inventory),
    DRA_VAL_INT(OPT_NODES, opts, nodes, 1, 1000000),      DRA_VAL_INT(OPT_DEVICES, opts, devices, 0, 10000000),
    DRA_VAL_INT(OPT_PARTITIONS, opts, partitions, 0, 1024), DRA_VAL_BOOL(OPT_DYNAMIC_MIG, opts, dynamic_mig),
    DRA_VAL_STRINGS(DRA_OPT_FEATURE_GATES, opts, gates),    DRA_VAL_STRING(DRA_OPT_NOW, opts, now),
    DRA_VAL_INT(OPT_LIMIT, opts, limit, 1, 1000),         DRA_VAL_END,
};

static dra_err *run_build(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_format fmt = DRA_FMT_YAML;
    dra_err *e = x->output ? dra_format_parse(x->output, &fmt) : NULL;
    if (!e && !x->driver)
        e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value: the driver name"), "--driver");
    if (!e && (x->node != NULL) + x->all_nodes + (x->node_selector != NULL) != 1)
        e = dra_err_new(DRA_EXIT_INPUT, "exactly one of --node, --all-nodes, --node-selector is required");
    dra_slice_opts o = {x->driver, x->node, x->all_nodes, NULL, x->pool, x->generation, NULL};
    json_t *selector = NULL;
    if (!e && x->node_selector)
        e = dra_err_field(dra_node_selector_from_labels(x->node_selector, &selector), "--node-selector");
    o.node_selector = selector;
    dra_objset prev = DRA_OBJSET_INIT, in = DRA_OBJSET_INIT;
    for (size_t i = 0; !e && i < x->previous.n; i++)
        e = dra_read_path(&prev, x->previous.v[i]);
    o.previous = x->previous.n ? &prev : NULL;
    if (!e)
        e = dra_read_paths(&in, a->pos, a->npos);
    dra_slice_result r = {0};
    if (!e)
        e = dra_slice_build_objs(&o, &in, &r);
    if (!e) {
        for (size_t i = 0; i < r.nobsolete; i++)
            fprintf(stderr, "dra-slice: note: previous ResourceSlice/%s is obsolete and should be deleted\n",
                    r.obsolete[i]);
        dra_writer *w = dra_writer_new(stdout, fmt);
        e = dra_writer_finish(w, dra_slice_write(w, &r));
    }
    dra_slice_result_free(&r);
    dra_objset_free(&in);
    dra_objset_free(&prev);
    json_decref(selector);
    return e;
}

static dra_err *run_discover(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_format fmt = DRA_FMT_YAML;
    dra_err *e = x->output ? dra_format_parse(x->output, &fmt) : NULL;
    dra_discover_opts o = {x->sysfs_root, x->nvidia_smi, DRA_SRC_ALL, 0, x->dynamic_mig};
    /* How long a wedged nvidia-smi may take before it is killed (tests and
     * slow machines); the default is 60 s. */
    if (!e)
        e = dra_err_field(dra_discover_parse_timeout(getenv("DRA_NVIDIA_SMI_TIMEOUT_MS"), &o.nvidia_smi_timeout_ms),
                          "DRA_NVIDIA_SMI_TIMEOUT_MS");
    if (!e && x->source)
        e = dra_discover_parse_sources(x->source, &o.sources);
    char host[256] = "";
    const char *node = x->node ? x->node : host;
    if (!e && !x->node && !dra_discover_host_name(host, sizeof host))
        e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "cannot determine this host's name; use --node"), "--node");
    dra_discovery d = {0};
    if (!e)
        e = dra_discover(&o, &d);
    for (size_t i = 0; !e && i < d.n; i++)
        if (d.v[i].note)
            fprintf(stderr, "dra-slice: note: %s\n", d.v[i].note);
    size_t found = e ? 0 : dra_discovery_count(&d);
    if (!e) {
        dra_writer *w = dra_writer_new(stdout, fmt);
        e = dra_writer_finish(w, dra_discovery_write(w, &d, x->driver, node, x->inventory));
    }
    dra_discovery_free(&d);
    if (!e && found == 0) {
        fprintf(stderr, "dra-slice: no devices found\n");
        *rc = DRA_EXIT_NEGATIVE;
    }
    return e;
}

static dra_err *run_profile(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_format fmt = DRA_FMT_YAML;
    dra_err *e = x->output ? dra_format_parse(x->output, &fmt) : NULL;
    dra_profile_opts o = {DRA_PROFILE_GPU, (size_t)x->nodes, (size_t)x->devices, (size_t)x->partitions};
    if (!e && a->npos != 1)
        e = dra_err_new(DRA_EXIT_INPUT, "profile needs exactly one NAME (gpu, net, mig)");
    if (!e)
        e = dra_profile_parse(a->pos[0], &o.kind);
    if (!e)
        e = dra_profile_check(&o);
    if (e)
        return e;
    dra_writer *w = dra_writer_new(stdout, fmt);
    return dra_writer_finish(w, dra_profile_write(w, &o, x->driver));
}

static dra_err *run_lint(const dra_args *a, void *p, int *rc)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_tool_read(&tool, a, a->pos, a->npos, 0, &set);
    dra_lint_report r = DRA_LINT_REPORT_INIT;
    size_t skipped = 0;
    if (!e)
        e = dra_slice_lint(&set, &r, &skipped);
    dra_tool_report_input(&tool, a, &(dra_input_report){set.warnings, skipped, 0, set.files_repeated});
    for (size_t i = 0; !e && i < r.n; i++) {
        char *line = dra_lint_format(&r.v[i]);
        printf("%s\n", line);
        free(line);
    }
    if (!e && dra_problems_count(&r, false) > 0)
        *rc = DRA_EXIT_NEGATIVE;
    dra_problems_free(&r);
    dra_objset_free(&set);
    return e;
}

/* --feature-gates, repeatable, over the defaults */
static dra_err *features_of(const opts *x, dra_features *f)
{
    dra_features_default(f);
    dra_err *e = NULL;
    for (size_t i = 0; i < x->gates.n && !e; i++)
        e = dra_features_parse(f, x->gates.v[i]);
    return e;
}

static dra_err *run_validate(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_objset set = DRA_OBJSET_INIT;
    dra_model model = DRA_MODEL_INIT;
    dra_features f;
    dra_err *e = features_of(x, &f);
    /* the DRA parts of pod templates are checked on the pods they make */
    if (!e)
        e = dra_tool_read(&tool, a, a->pos, a->npos, DRA_READ_WORKLOADS, &set);
    if (!e) {
        e = cel_dra_validate_objects(&set, &f, &model);
        dra_tool_report_model(&tool, a, &model);
    }
    dra_model_free(&model);
    dra_objset_free(&set);
    return e;
}

/* A ResourcePoolStatusRequest for --driver, --pool, --limit. */
static json_t *made_up_request(const opts *x)
{
    json_t *req = json_pack("{s:s,s:s,s:{s:s},s:{s:s}}", "apiVersion", "resource.k8s.io/v1alpha3", "kind",
                            "ResourcePoolStatusRequest", "metadata", "name", x->driver, "spec", "driver", x->driver);
    json_t *spec = json_object_get(req, "spec");
    if (x->pool)
        json_object_set_new(spec, "poolName", json_string(x->pool));
    if (x->limit)
        json_object_set_new(spec, "limit", json_integer(x->limit));
    return req;
}

static dra_err *run_pool_status(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    dra_format fmt = DRA_FMT_YAML;
    dra_err *e = x->output ? dra_format_parse(x->output, &fmt) : NULL;
    dra_features f;
    if (!e)
        e = features_of(x, &f);
    int64_t now = 0;
    if (!e)
        e = dra_time_now_or(x->now, &now);
    if (!e && !x->driver && (x->pool || x->limit))
        e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value: --pool and --limit need --driver"), "--driver");
    dra_objset set = DRA_OBJSET_INIT;
    if (!e && x->driver) /* validated like a request of the input */
        dra_objset_add(&set, made_up_request(x), "--driver", 1, 0, -1);
    if (!e)
        e = dra_tool_read(&tool, a, a->pos, a->npos, 0, &set);
    dra_model model = DRA_MODEL_INIT;
    if (!e) {
        dra_load_opts lo = {.skip_unknown = true, .now = now / DRA_NSEC_PER_SEC, .validate = {.features = &f}};
        e = dra_load(&set, &lo, &model);
        dra_tool_report_model(&tool, a, &model);
    }
    const dra_model_list *reqs = dra_model_kind(&model, DRA_KIND_RESOURCE_POOL_STATUS_REQUEST);
    if (!e && reqs->n == 0)
        e = dra_err_new(DRA_EXIT_INPUT, "no ResourcePoolStatusRequest in the input (or use --driver)");
    if (!e) {
        dra_writer *w = dra_writer_new(stdout, fmt);
        for (size_t i = 0; i < reqs->n && !e; i++) {
            /* with --driver only the made-up request is answered */
            if (x->driver && (!reqs->v[i]->file || strcmp(reqs->v[i]->file, "--driver") != 0))
                continue;
            json_t *out = json_deep_copy(reqs->v[i]->json);
            const json_t *st = json_object_get(out, "status");
            if (!st || json_is_null(st))
                json_object_set_new(out, "status", dra_pool_status(&model, out, &f, now));
            e = dra_writer_put(w, out);
            json_decref(out);
        }
        e = dra_writer_finish(w, e);
    }
    dra_model_free(&model);
    dra_objset_free(&set);
    return e;
}

static const dra_runner runners[] = {
    {"build", run_build}, {"discover", run_discover}, {"profile", run_profile},
    {"lint", run_lint},   {"validate", run_validate}, {"pool-status", run_pool_status}, {NULL, NULL},
};

int main(int argc, char **argv)
{
    opts o = {.nodes = 1, .devices = 8};
    return dra_tool_main(&tool, runners, vals, argc, argv, &o);
}
