/* dra-slice: discover devices, publish them as ResourceSlices, lint and
 * validate slices.  Options -> library (src/common/slice) -> output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/records.h"
#include "tool/tool.h"
#include "cel/validate.h"
#include "slice/lint.h"
#include "slice/poolstatus.h"
#include "model/time.h"
#include "slice/publish.h"
#include "cmds.h"

/* Every option's value, written by the table below (options in cmds.c). */
typedef struct opts {
    const char *output, *driver, *node, *node_selector, *pool, *source, *sysfs_root, *nvidia_smi, *now;
    bool all_nodes, inventory, dynamic_mig;
    long long generation, nodes, devices, partitions, limit, cpus;
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
    DRA_VAL_INT(OPT_CPUS, opts, cpus, 1, 1000000),
    DRA_VAL_STRING(DRA_OPT_NOW, opts, now),
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
    dra_slice_result r = {0};
    dra_objset reading = DRA_OBJSET_INIT; /* --validate, -R */
    dra_err *warnings = NULL;
    if (!e)
        e = dra_tool_input_options(&reading, a);
    if (!e) {
        dra_writer *w = dra_writer_new(stdout, fmt);
        e = dra_writer_finish(w, dra_slice_build_write(w, &o, x->previous.v, x->previous.n, a->pos, a->npos, &reading,
                                                       &r, &warnings));
    }
    if (!e) /* duplicate fields the reader relaxed, then unknown ones */
        dra_tool_report_input(&dra_slice_tool, a, &(dra_input_report){warnings, 0, 0, 0});
    dra_err_free(warnings);
    for (size_t i = 0; !e && i < r.nobsolete; i++)
        fprintf(stderr, "dra-slice: note: previous ResourceSlice/%s is obsolete and should be deleted\n", r.obsolete[i]);
    dra_slice_result_free(&r);
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
    dra_profile_opts o = {.kind = DRA_PROFILE_GPU, .nodes = (size_t)x->nodes, .devices = (size_t)x->devices,
                          .partitions = (size_t)x->partitions, .cpus_per_numa = (size_t)x->cpus,
                          .driver = x->driver};
    if (!e && a->npos != 1)
        e = dra_err_new(DRA_EXIT_INPUT, "profile needs exactly one NAME (gpu, net, cpu, mig)");
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
    dra_records rec;
    dra_err *e = dra_records_start(&rec, dra_args_get(a, DRA_OPT_OUTPUT), stdout);
    if (e)
        return e;
    dra_objset set = DRA_OBJSET_INIT;
    dra_tool_errs errs = dra_tool_errs_for(a); /* objects that are input errors: as many as print, and counts */
    if (dra_records_on(&rec)) /* a record of every one */
        errs = (dra_tool_errs){.every = true};
    dra_lint_kept kept = {.set = &set, .errs = &errs.errs};
    e = dra_tool_read_each(&dra_slice_tool, a, a->pos, a->npos, 0, &set, dra_lint_keep, &kept);
    dra_lint_report r = DRA_LINT_REPORT_INIT;
    size_t skipped = 0;
    if (!e)
        e = dra_slice_lint_kept(&kept, &r, &skipped);
    if (!e)
        e = dra_tool_errs_take(&dra_slice_tool, &errs);
    dra_errs_free(&errs.errs);
    dra_lint_kept_free(&kept);
    if (dra_records_on(&rec)) {
        /* input errors, warnings and problems alike: records */
        int code = DRA_EXIT_OK;
        e = dra_records_take(&rec, e, &code);
        e = dra_err_append(e, dra_records_errs(&rec, set.warnings, true));
        dra_err_free(set.warnings);
        set.warnings = NULL;
        if (!e)
            e = dra_records_problems(&rec, &r);
        if (!e && code == DRA_EXIT_OK && dra_problems_count(&r, false) > 0)
            code = DRA_EXIT_NEGATIVE;
        e = dra_err_append(e, dra_records_finish(&rec));
        *rc = code;
    }
    dra_tool_report_input(&dra_slice_tool, a, &(dra_input_report){set.warnings, skipped, 0, set.files_repeated});
    for (size_t i = 0; !e && !dra_records_on(&rec) && i < r.n; i++) {
        char *line = dra_lint_format(&r.v[i]);
        printf("%s\n", line);
        free(line);
    }
    if (!e && !dra_records_on(&rec) && dra_problems_count(&r, false) > 0)
        *rc = DRA_EXIT_NEGATIVE;
    dra_problems_free(&r);
    dra_objset_free(&set);
    return e;
}

/* validate streams: one object at a time as it is read, nothing kept but
 * what finds duplicates; every object is checked (the exit code reflects
 * all of them), and errors print at the end as every tool prints them. */
typedef struct validating {
    cel_dra_validator *v;
    dra_tool_errs errs;
    dra_errs unserved; /* warnings: objects of versions no supported release serves */
} validating;

static dra_err *validate_one(void *p, dra_obj *o)
{
    validating *c = p;
    dra_kind k;
    dra_apiver ver;
    dra_err *e = dra_kind_of(o->json, &k, &ver);
    if (!e)
        dra_errs_add(&c->unserved, dra_obj_locate(dra_kind_unserved(k, ver), o));
    dra_err_free(e);
    dra_tool_errs_add(&c->errs, cel_dra_validator_add(c->v, o));
    return NULL;
}

static dra_err *run_validate(const dra_args *a, void *p, int *rc)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_model stats = DRA_MODEL_INIT;
    dra_features f;
    dra_err *e = dra_tool_features(&dra_slice_tool, a, &f);
    if (e)
        return e;
    e = dra_tool_input_options(&set, a);
    if (e)
        return e;
    dra_records rec;
    e = dra_records_start(&rec, dra_args_get(a, DRA_OPT_OUTPUT), stdout);
    if (e)
        return e;
    validating c = {.v = cel_dra_validator_new(&f, set.field_validation), .errs = dra_tool_errs_for(a),
                    .unserved = {.fold = DRA_ERRS_FOLD}};
    if (dra_records_on(&rec)) /* a record of every one */
        c.errs = (dra_tool_errs){.every = true};
    /* the DRA parts of pod templates are checked on the pods they make */
    dra_tool_errs_add(&c.errs, dra_tool_read_each(&dra_slice_tool, a, a->pos, a->npos, DRA_READ_WORKLOADS, &set,
                                                  validate_one, &c));
    dra_tool_errs_add(&c.errs, cel_dra_validator_finish(c.v, &stats));
    /* duplicate fields the reader relaxed, then the rest */
    stats.warnings = dra_err_append(dra_err_append(set.warnings, stats.warnings), dra_errs_take(&c.unserved));
    set.warnings = NULL;
    stats.files_repeated = set.files_repeated;
    if (dra_records_on(&rec)) {
        e = dra_records_errs(&rec, stats.warnings, true);
        dra_err_free(stats.warnings);
        stats.warnings = NULL;
    }
    dra_tool_report_model(&dra_slice_tool, a, &stats);
    dra_model_free(&stats);
    dra_objset_free(&set);
    dra_err *found = dra_tool_errs_take(&dra_slice_tool, &c.errs);
    if (!dra_records_on(&rec))
        return found;
    e = dra_err_append(e, dra_records_take(&rec, found, rc));
    return dra_err_append(e, dra_records_finish(&rec));
}

static dra_err *run_pool_status(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
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
    if (!e) { /* objects of other kinds are dropped as they are read */
        dra_tool_uses uses = {.kinds = (1u << DRA_KIND_RESOURCE_POOL_STATUS_REQUEST) | (1u << DRA_KIND_RESOURCE_SLICE) |
                                       (1u << DRA_KIND_RESOURCE_CLAIM) | (1u << DRA_KIND_DEVICE_TAINT_RULE)};
        dra_load_opts lo = {.skip_unknown = true, .now = now.sec, .validate = {.features = &f}};
        e = dra_tool_load(&dra_slice_tool, a, a->pos, a->npos, 0, &uses, &lo, &set, &model);
        dra_tool_report_model(&dra_slice_tool, a, &model);
    }
    if (!e) { /* with --driver only the made-up request is answered */
        dra_writer *w = dra_writer_new(stdout, fmt);
        e = dra_writer_finish(w, dra_pool_status_write(w, &model, x->driver ? "--driver" : NULL, &f, now.sec));
    }
    dra_model_free(&model);
    dra_objset_free(&set);
    return e;
}

static const dra_runner runners[] = {
    {"build", run_build}, {"discover", run_discover}, {"profile", run_profile},
    {"lint", run_lint},   {"validate", run_validate}, {"pool-status", run_pool_status}, {"gates", dra_slice_run_gates}, {NULL, NULL},
};

int main(int argc, char **argv)
{
    opts o = {.nodes = 1, .devices = 8};
    return dra_tool_main(&dra_slice_tool, runners, vals, argc, argv, &o);
}
