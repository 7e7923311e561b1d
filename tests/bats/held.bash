# shellcheck shell=bash
# Memory tests over a fleet in use: loaded by the bats files that bound a
# tool's peak RSS on claims and Pods (load held).

# A fleet in use as bench/bench-resident.sh makes it (bench/gen-held.py):
# 2,000 nodes of 10 devices, half of each allocated, one claim and one
# bound Pod per allocated device (10,000 each, 12 MB of JSON Lines).
fleet_in_use() {
    command -v python3 >/dev/null || skip "no python3"
    local d="$BATS_TEST_TMPDIR"
    "$DRA_BIN/dra-slice" profile gpu --nodes 2000 --devices 10 -o jsonl >"$d/fleet.jsonl"
    python3 "$BATS_TEST_DIRNAME/../../bench/gen-held.py" "$d/fleet.jsonl" "$d" >/dev/null
}

# The tool's peak RSS in MiB, its output in $BATS_TEST_TMPDIR/out: run by
# the tests that are not skipped by rss_measurable (AddressSanitizer's
# shadow memory is not the tool's; /usr/bin/time must be there).
rss_measurable() {
    [[ -x /usr/bin/time ]] || skip "no /usr/bin/time"
    ! ldd "$1" 2>/dev/null | grep -q libasan || skip "peak RSS is not the tool's under AddressSanitizer"
}

rss_mib() {
    local kib
    /usr/bin/time -f '%M' -o "$BATS_TEST_TMPDIR/kib" "$@" >"$BATS_TEST_TMPDIR/out"
    kib=$(tail -1 "$BATS_TEST_TMPDIR/kib")
    echo $((kib / 1024))
}
