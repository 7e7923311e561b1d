#!/usr/bin/env bats
# Kubernetes 1.36's PodGroups beyond scheduling them: the fields of its
# WorkloadAwarePreemption gate, the versions it serves, the queue place of
# a group and a group whose PodGroup is missing.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    pod_group_setup
    G="$DATA/groups"
}

# Upstream: k8s.io/kubernetes@v1.36.3 pkg/registry/scheduling/podgroup/
# strategy.go (PrepareForCreate: dropDisabledPodGroupSpecFields drops
# disruptionMode, priorityClassName and priority without the gate, before
# Validate), pkg/apis/scheduling/v1alpha2/zz_generated.validations.go
# (Validate_DisruptionMode, Maximum, LongName with the gate), pkg/features/
# kube_features.go (WorkloadAwarePreemption: alpha, off, depends on
# GangScheduling; 1.37 has no such gate).  Compared with the 1.36
# validation peer (build/upstream/1.36/bin/upstream-validate).
@test "1.36: a new PodGroup loses its WorkloadAwarePreemption fields without the gate" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.36 $ON "$G/preemption36.yaml"
    assert_success
    [[ $stderr == *'PodGroup/default/gang: spec.disruptionMode: field dropped: the WorkloadAwarePreemption feature gate is disabled (the API server drops it from a new pod group, not from a stored one)'* ]]
    [[ $stderr == *'PodGroup/default/gang: spec.priorityClassName: field dropped: the WorkloadAwarePreemption'* ]]
    [[ $stderr == *'PodGroup/default/gang: spec.priority: field dropped: the WorkloadAwarePreemption'* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.36 \
        --feature-gates GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true "$G/preemption36.yaml"
    assert_failure 2
    [[ $stderr == *'PodGroup/default/gang: spec.disruptionMode: Unsupported value: "Whole": supported values: "Pod", "PodGroup"'* ]]
    [[ $stderr == *'PodGroup/default/gang: spec.priorityClassName: Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain'* ]]
    [[ $stderr == *'PodGroup/default/gang: spec.priority: Invalid value: 2000000000: must be less than or equal to 1000000000'* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.36 \
        --feature-gates GenericWorkload=true,WorkloadAwarePreemption=true "$G/preemption36.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-slice: WorkloadAwarePreemption is enabled, but depends on features that are disabled: [GangScheduling]"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 --feature-gates WorkloadAwarePreemption=true "$G/preemption36.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-slice: unrecognized feature gate: WorkloadAwarePreemption"
    run "$DRA_BIN/dra-slice" gates 1.36
    assert_line "1.36 WorkloadAwarePreemption false alpha false GangScheduling"
}

# Upstream: k8s.io/kubernetes@v1.36.3 pkg/scheduler/framework/plugins/
# queuesort/priority_sort.go (Less: the pod's priority, then its queue
# time; no PodGroup's), schedule_one.go ScheduleOne (a member that comes off
# the queue starts its group's cycle), schedule_one_podgroup.go
# podGroupInfoForPod (the other members popped, sorted by priority and
# InitialAttemptTimestamp); 1.37 queues the group as one entity at its
# PodGroup's priority (worker-1 would then be refused for its priority)
@test "queue 1.36: a group is tried when its first member comes off the queue" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --kubernetes-version 1.36 $ON -o jsonl "$G/queue36.yaml"
    assert_failure 1
    run jq -r 'select(.kind == "Pod") | "\(.metadata.name) \(.spec.nodeName // "-")"' <<<"$output"
    assert_output 'worker-0 -
worker-1 node-a
solo -'
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --kubernetes-version 1.36 $ON --explain "$G/queue36.yaml"
    [[ $stderr == *'pod default/worker-1: node node-a (score 0)
  queue: #1, PodGroup default/train, tried when its first member worker-1 comes off the queue; this pod: priority 1000 (PriorityClass high), created 2026-03-01T10:00:00Z'* ]]
    [[ $stderr == *'queue: #3, priority 500 (PriorityClass mid), created 2026-03-01T07:00:00Z'* ]]
}

# Upstream: k8s.io/api@v0.36.3 scheduling/v1alpha2/register.go (the only
# version of PodGroup 1.36 serves: a v1beta1 one cannot be in its cluster,
# kubectl says "no matches for kind"); v0.37.2 serves v1beta1 and v1alpha3.
# The scheduler then sees members of a group that is not there
# (gangscheduling.go PreEnqueue), the claim controller a pod whose group it
# cannot get (pkg/controller/resourceclaim/controller.go getPodGroup).
@test "1.36: a v1beta1 PodGroup is not served: validate refuses it, schedule and dra-claim leave it out" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.36 $ON "$CI/sched-gang-fits.yaml"
    assert_failure 2
    [[ $stderr == *'PodGroup/default/gang: kind: no matches for kind "PodGroup" in version "scheduling.k8s.io/v1beta1"' ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --kubernetes-version 1.36 \
        --feature-gates GenericWorkload=true,GangScheduling=true -o jsonl "$CI/sched-gang-fits.yaml"
    [[ $stderr == *'PodGroup/default/gang: kind: no matches for kind "PodGroup" in version "scheduling.k8s.io/v1beta1": Kubernetes 1.36 does not serve it; left out'* ]]
    [[ $stderr == *'pod default/gang-0: waiting for pods'"'"'s pod group "gang" to appear in scheduling queue'* ]]
    run jq -r 'select(.kind == "Pod" and .spec.nodeName) | .metadata.name' <<<"$output"
    assert_output ''
    run --separate-stderr "$DRA_BIN/dra-claim" generate --kubernetes-version 1.36 \
        --feature-gates GenericWorkload=true,DRAWorkloadResourceClaims=true "$CI/sched-gang-fits.yaml"
    assert_failure 2
    [[ $stderr == *'kind: no matches for kind "PodGroup" in version "scheduling.k8s.io/v1beta1": Kubernetes 1.36 does not serve it; left out'* ]]
    [[ $stderr == *'get PodGroup for Pod default/gang-0: podgroup.scheduling.k8s.io "gang" not found'* ]]
    # and 1.37 does not serve 1.36's v1alpha2
    sed 's#^apiVersion: scheduling.k8s.io/v1beta1$#apiVersion: scheduling.k8s.io/v1alpha2#' "$CI/sched-gang-fits.yaml" >"$T/fits.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --kubernetes-version 1.37 $ON "$T/fits.yaml"
    assert_failure 1
    [[ $stderr == *'kind: no matches for kind "PodGroup" in version "scheduling.k8s.io/v1alpha2": Kubernetes 1.37 does not serve it; left out'* ]]
}

# Upstream: k8s.io/kubernetes@v1.36.3 pkg/scheduler/eventhandlers.go
# addPodToSchedulingQueue (a member's group state comes from its pods,
# backend/cache/cache.go AddPodGroupMember), schedule_one.go ScheduleOne,
# schedule_one_podgroup.go (the cycle needs no PodGroup object;
# updatePodGroupCondition finds none and writes nothing); the
# GangScheduling plugin, whose PreEnqueue waits for the PodGroup, runs only
# with its gate (apis/config/v1/default_plugins.go applyFeatureGates)
@test "1.36: without GangScheduling a member of a missing PodGroup is scheduled" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --kubernetes-version 1.36 $ON -o jsonl \
        "$G/two-gpus.yaml" "$G/missing-group.yaml"
    assert_success
    assert_equal "$stderr" ""
    run jq -r 'select(.kind == "Pod") | "\(.metadata.name) \(.spec.nodeName // "-")"' <<<"$output"
    assert_output 'solo node-a
orphan node-a'
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --kubernetes-version 1.36 \
        --feature-gates GenericWorkload=true,GangScheduling=true "$G/two-gpus.yaml" "$G/missing-group.yaml"
    assert_failure 1
    assert_equal "$stderr" 'dra-alloc: pod default/orphan: waiting for pods'"'"'s pod group "nowhere" to appear in scheduling queue'
}
