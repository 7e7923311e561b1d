#!/usr/bin/env bash
# Scaling of the paths that once were quadratic, on dra-slice profile fleets:
# each case runs at n and 2n and prints both times and their ratio (about 2
# for a linear or n log n path, 4 for a quadratic one; "QUADRATIC?" marks a
# ratio above 3), beside its peer: the same input through a path known to be
# linear (JSON Lines, validate).  Set DRA_BENCH_SCALE=N to change the base size.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${DRA_BIN:-$PWD/build/bin}
N=${DRA_BENCH_SCALE:-10000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# seconds of one command, output discarded
secs() {
    local s e
    s=$(date +%s%N)
    "$@" >/dev/null 2>&1
    e=$(date +%s%N)
    awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
}

# row LABEL T(n) T(2n) [PEER-LABEL PEER-T(2n)]
row() {
    awk -v l="$1" -v a="$2" -v b="$3" -v pl="${4:-}" -v p="${5:-}" 'BEGIN {
        r = a > 0 ? b / a : 0
        printf "%-48s %7.3f s %7.3f s  x%.2f%s", l, a, b, r, (r > 3 ? " QUADRATIC?" : "")
        if (pl != "") printf " | %s %.3f s, ratio %.2f", pl, p, (p > 0 ? b / p : 0)
        printf "\n" }'
}

for k in 1 2; do
    "$B/dra-slice" profile gpu --nodes $((N * k)) --devices 1 -o jsonl >"$T/p$k.jsonl"
    # small objects, where reading is cheap: 5n Nodes as JSON Lines and as one kubectl-style List
    awk -v n=$((N * k * 5)) 'BEGIN { for (i = 0; i < n; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%d\"}}\n", i }' >"$T/n$k.jsonl"
    { printf '{"apiVersion":"v1","kind":"List","items":['; paste -sd, "$T/n$k.jsonl"; printf ']}\n'; } >"$T/l$k.json"
done
echo "pools: $N and $((2 * N)) one-device pools; times at n and 2n, growth, the peer at 2n"

v1=$(secs "$B/dra-slice" validate "$T/p1.jsonl")
v2=$(secs "$B/dra-slice" validate "$T/p2.jsonl")
row "validate, JSON Lines (linear reference)" "$v1" "$v2"
a=$(secs "$B/dra-slice" validate "$T/n1.jsonl")
j2=$(secs "$B/dra-slice" validate "$T/n2.jsonl")
row "$((N * 5))/$((N * 10)) Nodes, JSON Lines (reference)" "$a" "$j2"
a=$(secs "$B/dra-slice" validate "$T/l1.json")
b=$(secs "$B/dra-slice" validate "$T/l2.json")
row "the same Nodes as one List (item lines)" "$a" "$b" "JSON Lines" "$j2"
a=$(secs "$B/dra-slice" lint "$T/p1.jsonl")
b=$(secs "$B/dra-slice" lint "$T/p2.jsonl")
row "lint (pool grouping)" "$a" "$b" "validate" "$v2"
a=$(secs "$B/dra-evict" --now 2026-01-01T00:00:00Z "$T/p1.jsonl")
b=$(secs "$B/dra-evict" --now 2026-01-01T00:00:00Z "$T/p2.jsonl")
row "dra-evict, no taints (pool lookup)" "$a" "$b" "validate" "$v2"

# Scheduling: one-device pods filling nodes of 10 GPUs in name order; each
# pod once walked every full node before the first free one.
NN=$((N / 4))
"$B/dra-slice" profile gpu --nodes "$NN" --devices 10 -o jsonl >"$T/fleet.jsonl"
{
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \\"gpu.example.com\\""}}]}}\n'
    awk -v n="$NN" 'BEGIN { for (i = 0; i < n; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%d\"}}\n", i }'
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"one","namespace":"bench"},"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu"}}]}}}}\n'
} >"$T/sbase.jsonl"
place() { # placement seconds of N pods (DRA_ALLOC_STATS), from the allocator's own clock
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d\",\"namespace\":\"bench\",\"uid\":\"uid-p%d\"},\"spec\":{\"containers\":[{\"name\":\"c\"}],\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimTemplateName\":\"one\"}]}}\n", i, i }' >"$T/pods.jsonl"
    DRA_ALLOC_STATS=1 "$B/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl "$T/sbase.jsonl" "$T/fleet.jsonl" "$T/pods.jsonl" 2>&1 >/dev/null |
        sed -n 's/.*allocator runs, \([0-9.]*\) s/\1/p'
}
a=$(place $((NN * 2)))
b=$(place $((NN * 4)))
row "schedule $((NN * 2))/$((NN * 4)) pods on $NN nodes (placement)" "$a" "$b"

# Search: a claim of 12 one-device requests competing for the 11 devices the
# class leaves on each of 5 nodes (12 published, so the free-device bound
# cannot cut).  Once a 10 s timeout per node; the cut across requests
# answers at once.  Target: under 1 ms per node (placement time / 5).
"$B/dra-slice" profile gpu --nodes 5 --devices 12 -o jsonl >"$T/f12.jsonl"
{
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \\"gpu.example.com\\" && device.attributes[\\"gpu.example.com\\"].index < 11"}}]}}\n'
    for i in 0 1 2 3 4; do printf '{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-%d"}}\n' "$i"; done
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c12","namespace":"bench"},"spec":{"devices":{"requests":['
    for i in $(seq 0 11); do printf '%s{"name":"r%d","exactly":{"deviceClassName":"gpu"}}' "$([[ $i -gt 0 ]] && echo ,)" "$i"; done
    printf ']}}}\n'
    printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"bench","uid":"uid-p"},"spec":{"containers":[{"name":"c"}],"resourceClaims":[{"name":"g","resourceClaimName":"c12"}]}}\n'
} >"$T/c12.jsonl"
p=$(DRA_ALLOC_STATS=1 "$B/dra-alloc" schedule --now 2026-01-01T00:00:00Z "$T/c12.jsonl" "$T/f12.jsonl" 2>&1 >/dev/null |
    sed -n 's/.*allocator runs, \([0-9.]*\) s/\1/p')
awk -v p="$p" 'BEGIN { printf "%-48s %7.3f ms per node (target < 1 ms; was the 10 s timeout)\n", "12 requests competing for 11 devices, 5 nodes", p * 1000 / 5 }'
