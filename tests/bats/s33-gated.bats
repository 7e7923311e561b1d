#!/usr/bin/env bats
# Fields of disabled features as the API server treats them (list-typed
# attributes without DRAListTypeAttributes, derivedAttributes without
# DRADerivedAttributes), and derived attribute names.
load helpers
bats_require_minimum_version 1.5.0

G="$DATA/gated"

setup() {
    T=$BATS_TEST_TMPDIR
}

@test "list values are dropped with DRAListTypeAttributes off: one warning an attribute, the scalar left is what selectors see" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$G/list-selector.yaml"
    assert_success
    run jq -r '.status.allocation.devices.results[0].device' <<<"$output"
    assert_output gpu-0
    [[ $stderr == *"warning: "*"list-selector.yaml:24 (document 3): ResourceSlice/s: spec.devices[0].attributes[model]: list value strings dropped: the DRAListTypeAttributes feature gate is disabled"* ]]
    [ "$(grep -c 'DRAListTypeAttributes feature gate is disabled' <<<"$stderr")" -eq 2 ]
    # the same objects taken as stored keep their lists: the selector sees
    # the list, as the scheduler would
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --no-validate "$G/list-selector.yaml"
    assert_failure 1
}

@test "list values dropped with DRAListTypeAttributes off: validation runs on what is left" {
    printf '%s\n' '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"d.example.com","nodeName":"n","pool":{"name":"p","resourceSliceCount":1},"devices":[{"name":"d","attributes":{"a":{"ints":[1,2],"strings":[]},"b":{"bools":null,"bool":true}}}]}}' >"$T/s.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/s.json"
    assert_failure 2
    [[ $stderr == *'spec.devices[0].attributes[a]: list value ints, strings dropped: the DRAListTypeAttributes feature gate is disabled'* ]]
    [[ $stderr == *'spec.devices[0].attributes[a]: Invalid value: "": must specify one of:'* ]]
    [[ $stderr != *'attributes[b]'* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --feature-gates DRAListTypeAttributes=true "$T/s.json"
    assert_failure 2
    [[ $stderr != *dropped* ]]
}

@test "derivedAttributes are dropped with DRADerivedAttributes off, with a warning naming the gate" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 "$DATA/alloc/derived.yaml"
    # created without them, the claim's constraint finds no such attribute
    assert_failure 1
    [[ $stderr == *'ResourceClaim/default/aligned: spec.devices.requests[0].exactly.derivedAttributes: field dropped: the DRADerivedAttributes feature gate is disabled'* ]]
    [[ $stderr == *'spec.devices.requests[1].exactly.derivedAttributes: field dropped'* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$DATA/alloc/derived.yaml"
    assert_success
    [[ $stderr == *'derivedAttributes: field dropped: the DRADerivedAttributes feature gate is disabled'* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRADerivedAttributes=true "$DATA/alloc/derived.yaml"
    assert_success
    [[ $stderr != *dropped* ]]
}
