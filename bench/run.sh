#!/usr/bin/env bash
# make bench: every bench/bench-*.sh in turn; each prints its own figures
# (rows of bench/table.sh's table among them), then one summary table of
# every row printed through bench_row: the issue's cases in its order, then
# the other rows (bench/table.sh bench_summary).
#   bench/run.sh [NAME...]   bench/bench-NAME.sh alone (alloc, stream, ...)
# DRA_BENCH_TABLE=FILE gathers the rows in FILE, kept (rows of an earlier
# run there are summed up with these), else in a file removed at the end.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
export DRA_BIN=${DRA_BIN:-$PWD/build/bin}
# shellcheck disable=SC1091 # bench/table.sh, read from the top of the tree
. bench/table.sh
if [[ -z ${DRA_BENCH_TABLE:-} ]]; then
    DRA_BENCH_TABLE=$(mktemp)
    trap 'rm -f "$DRA_BENCH_TABLE"' EXIT
fi
export DRA_BENCH_TABLE
scripts=(bench/bench-*.sh)
if [[ $# -gt 0 ]]; then
    scripts=()
    for n in "$@"; do scripts+=("bench/bench-$n.sh"); done
fi
rc=0
for b in "${scripts[@]}"; do
    [[ -e $b ]] || { echo "== $b: no such benchmark"; rc=1; continue; }
    echo "== $b"
    bash "$b" || rc=1
done
echo "== summary: every row above (bench/table.sh); $(uptime)"
bench_summary "$DRA_BENCH_TABLE"
exit $rc
