"""dra-alloc schedule against kube-scheduler on the same objects.

    python3 sched.py DIR DRA_ALLOC FILE...

DIR is a running cluster of tests/upstream/cluster.sh with no objects of its
own yet.  The objects of FILE... are scheduled by the cluster (load.py creates
them; the resourceclaim controller makes the template claims, kube-scheduler
allocates, reserves and binds) and by `DRA_ALLOC schedule`.  Upstream breaks
equal node scores at random, so for each pending pod of the input dra-alloc
is asked again on the cluster's own end state, with the pod's claims as they
were before it was scheduled (allocation and reservation removed), without
the other pods the cluster left pending, and with only the node
kube-scheduler chose, or every node when it found none:

    theirs NS/POD node=NODE claim=REQUEST:DRIVER/POOL/DEVICE,...
    ours   NS/POD unschedulable

then "same" or "DIFFERENT".  A line "free" gives dra-alloc's own pass over
the whole input (its node may differ where scores tie).  For a pod both
leave pending, the PodScheduled=False condition each wrote is compared too
(reason and message; pkg/scheduler/schedule_one.go handleSchedulingFailure):

    cond theirs NS/POD Unschedulable: 0/2 nodes are available: ...
    cond ours   NS/POD Unschedulable: 0/2 nodes are available: ...

kube-scheduler's message ends with its PostFilter's (" preemption: 0/N nodes
are available: ...", or ", preemption: ..." after another PostFilter's
reason), or for a pod of a PodGroup with its PodGroupPostFilter's (", pod
group preemption: ..."); dra-alloc does not preempt, so that part is left
out of the comparison and shown in parentheses.

With SCHED_GATES set (e.g. GenericWorkload=true: the cluster then runs with
these gates on, see run.sh) dra-alloc gets them as --feature-gates, PodGroups
are read too (scheduling.k8s.io/SCHED_GROUP_VERSION, default v1beta1), a
pending pod is replayed together with the other pending pods of its PodGroup
(the scheduler tries them in one cycle), and each PodGroup of a pending pod
has the condition the scheduler writes after a cycle compared
(schedule_one_podgroup.go submitPodGroupAlgorithmResult):

    gcond theirs NS/GROUP False Unschedulable: minCount (2) cannot be ...
    gcond ours   NS/GROUP False Unschedulable: minCount (2) cannot be ...

What that compares differs by release (run.sh is given the release's
settings by tests/upstream/releases.mk):

  1.36  PodGroups are v1alpha2 (the only version it serves), the cluster runs
        with GenericWorkload and GangScheduling (the GangScheduling plugin,
        at Permit); the condition is PodGroupScheduled; every pod of a gang
        is tried, one that fit says "pod group is unschedulable, waiting for
        minCount pods from a gang to be scheduled, ..."; DynamicResources'
        PostFilter adds "still not schedulable" to a pod's fit error
  1.37  v1beta1; PodGroupInitiallyScheduled; the cycle stops once minCount
        cannot be met ("minCount (2) cannot be satisfied: ...")
  1.38  v1beta1; PodGroupInitiallyScheduled; a pod of a group that failed
        names it ("parent pod group "gang" is unschedulable"), the group's
        message the scheduling policy's minimum threshold

Exit 0 when every pod and group agrees, 1 when one differs, 3 when the
cluster did not decide within 90 s.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import load as loader  # noqa: E402

GATES = os.environ.get("SCHED_GATES", "")
# the PodGroups' scheduling.k8s.io version, and the condition the scheduler
# writes on them: 1.36 serves v1alpha2 only, whose condition is
# PodGroupScheduled (k8s.io/api@v0.36.3 scheduling/v1alpha2/types.go)
GROUP_VERSION = os.environ.get("SCHED_GROUP_VERSION") or "v1beta1"
GROUP_CONDITION = "PodGroupScheduled" if GROUP_VERSION == "v1alpha2" else "PodGroupInitiallyScheduled"


def group_of(pod):
    """The pod's PodGroup name, or None."""
    return ((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")


def pending(objs):
    out = []
    for o in objs:
        if o.get("kind") != "Pod":
            continue
        if o.get("spec", {}).get("nodeName") or o.get("metadata", {}).get("deletionTimestamp"):
            continue
        if o.get("status", {}).get("phase") in ("Succeeded", "Failed"):
            continue
        out.append((o["metadata"].get("namespace") or "default", o["metadata"]["name"]))
    return out


def claim_names(pod):
    """The pod's claims, by pod claim name: the claim object's name."""
    st = pod.get("status", {})
    gen = {s["name"]: s.get("resourceClaimName") for s in st.get("resourceClaimStatuses") or []}
    names = {}
    for c in pod.get("spec", {}).get("resourceClaims") or []:
        names[c["name"]] = c.get("resourceClaimName") or gen.get(c["name"])
    ext = st.get("extendedResourceClaimStatus")
    if ext:
        names["(extended)"] = ext.get("resourceClaimName")
    return names


def describe(pod, claims):
    node = pod.get("spec", {}).get("nodeName")
    if not node:
        return "unschedulable"
    parts = ["node=" + node]
    for pcn, name in sorted(claim_names(pod).items()):
        c = claims.get(name)
        res = (((c or {}).get("status") or {}).get("allocation") or {}).get("devices", {}).get("results") or []
        devs = sorted(f"{r['request']}:{r['driver']}/{r['pool']}/{r['device']}" for r in res)
        parts.append(f"{pcn}=" + (",".join(devs) if c else "(missing)"))
    return " ".join(parts)


def ours(dra_alloc, files, objs):
    gates = ["--feature-gates", GATES] if GATES else []
    p = subprocess.run([dra_alloc, "schedule", *gates, "-o", "jsonl", *files],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"sched.py: dra-alloc schedule exited {p.returncode}: {p.stderr.strip()}")
    changed = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    pods, claims, groups = {}, {}, {}
    for o in objs + changed:
        key = (o["metadata"].get("namespace") or "default", o["metadata"]["name"])
        if o.get("kind") == "Pod":
            pods[key] = o
        elif o.get("kind") == "ResourceClaim":
            claims[key] = o
        elif o.get("kind") == "PodGroup":
            groups[key] = o
    return pods, claims, groups, p.stderr


KINDS = [("v1", "Node", "/api/v1/nodes"), ("v1", "Pod", "/api/v1/pods"),
         ("resource.k8s.io/v1", "DeviceClass", "/apis/resource.k8s.io/v1/deviceclasses"),
         ("resource.k8s.io/v1", "ResourceSlice", "/apis/resource.k8s.io/v1/resourceslices"),
         ("resource.k8s.io/v1", "DeviceTaintRule", "/apis/resource.k8s.io/v1/devicetaintrules"),
         ("resource.k8s.io/v1", "ResourceClaimTemplate", "/apis/resource.k8s.io/v1/resourceclaimtemplates"),
         ("resource.k8s.io/v1", "ResourceClaim", "/apis/resource.k8s.io/v1/resourceclaims")]
if GATES:
    KINDS.append((f"scheduling.k8s.io/{GROUP_VERSION}", "PodGroup",
                  f"/apis/scheduling.k8s.io/{GROUP_VERSION}/podgroups"))


def dump(cl):
    """The cluster's DRA objects, each with apiVersion and kind."""
    out = []
    for av, kind, path in KINDS:
        st, lst = cl.req("GET", path)
        for o in lst.get("items", []):
            o["apiVersion"], o["kind"] = av, kind
            o["metadata"].pop("managedFields", None)
            out.append(o)
    return out


def replay(dra_alloc, objs, key, node, d):
    """dra-alloc's verdict for pod key on the cluster's end state objs, with
    its own claims unallocated and only Node `node` (None: every node).  The
    other pods the cluster left pending of the pod's PodGroup stay, as they
    are, and its PodGroup loses its status (dra-alloc writes it again)."""
    ns, name = key
    pod = next(o for o in objs if o["kind"] == "Pod" and o["metadata"]["name"] == name
               and o["metadata"]["namespace"] == ns)
    group = group_of(pod)
    names = claim_names(pod)
    special = names.pop("(extended)", None)  # made by the scheduler: made again
    mine = set(names.values())
    uid = pod["metadata"]["uid"]
    state = []
    for o in objs:
        o = json.loads(json.dumps(o))
        md = o["metadata"]
        if o["kind"] == "Node" and node and md["name"] != node:
            continue
        if o["kind"] == "Pod" and md["uid"] != uid and not o["spec"].get("nodeName") and not (
                group and group_of(o) == group and md.get("namespace") == ns):
            continue  # pending in the cluster too: it took nothing
        if o["kind"] == "Pod" and not o["spec"].get("nodeName"):
            o["status"] = {k: v for k, v in (o.get("status") or {}).items() if k == "resourceClaimStatuses"}
        if o["kind"] == "Pod" and md["uid"] == uid:
            o["spec"].pop("nodeName", None)
            o["status"] = {k: v for k, v in (o.get("status") or {}).items() if k == "resourceClaimStatuses"}
        if o["kind"] == "PodGroup" and md.get("namespace") == ns and md["name"] == group:
            o.pop("status", None)
        if o["kind"] == "ResourceClaim" and md.get("namespace") == ns and md["name"] == special:
            continue
        if o["kind"] == "ResourceClaim" and md.get("namespace") == ns and md["name"] in mine:
            st = o.get("status") or {}
            others = [r for r in st.get("reservedFor") or [] if r.get("uid") != uid]
            if others:
                st["reservedFor"] = others
            else:
                o["status"] = {}
                md.pop("finalizers", None)
        state.append(o)
    fn = os.path.join(d, f"replay-{ns}-{name}.json")
    with open(fn, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": state}, f)
    pods, claims, groups, _ = ours(dra_alloc, [fn], state)
    return pods, claims, groups


def split_postfilter(msg):
    """(message, preemption part): the pod group PostFilter's
    ", pod group preemption: ..." or the pod PostFilter's " preemption: ..."
    cut off (", preemption: ..." after another PostFilter's reason, as 1.36's
    DynamicResources gives one)."""
    for sep in (", pod group preemption: ", ", preemption: ", " preemption: "):
        cut = msg.find(sep)
        if cut >= 0:
            return msg[:cut], msg[cut:].lstrip(", ")
    return msg, ""


def condition(pod):
    """The PodScheduled=False condition: (reason, message, postfilter part)."""
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("status") == "False":
            msg, post = split_postfilter(c.get("message", ""))
            return c.get("reason", ""), msg, post
    return None


def group_condition(group):
    """The GROUP_CONDITION condition: (status, reason, message, postfilter
    part), or None."""
    for c in ((group or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == GROUP_CONDITION:
            msg, post = split_postfilter(c.get("message", ""))
            return c.get("status", ""), c.get("reason", ""), msg, post
    return None


def theirs(cl, want, deadline):
    while True:
        pods, claims, undecided = {}, {}, []
        for ns in sorted({ns for ns, _ in want}):
            st, pl = cl.req("GET", f"/api/v1/namespaces/{ns}/pods")
            st2, cll = cl.req("GET", f"/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims")
            for p in pl.get("items", []):
                pods[(ns, p["metadata"]["name"])] = p
            for c in cll.get("items", []):
                claims[(ns, c["metadata"]["name"])] = c
        for key in want:
            p = pods.get(key)
            if p is None:
                undecided.append(key)
                continue
            conds = p.get("status", {}).get("conditions") or []
            # Unschedulable is a verdict; SchedulerError (a PreBind race, say) is retried
            unsched = any(c["type"] == "PodScheduled" and c["status"] == "False"
                          and c.get("reason") == "Unschedulable" for c in conds)
            if not p["spec"].get("nodeName") and not unsched:
                undecided.append(key)
        if not undecided:
            return pods, claims
        if time.time() > deadline:
            raise TimeoutError(", ".join(f"{ns}/{n}" for ns, n in undecided))
        time.sleep(0.5)


def main():
    if len(sys.argv) < 4:
        print("usage: sched.py DIR DRA_ALLOC FILE...", file=sys.stderr)
        return 2
    d, dra_alloc, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    objs = []
    for fn in files:
        objs.extend(loader.read(fn))
    want = pending(objs)
    opods, oclaims, _, oerr = ours(dra_alloc, files, objs)
    cl = loader.Client(d)
    loader.load(cl, objs, fill=True)
    try:
        tpods, tclaims = theirs(cl, want, time.time() + 90)
    except TimeoutError as e:
        print(f"sched.py: kube-scheduler decided nothing for {e} within 90 s", file=sys.stderr)
        return 3
    end = dump(cl)
    tgroups = {(o["metadata"]["namespace"], o["metadata"]["name"]): o for o in end if o["kind"] == "PodGroup"}
    rgroups = {}  # each PodGroup of a pending pod: as its last replay left it
    differ = 0
    for ns, name in want:
        def claims_of(all_claims):
            return {n: c for (cns, n), c in all_claims.items() if cns == ns}
        b = describe(tpods[(ns, name)], claims_of(tclaims))
        free = describe(opods[(ns, name)], claims_of(oclaims))
        rpods, rclaims, rg = replay(dra_alloc, end, (ns, name), tpods[(ns, name)]["spec"].get("nodeName"), d)
        group = group_of(tpods[(ns, name)])
        if group:
            rgroups[(ns, group)] = rg.get((ns, group))
        a = describe(rpods[(ns, name)], claims_of(rclaims))
        same = a == b
        print(f"theirs {ns}/{name} {b}")
        print(f"ours   {ns}/{name} {a}")
        print(f"free   {ns}/{name} {free}")
        if same and b == "unschedulable":
            tc, oc = condition(tpods[(ns, name)]), condition(rpods[(ns, name)])
            for who, c in (("theirs", tc), ("ours  ", oc)):
                text = f"{c[0]}: {c[1]}" + (f" ({c[2]})" if c[2] else "") if c else "(none)"
                print(f"cond {who} {ns}/{name} {text}")
            same = bool(tc and oc and tc[:2] == oc[:2])
        differ += not same
        if not same and b == "unschedulable":
            for c in tpods[(ns, name)].get("status", {}).get("conditions") or []:
                if c["type"] == "PodScheduled":
                    print(f"       ({c.get('message', '')})")
        print("same" if same else "DIFFERENT")
    for (ns, group), rg in sorted(rgroups.items()):
        tc, oc = group_condition(tgroups.get((ns, group))), group_condition(rg)
        for who, c in (("theirs", tc), ("ours  ", oc)):
            text = f"{c[0]} {c[1]}: {c[2]}" + (f" ({c[3]})" if c[3] else "") if c else "(none)"
            print(f"gcond {who} {ns}/{group} {text}")
        same = bool(tc and oc and tc[:3] == oc[:3])
        differ += not same
        print("same" if same else "DIFFERENT")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
