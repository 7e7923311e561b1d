#!/usr/bin/env bats
# dra-slice: help, version, profiles.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    S="$DRA_BIN/dra-slice"
}

@test "dra-slice --help and --version" {
    run "$S" --help
    assert_success
    assert_output --partial "dra-slice build --driver NAME"
    run "$S" --version
    assert_success
    assert_output --partial "0."
    for c in build discover profile lint validate; do
        run "$S" "$c" --help
        assert_success
        assert_output --partial "$c"
    done
}

@test "dra-slice: unknown command and option" {
    run --separate-stderr "$S" frobnicate
    assert_failure 2
    run --separate-stderr "$S" build --frob
    assert_failure 2
}

@test "profile gpu: dra-example-driver shape, deterministic" {
    run --separate-stderr "$S" profile gpu --nodes 2 --devices 3
    assert_success
    assert_output --partial "index:"
    assert_output --partial "string: LATEST-GPU-MODEL"
    assert_output --partial "version: 1.0.0"
    assert_output --partial "value: 80Gi"
    assert_output --partial "nodeName: node-1"
    first=$output
    run --separate-stderr "$S" profile gpu --nodes 2 --devices 3
    assert_equal "$output" "$first"
}

@test "profile gpu with partitions, net and mig validate and lint clean" {
    for p in "gpu --partitions 4" "net" "mig" "cpu"; do
        # shellcheck disable=SC2086
        "$S" profile $p --nodes 2 --devices 10 >"$BATS_TEST_TMPDIR/p.yaml"
        run "$S" validate "$BATS_TEST_TMPDIR/p.yaml"
        assert_success
        run "$S" lint "$BATS_TEST_TMPDIR/p.yaml"
        assert_success
    done
    run "$S" profile net --devices 1 -o json
    assert_output --partial '"allowMultipleAllocations": true'
    assert_output --partial '"validRange"'
    run "$S" profile mig --devices 1 -o jsonl
    assert_output --partial '"name":"gpu-0-mig-3g20gb-9-4"'
    assert_output --partial '"memory-slice-7"'
}

@test "profile net: dra-example-driver's NICs, bandwidth in decimal units" {
    run --separate-stderr "$S" profile net --devices 2 -o json
    assert_success
    n=$(jq -r '.spec.devices[1] | [.name, .allowMultipleAllocations, .attributes.index.int, .attributes.model.string,
        .attributes.driverVersion.version, .capacity.vfs.value, .capacity.vfs.requestPolicy.default,
        (.capacity.vfs.requestPolicy.validValues | join(",")), .capacity.ingressBandwidth.value,
        .capacity.ingressBandwidth.requestPolicy.default, .capacity.ingressBandwidth.requestPolicy.validRange.min,
        .capacity.ingressBandwidth.requestPolicy.validRange.max, .capacity.egressBandwidth.requestPolicy.validRange.step]
        | map(tostring) | join(" ")' <<<"$output")
    assert_equal "$n" "nic-1 true 1 LATEST-NET-MODEL 1.0.0 100 1 1 100G 1G 100M 100G 1M"
    [[ $(jq -r '.spec.devices[0].attributes.uuid.string' <<<"$output") == net-*-*-*-*-* ]]
    [[ $(jq -r '.spec.driver' <<<"$output") == net.example.com ]]
}

@test "profile cpu: dra-example-driver's NUMA nodes, consumable <driver>/cpu mapped to the node's cpu" {
    run --separate-stderr "$S" profile cpu --nodes 2 --devices 2 --cpus-per-numa-node 16 -o jsonl
    assert_success
    assert_equal "$(wc -l <<<"$output")" 2
    d=$(head -n 1 <<<"$output" | jq -c '[.spec.driver, .spec.nodeName, .spec.devices[1]]')
    assert_equal "$d" '["cpu.example.com","node-0",{"name":"numa-1","allowMultipleAllocations":true,"attributes":{"numaNodeID":{"int":1}},"capacity":{"cpu.example.com/cpu":{"value":"16"}},"nodeAllocatableResources":{"cpu":{"mapping":{"capacityKey":"cpu.example.com/cpu","capacityMultiplier":"1"}}}}]'
    # the capacity key follows the driver name, as the example driver's CapacityKey
    run --separate-stderr "$S" profile cpu --devices 1 --driver cpu2.example.com -o jsonl
    [[ $output == *'"cpu2.example.com/cpu":{"value":"4"}'*'"capacityKey":"cpu2.example.com/cpu"'* ]]
    "$S" profile cpu --devices 2 >"$BATS_TEST_TMPDIR/cpu.yaml"
    run "$S" validate "$BATS_TEST_TMPDIR/cpu.yaml"
    assert_success
    run "$S" lint "$BATS_TEST_TMPDIR/cpu.yaml"
    assert_success
    # NUMA nodes are shared by consumable capacity: 3 CPUs each from two 4-CPU
    # NUMA nodes fit twice, not three times
    claims() {
        printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: cpu.example.com\nspec:\n'
        printf '  selectors:\n  - cel:\n      expression: device.driver == "cpu.example.com"\n'
        for c in "$@"; do
            printf -- '---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: cpus-%s\n' "$c"
            printf '  namespace: default\nspec:\n  devices:\n    requests:\n    - name: cpus\n      exactly:\n'
            printf '        deviceClassName: cpu.example.com\n        capacity:\n          requests:\n'
            printf '            cpu.example.com/cpu: "3"\n'
        done
    }
    claims a b c >"$BATS_TEST_TMPDIR/three.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-0 "$BATS_TEST_TMPDIR/three.yaml" "$BATS_TEST_TMPDIR/cpu.yaml"
    assert_failure 1
    claims a b >"$BATS_TEST_TMPDIR/two.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-0 -o json "$BATS_TEST_TMPDIR/two.yaml" "$BATS_TEST_TMPDIR/cpu.yaml"
    assert_success
    assert_equal "$(jq -r '[.items[].status.allocation.devices.results[0] | .device + "=" + .consumedCapacity["cpu.example.com/cpu"]] | join(" ")' <<<"$output")" "numa-0=3 numa-1=3"
}

@test "profile: bad arguments" {
    run --separate-stderr "$S" profile tpu
    assert_failure 2
    [[ $stderr == *"unknown profile 'tpu'"* ]]
    run --separate-stderr "$S" profile net --partitions 2
    assert_failure 2
    [[ $stderr == *"--partitions: only the gpu profile has partitions"* ]]
    run --separate-stderr "$S" profile gpu --nodes 0
    assert_failure 2
    run --separate-stderr "$S" profile gpu --cpus-per-numa-node 4
    assert_failure 2
    [[ $stderr == *"--cpus-per-numa-node: only the cpu profile has CPUs per NUMA node"* && -z $output ]]
    run --separate-stderr "$S" profile cpu --cpus-per-numa-node 0
    assert_failure 2
    [[ -z $output ]]
    run --separate-stderr "$S" profile
    assert_failure 2
}

@test "profile: 100,000 devices stream through build" {
    run bash -c "'$S' profile gpu --nodes 1 --devices 100000 -o jsonl | '$S' build --driver gpu.example.com --all-nodes --pool big -o jsonl | wc -l"
    assert_success
    assert_output "782"
}

@test "pool-status: a ResourcePoolStatusRequest answered as the controller fills its status" {
    # 1.37's: pool status and DRAFractionalCapacityRange are 1.37's (off by default until 1.38)
    export DRA_KUBERNETES_VERSION=1.37
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --now 2026-03-02T00:00:00Z -o jsonl "$DATA/slice/pool-status.yaml"
    assert_success
    run jq -c '.status | [.poolCount, .conditions[0].type, .conditions[0].reason, .conditions[0].message, .conditions[0].lastTransitionTime]' <<<"$output"
    assert_output '[2,"Complete","CalculationComplete","Calculated status for 2 pools (1 incomplete)","2026-03-02T00:00:00Z"]'
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --now 2026-03-02T00:00:00Z -o jsonl "$DATA/slice/pool-status.yaml"
    run jq -c '.status.pools[0]' <<<"$output"
    assert_output '{"driver":"gpu.example.com","poolName":"node-a","nodeName":"node-a","generation":2,"resourceSliceCount":1,"totalDevices":4,"allocatedDevices":2,"availableDevices":0,"unavailableDevices":2}'
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --now 2026-03-02T00:00:00Z -o jsonl "$DATA/slice/pool-status.yaml"
    run jq -r '.status.pools[1].validationError' <<<"$output"
    assert_output 'PoolIncomplete: pool gpu.example.com/node-b is incomplete: observed 1/2 slices at generation 1'
}

@test "pool-status: --driver, --pool and --limit make up the request; bad requests are input errors" {
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --now 2026-03-02T00:00:00Z -o jsonl --driver gpu.example.com --limit 1 "$DATA/slice/pool-status.yaml"
    assert_success
    run jq -c '[.status.poolCount, (.status.pools|length), .status.pools[0].poolName]' <<<"$output"
    assert_output '[2,1,"node-a"]'
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --now 2026-03-02T00:00:00Z -o jsonl --driver net.example.com --pool node-a "$DATA/slice/pool-status.yaml"
    assert_success
    run jq -c '[.metadata.name, .status.pools[0].totalDevices, .status.pools[0].availableDevices]' <<<"$output"
    assert_output '["net.example.com",1,1]'
    printf 'apiVersion: resource.k8s.io/v1alpha3\nkind: ResourcePoolStatusRequest\nmetadata: {name: r}\nspec: {limit: 0}\n' >"$BATS_TEST_TMPDIR/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status "$BATS_TEST_TMPDIR/bad.yaml"
    assert_failure 2
    [[ $stderr == *"spec.driver: Required value"* ]]
    [[ $stderr == *"spec.limit: Invalid value: 0: must be greater than or equal to 1"* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$DATA/slice/pool-status.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --pool x "$DATA/slice/pool-status.yaml"
    assert_failure 2
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status <(printf 'apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n')
    assert_failure 2
    [[ $stderr == *"no ResourcePoolStatusRequest in the input"* ]]
}

@test "pool-status: partitionSummary and shareableSummary (1.37), from the slices and the devices in use" {
    local views=(--now 2026-03-02T00:00:00Z -o jsonl --driver gpu.example.com)
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status "${views[@]}" "$DATA/slice/pool-views.yaml"
    assert_success
    # half-0 in use: 4 of 8 left, so no full GPU, one more half, two quarters (each type measured alone)
    assert_equal "$(jq -c '.status.pools[0].partitionSummary[] | [.type, .total, .allocatable]' <<<"$output")" \
        '["full",1,0]
["half",2,1]
["quarter",4,2]'
    assert_equal "$(jq -c '.status.pools[0].partitionSummary[0].attribute' <<<"$output")" '"gpu.example.com/shape"'
    assert_equal "$(jq -c '.status.pools[1].shareableSummary' <<<"$output")" \
        '{"fullyAvailableDevices":1,"partiallyAvailableDevices":1,"capacity":[{"name":"memory","total":"32Gi","consumed":"4Gi","available":"28Gi"}]}'
    assert_equal "$(jq -c '[.status.pools[] | has("validationError")]' <<<"$output")" '[false,false]'
    # the request's defaultPartitionTypeAttribute stands in for a slice that declares none
    sed '/partitionTypeAttribute:/d' "$DATA/slice/pool-views.yaml" >"$BATS_TEST_TMPDIR/nodecl.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status "${views[@]}" "$BATS_TEST_TMPDIR/nodecl.yaml"
    assert_success
    assert_equal "$(jq -c '.status.pools[0] | has("partitionSummary")' <<<"$output")" false
    cat "$BATS_TEST_TMPDIR/nodecl.yaml" - >"$BATS_TEST_TMPDIR/default.yaml" <<'EOF'
---
apiVersion: resource.k8s.io/v1alpha3
kind: ResourcePoolStatusRequest
metadata: {name: gpus}
spec: {driver: gpu.example.com, defaultPartitionTypeAttribute: gpu.example.com/shape}
EOF
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --now 2026-03-02T00:00:00Z -o jsonl "$BATS_TEST_TMPDIR/default.yaml"
    assert_success
    assert_equal "$(jq -c '[.status.pools[0].partitionSummary[] | .allocatable]' <<<"$output")" '[0,1,2]'
}

@test "pool-status: a pool the views cannot summarize gets upstream's validationError, counts kept" {
    # 1.37's: pool status and DRAFractionalCapacityRange are 1.37's (off by default until 1.38)
    export DRA_KUBERNETES_VERSION=1.37
    local views=(--now 2026-03-02T00:00:00Z -o jsonl --driver gpu.example.com --pool node-a)
    # a partition without the attribute the request names (a slice that declares it must carry it)
    { sed -e '/partitionTypeAttribute:/d' -e 's/attributes: {shape: {string: full}}/attributes: {other: {string: full}}/' \
        "$DATA/slice/pool-views.yaml"
      printf -- '---\napiVersion: resource.k8s.io/v1alpha3\nkind: ResourcePoolStatusRequest\nmetadata: {name: gpus}\n'
      printf 'spec: {driver: gpu.example.com, poolName: node-a, defaultPartitionTypeAttribute: gpu.example.com/shape}\n'
    } >"$BATS_TEST_TMPDIR/missing.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --now 2026-03-02T00:00:00Z -o jsonl "$BATS_TEST_TMPDIR/missing.yaml"
    assert_success
    assert_equal "$(jq -r '.status.pools[0].validationError' <<<"$output")" \
        'PartitionTypeMissing: device "full" in pool gpu.example.com/node-a does not carry partition type attribute "gpu.example.com/shape"'
    assert_equal "$(jq -c '.status.pools[0] | [.totalDevices, .allocatedDevices, has("partitionSummary")]' <<<"$output")" '[7,1,false]'
    assert_equal "$(jq -r '.status.conditions[0].message' <<<"$output")" 'Calculated status for 1 pools (1 incomplete)'
    # two quarters that cost differently
    awk '/name: quarter-3/ { q = 1 } q && /memory: \{value: 2Gi\}/ { sub(/2Gi/, "1Gi"); q = 0 } { print }' \
        "$DATA/slice/pool-views.yaml" >"$BATS_TEST_TMPDIR/cost.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status "${views[@]}" "$BATS_TEST_TMPDIR/cost.yaml"
    assert_success
    assert_equal "$(jq -r '.status.pools[0].validationError' <<<"$output")" \
        'PartitionCostMismatch: devices of partition type "quarter" in pool gpu.example.com/node-a consume different counters'
    # a malformed default attribute is an input error (with its gate: without
    # it the API server drops the field)
    printf 'apiVersion: resource.k8s.io/v1alpha3\nkind: ResourcePoolStatusRequest\nmetadata: {name: r}\nspec: {driver: gpu.example.com, defaultPartitionTypeAttribute: "No/such"}\n' >"$BATS_TEST_TMPDIR/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --feature-gates DRAPartitionableDevicesType=true,DRAResourcePoolStatus=true "$BATS_TEST_TMPDIR/bad.yaml"
    assert_failure 2
    [[ $stderr == *"bad.yaml:4: ResourcePoolStatusRequest/r: spec.defaultPartitionTypeAttribute: Invalid value: \"No\": prefix: a lowercase RFC 1123 subdomain"* ]]
    # the declarative name format checks no name with two slashes
    sed -i 's#No/such#no/such/name#' "$BATS_TEST_TMPDIR/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --feature-gates DRAPartitionableDevicesType=true,DRAResourcePoolStatus=true "$BATS_TEST_TMPDIR/bad.yaml"
    assert_success
}

@test "validate: fractional validRange with DRAFractionalCapacityRange (milli units, upstream's texts)" {
    # 1.37's: pool status and DRAFractionalCapacityRange are 1.37's (off by default until 1.38)
    export DRA_KUBERNETES_VERSION=1.37
    cat >"$BATS_TEST_TMPDIR/frac.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: cpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: aligned
    allowMultipleAllocations: true
    capacity:
      cpu: {value: "1", requestPolicy: {default: 200m, validRange: {min: 200m, max: "1", step: 100m}}}
  - name: misaligned
    allowMultipleAllocations: true
    capacity:
      cpu: {value: "1", requestPolicy: {default: 250m, validRange: {min: 200m, max: "1", step: 100m}}}
  - name: too-fine
    allowMultipleAllocations: true
    capacity:
      cpu: {value: "1", requestPolicy: {default: 20u, validRange: {min: 10u}}}
  - name: values
    allowMultipleAllocations: true
    capacity:
      cpu: {value: "10", requestPolicy: {default: 100m, validValues: [100m, 100m, "1"]}}
YAML
    # gate off (the default until 1.37): the integer path, no misalignment is seen
    run --separate-stderr "$S" validate --kubernetes-version 1.37 "$BATS_TEST_TMPDIR/frac.yaml"
    [[ $stderr != *misaligned* && $stderr != *too-fine* ]]
    [[ $stderr != *"milli value"* ]]
    [[ $stderr == *'validValues[1]: Duplicate value: "1"'* ]] # integer keys: 100m reads as 1
    run --separate-stderr "$S" validate --feature-gates DRAFractionalCapacityRange=true "$BATS_TEST_TMPDIR/frac.yaml"
    assert_failure 2
    [[ $stderr == *'spec.devices[1].capacity[cpu].requestPolicy.validRange.step: Invalid value: "250m": value is not a multiple of a given step (100m) from (200m)'* ]]
    [[ $stderr == *'spec.devices[2].capacity[cpu].requestPolicy.validRange.default: Invalid value: "20u": value cannot be represented as a milli value'* ]]
    [[ $stderr == *'spec.devices[2].capacity[cpu].requestPolicy.validRange.min: Invalid value: "10u": value cannot be represented as a milli value'* ]]
    [[ $stderr == *'spec.devices[3].capacity[cpu].requestPolicy.validValues[1]: Duplicate value: "0.100"'* ]]
    [[ $stderr != *'spec.devices[0]'* ]]
}

@test "validate: nodeAllocatableResources (DRANodeAllocatableResources, the 1.37 shape) with upstream's texts" {
    cat >"$BATS_TEST_TMPDIR/nar.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: cpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: numa-0
    allowMultipleAllocations: true
    capacity:
      cpu.example.com/cpu: {value: "16"}
    nodeAllocatableResources:
      cpu: {mapping: {capacityKey: cpu.example.com/cpu, capacityMultiplier: "1"}}
      memory: {overhead: {perPod: 64Mi, perContainer: 1Mi}}
      hugepages-2Mi: {mapping: {deviceMultiplier: 4Mi}}
YAML
    run --separate-stderr "$S" validate "$BATS_TEST_TMPDIR/nar.yaml"
    assert_success
    # the profile publishes it too
    run --separate-stderr bash -c "'$S' profile cpu --devices 2 -o jsonl | '$S' validate"
    assert_success
    sed -e 's|^      cpu: {mapping: .*|      ephemeral-storage: {mapping: {capacityKey: cpu.example.com/nope, deviceMultiplier: "1"}}|' \
        -e 's/perContainer: 1Mi/perContainer: -1Mi/' "$BATS_TEST_TMPDIR/nar.yaml" >"$BATS_TEST_TMPDIR/bad.yaml"
    # without the gate (alpha, off) the API server drops the field
    run --separate-stderr "$S" validate "$BATS_TEST_TMPDIR/bad.yaml"
    assert_success
    run --separate-stderr "$S" validate --feature-gates DRANodeAllocatableResources=true "$BATS_TEST_TMPDIR/bad.yaml"
    assert_failure 2
    [[ -z $output ]]
    [[ $stderr == *'spec.devices[0].nodeAllocatableResources[ephemeral-storage]: Invalid value: "ephemeral-storage": must be a node allocatable resource name'* ]]
    [[ $stderr == *'spec.devices[0].nodeAllocatableResources[ephemeral-storage].mapping.capacityKey: Not found: "cpu.example.com/nope"'* ]]
    [[ $stderr == *'mapping.capacityMultiplier: Required value: capacityMultiplier is required when capacityKey is set'* ]]
    [[ $stderr == *'mapping: Invalid value: "{capacityKey, deviceMultiplier}": must specify exactly one of: `capacityKey`, `deviceMultiplier`'* ]]
    [[ $stderr == *'spec.devices[0].nodeAllocatableResources[memory].overhead.perContainer: Invalid value: "-1Mi": must be non-negative'* ]]
    # 1.36's nodeAllocatableResourceMappings is gone from the API (tombstoned)
    printf '%s\n' '  - name: numa-1' '    nodeAllocatableResourceMappings: {cpu: {capacityKey: cpu.example.com/cpu}}' >>"$BATS_TEST_TMPDIR/nar.yaml"
    run --separate-stderr "$S" validate "$BATS_TEST_TMPDIR/nar.yaml"
    assert_failure 2
    [[ $stderr == *'unknown field "spec.devices[1].nodeAllocatableResourceMappings"'* ]]
}
