#!/usr/bin/env bats
# dra-alloc diff: what changed between two scheduling runs or two dumps.
load helpers
bats_require_minimum_version 1.5.0

A="$DATA/alloc"
NOW="--now 2026-01-01T00:00:00Z"

setup() {
    # 1.37's: the change is a DeviceTaintRule's, off by default in 1.36
    export DRA_KUBERNETES_VERSION=1.37
    T=$BATS_TEST_TMPDIR
    "$DRA_BIN/dra-alloc" schedule $NOW "$A/sched-cluster.yaml" "$A/sched-pods.yaml" >"$T/before.yaml"
    "$DRA_BIN/dra-alloc" schedule $NOW "$A/sched-cluster.yaml" "$A/sched-pods.yaml" "$DATA/capacity/taint-node-a.yaml" >"$T/after.yaml"
}

@test "diff: a DeviceTaintRule moves every claim; per claim and pod, then a summary; exit 1" {
    run "$DRA_BIN/dra-alloc" diff $NOW "$T/before.yaml" "$T/after.yaml"
    assert_failure 1
    assert_line --index 0 --regexp '^ResourceClaim default/p1-gpu-[a-z0-9]+: devices -gpu.example.com/node-a/gpu-0 \(gpu\) \+gpu.example.com/node-b/gpu-0 \(gpu\); node node-a -> node-b$'
    assert_line --index 3 "Pod default/p1: node node-a -> node-b"
    assert_line --index 6 "summary: 3 claims: 3 changed (devices 3, node 3, config 0, reservations 0), 0 added, 0 removed, 0 unchanged; 3 pods, 3 moved"
}

@test "diff: equal inputs exit 0 with the summary only" {
    run "$DRA_BIN/dra-alloc" diff $NOW "$T/before.yaml" "$T/before.yaml"
    assert_success
    assert_output "summary: 3 claims: 0 changed (devices 0, node 0, config 0, reservations 0), 0 added, 0 removed, 3 unchanged; 3 pods, 0 moved"
}

@test "diff -o json|jsonl: the changes for programs" {
    run "$DRA_BIN/dra-alloc" diff $NOW -o json "$T/before.yaml" "$T/after.yaml"
    assert_failure 1
    run jq -c '[.summary.changed, .summary.podsMoved, .changes[0].node, .changes[0].devices.added[0].device]' <<<"$output"
    assert_output '[3,3,{"from":"node-a","to":"node-b"},"gpu-0"]'
    run "$DRA_BIN/dra-alloc" diff $NOW -o jsonl "$T/before.yaml" "$T/after.yaml"
    assert_failure 1
    assert_equal "${#lines[@]}" 6
}

@test "diff: added, removed, deallocated, config and reservations" {
    cat >"$T/a.yaml" <<'Y'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: keep, namespace: ns, uid: u1}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}
status:
  allocation:
    devices:
      results: [{request: r, driver: d.example.com, pool: p, device: x}]
      config: [{source: FromClaim, opaque: {driver: d.example.com, parameters: {mode: a}}}]
  reservedFor: [{resource: pods, name: p1, uid: p1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gone, namespace: ns, uid: u2}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: freed, namespace: ns, uid: u3}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}
status:
  allocation:
    devices:
      results: [{request: r, driver: d.example.com, pool: p, device: gpu-9}]
Y
    cat >"$T/b.yaml" <<'Y'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: keep, namespace: ns, uid: u1}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}
status:
  allocation:
    devices:
      results: [{request: r, driver: d.example.com, pool: p, device: x}]
      config: [{source: FromClaim, opaque: {driver: d.example.com, parameters: {mode: b}}}]
  reservedFor: [{resource: pods, name: p2, uid: p2}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: freed, namespace: ns, uid: u3}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: new, namespace: ns, uid: u4}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}
Y
    run "$DRA_BIN/dra-alloc" diff $NOW "$T/a.yaml" "$T/b.yaml"
    assert_failure 1
    assert_output "ResourceClaim ns/keep: config changed; reserved for -pods/p1 +pods/p2
ResourceClaim ns/gone: removed
ResourceClaim ns/freed: deallocated; devices -d.example.com/p/gpu-9 (r); node (any node) -> (not allocated)
ResourceClaim ns/new: added
summary: 4 claims: 2 changed (devices 1, node 1, config 1, reservations 1), 1 added, 1 removed, 0 unchanged; 0 pods, 0 moved"
}

@test "diff bad input: not two inputs, stdin twice, invalid objects" {
    run "$DRA_BIN/dra-alloc" diff $NOW "$T/before.yaml"
    assert_failure 2
    assert_output "dra-alloc: diff needs two inputs, A and B (got 1)"
    run "$DRA_BIN/dra-alloc" diff $NOW - - </dev/null
    assert_failure 2
    assert_output "dra-alloc: diff: standard input can be only one of A and B"
    run "$DRA_BIN/dra-alloc" diff $NOW "$T/before.yaml" "$T/missing.yaml"
    assert_failure 2
    assert_output --partial "missing.yaml"
    sed 's/deviceClassName: gpu/deviceClassName: GPU_1/' "$T/before.yaml" >"$T/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" diff $NOW "$T/before.yaml" "$T/bad.yaml"
    assert_failure 2
    [[ $output == "" ]]
    [[ $stderr == *"bad.yaml:"*"ResourceClaim/default/p1-gpu-"*"deviceClassName"* ]]
    run "$DRA_BIN/dra-alloc" diff $NOW -o xml "$T/before.yaml" "$T/after.yaml"
    assert_failure 2
}
