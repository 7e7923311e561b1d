#!/usr/bin/env bats
# dra-watch run --feature-gates: the gates a cluster runs with reach the
# --job's tools (1.36's DeviceTaintRules are off unless the cluster turns
# DRADeviceTaintRules on).
bats_require_minimum_version 1.5.0
load helpers

setup() {
    D="$DATA/evict"
    { yq -c . "$D/slices.yaml"; yq -c . "$D/rules-v1beta2.yaml"; jq -c '.items[]' "$D/claims-pods.json"; } |
        jq -c '{time: "2026-03-01T10:00:00Z", type: "ADDED", object: .}' >"$BATS_TEST_TMPDIR/ev.rec"
}

# rules: the rules whose status the evict job's pass applies
rules() {
    jq -r 'select(.kind == "DeviceTaintRule") | .name' <<<"$output" | sort | tr '\n' ' '
}

@test "run --job evict at 1.36: the rules get no status unless DRADeviceTaintRules is on" {
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job evict --kubernetes-version 1.36 \
        --now 2026-03-01T10:05:00Z --replay "$BATS_TEST_TMPDIR/ev.rec" --replay-fast
    assert_success
    assert_equal "$(rules)" ""
    [[ $stderr == *"DRADeviceTaintRules is disabled"* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job evict --kubernetes-version 1.36 \
        --feature-gates DRADeviceTaintRules=true --now 2026-03-01T10:05:00Z --replay "$BATS_TEST_TMPDIR/ev.rec" --replay-fast
    assert_success
    assert_equal "$(rules)" "maintenance-node-b what-if-all-gpus "
    [[ $stderr != *"DRADeviceTaintRules is disabled"* ]]
    # the pod on node-b is evicted by the rule
    assert_equal "$(jq -r 'select(.verb == "delete") | .name' <<<"$output" | sort | tr '\n' ' ')" "a b d "
}

@test "run --feature-gates: a gate the release does not know fails the pass with the tool's message" {
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job evict --kubernetes-version 1.36 \
        --feature-gates NoSuchGate=true --now 2026-03-01T10:05:00Z --replay "$BATS_TEST_TMPDIR/ev.rec" --replay-fast
    assert_failure
    [[ $stderr == *"unrecognized feature gate: NoSuchGate"* ]]
}

@test "run --feature-gates with a pipeline: a usage error" {
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --feature-gates DRADeviceTaintRules=true \
        --replay "$BATS_TEST_TMPDIR/ev.rec" --replay-fast -- cat
    assert_failure 2
    [[ $stderr == *"--feature-gates is for --job"* ]]
}

@test "run --job evict --apply against a server that serves resource.k8s.io as v1beta2 only: the rules' status is applied at v1beta2" {
    load ../apiserver/helpers
    local d="$BATS_TEST_TMPDIR/beta"
    apiserver_start "$d" --dra-versions v1beta2
    # the cluster as such a server keeps it: its DRA objects at v1beta2
    { yq -c . "$D/slices.yaml"; yq -c . "$D/rules-v1beta2.yaml"; jq -c '.items[]' "$D/claims-pods.json"; } |
        jq -c 'if .apiVersion == "resource.k8s.io/v1" then .apiVersion = "resource.k8s.io/v1beta2" else . end' |
        jq -s . >"$d/objs.json"
    apiserver_req POST /_test/objects "$(cat "$d/objs.json")" >/dev/null
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job evict --apply --kubernetes-version 1.36 \
        --feature-gates DRADeviceTaintRules=true --now 2026-03-01T10:05:00Z --stats
    local rc=$? err=$stderr
    "$DRA_BIN/dra-watch" get devicetaintrules >"$d/rules"
    apiserver_stop
    [[ $err != *"invalid object type"* ]] || { echo "$err"; false; }
    assert_equal "$rc" 0
    assert_equal "$(jq -r 'select(.status.conditions[0].type == "EvictionInProgress") | .metadata.name' "$d/rules" | sort | tr '\n' ' ')" \
        "maintenance-node-b what-if-all-gpus "
}
