#!/usr/bin/env bats
load helpers
bats_require_minimum_version 1.5.0

# A NUL byte in a CEL expression: the API server echoes it raw in its
# compile error (the lexer's message and the snippet); the message is not
# cut there, on stderr nor in the findings (JSON: \u0000).
nul_class() {
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"broken"},"spec":{"selectors":[{"cel":{"expression":"\\u0000"}}]}}\n' >"$BATS_TEST_TMPDIR/nul.json"
}

@test "dra-slice validate: a NUL byte in a CEL expression is echoed whole" {
    nul_class
    # the whole message, NUL bytes included, as upstream's (bash strings
    # cannot hold them: compare files)
    local rc=0
    "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/nul.json" 2>"$BATS_TEST_TMPDIR/err" || rc=$?
    [ "$rc" -eq 2 ]
    printf "dra-slice: %s:1: DeviceClass/broken: spec.selectors[0].cel.expression: Invalid value: \"\\\\x00\": compilation failed: ERROR: <input>:1:1: Syntax error: token recognition error at: '\\0'\n | \\0\n | ^\nERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | \\0\n | .^\n" \
        "$BATS_TEST_TMPDIR/nul.json" >"$BATS_TEST_TMPDIR/want"
    run cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/err"
    assert_success
}

@test "dra-slice validate -o jsonl: a NUL byte in a message is written as \\u0000" {
    nul_class
    run --separate-stderr "$DRA_BIN/dra-slice" validate -o jsonl "$BATS_TEST_TMPDIR/nul.json"
    assert_failure 2
    assert_output --partial "token recognition error at: '\\u0000'\\n | \\u0000\\n | ^\\nERROR: <input>:1:2:"
    assert_output --partial '\n | \u0000\n | .^"}'
}

@test "dra-slice validate: a message rewritten after the fact is printed as rewritten" {
    printf '{"apiVersion":"resource.k8s.io/v1","kind":1e3,"metadata":{"name":"claim-0","namespace":"default"},"spec":{}}\n' >"$BATS_TEST_TMPDIR/k.json"
    run "$DRA_BIN/dra-slice" validate "$BATS_TEST_TMPDIR/k.json"
    assert_failure 2
    assert_output "dra-slice: $BATS_TEST_TMPDIR/k.json:1: object/default/claim-0: kind: Invalid value: 1e3: must be of type string"
}

@test "dra-slice validate: a bad quantity in a disabled feature's field is refused, as the decoder does" {
    printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"claim-0","namespace":"default"},"spec":{"devices":{"requests":[{"name":"req-0","exactly":{"deviceClassName":"class-a","capacity":{"requests":{"capacity-0":"In"}}}}]}}}\n' >"$BATS_TEST_TMPDIR/q.json"
    run "$DRA_BIN/dra-slice" validate --feature-gates DRAConsumableCapacity=false "$BATS_TEST_TMPDIR/q.json"
    assert_failure 2
    assert_output --partial 'capacity.requests[capacity-0]: Invalid value: "In": quantities must match the regular expression'
}

# A pod dra-alloc schedule cannot place gets kube-scheduler's
# PodScheduled=False condition (schedule_one.go handleSchedulingFailure,
# UpdatePodCondition).
sched_input() {
    local cond=${1:-}
    {
        echo '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}'
        echo '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \"x\""}}]}}'
        echo '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default","uid":"u1"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu"}}]}}}'
        echo '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","uid":"p1","generation":2},"spec":{"containers":[{"name":"c","image":"x"}],"resourceClaims":[{"name":"c","resourceClaimName":"c"}]}'"${cond:+,\"status\":{\"conditions\":[$cond]\}}"'}'
    } >"$BATS_TEST_TMPDIR/s.jsonl"
}

@test "dra-alloc schedule: a pod that fits nowhere gets PodScheduled=False, Unschedulable" {
    sched_input
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-02T03:04:05Z -o jsonl "$BATS_TEST_TMPDIR/s.jsonl"
    assert_failure 1
    assert_output --partial '"status":{"conditions":[{"type":"PodScheduled","observedGeneration":2,"status":"False","lastProbeTime":null,"lastTransitionTime":"2026-01-02T03:04:05Z","reason":"Unschedulable","message":"0/1 nodes are available: 1 cannot allocate all claims."}]}'
}

@test "dra-alloc schedule: PodScheduled=False keeps its lastTransitionTime, and an unchanged one is not written" {
    sched_input '{"type":"PodScheduled","status":"False","lastProbeTime":null,"lastTransitionTime":"2025-01-01T00:00:00Z","reason":"Unschedulable","message":"old"}'
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-02T03:04:05Z -o jsonl "$BATS_TEST_TMPDIR/s.jsonl"
    assert_failure 1
    assert_output --partial '"lastTransitionTime":"2025-01-01T00:00:00Z","reason":"Unschedulable","message":"0/1 nodes are available: 1 cannot allocate all claims."}'
    sched_input '{"type":"PodScheduled","status":"False","lastProbeTime":null,"lastTransitionTime":"2025-01-01T00:00:00Z","reason":"Unschedulable","message":"0/1 nodes are available: 1 cannot allocate all claims."}'
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --now 2026-01-02T03:04:05Z -o jsonl "$BATS_TEST_TMPDIR/s.jsonl"
    assert_failure 1
    refute_output --partial '"kind":"Pod"'
}

@test "dra-alloc: a selector with a NUL byte does not compile, as in the scheduler" {
    printf '%s\n' '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"d.example.com","pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeName":"n1","devices":[{"name":"dev0"}]}}' \
        '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"c"}}' \
        '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"cl","namespace":"default"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c","selectors":[{"cel":{"expression":"true\u0000 && false"}}]}}]}}}' >"$BATS_TEST_TMPDIR/a.jsonl"
    run "$DRA_BIN/dra-alloc" --node n1 "$BATS_TEST_TMPDIR/a.jsonl"
    refute [ "$status" -eq 0 ]
    assert_output --partial "claim default/cl: selector #0: CEL compile error: compilation failed: ERROR: <input>:1:5: Syntax error: token recognition error at: '"
}

@test "dra-select: a class selector with a NUL byte does not compile" {
    printf '%s\n' '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"d.example.com","pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeName":"n1","devices":[{"name":"dev0"}]}}' \
        '{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"c"},"spec":{"selectors":[{"cel":{"expression":"true\u0000 && false"}}]}}' >"$BATS_TEST_TMPDIR/sel.jsonl"
    run "$DRA_BIN/dra-select" --class c "$BATS_TEST_TMPDIR/sel.jsonl"
    assert_failure 2
    assert_output --partial "class c: selector #0: CEL compile error: compilation failed: ERROR: <input>:1:5: Syntax error: token recognition error at: '"
    refute_output --partial "dev0"
}
