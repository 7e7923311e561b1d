#!/usr/bin/env bash
# Run the C unit tests, the fuzz seed replay, the bats suites and the sweep;
# print one closing line "N passed, N failed" counted from the real results;
# exit 1 on any failure.
#   DRA_UNIT         folder of unit-test binaries (make check sets it)
#   DRA_FUZZ_REPLAY  folder of the fuzz targets built for seed replay
#                    (fuzz_NAME, run on tests/fuzz/seeds/NAME/; one test each)
#   DRA_BIN          folder of the tool binaries (bats, and the sweep:
#                    tests/sweep/run.sh, one test per command of its table)
#   DRA_BATS_SKIP    bats files not to run when none are named (the
#                    sanitized `make check` leaves the files that run no C
#                    code to the plain one); one line names them
#   --unit-only / --replay-only / --bats-only / --sweep-only, and optional
#   bats file arguments
set -u
cd "$(dirname "$0")/.." || exit
mode=all
files=()
for a in "$@"; do
    case $a in
    --unit-only) mode=unit ;;
    --replay-only) mode=replay ;;
    --bats-only) mode=bats ;;
    --sweep-only) mode=sweep ;;
    *) files+=("$a") ;;
    esac
done
# runs MODE: this run includes MODE's tests
runs() { [[ $mode == all || $mode == "$1" ]]; }
# tally OUTFILE RC: add the closing "N passed, N failed" line of OUTFILE
# (none, or a bad exit with none failed, counts as one failure); sets p f
tally() {
    local line
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
    p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
    f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
    if [[ -z $line ]]; then p=0 f=1; fi
    if [[ $2 -ne 0 && ${f:-0} -eq 0 ]]; then f=1; fi
    passed=$((passed + p)) failed=$((failed + f))
}
passed=0 failed=0 skipped=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

if runs unit; then
    for t in "${DRA_UNIT:?DRA_UNIT is not set}"/test_*; do
        [[ -x $t ]] || continue
        name=$(basename "$t")
        "$t" >"$log/$name.out" 2>&1
        rc=$?
        tally "$log/$name.out" "$rc" # a crash or bad exit is a failure
        s=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log/$name.out" | tail -n 1 | grep -oE '[0-9]+ skipped' | grep -oE '[0-9]+' || true)
        skipped=$((skipped + ${s:-0}))
        if [[ $f -ne 0 ]]; then
            echo "FAIL unit $name (exit $rc):"
            grep -vE '^ok ' "$log/$name.out" | tail -n 40
        else
            echo "unit $name: $p passed${s:+, $s skipped}"
        fi
    done
fi

if runs replay; then
    # Every fuzz target's seeds, once each, in the build's own flags (a
    # sanitizer report or crash fails; a target without seeds fails too).
    for t in "${DRA_FUZZ_REPLAY:?DRA_FUZZ_REPLAY is not set}"/fuzz_*; do
        [[ -x $t ]] || continue
        name=$(basename "$t")
        seeds=()
        for s in "tests/fuzz/seeds/${name#fuzz_}"/*; do
            [[ -f $s ]] && seeds+=("$s")
        done
        if ((${#seeds[@]} == 0)); then
            echo "FAIL replay $name: no seeds in tests/fuzz/seeds/${name#fuzz_}/"
            failed=$((failed + 1))
            continue
        fi
        timeout -k 5 600 "$t" "${seeds[@]}" >"$log/$name.out" 2>&1
        rc=$?
        if ((rc == 0)); then
            passed=$((passed + 1))
            echo "replay $name: $(grep -E '^[0-9]+ inputs?$' "$log/$name.out" | tail -n 1)"
        else
            failed=$((failed + 1))
            echo "FAIL replay $name (exit $rc):"
            grep -vE '^input ' "$log/$name.out" | head -n 40
            grep -E '^input ' "$log/$name.out" | tail -n 1
        fi
    done
fi

if runs bats; then
    if ((${#files[@]} == 0)); then
        left=()
        for b in tests/bats/*.bats; do
            if [[ " ${DRA_BATS_SKIP:-} " == *" $b "* ]]; then left+=("$b"); else files+=("$b"); fi
        done
        if ((${#left[@]} > 0)); then
            echo "bats: not run here (no C code; the plain run has them): ${left[*]}"
        fi
    fi
    if [[ -e ${files[0]} ]]; then
        export DRA_BIN=${DRA_BIN:?DRA_BIN is not set}
        bats --formatter tap "${files[@]}" >"$log/bats.out" 2>&1
        p=$(grep -cE '^ok [0-9]+' "$log/bats.out")
        s=$(grep -cE '^ok [0-9]+ .*# skip' "$log/bats.out")
        f=$(grep -cE '^not ok [0-9]+' "$log/bats.out")
        total=$(grep -m1 -E '^1\.\.[0-9]+' "$log/bats.out" | sed 's/1\.\.//')
        if [[ -n $total ]] && ((p + f < total)); then f=$((f + total - p - f)); fi # bats died midway
        passed=$((passed + p - s)) failed=$((failed + f)) skipped=$((skipped + s))
        if ((f > 0)); then
            awk '/^not ok/{p=1} /^ok/{p=0} p' "$log/bats.out" | head -n 200
        fi
        echo "bats: $((p - s)) passed, $f failed, $s skipped"
    fi
fi

if runs sweep; then
    export DRA_BIN=${DRA_BIN:?DRA_BIN is not set}
    tests/sweep/run.sh --bin "$DRA_BIN" >"$log/sweep.out" 2>&1
    rc=$?
    tally "$log/sweep.out" "$rc"
    grep -vE '^[0-9]+ passed, [0-9]+ failed' "$log/sweep.out" | head -n 1000
fi

if ((skipped > 0)); then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
((failed == 0))
