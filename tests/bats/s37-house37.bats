#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# The kinds a snapshot's user may not list, kept in the snapshot object and
# read by the tools: a class that user could not list is not readable, not
# missing.
load helpers
load plugin-helpers

# A snapshot of the pending pod's namespace whose object says forbidden.
offline_snapshot() { # FORBIDDEN-JSON-ARRAY or "" for none
    local forbidden=${1:+,\"forbidden\":$1}
    cat >"$BATS_TEST_TMPDIR/snap.jsonl" <<EOF2
{"apiVersion":"dra-tools.io/v1alpha1","kind":"Snapshot","metadata":{"name":"snapshot"}$forbidden,"serverVersion":{"major":"1","minor":"37","gitVersion":"v1.37.2"}}
{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"single-gpu","namespace":"ml"},"spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}}}
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pending","namespace":"ml","uid":"3f0a9c1e-0000-4000-8000-00000000a009","creationTimestamp":"2026-12-07T03:37:10Z"},"spec":{"containers":[{"name":"c","image":"i"}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"single-gpu"}]},"status":{"phase":"Pending"}}
EOF2
}

@test "dra-watch snapshot names the kinds its user may not list in the snapshot object" {
    start
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot --for-pod pending -o jsonl --kubeconfig "$W/kc-dev"
    assert_success
    assert_equal "$(head -1 <<<"$output" | jq -c .forbidden)" '["namespaces","nodes","deviceclasses","devicetaintrules","resourceslices"]'
    # a user who may list everything: no such field
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot --for-pod pending -o jsonl --kubeconfig "$W/kc-ml"
    assert_success
    assert_equal "$(head -1 <<<"$output" | jq -c .forbidden)" 'null'
}

@test "dra-alloc schedule: a class of a kind the snapshot could not list is not readable" {
    offline_snapshot '["nodes","deviceclasses"]'
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain "$BATS_TEST_TMPDIR/snap.jsonl"
    assert_failure 1
    [[ $stderr == *'request gpu: device class gpu.example.com is not readable (forbidden to list deviceclasses).'* ]]
    [[ $stderr != *'does not exist'* ]]
    # classes listed (or not a snapshot): the class does not exist
    offline_snapshot '["nodes"]'
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain "$BATS_TEST_TMPDIR/snap.jsonl"
    assert_failure 1
    [[ $stderr == *'request gpu: device class gpu.example.com does not exist.'* ]]
    # nothing forbidden and no node: the scheduler stops before PreFilter
    # (schedule_one.go ErrNoNodesAvailable), so no class is looked up
    offline_snapshot ''
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "$BATS_TEST_TMPDIR/snap.jsonl"
    assert_failure 1
    [[ $stderr == *'pod ml/pending: no nodes available to schedule pods'* ]]
    [[ $stderr != *'does not exist'* ]]
}
