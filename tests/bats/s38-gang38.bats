#!/usr/bin/env bats
# dra-alloc schedule's PodGroup failure messages as each release's
# kube-scheduler words them: 1.38 on the pod names the parent pod group and
# on the group the scheduling policy's minimum threshold; 1.37 keeps
# "pod group is unschedulable" and "minCount (N)" (1.36: s39-gang36.bats).
bats_require_minimum_version 1.5.0
load helpers

setup() {
    pod_group_setup
}

# sched REL INPUT: dra-alloc schedule at release REL on the suite's INPUT,
# the pods' and the group's conditions in $T/pods and $T/group
sched() {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON --kubernetes-version "$1" -o jsonl "$CI/$2.yaml"
    assert_failure 1
    printf '%s\n' "$output" >"$T/out.jsonl"
    jq -r 'select(.kind == "Pod") | "\(.metadata.name) \(.status.conditions[0].reason): \(.status.conditions[0].message)"' \
        "$T/out.jsonl" >"$T/pods"
    jq -r 'select(.kind == "PodGroup") | .status.conditions[0] | "\(.status) \(.reason): \(.message)"' \
        "$T/out.jsonl" >"$T/group"
}

# Upstream: k8s.io/kubernetes@v1.38.0-beta.0 pkg/scheduler/schedule_one.go
# handleSchedulingFailure (a podGroupFitError: "parent pod group %q is
# unschedulable"), framework/plugins/gangscheduling/gangscheduling.go
# PlacementFeasible; the group's status gains DynamicResources'
# PodGroupPostFilter reason (framework/runtime/framework.go
# RunPodGroupPostFilterPlugins: DefaultPreemption's "No preemption victims
# found" is Unschedulable from 1.38); compared with kube-scheduler by
# tests/upstream/cluster (sched-gang-devices)
@test "gang 1.38: a member that fit names its parent pod group; the group the minimum threshold" {
    sched 1.38 sched-gang-devices
    [[ $stderr == 'dra-alloc: pod default/gang-0: parent pod group "gang" is unschedulable
dra-alloc: pod default/gang-1: 0/1 nodes are available: 1 cannot allocate all claims.' ]]
    run cat "$T/pods"
    assert_output 'gang-0 Unschedulable: parent pod group "gang" is unschedulable
gang-1 Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims.'
    run cat "$T/group"
    assert_output "False Unschedulable: scheduling policy's minimum threshold (2) cannot be satisfied: 1 scheduled, 1 unschedulable, 0 not-evaluated, deallocation and deletion of ResourceClaims completed"
}

# Upstream: k8s.io/kubernetes@v1.37.2 pkg/scheduler/schedule_one_podgroup.go
# submitPodGroupAlgorithmResult (errPodGroupUnschedulable), gangscheduling.go
# PlacementFeasible (1.36's words: s39-gang36.bats)
@test "gang 1.37: a member that fit says the pod group is unschedulable, minCount" {
    sched 1.37 sched-gang-devices
    run cat "$T/pods"
    assert_output 'gang-0 Unschedulable: pod group is unschedulable, minCount (2) cannot be satisfied: 1 scheduled, 0 remaining
gang-1 Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims.'
    run cat "$T/group"
    assert_output "False Unschedulable: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
}

# Upstream: k8s.io/kubernetes@v1.38.0-beta.0 pkg/scheduler/schedule_one_podgroup.go
# completePodGroupAlgorithmResult (a pod not tried gets the group's status)
@test "gang 1.38: a member not tried names its parent pod group too" {
    sched 1.38 sched-gang-count
    run cat "$T/pods"
    assert_output 'gang-0 Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims.
gang-1 Unschedulable: parent pod group "gang" is unschedulable'
    run cat "$T/group"
    assert_output "False Unschedulable: scheduling policy's minimum threshold (2) cannot be satisfied: 0 scheduled, 1 unschedulable, 1 not-evaluated, deallocation and deletion of ResourceClaims completed"
    sched 1.37 sched-gang-count
    run cat "$T/pods"
    assert_output 'gang-0 Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims.
gang-1 Unschedulable: minCount (2) cannot be satisfied: 0 scheduled, 1 remaining'
}

# Upstream: k8s.io/kubernetes@v1.38.0-beta.0 pkg/scheduler/algorithm_podgroup.go
# RunRootSchedulingAlgorithm ("no pods were schedulable"); 1.37.2
# runRootSchedulingAlgorithm (errPodGroupUnschedulable alone)
@test "group 1.38: a cycle that places no pod says no pods were schedulable" {
    sched 1.38 sched-group-basic
    run cat "$T/group"
    assert_output "False Unschedulable: no pods were schedulable, deallocation and deletion of ResourceClaims completed"
    sched 1.37 sched-group-basic
    run cat "$T/group"
    assert_output "False Unschedulable: pod group is unschedulable"
}

# Upstream: k8s.io/kubernetes@v1.38.0-beta.0
# pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go PreEnqueue
# (the root group's readiness, named by EntityKey.String); v1.37.2
# preEnqueueHierarchiesDisabled
@test "gang 1.38: PreEnqueue names the group that waits for its quorum, or is not created" {
    G="$DATA/groups"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON --kubernetes-version 1.38 "$G/two-gpus.yaml" "$G/gang-short.yaml"
    assert_failure 1
    [[ $stderr == "dra-alloc: pod default/gang-0: waiting for podgroup/default/gang to meet its quorum
dra-alloc: pod default/gang-1: waiting for podgroup/default/gang to meet its quorum" ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON --kubernetes-version 1.38 "$G/two-gpus.yaml" "$G/missing-group.yaml"
    assert_failure 1
    [[ $stderr == *'dra-alloc: pod default/orphan: pod group "nowhere" or one of its composite pod group ancestors has not been created yet' ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON --kubernetes-version 1.37 "$G/two-gpus.yaml" "$G/gang-short.yaml"
    [[ $stderr == *"pod default/gang-1: waiting for minCount pods from a gang to appear in scheduling queue" ]]
}

# Upstream: k8s.io/kubernetes@v1.38.0-beta.0 pkg/scheduler/schedule_one_podgroup.go
# validatePodGroupHierarchy (validatePod names the pod and the root group);
# v1.37.2 validatePodGroup
@test "group 1.38: members whose priority is not the group's are named with the root group" {
    G="$DATA/groups"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON --kubernetes-version 1.38 "$G/two-gpus.yaml" "$G/priority-mismatch.yaml"
    assert_failure 2
    [[ $stderr == 'dra-alloc: pod default/worker-0: all pods in a pod group hierarchy should have the same priority as the root pod group'"'"'s priority, got 0 ("worker-0") and 1000 ("podgroup/default/train")
dra-alloc: pod default/worker-1: all pods in a pod group hierarchy should have the same priority as the root pod group'"'"'s priority, got 0 ("worker-0") and 1000 ("podgroup/default/train")' ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON --kubernetes-version 1.37 "$G/two-gpus.yaml" "$G/priority-mismatch.yaml"
    assert_failure 2
    [[ $stderr == *"pod default/worker-1: all pods in a single pod group should have the same priority as the pod group's priority, got 0 and 1000" ]]
}
