#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# What the API server serves: a PodGroup only with GenericWorkload on.
load helpers

@test "dra-slice validate: a PodGroup with GenericWorkload off is a kind the API server does not serve (a warning)" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$DATA/podgroup/group.yaml"
    assert_success
    [[ $stderr == *'group.yaml:7: PodGroup/default/train: kind: no matches for kind "PodGroup" in version "scheduling.k8s.io/v1beta1": the API server serves PodGroups only with the GenericWorkload feature gate on, and it is off'* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --feature-gates GenericWorkload=true "$DATA/podgroup/group.yaml"
    assert_success
    assert_equal "$stderr" ""
}
