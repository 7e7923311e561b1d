#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-alloc schedule --what-if on a fleet in use, in bounded memory: bound
# Pods and the claims no pending Pod needs are held as records which both
# inputs share; the changed input makes again only the Pods a change may
# reach and their claims.
load helpers
load held # fleet_in_use, rss_measurable, rss_mib

@test "what-if --drain on records: 10,000 claims and Pods on 20,000 devices within 48 MiB (was 183)" {
    rss_measurable "$DRA_BIN/dra-alloc"
    fleet_in_use
    local d="$BATS_TEST_TMPDIR" mib
    mib=$(rss_mib "$DRA_BIN/dra-alloc" schedule --what-if --drain node-0 --now 2026-01-01T00:00:00Z -o json \
        "$d/base.jsonl" "$d/fleet.jsonl" "$d/held.jsonl") || true
    (( mib <= 48 )) || { echo "peak RSS $mib MiB"; false; }
    run jq -c '[.summary.lost, .summary.moved, [.lost[].pod], .lost[0].claims]' "$d/out"
    assert_output '[5,5,["bench/p0","bench/p1","bench/p2","bench/p3","bench/p4"],["bench/p0-gpu-00000"]]'
}

@test "what-if --taint NoExecute and --drain on records: the pods reached lose their devices, in input order" {
    rss_measurable "$DRA_BIN/dra-alloc"
    fleet_in_use
    local d="$BATS_TEST_TMPDIR" mib
    mib=$(rss_mib "$DRA_BIN/dra-alloc" schedule --what-if --drain node-7 --drain node-0 \
        --taint gpu.example.com/node-3:k=v:NoExecute --now 2026-01-01T00:00:00Z -o json \
        "$d/base.jsonl" "$d/fleet.jsonl" "$d/held.jsonl") || true
    (( mib <= 48 )) || { echo "peak RSS $mib MiB"; false; }
    run jq -c '[.summary.lost, .summary.moved, ([.lost[].node] | unique), .lost[5].pod, .lost[5].reason]' "$d/out"
    assert_output '[15,15,["node-0","node-3","node-7"],"bench/p15","device gpu.example.com/node-3/gpu-0 tainted k=v:NoExecute"]'
}

@test "what-if --remove-device on records: 10,000 claims and Pods within 96 MiB (was 216)" {
    rss_measurable "$DRA_BIN/dra-alloc"
    fleet_in_use
    local d="$BATS_TEST_TMPDIR" mib
    mib=$(rss_mib "$DRA_BIN/dra-alloc" schedule --what-if --remove-device gpu.example.com/node-5/gpu-0 \
        --now 2026-01-01T00:00:00Z -o json "$d/base.jsonl" "$d/fleet.jsonl" "$d/held.jsonl") || true
    (( mib <= 96 )) || { echo "peak RSS $mib MiB"; false; }
    run jq -c '[.summary.lost, .summary.moved, .lost[0].pod, .lost[0].reason, .claims[0].name]' "$d/out"
    assert_output '[1,1,"bench/p25","device gpu.example.com/node-5/gpu-0 removed","p25-gpu-00019"]'
}

@test "what-if --drain: Pods held as records and a PodGroup member lose their devices in input order" {
    run -1 --separate-stderr "$DRA_BIN/dra-alloc" schedule --feature-gates GenericWorkload=true \
        --now 2026-01-01T00:00:00Z --what-if --drain node-b -o json "$EXAMPLES/cluster/"*.yaml \
        "$BATS_TEST_DIRNAME/../data/podgroup/group.yaml" "$BATS_TEST_DIRNAME/../data/records/whatif-mix.yaml"
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/out"
    run jq -c '[[.lost[].pod], [.claims[] | [.name, .change]]]' "$BATS_TEST_TMPDIR/out"
    assert_output '[["default/c1-pod","default/c2-pod","default/c3-pod"],[["c1","changed"],["c2","changed"],["c3","changed"]]]'
}
