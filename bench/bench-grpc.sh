#!/usr/bin/env bash
# gRPC to a DRA driver's kubelet plugin: our C client (rpc.h over grpc/,
# bench/grpc_bench.c) beside the Python grpcio client (tests/peers/client.py)
# doing the same NodePrepareResources calls against the same servers:
#   - process start-to-exit for one prepare of 1 and of 100 claims
#   - in-process RPC latency (µs per call) for 1 and 100 claims
# against the Python grpcio fake driver and against dra-example-driver.
# Targets: the 1-claim C process >= 10x faster than the Python process;
# C latency within 2x of Python grpcio's in-process latency.
#   RUNS (processes per figure, default 30), CALLS (default 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-30}
calls=${CALLS:-1000}
out=build/bench
mkdir -p "$out"
PY=/usr/bin/python3
if ! "$PY" -c 'import grpc, grpc_tools' 2>/dev/null; then
    echo "note: python3-grpcio / python3-grpc-tools missing; gRPC benchmark skipped"
    exit 0
fi

[[ -f build/lib/libdra.a ]] || make --no-print-directory build/lib/libdra.a >/dev/null
pkgs="yaml-0.1 jansson libprotobuf-c libnghttp2 libcurl readline re2"
# shellcheck disable=SC2086,SC2046 # pkg-config's package list and flags are words
cflags=$(pkg-config --cflags $pkgs | sed 's/-D_XOPEN_SOURCE=[^ ]*//g')
# shellcheck disable=SC2086,SC2046
cc -std=c17 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE -Isrc/common -Ibuild/gen $cflags -o "$out/grpc_bench" \
    bench/grpc_bench.c build/lib/libdra.a $(pkg-config --libs $pkgs) -lstdc++ -lm

T=$(mktemp -d /tmp/dra-bench.XXXXXX)
# CDI specs on tmpfs when there is one: the driver fsyncs every spec it
# writes, and disk flushes are not what this measures.
C=$(mktemp -d /dev/shm/dra-bench.XXXXXX 2>/dev/null || mktemp -d /tmp/dra-bench-cdi.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    rm -rf "$T" "$C"
}
trap cleanup EXIT
export DRA_PEER_STUBS=$T/stubs
"$PY" tests/peers/dra_pb.py >/dev/null

"$PY" tests/peers/fake_driver.py --socket "$T/py.sock" >"$T/py.out" 2>&1 &
pids+=($!)
"${DRA_BIN:-build/bin}/dra-example-driver" --plugin-dir "$T/c" --registry-dir "$T/reg" --cdi-dir "$C" --devices 8 &
pids+=($!)
for _ in $(seq 300); do
    grep -q ready "$T/py.out" 2>/dev/null && [[ -S $T/reg/gpu.example.com-reg.sock ]] && break
    sleep 0.1
done

# ms per process, the mean over $runs runs
per_process() {
    local t0 t1
    t0=$(date +%s%N)
    for ((i = 0; i < runs; i++)); do "$@" >/dev/null; done
    t1=$(date +%s%N)
    awk -v a="$t0" -v b="$t1" -v r="$runs" 'BEGIN { printf "%.2f", (b - a) / r / 1000000 }'
}
us_of() { sed -E 's/.*"us_per_call": ([0-9.]+).*/\1/'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

printf '%-44s %12s %12s %8s\n' "server / figure" "C" "Python" "Py/C"
for srv in py c; do
    case $srv in
    py) sock=$T/py.sock name="Python grpcio driver" ;;
    c) sock=$T/c/dra.sock name="dra-example-driver" ;;
    esac
    for n in 1 100; do
        c_ms=$(per_process "$out/grpc_bench" "$sock" once "$n")
        p_ms=$(per_process "$PY" tests/peers/client.py --socket "$sock" prepare --claims "$n")
        printf '%-44s %9s ms %9s ms %7sx\n' "$name: process, $n claim(s)" "$c_ms" "$p_ms" "$(ratio "$p_ms" "$c_ms")"
        k=$calls
        [[ $n -gt 1 ]] && k=$((calls / 10))
        c_us=$("$out/grpc_bench" "$sock" loop "$n" "$k" | us_of)
        p_us=$("$PY" tests/peers/client.py --socket "$sock" bench --claims "$n" --calls "$k" | us_of)
        printf '%-44s %9s us %9s us %7sx\n' "$name: RPC, $n claim(s)" "$c_us" "$p_us" "$(ratio "$p_us" "$c_us")"
    done
done
echo "(targets: 1-claim process Py/C >= 10x; RPC latency C within 2x of Python, i.e. Py/C >= 0.5x)"
