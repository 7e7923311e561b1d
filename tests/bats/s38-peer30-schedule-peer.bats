#!/usr/bin/env bats
# `upstream-alloc schedule` (upstream's allocator driven as the scheduler
# drives it) against `dra-alloc schedule`: same placements.  Skipped when
# the peer is not built (`make upstream-alloc`).

load helpers
bats_require_minimum_version 1.5.0

setup() {
    REPO=$BATS_TEST_DIRNAME/../..
    U=$REPO/build/upstream/bin/upstream-alloc
    [[ -x $U ]] || skip "upstream-alloc not built (make upstream-alloc)"
    "$U" schedule --help >/dev/null 2>&1 || skip "upstream-alloc has no schedule (make upstream-alloc)"
}

@test "upstream-alloc schedule: queue order and the placed pod's devices" {
    run "$U" schedule --now 2026-01-01T00:00:00Z -o jsonl "$DATA/queue/one-gpu.yaml" "$DATA/queue/priority.yaml"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = '{"pod":"default/b-serving","node":"node-a","devices":["gpu.example.com/node-a/gpu-0"]}' ]
    [[ ${lines[1]} == '{"pod":"default/a-batch","devices":[],"message":"0/1 nodes are available"}' ]]
}

@test "upstream-alloc schedule: the count without -o" {
    run --separate-stderr "$U" schedule --now 2026-01-01T00:00:00Z "$DATA/queue/one-gpu.yaml" "$DATA/queue/priority.yaml"
    [ "$status" -eq 1 ]
    [ "$output" = "1 placed, 1 not placed" ]
    [[ $stderr == *"2 pods, 1 scheduled, 1 unschedulable, 0 errors"* ]]
}

@test "dra-alloc schedule and upstream-alloc schedule place every pod alike" {
    run "$REPO/tests/upstream/cmd/upstream-alloc/check-schedule.sh" "$DRA_BIN" "$U" "$BATS_TEST_TMPDIR/w"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[-1]} == "12 passed, 0 failed" ]]
}
