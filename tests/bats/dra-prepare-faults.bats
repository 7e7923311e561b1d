#!/usr/bin/env bats
# Transport faults: what dra-prepare says when a driver is absent, stale,
# slow, wrong or huge.  Transport failures exit 3 with a message naming the
# socket and the gRPC status; wrong answers fail the probe's checks (exit 1)
# with the kubelet's wording.
load helpers
load rpc-helpers

setup_file() { rpc_setup_file; }
setup() { rpc_setup; }
teardown() { rpc_teardown; }

@test "faults: no driver listening (no socket file)" {
    run "$DRA_BIN/dra-prepare" probe --socket "$T/dra.sock"
    assert_failure 3
    assert_output --partial "dra-prepare: probe: NodePrepareResources $T/dra.sock: UNAVAILABLE: connection error: desc = \"transport: Error while dialing: dial unix $T/dra.sock: connect: no such file or directory\""
    assert_line --regexp '^connect +fail'
}

@test "faults: a stale socket file (driver killed with SIGKILL)" {
    start_driver
    kill -9 "$DRV_PID"
    wait "$DRV_PID" || true
    test -S "$T/p/dra.sock"
    run "$DRA_BIN/dra-prepare" probe --socket "$T/p/dra.sock"
    assert_failure 3
    assert_output --partial "connect: connection refused"
    run "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/reg"
    assert_failure 1
    assert_output --partial "RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket $T/reg/gpu.example.com-reg.sock, err: rpc error: UNAVAILABLE"
}

@test "faults: the driver is killed and restarted between calls" {
    start_driver
    run "$DRA_BIN/dra-prepare" probe --socket "$T/p/dra.sock" --count 1
    assert_success
    kill -9 "$DRV_PID"
    wait "$DRV_PID" || true
    run "$DRA_BIN/dra-prepare" probe --socket "$T/p/dra.sock" --count 1
    assert_failure 3
    start_driver # replaces the stale socket
    run "$DRA_BIN/dra-prepare" probe --socket "$T/p/dra.sock" --count 1
    assert_success
}

@test "faults: health reconnects with backoff when the driver restarts" {
    start_driver --devices 1 --health-file "$T/h.json"
    "$DRA_BIN/dra-prepare" health --socket "$T/p/dra.sock" --backoff 50ms -v >"$T/health.out" 2>"$T/health.err" &
    H=$!
    PIDS+=("$H")
    wait_until has_lines "$T/health.out" 1
    kill -TERM "$DRV_PID"
    wait "$DRV_PID" || true
    wait_until grep -q "reconnecting in" "$T/health.err"
    echo '[{"device":"gpu-0","health":"Unhealthy","message":"ECC errors"}]' >"$T/h.json"
    start_driver --devices 1 --health-file "$T/h.json"
    wait_until has_lines "$T/health.out" 2
    kill -TERM "$H"
    reap "$H"
    assert_equal "$rc" 0
    run cat "$T/health.out"
    assert_line --index 0 '{"pool":"node-1","device":"gpu-0","health":"Healthy","lastUpdated":0}'
    assert_line --index 1 '{"pool":"node-1","device":"gpu-0","health":"Unhealthy","lastUpdated":0,"message":"ECC errors"}'
    run cat "$T/health.err"
    assert_output --partial "dra-prepare: health: stream ended: "
}

@test "faults: health gives up after --max-retries with exit 3" {
    run "$DRA_BIN/dra-prepare" health --socket "$T/none.sock" --backoff 10ms --max-retries 2
    assert_failure 3
    assert_output --partial "NodeWatchResources $T/none.sock: UNAVAILABLE"
}

@test "faults: a slow driver past the deadline (--timeout)" {
    start_driver --delay 3s
    run "$DRA_BIN/dra-prepare" probe --socket "$T/p/dra.sock" --timeout 200ms
    assert_failure 3
    assert_output --partial "DEADLINE_EXCEEDED: context deadline exceeded (no answer within 200 ms)"
    start_py --delay 3
    run "$DRA_BIN/dra-prepare" probe --socket "$T/dra.sock" --timeout 300ms
    assert_failure 3
    assert_output --partial "NodePrepareResources $T/dra.sock: DEADLINE_EXCEEDED"
}

@test "faults: per-claim error strings" {
    f=$(claim_file c1 uid-c1)
    start_driver --fail-claim "uid-c1=no free GPU on this node"
    run "$DRA_BIN/dra-prepare" probe --socket "$T/p/dra.sock" --claim "$f"
    assert_failure 1
    assert_line --regexp '^prepare +fail +NodePrepareResources failed for ResourceClaim c1: no free GPU on this node$'
    start_py --fail-claim "uid-c1=driver says: 100% busy"
    run "$DRA_BIN/dra-prepare" probe --socket "$T/dra.sock" --claim "$f"
    assert_failure 1
    assert_output --partial "NodePrepareResources failed for ResourceClaim c1: driver says: 100% busy"
}

@test "faults: a claim missing from the answer" {
    f=$(claim_file c1 uid-c1)
    start_driver --omit-claim uid-c1
    run "$DRA_BIN/dra-prepare" probe --socket "$T/p/dra.sock" --claim "$f"
    assert_failure 1
    assert_output --partial "the answer has no entry for claim UID uid-c1 (NodePrepareResources skipped 1 ResourceClaims)"
    assert_line --regexp '^unprepare +fail +the answer has no entry for claim UID uid-c1'
}

@test "faults: an unknown claim UID in the answer" {
    start_py --extra-claim uid-nobody-asked
    run "$DRA_BIN/dra-prepare" probe --socket "$T/dra.sock"
    assert_failure 1
    assert_line --regexp '^answer-claims +fail +NodePrepareResources returned result for unknown claim UID uid-nobody-asked$'
}

@test "faults: a gRPC error status from the driver" {
    start_py --abort "9=claim default/x refused"
    run "$DRA_BIN/dra-prepare" probe --socket "$T/dra.sock"
    assert_failure 3
    assert_output --partial "FAILED_PRECONDITION: claim default/x refused"
}

@test "faults: a garbage frame and a garbage message" {
    start_driver --garbage-frame
    run "$DRA_BIN/dra-prepare" probe --socket "$T/p/dra.sock"
    assert_failure 3
    assert_output --partial "INTERNAL: grpc: truncated message (3 of 4096 bytes before the end of the stream)"
    start_py --garbage
    run "$DRA_BIN/dra-prepare" probe --socket "$T/dra.sock"
    assert_failure 3
    assert_output --partial "NodePrepareResources $T/dra.sock: INTERNAL: the answer (17 bytes) is not a valid NodePrepareResourcesResponse"
}

@test "faults: a 5 MB answer is over the 4 MiB cap, unless raised" {
    start_py --huge 5000000
    run "$DRA_BIN/dra-prepare" probe --socket "$T/dra.sock" --count 1
    assert_failure 3
    assert_output --regexp 'RESOURCE_EXHAUSTED: grpc: received message larger than max \([0-9]{7} vs. 4194304\)'
    run "$DRA_BIN/dra-prepare" probe --socket "$T/dra.sock" --count 1 --max-msg-size 16777216
    assert_success
    assert_line --regexp '^answer-size +pass +[0-9]{7} bytes for one claim \(limit 16777216\)$'
}

@test "faults: a 5 MB request to dra-example-driver is refused, the driver keeps serving" {
    start_driver
    run "$PY" "$PEERS/client.py" --socket "$T/p/dra.sock" prepare --pad 5000000
    assert_failure 3
    assert_output --regexp 'RESOURCE_EXHAUSTED: grpc: received message larger than max \([0-9]{7} vs. 4194304\)'
    run "$PY" "$PEERS/client.py" --socket "$T/p/dra.sock" prepare ns/a/uid-a
    assert_success
    start_driver --pad-answer 5000000
    run "$PY" "$PEERS/client.py" --socket "$T/p/dra.sock" prepare ns/a/uid-a
    assert_failure 3
    assert_output --partial "RESOURCE_EXHAUSTED"
}

@test "faults: health against a driver without the health service stops at once" {
    start_py
    run "$DRA_BIN/dra-prepare" health --socket "$T/dra.sock" --service v1.DRAResourceHealth
    assert_failure 3
    assert_output --partial "NodeWatchResources $T/dra.sock: UNIMPLEMENTED"
    assert_output --partial "(the driver does not serve v1.DRAResourceHealth)"
}
