#!/usr/bin/env bats
# Quantities parsed by the release's rules (apimachinery v0.38.0-beta.0
# resource/quantity.go decFromDigits keeps 29 significant digits), as the
# Kubernetes 1.38.0-beta.0 API server validates them; under 1.37 the
# project's range (96 digits, model/quantity.h) still refuses what the
# 1.37.2 server takes beyond it.
bats_require_minimum_version 1.5.0
load helpers

SLICE='{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s1"},"spec":{"driver":"gpu.example.com","nodeName":"node-a","pool":{"name":"p","generation":1,"resourceSliceCount":1},"devices":[{"name":"d0","capacity":{"mem":{"value":"1234567890123456789012345678901234567890123456789012345"}}}]}}'

@test "a 55-digit capacity: 1.38 keeps 29 digits of it and accepts it" {
    validates "$SLICE" --kubernetes-version 1.38
    assert_success
}

@test "a 55-digit capacity: 1.37 keeps it whole, as the 1.37.2 server does" {
    validates "$SLICE" --kubernetes-version 1.37
    assert_success
}

@test "a 100-digit capacity: past the 96 digits the project holds under 1.37" {
    long=1234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890
    validates "${SLICE/1234567890123456789012345678901234567890123456789012345/$long}" --kubernetes-version 1.37
    assert_failure 2
    [[ $stderr == *"spec.devices[0].capacity[mem].value: Invalid value: \"$long\": quantity too large"* ]]
    validates "${SLICE/1234567890123456789012345678901234567890123456789012345/$long}" --kubernetes-version 1.38
    assert_success
}
