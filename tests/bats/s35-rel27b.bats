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

# Two shareable devices with capacity c of 1, d0's taken by claim used,
# and claim c asking for all devices with 1 of c each.
all_in_use() {
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
  - {name: d0, allowMultipleAllocations: true, capacity: {gpu.example.com/c: {value: '1'}}}
  - {name: d1, allowMultipleAllocations: true, capacity: {gpu.example.com/c: {value: '1'}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: used, namespace: default}
spec:
  devices:
    requests:
    - {name: r, exactly: {deviceClassName: gpu, capacity: {requests: {gpu.example.com/c: '1'}}}}
status:
  allocation:
    devices:
      results:
      - {request: r, driver: gpu.example.com, pool: p, device: d0, shareID: 11111111-1111-1111-1111-111111111111,
         consumedCapacity: {gpu.example.com/c: '1'}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - {name: r, exactly: {deviceClassName: gpu, allocationMode: All, capacity: {requests: {gpu.example.com/c: '1'}}}}
EOF
}

@test "1.36: All leaves out a device the allocated claims use to capacity; from 1.37 on All fails" {
    all_in_use >"$T/in.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.36 --node node-1 -o json \
        --feature-gates DRAConsumableCapacity=true "$T/in.yaml"
    assert_success
    [ "$(jq -r 'select(.metadata.name == "c") | [.status.allocation.devices.results[].device] | join(" ")' <<<"$output")" = d1 ]
    for v in 1.37 1.38; do
        run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version $v --node node-1 \
            --feature-gates DRAConsumableCapacity=true "$T/in.yaml"
        assert_failure 1
    done
}

@test "1.36, list attributes off: a selector on a device with a list value fails the run, as 1.36's CEL" {
    list_case matchAttribute >"$T/in.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.36 --node node-1 --no-validate \
        --feature-gates DRAListTypeAttributes=false "$T/in.yaml"
    assert_failure 2
    assert_output ''
    [[ $stderr == *'class gpu: selector #0 on device gpu.example.com/p/d1: CEL runtime error: attribute a: unsupported attribute value'* ]]
    # with the gate on the list converts
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.36 --node node-1 -o json \
        --feature-gates DRAListTypeAttributes=true "$T/in.yaml"
    assert_success
}
