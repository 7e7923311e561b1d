#!/usr/bin/env bash
# dra-watch against the test API server, beside kubectl on the same server in
# the same run: listing 10,000 ResourceSlices (objects/s, client CPU, peak
# memory) and a burst of 10,000 watch events (events/s after the burst
# starts, peak memory).  The issue's dra-watch get row (bench/table.sh):
# the list's client CPU against the base it is to be 3x below, dra-watch as
# it was before it read the API server's JSON with the fast parser (98d24e5,
# 68-78 % of its instructions in json_loadb), built from git once into
# build/bench/watch-base (DRA_BENCH_WATCH_BASE: another binary); the two
# alternated, the median of BENCH_WATCH_RUNS (5) each.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
BIN=${DRA_BIN:-$PWD/build/bin}
N=${BENCH_WATCH_N:-10000}
KUBECTL=/usr/lib/google-cloud-sdk/bin/kubectl.1.33
[[ -x $KUBECTL ]] || KUBECTL=/usr/bin/kubectl
# shellcheck disable=SC1091 # read from the top of the tree
source tests/apiserver/helpers.bash
# shellcheck disable=SC1091 # bench/table.sh, read from the top of the tree
. bench/table.sh
work=$(mktemp -d)
trap 'apiserver_stop; rm -rf "$work"' EXIT
"$BIN/dra-slice" profile gpu --nodes "$N" --devices 4 -o jsonl >"$work/slices.jsonl"
apiserver_start "$work/api" --load "$work/slices.jsonl" >/dev/null || exit 1

now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }
peak() { awk '/Maximum resident/ { printf "%.1f", $NF / 1024 }' "$1"; }
# the client's CPU (user + system seconds) from a time -v file
cpu() { awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$1"; }

# ---- list
# the base: dra-watch before 98d24e5, built once from git
BASE_COMMIT=9e2012f9cf42c08ef3ccad01292b1eb69cae482e # 98d24e5^
WBASE=${DRA_BENCH_WATCH_BASE:-$PWD/build/bench/watch-base/build/bin/dra-watch}
if [[ ! -x $WBASE && -z ${DRA_BENCH_WATCH_BASE:-} ]] && git rev-parse -q --verify "$BASE_COMMIT^{commit}" >/dev/null; then
    echo "building the base dra-watch ($BASE_COMMIT) into build/bench/watch-base"
    rm -rf build/bench/watch-base
    mkdir -p build/bench/watch-base
    if ! { git archive "$BASE_COMMIT" | tar -x -C build/bench/watch-base &&
        nice make -s -C build/bench/watch-base -j2 build/bin/dra-watch >"$work/base-build.log" 2>&1; }; then
        echo "the base dra-watch did not build:"
        tail -5 "$work/base-build.log"
    fi
fi
# list WHO OUT-PREFIX CMD...: one list under time -v; "objects/s cpu MiB"
# appended to OUT-PREFIX.figs, the objects to OUT-PREFIX.out
list() {
    local who=$1 t0 t1
    shift
    t0=$(now)
    /usr/bin/time -v -o "$work/time.$who" "$@" >"$work/list.$who" || { echo "$who list failed"; return 1; }
    t1=$(now)
    echo "$(rate "$N" "$t0" "$t1") $(cpu "$work/time.$who") $(peak "$work/time.$who")" >>"$work/figs.$who"
}
# the median run by cpu of WHO: "objects/s, cpu C s, M MiB"
median() {
    sort -k2,2n "$work/figs.$1" | awk '{ a[++n] = $0 } END { split(a[int((n + 1) / 2)], x, " ")
        printf "%s objects/s, cpu %s s, %s MiB", x[1], x[2], x[3] }'
}
mcpu() { sort -k2,2n "$work/figs.$1" | awk '{ a[++n] = $2 } END { print a[int((n + 1) / 2)] }'; }
whos=(dra-watch kubectl)
[[ -x $WBASE ]] && whos+=(base)
for ((r = 0; r < ${BENCH_WATCH_RUNS:-5}; r++)); do
    list dra-watch "$BIN/dra-watch" get resourceslices || exit 1
    [[ -x $WBASE ]] && { list base "$WBASE" get resourceslices || exit 1; }
done
list kubectl "$KUBECTL" get resourceslices -o json || exit 1
for who in "${whos[@]}"; do
    printf 'list %d ResourceSlices  %-9s %s\n' "$N" "$who" "$(median "$who")"
done
bench_header
case="dra-watch get resourceslices, $N slices"
if [[ -x $WBASE ]]; then
    cmp -s "$work/list.dra-watch" "$work/list.base" || echo "dra-watch and its base listed different objects"
    ratio=$(awk -v a="$(mcpu dra-watch)" -v b="$(mcpu base)" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
    bench_row "$case" "$(median dra-watch)" "base (${BASE_COMMIT:0:7}) $(median base)" "$ratio" "cpu <= base / 3" \
        "$(bench_verdict "$ratio" le 0.3333)" watch-get
else
    bench_row "$case" "$(median dra-watch)" "no base dra-watch (${BASE_COMMIT:0:7}: no git)" - "cpu <= base / 3" \
        "no figure" watch-get
fi
ratio=$(awk -v a="$(mcpu dra-watch)" -v b="$(mcpu kubectl)" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
bench_row "$case" "$(median dra-watch)" "kubectl get -o json $(median kubectl)" "$ratio" "cpu <= kubectl's" \
    "$(bench_verdict "$ratio" le 1)"
[[ $(wc -l <"$work/list.dra-watch") == "$N" ]] || echo "dra-watch listed $(wc -l <"$work/list.dra-watch") objects, not $N"

# ---- watch burst: both watch the same server at once; N modifications in one burst
"$BIN/dra-watch" get resourceslices -w --max-events $((2 * N)) >"$work/w.dra-watch" 2>/dev/null &
dpid=$!
/usr/bin/time -v -o "$work/wtime.kubectl" "$KUBECTL" get resourceslices -w --watch-only -o json >"$work/w.kubectl" 2>/dev/null &
kpid=$!
for ((i = 0; i < 600; i++)); do # the initial list is in
    [[ $(wc -l <"$work/w.dra-watch") -ge $N ]] && break
    sleep 0.1
done
sleep 1
t0=$(now)
apiserver_req POST /_test/burst "{\"resource\":\"resourceslices.resource.k8s.io\",\"count\":$N}" >/dev/null
dend='' kend=''
for ((i = 0; i < 1200; i++)); do
    if [[ -z $dend ]] && ! kill -0 "$dpid" 2>/dev/null; then dend=$(now); fi
    if [[ -z $kend ]] && (($(grep -c '^}' "$work/w.kubectl") >= N)); then kend=$(now); fi
    [[ -n $dend && -n $kend ]] && break
    sleep 0.05
done
wait "$dpid"
pkill -TERM -P "$kpid" 2>/dev/null
wait "$kpid" 2>/dev/null
# dra-watch's own peak: the same watch once more under time, the same burst size
/usr/bin/time -v -o "$work/wtime.dra-watch" "$BIN/dra-watch" get resourceslices -w --max-events $((2 * N)) >"$work/w2" 2>/dev/null &
tpid=$!
for ((i = 0; i < 600; i++)); do [[ $(wc -l <"$work/w2") -ge $N ]] && break; sleep 0.1; done
apiserver_req POST /_test/burst "{\"resource\":\"resourceslices.resource.k8s.io\",\"count\":$N}" >/dev/null
wait "$tpid"
printf 'watch burst of %d events  dra-watch %8s events/s  peak %6s MiB\n' "$N" "$(rate "$N" "$t0" "${dend:-$t0}")" "$(peak "$work/wtime.dra-watch")"
printf 'watch burst of %d events  kubectl   %8s events/s  peak %6s MiB\n' "$N" "${kend:+$(rate "$N" "$t0" "$kend")}" "$(peak "$work/wtime.kubectl")"

# ---- flat memory: a long watch while the server keeps changing objects (bursts of
# BENCH_WATCH_FLAT_BURST every second, for BENCH_WATCH_FLAT_S seconds; 600 for the
# 10-minute figure), RSS sampled every 5 s after the initial list
FLAT_S=${BENCH_WATCH_FLAT_S:-60}
BURST=${BENCH_WATCH_FLAT_BURST:-1000}
"$BIN/dra-watch" get resourceslices -w >/dev/null 2>"$work/flat.err" &
fpid=$!
for ((i = 0; i < 600; i++)); do
    [[ $(apiserver_req GET /_test/stats | jq .watchesOpen) -ge 1 ]] && break
    sleep 0.1
done
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
samples=() start=$(date +%s) next=0 events=0
while (($(date +%s) - start < FLAT_S)); do
    if (($(date +%s) - start >= next)); then
        samples+=("$(rss "$fpid")")
        next=$((next + 5))
    fi
    apiserver_req POST /_test/burst "{\"resource\":\"resourceslices.resource.k8s.io\",\"count\":$BURST}" >/dev/null
    events=$((events + BURST))
    sleep 1
done
samples+=("$(rss "$fpid")")
kill -TERM "$fpid" 2>/dev/null
wait "$fpid" 2>/dev/null
printf '%s\n' "${samples[@]}" | awk -v s="$FLAT_S" -v ev="$events" -v n="$N" '
    NF { v[++k] = $1; if (k == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
    END { printf "watch %d s over %d objects, %d events  dra-watch RSS first %.1f MiB  min %.1f  max %.1f  last %.1f MiB (%d samples)\n",
                 s, n, ev, v[1] / 1024, lo / 1024, hi / 1024, v[k] / 1024, k }'
