#!/usr/bin/env bats
# Recorded watch events are read as jansson reads them, through the fast
# parser where it reads them alike: a repeated key keeps its last value,
# and what jansson refuses (an integer past int64, invalid UTF-8, an
# unpaired surrogate escape) is still a broken line, named by file and line.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    W="$BATS_TEST_TMPDIR"
    T='"time":"2026-03-01T10:00:00Z","type":"ADDED"'
    POD='"apiVersion":"v1","kind":"Pod"'
}

replay() {
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -w --replay "$1" --replay-fast -A
}

@test "s38-json30: a repeated key in a recorded event keeps its last value" {
    printf '{%s,"object":{%s,"metadata":{"name":"a","name":"b","namespace":"ns"}}}\n' "$T" "$POD" >"$W/dup.rec"
    replay "$W/dup.rec"
    assert_success
    assert_output '{"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"b","namespace":"ns"}}}'
}

@test "s38-json30: a recorded event jansson refuses is a broken line" {
    printf '{%s,"object":{%s,"metadata":{"name":"a","namespace":"ns"}}}\n' "$T" "$POD" >"$W/big.rec"
    printf '{%s,"object":{%s,"metadata":{"name":"c","generation":123456789012345678901234567890}}}\n' "$T" "$POD" >>"$W/big.rec"
    replay "$W/big.rec"
    assert_failure 2
    assert_output '{"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ns"}}}'
    [[ $stderr == *"$W/big.rec:2: not a recorded watch event"* ]]
    printf '{%s,"object":{%s,"metadata":{"name":"a\xff"}}}\n' "$T" "$POD" >"$W/utf8.rec"
    replay "$W/utf8.rec"
    assert_failure 2
    [[ $stderr == *"$W/utf8.rec:1: not a recorded watch event"* ]]
    printf '{%s,"object":{%s,"metadata":{"name":"\\ud800"}}}\n' "$T" "$POD" >"$W/surrogate.rec"
    replay "$W/surrogate.rec"
    assert_failure 2
    [[ $stderr == *"$W/surrogate.rec:1: not a recorded watch event"* ]]
}
