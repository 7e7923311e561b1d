#!/usr/bin/env bats
# Workload (PodGroup) claims, gate DRAWorkloadResourceClaims (beta in 1.37,
# off by default): the claim controller makes a PodGroup's claims from its
# templates and records them on the group and its member pods; the scheduler
# allocates the group's claim once and reserves it for the PodGroup.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    A="$DATA/alloc"
    G="$DATA/podgroup"
    T="$BATS_TEST_TMPDIR"
    NOW="--now 2026-02-01T00:00:00Z"
    ON="--feature-gates DRAWorkloadResourceClaims=true,GenericWorkload=true"
}

@test "podgroup: generate makes the group's claim once and records it on the group and its members" {
    run "$DRA_BIN/dra-claim" generate $ON -o json "$A/sched-cluster.yaml" "$G/group.yaml"
    assert_success
    printf '%s\n' "$output" > "$T/out.json"
    # the group's claim: generateName <group>-<claim>-, owned by the PodGroup, annotated with the group's claim name
    run jq -r '.items[] | select(.kind == "ResourceClaim" and .metadata.generateName == "train-gpus-")
               | [.metadata.name, .metadata.ownerReferences[0].apiVersion, .metadata.ownerReferences[0].kind,
                  .metadata.ownerReferences[0].uid, .metadata.ownerReferences[0].controller,
                  .metadata.annotations["resource.kubernetes.io/pod-claim-name"]] | @tsv' "$T/out.json"
    assert_output "$(printf 'train-gpus-rzk9l\tscheduling.k8s.io/v1beta1\tPodGroup\tuid-pg-train\ttrue\tgpus')"
    run jq -r '.items[] | select(.kind == "PodGroup") | .status.resourceClaimStatuses[] | "\(.name)=\(.resourceClaimName)"' "$T/out.json"
    assert_output "gpus=train-gpus-rzk9l"
    # both workers point at the group's claim; the loader's own claim is its own
    run jq -r '.items[] | select(.kind == "Pod") | "\(.metadata.name) \(.status.resourceClaimStatuses[0].resourceClaimName)"' "$T/out.json"
    assert_output "$(printf 'worker-0 train-gpus-rzk9l\nworker-1 train-gpus-rzk9l\nloader loader-own-k2zn9')"
    run jq '[.items[] | select(.kind == "ResourceClaim")] | length' "$T/out.json"
    assert_output 2
}

@test "podgroup: generate --patch applies the group's status with the controller's field manager" {
    run "$DRA_BIN/dra-claim" generate $ON --patch "$A/sched-cluster.yaml" "$G/group.yaml"
    assert_success
    run jq -rc 'select(.kind == "PodGroup") | [.verb, .apiVersion, .subresource, .fieldManager, .force,
               .body.status.resourceClaimStatuses]' <<<"$output"
    assert_output '["apply","scheduling.k8s.io/v1beta1","status","ResourceClaimController",true,[{"name":"gpus","resourceClaimName":"train-gpus-rzk9l"}]]'
    # running again on the result changes nothing
    "$DRA_BIN/dra-claim" generate $ON "$A/sched-cluster.yaml" "$G/group.yaml" > "$T/gen.yaml"
    yq 'select(.kind == "ResourceClaimTemplate" or .kind == "DeviceClass")' "$A/sched-cluster.yaml" > "$T/base.yaml"
    run "$DRA_BIN/dra-claim" generate $ON --patch "$T/base.yaml" "$T/gen.yaml"
    assert_success
    assert_output ""
}

@test "podgroup: schedule allocates the group's claim once, reserves it for the PodGroup, members share it" {
    run "$DRA_BIN/dra-alloc" schedule $NOW $ON -o json "$A/sched-cluster.yaml" "$G/group.yaml"
    assert_success
    printf '%s\n' "$output" > "$T/out.json"
    run jq -c '.items[] | select(.metadata.name == "train-gpus-rzk9l") | .status.reservedFor' "$T/out.json"
    assert_output '[{"apiGroup":"scheduling.k8s.io","resource":"podgroups","name":"train","uid":"uid-pg-train"}]'
    run jq -r '.items[] | select(.metadata.name == "train-gpus-rzk9l") | [.status.allocation.devices.results[].device] | join(",")' "$T/out.json"
    assert_output "gpu-0,gpu-1"
    run jq -r '.items[] | select(.kind == "Pod") | "\(.metadata.name) \(.spec.nodeName)"' "$T/out.json"
    assert_output "$(printf 'worker-0 node-a\nworker-1 node-a\nloader node-b')"
    # the group comes out with its status
    run jq -r '.items[] | select(.kind == "PodGroup") | .status.resourceClaimStatuses[0].resourceClaimName' "$T/out.json"
    assert_output "train-gpus-rzk9l"
    # dra-claim status names the PodGroup as the user
    jq '.items[]' "$T/out.json" > "$T/objs.json"
    run "$DRA_BIN/dra-claim" status "$T/objs.json"
    assert_success
    assert_line --regexp '^default +train-gpus-rzk9l +reserved +gpu.example.com/node-a/gpu-0 .* node-a +podgroups/train$'
    # and doctor finds nothing wrong with the members or the group's claim
    run "$DRA_BIN/dra-claim" doctor $ON "$T/objs.json"
    assert_success
    assert_output ""
}

# Upstream: k8s.io/kubernetes v1.37.2 pkg/controller/resourceclaim/controller.go
# getPodGroup, syncPod; pkg/api/pod/util.go dropDisabledSchedulingGroup.  A
# pod as stored keeps spec.schedulingGroup when GenericWorkload is turned off
# (the API server drops it only from a new pod); the controller then refuses
# the pod whole: none of its claims is made, not even one of its own.
@test "podgroup: gate off: the controller makes no claim for a pod naming a PodGroup" {
    run "$DRA_BIN/dra-claim" generate -o json "$A/sched-cluster.yaml" "$G/group.yaml"
    assert_failure 2
    for p in worker-0 worker-1 loader; do
        assert_line --partial "get PodGroup for Pod default/$p: Pod is a member of PodGroup train but GenericWorkload feature is disabled"
    done
    refute_line --partial '"generateName"'
    # the scheduler queues each on its own and finds no claim
    run "$DRA_BIN/dra-alloc" schedule $NOW "$A/sched-cluster.yaml" "$G/group.yaml"
    assert_failure 1
    assert_line --partial 'Pod/default/loader: spec.schedulingGroup.podGroupName: a member of PodGroup train but the GenericWorkload feature is disabled: queued as a pod of its own'
    assert_line --partial 'pod default/loader: 0/3 nodes are available: pod "default/loader": ResourceClaim not created yet.'
}

@test "podgroup: DRAWorkloadResourceClaims off: pods sharing a group claim are refused, others are unaffected" {
    run "$DRA_BIN/dra-claim" generate --feature-gates GenericWorkload=true -o json "$A/sched-cluster.yaml" "$G/group.yaml"
    assert_failure 2
    assert_line --partial "pod default/worker-0, PodResourceClaim gpus: claim gpus is a PodGroup claim but the DRAWorkloadResourceClaims feature is disabled"
    # the loader's claim is still made (partial output, the exit code says it failed)
    assert_line --partial '"generateName": "loader-own-"'
    refute_line --partial '"generateName": "train-gpus-"'
    run "$DRA_BIN/dra-alloc" schedule $NOW --feature-gates GenericWorkload=true "$A/sched-cluster.yaml" "$G/group.yaml"
    assert_failure 1
    assert_line --partial 'pod default/worker-0: 0/3 nodes are available: pod "default/worker-0": ResourceClaim not created yet.'
}

@test "podgroup: 1.36 without DRAWorkloadResourceClaims: a pod naming a PodGroup is a pod of its own" {
    # v1.36.3's getPodGroup looks the group up only with the gate: each
    # pod gets its own claim from the template, GenericWorkload on or off
    for gates in "" "--feature-gates GenericWorkload=true"; do
        run --separate-stderr "$DRA_BIN/dra-claim" generate --kubernetes-version 1.36 $gates -o json \
            "$A/sched-cluster.yaml" "$G/group.yaml"
        assert_success
        run jq -r '[.items[] | select(.kind == "ResourceClaim") | .metadata.ownerReferences[0].name] | sort | join(",")' <<<"$output"
        assert_output "loader,worker-0,worker-1"
    done
    # 1.37 refuses the members instead
    run "$DRA_BIN/dra-claim" generate --kubernetes-version 1.37 "$A/sched-cluster.yaml" "$G/group.yaml"
    assert_failure 2
    assert_line --partial "Pod is a member of PodGroup train but GenericWorkload feature is disabled"
}

@test "podgroup: gate off: claims made while it was on are used, each pod on its own" {
    yq 'select(.kind != "PodGroup")' "$G/group.yaml" > "$T/nogroup.yaml"
    yq 'select(.kind == "PodGroup") | del(.spec.resourceClaims)' "$G/group.yaml" >> "$T/nogroup.yaml"
    "$DRA_BIN/dra-claim" generate --feature-gates GenericWorkload=true -o json "$A/sched-cluster.yaml" "$T/nogroup.yaml" |
        jq '.items[]' > "$T/made.json"
    # nothing left for the controller to do: it says nothing
    run "$DRA_BIN/dra-claim" generate "$A/sched-cluster.yaml" "$T/made.json"
    assert_success
    assert_output ""
    run --separate-stderr "$DRA_BIN/dra-alloc" schedule $NOW -o json "$A/sched-cluster.yaml" "$T/made.json"
    assert_success
    run jq -r '[.items[] | select(.kind == "ResourceClaim") | .status.reservedFor[0].resource] | join(",")' <<<"$output"
    assert_output "pods,pods,pods"
}

@test "podgroup: a pod naming a missing PodGroup is refused with the gate on" {
    yq 'select(.kind != "PodGroup")' "$G/group.yaml" > "$T/orphans.yaml"
    run "$DRA_BIN/dra-claim" generate $ON "$A/sched-cluster.yaml" "$T/orphans.yaml"
    assert_failure 2
    assert_line --partial 'get PodGroup for Pod default/worker-0: podgroup.scheduling.k8s.io "train" not found'
    assert_line --partial 'get PodGroup for Pod default/loader: podgroup.scheduling.k8s.io "train" not found'
}

@test "podgroup: an invalid PodGroup is refused with upstream's wording" {
    cat > "$T/bad.yaml" <<'EOF'
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: g, namespace: default}
spec:
  schedulingPolicy: {}
  resourceClaims:
  - {name: a, resourceClaimName: c, resourceClaimTemplateName: t}
  - {name: a, resourceClaimName: c}
  - {name: Not_A_Label, resourceClaimTemplateName: t}
EOF
    # resourceClaims are dropped by the API server without DRAWorkloadResourceClaims
    run "$DRA_BIN/dra-slice" validate "$T/bad.yaml"
    assert_failure 2
    refute_output --partial 'spec.resourceClaims'
    run "$DRA_BIN/dra-slice" validate $ON "$T/bad.yaml"
    assert_failure 2
    assert_line --partial 'PodGroup/default/g: spec.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`'
    assert_line --partial 'spec.resourceClaims[0]: Invalid value: "{resourceClaimName, resourceClaimTemplateName}": must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`'
    assert_line --partial 'spec.resourceClaims[1]: Duplicate value: {"name":"a","resourceClaimName":"c"}'
    assert_line --partial 'spec.resourceClaims[2].name: Invalid value: "Not_A_Label": a lowercase RFC 1123 label'
    # an unknown field and an unserved version
    printf 'apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: default}\nspec: {schedulingPolicy: {basic: {}}, claims: []}\n' > "$T/field.yaml"
    run "$DRA_BIN/dra-slice" validate "$T/field.yaml"
    assert_failure 2
    assert_line --partial 'unknown field "spec.claims"'
    printf 'apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: g, namespace: default}\n' > "$T/old.yaml"
    # 1.36's v1alpha2 is no longer served (s39-gang36.bats: 1.36 serves it)
    run "$DRA_BIN/dra-slice" validate -v "$T/old.yaml"
    assert_failure 2
    assert_output --partial 'PodGroup/default/g: kind: no matches for kind "PodGroup" in version "scheduling.k8s.io/v1alpha2"'
}

@test "podgroup: release drops a reservation of a gone PodGroup only with the gate" {
    "$DRA_BIN/dra-alloc" schedule $NOW $ON "$A/sched-cluster.yaml" "$G/group.yaml" > "$T/sched.yaml"
    # the group got replaced (other UID): its reservation is stale
    yq 'select(.kind == "PodGroup") | .metadata.uid = "uid-new"' "$T/sched.yaml" > "$T/replaced.yaml"
    yq 'select(.kind == "ResourceClaim" or .kind == "Pod")' "$T/sched.yaml" >> "$T/replaced.yaml"
    run "$DRA_BIN/dra-claim" release $ON --patch "$T/replaced.yaml"
    assert_success
    assert_line --partial 'drop reservedFor: PodGroup train got replaced (other UID); no users left: deallocate'
    run "$DRA_BIN/dra-claim" release --patch "$T/replaced.yaml"
    assert_success
    assert_output ""
    # no PodGroups in the input at all: refused rather than guessed
    yq 'select(.kind != "PodGroup")' "$T/sched.yaml" > "$T/nogroups.yaml"
    run "$DRA_BIN/dra-claim" release $ON "$T/nogroups.yaml"
    assert_failure 2
    assert_line --partial 'the input has no PodGroups in namespace default'
}

@test "podgroup: dra-evict visits the members of a PodGroup whose claim is tainted, only with the gate" {
    "$DRA_BIN/dra-alloc" schedule $NOW $ON "$A/sched-cluster.yaml" "$G/group.yaml" > "$T/sched.yaml"
    cat > "$T/rule.yaml" <<'EOF2'
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: node-a-maintenance, uid: rule-uid-1, generation: 1}
spec:
  deviceSelector: {driver: gpu.example.com, pool: node-a}
  taint: {key: example.com/maintenance, effect: NoExecute, timeAdded: "2026-03-01T10:00:00Z"}
EOF2
    # a DeviceTaintRule: 1.37 (off by default in 1.36)
    run "$DRA_BIN/dra-evict" --kubernetes-version 1.37 $ON --now 2026-03-01T10:01:00Z "$A/sched-cluster.yaml" "$T/sched.yaml" "$T/rule.yaml"
    assert_success
    assert_line --regexp '^default +worker-0 +train-gpus-rzk9l +gpu.example.com/node-a/gpu-0 .*DeviceTaintRule node-a-maintenance$'
    assert_line --regexp '^default +worker-1 +train-gpus-rzk9l +gpu.example.com/node-a/gpu-0 '
    refute_line --partial 'loader'
    # without the gate the group's reservation is not the pods'
    run "$DRA_BIN/dra-evict" --now 2026-03-01T10:01:00Z "$A/sched-cluster.yaml" "$T/sched.yaml" "$T/rule.yaml"
    assert_success
    refute_line --partial 'worker-'
}
