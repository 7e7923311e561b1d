#!/usr/bin/env bats
# CEL result types and constant folding as upstream checks them when it
# compiles: derived attributes, selectors, map keys.
load helpers
bats_require_minimum_version 1.5.0

A="$DATA/alloc"

setup() {
    T=$BATS_TEST_TMPDIR
}

@test "derived attributes: a result type that is no attribute value fails to compile" {
    sed 's/expression: device.attributes\["gpu.example.com"\].numa$/expression: "{\\"a\\": 1}"/' "$A/derived.yaml" >"$T/map.yaml"
    grep -q '"a' "$T/map.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRADerivedAttributes=true "$T/map.yaml"
    assert_failure 2
    [ -z "$output" ]
    [[ $stderr == *"compile derived attribute derived/numa failed: must evaluate to a primitive scalar (string, integer, boolean, semver) or a list of these scalars, not map(string, int)"* ]]
    [[ $stderr != *"on device"* ]]
}
