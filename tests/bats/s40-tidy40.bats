#!/usr/bin/env bats
# Carried defects: nodes a snapshot could not list, a JSON file that turns
# into YAML after its first document, dra-slice discover and profile under
# a release.
bats_require_minimum_version 1.5.0
load helpers

# A snapshot whose user may list everything but nodes, of one pending pod
# whose claim asks for class gpu.example.com; $1: "class" adds the class.
no_nodes_snapshot() {
    {
        echo '{"apiVersion":"dra-tools.io/v1alpha1","kind":"Snapshot","metadata":{"name":"snapshot"},"forbidden":["nodes"],"serverVersion":{"major":"1","minor":"37","gitVersion":"v1.37.2"}}'
        echo '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"single-gpu","namespace":"ml"},"spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}}}'
        echo '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pending","namespace":"ml","uid":"3f0a9c1e-0000-4000-8000-00000000a009","creationTimestamp":"2026-12-07T03:37:10Z"},"spec":{"containers":[{"name":"c","image":"i"}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"single-gpu"}]},"status":{"phase":"Pending"}}'
        [ "${1:-}" != class ] || echo '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu.example.com"},"spec":{}}'
    } >"$BATS_TEST_TMPDIR/snap.jsonl"
}

@test "dra-alloc schedule: nodes a snapshot could not list are not readable, not 0/0 available" {
    no_nodes_snapshot
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain "$BATS_TEST_TMPDIR/snap.jsonl"
    assert_failure 1
    [[ $stderr == *'pod ml/pending: nodes are not readable (forbidden to list nodes): request gpu: device class gpu.example.com does not exist.'* ]]
    [[ $stderr != *'0/0 nodes'* ]]
    # PreFilter passes: the scheduler's ErrNoNodesAvailable, and why
    no_nodes_snapshot class
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "$BATS_TEST_TMPDIR/snap.jsonl"
    assert_failure 1
    assert_line "    message: 'no nodes available to schedule pods: nodes are not readable (forbidden to list nodes)'"
    # nodes listed, none there: the scheduler's own words alone
    sed -i 's/"forbidden":\["nodes"\],//' "$BATS_TEST_TMPDIR/snap.jsonl"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "$BATS_TEST_TMPDIR/snap.jsonl"
    assert_failure 1
    assert_line "    message: no nodes available to schedule pods"
}
