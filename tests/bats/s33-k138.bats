#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Kubernetes 1.38's DRA changes behind --kubernetes-version, and the fixes
# 1.37.x shares: each case runs the releases that differ.
load helpers

setup() {
    T="$BATS_TEST_TMPDIR"
    M="$DATA/manifests"
    unset DRA_KUBERNETES_VERSION
}

@test "a DeviceTaintRule without deviceSelector selects no device from 1.37 on; every device in 1.36" {
    "$DRA_BIN/dra-slice" profile gpu --nodes 1 --devices 2 >"$T/one.yaml"
    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: no-selector}\nspec:\n  taint: {key: example.com/upgrade, effect: NoExecute}\n' >"$T/rule.yaml"
    for r in 1.37 1.38; do
        run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version $r --now 2026-03-01T10:00:00Z "$M/gpu-demo.yaml" "$M/deviceclass.yaml" "$T/one.yaml" "$T/rule.yaml"
        assert_success
        [[ $stderr == *"warning: DeviceTaintRule no-selector has no deviceSelector: it selects no device, as the scheduler and the eviction controller read it"* ]]
        run --separate-stderr "$DRA_BIN/dra-alloc" capacity --kubernetes-version $r --now 2026-03-01T10:00:00Z -o jsonl "$M/deviceclass.yaml" "$T/one.yaml" "$T/rule.yaml"
        assert_success
        [[ $(jq -c '[.tainted, .free]' <<<"$output") == "[0,2]" ]]
    done
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.36 --feature-gates DRADeviceTaintRules=true --now 2026-03-01T10:00:00Z "$M/gpu-demo.yaml" "$M/deviceclass.yaml" "$T/one.yaml" "$T/rule.yaml"
    assert_failure 1
    [[ $stderr == *"warning: DeviceTaintRule no-selector has no deviceSelector: its taint applies to every device, as the scheduler of Kubernetes 1.36 applies it (kubernetes#141422)"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity --kubernetes-version 1.36 --feature-gates DRADeviceTaintRules=true --now 2026-03-01T10:00:00Z -o jsonl "$M/deviceclass.yaml" "$T/one.yaml" "$T/rule.yaml"
    assert_success
    [[ $(jq -c '[.tainted, .free]' <<<"$output") == "[2,0]" ]]
    # the eviction controller matches nothing in every release
    for r in 1.36 1.37 1.38; do
        run --separate-stderr "$DRA_BIN/dra-evict" --kubernetes-version $r --feature-gates DRADeviceTaintRules=true --now 2026-03-01T10:00:00Z "$T/one.yaml" "$T/rule.yaml"
        assert_success
        [[ $stderr == *"DeviceTaintRule no-selector has no deviceSelector: it selects no device"* ]]
    done
}
