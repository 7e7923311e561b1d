/* dra-slice: discover devices, publish them as ResourceSlices, lint and
 * validate slices.  Options -> library (src/common/slice) -> output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/tool.h"
#include "slice/poolstatus.h"
#include "model/time.h"
#include "slice/publish.h"
#include "cmds.h"

/* clang-format off */
static const dra_optval vals[] = {
    DRA_VAL_STRING(DRA_OPT_OUTPUT, dra_slice_values, output),         DRA_VAL_STRING(OPT_DRIVER, dra_slice_values, driver),
    DRA_VAL_STRING(DRA_OPT_NODE, dra_slice_values, node),             DRA_VAL_BOOL(OPT_ALL_NODES, dra_slice_values, all_nodes),
    DRA_VAL_STRING(OPT_NODE_SELECTOR, dra_slice_values, node_selector), DRA_VAL_STRING(OPT_POOL, dra_slice_values, pool),
    DRA_VAL_INT(OPT_GENERATION, dra_slice_values, generation, 0, INT64_MAX), DRA_VAL_STRINGS(OPT_PREVIOUS, dra_slice_values, previous),
    DRA_VAL_STRING(OPT_SOURCE, dra_slice_values, source),             DRA_VAL_STRING(OPT_SYSFS_ROOT, dra_slice_values, sysfs_root),
    DRA_VAL_STRING(OPT_NVIDIA_SMI, dra_slice_values, nvidia_smi),     DRA_VAL_BOOL(OPT_INVENTORY, dra_slice_values, inventory),
    DRA_VAL_INT(OPT_NODES, dra_slice_values, nodes, 1, 1000000),      DRA_VAL_INT(OPT_DEVICES, dra_slice_values, devices, 0, 10000000),
    DRA_VAL_INT(OPT_PARTITIONS, dra_slice_values, partitions, 0, 1024), DRA_VAL_BOOL(OPT_DYNAMIC_MIG, dra_slice_values, dynamic_mig),
    DRA_VAL_INT(OPT_CPUS, dra_slice_values, cpus, 1, 1000000),
    DRA_VAL_BOOL(OPT_NO_VALIDATE_QUALIFIED_NAMES, dra_slice_values, no_validate_qualified_names),
    DRA_VAL_STRING(DRA_OPT_NOW, dra_slice_values, now),
    DRA_VAL_STRING(DRA_OPT_KUBERNETES_VERSION, dra_slice_values, kubernetes_version),
    DRA_VAL_INT(OPT_LIMIT, dra_slice_values, limit, 1, 1000),         DRA_VAL_END,
};
/* clang-format on */

static dra_err *run_build(const dra_args *a, void *p, int *rc)
{
    dra_slice_values *x = p;
    dra_format fmt = DRA_FMT_YAML;
    dra_err *e = x->output ? dra_format_parse(x->output, &fmt) : NULL;
    if (!e && !x->driver)
        e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value: the driver name"), "--driver");
    if (!e && (x->node != NULL) + x->all_nodes + (x->node_selector != NULL) != 1)
        e = dra_err_new(DRA_EXIT_INPUT, "exactly one of --node, --all-nodes, --node-selector is required");
    dra_features f;
    if (!e)
        e = dra_tool_features(&dra_slice_tool, a, &f);
    dra_slice_opts o = {.driver = x->driver,
                        .node_name = x->node,
                        .all_nodes = x->all_nodes,
                        .pool = x->pool,
                        .generation = x->generation,
                        .features = &f,
                        .qualified_names = x->no_validate_qualified_names};
    json_t *selector = NULL;
    if (!e && x->node_selector)
        e = dra_err_field(dra_node_selector_from_labels(x->node_selector, &selector), "--node-selector");
    o.node_selector = selector;
    dra_slice_result r = {0};
    dra_objset reading = DRA_OBJSET_INIT; /* --validate, -R */
    dra_err *warnings = NULL;
    if (!e)
        e = dra_tool_input_options(&reading, a);
    if (!e) {
        dra_writer *w = dra_writer_new(stdout, fmt);
        e = dra_writer_finish(
            w, dra_slice_build_write(w, &o, x->previous.v, x->previous.n, a->pos, a->npos, &reading, &r, &warnings));
    }
    if (!e) /* duplicate fields the reader relaxed, then unknown ones */
        dra_tool_report_input(&dra_slice_tool, a, &(dra_input_report){warnings, 0, 0, 0});
    dra_err_free(warnings);
    for (size_t i = 0; !e && i < r.nobsolete; i++)
        fprintf(stderr, "dra-slice: note: previous ResourceSlice/%s is obsolete and should be deleted\n",
                r.obsolete[i]);
    dra_slice_result_free(&r);
    json_decref(selector);
    return e;
}

static dra_err *run_discover(const dra_args *a, void *p, int *rc)
{
    dra_slice_values *x = p;
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
    dra_features f;
    if (!e)
        e = dra_tool_features(&dra_slice_tool, a, &f);
    dra_discovery d = {0};
    if (!e)
        e = dra_discover(&o, &d);
    for (size_t i = 0; !e && i < d.n; i++)
        if (d.v[i].note)
            fprintf(stderr, "dra-slice: note: %s\n", d.v[i].note);
    size_t found = e ? 0 : dra_discovery_count(&d);
    if (!e) {
        dra_writer *w = dra_writer_new(stdout, fmt);
        e = dra_writer_finish(w, dra_discovery_write(w, &d, x->driver, node, x->inventory, &f));
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
    dra_slice_values *x = p;
    dra_format fmt = DRA_FMT_YAML;
    dra_err *e = x->output ? dra_format_parse(x->output, &fmt) : NULL;
    dra_profile_opts o = {.kind = DRA_PROFILE_GPU,
                          .nodes = (size_t)x->nodes,
                          .devices = (size_t)x->devices,
                          .partitions = (size_t)x->partitions,
                          .cpus_per_numa = (size_t)x->cpus,
                          .driver = x->driver};
    if (!e && a->npos != 1)
        e = dra_err_new(DRA_EXIT_INPUT, "profile needs exactly one NAME (gpu, net, cpu, mig)");
    if (!e)
        e = dra_profile_parse(a->pos[0], &o.kind);
    if (!e)
        e = dra_profile_check(&o);
    dra_features f;
    if (!e)
        e = dra_tool_features(&dra_slice_tool, a, &f);
    if (e)
        return e;
    o.release = dra_features_release_of(&f);
    dra_writer *w = dra_writer_new(stdout, fmt);
    return dra_writer_finish(w, dra_profile_write(w, &o, x->driver, &f));
}

/* What pool-status keeps of its input: claims as records, slices as the
 * fields it reads. */
typedef struct pool_input {
    dra_compact claims;
    json_t *slices;
} pool_input;

/* A ResourceClaim as read (checked), kept as a record. */
static void keep_claim(void *ctx, const json_t *claim)
{
    dra_compact_claim(&((pool_input *)ctx)->claims, claim);
}

/* A ResourceSlice as read (checked), kept as what the status reads of it. */
static void keep_slice(void *ctx, const json_t *slice)
{
    dra_pool_slice_keep(((pool_input *)ctx)->slices, slice);
}

static dra_err *run_pool_status(const dra_args *a, void *p, int *rc)
{
    dra_slice_values *x = p;
    dra_format fmt = DRA_FMT_YAML;
    dra_err *e = x->output ? dra_format_parse(x->output, &fmt) : NULL;
    dra_features f;
    if (!e)
        e = dra_tool_features(&dra_slice_tool, a, &f);
    dra_time now = {0};
    if (!e)
        e = dra_time_now_or(x->now, &now);
    if (!e && !x->driver && (x->pool || x->limit))
        e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value: --pool and --limit need --driver"), "--driver");
    dra_objset set = DRA_OBJSET_INIT;
    if (!e && x->driver) /* validated like a request of the input */
        dra_objset_add(&set, dra_pool_status_request_new(x->driver, x->pool, x->limit), "--driver", 1, 0, -1);
    dra_model model = DRA_MODEL_INIT;
    pool_input in = {0};
    in.slices = json_array();
    if (!e) { /* objects of other kinds are dropped as they are read */
        dra_tool_uses uses = {.kinds = (1u << DRA_KIND_RESOURCE_POOL_STATUS_REQUEST) | (1u << DRA_KIND_RESOURCE_SLICE) |
                                       (1u << DRA_KIND_RESOURCE_CLAIM) | (1u << DRA_KIND_DEVICE_TAINT_RULE),
                              .slice = keep_slice,
                              .claim = keep_claim,
                              .ctx = &in};
        dra_load_opts lo = {.skip_unknown = true, .now = now.sec, .validate = {.features = &f}};
        e = dra_tool_load(&dra_slice_tool, a, a->pos, a->npos, 0, &uses, &lo, &set, &model);
        dra_tool_report_model(&dra_slice_tool, a, &model);
    }
    if (!e) { /* with --driver only the made-up request is answered */
        dra_writer *w = dra_writer_new(stdout, fmt);
        e = dra_writer_finish(
            w, dra_pool_status_write(w, &model, &in.claims, in.slices, x->driver ? "--driver" : NULL, &f, now.sec));
    }
    json_decref(in.slices);
    dra_compact_free(&in.claims);
    dra_model_free(&model);
    dra_objset_free(&set);
    return e;
}

/* clang-format off */
static const dra_runner runners[] = {
    {"build", run_build}, {"discover", run_discover}, {"profile", run_profile},
    {"lint", dra_slice_run_lint},   {"validate", dra_slice_run_validate}, {"pool-status", run_pool_status}, {"gates", dra_slice_run_gates}, {NULL, NULL},
};
/* clang-format on */

int main(int argc, char **argv)
{
    dra_slice_values o = {.nodes = 1, .devices = 8};
    return dra_tool_main(&dra_slice_tool, runners, vals, argc, argv, &o);
}
