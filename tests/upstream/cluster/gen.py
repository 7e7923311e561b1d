"""A random cluster for the scheduling suite, the same for the same seed.

    python3 gen.py SEED >FILE.json

Prints a List: 2-4 Nodes (zone labels), PriorityClasses, DeviceClasses of
two drivers, one ResourceSlice per node and driver (devices with a memory
capacity and a model attribute), ResourceClaimTemplates, sometimes a
standalone claim two pods share, and 3-8 pending pods in namespace "gen"
with template claims, a priority class or none, sometimes a zone
nodeSelector, and creation times a few seconds apart in shuffled order.
"""

import json
import random
import sys

GPU, NIC = "gpu.example.com", "nic.example.com"


def gen(seed):
    rnd = random.Random(seed)
    objs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gen"}}]
    zones = ["a", "b"]
    nodes = [f"node-{i}" for i in range(rnd.randint(2, 4))]
    for i, n in enumerate(nodes):
        objs.append({"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": n, "labels": {"zone": zones[i % 2]}}})
    for name, value in (("low", 100), ("high", 1000)):
        objs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                     "metadata": {"name": name}, "value": value})
    classes = {
        "gpu": f'device.driver == "{GPU}"',
        "big-gpu": f'device.driver == "{GPU}" && '
                   'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0',
        "model-x": f'device.driver == "{GPU}" && device.attributes["gpu.example.com"].model == "x"',
        "nic": f'device.driver == "{NIC}"',
    }
    for name, expr in classes.items():
        objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
                     "spec": {"selectors": [{"cel": {"expression": expr}}]}})
    for n in nodes:
        for driver, prefix, maxn in ((GPU, "gpu", 4), (NIC, "nic", 2)):
            count = rnd.randint(0, maxn)
            if count == 0:
                continue
            devs = []
            for d in range(count):
                dev = {"name": f"{prefix}-{d}"}
                if driver == GPU:
                    dev["attributes"] = {"model": {"string": rnd.choice(["x", "y"])}}
                    dev["capacity"] = {"memory": {"value": rnd.choice(["20Gi", "40Gi", "80Gi"])}}
                devs.append(dev)
            objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                         "metadata": {"name": f"{n}-{prefix}"},
                         "spec": {"driver": driver, "nodeName": n,
                                  "pool": {"name": n, "generation": 1, "resourceSliceCount": 1},
                                  "devices": devs}})
    templates = {
        "one-gpu": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}],
        "two-gpus": [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "count": 2}}],
        "big-gpu": [{"name": "gpu", "exactly": {"deviceClassName": "big-gpu"}}],
        "x-or-gpu": [{"name": "gpu", "firstAvailable": [{"name": "x", "deviceClassName": "model-x"},
                                                       {"name": "any", "deviceClassName": "gpu"}]}],
        "gpu-nic": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}},
                    {"name": "nic", "exactly": {"deviceClassName": "nic"}}],
        "same-model": [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "count": 2}}],
    }
    for name, reqs in templates.items():
        spec = {"devices": {"requests": reqs}}
        if name == "same-model":
            spec["devices"]["constraints"] = [{"matchAttribute": "gpu.example.com/model"}]
        objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                     "metadata": {"name": name, "namespace": "gen"}, "spec": {"spec": spec}})
    npods = rnd.randint(3, 8)
    shared = rnd.random() < 0.4 and npods >= 2
    if shared:
        objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"name": "shared", "namespace": "gen"},
                     "spec": {"devices": {"requests": [{"name": "nic", "exactly": {"deviceClassName": "nic"}}]}}})
    sharers = set(rnd.sample(range(npods), 2)) if shared else set()
    times = list(range(npods))
    rnd.shuffle(times)
    for i in range(npods):
        claims = [{"name": f"c{j}", "resourceClaimTemplateName": rnd.choice(sorted(templates))}
                  for j in range(rnd.randint(1, 2))]
        if i in sharers:
            claims.append({"name": "shared", "resourceClaimName": "shared"})
        spec = {"containers": [{"name": "c", "image": "x"}], "resourceClaims": claims}
        pc = rnd.choice([None, "low", "high"])
        if pc:
            spec["priorityClassName"] = pc
        if rnd.random() < 0.2:
            spec["nodeSelector"] = {"zone": rnd.choice(zones)}
        objs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"p{i}", "namespace": "gen", "uid": f"uid-p{i}",
                                  "creationTimestamp": f"2026-01-01T00:00:{times[i]:02d}Z"},
                     "spec": spec})
    return {"apiVersion": "v1", "kind": "List", "items": objs}


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        print("usage: gen.py SEED", file=sys.stderr)
        sys.exit(2)
    json.dump(gen(int(sys.argv[1])), sys.stdout, indent=1)
    print()
