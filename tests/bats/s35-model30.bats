#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Memory of the reports over claims and Pods: held as compact records, not
# as JSON trees (model/compact.h).
load helpers

# 10,000 allocated, reserved claims and their 10,000 bound Pods as JSON
# Lines (9 MB), and the DeviceClass they ask for.
held_fleet() {
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"}}\n' >"$BATS_TEST_TMPDIR/class.jsonl"
    awk 'BEGIN { for (i = 0; i < 10000; i++) { n = int(i / 5)
        printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"p%d-gpu\",\"namespace\":\"bench\",\"uid\":\"uid-c%d\",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"p%d\",\"uid\":\"uid-p%d\",\"controller\":true}]},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"gpu\"}}]}},\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"r\",\"driver\":\"gpu.example.com\",\"pool\":\"node-%d\",\"device\":\"gpu-%d\"}]},\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"node-%d\"]}]}]}},\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"p%d\",\"uid\":\"uid-p%d\"}]}}\n", i, i, i, i, n, i % 5, n, i, i
        printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d\",\"namespace\":\"bench\",\"uid\":\"uid-p%d\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"nodeName\":\"node-%d\",\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":\"p%d-gpu\"}]},\"status\":{\"phase\":\"Running\"}}\n", i, i, n, i } }' \
        >"$BATS_TEST_TMPDIR/held.jsonl"
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
    /usr/bin/time -f '%M' -o "$BATS_TEST_TMPDIR/rss" "$@" >"$BATS_TEST_TMPDIR/out" || return
    echo $(($(tail -1 "$BATS_TEST_TMPDIR/rss") / 1024))
}

@test "dra-claim status: 10,000 claims and Pods within 48 MiB (was 147)" {
    need_rss "$DRA_BIN/dra-claim"
    held_fleet
    local mib
    mib=$(peak_mib "$DRA_BIN/dra-claim" status "$BATS_TEST_TMPDIR/class.jsonl" "$BATS_TEST_TMPDIR/held.jsonl")
    (( mib <= 48 )) || { echo "peak RSS $mib MiB"; false; }
    # every claim's row, as before
    run tail -1 "$BATS_TEST_TMPDIR/out"
    assert_output --regexp '^bench +p9999-gpu +reserved +gpu\.example\.com/node-1999/gpu-4 +node-1999 +p9999$'
    run wc -l <"$BATS_TEST_TMPDIR/out"
    assert_output 10001
}

@test "dra-slice pool-status: 10,000 claims within 48 MiB (was 99)" {
    need_rss "$DRA_BIN/dra-slice"
    held_fleet
    local mib
    mib=$(peak_mib "$DRA_BIN/dra-slice" pool-status --driver gpu.example.com "$BATS_TEST_TMPDIR/class.jsonl" \
        "$BATS_TEST_TMPDIR/held.jsonl")
    (( mib <= 48 )) || { echo "peak RSS $mib MiB"; false; }
    run grep -c 'poolCount: 0' "$BATS_TEST_TMPDIR/out"
    assert_output 1
}

@test "dra-claim status: a claim's and a Pod's shape errors as before, the claim's first, nothing on stdout" {
    cat >"$BATS_TEST_TMPDIR/bad.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec: {resourceClaims: 5}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: a, namespace: ns}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: c}}]}}
status: {reservedFor: 7}
YAML
    run --separate-stderr "$DRA_BIN/dra-claim" status --no-validate "$BATS_TEST_TMPDIR/bad.yaml"
    assert_failure 2
    assert_output ''
    local first second
    first=$(sed -n 1p <<<"$stderr") second=$(sed -n 2p <<<"$stderr")
    [[ $first == *"bad.yaml:10 (document 2): ResourceClaim/ns/a: status.reservedFor: Invalid value: 7: must be of type array" ]]
    [[ $second == *"bad.yaml:4: Pod/ns/p: spec.resourceClaims: Invalid value: 5: must be of type array" ]]
}
