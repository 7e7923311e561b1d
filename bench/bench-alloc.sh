#!/usr/bin/env bash
# dra-alloc benchmarks (node mode), on dra-slice profile fleets.  Prints figures;
# each figure is the wall time of one dra-alloc process (start-up, parsing,
# validation and allocation included) unless noted.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${DRA_BIN:-$PWD/build/bin}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

ms() { local s=$(date +%s%N); "$@" >/dev/null 2>&1; local rc=$?; local e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) $rc"; }

class() { # class NAME EXPR
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"%s"},"spec":{"selectors":[{"cel":{"expression":%s}}]}}\n' "$1" "$2"
}
claim() { # claim NAME COUNT [CONSTRAINTS-JSON] [SELECTORS-JSON] [CLASS]
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"%s","namespace":"bench"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"%s","count":%d,"selectors":%s}}],"constraints":%s}}}\n' \
        "$1" "${5:-gpu}" "$2" "${4:-[]}" "${3:-[]}"
}
node() { printf '{"apiVersion":"v1","kind":"Node","metadata":{"name":"%s"}}\n' "$1"; }

"$B/dra-slice" profile gpu --nodes 500 --devices 10 -o jsonl >"$T/fleet.jsonl"
{ class gpu '"device.driver == \"gpu.example.com\""'; node node-250; } >"$T/base.jsonl"

echo "fleet: 500 nodes x 10 GPUs ($(wc -l <"$T/fleet.jsonl") slices)"
claim c1 1 >"$T/one.jsonl"
read -r t rc < <(ms "$B/dra-alloc" --node node-250 "$T/base.jsonl" "$T/fleet.jsonl" "$T/one.jsonl")
echo "one 1-device claim on node-250:                         ${t} ms (exit $rc)"

for i in $(seq 1 10); do claim "c$i" 1; done >"$T/ten.jsonl"
read -r t rc < <(ms "$B/dra-alloc" --node node-250 "$T/base.jsonl" "$T/fleet.jsonl" "$T/ten.jsonl")
echo "ten 1-device claims filling node-250:                   ${t} ms (exit $rc)"

for i in $(seq 1 10); do claim "m$i" 1 '[{"matchAttribute":"gpu.example.com/model"}]' \
    '[{"cel":{"expression":"device.attributes[\"gpu.example.com\"].driverVersion.isGreaterThan(semver(\"0.9.0\")) && device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0"}}]'; done >"$T/cel.jsonl"
read -r t rc < <(ms "$B/dra-alloc" --node node-250 "$T/base.jsonl" "$T/fleet.jsonl" "$T/cel.jsonl")
echo "same with matchAttribute + semver/quantity CEL:         ${t} ms (exit $rc)"

# Partitionable backtracking: 8 partitions of one GPU on shared counters; a
# claim for 7 partitions that share the matchAttribute of the last 7 only.
"$B/dra-slice" profile gpu --nodes 1 --devices 1 --partitions 8 -o jsonl >"$T/part.jsonl"
{ class gpu '"device.driver == \"gpu.example.com\""'; node node-0; } >"$T/pbase.jsonl"
claim p 7 >"$T/p7.jsonl"
read -r t rc < <(ms "$B/dra-alloc" --node node-0 "$T/pbase.jsonl" "$T/part.jsonl" "$T/p7.jsonl")
echo "partitionable: 7 of 8 partitions (full GPU first):      ${t} ms (exit $rc)"
"$B/dra-alloc" --node node-0 --explain=json "$T/pbase.jsonl" "$T/part.jsonl" "$T/p7.jsonl" 2>&1 >/dev/null |
    jq -r '"  search: \(.stats.invocations) invocations, \(.stats.backtracks) backtracks"' 2>/dev/null

# Impossible requests: N devices where N-1 exist (kubernetes#131730, #130593).
echo "impossible requests (N wanted, N-1 published; allocation time from --explain=json):"
for n in 8 16 24 32; do
    "$B/dra-slice" profile gpu --nodes 1 --devices $((n - 1)) -o jsonl >"$T/imp.jsonl"
    claim i "$n" >"$T/i.jsonl"
    claim j "$n" '[{"matchAttribute":"gpu.example.com/model"}]' >"$T/j.jsonl"
    for f in i j; do
        out=$("$B/dra-alloc" --node node-0 --explain=json "$T/pbase.jsonl" "$T/imp.jsonl" "$T/$f.jsonl" 2>&1 >/dev/null |
            sed '/^dra-alloc:/d' | jq -r '"\(.stats.seconds * 1000 | . * 1000 | round / 1000) ms, \(.stats.invocations) invocations"')
        printf '  N=%-2d %-22s %s\n' "$n" "$([[ $f == j ]] && echo "+matchAttribute:" || echo "plain:")" "$out"
    done
done
echo "impossible N=16 without pruning (upstream's exhaustive search, 2 s budget):"
"$B/dra-slice" profile gpu --nodes 1 --devices 15 -o jsonl >"$T/imp.jsonl"
claim j 16 '[{"matchAttribute":"gpu.example.com/model"}]' >"$T/j.jsonl"
read -r t rc < <(ms "$B/dra-alloc" --node node-0 --no-prune --timeout 2 "$T/pbase.jsonl" "$T/imp.jsonl" "$T/j.jsonl")
echo "  ${t} ms (exit $rc; 2 = timed out)"

if [[ -x /usr/bin/time ]]; then
    "$B/dra-slice" profile gpu --nodes 10000 --devices 10 -o jsonl >"$T/big.jsonl"
    /usr/bin/time -f "%M %e" -o "$T/mem" "$B/dra-alloc" --node node-5000 "$T/base.jsonl" "$T/big.jsonl" "$T/one.jsonl" >/dev/null 2>&1
    read -r kb sec <"$T/mem"
    echo "10,000 nodes x 10 GPUs, one claim: peak RSS $((kb / 1024)) MiB, ${sec} s"
fi
