#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# dra-claim: generate, reserve, release, doctor, status on realistic dumps, and bad inputs.
load helpers

setup() {
    C="$DATA/claim"
}

@test "generate: a claim from the template with upstream's metadata, and the pod status" {
    run "$DRA_BIN/dra-claim" generate -o json "$C/cluster.yaml"
    assert_success
    claim=$(jq -c '.items[0]' <<<"$output")
    assert_equal "$(jq -r .metadata.generateName <<<"$claim")" "trainer-gpu-"
    assert_equal "$(jq -r .metadata.name <<<"$claim")" "trainer-gpu-hn7g7"
    assert_equal "$(jq -r '.metadata.annotations["resource.kubernetes.io/pod-claim-name"]' <<<"$claim")" "gpu"
    assert_equal "$(jq -r '.metadata.annotations["example.com/cost-center"]' <<<"$claim")" "42"
    assert_equal "$(jq -r .metadata.labels.team <<<"$claim")" "vision"
    assert_equal "$(jq -c .metadata.ownerReferences <<<"$claim")" \
        '[{"apiVersion":"v1","kind":"Pod","name":"trainer","uid":"3f0a9c1e-0000-4000-8000-00000000a001","controller":true}]'
    assert_equal "$(jq -c .spec.devices.requests[0].exactly.deviceClassName <<<"$claim")" '"gpu.example.com"'
    pod=$(jq -c '.items[1]' <<<"$output")
    assert_equal "$(jq -c .status.resourceClaimStatuses <<<"$pod")" '[{"name":"gpu","resourceClaimName":"trainer-gpu-hn7g7"}]'
    # the notebook pod already has its claim: nothing for it
    assert_equal "$(jq '.items | length' <<<"$output")" 2
}

@test "generate: a whole dump of 10,000 pods in one pass, orphans and name clashes found by lookup" {
    # Every pod gets a claim and a status, except one whose orphan claim is
    # reused; a pod whose claim name is taken by an unrelated claim fails
    # alone.  Lookups are indexed: this takes well under a second.
    {
        echo '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ml"},"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu.example.com"}}]}}}}'
        awk 'BEGIN{for (i = 0; i < 10000; i++) printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%d\",\"namespace\":\"ml\",\"uid\":\"u%d\"},\"spec\":{\"containers\":[{\"name\":\"c\"}],\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimTemplateName\":\"t\"}]}}\n", i, i}'
        echo '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"orphan","namespace":"ml","annotations":{"resource.kubernetes.io/pod-claim-name":"gpu"},"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p5000","uid":"u5000","controller":true}]},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu.example.com"}}]}}}'
        echo '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"p7000-gpu","namespace":"ml"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu.example.com"}}]}}}'
    } >"$BATS_TEST_TMPDIR/dump.jsonl"
    run "$DRA_BIN/dra-claim" generate --name-suffix none -o jsonl "$BATS_TEST_TMPDIR/dump.jsonl"
    assert_failure 2
    assert_output --partial 'pod ml/p7000, PodResourceClaim gpu: create ResourceClaim : resourceclaims.resource.k8s.io "p7000-gpu" already exists'
    claims=$(grep -c '^{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim"' <<<"$output")
    pods=$(grep -c '^{"apiVersion":"v1","kind":"Pod"' <<<"$output")
    assert_equal "$claims" 9998
    assert_equal "$pods" 9999
    assert_equal "$(grep '^{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p5000"' <<<"$output" | jq -c .status.resourceClaimStatuses)" '[{"name":"gpu","resourceClaimName":"orphan"}]'
}

@test "generate: --name-suffix none and random" {
    run "$DRA_BIN/dra-claim" generate --name-suffix none -o jsonl "$C/cluster.yaml"
    assert_success
    assert_equal "$(head -1 <<<"$output" | jq -r .metadata.name)" "trainer-gpu"
    run "$DRA_BIN/dra-claim" generate --name-suffix random --patch=kubectl "$C/cluster.yaml"
    assert_success
    assert_line --index 2 --partial "DRA_NAME_0=\$(printf"
    assert_line --index 2 --partial "kubectl create -o jsonpath='{.metadata.name}' -f -"
    assert_line --index 4 --partial '"resourceClaimName":"'"'"'"$DRA_NAME_0"'"'"'"'
    assert_line --index 4 --partial "kubectl apply --server-side --force-conflicts --field-manager=ResourceClaimController --subresource=status -f -"
    run "$DRA_BIN/dra-claim" generate --name-suffix bogus "$C/cluster.yaml"
    assert_failure 2
}

@test "generate: long names are cut proportionally to 57 characters" {
    pod=$(printf 'p%.0s' {1..60})
    sed -e "s/name: trainer$/name: $pod/" "$C/cluster.yaml" > "$BATS_TEST_TMPDIR/long.yaml"
    run "$DRA_BIN/dra-claim" generate --name-suffix random -o jsonl "$BATS_TEST_TMPDIR/long.yaml"
    assert_success
    gn=$(head -1 <<<"$output" | jq -r .metadata.generateName)
    # 60+3+2 = 65 > 57: pod 60*57/65 = 52, claim 3*57/65 = 2
    assert_equal "$gn" "$(printf 'p%.0s' {1..52})-gp"
}

@test "generate: a claim owned by another pod is replaced by a new one" {
    run "$DRA_BIN/dra-claim" generate -o jsonl "$C/other-owner.yaml" "$C/template.yaml"
    assert_success
    assert_equal "$(head -1 <<<"$output" | jq -r .metadata.ownerReferences[0].uid)" "3f0a9c1e-0000-4000-8000-00000000b999"
    assert_equal "$(sed -n 2p <<<"$output" | jq -r .status.resourceClaimStatuses[0].resourceClaimName)" \
        "$(head -1 <<<"$output" | jq -r .metadata.name)"
}

@test "generate: a missing template is reported like upstream" {
    run "$DRA_BIN/dra-claim" generate "$C/other-owner.yaml"
    assert_failure 2
    assert_output --partial 'pod ml/trainer, PodResourceClaim gpu: resource claim template "single-gpu": resourceclaimtemplate.resource.k8s.io "single-gpu" not found'
}

@test "reserve: appends the pod with resourceVersion and UID preconditions" {
    run "$DRA_BIN/dra-claim" reserve --pod ml/trainer --patch "$C/trainer-scheduled.yaml"
    assert_success
    assert_equal "$(jq -c .body <<<"$output")" \
        '[{"op":"test","path":"/metadata/uid","value":"9b2e6f10-0000-4000-8000-00000000c001"},{"op":"test","path":"/metadata/resourceVersion","value":"2011"},{"op":"add","path":"/status/reservedFor","value":[{"resource":"pods","name":"trainer","uid":"3f0a9c1e-0000-4000-8000-00000000a001"}]}]'
    assert_equal "$(jq -r .subresource <<<"$output")" status
}

@test "reserve: already reserved is a no-op" {
    run "$DRA_BIN/dra-claim" reserve --pod ml/notebook --patch "$C/cluster.yaml"
    assert_success
    assert_output ""
}

@test "reserve: refusals" {
    run "$DRA_BIN/dra-claim" reserve --pod ml/trainer "$C/other-owner.yaml"
    assert_failure 1
    assert_output --partial "ResourceClaim ml/trainer-gpu-hn7g7 was not created for pod ml/trainer (pod is not owner)"
    run "$DRA_BIN/dra-claim" reserve --pod ml/trainer "$C/cluster.yaml"
    assert_failure 1
    assert_output --partial 'pod "ml/trainer": ResourceClaim not created yet'
    yq 'select(.kind == "ResourceClaim") | del(.status.allocation)' "$C/trainer-scheduled.yaml" > "$BATS_TEST_TMPDIR/c.yaml"
    yq 'select(.kind == "Pod")' "$C/trainer-scheduled.yaml" > "$BATS_TEST_TMPDIR/p.yaml"
    run "$DRA_BIN/dra-claim" reserve --pod ml/trainer "$BATS_TEST_TMPDIR/c.yaml" "$BATS_TEST_TMPDIR/p.yaml"
    assert_failure 1
    assert_output --partial 'ResourceClaim.resource.k8s.io "trainer-gpu-hn7g7" is invalid: status.reservedFor: Forbidden: may not be specified when `allocated` is not set'
    yq 'select(.kind == "ResourceClaim") | .metadata.deletionTimestamp = "2026-03-01T00:00:00Z"' "$C/trainer-scheduled.yaml" > "$BATS_TEST_TMPDIR/c.yaml"
    run "$DRA_BIN/dra-claim" reserve --pod ml/trainer "$BATS_TEST_TMPDIR/c.yaml" "$BATS_TEST_TMPDIR/p.yaml"
    assert_failure 1
    assert_output --partial 'new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set'
    yq 'select(.kind == "ResourceClaim") | .status.reservedFor = [range(256) | {"resource":"pods","name":("p"+tostring),"uid":("u"+tostring)}]' \
        "$C/trainer-scheduled.yaml" > "$BATS_TEST_TMPDIR/c.yaml"
    run "$DRA_BIN/dra-claim" reserve --pod ml/trainer "$BATS_TEST_TMPDIR/c.yaml" "$BATS_TEST_TMPDIR/p.yaml"
    assert_failure 1
    assert_output --partial 'status.reservedFor: Too many: 257: must have at most 256 items'
    run "$DRA_BIN/dra-claim" reserve --pod trainer "$C/cluster.yaml"
    assert_failure 2
    run "$DRA_BIN/dra-claim" reserve --pod ml/nobody "$C/cluster.yaml"
    assert_failure 2
}

@test "release: refuses a dump without pods" {
    yq 'select(.kind == "ResourceClaim")' "$C/trainer-scheduled.yaml" | yq '.status.reservedFor = [{"resource":"pods","name":"x","uid":"y"}]' > "$BATS_TEST_TMPDIR/c.yaml"
    run "$DRA_BIN/dra-claim" release "$BATS_TEST_TMPDIR/c.yaml"
    assert_failure 2
    assert_output --partial "the input has no Pods"
}

@test "release: nothing to do on a healthy dump" {
    run "$DRA_BIN/dra-claim" release --patch "$C/cluster.yaml"
    assert_success
    assert_output ""
}

@test "doctor: healthy dump exits 0, problems exit 1 with fixes" {
    # bound to a node with its claim allocated but not reserved: the kubelet will not start it
    run "$DRA_BIN/dra-claim" doctor "$C/trainer-scheduled.yaml"
    assert_failure 1
    assert_output "Pod/ml/trainer: is bound to node node-a but its ResourceClaim trainer-gpu-hn7g7 is not reserved for it: the kubelet will not start it; fix: dra-claim reserve --pod ml/trainer --patch=kubectl $C/trainer-scheduled.yaml | sh"
    # reserved: healthy
    sed -n '1,/^---$/p' "$C/trainer-scheduled.yaml" >"$BATS_TEST_TMPDIR/healthy.yaml"
    "$DRA_BIN/dra-claim" reserve --pod ml/trainer "$C/trainer-scheduled.yaml" >>"$BATS_TEST_TMPDIR/healthy.yaml"
    run "$DRA_BIN/dra-claim" doctor "$BATS_TEST_TMPDIR/healthy.yaml"
    assert_success
    assert_output ""
    run "$DRA_BIN/dra-claim" doctor "$C/other-owner.yaml"
    assert_failure 1
    assert_output --partial "Pod/ml/trainer: pod claim gpu: ResourceClaim ml/trainer-gpu-hn7g7 was not created for pod ml/trainer (pod is not owner) (owner: Pod trainer); fix: dra-claim generate --patch=kubectl $C/other-owner.yaml | sh"
    assert_output --partial "ResourceClaim/ml/trainer-gpu-hn7g7: is owned by pod trainer (uid 3f0a9c1e-0000-4000-8000-00000000a001) which was replaced (uid now 3f0a9c1e-0000-4000-8000-00000000b999); fix: printf '%s\\n' '{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":{\"uid\":\"9b2e6f10-0000-4000-8000-00000000c001\"}}' | kubectl delete --raw /apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/trainer-gpu-hn7g7 -f -"
}

@test "doctor: stale reservations, stuck finalizers, vanished devices and nodes, taints, orphans" {
    run "$DRA_BIN/dra-claim" doctor --now 2026-03-01T12:00:00Z "$C/doctor.yaml"
    assert_failure 1
    assert_line --partial "ResourceClaim/ml/stale: reservedFor names pod ghost (uid u-ghost) which does not exist; fix: kubectl patch resourceclaim stale -n ml --subresource=status --type=json -p '[{\"op\":\"test\",\"path\":\"/metadata/uid\",\"value\":\"u-stale\"},{\"op\":\"test\",\"path\":\"/status/reservedFor/0/uid\",\"value\":\"u-ghost\"},{\"op\":\"remove\",\"path\":\"/status/reservedFor/0\"}]'"
    # the second entry's fix tests where the entry is once the first fix is in: index 0
    assert_line --partial "ResourceClaim/ml/stale: reservedFor names pod done which is done (Failed); fix: kubectl patch resourceclaim stale -n ml --subresource=status --type=json -p '[{\"op\":\"test\",\"path\":\"/metadata/uid\",\"value\":\"u-stale\"},{\"op\":\"test\",\"path\":\"/status/reservedFor/0/uid\",\"value\":\"u-done\"},{\"op\":\"remove\",\"path\":\"/status/reservedFor/0\"}]'"
    assert_line --partial "ResourceClaim/ml/stuck: is being deleted since 2026-03-01T09:00:00Z but the finalizer resource.kubernetes.io/delete-protection holds it without users; fix: kubectl patch resourceclaim stuck -n ml --subresource=status"
    assert_line --partial "ResourceClaim/ml/vanished: is allocated device gpu.example.com/node-z/gpu-0 from pool gpu.example.com/node-z which has no ResourceSlices"
    assert_line "ResourceClaim/ml/vanished: is allocated on node node-z which does not exist; fix: # the fix above does it"
    assert_line --partial "ResourceClaim/ml/hot: device gpu.example.com/node-a/gpu-0 has NoExecute taint example.com/overheat:NoExecute (ResourceSlice node-a-slice gpu.example.com/node-a/gpu-0 taint #0); fix: dra-evict $C/doctor.yaml"
    assert_line --partial "ResourceClaim/ml/orphan: was generated for pod claim gpu but has no owning pod; fix: printf '%s\\n' '{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":{\"uid\":\"u-orphan\"}}' | kubectl delete --raw /apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/orphan -f -"
    assert_line --partial "Pod/ml/lost: pod claim data references ResourceClaim missing which does not exist"
}

@test "status: table and objects" {
    run "$DRA_BIN/dra-claim" status "$C/cluster.yaml"
    assert_success
    assert_line --regexp '^ml +notebook-gpu-x7k2p +reserved +gpu.example.com/node-a/gpu-0 +node-a +notebook$'
    run "$DRA_BIN/dra-claim" status "$C/trainer-scheduled.yaml"
    assert_success
    assert_line --index 0 --regexp '^NAMESPACE +NAME +STATE +DEVICES +NODE +USERS$'
    assert_line --regexp '^ml +trainer-gpu-hn7g7 +allocated +gpu.example.com/node-a/gpu-1 +node-a +-$'
    run "$DRA_BIN/dra-claim" status -o jsonl "$C/cluster.yaml"
    assert_success
    assert_equal "$(jq -c '[.kind,.state,.node,.users[0].name]' <<<"$output")" '["ClaimStatus","reserved","node-a","notebook"]'
}

@test "bad inputs: malformed reservedFor, malformed files, unknown options" {
    run "$DRA_BIN/dra-claim" status "$C/bad-reservedfor.yaml"
    assert_failure 2
    assert_output --partial 'ResourceClaim/ml/broken: status.reservedFor[0].uid: Required value'
    assert_output --partial 'status.reservedFor[1]: Invalid value: "just a string": must be of type object'
    run "$DRA_BIN/dra-claim" status "$C/malformed.yaml"
    assert_failure 2
    assert_output --partial "malformed.yaml:4"
    run "$DRA_BIN/dra-claim" generate --bogus "$C/cluster.yaml"
    assert_failure 2
    run "$DRA_BIN/dra-claim" status /nonexistent.yaml
    assert_failure 2
}

@test "status -o wide: what the drivers reported about each device (status.devices), matched by device and share" {
    cat >"$BATS_TEST_TMPDIR/net.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: nic, namespace: ml, uid: 3d7a0c1e-0000-4000-8000-0000000000c1}
spec:
  devices:
    requests:
    - {name: nic, exactly: {deviceClassName: nic.example.com, count: 2}}
status:
  allocation:
    devices:
      results:
      - {request: nic, driver: nic.example.com, pool: node-a, device: eth1}
      - {request: nic, driver: nic.example.com, pool: node-a, device: eth2}
  devices:
  - driver: nic.example.com
    pool: node-a
    device: eth1
    conditions:
    - {type: Ready, status: "True", reason: LinkUp, message: "", lastTransitionTime: "2026-03-01T10:00:00Z"}
    data: {mtu: 9000}
    networkData:
      interfaceName: net1
      ips: [10.9.8.7/24, "2001:db8::7/64"]
      hardwareAddress: "02:42:ac:11:00:07"
EOF
    run --separate-stderr "$DRA_BIN/dra-claim" status -o wide "$BATS_TEST_TMPDIR/net.yaml"
    assert_success
    assert_line --index 0 --regexp 'DEVICE-STATUS$'
    assert_line --index 1 --regexp 'Ready=True net1 10\.9\.8\.7/24 2001:db8::7/64 02:42:ac:11:00:07, -$'
    # the plain table keeps its columns; the objects carry the whole report per device
    run --separate-stderr "$DRA_BIN/dra-claim" status "$BATS_TEST_TMPDIR/net.yaml"
    refute_line --index 0 --regexp 'DEVICE-STATUS'
    run --separate-stderr "$DRA_BIN/dra-claim" status -o json "$BATS_TEST_TMPDIR/net.yaml"
    assert_equal "$(jq -c '.devices | map(.status.networkData.interfaceName, .status.data.mtu)' <<<"$output")" '["net1",9000,null,null]'
    # a report for a device that is not allocated is refused, as the API server does
    sed 's/^    device: eth1$/    device: eth9/' "$BATS_TEST_TMPDIR/net.yaml" >"$BATS_TEST_TMPDIR/bad.yaml"
    run --separate-stderr "$DRA_BIN/dra-claim" status "$BATS_TEST_TMPDIR/bad.yaml"
    assert_failure 2
    [[ $stderr == *"ResourceClaim/ml/nic: status.devices[0]"* ]]
}
