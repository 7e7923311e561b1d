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

# A copy of the library and the layer rules to break on purpose.
copy_tree() {
    T="$BATS_TEST_TMPDIR/tree"
    rm -rf "$T"
    mkdir -p "$T/src" "$T/scripts"
    cp -r "$ROOT/src/common" "$T/src/common"
    cp "$ROOT/scripts/layers.txt" "$T/scripts/"
}

@test "layers: an angle-bracket include of a project header is seen, and its arrow checked" {
    copy_tree
    printf '#include <stdio.h>\n#include <alloc/alloc.h>\n' >"$T/src/common/model/bad.c"
    run "$ROOT/scripts/check-layers" "$T"
    assert_failure 1
    assert_line 'src/common/model/bad.c:2: includes <alloc/alloc.h>, a project header: write "alloc/alloc.h"'
    assert_line --partial 'src/common/model/bad.c:2: model may not include alloc'
    refute_line --partial 'stdio.h'
}

@test "layers: a prototype with external linkage in a .c file fails; a static forward declaration does not" {
    copy_tree
    printf 'int dra_bad_helper(const char *s,\n                   int n);\nstatic int fwd(void);\nstatic int fwd(void)\n{\n    return dra_bad_helper("x;", 1);\n}\n' >"$T/src/common/io/bad.c"
    run "$ROOT/scripts/check-layers" "$T"
    assert_failure 1
    assert_line 'src/common/io/bad.c:1: declares dra_bad_helper() with external linkage: a prototype belongs in a header'
    refute_line --partial 'fwd'
    assert_line 'layers: 1 problem(s)'
    printf 'allow prototype io/bad.c: dra_bad_helper\n' >>"$T/scripts/layers.txt"
    run "$ROOT/scripts/check-layers" "$T"
    assert_success
}

@test "layers: two files of a room calling each other fail as a call circle" {
    copy_tree
    printf 'int dra_ping(int n);\n' >"$T/src/common/io/ping.h"
    printf 'int dra_pong(int n);\n' >"$T/src/common/io/pong.h"
    printf '#include "ping.h"\n#include "pong.h"\nint dra_ping(int n)\n{\n    return n ? dra_pong(n - 1) : 0;\n}\n' >"$T/src/common/io/ping.c"
    printf '#include "ping.h"\n#include "pong.h"\nint dra_pong(int n)\n{\n    return n ? dra_ping(n - 1) : 1;\n}\n' >"$T/src/common/io/pong.c"
    run "$ROOT/scripts/check-layers" "$T"
    assert_failure 1
    assert_line 'src/common/io/: call circle between ping.c, pong.c'
    # a name in a comment or a string is no call
    printf '#include "pong.h"\n/* dra_ping */\nint dra_pong(int n)\n{\n    return n ? (int)sizeof "dra_ping" : 1;\n}\n' >"$T/src/common/io/pong.c"
    run "$ROOT/scripts/check-layers" "$T"
    assert_success
}

@test "layers: an allowance that matches nothing fails; an unused arrow is a note, a failure with --strict" {
    copy_tree
    printf 'allow call-circle io: nothing here\n' >>"$T/scripts/layers.txt"
    run "$ROOT/scripts/check-layers" "$T"
    assert_failure 1
    assert_line --regexp '^scripts/layers.txt:[0-9]+: allow call-circle io matches nothing now \(drop it\)$'
    copy_tree
    sed -i 's/^slice: .*/slice:     base io model cel/' "$T/scripts/layers.txt"
    run "$ROOT/scripts/check-layers" "$T"
    assert_success
    assert_line --regexp '^note: scripts/layers.txt:[0-9]+: slice may include cel, but no file of it does$'
    run "$ROOT/scripts/check-layers" --strict "$T"
    assert_failure 1
    assert_line --regexp '^scripts/layers.txt:[0-9]+: slice may include cel, but no file of it does$'
}

@test "no switch for the tests is read from the environment by the shipped code" {
    run grep -rnE 'getenv\("DRA_(WATCH_|BACKOFF_|PREPARE_TEST)' "$ROOT/src"
    assert_failure 1
    assert_output ''
}

@test "dra-watch: the hidden --test-* options shorten the waits and stay out of --help and the completions" {
    cat >"$BATS_TEST_TMPDIR/kc" <<'KC'
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
KC
    # the environment no longer reaches the client: only the options do
    DRA_BACKOFF_BASE_MS=999999 run --separate-stderr timeout 60 "$DRA_BIN/dra-watch" record - --kubeconfig "$BATS_TEST_TMPDIR/kc" \
        --test-backoff-base-ms 5 --test-backoff-cap-ms 20 --test-watch-timeout 5 --test-watch-idle 5
    assert_failure 3
    [[ $stderr == *"The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"* ]]
    run --separate-stderr "$DRA_BIN/dra-watch" get pods --test-backoff-cap-ms 0
    assert_failure 2
    assert_equal "$stderr" "dra-watch: --test-backoff-cap-ms: must be an integer between 1 and 600000, not '0'"
    run "$DRA_BIN/dra-watch" run --help
    refute_output --partial 'test-'
    for s in bash zsh fish; do
        run "$DRA_BIN/dra-watch" --completion "$s"
        refute_output --partial 'test-'
    done
}
