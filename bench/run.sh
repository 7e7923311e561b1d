#!/usr/bin/env bash
# make bench: every bench/bench-*.sh in turn; each prints its own figures
# (rows of bench/table.sh's table, case | now | peer | target, among them),
# then one summary table of every row printed through bench_row: the
# issue's cases in its order, then the other rows (bench/table.sh
# bench_summary).
set -uo pipefail
cd "$(dirname "$0")/.." || exit
export DRA_BIN=${DRA_BIN:-$PWD/build/bin}
# shellcheck disable=SC1091 # bench/table.sh, read from the top of the tree
. bench/table.sh
DRA_BENCH_TABLE=$(mktemp)
export DRA_BENCH_TABLE
trap 'rm -f "$DRA_BENCH_TABLE"' EXIT
rc=0
for b in bench/bench-*.sh; do
    [[ -e $b ]] || continue
    echo "== $b"
    bash "$b" || rc=1
done
echo "== summary: every row above (bench/table.sh)"
bench_summary "$DRA_BENCH_TABLE"
exit $rc
