"""Create objects in the upstream cluster as the admin, statuses included.

    python3 load.py [--fill-nodes] DIR FILE...     (DIR as given to cluster.sh start)

FILE is YAML (one or more documents), a JSON object or List, or JSON Lines
(recordings: each line's "object" is taken).  Objects are created in the
order a cluster would have them (namespaces, nodes, classes, slices, rules,
templates, bound pods, claims, the rest, then pods not bound to a node),
with their status written through the status subresource afterwards, and
with the server's own UIDs: a UID of the input that names a created object
is replaced by the new object's UID wherever it appears later
(ownerReferences, reservedFor).  Missing namespaces are created.

--fill-nodes completes what the scheduling suite's inputs leave out: Nodes
get 110 pods, 64 CPUs and 256Gi of memory in status.allocatable and
capacity unless they say otherwise (there is no kubelet to report them);
containers without an image get the pause image, and limits equal to their
requests of extended resources (the API server requires both); claim
allocations without an allocationTimestamp get one (see load()).

Prints "created N objects" on stderr; exit 3 on a refusal, with the
server's message.
"""

import http.client
import json
import os
import ssl
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "apiserver"))
import kyaml  # noqa: E402

ORDER = ["Namespace", "Node", "PriorityClass", "DeviceClass", "ResourceSlice", "DeviceTaintRule",
         "ResourceQuota", "ServiceAccount", "ResourceClaimTemplate", "Pod", "ResourceClaim"]
CORE = {"Namespace": "namespaces", "Node": "nodes", "Pod": "pods",
        "ResourceQuota": "resourcequotas", "ServiceAccount": "serviceaccounts"}
CLUSTER_SCOPED = {"Namespace", "Node", "PriorityClass", "DeviceClass", "ResourceSlice", "DeviceTaintRule"}


class Client:
    def __init__(self, d):
        with open(os.path.join(d, "server")) as f:
            self.host, self.port = f.read().strip()[len("https://"):].rsplit(":", 1)
        ctx = ssl.create_default_context(cafile=os.path.join(d, "ca.crt"))
        ctx.load_cert_chain(os.path.join(d, "pki", "admin.crt"), os.path.join(d, "pki", "admin.key"))
        self.ctx = ctx

    def req(self, method, path, body=None, ctype="application/json"):
        c = http.client.HTTPSConnection(self.host, int(self.port), context=self.ctx, timeout=30)
        data = json.dumps(body).encode() if body is not None else None
        c.request(method, path, body=data, headers={"Content-Type": ctype, "Accept": "application/json"})
        r = c.getresponse()
        out = r.read()
        c.close()
        return r.status, json.loads(out) if out else {}


def path_of(o, name=None):
    kind = o["kind"]
    if kind in CORE:
        base = "/api/v1"
        plural = CORE[kind]
    else:
        base = "/apis/" + o["apiVersion"]
        plural = kind.lower() + ("es" if kind.endswith("s") else "s")
    ns = o.get("metadata", {}).get("namespace")
    p = base + ("" if kind in CLUSTER_SCOPED else "/namespaces/" + (ns or "default")) + "/" + plural
    return p + ("/" + name if name else "")


def read(fn):
    text = open(fn).read()
    s = text.lstrip()
    objs = []
    if s.startswith("{") and "\n{" in s.strip():
        for line in s.splitlines():
            if line.strip():
                d = json.loads(line)
                objs.append(d["object"] if "object" in d and "kind" not in d else d)
    elif s.startswith("{") or s.startswith("["):
        d = json.loads(s)
        objs = d if isinstance(d, list) else d.get("items", [d]) if d.get("kind", "").endswith("List") else [d]
    else:
        objs = [d for d in kyaml.load_all(text) if d]
    out = []
    for o in objs:
        if o.get("kind", "").endswith("List") and "items" in o:
            out.extend(o["items"])
        else:
            out.append(o)
    return out


class LoadError(Exception):
    pass


def load(cl, objs, fill=False):
    """Create objs in cluster order; returns how many were created."""
    objs = list(objs)
    rank = {k: i for i, k in enumerate(ORDER)}

    def order(o):
        # pods still to be scheduled come last, once every claim has its status:
        # else the scheduler may allocate a claim before its status is written
        if o.get("kind") == "Pod" and not (o.get("spec") or {}).get("nodeName"):
            return len(ORDER) + 1
        return rank.get(o.get("kind"), len(ORDER))
    objs.sort(key=order)
    uids = {}
    namespaces = set()
    n = 0
    for o in objs:
        text = json.dumps(o)
        for old, new in uids.items():
            text = text.replace(old, new)
        o = json.loads(text)
        md = o.setdefault("metadata", {})
        olduid = md.get("uid")
        for k in ("uid", "resourceVersion", "creationTimestamp", "managedFields", "generation",
                  "deletionTimestamp", "deletionGracePeriodSeconds"):
            md.pop(k, None)
        ns = md.get("namespace")
        if o["kind"] not in CLUSTER_SCOPED and ns and ns not in namespaces:
            namespaces.add(ns)
            st, _ = cl.req("POST", "/api/v1/namespaces",
                           {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
            if st not in (201, 409):
                raise LoadError(f"namespace {ns}: HTTP {st}")
        if o["kind"] == "Namespace":
            namespaces.add(md["name"])
        status = o.pop("status", None)
        if fill and o["kind"] == "Pod":
            for c in (o.get("spec", {}).get("containers") or []) + (o.get("spec", {}).get("initContainers") or []):
                c.setdefault("image", "registry.k8s.io/pause:3.10")
                res = c.get("resources") or {}
                for k, v in (res.get("requests") or {}).items():
                    if "/" in k and not k.startswith("kubernetes.io/"):
                        res.setdefault("limits", {}).setdefault(k, v)
        if fill and o["kind"] == "ResourceClaim" and (status or {}).get("allocation"):
            # kube-scheduler 1.37 gives an allocation without one a timestamp when it
            # adds a reservation, which the API server refuses (status.allocation is
            # NoModify): the pod would be retried forever
            status["allocation"].setdefault("allocationTimestamp", "2026-01-01T00:00:00Z")
        if fill and o["kind"] == "Node":
            status = dict(status or {})
            for f in ("allocatable", "capacity"):
                status[f] = dict({"pods": "110", "cpu": "64", "memory": "256Gi"}, **(status.get(f) or {}))
        st, got = cl.req("POST", path_of(o), o)
        if st == 409 and o["kind"] == "Namespace":
            continue
        if st != 201:
            raise LoadError(f"{o['kind']} {ns + '/' if ns else ''}{md.get('name')}: HTTP {st}: "
                            f"{got.get('message', got)}")
        n += 1
        if olduid:
            uids[olduid] = got["metadata"]["uid"]
        if status:
            st, got2 = cl.req("PATCH", path_of(o, got["metadata"]["name"]) + "/status",
                              {"status": status}, "application/merge-patch+json")
            if st != 200:
                raise LoadError(f"status of {o['kind']} {md.get('name')}: HTTP {st}: "
                                f"{got2.get('message', got2)}")

    return n


def main():
    args = sys.argv[1:]
    fill = bool(args) and args[0] == "--fill-nodes"
    if fill:
        args = args[1:]
    if len(args) < 2:
        print("usage: load.py [--fill-nodes] DIR FILE...", file=sys.stderr)
        return 2
    cl = Client(args[0])
    objs = []
    for fn in args[1:]:
        objs.extend(read(fn))
    try:
        n = load(cl, objs, fill)
    except LoadError as e:
        print(f"load.py: {e}", file=sys.stderr)
        return 3
    print(f"created {n} objects", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
