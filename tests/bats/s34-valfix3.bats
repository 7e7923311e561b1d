#!/usr/bin/env bats
# dra-slice validate reads files as kubectl and the Kubernetes 1.37.2 API
# server do, in the cases the differential suite (make
# upstream-check-validate) found.
bats_require_minimum_version 1.5.0
load helpers

# validates TEXT [OPTION...]: dra-slice validate (with the options) of a
# file holding TEXT (named doc.json, or doc.yaml when TEXT is not JSON),
# its status and standard error
validates() {
    local f="$BATS_TEST_TMPDIR/doc.json"
    [[ $1 == '{'* || $1 == '['* ]] || f="$BATS_TEST_TMPDIR/doc.yaml"
    printf '%s\n' "$1" >"$f"
    shift
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$@" "$f"
}

@test "a JSON number beyond int64 or double refuses its object only, as Go's json.Number does" {
    local ok='{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"ok"}}'
    validates "$ok"$'\n''{"apiVersion":1e400,"kind":"DeviceClass","metadata":{"name":"a"}}'$'\n'"$ok"
    assert_failure 2
    [[ $stderr == *'doc.json:2 (document 2): DeviceClass/a: apiVersion: Invalid value: 1e400: must be of type string'* ]]
    [[ $stderr != *'invalid JSON'* ]]
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a","generation":-1e400}}'
    assert_failure 2
    [[ $stderr == *'DeviceClass/a: metadata.generation: Invalid value: '*': must be of type integer'* ]]
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a","generation":99999999999999999999}}'
    assert_failure 2
    [[ $stderr == *'DeviceClass/a: metadata.generation: Invalid value: 1e20: must be of type integer'* ]]
    # longer than the fast reader's number buffer
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a","generation":1234567890123456789012345678901234567890123456789012345678901234567890e400}}'
    assert_failure 2
    [[ $stderr == *'DeviceClass/a: metadata.generation: Invalid value: '*': must be of type integer'* ]]
}

@test "a YAML float beyond double is a string, as go-yaml v2 resolves it" {
    validates $'apiVersion: resource.k8s.io/v1\nkind: 1e400\nmetadata: {name: a}'
    assert_failure 2
    [[ $stderr == *'1e400/a: kind: no matches for kind "1e400" in version "resource.k8s.io/v1"'* ]]
    validates $'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a, labels: {x: 1e400}}'
    assert_success
    validates $'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a, labels: {x: .nan}}'
    assert_failure 2
    [[ $stderr == *'.nan cannot be represented in JSON'* ]]
}
