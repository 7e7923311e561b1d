#!/usr/bin/env bats
# Small fixes found while putting the tools together.

load helpers
bats_require_minimum_version 1.5.0

@test "--explain-file - writes the explanation to standard output, no file named -" {
    cd "$BATS_TEST_TMPDIR"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --explain-file - "$EXAMPLES/cluster/"
    [ ! -e ./- ]
    [[ $output == *"pod "* ]]
}

# two namespaces: doctor.yaml's objects in ml, and a copy of them in team-b
two_namespaces() {
    yq 'select(.metadata.namespace == "ml") | .metadata.namespace = "team-b" | .metadata.uid = "b-" + .metadata.uid' \
        "$DATA/claim/doctor.yaml" > "$BATS_TEST_TMPDIR/b.yaml"
    set -- "$DATA/claim/doctor.yaml" "$BATS_TEST_TMPDIR/b.yaml"
    FILES=("$@")
}

@test "dra-claim status -n NS shows that namespace's claims; -A (the default) every one" {
    two_namespaces
    run "$DRA_BIN/dra-claim" status -n team-b "${FILES[@]}"
    assert_success
    refute_output --partial "ml "
    assert_line --regexp '^team-b +stale '
    run "$DRA_BIN/dra-claim" status -o json -n team-b -A "${FILES[@]}"
    assert_success
    run jq -r '[.items[].metadata.namespace] | unique | join(",")' <<<"$output"
    assert_output "ml,team-b"
    run "$DRA_BIN/dra-claim" status "${FILES[@]}"
    assert_line --regexp '^ml +stale '
}

@test "dra-claim doctor -n NS: that namespace's findings and fixes, exit 1 only for them" {
    two_namespaces
    run --separate-stderr "$DRA_BIN/dra-claim" doctor -n team-b "${FILES[@]}"
    assert_failure 1
    assert_line --partial "ResourceClaim/team-b/stale:"
    refute_output --partial "/ml/"
    run --separate-stderr "$DRA_BIN/dra-claim" doctor --patch=json -n team-b "${FILES[@]}"
    refute_output --partial '"namespace":"ml"'
    run "$DRA_BIN/dra-claim" doctor -n nobody "${FILES[@]}"
    assert_success
    assert_output ""
}

@test "dra-evict -n NS: that namespace's evictions only" {
    two_namespaces
    run "$DRA_BIN/dra-evict" -n team-b --now 2026-03-02T00:00:00Z "${FILES[@]}"
    assert_success
    assert_line --regexp '^team-b +- +hot '
    refute_line --regexp '^ml '
    run "$DRA_BIN/dra-evict" --now 2026-03-02T00:00:00Z "${FILES[@]}"
    assert_line --regexp '^ml +- +hot '
}
