#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-claim doctor and dra-evict over compact records (model/compact.h):
# claims and Pods held as records whose objects are kept whole out of
# memory and made again one at a time.
load helpers
load held # fleet_in_use, rss_measurable, rss_mib

@test "dra-claim doctor: 10,000 claims and Pods on 20,000 devices within 48 MiB (was 179)" {
    rss_measurable "$DRA_BIN/dra-claim"
    fleet_in_use
    local d="$BATS_TEST_TMPDIR" mib
    mib=$(rss_mib "$DRA_BIN/dra-claim" doctor --now 2026-06-01T00:00:00Z "$d/base.jsonl" "$d/fleet.jsonl" "$d/held.jsonl")
    (( mib <= 48 )) || { echo "peak RSS $mib MiB"; false; }
    # every device is published, every claim's pod there: nothing to find
    run cat "$d/out"
    assert_output ''
}

@test "dra-evict: 10,000 claims and Pods on 20,000 devices within 48 MiB (was 177)" {
    rss_measurable "$DRA_BIN/dra-evict"
    fleet_in_use
    local d="$BATS_TEST_TMPDIR" mib
    mib=$(rss_mib "$DRA_BIN/dra-evict" --now 2026-06-01T00:00:00Z -o jsonl "$d/base.jsonl" "$d/fleet.jsonl" "$d/held.jsonl")
    (( mib <= 48 )) || { echo "peak RSS $mib MiB"; false; }
    run cat "$d/out"
    assert_output ''
}

@test "dra-evict: records name the pod, claim and device made again from their records" {
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-06-01T00:00:00Z "$DATA/records/evict.yaml"
    assert_success
    assert_line --index 1 --regexp '^ns +p0 +c0 +gpu\.example\.com/node-a/gpu-0 +example\.com/overheat:NoExecute +2026-03-01T10:00:00Z +due +ResourceSlice s-a gpu\.example\.com/node-a/gpu-0 taint #0$'
    [ "${#lines[@]}" -eq 2 ]
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-06-01T00:00:00Z -o jsonl "$DATA/records/evict.yaml"
    assert_output --partial '"pod":{"namespace":"ns","name":"p0","uid":"uid-p0"},"claim":{"namespace":"ns","name":"c0"},"device":{"request":"r","driver":"gpu.example.com","pool":"node-a","device":"gpu-0"}'
}

@test "dra-evict --apply-at: the evicted Pod whole, as read, with its changes" {
    run --separate-stderr "$DRA_BIN/dra-evict" --apply-at 2026-06-01T00:00:00Z -o jsonl "$DATA/records/evict.yaml"
    assert_success
    assert_output '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p0","namespace":"ns","uid":"uid-p0","deletionTimestamp":"2026-06-01T00:00:05Z","deletionGracePeriodSeconds":5},"spec":{"nodeName":"node-a","terminationGracePeriodSeconds":5,"containers":[{"name":"c","image":"registry.example/job:1","args":["--ratio","0.1"]}],"resourceClaims":[{"name":"gpu","resourceClaimName":"c0"}]},"status":{"phase":"Running","conditions":[{"type":"DisruptionTarget","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-06-01T00:00:00Z","reason":"DeletionByDeviceTaintManager","message":"Device Taint manager: deleting due to NoExecute taint"}]}}'
}

@test "dra-claim doctor --patch: a v1beta1 claim held as a record is still addressed as v1beta1" {
    run --separate-stderr "$DRA_BIN/dra-claim" doctor --now 2026-06-01T00:00:00Z --patch "$DATA/records/evict.yaml"
    assert_failure 1
    assert_output '{"verb":"patch","apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","namespace":"ns","name":"c0","subresource":"status","patchType":"json","body":[{"op":"test","path":"/metadata/uid","value":"uid-c0"},{"op":"test","path":"/metadata/resourceVersion","value":"7"},{"op":"test","path":"/status/reservedFor/1/uid","value":"uid-gone"},{"op":"remove","path":"/status/reservedFor/1"}],"reason":"ResourceClaim/ns/c0: reservedFor names pod gone (uid uid-gone) which does not exist"}'
    [[ $stderr == *"ResourceClaim/ns/c0: device gpu.example.com/node-a/gpu-0 has NoExecute taint example.com/overheat:NoExecute"* ]]
}
