#!/usr/bin/env bash
# The dra-tools demo: run each tool on the bundled example cluster and show
# what it says.  DRA_BIN points at the built binaries (make demo sets it).
set -euo pipefail
cd "$(dirname "$0")"
BIN=${DRA_BIN:-../build/bin}
step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "$2"; }
run() { # title, command...
    step "$1" "${*:2}"
    "${@:2}"
}

run "Validate every object of the example cluster" \
    "$BIN/dra-slice" validate cluster/classes.yaml cluster/slices.yaml cluster/claims.yaml cluster/nodes.yaml cluster/pods.yaml
echo "(valid)"

run "Check the published pools for consistency" \
    "$BIN/dra-slice" lint cluster/slices.yaml
echo "(no problems)"

run "Publish a node's device inventory as ResourceSlices" \
    "$BIN/dra-slice" build --driver gpu.example.com --node node-c inventory/node-c-gpus.yaml

step "A synthetic fleet: 2 nodes x 3 GPUs, as one line per slice" \
    "$BIN/dra-slice profile gpu --nodes 2 --devices 3 -o jsonl | cut -c1-120"
"$BIN/dra-slice" profile gpu --nodes 2 --devices 3 -o jsonl | cut -c1-120

step "The devices of this machine (sysfs)" "$BIN/dra-slice discover --source pci,net --inventory -o jsonl | head -n 5 | cut -c1-120"
"$BIN/dra-slice" discover --source pci,net --inventory -o jsonl 2>/dev/null | head -n 5 | cut -c1-120 || true
