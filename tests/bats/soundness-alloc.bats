#!/usr/bin/env bats
# The allocator's memory is sound on realistic input: what the allocator
# keeps between runs (compiled selectors, derived-attribute programs) is its
# own, not borrowed from claims a scheduler drops or freezes once their pod
# is placed.  Run against the sanitized tools (DRA_BIN=build/san/bin) these
# catch a use-after-free; against the -O2 tools they check the answers.
load helpers
bats_require_minimum_version 1.5.0

S="$DATA/alloc/template-selector"
NOW="--now 2026-03-02T10:00:00Z"

setup() {
    T=$BATS_TEST_TMPDIR
}

placed() { # placed < jsonl: "owner: pool/device ..." for each allocated claim
    jq -r 'select(.kind == "ResourceClaim") | .metadata.ownerReferences[0].name + ": " +
        ([.status.allocation.devices.results[] | .pool + "/" + .device] | join(" "))'
}

allocates() { # allocates TOOL ARGS...: succeeds silently; $output is then what placed() says
    run --separate-stderr "$@"
    assert_success
    assert_equal "$stderr" ""
    run placed <<<"$output"
}

generated() { # generated DUMP [ARGS...]: $T/objects.yaml (the dump without its pods) and $T/generated.yaml (claims, pods)
    "$DRA_BIN/dra-claim" generate "${@:2}" "$1" >"$T/generated.yaml"
    sed '/^- apiVersion: v1$/{N;/kind: Pod/Q}' "$1" >"$T/objects.yaml"
}

@test "schedule: a Deployment's two pods share a template with a CEL selector (the selector's program outlives the first claim)" {
    allocates "$DRA_BIN/dra-alloc" schedule $NOW -o jsonl "$S/cluster.yaml"
    assert_output "trainer-6d8f9b7c5d-4xq2n: gpu-node-1/gpu-0
trainer-6d8f9b7c5d-hz7wk: gpu-node-2/gpu-1"
}

@test "schedule: two pods from a template with derived attributes (the expressions' programs outlive each claim)" {
    # 1.37 on (1.36 has no such gate or field)
    export DRA_KUBERNETES_VERSION=1.37
    allocates "$DRA_BIN/dra-alloc" schedule $NOW -o jsonl --feature-gates DRADerivedAttributes=true "$S/derived.yaml"
    assert_output "worker-0-x8k2j: node-1/gpu-0 node-1/nic-1
worker-1-q4n7z: node-1/gpu-1 node-1/nic-0"
}

@test "allocate: two claims with the same derived attributes in one run" {
    # 1.37 on (1.36 has no such gate or field)
    export DRA_KUBERNETES_VERSION=1.37
    # the gate on when the claims are made too (off, the API server drops
    # the templates' derivedAttributes), and so the NIC's expression one
    # the API server takes (split() is too costly for a new template)
    sed 's/topology\.split("-")\[0\]\.substring(4)/topology.substring(4, 5)/' "$S/derived.yaml" >"$T/derived.yaml"
    grep -q 'substring(4, 5)' "$T/derived.yaml"
    generated "$T/derived.yaml" --feature-gates DRADerivedAttributes=true
    allocates "$DRA_BIN/dra-alloc" --node node-1 -o jsonl --feature-gates DRADerivedAttributes=true \
        "$T/objects.yaml" "$T/generated.yaml"
    assert_output "worker-0-x8k2j: node-1/gpu-0 node-1/nic-1
worker-1-q4n7z: node-1/gpu-1 node-1/nic-0"
}

@test "every tool that allocates or inspects allocations reads the template dump cleanly" {
    # 1.37 on (1.36 has no such gate or field)
    export DRA_KUBERNETES_VERSION=1.37
    generated "$S/cluster.yaml"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --what-if --drain gpu-node-1 "$S/cluster.yaml"
    assert_failure 1
    assert_line "stops fitting: pod ml/trainer-6d8f9b7c5d-hz7wk: fits on gpu-node-2 -> fits nowhere (0/1 nodes are available: 1 cannot allocate all claims.)"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --what-if --taint gpu.example.com/gpu-node-2:example.com/maint=x:NoSchedule "$S/cluster.yaml"
    assert_failure 1
    assert_equal "$stderr" ""
    run --separate-stderr "$DRA_BIN/dra-alloc" capacity "$S/cluster.yaml"
    assert_success
    assert_line --regexp '^gpu.example.com +4 +0 +0 +0 +0 +0 +0 +4 +2 on gpu-node-1$'
    run --separate-stderr "$DRA_BIN/dra-alloc" quota "$T/objects.yaml" "$T/generated.yaml"
    assert_success
    assert_equal "$stderr" ""
    run --separate-stderr "$DRA_BIN/dra-alloc" --node gpu-node-1 -o jsonl "$T/objects.yaml" "$T/generated.yaml"
    assert_failure 1 # one 80Gi GPU per node: both claims do not fit on one node
    assert_equal "$stderr" "dra-alloc: cannot allocate all claims"
    run --separate-stderr "$DRA_BIN/dra-claim" doctor $NOW "$S/cluster.yaml"
    assert_failure 1
    assert_line --partial "ResourceClaim not created yet"
    run --separate-stderr "$DRA_BIN/dra-evict" $NOW "$T/objects.yaml" "$T/generated.yaml"
    assert_success
    assert_equal "$stderr" ""
}

@test "allocate: a request with neither exactly nor firstAvailable is an input error, and nothing leaks" {
    run --separate-stderr "$DRA_BIN/dra-alloc" --node node-1 --no-validate "$DATA/alloc/bare-request.yaml"
    assert_failure 2
    assert_equal "$stderr" "dra-alloc: claim default/bare, request gpu: missing device class name (unsupported request type?)"
}
