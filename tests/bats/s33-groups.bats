#!/usr/bin/env bats
# Pod groups in dra-alloc schedule's queue (GenericWorkload), the pods a
# RayJob becomes, and the README's examples.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    G="$DATA/groups"
    T="$BATS_TEST_TMPDIR"
    NOW="--now 2026-03-01T11:00:00Z"
    ON="--feature-gates GenericWorkload=true"
}

# Upstream: k8s.io/kubernetes v1.37.2 pkg/scheduler/backend/queue/scheduling_queue.go
# addPodGroupMember, newQueuedPodGroupInfoFromRootLookup
@test "groups: a PodGroup's pods queue as one entry at its first member's time" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON -o jsonl "$G/two-gpus.yaml" "$G/group.yaml"
    assert_failure 1
    [[ $stderr == "dra-alloc: pod default/solo: 0/1 nodes are available: 1 cannot allocate all claims." ]]
    run jq -r 'select(.kind == "Pod" and .spec.nodeName == "node-a") | .metadata.name' <<<"$output"
    assert_output "$(printf 'worker-late\nworker-early')"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON --explain=json "$G/two-gpus.yaml" "$G/group.yaml"
    [[ $(jq -rs 'map("\(.pod)#\(.queue.position)@\(.queue.group)") | join(" ")' <<<"$stderr") == "default/worker-early#1@default/train default/worker-late#2@default/train default/solo#3@null" ]]
    [[ $(jq -rs '.[1].queue.why' <<<"$stderr") == "PodGroup default/train, one entry: priority 0 (no priorityClassName, no globalDefault PriorityClass), queued 2026-03-01T08:00:00Z (its first member's creation); this pod: priority 0 (no priorityClassName, no globalDefault PriorityClass), created 2026-03-01T10:00:00Z" ]]
}

# Upstream: scheduling_queue.go isPodGroupPod (the gate off: no group);
# pkg/controller/resourceclaim/controller.go getPodGroup (the controller
# refuses a pod naming a PodGroup when the gate is off)
@test "groups: gate off, every pod is its own entry" {
    # the members' claims made while the gate was on: each pod queues alone
    "$DRA_BIN/dra-claim" generate $ON "$G/two-gpus.yaml" "$G/group.yaml" >"$T/made.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW -o jsonl "$G/two-gpus.yaml" "$T/made.yaml"
    assert_failure 1
    [[ $stderr == "dra-alloc: warning: $T/made.yaml:"*"Pod/default/worker-late: spec.schedulingGroup.podGroupName: a member of PodGroup train but the GenericWorkload feature is disabled: queued as a pod of its own
dra-alloc: warning: $T/made.yaml:"*"Pod/default/worker-early: spec.schedulingGroup.podGroupName: a member of PodGroup train but the GenericWorkload feature is disabled: queued as a pod of its own
dra-alloc: pod default/worker-late: 0/1 nodes are available: 1 cannot allocate all claims." ]]
    run jq -r 'select(.kind == "Pod" and .spec.nodeName) | .metadata.name' <<<"$output"
    assert_output "$(printf 'solo\nworker-early')"
    # claims not made yet: the controller makes none for the members
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW "$G/two-gpus.yaml" "$G/group.yaml"
    assert_failure 1
    [[ $stderr == *"get PodGroup for Pod default/worker-late: Pod is a member of PodGroup train but GenericWorkload feature is disabled"* ]]
    [[ $stderr == *'pod default/worker-early: 0/1 nodes are available: pod "default/worker-early": ResourceClaim not created yet.'* ]]
}

# Upstream: pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go PreEnqueue
@test "groups: a gang with fewer pods than minCount is held back, other pods go on" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON -o jsonl "$G/two-gpus.yaml" "$G/gang-short.yaml"
    assert_failure 1
    [[ $stderr == "dra-alloc: pod default/gang-0: waiting for minCount pods from a gang to appear in scheduling queue
dra-alloc: pod default/gang-1: waiting for minCount pods from a gang to appear in scheduling queue" ]]
    run jq -r 'select(.kind == "Pod" and .spec.nodeName) | .metadata.name' <<<"$output"
    assert_output "solo"
}

@test "groups: a pod whose PodGroup is not in the input waits for it" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON "$G/two-gpus.yaml" "$G/missing-group.yaml"
    assert_failure 1
    [[ $stderr == "dra-alloc: warning: $G/missing-group.yaml:"*": get PodGroup for Pod default/orphan: podgroup.scheduling.k8s.io \"nowhere\" not found
dra-alloc: pod default/orphan: waiting for pods's pod group \"nowhere\" to appear in scheduling queue" ]]
}

# Upstream: pkg/scheduler/schedule_one_podgroup.go validatePodGroup
@test "groups: members whose priority is not the group's fail the whole group" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON "$G/two-gpus.yaml" "$G/priority-mismatch.yaml"
    assert_failure 2
    [[ $stderr == *"pod default/worker-0: all pods in a single pod group should have the same priority as the pod group's priority, got 0 and 1000"* ]]
    [[ $stderr == *"pod default/worker-1: all pods in a single pod group should have the same priority as the pod group's priority, got 0 and 1000"* ]]
}

# Upstream: pkg/scheduler/schedule_one_podgroup.go podGroupSchedulingDefaultAlgorithm
# (revertFns), gangscheduling.go PlacementFeasible
@test "groups: a gang that cannot place minCount pods places none; a later pod gets the device" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON -o jsonl "$G/two-gpus.yaml" "$G/gang-undone.yaml"
    assert_failure 1
    [[ $stderr == "dra-alloc: pod default/gang-0: pod group is unschedulable, minCount (2) cannot be satisfied: 1 scheduled, 0 remaining
dra-alloc: pod default/gang-1: 0/1 nodes are available: 1 cannot allocate all claims." ]]
    printf '%s\n' "$output" > "$T/out.jsonl"
    run jq -r 'select(.kind == "Pod") | "\(.metadata.name) \(.spec.nodeName)"' "$T/out.jsonl"
    assert_output "$(printf 'first node-a\ngang-0 null\ngang-1 null\nafter node-a')"
    run jq -r 'select(.kind == "ResourceClaim" and .status.allocation) | "\(.metadata.name) \(.status.allocation.devices.results[0].device)"' "$T/out.jsonl"
    assert_output "$(printf 'first-gpu-gxxhg gpu-0\nafter-gpu-xnwnn gpu-1')"
    # without the gate the controller makes no claim for the gang's pods
    # (getPodGroup), which the scheduler then tries each on its own
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW -o jsonl "$G/two-gpus.yaml" "$G/gang-undone.yaml"
    assert_failure 1
    [[ $stderr == *"get PodGroup for Pod default/gang-0: Pod is a member of PodGroup gang but GenericWorkload feature is disabled"* ]]
    [[ $stderr == *'pod default/gang-1: 0/1 nodes are available: pod "default/gang-1": ResourceClaim not created yet.' ]]
    run jq -r 'select(.kind == "Pod" and .spec.nodeName) | .metadata.name' <<<"$output"
    assert_output "$(printf 'first\nafter')"
    # --explain still traces every pod
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON --explain=json "$G/two-gpus.yaml" "$G/gang-undone.yaml"
    [[ $(jq -rs 'map("\(.pod)=\(.outcome)") | join(" ")' <<<"$stderr") == "default/first=scheduled default/gang-0=unschedulable default/gang-1=unschedulable default/after=scheduled" ]]
}

# KubeRay v1.7.0 ray-operator/controllers/ray/rayjob_controller.go createNewK8sJob,
# getSubmitterTemplate, constructRayClusterForRayJob
@test "rayjob: K8sJobMode adds the submitter Job's pod, named after the RayJob; other modes do not" {
    W="$DATA/workloads"
    run --separate-stderr "$DRA_BIN/dra-claim" generate -v -o json "$W/claim-template.yaml" "$W/rayjob-custom.yaml"
    assert_success
    [[ $stderr == *"RayJob/default/rayjob-custom: expanded into 4 pods"* ]]
    # the submitter pod template's claim is made for the Job's pod
    run jq -r '.items[] | select(.kind == "Pod" and .metadata.ownerReferences[0].kind == "Job")
               | [.metadata.ownerReferences[0].name, .metadata.labels["ray.io/originated-from-crd"], .spec.containers[0].name,
                  (.metadata.name | test("^rayjob-custom-[bcdfghjklmnpqrstvwxz2456789]{5}$"))] | @tsv' <<<"$output"
    assert_output "$(printf 'rayjob-custom\tRayJob\tmy-submitter\ttrue')"
    run --separate-stderr "$DRA_BIN/dra-claim" generate -v -o json "$W/claim-template.yaml" "$W/rayjob-http.yaml" "$W/rayjob-sidecar.yaml"
    assert_success
    [[ $stderr == *"RayJob/default/rayjob-http: expanded into 3 pods"* ]]
    [[ $stderr == *"RayJob/default/rayjob-sidecar: expanded into 3 pods"* ]]
}

@test "rayjob: on an existing cluster only the submitter's pod is made, of the head's image" {
    W="$DATA/workloads"
    run --separate-stderr "$DRA_BIN/dra-claim" generate -v -o json "$W/claim-template.yaml" "$W/rayjob-selector.yaml" "$W/raycluster.yaml"
    assert_success
    [[ $stderr == *"RayJob/default/rayjob-on-kuberay: expanded into 1 pod"* ]]
    run --separate-stderr "$DRA_BIN/dra-claim" generate -v -o json "$W/claim-template.yaml" "$W/rayjob-selector.yaml"
    [[ $stderr == *"RayJob/default/rayjob-on-kuberay: spec.clusterSelector: the submitter's image is the head's of the selected RayCluster, which is not in the input: not expanded"* ]]
}

@test "readme: every example prints what the README shows" {
    # the README shows the default release's answers (1.37)
    unset DRA_KUBERNETES_VERSION
    run python3 "$BATS_TEST_DIRNAME/../readme-examples.py" "$BATS_TEST_DIRNAME/../../README.md" "$DRA_BIN"
    assert_success
    assert_line --regexp '^[0-9]+ examples checked, 0 differ$'
}

@test "groups: --order input tries a gang's pods each on its own" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON --order input -o jsonl "$G/two-gpus.yaml" "$G/gang-undone.yaml"
    assert_failure 1
    [[ $stderr == "dra-alloc: pod default/gang-1: 0/1 nodes are available: 1 cannot allocate all claims.
dra-alloc: pod default/after: 0/1 nodes are available: 1 cannot allocate all claims." ]]
}
