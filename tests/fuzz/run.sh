#!/usr/bin/env bash
# make fuzz: run every libFuzzer target for FUZZ_SECONDS (default 60) each and
# report executions and crashes.  Everything a run writes (corpus, crash
# artifacts, logs) goes under build/fuzz/; the tree is only read.  Seeds in
# tests/fuzz/seeds/<target>/ are copied into build/fuzz/corpus/<target>/ and
# only that copy is handed to the fuzzer, which adds new inputs to it.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
secs=${FUZZ_SECONDS:-60}
out=build/fuzz
rc=0
for bin in "$@"; do
    name=$(basename "$bin")
    corpus=$out/corpus/$name
    mkdir -p "$corpus"
    seeds=tests/fuzz/seeds/${name#fuzz_}
    [[ -d $seeds ]] && cp -n "$seeds"/* "$corpus"/ 2>/dev/null
    log=$out/$name.log
    # -jobs/-workers are left at 1: libFuzzer would write fuzz-N.log into the cwd
    "$bin" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$out/" "$corpus" >"$log" 2>&1
    r=$?
    execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
    if [[ $r -ne 0 ]]; then
        echo "$name: CRASH after ${execs:-?} executions (see $log)"
        rc=1
    else
        echo "$name: ${execs:-?} executions in ${secs}s, no crashes"
    fi
done
exit $rc
