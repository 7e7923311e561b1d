#!/usr/bin/env bash
# dra-watch against kubectl and a client-go informer on the real kube-apiserver
# 1.37.2 (tests/upstream/cluster.sh), the same server in the same run
# (`make bench-upstream-watch`).
#
#   watch-upstream.sh DRA_BIN UPSTREAM_BIN WORKDIR
#
# For each size of BENCH_WATCH_SIZES (default "1000 10000") ResourceSlices
# (`dra-slice profile gpu`, 4 devices each) are created, then:
#   list   `dra-watch get resourceslices` / `kubectl get resourceslices -o json` /
#          the informer until synced: time to the full list, max RSS;
#   watch  the three watch at once (`dra-watch get -w`, `kubectl get -w
#          --watch-only -o json`, `upstream-cluster informer`) while every
#          slice is labelled (bench/watch-writer.py: merge patches from 8
#          connections at once): time from the first write to the last event of the
#          burst, events/s, max RSS (the whole run: list and burst).  The
#          events come at the writer's pace: the rows show that every
#          client keeps up with it, not how fast each could go.
# Ratios are theirs/ours (above 1: dra-watch is faster or smaller).
set -uo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 DRA_BIN UPSTREAM_BIN WORKDIR" >&2; exit 2; }
B=$1 U=$2 W=$3
root=$(cd "$(dirname "$0")/.." && pwd)
K=$U/kubectl
[[ -x /usr/bin/time ]] || { echo "bench-upstream-watch: /usr/bin/time is needed" >&2; exit 2; }
rm -rf "$W"
mkdir -p "$W"
C=$W/cluster
trap '"$root/tests/upstream/cluster.sh" stop "$C"' EXIT
UPSTREAM_BIN=$U "$root/tests/upstream/cluster.sh" start "$C" >/dev/null || exit 3
export KUBECONFIG=$C/kubeconfig KUBECACHEDIR=$W/kubecache

rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
mb() { awk -v k="$(tail -n 1 "$1")" 'BEGIN { printf "%.1f", k / 1024 }'; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "x%.1f", (b > 0 ? a / b : 0) }'; }
# the time (EPOCHREALTIME) each line was seen: "stamp FILE <stream" writes
# FILE.t, one time a line (each client's events go through the same jq
# first, down to the name: bash reads a pipe byte by byte)
stamp() { while IFS= read -r l; do printf '%s\n' "$l" >>"$1"; echo "$EPOCHREALTIME" >>"$1.t"; done; }

have=0
printf '%-26s %10s %8s | %10s %8s | %10s %8s | %12s %12s\n' "" dra-watch MB kubectl MB informer MB \
    "kubectl/ours" "informer/ours"
for n in ${BENCH_WATCH_SIZES:-1000 10000}; do
    # grow the fleet to n slices (names from dra-slice: node-0001-...)
    "$B/dra-slice" profile gpu --nodes "$n" --devices 4 -o json >"$W/fleet.json"
    jq -c ".items[$have:]|.[]" "$W/fleet.json" >"$W/new.jsonl"
    if [[ -s $W/new.jsonl ]]; then
        "$K" create -f "$W/new.jsonl" >/dev/null 2>"$W/create.err" || { cat "$W/create.err"; exit 3; }
    fi
    have=$n

    # ---- list
    t0=$EPOCHREALTIME
    /usr/bin/time -f %M -o "$W/t.ours" "$B/dra-watch" get resourceslices >"$W/l.ours" || exit 3
    lo=$(secs "$t0" "$EPOCHREALTIME")
    t0=$EPOCHREALTIME
    /usr/bin/time -f %M -o "$W/t.kubectl" "$K" get resourceslices -o json >"$W/l.kubectl" || exit 3
    lk=$(secs "$t0" "$EPOCHREALTIME")
    # the informer runs on: from its start to its "synced" line (polled every 20 ms)
    t0=$EPOCHREALTIME
    /usr/bin/time -f %M -o "$W/t.inf" "$U/upstream-cluster" informer --kubeconfig "$KUBECONFIG" --events 1 \
        >/dev/null 2>"$W/l.inf" &
    ipid=$!
    for ((i = 0; i < 3000; i++)); do grep -q synced "$W/l.inf" && break; sleep 0.02; done
    li=$(secs "$t0" "$EPOCHREALTIME")
    kill $(pgrep -P "$ipid") 2>/dev/null # the informer, so that time reports it
    wait "$ipid" 2>/dev/null
    [[ $(wc -l <"$W/l.ours") == "$n" ]] || echo "dra-watch listed $(wc -l <"$W/l.ours") of $n"
    printf '%-26s %9ss %8s | %9ss %8s | %9ss %8s | %12s %12s\n' "list $n slices" "$lo" "$(mb "$W/t.ours")" \
        "$lk" "$(mb "$W/t.kubectl")" "$li" "$(mb "$W/t.inf")" "$(ratio "$lk" "$lo")" "$(ratio "$li" "$lo")"

    # ---- watch: the three at once, one burst of n modifications
    rm -f "$W"/w.*
    /usr/bin/time -f %M -o "$W/t.wours" "$B/dra-watch" get resourceslices -w --max-events $((2 * n)) 2>/dev/null |
        jq --unbuffered -c '.object.metadata.name' | stamp "$W/w.ours" &
    /usr/bin/time -f %M -o "$W/t.wkubectl" "$K" get resourceslices -w --watch-only -o json 2>/dev/null |
        jq --unbuffered -c '.metadata.name' | stamp "$W/w.kubectl" &
    kpid=$(pgrep -n -f "get resourceslices -w --watch-only" || true)
    /usr/bin/time -f %M -o "$W/t.winf" "$U/upstream-cluster" informer --kubeconfig "$KUBECONFIG" --events "$n" \
        2>"$W/w.inf.err" | jq --unbuffered -c '.object.metadata.name' | stamp "$W/w.inf" &
    for ((i = 0; i < 1200; i++)); do
        [[ -s $W/w.ours && $(wc -l <"$W/w.ours") -ge $n ]] && grep -q synced "$W/w.inf.err" && break
        sleep 0.05
    done
    sleep 2 # kubectl's watch is open
    tw0=$EPOCHREALTIME
    python3 "$root/bench/watch-writer.py" "$C" "b$n" 8 || exit 3
    tw1=$EPOCHREALTIME
    for ((i = 0; i < 1200; i++)); do
        [[ $(wc -l <"$W/w.ours") -ge $((2 * n)) && $(wc -l <"$W/w.kubectl" 2>/dev/null || echo 0) -ge $n &&
            $(wc -l <"$W/w.inf") -ge $((2 * n)) ]] && break
        sleep 0.1
    done
    [[ -z $kpid ]] || kill "$kpid" 2>/dev/null
    wait
    # the burst's events: the last n lines of each
    ew() { # FILE.t -> seconds from the writer's first request to the last event
        tail -n 1 "$1" | awk -v a="$tw0" '{ printf "%.3f", $1 - a }'
    }
    wo=$(ew "$W/w.ours.t") wk=$(ew "$W/w.kubectl.t") wi=$(ew "$W/w.inf.t")
    printf '%-26s %9ss %8s | %9ss %8s | %9ss %8s | %12s %12s\n' "watch $n events" "$wo" "$(mb "$W/t.wours")" \
        "$wk" "$(mb "$W/t.wkubectl")" "$wi" "$(mb "$W/t.winf")" "$(ratio "$wk" "$wo")" "$(ratio "$wi" "$wo")"
    printf '%-26s %9s/s %7s | %9s/s %7s | %9s/s %7s |   (the writer: %s events/s)\n' "" "$(rate "$n" "$wo")" "" \
        "$(rate "$n" "$wk")" "" "$(rate "$n" "$wi")" "" "$(rate "$n" "$(secs "$tw0" "$tw1")")"
done
