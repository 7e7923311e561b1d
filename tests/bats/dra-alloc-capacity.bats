#!/usr/bin/env bats
# dra-alloc capacity: how much of each DeviceClass is left, on a small fleet
# half in use (partitionable GPUs, a shared NIC, a tainted and an unhealthy GPU).
load helpers
bats_require_minimum_version 1.5.0

C="$DATA/capacity/cluster.yaml"
NOW="--now 2026-01-01T00:00:00Z"

setup() {
    # 1.37's figures: the tainted GPU is a DeviceTaintRule's, off by default in 1.36
    export DRA_KUBERNETES_VERSION=1.37
    T=$BATS_TEST_TMPDIR
}

@test "capacity: one row per class, partition shapes, largest fit from the allocator" {
    run "$DRA_BIN/dra-alloc" capacity $NOW "$C"
    assert_success
    assert_line --index 0 --regexp '^CLASS +TOTAL +ALLOCATED +SHARED +TAINTED +UNHEALTHY +BLOCKED +UNUSABLE +FREE +LARGEST-FIT$'
    assert_line --index 1 --regexp '^gpu +10 +3 +0 +1 +1 +1 +0 +5 +3 on node-a$'
    assert_line --index 2 --regexp '^nic +1 +0 +1 +0 +0 +0 +0 +1 +1 on node-a$'
    # gpu-0 is blocked by its half in use; three halves fit, one whole GPU
    assert_line --index 3 "gpu partitions: 1 x 7g.80gb left on 1 counter set; 3 x 3g.40gb left on 2 counter sets"
}

@test "capacity -o json: the same figures for programs" {
    run "$DRA_BIN/dra-alloc" capacity $NOW -o json --class gpu "$C"
    assert_success
    run jq -c '.classes[] | [.name, .total, .allocated, .tainted, .unhealthy, .blocked, .free, .largestFit.devices, .largestFit.node]' <<<"$output"
    assert_output '["gpu",10,3,1,1,1,5,3,"node-a"]'
}

@test "capacity --by node: rows per node with each node's largest fit" {
    run "$DRA_BIN/dra-alloc" capacity $NOW --by node -o jsonl --class gpu "$C"
    assert_success
    run jq -c '.nodes[] | [.name, .total, .free, .largestFit]' <<<"$output"
    assert_output $'["node-a",6,4,3]\n["node-b",4,1,1]'
}

@test "capacity --by pool: counters and consumable capacity left" {
    run "$DRA_BIN/dra-alloc" capacity $NOW --by pool "$C"
    assert_success
    assert_output --partial "gpu-0-cs: memory 40Gi/80Gi; gpu-1-cs: memory 80Gi/80Gi"
    run "$DRA_BIN/dra-alloc" capacity $NOW --by pool -o json --class nic "$C"
    assert_success
    run jq -c '.classes[0].pools[0].consumable' <<<"$output"
    assert_output '[{"device":"eth0","capacity":{"bandwidth":{"total":"100G","left":"60G"}}}]'
}

@test "capacity --match-attribute: the largest fit of devices sharing a value" {
    run "$DRA_BIN/dra-alloc" capacity $NOW --match-attribute parent -o jsonl --class gpu "$C"
    assert_success
    run jq -c '.largestFit' <<<"$output"
    assert_output '{"devices":2,"node":"node-a","matchAttribute":"parent"}'
}

@test "capacity --fail-below: exit 1 under the floor, for cron" {
    run "$DRA_BIN/dra-alloc" capacity $NOW --fail-below gpu=5 --fail-below nic=1 "$C"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity $NOW --fail-below gpu=6 "$C"
    assert_failure 1
    [[ $stderr == "dra-alloc: class gpu: 5 free devices, fewer than 6" ]]
    # the report is still printed
    [[ $output == CLASS* ]]
}

@test "capacity: a drained node's devices are no longer free" {
    # DeviceTaintRule on the whole node-b pool
    cat >"$T/drain.yaml" <<'Y'
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: drain-node-b}
spec:
  deviceSelector: {driver: gpu.example.com, pool: node-b}
  taint: {key: example.com/drain, effect: NoExecute}
Y
    run "$DRA_BIN/dra-alloc" capacity $NOW -o jsonl --class gpu --by node "$C" "$T/drain.yaml"
    assert_success
    run jq -c '[.tainted, .free, (.nodes[] | select(.name == "node-b") | .free)]' <<<"$output"
    assert_output '[4,4,0]'
}

@test "capacity bad input: unknown class, bad flags, broken selector, invalid object" {
    run "$DRA_BIN/dra-alloc" capacity $NOW --class nope "$C"
    assert_failure 2
    assert_output "dra-alloc: --class: DeviceClass nope is not in the input"
    run "$DRA_BIN/dra-alloc" capacity $NOW --fail-below gpu "$C"
    assert_failure 2
    assert_output "dra-alloc: --fail-below: want CLASS=N with N a whole number, not 'gpu'"
    run "$DRA_BIN/dra-alloc" capacity $NOW --fail-below gpu=-1 "$C"
    assert_failure 2
    run "$DRA_BIN/dra-alloc" capacity $NOW --fail-below nope=1 "$C"
    assert_failure 2
    assert_output "dra-alloc: --fail-below: DeviceClass nope is not in the report (not in the input)"
    run "$DRA_BIN/dra-alloc" capacity $NOW --by rack "$C"
    assert_failure 2
    assert_output --partial "unknown grouping rack (want class, node or pool)"
    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: bad}\nspec:\n  selectors:\n  - cel: {expression: "device.driver =="}\n' >"$T/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity $NOW "$C" "$T/bad.yaml"
    assert_failure 2
    [[ $output == "" ]]
    [[ $stderr == *"class bad: selector #0: CEL compile error"* ]]
    sed 's/resourceSliceCount: 2/resourceSliceCount: 0/' "$C" >"$T/invalid.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity $NOW "$T/invalid.yaml"
    assert_failure 2
    [[ $output == "" ]]
    [[ $stderr == *"invalid.yaml:"*"ResourceSlice/node-a-counters: spec.pool.resourceSliceCount"* ]]
    printf 'kind: [\n' >"$T/broken.yaml"
    run "$DRA_BIN/dra-alloc" capacity $NOW "$T/broken.yaml"
    assert_failure 2
}

@test "capacity: empty input is an empty report" {
    run "$DRA_BIN/dra-alloc" capacity $NOW -o json </dev/null
    assert_success
    run jq -c . <<<"$output"
    assert_output '{"classes":[]}'
}

@test "capacity on a dra-slice mig profile: MIG shapes by profile, the whole GPU by type" {
    {
        printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"mig"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \\"gpu.nvidia.com\\""}}]}}\n'
        "$DRA_BIN/dra-slice" profile mig --nodes 1 --devices 1 -o jsonl
    } >"$T/mig.jsonl"
    run "$DRA_BIN/dra-alloc" capacity $NOW "$T/mig.jsonl"
    assert_success
    assert_line --index 1 --regexp '^mig +15 +0 +0 +0 +0 +0 +0 +15 +7 on node-0$'
    assert_line --index 2 "mig partitions: 1 x gpu left on 1 counter set; 7 x 1g.5gb left on 1 counter set; 3 x 2g.10gb left on 1 counter set; 2 x 3g.20gb left on 1 counter set; 1 x 4g.20gb left on 1 counter set; 1 x 7g.40gb left on 1 counter set"
}
