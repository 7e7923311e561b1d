#!/usr/bin/env bash
# make fuzz: run every libFuzzer target for FUZZ_SECONDS (default 60) each and
# report, per target, how long it ran, how many executions, the corpus and
# coverage reached, and crashes; the same as a table in build/fuzz/summary.md.
# Everything a run writes (corpus, crash artifacts, logs, the summary) goes
# under build/fuzz/ (FUZZ_OUT); the tree is only read.  Seeds in tests/fuzz/seeds/<name
# without fuzz_>/ are copied into build/fuzz/corpus/<target>/ and only that
# copy is handed to the fuzzer, which adds new inputs to it.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
secs=${FUZZ_SECONDS:-60}
out=${FUZZ_OUT:-build/fuzz}
summary=$out/summary.md
mkdir -p "$out"
{
    echo "# make fuzz: $(date -u +%Y-%m-%dT%H:%M:%SZ), FUZZ_SECONDS=$secs"
    echo
    echo "| target | seconds | executions | exec/s | corpus | coverage | result |"
    echo "|---|---:|---:|---:|---:|---:|---|"
} >"$summary"
rc=0
total_execs=0 total_secs=0
for bin in "$@"; do
    name=$(basename "$bin")
    corpus=$out/corpus/$name
    mkdir -p "$corpus"
    seeds=tests/fuzz/seeds/${name#fuzz_}
    [[ -d $seeds ]] && cp -n "$seeds"/* "$corpus"/ 2>/dev/null
    log=$out/$name.log
    t0=$(date +%s.%N)
    # -jobs/-workers are left at 1: libFuzzer would write fuzz-N.log into the cwd
    "$bin" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$out/" "$corpus" >"$log" 2>&1
    r=$?
    took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    execs=$(awk '/^stat::number_of_executed_units:/ { print $2 }' "$log")
    rate=$(awk '/^stat::average_exec_per_sec:/ { print $2 }' "$log")
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | awk '{ print $2 }')
    ncorpus=$(find "$corpus" -type f | wc -l)
    if [[ $r -ne 0 ]]; then
        result="CRASH (see $log)"
        echo "$name: CRASH after ${execs:-?} executions in $took s (see $log)"
        rc=1
    else
        result="no crashes"
        echo "$name: ${execs:-?} executions in $took s (${rate:-?}/s), corpus $ncorpus, coverage ${cov:-?}, no crashes"
    fi
    echo "| $name | $took | ${execs:-?} | ${rate:-?} | $ncorpus | ${cov:-?} | $result |" >>"$summary"
    total_execs=$((total_execs + ${execs:-0}))
    total_secs=$(awk -v a="$total_secs" -v b="$took" 'BEGIN { printf "%.1f", a + b }')
done
echo "| all $# targets | $total_secs | $total_execs | | | | $( ((rc)) && echo "crashes" || echo "no crashes") |" >>"$summary"
echo "fuzz: $# targets, $total_execs executions in $total_secs s; table in $summary"
exit $rc
