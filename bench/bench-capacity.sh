#!/usr/bin/env bash
# dra-alloc capacity on dra-slice profile gpu fleets of 1,000 and 10,000
# nodes of 10 GPUs with half the devices allocated (one in-use claim of 5
# GPUs per node): wall seconds and peak resident memory of the whole report
# (reading, class matching, counts, the largest-fit probes), beside reading
# and validating the same input (dra-slice validate) as the peer.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
B=${DRA_BIN:-$PWD/build/bin}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

fleet() { # fleet NODES > jsonl: class, Nodes, slices, one in-use claim per node
    local n=$1
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \\"gpu.example.com\\""}}]}}\n'
    awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%d\"}}\n", i }'
    "$B/dra-slice" profile gpu --nodes "$n" --devices 10 -o jsonl
    awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) {
        printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c-%d\",\"namespace\":\"bench\",\"uid\":\"uid-c-%d\"},", i, i
        printf "\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"gpu\",\"count\":5}}]}},"
        printf "\"status\":{\"allocation\":{\"devices\":{\"results\":["
        for (d = 0; d < 5; d++) printf "%s{\"request\":\"r\",\"driver\":\"gpu.example.com\",\"pool\":\"node-%d\",\"device\":\"gpu-%d\"}", (d ? "," : ""), i, d
        printf "]},\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"node-%d\"]}]}]}}}}\n", i }
    }'
}

# seconds and peak RSS (MiB) of one command, output discarded
measure() {
    local s e out
    s=$(date +%s%N)
    /usr/bin/time -o "$T/rss" -f '%M' "$@" >/dev/null 2>&1
    e=$(date +%s%N)
    out=$(tail -1 "$T/rss")
    awk -v a="$s" -v b="$e" -v k="$out" 'BEGIN { printf "%7.3f s %8.1f MiB", (b - a) / 1e9, k / 1024 }'
}

[[ -x /usr/bin/time ]] || { echo "bench-capacity: /usr/bin/time is missing (Debian package time)"; exit 0; }
for n in 1000 10000; do
    fleet "$n" >"$T/f$n.jsonl"
    printf '%-52s %s\n' "capacity, $n nodes x 10 GPUs, half allocated" "$(measure "$B/dra-alloc" capacity --now 2026-01-01T00:00:00Z "$T/f$n.jsonl")"
    printf '%-52s %s\n' "  peer: dra-slice validate of the same input" "$(measure "$B/dra-slice" validate "$T/f$n.jsonl")"
done
n=10000
printf '%-52s %s\n' "capacity --by node, $n nodes (a probe per node)" "$(measure "$B/dra-alloc" capacity --by node --now 2026-01-01T00:00:00Z "$T/f$n.jsonl")"
