#!/usr/bin/env bats
# Pods naming a PodGroup (spec.schedulingGroup) while GenericWorkload is off:
# the pod as stored keeps the field (the API server drops it only from a new
# pod: k8s.io/kubernetes v1.37.2 pkg/api/pod/util.go
# dropDisabledSchedulingGroup), and each tool answers as its component does.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    A="$DATA/alloc"
    P="$DATA/podgroup"
    T="$BATS_TEST_TMPDIR"
    NOW="--now 2026-02-01T00:00:00Z"
}

# Upstream: pkg/controller/resourceclaim/controller.go getPodGroup, syncPod
@test "generate, gate off: a pod naming a PodGroup is refused whole, even its own claim" {
    run --separate-stderr "$DRA_BIN/dra-claim" generate -o json "$A/sched-cluster.yaml" "$P/group.yaml"
    assert_failure 2
    [[ $stderr == *"group.yaml:40 (document 5): get PodGroup for Pod default/loader: Pod is a member of PodGroup train but GenericWorkload feature is disabled"* ]]
    [[ $(jq '[.items[]? | select(.kind == "ResourceClaim")] | length' <<<"$output") == 0 ]]
}

@test "generate, gate off: a bound pod naming a PodGroup gets no reservation" {
    cp "$P/bound-member.yaml" "$T/bound.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" generate --patch=json "$T/bound.yaml"
    assert_failure 2
    [[ $stderr == *"get PodGroup for Pod default/member: Pod is a member of PodGroup train but GenericWorkload feature is disabled" ]]
    assert_output ""
    # with the gate and its group the claim is reserved for the pod
    printf -- '---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: train, namespace: default, uid: uid-pg}\nspec:\n  schedulingPolicy: {basic: {}}\n' >>"$T/bound.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" generate --feature-gates GenericWorkload=true --patch=json "$T/bound.yaml"
    assert_success
    [[ $(jq -c 'select(.kind == "ResourceClaim") | .body[] | select(.path == "/status/reservedFor") | .value' <<<"$output") == '[{"resource":"pods","name":"member","uid":"uid-member"}]' ]]
}

# getPodGroup asks for the group with GenericWorkload alone
@test "generate, GenericWorkload on: a missing PodGroup refuses the pod without DRAWorkloadResourceClaims too" {
    yq 'select(.kind != "PodGroup")' "$P/group.yaml" >"$T/orphans.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" generate --feature-gates GenericWorkload=true -o json "$A/sched-cluster.yaml" "$T/orphans.yaml"
    assert_failure 2
    [[ $stderr == *'get PodGroup for Pod default/loader: podgroup.scheduling.k8s.io "train" not found'* ]]
    [[ $(jq '[.items[]? | select(.kind == "ResourceClaim")] | length' <<<"$output") == 0 ]]
}

# podNeedsWork: a pod whose claims are all there is not synced at all
@test "generate: a pod that needs no work is not refused for its missing PodGroup" {
    yq -y 'if .kind == "ResourceClaim" then .status.reservedFor = [{resource: "pods", name: "member", uid: "uid-member"}] else . end' \
        "$P/bound-member.yaml" >"$T/done.yaml"
    run "$DRA_BIN/dra-claim" generate --feature-gates GenericWorkload=true,DRAWorkloadResourceClaims=true "$T/done.yaml"
    assert_success
    assert_output ""
    run "$DRA_BIN/dra-claim" generate "$T/done.yaml"
    assert_success
    assert_output ""
}

# kube-scheduler queues such a pod on its own, silently: the tools say so
@test "schedule, gate off: a pod naming a PodGroup is said to queue on its own" {
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --explain=json "$A/sched-cluster.yaml" "$P/group.yaml"
    assert_failure 1
    [[ $stderr == *"group.yaml:44 (document 5): Pod/default/loader: spec.schedulingGroup.podGroupName: a member of PodGroup train but the GenericWorkload feature is disabled: queued as a pod of its own"* ]]
    [[ $(grep '^{' <<<"$stderr" | jq -rs 'map(select(.pod == "default/loader"))[0].queue.why') == *"; PodGroup train not an entry: GenericWorkload is disabled" ]]
    # with the gate nothing is said
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW --feature-gates GenericWorkload=true "$A/sched-cluster.yaml" "$P/group.yaml"
    [[ $stderr != *"queued as a pod of its own"* ]]
}

# dropDisabledSchedulingGroup: the API server drops it from a new pod
@test "validate, gate off: a pod's schedulingGroup is said to be dropped" {
    run --separate-stderr "$DRA_BIN/dra-slice" validate "$P/group.yaml"
    assert_success
    [[ $stderr == *"group.yaml:44 (document 5): Pod/default/loader: spec.schedulingGroup: field dropped: the GenericWorkload feature gate is disabled (the API server drops it from a new pod, not from a stored one): the pod is not a member of PodGroup train"* ]]
    # storage_scheduling.go: no podgroups storage without the gate
    [[ $stderr == *'group.yaml:7: PodGroup/default/train: kind: no matches for kind "PodGroup" in version "scheduling.k8s.io/v1beta1": the API server serves PodGroups only with the GenericWorkload feature gate on, and it is off'* ]]
    run --separate-stderr "$DRA_BIN/dra-slice" validate --feature-gates GenericWorkload=true "$P/group.yaml"
    assert_success
    [[ -z $stderr ]]
}

# handleClaim: BindTo's PodGroup claim is refused with DRAWorkloadResourceClaims
# off only where a claim would be made from a template, in upstream's words
@test "generate, DRAWorkloadResourceClaims off: only a group claim from a template is refused, in upstream's words" {
    run --separate-stderr "$DRA_BIN/dra-claim" generate --feature-gates GenericWorkload=true "$A/sched-cluster.yaml" "$P/group.yaml"
    assert_failure 2
    [[ $stderr == *"group.yaml:24 (document 3): pod default/worker-0, PodResourceClaim gpus: claim gpus is a PodGroup claim but the DRAWorkloadResourceClaims feature is disabled"* ]]
    # the same claim shared by name: nothing to make, nothing refused
    yq -y '(.spec.resourceClaims[]? | select(.name == "gpus")) |= {name: "gpus", resourceClaimName: "shared"}' \
        "$P/group.yaml" >"$T/named.yaml"
    run "$DRA_BIN/dra-claim" generate --feature-gates GenericWorkload=true "$A/sched-cluster.yaml" "$T/named.yaml"
    assert_success
    refute_output --partial "DRAWorkloadResourceClaims"
}
