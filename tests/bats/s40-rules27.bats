#!/usr/bin/env bats
# Every quantity a tool reads is parsed by the rules of the release it
# follows (--kubernetes-version): apimachinery v0.38.0-beta.0's
# ParseQuantity keeps 29 significant digits, rounded away from zero, and
# holds a 19-digit integer as an int64 (pkg/api/resource/quantity.go,
# amount.go); v0.37.2's keeps every digit.  The 1.38 peers say the same:
# upstream-cel 1.38 finds quantity('1234567890123456789012345678901') ==
# quantity('1234567890123456789012345678902') and
# quantity('1000000000000000001').isInteger(), 1.37 neither.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    T=$BATS_TEST_TMPDIR
    REPO=$BATS_TEST_DIRNAME/../..
    C="$EXAMPLES/cluster"
    DRV_PID=
}

teardown() {
    if [[ -n $DRV_PID ]]; then
        kill "$DRV_PID" 2>/dev/null
        wait "$DRV_PID" 2>/dev/null
    fi
    [[ -z ${S:-} ]] || rm -rf "$S"
}

Q1=1234567890123456789012345678901
Q2=1234567890123456789012345678902

slice_line() { # NAME SPEC
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"%s"},"spec":{"driver":"gpu.example.com","nodeName":"node-a","pool":{"name":"p","generation":1,"resourceSliceCount":2},%s}}\n' "$1" "$2"
}

# a counter set of $1 and a device consuming $2 of it
counter_slices() {
    slice_line s0 "\"sharedCounters\":[{\"name\":\"cs\",\"counters\":{\"mem\":{\"value\":\"$1\"}}}]"
    slice_line s1 "\"devices\":[{\"name\":\"d0\",\"consumesCounters\":[{\"counterSet\":\"cs\",\"counters\":{\"mem\":{\"value\":\"$2\"}}}]},{\"name\":\"d1\",\"consumesCounters\":[{\"counterSet\":\"cs\",\"counters\":{\"mem\":{\"value\":\"$2\"}}}]}]"
}

CLASS='{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == '"'gpu.example.com'"'"}}]}}'
CLAIM='{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c1","namespace":"default","uid":"u1"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu"}}]}}}'

@test "lint: a device consuming more than its counter has only under 1.37, the same under 1.38" {
    counter_slices "$Q1" "$Q2" >"$T/s.jsonl"
    run --separate-stderr "$DRA_BIN/dra-slice" lint --kubernetes-version 1.37 "$T/s.jsonl"
    assert_failure 1
    assert_output --partial "device d0: consumes $Q2 of counter mem in counter set cs, which has only $Q1: the device can never be allocated"
    run --separate-stderr "$DRA_BIN/dra-slice" lint --kubernetes-version 1.38 "$T/s.jsonl"
    assert_success
    assert_output ''
}

@test "lint agrees with the allocator of each release, and with the 1.38 peer" {
    { counter_slices "$Q1" "$Q2"; echo "$CLASS"; echo "$CLAIM"; } >"$T/in.jsonl"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-a --kubernetes-version 1.37 -o json "$T/in.jsonl"
    assert_failure 1
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-a --kubernetes-version 1.38 -o json "$T/in.jsonl"
    assert_success
    U=$REPO/build/upstream/1.38/bin/upstream-alloc
    [[ -x $U ]] || skip "the 1.38 upstream-alloc is not built (make upstream-1.38)"
    run --separate-stderr "$U" --node node-a -o json "$T/in.jsonl"
    assert_success
    [[ $(jq -r '.status.allocation.devices.results[0].device' <<<"$output") == d0 ]]
}

@test "build --previous: quantities equal under 1.38 keep the generation, 1.37 bumps it" {
    inv() { printf 'sharedCounters:\n- name: cs\n  counters:\n    mem: {value: "%s"}\ndevices:\n- name: d0\n  capacity:\n    mem: {value: "%s"}\n' "$1" "$1"; }
    inv "$Q1" >"$T/inv1.yaml"
    inv "$Q2" >"$T/inv2.yaml"
    for v in 1.37 1.38; do
        "$DRA_BIN/dra-slice" build --kubernetes-version "$v" --driver gpu.example.com --node node-1 --generation 4 "$T/inv1.yaml" >"$T/prev.yaml"
        run --separate-stderr "$DRA_BIN/dra-slice" build --kubernetes-version "$v" --driver gpu.example.com --node node-1 --previous "$T/prev.yaml" "$T/inv2.yaml"
        assert_success
        want=5
        [[ $v == 1.38 ]] && want=4
        [ "$(grep -c "generation: $want" <<<"$output")" -eq 2 ]
    done
}

@test "pool-status: a shareable device's capacity as the release reads it" {
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s1"},"spec":{"driver":"gpu.example.com","nodeName":"node-a","pool":{"name":"p","generation":1,"resourceSliceCount":1},"devices":[{"name":"d0","allowMultipleAllocations":true,"capacity":{"mem":{"value":"%s"}}}]}}\n' "$Q1" >"$T/s.jsonl"
    for v in 1.37 1.38; do
        run --separate-stderr "$DRA_BIN/dra-slice" pool-status --driver gpu.example.com --kubernetes-version "$v" \
            --feature-gates DRAResourcePoolStatus=true,DRAConsumableCapacity=true --now 2026-01-01T00:00:00Z -o json "$T/s.jsonl"
        assert_success
        want=$Q1
        [[ $v == 1.38 ]] && want=1234567890123456789012345679k
        run jq -c '.status.pools[0].shareableSummary.capacity[0] | [.total, .available]' <<<"$output"
        assert_output "[\"$want\",\"$want\"]"
    done
}

@test "capacity: a counter's left is subtracted by the release's rules" {
    # 1e40 - 1: v0.38's Sub first rounds 1 up to 29 orders below 1e40 (amount.go boundScaleGap)
    { counter_slices 1e40 1; echo "$CLASS"
      echo "$CLAIM" | jq -c '.status = {allocation: {devices: {results: [{request: "r", driver: "gpu.example.com", pool: "p", device: "d0"}]}}}'; } >"$T/in.jsonl"
    for v in 1.37 1.38; do
        run --separate-stderr "$DRA_BIN/dra-alloc" capacity --by pool --kubernetes-version "$v" -o json "$T/in.jsonl"
        assert_success
        want=9999999999999999999999999999999999999999
        [[ $v == 1.38 ]] && want=9999999999999999999999999999900e9
        run jq -r '[.. | objects | select(has("counters")) | .counters.mem.left][0]' <<<"$output"
        assert_output "$want"
    done
    U=$REPO/build/upstream/1.38/bin/upstream-cel
    [[ -x $U ]] || skip "the 1.38 upstream-cel is not built (make upstream-1.38)"
    run "$U" eval "quantity('1e40').sub(1)"
    assert_output 'quantity("9999999999999999999999999999900e9")'
}

@test "schedule: a 19-digit extended-resource request is a count under 1.38 only" {
    # the scheduler reads the request with AsInt64 (k8s.io/kubernetes v1.38.0-beta.0
    # pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go):
    # false for 1000000000000000001 under v0.37.2 (no device asked), true under v0.38
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns, uid: u-p, creationTimestamp: "2026-01-01T00:00:00Z"}\nspec: {containers: [{name: c, image: x, resources: {requests: {example.com/gpu: "1000000000000000001"}, limits: {example.com/gpu: "1000000000000000001"}}}]}\n' >"$T/pod.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.37 --now 2026-01-02T00:00:00Z -o json \
        "$C/classes.yaml" "$C/nodes.yaml" "$C/slices.yaml" "$T/pod.yaml"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.38 --now 2026-01-02T00:00:00Z -o json \
        "$C/classes.yaml" "$C/nodes.yaml" "$C/slices.yaml" "$T/pod.yaml"
    [[ $stderr == *"request container-0-request-0: adding 1000000000000000001 devices exceeds the claim limit of 32"* ]]
}

# Kubernetes 1.36 serves DeviceTaintRules as resource.k8s.io/v1alpha3 and
# v1beta2 only (k8s.io/kubernetes v1.36.3 pkg/registry/resource/rest/
# storage_resource.go: no devicetaintrules in v1Storage); v1 from 1.37.
DTR='{"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule","metadata":{"name":"t"},"spec":{"deviceSelector":{"driver":"gpu.example.com"},"taint":{"key":"k","value":"v","effect":"NoSchedule"}}}'

taint_input() { # APIVERSION
    slice_line s1 '"devices":[{"name":"d0"}]' | sed 's/"resourceSliceCount":2/"resourceSliceCount":1/'
    echo "${DTR/resource.k8s.io\/v1\"/$1\"}"
    echo "$CLASS"
    echo "$CLAIM"
}

@test "1.36: a v1 DeviceTaintRule is left out with a warning by pool-status and the allocator" {
    taint_input resource.k8s.io/v1 >"$T/in.jsonl"
    want='DeviceTaintRule/t: kind: no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1": Kubernetes 1.36 does not serve it; left out'
    run --separate-stderr "$DRA_BIN/dra-slice" pool-status --driver gpu.example.com --kubernetes-version 1.36 \
        --feature-gates DRAResourcePoolStatus=true --now 2026-01-01T00:00:00Z -o json "$T/in.jsonl"
    assert_success
    [[ $stderr == *"$want"* ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-a --kubernetes-version 1.36 --feature-gates DRADeviceTaintRules=true -o json "$T/in.jsonl"
    assert_success
    [[ $stderr == *"$want"* ]]
    # 1.37 serves it: its taint keeps the device
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-a --kubernetes-version 1.37 --feature-gates DRADeviceTaintRules=true -o json "$T/in.jsonl"
    assert_failure 1
    [[ $stderr != *"does not serve"* ]]
    U=$REPO/build/upstream/1.36/bin/upstream-alloc
    [[ -x $U ]] || skip "the 1.36 upstream-alloc is not built (make upstream-1.36)"
    run --separate-stderr "$U" --node node-a --feature-gates DRADeviceTaintRules=true -o json "$T/in.jsonl"
    assert_failure 2
    [[ $stderr == *'no kind "DeviceTaintRule" is registered for version "resource.k8s.io/v1"'* ]]
}

# The tools' own client keeps a 1.36 cluster's rules at v1beta2, the
# version it serves them at (s41-served27.bats): those still taint.
@test "1.36: a v1beta2 DeviceTaintRule still taints, as the 1.36 peer says" {
    taint_input resource.k8s.io/v1beta2 >"$T/in.jsonl"
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-a --kubernetes-version 1.36 --feature-gates DRADeviceTaintRules=true -o json "$T/in.jsonl"
    assert_failure 1
    [[ $stderr != *"does not serve"* ]]
    U=$REPO/build/upstream/1.36/bin/upstream-alloc
    [[ -x $U ]] || skip "the 1.36 upstream-alloc is not built (make upstream-1.36)"
    run --separate-stderr "$U" --node node-a --feature-gates DRADeviceTaintRules=true -o json "$T/in.jsonl"
    assert_failure 1
}

# The services the example driver registers by release: k8s.io/dynamic-
# resource-allocation v0.36.3 kubeletplugin/draplugin.go offers a plugin
# serving health v1alpha1.DRAResourceHealth alone (k8s.io/kubelet v0.36.3
# has no v1 of pkg/apis/dra-health); v0.37.2 offers v1 and v1alpha1.
driver_services() { # DRIVER-OPTIONS...: the supportedVersions it registers
    S=$(mktemp -d /tmp/dra-s40.XXXXXX) # short: unix socket paths are limited
    "$DRA_BIN/dra-example-driver" --node n --registry-dir "$S/reg" --plugin-dir "$S/p" --cdi-dir "$S/cdi" "$@" >"$S/out" 2>"$S/err" &
    DRV_PID=$!
    for ((i = 0; i < 300; i++)); do
        [[ -S $S/reg/gpu.example.com-reg.sock ]] && break
        sleep 0.1
    done
    "$DRA_BIN/dra-prepare" plugins --registry-dir "$S/reg" -o json | jq -c .supportedVersions
}

@test "dra-example-driver under 1.36 registers no v1.DRAResourceHealth" {
    driver_services --kubernetes-version 1.36 >"$T/svc"
    run cat "$T/svc"
    assert_output '["v1.DRAPlugin","v1beta1.DRAPlugin","v1alpha1.DRAResourceHealth"]'
}

@test "dra-example-driver takes the release from DRA_KUBERNETES_VERSION" {
    DRA_KUBERNETES_VERSION=1.36 driver_services >"$T/svc"
    run cat "$T/svc"
    assert_output '["v1.DRAPlugin","v1beta1.DRAPlugin","v1alpha1.DRAResourceHealth"]'
}

@test "dra-example-driver under 1.37 registers both health versions" {
    driver_services --kubernetes-version 1.37 >"$T/svc"
    run cat "$T/svc"
    assert_output '["v1.DRAPlugin","v1beta1.DRAPlugin","v1.DRAResourceHealth","v1alpha1.DRAResourceHealth"]'
}

@test "dra-example-driver: an unknown --kubernetes-version is a usage error" {
    run --separate-stderr "$DRA_BIN/dra-example-driver" --kubernetes-version 1.35 --registry-dir /nonexistent/r --plugin-dir /nonexistent/p
    assert_failure 2
    [[ $stderr == *'--kubernetes-version: unknown Kubernetes version "1.35" (known: 1.36, 1.37, 1.38)'* ]]
}
