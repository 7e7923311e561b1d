#!/usr/bin/env bats
# dra-alloc schedule's PodGroup failure messages as kube-scheduler writes
# them, and dra-alloc capacity on pools whose slices disagree.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    CI="$BATS_TEST_DIRNAME/../upstream/cluster/inputs"
    T="$BATS_TEST_TMPDIR"
    NOW="--now 2026-03-01T11:00:00Z"
    ON="--feature-gates GenericWorkload=true"
}

# Upstream: k8s.io/kubernetes v1.37.2 pkg/scheduler/schedule_one_podgroup.go
# submitPodGroupAlgorithmResult (a pod that fit: NewStatus(Unschedulable,
# group message).WithError(errPodGroupUnschedulable)); compared with
# kube-scheduler by tests/upstream/cluster (sched-gang-devices)
@test "gang: a member that fit says the pod group is unschedulable, then the group's reason" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON -o jsonl "$CI/sched-gang-devices.yaml"
    assert_failure 1
    [[ $stderr == "dra-alloc: pod default/gang-0: pod group is unschedulable, minCount (2) cannot be satisfied: 1 scheduled, 0 remaining
dra-alloc: pod default/gang-1: 0/1 nodes are available: 1 cannot allocate all claims." ]]
    printf '%s\n' "$output" >"$T/out.jsonl"
    run jq -r 'select(.kind == "Pod") | "\(.metadata.name) \(.status.conditions[0].reason): \(.status.conditions[0].message)"' "$T/out.jsonl"
    assert_output "gang-0 Unschedulable: pod group is unschedulable, minCount (2) cannot be satisfied: 1 scheduled, 0 remaining
gang-1 Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims."
    # the group's own condition has no errPodGroupUnschedulable in front
    run jq -r 'select(.kind == "PodGroup") | .status.conditions[0] | "\(.status) \(.reason): \(.message)"' "$T/out.jsonl"
    assert_output "False Unschedulable: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
}

@test "gang: a member not tried says the group's reason alone; a fitting gang is placed" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON -o jsonl "$CI/sched-gang-count.yaml"
    assert_failure 1
    [[ $stderr == "dra-alloc: pod default/gang-0: 0/1 nodes are available: 1 cannot allocate all claims.
dra-alloc: pod default/gang-1: minCount (2) cannot be satisfied: 0 scheduled, 1 remaining" ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON -o jsonl "$CI/sched-gang-fits.yaml"
    assert_success
    run jq -r 'select(.kind == "Pod") | "\(.metadata.name) \(.spec.nodeName)"' <<<"$output"
    assert_output "gang-0 node-a
gang-1 node-a"
}
