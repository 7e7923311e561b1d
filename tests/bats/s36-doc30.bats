#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-claim doctor and dra-evict over compact records (model/compact.h):
# claims and Pods held as records whose objects are kept whole out of
# memory and made again one at a time.
load helpers

# 10,000 allocated, reserved claims and their 10,000 bound Pods as JSON
# Lines (9 MB), the DeviceClass they ask for, and the slices of their
# 2,000 nodes (untainted).
held_fleet() {
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"}}\n' >"$BATS_TEST_TMPDIR/class.jsonl"
    awk 'BEGIN { for (i = 0; i < 10000; i++) { n = int(i / 5)
        printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"p%d-gpu\",\"namespace\":\"bench\",\"uid\":\"uid-c%d\",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"p%d\",\"uid\":\"uid-p%d\",\"controller\":true}]},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"gpu\"}}]}},\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"r\",\"driver\":\"gpu.example.com\",\"pool\":\"node-%d\",\"device\":\"gpu-%d\"}]},\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"node-%d\"]}]}]}},\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"p%d\",\"uid\":\"uid-p%d\"}]}}\n", i, i, i, i, n, i % 5, n, i, i
        printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d\",\"namespace\":\"bench\",\"uid\":\"uid-p%d\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"nodeName\":\"node-%d\",\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":\"p%d-gpu\"}]},\"status\":{\"phase\":\"Running\"}}\n", i, i, n, i } }' \
        >"$BATS_TEST_TMPDIR/held.jsonl"
    awk 'BEGIN { for (n = 0; n < 2000; n++) {
        printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"s%d\"},\"spec\":{\"driver\":\"gpu.example.com\",\"pool\":{\"name\":\"node-%d\",\"generation\":1,\"resourceSliceCount\":1},\"nodeName\":\"node-%d\",\"devices\":[", n, n, n
        for (d = 0; d < 10; d++) printf "%s{\"name\":\"gpu-%d\",\"attributes\":{\"index\":{\"int\":%d}}}", d ? "," : "", d, d
        printf "]}}\n" } }' >"$BATS_TEST_TMPDIR/slices.jsonl"
}

# Skip where peak RSS is no measure of the tool's: under AddressSanitizer
# (its shadow memory), or without /usr/bin/time.
need_rss() {
    if ldd "$1" 2>/dev/null | grep -q libasan; then
        skip "peak RSS is not the tool's under AddressSanitizer"
    fi
    [[ -x /usr/bin/time ]] || skip "no /usr/bin/time"
}

# Peak RSS in MiB of a command (its output to $BATS_TEST_TMPDIR/out).
peak_mib() {
    /usr/bin/time -f '%M' -o "$BATS_TEST_TMPDIR/rss" "$@" >"$BATS_TEST_TMPDIR/out"
    echo $(($(tail -1 "$BATS_TEST_TMPDIR/rss") / 1024))
}

@test "dra-claim doctor: 10,000 claims, Pods and their slices within 40 MiB (was 158)" {
    need_rss "$DRA_BIN/dra-claim"
    held_fleet
    local mib
    mib=$(peak_mib "$DRA_BIN/dra-claim" doctor --now 2026-06-01T00:00:00Z "$BATS_TEST_TMPDIR/class.jsonl" \
        "$BATS_TEST_TMPDIR/slices.jsonl" "$BATS_TEST_TMPDIR/held.jsonl")
    (( mib <= 40 )) || { echo "peak RSS $mib MiB"; false; }
    # every device is published, every claim's pod there: nothing to find
    run cat "$BATS_TEST_TMPDIR/out"
    assert_output ''
}

@test "dra-evict: 10,000 claims, Pods and their slices within 40 MiB (was 160)" {
    need_rss "$DRA_BIN/dra-evict"
    held_fleet
    local mib
    mib=$(peak_mib "$DRA_BIN/dra-evict" --now 2026-06-01T00:00:00Z -o jsonl "$BATS_TEST_TMPDIR/class.jsonl" \
        "$BATS_TEST_TMPDIR/slices.jsonl" "$BATS_TEST_TMPDIR/held.jsonl")
    (( mib <= 40 )) || { echo "peak RSS $mib MiB"; false; }
    run cat "$BATS_TEST_TMPDIR/out"
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
