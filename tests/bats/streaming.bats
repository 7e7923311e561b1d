#!/usr/bin/env bats
# Streaming input: dra-slice validate reads one document at a time; errors
# in the middle of a long stream name their file and line, and fail the run.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    S="$DRA_BIN/dra-slice"
}

@test "validate streams 10,000 JSON Lines from a file and from stdin" {
    "$S" profile gpu --nodes 10000 --devices 1 -o jsonl >"$BATS_TEST_TMPDIR/f.jsonl"
    run --separate-stderr "$S" validate "$BATS_TEST_TMPDIR/f.jsonl"
    assert_success
    assert_output ""
    run --separate-stderr "$S" validate <"$BATS_TEST_TMPDIR/f.jsonl"
    assert_success
    run --separate-stderr bash -c "cat '$BATS_TEST_TMPDIR/f.jsonl' | '$S' validate -v"
    assert_success
}

@test "validate: a truncated line in the middle of 10,000 names file:line and exits 2" {
    "$S" profile gpu --nodes 10000 --devices 1 -o jsonl >"$BATS_TEST_TMPDIR/f.jsonl"
    f=$BATS_TEST_TMPDIR/bad.jsonl
    { head -n 4999 "$BATS_TEST_TMPDIR/f.jsonl"; sed -n 5000p "$BATS_TEST_TMPDIR/f.jsonl" | cut -c1-60; tail -n 5000 "$BATS_TEST_TMPDIR/f.jsonl"; } >"$f"
    run --separate-stderr "$S" validate "$f"
    assert_failure 2
    assert_output ""
    [[ $stderr == *"bad.jsonl:5000:"*"(document 5000): invalid JSON"* ]]
    # the same from stdin
    run --separate-stderr "$S" validate <"$f"
    assert_failure 2
    [[ $stderr == *"<stdin>:5000:"*"invalid JSON"* ]]
}

@test "validate: an invalid object in the middle of a stream is named with its line; the rest is still checked" {
    "$S" profile gpu --nodes 3000 --devices 1 -o jsonl >"$BATS_TEST_TMPDIR/f.jsonl"
    f=$BATS_TEST_TMPDIR/bad.jsonl
    sed -e '1500s/"driver":"gpu.example.com"/"driver":"Not A Driver"/' \
        -e '2500s/"name":"gpu-0"/"name":"GPU_0"/' "$BATS_TEST_TMPDIR/f.jsonl" >"$f"
    run --separate-stderr "$S" validate "$f"
    assert_failure 2
    [[ $stderr == *"bad.jsonl:1500 (document 1500): ResourceSlice/"*"spec.driver"* ]]
    [[ $stderr == *"bad.jsonl:2500 (document 2500): ResourceSlice/"*"spec.devices[0].name"* ]]
}

@test "validate: a duplicate object far apart in a stream is found; an identical repeat is one object" {
    "$S" profile gpu --nodes 2000 --devices 1 -o jsonl >"$BATS_TEST_TMPDIR/f.jsonl"
    { cat "$BATS_TEST_TMPDIR/f.jsonl"; head -n 1 "$BATS_TEST_TMPDIR/f.jsonl"; } >"$BATS_TEST_TMPDIR/same.jsonl"
    run --separate-stderr "$S" validate -v "$BATS_TEST_TMPDIR/same.jsonl"
    assert_success
    [[ $stderr == *"1 object given more than once, identical: counted once"* ]]
    { cat "$BATS_TEST_TMPDIR/f.jsonl"; head -n 1 "$BATS_TEST_TMPDIR/f.jsonl" | sed 's/"generation":1/"generation":2/'; } >"$BATS_TEST_TMPDIR/dup.jsonl"
    run --separate-stderr "$S" validate "$BATS_TEST_TMPDIR/dup.jsonl"
    assert_failure 2
    [[ $stderr == *"dup.jsonl:2001 (document 2001): ResourceSlice/"*"duplicate object ResourceSlice/"*"first defined at "*"dup.jsonl:1"* ]]
}

@test "validate: a value repeated across a stream is checked in every object that has it" {
    "$S" profile gpu --nodes 5 --devices 2 -o jsonl | sed 's/"version":"1.0.0"/"version":"1.0"/g' >"$BATS_TEST_TMPDIR/v.jsonl"
    run --separate-stderr "$S" validate "$BATS_TEST_TMPDIR/v.jsonl"
    assert_failure 2
    [[ $(grep -c 'attributes\[driverVersion\].version: Invalid value: "1.0": must be a string compatible with semver' <<<"$stderr") -eq 10 ]]
    for d in 2 3 4 5; do
        [[ $(grep -c "v.jsonl:$d (document $d): " <<<"$stderr") -eq 2 ]]
    done
}

@test "validate: more than 10 errors of a kind print 10 and a count, exit 2" {
    for i in $(seq 1 250); do printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"Bad_%d"}}\n' "$i"; done >"$BATS_TEST_TMPDIR/bad.jsonl"
    run --separate-stderr "$S" validate "$BATS_TEST_TMPDIR/bad.jsonl"
    assert_failure 2
    [[ $(grep -c 'bad.jsonl:[0-9].*: DeviceClass/Bad_' <<<"$stderr") -eq 10 ]]
    [[ $stderr == *"dra-slice: ... and 240 more like the one above"* ]]
}

@test "validate: a workload's pods are checked at the end of a stream" {
    cat >"$BATS_TEST_TMPDIR/w.yaml" <<'Y'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x, resources: {claims: [{name: nope}]}}]
Y
    run --separate-stderr "$S" validate "$BATS_TEST_TMPDIR/w.yaml"
    assert_failure 2
    [[ $stderr == *"w.yaml:1: Pod/default/web-"* ]]
}
