#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# YAML output quoted as kubectl quotes it; kubectl dra's answers for a
# namespace-scoped user and its doctor's fixes.
load helpers
load plugin-helpers

@test "kubectl dra doctor: a fix that re-reads the dump names the snapshot command, not a temporary file" {
    start
    kubectl_bin
    run --separate-stderr "$KUBECTL" dra doctor --kubeconfig "$W/kc-ml"
    assert_failure 1
    assert_line "Pod/ml/pending: pod claim gpu: pod \"ml/pending\": ResourceClaim not created yet; fix: kubectl dra snapshot -o jsonl --kubeconfig $W/kc-ml | dra-claim generate --patch=kubectl - | sh"
    refute_output --partial /tmp/tmp.
    run --separate-stderr "$KUBECTL" dra doctor --kubeconfig "$W/kc-ml" -o json
    assert_failure 1
    refute_output --partial /tmp/tmp.
    [[ $(jq -r '.. | strings | select(test("generate"))' <<<"$output") == *"kubectl dra snapshot -o jsonl --kubeconfig $W/kc-ml | dra-claim generate --patch=kubectl - | sh"* ]]
    # the fix runs as printed: generate reads the snapshot on stdin
    "$KUBECTL" dra snapshot -o jsonl --kubeconfig "$W/kc-ml" | "$DRA_BIN/dra-claim" generate --patch=kubectl - >"$W/fix.sh"
    grep -q 'kubectl create' "$W/fix.sh" || grep -q 'kubectl apply' "$W/fix.sh"
}

@test "YAML output: timestamps, dates and base-60 strings double-quoted as kubectl prints them" {
    local in='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"c","namespace":"d","creationTimestamp":"2026-01-02T03:04:05Z","annotations":{"day":"2026-1-2","spaced":"2026-01-02 03:04:05.5","hm":"1:20","plain":"2026-13-02","dots":"._36"}},"spec":{"containers":[{"name":"c","image":"i"}]}}'
    run --separate-stderr "$DRA_BIN/dra-claim" convert -o yaml <<<"$in"
    assert_success
    assert_line '  creationTimestamp: "2026-01-02T03:04:05Z"'
    assert_line '    day: "2026-1-2"'
    assert_line '    spaced: "2026-01-02 03:04:05.5"'
    assert_line '    hm: "1:20"'
    assert_line '    plain: 2026-13-02'
    assert_line '    dots: ._36'
    # and read back as the same strings
    run --separate-stderr "$DRA_BIN/dra-claim" convert -o json <<<"$output"
    assert_success
    assert_equal "$(jq -c .metadata.annotations <<<"$output")" '{"day":"2026-1-2","spaced":"2026-01-02 03:04:05.5","hm":"1:20","plain":"2026-13-02","dots":"._36"}'
}

@test "kubectl dra why as a namespace-scoped user: a class it may not list is not readable, not missing" {
    start
    kubectl_bin
    run --separate-stderr "$KUBECTL" dra why pending --kubeconfig "$W/kc-dev"
    assert_failure 1
    assert_line --index 0 --partial "pod ml/pending: "
    assert_line --index 0 --partial "device class gpu.example.com is not readable (forbidden to list deviceclasses)"
    refute_output --partial "does not exist"
    [[ $stderr == *'cannot list resource "deviceclasses" in API group "resource.k8s.io" at the cluster scope'* ]]
    # a user who may list them: no warning, and the answer reads the class
    run --separate-stderr "$KUBECTL" dra why pending --kubeconfig "$W/kc-ml"
    [[ $stderr != *'forbidden'* ]]
    refute_output --partial "not readable"
}
