#!/usr/bin/env bats
# dra-select's CEL where the upstream peer (make upstream-check-cel) found
# it answering differently from Kubernetes; each expectation is what
# upstream-cel (k8s.io/dynamic-resource-allocation v0.37.2) prints.
load helpers
bats_require_minimum_version 1.5.0

S() { "$DRA_BIN/dra-select" "$@"; }

setup() {
    # the expectations are the 1.37.2 peer's
    export DRA_KUBERNETES_VERSION=1.37
}

@test "check: validates as the API server does a new selector (NewExpressions)" {
    run --separate-stderr S check 'device.attributes["d"]["x"].exists(v, v == 1)'
    assert_failure 2
    [[ $stderr == *"compilation failed: ERROR: <input>:1:23: expression of type 'any' cannot be range of a comprehension (must be list, map, or dynamic)"* ]]
    run --separate-stderr S check --feature-gates DRAListTypeAttributes=true 'device.attributes["d"]["x"].exists(v, v == 1)'
    assert_success
    assert_output 'type bool, estimated cost 5..389'
    run --separate-stderr S check --feature-gates DRAConsumableCapacity=false 'device.allowMultipleAllocations'
    assert_failure 2
    [[ $stderr == *"undefined field 'allowMultipleAllocations'"* ]]
}

@test "eval: stored expressions see every device field whatever the gates" {
    run --separate-stderr S eval --feature-gates DRAConsumableCapacity=false 'type(device.allowMultipleAllocations)'
    assert_failure 2
    assert_equal "$stderr" 'dra-select: no such attribute(s): device'
    run --separate-stderr S check --feature-gates DRAListTypeAttributes=true 'device.attributes["d"].x'
    assert_success
    assert_output 'type dyn, estimated cost 4..4'
}

@test "input selectors are validated as new ones (NewExpressions), in dra-claim too" {
    cat > "$BATS_TEST_TMPDIR/iter.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: iter}
spec:
  selectors:
  - cel:
      expression: device.attributes['dra.example.com'].tags.exists(t, t == 'a')
YAML
    run --separate-stderr "$DRA_BIN/dra-claim" status "$BATS_TEST_TMPDIR/iter.yaml"
    assert_failure 2
    [[ $stderr == *"expression of type 'any' cannot be range of a comprehension (must be list, map, or dynamic)"* ]]
    run --separate-stderr "$DRA_BIN/dra-claim" status --feature-gates DRAListTypeAttributes=true "$BATS_TEST_TMPDIR/iter.yaml"
    assert_success
}

@test "check: a constant conversion that fails stops the program (OptOptimize)" {
    run --separate-stderr S check "int('x') == 1 || device.driver == 'a'"
    assert_failure 2
    assert_equal "$stderr" "dra-select: program instantiation failed: type conversion error from 'string' to 'int'"
    run --separate-stderr S eval 'uint(-1)'
    assert_failure 2
    assert_equal "$stderr" "dra-select: program instantiation failed: unsigned integer overflow"
    run --separate-stderr S eval "'abc'.find('a{1001}')"
    assert_failure 2
    assert_equal "$stderr" 'dra-select: program instantiation failed: error parsing regexp: invalid repeat count: `{1001}`'
}

@test "eval: URLs, NaN orderings and || errors as Kubernetes answers them" {
    run --separate-stderr S eval 'url("http://user@h:80/p?q=1#f").getHostname()'
    assert_success
    assert_output '"h"'
    run --separate-stderr S eval 'url("::1")'
    assert_failure
    assert_equal "$stderr" 'dra-select: URL parse error during conversion from string: parse "::1": missing protocol scheme'
    run --separate-stderr S eval '0.0 / 0.0 < 1.0'
    assert_failure
    assert_equal "$stderr" 'dra-select: NaN values cannot be ordered'
    run --separate-stderr S eval 'dyn(1) || (1 / 0 == 1)'
    assert_failure
    assert_equal "$stderr" 'dra-select: no such overload'
}

@test "check: estimates and operand errors as Kubernetes gives them" {
    run --separate-stderr S check "device.capacity['gpu.example.com']['memory'] != quantity('1')"
    assert_success
    assert_output 'type bool, estimated cost 5..5'
    run --separate-stderr S check '"a" || true'
    assert_failure 2
    [[ $stderr == *"ERROR: <input>:1:1: expected type 'bool' but found 'string'"* ]]
}
