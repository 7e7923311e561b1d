#!/usr/bin/env bats
# dra-alloc schedule's PodGroup failure messages as kube-scheduler writes
# them, and dra-alloc capacity on pools whose slices disagree.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    pod_group_setup
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

# Upstream: pkg/scheduler/schedule_one_podgroup.go runRootSchedulingAlgorithm
# (a success with no pod placed in the cycle is Unschedulable, only
# errPodGroupUnschedulable); compared by tests/upstream/cluster (sched-group-basic)
@test "group: a cycle that places no pod leaves the group unschedulable though its count is met" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW $ON -o jsonl "$CI/sched-group-basic.yaml"
    assert_failure 1
    [[ $stderr == "dra-alloc: pod default/gang-1: 0/1 nodes are available: 1 cannot allocate all claims." ]]
    run jq -r 'select(.kind == "PodGroup") | .status.conditions[0] | "\(.status) \(.reason): \(.message)"' <<<"$output"
    assert_output "False Unschedulable: pod group is unschedulable"
}

# capacity POOL-FILE: the default table, the --by pool table and -o json --by pool
# in $T/class, $T/pool and $T/json
capacity() {
    run "$DRA_BIN/dra-alloc" capacity $NOW "$DATA/s36-sched26/$1"
    assert_success
    printf '%s\n' "$output" >"$T/class"
    run "$DRA_BIN/dra-alloc" capacity $NOW --by pool "$DATA/s36-sched26/$1"
    assert_success
    printf '%s\n' "$output" >"$T/pool"
    run "$DRA_BIN/dra-alloc" capacity $NOW --by pool -o json "$DATA/s36-sched26/$1"
    assert_success
    printf '%s\n' "$output" >"$T/json"
}

# Upstream: k8s.io/dynamic-resource-allocation v0.37.2
# structured/internal/stable/pools_stable.go GatherPools (IsIncomplete when
# the newest generation's slices are not resourceSliceCount), buildPool
# (validateDeviceNames: IsInvalid); the allocator takes nothing from either.
@test "capacity: a pool with fewer slices than declared counts no device free, and says why" {
    capacity pool-fewer.yaml
    run grep -E '^gpu ' "$T/class"
    assert_output --regexp '^gpu +4 +0 +0 +0 +0 +0 +2 +2 +2 on node-a$'
    run grep -c '^gpu: 2 devices unusable: pool gpu.example.com/fewer: incomplete: 1 of 2 ResourceSlices at generation 1$' "$T/class"
    assert_output 1
    run head -n 1 "$T/pool"
    assert_output --regexp ' COUNTERS-LEFT +UNUSABLE-REASON$'
    run grep 'gpu.example.com/fewer' "$T/pool"
    assert_line --index 0 --regexp '^gpu +gpu.example.com/fewer +node-a +2 +0 +0 +0 +0 +0 +2 +0 +- +incomplete: 1 of 2 ResourceSlices at generation 1$'
    run grep 'gpu.example.com/good ' "$T/pool"
    assert_output --regexp ' 2 +- +-$'
    run jq -c '.classes[0] | [.free, .unusable, (.pools[] | [.pool, .free, .unusable, .unusableReason])]' "$T/json"
    assert_output '[2,2,["good",2,0,null],["fewer",0,2,"incomplete: 1 of 2 ResourceSlices at generation 1"]]'
}

@test "capacity: a pool with more slices than declared counts no device free, and says why" {
    capacity pool-more.yaml
    run grep -E '^gpu ' "$T/class"
    assert_output --regexp '^gpu +5 +0 +0 +0 +0 +0 +3 +2 +2 on node-a$'
    run grep 'gpu.example.com/more' "$T/pool"
    assert_line --index 0 --regexp '^gpu +gpu.example.com/more +node-a +3 +0 +0 +0 +0 +0 +3 +0 +- +incomplete: 3 ResourceSlices at generation 1, but resourceSliceCount is 2$'
    run jq -c '.classes[0] | [.free, .unusable, (.pools[] | [.pool, .free, .unusable, .unusableReason])]' "$T/json"
    assert_output '[2,3,["good",2,0,null],["more",0,3,"incomplete: 3 ResourceSlices at generation 1, but resourceSliceCount is 2"]]'
}

@test "capacity: of a pool whose slices differ in generation only the newest counts" {
    capacity pool-gens.yaml
    # generation 2 is one slice of one device, complete: generation 1's two are gone
    run grep -E '^gpu ' "$T/class"
    assert_output --regexp '^gpu +3 +0 +0 +0 +0 +0 +0 +3 +3 on node-a$'
    run grep -c unusable "$T/class"
    assert_output 0
    run grep 'gpu.example.com/gens' "$T/pool"
    assert_line --index 0 --regexp '^gpu +gpu.example.com/gens +node-a +1 +0 +0 +0 +0 +0 +0 +1 +- +-$'
    run jq -c '.classes[0] | [.free, .unusable, .unusablePools, (.pools[] | [.pool, .total, .free, .unusableReason])]' "$T/json"
    assert_output '[3,0,[],["good",2,2,null],["gens",1,1,null]]'
}

@test "capacity: a pool publishing a device name twice counts no device free, and says why" {
    capacity pool-dup.yaml
    run grep -E '^gpu ' "$T/class"
    assert_output --regexp '^gpu +6 +0 +0 +0 +0 +0 +4 +2 +2 on node-a$'
    run grep -c '^gpu: 4 devices unusable: pool gpu.example.com/dup: duplicate device name d-1$' "$T/class"
    assert_output 1
    run grep 'gpu.example.com/dup' "$T/pool"
    assert_line --index 0 --regexp '^gpu +gpu.example.com/dup +node-a +4 +0 +0 +0 +0 +0 +4 +0 +- +duplicate device name d-1$'
    run jq -c '.classes[0] | [.free, .unusable, (.pools[] | [.pool, .free, .unusable, .unusableReason])]' "$T/json"
    assert_output '[2,4,["good",2,0,null],["dup",0,4,"duplicate device name d-1"]]'
}
