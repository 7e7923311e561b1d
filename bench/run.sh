#!/usr/bin/env bash
# make bench: every bench/bench-*.sh in turn; each prints its own figures
# (bench-resident and bench-stream as the table of bench/table.sh:
# case | now | peer | target).
set -uo pipefail
cd "$(dirname "$0")/.." || exit
export DRA_BIN=${DRA_BIN:-$PWD/build/bin}
rc=0
for b in bench/bench-*.sh; do
    [[ -e $b ]] || continue
    echo "== $b"
    bash "$b" || rc=1
done
exit $rc
