#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# capacity, pool-status, diff and what-if on a fleet in use, in bounded
# memory: claims and Pods held as records, slices as what the command reads.
load helpers

# A fleet in use as bench/bench-resident.sh makes it (bench/gen-held.py):
# 2,000 nodes of 10 devices, half of each allocated, one claim and one
# bound Pod per allocated device (10,000 each, 12 MB of JSON Lines).
fleet_in_use() {
    command -v python3 >/dev/null || skip "no python3"
    local d="$BATS_TEST_TMPDIR"
    "$DRA_BIN/dra-slice" profile gpu --nodes 2000 --devices 10 -o jsonl >"$d/fleet.jsonl"
    python3 "$BATS_TEST_DIRNAME/../../bench/gen-held.py" "$d/fleet.jsonl" "$d" >/dev/null
}

# Peak RSS is the tool's only without AddressSanitizer and with /usr/bin/time.
rss_measurable() {
    [[ -x /usr/bin/time ]] || skip "no /usr/bin/time"
    ! ldd "$1" 2>/dev/null | grep -q libasan || skip "peak RSS is not the tool's under AddressSanitizer"
}

# The tool's peak RSS in MiB, its output in $BATS_TEST_TMPDIR/out.
rss_mib() {
    local kib
    /usr/bin/time -f '%M' -o "$BATS_TEST_TMPDIR/kib" "$@" >"$BATS_TEST_TMPDIR/out"
    kib=$(tail -1 "$BATS_TEST_TMPDIR/kib")
    echo $((kib / 1024))
}

@test "dra-slice pool-status: 10,000 claims and Pods on 20,000 devices within 32 MiB (was 52)" {
    rss_measurable "$DRA_BIN/dra-slice"
    fleet_in_use
    local d="$BATS_TEST_TMPDIR" mib
    mib=$(rss_mib "$DRA_BIN/dra-slice" pool-status --driver gpu.example.com --limit 1000 -o json \
        --now 2026-06-01T00:00:00Z "$d/base.jsonl" "$d/fleet.jsonl" "$d/held.jsonl")
    (( mib <= 32 )) || { echo "peak RSS $mib MiB"; false; }
    run jq -c '[.status.poolCount, ([.status.pools[].allocatedDevices] | add), ([.status.pools[].totalDevices] | add)]' "$d/out"
    assert_output "[2000,5000,10000]"
}

@test "dra-slice pool-status: taints, rules and both views read from the slices as kept" {
    run "$DRA_BIN/dra-slice" pool-status -o json --now 2026-06-01T00:00:00Z "$BATS_TEST_DIRNAME/../data/slice/pool-status.yaml"
    assert_success
    run jq -c '.status.pools[0] | [.totalDevices, .allocatedDevices, .unavailableDevices]' <<<"$output"
    assert_output '[4,2,2]'
    run "$DRA_BIN/dra-slice" pool-status --driver gpu.example.com -o json --now 2026-06-01T00:00:00Z \
        "$BATS_TEST_DIRNAME/../data/slice/pool-views.yaml"
    assert_success
    run jq -c '[.status.pools[0].partitionSummary[].allocatable, .status.pools[1].shareableSummary.capacity[0].available]' <<<"$output"
    assert_output '[0,1,2,"28Gi"]'
}

@test "dra-alloc capacity: 10,000 claims and Pods on 20,000 devices within 48 MiB (was 156)" {
    rss_measurable "$DRA_BIN/dra-alloc"
    fleet_in_use
    local d="$BATS_TEST_TMPDIR" mib
    mib=$(rss_mib "$DRA_BIN/dra-alloc" capacity -o json "$d/base.jsonl" "$d/fleet.jsonl" "$d/held.jsonl")
    (( mib <= 48 )) || { echo "peak RSS $mib MiB"; false; }
    run jq -c '.classes[0] | [.total, .allocated, .free, .largestFit.devices]' "$d/out"
    assert_output '[20000,10000,10000,5]'
}

@test "dra-alloc capacity: quotas count the claims held as records" {
    local d="$BATS_TEST_TMPDIR"
    cat >"$d/q.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, generation: 1, resourceSliceCount: 1}, devices: [{name: d0}, {name: d1}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns, uid: u-c}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, count: 2}}]}}
status: {allocation: {devices: {results: [{request: r, driver: gpu.example.com, pool: n1, device: d0}, {request: r, driver: gpu.example.com, pool: n1, device: d1}]}}}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: ns}
spec: {hard: {gpu.deviceclass.resource.k8s.io/devices: "4"}}
YAML
    run "$DRA_BIN/dra-alloc" capacity -o json "$d/q.yaml"
    assert_success
    run jq -c '[.classes[0].allocated, .quotas[0].resources["gpu.deviceclass.resource.k8s.io/devices"].used]' <<<"$output"
    assert_output '[2,2]'
}

@test "dra-alloc diff: 10,000 claims and Pods a side within 48 MiB (was 313)" {
    rss_measurable "$DRA_BIN/dra-alloc"
    fleet_in_use
    local d="$BATS_TEST_TMPDIR" mib
    mib=$(rss_mib "$DRA_BIN/dra-alloc" diff -o json "$d/held.jsonl" "$d/moved.jsonl") || true
    (( mib <= 48 )) || { echo "peak RSS $mib MiB"; false; }
    run jq -c '.summary | [.claims, .changed, .devices, .pods, .podsMoved]' "$d/out"
    assert_output '[10000,100,100,10000,0]'
}

@test "dra-alloc diff: claims added and removed, pods moved, from records" {
    local d="$BATS_TEST_TMPDIR"
    claim() { printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: %s, namespace: ns, uid: u-%s}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}\nstatus: {allocation: {devices: {results: [{request: r, driver: d.example.com, pool: p, device: %s}]}}}\n---\n' "$1" "$1" "$2"; }
    pod() { printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: ns, uid: u-%s}\nspec: {nodeName: %s, containers: [{name: c, image: x}]}\n---\n' "$1" "$1" "$2"; }
    { claim a d0; claim gone d1; pod p n1; } >"$d/a.yaml"
    { claim a d2; claim new d1; pod p n2; } >"$d/b.yaml"
    run -1 "$DRA_BIN/dra-alloc" diff "$d/a.yaml" "$d/b.yaml"
    assert_line 'ResourceClaim ns/a: devices -d.example.com/p/d0 (r) +d.example.com/p/d2 (r)'
    assert_line 'ResourceClaim ns/gone: removed; devices -d.example.com/p/d1 (r); node (any node) -> (not allocated)'
    assert_line 'ResourceClaim ns/new: added; devices +d.example.com/p/d1 (r); node (not allocated) -> (any node)'
    assert_line 'Pod ns/p: node n1 -> n2'
}
