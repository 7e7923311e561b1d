#!/usr/bin/env bats
# dra-slice validate --kubernetes-version 1.36 answers as a 1.36 API server
# does (tests/upstream/validate against k8s.io/kubernetes v1.36.3): the kinds
# it serves, the wording of its handwritten validation.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    unset DRA_KUBERNETES_VERSION
}

# slice_doc NAME: a document separator and the head of a ResourceSlice
slice_doc() {
    printf -- '---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: %s}\nspec:\n  driver: a.b\n  pool: {name: p, resourceSliceCount: 1}\n  allNodes: true' "$1"
}

RULE=$'apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: drain}
spec:
  deviceSelector: {driver: gpu.example.com}
  taint: {key: example.com/maintenance, effect: NoSchedule}'

GROUP=$'apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: gang, namespace: ns}
spec:
  schedulingPolicy:
    gang: {minCount: 2}'

@test "validate 1.36: no DeviceTaintRule in resource.k8s.io/v1, and nothing else is said of it" {
    validates "$RULE" --kubernetes-version 1.36
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.yaml:2: DeviceTaintRule/drain: kind: no matches for kind \"DeviceTaintRule\" in version \"resource.k8s.io/v1\""
    # even with an unknown field and an invalid name
    validates "${RULE/name: drain/name: Drain, bogus: 1}" --kubernetes-version 1.36
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.yaml:2: DeviceTaintRule/Drain: kind: no matches for kind \"DeviceTaintRule\" in version \"resource.k8s.io/v1\""
    # v1beta2 and v1alpha3 serve it in 1.36; 1.37 serves v1 too
    validates "${RULE/resource.k8s.io\/v1/resource.k8s.io/v1beta2}" --kubernetes-version 1.36
    assert_success
    validates "$RULE" --kubernetes-version 1.37
    assert_success
}

@test "validate 1.36: no PodGroup in scheduling.k8s.io/v1beta1 or v1alpha3" {
    validates "$GROUP" --kubernetes-version 1.36
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.yaml:2: PodGroup/ns/gang: kind: no matches for kind \"PodGroup\" in version \"scheduling.k8s.io/v1beta1\""
    validates "${GROUP/v1beta1/v1alpha3}" --kubernetes-version 1.36 --feature-gates GenericWorkload=true
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.yaml:2: PodGroup/ns/gang: kind: no matches for kind \"PodGroup\" in version \"scheduling.k8s.io/v1alpha3\""
}

@test "validate 1.36: a duplicated request, subrequest, counter set or consumption names its key" {
    validates $'apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: gpu}
    - name: r
      firstAvailable:
      - {name: s, deviceClassName: gpu}
      - {name: s, deviceClassName: gpu}'"
$(slice_doc s)"$'
  sharedCounters:
  - {name: cs, counters: {mem: {value: "1"}}}
  - {name: cs, counters: {mem: {value: "1"}}}'"
$(slice_doc t)"$'
  devices:
  - name: d
    consumesCounters:
    - {counterSet: cs, counters: {mem: {value: "1"}}}
    - {counterSet: cs, counters: {mem: {value: "1"}}}' --kubernetes-version 1.36
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.yaml:12: ResourceClaim/ns/c: spec.devices.requests[1].firstAvailable[1]: Duplicate value: \"s\"
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:9: ResourceClaim/ns/c: spec.devices.requests[1]: Duplicate value: \"r\"
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:23 (document 2): ResourceSlice/s: spec.sharedCounters[1]: Duplicate value: \"cs\"
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:36 (document 3): ResourceSlice/t: spec.devices[0].consumesCounters[1]: Duplicate value: \"cs\""
    # 1.37's declarative uniqueness reports the whole item
    validates "$(cat "$BATS_TEST_TMPDIR/doc.yaml")" --kubernetes-version 1.37
    [[ $stderr == *'spec.devices.requests[1]: Duplicate value: {"name":"r","firstAvailable":'* ]]
}

@test "validate 1.36: an owner reference's problems are at metadata.ownerReferences, each an Invalid value" {
    OWNED='{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","ownerReferences":[{"apiVersion":"a/b/c","kind":"","name":"n","uid":""},{"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}]},"spec":{}}'
    validates "$OWNED" --kubernetes-version 1.36
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.json:1: ResourceClaim/ns/c: metadata.ownerReferences.apiVersion: Invalid value: \"a/b/c\": version must not be empty
dra-slice: $BATS_TEST_TMPDIR/doc.json:1: ResourceClaim/ns/c: metadata.ownerReferences.kind: Invalid value: \"\": must not be empty
dra-slice: $BATS_TEST_TMPDIR/doc.json:1: ResourceClaim/ns/c: metadata.ownerReferences.uid: Invalid value: \"\": must not be empty
dra-slice: $BATS_TEST_TMPDIR/doc.json:1: ResourceClaim/ns/c: metadata.ownerReferences: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"u\"}: /v1, Kind=Event is disallowed from being an owner"
    # 1.37: at each index, a missing field Required
    validates "$OWNED" --kubernetes-version 1.37
    [[ $stderr == *'metadata.ownerReferences[0].kind: Required value: must not be empty'* ]]
    [[ $stderr == *'metadata.ownerReferences[0].apiVersion: Invalid value: "a/b/c": must be <group>/<version> or <version>'* ]]
}

@test "validate 1.36: nothing of the devices past their limit, and v1beta1 errors at the internal paths" {
    local devices='{"name":"d0"}' i
    for ((i = 1; i < 128; i++)); do devices+=",{\"name\":\"d$i\"}"; done
    devices+=',{"name":"d128","taints":[{"key":"a.b/k"}]}'
    BIG='{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"a.b","pool":{"name":"p","resourceSliceCount":1},"allNodes":true,"devices":['"$devices"']}}'
    validates "$BIG" --kubernetes-version 1.36
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.json:1: ResourceSlice/s: spec.devices: Too many: 129: must have at most 64 items"
    # 1.37 runs the declarative rules on every device
    validates "$BIG" --kubernetes-version 1.37
    [[ $stderr == *'spec.devices[128].taints[0].effect: Required value' ]]
    validates $'apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: a.b
  pool: {name: p, resourceSliceCount: 1}
  allNodes: true
  devices:
  - name: d
    basic:
      taints: [{key: a.b/k}]
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - {name: r, deviceClassName: gpu, allocationMode: Some}' --kubernetes-version 1.36
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.yaml:11: ResourceSlice/s: spec.devices[0].taints[0].effect: Required value
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:19 (document 2): ResourceClaim/ns/c: spec.devices.requests[0].exactly.allocationMode: Unsupported value: \"Some\": supported values: \"All\", \"ExactCount\""
}

@test "validate 1.36: names in validation.go's formats, not the declarative ones" {
    local L64 L254
    L64=$(printf 'a%.0s' {1..64})
    L254=$(printf 'b%.0s' {1..254})
    validates "apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: c}
spec:
  extendedResourceName: requests.example.com/gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: r
      firstAvailable:
      - {name: s, deviceClassName: $L254}
    constraints:
    - {matchAttribute: a.b/}
    config:
    - opaque: {driver: -$L64, parameters: {}}
status:
  allocation:
    devices:
      results:
      - {request: r/s, driver: -a, pool: a/, device: d}
$(slice_doc s)
  sharedCounters:
  - {name: $L64, counters: {mem: {value: \"1\"}}}" --kubernetes-version 1.36
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.yaml:5: DeviceClass/c: spec.extendedResourceName: Invalid value: \"requests.example.com/gpu\": must be a valid extended resource name
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:15 (document 2): ResourceClaim/ns/c: spec.devices.requests[0].firstAvailable[0].deviceClassName: Invalid value: \"$L254\": must be no more than 253 characters
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:17 (document 2): ResourceClaim/ns/c: spec.devices.constraints[0].matchAttribute: Invalid value: \"\": the name must not be empty
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:19 (document 2): ResourceClaim/ns/c: spec.devices.config[0].opaque.driver: Too long: may not be more than 63 bytes
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:19 (document 2): ResourceClaim/ns/c: spec.devices.config[0].opaque.driver: Invalid value: \"-$L64\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:24 (document 2): ResourceClaim/ns/c: status.allocation.devices.results[0].driver: Invalid value: \"-a\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:24 (document 2): ResourceClaim/ns/c: status.allocation.devices.results[0].pool: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
dra-slice: $BATS_TEST_TMPDIR/doc.yaml:34 (document 3): ResourceSlice/s: spec.sharedCounters[0].name: Invalid value: \"$L64\": must be no more than 63 characters"
    # 1.37: the declarative formats
    validates "$(cat "$BATS_TEST_TMPDIR/doc.yaml")" --kubernetes-version 1.37
    [[ $stderr == *'spec.sharedCounters[0].name: Invalid value: "'$L64'": must be no more than 63 bytes'* ]]
    [[ $stderr == *'status.allocation.devices.results[0].pool: Invalid value: "a/": segment 1: must not be empty'* ]]
}

@test "validate 1.36: a validRange as 1.36 checks it, and a result's tolerations unchecked" {
    RANGE='{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"a.b","pool":{"name":"p","resourceSliceCount":1},"nodeName":"n","devices":[{"name":"d","allowMultipleAllocations":true,"capacity":{"mem":{"value":"10","requestPolicy":{"default":"1","validRange":{"min":"-1","max":"7","step":"2"}}},"io":{"value":"10","requestPolicy":{"default":"9","validRange":{"min":"2","max":"8","step":"-3"}}}}}]}}'
    validates "$RANGE" --kubernetes-version 1.36
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $BATS_TEST_TMPDIR/doc.json:1: ResourceSlice/s: spec.devices[0].capacity[io].requestPolicy.validRange.max: Invalid value: \"9\": default is more than max: 8
dra-slice: $BATS_TEST_TMPDIR/doc.json:1: ResourceSlice/s: spec.devices[0].capacity[io].requestPolicy.validRange.step: Invalid value: \"9\": value is not a multiple of a given step (-3) from (2)"
    validates "$RANGE" --kubernetes-version 1.37
    [[ $stderr == *'validRange.min: Invalid value: "-1": must be greater than or equal to 0'* ]]
    [[ $stderr == *'validRange.step: Invalid value: "-3": must be greater than zero'* ]]
    TOL='{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu"}}]}},"status":{"allocation":{"devices":{"results":[{"request":"r","driver":"a.b","pool":"p","device":"d","tolerations":[{"key":"-bad-","operator":"Foo","effect":"Bar"}]}]}}}}'
    validates "$TOL" --kubernetes-version 1.36
    assert_success
    assert_equal "$stderr" ""
    # their types still
    validates "${TOL/\"effect\":\"Bar\"/\"effect\":[\"x\"]}" --kubernetes-version 1.36
    assert_failure 2
    [[ $stderr == *'status.allocation.devices.results[0].tolerations[0].effect: Invalid value: ["x"]: must be of type string' ]]
    validates "$TOL" --kubernetes-version 1.37
    [[ $stderr == *'tolerations[0].operator: Unsupported value: "Foo"'* ]]
}
