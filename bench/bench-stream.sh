#!/usr/bin/env bash
# Streaming input: dra-slice validate over JSON Lines against a
# Python json.loads loop over the same file (/usr/bin/python3), time and peak
# RSS; a 1 GB JSON Lines file in bounded memory; a kubectl-style List of
# 200,000 objects, and one of 10,000 ten-device slices, against the same
# objects as JSON Lines.
#   DRA_BENCH_STREAM_NODES  nodes of the big fleet (10 GPUs each; default
#                           370000, about 1 GB of JSON Lines)
#   DRA_BENCH_STREAM_RUNS   runs of each timed pair, interleaved, the median
#                           reported (default 5; one run of the big file)
set -uo pipefail
cd "$(dirname "$0")/.." || exit
B=${DRA_BIN:-$PWD/build/bin}
PY=/usr/bin/python3
BIG=${DRA_BENCH_STREAM_NODES:-370000}
RUNS=${DRA_BENCH_STREAM_RUNS:-5}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# shellcheck disable=SC1091 # bench/table.sh, read from the top of the tree
. bench/table.sh
measure() { bench_measure "$@"; }

cat >"$T/loop.py" <<'PY'
import json, sys
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        if line.strip():
            json.loads(line)
            n += 1
PY

# The run of median CPU time among a file of "e cpu kib" lines.
median() {
    sort -k2,2n "$1" | awk 'NF { a[++n] = $0 } END { print a[int((n + 1) / 2)] }'
}

# versus A-FILE B-FILE CMD-A... -- CMD-B...: RUNS runs of each, interleaved
# (A, B, A, B...: a machine's speed drifts), appended to the two files.
versus() {
    local fa=$1 fb=$2 seen=0
    shift 2
    local a=() b=()
    for x in "$@"; do
        if [[ $x == -- ]]; then seen=1; elif ((seen)); then b+=("$x"); else a+=("$x"); fi
    done
    : >"$fa"
    : >"$fb"
    for ((i = 0; i < RUNS; i++)); do
        { measure "${a[@]}"; echo; } >>"$fa"
        { measure "${b[@]}"; echo; } >>"$fb"
    done
}

# row CASE "e cpu kib" PEER-LABEL "e cpu kib" RATIO MiB [ROW]: the cpu
# ratio ours over the peer's, against RATIO (its target) or, when RATIO is
# "", peak memory against MiB; ROW, the issue's case it measures
# (bench/table.sh)
row() {
    local ratio target verdict
    ratio=$(bench_ratio "$2" "$4" 2)
    if [[ -n $5 ]]; then
        target="cpu <= ${5}x the peer's"
        verdict=$(bench_verdict "$ratio" le "$5")
    else
        target="<= $6 MiB"
        verdict=$(bench_mem_verdict "$2" "$6")
    fi
    bench_row "$1" "$(bench_cell "$2")" "$3 $(bench_cell "$4")" "$ratio" "$target" "$verdict" "${7:-}"
}

"$B/dra-slice" profile gpu --nodes 10000 --devices 10 -o jsonl >"$T/f100k.jsonl"
# 400,000 devices on 40,000 nodes: every slice distinct (names and uuids), none
# collapses as a repeat of another
"$B/dra-slice" profile gpu --nodes 40000 --devices 10 -o jsonl >"$T/f400k.jsonl"
# the same fleet with every attribute and capacity value unique (nothing repeats)
"$PY" - "$T/f100k.jsonl" >"$T/u100k.jsonl" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    o = json.loads(line)
    for d in o["spec"]["devices"]:
        n += 1
        d["attributes"]["model"] = {"string": "MODEL-%d" % n}
        d["attributes"]["driverVersion"] = {"version": "1.0.%d" % n}
        d["capacity"]["memory"] = {"value": "%dMi" % (80000 + n)}
        d["capacity"]["compute"] = {"value": "%d" % (100 + n)}
    print(json.dumps(o, separators=(",", ":")))
PY
echo "JSON Lines read + validate, ours against a Python json.loads loop (reading only); cpu ratio < 1 is faster"
echo "(target: a third of Python's CPU, the unique-values fleet the issue's case);"
echo "medians of $RUNS interleaved runs"
bench_header
for f in f100k "f400k" u100k; do
    case $f in
    f100k) what="validate 100k devices" ;;
    f400k) what="validate 400k devices" ;;
    u100k) what="100k devices, every value unique" ;;
    esac
    versus "$T/a" "$T/b" "$B/dra-slice" validate "$T/$f.jsonl" -- "$PY" "$T/loop.py" "$T/$f.jsonl"
    row "$what ($(($(stat -c %s "$T/$f.jsonl") / 1000000)) MB)" "$(median "$T/a")" "python" "$(median "$T/b")" \
        0.33 "" jsonl-validate
done

# as_list JSONL: the same objects as one kubectl List (kubectl get -o json)
as_list() {
    printf '{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[\n'
    paste -sd, "$1"
    printf ']}\n'
}

# a List against the same objects as JSON Lines (target: within 1.5x):
# 200,000 one-device slices, and the 10,000 ten-device slices above
"$B/dra-slice" profile gpu --nodes 200000 --devices 1 -o jsonl >"$T/l.jsonl"
as_list "$T/l.jsonl" >"$T/l.json"
as_list "$T/f100k.jsonl" >"$T/f100k.json"
for f in l f100k; do
    versus "$T/a" "$T/b" "$B/dra-slice" validate "$T/$f.jsonl" -- "$B/dra-slice" validate "$T/$f.json"
    case $f in
    l) what="200k objects as one List" ;;
    f100k) what="10k slices of 10 devices as one List" ;;
    esac
    row "$what" "$(median "$T/b")" "as JSON Lines" "$(median "$T/a")" 1.5 "" list-vs-jsonl
done

# the big file: memory follows the largest document, not the file
"$B/dra-slice" profile gpu --nodes "$BIG" --devices 10 -o jsonl >"$T/big.jsonl"
mb=$(($(stat -c %s "$T/big.jsonl") / 1000000))
big=$(measure "$B/dra-slice" validate "$T/big.jsonl") || echo "validate of the big file failed: $(head -c 300 "$T/err")"
row "validate $((BIG * 10 / 1000))k devices ($mb MB)" "$big" \
    "python" "$(measure "$PY" "$T/loop.py" "$T/big.jsonl")" "" 64

# the same devices as one pool (device names made unique): dra-slice build
# reads the file three times as a stream and holds 4 bytes a device between
rm -f "$T/f100k.jsonl" "$T/f100k.json" "$T/f400k.jsonl" "$T/u100k.jsonl" "$T/l.jsonl" "$T/l.json"
perl -pe 's/"name":"gpu-/"name":"g$.-/g' "$T/big.jsonl" >"$T/pool.jsonl"
rm -f "$T/big.jsonl"
pool=$(measure "$B/dra-slice" build --driver gpu.example.com --all-nodes --pool all -o jsonl "$T/pool.jsonl") ||
    echo "build of the big pool failed: $(head -c 300 "$T/err")"
row "build one pool of them ($mb MB)" "$pool" "python" "$(measure "$PY" "$T/loop.py" "$T/pool.jsonl")" "" 64
