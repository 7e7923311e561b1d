#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Kubernetes 1.38's DRA changes behind --kubernetes-version, and the fixes
# 1.37.x shares: each case runs the releases that differ.
load helpers

setup() {
    T="$BATS_TEST_TMPDIR"
    M="$DATA/manifests"
    unset DRA_KUBERNETES_VERSION
}

refused_from_138() { # FILE...: valid for 1.36 and 1.37, refused (exit 2) by 1.38, whose run is left
    for r in 1.36 1.37; do
        run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version $r "$@"
        assert_success
    done
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.38 "$@"
    assert_failure 2
}

@test "a DeviceTaintRule without deviceSelector selects no device from 1.37 on; every device in 1.36" {
    "$DRA_BIN/dra-slice" profile gpu --nodes 1 --devices 2 >"$T/one.yaml"
    printf 'apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: no-selector}\nspec:\n  taint: {key: example.com/upgrade, effect: NoExecute}\n' >"$T/rule.yaml"
    for r in 1.37 1.38; do
        run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version $r --now 2026-03-01T10:00:00Z "$M/gpu-demo.yaml" "$M/deviceclass.yaml" "$T/one.yaml" "$T/rule.yaml"
        assert_success
        [[ $stderr == *"warning: DeviceTaintRule no-selector has no deviceSelector: it selects no device, as the scheduler and the eviction controller read it"* ]]
        run --separate-stderr "$DRA_BIN/dra-alloc" capacity --kubernetes-version $r --now 2026-03-01T10:00:00Z -o jsonl "$M/deviceclass.yaml" "$T/one.yaml" "$T/rule.yaml"
        assert_success
        [[ $(jq -c '[.tainted, .free]' <<<"$output") == "[0,2]" ]]
    done
    # 1.36 serves DeviceTaintRules as v1beta2 only
    sed 's|resource.k8s.io/v1$|resource.k8s.io/v1beta2|' "$T/rule.yaml" >"$T/rule-136.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.36 --feature-gates DRADeviceTaintRules=true --now 2026-03-01T10:00:00Z "$M/gpu-demo.yaml" "$M/deviceclass.yaml" "$T/one.yaml" "$T/rule-136.yaml"
    assert_failure 1
    [[ $stderr == *"warning: DeviceTaintRule no-selector has no deviceSelector: its taint applies to every device, as the scheduler of Kubernetes 1.36 applies it (kubernetes#141422)"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity --kubernetes-version 1.36 --feature-gates DRADeviceTaintRules=true --now 2026-03-01T10:00:00Z -o jsonl "$M/deviceclass.yaml" "$T/one.yaml" "$T/rule-136.yaml"
    assert_success
    [[ $(jq -c '[.tainted, .free]' <<<"$output") == "[2,0]" ]]
    # the eviction controller matches nothing in every release
    for r in 1.36 1.37 1.38; do
        local rule=$T/rule.yaml
        [[ $r != 1.36 ]] || rule=$T/rule-136.yaml
        run --separate-stderr "$DRA_BIN/dra-evict" --kubernetes-version $r --feature-gates DRADeviceTaintRules=true --now 2026-03-01T10:00:00Z "$T/one.yaml" "$rule"
        assert_success
        [[ $stderr == *"DeviceTaintRule no-selector has no deviceSelector: it selects no device"* ]]
    done
}

@test "1.38 rejects a device's nodeSelector of two terms and a name with two slashes; 1.37 does not" {
    cat >"$T/slice.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  perDeviceNodeSelection: true
  devices:
  - name: d0
    nodeSelector:
      nodeSelectorTerms:
      - matchExpressions: [{key: zone, operator: In, values: [a]}]
      - matchExpressions: [{key: zone, operator: In, values: [b]}]
    attributes:
      gpu.example.com/a/b: {int: 1}
    capacity:
      gpu.example.com/mem/x: {value: 1Gi}
YAML
    refused_from_138 "$T/slice.yaml"
    [[ $stderr == *'ResourceSlice/s: spec.devices[0].nodeSelector.nodeSelectorTerms: Invalid value: [{"MatchExpressions":'*'must have exactly one node selector term'* ]]
    [[ $stderr == *'ResourceSlice/s: spec.devices[0].attributes: Invalid value: "gpu.example.com/a/b": must not contain more than one slash'* ]]
    [[ $stderr == *'ResourceSlice/s: spec.devices[0].capacity: Invalid value: "gpu.example.com/mem/x": must not contain more than one slash'* ]]
    # one term is fine
    yq -y -i 'del(.spec.devices[0].nodeSelector.nodeSelectorTerms[1]) | del(.spec.devices[0].attributes) | del(.spec.devices[0].capacity)' "$T/slice.yaml"
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.38 "$T/slice.yaml"
    assert_success
}

@test "dra-evict: an extended-resource claim counts from 1.37 on; a toleration without effect tolerates NoExecute from 1.38 on" {
    local in=("$DATA/evict/slices.yaml" "$DATA/evict/claims-pods.json" "$DATA/evict/rules.yaml")
    # x uses only its extended-resource claim; d's claim tolerates {operator: Exists} with no effect
    declare -A want=([1.36]="a b d " [1.37]="a b d x " [1.38]="a b x ")
    # 1.36 serves DeviceTaintRules as v1beta2 only: a dump of its cluster holds them so
    sed 's|resource.k8s.io/v1$|resource.k8s.io/v1beta2|' "$DATA/evict/rules.yaml" >"$T/rules-136.yaml"
    for r in 1.36 1.37 1.38; do
        local rin=("${in[@]}")
        [[ $r != 1.36 ]] || rin[2]=$T/rules-136.yaml
        run --separate-stderr "$DRA_BIN/dra-evict" --kubernetes-version $r --feature-gates DRADeviceTaintRules=true \
            --apply-at 2026-03-01T10:06:00Z --patch "${rin[@]}"
        assert_success
        assert_equal "$(jq -r 'select(.verb == "delete") | .name' <<<"$output" | sort | tr '\n' ' ')" "${want[$r]}"
    done
    run --separate-stderr "$DRA_BIN/dra-evict" --kubernetes-version 1.38 --now 2026-03-01T10:06:00Z -o jsonl "${in[@]}"
    assert_success
    [[ -z $(jq -r 'select(.pod.name == "d") | .evictAt // empty' <<<"$output") ]]
}

@test "1.38: a capacity request names the driver's capacity with or without domain; both at once is an error" {
    local A="$DATA/alloc"
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: a, namespace: default}\nspec:\n  devices:\n    requests:\n    - {name: net, exactly: {deviceClassName: nic, capacity: {requests: {%s}}}}\n' \
        'net.example.com/bandwidth: 2500Mi' >"$T/qualified.yaml"
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: a, namespace: default}\nspec:\n  devices:\n    requests:\n    - {name: net, exactly: {deviceClassName: nic, capacity: {requests: {%s}}}}\n' \
        'bandwidth: 1Gi, net.example.com/bandwidth: 1Gi' >"$T/both.yaml"
    # a claim in use whose status spells the capacity with the driver's domain
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: used, namespace: default}\nspec:\n  devices:\n    requests:\n    - {name: net, exactly: {deviceClassName: nic}}\nstatus:\n  allocation:\n    devices:\n      results:\n      - {request: net, driver: net.example.com, pool: node-1, device: nic-0, shareID: 6b1e2a4c-0000-4000-8000-000000000001, consumedCapacity: {net.example.com/bandwidth: 9Gi}}\n' >"$T/used.yaml"
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: b, namespace: default}\nspec:\n  devices:\n    requests:\n    - {name: net, exactly: {deviceClassName: nic, capacity: {requests: {bandwidth: 2Gi}}}}\n' >"$T/more.yaml"
    local now=(--node node-1 --now 2026-03-01T12:00:00Z -o jsonl)
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 "${now[@]}" "$A/nic.yaml" "$T/qualified.yaml"
    assert_success
    # the status keeps the slice's spelling
    assert_equal "$(jq -c '.status.allocation.devices.results[0] | [.device, .consumedCapacity]' <<<"$output")" '["nic-0",{"bandwidth":"3Gi"}]'
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 "${now[@]}" "$A/nic.yaml" "$T/both.yaml"
    assert_failure 2
    assert_output ""
    assert_equal "$stderr" 'dra-alloc: claim default/a, request net: checking capacity for device net.example.com/node-1/nic-0: capacity "bandwidth" requested both as "net.example.com/bandwidth" and as "bandwidth"'
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 "${now[@]}" "$A/nic.yaml" "$T/used.yaml" "$T/more.yaml"
    assert_failure 1
    # 1.37 matches names as spelled
    for f in qualified both; do
        run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 "${now[@]}" "$A/nic.yaml" "$T/$f.yaml"
        assert_failure 1
    done
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 "${now[@]}" "$A/nic.yaml" "$T/used.yaml" "$T/more.yaml"
    assert_success
    # one result with both spellings: 1.38 keeps the qualified 4Gi (4Gi + 6Gi fit 10Gi), 1.37 the plain 5Gi
    sed 's|consumedCapacity: {net.example.com/bandwidth: 9Gi}|consumedCapacity: {net.example.com/bandwidth: 4Gi, bandwidth: 5Gi}|' "$T/used.yaml" >"$T/both-used.yaml"
    sed 's|bandwidth: 2Gi|bandwidth: 6Gi|' "$T/more.yaml" >"$T/six.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 "${now[@]}" "$A/nic.yaml" "$T/both-used.yaml" "$T/six.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 "${now[@]}" "$A/nic.yaml" "$T/both-used.yaml" "$T/six.yaml"
    assert_failure 1
    # a negative request (past validation): 1.38 refuses it before the policy rounds it up to 1Gi
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: neg, namespace: default}\nspec:\n  devices:\n    requests:\n    - {name: net, exactly: {deviceClassName: nic, capacity: {requests: {bandwidth: "-1Gi"}}}}\n' >"$T/neg.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --no-validate "${now[@]}" "$A/nic.yaml" "$T/neg.yaml"
    assert_failure 2
    assert_equal "$stderr" 'dra-alloc: claim default/neg, request net: checking capacity for device net.example.com/node-1/nic-0: capacity "bandwidth": capacity value is negative: request -1Gi'
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --no-validate "${now[@]}" "$A/nic.yaml" "$T/neg.yaml"
    assert_success
    assert_equal "$(jq -c '.status.allocation.devices.results[0].consumedCapacity' <<<"$output")" '{"bandwidth":"1Gi"}'
}

@test "1.38 validates a claim's capacity request names, at most 32 of them, none negative; 1.37 does not" {
    cat >"$T/claim.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - name: net
      exactly:
        deviceClassName: nic
        capacity:
          requests: {a/b/c: 1Gi, bandwidth: "-1Gi", ok.example.com/x: 2}
YAML
    python3 -c 'import json; print("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: many, namespace: default}\nspec:\n  devices:\n    requests:\n    - {name: net, exactly: {deviceClassName: nic, capacity: {requests: %s}}}" % json.dumps({"c%d" % i: "-1" for i in range(33)}))' >"$T/many.yaml"
    refused_from_138 "$T/claim.yaml"
    assert_equal "$stderr" "dra-slice: $T/claim.yaml:11: ResourceClaim/default/c: spec.devices.requests[0].exactly.capacity.requests: Invalid value: \"a/b/c\": must not contain more than one slash
dra-slice: $T/claim.yaml:11: ResourceClaim/default/c: spec.devices.requests[0].exactly.capacity.requests[bandwidth]: Invalid value: \"-1Gi\": must be greater than or equal to 0"
    # past 32 the count alone, as the declarative check short-circuits
    refused_from_138 "$T/many.yaml"
    assert_equal "$stderr" "dra-slice: $T/many.yaml:7: ResourceClaim/default/many: spec.devices.requests[0].exactly.capacity.requests: Too many: 33: must have at most 32 items"
}

@test "1.38 refuses version attributes with numbers of more than 18 digits; 1.37 accepts them" {
    cat >"$T/slice.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: d0
    attributes:
      driverVersion: {version: 1234567890123456789.0.0}
      preRelease: {version: 1.0.0-1234567890123456789}
      fits: {version: 123456789012345678.0.0-123456789012345678+12345678901234567890}
YAML
    refused_from_138 "$T/slice.yaml"
    [[ $stderr == *'spec.devices[0].attributes[driverVersion].version: Invalid value: "1234567890123456789.0.0": must be a string compatible with semver.org spec 2.0.0, with at most 18 digits in numbers'* ]]
    [[ $stderr == *'spec.devices[0].attributes[preRelease].version: Invalid value: "1.0.0-1234567890123456789": must be a string compatible with semver.org spec 2.0.0, with at most 18 digits in numbers'* ]]
    [[ $stderr != *fits* ]]
}

@test "1.38's constraints compare versions without build metadata; 1.37 compares the strings" {
    {
        yaml_gpu_class
        cat <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpu}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      firmware: {version: 1.2.0+build.7}
  - name: gpu-1
    attributes:
      firmware: {version: 1.2.0+build.9}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: pair, namespace: default}
spec:
  devices:
    requests:
    - {name: a, exactly: {deviceClassName: gpu}}
    - {name: b, exactly: {deviceClassName: gpu}}
    constraints:
    - {matchAttribute: gpu.example.com/firmware}
YAML
    } >"$T/ver.yaml"
    sed 's/matchAttribute/distinctAttribute/' "$T/ver.yaml" >"$T/distinct.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --node node-1 -o jsonl "$T/ver.yaml"
    assert_success
    assert_equal "$(jq -c '[.status.allocation.devices.results[].device]' <<<"$output")" '["gpu-0","gpu-1"]'
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --node node-1 -o jsonl "$T/distinct.yaml"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --node node-1 -o jsonl "$T/ver.yaml"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --node node-1 -o jsonl "$T/distinct.yaml"
    assert_success
    # a list-type attribute: the sets ignore build metadata too
    sed 's/firmware: {version: \(.*\)}/firmware: {versions: [\1]}/' "$T/ver.yaml" >"$T/list.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --feature-gates DRAListTypeAttributes=true --node node-1 -o jsonl "$T/list.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --feature-gates DRAListTypeAttributes=true --node node-1 -o jsonl "$T/list.yaml"
    assert_failure 1
}

@test "1.38: All over an incomplete pool fails the node, not the run; 1.37: fatal" {
    printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: default, uid: uid-c}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly: {deviceClassName: gpu, allocationMode: All}\n' >"$T/all.yaml"
    local in=("$DATA/alloc/basic.yaml" "$DATA/alloc/incomplete.yaml" "$T/all.yaml")
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.38 --node node-1 "${in[@]}"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" "dra-alloc: claim default/c, request gpu: asks for all devices, but resource pool gpu.example.com/updating is currently being updated"
    run --separate-stderr "$DRA_BIN/dra-alloc" --kubernetes-version 1.37 --node node-1 "${in[@]}"
    assert_failure 2
    assert_equal "$stderr" "dra-alloc: claim default/c, request gpu: asks for all devices, but resource pool gpu.example.com/updating is currently being updated"
}

@test "dra-claim doctor: a toleration without effect ignores a NoExecute taint for good from 1.38 on, as dra-evict" {
    local in=("$DATA/evict/slices.yaml" "$DATA/evict/claims-pods.json" "$DATA/evict/rules.yaml")
    # d-gpu tolerates {operator: Exists}, no effect, on a device with a NoExecute taint
    run --separate-stderr "$DRA_BIN/dra-claim" doctor --kubernetes-version 1.37 --now 2026-03-01T10:06:00Z "${in[@]}"
    [[ $output$stderr == *"ResourceClaim/ml/d-gpu: device gpu.example.com/node-a/gpu-0 has NoExecute taint"* ]]
    run --separate-stderr "$DRA_BIN/dra-claim" doctor --kubernetes-version 1.38 --now 2026-03-01T10:06:00Z "${in[@]}"
    [[ $output$stderr != *"ResourceClaim/ml/d-gpu: device"*"NoExecute taint"* ]]
    [[ $output$stderr == *"ResourceClaim/ml/a-gpu: device gpu.example.com/node-a/gpu-0 has NoExecute taint"* ]]
}

@test "1.38: a nodeAllocatableResources capacityKey that is no capacity name gets the name's error, not Not found" {
    cat >"$T/nar.yaml" <<'YAML'
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
      cpu: {mapping: {capacityKey: cpu.example.com/a/b, capacityMultiplier: "1"}}
      memory: {mapping: {capacityKey: cpu.example.com/nope, capacityMultiplier: "1"}}
YAML
    local g=(--feature-gates DRANodeAllocatableResources=true)
    local nar='spec.devices[0].nodeAllocatableResources'
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.37 "${g[@]}" "$T/nar.yaml"
    assert_failure 2
    [[ $stderr == *"${nar}[cpu].mapping.capacityKey: Not found: \"cpu.example.com/a/b\""* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --kubernetes-version 1.38 "${g[@]}" "$T/nar.yaml"
    assert_failure 2
    [[ $stderr == *"${nar}[cpu].mapping.capacityKey: Invalid value: \"cpu.example.com/a/b\": must not contain more than one slash"* ]]
    [[ $stderr != *"Not found: \"cpu.example.com/a/b\""* ]]
    [[ $stderr == *"${nar}[memory].mapping.capacityKey: Not found: \"cpu.example.com/nope\""* ]]
}
