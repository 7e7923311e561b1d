#!/usr/bin/env bats
# CEL syntax errors worded as cel-go's ANTLR parser words them (the API
# server's validation message and the scheduler's), byte for byte.
load helpers
bats_require_minimum_version 1.5.0

setup() {
    T=$BATS_TEST_TMPDIR
}

@test "a selector of a single dot: no viable alternative at input '.', as the API server says" {
    run --separate-stderr "$DRA_BIN/dra-select" check '.'
    assert_failure 2
    [ -z "$output" ]
    [ "$stderr" = "dra-select: compilation failed: ERROR: <input>:1:2: Syntax error: no viable alternative at input '.'
 | .
 | .^" ]
}

@test "a DeviceClass selector of a single dot is refused with upstream's wording" {
    cat >"$T/dc.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: dot
spec:
  selectors:
  - cel:
      expression: "."
YAML
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/dc.yaml"
    assert_failure 2
    [ "$stderr" = "dra-slice: $T/dc.yaml:8: DeviceClass/dot: spec.selectors[0].cel.expression: Invalid value: \".\": compilation failed: ERROR: <input>:1:2: Syntax error: no viable alternative at input '.'
 | .
 | .^" ]
}

@test "a field name missing after a dot, a reserved word after it" {
    run --separate-stderr "$DRA_BIN/dra-select" check 'device.driver == .'"'"'x'"'"''
    assert_failure 2
    [[ $stderr == *"ERROR: <input>:1:19: Syntax error: no viable alternative at input '.'x''"* ]]
    run --separate-stderr "$DRA_BIN/dra-select" check 'device.null'
    assert_failure 2
    [[ $stderr == *"ERROR: <input>:1:8: Syntax error: mismatched input 'null' expecting IDENTIFIER"* ]]
}

@test "a closing bracket missing at the end, a stray token before one" {
    run --separate-stderr "$DRA_BIN/dra-select" check 'device.attributes["a"].b[1'
    assert_failure 2
    [ "$stderr" = "dra-select: compilation failed: ERROR: <input>:1:27: Syntax error: missing ']' at '<EOF>'
 | device.attributes[\"a\"].b[1
 | ..........................^" ]
    run --separate-stderr "$DRA_BIN/dra-select" check 'device.driver.startsWith("a" "b")'
    assert_failure 2
    [[ $stderr == *"ERROR: <input>:1:30: Syntax error: extraneous input '\"b\"' expecting ')'"* ]]
}

@test "has() of a broken field selection: the macro's error before the syntax error" {
    run --separate-stderr "$DRA_BIN/dra-select" check 'has(device..driver)'
    assert_failure 2
    [ "$stderr" = "dra-select: compilation failed: ERROR: <input>:1:5: invalid argument to has() macro
 | has(device..driver)
 | ....^
ERROR: <input>:1:12: Syntax error: no viable alternative at input '..'
 | has(device..driver)
 | ...........^" ]
}

@test "an unknown operator names the character after it too, and drops both" {
    run --separate-stderr "$DRA_BIN/dra-select" check 'device.driver =! "x"'
    assert_failure 2
    [[ $stderr == *"ERROR: <input>:1:15: Syntax error: token recognition error at: '=!'"* ]]
    [[ $stderr == *"ERROR: <input>:1:18: Syntax error: extraneous input '\"x\"' expecting <EOF>"* ]]
}

@test "a C comment in a selector: every error ANTLR meets while recovering, as upstream lists them" {
    run --separate-stderr "$DRA_BIN/dra-select" check '/* gpu */ device.driver == "a"'
    assert_failure 2
    [ "$(grep -c '^ERROR: \|compilation failed: ERROR: ' <<<"$stderr")" -eq 3 ]
    [[ $stderr == *"ERROR: <input>:1:1: Syntax error: mismatched input '/' expecting {"* ]]
    [[ $stderr == *"ERROR: <input>:1:2: Syntax error: extraneous input '*' expecting {"* ]]
    [[ $stderr == *"ERROR: <input>:1:9: Syntax error: extraneous input '/' expecting {"* ]]
}
