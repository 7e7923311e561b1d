#!/usr/bin/env python3
"""Generate the upstream validation parity cases (tests/data/model/upstream/*.yaml).

Each case mirrors one create-time scenario of upstream's test tables in
pkg/apis/resource/validation/validation_*_test.go: the object is built the
way upstream's helper functions build it (testResourceSlice, testClaim, ...),
and `errors` lists the expected field errors as this project renders them:
"<field path>: <Type>: <value>: <detail>" (field.Error.Error() wording).

Values rendering: strings are Go-quoted, integers and booleans bare; struct
and list values (Go would print %#v) are rendered as compact JSON, the
project's documented convention (see /work/notes/model-parity.md).

Cases are order-insensitive (upstream ranges over maps).  Regenerate with
`python3 tests/data/model/upstream/gen.py`; the output is checked in so the
C test needs no Python.
"""
import copy
import json
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))

# The project's YAML reader resolves scalars like go-yaml v2 (y, n, on, off are
# booleans), which PyYAML would write unquoted.
GO_YAML_BOOLS = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
                 "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF"}


def _str_representer(dumper, data):
    style = "'" if data in GO_YAML_BOOLS else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


yaml.SafeDumper.add_representer(str, _str_representer)

GOOD = "foo"
GOOD2 = "bar"
BAD = "!@#$%^"
BAD_VALUE = "spaces not allowed"
NS = "ns"
DRIVER = "test.example.com"

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
             "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
         "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
               "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
               "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
NAME_PART = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
C_IDENT = ("a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
           "characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is "
           "'[A-Za-z_][A-Za-z0-9_]*')")
REF = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
EFFECTS = '"NoExecute", "NoSchedule", "None"'
MODES = '"All", "ExactCount"'
SOURCES = '"FromClaim", "FromClass"'


# ---- field error renderings (field.Error.Error()) ----

def gq(s):
    """Go %q for the ASCII strings used here."""
    return json.dumps(s, ensure_ascii=False)


def val(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return gq(v)
    return json.dumps(v, separators=(",", ":"))


def p(*parts):
    """Path: p("spec", "devices", 3, "name") -> spec.devices[3].name; ("k",) tuples are map keys."""
    out = ""
    for x in parts:
        if isinstance(x, int):
            out += "[%d]" % x
        elif isinstance(x, tuple):
            out += "[%s]" % x[0]
        else:
            out += ("." if out else "") + x
    return out


def required(path, detail=""):
    return "%s: Required value%s" % (path, ": " + detail if detail else "")


def forbidden(path, detail):
    return "%s: Forbidden: %s" % (path, detail)


def invalid(path, value, detail=""):
    return "%s: Invalid value: %s%s" % (path, val(value), ": " + detail if detail else "")


def too_long(path, n):
    return "%s: Too long: may not be more than %d bytes" % (path, n)


def too_many(path, actual, n):
    return "%s: Too many: %d: must have at most %d items" % (path, actual, n)


def duplicate(path, value):
    return "%s: Duplicate value: %s" % (path, val(value))


def unsupported(path, value, supported):
    return "%s: Unsupported value: %s: supported values: %s" % (path, val(value), supported)


def not_found(path, value):
    return "%s: Not found: %s" % (path, val(value))


CASES = {}


def case(file, name, obj, errors=(), features=None, note=None):
    doc = {"case": name}
    if features:
        doc["features"] = features
    if note:
        doc["note"] = note
    doc["errors"] = list(errors)
    doc["object"] = obj
    CASES.setdefault(file, []).append(doc)


def meta_cases(file, make, namespaced=False):
    """The ObjectMeta scenarios every upstream table repeats."""
    case(file, "missing-name", make(""), [required("metadata.name", "name or generateName is required")])
    case(file, "bad-name", make(BAD), [invalid("metadata.name", BAD, SUBDOMAIN)])
    if namespaced:
        o = make(GOOD)
        o["metadata"]["namespace"] = ""
        case(file, "missing-namespace", o, [required("metadata.namespace")])
    extras = {
        "generate-name": ("generateName", "pvc-"),
        "uid": ("uid", "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d"),
        "resource-version": ("resourceVersion", "1"),
        "generation": ("generation", 100),
        "creation-timestamp": ("creationTimestamp", "2024-01-02T03:04:05Z"),
        "deletion-grace-period-seconds": ("deletionGracePeriodSeconds", 10),
        "owner-references": ("ownerReferences", [{"apiVersion": "v1", "kind": "pod", "name": "foo",
                                                  "uid": "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d"}]),
        "finalizers": ("finalizers", ["example.com/foo"]),
        "managed-fields": ("managedFields", [{"fieldsType": "FieldsV1", "operation": "Apply",
                                              "apiVersion": "apps/v1", "manager": "foo"}]),
        "good-labels": ("labels", {"apps.kubernetes.io/name": "test"}),
        "good-annotations": ("annotations", {"foo": "bar"}),
    }
    for n, (k, v) in extras.items():
        o = make(GOOD)
        o["metadata"][k] = v
        case(file, n, o)
    o = make(GOOD)
    o["metadata"]["labels"] = {"hello-world": BAD_VALUE}
    case(file, "bad-labels", o, [invalid("metadata.labels", BAD_VALUE, LABEL_VALUE)])
    o = make(GOOD)
    o["metadata"]["annotations"] = {BAD: "hello world"}
    case(file, "bad-annotations", o, [invalid("metadata.annotations", BAD, NAME_PART)])


# ======================================================================
# ResourceSlice (validation_resourceslice_test.go, TestValidateResourceSlice)
# ======================================================================

def attrs():
    return {"int": {"int": 42}, "string": {"string": "hello world"}, "version": {"version": "1.2.3"},
            "bool": {"bool": True}}


def caps():
    return {"memory": {"value": "1Gi"}}


def counters():
    return {"memory": {"value": "1Gi"}}


def multi_counters(n):
    return {"memory-%d" % i: {"value": "1Gi"} for i in range(n)}


def slice_obj(name, node, driver, n):
    s = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
         "spec": {"nodeName": node, "driver": driver, "pool": {"name": node, "resourceSliceCount": 1}}}
    if n:
        s["spec"]["devices"] = [{"name": "device-%d" % d, "attributes": attrs(), "capacity": caps()} for d in range(n)]
    return s


def slice_shared(name, pool, driver, nsets):
    s = slice_obj(name, pool, driver, 0)
    if nsets:
        s["spec"]["sharedCounters"] = [{"name": "counterset-%d" % i, "counters": counters()} for i in range(nsets)]
    return s


def consumes(n):
    return [{"counterSet": "counterset-%d" % i, "counters": counters()} for i in range(n)]


def shared(n):
    return [{"name": "counterset-%d" % i, "counters": counters()} for i in range(n)]


def slice_cc(n):
    s = slice_obj(GOOD, GOOD, DRIVER, 0)
    s["spec"]["devices"] = [{"name": "device-%d" % d, "allowMultipleAllocations": True,
                             "capacity": {"a": {"value": "100", "requestPolicy": {
                                 "default": "10", "validValues": ["5", "10", "100"]}}}} for d in range(n)]
    return s


def dev_path(i, *rest):
    return p("spec", "devices", i, *rest)


def gen_slices():
    F = "resourceslice"
    MAXD, MAXA = 128, 64
    case(F, "good", slice_obj(GOOD, GOOD, DRIVER, MAXD))
    case(F, "too-large", slice_obj(GOOD, GOOD, GOOD, MAXD + 1), [too_many("spec.devices", MAXD + 1, MAXD)])
    s = slice_obj(GOOD, GOOD, GOOD, MAXA)
    for d in s["spec"]["devices"]:
        d["taints"] = [{"key": "example.com/taint", "effect": "NoExecute"}]
    case(F, "good-taints", s)
    s = slice_obj(GOOD, GOOD, GOOD, MAXA + 1)
    for d in s["spec"]["devices"]:
        d["taints"] = [{"key": "example.com/taint", "effect": "NoExecute"}]
    case(F, "too-large-taints", s, [too_many("spec.devices", MAXA + 1, MAXA)])

    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["devices"][0]["consumesCounters"] = consumes(1)
    s["spec"]["partitionTypeAttribute"] = DRIVER + "/string"
    case(F, "good-partition-type-attribute", s)
    s = slice_obj(GOOD, GOOD, DRIVER, 2)
    s["spec"]["devices"][0]["consumesCounters"] = consumes(1)
    del s["spec"]["devices"][1]["attributes"]
    s["spec"]["partitionTypeAttribute"] = DRIVER + "/string"
    case(F, "good-partition-type-attribute-with-exempt-device", s)
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["partitionTypeAttribute"] = DRIVER + "/string"
    case(F, "partition-type-attribute-without-partitionable-devices", s,
         [invalid("spec.partitionTypeAttribute", DRIVER + "/string",
                  "may only be set on a slice which declares devices that consume counters")])
    s = slice_shared(GOOD, GOOD, DRIVER, 1)
    s["spec"]["partitionTypeAttribute"] = DRIVER + "/string"
    case(F, "partition-type-attribute-on-shared-counters-slice", s,
         [invalid("spec.partitionTypeAttribute", DRIVER + "/string",
                  "may only be set on a slice which declares devices that consume counters")])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["devices"][0]["consumesCounters"] = consumes(1)
    s["spec"]["partitionTypeAttribute"] = "gpu.example.com/profile"
    case(F, "partition-type-attribute-missing-on-partitionable-device", s,
         [required(dev_path(0, "attributes", ("gpu.example.com/profile",)),
                   "device consumes counters and `partitionTypeAttribute` names this attribute, so it must be set")])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["devices"][0]["consumesCounters"] = consumes(1)
    s["spec"]["partitionTypeAttribute"] = DRIVER + "/int"
    case(F, "partition-type-attribute-not-a-string", s,
         # the value is the internal DeviceAttribute (no json tags: Go names, nil as null)
         [invalid(dev_path(0, "attributes", (DRIVER + "/int",)), {"IntValue": 42, "BoolValue": None, "StringValue": None, "VersionValue": None, "IntValues": None, "BoolValues": None, "StringValues": None, "VersionValues": None},
                  "must be a string value because `partitionTypeAttribute` names this attribute")])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["devices"][0]["consumesCounters"] = consumes(1)
    s["spec"]["devices"][0]["attributes"][DRIVER + "/string"] = {"int": 1}
    s["spec"]["partitionTypeAttribute"] = DRIVER + "/string"
    case(F, "partition-type-attribute-explicit-form-wins", s,
         [invalid(dev_path(0, "attributes", (DRIVER + "/string",)), {"IntValue": 1, "BoolValue": None, "StringValue": None, "VersionValue": None, "IntValues": None, "BoolValues": None, "StringValues": None, "VersionValues": None},
                  "must be a string value because `partitionTypeAttribute` names this attribute")])

    meta_cases(F, lambda n: slice_obj(n, GOOD, DRIVER, 1))

    case(F, "bad-nodename", slice_obj(GOOD, BAD, DRIVER, 1),
         [invalid("spec.pool.name", BAD, SUBDOMAIN), invalid("spec.nodeName", BAD, SUBDOMAIN)])
    case(F, "bad-multi-pool-name", slice_obj(GOOD, BAD + "/" + BAD, DRIVER, 1),
         [invalid("spec.pool.name", BAD, SUBDOMAIN), invalid("spec.pool.name", BAD, SUBDOMAIN),
          invalid("spec.nodeName", BAD + "/" + BAD, SUBDOMAIN)])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["pool"]["name"] = "x" * 253
    case(F, "good-pool-name", s)
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["pool"].update({"name": "x/" * 126 + "xy", "resourceSliceCount": 0, "generation": -1})
    case(F, "bad-pool", s, [too_long("spec.pool.name", 253),
                            invalid("spec.pool.resourceSliceCount", 0, "must be greater than zero"),
                            invalid("spec.pool.generation", -1, "must be greater than or equal to zero")])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["pool"]["name"] = ""
    case(F, "missing-pool-name", s, [required("spec.pool.name")])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    del s["spec"]["nodeName"]
    s["spec"]["nodeSelector"] = {}
    case(F, "bad-empty-node-selector", s,
         [required("spec.nodeSelector.nodeSelectorTerms", "must have at least one node selector term"),
          invalid("spec.nodeSelector.nodeSelectorTerms", None, "must have exactly one node selector term")])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["nodeName"] = "worker"
    s["spec"]["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["worker"]}]}]}
    case(F, "bad-node-selection", s,
         [invalid("spec", "{`nodeName`, `nodeSelector`}", "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
                  "`perDeviceNodeSelection` is required, but multiple fields are set")])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["nodeName"] = "worker"
    s["spec"]["allNodes"] = True
    case(F, "bad-node-selection-all-nodes", s,
         [invalid("spec", "{`nodeName`, `allNodes`}", "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
                  "`perDeviceNodeSelection` is required, but multiple fields are set")])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    del s["spec"]["nodeName"]
    case(F, "empty-node-selection", s,
         [required("spec", "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required")])
    case(F, "bad-drivername", slice_obj(GOOD, GOOD, BAD, 1), [invalid("spec.driver", BAD, SUBDOMAIN)])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["sharedCounters"] = [{"name": "counterset", "counters": counters()}]
    case(F, "both-shared-counters-and-devices", s,
         [invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed")])
    s = slice_obj(GOOD, GOOD, GOOD, 3)
    s["spec"]["devices"][1]["name"] = BAD
    case(F, "bad-devices", s, [invalid(dev_path(1, "name"), BAD, LABEL)])

    s = slice_obj(GOOD, GOOD, GOOD, 5)
    s["spec"]["devices"][1]["attributes"] = {BAD: {}}
    s["spec"]["devices"][2]["attributes"] = {GOOD: {"string": "x", "version": "1.2.3"}}
    s["spec"]["devices"][3]["attributes"] = {GOOD: {"version": "x" * 65}}
    s["spec"]["devices"][4]["attributes"] = {GOOD: {"string": "x" * 65}}
    case(F, "bad-attribute", s, [
        invalid(dev_path(1, "attributes"), BAD, C_IDENT),
        invalid(dev_path(1, "attributes", (BAD,)), "", "exactly one value must be specified"),
        invalid(dev_path(2, "attributes", (GOOD,)), {"string": "x", "version": "1.2.3"},
                "exactly one value must be specified"),
        invalid(dev_path(3, "attributes", (GOOD,), "version"), "x" * 65,
                "must be a string compatible with semver.org spec 2.0.0"),
        too_long(dev_path(3, "attributes", (GOOD,), "version"), 64),
        too_long(dev_path(4, "attributes", (GOOD,), "string"), 64)])
    s = slice_obj(GOOD, GOOD, GOOD, 4)
    for i, a in enumerate([{"bools": [True]}, {"ints": [1]}, {"strings": ["x"]}, {"versions": ["1.2.3"]}]):
        s["spec"]["devices"][i]["attributes"] = {GOOD: a}
    case(F, "good-list-attribute", s)
    s = slice_obj(GOOD, GOOD, GOOD, 8)
    lists = [{"ints": [1], "bools": [True]}, {"ints": [1], "bools": [True], "strings": []},
             {"strings": ["x" * 65]}, {"versions": ["x" * 65]}, {"bools": []}, {"ints": []}, {"strings": []},
             {"versions": []}]
    for i, a in enumerate(lists):
        s["spec"]["devices"][i]["attributes"] = {GOOD: a}
    case(F, "bad-list-attribute", s, [
        invalid(dev_path(0, "attributes", (GOOD,)), {"ints": [1], "bools": [True]}, "exactly one value must be specified"),
        invalid(dev_path(1, "attributes", (GOOD,), "strings"), [], "must not be empty if specified"),
        invalid(dev_path(1, "attributes", (GOOD,)), {"ints": [1], "bools": [True], "strings": []},
                "exactly one value must be specified"),
        too_long(dev_path(2, "attributes", (GOOD,), "strings", 0), 64),
        invalid(dev_path(3, "attributes", (GOOD,), "versions", 0), "x" * 65,
                "must be a string compatible with semver.org spec 2.0.0"),
        too_long(dev_path(3, "attributes", (GOOD,), "versions", 0), 64),
        invalid(dev_path(4, "attributes", (GOOD,), "bools"), [], "must not be empty if specified"),
        invalid(dev_path(5, "attributes", (GOOD,), "ints"), [], "must not be empty if specified"),
        invalid(dev_path(6, "attributes", (GOOD,), "strings"), [], "must not be empty if specified"),
        invalid(dev_path(7, "attributes", (GOOD,), "versions"), [], "must not be empty if specified")])
    for kind, vals in [("int", {"ints": [1, 2, 3]}), ("bool", {"bools": [True, False, True]}),
                       ("string", {"strings": ["a", "b", "c"]}), ("version", {"versions": ["1.0.0", "2.0.0", "3.0.0"]})]:
        key = list(vals)[0]
        s = slice_obj(GOOD, GOOD, GOOD, MAXA)
        for d in s["spec"]["devices"]:
            d["attributes"][key] = vals
        case(F, "max-devices-with-list-of-%s-attributes" % kind, s)
        s = slice_obj(GOOD, GOOD, GOOD, MAXA + 1)
        s["spec"]["devices"][0]["attributes"][key] = vals
        case(F, "too-many-devices-with-list-of-%s-attributes" % kind, s, [too_many("spec.devices", MAXA + 1, MAXA)])

    s = slice_obj(GOOD, GOOD, GOOD, 2)
    s["spec"]["devices"][1]["attributes"] = {"x" * 32: {"string": "y"}, "x" * 63 + "/" + "y" * 32: {"string": "z"}}
    case(F, "good-attribute-names", s)
    s = slice_obj(GOOD, GOOD, GOOD, 2)
    s["spec"]["devices"][1]["attributes"] = {"." * 33: {"string": "y"}}
    case(F, "bad-attribute-c-identifier", s,
         [too_long(dev_path(1, "attributes"), 32), invalid(dev_path(1, "attributes"), "." * 33, C_IDENT)])
    s = slice_obj(GOOD, GOOD, GOOD, 2)
    s["spec"]["devices"][1]["attributes"] = {"_" * 64 + "/y": {"string": "z"}}
    case(F, "bad-attribute-domain", s,
         [too_long(dev_path(1, "attributes"), 63), invalid(dev_path(1, "attributes"), "_" * 64, SUBDOMAIN)])
    s = slice_obj(GOOD, GOOD, GOOD, 2)
    s["spec"]["devices"][1]["attributes"] = {"x" * 64 + "/" + "y" * 33: {"string": "z"}}
    case(F, "bad-key-too-long", s, [too_long(dev_path(1, "attributes"), 63), too_long(dev_path(1, "attributes"), 32)])
    s = slice_obj(GOOD, GOOD, GOOD, 2)
    s["spec"]["devices"][1]["attributes"] = {"/": {"string": "z"}}
    case(F, "bad-attribute-empty-domain-and-c-identifier", s,
         [invalid(dev_path(1, "attributes"), "", "the domain must not be empty"),
          invalid(dev_path(1, "attributes"), "", "the name must not be empty")])
    s = slice_obj(GOOD, GOOD, GOOD, 5)
    a32 = {"attr_%d" % i: {"string": "x"} for i in range(32)}
    s["spec"]["devices"][0]["attributes"] = copy.deepcopy(a32)
    del s["spec"]["devices"][0]["capacity"]
    s["spec"]["devices"][1]["attributes"] = {}
    s["spec"]["devices"][1]["capacity"] = {"cap_%d" % i: {"value": "1Gi"} for i in range(32)}
    s["spec"]["devices"][3]["attributes"] = copy.deepcopy(a32)
    s["spec"]["devices"][3]["capacity"] = {"cap": {"value": "1Gi"}}
    case(F, "combined-attributes-capacity-length", s,
         [invalid(dev_path(3), 33, "the total number of attributes and capacities must not exceed 32")])

    def max_list(maxv):
        a = {}
        for i in range(31):
            lst = ["x"]
            if i == 0:
                lst = lst * (maxv - 30)
            a["list_attr_%d" % i] = {"strings": lst}
        return a
    s = slice_obj(GOOD, GOOD, GOOD, 14)
    extras = [None, {"int": 1}, {"bool": True}, {"string": "x"}, {"version": "1.0.0"}, {"ints": [1]},
              {"bools": [True]}, {"strings": ["extra"]}, {"versions": ["1.0.0"]}]
    for i, extra in enumerate(extras):
        d = s["spec"]["devices"][i]
        d["attributes"] = max_list(48)
        if extra:
            d["attributes"]["extra_attr"] = extra
        del d["capacity"]
    mixed = {"strings": ["x"] * 46, "ints": [1], "bools": [True], "versions": ["1.0.0"]}
    s["spec"]["devices"][9]["attributes"] = {"mixed_list_attrs": mixed}
    del s["spec"]["devices"][9]["capacity"]
    for i, extra in zip(range(10, 14), [{"bools": [True, False]}, {"ints": [1, 2]}, {"strings": ["a", "b"]},
                                        {"versions": ["1.0.0", "1.0.1"]}]):
        d = s["spec"]["devices"][i]
        d["attributes"] = max_list(47)
        d["attributes"]["extra_attr"] = extra
        del d["capacity"]
    errs = [invalid(dev_path(i), 49, "the total number of attribute values must not exceed 48") for i in range(1, 14)]
    errs.append(invalid(dev_path(9, "attributes", ("mixed_list_attrs",)),
                        {"ints": [1], "bools": [True], "strings": ["x"] * 46, "versions": ["1.0.0"]},
                        "exactly one value must be specified"))
    case(F, "max-attribute-values-with-list", s, errs)

    s = slice_obj(GOOD, GOOD, GOOD, 2)
    s["spec"]["devices"][1]["capacity"] = {"cap": {"value": "1Gi", "requestPolicy": {
        "default": "1Mi", "validRange": {"min": "1Mi"}}}}
    case(F, "forbidden-request-policy-on-single-allocatable-capacity", s,
         [forbidden(dev_path(1, "capacity", ("cap",), "requestPolicy"), "allowMultipleAllocations must be true")],
         features={"DRAConsumableCapacity": True})
    for nm, step in [("zero", "0"), ("negative", "-1Mi")]:
        s = slice_obj(GOOD, GOOD, GOOD, 2)
        s["spec"]["devices"][1]["allowMultipleAllocations"] = True
        s["spec"]["devices"][1]["capacity"] = {"cap": {"value": "1Gi", "requestPolicy": {
            "default": "10Mi", "validRange": {"min": "1Mi", "max": "100Mi", "step": step}}}}
        case(F, "invalid-request-policy-%s-step" % nm, s,
             [invalid(dev_path(1, "capacity", ("cap",), "requestPolicy", "validRange", "step"), step,
                      "must be greater than zero")], features={"DRAConsumableCapacity": True})

    def cc(i):
        return dev_path(i, "capacity", ("a",))
    s = slice_cc(12)
    d = s["spec"]["devices"]
    d[1]["capacity"]["a"]["value"] = "-1"
    d[2]["capacity"]["a"]["requestPolicy"]["default"] = "-1"
    del d[3]["capacity"]["a"]["requestPolicy"]["validValues"]
    d[4]["capacity"]["a"]["requestPolicy"]["validRange"] = {"min": "10"}
    d[5]["capacity"]["a"]["requestPolicy"] = {"default": "10", "validRange": {"min": "1"}}
    d[6]["capacity"]["a"]["requestPolicy"] = {"default": "10100m", "validValues": ["5100m", "10100m", "100"]}
    d[7]["capacity"]["a"]["requestPolicy"] = {"default": "1050m", "validRange": {"min": "1100m"}}
    d[8]["capacity"]["a"]["requestPolicy"]["validValues"][0] = "9900m"
    d[9]["capacity"]["a"] = {"value": "9223372036854775807", "requestPolicy": {
        "default": "9223372036854775807", "validRange": {"min": "0", "step": "1", "max": "9223372036854775807"}}}
    d[10]["capacity"]["a"] = {"value": "9223372036854775807m", "requestPolicy": {
        "default": "9223372036854775807m", "validRange": {"min": "0", "step": "1m", "max": "9223372036854775807m"}}}
    d[11]["capacity"]["a"] = {"value": "9223372036854775807", "requestPolicy": {
        "default": "9223372036854775807", "validRange": {"min": "0", "step": "1m", "max": "9223372036854775807"}}}
    base_errs = [
        invalid(p(cc(1), "requestPolicy", "validValues", 0), "5", "option is larger than capacity value: -1"),
        invalid(p(cc(1), "requestPolicy", "validValues", 1), "10", "option is larger than capacity value: -1"),
        invalid(p(cc(1), "requestPolicy", "validValues", 2), "100", "option is larger than capacity value: -1"),
        invalid(p(cc(2), "requestPolicy", "validValues"), "-1", "default value is not valid according to the requestPolicy"),
        forbidden(p(cc(4), "requestPolicy"),
                  'exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time'),
        invalid(p(cc(7), "requestPolicy", "validRange", "default"), "1050m", "default is less than min: 1100m")]
    case(F, "consumable-capacity-integer", s, base_errs + [duplicate(p(cc(8), "requestPolicy", "validValues", 1), "10")],
         features={"DRAConsumableCapacity": True, "DRAFractionalCapacityRange": False})
    case(F, "consumable-capacity-fractional", s, base_errs + [
        invalid(p(cc(11), "requestPolicy", "validRange", "default"), "9223372036854775807",
                "value cannot be represented as a milli value"),
        invalid(p(cc(11), "requestPolicy", "validRange", "max"), "9223372036854775807",
                "value cannot be represented as a milli value")],
        features={"DRAConsumableCapacity": True, "DRAFractionalCapacityRange": True})

    s = slice_obj(GOOD, GOOD, GOOD, 3)
    del s["spec"]["nodeName"]
    s["spec"]["nodeSelector"] = {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "foo", "operator": "In", "values": ["-1"]}]}]}
    case(F, "invalid-node-selecor-label-value", s,
         [invalid("spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]", "-1", LABEL_VALUE)])
    s = slice_obj(GOOD, GOOD, GOOD, 3)
    s["spec"]["devices"][0]["taints"] = [
        {"key": "example.com/taint", "effect": "NoExecute"},
        {"key": "taint", "value": "tainted", "effect": "NoSchedule", "timeAdded": "2024-01-02T03:04:05Z"},
        {},
        {"key": BAD, "value": BAD, "effect": "some-other-effect"}]
    tp = dev_path(0, "taints")
    case(F, "taints", s, [
        invalid(p(tp, 2, "key"), "", "name part must be non-empty"),
        invalid(p(tp, 2, "key"), "", NAME_PART),
        required(p(tp, 2, "effect")),
        invalid(p(tp, 3, "key"), BAD, NAME_PART),
        invalid(p(tp, 3, "value"), BAD, LABEL_VALUE),
        unsupported(p(tp, 3, "effect"), "some-other-effect", EFFECTS)])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["devices"][0]["taints"] = [{"key": "example.com/taint", "effect": "NoExecute"}] * 17
    case(F, "too-many-taints", s, [too_many(dev_path(0, "taints"), 17, 16)])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["nodeName"] = "worker"
    s["spec"]["perDeviceNodeSelection"] = True
    case(F, "bad-PerDeviceNodeSelection", s, [
        invalid("spec", "{`nodeName`, `perDeviceNodeSelection`}", "exactly one of `nodeName`, `nodeSelector`, "
                "`allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"),
        required(dev_path(0), "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
                 "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")])
    for fld in ["perDeviceNodeSelection", "allNodes"]:
        s = slice_obj(GOOD, GOOD, DRIVER, 1)
        s["spec"]["nodeName"] = "worker"
        s["spec"][fld] = False
        case(F, "invalid-false-" + fld[0].upper() + fld[1:], s,
             [invalid("spec." + fld, False, "must be either unset or set to true")])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["nodeName"] = ""
    s["spec"]["allNodes"] = True
    case(F, "invalid-empty-NodeName", s,
         [invalid("spec.nodeName", "", "must be either unset or set to a non-empty string")])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["perDeviceNodeSelection"] = True
    del s["spec"]["nodeName"]
    s["spec"]["devices"][0]["nodeName"] = ""
    s["spec"]["devices"][0]["allNodes"] = False
    case(F, "invalid-node-selector-in-basicdevice", s, [
        invalid(dev_path(0, "nodeName"), "", "must not be empty"),
        invalid(dev_path(0, "allNodes"), False, "must be either unset or set to true"),
        required(dev_path(0), "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
                 "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["perDeviceNodeSelection"] = True
    del s["spec"]["nodeName"]
    s["spec"]["devices"][0]["nodeName"] = "worker"
    s["spec"]["devices"][0]["allNodes"] = True
    case(F, "bad-node-selector-in-basicdevice", s, [
        invalid(dev_path(0), "{`nodeName`, `allNodes`}", "exactly one of `nodeName`, `nodeSelector`, or `allNodes` "
                "is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec")])

    s = slice_shared(GOOD, GOOD, DRIVER, 1)
    s["spec"]["sharedCounters"] = [{"counters": counters()}]
    case(F, "missing-name-shared-counters", s, [required("spec.sharedCounters[0].name")])
    s = slice_shared(GOOD, GOOD, DRIVER, 0)
    s["spec"]["sharedCounters"] = [{"name": BAD, "counters": counters()}]
    case(F, "bad-name-shared-counters", s, [invalid("spec.sharedCounters[0].name", BAD, LABEL)])
    s = slice_shared(GOOD, GOOD, DRIVER, 0)
    s["spec"]["sharedCounters"] = [{"name": GOOD}]
    case(F, "missing-counter-shared-counters", s, [required("spec.sharedCounters[0].counters")])
    s = slice_shared(GOOD, GOOD, DRIVER, 1)
    s["spec"]["sharedCounters"] = [{"name": GOOD, "counters": {BAD: {"value": "1Gi"}}}]
    case(F, "bad-countername-shared-counters", s, [invalid("spec.sharedCounters[0].counters", BAD, LABEL)])
    s = slice_shared(GOOD, GOOD, DRIVER, 1)
    s["spec"]["sharedCounters"] = [{"name": GOOD, "counters": counters()}, {"name": GOOD, "counters": counters()}]
    case(F, "duplicate-shared-counters", s, [duplicate("spec.sharedCounters[1]", GOOD)])
    s = slice_shared(GOOD, GOOD, DRIVER, 1)
    s["spec"]["sharedCounters"] = shared(8)
    case(F, "max-shared-counters", s)
    s = slice_shared(GOOD, GOOD, DRIVER, 1)
    s["spec"]["sharedCounters"] = shared(9)
    case(F, "too-many-shared-counters", s, [too_many("spec.sharedCounters", 9, 8)])
    s = slice_shared(GOOD, GOOD, DRIVER, 1)
    s["spec"]["sharedCounters"][0]["counters"] = multi_counters(32)
    case(F, "max-counters-in-counter-set", s)
    s = slice_shared(GOOD, GOOD, DRIVER, 1)
    s["spec"]["sharedCounters"][0]["counters"] = multi_counters(33)
    case(F, "too-many-counters-in-counter-set", s, [too_many("spec.sharedCounters[0].counters", 33, 32)])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["devices"][0]["consumesCounters"] = [{"counters": counters()}]
    case(F, "missing-name-counterset-consumes-counter", s, [required(dev_path(0, "consumesCounters", 0, "counterSet"))])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["devices"][0]["consumesCounters"] = [{"counterSet": BAD, "counters": counters()}]
    case(F, "bad-name-counterset-consumes-counter", s,
         [invalid(dev_path(0, "consumesCounters", 0, "counterSet"), BAD, LABEL)])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["devices"][0]["consumesCounters"] = [{"counterSet": GOOD, "counters": counters()}] * 2
    case(F, "duplicate-counterset-consumes-counter", s, [duplicate(dev_path(0, "consumesCounters", 1), GOOD)])
    s = slice_obj(GOOD, GOOD, DRIVER, 1)
    s["spec"]["devices"][0]["consumesCounters"] = [{"counterSet": "counterset-0"}]
    case(F, "missing-counter-consumes-counter", s, [required(dev_path(0, "consumesCounters", 0, "counters"))])
    for n, errs in [(2, []), (3, [too_many(dev_path(0, "consumesCounters"), 3, 2)])]:
        s = slice_obj(GOOD, GOOD, DRIVER, 1)
        del s["spec"]["devices"][0]["attributes"], s["spec"]["devices"][0]["capacity"]
        s["spec"]["devices"][0]["consumesCounters"] = consumes(n)
        case(F, ("max" if n == 2 else "too-many") + "-device-counter-consumption-for-device", s, errs)
    for n, errs in [(32, []), (33, [too_many(dev_path(0, "consumesCounters", 0, "counters"), 33, 32)])]:
        s = slice_obj(GOOD, GOOD, DRIVER, 1)
        del s["spec"]["devices"][0]["attributes"], s["spec"]["devices"][0]["capacity"]
        s["spec"]["devices"][0]["consumesCounters"] = [{"counterSet": "counterset-0", "counters": multi_counters(n)}]
        case(F, ("max" if n == 32 else "too-many") + "-counters-in-device-counter-consumption", s, errs)
    s = slice_obj(GOOD, GOOD, GOOD, MAXA)
    for d in s["spec"]["devices"]:
        d["consumesCounters"] = [{"counterSet": "counterset-0", "counters": counters()}]
    case(F, "max-number-of-devices-with-consumes-counters", s)
    s = slice_obj(GOOD, GOOD, GOOD, MAXA + 1)
    s["spec"]["devices"][0]["consumesCounters"] = [{"counterSet": "counterset-0", "counters": counters()}]
    case(F, "too-many-devices-with-consumes-counters", s, [too_many("spec.devices", MAXA + 1, MAXA)])

    def bc(name, b, f, errs=()):
        s = slice_obj(GOOD, GOOD, DRIVER, 1)
        if b is not None:
            s["spec"]["devices"][0]["bindingConditions"] = b
        if f is not None:
            s["spec"]["devices"][0]["bindingFailureConditions"] = f
        case(F, name, s, errs)
    bc("good-binding-conditions", ["example.com/condition1", "condition2"], ["example.com/condition3", "condition4"])
    bc("too-many-binding-conditions", ["condition%d" % i for i in range(1, 6)], ["condition6", "condition7"],
       [too_many(dev_path(0, "bindingConditions"), 5, 4)])
    bc("too-many-binding-failure-conditions", ["condition1", "condition2"], ["condition%d" % i for i in range(3, 8)],
       [too_many(dev_path(0, "bindingFailureConditions"), 5, 4)])
    bc("invalid-binding-conditions", ["condition1", "condition2!"], ["condition3", "condition4"],
       [invalid(dev_path(0, "bindingConditions", 1), "condition2!", NAME_PART)])
    bc("invalid-binding-failure-conditions", ["condition1", "condition2"], ["condition3!", "condition4"],
       [invalid(dev_path(0, "bindingFailureConditions", 0), "condition3!", NAME_PART)])
    bc("invalid-slice-has-binding-failure-but-no-binding-conditions", None, ["condition1", "condition2"],
       [invalid(dev_path(0, "bindingConditions"), None, "bindingConditions are required to use bindingFailureConditions")])
    bc("invalid-slice-has-binding-conditions-but-no-binding-failure-conditions", ["condition1", "condition2"], None,
       [invalid(dev_path(0, "bindingFailureConditions"), None,
                "bindingFailureConditions are required to use bindingConditions")])
    bc("duplicate-binding-conditions", ["condition1", "condition1"], ["condition2", "condition3"],
       [duplicate(dev_path(0, "bindingConditions", 1), "condition1")])
    bc("duplicate-binding-failure-conditions", ["condition1", "condition2"], ["condition3", "condition3"],
       [duplicate(dev_path(0, "bindingFailureConditions", 1), "condition3")])
    bc("overlapping-binding-conditions", ["condition1", "condition2"], ["condition1", "condition3"],
       [invalid(dev_path(0, "bindingFailureConditions", 0), "condition1",
                "bindingFailureConditions must not overlap with bindingConditions")])

    for nm, ops, errs in [
            ("valid: skipNodeOperations All and Prepare", ["*", "NodePrepareResources"], []),
            ("valid: skipNodeOperations Prepare and Unprepare", ["NodePrepareResources", "NodeUnprepareResources"], []),
            ("invalid: skipNodeOperations Prepare only", ["NodePrepareResources"],
             [invalid("spec.skipNodeOperations", ["NodePrepareResources"],
                      "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped")])]:
        s = slice_obj(GOOD, GOOD, DRIVER, 1)
        s["spec"]["skipNodeOperations"] = ops
        case(F, nm, s, errs)


# ======================================================================
# DeviceClass (validation_deviceclass_test.go, TestValidateClass)
# ======================================================================

def class_obj(name):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}}


def gen_classes():
    F = "deviceclass"
    case(F, "good-class", class_obj(GOOD))
    meta_cases(F, class_obj)
    c = class_obj(GOOD)
    c["spec"] = {"extendedResourceName": "example.com/gpu"}
    case(F, "good-extended-resource-name", c)
    c = class_obj(GOOD)
    c["spec"] = {"extendedResourceName": "example.com"}
    case(F, "bad-extended-resource-name", c,
         [invalid("spec.extendedResourceName", "example.com", "must be a valid extended resource name")])
    good_sel = {"cel": {"expression": "true"}}
    c = class_obj(GOOD)
    c["spec"] = {"selectors": [good_sel, {}, {"cel": {"expression": "noSuchVar"}}] + [good_sel] * 29}
    case(F, "selectors", c, [
        required("spec.selectors[1].cel"),
        invalid("spec.selectors[2].cel.expression", "noSuchVar",
                "compilation failed: ERROR: <input>:1:1: undeclared reference to 'noSuchVar' (in container '')\n"
                " | noSuchVar\n | ^")])
    c = class_obj(GOOD)
    c["spec"] = {"selectors": [good_sel] * 33}
    case(F, "too-many-selectors", c, [too_many("spec.selectors", 33, 32)])
    good_cfg = {"opaque": {"driver": GOOD, "parameters": {"foo": 42}}}
    big = "x" * (10240 - 9 - 2)
    cfgs = [good_cfg, {"opaque": {}},
            {"opaque": {"driver": GOOD, "parameters": "hello-world"}},
            {"opaque": {"driver": GOOD, "parameters": None}},
            {},
            {"opaque": {"driver": GOOD, "parameters": {"str": big}}},
            {"opaque": {"driver": GOOD, "parameters": {"str": big + "xx"}}}]
    c = class_obj(GOOD)
    c["spec"] = {"config": cfgs + [good_cfg] * (32 - len(cfgs))}
    case(F, "configuration", c, [
        required("spec.config[1].opaque.driver"),
        required("spec.config[1].opaque.parameters"),
        invalid("spec.config[2].opaque.parameters", "<value omitted>", "must be a valid JSON object"),
        required("spec.config[3].opaque.parameters"),
        required("spec.config[4].opaque"),
        too_long("spec.config[6].opaque.parameters", 10240)],
        note="upstream index 2 (raw `xxx`, not JSON) cannot be expressed in a parsed object and is dropped; "
             "later indices shift down by one.  Parameters are measured in their compact JSON form (upstream "
             "measures the raw bytes, which in its test carry a space after the colon), so the too-long case "
             "is one byte longer")
    c = class_obj(GOOD)
    c["spec"] = {"config": [good_cfg] * 33}
    case(F, "too-many-configs", c, [too_many("spec.config", 33, 32)])


# ======================================================================
# DeviceTaintRule (validation_devicetaintrule_test.go, TestValidateDeviceTaint)
# ======================================================================

def rule_obj(name):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": name},
            "spec": {"deviceSelector": {"driver": "test.example.com", "pool": GOOD, "device": GOOD},
                     "taint": {"key": "example.com/taint", "value": "tainted", "effect": "NoSchedule"}}}


def gen_rules():
    F = "devicetaintrule"
    case(F, "good", rule_obj(GOOD))
    meta_cases(F, rule_obj)
    for fld, msg in [("driver", SUBDOMAIN), ("pool", SUBDOMAIN), ("device", LABEL)]:
        r = rule_obj(GOOD)
        r["spec"]["deviceSelector"][fld] = BAD
        case(F, "bad-" + fld, r, [invalid("spec.deviceSelector." + fld, BAD, msg)])
    r = rule_obj(GOOD)
    r["spec"]["taint"] = {"key": GOOD, "value": GOOD, "effect": "NoExecute"}
    case(F, "valid-taint", r)
    r = rule_obj(GOOD)
    r["spec"]["taint"] = {"key": GOOD, "value": GOOD}
    case(F, "invalid-taint", r, [required("spec.taint.effect")])


# ======================================================================
# ResourceClaim / ResourceClaimTemplate
# ======================================================================

def spec_exact():
    return {"devices": {"requests": [{"name": GOOD, "exactly": {
        "deviceClassName": GOOD, "allocationMode": "ExactCount", "count": 1}}]}}


def spec_first():
    return {"devices": {"requests": [{"name": GOOD, "firstAvailable": [
        {"name": GOOD, "deviceClassName": GOOD, "allocationMode": "ExactCount", "count": 1},
        {"name": GOOD2, "deviceClassName": GOOD, "allocationMode": "ExactCount", "count": 1}]}]}}


def claim_obj(name, ns=NS, spec=None):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": ns}, "spec": spec or spec_exact()}


def template_obj(name, ns=NS, spec=None):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": ns}, "spec": {"spec": spec or spec_exact()}}


KIND_CFG = {"kind": "foo", "apiVersion": "dra.example.com/v1"}
COST_EXPR = ("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, "
             "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, "
             "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, "
             "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))")
BAD_CEL = "device.attributes[true].someBoolean"
BAD_CEL_MSG = ("compilation failed: ERROR: <input>:1:18: found no matching overload for '_[_]' applied to "
               "'(map(string, map(string, any)), bool)'\n | device.attributes[true].someBoolean\n"
               " | .................^")


def gen_claims():
    F = "resourceclaim"
    R = "spec.devices.requests"
    case(F, "good-claim", claim_obj(GOOD))
    meta_cases(F, claim_obj, namespaced=True)
    c = claim_obj(GOOD)
    c["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = BAD
    case(F, "bad-classname", c, [invalid(R + "[0].exactly.deviceClassName", BAD, SUBDOMAIN)])
    c = claim_obj(GOOD)
    c["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = ""
    case(F, "missing-classname", c, [required(R + "[0].exactly.deviceClassName")])

    def bad_constraints_config(c):
        dev = c["spec"]["devices"]
        dev["constraints"] = [{"requests": [GOOD, BAD], "matchAttribute": "missing-domain"},
                              {"matchAttribute": ""}, {}]
        dev["config"] = [{"requests": [GOOD, BAD], "opaque": {"driver": "dra.example.com", "parameters": KIND_CFG}}]
    constraint_errs = [
        invalid("spec.devices.constraints[0].requests[1]", BAD, LABEL),
        invalid("spec.devices.constraints[0].requests[1]", BAD, REF),
        invalid("spec.devices.constraints[0].matchAttribute", "missing-domain", C_IDENT),
        invalid("spec.devices.constraints[0].matchAttribute", "missing-domain",
                "a fully qualified name must be a domain and a name separated by a slash"),
        invalid("spec.devices.constraints[1].matchAttribute", "", C_IDENT),
        invalid("spec.devices.constraints[1].matchAttribute", "",
                "a fully qualified name must be a domain and a name separated by a slash"),
        required("spec.devices.constraints[2]", 'exactly one of "matchAttribute" or "distinctAttribute" is '
                 'required, but multiple fields are set')]
    config_errs = [invalid("spec.devices.config[0].requests[1]", BAD, LABEL),
                   invalid("spec.devices.config[0].requests[1]", BAD, REF)]
    note_fqn = ("expected errors for matchAttribute follow the current validateFullyQualifiedName "
                "(the stored test copy predates it: \"must include a domain\", \"name required\"); a constraint "
                "with neither attribute gets the DRAConsumableCapacity wording (gate on by default)")
    c = claim_obj(GOOD)
    bad_constraints_config(c)
    dev = c["spec"]["devices"]
    dev["constraints"] += [{"matchAttribute": "foo/bar"}] * (33 - 3)
    dev["config"] += [{"opaque": {"driver": "dra.example.com", "parameters": KIND_CFG}}] * (33 - 1)
    req0 = dev["requests"][0]
    dev["requests"] += [dict(copy.deepcopy(req0), name=GOOD + str(i)) for i in range(1, 33)]
    case(F, "invalid-request", c, [too_many(R, 33, 32), too_many("spec.devices.constraints", 33, 32),
                                   too_many("spec.devices.config", 33, 32)],
         note="the current validateSlice/validateSet stop at Too many (DOS protection), so the per-item "
              "constraint and config errors of the stored test copy are no longer reported")
    c = claim_obj(GOOD)
    dev = c["spec"]["devices"]
    dev["constraints"] = [{"matchAttribute": "foo/bar"}] * 32
    dev["config"] = [{"opaque": {"driver": "dra.example.com", "parameters": KIND_CFG}}] * 32
    req0 = dev["requests"][0]
    dev["requests"] += [dict(copy.deepcopy(req0), name=GOOD + str(i)) for i in range(1, 32)]
    case(F, "valid-request", c)
    c = claim_obj(GOOD)
    bad_constraints_config(c)
    case(F, "invalid-spec", c, constraint_errs + config_errs, note=note_fqn)

    c = claim_obj(GOOD)
    good = c["spec"]["devices"]["requests"][0]
    reqs = [good]
    for suffix, mode, count in [("2", "All", None), ("3", "ExactCount", -1), ("4", "other", 1), ("5", "All", 2)]:
        r = copy.deepcopy(good)
        r["name"] = GOOD + suffix
        r["exactly"]["allocationMode"] = mode
        if count is None:
            del r["exactly"]["count"]
        else:
            r["exactly"]["count"] = count
        reqs.append(r)
    reqs.append(copy.deepcopy(good))
    c["spec"]["devices"]["requests"] = reqs
    case(F, "allocation-mode", c, [
        invalid(R + "[2].exactly.count", -1, "must be greater than zero"),
        unsupported(R + "[3].exactly.allocationMode", "other", MODES),
        invalid(R + "[4].exactly.count", 2, "must not be specified when allocationMode is 'All'"),
        duplicate(R + "[5]", "foo")],
        note="Duplicate paths follow the current validateSet (index only, no .name child)")
    c = claim_obj(GOOD)
    big = "x" * (10240 - 9 - 2)
    c["spec"]["devices"]["config"] = [
        {"opaque": {"driver": "dra.example.com"}},
        {"opaque": {"driver": "dra.example.com", "parameters": "hello-world"}},
        {"opaque": {"driver": "dra.example.com", "parameters": None}},
        {"opaque": {"driver": "dra.example.com", "parameters": {"str": big}}},
        {"opaque": {"driver": "dra.example.com", "parameters": {"str": big + "xx"}}}]
    case(F, "configuration", c, [
        required("spec.devices.config[0].opaque.parameters"),
        invalid("spec.devices.config[1].opaque.parameters", "<value omitted>", "must be a valid JSON object"),
        required("spec.devices.config[2].opaque.parameters"),
        too_long("spec.devices.config[4].opaque.parameters", 10240)],
        note="upstream index 1 (raw `{`, not JSON) is dropped; later indices shift down by one; the too-long "
             "value is one byte longer (compact JSON, see deviceclass configuration)")

    def two_requests(sels):
        c = claim_obj(GOOD)
        r = copy.deepcopy(c["spec"]["devices"]["requests"][0])
        r["name"] += "-2"
        r["exactly"]["selectors"] = sels
        c["spec"]["devices"]["requests"].append(r)
        return c
    case(F, "CEL-compile-errors", two_requests([{"cel": {"expression": 'device.driver == "dra.example.com"'}},
                                                {"cel": {"expression": BAD_CEL}}]),
         [invalid(R + "[1].exactly.selectors[1].cel.expression", BAD_CEL, BAD_CEL_MSG)])
    expr = 'device.driver == ""'
    ok = expr.replace('""', '"' + "x" * (10240 - len(expr)) + '"')
    long = expr.replace('""', '"' + "x" * (10240 - len(expr) + 1) + '"')
    case(F, "CEL-length", two_requests([{"cel": {"expression": ok}}, {"cel": {"expression": long}}]),
         [too_long(R + "[1].exactly.selectors[1].cel.expression", 10240)])
    c = claim_obj(GOOD)
    c["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = [{"cel": {"expression": COST_EXPR}}]
    case(F, "CEL-cost", c, [forbidden(R + "[0].exactly.selectors[0].cel.expression", "too complex, exceeds cost limit")])

    case(F, "prioritized-list-valid", claim_obj(GOOD, spec=spec_first()))
    c = claim_obj(GOOD, spec=spec_first())
    c["spec"]["devices"]["requests"][0]["exactly"] = {
        "deviceClassName": GOOD, "selectors": [{"cel": {"expression": 'device.driver == "dra.example.com"'}}],
        "allocationMode": "ExactCount", "count": 2, "adminAccess": True}
    case(F, "prioritized-list-both-first-available-and-exactly-set", c,
         [invalid(R + "[0]", None, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set")],
         note="current wording adds \", but multiple fields are set\" (validation_resourceclaimtemplate_test.go)")
    c = claim_obj(GOOD, spec=spec_first())
    c["spec"]["devices"]["requests"][0]["firstAvailable"][0] = {"name": BAD}
    case(F, "prioritized-list-invalid-nested-request", c, [
        invalid(R + "[0].firstAvailable[0].name", BAD, LABEL),
        required(R + "[0].firstAvailable[0].deviceClassName"),
        unsupported(R + "[0].firstAvailable[0].allocationMode", "", MODES)])
    c = claim_obj(GOOD, spec=spec_first())
    c["spec"]["devices"]["requests"][0]["firstAvailable"][1]["name"] = GOOD
    case(F, "prioritized-list-nested-requests-same-name", c, [duplicate(R + "[0].firstAvailable[1]", "foo")])
    c = claim_obj(GOOD)
    del c["spec"]["devices"]["requests"][0]["exactly"]
    c["spec"]["devices"]["requests"][0]["firstAvailable"] = [
        {"name": "subreq-%d" % i, "deviceClassName": GOOD, "allocationMode": "ExactCount", "count": 1} for i in range(9)]
    case(F, "prioritized-list-too-many-subrequests", c, [too_many(R + "[0].firstAvailable", 9, 8)])
    for what, fld, extra in [("config", "config", {"opaque": {"driver": "dra.example.com", "parameters": KIND_CFG}}),
                             ("constraints", "constraints", {"matchAttribute": "dra.example.com/driverVersion"})]:
        for nm, ref, errs in [("subrequest-reference", "foo/bar", []), ("parent-request-reference", "foo", []),
                              ("invalid-subrequest-reference", "foo/baz",
                               [invalid("spec.devices.%s[0].requests[0]" % fld, "foo/baz", REF)])]:
            c = claim_obj(GOOD, spec=spec_first())
            c["spec"]["devices"][fld] = [dict(requests=[ref], **extra)]
            case(F, "prioritized-list-%s-requests-with-%s" % (what, nm), c, errs)

    # TestValidateClaimStatusUpdate cases whose outcome does not depend on the
    # old object: the status is validated as part of the new claim.
    def alloc_claim(spec=None, **result):
        c = claim_obj(GOOD, spec=spec)
        r = {"request": GOOD, "driver": GOOD, "pool": GOOD, "device": GOOD, "adminAccess": False}
        r.update(result)
        c["status"] = {"allocation": {"devices": {"results": [r]}}}
        return c
    S = "status"
    case(F, "status: valid-add-allocation-empty", dict(claim_obj(GOOD), status={"allocation": {}}))
    case(F, "status: valid-add-allocation-non-empty", alloc_claim())
    case(F, "status: invalid-add-allocation-bad-request", alloc_claim(request=BAD), [
        invalid("status.allocation.devices.results[0].request", BAD, LABEL),
        invalid("status.allocation.devices.results[0].request", BAD, REF)])
    c = alloc_claim()
    del c["status"]["allocation"]["devices"]["results"][0]["adminAccess"]
    case(F, "status: okay-add-allocation-missing-admin-access", c)
    case(F, "status: invalid-node-selector", dict(claim_obj(GOOD), status={"allocation": {"nodeSelector": {}}}),
         [required("status.allocation.nodeSelector.nodeSelectorTerms", "must have at least one node selector term")])

    def reserved(n, same=False):
        return [{"resource": "pods", "name": "foo" if same else "foo-%d" % i, "uid": "1" if same else str(i)}
                for i in range(n)]
    c = alloc_claim()
    c["status"]["reservedFor"] = reserved(256)
    case(F, "status: add-reservation-and-allocation", c)
    c = alloc_claim()
    c["status"]["reservedFor"] = reserved(257)
    case(F, "status: invalid-reserved-for-too-large", c, [too_many("status.reservedFor", 257, 256)])
    c = alloc_claim()
    c["status"]["reservedFor"] = reserved(2, same=True)
    case(F, "status: invalid-reserved-for-duplicate", c, [duplicate("status.reservedFor[1]", "1")])
    c = claim_obj(GOOD)
    c["status"] = {"reservedFor": reserved(1, same=True)}
    case(F, "status: invalid-reserved-for-no-allocation", c,
         [forbidden("status.reservedFor", "may not be specified when `allocated` is not set")])
    for missing in ["resource", "name", "uid"]:
        c = alloc_claim()
        ref = {"resource": "pods", "name": "foo", "uid": "1"}
        del ref[missing]
        c["status"]["reservedFor"] = [ref]
        case(F, "status: invalid-reserved-for-no-" + missing, c, [required("status.reservedFor[0].%s" % missing)])
    c = alloc_claim()
    c["status"]["allocation"]["devices"]["config"] = [
        {"source": "FromClaim", "requests": [GOOD, BAD], "opaque": {"driver": "dra.example.com", "parameters": KIND_CFG}}]
    case(F, "status: invalid-request-name", c, [
        invalid("status.allocation.devices.config[0].requests[1]", BAD, LABEL),
        invalid("status.allocation.devices.config[0].requests[1]", BAD, REF)])
    c = alloc_claim()
    cfg = {"driver": "dra.example.com", "parameters": KIND_CFG}
    c["status"]["allocation"]["devices"]["config"] = [
        {"source": "FromClaim", "opaque": cfg}, {"source": "", "opaque": cfg},
        {"source": "no-such-source", "opaque": cfg}, {"source": "FromClaim"},
        {"source": "FromClaim", "opaque": {}},
        {"source": "FromClaim", "opaque": {"driver": GOOD, "parameters": {"str": big}}},
        {"source": "FromClaim", "opaque": {"driver": GOOD, "parameters": {"str": big + "xx"}}}]
    AC = "status.allocation.devices.config"
    case(F, "status: configuration", c, [
        required(AC + "[1].source"),
        unsupported(AC + "[2].source", "no-such-source", SOURCES),
        required(AC + "[3].opaque"),
        required(AC + "[4].opaque.driver"),
        required(AC + "[4].opaque.parameters"),
        too_long(AC + "[6].opaque.parameters", 10240)],
        note="an empty driver is only Required now (deviceclass configuration, newer table); the stored claim "
             "table also expected the subdomain message")

    def dev_status(**kw):
        c = alloc_claim()
        d = {"driver": GOOD, "pool": GOOD, "device": GOOD}
        d.update(kw)
        c["status"]["devices"] = [d]
        return c
    conds = [{"type": "test-%d" % i, "status": "True", "reason": "test_reason",
              "lastTransitionTime": "2024-01-02T03:04:05Z", "observedGeneration": 0} for i in range(9)]
    ips16 = ["10.9.8.0/24", "2001:db8::/64", "10.9.8.1/24", "2001:db8::1/64"] + \
            ["10.9.8.%d/24" % i for i in range(2, 14)]
    for gate in [True, False]:
        sfx = "" if gate else "-disabled-feature-gate"
        feat = {"DRAResourceClaimDeviceStatus": gate}
        if gate:
            case(F, "status: valid-network-device-status", dev_status(
                conditions=conds[:8], data=KIND_CFG,
                networkData={"interfaceName": "x" * 256, "hardwareAddress": "x" * 128, "ips": ips16}), features=feat)
        c = dev_status(networkData={"ips": ["2001:db8::1/64", "2001:db8::1/64"]})
        c["status"]["devices"].append({"driver": GOOD, "pool": GOOD, "device": GOOD})
        case(F, "status: invalid-device-status-duplicate" + sfx, c, [
            duplicate("status.devices[0].networkData.ips[1]", "2001:db8::1/64"),
            "status.devices[1]: Duplicate value: foo/foo/foo"], features=feat)
        ips = ["300.9.8.0/24", "010.009.008.000/24", "2001:0db8::1/64"] if gate else ["300.9.8.0/24"]
        errs = [too_long("status.devices[0].networkData.interfaceName", 256),
                too_long("status.devices[0].networkData.hardwareAddress", 128),
                invalid("status.devices[0].networkData.ips[0]", "300.9.8.0/24",
                        "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)")]
        if gate:
            errs += [invalid("status.devices[0].networkData.ips[1]", "010.009.008.000/24",
                             "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"),
                     invalid("status.devices[0].networkData.ips[2]", "2001:0db8::1/64",
                             'must be in canonical form ("2001:db8::1/64")')]
        case(F, "status: invalid-network-device-status" + sfx, dev_status(
            networkData={"interfaceName": "x" * 257, "hardwareAddress": "x" * 129, "ips": ips}), errs, features=feat,
            note="IP texts follow IsValidInterfaceAddress, which the current validation.go uses (the stored test "
                 "copy still has the older IsValidCIDR texts)")
        case(F, "status: invalid-data-device-status-limits" + ("" if gate else "-feature-gate"), dev_status(
            data={"str": big + "xx"}, conditions=conds,
            networkData={"ips": ["10.9.8.%d/24" % i for i in range(17)]}), [
            too_many("status.devices[0].conditions", 9, 8),
            too_long("status.devices[0].data", 10240),
            too_many("status.devices[0].networkData.ips", 17, 16)], features=feat)
        c = alloc_claim()
        c["status"]["devices"] = [{"driver": "b", "pool": "a", "device": "r"}]
        case(F, "status: invalid-device-status-no-device" + sfx, c,
             ['status.devices[0]: Invalid value: {"Driver":"b","Pool":"a","Device":"r","ShareID":""}: must be an allocated device in the claim'], features=feat)
    c = alloc_claim()
    c["status"]["allocation"]["nodeSelector"] = {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "foo", "operator": "In", "values": ["-1"]}]}]}
    case(F, "status: invalid-update-invalid-label-value", c, [invalid(
        "status.allocation.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]", "-1", LABEL_VALUE)])
    case(F, "status: valid-add-allocation-with-sub-requests", alloc_claim(spec=spec_first(), request="foo/foo"))
    case(F, "status: invalid-add-allocation-with-sub-requests-invalid-format",
         alloc_claim(spec=spec_first(), request="foo/foo/foo"),
         [invalid("status.allocation.devices.results[0].request", "foo/foo/foo", REF)])
    case(F, "status: invalid-add-allocation-with-sub-requests-no-corresponding-sub-request",
         alloc_claim(spec=spec_first(), request="foo/baz"),
         [invalid("status.allocation.devices.results[0].request", "foo/baz", REF)])
    case(F, "status: invalid-add-allocation-with-sub-requests-invalid-request-names",
         alloc_claim(spec=spec_first(), request=BAD + "/&^%$"), [
             invalid("status.allocation.devices.results[0].request", BAD, LABEL),
             invalid("status.allocation.devices.results[0].request", "&^%$", LABEL),
             invalid("status.allocation.devices.results[0].request", BAD + "/&^%$", REF)])
    case(F, "status: add-allocation-old-claim-with-prioritized-list", alloc_claim(spec=spec_first(), request="foo/bar"))

    # TestValidateClaimTemplate
    T = "resourceclaimtemplate"
    case(T, "good-claim", template_obj(GOOD))
    meta_cases(T, template_obj, namespaced=True)
    t = template_obj(GOOD)
    t["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = BAD
    case(T, "bad-classname", t, [invalid("spec.spec.devices.requests[0].exactly.deviceClassName", BAD, SUBDOMAIN)])
    case(T, "prioritized-list", template_obj(GOOD, spec=spec_first()))
    t = template_obj(GOOD, spec=spec_first())
    t["spec"]["spec"]["devices"]["requests"][0]["exactly"] = {"deviceClassName": GOOD, "allocationMode": "All"}
    case(T, "prioritized-list-both-first-available-and-exactly-set", t, [invalid(
        "spec.spec.devices.requests[0]", None,
        "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set")])
    t = template_obj(GOOD, spec=spec_first())
    t["spec"]["spec"]["devices"]["requests"][0]["firstAvailable"][0]["deviceClassName"] = BAD
    case(T, "prioritized-list-bad-class-name-on-subrequest", t, [
        invalid("spec.spec.devices.requests[0].firstAvailable[0].deviceClassName", BAD, SUBDOMAIN)])


def main():
    gen_slices()
    gen_classes()
    gen_rules()
    gen_claims()
    for name, docs in CASES.items():
        path = os.path.join(HERE, name + ".yaml")
        with open(path, "w") as f:
            f.write("# Generated by gen.py from upstream's %s test table; do not edit.\n" % name)
            yaml.safe_dump_all(docs, f, sort_keys=False, width=200, default_flow_style=None, allow_unicode=True)
        print("%s: %d cases" % (path, len(docs)), file=sys.stderr)


if __name__ == "__main__":
    main()
