#!/usr/bin/env bats
# dra-prepare: interface, usage errors, the checkpoint (corruption, lock)
# without a driver.
bats_require_minimum_version 1.5.0
load helpers

@test "dra-prepare: committed completions and man page match the binary" {
    for sh in bash zsh fish; do
        case $sh in
        bash) f="$BATS_TEST_DIRNAME/../../completions/dra-prepare.bash" ;;
        zsh) f="$BATS_TEST_DIRNAME/../../completions/_dra-prepare" ;;
        fish) f="$BATS_TEST_DIRNAME/../../completions/dra-prepare.fish" ;;
        esac
        run "$DRA_BIN/dra-prepare" --completion "$sh"
        assert_success
        [[ $output == "$(cat "$f")" ]] || { echo "$f is stale: regenerate with 'dra-prepare --completion $sh'"; false; }
    done
    command -v groff >/dev/null || skip "groff is not installed"
    run --separate-stderr groff -man -Tutf8 -ww -z "$BATS_TEST_DIRNAME/../../man/dra-prepare.1"
    assert_success
    [[ -z $stderr ]]
}

@test "dra-prepare: usage errors name the problem (exit 2, nothing on stdout)" {
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --socket /x
    assert_failure 2
    [[ $stderr == *"--pod NS/NAME is required"* ]]
    [[ -z $output ]]
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod nons --socket /x
    assert_failure 2
    [[ $stderr == *"--pod must be NAMESPACE/NAME, not 'nons'"* ]]
    run --separate-stderr "$DRA_BIN/dra-prepare" sync --socket /x
    assert_failure 2
    [[ $stderr == *"--node NAME is required"* ]]
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod a/b --socket /x --timeout 45x /dev/null
    assert_failure 2
    [[ $stderr == *'--timeout: invalid duration "45x"'* ]]
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod a/b --socket /x --timeout 0s /dev/null
    assert_failure 2
    [[ $stderr == *"want a positive Go duration"* ]]
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod a/b --socket /x -o xml /dev/null
    assert_failure 2
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod a/b --socket /x --checkpoint "$BATS_TEST_TMPDIR/state" /no/such.yaml
    assert_failure 2
    [[ $stderr == *"/no/such.yaml: No such file or directory"* ]]
    [[ ! -e $BATS_TEST_TMPDIR/state ]]
}

@test "dra-prepare: a pod missing from the input is an input error; nothing is written" {
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: other, namespace: ns, uid: u1}\nspec: {containers: [{name: c, image: x}]}\n' >"$BATS_TEST_TMPDIR/pods.yaml"
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns/p --socket "$BATS_TEST_TMPDIR/none.sock" --checkpoint "$BATS_TEST_TMPDIR/state" "$BATS_TEST_TMPDIR/pods.yaml"
    assert_failure 2
    [[ $stderr == *"pod ns/p is not in the input"* ]]
    [[ ! -e $BATS_TEST_TMPDIR/state ]]
    run --separate-stderr "$DRA_BIN/dra-prepare" unprepare --pod ns/p --socket "$BATS_TEST_TMPDIR/none.sock" --checkpoint "$BATS_TEST_TMPDIR/state"
    assert_failure 2
    [[ $stderr == *"pod ns/p is neither in the input nor in the checkpoint"* ]]
}

@test "dra-prepare: a pod without claims prepares nothing and prints its containers" {
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u1}\nspec: {containers: [{name: c, image: x}]}\n' >"$BATS_TEST_TMPDIR/pods.yaml"
    run --separate-stderr "$DRA_BIN/dra-prepare" prepare --pod ns/p --socket "$BATS_TEST_TMPDIR/none.sock" --checkpoint "$BATS_TEST_TMPDIR/state" -o jsonl "$BATS_TEST_TMPDIR/pods.yaml"
    assert_success
    assert_output '{"namespace":"ns","pod":"p","container":"c","cdiDevices":[]}'
}

@test "dra-prepare: a corrupt checkpoint is an error naming it, and is left as it was" {
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u1}\nspec: {containers: [{name: c, image: x}]}\n' >"$BATS_TEST_TMPDIR/pods.yaml"
    printf '{"Data":"{\\"kind\\":\\"DRACheckpoint\\",\\"Entries\\":[]}","Checksum":12345}\n' >"$BATS_TEST_TMPDIR/state"
    cp "$BATS_TEST_TMPDIR/state" "$BATS_TEST_TMPDIR/state.orig"
    for cmd in "prepare --pod ns/p" "unprepare --pod ns/p" "sync --node n"; do
        run --separate-stderr "$DRA_BIN/dra-prepare" $cmd --socket /x --checkpoint "$BATS_TEST_TMPDIR/state" "$BATS_TEST_TMPDIR/pods.yaml"
        assert_failure 3
        [[ -z $output ]]
        [[ $stderr == *"$BATS_TEST_TMPDIR/state: checkpoint is corrupt: checksum 12345 does not match its data"* ]]
        cmp "$BATS_TEST_TMPDIR/state" "$BATS_TEST_TMPDIR/state.orig"
    done
    : >"$BATS_TEST_TMPDIR/state"
    run --separate-stderr "$DRA_BIN/dra-prepare" sync --node n --socket /x --checkpoint "$BATS_TEST_TMPDIR/state" "$BATS_TEST_TMPDIR/pods.yaml"
    assert_failure 3
    [[ $stderr == *"checkpoint is damaged: the file is empty"* ]]
    printf 'garbage' >"$BATS_TEST_TMPDIR/state"
    run --separate-stderr "$DRA_BIN/dra-prepare" sync --node n --socket /x --checkpoint "$BATS_TEST_TMPDIR/state" "$BATS_TEST_TMPDIR/pods.yaml"
    assert_failure 3
    [[ $stderr == *"checkpoint is damaged: not JSON"* ]]
}

@test "dra-prepare: an unwritable checkpoint directory is a runtime error" {
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u1}\nspec: {containers: [{name: c, image: x}]}\n' >"$BATS_TEST_TMPDIR/pods.yaml"
    run --separate-stderr "$DRA_BIN/dra-prepare" sync --node n --socket /x --checkpoint /no/such/dir/state "$BATS_TEST_TMPDIR/pods.yaml"
    assert_failure 3
    [[ $stderr == *"opening checkpoint lock /no/such/dir/state.lock: No such file or directory"* ]]
}

@test "dra-prepare: a second run on one checkpoint waits for the first (flock)" {
    command -v flock >/dev/null || skip "flock(1) is not installed"
    state=$BATS_TEST_TMPDIR/state
    mkfifo "$BATS_TEST_TMPDIR/release"
    # Hold the lock as another run would, until told to let go.
    flock -x "$state.lock" -c "cat '$BATS_TEST_TMPDIR/release' >/dev/null" &
    holder=$!
    for _ in $(seq 1000); do
        rc=0
        flock -n -E 99 "$state.lock" true || rc=$?
        [[ $rc -eq 99 ]] && break
        sleep 0.01
    done
    "$DRA_BIN/dra-prepare" unprepare --pod ns/p --socket /x --checkpoint "$state" 2>"$BATS_TEST_TMPDIR/err" &
    waiter=$!
    sleep 0.3
    kill -0 "$waiter" # still waiting for the lock
    echo go >"$BATS_TEST_TMPDIR/release"
    wait "$holder"
    rc=0
    wait "$waiter" || rc=$?
    [[ $rc -eq 2 ]]
    grep -q "neither in the input nor in the checkpoint" "$BATS_TEST_TMPDIR/err"
}
