#!/usr/bin/env python3
"""Writes the upstream allocator test cases of cases.py as YAML case files.

The cases are upstream's allocator test table
(kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/
structured/internal/allocatortesting/allocator_testing.go, TestAllocator),
restated as data: the same objects, features and expectations.  The helper
names below follow upstream's test helpers so a case reads like the
original.  Run from anywhere: `python3 tests/data/alloc/upstream/gen.py`;
it rewrites every <name>.yaml next to it (the C runner is
tests/unit/test_alloc_upstream.c).  Only needed when cases change.
"""
import copy
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))

region1, region2 = "region-1", "region-2"
node1, node2 = "node-1", "node-2"
classA, classB = "class-a", "class-b"
driverA, driverB = "driver-a", "driver-b"
pool1, pool2, pool3, pool4 = "pool-1", "pool-2", "pool-3", "pool-4"
req0, req1, req2, req3 = "req-0", "req-1", "req-2", "req-3"
subReq0, subReq1 = "subReq-0", "subReq-1"
req0SubReq0, req0SubReq1 = "req-0/subReq-0", "req-0/subReq-1"
req1SubReq0, req1SubReq1 = "req-1/subReq-0", "req-1/subReq-1"
req2SubReq0, req2SubReq1 = "req-2/subReq-0", "req-2/subReq-1"
claim0, claim1 = "claim-0", "claim-1"
slice1, slice2, slice3, slice4 = "slice-1", "slice-2", "slice-3", "slice-4"
device0, device1, device2, device3, device4 = "device-0", "device-1", "device-2", "device-3", "device-4"
counterSet1, counterSet2 = "counter-set-1", "counter-set-2"
capacity0, capacity1 = "capacity-0", "capacity-1"
fieldNameKey, regionKey, planetKey, planetValueEarth = "metadata.name", "region", "planet", "earth"
nodeSelectionAll, nodeSelectionPerDevice = "nodeSelectionAll", "nodeSelectionPerDevice"
fromCounters = "fromCounters"

# Attribute names used by the table.
nonExistentAttribute = driverA + "/NonExistentAttribute"
boolAttribute = driverA + "/boolAttribute"
stringAttribute = driverA + "/stringAttribute"
versionAttribute = driverA + "/driverVersion"
intAttribute = driverA + "/numa"

taintKey, taintValue, taintValue2 = "taint-key", "taint-value", "taint-value-2"
taintNone = {"key": taintKey, "value": taintValue, "effect": "None"}
taintNoSchedule = {"key": taintKey, "value": taintValue, "effect": "NoSchedule"}
taintNoExecute = {"key": taintKey, "value": taintValue2, "effect": "NoExecute"}
tolerationNoSchedule = {"key": taintKey, "operator": "Exists", "effect": "NoSchedule"}
tolerationNoExecute = {"key": taintKey, "operator": "Equal", "value": taintValue2, "effect": "NoExecute"}
tolerationNoScheduleKey1 = {"key": "key1", "operator": "Exists", "effect": "NoSchedule"}

# Quantities as upstream writes them (resource.NewQuantity(n, BinarySI)).
zero, one, two, three, four = "0", "1", "2", "3", "4"

# Upstream's Features fields -> our feature gates.
FEATURES = {
    "AdminAccess": ["DRAAdminAccess"],
    "PrioritizedList": ["DRAPrioritizedList"],
    "PartitionableDevices": ["DRAPartitionableDevices"],
    "DeviceTaints": ["DRADeviceTaints"],
    "DeviceBindingAndStatus": ["DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"],
    "DeviceBinding": ["DRADeviceBindingConditions"],
    "DeviceStatus": ["DRAResourceClaimDeviceStatus"],
    "ConsumableCapacity": ["DRAConsumableCapacity"],
    "ListTypeAttributes": ["DRAListTypeAttributes"],
    "CompatibilityGroups": ["DRADeviceCompatibilityGroups"],
}


def _clean(o):
    """Drop None values (Go's zero values that omitempty leaves out)."""
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items() if v is not None}
    if isinstance(o, list):
        return [_clean(v) for v in o]
    return o


# ---- objects ------------------------------------------------------------------

def node(name, region):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {regionKey: region, planetKey: planetValueEarth}}}


def sel(expr):
    return {"cel": {"expression": expr}}


def cls(name, driver, selectors=None, config=None):
    spec = {"selectors": selectors if selectors is not None else [sel('device.driver == "%s"' % driver)]}
    if config:
        spec["config"] = config
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def classWithAllowMultipleAllocations(name, driver, multi):
    return cls(name, driver, [sel('device.driver == "%s" && device.allowMultipleAllocations == %s'
                                  % (driver, "true" if multi else "false"))])


def deviceConfiguration(driver, attribute):
    return {"opaque": {"driver": driver, "parameters": {attribute: attribute + "Value"}}}


def classWithConfig(name, driver, attribute):
    return cls(name, driver, config=[deviceConfiguration(driver, attribute)])


def _req_body(cls_name, count, selectors, mode="ExactCount"):
    body = {"deviceClassName": cls_name, "allocationMode": mode}
    if count:
        body["count"] = count
    if selectors:
        body["selectors"] = list(selectors)
    return body


def request(name, cls_name, count, *selectors):
    return {"name": name, "exactly": _req_body(cls_name, count, selectors)}


deviceRequest = request


def allDeviceRequest(name, cls_name, *selectors):
    return {"name": name, "exactly": _req_body(cls_name, 0, selectors, "All")}


def subRequest(name, cls_name, count, *fields):
    s = {"name": name, "deviceClassName": cls_name, "allocationMode": "ExactCount"}
    if count:
        s["count"] = count
    for f in fields:
        if "cel" in f:
            s.setdefault("selectors", []).append(f)
        else:
            s.setdefault("tolerations", []).append(f)
    return s


def requestWithPrioritizedList(name, *subs):
    return {"name": name, "firstAvailable": list(subs)}


def with_capacity(r, quantity):
    """withCapacityRequest on a request or subrequest."""
    r = copy.deepcopy(r)
    target = r["exactly"] if "exactly" in r else r
    target["capacity"] = {"requests": {capacity0: quantity} if quantity is not None else {}}
    return r


def with_selectors(r, *selectors):
    r = copy.deepcopy(r)
    r["exactly"]["selectors"] = list(selectors)
    return r


def with_mode(sub, mode):
    sub = copy.deepcopy(sub)
    sub["allocationMode"] = mode
    return sub


def claim(name, requests=None, constraints=None, config=None):
    devices = {}
    if requests:
        devices["requests"] = list(requests)
    if constraints:
        devices["constraints"] = list(constraints)
    if config:
        devices["config"] = list(config)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name},
            "spec": {"devices": devices}}


def claimWithRequests(name, constraints, *requests):
    return claim(name, requests, constraints)


def claimWithRequest(name, req, cls_name, *constraints):
    return claim(name, [request(req, cls_name, 1)], list(constraints) or None)


def claimWithDeviceConfig(name, req, cls_name, driver, attribute):
    c = claimWithRequest(name, req, cls_name)
    c["spec"]["devices"]["config"] = [deviceConfiguration(driver, attribute)]
    return c


def deviceClaimConfig(requests, cfg):
    out = {}
    if requests:
        out["requests"] = list(requests)
    out.update(cfg)
    return out


def with_tolerations(c, *tolerations):
    c = copy.deepcopy(c)
    for r in c["spec"]["devices"].get("requests", []):
        r["exactly"].setdefault("tolerations", []).extend(tolerations)
    return c


def with_constraints(c, *constraints):
    c = copy.deepcopy(c)
    c["spec"]["devices"]["constraints"] = list(constraints)
    return c


def with_configs(c, configs):
    c = copy.deepcopy(c)
    c["spec"]["devices"]["config"] = list(configs)
    return c


def match(attr, *requests):
    c = {"matchAttribute": attr}
    if requests:
        c = {"requests": list(requests), "matchAttribute": attr}
    return c


def distinct(attr, *requests):
    c = {"distinctAttribute": attr}
    if requests:
        c = {"requests": list(requests), "distinctAttribute": attr}
    return c


# attribute values
def s_(v): return {"string": v}
def i_(v): return {"int": v}
def b_(v): return {"bool": v}
def v_(v): return {"version": v}
def ss_(*v): return {"strings": list(v)}
def is_(*v): return {"ints": list(v)}
def bs_(*v): return {"bools": list(v)}
def vs_(*v): return {"versions": list(v)}


def device(name, capacity=None, attributes=None):
    d = {"name": name}
    if attributes:
        d["attributes"] = dict(attributes)
    if isinstance(capacity, dict):
        d["capacity"] = {k: {"value": v} for k, v in capacity.items()}
    elif capacity == fromCounters:
        d["_fromCounters"] = True
    return d


def _dev(d):
    return copy.deepcopy(d)


def withTaints(d, *taints):
    d = _dev(d)
    d.setdefault("taints", []).extend(copy.deepcopy(list(taints)))
    return d


def withDeviceCounterConsumption(d, *consumption):
    d = _dev(d)
    d.setdefault("consumesCounters", []).extend(copy.deepcopy(list(consumption)))
    if d.pop("_fromCounters", False):
        cap = {}
        for c in d["consumesCounters"]:
            for n, v in c["counters"].items():
                cap[n] = {"value": v["value"]}
        d["capacity"] = cap
    return d


def withNodeSelection(d, sel_):
    d = _dev(d)
    if isinstance(sel_, dict):
        d["nodeSelector"] = sel_
    elif sel_ == nodeSelectionAll:
        d["allNodes"] = True
    else:
        d["nodeName"] = sel_
    return d


def withBindingConditions(d, conds, fail_conds):
    d = _dev(d)
    d["bindingConditions"] = list(conds)
    d["bindingFailureConditions"] = list(fail_conds)
    return d


def withBindsToNode(d, v):
    d = _dev(d)
    d["bindsToNode"] = v
    return d


def withAllowMultipleAllocations(d):
    d = _dev(d)
    d["allowMultipleAllocations"] = True
    return d


def withCapacityRequestPolicyRange(d, capacity):
    d = _dev(d)
    caps = d.setdefault("capacity", {})
    for n, q in capacity.items():
        caps[n] = {"value": q, "requestPolicy": {"default": two,
                                                 "validRange": {"min": two, "step": two, "max": four}}}
    return d


def withCapacityRequestPolicyValidValues(d, default, capacity, additional):
    d = _dev(d)
    caps = d.setdefault("capacity", {})
    for n, q in capacity.items():
        caps[n] = {"value": q, "requestPolicy": {"default": default, "validValues": [default] + list(additional)}}
    return d


def deviceCounterConsumption(counter_set, counters):
    return {"counterSet": counter_set, "counters": {k: {"value": v} for k, v in (counters or {}).items()}}


def deviceCounterConsumptionWithGroups(counter_set, counters, *groups):
    c = deviceCounterConsumption(counter_set, counters)
    c["compatibilityGroups"] = list(groups)
    return c


def counterSet(name, counters):
    return {"name": name, "counters": {k: {"value": v} for k, v in (counters or {}).items()}}


def resourcePool(name, count, generation=1):
    return {"name": name, "generation": generation, "resourceSliceCount": count}


def slice_(name, node_selection, pool, driver):
    if isinstance(pool, str):
        pool = resourcePool(pool, 1)
    spec = {"driver": driver, "pool": copy.deepcopy(pool)}
    if isinstance(node_selection, dict):
        spec["nodeSelector"] = node_selection
    elif node_selection == nodeSelectionAll:
        spec["allNodes"] = True
    elif node_selection == nodeSelectionPerDevice:
        spec["perDeviceNodeSelection"] = True
    else:
        spec["nodeName"] = node_selection
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def sliceWithDevices(name, node_selection, pool, driver, *devices):
    s = slice_(name, node_selection, pool, driver)
    devs = []
    for d in devices:
        d = _dev(d)
        d.pop("_fromCounters", None)
        devs.append(d)
    if devs:
        s["spec"]["devices"] = devs
    return s


def sliceWithNoDevices(name, node_selection, pool, driver):
    return sliceWithDevices(name, node_selection, pool, driver)


def sliceWithOneDevice(name, node_selection, pool, driver):
    return sliceWithDevices(name, node_selection, pool, driver, device(device1))


def sliceWithMultipleDevices(name, node_selection, pool, driver, count):
    return sliceWithDevices(name, node_selection, pool, driver, *[device("device-%d" % i) for i in range(count)])


def sliceWithCounterSets(name, node_selection, pool, driver, *sets):
    s = slice_(name, node_selection, pool, driver)
    s["spec"]["sharedCounters"] = copy.deepcopy(list(sets))
    return s


def set_req(c, idx, **fields):
    """Change fields of request idx's `exactly` (upstream's
    c.Spec.Devices.Requests[i].Exactly.X = ...); None deletes."""
    c = copy.deepcopy(c)
    ex = c["spec"]["devices"]["requests"][idx]["exactly"]
    for k, v in fields.items():
        if v is None:
            ex.pop(k, None)
        else:
            ex[k] = v
    return c


def set_sub(c, idx, sidx, **fields):
    c = copy.deepcopy(c)
    sub = c["spec"]["devices"]["requests"][idx]["firstAvailable"][sidx]
    for k, v in fields.items():
        if v is None:
            sub.pop(k, None)
        else:
            sub[k] = v
    return c


def modify(obj, fn):
    """Apply an in-place change (upstream's func() { ...; return slice }())."""
    obj = copy.deepcopy(obj)
    fn(obj)
    return obj


# ---- node selectors --------------------------------------------------------------

def nodeLabelSelector(key, *values):
    return {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}]}


def localNodeSelector(name):
    return {"nodeSelectorTerms": [{"matchFields": [{"key": fieldNameKey, "operator": "In", "values": [name]}]}]}


# ---- expected results ----------------------------------------------------------------

def deviceAllocationResult(req, driver, pool, dev, admin=False, *tolerations):
    r = {"request": req, "driver": driver, "pool": pool, "device": dev}
    if admin:
        r["adminAccess"] = True
    if tolerations:
        r["tolerations"] = list(tolerations)
    return r


def deviceRequestAllocationResultWithBindingConditions(req, driver, pool, dev, conds, fail_conds, *tolerations):
    r = deviceAllocationResult(req, driver, pool, dev, False, *tolerations)
    r["bindingConditions"] = list(conds)
    r["bindingFailureConditions"] = list(fail_conds)
    return r


def withConsumedCapacity(r, share=True, consumed=None):
    r = copy.deepcopy(r)
    if share:
        r["shareID"] = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
    if consumed is not None:
        r["consumedCapacity"] = dict(consumed)
    return r


def multipleDeviceAllocationResults(req, driver, pool, count, start):
    return [deviceAllocationResult(req, driver, pool, "device-%d" % i) for i in range(start, start + count)]


def allocationResult(selector, *results):
    """Upstream's matcher: results in any order, config must be nil."""
    return {"devices": {"results": list(results)}, "nodeSelector": selector}


def allocationResultStruct(selector, *results):
    """A plain resourceapi.AllocationResult literal: gomega compares it with
    Equal, so the order of the device results matters."""
    return {"ordered": True, "devices": {"results": list(results)}, "nodeSelector": selector}


def allocationResultWithConfig(selector, driver, source, attribute, *results):
    cfg = {"source": source}
    cfg.update(deviceConfiguration(driver, attribute))
    return {"ordered": True, "devices": {"results": list(results), "config": [cfg]}, "nodeSelector": selector}


def allocationResultWithConfigs(selector, results, configs):
    return {"ordered": True, "devices": {"results": list(results), "config": list(configs)}, "nodeSelector": selector}


def allocationConfig(source, requests, cfg):
    out = {"source": source}
    if requests:
        out["requests"] = list(requests)
    out.update(cfg)
    return out


# ---- YAML output -------------------------------------------------------------------------------

class _Dumper(yaml.SafeDumper):
    """PyYAML leaves y/Y/n/N plain, but YAML 1.1 readers (ours, and the
    go-yaml that kubectl uses) take them as booleans: quote them."""


def _str(dumper, value):
    if value in ("y", "Y", "n", "N"):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="'")
    return dumper.represent_str(value)


_Dumper.add_representer(str, _str)


# ---- cases -------------------------------------------------------------------------------

CASES = {}


def case(name, claimsToAllocate=(), classes=(), slices=(), node=None, features=(), allocatedDevices=(),
         allocatedSharedDeviceIDs=(), allocatedCapacityDevices=None, expectResults=None, expectError=None,
         expectNumAllocateOneInvocations=None, note=None):
    """allocatedDevices: (driver, pool, device) tuples; allocatedSharedDeviceIDs:
    (driver, pool, device, shareID); allocatedCapacityDevices: {(driver, pool, device): {cap: qty}}."""
    if name in CASES:
        raise SystemExit("duplicate case " + name)
    CASES[name] = dict(claims=list(claimsToAllocate), classes=list(classes), slices=list(slices),
                       node=node or globals()["node"](node1, region1), features=list(features),
                       allocated=list(allocatedDevices), shared=list(allocatedSharedDeviceIDs),
                       capacity=allocatedCapacityDevices or {}, expect=expectResults, error=expectError,
                       invocations=expectNumAllocateOneInvocations, note=note)


def _in_use(c):
    """Upstream's AllocatedState as one in-use claim (see the runner)."""
    results = []
    for (d, p, n) in c["allocated"]:
        results.append({"request": "in-use", "driver": d, "pool": p, "device": n})
    for (d, p, n, sid) in c["shared"]:
        results.append({"request": "in-use", "driver": d, "pool": p, "device": n, "shareID": sid})
    for (d, p, n), caps in c["capacity"].items():
        results.append({"request": "in-use", "driver": d, "pool": p, "device": n,
                        "shareID": "00000000-0000-0000-0000-00000000000%d" % len(results),
                        "consumedCapacity": dict(caps)})
    if not results:
        return []
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "allocated-state", "namespace": "upstream-state"},
             "spec": {"devices": {"requests": [{"name": "in-use", "exactly": {"deviceClassName": "in-use"}}]}},
             "status": {"allocation": {"devices": {"results": results}}}}]


def write_all():
    import cases  # noqa: F401  (fills CASES)
    keep = set()
    for name, c in CASES.items():
        gates = []
        for f in c["features"]:
            for g in FEATURES[f]:
                if g not in gates:
                    gates.append(g)
        expect = {}
        if c["error"] is not None:
            expect["error"] = c["error"]
        expect["results"] = c["expect"] or []
        meta = {"kind": "AllocatorTestCase", "name": name, "upstreamFeatures": c["features"], "gates": gates,
                "expect": expect}
        if c["invocations"] is not None:
            meta["invocations"] = c["invocations"]
        if c["note"]:
            meta["note"] = c["note"]
        docs = [meta, c["node"]] + c["classes"] + c["slices"] + _in_use(c) + c["claims"]
        fn = name + ".yaml"
        keep.add(fn)
        with open(os.path.join(HERE, fn), "w") as f:
            f.write("# Upstream allocator test case %r (allocator_testing.go); generated by gen.py.\n" % name)
            yaml.dump_all([_clean(d) for d in docs], f, Dumper=_Dumper, sort_keys=False, default_flow_style=None, width=120)
    for fn in os.listdir(HERE):
        if fn.endswith(".yaml") and fn not in keep:
            os.remove(os.path.join(HERE, fn))
    print("%d cases written" % len(CASES))


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    sys.modules["gen"] = sys.modules[__name__]
    write_all()
