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
    # SANITIZE= on the command line: a sanitized `make check` running this
    # file hands its SANITIZE down through MAKEFLAGS
    run make -C "$ROOT" -n --no-print-directory check SANITIZE=
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

@test "without Go: make check, the peers and the release suites each say so in one line" {
    local no="upstream suites skipped: no Go toolchain ('/nonexistent/go' not found; set UPSTREAM_GO=/path/to/go)"
    run make -C "$ROOT" -n --no-print-directory check UPSTREAM_GO=/nonexistent/go
    assert_success
    assert_equal "$(grep -c 'upstream suites skipped' <<<"$output")" 1
    assert_line "echo \"$no\""
    run make -C "$ROOT" --no-print-directory upstream-peers-ci UPSTREAM_GO=/nonexistent/go
    assert_success
    assert_output "$no"
    run make -C "$ROOT" --no-print-directory upstream-check-releases-ci UPSTREAM_GO=/nonexistent/go
    assert_success
    assert_output "upstream-check-releases-ci: $no"
}

@test "each release's peers build in one go build, stripped as this release's" {
    [[ -x /usr/local/go/bin/go ]] || command -v go >/dev/null || skip "no Go toolchain"
    local r
    for r in 1.36 1.38; do
        run make -C "$ROOT" -n --no-print-directory upstream-peers-$r
        assert_success
        assert_equal "$(grep -o 'go build' <<<"$output" | wc -l)" 1
        # stripped, and stamped with the release's version (its module file)
        assert_output --partial "build -modfile=go-$r.mod -ldflags='-s -w -X k8s.io/component-base/version.gitVersion=v$r."
        assert_output --partial "' -o $(cd "$ROOT" && pwd)/build/upstream/$r/pkg/ ./cmd/upstream-alloc ./allocdiff ./cmd/upstream-cel ./cel/diff ./cmd/upstream-validate ./validate"
    done
    # the CI peers: all but 1.37's validation peer (no CI suite runs it)
    run make -C "$ROOT" -n --no-print-directory upstream-peers-ci
    assert_success
    assert_line --regexp '^make .*-j1 .*upstream-alloc .*upstream-cluster upstream-peers-1\.36 upstream-peers-1\.38$'
    refute_output --partial upstream-validate-peer
}

@test ".ci/run builds the peers beside the C suites and runs the release suites after 1.37's" {
    run bash -n "$ROOT/.ci/run"
    assert_success
    local peers plain upstream releases
    peers=$(grep -n 'make --no-print-directory upstream-peers-ci' "$ROOT/.ci/run" | cut -d: -f1)
    plain=$(grep -n '^run_suite "plain"' "$ROOT/.ci/run" | cut -d: -f1)
    upstream=$(grep -n '^run_suite "upstream" upstream-check$' "$ROOT/.ci/run" | cut -d: -f1)
    releases=$(grep -n '^run_suite "releases" upstream-check-releases-ci$' "$ROOT/.ci/run" | cut -d: -f1)
    [[ -n $peers && -n $plain && -n $upstream && -n $releases ]]
    ((peers < plain && plain < upstream && upstream < releases))
}
