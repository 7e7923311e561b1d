#!/usr/bin/env bats
# dra-slice lint and validate.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    S="$DRA_BIN/dra-slice"
    D="$DATA/slice"
}

@test "lint: a consistent pool is clean" {
    run --separate-stderr "$S" lint "$D/slices-ok.yaml"
    assert_success
    assert_output ""
}

@test "lint: inconsistent pool, one line per problem, exit 1" {
    run --separate-stderr "$S" lint "$D/slices-inconsistent.yaml"
    assert_failure 1
    assert_line "pool gpu.example.com/node-1: ResourceSlice/00001-gpu.example.com-node-1-hjklm: duplicate device name gpu-0"
    assert_line "pool gpu.example.com/node-1: ResourceSlice/node-1-gpu.example.com-old: obsolete: generation 3, the pool is at generation 4"
    assert_line "pool gpu.example.com/node-1: incomplete: 2 of 3 slices at generation 4"
    assert_line "pool gpu.example.com/node-1: ResourceSlice/00001-gpu.example.com-node-1-hjklm: device gpu-1: counter set gpu-9-counters not found"
    assert_line "pool gpu.example.com/node-1: ResourceSlice/00001-gpu.example.com-node-1-hjklm: device gpu-2: counter cores not found in counter set gpu-0-counters"
    assert_line --partial "device gpu-0: consumes 96Gi of counter memory in counter set gpu-0-counters, which has only 80Gi"
}

@test "lint: slices over the device limit" {
    {
        printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: big}\n'
        printf 'spec:\n  driver: d.example.com\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  allNodes: true\n  devices:\n'
        for i in $(seq 0 128); do printf '  - name: dev-%d\n' "$i"; done
    } >"$BATS_TEST_TMPDIR/big.yaml"
    run --separate-stderr "$S" lint "$BATS_TEST_TMPDIR/big.yaml"
    assert_failure 1
    assert_output --partial "pool d.example.com/p: ResourceSlice/big: spec.devices: Too many: 129: must have at most 128 items"
}

@test "lint: different attribute names are a warning, not a failure" {
    run --separate-stderr "$S" profile mig --devices 1
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/mig.yaml"
    run --separate-stderr "$S" lint "$BATS_TEST_TMPDIR/mig.yaml"
    assert_success
    assert_output --partial "pool gpu.nvidia.com/node-0: warning: attribute names differ"
}

@test "lint: other kinds are skipped, unknown kinds of resource.k8s.io are input errors" {
    run --separate-stderr "$S" lint "$D/unknown-kind.yaml"
    assert_failure 2
    [[ $stderr == *"unknown-kind.yaml:2: Gadget/g: kind: no matches for kind \"Gadget\" in version \"resource.k8s.io/v1\""* ]]
    printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n' >"$BATS_TEST_TMPDIR/other.yaml"
    run --separate-stderr "$S" lint -v "$D/slices-ok.yaml" "$BATS_TEST_TMPDIR/other.yaml"
    assert_success
    [[ $stderr == *"dra-slice: skipped 2 objects of kinds dra-slice does not use"* ]]
    run --separate-stderr "$S" lint "$D/malformed.yaml"
    assert_failure 2
}

@test "validate: valid objects print nothing" {
    run "$S" validate "$D/slices-ok.yaml"
    assert_success
    assert_output ""
}

@test "validate: every error, with file, object and field" {
    run --separate-stderr "$S" validate "$D/slices-inconsistent.yaml" "$D/unknown-kind.yaml"
    assert_failure 2
    [[ $stderr == *"slices-inconsistent.yaml:34 (document 2): ResourceSlice/00001-gpu.example.com-node-1-hjklm: spec.devices[3]: Duplicate value: \"gpu-0\""* ]]
    [[ $stderr == *"unknown-kind.yaml:2: Gadget/g: kind: no matches for kind \"Gadget\" in version \"resource.k8s.io/v1\""* ]]
    assert_output ""
}

@test "validate: malformed input" {
    run --separate-stderr "$S" validate "$D/malformed.json"
    assert_failure 2
    # read as YAML, as kubectl reads a file opening with '['
    [[ $stderr == *"malformed.json:2:1: invalid YAML: did not find expected ',' or ']'"* ]]
}
