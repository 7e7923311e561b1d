#!/usr/bin/env bats
# Release-fidelity gaps of the tools against the releases they follow
# (--kubernetes-version 1.36, 1.37, 1.38): the upstream file each case
# reads is named above it.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    T=$BATS_TEST_TMPDIR
    A="$DATA/alloc"
    NOW="--now 2026-02-01T00:00:00Z"
}

# Pod huge asking for $1 example.com/gpu (class gpu's extendedResourceName),
# pod small for one big-gpu; no node serves example.com/gpu itself.
ext_pods() {
    sed 's/, example.com\/gpu: "4"//' "$A/sched-cluster.yaml" >"$T/c.yaml"
    cat >"$T/pods.yaml" <<Y
apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: default, uid: uid-huge}
spec:
  containers:
  - name: main
    resources: {requests: {example.com/gpu: "$1"}}
---
apiVersion: v1
kind: Pod
metadata: {name: small, namespace: default, uid: uid-small}
spec:
  containers:
  - name: main
    resources: {requests: {deviceclass.resource.kubernetes.io/big-gpu: "1"}}
Y
}

# k8s.io/kubernetes v1.38.0-beta.0 pkg/scheduler/framework/plugins/
# dynamicresources: createResourceRequestAndMappings takes the request's
# AsInt64 as the special claim's count; the allocator's claim limit is an
# error status of Filter (dynamicresources.go), the pod's PodScheduled says
# SchedulerError with the framework's "running ... filter plugin" words and
# the scheduler goes on.  A 19-digit request is an int64 from 1.38 on
# (apimachinery maxInt64Factors 19), an inf.Dec before (AsInt64 false: no
# request).
@test "schedule: a special claim past the claim limit keeps its pod pending with SchedulerError" {
    for args in "1000000000000000000 1.38" "33 1.37" "33 1.36" "33 1.38 --no-prune"; do
        read -r n v extra <<<"$args"
        ext_pods "$n"
        run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --kubernetes-version "$v" $extra -o jsonl "$T/c.yaml" "$T/pods.yaml"
        assert_failure 1
        msg="running \"DynamicResources\" filter plugin: claim default/<extended-resources>, request container-0-request-0: adding $n devices exceeds the claim limit of 32, with 0 already accounted for"
        assert_equal "$stderr" "dra-alloc: pod default/huge: $msg"
        run jq -c 'select(.kind == "Pod") | [.metadata.name, .spec.nodeName, (.status.conditions // [] | map(.reason + ": " + .message))]' <<<"$output"
        assert_output "[\"huge\",null,[\"SchedulerError: ${msg//\"/\\\"}\"]]
[\"small\",\"node-c\",[]]"
    done
}

@test "schedule: a 19-digit extended-resource request asks for no device before 1.38" {
    ext_pods 1000000000000000000
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --kubernetes-version 1.37 -o jsonl "$T/c.yaml" "$T/pods.yaml"
    assert_success
    run jq -c 'select(.kind == "ResourceClaim" and .metadata.ownerReferences[0].name == "huge") | .spec.devices.requests' <<<"$output"
    assert_output '[]'
}

# k8s.io/kubernetes v1.38.0-beta.0 pkg/controller/resourcepoolstatusrequest
# views.go computeShareableSummary: the total is Quantity.Add over the
# devices, the available nonNegativeDiff's Sub; apimachinery
# v0.38.0-beta.0's Add and Sub round an operand more than 29 orders of
# magnitude finer than the other (amount.go boundScaleGap), v0.37.2's are
# exact.  upstream-cel 1.38 says quantity('1e40').add(quantity('1')) is
# 10000000000000000000000000000100e9.
@test "pool-status: a shareable capacity is summed and subtracted by the release's rules" {
    cat >"$T/in.jsonl" <<'J'
{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s1"},"spec":{"driver":"gpu.example.com","nodeName":"node-a","pool":{"name":"p","generation":1,"resourceSliceCount":1},"devices":[{"name":"d0","allowMultipleAllocations":true,"capacity":{"mem":{"value":"1e40"}}},{"name":"d1","allowMultipleAllocations":true,"capacity":{"mem":{"value":"1"}}}]}}
{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"x"}}]}},"status":{"allocation":{"devices":{"results":[{"request":"r","driver":"gpu.example.com","pool":"p","device":"d1","consumedCapacity":{"mem":"1"}}]}}}}
J
    for v in 1.37 1.38; do
        run --separate-stderr "$DRA_BIN/dra-slice" pool-status --driver gpu.example.com --kubernetes-version "$v" \
            --feature-gates DRAResourcePoolStatus=true,DRAConsumableCapacity=true --now 2026-01-01T00:00:00Z -o json "$T/in.jsonl"
        assert_success
        want='["10000000000000000000000000000000000000001","1","10e39"]'
        [[ $v == 1.38 ]] && want='["10000000000000000000000000000100e9","1","10000000000000000000000000000099999999999"]'
        run jq -c '.status.pools[0].shareableSummary.capacity[0] | [.total, .consumed, .available]' <<<"$output"
        assert_output "$want"
    done
}

# k8s.io/apimachinery v0.37.2 pkg/util/yaml/decoder.go YAMLReader.Read (the
# same in v0.36.3 and v0.38.0-beta.0): a line opening with "---" is a
# document separator only with nothing but white space or a comment after
# it; kubectl refuses any other ("error parsing FILE: invalid Yaml
# document separator: foo"), the first line of the file too.
@test "input: a --- line with more than a comment after it is refused as kubectl refuses it" {
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n--- foo\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n' >"$T/a.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "$T/a.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-alloc: $T/a.yaml:4:5 (document 2): invalid Yaml document separator: foo (kubectl allows only white space or a comment after ---)"
    printf -- '---{a: 1}\n' >"$T/b.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$T/b.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $T/b.yaml:1:4: invalid Yaml document separator: {a: 1} (kubectl allows only white space or a comment after ---)"
    # a comment, spaces, a tab, CR LF: separators as before
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---   # c\n---\t\r\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n---#c\n' >"$T/c.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$T/c.yaml"
    assert_success
}

# k8s.io/cli-runtime v0.37.2 pkg/resource/visitor.go StreamVisitor.Visit:
# kubectl skips a document whose JSON is empty or null (blank, comments
# only, a lone "---", "~"); the documents the tools number are the others
# (the validation peer counts the same: tests/upstream/validate).
@test "input: documents kubectl skips are not numbered" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$DATA/robustness/empty-docs.yaml"
    assert_failure 2
    [[ $stderr == "dra-slice: $DATA/robustness/empty-docs.yaml:17 (document 2): DeviceClass/Bad_Name: metadata.name: Invalid value: "* ]]
    printf -- '---\n---\n---\nx\n' >"$T/x.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/x.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-slice: $T/x.yaml:4: document is a string; expected an object or a List"
}

@test "validate: null constraint requests are duplicates of each other, as Go decodes them to \"\"" {
    # every release's API server decodes a null item of a []string as "":
    # requests[1] and on are each a Duplicate value of requests[0]
    # (k8s.io/kubernetes pkg/apis/resource/validation validateDeviceConstraint)
    printf '%s\n' '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"zv","namespace":"default"},"spec":{"devices":{"requests":[{"name":"a","exactly":{"deviceClassName":"c"}}],"constraints":[{"requests":[null,"",null],"matchAttribute":"dra.example.com/x"}]}}}' >"$BATS_TEST_TMPDIR/c.json"
    for v in 1.36 1.37 1.38; do
        run -2 "$DRA_BIN/dra-slice" validate --kubernetes-version "$v" -o json "$BATS_TEST_TMPDIR/c.json"
        [[ $(jq -c '[.[] | select(.message == "Duplicate value: \"\"") | .field]' <<<"$output") == '["spec.devices.constraints[0].requests[1]","spec.devices.constraints[0].requests[2]"]' ]]
    done
}
