#!/usr/bin/env bats
# dra-prepare plugins | probe | health against an independent Python grpcio
# driver (tests/peers/fake_driver.py), and the Python grpcio client against
# our reference driver (dra-example-driver): interop both ways.
load helpers
load rpc-helpers

setup_file() { rpc_setup_file; }
setup() { rpc_setup; }
teardown() { rpc_teardown; }

@test "probe: a Python grpcio driver passes every check" {
    start_py
    run "$DRA_BIN/dra-prepare" probe --socket "$T/dra.sock" --reg-socket "$T/reg/py-reg.sock" --count 3
    assert_success
    assert_line --regexp '^registration +pass +gpu.example.com'
    assert_line --regexp '^services +pass +answers v1.DRAPlugin, v1beta1.DRAPlugin'
    assert_line --regexp '^prepare-again +pass'
    assert_line --regexp '^unprepare-again +pass'
    refute_line --regexp ' fail '
    # the claim went over the wire as we sent it
    run grep -c '"namespace": "default", "uid": "dra-probe-00000000-0000-4000-8000-000000000001", "name": "dra-probe"' "$T/calls.log"
    assert_output --regexp '^[0-9]+$'
}

@test "probe: --claim, --service v1beta1.DRAPlugin and -o json" {
    start_py
    f=$(claim_file gpu-claim 6f1e8b7a-0000-4000-8000-00000000abcd)
    run "$DRA_BIN/dra-prepare" probe --socket "$T/dra.sock" --service v1beta1.DRAPlugin --claim "$f" --count 1 -o json
    assert_success
    assert_output --partial '"kind": "ProbeReport"'
    assert_output --partial '"service": "v1beta1.DRAPlugin"'
    assert_output --partial '"passed": true'
    run grep -c 'k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin", "method": "NodePrepareResources", "claims": \[{"namespace": "ns1", "uid": "6f1e8b7a-0000-4000-8000-00000000abcd", "name": "gpu-claim"' "$T/calls.log"
    refute_output 0
}

@test "plugins: lists the registered driver and notifies it" {
    start_py
    run "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/reg" --notify
    assert_success
    assert_line --index 0 --regexp '^DRIVER +ENDPOINT +SERVICE +VERSIONS +STATUS +REGISTRATION$'
    assert_line --index 1 --regexp "^gpu.example.com +$T/dra.sock +v1.DRAPlugin +v1.DRAPlugin,v1beta1.DRAPlugin +reachable +$T/reg/py-reg.sock$"
    run grep '"NotifyRegistrationStatus", "registered": true, "error": ""' "$T/calls.log"
    assert_success
    run "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/reg" -o jsonl
    assert_success
    assert_output --partial '"service":"v1.DRAPlugin","registered":true,"reachable":true'
}

@test "plugins: the plugin's own order picks v1beta1 first" {
    start_py --services v1beta1.DRAPlugin,v1.DRAPlugin
    run "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/reg" -o jsonl
    assert_success
    assert_output --partial '"service":"v1beta1.DRAPlugin"'
}

@test "plugins: a wrong plugin type is rejected with the kubelet's message" {
    start_py --type CSIPlugin
    run "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/reg" --notify
    assert_failure 1
    assert_output --partial "RegisterPlugin error -- no handler registered for plugin type: CSIPlugin at socket $T/reg/py-reg.sock"
    assert_output --regexp 'rejected'
    run grep '"registered": false, "error": "RegisterPlugin error -- no handler registered for plugin type: CSIPlugin' "$T/calls.log"
    assert_success
}

@test "plugins: no supported service, or none at all" {
    start_py --services v1alpha3.Node,v1alpha1.DRAResourceHealth
    run "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/reg"
    assert_failure 1
    assert_output --partial "RegisterPlugin error -- plugin validation failed with err: invalid supported gRPC versions of DRA driver plugin gpu.example.com at endpoint $T/dra.sock: none of services supported by the plugin ([\"v1alpha3.Node\" \"v1alpha1.DRAResourceHealth\"]) are supported by the kubelet ([\"v1.DRAPlugin\" \"v1beta1.DRAPlugin\"])"
    kill "$PY_PID"; wait "$PY_PID" || true
    start_py --services ""
    run "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/reg"
    assert_failure 1
    assert_output --partial "empty list of supported gRPC services (aka supported versions)"
}

@test "plugins: an endpoint nobody listens on is unreachable" {
    start_py --endpoint "$T/nowhere.sock"
    run "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/reg"
    assert_failure 1
    assert_output --regexp "gpu.example.com +$T/nowhere.sock +v1.DRAPlugin .* unreachable"
    assert_output --partial "DRA driver gpu.example.com plugin at endpoint $T/nowhere.sock is not reachable: UNAVAILABLE"
}

@test "plugins: a second instance may not take over the first one's endpoint; on its own endpoint it is kept" {
    start_py
    "$PY" "$PEERS/fake_driver.py" --socket "$T/dra2.sock" --reg-socket "$T/reg/py2-reg.sock" --endpoint "$T/dra.sock" \
        --log "$T/calls2.log" >"$T/py2.out" 2>&1 &
    PIDS+=($!)
    wait_until grep -q ready "$T/py2.out"
    run "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/reg" --notify
    assert_failure 1
    assert_output --partial "RegisterPlugin error -- plugin registration failed with err: endpoint $T/dra.sock already registered for DRA driver plugin gpu.example.com"
    run grep '"registered": false, "error": "RegisterPlugin error -- plugin registration failed' "$T/calls2.log"
    assert_success
    # a rolling update: the new instance listens on its own endpoint, both count
    "$PY" "$PEERS/fake_driver.py" --socket "$T/dra3.sock" --reg-socket "$T/reg/py3-reg.sock" \
        >"$T/py3.out" 2>&1 &
    PIDS+=($!)
    wait_until grep -q ready "$T/py3.out"
    rm "$T/reg/py2-reg.sock"
    run "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/reg" -o jsonl
    assert_success
    assert_equal "$(grep -c '"registered":true' <<<"$output")" 2
}

@test "plugins: a missing registry directory is an input error; an empty one lists nothing" {
    run "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/none"
    assert_failure 2
    assert_output --partial "registry directory $T/none"
    run "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/reg" -o json
    assert_success
}

@test "health: JSON Lines of changes from a Python grpcio stream" {
    echo '[{"pool":"p","device":"gpu-0","health":"Healthy"},{"pool":"p","device":"gpu-1","health":"Healthy"}]' >"$T/h.json"
    start_py --health-file "$T/h.json"
    "$DRA_BIN/dra-prepare" health --socket "$T/dra.sock" >"$T/health.out" 2>"$T/health.err" &
    H=$!
    PIDS+=("$H")
    wait_until has_lines "$T/health.out" 2
    echo '[{"pool":"p","device":"gpu-0","health":"Healthy"},{"pool":"p","device":"gpu-1","health":"Unhealthy","lastUpdated":1700000100}]' >"$T/h.json"
    kill -USR1 "$PY_PID"
    wait_until has_lines "$T/health.out" 3
    kill -TERM "$H"
    reap "$H"
    assert_equal "$rc" 0
    run cat "$T/health.out"
    assert_line --index 0 '{"pool":"p","device":"gpu-0","health":"Healthy","lastUpdated":1700000000}'
    assert_line --index 1 '{"pool":"p","device":"gpu-1","health":"Healthy","lastUpdated":1700000000}'
    assert_line --index 2 '{"pool":"p","device":"gpu-1","health":"Unhealthy","lastUpdated":1700000100}'
    assert_equal "${#lines[@]}" 3
}

@test "Python grpcio client -> dra-example-driver: registration, v1 and v1beta1" {
    start_driver --devices 4
    run "$PY" "$PEERS/client.py" --socket "$T/reg/gpu.example.com-reg.sock" info
    assert_success
    assert_output "{\"type\": \"DRAPlugin\", \"name\": \"gpu.example.com\", \"endpoint\": \"$T/p/dra.sock\", \"supportedVersions\": [\"v1.DRAPlugin\", \"v1beta1.DRAPlugin\", \"v1.DRAResourceHealth\", \"v1alpha1.DRAResourceHealth\"]}"
    run "$PY" "$PEERS/client.py" --socket "$T/reg/gpu.example.com-reg.sock" notify
    assert_success
    for svc in v1.DRAPlugin v1beta1.DRAPlugin; do
        run "$PY" "$PEERS/client.py" --socket "$T/p/dra.sock" --service $svc prepare ns1/a/uid-a ns1/b/uid-b
        assert_success
        assert_output '{"uid-a": {"devices": [{"cdiDeviceIDs": ["k8s.gpu.example.com/gpu=common", "k8s.gpu.example.com/gpu=uid-a-gpu-3"], "device": "gpu-3", "pool": "node-1", "requests": []}], "error": ""}, "uid-b": {"devices": [{"cdiDeviceIDs": ["k8s.gpu.example.com/gpu=common", "k8s.gpu.example.com/gpu=uid-b-gpu-2"], "device": "gpu-2", "pool": "node-1", "requests": []}], "error": ""}}'
        assert_file_exists "$T/cdi/k8s.gpu.example.com-gpu_uid-a.yaml"
        run grep -c 'GPU_DEVICE_GPU_3_RESOURCE_CLAIM=uid-a' "$T/cdi/k8s.gpu.example.com-gpu_uid-a.yaml"
        assert_output 1
        run "$PY" "$PEERS/client.py" --socket "$T/p/dra.sock" --service $svc unprepare ns1/a/uid-a ns1/b/uid-b
        assert_success
        assert_output '{"uid-a": {"error": ""}, "uid-b": {"error": ""}}'
        assert_file_not_exists "$T/cdi/k8s.gpu.example.com-gpu_uid-a.yaml"
    done
}

@test "Python grpcio client -> dra-example-driver: the health stream, updated on SIGHUP" {
    start_driver --devices 2 --health-file "$T/h.json"
    "$PY" "$PEERS/client.py" --socket "$T/p/dra.sock" health --count 2 >"$T/stream.out" 2>"$T/stream.err" &
    C=$!
    PIDS+=("$C")
    wait_until test -s "$T/stream.out"
    echo '[{"device":"gpu-1","health":"Unhealthy","lastUpdated":1700000200}]' >"$T/h.json"
    kill -HUP "$DRV_PID"
    reap "$C"
    assert_equal "$rc" 0
    run cat "$T/stream.out"
    assert_line --index 0 '[{"pool": "node-1", "device": "gpu-0", "health": "HEALTHY", "lastUpdated": 0}, {"pool": "node-1", "device": "gpu-1", "health": "HEALTHY", "lastUpdated": 0}]'
    assert_line --index 1 '[{"pool": "node-1", "device": "gpu-0", "health": "HEALTHY", "lastUpdated": 0}, {"pool": "node-1", "device": "gpu-1", "health": "UNHEALTHY", "lastUpdated": 1700000200}]'
}

@test "dra-prepare probe and health against dra-example-driver" {
    start_driver --devices 2
    run "$DRA_BIN/dra-prepare" probe --socket "$T/p/dra.sock" --reg-socket "$T/reg/gpu.example.com-reg.sock" --count 2
    assert_success
    refute_line --regexp ' fail '
    "$DRA_BIN/dra-prepare" health --socket "$T/p/dra.sock" --service v1.DRAResourceHealth >"$T/health.out" &
    H=$!
    PIDS+=("$H")
    wait_until has_lines "$T/health.out" 2
    kill -INT "$H"
    reap "$H"
    assert_equal "$rc" 0
    run cat "$T/health.out"
    assert_line --index 0 '{"pool":"node-1","device":"gpu-0","health":"Healthy","lastUpdated":0}'
}

@test "dra-example-driver: SIGTERM stops it and removes its sockets" {
    start_driver
    test -S "$T/p/dra.sock"
    kill -TERM "$DRV_PID"
    reap "$DRV_PID"
    assert_equal "$rc" 0
    assert_file_not_exists "$T/p/dra.sock"
    assert_file_not_exists "$T/reg/gpu.example.com-reg.sock"
}

@test "dra-example-driver: the inventory goes through dra-slice build" {
    run bash -c "'$DRA_BIN/dra-example-driver' --devices 3 --inventory | '$DRA_BIN/dra-slice' build --driver gpu.example.com --node node-1 -o jsonl"
    assert_success
    assert_output --partial '"driver":"gpu.example.com"'
    assert_output --partial '"name":"gpu-2"'
}

@test "dra-example-driver: bad options are usage errors" {
    run "$DRA_BIN/dra-example-driver" --devices zero
    assert_failure 2
    assert_output --partial -- "--devices: must be an integer between 1 and 100000, not 'zero'"
    run "$DRA_BIN/dra-example-driver" --fail-claim nouid
    assert_failure 2
    assert_output --partial "want UID=MESSAGE"
    run "$DRA_BIN/dra-example-driver" --delay forever
    assert_failure 2
    run "$DRA_BIN/dra-example-driver" --registry-dir "$T/reg" --plugin-dir "/tmp/$(printf 'x%.0s' {1..120})"
    assert_failure 2
    assert_output --partial "longer than 107 bytes"
}

@test "dra-prepare probe/health: usage errors" {
    run "$DRA_BIN/dra-prepare" probe
    assert_failure 2
    assert_output --partial "probe needs --socket PATH"
    run "$DRA_BIN/dra-prepare" probe --socket x --timeout -1s
    assert_failure 2
    run "$DRA_BIN/dra-prepare" probe --socket x --service v2.DRAPlugin
    assert_failure 2
    run "$DRA_BIN/dra-prepare" health --socket x --service v9.Health
    assert_failure 2
    run "$DRA_BIN/dra-prepare" probe --socket x --claim "$T/missing.yaml"
    assert_failure 2
}

@test "dra-example-driver: --help, --version and the committed completions" {
    run "$DRA_BIN/dra-example-driver" --help
    assert_success
    assert_output --partial "Exit status"
    run "$DRA_BIN/dra-example-driver" --version
    assert_output --regexp '^dra-example-driver [0-9]+\.[0-9]+\.[0-9]+$'
    for sh in bash zsh fish; do
        case $sh in
        bash) f="$BATS_TEST_DIRNAME/../../completions/dra-example-driver.bash" ;;
        zsh) f="$BATS_TEST_DIRNAME/../../completions/_dra-example-driver" ;;
        fish) f="$BATS_TEST_DIRNAME/../../completions/dra-example-driver.fish" ;;
        esac
        run "$DRA_BIN/dra-example-driver" --completion "$sh"
        assert_success
        [[ $output == "$(cat "$f")" ]] || { echo "$f is stale: regenerate with 'dra-example-driver --completion $sh'"; false; }
    done
}
