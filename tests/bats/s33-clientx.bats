#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-alloc schedule's NodeAffinity filter (spec.nodeSelector and required
# node affinity on labels), found by the scheduling suite's random clusters
# against kube-scheduler 1.37.2.
load helpers

A=$BATS_TEST_DIRNAME/../data/alloc

# pod NAME SPEC-FIELDS: a pending pod with one GPU from the template one-gpu
pod() {
    cat <<YAML
---
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: default, uid: uid-$1}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  $2
YAML
}

@test "schedule: spec.nodeSelector picks the node with those labels, as kube-scheduler" {
    pod p 'nodeSelector: {zone: b}' >"$BATS_TEST_TMPDIR/pods.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -o jsonl "$A/sched-cluster.yaml" "$BATS_TEST_TMPDIR/pods.yaml"
    assert_success
    assert_equal "$(jq -r 'select(.kind == "Pod") | .spec.nodeName' <<<"$output")" node-b
}

@test "schedule: required node affinity on labels is a filter; no node matching is unschedulable" {
    pod q 'affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [c]}]}]}}}' >"$BATS_TEST_TMPDIR/pods.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -o jsonl "$A/sched-cluster.yaml" "$BATS_TEST_TMPDIR/pods.yaml"
    assert_success
    assert_equal "$(jq -r 'select(.kind == "Pod") | .spec.nodeName' <<<"$output")" node-c
    pod r 'nodeSelector: {zone: z}' >"$BATS_TEST_TMPDIR/pods.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -o jsonl "$A/sched-cluster.yaml" "$BATS_TEST_TMPDIR/pods.yaml"
    assert_failure 1
    assert_equal "$stderr" "dra-alloc: pod default/r: 0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
}
