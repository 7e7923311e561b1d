#!/usr/bin/env bash
# dra-alloc benchmarks on dra-slice profile fleets.  Set DRA_BENCH_ONLY=schedule
# for the schedule rows alone.  Prints figures; each
# figure is the wall time of one dra-alloc process (start-up, parsing,
# validation and allocation included) unless noted.  `schedule` figures also
# give the placement time alone (world build + all pods, from
# DRA_ALLOC_STATS) and ratios against upstream's scheduler_perf DRA
# thresholds (40-70 pods/s for 500 nodes x 10 devices, one-device claims);
# the target is 1,000x the 40: >= 40,000 pods/s, whole process.
# The plain 5,000-pod case is also run by `upstream-alloc schedule`
# (upstream's allocator driven as the scheduler drives it; `make
# upstream-alloc`, else skipped with a note), whole processes interleaved,
# best of DRA_BENCH_RUNS each: the issue's row of bench/table.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
B=${DRA_BIN:-$PWD/build/bin}
U=${DRA_UPSTREAM_ALLOC:-$PWD/build/upstream/bin/upstream-alloc}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck disable=SC1091 # bench/table.sh, read from the top of the tree
. bench/table.sh

ms() { local s e rc; s=$(date +%s%N); "$@" >/dev/null 2>&1; rc=$?; e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) $rc"; }

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
if [[ ${DRA_BENCH_ONLY:-} != schedule ]]; then
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
fi

# ---- schedule: pods across nodes ---------------------------------------------------------
nodes() { for i in $(seq 0 $(($1 - 1))); do node "node-$i"; done; }
template() { # template NAME [CONSTRAINTS-JSON] [SELECTORS-JSON]
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"%s","namespace":"bench"},"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu","selectors":%s}}],"constraints":%s}}}}\n' \
        "$1" "${3:-[]}" "${2:-[]}"
}
pods() { # pods FIRST COUNT TEMPLATE
    awk -v f="$1" -v n="$2" -v t="$3" 'BEGIN{for(i=f;i<f+n;i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d\",\"namespace\":\"bench\",\"uid\":\"uid-p%d\"},\"spec\":{\"containers\":[{\"name\":\"c\"}],\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimTemplateName\":\"%s\"}]}}\n", i, i, t}'
}
# sched LABEL PODS FILES...: wall time, placement time, pods/s and ratios,
# and the peak RSS of the last run (/usr/bin/time, where there is one).
# Best of DRA_BENCH_RUNS runs (default 3): the machine may be shared.
# Ratios are against upstream's 70 pods/s (and 40); the target is >= 40,000
# pods/s (1,000x 40), whole process.
sched() {
    local label=$1 npods=$2 runs=${DRA_BENCH_RUNS:-3}
    shift 2
    local wall='' place='' rc='' placed='' rss=0 tm=()
    [[ -x /usr/bin/time ]] && tm=(/usr/bin/time -f %M -o "$T/rss")
    for _ in $(seq "$runs"); do
        local s e w p
        s=$(date +%s%N)
        DRA_ALLOC_STATS=1 "${tm[@]}" "$B/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl "$@" >"$T/sched.out" 2>"$T/sched.err"
        rc=$?
        e=$(date +%s%N)
        w=$(((e - s) / 1000000))
        [[ ${#tm[@]} -gt 0 ]] && rss=$(tail -n 1 "$T/rss") # after "Command exited with non-zero status N"
        p=$(sed -n 's/.*allocator runs, \([0-9.]*\) s/\1/p' "$T/sched.err")
        placed=$(sed -n 's/.* \([0-9]*\) scheduled.*/\1/p' "$T/sched.err")
        [[ -z $wall || $w -lt $wall ]] && wall=$w
        [[ -z $place ]] || awk -v a="$p" -v b="$place" 'BEGIN{exit !(a < b)}' && place=$p
    done
    awk -v l="$label" -v n="$npods" -v w="$wall" -v p="$place" -v rc="$rc" -v ok="$placed" -v rss="$rss" 'BEGIN{
        pw = n / (w / 1000); pp = (p > 0) ? n / p : 0;
        printf "%-40s %5d ms wall %7.0f pods/s %5.0fx-%4.0fx | placement %4.0f ms %7.0f pods/s %5.0fx-%4.0fx%s | %d placed, exit %d, %d MiB\n",
            l, w, pw, pw / 70, pw / 40, p * 1000, pp, pp / 70, pp / 40, (pw >= 40000 ? "" : " (wall below 40,000)"), ok, rc, rss / 1024 }'
}

# peer_row FILES...: the issue's schedule row, 5,000 pods: dra-alloc
# schedule and upstream-alloc schedule, whole processes taken in turn, the
# best wall time of DRA_BENCH_RUNS (3) each (and the cpu of that run).
# Wall times are taken to the microsecond here (/usr/bin/time's are
# hundredths: 8 % of the target's 0.125 s).
peer_row() {
    local runs=${DRA_BENCH_RUNS:-3} c='' u='' m
    local case="500 nodes x 10 GPUs, 5,000 pods, whole process"
    local target=">= 40,000 pods/s, > peer"
    local args=(schedule --now 2026-01-01T00:00:00Z -o jsonl "$@")
    best() { [[ -z $1 ]] || awk -v a="$2" -v b="$1" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1]) }'; }
    if [[ ! -x $U ]] || ! "$U" schedule --help >/dev/null 2>&1; then
        for _ in $(seq "$runs"); do m=$(measure_us "$B/dra-alloc" "${args[@]}"); best "$c" "$m" && c=$m; done
        bench_row "$case" "$(pods_s "$c")" "upstream-alloc schedule not built (make upstream-alloc): skipped" - \
            "$target" "$(missed "$c" "")" schedule-5k
        return
    fi
    for _ in $(seq "$runs"); do
        m=$(measure_us "$B/dra-alloc" "${args[@]}")
        best "$c" "$m" && c=$m
        m=$(measure_us "$U" "${args[@]}")
        best "$u" "$m" && u=$m
    done
    bench_row "$case" "$(pods_s "$c")" "upstream-alloc schedule $(pods_s "$u")" "x$(bench_ratio "$u" "$c" 1)" \
        "$target" "$(missed "$c" "$u")" schedule-5k
}
# measure_us CMD...: bench_measure's "elapsed cpu peakKiB exit" with the
# elapsed time taken around it to the microsecond.
measure_us() {
    local s e m
    s=$(date +%s%N)
    m=$(bench_measure "$@")
    e=$(date +%s%N)
    awk -v m="$m" -v ns=$((e - s)) 'BEGIN { split(m, x, " "); printf "%.6f %s %s %s", ns / 1e9, x[2], x[3], x[4] }'
}
# pods_s "e cpu kib rc": "N pods/s (wall E s, cpu C s)" for 5,000 pods
pods_s() {
    awk -v a="$1" 'BEGIN { split(a, x, " "); printf "%.0f pods/s (wall %.3f s, cpu %.2f s)", (x[1] > 0 ? 5000 / x[1] : 0), x[1], x[2]
        if (x[4] > 1) printf " exit %d", x[4] }'
}
# missed "e cpu kib" PEER: "met", or how far the target is missed (wall
# pods/s, and what the cpu time alone would give), and whether the peer was
# faster
missed() {
    local v
    v=$(bench_verdict "$(awk -v a="$1" 'BEGIN { split(a, x, " "); printf "%.0f", (x[1] > 0 ? 5000 / x[1] : 0) }')" ge 40000 pods/s)
    awk -v a="$1" -v p="$2" -v v="$v" 'BEGIN { split(a, x, " "); split(p, y, " "); printf "%s", v
        if (v != "met") printf ", x%.2f by cpu", (x[2] > 0 ? 40000 / (5000 / x[2]) : 0)
        if (p != "" && y[1] <= x[1]) printf "; SLOWER than the peer"
        if (p == "") printf "; no peer" }'
}

{ class gpu '"device.driver == \"gpu.example.com\""'; nodes 500
  template one
  template match '[{"matchAttribute":"gpu.example.com/model"}]'
  template cel '[]' '[{"cel":{"expression":"device.attributes[\"gpu.example.com\"].driverVersion.isGreaterThan(semver(\"0.9.0\")) && device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0"}}]'
} >"$T/sbase.jsonl"
echo "schedule: 500 nodes x 10 GPUs, 5,000 pods with one-device claims from templates:"
pods 0 5000 one >"$T/pods.jsonl"
sched "  plain" 5000 "$T/sbase.jsonl" "$T/fleet.jsonl" "$T/pods.jsonl"
peer_row "$T/sbase.jsonl" "$T/fleet.jsonl" "$T/pods.jsonl"
pods 0 5000 match >"$T/pods.jsonl"
sched "  + matchAttribute constraint" 5000 "$T/sbase.jsonl" "$T/fleet.jsonl" "$T/pods.jsonl"
pods 0 5000 cel >"$T/pods.jsonl"
sched "  + CEL selector (semver, quantity)" 5000 "$T/sbase.jsonl" "$T/fleet.jsonl" "$T/pods.jsonl"
# Steady state: half of the devices taken by pods scheduled earlier (their
# claims, allocations and reservations are part of the input), 2,500 more
# placed: per-pod costs with a loaded cluster.  Then the last 10 devices,
# and one pod more than fits.
pods 0 2500 one >"$T/pods.jsonl"
"$B/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl "$T/sbase.jsonl" "$T/fleet.jsonl" "$T/pods.jsonl" >"$T/half.jsonl"
pods 2500 2500 one >"$T/more.jsonl"
sched "  steady state: 2,500 taken, 2,500 more" 2500 "$T/sbase.jsonl" "$T/fleet.jsonl" "$T/half.jsonl" "$T/more.jsonl"
pods 0 4990 one >"$T/pods.jsonl"
"$B/dra-alloc" schedule --now 2026-01-01T00:00:00Z -o jsonl "$T/sbase.jsonl" "$T/fleet.jsonl" "$T/pods.jsonl" >"$T/taken.jsonl"
pods 4990 10 one >"$T/more.jsonl"
sched "  4,990 taken, the last 10" 10 "$T/sbase.jsonl" "$T/fleet.jsonl" "$T/taken.jsonl" "$T/more.jsonl"
pods 4990 11 one >"$T/more.jsonl"
sched "  4,990 taken, 11 more (exit 1)" 1 "$T/sbase.jsonl" "$T/fleet.jsonl" "$T/taken.jsonl" "$T/more.jsonl"
echo "  (the last two rows place few pods: their pods/s are dominated by reading 10,000 objects)"

[[ ${DRA_BENCH_ONLY:-} == schedule ]] && exit 0

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
    /usr/bin/time -f "%M %e" -o "$T/mem" "$B/dra-alloc" --node node-5000 --no-validate "$T/base.jsonl" "$T/big.jsonl" "$T/one.jsonl" >/dev/null 2>&1
    read -r kb sec <"$T/mem"
    echo "  same with --no-validate:               peak RSS $((kb / 1024)) MiB, ${sec} s"
    /usr/bin/time -f "%M %e" -o "$T/mem" "$B/dra-slice" lint "$T/big.jsonl" >/dev/null 2>&1 || true
    read -r kb sec <"$T/mem"
    echo "  reading + validating alone (dra-slice lint): peak RSS $((kb / 1024)) MiB, ${sec} s"
fi
