#!/usr/bin/env bats
# dra-slice validate gives the API server's answers: each fixture
# tests/data/validate-upstream/NAME.jsonl comes with NAME.expected, the
# problems the Kubernetes 1.37.2 API server's own code reports for it
# (regen.sh there, from upstream-validate; `make upstream-check-validate`
# compares thousands more), and NAME.args, the feature gates if any.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    # the expectations are the 1.37.2 peer's (tests/upstream/go.mod)
    export DRA_KUBERNETES_VERSION=1.37
    U="$DATA/validate-upstream"
}

# upstream NAME: dra-slice validate prints NAME.expected's problems (in any
# order) and exits 2, or nothing and 0 when none are expected.
upstream() {
    local n=$1 args=()
    [[ -f $U/$n.args ]] && read -ra args <"$U/$n.args"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "${args[@]}" "$U/$n.jsonl"
    local got want
    got=$(grep -v '^dra-slice: warning: ' <<<"$stderr" | sed "s|^dra-slice: $U/$n.jsonl:|dra-slice: FILE:|" | LC_ALL=C sort)
    want=$(cat "$U/$n.expected")
    [[ $got == "$want" ]] || { diff <(echo "$want") <(echo "$got"); false; }
    if [[ -n $want ]]; then assert_failure 2; else assert_success; fi
}

@test "the names of a claim's capacity requests are not checked (validation.go has no rule for them)" {
    upstream claim-capacity-request-names
}

@test "fields of disabled features are dropped before validation: drop-list-attributes" {
    upstream drop-list-attributes
}

@test "fields of disabled features are dropped before validation: drop-list-attributes-on" {
    upstream drop-list-attributes-on
}

@test "fields of disabled features are dropped before validation: drop-consumable-off" {
    upstream drop-consumable-off
}

@test "fields of disabled features are dropped before validation: drop-partitionable-off" {
    upstream drop-partitionable-off
}

@test "fields of disabled features are dropped before validation: drop-alpha-fields" {
    upstream drop-alpha-fields
}

@test "ownerReferences: each reference's problems at its index, with apimachinery 0.37's texts" {
    upstream owner-references
}

@test "a repeated request, subrequest, consumer, device status or counter set is reported whole, as Go renders it" {
    upstream duplicate-items
}

@test "conditions: a repeated type at the condition's index, empty fields \"Required value\" (metav1 ValidateConditions)" {
    upstream conditions
}

@test "admin access: upstream's path (requests[i].adminAccess), the status too, reported with the other errors" {
    upstream admin-access
}

@test "shareID: the declarative k8s-uuid format (\"must be a lowercase UUID in 8-4-4-4-12 format\")" {
    upstream share-id
}

@test "names: label keys and values, counter sets, subrequest classes, result drivers and pools in the declarative formats' words" {
    upstream name-formats
}

@test "a null list item or map value is Go's zero struct: defaulted and validated as one" {
    upstream null-items
}

@test "pods: containers' claims as validateResourceClaimNames checks them (requests, repeats, the names there are)" {
    upstream pod-container-claims
}

@test "zero values: a capacity without a value is 0, a null string in a list is \"\"" {
    upstream zero-values
}

@test "values of validation.go's errors are internal types: Go names, nil as null" {
    upstream internal-values
    upstream internal-values-partition
}

@test "ResourcePoolStatusRequest: the declarative spec (caseless driver, pool segments, limit 1..1000)" {
    upstream pool-status-request
}

@test "skipNodeOperations: the declarative enum and uniqueness" {
    upstream skip-node-operations
}

@test "label keys with two slashes, repeated empty binding conditions" {
    upstream label-keys-binding
}

@test "derived attributes: each referenced by a constraint on its request, items checked past the limit" {
    upstream derived-attributes
}

@test "compatibility groups: at most 2, short names, no repeats" {
    upstream compatibility-groups
}

@test "finalizers: qualified names, standard names without a domain, not orphan and foregroundDeletion both" {
    upstream finalizers
}

@test "a Namespace's name is also its kubernetes.io/metadata.name label value" {
    upstream namespace-label
}

# What the API server cannot decode it refuses as a whole ("decode: ..."),
# in words dra-slice need not share; dra-slice must refuse the same objects,
# and take what decodes into a zero value.
@test "decoding: resource quantities, annotation values and claim lists of a pod; a null quantity is 0" {
    cat >"$BATS_TEST_TMPDIR/decode.jsonl" <<'JSON'
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","annotations":{"a":1}},"spec":{"containers":[{"name":"a","resources":{"requests":{"example.com/gpu":"a/"},"limits":{"cpu":"1"},"claims":1}}]}}
{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c","capacity":{"requests":{"x":null}}}}]}}}
JSON
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/decode.jsonl"
    assert_failure 2
    [[ $stderr == *'Pod/default/p: metadata.annotations[a]: Invalid value: 1: must be of type string'* ]]
    [[ $stderr == *"Pod/default/p: spec.containers[0].resources.requests[example.com/gpu]: Invalid value: \"a/\": quantities must match"* ]]
    [[ $stderr == *'Pod/default/p: spec.containers[0].resources.claims: Invalid value: 1: must be of type array'* ]]
    [[ $stderr != *ResourceClaim/default/c* ]]
}

@test "decoding: a wrong type in a field of a disabled feature is refused before the field is dropped" {
    cat >"$BATS_TEST_TMPDIR/dropped.jsonl" <<'JSON'
{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"dra.example.com","pool":{"name":"p","resourceSliceCount":1},"nodeName":"n","sharedCounters":[{"name":"cs","counters":{"c":1}}]}}
JSON
    run --separate-stderr "$DRA_BIN/dra-slice" validate --feature-gates DRAPartitionableDevices=false "$BATS_TEST_TMPDIR/dropped.jsonl"
    assert_failure 2
    [[ $stderr == *'ResourceSlice/s: spec.sharedCounters[0].counters[c]: Invalid value: 1: must be of type object'* ]]
}

@test "extendedResourceName: the declarative k8s-extended-resource-name format's words" {
    upstream extended-resource-name
}

@test "values are written as encoding/json writes them: <, > and & escaped" {
    upstream html-escape
}

@test "decoding: an allocation result's consumed capacity must be quantities" {
    cat >"$BATS_TEST_TMPDIR/consumed.jsonl" <<'JSON'
{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c"}}]}},"status":{"allocation":{"devices":{"results":[{"request":"r","driver":"dra.example.com","pool":"p","device":"d","consumedCapacity":{"memory":"1.5.5"}}]}}}}
JSON
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/consumed.jsonl"
    assert_failure 2
    [[ $stderr == *'status.allocation.devices.results[0].consumedCapacity[memory]: Invalid value: "1.5.5": quantities must match'* ]]
}

@test "validate -v prints every error, not ten of a kind and a hundred in all" {
    for i in $(seq 1 250); do printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"Bad_%d"}}\n' "$i"; done >"$BATS_TEST_TMPDIR/bad.jsonl"
    for i in $(seq 1 30); do printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"c%d","labels":{"-x%d":"y"}}}\n' "$i" "$i"; done >>"$BATS_TEST_TMPDIR/bad.jsonl"
    run --separate-stderr "$DRA_BIN/dra-slice" validate -v "$BATS_TEST_TMPDIR/bad.jsonl"
    assert_failure 2
    [[ $(grep -c 'bad.jsonl:[0-9].*: DeviceClass/Bad_' <<<"$stderr") -eq 250 ]]
    [[ $(grep -c 'bad.jsonl:[0-9].*: DeviceClass/c[0-9]*: metadata.labels' <<<"$stderr") -eq 30 ]]
    [[ $stderr != *"more like the one above"* && $stderr != *"more errors"* ]]
}

@test "a slice of over 128 devices, one of them advanced, may have at most 64 (validateResourceSliceSpec)" {
    upstream slice-device-limit
}

@test "keys repeated in JSON inside opaque parameters are kept as bytes, not refused (RawExtension)" {
    upstream json-duplicates
}

@test "a key repeated in JSON is a duplicate field by its path, as the strict decoder says" {
    printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},"spec":{"containers":[{"name":"app","image":"i","image":"j"}]}}\n' >"$BATS_TEST_TMPDIR/p.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/p.json"
    assert_failure 2
    [[ $stderr == "dra-slice: $BATS_TEST_TMPDIR/p.json:1:133: duplicate field \"spec.containers[0].image\"" ]]
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"twice"},"spec":{"selectors":[{"cel":{"expression":"true","expression":"false"}}]}}\n' >"$BATS_TEST_TMPDIR/c.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/c.json"
    assert_failure 2
    [[ $stderr == *": duplicate field \"spec.selectors[0].cel.expression\"" ]]
}

@test "past the devices' limit, each device's declarative errors are still reported" {
    upstream device-limit-declarative
}

@test "a v1beta1 slice's declarative errors name the device's fields under basic" {
    upstream v1beta1-declarative-paths
}
