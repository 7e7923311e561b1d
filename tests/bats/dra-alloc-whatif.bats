#!/usr/bin/env bats
# dra-alloc schedule --what-if: drain, remove-device, taint and add, applied
# to a placed cluster before scheduling again.
load helpers
bats_require_minimum_version 1.5.0

A="$DATA/alloc"
W="$DATA/capacity"
NOW="--now 2026-01-01T00:00:00Z"

setup() {
    T=$BATS_TEST_TMPDIR
    # three pods placed: p1, p2 on node-a, p3 on node-b
    "$DRA_BIN/dra-alloc" schedule $NOW "$A/sched-cluster.yaml" "$A/sched-pods.yaml" >"$T/placed.yaml"
}

@test "what-if --drain: running pods lose their devices and move; exit 1" {
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --drain node-a "$A/sched-cluster.yaml" "$T/placed.yaml"
    assert_failure 1
    assert_line --index 0 "what-if: drain node-a"
    assert_line --index 1 "lost: pod default/p1 on node-a: node node-a drained"
    assert_line --index 3 "moves: pod default/p1: running on node-a -> fits on node-b"
    assert_line --index 4 "moves: pod default/p2: running on node-a -> fits on node-c"
    assert_line --index 5 --regexp '^ResourceClaim default/p1-gpu-[a-z0-9]+: devices -gpu.example.com/node-a/gpu-0 \(gpu\) \+gpu.example.com/node-b/gpu-1 \(gpu\); node node-a -> node-b$'
    assert_line --index 7 "summary: running pods losing their devices 2; pending pods that now fit 0, that stop fitting 0; pods that move 2; claims that change 2"
}

@test "what-if --remove-device: the pod holding it is placed again" {
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --remove-device gpu.example.com/node-a/gpu-0 -o json "$A/sched-cluster.yaml" "$T/placed.yaml"
    assert_failure 1
    run jq -c '[.lost[0].pod, .lost[0].reason, .pods[0].change, .pods[0].after.node, .summary.claimsChanged]' <<<"$output"
    assert_output '["default/p1","device gpu.example.com/node-a/gpu-0 removed","moves","node-b",1]'
}

@test "what-if --taint: a DeviceTaintRule dry run, NoExecute evicts, NoSchedule stops pending pods" {
    # --taint is a DeviceTaintRule: 1.37's (off by default in 1.36)
    export DRA_KUBERNETES_VERSION=1.37
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --taint gpu.example.com/node-b:example.com/broken=true:NoExecute "$A/sched-cluster.yaml" "$T/placed.yaml"
    assert_failure 1
    assert_line --index 1 "lost: pod default/p3 on node-b: device gpu.example.com/node-b/gpu-0 tainted example.com/broken=true:NoExecute"
    assert_line --index 2 "moves: pod default/p3: running on node-b -> fits on node-c"
    # NoSchedule leaves running pods alone
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --taint gpu.example.com:example.com/x:NoSchedule "$A/sched-cluster.yaml" "$T/placed.yaml"
    assert_success
    assert_line --index 1 "summary: running pods losing their devices 0; pending pods that now fit 0, that stop fitting 0; pods that move 0; claims that change 0"
    # ... but pending pods can no longer get the tainted devices
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --taint gpu.example.com:example.com/x:NoSchedule "$A/sched-cluster.yaml" "$A/sched-pods.yaml"
    assert_failure 1
    assert_line --index 1 "stops fitting: pod default/p1: fits on node-a -> fits nowhere (0/3 nodes are available: 3 cannot allocate all claims.)"
}

@test "what-if --add: a new node lets a pending pod fit" {
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --add "$W/whatif-add-node.yaml" "$A/sched-cluster.yaml" "$T/placed.yaml" "$W/whatif-pending.yaml"
    assert_success
    assert_line --index 0 "what-if: add $W/whatif-add-node.yaml"
    assert_line --index 1 "now fits: pod default/trainer: fits nowhere -> fits on node-d"
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --add "$W/whatif-add-node.yaml" -o jsonl "$A/sched-cluster.yaml" "$T/placed.yaml" "$W/whatif-pending.yaml"
    assert_success
    run jq -c .summary <<<"$output"
    assert_output '{"lost":0,"nowFit":1,"stopFitting":0,"moved":0,"claimsChanged":1}'
}

@test "what-if bad input: options without --what-if, unknown node or device, malformed taint" {
    run "$DRA_BIN/dra-alloc" schedule $NOW --drain node-a "$A/sched-cluster.yaml"
    assert_failure 2
    assert_output "dra-alloc: --drain needs --what-if"
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --drain node-z "$A/sched-cluster.yaml" "$T/placed.yaml"
    assert_failure 2
    assert_output --partial "node node-z is not in the input"
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --remove-device gpu.example.com/node-a/gpu-9 "$A/sched-cluster.yaml" "$T/placed.yaml"
    assert_failure 2
    assert_output --partial "device gpu.example.com/node-a/gpu-9 is not in the input's ResourceSlices"
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --taint gpu.example.com "$A/sched-cluster.yaml"
    assert_failure 2
    assert_output --partial "want SELECTOR:KEY=VALUE:EFFECT, not 'gpu.example.com'"
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --taint gpu.example.com:k=v:Sometimes "$A/sched-cluster.yaml"
    assert_failure 2
    assert_output --partial "unknown effect 'Sometimes'"
    # the rule is validated as the API server would: the key must be a qualified name
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --what-if --taint 'gpu.example.com:bad key:NoSchedule' "$A/sched-cluster.yaml"
    assert_failure 2
    [[ $output == "" ]]
    [[ $stderr == *"--taint"*"DeviceTaintRule/whatif-taint-0: spec.taint.key"* ]]
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --add "$T/missing.yaml" "$A/sched-cluster.yaml"
    assert_failure 2
    assert_output --partial "missing.yaml"
    run "$DRA_BIN/dra-alloc" schedule $NOW --what-if --explain "$A/sched-cluster.yaml"
    assert_failure 2
}
