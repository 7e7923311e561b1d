#!/usr/bin/env bats
# The checks that keep the house: the kubectl script of dra-evict, the man
# pages against the completions, the test-only options.
bats_require_minimum_version 1.5.0
load helpers

ROOT="$BATS_TEST_DIRNAME/../.."

@test "dra-evict --patch=kubectl: each pod's commands form one paragraph headed by its name" {
    D="$DATA/evict"
    run --separate-stderr "$DRA_BIN/dra-evict" --apply-at 2026-03-01T10:05:00Z --patch=kubectl "$D/slices.yaml" "$D/rules.yaml" "$D/claims-pods.json"
    assert_success
    # (bats drops empty lines from $lines: look at the text itself)
    assert_equal "$(sed -n 1,3p <<<"$output")" "$(printf 'set -e\n\n# pod ml/d')"
    assert_equal "$(sed -n 4p <<<"$output" | cut -c1-30)" '# Pod ml/d: DisruptionTarget ('
    assert_equal "$(sed -n 5p <<<"$output" | cut -c1-25)" 'kubectl patch pod d -n ml'
    assert_equal "$(sed -n 6p <<<"$output" | cut -c1-17)" '# Pod ml/d: delet'
    assert_equal "$(sed -n 7p <<<"$output" | grep -o '/pods/d -f -$')" '/pods/d -f -'
    assert_equal "$(sed -n 8,9p <<<"$output")" "$(printf '\n# pod ml/a')"
    # four pods: four headers, a blank line before each
    assert_equal "$(grep -c '^# pod ml/' <<<"$output")" 4
    assert_equal "$(grep -c '^$' <<<"$output")" 4
    # still a script sh runs: headers and blank lines are no commands
    sh -n <<<"$output"
    run --separate-stderr "$DRA_BIN/dra-evict" --apply-at 2026-03-01T10:05:00Z --rule-status --patch=kubectl "$D/slices.yaml" "$D/rules.yaml" "$D/claims-pods.json"
    assert_success
    assert_line '# devicetaintrule maintenance-node-b'
    # JSON lines are unchanged: one operation a line, nothing between
    run --separate-stderr "$DRA_BIN/dra-evict" --apply-at 2026-03-01T10:05:00Z --patch "$D/slices.yaml" "$D/rules.yaml" "$D/claims-pods.json"
    assert_success
    assert_equal "$(wc -l <<<"$output")" 8
    assert_equal "$(grep -c '^$' <<<"$output")" 0
}

@test "every subcommand and long option the completions offer is in the tool's man page" {
    run "$ROOT/scripts/check-man-options" "$DRA_BIN" "$ROOT"
    assert_success
    assert_output --regexp '^man-options: [0-9]+ names: ok$'
}

@test "the man-page check names the page and the option it misses" {
    T="$BATS_TEST_TMPDIR/tree"
    mkdir -p "$T/man"
    cp "$ROOT"/man/*.1 "$T/man/"
    sed -i 's/max\\-passes/max\\-rounds/g' "$T/man/dra-watch.1"
    run "$ROOT/scripts/check-man-options" "$DRA_BIN" "$T"
    assert_failure 1
    assert_line 'man/dra-watch.1: option --max-passes is completed but not in the page'
    assert_line 'man-options: 1 problem(s)'
}
