#!/usr/bin/env python3
"""Generated inputs for the pool-status suite: gen.py DIR N SEED writes N
files DIR/gen-K.yaml, each a few pools of two drivers with what the
ResourcePoolStatusRequest controller tells apart: old generations beside the
newest, fewer slices than resourceSliceCount, slices that disagree on it,
one node or several or none, device taints, DeviceTaintRules, partitions
(shared counters, partitionTypeAttribute, a request's default attribute),
shareable devices with consumed capacity and claims' allocation results
(some with admin access, some naming devices that do not exist).  The same
SEED gives the same files."""
import json
import random
import sys

DRIVERS = ["gpu.example.com", "nic.example.com"]


def pool_slices(r, driver, pool, objs, devices_out):
    gens = sorted(r.sample(range(0, 5), r.choice([1, 1, 2])))
    node_mode = r.choice(["one", "one", "mixed", "all"])
    top = gens[-1]
    for gen in gens:
        count = r.randint(1, 3)
        have = count if r.random() < 0.6 else r.randint(1, count + 1)
        shape = gen == top and r.random() < 0.35
        names = []
        for k in range(have):
            spec = {"driver": driver, "pool": {"name": pool, "generation": gen, "resourceSliceCount": count}}
            if r.random() < 0.12:
                spec["pool"]["resourceSliceCount"] = r.randint(1, 4)
            if node_mode == "all":
                spec["allNodes"] = True
            elif node_mode == "one":
                spec["nodeName"] = pool
            else:
                spec["nodeName"] = "%s-n%d" % (pool, k % 2)
            devs = []
            if shape and k == 0:
                spec["sharedCounters"] = [{"name": "set-%d" % s, "counters": {
                    "mem": {"value": "%dGi" % r.choice([4, 8, 16])}, "sm": {"value": str(r.choice([4, 8]))}}}
                    for s in range(r.randint(1, 2))]
                nsets = len(spec["sharedCounters"])
            else:
                ndev = r.randint(0, 4)
                attr = None
                if shape:
                    attr = r.choice(["%s/shape" % driver, "%s/shape" % driver, "example.com/kind", None])
                    if attr:
                        spec["partitionTypeAttribute"] = attr
                for d in range(ndev):
                    name = "d%d-%d-%d" % (gen, k, d)
                    dev = {"name": name}
                    if r.random() < 0.25:
                        dev["taints"] = [{"key": "example.com/t", "effect": r.choice(["NoSchedule", "NoExecute"])}]
                    if shape and r.random() < 0.8:
                        size = r.choice([1, 2, 4, 8])
                        key = r.choice(["shape", "%s/shape" % driver, "kind"])
                        if r.random() < 0.9:
                            dev["attributes"] = {key: {"string": r.choice(["full", "half", "quarter"][:3])}}
                        dev["consumesCounters"] = [{"counterSet": "set-%d" % r.randint(0, 1), "counters": {
                            "mem": {"value": "%dGi" % size}, "sm": {"value": str(size)}}}]
                    elif r.random() < 0.3:
                        dev["allowMultipleAllocations"] = True
                        dev["capacity"] = {"memory": {"value": "%dGi" % r.choice([8, 16])}}
                        if r.random() < 0.5:
                            dev["capacity"]["cores"] = {"value": str(r.choice([2, 4]))}
                    devs.append(dev)
                    if gen == top:
                        devices_out.append((driver, pool, dev))
                spec["devices"] = devs
            sname = "%s-%s-g%d-%d" % (driver.split(".")[0], pool, gen, k)
            names.append(sname)
            objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                         "metadata": {"name": sname}, "spec": spec})


def one(r):
    objs, devices = [], []
    for driver in DRIVERS:
        for p in range(r.randint(1, 3)):
            pool_slices(r, driver, "pool-%d" % p, objs, devices)
    r.shuffle(objs)
    for i in range(r.randint(0, 3)):
        sel = {}
        for key, vals in (("driver", DRIVERS), ("pool", ["pool-0", "pool-1"]),
                          ("device", [d[2]["name"] for d in devices] or ["x"])):
            if r.random() < 0.6:
                sel[key] = r.choice(vals)
        rule = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "rule-%d" % i},
                "spec": {"taint": {"key": "example.com/r", "effect": r.choice(["NoSchedule", "NoExecute", "None"])}}}
        if r.random() < 0.9:
            rule["spec"]["deviceSelector"] = sel
        objs.append(rule)
    for i in range(r.randint(0, 4)):
        results = []
        for j in range(r.randint(1, 3)):
            if devices and r.random() < 0.9:
                driver, pool, dev = r.choice(devices)
                name = dev["name"]
            else:
                driver, pool, name = r.choice(DRIVERS), "pool-0", "gone"
                dev = {}
            res = {"request": "r%d" % j, "driver": driver, "pool": pool, "device": name}
            if r.random() < 0.15:
                res["adminAccess"] = True
            if dev.get("allowMultipleAllocations"):
                res["shareID"] = "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a763%02d" % (i * 4 + j)
                if r.random() < 0.8:
                    res["consumedCapacity"] = {"memory": "%dGi" % r.choice([1, 2, 4, 12])}
            results.append(res)
        reqs = [{"name": x["request"], "exactly": {"deviceClassName": "c", **(
            {"adminAccess": True} if x.get("adminAccess") else {})}} for x in results]
        objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"name": "claim-%d" % i, "namespace": "ns", "uid": "0000-%d" % i},
                     "spec": {"devices": {"requests": reqs}},
                     "status": {"allocation": {"devices": {"results": results}}}})
    for i, driver in enumerate(DRIVERS):
        spec = {"driver": driver}
        if r.random() < 0.2:
            spec["poolName"] = "pool-%d" % r.randint(0, 2)
        if r.random() < 0.2:
            spec["limit"] = r.randint(1, 3)
        if r.random() < 0.3:
            spec["defaultPartitionTypeAttribute"] = r.choice(["%s/shape" % driver, "example.com/kind"])
        objs.append({"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourcePoolStatusRequest",
                     "metadata": {"name": "req-%d" % i}, "spec": spec})
    return objs


def main():
    out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    r = random.Random(seed)
    for k in range(n):
        with open("%s/gen-%03d.json" % (out, k), "w") as f:
            for o in one(r):
                f.write(json.dumps(o) + "\n")


main()
