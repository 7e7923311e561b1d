#!/usr/bin/env bats
# CEL syntax errors worded as cel-go's ANTLR parser words them (the API
# server's validation message and the scheduler's), byte for byte.
load helpers
bats_require_minimum_version 1.5.0

setup() {
    T=$BATS_TEST_TMPDIR
}

# dra-select check EXPR: refused as bad input, nothing on stdout; the
# message in $stderr
refused() {
    run --separate-stderr "$DRA_BIN/dra-select" check "$1"
    assert_failure 2
    [ -z "$output" ]
}

@test "a selector of a single dot: no viable alternative at input '.', as the API server says" {
    refused '.'
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
    refused 'device.driver == .'"'"'x'"'"''
    [[ $stderr == *"ERROR: <input>:1:19: Syntax error: no viable alternative at input '.'x''"* ]]
    refused 'device.null'
    [[ $stderr == *"ERROR: <input>:1:8: Syntax error: mismatched input 'null' expecting IDENTIFIER"* ]]
}

@test "a closing bracket missing at the end, a stray token before one" {
    refused 'device.attributes["a"].b[1'
    [ "$stderr" = "dra-select: compilation failed: ERROR: <input>:1:27: Syntax error: missing ']' at '<EOF>'
 | device.attributes[\"a\"].b[1
 | ..........................^" ]
    refused 'device.driver.startsWith("a" "b")'
    [[ $stderr == *"ERROR: <input>:1:30: Syntax error: extraneous input '\"b\"' expecting ')'"* ]]
}

@test "has() of a broken field selection: the macro's error before the syntax error" {
    refused 'has(device..driver)'
    [ "$stderr" = "dra-select: compilation failed: ERROR: <input>:1:5: invalid argument to has() macro
 | has(device..driver)
 | ....^
ERROR: <input>:1:12: Syntax error: no viable alternative at input '..'
 | has(device..driver)
 | ...........^" ]
}

@test "an unknown operator names the character after it too, and drops both" {
    refused 'device.driver =! "x"'
    [[ $stderr == *"ERROR: <input>:1:15: Syntax error: token recognition error at: '=!'"* ]]
    [[ $stderr == *"ERROR: <input>:1:18: Syntax error: extraneous input '\"x\"' expecting <EOF>"* ]]
}

@test "a C comment in a selector: every error ANTLR meets while recovering, as upstream lists them" {
    refused '/* gpu */ device.driver == "a"'
    [ "$(grep -c '^ERROR: \|compilation failed: ERROR: ' <<<"$stderr")" -eq 3 ]
    [[ $stderr == *"ERROR: <input>:1:1: Syntax error: mismatched input '/' expecting {"* ]]
    [[ $stderr == *"ERROR: <input>:1:2: Syntax error: extraneous input '*' expecting {"* ]]
    [[ $stderr == *"ERROR: <input>:1:9: Syntax error: extraneous input '/' expecting {"* ]]
}
