#!/usr/bin/env bats
# Shapes validation refuses and times at the ends of Go's range.
bats_require_minimum_version 1.5.0
load helpers

slice() { # name generation resourceSliceCount
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: %s}\n' "$1"
    printf 'spec:\n  driver: d.example.com\n  pool: {name: p, generation: %s, resourceSliceCount: %s}\n' "$2" "$3"
    printf '  allNodes: true\n  devices:\n  - name: dev-%s\n---\n' "$1"
}

@test "lint: a pool whose every slice has a negative generation" {
    { slice a -1 2; slice b -1 2; } >"$BATS_TEST_TMPDIR/neg.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$BATS_TEST_TMPDIR/neg.yaml"
    assert_failure 1
    assert_line "pool d.example.com/p: ResourceSlice/a: spec.pool.generation: Invalid value: -1: must be greater than or equal to zero"
    assert_line "pool d.example.com/p: ResourceSlice/b: spec.pool.generation: Invalid value: -1: must be greater than or equal to zero"
    [ "${#lines[@]}" -eq 2 ]
    [ -z "$stderr" ]
}

@test "lint: generations and counts past what validation accepts" {
    { slice a 9223372036854775807 0; slice b 99999999999999999999 1; slice c -9223372036854775808 -1; } >"$BATS_TEST_TMPDIR/edge.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$BATS_TEST_TMPDIR/edge.yaml"
    assert_failure 1
    assert_line "pool d.example.com/p: ResourceSlice/a: spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero"
    assert_line "pool d.example.com/p: ResourceSlice/b: spec.pool.generation: Invalid value: 1e20: must be of type integer"
    assert_line "pool d.example.com/p: ResourceSlice/c: obsolete: generation -9223372036854775808, the pool is at generation 9223372036854775807"
    refute_output --partial "ResourceSlice/b: obsolete"
}

@test "lint: a v1beta1 slice is linted as the cluster keeps it (v1)" {
    {
        printf 'apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata: {name: old}\nspec:\n'
        printf '  driver: d.example.com\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  allNodes: true\n'
        printf '  devices:\n  - name: dev-0\n    basic:\n      consumesCounters:\n      - counterSet: none\n        counters: {m: {value: "1"}}\n'
    } >"$BATS_TEST_TMPDIR/old.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$BATS_TEST_TMPDIR/old.yaml"
    assert_failure 1
    assert_output "pool d.example.com/p: ResourceSlice/old: device dev-0: counter set none not found"
}

# ---- times past what nanoseconds since 1970 hold (1677-2262) ----

@test "dra-slice pool-status --now 2600: the condition's time is 2600" {
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --now 2600-01-01T00:00:00Z --driver gpu.example.com "$DATA/slice/slices-ok.yaml"
    assert_success
    assert_line "    lastTransitionTime: 2600-01-01T00:00:00Z"
}
