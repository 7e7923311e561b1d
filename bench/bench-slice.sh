#!/usr/bin/env bash
# dra-slice throughput on 100,000 devices: profile, build, lint, validate.
# Prints one line per run: what, seconds, devices/s.
set -euo pipefail
S=${DRA_BIN:-build/bin}/dra-slice
DEVICES=100000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# seconds of a shell command, with 3 decimals
secs() {
    local start end
    start=$(date +%s.%N)
    bash -c "$1"
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'
}

report() {
    awk -v what="$1" -v t="$2" -v n="$DEVICES" \
        'BEGIN { printf "%-52s %8.3f s %12.0f devices/s\n", what, t, (t > 0 ? n / t : 0) }'
}

t=$(secs "'$S' profile gpu --nodes 1000 --devices 100 -o jsonl > '$tmp/fleet.jsonl'")
report "profile gpu 1000 nodes x 100 (jsonl)" "$t"
t=$(secs "'$S' profile gpu --nodes 1000 --devices 100 > '$tmp/fleet.yaml'")
report "profile gpu 1000 nodes x 100 (yaml)" "$t"
t=$(secs "'$S' profile gpu --nodes 1 --devices $DEVICES -o jsonl | '$S' build --driver gpu.example.com --all-nodes --pool big -o jsonl > '$tmp/big.jsonl'")
report "profile | build, one pool of 100000 (782 slices)" "$t"
t=$(secs "'$S' build --driver gpu.example.com --all-nodes --pool big --previous '$tmp/big.jsonl' -o jsonl '$tmp/big.jsonl' > /dev/null")
report "build --previous, unchanged pool" "$t"
t=$(secs "'$S' lint '$tmp/fleet.jsonl' > /dev/null")
report "lint 1000 pools" "$t"
t=$(secs "'$S' validate '$tmp/fleet.jsonl'")
report "validate 1000 slices" "$t"
t=$(secs "'$S' profile mig --nodes 100 --devices 67 -o jsonl > /dev/null")
DEVICES=$((100 * 67 * 15)) report "profile mig 100 nodes x 67 GPUs (15 devices each)" "$t"
