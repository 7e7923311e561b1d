#!/usr/bin/env bats
# dra-alloc schedule as 1.36's kube-scheduler words and places pods: its
# DynamicResources PostFilter gives a reason the fit error ends with, and
# its PodGroups (scheduling.k8s.io/v1alpha2) are scheduled with the
# GangScheduling plugin at Permit.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    pod_group_setup
    G="$DATA/groups"
}

# Upstream: k8s.io/kubernetes@v1.36.3 pkg/scheduler/framework/plugins/
# dynamicresources/dynamicresources.go PostFilter ("still not schedulable",
# "no new claims to deallocate"); framework/types.go FitError.Error; 1.37's
# PostFilter gives no reason.  Compared with kube-scheduler by
# tests/upstream/cluster at 1.36 (examples/cluster's fast-path).
@test "1.36: a pod's fit error ends with DynamicResources' PostFilter reason" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.36 -o jsonl "$EXAMPLES/cluster"
    assert_failure 1
    [[ $stderr == *"pod default/fast-path: 0/2 nodes are available: 2 cannot allocate all claims. still not schedulable" ]]
    run jq -r 'select(.kind == "Pod" and .metadata.name == "fast-path") | .status.conditions[0].message' <<<"$output"
    assert_output "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.37 "$EXAMPLES/cluster"
    [[ $stderr == *"pod default/fast-path: 0/2 nodes are available: 2 cannot allocate all claims." ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.36 "$G/missing-claim.yaml"
    assert_failure 1
    [[ $stderr == 'dra-alloc: pod default/lonely: 0/1 nodes are available: resourceclaim.resource.k8s.io "nowhere" not found. no new claims to deallocate' ]]
}

# sched36 INPUT [GATES]: dra-alloc schedule at 1.36 on a scheduling.k8s.io/
# v1alpha2 copy of the cluster suite's INPUT (what 1.36 serves), with
# GenericWorkload and GangScheduling on (or GATES); the pods (node, reason:
# message) in $T/pods, the group's conditions in $T/group
sched36() {
    sed 's#^apiVersion: scheduling.k8s.io/v1beta1$#apiVersion: scheduling.k8s.io/v1alpha2#' "$CI/$1.yaml" >"$T/$1.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --kubernetes-version 1.36 \
        --feature-gates "${2:-GenericWorkload=true,GangScheduling=true}" -o jsonl "$T/$1.yaml"
    printf '%s\n' "$output" >"$T/out.jsonl"
    jq -r 'select(.kind == "Pod") | "\(.metadata.name) \(.spec.nodeName // "-") \(.status.conditions[0].reason // ""): \(.status.conditions[0].message // "")" | sub(" *:? *$"; "")' \
        "$T/out.jsonl" >"$T/pods"
    jq -r 'select(.kind == "PodGroup") | .status.conditions[] | "\(.type) \(.status) \(.reason): \(.message)" | sub(" *$"; "")' \
        "$T/out.jsonl" >"$T/group"
}

# Upstream: k8s.io/kubernetes@v1.36.3 pkg/scheduler/schedule_one_podgroup.go
# podGroupSchedulingDefaultAlgorithm (errPodGroupUnschedulable until a pod
# passes Permit), submitPodGroupAlgorithmResult (a pod that fit: its Permit
# status after errPodGroupUnschedulable; the group: PodGroupScheduled),
# framework/plugins/gangscheduling/gangscheduling.go Permit ("waiting for
# minCount pods from a gang to be scheduled", to which framework.go
# RunPermitPlugins adds its own reason); members in creation order, as
# when both passed PreEnqueue on arrival (backend/queue/scheduling_queue.go
# InitialAttemptTimestamp: a member that waited at PreEnqueue for the other
# is tried after it, which a cluster does or not as its informers race);
# compared with kube-scheduler by tests/upstream/cluster at 1.36
# (sched-gang-devices)
@test "gang 1.36: a member that fit waits at Permit; the group is PodGroupScheduled False" {
    sched36 sched-gang-devices
    assert_equal "$status" 1
    run cat "$T/pods"
    assert_output 'gang-0 - Unschedulable: pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, one or more plugins asked to wait and no plugin rejected pod
gang-1 - Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims. still not schedulable'
    run cat "$T/group"
    assert_output "PodGroupScheduled False Unschedulable: pod group is unschedulable"
}

# Upstream: v1.36.3 podGroupSchedulingDefaultAlgorithm (a rejected pod does
# not end the cycle: every pod is tried); 1.37 stops once minCount cannot
# be met (sched-gang-count)
@test "gang 1.36: every member is tried, each keeps its own fit error" {
    sched36 sched-gang-count
    assert_equal "$status" 1
    run cat "$T/pods"
    assert_output 'gang-0 - Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims. still not schedulable
gang-1 - Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims. still not schedulable'
    run cat "$T/group"
    assert_output "PodGroupScheduled False Unschedulable: pod group is unschedulable"
}

# Upstream: v1.36.3 gangscheduling.go Permit (minCount scheduled or
# assumed: Success for the whole gang); submitPodGroupAlgorithmResult
# (condition True, reason Scheduled, the status's empty message)
@test "gang 1.36: a gang that fits is bound; its group is PodGroupScheduled True" {
    sched36 sched-gang-fits
    assert_equal "$status" 0
    run cat "$T/pods"
    assert_output 'gang-0 node-a
gang-1 node-a'
    run cat "$T/group"
    assert_output "PodGroupScheduled True Scheduled:"
}

# Upstream: v1.36.3 pkg/scheduler/apis/config/v1/default_plugins.go
# applyFeatureGates (the GangScheduling plugin only with its gate),
# pkg/features/kube_features.go (GangScheduling: alpha, off, depends on
# GenericWorkload; gone in 1.37, whose GenericWorkload enables the plugin)
@test "gang 1.36: without GangScheduling a group is placed pod by pod, no minCount" {
    sched36 sched-gang-devices GenericWorkload=true
    assert_equal "$status" 1
    run cat "$T/pods"
    assert_output 'gang-0 node-a
gang-1 - Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims. still not schedulable'
    run cat "$T/group"
    assert_output "PodGroupScheduled True Scheduled:"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.37 --feature-gates GangScheduling=true "$T/sched-gang-devices.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-alloc: unrecognized feature gate: GangScheduling"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.36 --feature-gates GangScheduling=true "$T/sched-gang-devices.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-alloc: GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]"
}

# Upstream: v1.36.3 basic policy: Permit has nothing to wait for, yet the
# cycle places no pod (sched-group-basic)
@test "group 1.36: a basic group whose cycle places no pod is not scheduled" {
    sched36 sched-group-basic
    assert_equal "$status" 1
    run cat "$T/pods"
    assert_output 'gang-1 - Unschedulable: 0/1 nodes are available: 1 cannot allocate all claims. still not schedulable'
    run cat "$T/group"
    assert_output "PodGroupScheduled False Unschedulable: pod group is unschedulable"
}

# Upstream: k8s.io/api@v0.36.3 scheduling/v1alpha2 (register.go: the only
# version of PodGroup 1.36 serves; v0.37.2 has v1beta1 and v1alpha3)
@test "1.36 serves PodGroups as scheduling.k8s.io/v1alpha2 only" {
    sed 's#^apiVersion: scheduling.k8s.io/v1beta1$#apiVersion: scheduling.k8s.io/v1alpha2#' "$CI/sched-gang-fits.yaml" >"$T/fits.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.36 $ON "$T/fits.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 $ON "$T/fits.yaml"
    assert_failure 2
    [[ $stderr == *'PodGroup/default/gang: kind: no matches for kind "PodGroup" in version "scheduling.k8s.io/v1alpha2"' ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.36 $ON "$CI/sched-gang-fits.yaml"
    assert_failure 2
    [[ $stderr == *'PodGroup/default/gang: kind: no matches for kind "PodGroup" in version "scheduling.k8s.io/v1beta1"' ]]
}
