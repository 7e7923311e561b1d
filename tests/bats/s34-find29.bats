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
    expected=$("$DRA_BIN/dra-alloc" schedule -o json "$C" 2>/dev/null) || true
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule -o json -f "$C"
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
