#!/usr/bin/env bash
# dra-watch against the test API server, beside kubectl on the same server in
# the same run: listing 10,000 ResourceSlices (objects/s, client CPU, peak memory; also
# as bench/table.sh's row of the issue's dra-watch get case) and a burst of 10,000
# watch events (events/s after the burst starts, peak memory).
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
declare -A listed
for who in dra-watch kubectl; do
    if [[ $who == dra-watch ]]; then cmd=("$BIN/dra-watch" get resourceslices); else cmd=("$KUBECTL" get resourceslices -o json); fi
    t0=$(now)
    /usr/bin/time -v -o "$work/time.$who" "${cmd[@]}" >"$work/list.$who" || { echo "$who list failed"; exit 1; }
    t1=$(now)
    printf 'list %d ResourceSlices  %-9s %8s objects/s  cpu %5s s  peak %6s MiB\n' "$N" "$who" "$(rate "$N" "$t0" "$t1")" \
        "$(cpu "$work/time.$who")" "$(peak "$work/time.$who")"
    listed[$who]="$(rate "$N" "$t0" "$t1") objects/s, cpu $(cpu "$work/time.$who") s, $(peak "$work/time.$who") MiB"
done
# the same as the issue's row: dra-watch's client CPU against kubectl's
bench_header
bench_row "dra-watch get resourceslices, $N slices" "${listed[dra-watch]}" \
    "kubectl get -o json ${listed[kubectl]}, cpu ratio $(bench_ratio "0 $(cpu "$work/time.dra-watch") 0" \
        "0 $(cpu "$work/time.kubectl") 0" 2)" "cpu ratio <= 1" watch-get
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
