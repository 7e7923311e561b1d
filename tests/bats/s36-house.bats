#!/usr/bin/env bats
# The checks that keep the house: no function in src/ over 150 lines.
bats_require_minimum_version 1.5.0
load helpers

ROOT="$BATS_TEST_DIRNAME/../.."

# fn FILE NAME LINES: a function of LINES lines in all (a two-line
# signature, braces included) appended to FILE
fn() {
    {
        printf 'static int %s(int a,\n                 int b)\n{\n' "$2"
        for ((i = 0; i < $3 - 4; i++)); do printf '    a += b;\n'; done
        printf '}\n\n'
    } >>"$1"
}

@test "function length: a function over 150 lines is named with its file, line and length" {
    F="$BATS_TEST_TMPDIR/long.c"
    printf '/* a file */\n#include <stdio.h>\n\nstatic const int table[] = {\n    1,\n};\n\n' >"$F"
    fn "$F" fits 150
    fn "$F" too_long 151
    run "$ROOT/scripts/check-function-length" "$F"
    assert_failure 1
    assert_output "$F:159: too_long is 151 lines (at most 150: split it by phase into named helpers)"
    # a limit of one's own; a bad one is a usage error
    run "$ROOT/scripts/check-function-length" --max 151 "$F"
    assert_success
    assert_output ''
    run "$ROOT/scripts/check-function-length" --max lots "$F"
    assert_failure 2
}

@test "function length: make lint runs the check over src/" {
    grep -q '^step "function length" scripts/check-function-length$' "$ROOT/scripts/lint"
    run "$ROOT/scripts/check-function-length"
    assert_success
}
