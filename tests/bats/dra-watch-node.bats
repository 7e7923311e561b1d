#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-watch run --job node: the node agent.  The node's pods (watched by
# spec.nodeName, as the kubelet does) and their claims go to dra-prepare sync,
# which prepares them with dra-example-driver and unprepares those of pods
# gone or finished.
load helpers
load rpc-helpers

setup_file() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    apiserver_start "$BATS_FILE_TMPDIR/api" --bookmark-interval 1
}

teardown_file() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    apiserver_stop
}

setup() {
    source "${APISERVER_HELPERS:-$BATS_TEST_DIRNAME/../apiserver/helpers.bash}"
    rpc_setup
    watch_backoff 50 500
    apiserver_req POST /_test/reset '{"objects":true}' >/dev/null
    jq -s . "$DATA/watch/node-agent.jsonl" >"$T/load.json"
    apiserver_req POST /_test/objects "$(cat "$T/load.json")" >/dev/null
}

teardown() {
    [[ -z ${RUN_PID:-} ]] || { kill "$RUN_PID" 2>/dev/null; wait "$RUN_PID" 2>/dev/null; }
    rpc_teardown
}

node_job() { # [OPTIONS]: the node agent for node-1 against the example driver
    "$DRA_BIN/dra-watch" run --job node --node node-1 --socket "$T/p/dra.sock" --checkpoint "$T/state" "$@"
}

UID1=9b2e6f10-0000-4000-8000-00000000c001

@test "run --job node --once: prepares the claims of the node's pods, no other node's" {
    start_driver
    run --separate-stderr node_job --once --stats
    assert_success
    assert_equal "${#lines[@]}" 1
    assert_equal "$(jq -c '[.action, .namespace, .pod, .containers[0].container]' <<<"$output")" '["prepare","ml","trainer","main"]'
    [[ $(jq -r '.containers[0].cdiDevices[1]' <<<"$output") == "k8s.gpu.example.com/gpu=$UID1-gpu-"* ]]
    # the driver wrote the CDI spec; the checkpoint has the claim, not the other node's
    grep -q "$UID1" <<<"$(ls "$T/cdi")"
    grep -q "$UID1" "$T/state"
    refute grep -q 9b2e6f10-0000-4000-8000-00000000c002 "$T/state"
    [[ $stderr == *"writes=0"* ]]
    # prepared once: a second pass changes nothing and so reports nothing
    run --separate-stderr node_job --once
    assert_success
    assert_output ""
}

@test "run --job node --registry-dir: the driver found through its registration, as the kubelet does" {
    start_driver
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job node --node node-1 --registry-dir "$T/reg" \
        --checkpoint "$T/state"
    assert_success
    assert_equal "$(jq -c '[.action, .pod]' <<<"$output")" '["prepare","trainer"]'
    grep -q "$UID1" "$T/state"
}

@test "run --job node: the loop unprepares a finished pod and prepares a new one" {
    start_driver
    "$DRA_BIN/dra-watch" run --job node --node node-1 --socket "$T/p/dra.sock" --checkpoint "$T/state" \
        --debounce 100ms --interval 1h -v >"$T/out" 2>"$T/err" 3>&- &
    RUN_PID=$!
    wait_until has_lines "$T/out" 1
    assert_equal "$(jq -c '[.action, .pod]' <"$T/out")" '["prepare","trainer"]'
    # another node's claim changes: no pass
    apiserver_req PATCH /apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/elsewhere-gpu \
        '{"metadata":{"labels":{"touched":"yes"}}}' application/merge-patch+json >/dev/null
    # the pod finishes: its claim is unprepared
    apiserver_req PATCH /api/v1/namespaces/ml/pods/trainer/status '{"status":{"phase":"Succeeded"}}' \
        application/merge-patch+json >/dev/null
    wait_until grep -q '"action":"unprepare"' "$T/out"
    run jq -c 'select(.action == "unprepare") | [.claim, .uid]' "$T/out"
    assert_output "[\"trainer-gpu\",\"$UID1\"]"
    refute grep -q "$UID1" <<<"$(ls "$T/cdi")"
    # a new pod on the node with its claim
    jq -c 'select(.kind == "ResourceClaim" and .metadata.name == "trainer-gpu")
           | .metadata = {name: "web-gpu", namespace: "ml", uid: "9b2e6f10-0000-4000-8000-00000000c003"}
           | .status.reservedFor = [{resource: "pods", name: "web", uid: "3f0a9c1e-0000-4000-8000-00000000a003"}]' \
        "$DATA/watch/node-agent.jsonl" >"$T/claim.json"
    jq -c 'select(.kind == "Pod" and .metadata.name == "trainer")
           | .metadata = {name: "web", namespace: "ml", uid: "3f0a9c1e-0000-4000-8000-00000000a003"}
           | .spec.resourceClaims[0].resourceClaimName = "web-gpu"' \
        "$DATA/watch/node-agent.jsonl" >"$T/pod.json"
    apiserver_req POST /_test/objects "[$(cat "$T/claim.json"),$(cat "$T/pod.json")]" >/dev/null
    wait_until grep -q '"pod":"web"' "$T/out"
    run jq -r 'select(.pod == "web") | .containers[0].cdiDevices[1]' "$T/out"
    [[ $output == "k8s.gpu.example.com/gpu=9b2e6f10-0000-4000-8000-00000000c003-gpu-"* ]]
    kill -TERM "$RUN_PID"
    reap "$RUN_PID"
    RUN_PID=
    assert_equal "$rc" 0
    # three passes: start, the finished pod, the new pod (the other node's claim woke nothing)
    run grep -c '"action":"prepare","namespace":"ml","pod":"trainer"' "$T/out"
    assert_output 1
    [[ $(grep -c 'exit code' "$T/err" || true) -eq 0 ]]
}

@test "run --job node: a driver that is not there fails the pass (exit 3), naming the socket" {
    run --separate-stderr node_job --once
    assert_failure 3
    [[ $stderr == *"$T/p/dra.sock"* ]]
    [[ $stderr == *"dra-prepare sync failed with exit code 3"* ]]
}

@test "run --job node: usage errors" {
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job node --socket "$T/p/dra.sock"
    assert_failure 2
    [[ $stderr == *"--job node needs --node NAME"* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job node --node node-1
    assert_failure 2
    [[ $stderr == *"--job node needs --socket PATH"* ]]
    run --separate-stderr node_job --once --dry-run
    assert_failure 2
    [[ $stderr == *"it has no --dry-run"* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims --node node-1
    assert_failure 2
    [[ $stderr == *"--node, --socket, --registry-dir, --plugins-dir and --checkpoint belong to --job node"* ]]
    run --separate-stderr node_job --once extra
    assert_failure 2
    [[ $stderr == *"--job node takes no pipeline"* ]]
    [[ ! -e $T/state ]]
}
