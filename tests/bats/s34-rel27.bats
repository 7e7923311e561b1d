#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# The releases beside 1.37: the gate lists of every man page, and what
# each release of the tools does differently.
load helpers

setup() {
    W="$BATS_TEST_TMPDIR"
    TOP="$BATS_TEST_DIRNAME/../.."
    unset DRA_KUBERNETES_VERSION
}

@test "every man page of a tool taking --feature-gates lists each release's gates as dra-slice gates prints them" {
    run --separate-stderr "$TOP/scripts/gen-man-gates" --check "$DRA_BIN/dra-slice"
    assert_success
    assert_output ''
    for t in dra-alloc dra-claim dra-evict dra-prepare dra-select dra-slice; do
        for r in 1.36 1.37 1.38; do grep -qx ".B Kubernetes $r" "$TOP/man/$t.1"; done
        # the same rows as the tool prints
        [ "$(sed -n '/^\.\\" BEGIN gates/,/^\.\\" END gates/p' "$TOP/man/$t.1" | grep -c '^\.B DRA')" -eq \
          "$("$DRA_BIN/dra-slice" gates 1.36 1.37 1.38 | tail -n +2 | grep -c ' DRA')" ]
    done
}

@test "gen-man-gates --check fails on a page whose gate list drifted, or that lacks one" {
    cp -R "$TOP/man" "$W/man"
    # a default flipped by hand in dra-evict(1)
    awk '/^\.B DRADeviceTaintRules$/ && !d { print; getline; sub(/^off/, "on"); d = 1 } { print }' \
        "$TOP/man/dra-evict.1" >"$W/man/dra-evict.1"
    run --separate-stderr "$TOP/scripts/gen-man-gates" --check --man "$W/man" "$DRA_BIN/dra-slice"
    assert_failure 1
    [[ $output == *"$W/man/dra-evict.1"* ]]
    [[ $output == *'-on, beta; depends on DRADeviceTaints'* ]]
    # a page of a tool with --feature-gates and no lists
    cp "$TOP/man/dra-evict.1" "$W/man/dra-evict.1"
    sed '/^\.\\" BEGIN gates/,/^\.\\" END gates/d' "$TOP/man/dra-alloc.1" >"$W/man/dra-alloc.1"
    run --separate-stderr "$TOP/scripts/gen-man-gates" --check --man "$W/man" "$DRA_BIN/dra-slice"
    assert_failure 1
    assert_output ''
    [ "$stderr" = "$W/man/dra-alloc.1: takes --feature-gates but has no gate lists (.\\\" BEGIN gates)" ]
    # without --check the drifted page is rewritten, and only it
    awk '/^\.B DRADeviceTaintRules$/ && !d { print; getline; sub(/^off/, "on"); d = 1 } { print }' \
        "$TOP/man/dra-evict.1" >"$W/man/dra-evict.1"
    cp "$TOP/man/dra-alloc.1" "$W/man/dra-alloc.1"
    run --separate-stderr "$TOP/scripts/gen-man-gates" --man "$W/man" "$DRA_BIN/dra-slice"
    assert_success
    diff -r "$TOP/man" "$W/man"
}
