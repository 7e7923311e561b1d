#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# capacity, pool-status, diff and what-if on a fleet in use, in bounded
# memory: claims and Pods held as records, slices as what the command reads.
load helpers
load held # fleet_in_use, rss_measurable, rss_mib

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

@test "dra-alloc capacity: quotas count the claims held as text" {
    local data="$BATS_TEST_DIRNAME/../data/capacity"
    run "$DRA_BIN/dra-alloc" capacity -o json "$data/cluster.yaml" "$data/quota.yaml"
    assert_success
    run jq -c '.quotas[0].resources["gpu.deviceclass.resource.k8s.io/devices"] | [.used, .start]' <<<"$output"
    assert_output '[3,3]'
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
