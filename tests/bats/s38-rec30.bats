#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-alloc schedule --what-if on a fleet in use, in bounded memory: the
# changed input shares the input's objects, the slices held as text.
load helpers
load held # fleet_in_use, rss_measurable, rss_mib

@test "what-if --drain: 10,000 claims and Pods on 20,000 devices within 224 MiB (was 453)" {
    rss_measurable "$DRA_BIN/dra-alloc"
    fleet_in_use
    local d="$BATS_TEST_TMPDIR" mib
    mib=$(rss_mib "$DRA_BIN/dra-alloc" schedule --what-if --drain node-0 --now 2026-01-01T00:00:00Z -o json \
        "$d/base.jsonl" "$d/fleet.jsonl" "$d/held.jsonl") || true
    (( mib <= 224 )) || { echo "peak RSS $mib MiB"; false; }
    run jq -c '[.summary.lost, .summary.moved, .lost[0].node, (.lost[0].claims | length)]' "$d/out"
    assert_output '[5,5,"node-0",1]'
}

@test "what-if: slices held as text answer as slices read as objects (--add)" {
    fleet_in_use
    local d="$BATS_TEST_TMPDIR"
    local in=("$d/base.jsonl" "$d/fleet.jsonl" "$d/held.jsonl" "$d/pending.jsonl")
    # a file to add that changes nothing: the slices are then read as objects
    printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"bench"}}\n' >"$d/cm.jsonl"
    run -1 "$DRA_BIN/dra-alloc" schedule --what-if --drain node-0 --drain node-7 --taint gpu.example.com/node-3:k=v:NoExecute \
        --now 2026-01-01T00:00:00Z -o json "${in[@]}"
    jq -S 'del(.changes)' <<<"$output" >"$d/packed.json"
    run -1 "$DRA_BIN/dra-alloc" schedule --what-if --drain node-0 --drain node-7 --taint gpu.example.com/node-3:k=v:NoExecute \
        --add "$d/cm.jsonl" --now 2026-01-01T00:00:00Z -o json "${in[@]}"
    jq -S 'del(.changes)' <<<"$output" >"$d/objects.json"
    run jq -c '.summary | [.lost, .nowFit, .stopFitting]' "$d/packed.json"
    assert_output '[15,0,0]'
    run diff "$d/packed.json" "$d/objects.json"
    assert_success
}

@test "what-if --remove-device: the input as given keeps the claim the change releases" {
    fleet_in_use
    local d="$BATS_TEST_TMPDIR"
    run -1 "$DRA_BIN/dra-alloc" schedule --what-if --remove-device gpu.example.com/node-5/gpu-0 \
        --now 2026-01-01T00:00:00Z -o json "$d/base.jsonl" "$d/fleet.jsonl" "$d/held.jsonl"
    run jq -c '[.summary.lost, .pods[0].before, (.claims | length)]' <<<"$output"
    assert_output '[1,{"running":"node-5"},1]'
}
