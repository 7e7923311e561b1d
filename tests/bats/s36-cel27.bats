#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# CEL as each release evaluates it (--kubernetes-version): 1.36 on cel-go
# v0.26 with its own includes(), 1.38 on cel-go v0.33.
load helpers

setup() {
    unset DRA_KUBERNETES_VERSION
}

@test "1.36's includes() is estimated 0..48 whatever its target, as its own draCostEstimator does" {
    run --separate-stderr "$DRA_BIN/dra-select" check --kubernetes-version 1.36 --feature-gates DRAListTypeAttributes=true \
        'device.attributes["d"].m.includes("a")'
    assert_success
    assert_output 'type bool, estimated cost 4..52'
    run --separate-stderr "$DRA_BIN/dra-select" check --kubernetes-version 1.37 --feature-gates DRAListTypeAttributes=true \
        'device.attributes["d"].m.includes("a")'
    assert_success
    assert_output 'type bool, estimated cost 4..68'
}

@test "a runtime error has the optional chaining hint from 1.37 on, not in 1.36" {
    run --separate-stderr "$DRA_BIN/dra-select" select --kubernetes-version 1.36 \
        -e 'device.attributes["gpu.example.com"].nope == 1' "$DATA/select/slices.yaml"
    assert_failure 2
    [[ $stderr == *"gpu.example.com/node-a/gpu-0: CEL runtime error: no such key: nope"$'\n'* ]]
    [[ $stderr != *"optional chaining"* ]]
    for r in 1.37 1.38; do
        run --separate-stderr "$DRA_BIN/dra-select" select --kubernetes-version $r \
            -e 'device.attributes["gpu.example.com"].nope == 1' "$DATA/select/slices.yaml"
        assert_failure 2
        [[ $stderr == *"no such key: nope. consider using CEL optional chaining (.? followed by orValue())"* ]]
    done
}

@test "a 1.38 comprehension over an empty string or bytes gives its result" {
    run --separate-stderr "$DRA_BIN/dra-select" eval --kubernetes-version 1.38 -- "dyn('').all(x, false)"
    assert_success
    assert_output 'true'
    run --separate-stderr "$DRA_BIN/dra-select" eval --kubernetes-version 1.38 -- "dyn(b'').map(x, x)"
    assert_success
    assert_output '[]'
    run --separate-stderr "$DRA_BIN/dra-select" eval --kubernetes-version 1.37 -- "dyn('').all(x, false)"
    assert_failure 2
    [[ $stderr == *"got 'types.String', expected iterable type"* ]]
}
