#!/usr/bin/env bats
# bench/table.sh: bench_row gathers its rows in DRA_BENCH_TABLE, and
# bench_summary prints them as one table, the issue's cases first.

load helpers
bats_require_minimum_version 1.5.0

setup() {
    TOP=$BATS_TEST_DIRNAME/../..
    mkdir -p "$BATS_TEST_TMPDIR/bench"
    # rows placed by the case each names, none by its text: the unnamed
    # dra-claim status and dra-watch get rows, and one that names no case
    # of the issue, go among the other rows
    cat >"$BATS_TEST_TMPDIR/bench/bench-resident.sh" <<EOF
. "$TOP/bench/table.sh"
bench_row "dra-claim status" "1 s" "python 1" 0.1 "<= 128 MiB" met
bench_row "dra-alloc capacity" "2 s" "python 2" 0.2 "<= 128 MiB" met capacity-10k,pool-status-1m
bench_row "dra-claim status" "3 s" "python 3" 0.3 "<= 128 MiB" met claim-status
bench_row "schedule row" "4 pods/s" "peer 4" x4 "t4" "MISSED by 4" schedule-5k
bench_row "dra-watch get resourceslices" "6 s" "kubectl 6" 0.6 "t6" met
bench_row "something else" "5 s" "python 5" 0.5 "t5" met no-such-case
EOF
}

@test "bench_row prints its row and, with DRA_BENCH_TABLE, gathers it" {
    run bash "$BATS_TEST_TMPDIR/bench/bench-resident.sh"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 6 ]
    [[ ${lines[3]} == "schedule row "*"| 4 pods/s "*"| peer 4 "*"| x4 "*"| t4 "*"| MISSED by 4" ]]
    [ ! -e "$BATS_TEST_TMPDIR/rows" ]
    DRA_BENCH_TABLE=$BATS_TEST_TMPDIR/rows bash "$BATS_TEST_TMPDIR/bench/bench-resident.sh" >/dev/null
    [ "$(wc -l <"$BATS_TEST_TMPDIR/rows")" -eq 6 ]
    [ "$(sed -n 4p "$BATS_TEST_TMPDIR/rows")" = "$(printf 'schedule-5k\tbench-resident.sh\tschedule row\t4 pods/s\tpeer 4\tx4\tt4\tMISSED by 4')" ]
}

@test "bench_summary: the issue's cases in its order, then the other rows" {
    DRA_BENCH_TABLE=$BATS_TEST_TMPDIR/rows bash "$BATS_TEST_TMPDIR/bench/bench-resident.sh" >/dev/null
    run bash -c ". '$TOP/bench/table.sh'; bench_summary '$BATS_TEST_TMPDIR/rows'"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "case "*"| ours "*"| peer "*"| ratio "*"| target "*"| met/missed-by" ]]
    [ "${lines[1]}" = "dra-claim status, 100k devices half allocated: <= 128 MiB:" ]
    [[ ${lines[2]} == "  dra-claim status "*"| 3 s "*"| 0.3 "*"| met" ]]
    # a row that names two cases is in both
    [[ ${lines[3]} == "pool-status / capacity: 1M devices"* ]]
    [[ ${lines[4]} == "  dra-alloc capacity "*"| 2 s "* ]]
    [[ ${lines[5]} == "dra-alloc capacity, 10k nodes"* ]]
    [[ ${lines[6]} == "  dra-alloc capacity "*"| 2 s "* ]]
    [[ ${lines[7]} == "schedule, 1M devices, 100k pods"* ]]
    [[ ${lines[8]} == "  - "*"| not measured in this run "* ]]
    [[ ${lines[9]} == "schedule, 500 nodes x 10 GPUs, 5k pods"* ]]
    [[ ${lines[10]} == "  schedule row "*"| 4 pods/s "*"| peer 4 "*"| x4 "*"| t4 "*"| MISSED by 4" ]]
    [ "${lines[-6]}" = "dra-watch get, 10k slices: client CPU 3x less than the json_loadb base:" ]
    [[ ${lines[-5]} == "  - "*"| not measured in this run "* ]]
    [ "${lines[-4]}" = "other rows:" ]
    [[ ${lines[-3]} == "  dra-claim status (bench-resident.sh) "*"| 1 s "* ]]
    [[ ${lines[-2]} == "  dra-watch get resourceslices (bench-resident.sh) "*"| 6 s "* ]]
    [[ ${lines[-1]} == "  something else (bench-resident.sh) "*"| 5 s "* ]]
}

@test "bench_verdict: met, or by how much and by what factor it is missed" {
    run bash -c ". '$TOP/bench/table.sh'; bench_verdict 95 le 128 MiB; bench_verdict 150 le 128 MiB
        bench_verdict 12473 ge 40000 pods/s; bench_verdict 0.45 le 0.33; bench_verdict '' le 1
        bench_mem_verdict '1 2 140000 0' 128; bench_mem_verdict '1 2 140000 3' 128"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "met" ]
    [ "${lines[1]}" = "MISSED by 22 MiB (x1.17)" ]
    [ "${lines[2]}" = "MISSED by 27527 pods/s (x3.21)" ]
    [ "${lines[3]}" = "MISSED by 0.12 (x1.36)" ]
    [ "${lines[4]}" = "no figure" ]
    [ "${lines[5]}" = "MISSED by 8.7 MiB (x1.07)" ]
    [ "${lines[6]}" = "FAILED (exit 3)" ]
}
