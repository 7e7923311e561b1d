#!/usr/bin/env bats
# dra-select: CEL macros in linear time and memory, regular expressions as
# Kubernetes (Go's regexp, RE2 syntax) reads and runs them.
load helpers
bats_require_minimum_version 1.5.0

S() { "$DRA_BIN/dra-select" "$@"; }

# Run a command with at most $1 MB of memory: ulimit -v, or under ASan
# (whose shadow memory no address-space limit allows) its RSS limit.
with_memory_limit() {
    local mb=$1
    shift
    if ldd "$1" 2>/dev/null | grep -q libasan; then
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=$mb" "$@"
    else
        (ulimit -v $((mb * 1024)) && exec "$@")
    fi
}

@test "macros: a 9 KB selector of nested map() and filter() runs within 256 MB" {
    # 2,000 items through twenty map() and a filter(): within the cost limit
    # (validation accepts it), and about 1 GB when each step copied the list
    local items expr
    items=$(seq -s, 0 1999)
    expr="[$items]$(printf '.map(x, x)%.0s' {1..20}).filter(y, y > 0).size() > 0"
    [ "${#expr}" -gt 9000 ]
    run S check "$expr"
    assert_success
    run --separate-stderr with_memory_limit 256 "$DRA_BIN/dra-select" -e "$expr" "$DATA/select/slices.yaml"
    assert_success
    assert_output 'gpu.example.com/node-a/gpu-0
gpu.example.com/node-a/gpu-1
gpu.example.com/node-b/gpu-0
net.example.com/node-a/eth0'
}
