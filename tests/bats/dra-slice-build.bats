#!/usr/bin/env bats
# dra-slice build: inventories -> ResourceSlices of one pool.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    S="$DRA_BIN/dra-slice"
    D="$DATA/slice"
}

@test "build: inventory with shared counters gives a counter slice and a device slice" {
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 "$D/inventory.yaml" "$D/devices.json"
    assert_success
    assert_output --partial "name: 00000-gpu.example.com-node-1-"
    assert_output --partial "name: 00001-gpu.example.com-node-1-"
    assert_output --partial "resourceSliceCount: 2"
    assert_output --partial "generation: 1"
    assert_output --partial "nodeName: node-1"
    assert_output --partial "- name: nic-1"
    [ "$(grep -c '^  sharedCounters:' <<<"$output")" -eq 1 ]
}

@test "build: output is reproducible and valid" {
    run "$S" build --driver gpu.example.com --node node-1 "$D/inventory.yaml"
    first=$output
    run "$S" build --driver gpu.example.com --node node-1 "$D/inventory.yaml"
    assert_equal "$output" "$first"
    "$S" build --driver gpu.example.com --node node-1 "$D/inventory.yaml" >"$BATS_TEST_TMPDIR/s.yaml"
    run "$S" validate "$BATS_TEST_TMPDIR/s.yaml"
    assert_success
    assert_output ""
}

@test "build: -o json and jsonl, pool from --pool with --all-nodes" {
    run --separate-stderr "$S" build -o jsonl --driver net.example.com --all-nodes --pool shared "$D/devices.json"
    assert_success
    assert_output --partial '"allNodes":true'
    assert_output --partial '"name":"shared"'
    assert_output --partial '"name":"00000-net.example.com-'
    run --separate-stderr "$S" build -o json --driver net.example.com --node-selector zone=a,rack=r1 --pool p "$D/devices.json"
    assert_success
    assert_output --partial '"nodeSelectorTerms"'
    assert_output --partial '"key": "rack"'
}

@test "build: 300 devices split 128/128/44, 64 with taints" {
    "$S" profile gpu --devices 300 >"$BATS_TEST_TMPDIR/p.yaml"
    run "$S" build --driver gpu.example.com --node node-9 -o jsonl "$BATS_TEST_TMPDIR/p.yaml"
    assert_success
    [ "$(wc -l <<<"$output")" -eq 3 ]
    assert_output --partial '"resourceSliceCount":3'
    "$S" profile gpu --devices 40 --partitions 2 >"$BATS_TEST_TMPDIR/q.yaml"
    run "$S" build --driver gpu.example.com --node node-9 -o jsonl "$BATS_TEST_TMPDIR/q.yaml"
    assert_success
    # 40 counter sets -> 5 slices; 120 devices consuming counters -> 2 slices of at most 64
    [ "$(wc -l <<<"$output")" -eq 7 ]
}

@test "build: --previous keeps the generation when nothing changed, bumps it when the pool grows" {
    "$S" build --driver gpu.example.com --node node-1 --generation 4 "$D/inventory.yaml" >"$BATS_TEST_TMPDIR/prev.yaml"
    grep -q 'generation: 4' "$BATS_TEST_TMPDIR/prev.yaml"
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 --previous "$BATS_TEST_TMPDIR/prev.yaml" "$D/inventory.yaml"
    assert_success
    assert_output --partial 'generation: 4'
    assert_equal "$output" "$(cat "$BATS_TEST_TMPDIR/prev.yaml")"
    "$S" profile gpu --devices 200 >"$BATS_TEST_TMPDIR/more.yaml"
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 --previous "$BATS_TEST_TMPDIR/prev.yaml" "$BATS_TEST_TMPDIR/more.yaml"
    assert_success
    assert_output --partial 'generation: 5'
}

@test "build: re-slicing ResourceSlices takes their devices and counters" {
    run --separate-stderr "$S" build --driver gpu.example.com --node node-2 "$D/slices-ok.yaml"
    assert_success
    assert_output --partial "- name: gpu-0-counters"
    assert_output --partial "- name: gpu-0-half-0"
    assert_output --partial "nodeName: node-2"
}

@test "build: missing --driver is a usage error" {
    run --separate-stderr "$S" build --node node-1 "$D/inventory.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-slice: --driver: Required value: the driver name"
}

@test "build: no node selection is a usage error" {
    run --separate-stderr "$S" build --driver gpu.example.com "$D/inventory.yaml"
    assert_failure 2
    [[ $stderr == *"exactly one of --node, --all-nodes, --node-selector is required"* ]]
    run --separate-stderr "$S" build --driver gpu.example.com --all-nodes "$D/inventory.yaml"
    assert_failure 2
    [[ $stderr == *"--pool: Required value"* ]]
}

@test "build: invalid device names name file, device and field" {
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 "$D/bad-name.yaml"
    assert_failure 2
    [[ $stderr == *"bad-name.yaml:3: Device/GPU_1: devices[1].name: Invalid value: \"GPU_1\": a lowercase RFC 1123 label"* ]]
    [[ $stderr == *"Device/GPU_1: devices[1].attributes[model]: Invalid value: \"{int, string}\": must specify exactly one of: \`int\`, \`bool\`, \`string\`, \`version\`, \`ints\`, \`bools\`, \`strings\`, \`versions\`"* ]]
    assert_output ""
}

@test "build: over-limit device is rejected" {
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 "$D/over-limit.yaml"
    assert_failure 2
    [[ $stderr == *"over-limit.yaml:2: Device/big: devices[0]: Invalid value: 33: the total number of attributes and capacities must not exceed 32"* ]]
}

@test "build: duplicate devices and dangling counters in the pool" {
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 "$D/duplicate.yaml"
    assert_failure 2
    [[ $stderr == *"duplicate.yaml:7: Device/gpu-0: devices[2].name: found duplicate device \"gpu-0\" in pool \"node-1\""* ]]
    [[ $stderr == *"Device/gpu-1: devices[1].consumesCounters[0].counterSet: counter set nowhere not found"* ]]
    # the same lines from standard input (read whole: no file to read again) and from a slice file read as it goes
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 - <"$D/duplicate.yaml"
    assert_failure 2
    [[ $stderr == *"<stdin>:7: Device/gpu-0: devices[2].name: found duplicate device \"gpu-0\" in pool \"node-1\""* ]]
    [[ $stderr == *"<stdin>:5: Device/gpu-1: devices[1].consumesCounters[0].counterSet: counter set nowhere not found"* ]]
    cat >"$BATS_TEST_TMPDIR/slices.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: a}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
  - name: gpu-1
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: b}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-2
  - name: gpu-1
YAML
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 "$BATS_TEST_TMPDIR/slices.yaml"
    assert_failure 2
    assert_output ""
    [[ $stderr == *"slices.yaml:21 (document 2): ResourceSlice/b: spec.devices[1].name: found duplicate device \"gpu-1\" in pool \"node-1\""* ]]
}

@test "build: malformed YAML and JSON are input errors with a position" {
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 "$D/malformed.yaml"
    assert_failure 2
    [[ $stderr == *"malformed.yaml:4:1: invalid YAML"* ]]
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 "$D/malformed.json"
    assert_failure 2
    [[ $stderr == *"malformed.json:1:19: invalid JSON"* ]]
}

@test "build: unknown kinds are rejected" {
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 "$D/unknown-kind.yaml"
    assert_failure 2
    [[ $stderr == *"unknown-kind.yaml:2: Gadget/g: kind: unknown kind Gadget"* ]]
}

@test "build: bad option values" {
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 --generation -3 "$D/inventory.yaml"
    assert_failure 2
    [[ $stderr == *"--generation: must be an integer"* ]]
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 --pool 'a//b' "$D/inventory.yaml"
    assert_failure 2
    [[ $stderr == *"--pool"* ]]
    run --separate-stderr "$S" build --driver gpu.example.com --node-selector novalue --pool p "$D/inventory.yaml"
    assert_failure 2
    [[ $stderr == *"--node-selector: expected KEY=VALUE"* ]]
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 -o xml "$D/inventory.yaml"
    assert_failure 2
}

@test "build: reads stdin" {
    run --separate-stderr bash -c "'$S' build --driver gpu.example.com --node node-1 < '$D/devices.json'"
    assert_success
    assert_output --partial "- name: nic-0"
}

@test "build: --validate and -R as in the other tools: unknown inventory fields are errors by default" {
    T=$BATS_TEST_TMPDIR
    mkdir -p "$T/inv/sub"
    printf 'devices:\n- name: gpu-0\n  attributes:\n    model: {string: x}\n- name: gpu-1\n  capacty:\n    memory: {value: 1Gi}\n' >"$T/inv/sub/devs.yaml"
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 -R "$T/inv"
    assert_failure 2
    [[ $stderr == *"devs.yaml:6: inventory: unknown field \"devices[1].capacty\""* ]]
    assert_output ""
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 --validate=warn -R "$T/inv"
    assert_success
    [[ $stderr == *"dra-slice: warning: $T/inv/sub/devs.yaml:6: inventory: unknown field \"devices[1].capacty\""* ]]
    [[ $output == *"name: gpu-1"* && $output != *capacty* ]]
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 --validate=ignore -R "$T/inv"
    assert_success
    assert_equal "$stderr" ""
    # without -R the subdirectory is not read: an empty pool
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 -o json "$T/inv"
    assert_success
    assert_equal "$(jq -c '.spec.devices // [] | length' <<<"$output")" "0"
    # a single device and a re-sliced v1beta1 slice are checked the same way
    printf '[{"name": "a", "atributes": {}}]\n' >"$T/list.json"
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 "$T/list.json"
    assert_failure 2
    [[ $stderr == *'list.json:1: Device/a: unknown field "atributes"'* ]]
    printf 'apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d\n  pool: {name: p, resourceSliceCount: 1}\n  allNodes: true\n  devices:\n  - name: a\n    basic:\n      atributes: {}\n' >"$T/beta.yaml"
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 "$T/beta.yaml"
    assert_failure 2
    [[ $stderr == *'beta.yaml:11: ResourceSlice/s: unknown field "spec.devices[0].basic.atributes"'* ]]
    run --separate-stderr "$S" build --driver gpu.example.com --node node-1 --validate=nope "$T/beta.yaml"
    assert_failure 2
}

@test "build: a flood of duplicate names in one inventory document names the printed ones at their lines" {
    awk 'BEGIN { printf "{\"devices\": [\n"
        for (i = 0; i < 2000; i++) printf "%s  {\"name\": \"gpu-0\", \"attributes\": {\"index\": {\"int\": %d}}}\n", (i ? "," : ""), i
        printf "]}\n" }' >"$BATS_TEST_TMPDIR/inv.json"
    run --separate-stderr "$S" build --driver gpu.example.com --all-nodes --pool big "$BATS_TEST_TMPDIR/inv.json"
    assert_failure 2
    [[ -z $output ]]
    [[ $(sed -n 1p <<<"$stderr") == *"inv.json:3: Device/gpu-0: devices[1].name: found duplicate device \"gpu-0\" in pool \"big\"" ]]
    [[ $(sed -n 10p <<<"$stderr") == *"inv.json:12: Device/gpu-0: devices[10].name: found duplicate"* ]]
    [[ $stderr == *"dra-slice: ... and 1989 more like the one above" ]]
}

@test "build: files are read as a stream, three times: the same slices and messages as standard input or a pipe" {
    T=$BATS_TEST_TMPDIR
    "$S" profile gpu --devices 300 --partitions 2 -o jsonl >"$T/pool.jsonl"
    "$S" build --driver gpu.example.com --node node-0 -o jsonl - <"$T/pool.jsonl" >"$T/stdin.jsonl"
    [[ $(wc -l <"$T/stdin.jsonl") -gt 5 ]]
    run --separate-stderr "$S" build --driver gpu.example.com --node node-0 -o jsonl "$T/pool.jsonl"
    assert_success
    assert_equal "$output" "$(cat "$T/stdin.jsonl")"
    run --separate-stderr bash -c "'$S' build --driver gpu.example.com --node node-0 -o jsonl <(cat '$T/pool.jsonl')"
    assert_success
    assert_equal "$output" "$(cat "$T/stdin.jsonl")"
    # against the previous slices: unchanged, the same generation and names
    run --separate-stderr "$S" build --driver gpu.example.com --node node-0 -o jsonl --previous "$T/stdin.jsonl" "$T/pool.jsonl"
    assert_success
    assert_equal "$output" "$(cat "$T/stdin.jsonl")"
    # a device named again in a second file: the error at its line there, nothing printed
    printf '{"name": "x"}\n{"name": "gpu-0-partition-1"}\n' >"$T/more.jsonl"
    run --separate-stderr "$S" build --driver gpu.example.com --node node-0 "$T/pool.jsonl" "$T/more.jsonl"
    assert_failure 2
    assert_output ""
    [[ $stderr == *"more.jsonl:2 (document 2): Device/gpu-0-partition-1: name: found duplicate device \"gpu-0-partition-1\" in pool \"node-0\""* ]]
    run --separate-stderr bash -c "cat '$T/pool.jsonl' '$T/more.jsonl' | '$S' build --driver gpu.example.com --node node-0"
    assert_failure 2
    n=$(( $(wc -l <"$T/pool.jsonl") + 2 ))
    [[ $stderr == *"<stdin>:$n (document $n): Device/gpu-0-partition-1: name: found duplicate device"* ]]
}
