#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Fixes as scripts and pipelines against the real kube-apiserver 1.37.2
# (tests/upstream/cluster.sh): dra-claim doctor's kubectl script run twice,
# its per-finding fixes run in order, and dra-watch run with plain
# dra-claim release.  The claim controller is not run: the tools do its work.
load helpers

setup_file() {
    [[ -x $UPSTREAM_BIN/upstream-cluster ]] || skip "no control plane peer (make upstream-cluster)"
    export CLUSTER_CONTROLLERS=serviceaccount-controller,namespace-controller
    cluster_start "$BATS_FILE_TMPDIR/c"
}

teardown_file() {
    [[ -x $UPSTREAM_BIN/upstream-cluster ]] || return 0
    export C=$BATS_FILE_TMPDIR/c
    cluster_stop
}

setup() {
    export C=$BATS_FILE_TMPDIR/c KUBECONFIG=$BATS_FILE_TMPDIR/c/kubeconfig KUBECACHEDIR=$BATS_FILE_TMPDIR/c/kubecache
    W=$BATS_TEST_TMPDIR
    NS=t$BATS_TEST_NUMBER
    # the scripts call kubectl: the one built with the control plane
    export PATH="$UPSTREAM_BIN:$PATH"
}

# the finished-pod scenario (a Succeeded pod, its generated claim allocated,
# reserved and protected by the finalizer) in $NS, plus a running pod "keep"
# and a claim "shared" of no pod's, reserved for gone1, keep and gone2
load_scenario() {
    local rec="$DATA/watch/finished-pod.rec.jsonl"
    jq -c .object "$rec" | sed "s/\"namespace\":\"ml\"/\"namespace\":\"$NS\"/g" >"$W/objs.jsonl"
    printf '%s\n' "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"keep\",\"namespace\":\"$NS\",\"uid\":\"u-keep\"},\"spec\":{\"nodeName\":\"node-a\",\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]},\"status\":{\"phase\":\"Running\"}}" >>"$W/objs.jsonl"
    local rf='[{"resource":"pods","name":"gone1","uid":"9b2e6f10-0000-4000-8000-0000000000a1"},{"resource":"pods","name":"keep","uid":"u-keep"},{"resource":"pods","name":"gone2","uid":"9b2e6f10-0000-4000-8000-0000000000a2"}]'
    jq -c --argjson rf "$rf" 'select(.object.kind == "ResourceClaim") | .object
        | .metadata.name = "shared" | del(.metadata.ownerReferences, .metadata.annotations, .metadata.generateName, .metadata.uid, .metadata.resourceVersion)
        | .status.reservedFor = $rf' "$rec" | sed "s/\"namespace\":\"ml\"/\"namespace\":\"$NS\"/g" >>"$W/objs.jsonl"
    load_objects "$W/objs.jsonl"
}

dump() {
    kubectl get pods,resourceclaims -n "$NS" -o yaml >"$W/dump.yaml"
}

# claim, reservedFor names, allocated, finalizers, being deleted
state() {
    kubectl get resourceclaims -n "$NS" -o json |
        jq -c '.items[] | [.metadata.name, [.status.reservedFor[]?.name], (.status.allocation != null), (.metadata.finalizers // []), (.metadata.deletionTimestamp != null)]'
}

@test "doctor --patch=kubectl: every fix applies after the one before it, and a second run changes nothing" {
    load_scenario
    dump
    run --separate-stderr "$DRA_BIN/dra-claim" doctor --patch=kubectl "$W/dump.yaml"
    assert_failure 1
    printf '%s\n' "$output" >"$W/fix.sh"
    run sh "$W/fix.sh"
    assert_success
    run state
    # shared keeps pod keep; the finished pod's claim lost its user
    assert_line '["shared",["keep"],true,["resource.kubernetes.io/delete-protection"],false]'
    kubectl get resourceclaims -n "$NS" -o json >"$W/before.json"
    run sh "$W/fix.sh"
    assert_failure
    kubectl get resourceclaims -n "$NS" -o json >"$W/after.json"
    run diff <(jq -S . "$W/before.json") <(jq -S . "$W/after.json")
    assert_success
}

@test "doctor: each finding's own fix, run in order, applies" {
    load_scenario
    dump
    run --separate-stderr "$DRA_BIN/dra-claim" doctor "$W/dump.yaml"
    assert_failure 1
    grep '^ResourceClaim/' <<<"$output" | sed 's/^.*; fix: //' >"$W/fixes.sh"
    run sh -e "$W/fixes.sh"
    assert_success
    run state
    assert_line '["shared",["keep"],true,["resource.kubernetes.io/delete-protection"],false]'
}

@test "doctor --patch=kubectl until nothing is found: the finished pod's claim goes" {
    load_scenario
    kubectl delete pod -n "$NS" trainer --grace-period=0 --force >/dev/null 2>&1
    for pass in 1 2 3; do
        dump
        run --separate-stderr "$DRA_BIN/dra-claim" doctor --patch=kubectl "$W/dump.yaml"
        [[ $status -eq 1 ]] || break
        printf '%s\n' "$output" >"$W/fix$pass.sh"
        run sh "$W/fix$pass.sh"
        assert_success
    done
    run state
    assert_output '["shared",["keep"],true,["resource.kubernetes.io/delete-protection"],false]'
}

@test "run -- 'dra-claim release': plain objects reach the claims job's end state on the real server" {
    load_scenario
    run --separate-stderr "$DRA_BIN/dra-watch" run --once -n "$NS" --stats -v -- "$DRA_BIN/dra-claim release"
    assert_success
    run grep -E '^dra-watch: (update|delete) ' <<<"$stderr"
    assert_line --partial "update ResourceClaim $NS/trainer-gpu-hn7g7 status: status changed"
    assert_line --partial "update ResourceClaim $NS/trainer-gpu-hn7g7: object changed"
    assert_line --partial "delete ResourceClaim $NS/trainer-gpu-hn7g7: deleted"
    assert_line --partial "update ResourceClaim $NS/shared status: status changed"
    run state
    assert_output '["shared",["keep"],true,["resource.kubernetes.io/delete-protection"],false]'
    run --separate-stderr "$DRA_BIN/dra-watch" run --once -n "$NS" --stats -- "$DRA_BIN/dra-claim release -o json"
    assert_success
    [[ $stderr == *"writes=0"* ]]
}
