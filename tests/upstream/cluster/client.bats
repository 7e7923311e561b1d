#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# The client suite: dra-watch and `kubectl dra` against the real kube-apiserver
# 1.37.2 (tests/upstream/cluster.sh), with deploy/'s own roles.  The claim and
# taint-eviction controllers are not run here: the tools' jobs do their work.
load helpers

setup_file() {
    export CLUSTER_CONTROLLERS=resourcequota-controller,serviceaccount-controller,namespace-controller,garbage-collector-controller
    cluster_start "$BATS_FILE_TMPDIR/c"
}

teardown_file() {
    cluster_stop
}

setup() {
    export C=$BATS_FILE_TMPDIR/c KUBECONFIG=$BATS_FILE_TMPDIR/c/kubeconfig KUBECACHEDIR=$BATS_FILE_TMPDIR/c/kubecache
    W=$BATS_TEST_TMPDIR
    NS=t$BATS_TEST_NUMBER
}

# template NAME: a ResourceClaimTemplate in $NS, made with kubectl
template() {
    printf '%s' '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"__NAME__"},"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c"}}]}}}}' | sed "s/__NAME__/$1/" | "$KUBECTL" create -n "$NS" -f - >/dev/null
}

# the finished-pod scenario (a Succeeded pod, its generated claim allocated and
# reserved) in namespace $NS
load_finished_pod() {
    jq -c .object "$DATA/watch/finished-pod.rec.jsonl" | sed "s/\"namespace\":\"ml\"/\"namespace\":\"$NS\"/g" >"$W/objs.jsonl"
    load_objects "$W/objs.jsonl"
}

@test "deploy: every manifest applies cleanly with kubectl, client- and server-side" {
    run "$KUBECTL" apply --dry-run=server -f "$DEPLOY"
    assert_success
    # no warning but kubectl's own about the roles cluster.sh applied server-side
    [[ $(grep -c Warning <<<"$output" || true) == $(grep -c 'last-applied-configuration annotation' <<<"$output" || true) ]]
    run "$KUBECTL" apply -f "$DEPLOY"
    assert_success
    run "$KUBECTL" apply --server-side --force-conflicts -f "$DEPLOY"
    assert_success
    run "$KUBECTL" get -n dra-system cronjob/dra-claims deployment/dra-evict daemonset/dra-node -o name
    assert_success
    assert_equal "${#lines[@]}" 3
}

@test "get: the same objects as kubectl get -o json's items, in kubectl's order" {
    load_finished_pod
    for kind in pods resourceclaims resourceclaimtemplates; do
        run --separate-stderr "$DRA_BIN/dra-watch" get "$kind" -n "$NS"
        assert_success
        printf '%s\n' "$output" | jq -S . >"$W/ours"
        "$KUBECTL" get "$kind" -n "$NS" -o json | jq -S '.items[]' >"$W/theirs"
        diff -u "$W/theirs" "$W/ours"
    done
    # -A and a field selector the server evaluates
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -A --field-selector spec.nodeName=node-a
    assert_success
    assert_equal "$(jq -r .metadata.name <<<"$output")" trainer
    # paging: the tools page with limit/continue; the server's pages give the same list
    run --separate-stderr "$DRA_BIN/dra-watch" get namespaces
    assert_success
    assert_equal "$(jq -r .metadata.name <<<"$output" | sort)" "$("$KUBECTL" get namespaces -o name | sed 's|.*/||' | sort)"
}

@test "get: every DRA kind of examples/cluster as kubectl get -o json has it, defaults included" {
    load_objects "$EXAMPLES"/cluster/*.yaml
    for kind in nodes deviceclasses resourceslices resourceclaims resourceclaimtemplates devicetaintrules; do
        run --separate-stderr "$DRA_BIN/dra-watch" get "$kind" -A
        assert_success
        printf '%s\n' "$output" | jq -S 'select(. != null)' >"$W/ours"
        "$KUBECTL" get "$kind" -A -o json | jq -S '.items[]' >"$W/theirs"
        diff -u "$W/theirs" "$W/ours" || { echo "$kind differs"; false; }
    done
}

@test "snapshot and kubectl dra status/doctor/snapshot read the real server" {
    load_finished_pod
    run --separate-stderr "$DRA_BIN/dra-watch" snapshot -o jsonl -n "$NS"
    assert_success
    jq -r '.kind + " " + .metadata.name' <<<"$output" | sort >"$W/kinds"
    grep -qx "Pod trainer" "$W/kinds"
    grep -qx "ResourceClaim trainer-gpu-hn7g7" "$W/kinds"
    grep -qx "ResourceClaimTemplate single-gpu" "$W/kinds"
    PATH=$DRA_BIN:$UPSTREAM_BIN:$PATH
    cp "$ROOT/scripts/kubectl-dra" "$W/kubectl-dra"
    PATH=$W:$PATH run --separate-stderr "$KUBECTL" dra snapshot -n "$NS" -o jsonl
    assert_success
    assert_equal "$(jq -r '.kind + " " + .metadata.name' <<<"$output" | sort)" "$(cat "$W/kinds")"
    PATH=$W:$PATH run --separate-stderr "$KUBECTL" dra status -n "$NS"
    assert_success
    assert_output --partial trainer-gpu-hn7g7
    # the claim is still reserved for a pod that finished: doctor finds it
    PATH=$W:$PATH run --separate-stderr "$KUBECTL" dra doctor -n "$NS"
    assert_failure 1
    assert_output --partial trainer-gpu-hn7g7
}

@test "get -w: ADDED, MODIFIED, DELETED as the server sends them" {
    "$KUBECTL" create namespace "$NS" >/dev/null
    "$DRA_BIN/dra-watch" get resourceclaimtemplates -n "$NS" -w >"$W/ev" 2>"$W/err" &
    local pid=$!
    sleep 1
    template a
    "$KUBECTL" label resourceclaimtemplate -n "$NS" a tier=gold >/dev/null
    "$KUBECTL" delete resourceclaimtemplate -n "$NS" a >/dev/null
    wait_for 20 grep -q DELETED "$W/ev" || { kill "$pid"; cat "$W/err"; false; }
    kill "$pid"
    wait "$pid" || true
    run jq -r '.type + " " + .object.metadata.name + " " + (.object.metadata.labels.tier // "-")' "$W/ev"
    assert_output "$(printf 'ADDED a -\nMODIFIED a gold\nDELETED a gold')"
}

@test "get -w: across an API server restart on the same etcd data nothing is missed or repeated" {
    "$KUBECTL" create namespace "$NS" >/dev/null
    template before
    "$DRA_BIN/dra-watch" get resourceclaimtemplates -n "$NS" -w --stats >"$W/ev" 2>"$W/err" &
    local pid=$!
    wait_for 20 grep -q before "$W/ev"
    "$CLUSTER_SH" stop "$C"
    "$CLUSTER_SH" start "$C" >/dev/null 2>&1
    template after
    wait_for 60 grep -q '"after"' "$W/ev" || { kill "$pid"; cat "$W/err"; false; }
    kill "$pid"
    wait "$pid" || true
    run jq -r '.type + " " + .object.metadata.name' "$W/ev"
    assert_output "$(printf 'ADDED before\nADDED after')"
}

@test "run --once --job claims with deploy/'s claims role: release, unfinalize, delete" {
    load_finished_pod
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims -n "$NS" --stats -v --kubeconfig "$C/kubeconfig-claims"
    assert_success
    run grep -E '^dra-watch: (patch|delete) ' <<<"$stderr"
    assert_line --index 0 --partial "patch ResourceClaim $NS/trainer-gpu-hn7g7 status: "
    assert_line --index 1 --partial "remove finalizer"
    assert_line --index 2 --partial "delete ResourceClaim $NS/trainer-gpu-hn7g7: "
    [[ $stderr == *"writes=3 conflicts=0"* ]]
    run "$KUBECTL" get resourceclaims -n "$NS" -o name
    assert_output ""
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims -n "$NS" --stats --kubeconfig "$C/kubeconfig-claims"
    assert_success
    [[ $stderr == *"writes=0"* ]]
}

@test "RBAC: the claims job under the evict role fails with exit 3 naming the permission" {
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job claims --kubeconfig "$C/kubeconfig-evict"
    assert_failure 3
    assert_output ""
    [[ $stderr == *'"system:serviceaccount:dra-system:dra-evict" cannot list resource "resourceclaimtemplates" in API group "resource.k8s.io"'* ]]
    # kubectl's wording for the same refusal
    run "$KUBECTL" --kubeconfig "$C/kubeconfig-evict" get resourceclaimtemplates -A
    assert_failure 1
    [[ $stderr == *"$output"* || $output == *'cannot list resource "resourceclaimtemplates"'* ]]
}

@test "RBAC: the node role can list and watch pods but not write" {
    run --separate-stderr "$DRA_BIN/dra-watch" get pods -A --kubeconfig "$C/kubeconfig-node"
    assert_success
    run --separate-stderr "$DRA_BIN/dra-watch" get resourceslices --kubeconfig "$C/kubeconfig-node"
    assert_failure 3
    [[ $stderr == *'cannot list resource "resourceslices" in API group "resource.k8s.io"'* ]]
}

@test "409: a concurrent writer between the read and the write is re-read, nothing is lost" {
    load_finished_pod
    # the pipeline's first run changes the claim behind the loop's back, then asks
    # for an update carrying the version it read: the server answers 409
    cat >"$W/stage" <<STAGE
#!/bin/sh
if [ ! -e "$W/once" ]; then
    : >"$W/once"
    "$KUBECTL" label resourceclaim -n $NS trainer-gpu-hn7g7 other=writer >/dev/null
fi
jq -c 'select(.kind == "ResourceClaim") | .metadata.labels.seen = "yes"'
STAGE
    chmod +x "$W/stage"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --stats -v -n "$NS" -- "$W/stage"
    assert_success
    [[ $stderr == *"conflict on update ResourceClaim $NS/trainer-gpu-hn7g7"* ]]
    [[ $stderr == *"conflicts=1"* ]]
    run "$KUBECTL" get resourceclaim -n "$NS" trainer-gpu-hn7g7 -o json
    assert_equal "$(jq -c '.metadata.labels | {other, seen}' <<<"$output")" '{"other":"writer","seen":"yes"}'
}

@test "409: two claims jobs at the same time both succeed and the cluster ends right" {
    for i in 1 2 3 4 5; do
        jq -c ".object | select($i == 1 or .kind != \"ResourceClaimTemplate\")" "$DATA/watch/finished-pod.rec.jsonl" |
            sed -e "s/\"namespace\":\"ml\"/\"namespace\":\"$NS\"/g" -e "s/trainer/trainer$i/g" \
                -e "s/-00000000a001/-00000000a00$i/; s/-00000000c001/-00000000c00$i/"
    done >"$W/objs.jsonl"
    load_objects "$W/objs.jsonl"
    "$DRA_BIN/dra-watch" run --once --job claims --stats --kubeconfig "$C/kubeconfig-claims" >"$W/o1" 2>"$W/e1" &
    local p1=$!
    "$DRA_BIN/dra-watch" run --once --job claims --stats --kubeconfig "$C/kubeconfig-claims" >"$W/o2" 2>"$W/e2" &
    local p2=$! r1=0 r2=0
    wait "$p1" || r1=$?
    wait "$p2" || r2=$?
    assert_equal "$r1 $r2" "0 0"
    run "$KUBECTL" get resourceclaims -n "$NS" -o name
    assert_output ""
}

@test "server-side apply: the evict job's rule condition is applied as device-taint-eviction-controller" {
    # pod x's extendedResourceClaimStatus names a resource its containers do not
    # request: kube-apiserver refuses that status, so it is left out here
    jq '(.items // .) |= map(if .metadata.name == "x" then del(.status.extendedResourceClaimStatus) else . end)' \
        "$DATA/evict/claims-pods.json" >"$W/claims-pods.json"
    load_objects "$DATA/evict/slices.yaml" "$DATA/evict/rules.yaml" "$W/claims-pods.json"
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job evict --apply --now 2026-03-01T10:05:00Z --stats \
        --kubeconfig "$C/kubeconfig-evict"
    assert_success
    [[ $stderr != *Forbidden* ]]
    run "$KUBECTL" get devicetaintrules -o json --show-managed-fields
    assert_success
    jq -e '.items[] | select(.status.conditions != null) | .metadata.managedFields[]
           | select(.manager == "device-taint-eviction-controller" and .operation == "Apply" and .subresource == "status")' \
        <<<"$output" >/dev/null
    # the next pass writes nothing
    run --separate-stderr "$DRA_BIN/dra-watch" run --once --job evict --apply --now 2026-03-01T10:05:00Z --stats \
        --kubeconfig "$C/kubeconfig-evict"
    assert_success
    [[ $stderr == *"writes=0"* ]]
}

@test "quota: a claim beyond the namespace's ResourceQuota is refused by admission, exit 3" {
    load_finished_pod
    "$KUBECTL" create quota -n "$NS" claims --hard=count/resourceclaims.resource.k8s.io=1 >/dev/null
    wait_for 30 sh -c "\"$KUBECTL\" get quota -n $NS claims -o jsonpath='{.status.hard}' | grep -q resourceclaims"
    # the pod's claim exists; a second pod needs a claim from the template
    "$KUBECTL" create -n "$NS" -f - >/dev/null <<POD
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"second"},
 "spec":{"containers":[{"name":"c","image":"i"}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"single-gpu"}]}}
POD
    PATH=$DRA_BIN:$PATH run --separate-stderr "$DRA_BIN/dra-watch" run --once -n "$NS" --stats -- 'dra-claim generate --patch'
    assert_failure 3
    [[ $stderr == *'exceeded quota: claims, requested: count/resourceclaims.resource.k8s.io=1, used: count/resourceclaims.resource.k8s.io=1, limited: count/resourceclaims.resource.k8s.io=1'* ]]
}
