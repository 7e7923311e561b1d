#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Numbers past int64: the keys of a request policy's validValues and the
# digits of an unquoted YAML integer, as the API server sees them.
load helpers

# A slice whose one capacity has the request policy $2 (flow YAML) and the
# value $1.
policy_slice() {
    cat >"$BATS_TEST_TMPDIR/s.yaml" <<EOF2
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: s
spec:
  driver: example.com
  nodeName: node1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: d
    allowMultipleAllocations: true
    capacity:
      mem:
        value: $1
        requestPolicy: $2
EOF2
}

strip() {
    sed -E 's/^dra-slice: [^ ]+:[0-9]+: ResourceSlice\/s: spec\.devices\[0\]\.capacity\[mem\]\.requestPolicy\.//' <<<"$1"
}

@test "validValues 100E and 1000E are both key 0 through 1.37, as Value() overflows" {
    policy_slice '"2000E"' '{default: "100E", validValues: ["100E", "1000E"]}'
    for r in 1.36 1.37; do
        run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version $r "$BATS_TEST_TMPDIR/s.yaml"
        assert_failure 2
        [ "$(strip "$stderr")" = 'validValues[1]: Duplicate value: "0"' ]
    done
}

@test "validValues keys wrap as Value() does, after Cmp made an element an inf.Dec" {
    # upstream-validate 1.36.3 and 1.37.2: "200E" is 0 at scale 18, but
    # compared with the inf.Dec 2^63 it becomes one and keys as 200*10^18
    # mod 2^64; 2^64 keys as 0 like "100E"; 1e19 and 3e19 made inf.Decs key
    # as int64(math.Pow10(19)) times 1 and 3.
    policy_slice '"2000E"' '{default: "100E", validValues: ["100E", "200E", "9223372036854775808", "18446744073709551616", "9.3e18", "10Ei"]}'
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/s.yaml"
    assert_failure 2
    [ "$(strip "$stderr")" = 'validValues[2]: Invalid value: "9223372036854775808": values must be sorted in ascending order
validValues[4]: Invalid value: "9300e15": values must be sorted in ascending order
validValues[5]: Invalid value: "9223372036854775807": values must be sorted in ascending order
validValues[3]: Duplicate value: "0"' ]
    policy_slice '"2e30"' '{default: "1e19", validValues: ["1e19", "100000000000000000000000", "3e19", "1000000000000000000000000"]}'
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.36 "$BATS_TEST_TMPDIR/s.yaml"
    assert_failure 2
    [ "$(strip "$stderr")" = 'validValues[2]: Invalid value: "30e18": values must be sorted in ascending order
validValues[2]: Duplicate value: "-9223372036854775808"' ]
}

@test "an unquoted YAML integer past int64 keeps its digits as a quantity, as go-yaml's uint64" {
    # upstream-validate 1.37.2 on the same file; before, the digits of the
    # real: "9223372036854775800", "1.8446744073709552e+19" and a
    # quantity error for 0x8000000000000001
    policy_slice 18446744073709551615 '{default: 9223372036854775808, validValues: ["1", 0x8000000000000001, 1e30]}'
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/s.yaml"
    assert_failure 2
    [ "$(strip "$stderr")" = 'validValues[2]: Invalid value: "1e+30": option is larger than capacity value: 18446744073709551615
validValues: Invalid value: "9223372036854775808": default value is not valid according to the requestPolicy' ]
}

@test "a JSON number past int64 is a quantity and a type error with its digits as written" {
    cat >"$BATS_TEST_TMPDIR/s.json" <<'EOF2'
{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
 "spec": {"driver": "example.com", "nodeName": "node1",
  "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
  "devices": [{"name": "d", "allowMultipleAllocations": true,
   "attributes": {"a": {"int": 9223372036854775809}},
   "capacity": {"mem": {"value": "12E",
    "requestPolicy": {"default": "1", "validValues": ["1", 12345678901234567890123]}}}}]}}
EOF2
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/s.json"
    assert_failure 2
    [ "$(sed -E 's/^dra-slice: [^ ]+:[0-9]+: ResourceSlice\/s: //' <<<"$stderr")" = 'spec.devices[0].attributes[a].int: Invalid value: 9223372036854775809: must be of type integer
spec.devices[0].capacity[mem].requestPolicy.validValues[1]: Invalid value: "12345678901234567890123": option is larger than capacity value: 12E' ]
}
