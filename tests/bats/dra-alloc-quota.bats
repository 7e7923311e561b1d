#!/usr/bin/env bats
# dra-alloc quota: DRA ResourceQuota use and the API server's refusals.
load helpers
bats_require_minimum_version 1.5.0

D="$DATA/capacity"
NOW="--now 2026-01-01T00:00:00Z"

setup() {
    T=$BATS_TEST_TMPDIR
}

@test "quota at its limit: use per namespace, exit 0" {
    run "$DRA_BIN/dra-alloc" quota $NOW "$D/cluster.yaml" "$D/quota.yaml"
    assert_success
    assert_output "NAMESPACE   QUOTA   RESOURCE                                  USED   HARD
ml          gpus    count/resourceclaims.resource.k8s.io      3      3
ml          gpus    gpu.deviceclass.resource.k8s.io/devices   3      3"
}

@test "quota: one claim more is refused with the API server's message; exit 1" {
    run --separate-stderr "$DRA_BIN/dra-alloc" quota $NOW -o json "$D/cluster.yaml" "$D/quota.yaml" "$D/quota-more.yaml"
    assert_failure 1
    [[ $stderr == 'dra-alloc: resourceclaims.resource.k8s.io "one-more" is forbidden: exceeded quota: gpus, requested: count/resourceclaims.resource.k8s.io=1,gpu.deviceclass.resource.k8s.io/devices=1, used: count/resourceclaims.resource.k8s.io=3,gpu.deviceclass.resource.k8s.io/devices=3, limited: count/resourceclaims.resource.k8s.io=3,gpu.deviceclass.resource.k8s.io/devices=3' ]]
    run jq -c '[.refused[].claim, .quotas[0].resources["gpu.deviceclass.resource.k8s.io/devices"].used]' <<<"$output"
    assert_output '["ml/one-more",3]'
}

@test "quota: All counts 32, firstAvailable its largest subrequest, admin access counts" {
    cat >"$T/q.yaml" <<'Y'
apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: ns}
spec: {hard: {gpu.deviceclass.resource.k8s.io/devices: "100", nic.deviceclass.resource.k8s.io/devices: "100"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: all, namespace: ns}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, allocationMode: All}}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: fa, namespace: ns}
spec: {devices: {requests: [{name: r, firstAvailable: [{name: a, deviceClassName: gpu, count: 4}, {name: b, deviceClassName: gpu, count: 2}, {name: c, deviceClassName: nic}]}]}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: admin, namespace: ns}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: nic, adminAccess: true}}]}}
Y
    run --separate-stderr "$DRA_BIN/dra-alloc" quota $NOW -o jsonl "$T/q.yaml"
    assert_success
    run jq -c '.resources | map_values(.used)' <<<"$output"
    assert_output '{"gpu.deviceclass.resource.k8s.io/devices":36,"nic.deviceclass.resource.k8s.io/devices":2}'
}

@test "quota bad input: a hard value that is not a quantity names the quota and field" {
    printf 'apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: ns}\nspec: {hard: {count/resourceclaims.resource.k8s.io: lots}}\n' >"$T/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" quota $NOW "$T/bad.yaml"
    assert_failure 2
    [[ $output == "" ]]
    [[ $stderr == *"bad.yaml:"*"ResourceQuota/ns/q"*"spec.hard[count/resourceclaims.resource.k8s.io]"*"quantities must match"* ]]
}
