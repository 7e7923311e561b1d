#!/usr/bin/env bats
# dra-slice validate --kubernetes-version 1.36 decodes as a 1.36 API server:
# the resource.k8s.io fields 1.37 added are unknown fields there (k8s.io/api
# v0.36.3 against v0.37.2, resource/*/types.go), while the tools that read
# objects as a 1.36 scheduler does keep dropping them silently.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    unset DRA_KUBERNETES_VERSION
}

SLICE=$'apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: a.b
  pool: {name: p, resourceSliceCount: 1}
  allNodes: true
  partitionTypeAttribute: a.b/type
  skipNodeOperations: [Prepare]
  sharedCounters:
  - name: cs
    counters: {mem: {value: "1"}}
  devices:
  - name: d
    consumesCounters:
    - counterSet: cs
      counters: {mem: {value: "1"}}
      compatibilityGroups: [g]
    nodeAllocatableResources:
      cpu: {overhead: {perPod: "1"}}'

CLAIM=$'apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: r
      exactly:
        deviceClassName: gpu
        derivedAttributes: [{name: x, expression: "1"}]
    - name: f
      firstAvailable:
      - name: s
        deviceClassName: gpu
        derivedAttributes: [{name: x, expression: "1"}]'

@test "validate 1.36: each field 1.37 added to a ResourceSlice is an unknown field, and nothing else is reported" {
    validates "$SLICE" --kubernetes-version 1.36
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.yaml:8: ResourceSlice/s: unknown field \"spec.partitionTypeAttribute\"
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:9: ResourceSlice/s: unknown field \"spec.skipNodeOperations\"
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:18: ResourceSlice/s: unknown field \"spec.devices[0].consumesCounters[0].compatibilityGroups\"
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:19: ResourceSlice/s: unknown field \"spec.devices[0].nodeAllocatableResources\""
    assert_output ''
    # a 1.37 API server knows them all: no unknown field
    validates "$SLICE" --kubernetes-version 1.37
    [[ $stderr != *'unknown field'* ]]
}

@test "validate 1.36: derivedAttributes of a request and of a subrequest, in v1 and in v1beta1" {
    validates "$CLAIM" --kubernetes-version 1.36
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.yaml:10: ResourceClaim/ns/c: unknown field \"spec.devices.requests[0].exactly.derivedAttributes\"
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:15: ResourceClaim/ns/c: unknown field \"spec.devices.requests[1].firstAvailable[0].derivedAttributes\""
    validates $'apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: ns}\nspec:\n  spec:\n    devices:\n      requests:\n      - {name: r, deviceClassName: gpu, derivedAttributes: [{name: x, expression: "1"}]}' \
        --kubernetes-version 1.36
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.yaml:8: ResourceClaimTemplate/ns/t: unknown field \"spec.spec.devices.requests[0].derivedAttributes\""
}

@test "validate 1.36: skipNodeOperations of an allocation result and defaultPartitionTypeAttribute are unknown fields" {
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu"}}]}},"status":{"allocation":{"devices":{"results":[{"request":"r","driver":"a.b","pool":"p","device":"d","skipNodeOperations":["Prepare"]}]}}}}' \
        --kubernetes-version 1.36
    assert_failure 2
    [[ $stderr == *'ResourceClaim/ns/c: unknown field "status.allocation.devices.results[0].skipNodeOperations"' ]]
    [[ $(grep -c . <<<"$stderr") == 1 ]]
    validates $'apiVersion: resource.k8s.io/v1alpha3\nkind: ResourcePoolStatusRequest\nmetadata: {name: r}\nspec: {driver: a.b, defaultPartitionTypeAttribute: a.b/t}' \
        --kubernetes-version 1.36
    assert_failure 2
    [[ $stderr == *'ResourcePoolStatusRequest/r: unknown field "spec.defaultPartitionTypeAttribute"' ]]
    [[ $(grep -c . <<<"$stderr") == 1 ]]
}

@test "validate 1.36 --validate warn warns of each and drops it; ignore drops it silently" {
    validates "$CLAIM" --kubernetes-version 1.36 --validate warn
    assert_success
    assert_equal "$stderr" "dra-slice: warning: $BATS_TEST_TMPDIR/doc.yaml:10: ResourceClaim/ns/c: unknown field \"spec.devices.requests[0].exactly.derivedAttributes\"
dra-slice: warning: $BATS_TEST_TMPDIR/doc.yaml:15: ResourceClaim/ns/c: unknown field \"spec.devices.requests[1].firstAvailable[0].derivedAttributes\""
    validates "$CLAIM" --kubernetes-version 1.36 --validate ignore
    assert_success
    assert_equal "$stderr" ''
    # the release from the environment, as every tool reads it
    DRA_KUBERNETES_VERSION=1.36 validates "$CLAIM"
    assert_failure 2
    [[ $stderr == *'unknown field "spec.devices.requests[0].exactly.derivedAttributes"'* ]]
}

@test "dra-alloc 1.36 still reads a claim with derivedAttributes as a 1.36 scheduler does, without an error" {
    local f="$BATS_TEST_TMPDIR/in.yaml"
    printf '%s\n---\n' "$CLAIM" >"$f"
    printf '%s\n---\n' '{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}}' \
        '{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {"driver": "a.b", "pool": {"name": "p", "resourceSliceCount": 1}, "nodeName": "node-1", "devices": [{"name": "d1"}, {"name": "d2"}]}}' >>"$f"
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.36 --node node-1 -o jsonl "$f"
    assert_success
    [[ $stderr != *'unknown field'* ]]
    run jq -r '.status.allocation.devices.results[].device' <<<"$output"
    assert_output $'d1\nd2'
}
