#!/usr/bin/env bats
# dra-slice validate answers as the Kubernetes 1.37.2 API server does, in
# the cases the differential suite (make upstream-check-validate) found.
bats_require_minimum_version 1.5.0
load helpers

@test "generateName is checked as a name prefix, beside the name, but not a DeviceClass's" {
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","generateName":"2Ei"}}'
    assert_failure 2
    [[ $stderr == *'ResourceClaim/ns/c: metadata.generateName: Invalid value: "2Ei": a lowercase RFC 1123 subdomain'* ]]
    # a trailing dash stands for the generated suffix (maskTrailingDash)
    validates '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n","generateName":"Ab-"}}'
    assert_failure 2
    [[ $stderr == *'Namespace/n: metadata.generateName: Invalid value: "Ab-": a lowercase RFC 1123 label'* ]]
    validates '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n","generateName":"a.b"}}'
    assert_failure 2
    [[ $stderr == *'Namespace/n: metadata.generateName: Invalid value: "a.b": must not contain dots'* ]]
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","generateName":"x.-"}}'
    assert_success
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s","generateName":"ok-"},"spec":{"driver":"d.example.com","pool":{"name":"p","resourceSliceCount":1},"allNodes":true}}'
    assert_success
    # a DeviceClass's metadata is checked by ValidateObjectMetaWithOpts: its name only
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a","generateName":"2Ei"}}'
    assert_success
}

@test "a quantity with white space around it in the JSON text is read as without (Quantity.UnmarshalJSON)" {
    local d='{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"d.example.com","pool":{"name":"p","resourceSliceCount":1},"allNodes":true,"devices":[{"name":"a","capacity":{"mem":{"value":VALUE}}}]}}'
    validates "${d/VALUE/'" 1Gi "'}"
    assert_success
    validates "${d/VALUE/'"'$'\xc2\xa0''1"'}"
    assert_success
    # an escaped one is not white space to upstream's decoder, which sees the text
    validates "${d/VALUE/'"1\t"'}"
    assert_failure 2
    [[ $stderr == *'quantities must match the regular expression'* ]]
    validates "${d/VALUE/'"1 x"'}"
    assert_failure 2
}

@test "a problem found twice in one object is reported once, as the API server's message lists it" {
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"n","ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"a","uid":"u0","controller":true},{"apiVersion":"batch/v1","kind":"Job","name":"b","uid":"u1","controller":true},{"apiVersion":"batch/v1","kind":"Job","name":"b","uid":"u2","controller":true}]}}'
    assert_failure 2
    local n
    n=$(grep -c 'Only one reference can have Controller set to true. Found "true" in references for Pod/a and Job/b' <<<"$stderr")
    [[ $n -eq 1 ]] || { echo "$n times: $stderr"; false; }
}

@test "a number given as apiVersion or kind in JSON is echoed as written" {
    local v
    for v in 1e3 -0 9223372036854775808 -9223372036854775809 1.2345678901 1E+3; do
        validates '{"apiVersion":"v1","kind":'"$v"',"metadata":{"name":"a"}}'
        assert_failure 2
        [[ $stderr == *"object/a: kind: Invalid value: $v: must be of type string"* ]] || { echo "$v: $stderr"; false; }
    done
    # a List's item, from standard input
    printf '%s\n' '{"apiVersion":"v1","kind":"List","items":[{"apiVersion":-0,"kind":"Node","metadata":{"name":"a"}}]}' >"$BATS_TEST_TMPDIR/l.json"
    run --separate-stderr "$DRA_BIN/dra-slice" validate - <"$BATS_TEST_TMPDIR/l.json"
    assert_failure 2
    [[ $stderr == *"Node/a: apiVersion: Invalid value: -0: must be of type string"* ]]
}

@test "an attribute with one value and an empty list is refused by validation.go's union rule" {
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"d.example.com","nodeName":"n","pool":{"name":"p","resourceSliceCount":1},"devices":[{"name":"d","attributes":{"a":{"int":1,"strings":[]}}}]}}' \
        --feature-gates DRAListTypeAttributes=true
    assert_failure 2
    [[ $stderr == *'attributes[a].strings: Invalid value: []: must not be empty if specified'* ]]
    [[ $stderr == *'attributes[a]: Invalid value: {"IntValue":1,"BoolValue":null,"StringValue":null,"VersionValue":null,"IntValues":null,"BoolValues":null,"StringValues":[],"VersionValues":null}: exactly one value must be specified'* ]] || { echo "$stderr"; false; }
}

@test "null in a list attribute's ints or bools is Go's zero value, as in strings" {
    local a
    for a in '{"ints":[null,2]}' '{"bools":[null]}' '{"strings":[null]}'; do
        validates '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"d.example.com","nodeName":"n","pool":{"name":"p","resourceSliceCount":1},"devices":[{"name":"d","attributes":{"a":'"$a"'}}]}}' \
            --feature-gates DRAListTypeAttributes=true
        [[ $status -eq 0 ]] || { echo "$a: $stderr"; false; }
    done
}
