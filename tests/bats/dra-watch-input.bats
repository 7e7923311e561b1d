#!/usr/bin/env bats
# dra-watch without a server: kubeconfig and usage errors, unreachable
# servers, secrets kept out of messages, and replays of recorded events.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    W="$BATS_TEST_TMPDIR"
    REC="$DATA/watch/finished-pod.rec.jsonl"
    export HOME="$W/home"
    unset KUBECONFIG KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT
    cat >"$W/kc" <<KC
apiVersion: v1
kind: Config
current-context: t
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:1
users:
- name: u
  user:
    token: TOPSECRET-TOKEN-42
contexts:
- name: t
  context: {cluster: c, user: u}
KC
}

@test "dra-watch: no kubeconfig and not in a cluster is an input error" {
    run --separate-stderr "$DRA_BIN/dra-watch" get pods
    assert_failure 2
    [[ $stderr == *"no configuration has been provided"* ]]
}

@test "dra-watch: a missing --kubeconfig file or context is named" {
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/nope"
    assert_failure 2
    [[ $stderr == *"stat $W/nope: No such file or directory"* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/kc" --context other
    assert_failure 2
    [[ $stderr == *'context "other" does not exist'* ]]
    sed '/^current-context:/d' "$W/kc" >"$W/nocur"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/nocur"
    assert_failure 2
    [[ $stderr == *"no current context is set in $W/nocur (see --context: the kubeconfig context to use)"* ]]
}

@test "dra-watch: a broken kubeconfig names the file and the problem" {
    printf 'clusters: [{name: c, cluster: {server: "https://x", insecure-skip-tls-verify: true, certificate-authority-data: aGk=}}]\ncontexts: [{name: a, context: {cluster: c}}]\ncurrent-context: a\n' >"$W/bad"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/bad"
    assert_failure 2
    [[ $stderr == *"specifying a root certificates file with the insecure flag is not allowed"* ]]
    printf 'clusters: [' >"$W/broken"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --kubeconfig "$W/broken"
    assert_failure 2
    [[ $stderr == *"$W/broken"* ]]
}

@test "dra-watch: an unknown kind is a usage error before any request" {
    run --separate-stderr "$DRA_BIN/dra-watch" get deployments --kubeconfig "$W/kc"
    assert_failure 2
    [[ $stderr == *'the server doesn'"'"'t have a resource type "deployments"'* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" get --kubeconfig "$W/kc"
    assert_failure 2
}

@test "dra-watch: an unreachable server is a runtime error and the token never shows" {
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -v -v --kubeconfig "$W/kc"
    assert_failure 3
    [[ $stderr == *"The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"* ]]
    [[ $stderr != *TOPSECRET* && $output != *TOPSECRET* ]]
}

@test "dra-watch run: usage errors" {
    run --separate-stderr "$DRA_BIN/dra-watch" run --kubeconfig "$W/kc"
    assert_failure 2
    [[ $stderr == *"run needs --job claims|evict, --job node --node NAME, or '-- PIPELINE'"* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" run --interval 5x --job claims --kubeconfig "$W/kc"
    assert_failure 2
    [[ $stderr == *'--interval: invalid duration "5x"'* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" run --job bogus --kubeconfig "$W/kc"
    assert_failure 2
    [[ $stderr == *'--job: unknown job "bogus"'* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" run --job claims extra --kubeconfig "$W/kc"
    assert_failure 2
}

@test "dra-watch get -w --replay prints the recorded events of the asked kinds" {
    run --separate-stderr "$DRA_BIN/dra-watch" get pods,resourceclaims -w --replay "$REC" --replay-fast -A
    assert_success
    assert_equal "${#lines[@]}" 2
    assert_equal "$(jq -r '.type + " " + .object.kind' <<<"${lines[0]}")" "ADDED Pod"
    run --separate-stderr "$DRA_BIN/dra-watch" get nodes -w --replay "$REC" --replay-fast
    assert_success
    assert_output ""
}

@test "dra-watch run --replay --job claims: the patch list of one pass, nothing written" {
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims --replay "$REC" --replay-fast
    assert_success
    assert_equal "${#lines[@]}" 3
    assert_equal "$(jq -c '[.verb, .subresource]' <<<"${lines[0]}")" '["patch","status"]'
    assert_equal "$(jq -c '[.verb, .body[-1]]' <<<"${lines[1]}")" '["patch",{"op":"remove","path":"/metadata/finalizers/0"}]'
    assert_equal "$(jq -c '[.verb, .body.preconditions.uid]' <<<"${lines[2]}")" '["delete","9b2e6f10-0000-4000-8000-00000000c001"]'
}

@test "dra-watch run --replay with a pipeline: its verdict and its failures" {
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --replay "$REC" --replay-fast -- 'wc -l >&2; exit 1'
    assert_failure 1
    [[ $stderr == *3* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --replay "$REC" --replay-fast -- 'echo "{\"verb\":\"patch\"}"; exit 3'
    assert_failure 3
    [[ $stderr == *"pipeline failed with exit code 3; nothing written"* ]]
    assert_output ""
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --replay "$REC" --replay-fast -- 'echo not-json'
    assert_failure 3
    [[ $stderr == *"pipeline:1: document is a string; expected an object or a List"* ]]
}

@test "dra-watch: a broken recording names the file and line" {
    printf '{"time":"2026-03-01T10:00:00Z","type":"ADDED","object":{"kind":"Pod"}}\n{"type":"ADDED"}\n' >"$W/bad.rec"
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -w --replay "$W/bad.rec" --replay-fast -A
    assert_failure 2
    [[ $stderr == *"$W/bad.rec:2:"*"not a recorded watch event"* ]]
}
