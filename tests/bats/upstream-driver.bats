#!/usr/bin/env bats
# dra-example-driver behaves as the published example driver
# (sigs.k8s.io/dra-example-driver v0.4.0 on k8s.io/dynamic-resource-allocation
# v0.37.2 kubeletplugin) where the node suite (tests/upstream/node/) found
# them to disagree.
bats_require_minimum_version 1.5.0
load helpers
load rpc-helpers

setup_file() { rpc_setup_file; }
setup() {
    rpc_setup
    CK=$T/state
}
teardown() { rpc_teardown; }

@test "upstream-driver: the helper's claim checks fail the whole call, as kubeletplugin's getResourceClaims" {
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } >"$T/snap.yaml"
    sed 's/uid: c-p1/uid: c-other/' "$T/snap.yaml" >"$T/claims.yaml"
    start_driver --claims "$T/claims.yaml"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_failure 3
    [[ $stderr == *"NodePrepareResources: "*"UNKNOWN: get resource claims: claim ns1/p1-own got replaced"* ]]
    [[ $stderr != *"failed for ResourceClaim"* ]]
    [[ ! -e $T/p/checkpoint.json ]] || [[ $(jq -r '.Data | fromjson | .Entries | length' "$T/p/checkpoint.json") == 0 ]]
}

@test "upstream-driver: a device the driver does not have is a per-claim 'prepare failed' error" {
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } | sed 's/device: gpu-0/device: gpu-99/' >"$T/snap.yaml"
    start_driver --claims "$T/snap.yaml"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_failure 3
    [[ $stderr == *"NodePrepareResources failed for ResourceClaim p1-own: error preparing devices for claim c-p1: prepare failed: requested device is not allocatable: gpu-99"* ]]
}

@test "upstream-driver: eight devices by default, as --num-devices" {
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } | sed 's/device: gpu-0/device: gpu-7/' >"$T/snap.yaml"
    start_driver --claims "$T/snap.yaml"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    run "$DRA_BIN/dra-example-driver" --inventory
    assert_success
    [[ $output == *gpu-7* && $output != *gpu-8* ]]
}

@test "upstream-driver: unprepare of a claim the driver does not hold writes its checkpoint" {
    start_driver
    rm -f "$T/p/checkpoint.json"
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } >"$T/snap.yaml"
    # a kubelet checkpoint naming a claim this driver never prepared
    mkdir -p "$T/other"
    "$DRA_BIN/dra-example-driver" --plugin-dir "$T/other" --registry-dir "$T/other" --cdi-dir "$T/cdi" --node node-1 &
    local pid=$!
    wait_until test -S "$T/other/dra.sock"
    "$DRA_BIN/dra-prepare" prepare --pod ns1/p1 "$T/snap.yaml" --socket "$T/other/dra.sock" --checkpoint "$CK" >/dev/null
    kill "$pid"; wait "$pid" || true
    run --separate-stderr prep unprepare --pod ns1/p1 -o jsonl
    assert_success
    [[ -s $T/p/checkpoint.json ]]
    [[ $(jq -r '.Data | fromjson | .Entries | length' "$T/p/checkpoint.json") == 0 ]]
}

@test "upstream-driver: registers DRAResourceHealth v1 beside v1alpha1, as the kubelet plugin helper" {
    start_driver
    run --separate-stderr "$DRA_BIN/dra-prepare" plugins --registry-dir "$T/reg" -o json
    assert_success
    [[ $(jq -c .supportedVersions <<<"$output") == '["v1.DRAPlugin","v1beta1.DRAPlugin","v1.DRAResourceHealth","v1alpha1.DRAResourceHealth"]' ]]
}

@test "upstream-driver: CDI specs and device IDs as the published driver writes them" {
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } | sed 's/device: gpu-0/device: gpu-3/' >"$T/snap.yaml"
    start_driver --claims "$T/snap.yaml"
    # the common spec, written at start (cdi.go CreateCommonSpecFile)
    run --separate-stderr "$DRA_BIN/dra-prepare" cdi --cdi-dir "$T/cdi" -o jsonl k8s.gpu.example.com/gpu=common
    assert_success
    [[ $(jq -c .env <<<"$output") == '["KUBERNETES_NODE_NAME=node-1","DRA_RESOURCE_DRIVER_NAME=gpu.example.com"]' ]]
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    assert_output '{"namespace":"ns1","pod":"p1","container":"main","cdiDevices":["k8s.gpu.example.com/gpu=common","k8s.gpu.example.com/gpu=c-p1-gpu-3"]}'
    [[ $(stat -c %a "$T/cdi/k8s.gpu.example.com-gpu_c-p1.yaml") == 600 ]]
    run --separate-stderr "$DRA_BIN/dra-prepare" cdi --cdi-dir "$T/cdi" -o jsonl k8s.gpu.example.com/gpu=c-p1-gpu-3
    assert_success
    [[ $(jq -c .env <<<"$output") == '["GPU_DEVICE_GPU_3_RESOURCE_CLAIM=c-p1","DRA_ADMIN_ACCESS=false","GPU_DEVICE_3=gpu-3","GPU_DEVICE_3_SHARING_STRATEGY=TimeSlicing","GPU_DEVICE_3_TIMESLICE_INTERVAL=Default"]' ]]
    head -2 "$T/cdi/k8s.gpu.example.com-gpu_c-p1.yaml" | diff - <(printf -- '---\ncdiVersion: 0.3.0\n')
    run --separate-stderr prep unprepare --pod ns1/p1 -o jsonl
    assert_success
    run ls "$T/cdi"
    assert_output k8s.gpu.example.com-gpu_common.yaml
}

@test "upstream-driver: DRA_ADMIN_ACCESS follows the allocation's adminAccess" {
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } | sed 's/device: gpu-0}/device: gpu-1, adminAccess: true}/' >"$T/snap.yaml"
    start_driver --claims "$T/snap.yaml"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    grep -q 'DRA_ADMIN_ACCESS=true' "$T/cdi/k8s.gpu.example.com-gpu_c-p1.yaml"
}

# snap_config JSON [DRIVER]: p1's claim with an opaque config (of
# gpu.example.com unless DRIVER) from the claim for its request gpu
snap_config() {
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } |
        sed "s|^      results:\$|      config:\\n      - {source: FromClaim, requests: [gpu], opaque: {driver: ${2:-gpu.example.com}, parameters: $1}}\\n&|" >"$T/snap.yaml"
}

@test "upstream-driver: a GpuConfig from the claim sets the device's sharing env" {
    snap_config '{"apiVersion":"gpu.resource.example.com/v1alpha1","kind":"GpuConfig","sharing":{"strategy":"SpacePartitioning","spacePartitioningConfig":{"partitionCount":3}}}'
    start_driver --claims "$T/snap.yaml"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    grep -q 'GPU_DEVICE_0_SHARING_STRATEGY=SpacePartitioning' "$T/cdi/k8s.gpu.example.com-gpu_c-p1.yaml"
    grep -q 'GPU_DEVICE_0_PARTITION_COUNT=3' "$T/cdi/k8s.gpu.example.com-gpu_c-p1.yaml"
    ! grep -q TIMESLICE "$T/cdi/k8s.gpu.example.com-gpu_c-p1.yaml"
}

@test "upstream-driver: another driver's config leaves the default; bad configs are per-claim errors in upstream's words" {
    snap_config '{"apiVersion":"gpu.resource.example.com/v1alpha1","kind":"GpuConfig","sharing":{"strategy":"TimeSlicing","timeSlicingConfig":{"interval":"Long"}}}' other.example.com
    start_driver --claims "$T/snap.yaml"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    grep -q 'GPU_DEVICE_0_TIMESLICE_INTERVAL=Default' "$T/cdi/k8s.gpu.example.com-gpu_c-p1.yaml"
    run --separate-stderr prep unprepare --pod ns1/p1 -o jsonl
    assert_success
    for case in '{"apiVersion":"gpu.resource.example.com/v1alpha1","kind":"GpuConfig","sharing":{"strategy":"Sometimes"}}|prepare failed: error applying config: error validating GPU config: unknown GPU sharing strategy: Sometimes' \
        '{"apiVersion":"gpu.resource.example.com/v1alpha1","kind":"GpuConfig","sharing":{"strategy":"TimeSlicing","timeSlicingConfig":{"interval":"Often"}}}|error validating GPU config: unknown time-slice interval: Often' \
        '{"apiVersion":"gpu.resource.example.com/v1alpha1","kind":"GpuConfig","sharing":{"strategy":"TimeSlicing","spacePartitioningConfig":{"partitionCount":2}}}|unable to get time slicing config for device gpu-0: cannot use SpacePartitioningConfig with the '"'TimeSlicing'"' strategy' \
        '{"apiVersion":"gpu.resource.example.com/v1alpha1","kind":"GpuConfig","sharing":{"strategy":"SpacePartitioning","spacePartitioningConfig":{"partitionCount":-1}}}|error validating GPU config: invalid partition count: -1' \
        '{"apiVersion":"v1"}|prepare failed: error getting opaque device configs: error decoding config parameters: Object '"'Kind'"' is missing in'; do
        snap_config "${case%%|*}"
        run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
        assert_failure 3
        [[ $stderr == *"NodePrepareResources failed for ResourceClaim p1-own: error preparing devices for claim c-p1: "*"${case#*|}"* ]] ||
            { echo "want: ${case#*|}"; echo "got: $stderr"; false; }
    done
}

@test "upstream-driver: a device share's ID is answered, recorded and part of its CDI device name" {
    { pod p1 u-p1 node-1; claim p1-own c-p1 u-p1 u-p1; } |
        sed 's/device: gpu-0}/device: gpu-2, shareID: 6f1b2c3d-0000-4000-8000-000000000001}/' >"$T/snap.yaml"
    start_driver --claims "$T/snap.yaml"
    run --separate-stderr prep prepare --pod ns1/p1 -o jsonl "$T/snap.yaml"
    assert_success
    assert_output '{"namespace":"ns1","pod":"p1","container":"main","cdiDevices":["k8s.gpu.example.com/gpu=common","k8s.gpu.example.com/gpu=c-p1-gpu-2-6f1b2c3d-0000-4000-8000-000000000001"]}'
    run jq -c '.Data | fromjson | [.Entries[].DriverState[].Devices[] | {DeviceName, ShareID}]' "$CK"
    assert_output '[{"DeviceName":"gpu-2","ShareID":"6f1b2c3d-0000-4000-8000-000000000001"}]'
}
