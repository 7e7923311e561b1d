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

# bench_row CASE NOW PEER TARGET [ROW]: one row (cells as text).  ROW names
# the issue's case the row measures (a key of bench_issue_rows below); rows
# printed with none are placed after the issue's rows.  With DRA_BENCH_TABLE
# set (bench/run.sh sets it) the row is also appended to that file,
# tab-separated: ROW, script, the four cells.
bench_row() {
    printf '%-46s | %-36s | %-60s | %s\n' "$1" "$2" "$3" "$4"
    if [[ -n ${DRA_BENCH_TABLE:-} ]]; then
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${5:-}" "$(basename "$0")" "$1" "$2" "$3" "$4" |
            tr -d '\r' >>"$DRA_BENCH_TABLE"
    fi
}

# The issue's cases, in its order: "KEY<TAB>what it measures".
bench_issue_rows() {
    printf '%s\t%s\n' \
        claim-status "dra-claim status, 100k devices half allocated" \
        pool-status-1m "pool-status / capacity, 1M devices (DRA_BENCH_MILLION=1)" \
        capacity-10k "dra-alloc capacity, 10k nodes" \
        schedule-1m "schedule, 1M devices (DRA_BENCH_MILLION=1)" \
        schedule-5k "schedule, 500 nodes x 10 GPUs, 5k pods from templates, pods/s" \
        jsonl-validate "JSON Lines validate, CPU against Python" \
        list-vs-jsonl "kubectl List against JSON Lines" \
        cel-device "CEL per device, conversion included (ns)" \
        watch-get "dra-watch get, 10k slices, client CPU"
}

# bench_summary FILE: the rows FILE gathered (bench_row) as one table: each
# of the issue's cases in its order with the rows that name it (or "not
# measured in this run"), then every other row in the order printed (a
# ROW that is not one of the issue's among them).
bench_summary() {
    local f=$1
    bench_issue_rows >"$f.issue"
    awk -F '\t' -v OFS='\t' '
        FNR == NR { order[++n] = $1; title[$1] = $2; next }
        { row[FNR] = $3 "\t" $4 "\t" $5 "\t" $6 "\t" $2; rk[FNR] = $1; rows = FNR }
        END {
            fmt = "%-52s | %-40s | %-60s | %s\n"
            printf fmt, "case", "now", "peer", "target"
            for (i = 1; i <= n; i++) {
                found = 0
                print title[order[i]] ":"
                for (r = 1; r <= rows; r++) if (rk[r] == order[i]) {
                    split(row[r], c, "\t")
                    printf fmt, "  " c[1], c[2], c[3], c[4]
                    found = 1
                }
                if (!found) printf fmt, "  -", "not measured in this run", "-", "-"
            }
            for (r = 1; r <= rows; r++) if (!(rk[r] in title)) {
                if (!other++) print "other rows:"
                split(row[r], c, "\t")
                printf fmt, "  " c[1] " (" c[5] ")", c[2], c[3], c[4]
            }
        }' "$f.issue" "$f"
    rm -f "$f.issue"
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
