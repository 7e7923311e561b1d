#!/usr/bin/env bash
# Scaling of the paths that once were quadratic, on dra-slice profile fleets:
# each case runs at n and 2n and prints both times and their ratio (about 2
# for a linear or n log n path, 4 for a quadratic one; "QUADRATIC?" marks a
# ratio above 3), beside its peer: the same input through a path known to be
# linear (JSON Lines, validate).  Set DRA_BENCH_SCALE=N to change the base size.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
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

# dra-evict with allocated claims: n pools of one device, a claim on each
# device and a pod using each claim (every tenth device tainted NoExecute).
# Each claim's device was once found by walking every slice, and each pod's
# claim by walking every claim.
evict_input() {
    awk -v n="$1" 'BEGIN {
        for (i = 0; i < n; i++) {
            t = (i % 10 == 0) ? ",\"taints\":[{\"key\":\"k\",\"effect\":\"NoExecute\",\"timeAdded\":\"2025-12-01T00:00:00Z\"}]" : ""
            printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"s-%d\"},\"spec\":{\"driver\":\"gpu.example.com\",\"pool\":{\"name\":\"node-%d\",\"generation\":1,\"resourceSliceCount\":1},\"nodeName\":\"node-%d\",\"devices\":[{\"name\":\"gpu-0\"%s}]}}\n", i, i, i, t
            printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c-%d\",\"namespace\":\"bench\",\"uid\":\"cu-%d\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"gpu\"}}]}},\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"r\",\"driver\":\"gpu.example.com\",\"pool\":\"node-%d\",\"device\":\"gpu-0\"}]}},\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"p-%d\",\"uid\":\"u-%d\"}]}}\n", i, i, i, i, i
            printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p-%d\",\"namespace\":\"bench\",\"uid\":\"u-%d\"},\"spec\":{\"nodeName\":\"node-%d\",\"containers\":[{\"name\":\"c\"}],\"resourceClaims\":[{\"name\":\"g\",\"resourceClaimName\":\"c-%d\"}]}}\n", i, i, i, i
        } }' >"$2"
}
evict_input $((N / 2)) "$T/ev1.jsonl"
evict_input "$N" "$T/ev2.jsonl"
a=$(secs "$B/dra-evict" --now 2026-01-01T00:00:00Z "$T/ev1.jsonl")
b=$(secs "$B/dra-evict" --now 2026-01-01T00:00:00Z "$T/ev2.jsonl")
va=$(secs "$B/dra-slice" validate "$T/ev2.jsonl")
row "dra-evict, claims and pods (lookups)" "$a" "$b" "validate" "$va"

# A DaemonSet over a dump with slices and no Node objects: its pods go to
# the slices' node names, which were once de-duplicated by a linear search.
printf '{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent","namespace":"bench"},"spec":{"selector":{"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}}\n' >"$T/ds.jsonl"
a=$(secs "$B/dra-slice" validate "$T/ds.jsonl" "$T/p1.jsonl")
b=$(secs "$B/dra-slice" validate "$T/ds.jsonl" "$T/p2.jsonl")
row "DaemonSet over n/2n slice nodes (validate)" "$a" "$b" "validate" "$v2"

# Pods pinned to one node each by name (matchFields metadata.name In
# [node], as DaemonSets are): n pods on n nodes, then 2n on 2n.  Each pod
# once walked every node to find its own.
pinned() { # placement seconds of NODES pinned pods on NODES nodes of one device each
    "$B/dra-slice" profile gpu --nodes "$1" --devices 1 -o jsonl >"$T/pf.jsonl"
    {
        printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \\"gpu.example.com\\""}}]}}\n'
        printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"one","namespace":"bench"},"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu"}}]}}}}\n'
        awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) {
            printf "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%d\"}}\n", i
            printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d\",\"namespace\":\"bench\",\"uid\":\"uid-p%d\"},\"spec\":{\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"node-%d\"]}]}]}}},\"containers\":[{\"name\":\"c\"}],\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimTemplateName\":\"one\"}]}}\n", i, i, (i * 7919) % n } }'
    } >"$T/pp.jsonl"
    DRA_ALLOC_STATS=1 "$B/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl "$T/pp.jsonl" "$T/pf.jsonl" 2>&1 >/dev/null |
        sed -n 's/.*allocator runs, \([0-9.]*\) s/\1/p'
}
a=$(pinned "$NN")
b=$(pinned $((NN * 2)))
row "schedule, $NN/$((NN * 2)) pods pinned by name" "$a" "$b"

# The same claim with --explain, which once searched exhaustively (the cut
# across requests was not taken): 10 s timeout per node.
p=$(DRA_ALLOC_STATS=1 "$B/dra-alloc" schedule --explain --now 2026-01-01T00:00:00Z "$T/c12.jsonl" "$T/f12.jsonl" 2>&1 >/dev/null |
    sed -n 's/.*allocator runs, \([0-9.]*\) s/\1/p')
awk -v p="$p" 'BEGIN { printf "%-48s %7.3f ms per node (target < 1 ms; was the 10 s timeout)\n", "the same with --explain", p * 1000 / 5 }'

# Pods sharing a claim (two per claim, as members of a PodGroup share the
# group's): the second finds it allocated and may only go to its node.  It
# once walked the nodes in name order up to that one.
shared() { # placement seconds of NODES/2 claims shared by two pods each, on NODES one-device nodes
    "$B/dra-slice" profile gpu --nodes "$1" --devices 1 -o jsonl >"$T/sf.jsonl"
    {
        printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \\"gpu.example.com\\""}}]}}\n'
        awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%d\"}}\n", i
            for (c = 0; c < n / 2; c++) {
                printf "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"c%d\",\"namespace\":\"bench\",\"uid\":\"uc%d\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"gpu\"}}]}}}\n", c, c
                for (k = 0; k < 2; k++)
                    printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d-%d\",\"namespace\":\"bench\",\"uid\":\"up%d-%d\"},\"spec\":{\"containers\":[{\"name\":\"c\"}],\"resourceClaims\":[{\"name\":\"g\",\"resourceClaimName\":\"c%d\"}]}}\n", c, k, c, k, c } }'
    } >"$T/sp.jsonl"
    DRA_ALLOC_STATS=1 "$B/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl "$T/sp.jsonl" "$T/sf.jsonl" 2>&1 >/dev/null |
        sed -n 's/.*allocator runs, \([0-9.]*\) s/\1/p'
}
a=$(shared "$NN")
b=$(shared $((NN * 2)))
row "schedule, $NN/$((NN * 2)) pods sharing claims by two" "$a" "$b"

# Error floods: every object invalid (a bad driver name), and one pool whose
# device names all repeat.  Each error was once appended by walking the list
# of the errors before it, and each field-line lookup decoded 16 KiB of the
# file ahead of its document.
for k in 1 2; do
    sed 's/"driver":"gpu.example.com"/"driver":"Bad_Driver"/' "$T/p$k.jsonl" >"$T/bad$k.jsonl"
done
vb=$(secs "$B/dra-slice" validate "$T/bad2.jsonl")
row "validate, every object invalid (reference)" "$(secs "$B/dra-slice" validate "$T/bad1.jsonl")" "$vb"
a=$(secs "$B/dra-claim" status "$T/bad1.jsonl")
b=$(secs "$B/dra-claim" status "$T/bad2.jsonl")
row "dra-claim status, every object invalid" "$a" "$b" "validate" "$vb"
a=$(secs "$B/dra-alloc" schedule --now 2026-01-01T00:00:00Z "$T/bad1.jsonl")
b=$(secs "$B/dra-alloc" schedule --now 2026-01-01T00:00:00Z "$T/bad2.jsonl")
row "dra-alloc schedule, every object invalid" "$a" "$b" "validate" "$vb"
# one pool of n/2n devices named gpu-0 (every one but the first a duplicate)
a=$(secs "$B/dra-slice" build --driver gpu.example.com --all-nodes --pool big "$T/p1.jsonl")
b=$(secs "$B/dra-slice" build --driver gpu.example.com --all-nodes --pool big "$T/p2.jsonl")
row "build, every device name a duplicate" "$a" "$b" "validate" "$vb"
# the same in one inventory document of n/5 and 2n/5 devices: each error's
# field line parses the document up to its device, so every error getting
# one was quadratic (20,000 devices: 11 minutes); a check now looks up 256
for k in 1 2; do
    awk -v n=$((N * k / 5)) 'BEGIN { printf "{\"devices\": [\n"
        for (i = 0; i < n; i++) printf "%s  {\"name\": \"gpu-0\", \"attributes\": {\"index\": {\"int\": %d}}}\n", (i ? "," : ""), i
        printf "]}\n" }' >"$T/inv$k.json"
done
a=$(secs "$B/dra-slice" build --driver gpu.example.com --all-nodes --pool big "$T/inv1.json")
b=$(secs "$B/dra-slice" build --driver gpu.example.com --all-nodes --pool big "$T/inv2.json")
row "build, one document, every name a duplicate" "$a" "$b"
