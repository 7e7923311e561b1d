#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# What upstream's own test tables of Kubernetes 1.36 and 1.38 found
# dra-alloc doing otherwise (tests/upstream/alloctable).
load helpers

setup() {
    T=$BATS_TEST_TMPDIR
    unset DRA_KUBERNETES_VERSION
}

# A slice of two devices on node-1 whose attribute `a` is a list on d1,
# a class for them, and a claim for two devices matching (or distinct
# in) `a`.
list_case() { # list_case matchAttribute|distinctAttribute
    cat <<EOF
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: devs}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: d0, attributes: {a: {string: x}}}
  - {name: d1, attributes: {a: {strings: [x, z]}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - {name: r, exactly: {deviceClassName: gpu, count: 2}}
    constraints:
    - {$1: gpu.example.com/a}
EOF
}

@test "1.38, list attributes off: a constraint meeting a list value stops the run, as upstream's allocator" {
    for c in matchAttribute distinctAttribute; do
        list_case $c >"$T/in.yaml"
        run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --node node-1 --no-validate \
            --feature-gates DRAListTypeAttributes=false "$T/in.yaml"
        assert_failure 2
        assert_output ''
        [[ $stderr == *'device gpu.example.com/p/d1: unsupported attribute value for gpu.example.com/a'* ]]
    done
}

@test "1.37, list attributes off: a list value meets no constraint, nothing else stops" {
    for c in matchAttribute distinctAttribute; do
        list_case $c >"$T/in.yaml"
        run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --node node-1 --no-validate \
            --feature-gates DRAListTypeAttributes=false "$T/in.yaml"
        assert_failure 1
        [[ $stderr != *'unsupported attribute value'* ]]
    done
}

@test "1.38, list attributes on: a list value takes part in the constraint" {
    list_case matchAttribute >"$T/in.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --node node-1 -o json \
        --feature-gates DRAListTypeAttributes=true "$T/in.yaml"
    assert_success
    [ "$(jq -r '[.status.allocation.devices.results[].device] | join(" ")' <<<"$output")" = "d0 d1" ]
}
