#!/usr/bin/env bats
# CEL result types and constant folding as upstream checks them when it
# compiles: derived attributes, selectors, map keys.
load helpers
bats_require_minimum_version 1.5.0

A="$DATA/alloc"

setup() {
    T=$BATS_TEST_TMPDIR
}

@test "derived attributes: a result type that is no attribute value fails to compile" {
    sed 's/expression: device.attributes\["gpu.example.com"\].numa$/expression: "{\\"a\\": 1}"/' "$A/derived.yaml" >"$T/map.yaml"
    grep -q '"a' "$T/map.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --kubernetes-version 1.37 --feature-gates DRADerivedAttributes=true "$T/map.yaml"
    assert_failure 2
    [ -z "$output" ]
    [[ $stderr == *"compile derived attribute derived/numa failed: must evaluate to a primitive scalar (string, integer, boolean, semver) or a list of these scalars, not map(string, int)"* ]]
    [[ $stderr != *"on device"* ]]
}

@test "derived attributes: dra-slice validate compiles them as the API server does" {
    sed 's/expression: device.attributes\["gpu.example.com"\].numa$/expression: "{\\"a\\": 1}"/; s/expression: int(.*$/expression: "[1, 2]"/' "$A/derived.yaml" >"$T/map.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 --feature-gates DRADerivedAttributes=true "$T/map.yaml"
    assert_failure 2
    [[ $stderr == *'spec.devices.requests[0].exactly.derivedAttributes[0].expression: Invalid value: "{\"a\": 1}": must evaluate to a primitive scalar (string, integer, boolean, semver), not map(string, int)'* ]]
    [[ $stderr == *'spec.devices.requests[1].exactly.derivedAttributes[0].expression: Invalid value: "[1, 2]": must evaluate to a primitive scalar (string, integer, boolean, semver), not list(int)'* ]]
    # lists are attribute values with DRAListTypeAttributes
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 --feature-gates DRADerivedAttributes=true,DRAListTypeAttributes=true "$T/map.yaml"
    assert_failure 2
    [[ $stderr == *"or a list of these scalars, not map(string, int)"* ]]
    [[ $stderr != *"requests[1]"* ]]
    # a compile error is reported with the field
    sed 's/expression: int(.*$/expression: "device.nosuch"/' "$A/derived.yaml" >"$T/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 --feature-gates DRADerivedAttributes=true "$T/bad.yaml"
    assert_failure 2
    [[ $stderr == *"spec.devices.requests[1].exactly.derivedAttributes[0].expression: Invalid value: \"device.nosuch\": compilation failed: ERROR: <input>:1:7: undefined field 'nosuch'"* ]]
    sed 's/expression: int(.*$/expression: "7"/' "$A/derived.yaml" >"$T/good.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 --feature-gates DRADerivedAttributes=true "$T/good.yaml"
    assert_success
}

@test "validate: a selector whose program cannot be made is an internal error, as the API server reports it" {
    cat >"$T/class.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: c}
spec:
  selectors:
  - cel: {expression: "int('x') == 1 || device.driver == 'a'"}
YAML
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/class.yaml"
    assert_failure 2
    [ -z "$output" ]
    assert_equal "$stderr" "dra-slice: $T/class.yaml:6: DeviceClass/c: spec.selectors[0].cel.expression: Internal error: program instantiation failed: type conversion error from 'string' to 'int'"
    # dra-select compiles it as the scheduler does: an input error
    run --separate-stderr "$DRA_BIN/dra-select" check "int('x') == 1 || device.driver == 'a'"
    assert_failure 2
    assert_equal "$stderr" "dra-select: program instantiation failed: type conversion error from 'string' to 'int'"
}

@test "dra-select eval: IPs and CIDRs are map keys compared by value; indexing by one fails as upstream" {
    local expr want
    while IFS='|' read -r expr want; do
        run --separate-stderr "$DRA_BIN/dra-select" eval "$expr"
        assert_success
        assert_output "$want"
    done <<'CASES'
ip('::1') in {ip('0:0::1'): 1, ip('10.0.0.1'): 2}|true
{cidr('10.0.0.0/8'): 1, cidr('10.0.0.0/8'): 2}|{cidr("10.0.0.0/8"): 2}
cidr('10.0.0.1/8') in {cidr('10.0.0.0/8'): 1}|false
CASES
    run --separate-stderr "$DRA_BIN/dra-select" eval "{ip('1.2.3.4'): 1}[ip('1.2.3.4')]"
    assert_failure
    assert_equal "$stderr" "dra-select: invalid qualifier type: cel.IP"
}
