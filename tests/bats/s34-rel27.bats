#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# The releases beside 1.37: the gate lists of every man page, and what
# each release of the tools does differently.
load helpers

setup() {
    W="$BATS_TEST_TMPDIR"
    TOP="$BATS_TEST_DIRNAME/../.."
    unset DRA_KUBERNETES_VERSION
}

@test "every man page of a tool taking --feature-gates lists each release's gates as dra-slice gates prints them" {
    run --separate-stderr "$TOP/scripts/gen-man-gates" --check "$DRA_BIN/dra-slice"
    assert_success
    assert_output ''
    for t in dra-alloc dra-claim dra-evict dra-prepare dra-select dra-slice; do
        for r in 1.36 1.37 1.38; do grep -qx ".B Kubernetes $r" "$TOP/man/$t.1"; done
        # the same rows as the tool prints
        [ "$(sed -n '/^\.\\" BEGIN gates/,/^\.\\" END gates/p' "$TOP/man/$t.1" | grep -c '^\.B DRA')" -eq \
          "$("$DRA_BIN/dra-slice" gates 1.36 1.37 1.38 | tail -n +2 | grep -c ' DRA')" ]
    done
}

@test "gen-man-gates --check fails on a page whose gate list drifted, or that lacks one" {
    cp -R "$TOP/man" "$W/man"
    # a default flipped by hand in dra-evict(1)
    awk '/^\.B DRADeviceTaintRules$/ && !d { print; getline; sub(/^off/, "on"); d = 1 } { print }' \
        "$TOP/man/dra-evict.1" >"$W/man/dra-evict.1"
    run --separate-stderr "$TOP/scripts/gen-man-gates" --check --man "$W/man" "$DRA_BIN/dra-slice"
    assert_failure 1
    [[ $output == *"$W/man/dra-evict.1"* ]]
    [[ $output == *'-on, beta; depends on DRADeviceTaints'* ]]
    # a page of a tool with --feature-gates and no lists
    cp "$TOP/man/dra-evict.1" "$W/man/dra-evict.1"
    sed '/^\.\\" BEGIN gates/,/^\.\\" END gates/d' "$TOP/man/dra-alloc.1" >"$W/man/dra-alloc.1"
    run --separate-stderr "$TOP/scripts/gen-man-gates" --check --man "$W/man" "$DRA_BIN/dra-slice"
    assert_failure 1
    assert_output ''
    [ "$stderr" = "$W/man/dra-alloc.1: takes --feature-gates but has no gate lists (.\\\" BEGIN gates)" ]
    # without --check the drifted page is rewritten, and only it
    awk '/^\.B DRADeviceTaintRules$/ && !d { print; getline; sub(/^off/, "on"); d = 1 } { print }' \
        "$TOP/man/dra-evict.1" >"$W/man/dra-evict.1"
    cp "$TOP/man/dra-alloc.1" "$W/man/dra-alloc.1"
    run --separate-stderr "$TOP/scripts/gen-man-gates" --man "$W/man" "$DRA_BIN/dra-slice"
    assert_success
    diff -r "$TOP/man" "$W/man"
}

@test "dra-alloc: a config covering every request keeps its requests in 1.36, and drops them from 1.37" {
    cat >"$W/in.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
  config: [{opaque: {driver: gpu.example.com, parameters: {class: 1}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  nodeName: node-1
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - {name: a, exactly: {deviceClassName: gpu}}
    - {name: b, firstAvailable: [{name: x, deviceClassName: gpu}]}
    config:
    - {requests: [a, b/x], opaque: {driver: gpu.example.com, parameters: {claim: 1}}}
YAML
    # 1.36's allocator copies each config's requests as they are
    # (structured/internal/*/allocator_*.go, v0.36.3)
    run "$DRA_BIN/dra-alloc" --kubernetes-version 1.36 --node node-1 -o jsonl "$W/in.yaml"
    assert_success
    run jq -c '[.status.allocation.devices.config[] | [.source, .requests]]' <<<"$output"
    assert_output '[["FromClass",["a","b/x"]],["FromClaim",["a","b/x"]]]'
    # from 1.37 one covering every request has none ("empty means all")
    for r in 1.37 1.38; do
        run "$DRA_BIN/dra-alloc" --kubernetes-version $r --node node-1 -o jsonl "$W/in.yaml"
        assert_success
        run jq -c '[.status.allocation.devices.config[] | [.source, .requests]]' <<<"$output"
        assert_output '[["FromClass",null],["FromClaim",null]]'
    done
}

@test "dra-alloc: 1.36 has no compatibilityGroups, so a slice declaring them is used as if it did not" {
    f="$DATA/alloc/upstream-diff/compat-groups-mixed.yaml"
    # 1.36's API drops the unknown field: the pool is whole and gpu-2 fits
    # (upstream-alloc of v1.36.3 allocates it)
    run "$DRA_BIN/dra-alloc" --kubernetes-version 1.36 --node node-1 -o jsonl "$f"
    assert_success
    run jq -r '.status.allocation.devices.results[].device' <<<"$output"
    assert_output gpu-2
    # 1.37 with DRADeviceCompatibilityGroups off ignores such a slice: the pool is incomplete
    run "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --node node-1 -o jsonl "$f"
    assert_failure 1
}
