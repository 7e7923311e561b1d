#!/usr/bin/env bats
# One claim through its life: generate -> allocate -> reserve -> pod finishes
# -> release (deallocate, remove finalizer) -> delete, checking the objects at
# each step.  The allocation step uses a hand-written fixture
# (trainer-scheduled.yaml) standing in for `dra-alloc schedule`.
load helpers

setup() {
    C="$DATA/claim"
    W="$BATS_TEST_TMPDIR"
}

@test "lifecycle: generate, allocate, reserve, finish, release, delete" {
    # 1. generate: the claim the controller would create, and the pod status
    run "$DRA_BIN/dra-claim" generate -o json "$C/cluster.yaml"
    assert_success
    jq '.items[0]' <<<"$output" > "$W/1-claim.json"
    assert_equal "$(jq -r .metadata.name "$W/1-claim.json")" "trainer-gpu-hn7g7"
    assert_equal "$(jq -r '.status // "none"' "$W/1-claim.json")" "none"
    assert_equal "$(jq -r '.items[1].status.resourceClaimStatuses[0].resourceClaimName' <<<"$output")" "trainer-gpu-hn7g7"

    # 2. allocate (fixture): same name, the allocation and the finalizer
    run yq -r 'select(.kind == "ResourceClaim") | .metadata.name, .metadata.finalizers[0], .status.allocation.devices.results[0].device' "$C/trainer-scheduled.yaml"
    assert_output "$(printf 'trainer-gpu-hn7g7\nresource.kubernetes.io/delete-protection\ngpu-1')"
    run "$DRA_BIN/dra-claim" status "$C/trainer-scheduled.yaml"
    assert_line --regexp '^ml +trainer-gpu-hn7g7 +allocated +gpu.example.com/node-a/gpu-1 +node-a +-$'

    # 3. reserve for the bound pod
    run "$DRA_BIN/dra-claim" reserve --pod ml/trainer -o yaml "$C/trainer-scheduled.yaml"
    assert_success
    printf '%s\n' "$output" > "$W/3-claim.yaml"
    run "$DRA_BIN/dra-claim" status "$W/3-claim.yaml"
    assert_line --regexp '^ml +trainer-gpu-hn7g7 +reserved +gpu.example.com/node-a/gpu-1 +node-a +trainer$'
    # reserving again changes nothing
    yq 'select(.kind == "Pod")' "$C/trainer-scheduled.yaml" > "$W/3-pod.yaml"
    run "$DRA_BIN/dra-claim" reserve --pod ml/trainer --patch "$W/3-claim.yaml" "$W/3-pod.yaml"
    assert_success
    assert_output ""
    # while the pod runs, release keeps everything
    run "$DRA_BIN/dra-claim" release --patch "$W/3-claim.yaml" "$W/3-pod.yaml"
    assert_success
    assert_output ""

    # 4. the pod finishes; 5. release: drop the reservation and deallocate in one
    # status update, then remove the finalizer, then delete the generated claim
    run "$DRA_BIN/dra-claim" release --patch "$W/3-claim.yaml" "$C/trainer-succeeded.yaml"
    assert_success
    assert_equal "${#lines[@]}" 3
    assert_equal "$(jq -c '[.verb, .subresource, [.body[].op], [.body[].path]]' <<<"${lines[0]}")" \
        '["patch","status",["test","test","test","remove","remove"],["/metadata/uid","/metadata/resourceVersion","/status/reservedFor/0/uid","/status/reservedFor/0","/status/allocation"]]'
    assert_equal "$(jq -c '[.verb, .subresource, .body]' <<<"${lines[1]}")" \
        '["patch",null,[{"op":"test","path":"/metadata/uid","value":"9b2e6f10-0000-4000-8000-00000000c001"},{"op":"test","path":"/metadata/finalizers/0","value":"resource.kubernetes.io/delete-protection"},{"op":"remove","path":"/metadata/finalizers/0"}]]'
    assert_equal "$(jq -c '[.verb, .name, .body.preconditions.uid]' <<<"${lines[2]}")" \
        '["delete","trainer-gpu-hn7g7","9b2e6f10-0000-4000-8000-00000000c001"]'

    # 6. the same as kubectl commands, in the same order
    run "$DRA_BIN/dra-claim" release --patch=kubectl "$W/3-claim.yaml" "$C/trainer-succeeded.yaml"
    assert_success
    assert_line --index 0 "set -e"
    assert_line --index 2 --partial "kubectl patch resourceclaim trainer-gpu-hn7g7 -n ml --subresource=status --type=json -p '"
    assert_line --index 4 --partial "kubectl patch resourceclaim trainer-gpu-hn7g7 -n ml --type=json -p '"
    assert_line --index 6 --partial "kubectl delete --raw /apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/trainer-gpu-hn7g7 -f -"

    # 7. as objects: the claim's last state, being deleted (and named on stderr)
    run --separate-stderr "$DRA_BIN/dra-claim" release --now 2026-03-01T12:00:00Z -o json "$W/3-claim.yaml" "$C/trainer-succeeded.yaml"
    assert_success
    assert_equal "$(jq -c '[.metadata.name, .metadata.deletionTimestamp, .metadata.finalizers, .status]' <<<"$output")" \
        '["trainer-gpu-hn7g7","2026-03-01T12:00:00Z",null,{}]'
    assert_equal "$stderr" "dra-claim: deleted ResourceClaim/ml/trainer-gpu-hn7g7"
}

@test "lifecycle: a shared claim is deallocated but not deleted when its last user goes" {
    yq 'select(.kind == "ResourceClaim") | del(.metadata.ownerReferences) | .metadata.name = "shared" | .status.reservedFor = [{"resource":"pods","name":"trainer","uid":"3f0a9c1e-0000-4000-8000-00000000a001"}]' \
        "$C/trainer-scheduled.yaml" > "$W/shared.yaml"
    run "$DRA_BIN/dra-claim" release -o json "$W/shared.yaml" "$C/trainer-succeeded.yaml"
    assert_success
    assert_equal "$(jq -c '[.metadata.name, .metadata.finalizers, .status]' <<<"$output")" '["shared",null,{}]'
}

@test "lifecycle: a deleted claim held by the finalizer is deallocated, then released" {
    yq 'select(.kind == "ResourceClaim") | .metadata.deletionTimestamp = "2026-03-01T12:00:00Z"' "$C/trainer-scheduled.yaml" > "$W/del.yaml"
    run "$DRA_BIN/dra-claim" release --patch "$W/del.yaml" "$C/trainer-succeeded.yaml"
    assert_success
    assert_equal "${#lines[@]}" 2
    assert_equal "$(jq -c '[.subresource, .body[-1]]' <<<"${lines[0]}")" '["status",{"op":"remove","path":"/status/allocation"}]'
    assert_equal "$(jq -c '.body[-1]' <<<"${lines[1]}")" '{"op":"remove","path":"/metadata/finalizers/0"}'
}
