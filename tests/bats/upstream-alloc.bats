#!/usr/bin/env bats
# dra-alloc answers as upstream's allocator (k8s.io/dynamic-resource-
# allocation v0.37.2) where its own test table found it did not, and
# `make upstream-alloctable`, which runs that table, without Go.
load helpers
bats_require_minimum_version 1.5.0

setup() {
    # the expectations are the 1.37.2 peer's (tests/upstream/go.mod)
    export DRA_KUBERNETES_VERSION=1.37
    T=$BATS_TEST_TMPDIR
}

# A node, a class, and a slice of pool p on node-1 with the devices given
# (and one with the shared counters given).
cluster() { # cluster DEVICES-YAML [SHARED-COUNTERS-YAML]
    local count=1
    [[ -z ${2:-} ]] || count=2
    yaml_node
    yaml_gpu_class
    yaml_gpu_slice "$1" "$count"
    if [[ -n ${2:-} ]]; then
        cat <<EOF
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: counters}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 2}
  sharedCounters:
$2
---
EOF
    fi
}

claim() { # claim NAME REQUEST-YAML [STATUS-YAML]
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: %s, namespace: default}\nspec:\n  devices:\n    requests:\n%s\n%s---\n' \
        "$1" "$2" "${3:-}"
}

@test "an allocation result has no compatibilityGroups field: it is refused as unknown, as the API server does" {
    claim used "    - {name: r, exactly: {deviceClassName: gpu}}" "status:
  allocation:
    devices:
      results:
      - {request: r, driver: gpu.example.com, pool: p, device: d0, compatibilityGroups: {cs: [mig]}}
" >"$T/used.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$T/used.yaml"
    assert_failure 2
    [[ $stderr == *'ResourceClaim/default/used: unknown field "status.allocation.devices.results[0].compatibilityGroups"'* ]]
}

@test "compatibility groups: an allocated device brings the groups its slice declares" {
    cluster "  - {name: d0, consumesCounters: [{counterSet: cs, compatibilityGroups: [mig], counters: {u: {value: '1'}}}]}
  - {name: d1, consumesCounters: [{counterSet: cs, compatibilityGroups: [mig], counters: {u: {value: '1'}}}]}" \
        "  - {name: cs, counters: {u: {value: '4'}}}" >"$T/cluster.yaml"
    claim used "    - {name: r, exactly: {deviceClassName: gpu}}" "status:
  allocation:
    devices:
      results:
      - {request: r, driver: gpu.example.com, pool: p, device: d0}
" >"$T/used.yaml"
    claim c "    - {name: r, exactly: {deviceClassName: gpu}}" >"$T/c.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o json \
        --feature-gates DRADeviceCompatibilityGroups=true "$T/cluster.yaml" "$T/used.yaml" "$T/c.yaml"
    assert_success
    [[ $(jq -r '.status.allocation.devices.results[] | .device + " " + (has("compatibilityGroups") | tostring)' <<<"$output") == "d1 false" ]]
}

@test "compatibility groups off: a pool with a slice declaring them is incomplete, none of its devices is allocated" {
    cluster "  - {name: plain, consumesCounters: [{counterSet: cs, counters: {u: {value: '1'}}}]}" \
        "  - {name: cs, counters: {u: {value: '4'}}}" >"$T/cluster.yaml"
    cat >>"$T/cluster.yaml" <<EOF
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: grouped}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 3}
  devices:
  - {name: mig, consumesCounters: [{counterSet: cs, compatibilityGroups: [mig], counters: {u: {value: '1'}}}]}
EOF
    sed -i 's/resourceSliceCount: 2/resourceSliceCount: 3/' "$T/cluster.yaml"
    claim c "    - {name: r, exactly: {deviceClassName: gpu}}" >"$T/c.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRADeviceCompatibilityGroups=false \
        "$T/cluster.yaml" "$T/c.yaml"
    assert_failure 1
    [[ $stderr == *"cannot allocate all claims"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o json --feature-gates DRADeviceCompatibilityGroups=true \
        "$T/cluster.yaml" "$T/c.yaml"
    assert_success
}

@test "consumable capacity: a request past the range arithmetic aborts the allocation, with upstream's text" {
    cluster "  - name: nic
    allowMultipleAllocations: true
    capacity:
      bw: {value: '4', requestPolicy: {default: '2', validRange: {min: '2', step: '2', max: '4'}}}
  - name: big
    allowMultipleAllocations: true
    capacity:
      bw: {value: '36893488147419103232'}" >"$T/cluster.yaml"
    claim c "    - {name: r, exactly: {deviceClassName: gpu, capacity: {requests: {bw: '18446744073709551616'}}}}" >"$T/c.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --no-validate "$T/cluster.yaml" "$T/c.yaml"
    assert_failure 2
    assert_output ""
    [[ $stderr == *'claim default/c, request r: checking capacity for device gpu.example.com/p/nic: capacity "bw": capacity request cannot be represented in the device'"'"'s range arithmetic: request 18446744073709551616 exceeds MaxInt64'* ]]
}

@test "consumable capacity: a negative amount aborts the allocation" {
    cluster "  - {name: nic, allowMultipleAllocations: true, capacity: {bw: {value: '10'}}}" >"$T/cluster.yaml"
    claim c "    - {name: r, exactly: {deviceClassName: gpu, capacity: {requests: {bw: '-5'}}}}" >"$T/c.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --no-validate "$T/cluster.yaml" "$T/c.yaml"
    assert_failure 2
    [[ $stderr == *'claim default/c, request r: checking capacity for device gpu.example.com/p/nic: capacity "bw": capacity value is negative'* ]]
}

@test "consumable capacity: a rounded amount is written in the step's format" {
    cluster "  - name: nic
    allowMultipleAllocations: true
    capacity:
      bw: {value: 10k, requestPolicy: {default: 1k, validRange: {min: 1k, step: 1k}}}" >"$T/cluster.yaml"
    claim c "    - {name: r, exactly: {deviceClassName: gpu, capacity: {requests: {bw: '1500'}}}}" >"$T/c.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o json "$T/cluster.yaml" "$T/c.yaml"
    assert_success
    [[ $(jq -r '.status.allocation.devices.results[0].consumedCapacity.bw' <<<"$output") == 2k ]]
}

@test "make upstream-alloctable without Go says so in one line and succeeds" {
    run --separate-stderr make -s -C "$BATS_TEST_DIRNAME/../.." upstream-alloctable GO=/nonexistent/go
    assert_success
    assert_output "upstream-alloctable: skipped: no Go toolchain ('/nonexistent/go' not found; set GO=/path/to/go)"
}

# Disagreements `make upstream-check-alloc` found, each with its fixture
# under tests/data/alloc/upstream-diff/.
UD=$BATS_TEST_DIRNAME/../data/alloc/upstream-diff

@test "upstream-diff: selectors compile in the stored environment, whatever the gates" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o json --feature-gates DRAConsumableCapacity=false "$UD/stored-cel-env.yaml"
    assert_success
    [[ $(jq -r '.status.allocation.devices.results[0].device' <<<"$output") == gpu-0 ]]
}

@test "upstream-diff: the claim-wide search cut leaves a later request's selector error to the search" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 "$UD/cut-selector-error.yaml"
    assert_failure 2
    assert_output ""
    [[ $stderr == *'claim default/c: selector #0 on device gpu.example.com/node-1/gpu-3: CEL runtime error: no such key: model'* ]]
    run --separate-stderr "$BATS_TEST_DIRNAME/../../build/upstream/bin/upstream-alloc" --node node-1 "$UD/cut-selector-error.yaml"
    [[ $status -eq 2 || ! -x $BATS_TEST_DIRNAME/../../build/upstream/bin/upstream-alloc ]]
}

@test "upstream-diff: a device skipping node operations is still one of an All request's devices" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRAOptionalNodeOperations=true "$UD/all-skip-node-ops.yaml"
    assert_failure 1
    assert_output ""
    [[ $stderr == *'cannot allocate all claims'* ]]
    [[ $stderr != *'constraint'* ]]
}

@test "upstream-diff: with DRAOptionalNodeOperations off only the experimental allocator refuses skipNodeOperations" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o json "$UD/skip-node-ops-incubating.yaml"
    assert_success
    [[ $(jq -r '.status.allocation.devices.results[0].device' <<<"$output") == gpu-0 ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o json --feature-gates DRADerivedAttributes=true "$UD/skip-node-ops-incubating.yaml"
    assert_success
    [[ $(jq -r '.status.allocation.devices.results[0].device' <<<"$output") == nic-0 ]]
}

@test "upstream-diff: a derived attribute is evaluated when a constraint adds the device, not on selection" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRADerivedAttributes=true "$UD/derived-lazy.yaml"
    assert_failure 1
    [[ $stderr == *'cannot allocate all claims'* ]]
    [[ $stderr != *'CEL runtime error'* ]]
}

@test "upstream-diff: derived attribute errors in upstream's words, compile errors where the attribute is used" {
    sed 's/expression: device.attributes\["gpu.example.com"\].numa$/expression: device.nosuch/' \
        "$BATS_TEST_DIRNAME/../data/alloc/derived.yaml" >"$T/cmp.yaml"
    grep -q nosuch "$T/cmp.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --no-validate --node node-1 --feature-gates DRADerivedAttributes=true "$T/cmp.yaml"
    assert_failure 2
    [[ $stderr == *"compile derived attribute derived/numa failed: compilation failed: ERROR: <input>:1:7: undefined field 'nosuch'"* ]]
    # the GPUs are in use: no device reaches the constraint, nothing is compiled
    sed 's/device.attributes\["gpu.example.com"\].numa/device.nosuch/' "$UD/derived-lazy.yaml" >"$T/lazy.yaml"
    grep -q nosuch "$T/lazy.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --no-validate --node node-1 --feature-gates DRADerivedAttributes=true "$T/lazy.yaml"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --feature-gates DRADerivedAttributes=true "$UD/derived-runtime.yaml"
    assert_failure 2
    [[ $stderr == *"evaluate derived attribute derived.example.com/numa on device nic.example.com/node-1-nic/nic-0 failed: no such key: numa" ]]
}

@test "make upstream-alloc without Go says so in one line and succeeds" {
    run --separate-stderr make -s -C "$BATS_TEST_DIRNAME/../.." upstream-alloc UPSTREAM_GO=/nonexistent/go
    assert_success
    assert_output "upstream-alloc: skipped: no Go toolchain (go not found) to build the peer"
}

# upstream-alloc itself (built by make upstream-alloc; skipped without it)
UA=$BATS_TEST_DIRNAME/../../build/upstream/bin/upstream-alloc

@test "upstream-alloc reads what dra-alloc reads: v1beta1, YAML, a List in JSON on stdin" {
    [[ -x $UA ]] || skip "no $UA (make upstream-alloc)"
    M=$BATS_TEST_DIRNAME/../data/model
    # a v1beta1 claim (devices in requests directly; gpu-0 is tainted)
    cat >"$T/claim.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com, count: 1}
YAML
    run --separate-stderr "$UA" --node node-1 -o json "$M/class-v1beta1.yaml" "$M/slice-v1beta1.yaml" "$T/claim.yaml"
    assert_success
    want=$("$DRA_BIN/dra-alloc" --node node-1 -o json "$M/class-v1beta1.yaml" "$M/slice-v1beta1.yaml" "$T/claim.yaml" | jq -c .status.allocation)
    [[ $(jq -c '.status.allocation.devices.results | length' <<<"$output") == 1 ]]
    [[ $(jq -c .status.allocation <<<"$output") == "$want" ]]
    # the same as a v1 List in JSON on standard input, the cluster as one YAML stream
    "$DRA_BIN/dra-alloc" --node node-1 -o jsonl "$M/class-v1beta1.yaml" "$M/slice-v1beta1.yaml" "$T/claim.yaml" >"$T/claim.jsonl"
    { cat "$M/class-v1beta1.yaml"; echo ---; cat "$M/slice-v1beta1.yaml"; } >"$T/cluster.yaml"
    jq -s '{apiVersion: "v1", kind: "List", items: map(del(.status))}' "$T/claim.jsonl" >"$T/list.json"
    run --separate-stderr "$UA" --node node-1 -o jsonl "$T/cluster.yaml" - <"$T/list.json"
    assert_success
    [[ $(jq -c .status.allocation <<<"$output") == "$want" ]]
}

@test "upstream-alloc: exit 1 when nothing fits, 2 with upstream's error, 2 for bad arguments" {
    [[ -x $UA ]] || skip "no $UA (make upstream-alloc)"
    run --separate-stderr "$UA" --node node-2 "$BATS_TEST_DIRNAME/../data/alloc/basic.yaml"
    assert_failure 1
    [[ $stderr == *'cannot allocate all claims on node node-2'* ]]
    run --separate-stderr "$UA" --node node-1 "$BATS_TEST_DIRNAME/../data/alloc/bad-unknown-class.yaml"
    assert_failure 2
    [[ $stderr == *'could not retrieve device class no-such-class: deviceclass.resource.k8s.io "no-such-class" not found'* ]]
    run --separate-stderr "$UA" "$BATS_TEST_DIRNAME/../data/alloc/basic.yaml"
    assert_failure 2
    run --separate-stderr "$UA" --node node-1 --feature-gates NoSuchGate=true "$BATS_TEST_DIRNAME/../data/alloc/basic.yaml"
    assert_failure 2
    [[ $stderr == *'unrecognized feature gate: NoSuchGate'* ]]
}

@test "upstream-diff: compatibility groups: the first device on a counter set decides, as upstream's rolling intersection" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 -o json --feature-gates DRADeviceCompatibilityGroups=true "$UD/compat-groups-mixed.yaml"
    assert_success
    [[ $(jq -r '.status.allocation.devices.results[0].device' <<<"$output") == gpu-2 ]]
}
