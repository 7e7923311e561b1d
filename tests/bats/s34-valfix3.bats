#!/usr/bin/env bats
# dra-slice validate reads files as kubectl and the Kubernetes 1.37.2 API
# server do, in the cases the differential suite (make
# upstream-check-validate) found.
bats_require_minimum_version 1.5.0
load helpers

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
    [[ $stderr == *'DeviceClass/a: metadata.generation: Invalid value: 99999999999999999999: must be of type integer'* ]]
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

@test "a v1beta1 claim's declarative errors name its own fields, as the API server's" {
    local r='{"name":"a","deviceClassName":"x","allocationMode":"Foo","tolerations":[{"key":"a b","operator":"Bad","effect":"Worse"},{"key":"k","operator":"Exists","value":"v"}]},{"name":"c"},{"name":"a","deviceClassName":"x"}'
    validates '{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"d"},"spec":{"devices":{"requests":['"$r"']}}}'
    assert_failure 2
    [[ $stderr == *'spec.devices.requests[0].allocationMode: Unsupported value: "Foo"'* ]]
    [[ $stderr == *'spec.devices.requests[0].tolerations[0].key: Invalid value: "a b"'* ]]
    [[ $stderr == *'spec.devices.requests[0].tolerations[0].operator: Unsupported value: "Bad"'* ]]
    [[ $stderr == *'spec.devices.requests[0].tolerations[0].effect: Unsupported value: "Worse"'* ]]
    # validation.go's own errors keep the internal path
    [[ $stderr == *'spec.devices.requests[0].exactly.tolerations[1].value: Invalid value: "v": must be empty for operator `Exists`'* ]]
    # no main field: no `exactly` (hasAnyMainRequestFieldsSet)
    [[ $stderr == *'spec.devices.requests[1]: Required value: exactly one of `exactly` or `firstAvailable` is required'* ]]
    [[ $stderr == *'spec.devices.requests[2]: Duplicate value: {"name":"a","deviceClassName":"x","allocationMode":"ExactCount","count":1}'* ]]
    [[ $stderr != *'exactly.allocationMode'* && $stderr != *'exactly.deviceClassName'* ]]
    # a template's too, and its derived attributes are converted
    validates '{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaimTemplate","metadata":{"name":"c","namespace":"d"},"spec":{"spec":{"devices":{"requests":[{"name":"a","deviceClassName":"x","allocationMode":"Foo","derivedAttributes":[{"name":"bad name","expression":""}]}]}}}}' --feature-gates DRADerivedAttributes=true
    assert_failure 2
    [[ $stderr == *'spec.spec.devices.requests[0].allocationMode: Unsupported value: "Foo"'* ]]
    [[ $stderr == *'spec.spec.devices.requests[0].derivedAttributes[0].expression: Required value'* ]]
    [[ $stderr == *'spec.spec.devices.requests[0].exactly.derivedAttributes[0].name: Invalid value: "bad name": must be referenced by at least one'* ]]
}

@test "invalid UTF-8 and lone surrogates in JSON strings are U+FFFD, as Go's encoding/json reads them" {
    validates $'{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a\xff\xfeb"}}'
    assert_failure 2
    [[ $stderr == *$'DeviceClass/a\ufffd\ufffdb: metadata.name: Invalid value: "a\ufffd\ufffdb": a lowercase RFC 1123 subdomain'* ]]
    validates '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"ok","labels":{"a":"\ud800x"}}}'
    assert_failure 2
    [[ $stderr == *$'metadata.labels: Invalid value: "\ufffdx"'* ]]
}

@test "a document that is a list, or a List without items, is refused as kubectl refuses it" {
    validates '[{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"a"}}]'
    assert_failure 2
    [[ $stderr == *'doc.json:1: document is a list; expected an object or a List'* ]]
    validates $'- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n  metadata: {name: a}'
    assert_failure 2
    [[ $stderr == *'doc.yaml:1: document is a list; expected an object or a List'* ]]
    validates '{"kind":"List"}'
    assert_failure 2
    [[ $stderr == *'<unnamed List>: apiVersion: Required value: object has no apiVersion'* ]]
    # items: null is a List of none
    validates '{"apiVersion":"v1","kind":"List","items":null}'
    assert_success
    # an inventory of devices may still be a list
    printf '[{"name":"d0"}]\n' >"$BATS_TEST_TMPDIR/devices.json"
    run --separate-stderr "$DRA_BIN/dra-slice" build --driver d.example.com --node n "$BATS_TEST_TMPDIR/devices.json"
    assert_success
    [[ $output == *'name: d0'* ]]
}
