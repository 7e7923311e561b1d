#!/usr/bin/env python3
"""A fleet in use, as JSON Lines: what bench-resident.sh reads.

    gen-held.py FLEET.jsonl OUTDIR [--moved N]

FLEET.jsonl: ResourceSlices (dra-slice profile gpu -o jsonl).  Writes to
OUTDIR:
  base.jsonl   the DeviceClass gpu, a Node per pool, a ResourceClaimTemplate
  held.jsonl   half of every pool's devices allocated: per device one Pod
               (bound, Running) and its claim, made from the template as the
               resource claim controller names it, allocated on the pod's
               node and reserved for it
  moved.jsonl  held.jsonl with every Nth pod (--moved, default 100) on the
               next device of its pool: input for dra-alloc diff
  pending.jsonl  1,000 pods not yet placed, asking through the template
Every object is distinct (names, uids, devices): nothing collapses as a
repeat.  Python 3 standard library only.
"""
import json
import os
import sys

DRIVER = "gpu.example.com"
NS = "bench"


def dump(f, o):
    f.write(json.dumps(o, separators=(",", ":")))
    f.write("\n")


def claim(i, pool, device):
    pod = "p%d" % i
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": "%s-gpu-%05x" % (pod, i & 0xFFFFF),
            "namespace": NS,
            "uid": "uid-c%d" % i,
            "annotations": {"resource.kubernetes.io/pod-claim-name": "gpu"},
            "finalizers": ["resource.kubernetes.io/delete-protection"],
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod, "uid": "uid-p%d" % i,
                                 "controller": True, "blockOwnerDeletion": True}],
        },
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}},
        "status": {
            "allocation": {
                "devices": {"results": [{"request": "r", "driver": DRIVER, "pool": pool, "device": device}]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [pool]}]}]},
            },
            "reservedFor": [{"resource": "pods", "name": pod, "uid": "uid-p%d" % i}],
        },
    }


def pod(i, node):
    p = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p%d" % i, "namespace": NS, "uid": "uid-p%d" % i},
        "spec": {"containers": [{"name": "c", "image": "registry.example/job:1"}],
                 "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one"}]},
        "status": {"phase": "Running"},
    }
    if node is None:
        return p
    p["spec"]["nodeName"] = node
    p["status"]["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": "p%d-gpu-%05x" % (i, i & 0xFFFFF)}]
    return p


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--moved"):
        sys.stderr.write("usage: gen-held.py FLEET.jsonl OUTDIR [--moved N]\n")
        return 2
    every = int(argv[4]) if len(argv) == 5 else 100
    pools = []  # (pool, node, [device names]) in input order
    with open(argv[1]) as f:
        for line in f:
            if not line.strip():
                continue
            s = json.loads(line)
            spec = s["spec"]
            pools.append((spec["pool"]["name"], spec.get("nodeName", spec["pool"]["name"]),
                          [d["name"] for d in spec.get("devices", [])]))
    out = argv[2]
    with open(os.path.join(out, "base.jsonl"), "w") as f:
        dump(f, {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
                 "spec": {"selectors": [{"cel": {"expression": 'device.driver == "%s"' % DRIVER}}]}})
        for _, node, _ in pools:
            dump(f, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node}})
        dump(f, {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                 "metadata": {"name": "one", "namespace": NS},
                 "spec": {"spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}}})
    i = 0
    with open(os.path.join(out, "held.jsonl"), "w") as held, open(os.path.join(out, "moved.jsonl"), "w") as moved:
        for pool, node, devices in pools:
            half = len(devices) // 2
            for k in range(half):
                c = claim(i, pool, devices[k])
                p = pod(i, node)
                dump(held, c)
                dump(held, p)
                if i % every == 0:  # the next free device of the pool
                    c["status"]["allocation"]["devices"]["results"][0]["device"] = devices[half + k]
                dump(moved, c)
                dump(moved, p)
                i += 1
    with open(os.path.join(out, "pending.jsonl"), "w") as f:
        for k in range(1000):
            dump(f, pod(i + k, None))
    sys.stdout.write("%d pools, %d claims and pods\n" % (len(pools), i))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
