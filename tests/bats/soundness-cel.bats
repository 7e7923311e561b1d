#!/usr/bin/env bats
# dra-select: CEL macros in linear time and memory, regular expressions as
# Kubernetes (Go's regexp, RE2 syntax) reads and runs them.
load helpers
bats_require_minimum_version 1.5.0

S() { "$DRA_BIN/dra-select" "$@"; }

# Run a command with at most $1 MB of memory: ulimit -v, or under ASan
# (whose shadow memory no address-space limit allows) its RSS limit.
with_memory_limit() {
    local mb=$1
    shift
    if ldd "$1" 2>/dev/null | grep -q libasan; then
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=$mb" "$@"
    else
        (ulimit -v $((mb * 1024)) && exec "$@")
    fi
}

@test "macros: a 9 KB selector of nested map() and filter() runs within 256 MB" {
    # 2,000 items through twenty map() and a filter(): within the cost limit
    # (validation accepts it), and about 1 GB when each step copied the list
    local items expr
    items=$(seq -s, 0 1999)
    expr="[$items]$(printf '.map(x, x)%.0s' {1..20}).filter(y, y > 0).size() > 0"
    [ "${#expr}" -gt 9000 ]
    run S check "$expr"
    assert_success
    run --separate-stderr with_memory_limit 256 "$DRA_BIN/dra-select" -e "$expr" "$DATA/select/slices.yaml"
    assert_success
    assert_output 'gpu.example.com/node-a/gpu-0
gpu.example.com/node-a/gpu-1
gpu.example.com/node-b/gpu-0
net.example.com/node-a/eth0'
}

# One device whose attribute `serial` is the text given.
slice_with_serial() {
    cat >"$BATS_TEST_TMPDIR/slice.yaml" <<YAML
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpu}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      serial: {string: "$1"}
YAML
}

@test "regex: (a+)+\$ on 40 a's and a '!' is false, not a backtracking failure" {
    local a40
    a40=$(printf 'a%.0s' {1..40})
    slice_with_serial "$a40!"
    run --separate-stderr S -e "device.attributes['gpu.example.com'].serial.matches('(a+)+\$')" \
        "$BATS_TEST_TMPDIR/slice.yaml"
    assert_failure 1
    assert_output ''
    [ -z "$stderr" ]
    run --separate-stderr S -e "device.attributes['gpu.example.com'].serial.matches('^(a+)+!\$')" \
        "$BATS_TEST_TMPDIR/slice.yaml"
    assert_success
    assert_output 'gpu.example.com/node-a/gpu-0'
    run S eval "'$a40!'.matches('(a+)+\$')"
    assert_success
    assert_output 'false'
}

@test "regex: a{1001} is a compile error worded as Kubernetes words it" {
    # matches(): cel-go's literal validator; find(): the program is not made
    run S check "device.driver.matches('a{1001}')"
    assert_failure 2
    assert_line --index 0 'dra-select: compilation failed: ERROR: <input>:1:23: invalid matches argument'
    run S check "device.driver.find('a{1001}') == ''"
    assert_failure 2
    assert_output 'dra-select: program instantiation failed: error parsing regexp: invalid repeat count: `{1001}`'
    run S check "device.driver.matches('a{1000}')"
    assert_success
}

@test "regex: a pattern built at run time is checked as Go's regexp checks it" {
    slice_with_serial "abc"
    run --separate-stderr S -e "device.attributes['gpu.example.com'].serial.matches('a{' + '1001}')" \
        "$BATS_TEST_TMPDIR/slice.yaml"
    assert_failure 2
    [[ $stderr == *'error parsing regexp: invalid repeat count: `{1001}`'* ]]
    run --separate-stderr S -e "device.attributes['gpu.example.com'].serial.find('\\\\' + 'C') == ''" \
        "$BATS_TEST_TMPDIR/slice.yaml"
    assert_failure 2
    [[ $stderr == *'Illegal regex: error parsing regexp: invalid escape sequence: `\C`'* ]]
    run --separate-stderr S -e "device.attributes['gpu.example.com'].serial.matches('^(?<x>[a-c]+)\$')" \
        "$BATS_TEST_TMPDIR/slice.yaml"
    assert_success
    assert_output 'gpu.example.com/node-a/gpu-0'
}
