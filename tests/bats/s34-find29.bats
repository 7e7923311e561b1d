#!/usr/bin/env bats
# Manners shared by every tool: a reader that leaves, mistyped commands and
# options, -f for input files, durations, findings as JSON records.
load helpers
bats_require_minimum_version 1.5.0

C="$EXAMPLES/cluster"

@test "a reader that leaves (| head -1) ends the writer quietly with status 0" {
    run --separate-stderr bash -c 'set -o pipefail; "$0" profile gpu --nodes 3000 | head -1' "$DRA_BIN/dra-slice"
    assert_success
    assert_output "apiVersion: resource.k8s.io/v1"
    [[ -z $stderr ]]
    run --separate-stderr bash -c 'set -o pipefail; "$0" profile gpu --nodes 3000 -o json | head -c 10 >/dev/null' "$DRA_BIN/dra-slice"
    assert_success
    [[ -z $stderr ]]
}

@test "every tool: a reader that leaves is status 0, even with SIGPIPE ignored" {
    for t in dra-slice dra-select dra-alloc dra-claim dra-evict dra-prepare dra-watch dra-example-driver; do
        run --separate-stderr bash -c 'set -o pipefail; "$0" --help | true' "$DRA_BIN/$t"
        [[ $status -eq 0 && -z $stderr ]] || { echo "$t: $status $stderr"; false; }
    done
    run --separate-stderr bash -c 'trap "" PIPE; set -o pipefail; "$0" profile gpu --nodes 3000 | head -1 >/dev/null' "$DRA_BIN/dra-slice"
    assert_success
    [[ -z $stderr ]]
}

@test "a write error other than a broken pipe stays exit 3" {
    run --separate-stderr bash -c '"$0" profile gpu --nodes 30 >/dev/full' "$DRA_BIN/dra-slice"
    assert_failure 3
    [[ $stderr == *"No space left on device"* ]]
}

@test "a mistyped subcommand or long option: did you mean, exit 2" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedul
    assert_failure 2
    [[ -z $output ]]
    [[ $stderr == "dra-alloc: unknown command 'schedul'; did you mean \"schedule\"? (see 'dra-alloc --help')" ]]
    run --separate-stderr "$DRA_BIN/dra-slice" valdate "$C/slices.yaml"
    assert_failure 2
    [[ $stderr == *"unknown command 'valdate'; did you mean \"validate\"?"* ]]
    run --separate-stderr "$DRA_BIN/dra-select" --clas gpu.example.com "$C/slices.yaml"
    assert_failure 2
    [[ $stderr == *"unknown option '--clas'; did you mean \"--class\"?"* ]]
    run --separate-stderr "$DRA_BIN/dra-claim" doctor --recusive "$C/claims.yaml"
    assert_failure 2
    [[ $stderr == *"did you mean \"--recursive\"?"* ]]
    # nothing near: no suggestion; a file that exists is a file
    run --separate-stderr "$DRA_BIN/dra-slice" zzzzzzzz
    assert_failure 2
    [[ $stderr != *"did you mean"* ]]
}

@test "-f FILE reads input files as kubectl -f does, repeatable, mixed with positional ones" {
    run --separate-stderr "$DRA_BIN/dra-select" --class gpu.example.com "$C/classes.yaml" -f "$C/slices.yaml"
    assert_success
    assert_line "gpu.example.com/node-a/gpu-0"
    run --separate-stderr "$DRA_BIN/dra-select" lint -f "$C/slices.yaml" --filename="$C/classes.yaml" -f"$C/claims.yaml"
    assert_success
    # the same --now: allocationTimestamp is the clock's second otherwise
    expected=$("$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o json "$C" 2>/dev/null) || true
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o json -f "$C"
    [[ -n $expected ]]
    assert_output "$expected"
    run --separate-stderr "$DRA_BIN/dra-slice" validate -f - <"$C/slices.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-claim" status -f /no/such.yaml
    assert_failure 2
    [[ $stderr == *"/no/such.yaml: No such file or directory"* ]]
    # after the expression of eval, whatever the order
    run --separate-stderr "$DRA_BIN/dra-select" eval -f "$C/slices.yaml" --device gpu.example.com/node-a/gpu-0 'device.driver'
    assert_success
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u1}\nspec: {containers: [{name: c, image: x}]}\n' >"$BATS_TEST_TMPDIR/pods.yaml"
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns/p --socket "$BATS_TEST_TMPDIR/none.sock" --checkpoint "$BATS_TEST_TMPDIR/state" -o jsonl -f "$BATS_TEST_TMPDIR/pods.yaml"
    assert_success
    assert_output '{"namespace":"ns","pod":"p","container":"c","cdiDevices":[]}'
}

@test "durations: a plain number is seconds, a Go duration anywhere one is taken" {
    for d in 10 2.5 1m30s 1h2m3.5s 300ms; do
        run --separate-stderr "$DRA_BIN/dra-alloc" schedule --timeout "$d" -o json "$C/slices.yaml" "$C/classes.yaml"
        assert_success
    done
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --timeout 10x "$C/slices.yaml"
    assert_failure 2
    [[ $stderr == 'dra-alloc: --timeout: invalid duration "10x" (want seconds or a Go duration such as 30s, 500ms, 1h2m3.5s)' ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity --timeout 1x "$C"
    assert_failure 2
    [[ $stderr == *'--timeout: invalid duration "1x"'* ]]
    # the same parser (and words) in dra-prepare, dra-watch, dra-example-driver
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod a/b --socket /x --timeout 4x /dev/null
    assert_failure 2
    [[ $stderr == *'--timeout: invalid duration "4x" (want seconds or a Go duration'* ]]
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod a/b --socket /x --timeout 0 /dev/null
    assert_failure 2
    [[ $stderr == *"want a positive Go duration"* ]]
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u1}\nspec: {containers: [{name: c, image: x}]}\n' >"$BATS_TEST_TMPDIR/pods.yaml"
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns/p --socket "$BATS_TEST_TMPDIR/none.sock" --checkpoint "$BATS_TEST_TMPDIR/state" --timeout 45 -o jsonl "$BATS_TEST_TMPDIR/pods.yaml"
    assert_success
    printf 'apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:1"}\nusers:\n- name: u\n  user: {token: x}\ncontexts:\n- name: t\n  context: {cluster: c, user: u}\n' >"$BATS_TEST_TMPDIR/kc"
    run --separate-stderr "$DRA_BIN/dra-watch" run --debounce 1.5x --job claims --kubeconfig "$BATS_TEST_TMPDIR/kc"
    assert_failure 2
    [[ $stderr == *'--debounce: invalid duration "1.5x" (want seconds or a Go duration'* ]]
    run --separate-stderr "$DRA_BIN/dra-example-driver" --delay 1d
    assert_failure 2
    [[ $stderr == *'--delay: invalid duration "1d" (want seconds or a Go duration'* ]]
}

bad_objects() {
    cat >"$BATS_TEST_TMPDIR/bad.yaml" <<'Y'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: x, namespace: bad}
spec:
  selectors:
  - cel: {expression: "device.driver == 'a'"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec: {devices: {requests: [{name: "R!", exactly: {deviceClassName: x}}]}}
Y
}

@test "validate -o jsonl: one record per finding on stdout, nothing on stderr, exit 2 as text" {
    bad_objects
    run --separate-stderr "$DRA_BIN/dra-slice" validate -o jsonl "$BATS_TEST_TMPDIR/bad.yaml"
    assert_failure 2
    [[ -z $stderr ]]
    [[ ${#lines[@]} -eq 2 ]]
    assert_equal "$(jq -c '[.severity, .file, .line, .object, .field]' <<<"${lines[0]}")" \
        "[\"error\",\"$BATS_TEST_TMPDIR/bad.yaml\",3,{\"kind\":\"DeviceClass\",\"namespace\":\"bad\",\"name\":\"x\"},\"metadata.namespace\"]"
    assert_equal "$(jq -r .message <<<"${lines[0]}")" "Forbidden: not allowed on this type"
    assert_equal "$(jq -c '[.line, .object.namespace, .field]' <<<"${lines[1]}")" '[11,"ns","spec.devices.requests[0].name"]'
    run --separate-stderr "$DRA_BIN/dra-slice" validate -o json - <"$BATS_TEST_TMPDIR/bad.yaml"
    assert_failure 2
    assert_equal "$(jq -c '[length, .[0].file]' <<<"$output")" '[2,"<stdin>"]'
    run --separate-stderr "$DRA_BIN/dra-slice" validate -o json "$C"
    assert_success
    assert_output "[]"
    run --separate-stderr "$DRA_BIN/dra-slice" validate -o yaml "$C"
    assert_failure 2
    [[ $stderr == *"--output: unknown output format yaml (want text, json or jsonl)"* ]]
}

@test "validate -o json: every error a record, none folded, warnings too" {
    for i in $(seq 1 30); do
        printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: "X%d"}\n---\n' "$i"
    done >"$BATS_TEST_TMPDIR/many.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate -o json "$BATS_TEST_TMPDIR/many.yaml"
    assert_failure 2
    [[ -z $stderr ]]
    assert_equal "$(jq '[.[] | select(.severity == "error")] | length' <<<"$output")" 30
    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: x}\nspec: {}\nbogus: 1\n' >"$BATS_TEST_TMPDIR/warn.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --validate=warn -o jsonl "$BATS_TEST_TMPDIR/warn.yaml"
    assert_success
    [[ -z $stderr ]]
    assert_equal "$(jq -r .severity <<<"$output")" warning
}

@test "dra-slice lint, dra-select lint, dra-claim doctor: -o json|jsonl records, exit codes as text" {
    "$DRA_BIN/dra-slice" profile gpu --nodes 1 >"$BATS_TEST_TMPDIR/s.yaml"
    { cat "$BATS_TEST_TMPDIR/s.yaml"; echo ---; sed 's/name: 0-/name: dup-/' "$BATS_TEST_TMPDIR/s.yaml"; } >"$BATS_TEST_TMPDIR/lint.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" lint "$BATS_TEST_TMPDIR/lint.yaml"
    assert_failure 1
    n=${#lines[@]}
    run --separate-stderr "$DRA_BIN/dra-slice" lint -o jsonl "$BATS_TEST_TMPDIR/lint.yaml"
    assert_failure 1
    [[ -z $stderr && ${#lines[@]} -eq $n ]]
    assert_equal "$(jq -r .scope <<<"${lines[0]}")" "gpu.example.com/node-0"
    run --separate-stderr "$DRA_BIN/dra-slice" lint -o json "$C"
    assert_success
    assert_equal "$(jq -r '.[0].severity' <<<"$output")" warning

    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: none}\nspec:\n  selectors:\n  - cel: {expression: "device.driver == \\"nope\\""}\n' >"$BATS_TEST_TMPDIR/c.yaml"
    run --separate-stderr "$DRA_BIN/dra-select" lint -o jsonl "$BATS_TEST_TMPDIR/c.yaml" "$C/slices.yaml"
    assert_failure 1
    [[ -z $stderr ]]
    assert_equal "$(jq -c '[.severity, .line, .object.kind, .object.namespace, .object.name, .field]' <<<"${lines[0]}")" \
        '["error",6,"DeviceClass",null,"none","spec.selectors[0].cel.expression"]'
    run --separate-stderr "$DRA_BIN/dra-select" lint -o json "$C"
    assert_success
    assert_output "[]"

    run --separate-stderr "$DRA_BIN/dra-claim" doctor -o jsonl "$C"
    assert_failure 1
    [[ -z $stderr ]]
    assert_equal "$(jq -c '[.severity, .object, .fix != null]' <<<"${lines[0]}")" \
        '["error",{"kind":"Pod","namespace":"default","name":"trainer"},true]'
    bad_objects
    run --separate-stderr "$DRA_BIN/dra-claim" doctor -o json "$BATS_TEST_TMPDIR/bad.yaml"
    assert_failure 2
    [[ -z $stderr ]]
    assert_equal "$(jq -r '.[0].field' <<<"$output")" "metadata.namespace"
    run --separate-stderr "$DRA_BIN/dra-claim" doctor -o json --patch "$C"
    assert_failure 2
    [[ -z $output ]]
    [[ $stderr == *"--output and --patch cannot be used together"* ]]
}
