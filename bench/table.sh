# Sourced by bench/bench-*.sh: one measuring helper and the table every
# benchmark prints, one row a case:
#   case | now | peer | target
# now: this project's tools; peer: the yardstick run on the same input (an
# upstream peer, or Python holding the same objects); target: the figure the
# case must hold.  Needs T, a scratch directory.

# bench_measure CMD...: "elapsed cpu peakKiB exit" of one command (output
# discarded; stderr kept in $T/err); the command's exit status.
bench_measure() {
    /usr/bin/time -f '%e %U %S %M' -o "$T/time" "$@" >/dev/null 2>"$T/err"
    local rc=$?
    # the figures are the last line (a failed command's status comes first)
    awk -v rc=$rc 'END { printf "%.2f %.2f %d %d", $1, $2 + $3, $4, rc }' "$T/time"
    return $rc
}

# bench_header: the table's head.
bench_header() {
    printf '%-46s | %-36s | %-60s | %s\n' case now peer target
}

# bench_row CASE NOW PEER TARGET: one row (cells as text).
bench_row() {
    printf '%-46s | %-36s | %-60s | %s\n' "$1" "$2" "$3" "$4"
}

# bench_cell "e cpu kib [exit]": "E s, cpu C s, M MiB", and "exit N" when
# the command did not exit 0 or 1 (its figures then say little).
bench_cell() {
    awk -v a="$1" 'BEGIN { split(a, x, " "); printf "%.2f s, cpu %.2f s, %.1f MiB", x[1], x[2], x[3] / 1024
        if (x[4] > 1) printf " (exit %d)", x[4] }'
}

# bench_ratio "e cpu kib" "e cpu kib" FIELD: first over second of field
# 2 (cpu) or 3 (memory), two decimals.
bench_ratio() {
    awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { split(a, x, " "); split(b, y, " ");
        printf "%.2f", (y[f] > 0 ? x[f] / y[f] : 0) }'
}

# bench_over "e cpu kib" MiB: " OVER" when peak memory is above MiB.
bench_over() {
    awk -v a="$1" -v m="$2" 'BEGIN { split(a, x, " "); if (x[3] / 1024 > m) printf " OVER" }'
}
