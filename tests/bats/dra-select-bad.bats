#!/usr/bin/env bats
# dra-select on bad input: every failure is a message and exit 2, never a crash.
load helpers
bats_require_minimum_version 1.5.0

S() { "$DRA_BIN/dra-select" "$@"; }

@test "bad: syntax error with a caret under the column" {
    run S check 'device.driver == "x" &&'
    assert_failure 2
    assert_line --index 0 --partial 'compilation failed: ERROR: <input>:1:24: Syntax error: mismatched input'
    assert_line --index 1 ' | device.driver == "x" &&'
    assert_line --index 2 ' | .......................^'
}

@test "bad: a caret on the second line of a multi-line expression" {
    run S check $'device.driver == "x" &&\n  device.nope'
    assert_failure 2
    assert_output --partial "ERROR: <input>:2:9: undefined field 'nope'"
    assert_output --partial ' |   device.nope'
    assert_output --partial ' | ........^'
}

@test "bad: type errors" {
    run S check 'device.driver + 1'
    assert_failure 2
    assert_output --partial "found no matching overload for '_+_' applied to '(string, int)'"
    run S check 'device.driver'
    assert_failure 2
    assert_output 'dra-select: must evaluate to bool or the unknown type, not string'
    run S check '[1, "a"].size() > 0'
    assert_failure 2
    assert_output --partial "expected type 'int' but found 'string'"
}

@test "bad: allowMultipleAllocations needs the DRAConsumableCapacity gate" {
    # 1.37: in 1.38 DRAFractionalCapacityRange is on and needs DRAConsumableCapacity
    run S check --kubernetes-version 1.37 --feature-gates DRAConsumableCapacity=false 'device.allowMultipleAllocations'
    assert_failure 2
    assert_output --partial "undefined field 'allowMultipleAllocations'"
    run S check --feature-gates DRAConsumableCapacity=true 'device.allowMultipleAllocations'
    assert_success
    run S check --feature-gates NoSuchGate=true 'true'
    assert_failure 2
    assert_output --partial 'unrecognized feature gate: NoSuchGate'
}

@test "bad: unknown functions" {
    run S check 'frobnicate(device.driver)'
    assert_failure 2
    assert_output --partial "undeclared reference to 'frobnicate'"
    run S -e 'device.driver.frob()' "$DATA/select/slices.yaml"
    assert_failure 2
    assert_output --partial "-e #0: CEL compile error: compilation failed: ERROR: <input>:1:19: undeclared reference to 'frob'"
}

@test "bad: estimated cost over the limit" {
    run S check 'device.attributes.all(d, device.attributes[d].all(k, device.attributes.all(e, device.attributes[e].all(j, k != j))))'
    assert_failure 2
    assert_output --partial 'too complex, exceeds cost limit'
}

@test "bad: runtime cost limit stops a runaway expression" {
    run S eval 'lists.range(2000).all(i, lists.range(2000).all(j, i + j >= 0))'
    assert_failure 2
    assert_output --partial 'actual cost limit exceeded'
}

@test "bad: a huge expression is refused, not crashed on" {
    run S check "$(printf 'device.driver == "%s"' "$(head -c 100001 /dev/zero | tr '\0' x)")"
    assert_failure 2
    assert_output --partial 'expression code point size exceeds limit'
}

@test "bad: deeply nested expressions hit the recursion limit" {
    local deep
    deep="$(printf '(%.0s' {1..300})true$(printf ')%.0s' {1..300})"
    run S check "$deep"
    assert_failure 2
    assert_output --partial 'expression recursion limit exceeded'
    deep="$(printf '[%.0s' {1..300})1$(printf ']%.0s' {1..300}) == []"
    run S check "$deep"
    assert_failure 2
    assert_output --partial 'expression recursion limit exceeded'
    # an even run of negations cancels out, as in cel-go
    deep="$(printf -- '-%.0s' {1..5000})1 == 1"
    run S check -- "$deep"
    assert_success
}

@test "bad: non-UTF-8 strings" {
    run S check "$(printf 'device.driver == "\xff\xfe"')"
    assert_failure 2
    assert_output --partial 'Syntax error: invalid UTF-8 input'
    run S eval "$(printf 'b"\xff"')"
    assert_failure 2
    run S -e "$(printf '"\xc3" == device.driver')" "$DATA/select/slices.yaml"
    assert_failure 2
}

@test "bad: empty and blank expressions" {
    run S check ''
    assert_failure 2
    run S eval '   '
    assert_failure 2
    run S eval
    assert_failure 2
    assert_output --partial 'missing the expression'
}

@test "bad: malformed files and unknown devices" {
    run S "$DATA/slice/malformed.yaml"
    assert_failure 2
    # a file opening with '[' is YAML to kubectl's decoder (only '{' opens JSON)
    run S "$DATA/slice/malformed.json"
    assert_failure 2
    assert_output --partial 'malformed.json:2:1: invalid YAML'
    run S lint "$DATA/slice/malformed.yaml"
    assert_failure 2
    run S nonexistent.yaml
    assert_failure 2
}

@test "bad: an invalid ResourceSlice is reported with its location" {
    run S "$DATA/slice/bad-name.yaml"
    assert_failure 2
    assert_output --partial 'bad-name.yaml'
}

@test "bad: --explain with an unknown format, -o with an unknown format" {
    run S --explain=xml "$DATA/select/slices.yaml"
    assert_failure 2
    run S -o xml "$DATA/select/slices.yaml"
    assert_failure 2
}

@test "bad: --var errors" {
    run S eval --var 'no-equals' '1'
    assert_failure 2
    assert_output --partial 'want NAME=CEL'
    run S eval --var 'device=1' '1'
    assert_failure 2
    run S eval --var 'x=1 +' 'x'
    assert_failure 2
    assert_output --partial '--var x: ERROR: <input>:1:4'
}
