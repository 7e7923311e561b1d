#!/usr/bin/env bats
# What CI runs and in what time: the sanitized `make check` leaves out the
# bats files that run no C code, each release's peers build in one `go
# build`, .ci/run builds the peers while the C suites run and runs every
# release's suites, and without Go the skip is said in one line.
bats_require_minimum_version 1.5.0
load helpers

ROOT="$BATS_TEST_DIRNAME/../.."

# plain_only: the Makefile's CHECK_PLAIN_ONLY, one file a line
plain_only() {
    sed -n 's/^CHECK_PLAIN_ONLY := //p' "$ROOT/Makefile" | tr ' ' '\n'
}

@test "the bats files the sanitized check leaves out exist and run no tool" {
    run plain_only
    assert_success
    assert_line tests/bats/layers.bats
    local n=0 f
    for f in $(plain_only); do
        [[ -f $ROOT/$f ]] || fail "$f: no such bats file"
        # a tool run from a test, or through a helper of the tools
        run grep -nE 'DRA_BIN|\bdra-(alloc|slice|select|claim|prepare|evict|watch|example-driver)\b|kubectl-dra|kubectl_complete|validates |watch_backoff' "$ROOT/$f"
        assert_failure 1
        n=$((n + 1))
    done
    ((n >= 3))
}

@test "make check passes the list only when sanitized; make bats too" {
    run make -C "$ROOT" -n --no-print-directory check SANITIZE=address,undefined
    assert_success
    assert_line --partial "DRA_BATS_SKIP=\"$(plain_only | paste -sd ' ')\" tests/run-tests.sh"
    run make -C "$ROOT" -n --no-print-directory check
    assert_success
    assert_line --partial 'DRA_BATS_SKIP="" tests/run-tests.sh'
    run make -C "$ROOT" -n --no-print-directory bats SANITIZE=address,undefined
    assert_success
    assert_line --partial 'DRA_BATS_SKIP="tests/bats/apiserver.bats'
}

@test "run-tests.sh leaves out DRA_BATS_SKIP's files, names them on one line, and counts the rest" {
    T="$BATS_TEST_TMPDIR/tree"
    mkdir -p "$T/tests/bats"
    cp "$ROOT/tests/run-tests.sh" "$T/tests/"
    printf '@test "a" {\n  true\n}\n' >"$T/tests/bats/a.bats"
    printf '@test "b" {\n  true\n}\n@test "c" {\n  true\n}\n' >"$T/tests/bats/b.bats"
    run env DRA_BIN=/nonexistent DRA_BATS_SKIP="tests/bats/b.bats" "$T/tests/run-tests.sh" --bats-only
    assert_success
    assert_output "bats: not run here (no C code; the plain run has them): tests/bats/b.bats
bats: 1 passed, 0 failed, 0 skipped
1 passed, 0 failed"
    run env DRA_BIN=/nonexistent DRA_BATS_SKIP= "$T/tests/run-tests.sh" --bats-only
    assert_success
    assert_output "bats: 3 passed, 0 failed, 0 skipped
3 passed, 0 failed"
    # files named on the command line run whatever the list says
    run env DRA_BIN=/nonexistent DRA_BATS_SKIP="tests/bats/b.bats" "$T/tests/run-tests.sh" --bats-only tests/bats/b.bats
    assert_success
    assert_line "2 passed, 0 failed"
}
