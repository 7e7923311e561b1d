#!/usr/bin/env bats
# Files the tools write are created or replaced atomically and never through
# a symbolic link planted at the file's name, a temporary name or a lock:
# dra-prepare's checkpoint, dra-example-driver's CDI specs, checkpoint and
# sockets, dra-watch's recordings.  The example driver's unprepare removes
# exactly the spec files its checkpoint says it wrote.
bats_require_minimum_version 1.5.0
load helpers
load rpc-helpers

setup_file() { rpc_setup_file; }
setup() {
    rpc_setup
    CK=$T/state
    printf 'precious\n' >"$T/victim"
    chmod 0644 "$T/victim"
}
teardown() {
    [[ -n ${APISERVER_PID:-} ]] && apiserver_stop
    rpc_teardown
}

# the test API server, for dra-watch record (stopped in teardown)
with_apiserver() {
    source "$BATS_TEST_DIRNAME/../apiserver/helpers.bash"
    apiserver_start "$T/api"
    apiserver_req POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns1"}}' >/dev/null
}

# the planted link's target kept its bytes and mode
victim_untouched() {
    [[ $(cat "$T/victim") == precious && $(stat -c %a "$T/victim") == 644 ]]
}

# a pod on node-1 with one claim allocated to gpu.example.com
snapshot() { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; }

@test "dra-prepare: a link at the checkpoint's old temporary name is not written through" {
    start_driver
    snapshot >"$T/snap.yaml"
    ln -s "$T/victim" "$CK.tmp"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    victim_untouched
    [[ -f $CK && ! -L $CK && $(stat -c %a "$CK") == 600 ]]
    grep -q '"ClaimUID\\":\\"c-p1\\"' "$CK"
    # no temporary file is left beside the checkpoint
    run bash -c "ls -A '$T' | grep -c '^\.state\.'"
    assert_output 0
}

@test "dra-prepare: a link at the checkpoint is replaced, its target untouched" {
    start_driver
    snapshot >"$T/snap.yaml"
    ln -s "$T/elsewhere" "$CK"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    [[ -f $CK && ! -L $CK ]]
    assert_file_not_exists "$T/elsewhere"
}

@test "dra-prepare: a link at the checkpoint lock is refused (exit 3), its target untouched" {
    start_driver
    snapshot >"$T/snap.yaml"
    ln -s "$T/victim" "$CK.lock"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_failure 3
    [[ $stderr == *"checkpoint lock $CK.lock is a symbolic link, which is not followed"* ]]
    assert_output ''
    victim_untouched
    assert_file_not_exists "$CK"
    # a dangling link: its target is not created
    rm "$CK.lock"
    ln -s "$T/made" "$CK.lock"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_failure 3
    assert_file_not_exists "$T/made"
}

# client.py against the example driver: prepare|unprepare NS/NAME/UID...
drv_call() {
    "$PY" "$PEERS/client.py" --socket "$T/p/dra.sock" "$@"
}

@test "dra-example-driver: unprepare of claim a leaves claim a-b's spec" {
    start_driver --devices 1
    run drv_call prepare ns1/a/a ns1/ab/a-b
    assert_success
    assert_output --partial '"k8s.gpu.example.com/gpu=a-gpu-0"'
    assert_output --partial '"k8s.gpu.example.com/gpu=a-b-gpu-0"'
    assert_file_exists "$T/cdi/k8s.gpu.example.com-gpu_a.yaml"
    assert_file_exists "$T/cdi/k8s.gpu.example.com-gpu_a-b.yaml"
    run drv_call unprepare ns1/a/a
    assert_success
    assert_output '{"a": {"error": ""}}'
    assert_file_not_exists "$T/cdi/k8s.gpu.example.com-gpu_a.yaml"
    assert_file_exists "$T/cdi/k8s.gpu.example.com-gpu_a-b.yaml"
    run drv_call unprepare ns1/ab/a-b
    assert_success
    assert_file_not_exists "$T/cdi/k8s.gpu.example.com-gpu_a-b.yaml"
}

@test "dra-example-driver: unprepare removes only the files its checkpoint records" {
    start_driver --devices 1
    run drv_call prepare ns1/a/a
    assert_success
    # the record: the claim, its device and the spec file written
    run jq -r '.Data | fromjson | .Entries[] | [.ClaimUID, .Namespace, .ClaimName, (.DriverState["gpu.example.com"].CDISpecFiles | join(","))] | join(" ")' "$T/p/checkpoint.json"
    assert_output "a ns1 a $T/cdi/k8s.gpu.example.com-gpu_a.yaml"
    # a spec the driver never wrote for a claim it never prepared stays
    echo '{}' >"$T/cdi/k8s.gpu.example.com-gpu_z.yaml"
    run drv_call unprepare ns1/z/z ns1/a/a
    assert_success
    assert_output '{"a": {"error": ""}, "z": {"error": ""}}'
    assert_file_exists "$T/cdi/k8s.gpu.example.com-gpu_z.yaml"
    assert_file_not_exists "$T/cdi/k8s.gpu.example.com-gpu_a.yaml"
    run jq -c '.Data | fromjson | .Entries' "$T/p/checkpoint.json"
    assert_output '[]'
}

@test "dra-example-driver: links at a CDI spec's name and its old temporary name are not written through" {
    start_driver --devices 1
    ln -s "$T/victim" "$T/cdi/k8s.gpu.example.com-gpu_a.yaml"
    ln -s "$T/victim" "$T/cdi/k8s.gpu.example.com-gpu_b.yaml.tmp.$DRV_PID"
    run drv_call prepare ns1/a/a ns1/b/b
    assert_success
    victim_untouched
    for u in a b; do
        f=$T/cdi/k8s.gpu.example.com-gpu_$u.yaml
        [[ -f $f && ! -L $f ]]
        grep -q "GPU_DEVICE_GPU_0_RESOURCE_CLAIM=$u" "$f"
    done
}

@test "dra-example-driver: a damaged checkpoint stops it at start (exit 3); a reused name is refused" {
    mkdir -p "$T/p"
    echo '{"Data":"{}","Checksum":1}' >"$T/p/checkpoint.json"
    run --separate-stderr "$DRA_BIN/dra-example-driver" --plugin-dir "$T/p" --registry-dir "$T/reg" --cdi-dir "$T/cdi"
    assert_failure 3
    [[ $stderr == *"$T/p/checkpoint.json"*"checkpoint is corrupt"* ]]
    assert_file_not_exists "$T/p/dra.sock"
    rm "$T/p/checkpoint.json"
    start_driver --devices 1
    run drv_call prepare ns1/c/u1
    assert_success
    # the same namespace/name with another UID while the first is recorded
    run drv_call prepare ns1/c/u2
    assert_success
    assert_output '{"u2": {"devices": [], "error": "old ResourceClaim with same name c and different UID u1 still exists"}}'
    assert_file_not_exists "$T/cdi/k8s.gpu.example.com-gpu_u2.yaml"
    run drv_call unprepare ns1/c/u1
    run drv_call prepare ns1/c/u2
    assert_output --partial '"error": ""'
}

@test "dra-watch record: a link at the recording's name is replaced, its target untouched" {
    with_apiserver
    ln -s "$T/victim" "$T/rec.jsonl"
    run --separate-stderr "$DRA_BIN/dra-watch" record --max-events 1 "$T/rec.jsonl"
    assert_success
    victim_untouched
    [[ -f $T/rec.jsonl && ! -L $T/rec.jsonl ]]
    run jq -r '.type + " " + .object.kind' "$T/rec.jsonl"
    assert_output 'ADDED Namespace'
    # a dangling link: its target is not created
    rm "$T/rec.jsonl"
    ln -s "$T/made" "$T/rec.jsonl"
    run --separate-stderr "$DRA_BIN/dra-watch" record --max-events 1 "$T/rec.jsonl"
    assert_success
    assert_file_not_exists "$T/made"
    [[ -f $T/rec.jsonl && ! -L $T/rec.jsonl ]]
    # a directory or a device is not replaced
    run --separate-stderr "$DRA_BIN/dra-watch" record --max-events 1 "$T"
    assert_failure 3
    [[ $stderr == *"cannot replace $T: it is a directory, not a regular file"* ]]
    run bash -c "ls -A '$T' | grep -c '^\\.rec\\.jsonl\\.'"
    assert_output 0
}

@test "dra-watch record: a server that cannot be listed leaves the file as it was" {
    with_apiserver
    echo old >"$T/rec.jsonl"
    # the server gone: discovery fails before any event
    apiserver_stop
    unset APISERVER_PID
    run --separate-stderr "$DRA_BIN/dra-watch" record --max-events 1 "$T/rec.jsonl"
    assert_failure 3
    [[ $(cat "$T/rec.jsonl") == old ]]
    run bash -c "ls -A '$T' | grep -c '^\\.rec\\.jsonl\\.'"
    assert_output 0
}

@test "dra-watch record: the recording grows as events come and is kept on SIGINT" {
    with_apiserver
    "$DRA_BIN/dra-watch" record "$T/live.jsonl" 2>"$T/rec.err" &
    R=$!
    PIDS+=("$R")
    # followed as it is written (tail -f), under its own name
    wait_until bash -c "grep -q Namespace '$T/live.jsonl' 2>/dev/null"
    kill -INT "$R"
    reap "$R"
    assert_equal "$rc" 0
    run jq -r '.object.metadata.name' "$T/live.jsonl"
    assert_line ns1
    run bash -c "ls -A '$T' | grep -c '^\\.live\\.jsonl\\.'"
    assert_output 0
}

@test "dra-example-driver: a link at a socket's name or its checkpoint lock stops it at start (exit 3)" {
    mkdir -p "$T/p"
    for f in p/dra.sock reg/gpu.example.com-reg.sock p/checkpoint.json.lock; do
        rm -f "$T/$f"
        ln -s "$T/victim" "$T/$f"
        run --separate-stderr "$DRA_BIN/dra-example-driver" --plugin-dir "$T/p" --registry-dir "$T/reg" --cdi-dir "$T/cdi"
        assert_failure 3
        case $f in
        *.lock) [[ $stderr == *"checkpoint lock $T/$f is a symbolic link, which is not followed"* ]] ;;
        *) [[ $stderr == *"$T/$f exists and is not a socket"* ]] ;;
        esac
        victim_untouched
        [[ -L $T/$f ]]
        rm "$T/$f"
        assert_file_not_exists "$T/p/dra.sock"
    done
}

@test "dra-example-driver: on stop it removes its own sockets, not what replaced them" {
    start_driver
    rm "$T/p/dra.sock"
    echo mine >"$T/p/dra.sock"
    kill -TERM "$DRV_PID"
    reap "$DRV_PID"
    assert_equal "$rc" 0
    [[ $(cat "$T/p/dra.sock") == mine ]]
    assert_file_not_exists "$T/reg/gpu.example.com-reg.sock"
}

@test "dra-example-driver: a signal as soon as its socket exists is handled, the sockets removed" {
    # the handlers are set before the sockets are made: SIGHUP reloads,
    # SIGTERM stops cleanly (exit 0) and the sockets go with it
    for i in $(seq 10); do
        rm -rf "$T/s$i"
        "$DRA_BIN/dra-example-driver" --plugin-dir "$T/s$i/p" --registry-dir "$T/s$i/r" --cdi-dir "$T/s$i/c" 2>"$T/s$i.err" &
        local pid=$!
        until [[ -S $T/s$i/p/dra.sock ]]; do :; done
        kill -HUP "$pid"
        kill -TERM "$pid"
        local rc=0
        wait "$pid" || rc=$?
        assert_equal "$rc" 0
        assert_file_not_exists "$T/s$i/p/dra.sock"
    done
}
