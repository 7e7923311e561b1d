#!/usr/bin/env bats
# ResourceQuota admission wherever the tools create claims: dra-alloc
# schedule, dra-claim generate, dra-alloc quota -v, capacity's quota use.
# Quotas use the DRA quota names the Kubernetes docs give
# (concepts/policy/resource-quotas) and upstream's DRA quota change
# describes (pkg/quota/v1/evaluator/core/resource_claims.go):
# count/resourceclaims.resource.k8s.io and
# <class>.deviceclass.resource.k8s.io/devices, over the README's example
# cluster (examples/cluster).
load helpers
bats_require_minimum_version 1.5.0

C="$EXAMPLES/cluster"

setup() {
    T=$BATS_TEST_TMPDIR
    # namespace default may hold 2 GPUs; shared-gpu (claims.yaml) holds 1
    cat >"$T/quota.yaml" <<'Y'
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: default}
spec:
  hard:
    count/resourceclaims.resource.k8s.io: "10"
    gpu.example.com.deviceclass.resource.k8s.io/devices: "2"
Y
}

REFUSED='resourceclaims.resource.k8s.io "inference-gpu-qc85x" is forbidden: exceeded quota: gpus, requested: gpu.example.com.deviceclass.resource.k8s.io/devices=1, used: gpu.example.com.deviceclass.resource.k8s.io/devices=2, limited: gpu.example.com.deviceclass.resource.k8s.io/devices=2'

@test "schedule: a pod whose claim exceeds quota stays pending with the API server's refusal" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "$C"/*.yaml "$T/quota.yaml"
    assert_failure 1
    # trainer (queue #1) gets the last GPU of the quota; inference and fast-path wait
    [[ $stderr == *"dra-alloc: pod default/inference: PodResourceClaim gpu: $REFUSED"* ]]
    [[ $stderr == *"warning: $C/pods.yaml:21 (document 2): pod default/inference, PodResourceClaim gpu: $REFUSED"* ]]
    # only trainer's claim is made and only trainer is placed; the others
    # wait with the scheduler's PodScheduled=False (its PreFilter's words)
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -o jsonl "$C"/*.yaml "$T/quota.yaml"
    run jq -c '[.kind, .metadata.name, .spec.nodeName, (.status.conditions // [] | map(.reason) | join(","))]' <<<"$output"
    assert_output '["ResourceClaim","trainer-gpu-2d5cs",null,""]
["Pod","trainer","node-a",""]
["Pod","inference",null,"Unschedulable"]
["Pod","fast-path",null,"Unschedulable"]'
}

@test "schedule: claims are charged in queue order, not input order" {
    # inference first in the queue (higher priority): it gets the GPU, trainer waits
    python3 - "$C/pods.yaml" "$T/pods.yaml" <<'PY'
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
for d in docs:
    if d and d.get("metadata", {}).get("name") == "inference":
        d["spec"]["priority"] = 100
yaml.safe_dump_all(docs, open(sys.argv[2], "w"))
PY
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -v "$C/claims.yaml" "$C/classes.yaml" "$C/nodes.yaml" "$C/slices.yaml" "$T/pods.yaml" "$T/quota.yaml"
    assert_failure 1
    [[ $stderr == *"dra-alloc: claim default/inference-gpu-qc85x charged #1 in [\"gpus\"]"* ]]
    [[ $stderr == *'dra-alloc: pod default/trainer: PodResourceClaim gpu: resourceclaims.resource.k8s.io "trainer-gpu-2d5cs" is forbidden: exceeded quota: gpus'* ]]
}

@test "schedule without quotas is unchanged by quota admission" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "$C"/*.yaml
    assert_failure 1
    [[ $stderr != *"quota"* ]]
    [[ $stderr == *"pod default/fast-path: 0/2 nodes are available: 2 cannot allocate all claims."* ]]
}

@test "generate: a claim over quota is a per-pod error (exit 1); the other pods' claims are printed" {
    run --separate-stderr "$DRA_BIN/dra-claim" generate -o jsonl "$C/pods.yaml" "$C/claims.yaml" "$C/classes.yaml" "$T/quota.yaml"
    assert_failure 1
    [[ $stderr == *"pod default/inference, PodResourceClaim gpu: $REFUSED"* ]]
    [[ $stderr == *'pod default/fast-path, PodResourceClaim devices: resourceclaims.resource.k8s.io "fast-path-devices-c8p94" is forbidden: exceeded quota: gpus'* ]]
    run jq -r 'select(.kind == "ResourceClaim") | .metadata.name' <<<"$output"
    assert_output "trainer-gpu-2d5cs"
}

@test "generate --name-suffix random: the refusal names the generateName, as admission sees it" {
    run --separate-stderr "$DRA_BIN/dra-claim" generate --name-suffix random -o jsonl "$C/pods.yaml" "$C/claims.yaml" "$C/classes.yaml" "$T/quota.yaml"
    assert_failure 1
    [[ $stderr == *'resourceclaims.resource.k8s.io "inference-gpu-" is forbidden: exceeded quota: gpus'* ]]
}

@test "status.used of the quota is the starting use when it lists the resource" {
    cat >>"$T/quota.yaml" <<'Y'
status:
  hard: {gpu.example.com.deviceclass.resource.k8s.io/devices: "2"}
  used: {gpu.example.com.deviceclass.resource.k8s.io/devices: "0"}
Y
    # status.used says 0 GPUs (shared-gpu not counted): two pods get theirs
    run --separate-stderr "$DRA_BIN/dra-claim" generate -o jsonl "$C/pods.yaml" "$C/claims.yaml" "$C/classes.yaml" "$T/quota.yaml"
    assert_failure 1
    run jq -r 'select(.kind == "ResourceClaim") | .metadata.name' <<<"$output"
    assert_output "trainer-gpu-2d5cs
inference-gpu-qc85x"
    [[ $stderr == *'"fast-path-devices-c8p94" is forbidden: exceeded quota: gpus, requested: gpu.example.com.deviceclass.resource.k8s.io/devices=1, used: gpu.example.com.deviceclass.resource.k8s.io/devices=2, limited: gpu.example.com.deviceclass.resource.k8s.io/devices=2'* ]]
}

@test "quota -v says each quota applied or skipped, and each claim charged, passed or refused, in order" {
    cat >"$T/q.yaml" <<'Y'
apiVersion: v1
kind: ResourceQuota
metadata: {name: claims, namespace: ns}
spec: {hard: {count/resourceclaims.resource.k8s.io: "1"}}
status: {used: {count/resourceclaims.resource.k8s.io: "0"}}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: best-effort, namespace: ns}
spec: {hard: {count/resourceclaims.resource.k8s.io: "0"}, scopes: [BestEffort]}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: cpu, namespace: ns}
spec: {hard: {cpu: "4"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: a, namespace: ns}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: b, namespace: ns}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: other}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}
Y
    run --separate-stderr "$DRA_BIN/dra-alloc" quota -v --kubernetes-version 1.37 "$T/q.yaml"
    assert_failure 1
    assert_equal "$(grep -v 'warning\|forbidden' <<<"$stderr")" 'dra-alloc: Kubernetes 1.37'"'"'s feature gates (--kubernetes-version)
dra-alloc: quota ns/claims applies (no scopes; hard from spec.hard); counts count/resourceclaims.resource.k8s.io (hard 1, used 0 from status.used, now 1)
dra-alloc: quota ns/best-effort skipped (scopes ["BestEffort"]): scoped: ResourceClaims match no quota scope
dra-alloc: quota ns/cpu skipped (scopes []): no DRA resource in spec.hard
dra-alloc: claim ns/a charged #1 in ["claims"]: {"count/resourceclaims.resource.k8s.io":1}
dra-alloc: claim other/c not charged: no quota in its namespace
dra-alloc: claim ns/b refused by quota claims'
}

@test "capacity shows quota use per namespace after the classes, and in -o json" {
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity "$C"/*.yaml "$T/quota.yaml"
    assert_success
    [[ $output == *'

NAMESPACE   QUOTA   RESOURCE                                              USED   HARD
default     gpus    count/resourceclaims.resource.k8s.io                  1      10
default     gpus    gpu.example.com.deviceclass.resource.k8s.io/devices   1      2' ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity -o json "$C"/*.yaml "$T/quota.yaml"
    assert_success
    run jq -c '.quotas[] | [.namespace, .name, (.resources | map_values([.used, .hard]))]' <<<"$output"
    assert_output '["default","gpus",{"count/resourceclaims.resource.k8s.io":[1,10],"gpu.example.com.deviceclass.resource.k8s.io/devices":[1,2]}]'
    # without quotas: no section, no key
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity -o json "$C"/*.yaml
    run jq -c 'has("quotas")' <<<"$output"
    assert_output false
}

# ResourceQuota as the API server decodes and validates it (core v1
# ValidateResourceQuota); the same checks wherever quotas are read.

@test "validate: an unknown quota field (spec.used) is an error naming file, line, object and path" {
    cat >"$T/q.yaml" <<'Y'
apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: ns}
spec:
  hard: {count/resourceclaims.resource.k8s.io: "1"}
  used: {count/resourceclaims.resource.k8s.io: "1"}
Y
    for cmd in "dra-slice validate" "dra-alloc quota" "dra-alloc schedule" "dra-alloc capacity" "dra-claim generate"; do
        run --separate-stderr "$DRA_BIN/${cmd%% *}" ${cmd#* } "$T/q.yaml"
        assert_failure 2
        [[ $output == "" ]]
        [[ $stderr == "${cmd%% *}: $T/q.yaml:6: ResourceQuota/ns/q: unknown field \"spec.used\"" ]]
    done
    # --validate warn: a warning, the field dropped
    run --separate-stderr "$DRA_BIN/dra-slice" validate --validate warn "$T/q.yaml"
    assert_success
    [[ $stderr == *'warning: '*'ResourceQuota/ns/q: unknown field "spec.used"'* ]]
}

@test "validate: quota resource names, values, scopes and scope selectors as upstream words them" {
    cat >"$T/q.yaml" <<'Y'
apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: ns}
spec:
  hard:
    count/resourceclaims.resource.k8s.io: "1.5"
    gpu.deviceclass.resource.k8s.io/devices: "-1"
    gpu: "2"
    requests.deviceclass.resource.kubernetes.io/gpu: 500m
  scopes: [BestEffort, NotBestEffort, Foo]
  scopeSelector:
    matchExpressions:
    - {scopeName: PriorityClass, operator: In}
    - {scopeName: Terminating, operator: In, values: [a]}
    - {scopeName: PriorityClass, operator: Near, values: [a]}
status:
  used: {count/resourceclaims.resource.k8s.io: "-2"}
Y
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/q.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $T/q.yaml:6: ResourceQuota/ns/q: spec.hard[count/resourceclaims.resource.k8s.io]: Invalid value: \"1500m\": must be an integer
dra-slice: $T/q.yaml:7: ResourceQuota/ns/q: spec.hard[gpu.deviceclass.resource.k8s.io/devices]: Invalid value: \"-1\": must be greater than or equal to 0
dra-slice: $T/q.yaml:8: ResourceQuota/ns/q: spec.hard[gpu]: Invalid value: \"gpu\": must be a standard resource type or fully qualified
dra-slice: $T/q.yaml:8: ResourceQuota/ns/q: spec.hard[gpu]: Invalid value: \"gpu\": must be a standard resource for quota
dra-slice: $T/q.yaml:10: ResourceQuota/ns/q: spec.scopes: Invalid value: [\"BestEffort\",\"NotBestEffort\",\"Foo\"]: unsupported scope
dra-slice: $T/q.yaml:10: ResourceQuota/ns/q: spec.scopes: Invalid value: [\"BestEffort\",\"NotBestEffort\",\"Foo\"]: conflicting scopes
dra-slice: $T/q.yaml:12: ResourceQuota/ns/q: spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when \`operator\` is 'In' or 'NotIn' for scope selector
dra-slice: $T/q.yaml:12: ResourceQuota/ns/q: spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity
dra-slice: $T/q.yaml:12: ResourceQuota/ns/q: spec.scopeSelector.matchExpressions.operator: Invalid value: \"Near\": not a valid selector operator
dra-slice: $T/q.yaml:17: ResourceQuota/ns/q: status.used[count/resourceclaims.resource.k8s.io]: Invalid value: \"-2\": must be greater than or equal to 0"
}

@test "validate: the docs' DRA quota and the README example quota are valid" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/quota.yaml"
    assert_success
    [[ $stderr == "" ]]
}

@test "schedule --what-if applies quota admission in both runs" {
    node=$(awk '/^ *name:/ {print $2; exit}' "$C/nodes.yaml")
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --what-if --drain "$node" "$C"/*.yaml "$T/quota.yaml"
    assert_success
    # inference and fast-path are over quota in both runs: only trainer moves
    assert_line "moves: pod default/trainer: fits on $node -> fits on node-b"
    refute_output --partial "stops fitting"
    [[ $stderr == *"pod default/inference, PodResourceClaim gpu: $REFUSED"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --what-if --drain "$node" "$C"/*.yaml
    assert_failure 1
    assert_output --partial "stops fitting: pod default/inference"
}

@test "schedule --what-if -v names the run of each quota line" {
    node=$(awk '/^ *name:/ {print $2; exit}' "$C/nodes.yaml")
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -v --what-if --drain "$node" "$C"/*.yaml "$T/quota.yaml"
    assert_success
    [[ $stderr == *"what-if (input as given): quota default/gpus applies"* ]]
    [[ $stderr == *"what-if (changed input): quota default/gpus applies"* ]]
    # no quota line without its run
    ! grep -E '^dra-alloc: (quota|claim) ' <<<"$stderr"
}
