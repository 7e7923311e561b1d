#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-alloc schedule: the created claims are written from the text they are
# held as; every output format says the same as before.
load helpers

setup() {
    T="$BATS_TEST_TMPDIR"
    cat >"$T/in.jsonl" <<'JSON'
{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \"gpu.example.com\""}}]}}
{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"gpu.example.com","pool":{"name":"node-0","generation":1,"resourceSliceCount":1},"nodeName":"node-0","devices":[{"name":"gpu-0"}]}}
{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-0"}}
{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ns"},"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu"}}],"config":[{"opaque":{"driver":"gpu.example.com","parameters":{"note":"tab\there\nnew \u0001 \"q\" \\ é","ratio":1e+20,"small":1.5e-07,"whole":100.0,"big":12345678901234567890}}}]}}}}
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","uid":"u1"},"spec":{"containers":[{"name":"c"}],"resourceClaims":[{"name":"g","resourceClaimTemplateName":"t"}]}}
JSON
}

@test "schedule -o jsonl: a created claim's escapes and reals as every JSON line is written" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl "$T/in.jsonl"
    assert_success
    [[ ${#lines[@]} -eq 2 ]]
    want='"parameters":{"note":"tab\there\nnew \u0001 \"q\" \\ é","ratio":1e20,"small":1.4999999999999999e-7,"whole":100.0,"big":1.2345678901234567e19}'
    # in the spec and in status.allocation.devices.config
    [[ $(grep -oF "$want" <<<"${lines[0]}" | wc -l) -eq 2 ]]
    [[ ${lines[0]} == *'"reservedFor":[{"resource":"pods","name":"p","uid":"u1"}]'* ]]
    [[ ${lines[1]} == *'"nodeName":"node-0"'* ]]
}

@test "schedule: -o json and -o yaml say what -o jsonl says" {
    "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl "$T/in.jsonl" >"$T/l"
    "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o json "$T/in.jsonl" >"$T/j"
    "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o yaml "$T/in.jsonl" >"$T/y"
    run jq -c '.items[]' "$T/j"
    assert_success
    jq -c . "$T/l" >"$T/l.jq"
    [[ $output == "$(cat "$T/l.jq")" ]]
    run grep -c '^kind: ResourceClaim$\|^kind: Pod$' "$T/y"
    assert_output 2
    run grep -cF 'note: "tab\there\nnew \x01 \"q\" \\ é"' "$T/y"
    assert_output 2
}
