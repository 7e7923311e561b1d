#!/usr/bin/env bats
# dra-slice validate as the Kubernetes 1.37.2 API server validates, in the
# cases the differential suite (make upstream-check-validate) found.
bats_require_minimum_version 1.5.0
load helpers

DNS='a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters'

@test "generateName only: the name the server generates is validated, its 5 random characters shown as *****" {
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"generateName":"Equal","namespace":"ns"},"spec":{"devices":{"requests":[{"exactly":{"deviceClassName":"gpu"},"name":"r"}]}}}'
    assert_failure 2
    [[ $stderr == *'ResourceClaim/ns/Equal*: metadata.generateName: Invalid value: "Equal": '"$DNS"* ]]
    [[ $stderr == *'ResourceClaim/ns/Equal*: metadata.name: Invalid value: "Equal*****": '"$DNS"* ]]
    [[ $(grep -c . <<<"$stderr") == 2 ]]
    # a DeviceClass checks the generated name only (ValidateObjectMetaWithOpts)
    validates $'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {generateName: "a_b-"}'
    assert_failure 2
    [[ $stderr == *'DeviceClass/a_b-*: metadata.name: Invalid value: "a_b-*****": '"$DNS"* ]]
    [[ $stderr != *generateName:* ]]
    # "-" is a bad prefix and makes a bad name
    validates $'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {generateName: "-"}'
    assert_failure 2
    [[ $stderr == *'DeviceClass/-*: metadata.name: Invalid value: "-*****": '"$DNS"* ]]
}

@test "generateName only: a bad prefix can make a good name, and a long one is cut to 58 bytes" {
    local spec='spec: {driver: a.b, pool: {name: p, resourceSliceCount: 1}, allNodes: true}'
    # "a." is no subdomain, "a.xxxxx" is
    validates $'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {generateName: "a."}\n'"$spec"
    assert_failure 2
    [[ $stderr == *'ResourceSlice/a.*: metadata.generateName: Invalid value: "a.": '"$DNS"* ]]
    [[ $stderr != *metadata.name:* ]]
    # a good prefix makes a good name
    validates $'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {generateName: "gpu-"}'
    assert_success
    local long
    long=$(printf 'a%.0s' {1..56})-.aaaaaaaaa
    validates $'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {generateName: "'"$long"$'"}\n'"$spec"
    assert_failure 2
    [[ $stderr == *"metadata.generateName: Invalid value: \"$long\": $DNS"* ]]
    [[ $stderr == *"metadata.name: Invalid value: \"${long:0:58}*****\": $DNS"* ]]
}

@test "a device's taints beyond the 16 allowed: Too many, and each taint's effect still checked" {
    local t='{"key":"k"}' taints
    taints=$t$(printf ",$t%.0s" {1..16})
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"a.b","pool":{"name":"p","resourceSliceCount":1},"allNodes":true,"devices":[{"name":"d","taints":['"$taints"',{"key":"_","effect":"Sometimes"}]}]}}'
    assert_failure 2
    [[ $stderr == *'ResourceSlice/s: spec.devices[0].taints: Too many: 18: must have at most 16 items'* ]]
    [[ $stderr == *'ResourceSlice/s: spec.devices[0].taints[0].effect: Required value'* ]]
    [[ $stderr == *'ResourceSlice/s: spec.devices[0].taints[9].effect: Required value'$'\n''dra-slice: ... and 7 more like the one above'* ]]
    [[ $stderr == *'ResourceSlice/s: spec.devices[0].taints[17].effect: Unsupported value: "Sometimes": supported values: "NoExecute", "NoSchedule", "None"'* ]]
    # only the declarative checks: not the key
    [[ $stderr != *'taints[17].key'* ]]
    [[ $(grep -c . <<<"$stderr") == 13 ]]
    # in v1beta1 the declarative errors are under basic (the Too many is the
    # internal version's)
    validates '{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"a.b","pool":{"name":"p","resourceSliceCount":1},"allNodes":true,"devices":[{"name":"d","basic":{"taints":['"$taints"']}}]}}'
    assert_failure 2
    [[ $stderr == *'spec.devices[0].taints: Too many: 17: must have at most 16 items'* ]]
    [[ $stderr == *'spec.devices[0].basic.taints[0].effect: Required value'* ]]
}

@test "--feature-gates names every locked gate, in the list's order, as one error" {
    validates $'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}' \
        --kubernetes-version 1.38 --feature-gates DRADeviceTaints=false,DRADeviceTaintRules=false
    assert_failure 2
    assert_equal "$stderr" 'dra-slice: [cannot set feature gate DRADeviceTaints to false, feature is locked to true, cannot set feature gate DRADeviceTaintRules to false, feature is locked to true]'
    # a gate named wins over AllAlpha wherever it stands
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"a.b","pool":{"name":"p","resourceSliceCount":1},"allNodes":true,"devices":[{"name":"d","attributes":{"l":{"ints":[1]}}}]}}' \
        --feature-gates DRAListTypeAttributes=false,AllAlpha=true
    assert_failure 2
    [[ $stderr == *'list value ints dropped: the DRAListTypeAttributes feature gate is disabled'* ]]
}

@test "a shareID under 1.36 is checked by validateUID, in google/uuid's words" {
    local claim='{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"x"}}]}},"status":{"allocation":{"devices":{"results":[{"request":"r","driver":"d.example.com","pool":"p","device":"d","shareID":"@UID@"}]}}}}'
    validates "${claim/@UID@/also-bad}" --kubernetes-version 1.36
    assert_failure 2
    [[ $stderr == *'results[0].shareID: Invalid value: "also-bad": error validating uid: invalid UUID length: 8'* ]]
    validates "${claim/@UID@/urx:uuid:123e4567-e89b-12d3-a456-426614174000}" --kubernetes-version 1.36
    [[ $stderr == *'error validating uid: invalid urn prefix: "urx:uuid:"'* ]]
    validates "${claim/@UID@/123E4567-E89B-12D3-A456-426614174000}" --kubernetes-version 1.36
    [[ $stderr == *'uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters'* ]]
    # from 1.37 on, the declarative k8s-uuid format
    validates "${claim/@UID@/also-bad}"
    [[ $stderr == *'shareID: Invalid value: "also-bad": must be a lowercase UUID in 8-4-4-4-12 format'* ]]
}

@test "a device status under 1.36: a repeat is its SharedDeviceID, conditions as 1.36's ValidateConditions" {
    local c='{"type":"Ready","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"R","message":""}'
    local claim='{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"x"}}]}},"status":{"allocation":{"devices":{"results":[{"request":"r","driver":"d.example.com","pool":"p","device":"d"}]}},"devices":[{"driver":"d.example.com","pool":"p","device":"d","conditions":['"$c,${c/\"status\":\"True\"/\"status\":\"\"},${c/\"Ready\"/\"\"}"']},{"driver":"d.example.com","pool":"p","device":"d"}]}}'
    validates "$claim" --kubernetes-version 1.36
    assert_failure 2
    [[ $stderr == *'status.devices[1]: Duplicate value: {"Driver":"d.example.com","Pool":"p","Device":"d","ShareID":""}'* ]]
    [[ $stderr == *'status.devices[0].conditions[1].type: Duplicate value: "Ready"'* ]]
    [[ $stderr == *'status.devices[0].conditions[1].status: Unsupported value: "": supported values: "False", "True", "Unknown"'* ]]
    [[ $stderr == *'status.devices[0].conditions[2].type: Invalid value: "": name part must be non-empty'* ]]
    # 1.37's words
    validates "$claim"
    [[ $stderr == *'status.devices[0].conditions[1]: Duplicate value: "Ready"'* ]]
    [[ $stderr == *'status.devices[0].conditions[1].status: Required value'* ]]
    [[ $stderr == *'status.devices[0].conditions[2].type: Required value: is required'* ]]
}
