#!/usr/bin/env bats
# dra-claim against kube-controller-manager's resourceclaim controller
# (tests/upstream/controllers/): what the controllers suite found.
load helpers

setup() {
    A="$DATA/alloc"
    G="$DATA/podgroup"
}

# getPodGroup (pkg/controller/resourceclaim/controller.go of v1.37.2): a
# member of a PodGroup is refused whole without GenericWorkload, its own
# template claims too.
@test "s34-peers25: without GenericWorkload a PodGroup's member pods get no claims at all" {
    run "$DRA_BIN/dra-claim" generate -o json "$A/sched-cluster.yaml" "$G/group.yaml"
    assert_failure 2
    assert_line --partial "group.yaml:40 (document 5): get PodGroup for Pod default/loader: Pod is a member of PodGroup train but GenericWorkload feature is disabled"
    assert_line --partial "get PodGroup for Pod default/worker-0: Pod is a member of PodGroup train but GenericWorkload feature is disabled"
    refute_line --partial '"generateName": "loader-own-"'
    refute_line --partial '"generateName": "train-gpus-"'
}

@test "s34-peers25: with GenericWorkload alone the member's own claim is still made" {
    run "$DRA_BIN/dra-claim" generate --feature-gates GenericWorkload=true -o json "$A/sched-cluster.yaml" "$G/group.yaml"
    assert_failure 2
    assert_line --partial '"generateName": "loader-own-"'
    refute_line --partial "GenericWorkload feature is disabled"
}
