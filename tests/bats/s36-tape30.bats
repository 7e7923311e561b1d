#!/usr/bin/env bats
# Big JSON Lists read item by item through the tape: the same objects,
# errors and places as the same objects read as JSON Lines or whole.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    S="$DRA_BIN/dra-slice"
    T=$BATS_TEST_TMPDIR
    "$S" profile gpu --nodes 300 --devices 4 -o jsonl >"$T/s.jsonl"
}

# list FILE KIND APIVERSION: JSON Lines as a kubectl List, an item a line
list() {
    { printf '{"apiVersion":"%s","items":[\n' "$3"; sed '$!s/$/,/' "$1"; printf '],"kind":"%s","metadata":{"resourceVersion":""}}\n' "$2"; }
}

@test "a big List validates as its items do as JSON Lines" {
    list "$T/s.jsonl" List v1 >"$T/l.json"
    [ "$(stat -c %s "$T/l.json")" -gt 65536 ]
    run --separate-stderr "$S" validate -o json "$T/s.jsonl"
    assert_success
    want=$output
    run --separate-stderr "$S" validate -o json "$T/l.json"
    assert_success
    [ "$output" = "$want" ]
}

@test "a typed List's items, typed by it, are the same objects as the typed ones" {
    # items without kind or apiVersion (as the API server lists them): each
    # the same object as the one with them, so the repeat is one object
    sed 's/"apiVersion":"resource.k8s.io\/v1","kind":"ResourceSlice",//' "$T/s.jsonl" >"$T/untyped.jsonl"
    run grep -c '"kind"' "$T/untyped.jsonl"
    assert_output 0
    list "$T/untyped.jsonl" ResourceSliceList resource.k8s.io/v1 >"$T/typed.json"
    head -n 1 "$T/s.jsonl" >"$T/one.jsonl"
    run --separate-stderr "$S" validate "$T/typed.json" "$T/one.jsonl"
    assert_success
    run --separate-stderr "$S" validate "$T/typed.json" "$T/typed.json"
    assert_success
}

@test "a repeated field in one item of a big List names the item's line" {
    sed '101s/"spec":{/"spec":{"driver":"x.example.com",/' "$T/s.jsonl" >"$T/dup.jsonl"
    list "$T/dup.jsonl" List v1 >"$T/l.json"
    run --separate-stderr "$S" validate "$T/l.json"
    assert_failure 2
    [[ $stderr == *"l.json:102:"*'duplicate field "spec.driver"'* ]]
    run --separate-stderr "$S" validate --validate=warn "$T/l.json"
    [[ $stderr == *"l.json:102:"*'duplicate field "spec.driver"'* ]]
}

@test "invalid JSON in a big List: jansson's error at its place, nothing on stdout" {
    sed '151s/.....$//' "$T/s.jsonl" >"$T/bad.jsonl"
    list "$T/bad.jsonl" List v1 >"$T/l.json"
    run --separate-stderr "$S" validate "$T/l.json"
    assert_failure 2
    assert_output ""
    [[ $stderr == *"l.json:153:1: invalid JSON: "* ]]
}

@test "a List in a big List, and a scalar item" {
    { printf '{"apiVersion":"v1","kind":"List","items":['; head -n 20 "$T/s.jsonl" | paste -sd, | tr -d '\n'; printf ']}\n'; } >"$T/inner.json"
    { tail -n +21 "$T/s.jsonl"; cat "$T/inner.json"; } >"$T/mixed.jsonl"
    list "$T/mixed.jsonl" List v1 >"$T/l.json"
    run --separate-stderr "$S" validate -o json "$T/l.json"
    assert_success
    n=$(jq length <<<"$output")
    [ "$n" = "$(jq length <<<"$("$S" validate -o json "$T/s.jsonl")")" ]
    { tail -n +21 "$T/s.jsonl"; echo 42; } >"$T/scalar.jsonl"
    list "$T/scalar.jsonl" List v1 >"$T/l2.json"
    run --separate-stderr "$S" validate "$T/l2.json"
    assert_failure 2
    [[ $stderr == *"items[280]: expected an object"* ]]
}
