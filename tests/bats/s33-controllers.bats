#!/usr/bin/env bats
# dra-claim and dra-evict where the controllers suite
# (tests/upstream/controllers/) found them to disagree with
# kube-controller-manager's resourceclaim and device-taint-eviction
# controllers of Kubernetes 1.37.2; and the suite itself when its peer is built.
bats_require_minimum_version 1.5.0
load helpers

setup() {
    C="$DATA/claim"
    E="$DATA/evict"
    W="$BATS_TEST_TMPDIR"
}

@test "controllers: generate reserves an allocated claim for its bound pod, as syncPod" {
    run --separate-stderr "$DRA_BIN/dra-claim" generate --patch=json "$C/trainer-scheduled.yaml" "$C/template.yaml"
    assert_success
    assert_equal "$(wc -l <<<"$output")" 1
    assert_equal "$(jq -r '[.verb, .kind, .name, .subresource] | join(" ")' <<<"$output")" "patch ResourceClaim trainer-gpu-hn7g7 status"
    assert_equal "$(jq -c '[.body[] | select(.op == "add")]' <<<"$output")" \
        '[{"op":"add","path":"/status/reservedFor","value":[{"resource":"pods","name":"trainer","uid":"3f0a9c1e-0000-4000-8000-00000000a001"}]}]'
}

@test "controllers: generate leaves a pending pod's allocated claim unreserved (the scheduler's)" {
    yq 'select(.kind == "Pod").spec.nodeName = ""' "$C/trainer-scheduled.yaml" >"$W/pending.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" generate --patch=json "$W/pending.yaml" "$C/template.yaml"
    assert_success
    assert_output ""
}

@test "controllers: generate leaves a finished pod's claim unreserved" {
    yq 'select(.kind == "Pod").status.phase = "Succeeded"' "$C/trainer-scheduled.yaml" >"$W/done.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" generate --patch=json "$W/done.yaml" "$C/template.yaml"
    assert_success
    assert_output ""
}

@test "controllers: generate does not reserve a claim another pod controls" {
    yq 'select(.kind == "ResourceClaim").metadata.ownerReferences[0].uid = "other"' "$C/trainer-scheduled.yaml" >"$W/other.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" generate --patch=json "$W/other.yaml" "$C/template.yaml"
    refute_output --partial '/status/reservedFor'
}

@test "controllers: evict counts a pod's extended-resource claim as one of its claims, as PodClaims" {
    local in=("$E/slices.yaml" "$E/claims-pods.json" "$E/rules.yaml")
    # 1.37's: from 1.38 pod d's toleration without effect tolerates the taint
    export DRA_KUBERNETES_VERSION=1.37
    # x's only claim is its extended-resource claim (status.extendedResourceClaimStatus)
    run --separate-stderr "$DRA_BIN/dra-evict" --apply-at 2026-03-01T10:06:00Z --patch "${in[@]}"
    assert_success
    assert_equal "$(jq -r 'select(.verb == "delete") | .name' <<<"$output" | sort | tr '\n' ' ')" "a b d x "
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-03-01T10:03:00Z --rule-status "${in[@]}"
    assert_success
    assert_line --regexp '^maintenance-node-b +NoExecute +True +PodsPendingEviction +2 pods need to be evicted in 1 namespace\.$'
    assert_line --partial '6 pods would be evicted in 1 namespace if the effect was NoExecute.'
    run --separate-stderr "$DRA_BIN/dra-evict" --now 2026-03-01T10:03:00Z -o jsonl "${in[@]}"
    assert_equal "$(jq -r 'select(.pod.name == "x") | [.evictAt, .note // "-"] | @tsv' <<<"$output")" "$(printf '2026-03-01T10:05:00Z\t-')"
}

@test "controllers: generate leaves a pod alone whose status names a claim another live pod controls, as podNeedsWork" {
    yq 'select(.kind == "Pod").metadata.name = "thief" | select(.kind == "Pod").metadata.uid = "u-thief"' \
        "$C/trainer-scheduled.yaml" >"$W/thief.yaml"
    yq 'select(.kind == "Pod")' "$C/trainer-scheduled.yaml" >>"$W/thief.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" generate --patch=json "$W/thief.yaml" "$C/template.yaml"
    assert_success
    # trainer's claim is trainer's: no new claim for thief, and trainer's gets reserved
    refute_output --partial '"verb":"create"'
    assert_equal "$(jq -r '.name' <<<"$output")" "trainer-gpu-hn7g7"
}

@test "controllers: generate replaces the claim of a replaced pod that release deletes" {
    run --separate-stderr "$DRA_BIN/dra-claim" generate --patch=json "$C/other-owner.yaml" "$C/template.yaml"
    assert_success
    assert_equal "$(jq -r 'select(.verb == "create") | .body.metadata.ownerReferences[0].uid' <<<"$output")" "3f0a9c1e-0000-4000-8000-00000000b999"
}

@test "controllers: the differential suite passes whole against upstream's controllers" {
    local peer=${UPSTREAM_BIN:-$BATS_TEST_DIRNAME/../../build/upstream/bin}/upstream-controllers
    [[ -x $peer ]] || skip "no $peer (make upstream-controllers)"
    run --separate-stderr env DRA_BIN="$DRA_BIN" UPSTREAM_BIN="$(dirname "$peer")" \
        "$BATS_TEST_DIRNAME/../upstream/controllers/run.sh" claim-cluster claim-lifecycle evict-rules evict-tolerations-mid claim-terminal-reserved
    assert_success
    assert_line "4 passed, 0 failed, 1 skipped"
}
