#!/usr/bin/env bats
# dra-alloc schedule as 1.36's kube-scheduler words and places pods: its
# DynamicResources PostFilter gives a reason the fit error ends with, and
# its PodGroups (scheduling.k8s.io/v1alpha2) are scheduled with the
# GangScheduling plugin at Permit.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    pod_group_setup
    G="$DATA/groups"
}

# Upstream: k8s.io/kubernetes@v1.36.3 pkg/scheduler/framework/plugins/
# dynamicresources/dynamicresources.go PostFilter ("still not schedulable",
# "no new claims to deallocate"); framework/types.go FitError.Error; 1.37's
# PostFilter gives no reason.  Compared with kube-scheduler by
# tests/upstream/cluster at 1.36 (examples/cluster's fast-path).
@test "1.36: a pod's fit error ends with DynamicResources' PostFilter reason" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.36 -o jsonl "$EXAMPLES/cluster"
    assert_failure 1
    [[ $stderr == *"pod default/fast-path: 0/2 nodes are available: 2 cannot allocate all claims. still not schedulable" ]]
    run jq -r 'select(.kind == "Pod" and .metadata.name == "fast-path") | .status.conditions[0].message' <<<"$output"
    assert_output "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable"
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.37 "$EXAMPLES/cluster"
    [[ $stderr == *"pod default/fast-path: 0/2 nodes are available: 2 cannot allocate all claims." ]]
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule --kubernetes-version 1.36 "$G/missing-claim.yaml"
    assert_failure 1
    [[ $stderr == 'dra-alloc: pod default/lonely: 0/1 nodes are available: resourceclaim.resource.k8s.io "nowhere" not found. no new claims to deallocate' ]]
}
