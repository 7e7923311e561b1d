/* dra-slice: discover devices, publish them as ResourceSlices, lint and
 * validate slices.  Options -> library (src/common/slice) -> output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/workloads.h"
#include "tool/cli.h"
#include "tool/tool.h"
#include "cel/dra.h"
#include "io/stream.h"
#include "model/features.h"
#include "model/kinds.h"
#include "model/load.h"
#include "slice/build.h"
#include "slice/discover.h"
#include "slice/lint.h"
#include "slice/profile.h"

enum {
    OPT_DRIVER = DRA_OPT_TOOL_BASE,
    OPT_ALL_NODES,
    OPT_NODE_SELECTOR,
    OPT_POOL,
    OPT_GENERATION,
    OPT_PREVIOUS,
    OPT_SOURCE,
    OPT_SYSFS_ROOT,
    OPT_NVIDIA_SMI,
    OPT_INVENTORY,
    OPT_NODES,
    OPT_DEVICES,
    OPT_PARTITIONS,
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

static const dra_opt plain_opts[] = {
    DRA_OPT_INPUT_ENTRIES,
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
    {"discover", "discover [--source pci,net,nvidia] [--sysfs-root DIR] [--nvidia-smi PATH] [OPTIONS]",
     "read this machine's devices and print them as ResourceSlices",
     "Drivers: pci.dra-tools.io, net.dra-tools.io, gpu.nvidia.com (or --driver for all).\n"
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
     "otherwise every error, exit 2.", plain_opts,
     "file"},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

static const dra_tool tool = {"dra-slice", "discover devices, publish them as ResourceSlices, lint and validate slices",
                              cmds, NULL};

/* ---- helpers ---- */

static dra_err *parse_count(const char *s, const char *opt, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long v = s ? strtoll(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || v < min || v > max)
        return dra_err_field(dra_err_new(DRA_EXIT_INPUT, "must be an integer between %lld and %lld, not '%s'", min,
                                         max, s ? s : ""),
                             opt);
    *out = v;
    return NULL;
}

static dra_err *output_format(const dra_args *a, dra_format *fmt)
{
    const char *o = dra_args_get(a, DRA_OPT_OUTPUT);
    *fmt = DRA_FMT_YAML;
    return o ? dra_format_parse(o, fmt) : NULL;
}

/* KEY=VAL,... -> a v1 NodeSelector with one term of `In` expressions. */
static dra_err *node_selector(const char *spec, json_t **out)
{
    json_t *exprs = json_array();
    char *copy = dra_xstrdup(spec), *save = NULL;
    dra_err *e = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && !e; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok) {
            e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "expected KEY=VALUE, not '%s'", tok), "--node-selector");
            break;
        }
        *eq = '\0';
        json_array_append_new(exprs, json_pack("{s:s, s:s, s:[s]}", "key", tok, "operator", "In", "values", eq + 1));
    }
    free(copy);
    if (!e && json_array_size(exprs) == 0)
        e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "expected KEY=VALUE"), "--node-selector");
    if (e) {
        json_decref(exprs);
        return e;
    }
    *out = json_pack("{s:[{s:o}]}", "nodeSelectorTerms", "matchExpressions", exprs);
    return NULL;
}

static dra_err *write_slices(dra_writer *w, const dra_slice_result *r)
{
    for (size_t i = 0; i < r->nslices; i++) {
        dra_err *e = dra_writer_put(w, r->slices[i]);
        if (e)
            return e;
    }
    return NULL;
}

/* ---- build ---- */

static int cmd_build(dra_args *a)
{
    dra_format fmt;
    dra_err *e = output_format(a, &fmt);
    dra_slice_opts o = {0};
    o.driver = dra_args_get(a, OPT_DRIVER);
    o.node_name = dra_args_get(a, DRA_OPT_NODE);
    o.all_nodes = dra_args_has(a, OPT_ALL_NODES);
    o.pool = dra_args_get(a, OPT_POOL);
    long long gen = 0;
    if (!e && !o.driver)
        e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value: the driver name"), "--driver");
    if (!e && dra_args_has(a, OPT_GENERATION))
        e = parse_count(dra_args_get(a, OPT_GENERATION), "--generation", 0, INT64_MAX, &gen);
    o.generation = gen;
    json_t *selector = NULL;
    if (!e && dra_args_has(a, OPT_NODE_SELECTOR))
        e = node_selector(dra_args_get(a, OPT_NODE_SELECTOR), &selector);
    o.node_selector = selector;

    dra_objset prev = DRA_OBJSET_INIT, in = DRA_OBJSET_INIT;
    for (size_t i = 0; !e && i < a->nopts; i++)
        if (a->opts[i].id == OPT_PREVIOUS)
            e = dra_read_path(&prev, a->opts[i].value);
    o.previous = dra_args_has(a, OPT_PREVIOUS) ? &prev : NULL;
    if (!e)
        e = dra_read_paths(&in, a->pos, a->npos);
    dra_inventory inv = DRA_INVENTORY_INIT;
    for (size_t i = 0; !e && i < in.n; i++)
        e = dra_inventory_add(&inv, &in.v[i]);
    dra_slice_result r = {0};
    if (!e)
        e = dra_slice_build(&o, &inv, &r);
    if (!e) {
        for (size_t i = 0; i < r.nobsolete; i++)
            fprintf(stderr, "dra-slice: note: previous ResourceSlice/%s is obsolete and should be deleted\n",
                    r.obsolete[i]);
        dra_writer *w = dra_writer_new(stdout, fmt);
        e = write_slices(w, &r);
        dra_err *ce = dra_writer_close(w);
        e = e ? (dra_err_free(ce), e) : ce;
    }
    dra_slice_result_free(&r);
    dra_inventory_free(&inv);
    dra_objset_free(&in);
    dra_objset_free(&prev);
    json_decref(selector);
    return dra_tool_finish(&tool, a, e, DRA_EXIT_OK);
}

/* ---- discover ---- */

static int cmd_discover(dra_args *a)
{
    dra_format fmt;
    dra_err *e = output_format(a, &fmt);
    dra_discover_opts o = {dra_args_get(a, OPT_SYSFS_ROOT), dra_args_get(a, OPT_NVIDIA_SMI), DRA_SRC_ALL, 0};
    /* How long a wedged nvidia-smi may take before it is killed (tests and
     * slow machines); the default is 60 s. */
    const char *smi_timeout = getenv("DRA_NVIDIA_SMI_TIMEOUT_MS");
    if (smi_timeout && *smi_timeout) {
        char *end;
        errno = 0;
        long ms = strtol(smi_timeout, &end, 10);
        if (errno || *end || ms <= 0 || ms > 3600000)
            e = e ? e : dra_err_new(DRA_EXIT_INPUT, "DRA_NVIDIA_SMI_TIMEOUT_MS: must be milliseconds between 1 and 3600000, not '%s'", smi_timeout);
        else
            o.nvidia_smi_timeout_ms = (int)ms;
    }
    if (!e && dra_args_has(a, OPT_SOURCE))
        e = dra_discover_parse_sources(dra_args_get(a, OPT_SOURCE), &o.sources);
    char host[256] = "";
    const char *node = dra_args_get(a, DRA_OPT_NODE);
    if (!e && !node) {
        if (gethostname(host, sizeof host - 1) != 0 || !*host)
            e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "cannot determine this host's name; use --node"),
                              "--node");
        for (char *p = host; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        node = host;
    }
    dra_discovery d = {0};
    if (!e)
        e = dra_discover(&o, &d);
    size_t found = 0;
    if (!e) {
        for (size_t i = 0; i < d.n; i++) {
            if (d.v[i].note)
                fprintf(stderr, "dra-slice: note: %s\n", d.v[i].note);
            found += json_array_size(d.v[i].devices);
        }
    }
    const char *driver = dra_args_get(a, OPT_DRIVER);
    dra_writer *w = e ? NULL : dra_writer_new(stdout, fmt);
    if (!e && dra_args_has(a, OPT_INVENTORY)) {
        /* One inventory mapping per source (or one for all with --driver). */
        for (size_t i = 0; !e && i < d.n; i++) {
            if (!json_array_size(d.v[i].devices))
                continue;
            json_t *invj = json_pack("{s:O}", "devices", d.v[i].devices);
            if (json_array_size(d.v[i].counter_sets))
                json_object_set(invj, "sharedCounters", d.v[i].counter_sets);
            e = dra_writer_put(w, invj);
            json_decref(invj);
        }
    } else if (!e) {
        /* One pool per driver: with --driver every source goes into it. */
        size_t groups = driver ? 1 : d.n;
        for (size_t g = 0; !e && g < groups; g++) {
            dra_inventory inv = DRA_INVENTORY_INIT;
            for (size_t i = 0; i < d.n; i++) {
                if (!driver && i != g)
                    continue;
                size_t k;
                json_t *v;
                json_array_foreach(d.v[i].devices, k, v) dra_inventory_add_device(&inv, v, NULL, NULL);
                json_array_foreach(d.v[i].counter_sets, k, v) dra_inventory_add_counter_set(&inv, v, NULL, NULL);
            }
            if (inv.ndevices > 0) {
                dra_slice_opts so = {0};
                so.driver = driver ? driver : d.v[g].default_driver;
                so.node_name = node;
                dra_slice_result r = {0};
                e = dra_slice_build(&so, &inv, &r);
                if (!e)
                    e = write_slices(w, &r);
                dra_slice_result_free(&r);
            }
            dra_inventory_free(&inv);
        }
    }
    if (w) {
        dra_err *ce = dra_writer_close(w);
        e = e ? (dra_err_free(ce), e) : ce;
    }
    dra_discovery_free(&d);
    if (!e && found == 0) {
        fprintf(stderr, "dra-slice: no devices found\n");
        return dra_tool_finish(&tool, a, NULL, DRA_EXIT_NEGATIVE);
    }
    return dra_tool_finish(&tool, a, e, DRA_EXIT_OK);
}

/* ---- profile ---- */

static int cmd_profile(dra_args *a)
{
    dra_format fmt;
    dra_err *e = output_format(a, &fmt);
    dra_profile_opts o = {DRA_PROFILE_GPU, 1, 8, 0};
    long long v;
    if (!e && a->npos != 1)
        e = dra_err_new(DRA_EXIT_INPUT, "profile needs exactly one NAME (gpu, net, mig)");
    if (!e)
        e = dra_profile_parse(a->pos[0], &o.kind);
    if (!e && dra_args_has(a, OPT_NODES) && !(e = parse_count(dra_args_get(a, OPT_NODES), "--nodes", 1, 1000000, &v)))
        o.nodes = (size_t)v;
    if (!e && dra_args_has(a, OPT_DEVICES) &&
        !(e = parse_count(dra_args_get(a, OPT_DEVICES), "--devices", 0, 10000000, &v)))
        o.devices = (size_t)v;
    if (!e && dra_args_has(a, OPT_PARTITIONS) &&
        !(e = parse_count(dra_args_get(a, OPT_PARTITIONS), "--partitions", 0, 1024, &v)))
        o.partitions = (size_t)v;
    if (!e)
        e = dra_profile_check(&o);
    const char *driver = dra_args_get(a, OPT_DRIVER);
    if (!driver && !e)
        driver = dra_profile_default_driver(o.kind);
    if (e)
        return dra_tool_finish(&tool, a, e, DRA_EXIT_OK);

    /* Stream node by node so a large fleet never sits in memory at once. */
    dra_writer *w = dra_writer_new(stdout, fmt);
    for (size_t n = 0; !e && n < o.nodes; n++) {
        json_t *devices, *sets;
        dra_profile_node(&o, n, &devices, &sets);
        char *node = dra_profile_node_name(n);
        dra_inventory inv = DRA_INVENTORY_INIT;
        size_t k;
        json_t *x;
        json_array_foreach(devices, k, x) dra_inventory_add_device(&inv, x, NULL, NULL);
        json_array_foreach(sets, k, x) dra_inventory_add_counter_set(&inv, x, NULL, NULL);
        dra_slice_opts so = {0};
        so.driver = driver;
        so.node_name = node;
        dra_slice_result r = {0};
        e = dra_slice_build(&so, &inv, &r);
        if (!e)
            e = write_slices(w, &r);
        dra_slice_result_free(&r);
        dra_inventory_free(&inv);
        free(node);
        json_decref(devices);
        json_decref(sets);
    }
    dra_err *ce = dra_writer_close(w);
    e = e ? (dra_err_free(ce), e) : ce;
    return dra_tool_finish(&tool, a, e, DRA_EXIT_OK);
}

/* ---- lint ---- */

static int cmd_lint(dra_args *a)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_tool_input_options(&set, a);
    if (!e)
        e = dra_read_paths(&set, a->pos, a->npos);
    dra_lint_report r = DRA_LINT_REPORT_INIT;
    if (!e)
        e = dra_slice_lint(&set, &r);
    dra_input_report ir = {set.warnings, r.skipped, 0, set.files_repeated};
    dra_tool_report_input(&tool, a, &ir);
    int rc = DRA_EXIT_OK;
    if (!e) {
        for (size_t i = 0; i < r.n; i++) {
            char *line = dra_lint_format(&r.v[i]);
            printf("%s\n", line);
            free(line);
        }
        if (dra_lint_count_errors(&r) > 0)
            rc = DRA_EXIT_NEGATIVE;
    }
    dra_lint_report_free(&r);
    dra_objset_free(&set);
    return dra_tool_finish(&tool, a, e, rc);
}

/* ---- validate ---- */

static int cmd_validate(dra_args *a)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_tool_input_options(&set, a);
    if (!e)
        e = dra_read_paths(&set, a->pos, a->npos);
    if (!e) {
        /* the DRA parts of pod templates are checked on the pods they make */
        dra_expand_report xr = {0};
        e = dra_expand_workloads(&set, NULL, &xr);
        dra_tool_notes(&tool, a, xr.warnings, xr.notes);
        dra_expand_report_free(&xr);
    }
    dra_model model = DRA_MODEL_INIT;
    if (!e) {
        /* Convert, default and validate every object; report all problems.
         * Selectors are compiled as the API server compiles them on create
         * (a selector that does not compile is invalid). */
        dra_features features;
        dra_features_default(&features);
        cel_dra_options co = {.consumable_capacity = dra_feature_enabled(&features, DRA_FEATURE_CONSUMABLE_CAPACITY)};
        cel_env *env = cel_dra_env_new(&co);
        dra_load_opts lo = {.skip_unknown = true,
                            .validate = {.features = &features, .cel = cel_dra_validate_hook, .cel_ctx = env}};
        e = dra_load(&set, &lo, &model);
        cel_env_free(env);
        dra_input_report ir = {model.warnings, model.skipped, model.collapsed, model.files_repeated};
        dra_tool_report_input(&tool, a, &ir);
        for (dra_err *x = e; x; x = x->next)
            x->code = DRA_EXIT_INPUT;
    }
    dra_model_free(&model);
    dra_objset_free(&set);
    return dra_tool_finish(&tool, a, e, DRA_EXIT_OK);
}

int main(int argc, char **argv)
{
    dra_args a;
    int rc;
    if (dra_tool_start(&tool, argc, argv, &a, &rc))
        return rc;
    const char *cmd = a.cmd->name;
    if (strcmp(cmd, "build") == 0)
        return cmd_build(&a);
    if (strcmp(cmd, "discover") == 0)
        return cmd_discover(&a);
    if (strcmp(cmd, "profile") == 0)
        return cmd_profile(&a);
    if (strcmp(cmd, "lint") == 0)
        return cmd_lint(&a);
    return cmd_validate(&a);
}
