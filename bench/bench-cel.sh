#!/usr/bin/env bash
# CEL selector evaluation: ns per device evaluation in C (our engine, via
# bench/cel_bench.c) and in JavaScript (@marcbachmann/cel-js, installed into
# build/bench/node_modules with npm), the ratio, and heap allocations per
# evaluation in C (target: 0), and ns per device with its conversion included,
# from the device's compact text and the facts packed with it, as dra-alloc
# holds a packed slice's device and builds it (cel_dra_device_build_packed,
# a freed device's block and the last capacity parse passed on)
# (target: 50; the issue's row of bench/table.sh, one a selector, cel-js's
# ns per evaluation of the same selector as the peer).  C figures are CPU
# time of the benchmark's thread.
#   ITERATIONS (default 2000000 for C; JS runs a quarter of them)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck disable=SC1091 # bench/table.sh, read from the top of the tree
. bench/table.sh
iters=${ITERATIONS:-2000000}
out=build/bench
mkdir -p "$out"

# The Makefile's flags, against the library `make` built.
[[ -f build/lib/libdra.a ]] || make --no-print-directory build/lib/libdra.a >/dev/null
pkgs="yaml-0.1 jansson libprotobuf-c libnghttp2 libcurl readline re2"
# shellcheck disable=SC2086,SC2046 # pkg-config's package list and flags are words
cflags=$(pkg-config --cflags $pkgs | sed 's/-D_XOPEN_SOURCE=[^ ]*//g')
# shellcheck disable=SC2086,SC2046
cc -std=c17 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wvla -Wno-unused-parameter -O2 -g \
    -D_GNU_SOURCE -Isrc/common -Ibuild/gen $cflags -o "$out/cel_bench" bench/cel_bench.c build/lib/libdra.a \
    -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc $(pkg-config --libs $pkgs) -lstdc++ -lm

all_out=$("$out/cel_bench" "$iters")
c_out=$(grep '^c ' <<<"$all_out")
conv=$(grep '^conv ' <<<"$all_out" || true)
cx=$(grep '^cx ' <<<"$all_out" || true)
ct=$(grep '^ct ' <<<"$all_out" || true)
js_out=""
if command -v node >/dev/null && command -v npm >/dev/null; then
    if [[ ! -d $out/node_modules/@marcbachmann/cel-js ]]; then
        [[ -f $out/package.json ]] || echo '{"name": "dra-bench", "private": true}' >"$out/package.json"
        (cd "$out" && npm install --no-audit --no-fund --silent @marcbachmann/cel-js >/dev/null 2>&1) ||
            echo "note: npm install @marcbachmann/cel-js failed; JavaScript side skipped"
    fi
    if [[ -d $out/node_modules/@marcbachmann/cel-js ]]; then
        cp bench/cel/bench.mjs "$out/bench.mjs"
        js_out=$(node "$out/bench.mjs" $((iters / 4)))
    fi
else
    echo "note: node/npm not available; JavaScript side skipped"
fi

printf '%-16s %12s %12s %8s %14s\n' selector "C ns/eval" "JS ns/eval" ratio "C allocs/eval"
status=0
while read -r _ name c_ns allocs c_res; do
    js_ns=$(awk -v n="$name" '$2 == n {print $3}' <<<"$js_out")
    js_res=$(awk -v n="$name" '$2 == n {print $4}' <<<"$js_out")
    if [[ -n $js_ns ]]; then
        ratio=$(awk -v a="$js_ns" -v b="$c_ns" 'BEGIN {printf "%.1fx", a / b}')
        [[ $js_res == "$c_res" ]] || { echo "results differ for $name: C $c_res, JS $js_res"; status=1; }
    else
        js_ns=-
        ratio=-
    fi
    printf '%-16s %12s %12s %8s %14s\n' "$name" "$c_ns" "$js_ns" "$ratio" "$allocs"
    [[ $allocs == 0.000 ]] || { echo "allocations per evaluation for $name: $allocs (want 0)"; status=1; }
done <<<"$c_out"
echo "(target: C at least 20x faster than cel-js, no allocation per evaluation)"
if [[ -n $cx ]]; then
    # A device met for the first time: built from its text, matched and
    # freed, as dra-alloc pays it.
    printf '%-16s %12s %14s %16s\n' selector "ns/device" "allocs/device" "via tree ns/dev"
    while read -r _ name ns allocs; do
        tree_ns=$(awk -v n="$name" '$2 == n {print $3}' <<<"$ct")
        printf '%-16s %12s %14s %16s\n' "$name" "$ns" "$allocs" "${tree_ns:--}"
    done <<<"$cx"
    echo "(with conversion from the device's text: target 50 ns per device)"
    bench_header
    while read -r _ name ns allocs; do
        js_ns=$(awk -v n="$name" '$2 == n {print $3}' <<<"$js_out")
        peer="no cel-js figure in this run" ratio=-
        if [[ -n $js_ns ]]; then
            peer="cel-js $js_ns ns/eval (no conversion)"
            ratio=$(awk -v a="$ns" -v b="$js_ns" 'BEGIN { printf "%.3f", a / b }')
        fi
        bench_row "selector $name, conversion included" "$ns ns, $allocs allocations" "$peer" "$ratio" \
            "<= 50 ns" "$(bench_verdict "$ns" le 50 ns)" cel-device
    done <<<"$cx"
fi
if [[ -n $conv ]]; then
    read -r _ _ conv_ns conv_allocs conv_bytes <<<"$conv"
    # Build, full `device` value and free of one scheduler_perf device
    # through a reused scratch arena.
    printf 'device conversion: %s ns per device, %s heap allocations, %s bytes kept\n' \
        "$conv_ns" "$conv_allocs" "$conv_bytes"
fi
exit $status
