#!/usr/bin/env bats
# End to end: a driver demo as people apply it (namespace, claim template,
# Deployment with replicas, class) on a profile fleet, through
# schedule -> claim status -> evict.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    M="$DATA/manifests"
    T="$BATS_TEST_TMPDIR"
    NOW=(--now 2026-03-01T10:00:00Z)
}

@test "from a demo manifest to a what-if answer: schedule, claim status, evict" {
    "$DRA_BIN/dra-slice" profile gpu --nodes 2 --devices 1 >"$T/fleet.yaml"
    sed 's/replicas: 2/replicas: 3/' "$M/gpu-demo.yaml" >"$T/demo.yaml"

    # three replicas, one GPU each, two GPUs in the fleet: one pod cannot run
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "${NOW[@]}" "$T/demo.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml"
    assert_failure 1
    [[ $stderr == *"0/2 nodes are available: 2 cannot allocate all claims."* ]]
    printf '%s\n' "$output" >"$T/placed.yaml"
    [[ $(grep -c '^  nodeName: node-' "$T/placed.yaml") -eq 2 ]]

    # two replicas fit: the placed claims, as `dra-claim status` reports them
    sed 's/replicas: 2/replicas: 2/' "$M/gpu-demo.yaml" >"$T/demo.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule "${NOW[@]}" "$T/demo.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml"
    assert_success
    printf '%s\n' "$output" >"$T/placed.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" status "$T/demo.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml" "$T/placed.yaml"
    assert_success
    assert_line --index 0 --regexp '^NAMESPACE +NAME +STATE +DEVICES +NODE +USERS$'
    assert_line --regexp '^gpu-demo +inference-[a-z0-9]+-[a-z0-9]{5}-gpu-[a-z0-9]{5} +reserved +gpu.example.com/node-0/gpu-0 +node-0 +inference-'
    assert_line --regexp '^gpu-demo +inference-[a-z0-9]+-[a-z0-9]{5}-gpu-[a-z0-9]{5} +reserved +gpu.example.com/node-1/gpu-0 +node-1 +inference-'
    run --separate-stderr "$DRA_BIN/dra-claim" doctor "${NOW[@]}" "$T/demo.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml" "$T/placed.yaml"
    assert_success

    # what if node-0's GPU is drained with a NoExecute taint?
    cat >"$T/drain.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata:
  name: drain-node-0
spec:
  deviceSelector:
    driver: gpu.example.com
    pool: node-0
  taint:
    key: example.com/maintenance
    value: firmware
    effect: NoExecute
    timeAdded: "2026-03-01T09:00:00Z"
YAML
    # a DeviceTaintRule: 1.37 (off by default in 1.36)
    run --separate-stderr "$DRA_BIN/dra-evict" --kubernetes-version 1.37 "${NOW[@]}" "$T/demo.yaml" "$M/deviceclass.yaml" "$T/fleet.yaml" "$T/placed.yaml" "$T/drain.yaml"
    assert_success
    assert_line --index 0 --regexp '^NAMESPACE +POD +CLAIM +DEVICE +TAINT'
    assert_line --regexp '^gpu-demo +inference-[a-z0-9]+-[a-z0-9]{5} +inference-.*gpu.example.com/node-0/gpu-0 +example.com/maintenance=firmware:NoExecute'
    [[ $(grep -c node-1 <<<"$output") -eq 0 ]]
}
