#!/usr/bin/env bash
# make fuzz: run every libFuzzer target for FUZZ_SECONDS (default 60) each and
# report executions and crashes.  Corpora live in build/fuzz/corpus/<target>.
set -uo pipefail
secs=${FUZZ_SECONDS:-60}
rc=0
for bin in "$@"; do
    name=$(basename "$bin")
    corpus=build/fuzz/corpus/$name
    mkdir -p "$corpus"
    seeds=tests/fuzz/seeds/${name#fuzz_}
    dirs=("$corpus")
    [[ -d $seeds ]] && dirs+=("$seeds")
    log=build/fuzz/$name.log
    "$bin" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix=build/fuzz/ "${dirs[@]}" >"$log" 2>&1
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
