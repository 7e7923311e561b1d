#!/usr/bin/env bash
# Streaming input (issue 11): dra-slice validate over JSON Lines against a
# Python json.loads loop over the same file (/usr/bin/python3), time and peak
# RSS; a 1 GB JSON Lines file in bounded memory; a kubectl-style List of
# 200,000 objects against the same objects as JSON Lines.
#   DRA_BENCH_STREAM_NODES  nodes of the big fleet (10 GPUs each; default
#                           370000, about 1 GB of JSON Lines)
set -uo pipefail
cd "$(dirname "$0")/.."
B=${DRA_BIN:-$PWD/build/bin}
PY=/usr/bin/python3
BIG=${DRA_BENCH_STREAM_NODES:-370000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# "elapsed user+sys peakKiB" of one command, output discarded
measure() {
    /usr/bin/time -f '%e %U %S %M' -o "$T/time" "$@" >/dev/null 2>"$T/err"
    local rc=$?
    awk '{ printf "%.2f %.2f %d", $1, $2 + $3, $4 }' "$T/time"
    return $rc
}

cat >"$T/loop.py" <<'PY'
import json, sys
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        if line.strip():
            json.loads(line)
            n += 1
PY

# row LABEL "e cpu kib" [PEER-LABEL "e cpu kib"]
row() {
    awk -v l="$1" -v a="$2" -v pl="${3:-}" -v p="${4:-}" 'BEGIN {
        split(a, x, " "); printf "%-44s %7.2f s (cpu %6.2f s) %7.1f MiB", l, x[1], x[2], x[3] / 1024
        if (pl != "") { split(p, y, " "); printf " | %s %.2f s (cpu %.2f s) %.1f MiB, cpu ratio %.2f", pl, y[1], y[2], y[3] / 1024, (y[2] > 0 ? x[2] / y[2] : 0) }
        printf "\n" }'
}

"$B/dra-slice" profile gpu --nodes 10000 --devices 10 -o jsonl >"$T/f100k.jsonl"
for i in 1 2 3 4; do cat "$T/f100k.jsonl"; done >"$T/f400k.jsonl" # 110 MB, names repeat (identical: counted once)
echo "JSON Lines read + validate, ours against a Python json.loads loop (reading only); ratio < 1 is faster (target: <= 1)"
row "validate 100k devices ($(($(stat -c %s "$T/f100k.jsonl") / 1000000)) MB)" "$(measure "$B/dra-slice" validate "$T/f100k.jsonl")" \
    "python" "$(measure "$PY" "$T/loop.py" "$T/f100k.jsonl")"
row "validate 400k devices ($(($(stat -c %s "$T/f400k.jsonl") / 1000000)) MB)" "$(measure "$B/dra-slice" validate "$T/f400k.jsonl")" \
    "python" "$(measure "$PY" "$T/loop.py" "$T/f400k.jsonl")"

# 200,000 one-device slices: a List against JSON Lines (target: within 1.5x)
"$B/dra-slice" profile gpu --nodes 200000 --devices 1 -o jsonl >"$T/l.jsonl"
{ printf '{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[\n'; paste -sd, "$T/l.jsonl"; printf ']}\n'; } >"$T/l.json"
jl=$(measure "$B/dra-slice" validate "$T/l.jsonl")
li=$(measure "$B/dra-slice" validate "$T/l.json")
row "200k objects as JSON Lines" "$jl"
row "the same as one List (target: cpu within 1.5x)" "$li" "JSON Lines" "$jl"

# the big file: memory follows the largest document, not the file
"$B/dra-slice" profile gpu --nodes "$BIG" --devices 10 -o jsonl >"$T/big.jsonl"
mb=$(($(stat -c %s "$T/big.jsonl") / 1000000))
big=$(measure "$B/dra-slice" validate "$T/big.jsonl") || echo "validate of the big file failed: $(head -c 300 "$T/err")"
row "validate $((BIG * 10 / 1000))k devices ($mb MB; target < 64 MiB)" "$big" \
    "python" "$(measure "$PY" "$T/loop.py" "$T/big.jsonl")"
