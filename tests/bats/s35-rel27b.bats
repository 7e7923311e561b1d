#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# What upstream's own test tables of Kubernetes 1.36 and 1.38 found
# dra-alloc doing otherwise (tests/upstream/alloctable).
load helpers

setup() {
    T=$BATS_TEST_TMPDIR
    unset DRA_KUBERNETES_VERSION
}

# The class gpu and a slice of pool p on node-1 with the devices given.
gpu_pool() { # gpu_pool DEVICES-YAML
    yaml_gpu_class
    yaml_gpu_slice "$1"
}

# Two devices whose attribute `a` is a list on d1, and a claim for two
# devices matching (or distinct in) `a`.
list_case() { # list_case matchAttribute|distinctAttribute
    gpu_pool "  - {name: d0, attributes: {a: {string: x}}}
  - {name: d1, attributes: {a: {strings: [x, z]}}}"
    cat <<EOF
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
    gpu_pool "  - {name: d0, allowMultipleAllocations: true, capacity: {gpu.example.com/c: {value: '1'}}}
  - {name: d1, allowMultipleAllocations: true, capacity: {gpu.example.com/c: {value: '1'}}}"
    cat <<EOF
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

# The create-time cases 1.38.0-beta.0 added to upstream's validation test
# tables (pkg/apis/resource/validation/validation_*_test.go), as objects
# in tests/data/validate-1.38; the update cases are not the tools' (they
# validate objects as created).
V138=$BATS_TEST_DIRNAME/../data/validate-1.38

@test "1.38 validation table: validValues past int64 are duplicates of each other without DRAFractionalCapacityRange" {
    # validation_device_capacity_test.go invalid-options-duplicate-decimal-point,
    # options-int64-max-and-plus-one, options-100E-and-1000E
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.38 \
        --feature-gates DRAConsumableCapacity=true,DRAFractionalCapacityRange=false "$V138/valid-values.yaml"
    assert_failure 2
    [ "$(sed -E 's/^[^ ]* [^ ]* (\(document [0-9]+\): )?//' <<<"$stderr")" = 'ResourceSlice/dec: spec.devices[0].capacity[c].requestPolicy.validValues[1]: Duplicate value: "1"
ResourceSlice/i64: spec.devices[0].capacity[c].requestPolicy.validValues[1]: Duplicate value: "9223372036854775807"
ResourceSlice/exa: spec.devices[0].capacity[c].requestPolicy.validValues[1]: Duplicate value: "9223372036854775807"' ]
    # the -fractional-gate twins: keyed by AsDec, none is a duplicate
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.38 \
        --feature-gates DRAConsumableCapacity=true,DRAFractionalCapacityRange=true "$V138/valid-values.yaml"
    assert_success
    # 1.37's Value() overflowed instead of saturating: 100E and 1000E both
    # key as 0, 2^63-1 and 2^63 differ (upstream-validate 1.37.2)
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 \
        --feature-gates DRAConsumableCapacity=true "$V138/valid-values.yaml"
    assert_failure 2
    [ "$(sed -E 's/^[^ ]* [^ ]* (\(document [0-9]+\): )?//' <<<"$stderr")" = 'ResourceSlice/dec: spec.devices[0].capacity[c].requestPolicy.validValues[1]: Duplicate value: "1"
ResourceSlice/exa: spec.devices[0].capacity[c].requestPolicy.validValues[1]: Duplicate value: "0"' ]
}

@test "1.38 validation table: attribute, node selector, capacityKey and capacity request names" {
    # validation_resourceslice_test.go bad-attribute-extra-slash,
    # bad-empty-device-node-selector, bad-device-node-selector-with-two-terms,
    # good-device-node-selector-with-one-term,
    # bad-node-allocatable-resources-capacity-key-{extra-slash,bad-name};
    # validation_resourceclaim_test.go capacity-requests-{bad-key,
    # bad-key-in-subrequest,valid}, invalid-add-consumed-capacity-bad-key;
    # validation_resourceclaimtemplate_test.go capacity-{bad-key,
    # bad-key-in-subrequest}
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.38 \
        --feature-gates DRAConsumableCapacity=true,DRANodeAllocatableResources=true "$V138/slices.yaml" "$V138/claims.yaml"
    assert_failure 2
    local c='a valid C identifier must start with alphabetic character or '"'"'_'"'"', followed by a string of alphanumeric characters or '"'"'_'"'"' (e.g. '"'"'my_name'"'"',  or '"'"'MY_NAME'"'"',  or '"'"'MyName'"'"', regex used for validation is '"'"'[A-Za-z_][A-Za-z0-9_]*'"'"')'
    [ "$(sed -E 's/^[^ ]* [^ ]* (\(document [0-9]+\): )?//' <<<"$stderr")" = "ResourceSlice/s1: spec.devices[1].attributes: Invalid value: \"x.example.com/y/z\": must not contain more than one slash
ResourceSlice/s2: spec.devices[0].nodeSelector.nodeSelectorTerms: Required value: must have at least one node selector term
ResourceSlice/s2: spec.devices[0].nodeSelector.nodeSelectorTerms: Invalid value: null: must have exactly one node selector term
ResourceSlice/s3: spec.devices[0].nodeSelector.nodeSelectorTerms: Invalid value: [{\"MatchExpressions\":[{\"Key\":\"topology.example.com/rack\",\"Operator\":\"In\",\"Values\":[\"a\"]}],\"MatchFields\":null},{\"MatchExpressions\":[{\"Key\":\"topology.example.com/rack\",\"Operator\":\"In\",\"Values\":[\"b\"]}],\"MatchFields\":null}]: must have exactly one node selector term
ResourceSlice/s4: spec.devices[0].nodeAllocatableResources[cpu].mapping.capacityKey: Invalid value: \"dra.example.com/cpu/extra\": must not contain more than one slash
ResourceSlice/s4: spec.devices[0].nodeAllocatableResources[memory].mapping.capacityKey: Invalid value: \"1cpu\": $c
ResourceClaim/ns/c1: spec.devices.requests[0].exactly.capacity.requests: Invalid value: \"1bad\": $c
ResourceClaim/ns/c1: spec.devices.requests[1].firstAvailable[0].capacity.requests: Invalid value: \"1bad\": $c
ResourceClaimTemplate/ns/t1: spec.spec.devices.requests[0].exactly.capacity.requests: Invalid value: \"1bad\": $c
ResourceClaimTemplate/ns/t1: spec.spec.devices.requests[1].firstAvailable[0].capacity.requests: Invalid value: \"1bad\": $c
ResourceClaim/ns/c2: status.allocation.devices.results[0].consumedCapacity: Invalid value: \"1bad\": $c" ]
}

@test "1.38: an allocated claim with a negative consumedCapacity stops scheduling, as the scheduler's consumedCapacityError" {
    # validation refuses the value; a stored one (--no-validate) reaches the allocator
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --node node-1 --no-validate \
        --feature-gates DRAConsumableCapacity=true "$V138/negative-consumed.yaml"
    assert_failure 2
    assert_output ''
    assert_equal "$stderr" 'dra-alloc: claim default/used, device gpu.example.com/p/d0: consumed capacity "c" must not be negative, got -1'
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --node node-1 --no-validate \
        --feature-gates DRAConsumableCapacity=true "$V138/negative-consumed.yaml"
    assert_success
}

@test "make upstream-celtable without Go says so in one line and succeeds" {
    for t in upstream-celtable upstream-celtable-1.38; do
        run --separate-stderr make -s -C "$BATS_TEST_DIRNAME/../.." $t UPSTREAM_GO=/nonexistent/go
        assert_success
        assert_output "$t: upstream suites skipped: no Go toolchain ('/nonexistent/go' not found; set UPSTREAM_GO=/path/to/go)"
    done
}

@test "1.38: an attribute without a usable value fails only the selectors that read it" {
    # a version past semver's numbers, stored before validation refused it
    gpu_pool "  - {name: d0, attributes: {v: {version: 1.2.99999999999999999999}, model: {string: a}}}" >"$T/in.yaml"
    cat >>"$T/in.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - name: r
      exactly:
        deviceClassName: gpu
        selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "a"'}}]
EOF
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --node node-1 --no-validate -o json "$T/in.yaml"
    assert_success
    [ "$(jq -r '.status.allocation.devices.results[0].device' <<<"$output")" = d0 ]
    # through 1.37 every selector on the device fails
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --node node-1 --no-validate "$T/in.yaml"
    assert_failure 2
    [[ $stderr == *'CEL runtime error: attribute v: parse semantic version'* ]]
    # reading it fails in 1.38 too
    sed -i 's/\.model == "a"/.v.isGreaterThan(semver("1.0.0"))/' "$T/in.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --node node-1 --no-validate "$T/in.yaml"
    assert_failure 2
    [[ $stderr == *'CEL runtime error: attribute v: value is invalid or its type is not supported by this version'* ]]
}

@test "1.38: a constraint meeting an attribute without a usable value stops the run, list attributes on or off" {
    for dev in "{}" "{strings: []}" "{version: 1.2.99999999999999999999}"; do
        gpu_pool "  - {name: d0, attributes: {a: $dev}}
  - {name: d1, attributes: {a: {strings: [x]}}}" >"$T/in.yaml"
        list_case matchAttribute | sed -n '/^kind: ResourceClaim/,$p' | sed '1i apiVersion: resource.k8s.io/v1' >>"$T/in.yaml"
        for on in true false; do
            run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --node node-1 --no-validate \
                --feature-gates DRAListTypeAttributes=$on "$T/in.yaml"
            assert_failure 2
            [[ $stderr == *'device gpu.example.com/p/d0: unsupported attribute value for gpu.example.com/a'* ]]
        done
    done
}
