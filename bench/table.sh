# Sourced by bench/bench-*.sh: one measuring helper and the table every
# benchmark prints, one row a case:
#   case | now | peer | ratio | target | met/missed-by
# now: this project's tools; peer: the yardstick run on the same input in
# the same run (an upstream peer, or Python holding the same objects);
# ratio: now over peer in the figure the target is about; target: the
# issue's figure for the case; met/missed-by: bench_verdict's.  Needs T, a
# scratch directory.

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
    printf '%-46s | %-36s | %-48s | %-8s | %-26s | %s\n' case now peer ratio target met/missed-by
}

# bench_row CASE NOW PEER RATIO TARGET VERDICT [ROW]: one row (cells as
# text; RATIO is now over peer, VERDICT is bench_verdict's).  ROW names the
# issue's cases the row measures (keys of bench_issue_rows below, comma
# separated); rows printed with none are placed after the issue's rows.
# With DRA_BENCH_TABLE set (bench/run.sh sets it) the row is also appended
# to that file, tab-separated: ROW, script, the six cells.
bench_row() {
    printf '%-46s | %-36s | %-48s | %-8s | %-26s | %s\n' "$1" "$2" "$3" "$4" "$5" "$6"
    if [[ -n ${DRA_BENCH_TABLE:-} ]]; then
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${7:-}" "$(basename "$0")" "$1" "$2" "$3" "$4" "$5" "$6" |
            tr -d '\r' >>"$DRA_BENCH_TABLE"
    fi
}

# bench_verdict VALUE le|ge LIMIT [UNIT]: "met", or by how much VALUE misses
# LIMIT: "MISSED by D UNIT (xR)", R the factor to gain.  "no figure" when
# VALUE is empty.
bench_verdict() {
    awk -v v="$1" -v op="$2" -v l="$3" -v u="${4:-}" 'BEGIN {
        if (v == "") { print "no figure"; exit }
        ok = (op == "le") ? (v + 0 <= l + 0) : (v + 0 >= l + 0)
        if (ok) { print "met"; exit }
        d = (op == "le") ? v - l : l - v
        r = (op == "le") ? (l > 0 ? v / l : 0) : (v > 0 ? l / v : 0)
        printf (d >= 100 ? "MISSED by %.0f%s (x%.2f)\n" : "MISSED by %.3g%s (x%.2f)\n"), d, (u == "" ? "" : " " u), r }'
}

# The issue's cases, in its order: "KEY<TAB>what it measures".
bench_issue_rows() {
    printf '%s\t%s\n' \
        claim-status "dra-claim status, 100k devices half allocated: <= 128 MiB" \
        pool-status-1m "pool-status / capacity: 1M devices <= 1 GiB, 100k half allocated <= 128 MiB (1M: not with DRA_BENCH_MILLION=0)" \
        capacity-10k "dra-alloc capacity, 10k nodes: <= 128 MiB" \
        schedule-1m "schedule, 1M devices, 100k pods: <= 1 GiB (not with DRA_BENCH_MILLION=0)" \
        schedule-5k "schedule, 500 nodes x 10 GPUs, 5k pods: >= 40,000 pods/s, faster than upstream's allocator" \
        jsonl-validate "JSON Lines validate: CPU <= 0.33x Python json.loads" \
        list-vs-jsonl "kubectl List of 10k slices against JSON Lines: <= 1.5x" \
        cel-device "CEL per device, conversion included: <= 50 ns" \
        watch-get "dra-watch get, 10k slices: client CPU 3x less than the json_loadb base"
}

# bench_summary FILE: the rows FILE gathered (bench_row) as one table: each
# of the issue's cases in its order with the rows that name it (or "not
# measured in this run"), then every other row in the order printed (a
# ROW that is not one of the issue's among them).
bench_summary() {
    local f=$1
    bench_issue_rows >"$f.issue"
    awk -F '\t' '
        FNR == NR { order[++n] = $1; title[$1] = $2; next }
        { rows = FNR; script[FNR] = $2; for (c = 3; c <= 8; c++) cell[FNR, c - 2] = $c
          k = split($1, ks, ","); for (i = 1; i <= k; i++) { keyed[FNR, ks[i]] = 1; if (ks[i] in title) issue[FNR] = 1 } }
        function line(r, label) {
            printf "%-52s | %-40s | %-48s | %-8s | %-26s | %s\n", label, cell[r, 2], cell[r, 3], cell[r, 4], cell[r, 5], cell[r, 6]
        }
        END {
            printf "%-52s | %-40s | %-48s | %-8s | %-26s | %s\n", "case", "ours", "peer", "ratio", "target", "met/missed-by"
            for (i = 1; i <= n; i++) {
                found = 0
                print title[order[i]] ":"
                for (r = 1; r <= rows; r++) if ((r, order[i]) in keyed) { line(r, "  " cell[r, 1]); found = 1 }
                if (!found) printf "%-52s | %-40s | %-48s | %-8s | %-26s | %s\n", "  -", "not measured in this run", "-", "-", "-", "-"
            }
            for (r = 1; r <= rows; r++) if (!(r in issue)) {
                if (!other++) print "other rows:"
                line(r, "  " cell[r, 1] " (" script[r] ")")
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

# bench_mem_verdict "e cpu kib [exit]" MiB: bench_verdict of the peak
# memory against MiB, or "FAILED (exit N)" when the command exited above 1.
bench_mem_verdict() {
    local rc mib
    read -r _ _ mib rc <<<"$1"
    if [[ ${rc:-0} -gt 1 ]]; then
        echo "FAILED (exit $rc)"
        return
    fi
    bench_verdict "$(awk -v k="$mib" 'BEGIN { printf "%.1f", k / 1024 }')" le "$2" MiB
}
