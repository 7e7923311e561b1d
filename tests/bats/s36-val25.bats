#!/usr/bin/env bats
# dra-slice validate as the Kubernetes 1.37.2 API server validates, in the
# cases the differential suite (make upstream-check-validate) found.
bats_require_minimum_version 1.5.0
load helpers

# validates TEXT [OPTION...]: dra-slice validate (with the options) of a
# file holding TEXT (doc.json, or doc.yaml when TEXT is not JSON), its
# status and standard error
validates() {
    local f="$BATS_TEST_TMPDIR/doc.json"
    [[ $1 == '{'* || $1 == '['* ]] || f="$BATS_TEST_TMPDIR/doc.yaml"
    printf '%s\n' "$1" >"$f"
    shift
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$@" "$f"
}

@test "a device's taints beyond the 16 allowed: Too many, and each taint's effect still checked" {
    local t='{"key":"k"}' taints i
    taints=$t
    for i in {1..16}; do taints+=",$t"; done
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
