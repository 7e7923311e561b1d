#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-alloc schedule on a fleet in use, in bounded memory: bound Pods and
# the claims no pending Pod needs are held as records, the others given
# back as objects; lookups by name make a record an object again.
load helpers
load held # fleet_in_use, rss_measurable, rss_mib

@test "schedule: 1,000 pending pods beside 10,000 claims and Pods on 20,000 devices within 64 MiB (was 184)" {
    rss_measurable "$DRA_BIN/dra-alloc"
    fleet_in_use
    local d="$BATS_TEST_TMPDIR" mib
    mib=$(rss_mib "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl \
        "$d/base.jsonl" "$d/fleet.jsonl" "$d/held.jsonl" "$d/pending.jsonl") || true
    (( mib <= 64 )) || { echo "peak RSS $mib MiB"; false; }
    run jq -sc '[length, ([.[] | select(.kind == "Pod" and .spec.nodeName != null)] | length)]' "$d/out"
    assert_output '[2000,1000]'
}

# tests/data/records/schedule.jsonl: pending pods that name an allocated
# claim (shared with a bound pod), an unallocated one, one reserved for a
# pod that is gone, one whose generated claim is already there (owned by
# the pod, named in no status), and one whose generated name another
# pod's claim holds.
@test "schedule: claims held as records are found by name, owner and reservation" {
    local d="$BATS_TEST_TMPDIR"
    "$DRA_BIN/dra-slice" profile gpu --nodes 3 --devices 2 -o jsonl >"$d/fleet.jsonl"
    run -1 --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl \
        "$d/fleet.jsonl" "$BATS_TEST_DIRNAME/../data/records/schedule.jsonl"
    [[ $stderr == *'"pend-t2-gpu-kzn4b" already exists'* ]] || { echo "$stderr"; false; }
    printf '%s\n' "$output" >"$d/out"
    jq -c 'select(.kind == "ResourceClaim") | [.metadata.name, [.status.reservedFor[]?.name]]' "$d/out" >"$d/claims"
    run cat "$d/claims"
    assert_output '["shared",["bound-b","pend-shared"]]
["free-named",["pend-free"]]
["gen-x",["pend-t"]]
["dup-hold",["bound-c","pend-stale"]]'
    jq -c 'select(.kind == "Pod") | [.metadata.name, .spec.nodeName]' "$d/out" >"$d/pods"
    run cat "$d/pods"
    assert_output '["pend-shared","node-1"]
["pend-free","node-1"]
["pend-t","node-2"]
["pend-t2",null]
["pend-stale","node-0"]'
}
