/* Validation rules (src/common/model/validate_*.c) and the load pipeline
 * (load.c): every rule with a valid and an invalid case, upstream wording. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "io/stream.h"
#include "model/load.h"
#include "model/validate.h"
#include "unit.h"

/* ---- harness ---- */

static dra_features gates;
static const dra_features *use_gates;
static dra_validate_cel_fn use_cel;

/* Load a document and return its errors as "field: msg" lines (caller frees). */
static char *errs_of(const char *text)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_buf out = DRA_BUF_INIT;
    dra_err *e = dra_read_mem(&set, "t.yaml", text, strlen(text));
    if (!e) {
        dra_load_opts opts = {0};
        opts.validate.features = use_gates;
        opts.validate.cel = use_cel;
        dra_model m = DRA_MODEL_INIT;
        e = dra_load(&set, &opts, &m);
        dra_model_free(&m);
    }
    for (dra_err *i = e; i; i = i->next)
        dra_buf_printf(&out, "%s: %s\n", i->field ? i->field : "", i->msg);
    dra_err_free(e);
    dra_objset_free(&set);
    dra_buf_puts(&out, "");
    return dra_buf_detach(&out);
}

static int expect(const char *text, const char *line, int want, const char *file, int at)
{
    char *got = errs_of(text);
    int ok;
    if (!line) {
        ok = got[0] == '\0';
    } else {
        char *needle = dra_xasprintf("%s\n", line);
        ok = (strstr(got, needle) != NULL) == want;
        free(needle);
    }
    if (!ok)
        fprintf(stderr, "  %s:%d: expected %s%s\n  got:\n%s", file, at, want ? "" : "NOT ", line ? line : "no errors",
                got);
    free(got);
    return ok;
}

/* Validate with the defaults and one gate set to on (until use_gates = NULL). */
static void with_gate(dra_feature id, bool on)
{
    dra_features_default(&gates);
    dra_err *e = dra_features_set(&gates, id, on);
    if (e)
        fprintf(stderr, "  with_gate: %s\n", e->msg);
    dra_err_free(e);
    use_gates = &gates;
}

/* CLEAN: no errors.  HAS: the errors include this exact line.  LACKS: they do not. */
#define CLEAN(t) CHECK(expect((t), NULL, 1, __FILE__, __LINE__))
#define HAS(t, l) CHECK(expect((t), (l), 1, __FILE__, __LINE__))
#define LACKS(t, l) CHECK(expect((t), (l), 0, __FILE__, __LINE__))

/* Flow-style YAML builders. */
/* clang-format off */
#define SLICE(spec) "{apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: s}, spec: {driver: gpu.example.com, pool: {name: p, resourceSliceCount: 1}, " spec "}}"
#define DEV(dev) SLICE("nodeName: node-1, devices: [{name: d, " dev "}]")
#define CLAIM(devices) "{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c, namespace: ns}, spec: {devices: " devices "}}"
#define REQ(exactly) CLAIM("{requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, " exactly "}}]}")
#define CLASS(spec) "{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: gpu.example.com}, spec: " spec "}"
#define RULE(spec) "{apiVersion: resource.k8s.io/v1, kind: DeviceTaintRule, metadata: {name: r}, spec: " spec "}"
#define POD(spec) "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ns}, spec: " spec "}"
#define STATUS(status) "{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c, namespace: ns}, spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}, {name: nic, firstAvailable: [{name: fast, deviceClassName: nic}]}]}}, status: " status "}"
#define RESULT(extra) STATUS("{allocation: {devices: {results: [{request: gpu, driver: gpu.example.com, pool: p, device: d" extra "}]}}}")
/* clang-format on */

static const char LABEL_RE[] = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                               "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
                               "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/* Build a slice with n devices; taint adds one taint to the first. */
static char *many_devices(int n, bool taint)
{
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(
        &b, "{apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: s}, spec: {driver: d.example.com, "
            "pool: {name: p, resourceSliceCount: 1}, allNodes: true, devices: [");
    for (int i = 0; i < n; i++)
        dra_buf_printf(&b, "%s{name: d%d%s}", i ? ", " : "", i,
                       taint && i == 0 ? ", taints: [{key: k, effect: NoSchedule}]" : "");
    dra_buf_puts(&b, "]}}");
    return dra_buf_detach(&b);
}

/* Expand the single "%s" of doc into n comma-separated items (item_fmt gets i twice). */
static char *repeat_list(const char *doc, const char *item_fmt, int n)
{
    dra_buf b = DRA_BUF_INIT;
    for (int i = 0; i < n; i++) {
        if (i)
            dra_buf_puts(&b, ", ");
        dra_buf_printf(&b, item_fmt, i, i);
    }
    const char *at = strstr(doc, "%s");
    char *out = dra_xasprintf("%.*s%s%s", (int)(at - doc), doc, dra_buf_str(&b), at + 2);
    dra_buf_free(&b);
    return out;
}

/* ---- ResourceSlice ---- */

UNIT_TEST(slice_node_selection)
{
    CLEAN(SLICE("nodeName: node-1, devices: [{name: d}]"));
    CLEAN(SLICE("allNodes: true, devices: []"));
    HAS(SLICE("devices: []"), "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
                              "`perDeviceNodeSelection` is required");
    HAS(SLICE("nodeName: node-1, allNodes: true"),
        "spec: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
        "`perDeviceNodeSelection` is required, but multiple fields are set");
    HAS(SLICE("nodeName: '', allNodes: true"),
        "spec.nodeName: Invalid value: \"\": must be either unset or set to a non-empty string");
    HAS(SLICE("nodeName: node-1, allNodes: false"),
        "spec.allNodes: Invalid value: false: must be either unset or set to true");
    HAS(SLICE("nodeName: node-1, perDeviceNodeSelection: false"),
        "spec.perDeviceNodeSelection: Invalid value: false: must be either unset or set to true");
    HAS(SLICE("nodeName: Node_1"), "spec.nodeName: Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain must "
                                   "consist of lower case alphanumeric characters, '-' or '.', and must start and end "
                                   "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
                                   "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
}

UNIT_TEST(slice_node_selector)
{
    CLEAN(SLICE("nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}"));
    HAS(SLICE("nodeSelector: {nodeSelectorTerms: [{}, {}]}"),
        "spec.nodeSelector.nodeSelectorTerms: Invalid value: "
        "[{\"MatchExpressions\":null,\"MatchFields\":null},{\"MatchExpressions\":null,\"MatchFields\":null}]: must "
        "have exactly one node selector term");
    HAS(SLICE("nodeSelector: {nodeSelectorTerms: []}"),
        "spec.nodeSelector.nodeSelectorTerms: Required value: must have at least one node selector term");
    HAS(SLICE("nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: Foo}]}]}"),
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: \"Foo\": not a valid "
        "selector operator");
    HAS(SLICE("nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In}]}]}"),
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when "
        "`operator` is 'In' or 'NotIn'");
    HAS(SLICE("nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: Exists, values: [a]}]}]}"),
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: Forbidden: may not be specified when "
        "`operator` is 'Exists' or 'DoesNotExist'");
    HAS(SLICE(
            "nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: Gt, values: ['1', '2']}]}]}"),
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified single "
        "value when `operator` is 'Lt' or 'Gt'");
    HAS(SLICE("nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: spec.x, operator: In, values: [a]}]}]}"),
        "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].key: Invalid value: \"spec.x\": not a valid field "
        "selector key");
    HAS(SLICE(
            "nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [a, b]}]}]}"),
        "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one value when "
        "`operator` is 'In' or 'NotIn' for node field selector");
}

UNIT_TEST(slice_pool_and_driver)
{
    HAS("{apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: s}, spec: {driver: bad_driver, "
        "allNodes: true, pool: {name: p, resourceSliceCount: 1}}}",
        "spec.driver: Invalid value: \"bad_driver\": a lowercase RFC 1123 subdomain must consist of lower case "
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
/* clang-format off */
#define POOL(pool) "{apiVersion: resource.k8s.io/v1, kind: ResourceSlice, metadata: {name: s}, spec: {driver: d.example.com, allNodes: true, pool: " pool "}}"
    /* clang-format on */
    HAS(POOL("{name: p, resourceSliceCount: 0}"),
        "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero");
    HAS(POOL("{name: p, resourceSliceCount: 1, generation: -1}"),
        "spec.pool.generation: Invalid value: -1: must be greater than or equal to zero");
    HAS(POOL("{resourceSliceCount: 1}"), "spec.pool.name: Required value");
    CLEAN(POOL("{name: a/b.c, resourceSliceCount: 2, generation: 5}"));
}

UNIT_TEST(slice_devices)
{
    char want[1024];
    snprintf(want, sizeof want, "spec.devices[0].name: Invalid value: \"Foo\": %s", LABEL_RE);
    HAS(SLICE("nodeName: node-1, devices: [{name: Foo}]"), want);
    HAS(SLICE("nodeName: node-1, devices: [{name: d}, {name: d}]"), "spec.devices[1]: Duplicate value: \"d\"");
    HAS(SLICE("nodeName: node-1, sharedCounters: [{name: cs, counters: {c: {value: '1'}}}], devices: [{name: d}]"),
        "spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed");
    char *s = many_devices(128, false);
    CLEAN(s);
    free(s);
    s = many_devices(129, false);
    HAS(s, "spec.devices: Too many: 129: must have at most 128 items");
    free(s);
    s = many_devices(64, true);
    CLEAN(s);
    free(s);
    s = many_devices(65, true);
    HAS(s, "spec.devices: Too many: 65: must have at most 64 items");
    free(s);
    HAS(SLICE("nodeName: node-1, devices: x"), "spec.devices: Invalid value: \"x\": must be of type array");
}

UNIT_TEST(slice_attributes)
{
    CLEAN(DEV("attributes: {model: {string: a100}, gpu.example.com/numa: {int: 1}, ok: {bool: true}, v: {version: "
              "1.0.0-rc.1+build.5}}"));
    /* the declarative union of resource/v1 DeviceAttribute, in place of
     * validation.go's "exactly one value must be specified" */
    HAS(DEV("attributes: {a: {int: 1, bool: true}}"),
        "spec.devices[0].attributes[a]: Invalid value: \"{int, bool}\": must specify exactly one of: `int`, `bool`, "
        "`string`, `version`, `ints`, `bools`, `strings`, `versions`");
    HAS(DEV("attributes: {a: {}}"), "spec.devices[0].attributes[a]: Invalid value: \"\": must specify one of: `int`, "
                                    "`bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`");
    HAS(DEV("attributes: {a: {string: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}}"),
        "spec.devices[0].attributes[a].string: Too long: may not be more than 64 bytes");
    HAS(DEV("attributes: {a: {version: '1.0'}}"), "spec.devices[0].attributes[a].version: Invalid value: \"1.0\": must "
                                                  "be a string compatible with semver.org spec 2.0.0");
    HAS(DEV("attributes: {a: {version: 01.0.0}}"), "spec.devices[0].attributes[a].version: Invalid value: \"01.0.0\": "
                                                   "must be a string compatible with semver.org spec 2.0.0");
    HAS(DEV("attributes: {a: {version: 1.0.0-01}}"),
        "spec.devices[0].attributes[a].version: Invalid value: \"1.0.0-01\": must be a string compatible with "
        "semver.org spec 2.0.0");
    HAS(DEV("attributes: {a-b: {int: 1}}"),
        "spec.devices[0].attributes: Invalid value: \"a-b\": a valid C identifier must start with alphabetic character "
        "or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', "
        "regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')");
    HAS(DEV("attributes: {/x: {int: 1}}"),
        "spec.devices[0].attributes: Invalid value: \"\": the domain must not be empty");
    HAS(DEV("attributes: {a: {int: x}}"),
        "spec.devices[0].attributes[a].int: Invalid value: \"x\": must be of type integer");
    /* lists only with DRAListTypeAttributes: without it the API server
     * drops them, leaving no value */
    HAS(DEV("attributes: {a: {ints: [1, 2]}}"),
        "spec.devices[0].attributes[a]: Invalid value: \"\": must specify one of: `int`, `bool`, `string`, `version`, "
        "`ints`, `bools`, `strings`, `versions`");
    CLEAN(DEV("attributes: {a: {int: 1, ints: [1, 2]}}"));
    with_gate(DRA_FEATURE_LIST_TYPE_ATTRIBUTES, true);
    HAS(DEV("attributes: {a: {ints: []}}"),
        "spec.devices[0].attributes[a].ints: Invalid value: []: must not be empty if specified");
    /* an empty list is not a value of the union */
    HAS(DEV("attributes: {a: {ints: []}}"),
        "spec.devices[0].attributes[a]: Invalid value: \"\": must specify one of: `int`, `bool`, `string`, `version`, "
        "`ints`, `bools`, `strings`, `versions`");
    HAS(DEV("attributes: {a: {string: x, strings: [y]}}"),
        "spec.devices[0].attributes[a]: Invalid value: \"{string, strings}\": must specify exactly one of: `int`, "
        "`bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`");
    CLEAN(DEV("attributes: {a: {ints: [1, 2]}, b: {strings: [x]}}"));
    char *s = repeat_list(SLICE("nodeName: node-1, devices: [{name: d, attributes: {a: {ints: [%s]}}}]"), "%d", 49);
    HAS(s, "spec.devices[0]: Invalid value: 49: the total number of attribute values must not exceed 48");
    free(s);
    use_gates = NULL;
    s = repeat_list(SLICE("nodeName: node-1, devices: [{name: d, attributes: {%s}}]"), "a%d: {int: %d}", 33);
    HAS(s, "spec.devices[0]: Invalid value: 33: the total number of attributes and capacities must not exceed 32");
    free(s);
    s = repeat_list(SLICE("nodeName: node-1, devices: [{name: d, attributes: {%s}}]"), "a%d: {int: %d}", 32);
    CLEAN(s);
    free(s);
}

/* Validation errors of obj as "field: msg" lines (caller frees). */
static char *lines_of(dra_err *e)
{
    dra_buf out = DRA_BUF_INIT;
    for (dra_err *i = e; i; i = i->next)
        dra_buf_printf(&out, "%s: %s\n", i->field ? i->field : "", i->msg);
    dra_err_free(e);
    dra_buf_puts(&out, "");
    return dra_buf_detach(&out);
}

/* Devices that share one json_t (as the readers' interner makes them) are
 * checked once for it, with the same findings: what a shared value counts
 * still counts at every device that has it, and a bad shared value is
 * reported at every device. */
UNIT_TEST(slice_shared_values_count_and_report_everywhere)
{
    json_t *ints = json_array();
    for (int i = 0; i < 30; i++)
        json_array_append_new(ints, json_integer(i));
    json_t *list = json_pack("{s:o}", "ints", ints);                  /* 30 values, shared by two attributes */
    json_t *bad_caps = json_pack("{s:{s:s}}", "mem", "value", "8Qi"); /* shared by two devices */
    json_t *ok_caps = json_pack("{s:{s:s}}", "mem", "value", "8Gi");
    json_t *devices = json_array();
    for (int d = 0; d < 3; d++) {
        json_t *dev = json_pack("{s:s, s:{s:O, s:O}}", "name",
                                d == 0   ? "a"
                                : d == 1 ? "b"
                                         : "c",
                                "attributes", "x", list, "y", list);
        json_object_set(dev, "capacity", d < 2 ? bad_caps : ok_caps);
        json_array_append_new(devices, dev);
    }
    json_t *slice =
        json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:{s:s, s:i, s:i}, s:s, s:o}}", "apiVersion", "resource.k8s.io/v1",
                  "kind", "ResourceSlice", "metadata", "name", "s", "spec", "driver", "gpu.example.com", "pool", "name",
                  "p", "generation", 1, "resourceSliceCount", 1, "nodeName", "node-1", "devices", devices);
    char *got = lines_of(dra_validate_resource_slice(slice, NULL));
    for (int d = 0; d < 3; d++) {
        char want[160];
        snprintf(want, sizeof want,
                 "spec.devices[%d]: Invalid value: 60: the total number of attribute values must "
                 "not exceed 48\n",
                 d);
        CHECK(strstr(got, want) != NULL);
    }
    CHECK(strstr(got, "spec.devices[0].capacity[mem].value: Invalid value: \"8Qi\"") != NULL);
    CHECK(strstr(got, "spec.devices[1].capacity[mem].value: Invalid value: \"8Qi\"") != NULL);
    CHECK(strstr(got, "spec.devices[2].capacity") == NULL);
    free(got);
    json_decref(slice);
    json_decref(list);
    json_decref(bad_caps);
    json_decref(ok_caps);
}

/* Names checked once per object when valid (dra_vcheck_name): a bad one is
 * still reported at every device that has it. */
UNIT_TEST(slice_repeated_names_report_everywhere)
{
    char *s =
        repeat_list(SLICE("nodeName: node-1, devices: [%s]"),
                    "{name: d%d, attributes: {ok: {int: 1}, bad-name: {int: 1}}, capacity: {mem: {value: 1Gi}}}", 3);
    char *got = errs_of(s);
    static const char msg[] = "attributes: Invalid value: \"bad-name\": a valid C identifier must start";
    for (int d = 0; d < 3; d++) {
        char want[160];
        snprintf(want, sizeof want, "spec.devices[%d].%s", d, msg);
        CHECK(strstr(got, want) != NULL);
    }
    CHECK(strstr(got, "[ok]") == NULL && strstr(got, "mem") == NULL);
    free(got);
    free(s);
}

#define CAP(policy) DEV("allowMultipleAllocations: true, capacity: {mem: {value: 8Gi, requestPolicy: " policy "}}")

UNIT_TEST(slice_capacity_policies)
{
    CLEAN(DEV("capacity: {mem: {value: 8Gi}}"));
    HAS(DEV("capacity: {mem: {value: 8Gi, requestPolicy: {default: 1Gi}}}"),
        "spec.devices[0].capacity[mem].requestPolicy: Forbidden: allowMultipleAllocations must be true");
    CLEAN(CAP("{default: 1Gi, validValues: [1Gi, 2Gi, 4Gi]}"));
    CLEAN(CAP("{default: 2Gi, validRange: {min: 1Gi, max: 7Gi, step: 1Gi}}"));
    HAS(CAP("{default: 1Gi, validValues: [1Gi], validRange: {min: 1Gi}}"),
        "spec.devices[0].capacity[mem].requestPolicy: Forbidden: exactly one policy can be specified, cannot specify "
        "\"validValues\" and \"validRange\" at the same time");
    HAS(CAP("{validValues: [1Gi]}"),
        "spec.devices[0].capacity[mem].requestPolicy.default: Required value: required when validValues is defined");
    HAS(CAP("{default: 1Gi, validValues: [2Gi, 1Gi]}"),
        "spec.devices[0].capacity[mem].requestPolicy.validValues[1]: Invalid value: \"1Gi\": values must be sorted in "
        "ascending order");
    HAS(CAP("{default: 1Gi, validValues: [1Gi, 16Gi]}"),
        "spec.devices[0].capacity[mem].requestPolicy.validValues[1]: Invalid value: \"16Gi\": option is larger than "
        "capacity value: 8Gi");
    HAS(CAP("{default: 3Gi, validValues: [1Gi, 2Gi]}"),
        "spec.devices[0].capacity[mem].requestPolicy.validValues: Invalid value: \"3Gi\": default value is not valid "
        "according to the requestPolicy");
    HAS(CAP("{default: 1Gi, validValues: [1Gi, 1Gi]}"),
        "spec.devices[0].capacity[mem].requestPolicy.validValues[1]: Duplicate value: \"1073741824\"");
    HAS(CAP("{default: 1, validValues: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}"),
        "spec.devices[0].capacity[mem].requestPolicy.validValues: Too many: 11: must have at most 10 items");
    HAS(CAP("{validRange: {min: 1Gi}}"),
        "spec.devices[0].capacity[mem].requestPolicy.default: Required value: required when validRange is defined");
    HAS(CAP("{default: 1Gi, validRange: {max: 2Gi}}"), "spec.devices[0].capacity[mem].requestPolicy.validRange.min: "
                                                       "Required value: required when validRange is defined");
    HAS(CAP("{default: 2Gi, validRange: {min: 1Gi, step: 2Gi}}"),
        "spec.devices[0].capacity[mem].requestPolicy.validRange.step: Invalid value: \"2Gi\": value is not a multiple "
        "of a given step (2Gi) from (1Gi)");
    HAS(CAP("{default: 1Gi, validRange: {min: 2Gi}}"), "spec.devices[0].capacity[mem].requestPolicy.validRange.default:"
                                                       " Invalid value: \"1Gi\": default is less than min: 2Gi");
    HAS(CAP("{default: 1Gi, validRange: {min: 9Gi}}"),
        "spec.devices[0].capacity[mem].requestPolicy.validRange.min: Invalid value: \"9Gi\": min is larger than "
        "capacity value: 8Gi");
    HAS(CAP("{default: 4Gi, validRange: {min: 1Gi, max: 2Gi}}"),
        "spec.devices[0].capacity[mem].requestPolicy.validRange.default: Invalid value: \"4Gi\": default is more than "
        "max: 2Gi");
    HAS(CAP("{default: 1Gi, validRange: {min: 1Gi, step: '0'}}"),
        "spec.devices[0].capacity[mem].requestPolicy.validRange.step: Invalid value: \"0\": must be greater than zero");
    HAS(DEV("capacity: {mem: {value: 1x}}"),
        "spec.devices[0].capacity[mem].value: Invalid value: \"1x\": quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

/* DRAFractionalCapacityRange (beta in 1.37, off by default): milli-unit
 * checks of validRange and AsDec keys of validValues, the cases of upstream's
 * pkg/apis/resource/validation/validation_device_capacity_test.go. */
#define CAP1(policy) DEV("allowMultipleAllocations: true, capacity: {mem: {value: '1', requestPolicy: " policy "}}")
#define CAPP(policy) DEV("allowMultipleAllocations: true, capacity: {mem: {value: 100P, requestPolicy: " policy "}}")
#define RP "spec.devices[0].capacity[mem].requestPolicy."
UNIT_TEST(slice_capacity_fractional_range)
{
    /* gate off (the default): integer arithmetic sees no misalignment */
    CLEAN(CAP1("{default: 200m, validRange: {min: 200m, max: '1', step: 100m}}"));
    CLEAN(CAP1("{default: 250m, validRange: {min: 200m, max: '1', step: 100m}}"));
    CLEAN(CAP1("{default: 20u, validRange: {min: 10u}}"));
    dra_features_default(&gates);
    dra_err *gate_err = dra_features_set(&gates, DRA_FEATURE_FRACTIONAL_CAPACITY_RANGE, true);
    CHECK(gate_err == NULL);
    dra_err_free(gate_err);
    use_gates = &gates;
    CLEAN(CAP1("{default: 200m, validRange: {min: 200m, max: '1', step: 100m}}"));
    HAS(CAP1("{default: 250m, validRange: {min: 200m, max: '1', step: 100m}}"),
        RP "validRange.step: Invalid value: \"250m\": value is not a multiple of a given step (100m) from (200m)");
    /* a fractional default alone selects milli arithmetic */
    HAS(CAP1("{default: 500m, validRange: {min: '0', step: '1'}}"),
        RP "validRange.step: Invalid value: \"500m\": value is not a multiple of a given step (1) from (0)");
    HAS(CAP1("{default: 20u, validRange: {min: 10u}}"),
        RP "validRange.default: Invalid value: \"20u\": value cannot be represented as a milli value");
    HAS(CAP1("{default: 20u, validRange: {min: 10u}}"),
        RP "validRange.min: Invalid value: \"10u\": value cannot be represented as a milli value");
    HAS(CAPP("{default: 20P, validRange: {min: 10P, step: 100m}}"),
        RP "validRange.default: Invalid value: \"20P\": value cannot be represented as a milli value");
    HAS(CAPP("{default: 20P, validRange: {min: 10P, step: 100m}}"),
        RP "validRange.min: Invalid value: \"10P\": value cannot be represented as a milli value");
    /* nothing more is checked once a value is not a milli value */
    LACKS(CAPP("{default: 20P, validRange: {min: 10P, step: 100m}}"),
          RP "validRange.step: Invalid value: \"100m\": value is not a multiple of a given step (100m) from (10P)");
    /* integral ranges keep the integer path with the gate on */
    HAS(CAP("{default: 2Gi, validRange: {min: 1Gi, step: 2Gi}}"),
        RP "validRange.step: Invalid value: \"2Gi\": value is not a multiple of a given step (2Gi) from (1Gi)");
    /* validValues: 100m, 200m and 1 are distinct; keys are AsDec().String() */
    CLEAN(CAP("{default: 100m, validValues: [100m, 200m, '1']}"));
    HAS(CAP("{default: 100m, validValues: [100m, 100m]}"), RP "validValues[1]: Duplicate value: \"0.100\"");
    HAS(CAP("{default: 1Ki, validValues: [1Ki, '1024']}"), RP "validValues[1]: Duplicate value: \"1024\"");
    CLEAN(CAP("{default: 9900m, validValues: [9900m, '10']}")); /* the same integer key without the gate */
    use_gates = NULL;
    HAS(CAP("{default: 9900m, validValues: [9900m, '10']}"), RP "validValues[1]: Duplicate value: \"10\"");
}

/* nodeAllocatableResources (DRANodeAllocatableResources, 1.37 shape):
 * pkg/apis/resource/validation validateNodeAllocatableResources. */
/* clang-format off */
#define NAR(x) DEV("allowMultipleAllocations: true, capacity: {example.com/cores: {value: '8'}}, nodeAllocatableResources: " x)
/* clang-format on */
#define NP "spec.devices[0].nodeAllocatableResources"
UNIT_TEST(slice_node_allocatable_resources)
{
    /* dropped by the API server without the gate (alpha, off) */
    CLEAN(NAR("{ephemeral-storage: {overhead: {perPod: 1Gi}}}"));
    with_gate(DRA_FEATURE_NODE_ALLOCATABLE_RESOURCES, true);
    CLEAN(NAR("{cpu: {mapping: {capacityKey: example.com/cores, capacityMultiplier: '2'}}}"));
    CLEAN(NAR("{cpu: {mapping: {deviceMultiplier: '8'}}, memory: {overhead: {perPod: 1Gi}}, hugepages-2Mi: {overhead: "
              "{perContainer: 2Mi}}}"));
    CLEAN(NAR("{memory: {mapping: {deviceMultiplier: 1Gi}, overhead: {perPod: 1Gi, perContainer: '0'}}}"));
    HAS(NAR("{ephemeral-storage: {overhead: {perPod: 1Gi}}}"),
        NP "[ephemeral-storage]: Invalid value: \"ephemeral-storage\": must be a node allocatable resource name");
    HAS(NAR("{example.com/gpu: {overhead: {perPod: '1'}}}"),
        NP "[example.com/gpu]: Invalid value: \"example.com/gpu\": must be a node allocatable resource name");
    HAS(NAR("{cpu: {}}"), NP "[cpu]: Required value: at least one of mapping or overhead must be set");
    HAS(NAR("{cpu: {mapping: {capacityKey: example.com/none, capacityMultiplier: '1'}}}"),
        NP "[cpu].mapping.capacityKey: Not found: \"example.com/none\"");
    HAS(NAR("{cpu: {mapping: {capacityKey: '', capacityMultiplier: '1'}}}"),
        NP "[cpu].mapping.capacityKey: Invalid value: \"\": capacityKey must not be an empty string");
    HAS(NAR("{cpu: {mapping: {capacityKey: example.com/cores}}}"),
        NP "[cpu].mapping.capacityMultiplier: Required value: capacityMultiplier is required when capacityKey is set");
    HAS(NAR("{cpu: {mapping: {capacityKey: example.com/cores, capacityMultiplier: '0'}}}"),
        NP "[cpu].mapping.capacityMultiplier: Invalid value: \"0\": must be positive");
    HAS(NAR("{cpu: {mapping: {deviceMultiplier: '-1'}}}"),
        NP "[cpu].mapping.deviceMultiplier: Invalid value: \"-1\": must be positive");
    HAS(NAR("{cpu: {mapping: {capacityMultiplier: '2', deviceMultiplier: '1'}}}"),
        NP "[cpu].mapping.capacityKey: Required value: capacityKey is required when capacityMultiplier is set");
    HAS(NAR("{cpu: {mapping: {capacityKey: example.com/cores, capacityMultiplier: '1', deviceMultiplier: '1'}}}"),
        NP "[cpu].mapping: Invalid value: \"{capacityKey, deviceMultiplier}\": must specify exactly one of: "
           "`capacityKey`, `deviceMultiplier`");
    HAS(NAR("{cpu: {mapping: {}}}"),
        NP "[cpu].mapping: Invalid value: \"\": must specify one of: `capacityKey`, `deviceMultiplier`");
    HAS(NAR("{cpu: {overhead: {}}}"),
        NP "[cpu].overhead: Invalid value: \"\": at least one of perPod or perContainer must be set");
    HAS(NAR("{cpu: {overhead: {perPod: -100m}}}"),
        NP "[cpu].overhead.perPod: Invalid value: \"-100m\": must be non-negative");
    HAS(NAR("{cpu: {overhead: {perContainer: -1}}}"),
        NP "[cpu].overhead.perContainer: Invalid value: \"-1\": must be non-negative");
    HAS(NAR("{cpu: {overhead: {perPod: 1x}}}"),
        NP "[cpu].overhead.perPod: Invalid value: \"1x\": quantities must match the regular expression "
           "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    use_gates = NULL;
}

UNIT_TEST(slice_taints)
{
    CLEAN(
        DEV("taints: [{key: example.com/broken, value: 'yes', effect: NoExecute, timeAdded: '2025-01-02T03:04:05Z'}]"));
    HAS(DEV("taints: [{key: k}]"), "spec.devices[0].taints[0].effect: Required value");
    HAS(DEV("taints: [{key: k, effect: Bad}]"), "spec.devices[0].taints[0].effect: Unsupported value: \"Bad\": "
                                                "supported values: \"NoExecute\", \"NoSchedule\", \"None\"");
    HAS(DEV("taints: [{effect: None}]"),
        "spec.devices[0].taints[0].key: Invalid value: \"\": name part must be non-empty");
    HAS(DEV("taints: [{key: k, value: -x, effect: None}]"),
        "spec.devices[0].taints[0].value: Invalid value: \"-x\": a valid label must be an empty string or consist of "
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
        "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
    HAS(DEV("taints: [{key: k, effect: None, timeAdded: yesterday}]"),
        "spec.devices[0].taints[0].timeAdded: Invalid value: \"yesterday\": must be an RFC 3339 date-time");
    char *s =
        repeat_list(SLICE("nodeName: node-1, devices: [{name: d, taints: [%s]}]"), "{key: k%d, effect: None}", 17);
    HAS(s, "spec.devices[0].taints: Too many: 17: must have at most 16 items");
    free(s);
}

UNIT_TEST(slice_counters)
{
    CLEAN(SLICE("nodeName: node-1, sharedCounters: [{name: gpu-0, counters: {memory: {value: 80Gi}}}]"));
    HAS(SLICE("nodeName: node-1, sharedCounters: [{counters: {memory: {value: 1}}}]"),
        "spec.sharedCounters[0].name: Required value");
    HAS(SLICE("nodeName: node-1, sharedCounters: [{name: cs}]"), "spec.sharedCounters[0].counters: Required value");
    HAS(SLICE("nodeName: node-1, sharedCounters: [{name: cs, counters: {a: {value: 1}}}, {name: cs, counters: {a: "
              "{value: 1}}}]"),
        "spec.sharedCounters[1]: Duplicate value: {\"name\":\"cs\",\"counters\":{\"a\":{\"value\":\"1\"}}}");
    char want[1024];
    snprintf(want, sizeof want, "spec.sharedCounters[0].counters: Invalid value: \"Mem\": %s", LABEL_RE);
    HAS(SLICE("nodeName: node-1, sharedCounters: [{name: cs, counters: {Mem: {value: 1}}}]"), want);
    char *s =
        repeat_list(SLICE("nodeName: node-1, sharedCounters: [%s]"), "{name: cs%d, counters: {a: {value: %d}}}", 9);
    HAS(s, "spec.sharedCounters: Too many: 9: must have at most 8 items");
    free(s);
    s = repeat_list(SLICE("nodeName: node-1, sharedCounters: [{name: cs, counters: {%s}}]"), "c%d: {value: %d}", 33);
    HAS(s, "spec.sharedCounters[0].counters: Too many: 33: must have at most 32 items");
    free(s);
    CLEAN(DEV("consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 10Gi}}}]"));
    HAS(DEV("consumesCounters: [{counters: {memory: {value: 1}}}]"),
        "spec.devices[0].consumesCounters[0].counterSet: Required value");
    HAS(DEV("consumesCounters: [{counterSet: cs}]"), "spec.devices[0].consumesCounters[0].counters: Required value");
    HAS(DEV("consumesCounters: [{counterSet: cs, counters: {a: {value: 1}}}, {counterSet: cs, counters: {a: {value: "
            "1}}}]"),
        "spec.devices[0].consumesCounters[1]: Duplicate value: "
        "{\"counterSet\":\"cs\",\"counters\":{\"a\":{\"value\":\"1\"}}}");
    HAS(DEV("consumesCounters: [{counterSet: a, counters: {a: {value: 1}}}, {counterSet: b, counters: {a: {value: "
            "1}}}, {counterSet: c, counters: {a: {value: 1}}}]"),
        "spec.devices[0].consumesCounters: Too many: 3: must have at most 2 items");
}

UNIT_TEST(slice_per_device_nodes)
{
    CLEAN(SLICE("perDeviceNodeSelection: true, devices: [{name: a, nodeName: n1}, {name: b, allNodes: true}]"));
    HAS(SLICE("perDeviceNodeSelection: true, devices: [{name: a}]"),
        "spec.devices[0]: Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
        "`perDeviceNodeSelection` is set to true in the ResourceSlice spec");
    HAS(SLICE("perDeviceNodeSelection: true, devices: [{name: a, nodeName: node-1, allNodes: true}]"),
        "spec.devices[0]: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of `nodeName`, `nodeSelector`, or "
        "`allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec");
    HAS(SLICE("perDeviceNodeSelection: true, devices: [{name: a, nodeName: ''}]"),
        "spec.devices[0].nodeName: Invalid value: \"\": must not be empty");
    HAS(SLICE("nodeName: node-1, devices: [{name: a, nodeName: node-1}]"),
        "spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if "
        "`perDeviceNodeSelection` is set to true in the ResourceSlice spec");
}

UNIT_TEST(slice_binding_conditions)
{
    CLEAN(DEV("bindingConditions: [Attached], bindingFailureConditions: [Failed]"));
    HAS(DEV("bindingConditions: [Attached]"), "spec.devices[0].bindingFailureConditions: Invalid value: null: "
                                              "bindingFailureConditions are required to use bindingConditions");
    HAS(DEV("bindingFailureConditions: [Failed]"), "spec.devices[0].bindingConditions: Invalid value: null: "
                                                   "bindingConditions are required to use bindingFailureConditions");
    HAS(DEV("bindingConditions: [A, A], bindingFailureConditions: [F]"),
        "spec.devices[0].bindingConditions[1]: Duplicate value: \"A\"");
    HAS(DEV("bindingConditions: [A], bindingFailureConditions: [A]"),
        "spec.devices[0].bindingFailureConditions[0]: Invalid value: \"A\": bindingFailureConditions must not overlap "
        "with bindingConditions");
    HAS(DEV("bindingConditions: [a, b, c, d, e], bindingFailureConditions: [f]"),
        "spec.devices[0].bindingConditions: Too many: 5: must have at most 4 items");
    HAS(DEV("bindingConditions: ['a b'], bindingFailureConditions: [f]"),
        "spec.devices[0].bindingConditions[0]: Invalid value: \"a b\": name part must consist of alphanumeric "
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
}

UNIT_TEST(metadata)
{
    HAS("{apiVersion: resource.k8s.io/v1, kind: ResourceSlice, spec: {}}",
        "metadata.name: Required value: name or generateName is required");
    CLEAN("{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {generateName: gpu-}}");
    HAS("{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: Gpu}}",
        "metadata.name: Invalid value: \"Gpu\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
        "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
        "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    HAS("{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: c, namespace: x}}",
        "metadata.namespace: Forbidden: not allowed on this type");
    HAS("{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: c, labels: {'a/b/c': x}}}",
        "metadata.labels: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', "
        "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
        "subdomain prefix and '/' (e.g. 'example.com/MyName')");
    HAS("{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c, namespace: Bad_Ns}, spec: {devices: "
        "{}}}",
        "metadata.namespace: Invalid value: \"Bad_Ns\": a lowercase RFC 1123 label must consist of lower case "
        "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
        "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    /* Direct validation (no load defaulting): a claim needs a namespace. */
    json_t *o = json_pack("{s:s,s:s,s:{s:s},s:{}}", "apiVersion", "resource.k8s.io/v1", "kind", "ResourceClaim",
                          "metadata", "name", "c", "spec");
    dra_err *e = dra_validate(o, DRA_KIND_RESOURCE_CLAIM, NULL);
    CHECK(e && strcmp(e->field, "metadata.namespace") == 0 && strcmp(e->msg, "Required value") == 0);
    dra_err_free(e);
    json_decref(o);
}

/* ---- ResourceClaim ---- */

UNIT_TEST(claim_requests)
{
    CLEAN(REQ("count: 2"));
    CLEAN(CLAIM("{requests: [{name: nic, firstAvailable: [{name: a, deviceClassName: dc-x}, {name: b, deviceClassName: "
                "dc-y, allocationMode: All}]}]}"));
    HAS(CLAIM("{requests: [{name: gpu}]}"),
        "spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required");
    HAS(CLAIM("{requests: [{name: gpu, exactly: {deviceClassName: c}, firstAvailable: [{name: a, deviceClassName: "
              "c}]}]}"),
        "spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but "
        "multiple fields are set");
    HAS(CLAIM("{requests: [{name: gpu, exactly: {count: 1}}]}"),
        "spec.devices.requests[0].exactly.deviceClassName: Required value");
    HAS(REQ("count: -1"), "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero");
    HAS(REQ("allocationMode: All, count: 2"),
        "spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'");
    CLEAN(REQ("allocationMode: All"));
    HAS(REQ("allocationMode: Foo"), "spec.devices.requests[0].exactly.allocationMode: Unsupported value: \"Foo\": "
                                    "supported values: \"All\", \"ExactCount\"");
    HAS(CLAIM("{requests: [{name: gpu, exactly: {deviceClassName: c}}, {name: gpu, exactly: {deviceClassName: c}}]}"),
        "spec.devices.requests[1]: Duplicate value: "
        "{\"name\":\"gpu\",\"exactly\":{\"deviceClassName\":\"c\",\"allocationMode\":\"ExactCount\",\"count\":1}}");
    char want[1024];
    snprintf(want, sizeof want, "spec.devices.requests[0].name: Invalid value: \"GPU\": %s", LABEL_RE);
    HAS(CLAIM("{requests: [{name: GPU, exactly: {deviceClassName: c}}]}"), want);
    char *s = repeat_list(CLAIM("{requests: [%s]}"), "{name: r%d, exactly: {deviceClassName: c%d}}", 33);
    HAS(s, "spec.devices.requests: Too many: 33: must have at most 32 items");
    free(s);
    s = repeat_list(CLAIM("{requests: [{name: r, firstAvailable: [%s]}]}"), "{name: s%d, deviceClassName: c%d}", 9);
    HAS(s, "spec.devices.requests[0].firstAvailable: Too many: 9: must have at most 8 items");
    free(s);
    HAS(CLAIM(
            "{requests: [{name: r, firstAvailable: [{name: a, deviceClassName: c}, {name: a, deviceClassName: c}]}]}"),
        "spec.devices.requests[0].firstAvailable[1]: Duplicate value: "
        "{\"name\":\"a\",\"deviceClassName\":\"c\",\"allocationMode\":\"ExactCount\",\"count\":1}");
    HAS(CLAIM("{requests: [{name: r, firstAvailable: [{name: a}]}]}"),
        "spec.devices.requests[0].firstAvailable[0].deviceClassName: Required value");
    CLEAN(REQ("capacity: {requests: {dra.example.com/memory: 4Gi}}"));
    HAS(REQ("capacity: {requests: {mem: 4Xi}}"),
        "spec.devices.requests[0].exactly.capacity.requests[mem]: Invalid value: \"4Xi\": quantities must match the "
        "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

static dra_err *fake_cel(void *ctx, const char *expr, size_t len, uint64_t *cost)
{
    if (strstr(expr, "bad"))
        return dra_err_new(DRA_EXIT_INPUT, "compilation failed: ERROR: <input>:1:1: undeclared reference to 'bad'");
    *cost = strstr(expr, "expensive") ? 2000000 : len;
    return NULL;
}

UNIT_TEST(claim_selectors_and_cel)
{
    CLEAN(REQ("selectors: [{cel: {expression: 'device.driver == \"x\"'}}]"));
    HAS(REQ("selectors: [{}]"), "spec.devices.requests[0].exactly.selectors[0].cel: Required value");
    char *s = repeat_list(REQ("selectors: [%s]"), "{cel: {expression: 'true'}}", 33);
    HAS(s, "spec.devices.requests[0].exactly.selectors: Too many: 33: must have at most 32 items");
    free(s);
    char *big = dra_xmalloc(10300);
    memset(big, 'x', 10241);
    big[10241] = '\0';
    char *doc = dra_xasprintf(
        "{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c, namespace: ns}, spec: {devices: "
        "{requests: [{name: gpu, exactly: {deviceClassName: c, selectors: [{cel: {expression: '%s'}}]}}]}}}",
        big);
    HAS(doc,
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Too long: may not be more than 10240 bytes");
    free(doc);
    big[10240] = '\0';
    doc = dra_xasprintf(
        "{apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c, namespace: ns}, spec: {devices: "
        "{requests: [{name: gpu, exactly: {deviceClassName: c, selectors: [{cel: {expression: '%s'}}]}}]}}}",
        big);
    CLEAN(doc);
    free(doc);
    free(big);
    use_cel = fake_cel;
    HAS(REQ("selectors: [{cel: {expression: bad}}]"),
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: \"bad\": compilation failed: "
        "ERROR: <input>:1:1: undeclared reference to 'bad'");
    HAS(REQ("selectors: [{cel: {expression: expensive}}]"),
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit");
    CLEAN(REQ("selectors: [{cel: {expression: fine}}]"));
    HAS(CLASS("{selectors: [{cel: {expression: bad}}]}"),
        "spec.selectors[0].cel.expression: Invalid value: \"bad\": compilation failed: ERROR: <input>:1:1: undeclared "
        "reference to 'bad'");
    use_cel = NULL;
    CLEAN(REQ("selectors: [{cel: {expression: bad}}]")); /* no hook: length only */
}

UNIT_TEST(claim_tolerations)
{
    CLEAN(REQ("tolerations: [{key: example.com/broken, operator: Exists, effect: NoExecute, tolerationSeconds: 60}]"));
    CLEAN(REQ("tolerations: [{key: k, value: v}]")); /* operator defaults to Equal */
    HAS(REQ("tolerations: [{key: k, operator: Exists, value: v}]"),
        "spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: \"v\": must be empty for operator "
        "`Exists`");
    HAS(REQ("tolerations: [{key: k, operator: Foo}]"),
        "spec.devices.requests[0].exactly.tolerations[0].operator: Unsupported value: \"Foo\": supported values: "
        "\"Equal\", \"Exists\"");
    HAS(REQ("tolerations: [{key: k, effect: Sometimes}]"),
        "spec.devices.requests[0].exactly.tolerations[0].effect: Unsupported value: \"Sometimes\": supported values: "
        "\"NoExecute\", \"NoSchedule\", \"None\"");
    HAS(REQ("tolerations: [{key: k, value: -v}]"),
        "spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: \"-v\": a valid label must be an empty "
        "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
    HAS(REQ("tolerations: [{key: k, tolerationSeconds: soon}]"),
        "spec.devices.requests[0].exactly.tolerations[0].tolerationSeconds: Invalid value: \"soon\": must be of type "
        "integer");
    char *s = repeat_list(REQ("tolerations: [%s]"), "{key: k%d, operator: Exists}", 17);
    CLEAN(s); /* no limit: DeviceTolerationsMaxLength is checked nowhere upstream */
    free(s);
}

/* clang-format off */
#define TWO_REQS "requests: [{name: gpu, exactly: {deviceClassName: c}}, {name: nic, firstAvailable: [{name: fast, deviceClassName: c}]}]"
/* clang-format on */

UNIT_TEST(claim_constraints)
{
    CLEAN(CLAIM("{" TWO_REQS ", constraints: [{requests: [gpu, nic/fast], matchAttribute: example.com/numa}, "
                "{distinctAttribute: example.com/id}]}"));
    HAS(CLAIM("{" TWO_REQS ", constraints: [{requests: [nope], matchAttribute: example.com/numa}]}"),
        "spec.devices.constraints[0].requests[0]: Invalid value: \"nope\": must be the name of a request in the claim "
        "or the name of a request and a subrequest separated by '/'");
    HAS(CLAIM("{" TWO_REQS ", constraints: [{requests: [gpu/x], matchAttribute: example.com/numa}]}"),
        "spec.devices.constraints[0].requests[0]: Invalid value: \"gpu/x\": must be the name of a request in the claim "
        "or the name of a request and a subrequest separated by '/'");
    HAS(CLAIM("{" TWO_REQS ", constraints: [{requests: [a/b/c], matchAttribute: example.com/numa}]}"),
        "spec.devices.constraints[0].requests[0]: Invalid value: \"a/b/c\": must be the name of a request in the claim "
        "or the name of a request and a subrequest separated by '/'");
    HAS(CLAIM("{" TWO_REQS ", constraints: [{requests: [gpu, gpu], matchAttribute: example.com/numa}]}"),
        "spec.devices.constraints[0].requests[1]: Duplicate value: \"gpu\"");
    HAS(CLAIM("{" TWO_REQS ", constraints: [{matchAttribute: numa}]}"),
        "spec.devices.constraints[0].matchAttribute: Invalid value: \"numa\": a fully qualified name must be a domain "
        "and a name separated by a slash");
    HAS(CLAIM("{" TWO_REQS ", constraints: [{requests: [gpu]}]}"),
        "spec.devices.constraints[0]: Required value: exactly one of \"matchAttribute\" or \"distinctAttribute\" is "
        "required, but multiple fields are set");
    dra_features_default(&gates);
    dra_err *gate_err = dra_features_set(&gates, DRA_FEATURE_CONSUMABLE_CAPACITY, false);
    CHECK(gate_err == NULL);
    dra_err_free(gate_err);
    use_gates = &gates;
    HAS(CLAIM("{" TWO_REQS ", constraints: [{requests: [gpu]}]}"),
        "spec.devices.constraints[0].matchAttribute: Required value");
    use_gates = NULL;
    char *s = repeat_list(CLAIM("{" TWO_REQS ", constraints: [%s]}"), "{matchAttribute: example.com/a%d}", 33);
    HAS(s, "spec.devices.constraints: Too many: 33: must have at most 32 items");
    free(s);
}

UNIT_TEST(claim_config)
{
    CLEAN(CLAIM("{" TWO_REQS
                ", config: [{requests: [nic/fast], opaque: {driver: nic.example.com, parameters: {a: 1}}}]}"));
    HAS(CLAIM("{" TWO_REQS ", config: [{requests: [gpu]}]}"), "spec.devices.config[0].opaque: Required value");
    HAS(CLAIM("{" TWO_REQS ", config: [{opaque: {driver: d.example.com, parameters: [1]}}]}"),
        "spec.devices.config[0].opaque.parameters: Invalid value: \"<value omitted>\": must be a valid JSON object");
    HAS(CLAIM("{" TWO_REQS ", config: [{opaque: {driver: d.example.com}}]}"),
        "spec.devices.config[0].opaque.parameters: Required value");
    HAS(CLAIM("{" TWO_REQS ", config: [{opaque: {parameters: {}}}]}"),
        "spec.devices.config[0].opaque.driver: Required value");
    HAS(CLAIM("{" TWO_REQS ", config: [{requests: [x], opaque: {driver: d, parameters: {}}}]}"),
        "spec.devices.config[0].requests[0]: Invalid value: \"x\": must be the name of a request in the claim or the "
        "name of a request and a subrequest separated by '/'");
    char *big = dra_xmalloc(10300);
    memset(big, 'x', 10240);
    big[10240] = '\0';
    char *doc = dra_xasprintf(CLAIM("{" TWO_REQS ", config: [{opaque: {driver: d, parameters: {k: %s}}}]}"), big);
    HAS(doc, "spec.devices.config[0].opaque.parameters: Too long: may not be more than 10240 bytes");
    free(doc);
    free(big);
    char *s = repeat_list(CLAIM("{" TWO_REQS ", config: [%s]}"), "{opaque: {driver: d, parameters: {a: %d}}}", 33);
    HAS(s, "spec.devices.config: Too many: 33: must have at most 32 items");
    free(s);
}

UNIT_TEST(claim_status)
{
    CLEAN(RESULT(""));
    CLEAN(STATUS(
        "{allocation: {devices: {results: [{request: nic/fast, driver: d.example.com, pool: p, device: d, shareID: "
        "123e4567-e89b-12d3-a456-426614174000}]}}, reservedFor: [{resource: pods, name: p, uid: u1}]}"));
    HAS(STATUS("{reservedFor: [{resource: pods, name: p, uid: u1}]}"),
        "status.reservedFor: Forbidden: may not be specified when `allocated` is not set");
    HAS(STATUS("{allocation: {}, reservedFor: [{resource: pods, name: p}]}"),
        "status.reservedFor[0].uid: Required value");
    HAS(STATUS("{allocation: {}, reservedFor: [{resource: pods, name: p, uid: u}, {resource: pods, name: q, uid: u}]}"),
        "status.reservedFor[1]: Duplicate value: {\"resource\":\"pods\",\"name\":\"q\",\"uid\":\"u\"}");
    HAS(RESULT(", shareID: ABC"), "status.allocation.devices.results[0].shareID: Invalid value: \"ABC\": must be a "
                                  "lowercase UUID in 8-4-4-4-12 format");
    HAS(STATUS("{allocation: {devices: {results: [{request: nic/slow, driver: d, pool: p, device: d}]}}}"),
        "status.allocation.devices.results[0].request: Invalid value: \"nic/slow\": must be the name of a request in "
        "the claim or the name of a request and a subrequest separated by '/'");
    HAS(RESULT(", tolerations: [{key: k, operator: Exists, value: v}]"),
        "status.allocation.devices.results[0].tolerations[0].value: Invalid value: \"v\": must be empty for operator "
        "`Exists`");
    HAS(STATUS("{allocation: {devices: {config: [{source: FromNowhere, opaque: {driver: d, parameters: {}}}]}}}"),
        "status.allocation.devices.config[0].source: Unsupported value: \"FromNowhere\": supported values: "
        "\"FromClaim\", \"FromClass\"");
    HAS(STATUS("{allocation: {devices: {config: [{opaque: {driver: d, parameters: {}}}]}}}"),
        "status.allocation.devices.config[0].source: Required value");
    char *s = repeat_list(STATUS("{allocation: {devices: {results: [%s]}}}"),
                          "{request: gpu, driver: d, pool: p, device: d%d}", 33);
    HAS(s, "status.allocation.devices.results: Too many: 33: must have at most 32 items");
    free(s);
    HAS(STATUS("{allocation: {devices: {results: [{request: gpu, driver: d, pool: p, device: d}]}}, devices: [{driver: "
               "d, pool: p, device: other}]}"),
        "status.devices[0]: Invalid value: {\"Driver\":\"d\",\"Pool\":\"p\",\"Device\":\"other\",\"ShareID\":\"\"}: "
        "must be an allocated device in the claim");
    CLEAN(STATUS("{allocation: {devices: {results: [{request: gpu, driver: d, pool: p, device: d}]}}, devices: "
                 "[{driver: d, pool: p, device: d, conditions: [{type: Ready, status: 'True', reason: Configured, "
                 "lastTransitionTime: '2025-01-01T00:00:00Z'}], data: {x: 1}, networkData: {interfaceName: eth0, ips: "
                 "[10.0.0.1/24, '2001:db8::1/64']}}]}"));
    HAS(STATUS("{allocation: {devices: {results: [{request: gpu, driver: d, pool: p, device: d}]}}, devices: [{driver: "
               "d, pool: p, device: d, conditions: [{type: Ready, status: Maybe, reason: R, lastTransitionTime: "
               "'2025-01-01T00:00:00Z'}]}]}"),
        "status.devices[0].conditions[0].status: Unsupported value: \"Maybe\": supported values: \"False\", \"True\", "
        "\"Unknown\"");
    HAS(STATUS("{allocation: {devices: {results: [{request: gpu, driver: d, pool: p, device: d}]}}, devices: [{driver: "
               "d, pool: p, device: d, networkData: {ips: [10.0.0.1]}}]}"),
        "status.devices[0].networkData.ips[0]: Invalid value: \"10.0.0.1\": must be a valid address in CIDR form, "
        "(e.g. 10.9.8.7/24 or 2001:db8::1/64)");
    HAS(STATUS("{allocation: {nodeSelector: {nodeSelectorTerms: []}}}"),
        "status.allocation.nodeSelector.nodeSelectorTerms: Required value: must have at least one node selector term");
}

UNIT_TEST(template_paths)
{
    CLEAN("{apiVersion: resource.k8s.io/v1, kind: ResourceClaimTemplate, metadata: {name: t, namespace: ns}, spec: "
          "{spec: {devices: {requests: [{name: r, exactly: {deviceClassName: c}}]}}}}");
    HAS("{apiVersion: resource.k8s.io/v1, kind: ResourceClaimTemplate, metadata: {name: t, namespace: ns}, spec: "
        "{spec: {devices: {requests: [{name: r, exactly: {}}]}}}}",
        "spec.spec.devices.requests[0].exactly.deviceClassName: Required value");
    HAS("{apiVersion: resource.k8s.io/v1, kind: ResourceClaimTemplate, metadata: {name: t, namespace: ns}, spec: "
        "{metadata: {labels: {'-bad': x}}, spec: {}}}",
        "spec.metadata.labels: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or "
        "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
        "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
}

/* ---- DeviceClass, DeviceTaintRule, Pod ---- */

UNIT_TEST(device_class)
{
    CLEAN(CLASS("{selectors: [{cel: {expression: 'true'}}], config: [{opaque: {driver: gpu.example.com, parameters: "
                "{a: b}}}], extendedResourceName: example.com/gpu}"));
    HAS(CLASS("{extendedResourceName: gpu}"), "spec.extendedResourceName: Invalid value: \"gpu\": a name must be a "
                                              "domain-prefixed path, such as 'example.com/my-prop'");
    HAS(CLASS("{extendedResourceName: kubernetes.io/gpu}"),
        "spec.extendedResourceName: Invalid value: \"kubernetes.io/gpu\": must not have \"kubernetes.io/\" domain");
    HAS(CLASS("{config: [{opaque: {driver: '', parameters: {}}}]}"), "spec.config[0].opaque.driver: Required value");
    HAS(CLASS("{config: [{}]}"), "spec.config[0].opaque: Required value");
    char *s = repeat_list(CLASS("{config: [%s]}"), "{opaque: {driver: d, parameters: {a: %d}}}", 33);
    HAS(s, "spec.config: Too many: 33: must have at most 32 items");
    free(s);
}

UNIT_TEST(device_taint_rule)
{
    CLEAN(RULE("{deviceSelector: {driver: gpu.example.com, pool: node-1, device: gpu-0}, taint: {key: "
               "example.com/maintenance, effect: NoExecute}}"));
    HAS(RULE("{taint: {effect: NoExecute}}"), "spec.taint.key: Invalid value: \"\": name part must be non-empty");
    HAS(RULE("{taint: {key: k, effect: Later}}"),
        "spec.taint.effect: Unsupported value: \"Later\": supported values: \"NoExecute\", \"NoSchedule\", \"None\"");
    HAS(RULE("{deviceSelector: {pool: 'a//b'}, taint: {key: k, effect: None}}"),
        "spec.deviceSelector.pool: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case "
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    char want[1024];
    snprintf(want, sizeof want, "spec.deviceSelector.device: Invalid value: \"GPU\": %s", LABEL_RE);
    HAS(RULE("{deviceSelector: {device: GPU}, taint: {key: k, effect: None}}"), want);
    HAS("{apiVersion: resource.k8s.io/v1alpha3, kind: DeviceTaintRule, metadata: {name: r}, spec: {deviceSelector: "
        "{deviceClassName: gpu}, taint: {key: k, effect: None}}}",
        "unknown field \"spec.deviceSelector.deviceClassName\"");
}

UNIT_TEST(pod)
{
    CLEAN(POD("{resourceClaims: [{name: gpu, resourceClaimTemplateName: single-gpu}], containers: [{name: c, "
              "resources: {claims: [{name: gpu}]}}]}"));
    HAS(POD("{resourceClaims: [{name: gpu, resourceClaimName: a, resourceClaimTemplateName: b}]}"),
        "spec.resourceClaims[0]: Invalid value: "
        "{\"Name\":\"gpu\",\"ResourceClaimName\":\"a\",\"ResourceClaimTemplateName\":\"b\"}: at most one of "
        "`resourceClaimName` or `resourceClaimTemplateName` may be specified");
    HAS(POD("{resourceClaims: [{name: gpu}]}"),
        "spec.resourceClaims[0]: Invalid value: "
        "{\"Name\":\"gpu\",\"ResourceClaimName\":null,\"ResourceClaimTemplateName\":null}: must specify one of: "
        "`resourceClaimName`, `resourceClaimTemplateName`");
    HAS(POD("{resourceClaims: [{name: gpu, resourceClaimName: a}, {name: gpu, resourceClaimName: b}]}"),
        "spec.resourceClaims[1].name: Duplicate value: \"gpu\"");
    HAS(POD("{containers: [{name: c, resources: {claims: [{name: missing}]}}]}"),
        "spec.containers[0].resources.claims[0]: Not found: \"missing\": must be one of the names in "
        "pod.spec.resourceClaims which is empty");
    HAS(POD("{resourceClaims: [{name: gpu, resourceClaimName: Bad_Name}]}"),
        "spec.resourceClaims[0].resourceClaimName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must "
        "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    CLEAN("{apiVersion: v1, kind: Node, metadata: {name: node-1}}");
    CLEAN("{apiVersion: v1, kind: Namespace, metadata: {name: team-a, labels: {resource.kubernetes.io/admin-access: "
          "'true'}}}");
    HAS("{apiVersion: v1, kind: Namespace, metadata: {name: team.a}}",
        "metadata.name: Invalid value: \"team.a\": must not contain dots");
}

/* ObjectMeta fields that nothing validates but that must decode */
UNIT_TEST(object_meta_types)
{
    HAS("{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: c, uid: 1}}",
        "metadata.uid: Invalid value: 1: must be of type string");
    HAS("{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: c, generation: x}}",
        "metadata.generation: Invalid value: \"x\": must be of type integer");
    HAS("{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: c, creationTimestamp: yesterday}}",
        "metadata.creationTimestamp: Invalid value: \"yesterday\": must be an RFC 3339 date-time");
    HAS("{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: c, finalizers: [1]}}",
        "metadata.finalizers[0]: Invalid value: 1: must be of type string");
    CLEAN("{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: c, uid: u, generation: 2, "
          "creationTimestamp: '2026-01-01T00:00:00Z', finalizers: [a/b]}}");
}

/* ---- load ---- */

static const char MULTI[] =
    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n"
    "---\napiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata:\n  name: c1\nspec:\n  devices:\n    "
    "requests:\n    - name: r\n      deviceClassName: gpu.example.com\n"
    "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-1\n"
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
    "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\nspec:\n  "
    "extendedResourceName: example.com/gpu\n"
    "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n";

UNIT_TEST(load_pipeline)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_read_mem(&set, "in.yaml", MULTI, sizeof MULTI - 1);
    CHECK(e == NULL);
    dra_load_opts opts = {0};
    dra_model m = DRA_MODEL_INIT;
    e = dra_load(&set, &opts, &m);
    /* The unknown kind and the duplicate class: both reported. */
    CHECK_INT(dra_err_count(e), 2);
    if (e && e->next) {
        CHECK_STR(e->msg, "no matches for kind \"ConfigMap\" in version \"v1\"");
        CHECK_STR(e->object, "ConfigMap/cm");
        CHECK_STR(e->file, "in.yaml");
        CHECK_INT(e->line, 22); /* the line of `kind` */
        CHECK_STR(e->next->msg, "duplicate object DeviceClass/gpu.example.com, first defined at in.yaml:1");
        CHECK_INT(e->next->line, 26);
        char *line = dra_err_format(e->next);
        CHECK(strstr(line, "in.yaml:26") != NULL);
        free(line);
    }
    dra_err_free(e);
    CHECK_INT(dra_model_kind(&m, DRA_KIND_DEVICE_CLASS)->n, 1);
    CHECK_INT(m.collapsed, 1); /* the identical third copy */
    CHECK_INT(dra_model_kind(&m, DRA_KIND_RESOURCE_CLAIM)->n, 1);
    CHECK(dra_model_class(&m, "gpu.example.com") != NULL);
    CHECK(dra_model_class(&m, "nope") == NULL);
    CHECK(dra_model_node(&m, "node-1") != NULL);
    /* Namespace defaulted; converted to v1 and defaulted in place. */
    const dra_obj *c = dra_model_claim(&m, "default", "c1");
    CHECK(c != NULL);
    if (c) {
        CHECK_STR(json_string_value(json_object_get(c->json, "apiVersion")), "resource.k8s.io/v1");
        json_t *ex = json_object_get(
            json_array_get(json_object_get(json_object_get(json_object_get(c->json, "spec"), "devices"), "requests"),
                           0),
            "exactly");
        CHECK_INT(json_integer_value(json_object_get(ex, "count")), 1);
    }
    CHECK(dra_model_claim(&m, "other", "c1") == NULL);
    dra_model_free(&m);

    /* Skip unknown kinds; the duplicate remains. */
    dra_objset set2 = DRA_OBJSET_INIT;
    e = dra_read_mem(&set2, "in.yaml", MULTI, sizeof MULTI - 1);
    dra_err_free(e);
    opts.skip_unknown = true;
    e = dra_load(&set2, &opts, &m);
    CHECK_INT(dra_err_count(e), 1);
    CHECK_INT(m.skipped, 1);
    dra_err_free(e);
    dra_model_free(&m);
    dra_objset_free(&set2);
    dra_objset_free(&set);
}

UNIT_TEST(load_collects_all_errors_with_locations)
{
    static const char text[] =
        "{\"apiVersion\":\"resource.k8s.io/"
        "v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"s\"},\"spec\":{\"driver\":\"d\",\"pool\":{\"name\":"
        "\"p\",\"resourceSliceCount\":1},\"nodeName\":\"n\",\"devices\":[{\"name\":\"Foo\"}]}}\n"
        "{\"kind\":\"ResourceClaim\"}\n"
        "{\"apiVersion\":\"resource.k8s.io/"
        "v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"spec\":{\"devices\":{"
        "\"requests\":[{\"name\":\"r\"}]}}}\n";
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_read_mem(&set, "x.jsonl", text, sizeof text - 1);
    CHECK(e == NULL);
    dra_model m = DRA_MODEL_INIT;
    e = dra_load(&set, NULL, &m);
    CHECK_INT(dra_err_count(e), 3);
    if (dra_err_count(e) == 3) {
        CHECK_STR(e->object, "ResourceSlice/s");
        CHECK_STR(e->field, "spec.devices[0].name");
        CHECK_STR(e->next->field, "apiVersion");
        CHECK_STR(e->next->next->object, "ResourceClaim/ns/c");
        CHECK_STR(e->next->next->field, "spec.devices.requests[0]");
        CHECK_INT(e->next->next->doc, 3);
    }
    CHECK_INT(dra_model_kind(&m, DRA_KIND_RESOURCE_SLICE)->n, 0);
    dra_err_free(e);
    dra_model_free(&m);
    dra_objset_free(&set);
}

UNIT_MAIN()
